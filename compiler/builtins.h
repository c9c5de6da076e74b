/* builtins.h: the one table of builtin functions.  A row names the
 * builtin, the family function that evaluates it (one per file:
 * eval_builtin.c, eval_math.c, eval_tensor.c, eval_sm90.c, eval_sm90_store.c,
 * eval_atomic.c, atom_make.c, ...), the hardware features it needs
 * (contract/arch.h: a call on a target without them is a source
 * diagnostic, not a ptxas failure), whether it is pure (no side effects:
 * wgmma fusion may move it), its arguments' kinds and whether it is only
 * allowed inside a kernel.  builtin_call checks a call against its row
 * (template arguments, kernel, count, the kind of each argument, with one
 * wording) and evaluates the arguments, in order, before the family
 * function runs; the family gets them evaluated.  Adding a builtin is a
 * row in builtins.c and a case in its family. */
#ifndef CUTEC_BUILTINS_H
#define CUTEC_BUILTINS_H

#include <stdbool.h>

#include "eval.h"

/* What the checker makes of one argument (the Value the family gets). */
typedef enum BuiltinArg {
    BA_END,        /* ends a list */
    BA_EXPR,       /* any value, evaluated as is (an lvalue stays one); the family checks it */
    BA_RVALUE,     /* any value, loaded */
    BA_NODE,       /* not evaluated (V_VOID): the family evaluates the node itself */
    BA_INT,        /* an integer, static or runtime: converted to i32 (.llvm) */
    BA_CONST_INT,  /* a compile-time integer (.i) */
    BA_CONST_BOOL, /* true or false (.i) */
    BA_TYPE,       /* a scalar type (.ty) */
    BA_TENSOR,     /* a tensor view (not loaded) */
    BA_ATOM,       /* an atom, a tiled MMA or a tiled copy */
    BA_SMEM,       /* a shared-memory element; .llvm becomes its 32-bit shared address */
    BA_TMAP,       /* a tma<...> kernel parameter (not loaded, so a wrong one is described as written) */
    BA_KIND = 0xff,
    BA_OPT = 0x100, /* flag: this argument and the ones after it may be left out
                        (a variadic builtin lists its most arguments) */
} BuiltinArg;

/* The family function: name is the row's, arg[i] the evaluated argument i
 * (call->list.n of them; NULL for a row without a kind list). */
typedef Value (*BuiltinFn)(Eval *e, const char *name, const Node *call, const Value *arg);

typedef struct Builtin {
    const char *name;
    BuiltinFn eval;
    unsigned features; /* CUTEC_FEAT_* the target must have */
    bool pure;
    const BuiltinArg *args; /* BA_END-terminated; NULL: the family checks its arguments itself */
    bool kernel;            /* only allowed inside a kernel */
} Builtin;

/* The row of name, or NULL (then it may be a layout-algebra function). */
const Builtin *builtin_find(const char *name);

/* Whether the target has features; else a diagnostic at loc, "WHAT needs
 * F, which the target T lacks (--arch)" (builtins and atoms alike). */
bool builtin_target_has(Eval *e, SrcLoc loc, const char *what, unsigned features);

/* The family functions the table points to. */
Value core_builtin(Eval *e, const char *name, const Node *call, const Value *arg);       /* eval_builtin.c */
Value tensor_builtin(Eval *e, const char *name, const Node *call, const Value *arg);     /* eval_tensor.c */
Value sm90_builtin(Eval *e, const char *name, const Node *call, const Value *arg);       /* eval_sm90.c */
Value wgmma_builtin(Eval *e, const char *name, const Node *call, const Value *arg);      /* eval_wgmma.c */
Value sm90_store_builtin(Eval *e, const char *name, const Node *call, const Value *arg); /* eval_sm90_store.c */
Value atomic_builtin(Eval *e, const char *name, const Node *call, const Value *arg);     /* eval_atomic.c */
Value atom_builtin(Eval *e, const char *name, const Node *call, const Value *arg);       /* atom_make.c */
Value math_builtin(Eval *e, const char *name, const Node *call, const Value *arg);       /* eval_math.c */

#endif
