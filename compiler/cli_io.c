/* cli_io.c: the CLI's files: outputs written atomically or through,
 * standard input and whole files (one reader), removal of temporary
 * trees (cli.h).
 *
 * Why not fopen(path, "w"): a reader of a regular output must never see
 * it half written (make, a running autotuner reading a pack), so regular
 * files are replaced by rename.  Why not always rename: a path that is a
 * FIFO, a device or a symlink to one is where the user wants the bytes to
 * go; replacing it would turn /dev/null into a regular file (as root). */
#define _XOPEN_SOURCE 700 /* nftw, realpath */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static bool io_error(const char *prog, const char *what, const char *path, int err)
{
    if (strcmp(path, "-") == 0)
        fprintf(stderr, "%s: error: cannot %s standard output: %s\n", prog, what, strerror(err));
    else
        fprintf(stderr, "%s: error: cannot %s '%s': %s\n", prog, what, path, strerror(err));
    return false;
}

/* All of data to fd; a signal that interrupts it only ends it once cancel
 * is set.  False with errno set. */
static bool write_all(int fd, const char *data, size_t size, volatile sig_atomic_t *cancel)
{
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR && !(cancel && *cancel)) continue;
            return false;
        }
        data += n;
        size -= (size_t)n;
    }
    return true;
}

/* Opens an existing non-regular file (or a dangling symlink's target) for
 * writing, retrying a FIFO's open that a signal interrupted. */
static int open_through(const char *path, volatile sig_atomic_t *cancel)
{
    for (;;) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EINTR || (cancel && *cancel)) return fd;
    }
}

static bool write_through(const char *prog, const char *shown, const char *path, const void *data, size_t size,
                          volatile sig_atomic_t *cancel)
{
    int fd = open_through(path, cancel);
    if (fd < 0) return io_error(prog, "write", shown, errno);
    bool ok = write_all(fd, data, size, cancel);
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    return ok ? true : io_error(prog, "write", shown, err);
}

/* target: the regular file to replace (or create); mode: its permissions;
 * exists: whether it does, so that a directory where no temporary file
 * can be made (not writable, read-only) still lets a writable file be
 * written in place, as fopen would. */
static bool replace(const char *prog, const char *shown, const char *target, mode_t mode, bool exists, const void *data,
                    size_t size, volatile sig_atomic_t *cancel)
{
    size_t n = strlen(target);
    char *tmp = malloc(n + 16);
    if (!tmp) return io_error(prog, "write", shown, ENOMEM);
    memcpy(tmp, target, n);
    memcpy(tmp + n, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp); /* in the target's directory, so that rename is atomic */
    if (fd < 0) {
        int err = errno;
        free(tmp);
        if (exists && (err == EACCES || err == EPERM || err == EROFS))
            return write_through(prog, shown, target, data, size, cancel);
        return io_error(prog, "write", shown, err);
    }
    bool ok = fchmod(fd, mode) == 0 && write_all(fd, data, size, cancel);
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && cancel && *cancel) {
        ok = false;
        err = EINTR;
    }
    if (ok && rename(tmp, target) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) unlink(tmp);
    free(tmp);
    return ok ? true : io_error(prog, "write", shown, err);
}

bool cli_write_file(const char *prog, const char *path, const void *data, size_t size, volatile sig_atomic_t *cancel)
{
    if (strcmp(path, "-") == 0) {
        fflush(stdout);
        return write_all(STDOUT_FILENO, data, size, cancel) ? true : io_error(prog, "write", path, errno);
    }
    mode_t mask = umask(0);
    umask(mask);
    struct stat ls, st;
    if (lstat(path, &ls) != 0) {
        if (errno != ENOENT) return io_error(prog, "write", path, errno);
        return replace(prog, path, path, 0666 & ~mask, false, data, size, cancel); /* a new file */
    }
    if (S_ISLNK(ls.st_mode)) {
        if (stat(path, &st) != 0) {
            if (errno != ENOENT) return io_error(prog, "write", path, errno);
            return write_through(prog, path, path, data, size, cancel); /* dangling: creates its target */
        }
    } else {
        st = ls;
    }
    if (S_ISDIR(st.st_mode)) return io_error(prog, "write", path, EISDIR);
    if (!S_ISREG(st.st_mode)) return write_through(prog, path, path, data, size, cancel);
    if (!S_ISLNK(ls.st_mode)) return replace(prog, path, path, st.st_mode & 07777, true, data, size, cancel);
    char *target = realpath(path, NULL); /* replace the file the link names; the link stays */
    if (!target) return io_error(prog, "write", path, errno);
    bool ok = replace(prog, path, target, st.st_mode & 07777, true, data, size, cancel);
    free(target);
    return ok;
}

/* The whole of fd, malloc'ed and NUL terminated; NULL with errno set
 * (EFBIG: more than max bytes).  The buffer grows to one byte past max,
 * which tells a too-large input from one of exactly max bytes. */
static char *read_all(int fd, size_t max, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            if (n > max) break;
            cap = cap > max / 2 ? max + 1 : 2 * cap;
            char *nb = realloc(buf, cap + 1);
            if (!nb) break;
            buf = nb;
            continue;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        if (got == 0) {
            if (n > max) break;
            buf[n] = 0;
            *len = n;
            return buf;
        }
        n += (size_t)got;
    }
    int err = !buf ? ENOMEM : n > max ? EFBIG : errno;
    free(buf);
    errno = err;
    return NULL;
}

char *cli_read_stdin(const char *prog, size_t *len)
{
    char *text = read_all(STDIN_FILENO, CUTEC_SOURCE_MAX, len);
    if (!text && errno == EFBIG)
        fprintf(stderr, "%s: error: standard input is larger than %zu MiB\n", prog, CUTEC_SOURCE_MAX >> 20);
    else if (!text)
        fprintf(stderr, "%s: error: cannot read standard input: %s\n", prog, strerror(errno));
    return text;
}

char *cli_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    char *text = read_all(fd, (size_t)SSIZE_MAX - 1, len);
    int err = errno;
    close(fd);
    errno = err;
    return text;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void cli_remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }
