/* source.h: source files and locations.  A SourceFile owns its text (NUL
 * terminated, may contain other NULs) and a line table for caret
 * diagnostics; SrcLoc is a range inside one file (1-based, inclusive). */
#ifndef CUTEC_SOURCE_H
#define CUTEC_SOURCE_H

#include <stddef.h>
#include "arena.h"

typedef struct SourceFile {
    const char *name; /* as given on the command line or resolved by import */
    const char *text;
    size_t len;
    size_t *line_starts; /* offsets of each line's first byte */
    int nlines;
} SourceFile;

/* Field order matches bison's default YYLTYPE initialiser {1, 1, 1, 1}. */
typedef struct SrcLoc {
    int first_line, first_column, last_line, last_column;
    const SourceFile *file;
} SrcLoc;

/* The largest source file, a bound on memory for any input
 * (docs/compiler.md); the public API's CUTEC_SOURCE_MAX (source.c checks). */
#define SOURCE_MAX_BYTES ((size_t)64 << 20)

/* NULL with *err set to the reason (a strerror text, "not a regular
 * file", or the size limit) if the file cannot be read.  Only regular
 * files of at most SOURCE_MAX_BYTES are read. */
SourceFile *source_load(Arena *a, const char *path, const char **err);
SourceFile *source_from_string(Arena *a, const char *name, const char *text, size_t len);
/* The text of line `line` (1-based) without its newline; *len set. */
const char *source_line(const SourceFile *f, int line, size_t *len);

#endif
