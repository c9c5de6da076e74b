/* cutec/compiler.h: the compiler as a library (libcutec).  The CLI is a
 * thin layer over these calls; the runtime and tools can call them
 * in-process.  Diagnostics go to the FILE the options name; the library
 * never prints anything else and never exits.  Results come back as data:
 * output bytes, the kernels' descriptions (the contract's struct), tune
 * points as name/value pairs. */
#ifndef CUTEC_COMPILER_H
#define CUTEC_COMPILER_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUTEC_COMPILER_VERSION "0.1.0"

typedef enum cutec_emit {
    CUTEC_EMIT_TOKENS, /* the scanner's tokens, one per line */
    CUTEC_EMIT_AST,    /* the parse tree */
    CUTEC_EMIT_LL,     /* LLVM IR after optimisation */
    CUTEC_EMIT_PTX,    /* PTX text (default) */
    CUTEC_EMIT_CUBIN,  /* ELF cubin through ptxas */
} cutec_emit;

/* The largest source, a file or a text given to cutec_compile_source (the
 * CLI's standard input): a bound on memory for any input. */
#define CUTEC_SOURCE_MAX ((size_t)64 << 20)

/* Result codes; the CLI uses them as exit codes. */
typedef enum cutec_result {
    CUTEC_COMPILE_OK = 0,
    CUTEC_COMPILE_USER_ERROR = 1, /* an error in the user's source; diagnostics printed */
    CUTEC_COMPILE_USAGE = 2,      /* bad options */
    CUTEC_COMPILE_INTERNAL = 3,   /* an internal compiler error */
} cutec_result;

typedef enum cutec_warnings {
    CUTEC_WARNINGS_ON = 0, /* report warnings (default) */
    CUTEC_WARNINGS_OFF,    /* -w: report none */
    CUTEC_WARNINGS_ERROR,  /* -Werror: report them as errors, which fail the compilation */
} cutec_warnings;

typedef enum cutec_diag_format {
    CUTEC_DIAG_TEXT = 0, /* file:line:col: error: message, the line and a caret (default) */
    CUTEC_DIAG_JSON,     /* one JSON object per line: file, line, column, severity, message */
} cutec_diag_format;

typedef struct cutec_options {
    const char *arch;           /* "sm_90a" (default) or "sm_80" */
    int opt_level;              /* 0..3, default 2 (compiler.md) */
    const char *const *defines; /* "NAME=VALUE" strings */
    int ndefines;
    const char *const *include_dirs;
    int ninclude_dirs;
    const char *stdlib_dir; /* NULL: the built-in default */
    cutec_emit emit;        /* what cutec_compile_* returns; the tune calls ignore it */
    FILE *diagnostics;      /* NULL: stderr */
    FILE *time_report;      /* non-NULL: per-stage times written here (cutec --time) */
    int lineinfo;           /* non-zero: PTX .loc/.file line information (-lineinfo) */
    int fast_math;          /* non-zero: --fast-math (approximate math builtins, fast-math
                                       flags, subnormals flushed; docs/compiler.md) */
    cutec_warnings warnings;
    cutec_diag_format diag_format;
    /* non-NULL: called with the path of every source file read, the input
     * and each import, as opened (for dependency files) */
    void (*on_source)(void *ctx, const char *path);
    void *on_source_ctx;
    /* source files loaded as if the main file imported them (--import):
     * a user's epilogue functions for a stdlib template, say */
    const char *const *imports;
    int nimports;
} cutec_options;

/* The kernel contract (docs/contract.md): one kernel's arguments with
 * types, layouts and roles, tensor maps, grid, cluster, shared memory,
 * template values.  Its one definition, with its versioned writer and
 * reader, is contract/kdesc.h (on the include path of every target that
 * links the compiler); this header only refers to it, so that it does not
 * carry a second copy of the struct. */
typedef struct cutec_kdesc cutec_kdesc;

typedef struct cutec_output {
    char *data; /* malloc'ed; free with cutec_output_free */
    size_t size;
    /* PTX, LLVM IR or cubin: the description of every kernel emitted, in
     * source order (the same the PTX carries as `// cutec.` lines);
     * malloc'ed, freed by cutec_output_free */
    cutec_kdesc *kernels;
    int nkernels;
} cutec_output;

void cutec_options_init(cutec_options *o);
cutec_result cutec_compile_file(const char *path, const cutec_options *o, cutec_output *out);
/* The same for a source held in memory (standard input): `name` labels it
 * in diagnostics, and its imports are looked for from the current
 * directory.  At most CUTEC_SOURCE_MAX bytes. */
cutec_result cutec_compile_source(const char *name, const char *text, size_t len, const cutec_options *o,
                                  cutec_output *out);
void cutec_output_free(cutec_output *out);

/* ---- tune points (`cutec --list-tune`, `cutec pack`) ---- */

/* One template parameter's value, as -D takes it: {"BM", "128"}, {"T", "bf16"}. */
typedef struct cutec_define {
    const char *name;
    const char *value;
} cutec_define;

typedef struct cutec_tune_point {
    const char *kernel;
    const cutec_define *defines; /* the kernel's tune variables, in its tune clause's order */
    int ndefines;                /* 0 for a kernel without a tune clause */
} cutec_tune_point;

typedef struct cutec_tune_point_list {
    cutec_tune_point *points; /* kernels in source order, each one's points with the last variable fastest */
    size_t npoints;
    void *storage; /* owns the points and their strings */
} cutec_tune_point_list;

/* The most tune points a file may declare: the products of its kernels'
 * tune variables' numbers of values, summed (each kernel without a tune
 * clause counts one).  Beyond, listing them is an error at the tune
 * clause that passes the limit. */
#define CUTEC_TUNE_POINTS_MAX 100000

/* The tune points of every kernel of the file whose `require` conditions
 * hold, a kernel without a tune clause once.  The options' -D values set
 * the other template parameters (the conditions may read them); a tune
 * variable takes each of its values whatever -D says.  Uses o's arch,
 * defines, include and stdlib directories, diagnostics and on_source. */
cutec_result cutec_tune_points(const char *path, const cutec_options *o, cutec_tune_point_list *out);
/* The same for a source in memory, as cutec_compile_source. */
cutec_result cutec_tune_points_source(const char *name, const char *text, size_t len, const cutec_options *o,
                                      cutec_tune_point_list *out);
void cutec_tune_point_list_free(cutec_tune_point_list *list);

/* ---- ptxas ---- */

/* The ptxas cutec uses: $CUTEC_PTXAS, $CUDA_HOME/bin/ptxas,
 * /usr/local/cuda/bin/ptxas, or ptxas on PATH; NULL when there is none. */
const char *cutec_ptxas_path(void);
/* PTX text to a cubin for arch in out->data (what CUTEC_EMIT_CUBIN does
 * after code generation, for a PTX text at hand).  On failure *log
 * (malloc'ed, may be NULL) holds ptxas's messages, and the result is
 * CUTEC_COMPILE_USAGE without a ptxas, else CUTEC_COMPILE_INTERNAL; on
 * success *log holds what ptxas said of a program it assembled (a
 * serialized wgmma, a spill: ptxas runs with -warn-spills), or is NULL. */
cutec_result cutec_assemble(const char *ptx, size_t len, const char *arch, cutec_output *out, char **log);

typedef enum cutec_eval_render {
    CUTEC_EVAL_VALUE, /* the value in CuTe notation, e.g. "(4,(2,3)):(2,(1,8))" */
    CUTEC_EVAL_TABLE, /* a rank-2 layout's index table, as CuTe's print_layout */
    CUTEC_EVAL_SVG,   /* an SVG picture of the layout, as CuTe's print_svg */
} cutec_eval_render;

/* Evaluate a compile-time expression of the language (`cutec eval`). */
cutec_result cutec_eval(const char *expr, cutec_eval_render render, cutec_output *out, FILE *diagnostics);

#ifdef __cplusplus
}
#endif
#endif
