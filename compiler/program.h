/* program.h: a whole compilation unit: the main source, its imports, the
 * top-level symbols of all of them, and the -D template values.  This is
 * the semantic analysis that runs before evaluation: imports are resolved
 * and parsed once each, duplicate definitions are reported, and -D values
 * are parsed and matched to template parameters. */
#ifndef CUTEC_PROGRAM_H
#define CUTEC_PROGRAM_H

#include <stdbool.h>
#include <stdio.h>
#include "ast.h"
#include "diag.h"
#include "eval.h"

typedef struct Define {
    const char *name;
    const char *text; /* the VALUE of -D NAME=VALUE */
    Node *expr;       /* parsed VALUE */
    bool used;
} Define;

typedef struct TopSym {
    const char *name;
    Node *node; /* N_KERNEL, N_FUNC or N_CONST */
    int state;  /* N_CONST: 0 not evaluated, 1 evaluating, 2 done */
    int walk;   /* N_CONST: eval_const.c's dependency walk: 0, 1 on its stack, 2 done */
    Value value;
} TopSym;

struct Program {
    Arena *arena;
    Diag *diag;
    Node *main; /* N_PROGRAM of the main file */
    const SourceFile *main_file;
    const char **include_dirs;
    int ninclude;
    const char *const *imports; /* files imported by the main file as well as its own imports (--import) */
    int nimports;
    const char *stdlib_dir;
    const struct cutec_arch_info *arch; /* the target (contract/arch.h); NULL: any */
    bool fast_math;                     /* --fast-math: the math builtins take their fast forms */
    FILE *token_dump;                   /* --emit=tokens */
    /* non-NULL: told the path of every file read, as opened (-MD) */
    void (*on_source)(void *ctx, const char *path);
    void *on_source_ctx;
    TopSym *syms;
    int nsyms, capsyms;
    int *symtab;         /* open addressing: index into syms + 1, 0 empty */
    int capsymtab;       /* a power of two, at least twice nsyms */
    const char **loaded; /* resolved paths already parsed */
    int nloaded, caploaded;
    Define *defines;
    int ndefines;
};

/* Parses the main file and everything it imports; false on any error. */
bool program_load(Program *p, const char *path);
/* The same with the main file's text given (standard input), named `name`
 * in diagnostics; its imports are looked for as if it were in the current
 * directory. */
bool program_load_text(Program *p, const char *name, const char *text, size_t len);
/* Parses -D values; false (with diagnostics) on a malformed one. */
bool program_parse_defines(Program *p, const char **defs, int ndefs);
TopSym *program_lookup(Program *p, const char *name);
/* The value of top-level constant s, evaluated on first use (eval_const.c). */
Value eval_const(Eval *e, TopSym *s);
Define *program_define(Program *p, const char *name);
/* Parse a standalone expression (for `cutec eval` and -D). */
Node *parse_expression(Arena *a, Diag *d, const char *name, const char *text);

#endif
