/* cutec/compiler.h: the compiler as a library (libcutec).  The CLI is a
 * thin layer over these calls; the runtime and tools can call them
 * in-process.  Diagnostics go to the FILE the options name. */
#ifndef CUTEC_COMPILER_H
#define CUTEC_COMPILER_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUTEC_COMPILER_VERSION "0.1.0"

typedef enum cutec_emit {
    CUTEC_EMIT_TOKENS,  /* the scanner's tokens, one per line */
    CUTEC_EMIT_AST,     /* the parse tree */
    CUTEC_EMIT_LL,      /* LLVM IR after optimisation */
    CUTEC_EMIT_PTX,     /* PTX text (default) */
    CUTEC_EMIT_CUBIN,   /* ELF cubin through ptxas */
    CUTEC_EMIT_TUNE,    /* the tune points of every kernel, one per line as -D options */
} cutec_emit;

/* Result codes; the CLI uses them as exit codes. */
typedef enum cutec_result {
    CUTEC_COMPILE_OK = 0,
    CUTEC_COMPILE_USER_ERROR = 1,   /* an error in the user's source; diagnostics printed */
    CUTEC_COMPILE_USAGE = 2,        /* bad options */
    CUTEC_COMPILE_INTERNAL = 3,     /* an internal compiler error */
} cutec_result;

typedef enum cutec_warnings {
    CUTEC_WARNINGS_ON = 0,          /* report warnings (default) */
    CUTEC_WARNINGS_OFF,             /* -w: report none */
    CUTEC_WARNINGS_ERROR,           /* -Werror: report them as errors, which fail the compilation */
} cutec_warnings;

typedef enum cutec_diag_format {
    CUTEC_DIAG_TEXT = 0,            /* file:line:col: error: message, the line and a caret (default) */
    CUTEC_DIAG_JSON,                /* one JSON object per line: file, line, column, severity, message */
} cutec_diag_format;

typedef struct cutec_options {
    const char *arch;               /* "sm_90a" (default) or "sm_80" */
    int opt_level;                  /* 0..3, default 2 (compiler.md) */
    const char *const *defines;     /* "NAME=VALUE" strings */
    int ndefines;
    const char *const *include_dirs;
    int ninclude_dirs;
    const char *stdlib_dir;         /* NULL: the built-in default */
    cutec_emit emit;
    FILE *diagnostics;              /* NULL: stderr */
    FILE *time_report;              /* non-NULL: per-stage times written here (cutec --time) */
    int lineinfo;                   /* non-zero: PTX .loc/.file line information (-lineinfo) */
    int fast_math;                  /* non-zero: --fast-math (approximate math builtins, fast-math
                                       flags, subnormals flushed; docs/compiler.md) */
    cutec_warnings warnings;
    cutec_diag_format diag_format;
    /* non-NULL: called with the path of every source file read, the input
     * and each import, as opened (for dependency files) */
    void (*on_source)(void *ctx, const char *path);
    void *on_source_ctx;
} cutec_options;

typedef struct cutec_output {
    char *data;                     /* malloc'ed; free with cutec_output_free */
    size_t size;
} cutec_output;

void cutec_options_init(cutec_options *o);
cutec_result cutec_compile_file(const char *path, const cutec_options *o, cutec_output *out);
/* The same for a source held in memory (standard input): `name` labels it
 * in diagnostics, and its imports are looked for from the current
 * directory. */
cutec_result cutec_compile_source(const char *name, const char *text, size_t len, const cutec_options *o,
                                  cutec_output *out);
void cutec_output_free(cutec_output *out);

typedef enum cutec_eval_render {
    CUTEC_EVAL_VALUE,   /* the value in CuTe notation, e.g. "(4,(2,3)):(2,(1,8))" */
    CUTEC_EVAL_TABLE,   /* a rank-2 layout's index table, as CuTe's print_layout */
    CUTEC_EVAL_SVG,     /* an SVG picture of the layout, as CuTe's print_svg */
} cutec_eval_render;

/* Evaluate a compile-time expression of the language (`cutec eval`). */
cutec_result cutec_eval(const char *expr, cutec_eval_render render, cutec_output *out, FILE *diagnostics);

#ifdef __cplusplus
}
#endif
#endif
