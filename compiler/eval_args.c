/* eval_args.c: argument checks shared by the builtin families (each
 * reports a diagnostic at the call or argument and returns false):
 * counts, shared-memory references, tensor maps, integers, compile-time
 * integers in a range. */
#include <string.h>

#include "codegen.h"
#include "eval.h"

bool arg_count(Eval *e, const Node *call, const char *name, int n)
{
    if (call->list.n == n) return true;
    diag_error(e->diag, call->loc, "'%s' expects %d argument%s, got %d", name, n, n == 1 ? "" : "s", call->list.n);
    return false;
}

/* a shared-memory element: its 32-bit shared address */
bool arg_smem_ref(Eval *e, const Node *arg, const char *what, LLVMValueRef *addr)
{
    Value r = eval_expr(e, arg);
    if (r.kind == V_ERROR) return false;
    if (r.kind != V_REF || r.space != SPACE_SMEM) {
        diag_error(e->diag, arg->loc, "%s must be a shared-memory element, found %s", what, val_describe(e, &r));
        return false;
    }
    *addr = LLVMBuildPtrToInt(e->cg->b, r.llvm, e->cg->t_i32, "");
    return true;
}

/* A tma<...> kernel parameter: its generic address (the descriptor). */
bool arg_tmap(Eval *e, const Node *arg, const char *name, LLVMValueRef *out)
{
    Value tm = eval_rvalue(e, arg);
    if (tm.kind == V_ERROR) return false;
    if (tm.kind != V_TMAP) {
        diag_error(e->diag, arg->loc, "'%s' needs a tma<...> parameter, found %s", name, val_describe(e, &tm));
        return false;
    }
    *out = tm.llvm;
    return true;
}

bool arg_int(Eval *e, const Node *arg, ScalarType ty, LLVMValueRef *out)
{
    Value v = eval_rvalue(e, arg);
    if (v.kind == V_ERROR) return false;
    if (!(v.kind == V_INT || (v.kind == V_DYN && type_is_int(v.ty)))) {
        diag_error(e->diag, arg->loc, "expected an integer, found %s", val_describe(e, &v));
        return false;
    }
    v = conv_to(e, v, ty, arg->loc, false); /* an i64 where an i32 goes is an error, not a truncation */
    if (v.kind == V_ERROR) return false;
    *out = v.llvm;
    return true;
}

bool arg_static_int(Eval *e, const Node *arg, int64_t lo, int64_t hi, int64_t *out, const char *what)
{
    Value v = eval_rvalue(e, arg);
    if (v.kind == V_ERROR) return false;
    if (v.kind != V_INT || v.i < lo || v.i > hi) {
        diag_error(e->diag, arg->loc, "%s must be a compile-time integer in %lld..%lld, found %s", what, (long long)lo,
                   (long long)hi, val_describe(e, &v));
        return false;
    }
    *out = v.i;
    return true;
}

