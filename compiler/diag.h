/* diag.h: diagnostics.  `file:line:col: error: message`, then the source
 * line and a caret under the range.  Errors are counted, never fatal; after
 * DIAG_MAX_ERRORS the engine stops printing and says so once. */
#ifndef CUTEC_DIAG_H
#define CUTEC_DIAG_H

#include <stdbool.h>
#include <stdio.h>
#include "source.h"

enum { DIAG_MAX_ERRORS = 20 };

typedef enum DiagLevel { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

typedef struct Diag {
    FILE *out; /* where diagnostics go (stderr for the CLI) */
    int errors, warnings;
    bool color;
    bool stopped;     /* hit the error limit */
    bool json;        /* one JSON object per line instead of text and caret */
    bool no_warnings; /* -w: warnings (and their notes) are dropped */
    bool werror;      /* -Werror: warnings are reported and counted as errors */
    bool drop_notes;  /* the diagnostic these notes belong to was dropped */
    /* the last few diagnostics (location and text hash): code evaluated
     * several times (unrolled loops, inlined functions) reports once */
    unsigned long recent[8];
    int nrecent;
} Diag;

void diag_init(Diag *d, FILE *out);
void diag_at(Diag *d, DiagLevel lvl, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define diag_error(d, loc, ...)   diag_at((d), DIAG_ERROR, (loc), __VA_ARGS__)
#define diag_warning(d, loc, ...) diag_at((d), DIAG_WARNING, (loc), __VA_ARGS__)
#define diag_note(d, loc, ...)    diag_at((d), DIAG_NOTE, (loc), __VA_ARGS__)
/* An error with no source location (bad -D value, unreadable file). */
void diag_plain(Diag *d, DiagLevel lvl, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
