/* source.c: loading sources and the line table used by diagnostics.
 * Reading refuses what is not a source file: anything but a regular file
 * (a device such as /dev/zero never ends; a FIFO blocks), and more than
 * SOURCE_MAX_BYTES, checked while reading too since a file can grow.
 * Standard input is the CLI's to read (cli_read_stdin), then compiled as
 * a text (cutec_compile_source): the library reads no stream. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cutec/compiler.h"

_Static_assert(SOURCE_MAX_BYTES == CUTEC_SOURCE_MAX, "one limit on the size of a source");

SourceFile *source_from_string(Arena *a, const char *name, const char *text, size_t len)
{
    SourceFile *f = ARENA_NEW(a, SourceFile);
    f->name = arena_strdup(a, name);
    f->text = arena_memdup(a, text, len); /* memdup adds the NUL */
    f->len = len;
    int n = 1;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') n++;
    f->line_starts = ARENA_ARRAY(a, size_t, n + 1);
    int k = 0;
    f->line_starts[k++] = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') f->line_starts[k++] = i + 1;
    f->nlines = n;
    return f;
}

static const char *too_large(void) { return "larger than 64 MiB, the limit for a source file"; }

/* The whole of fd, a regular file of `size` bytes when it was checked: it
 * can grow since, so the limit holds while reading too. */
static SourceFile *read_regular(Arena *a, const char *name, int fd, size_t size, const char **err)
{
    /* one byte past the expected end (or past the limit) tells growth */
    size_t cap = size < SOURCE_MAX_BYTES ? size + 1 : SOURCE_MAX_BYTES + 1, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            if (len > SOURCE_MAX_BYTES) break;
            size_t ncap = cap * 2 > SOURCE_MAX_BYTES + 1 ? SOURCE_MAX_BYTES + 1 : cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            *err = strerror(errno);
            free(buf);
            return NULL;
        }
        if (got == 0) break;
        len += (size_t)got;
    }
    if (!buf) {
        *err = strerror(ENOMEM);
        return NULL;
    }
    if (len > SOURCE_MAX_BYTES) {
        free(buf);
        *err = too_large();
        return NULL;
    }
    SourceFile *f = source_from_string(a, name, buf, len);
    free(buf);
    return f;
}

SourceFile *source_load(Arena *a, const char *path, const char **err)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer before the
     * check below refuses it */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *err = strerror(errno);
        return NULL;
    }
    struct stat st;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        bad = strerror(EISDIR);
    else if (!S_ISREG(st.st_mode))
        bad = "not a regular file";
    else if ((uint64_t)st.st_size > SOURCE_MAX_BYTES)
        bad = too_large();
    SourceFile *f = NULL;
    if (bad)
        *err = bad;
    else
        f = read_regular(a, path, fd, (size_t)st.st_size, err);
    close(fd);
    return f;
}

const char *source_line(const SourceFile *f, int line, size_t *len)
{
    if (line < 1 || line > f->nlines) {
        *len = 0;
        return "";
    }
    size_t s = f->line_starts[line - 1];
    size_t e = s;
    while (e < f->len && f->text[e] != '\n') e++;
    if (e > s && f->text[e - 1] == '\r') e--;
    *len = e - s;
    return f->text + s;
}
