/* builtins.h: the one table of builtin functions.  A row names the
 * builtin, the family function that evaluates it (one per file:
 * eval_builtin.c, eval_math.c, eval_tensor.c, eval_sm90.c, eval_sm90_store.c,
 * eval_atomic.c, eval_atom.c), the hardware features it needs
 * (contract/arch.h: a call on a target without them is a source
 * diagnostic, not a ptxas failure) and whether it is pure (no side
 * effects: wgmma fusion may move it).  Adding a builtin is a row in
 * builtins.c and a case in its family. */
#ifndef CUTEC_BUILTINS_H
#define CUTEC_BUILTINS_H

#include <stdbool.h>

#include "eval.h"

typedef Value (*BuiltinFn)(Eval *e, const char *name, const Node *call);

typedef struct Builtin {
    const char *name;
    BuiltinFn eval;
    unsigned features; /* CUTEC_FEAT_* the target must have */
    bool pure;
} Builtin;

/* The row of name, or NULL (then it may be a layout-algebra function). */
const Builtin *builtin_find(const char *name);

/* The family functions the table points to. */
Value core_builtin(Eval *e, const char *name, const Node *call);   /* eval_builtin.c */
Value math_builtin(Eval *e, const char *name, const Node *call);   /* eval_math.c */

#endif
