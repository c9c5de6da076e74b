/*
 * tune_shapes.h - the shapes file of `cutec-tune bench`: one "NAME M N K"
 * per line, '#' starts a comment; after K, a column "batch=L" makes the
 * shape a strided batch of L problems (packed), "groups=G" a grouped
 * (mixture-of-experts) problem of G groups (not with batch=L), a column
 * "layout=ABC" (a letter r or c each for A, B as K x N, and C) gives its
 * layouts; other words are ignored.
 */
#ifndef CUTEC_TUNE_SHAPES_H
#define CUTEC_TUNE_SHAPES_H

#include <stddef.h>

#include "cutec/cutec.h"

/* A shapes file is a short list typed by hand: 1 MiB is thousands of times
 * the standard suite's, and keeps a wrong path (a pack, a log) quick to
 * refuse. */
#define TUNE_SHAPES_MAX_BYTES ((size_t)1 << 20)

typedef struct tune_shape {
    char name[64];
    long long m, n, k; /* 1 .. 2^31-1 */
    long long batch;   /* batch=L: 1 .. 2^31-1; 0: none given */
    long long groups;  /* groups=G: a grouped problem of G groups, 1 .. 2^31-1; 0: none given */
    char layout[4];    /* layout=ABC: "rcr", ...; "": none given */
    int line;          /* 1-based: names the line, and seeds its random inputs */
} tune_shape;

/* Layouts written as three letters, r (row-major) or c (column-major),
 * for A, B (as the K x N matrix) and C: "rcr" is cutec_gemm_problem_init's.
 * 0 and l[0..2], or -1 when s (len bytes) is not such a word.  Shared by
 * the shapes file's layout= column and cutec-tune's --layout. */
int tune_layouts_parse(const char *s, size_t len, cutec_layout l[3]);

/* Reads the shapes of `path`, a regular file of at most 1 MiB.  A line that
 * is neither a shape, blank nor a comment is skipped with a warning on
 * stderr (FILE:LINE: why).  Returns CUTEC_OK and a malloc'ed array of at
 * least one shape, or, with `why` saying what is wrong: CUTEC_ERR_IO (not
 * readable, not a regular file, too large), CUTEC_ERR_OUT_OF_MEMORY, or
 * CUTEC_ERR_INVALID_ARGUMENT (no shape in the file). */
cutec_status tune_shapes_read(const char *path, tune_shape **shapes, int *count, char *why, size_t why_len);

#endif /* CUTEC_TUNE_SHAPES_H */
