/* eval_args.c: argument checks the builtin table (builtins.c) cannot
 * express, shared by the builtin families: a compile-time integer in a
 * range; and the one wording of an argument count (the table's, and
 * counts that depend on an argument's value).  Each reports a
 * diagnostic and returns false. */
#include "eval.h"

bool arg_static_range(Eval *e, const Node *call, const char *name, int i, const Value *v, int64_t lo, int64_t hi,
                      const char *what)
{
    if (v->kind == V_INT && v->i >= lo && v->i <= hi) return true;
    diag_error(e->diag, call->list.items[i]->loc, "%s of '%s' must be a compile-time integer in %lld..%lld, found %s",
               what, name, (long long)lo, (long long)hi, val_describe(e, v));
    return false;
}

bool builtin_arity(Eval *e, const Node *call, const char *name, int lo, int hi)
{
    if (call->list.n >= lo && call->list.n <= hi) return true;
    if (lo == hi)
        diag_error(e->diag, call->loc, "'%s' expects %d argument%s, got %d", name, lo, lo == 1 ? "" : "s",
                   call->list.n);
    else if (hi == lo + 1)
        diag_error(e->diag, call->loc, "'%s' expects %d or %d arguments, got %d", name, lo, hi, call->list.n);
    else
        diag_error(e->diag, call->loc, "'%s' expects %d to %d arguments, got %d", name, lo, hi, call->list.n);
    return false;
}
