/* source.c: loading sources and the line table used by diagnostics. */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

SourceFile *source_load(Arena *a, const char *path, const char **err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        *err = strerror(errno);
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) break;
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (len < cap) break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) { free(buf); buf = NULL; break; }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (!buf || bad) {
        free(buf);
        *err = buf ? "read error" : "out of memory";
        return NULL;
    }
    SourceFile *f = source_from_string(a, path, buf, len);
    free(buf);
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
