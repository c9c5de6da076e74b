/*
 * file_read.c - cutec_file_read: a whole regular file, up to a limit, into
 * memory (see file_read.h for why only regular files).
 */
#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    return "something else";
}

/* "1 GiB", "1 MiB", or bytes where the limit is no whole unit. */
static void format_limit(size_t max, char *buf, size_t len)
{
    if (max >= (1u << 30) && max % (1u << 30) == 0)
        snprintf(buf, len, "%zu GiB", max >> 30);
    else if (max >= (1u << 20) && max % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", max >> 20);
    else
        snprintf(buf, len, "%zu bytes", max);
}

static cutec_file_error too_large(const char *path, size_t max, char *why, size_t why_len)
{
    char limit[32];
    format_limit(max, limit, sizeof limit);
    snprintf(why, why_len, "'%s' is larger than %s (the limit)", path, limit);
    return CUTEC_FILE_IO;
}

cutec_file_error cutec_file_read(const char *path, size_t max, unsigned char **data, size_t *size, char *why,
                                 size_t why_len)
{
    *data = NULL;
    *size = 0;
    /* O_NONBLOCK so that opening a FIFO without a writer returns at once (it
   * is refused below); it changes nothing for a regular file. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_len, "cannot open '%s': %s", path, strerror(errno));
        return CUTEC_FILE_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_len, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return CUTEC_FILE_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "'%s' is %s, not a regular file", path, file_kind(st.st_mode));
        close(fd);
        return CUTEC_FILE_IO;
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max) {
        close(fd);
        return too_large(path, max, why, why_len);
    }
    /* st_size is only a first guess (files in /proc say 0, and a file can
   * grow while read): read until end of file, at most max + 1 bytes, so
   * that a file that grew past the limit is seen. */
    size_t cap = (size_t)st.st_size + 1, len = 0;
    unsigned char *buf = malloc(cap + 1);
    for (;;) {
        if (buf == NULL) {
            close(fd);
            snprintf(why, why_len, "out of host memory reading '%s'", path);
            return CUTEC_FILE_NO_MEMORY;
        }
        if (len > max) {
            free(buf);
            close(fd);
            return too_large(path, max, why, why_len);
        }
        if (len == cap) {
            size_t bigger = cap <= max / 2 ? cap * 2 : max + 1;
            unsigned char *b = realloc(buf, bigger + 1);
            if (b == NULL) free(buf);
            buf = b;
            cap = bigger;
            continue;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got == 0) break;
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(why, why_len, "error reading '%s': %s", path, strerror(errno));
            free(buf);
            close(fd);
            return CUTEC_FILE_IO;
        }
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return CUTEC_FILE_OK;
}
