/* eval_builtin.c: the core builtins (barriers, math, integer helpers; the
 * table is builtins.c) and the special registers
 * threadIdx/blockIdx/blockDim/gridDim. */
#include <string.h>

#include "codegen.h"
#include "builtins.h"
#include "eval.h"

static bool is_scalar(const Value *v) { return v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_DYN; }

static Value minmax(Eval *e, const Node *call, const Value *arg, int cmp)
{
    Value a = arg[0], b = arg[1];
    Value c = binop(e, cmp, a, b, call->loc);
    if (c.kind == V_ERROR) return c;
    if (c.kind == V_BOOL) return c.i ? a : b; /* both static */
    if (!unify_operands(e, arena_printf(e->arena, "'%s'", call->a->name), &a, &b, call->loc)) return val_error();
    return val_dyn(LLVMBuildSelect(e->cg->b, c.llvm, a.llvm, b.llvm, ""), a.ty);
}

static Value float_intrinsic(Eval *e, const Node *call, const Value *vals, const char *intr, int nargs)
{
    LLVMValueRef args[3];
    ScalarType ty = TY_F32;
    for (int i = 0; i < nargs; i++)
        if (vals[i].kind == V_DYN && vals[i].ty == TY_F64) ty = TY_F64;
    if (!e->cg) {
        diag_error(e->diag, call->loc, "'%s' is not evaluated at compile time", call->a->name);
        return val_error();
    }
    for (int i = 0; i < nargs; i++) {
        if (vals[i].kind == V_DYN && type_is_int(vals[i].ty)) {
            diag_error(e->diag, call->list.items[i]->loc, "'%s' expects a floating-point argument, found %s",
                       call->a->name, type_name(vals[i].ty));
            return val_error();
        }
        Value v = conv_to(e, vals[i], ty, call->list.items[i]->loc, false);
        if (v.kind == V_ERROR) return v;
        args[i] = v.llvm;
    }
    LLVMTypeRef t = cg_type(e->cg, ty);
    return val_dyn(cg_intrinsic(e->cg, intr, &t, 1, args, (unsigned)nargs), ty);
}

/* ceil(a / b) for any signs: C's division truncates toward zero, which
 * is the ceiling exactly when the quotient is negative or exact. */
static Value ceil_div_static(Eval *e, int64_t a, int64_t b, SrcLoc loc)
{
    if (a == INT64_MIN && b == -1) {
        diag_error(e->diag, loc, "integer overflow in 'ceil_div' (ceil_div(%lld, -1))", (long long)a);
        return val_error();
    }
    int64_t q = a / b;
    if (a % b != 0 && (a < 0) == (b < 0)) q++; /* a positive inexact quotient rounds up */
    return val_int(q);
}

/* The same at run time.  With a static divisor b > 0 (the usual case:
 * tile counts) it is the familiar (a + b - 1) / b, which LLVM's loop
 * analysis knows (exact forms without it gave the sm80 GEMM 3-5% more
 * SASS); like any runtime `+`, a + b - 1 wraps within b of the type's
 * maximum.  Otherwise: q + (r != 0 and r has b's sign). */
static Value ceil_div_runtime(Eval *e, Value a, Value b, SrcLoc loc)
{
    LLVMBuilderRef B = e->cg->b;
    if (b.kind == V_INT && b.i > 0 && a.kind == V_DYN && type_is_int(a.ty)) {
        /* (a + b - 1) / b, exact for a >= 0: the stdlib's sizes.  A negative
         * runtime dividend rounds toward zero here (not yet fixed: the exact
         * form changes every GEMM prologue, which needs a GPU run) */
        Value s = binop(e, '-', binop(e, '+', a, b, loc), val_int(1), loc);
        return binop(e, '/', s, b, loc);
    }
    Value q = binop(e, '/', a, b, loc), r = binop(e, '%', a, b, loc);
    if (q.kind == V_ERROR || r.kind == V_ERROR) return val_error();
    if (q.kind != V_DYN || !type_is_int(q.ty)) {
        diag_error(e->diag, loc, "'ceil_div' expects integers, found %s", val_describe(e, &q));
        return val_error();
    }
    LLVMTypeRef t = cg_type(e->cg, q.ty);
    LLVMValueRef zero = LLVMConstInt(t, 0, 0);
    Value bv = conv_to(e, b, q.ty, loc, false);
    if (bv.kind == V_ERROR) return bv;
    LLVMValueRef nonzero = LLVMBuildICmp(B, LLVMIntNE, r.llvm, zero, "");
    LLVMValueRef same = LLVMBuildICmp(B, LLVMIntSGE, LLVMBuildXor(B, r.llvm, bv.llvm, ""), zero, "");
    LLVMValueRef up = LLVMBuildZExt(B, LLVMBuildAnd(B, nonzero, same, ""), t, "");
    return val_dyn(LLVMBuildAdd(B, q.llvm, up, ""), q.ty);
}

Value b_sync(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call, (void)arg;
    cg_intrinsic(e->cg, "llvm.nvvm.barrier0", NULL, 0, NULL, 0);
    return (Value){.kind = V_VOID};
}

/* min (op '<'), max (op '>') */
Value b_minmax(Eval *e, const Builtin *b, const Node *call, const Value *arg) { return minmax(e, call, arg, b->op); }

/* bytes of a scalar type: static, so boxes and budgets can depend on a type parameter */
Value b_sizeof(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)e, (void)b, (void)call;
    return val_int(type_bytes(arg[0].ty));
}

Value b_ceil_div(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    Value x = arg[0], y = arg[1];
    if (x.kind == V_LAY || y.kind == V_LAY) return call_layout_fn(e, b->name, call);
    if (y.kind == V_INT && y.i == 0) {
        diag_error(e->diag, call->list.items[1]->loc, "ceil_div by zero");
        return val_error();
    }
    if (x.kind == V_INT && y.kind == V_INT) return ceil_div_static(e, x.i, y.i, call->loc);
    /* the rest is computed at run time: integers only, and only where there
     * is code to emit (`cutec eval` has none: ceil_div(622, 2e312) reached
     * the builder there) */
    for (int i = 0; i < 2; i++) {
        const Value *v = i == 0 ? &x : &y;
        if (v->kind == V_ERROR) return val_error();
        if (v->kind != V_INT && !(v->kind == V_DYN && type_is_int(v->ty))) {
            diag_error(e->diag, call->list.items[i]->loc, "'ceil_div' expects integers, found %s", val_describe(e, v));
            return val_error();
        }
    }
    if (!e->cg) {
        diag_error(e->diag, call->loc, "'ceil_div' is not evaluated at compile time");
        return val_error();
    }
    return ceil_div_runtime(e, x, y, call->loc);
}

Value b_abs(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value a = arg[0];
    if (a.kind == V_INT) {
        if (a.i == INT64_MIN) { /* -INT64_MIN is past int64 */
            diag_error(e->diag, call->loc, "integer overflow in 'abs' (abs(%lld))", (long long)a.i);
            return val_error();
        }
        return val_int(a.i < 0 ? -a.i : a.i);
    }
    if (a.kind == V_FLOAT) return val_float(a.f < 0 ? -a.f : a.f);
    if (a.kind == V_DYN && type_is_int(a.ty)) {
        LLVMValueRef neg = LLVMBuildNeg(e->cg->b, a.llvm, "");
        LLVMValueRef lt = LLVMBuildICmp(e->cg->b, LLVMIntSLT, a.llvm, LLVMConstInt(cg_type(e->cg, a.ty), 0, 0), "");
        return val_dyn(LLVMBuildSelect(e->cg->b, lt, neg, a.llvm, ""), a.ty);
    }
    return float_intrinsic(e, call, arg, "llvm.fabs", 1);
}

Value b_sqrt(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    return float_intrinsic(e, call, arg, "llvm.sqrt", 1);
}

Value b_fma(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    return float_intrinsic(e, call, arg, "llvm.fma", 3);
}

Value b_select(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value c = arg[0], x = arg[1], y = arg[2];
    if (c.kind == V_BOOL) return c.i ? x : y;
    if (c.kind != V_DYN || c.ty != TY_BOOL || !is_scalar(&x) || !is_scalar(&y)) {
        diag_error(e->diag, call->loc, "'select' expects (bool, value, value)");
        return val_error();
    }
    if (x.kind != V_DYN && y.kind != V_DYN) x = conv_to(e, x, x.kind == V_FLOAT ? TY_F32 : TY_I32, call->loc, false);
    if (x.kind == V_ERROR || !unify_operands(e, "'select'", &x, &y, call->loc)) return val_error();
    return val_dyn(LLVMBuildSelect(e->cg->b, c.llvm, x.llvm, y.llvm, ""), x.ty);
}

Value sreg_member(Eval *e, const char *ns, const Node *member)
{
    const char *m = member->name;
    int dim = strcmp(m, "x") == 0 ? 0 : strcmp(m, "y") == 0 ? 1 : strcmp(m, "z") == 0 ? 2 : -1;
    if (dim < 0) {
        diag_error(e->diag, member->name_loc, "'%s' has no member '%s' (expected x, y or z)", ns, m);
        return val_error();
    }
    /* with threads(...) declared, blockDim is a compile-time constant */
    if (strcmp(ns, "blockDim") == 0 && e->has_threads) return val_int(e->threads[dim]);
    if (!e->cg || !e->cg->fn) {
        diag_error(e->diag, member->loc, "'%s.%s' is only available inside a kernel", ns, m);
        return val_error();
    }
    const char *reg = strcmp(ns, "threadIdx") == 0  ? "tid"
                      : strcmp(ns, "blockIdx") == 0 ? "ctaid"
                      : strcmp(ns, "blockDim") == 0 ? "ntid"
                                                    : "nctaid";
    char intr[64];
    snprintf(intr, sizeof intr, "llvm.nvvm.read.ptx.sreg.%s.%s", reg, m);
    Value v = val_dyn(cg_intrinsic(e->cg, intr, NULL, 0, NULL, 0), TY_I32);
    v.name = arena_printf(e->arena, "%s.%s", ns, m);
    return v;
}
