/*
 * tune_shapes.c - reading `cutec-tune bench`'s shapes file (tune_shapes.h).
 * The whole file is read and checked before the GPU is opened, so a wrong
 * path or an empty file costs nothing, and numbers are parsed digit by
 * digit against the runtime's 2^31-1 limit, never through a conversion that
 * could overflow.
 */
#include "tune_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "tune_args.h"

#define MAX_WARNINGS 10 /* then one line counts the rest */

typedef struct token {
    const char *p;
    size_t len;
} token;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Splits [p, end) into up to max words; returns how many there were. */
static int split_words(const char *p, const char *end, token *words, int max)
{
    int n = 0;
    while (p < end) {
        while (p < end && is_blank(*p)) p++;
        if (p == end) break;
        const char *w = p;
        while (p < end && !is_blank(*p)) p++;
        if (n < max) words[n] = (token){w, (size_t)(p - w)};
        n++;
    }
    return n;
}

/* A dimension: digits only, 1 .. 2^31-1. */
static int parse_dim(token t, long long *v)
{
    long long x = 0;
    for (size_t i = 0; i < t.len; i++) {
        if (t.p[i] < '0' || t.p[i] > '9') return -1;
        x = x * 10 + (t.p[i] - '0');
        if (x > TUNE_DIM_MAX) return -1;
    }
    *v = x;
    return t.len > 0 && x >= 1 ? 0 : -1;
}

/* The columns after K, a row each: "NAME=VALUE", the value read into the
 * shape (0, or -1 for a bad value). */
static int column_batch(token v, tune_shape *s) { return parse_dim(v, &s->batch); }
static int column_groups(token v, tune_shape *s) { return parse_dim(v, &s->groups); }
static int column_layout(token v, tune_shape *s)
{
    cutec_layout unused[3];
    if (tune_layouts_parse(v.p, v.len, unused) != 0) return -1;
    memcpy(s->layout, v.p, 3);
    s->layout[3] = '\0';
    return 0;
}
static const struct column {
    const char *prefix; /* with its '=' */
    size_t min_len;     /* a shorter word is another word ("batch=" alone: ignored) */
    int (*read)(token value, tune_shape *s);
    const char *expected; /* "not <expected>" on a bad value */
} columns[] = {
    {"batch=", 7, column_batch, "batch=L with L an integer from 1 to 2147483647"},
    {"groups=", 8, column_groups, "groups=G with G an integer from 1 to 2147483647"},
    {"layout=", 7, column_layout, "layout=ABC with a letter r or c each for A, B and C"},
};

/* One line (without its '\n'): 1 and *s if it holds a shape, 0 if blank or
 * a comment, -1 with why if it is something else. */
static int parse_line(const char *p, const char *end, tune_shape *s, char *why, size_t why_len)
{
    const char *hash = memchr(p, '#', (size_t)(end - p));
    token w[12];
    int n = split_words(p, hash != NULL ? hash : end, w, 12);
    if (n == 0) return 0;
    if (n < 4) {
        snprintf(why, why_len, "expected 'NAME M N K'");
        return -1;
    }
    if (w[0].len >= sizeof s->name) {
        snprintf(why, why_len, "the name is longer than %zu characters", sizeof s->name - 1);
        return -1;
    }
    memcpy(s->name, w[0].p, w[0].len);
    s->name[w[0].len] = '\0';
    long long *dims[3] = {&s->m, &s->n, &s->k};
    for (int i = 0; i < 3; i++)
        if (parse_dim(w[i + 1], dims[i]) != 0) {
            snprintf(why, why_len, "%c = '%.*s' is not an integer from 1 to %lld", "MNK"[i],
                     w[i + 1].len > 40 ? 40 : (int)w[i + 1].len, w[i + 1].p, TUNE_DIM_MAX);
            return -1;
        }
    s->batch = s->groups = 0;
    s->layout[0] = '\0';
    for (int i = 4; i < n && i < 12; i++) /* extra columns (the table); other words are ignored */
        for (size_t c = 0; c < sizeof columns / sizeof columns[0]; c++) {
            size_t pl = strlen(columns[c].prefix);
            if (w[i].len < columns[c].min_len || memcmp(w[i].p, columns[c].prefix, pl) != 0) continue;
            if (columns[c].read((token){w[i].p + pl, w[i].len - pl}, s) != 0) {
                snprintf(why, why_len, "'%.*s' is not %s", w[i].len > 40 ? 40 : (int)w[i].len, w[i].p,
                         columns[c].expected);
                return -1;
            }
        }
    if (s->batch > 0 && s->groups > 0) {
        snprintf(why, why_len, "batch=%lld and groups=%lld: a grouped problem is no batch", s->batch, s->groups);
        return -1;
    }
    return 1;
}

int tune_layouts_parse(const char *s, size_t len, cutec_layout l[3])
{
    if (len != 3) return -1;
    for (int i = 0; i < 3; i++) {
        if (s[i] != 'r' && s[i] != 'c') return -1;
        l[i] = s[i] == 'r' ? CUTEC_LAYOUT_ROW : CUTEC_LAYOUT_COL;
    }
    return 0;
}

cutec_status tune_shapes_read(const char *path, tune_shape **shapes, int *count, char *why, size_t why_len)
{
    *shapes = NULL;
    *count = 0;
    unsigned char *data;
    size_t size;
    cutec_file_error e = cutec_file_read(path, TUNE_SHAPES_MAX_BYTES, &data, &size, why, why_len);
    if (e != CUTEC_FILE_OK) return e == CUTEC_FILE_NO_MEMORY ? CUTEC_ERR_OUT_OF_MEMORY : CUTEC_ERR_IO;
    const char *text = (const char *)data, *end = text + size;
    tune_shape *list = NULL;
    int n = 0, cap = 0, skipped = 0;
    cutec_status st = CUTEC_OK;
    int line = 0;
    for (const char *p = text; p < end && st == CUTEC_OK; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl != NULL ? nl : end;
        tune_shape s = {.line = line + 1};
        char reason[128];
        int got = parse_line(p, stop, &s, reason, sizeof reason);
        p = nl != NULL ? nl + 1 : end;
        if (got < 0 && ++skipped <= MAX_WARNINGS)
            fprintf(stderr, "cutec-tune: warning: %s:%d: %s; line skipped\n", path, s.line, reason);
        if (got <= 0) continue;
        if (n == cap) {
            int bigger = cap ? 2 * cap : 16;
            tune_shape *b = realloc(list, (size_t)bigger * sizeof *b);
            if (b == NULL) {
                snprintf(why, why_len, "out of host memory reading '%s'", path);
                st = CUTEC_ERR_OUT_OF_MEMORY;
                break;
            }
            list = b;
            cap = bigger;
        }
        list[n++] = s;
    }
    if (skipped > MAX_WARNINGS)
        fprintf(stderr, "cutec-tune: warning: %s: %d more lines skipped\n", path, skipped - MAX_WARNINGS);
    free(data);
    if (st == CUTEC_OK && n == 0) {
        snprintf(why, why_len, "'%s' %s (expected lines 'NAME M N K')", path,
                 size == 0 ? "is empty" : "holds no shape");
        st = CUTEC_ERR_INVALID_ARGUMENT;
    }
    if (st != CUTEC_OK) {
        free(list);
        return st;
    }
    *shapes = list;
    *count = n;
    return CUTEC_OK;
}
