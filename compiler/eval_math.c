/* eval_math.c: the math builtins for epilogues (the rows are in
 * builtins.c): exp, exp2, log, tanh, erf, sigmoid, rsqrt, clamp, and the
 * fast forms fast_exp ... fast_rsqrt.  The exact forms are math_ir.c's
 * polynomials (f32; rsqrt also f64); the fast forms are the GPU's
 * approximate instructions, which --fast-math substitutes for the exact
 * ones (docs/language.md, "Math builtins"). */
#include "builtins.h"
#include "codegen.h"
#include "eval.h"
#include "math_ir.h"
#include "program.h"

#define LOG2E 0x1.715476p+0
#define LN2   0x1.62e43p-1

/* max/min as the min and max builtins pick (`a > b ? a : b`), so that
 * clamp(x, lo, hi) is min(max(x, lo), hi) exactly, statics folded.  Floats
 * at run time take IEEE maxNum/minNum (PTX max.f32, min.f32): the same
 * value for any x, a NaN x included (it gives lo), wherever the bounds are
 * not NaN; a select over a bound known only at run time (the GEMM
 * templates' CLAMP) would cost a compare and a select each, as LLVM cannot
 * rule out a NaN bound. */
static Value pick(Eval *e, int op, Value a, Value b, SrcLoc loc)
{
    Value c = binop(e, op, a, b, loc);
    if (c.kind == V_ERROR) return c;
    if (c.kind == V_BOOL) return c.i ? a : b;
    if (!unify_operands(e, "'clamp'", &a, &b, loc)) return val_error();
    if (type_is_float(a.ty)) {
        LLVMValueRef args[2] = {a.llvm, b.llvm};
        LLVMTypeRef t = cg_type(e->cg, a.ty);
        return val_dyn(cg_intrinsic(e->cg, op == '>' ? "llvm.maxnum" : "llvm.minnum", &t, 1, args, 2), a.ty);
    }
    return val_dyn(LLVMBuildSelect(e->cg->b, c.llvm, a.llvm, b.llvm, ""), a.ty);
}

static Value clamp(Eval *e, const Node *call, const Value *v)
{
    return pick(e, '<', pick(e, '>', v[0], v[1], call->loc), v[2], call->loc);
}

static LLVMValueRef nvvm1(Eval *e, const char *intr, LLVMValueRef x)
{
    return cg_intrinsic(e->cg, intr, NULL, 0, &x, 1);
}

static LLVMValueRef fmul_c(Eval *e, LLVMValueRef x, double c)
{
    return LLVMBuildFMul(e->cg->b, x, LLVMConstReal(e->cg->t_f32, c), "");
}

/* The approximate forms (f32; flush subnormals to zero), as CUDA's
 * __expf, __logf, tanhf under --use_fast_math, by MathId; none for erf */
static LLVMValueRef fast_exp2(Eval *e, LLVMValueRef x) { return nvvm1(e, "llvm.nvvm.ex2.approx.ftz.f", x); }
static LLVMValueRef fast_exp(Eval *e, LLVMValueRef x)
{
    return nvvm1(e, "llvm.nvvm.ex2.approx.ftz.f", fmul_c(e, x, LOG2E));
}
static LLVMValueRef fast_log(Eval *e, LLVMValueRef x)
{
    return fmul_c(e, nvvm1(e, "llvm.nvvm.lg2.approx.ftz.f", x), LN2);
}
/* sm_75 on; LLVM 19 has no intrinsic for it */
static LLVMValueRef fast_tanh(Eval *e, LLVMValueRef x)
{
    return cg_asm_pure(e->cg, e->cg->t_f32, &x, 1, "tanh.approx.f32 $0, $1;", "=f,f");
}
static LLVMValueRef fast_sigmoid(Eval *e, LLVMValueRef x)
{
    CG *cg = e->cg;
    LLVMValueRef z = nvvm1(e, "llvm.nvvm.ex2.approx.ftz.f", fmul_c(e, x, -LOG2E));
    return nvvm1(e, "llvm.nvvm.rcp.approx.ftz.f", LLVMBuildFAdd(cg->b, z, LLVMConstReal(cg->t_f32, 1.0), ""));
}
static LLVMValueRef (*const fast_forms[MATH_COUNT])(Eval *e, LLVMValueRef x) = {
    [MATH_EXP] = fast_exp,   [MATH_EXP2] = fast_exp2,       [MATH_LOG] = fast_log,
    [MATH_TANH] = fast_tanh, [MATH_SIGMOID] = fast_sigmoid,
};

/* The argument of a one-argument math builtin as f32 (or f64 where
 * f64 is allowed); false, reported, for anything else. */
static bool math_arg(Eval *e, const Builtin *b, const Node *call, const Value *args, bool f64_ok, Value *out)
{
    const Node *arg = call->list.items[0];
    Value x = args[0];
    bool number = x.kind == V_INT || x.kind == V_FLOAT || (x.kind == V_DYN && type_is_float(x.ty));
    if (!number) {
        diag_error(e->diag, arg->loc, "'%s' expects a floating-point argument, found %s", b->name, val_describe(e, &x));
        return false;
    }
    if (!e->cg) {
        diag_error(e->diag, call->loc, "'%s' is not evaluated at compile time", b->name);
        return false;
    }
    ScalarType ty = x.kind == V_DYN && x.ty == TY_F64 ? TY_F64 : TY_F32;
    if (ty == TY_F64 && !f64_ok) {
        diag_error(e->diag, arg->loc,
                   "'%s' is implemented for f32 only (f16 and bf16 compute in f32); convert with f32(...)", b->name);
        return false;
    }
    *out = conv_to(e, x, ty, arg->loc, false); /* f16, bf16, fp8 and static numbers widen */
    return out->kind != V_ERROR;
}

/* whether the row asks for the approximate form, or --fast-math does */
static bool want_fast(Eval *e, const Builtin *b) { return (b->op & BOP_FAST) || (e->prog && e->prog->fast_math); }

/* exp, exp2, log, tanh, erf, sigmoid and their fast_ forms: op is the
 * MathId, | BOP_FAST for the fast form */
Value b_math(Eval *e, const Builtin *b, const Node *call, const Value *args)
{
    Value v;
    if (!math_arg(e, b, call, args, false, &v)) return val_error();
    MathId id = (MathId)(b->op & ~BOP_FAST);
    LLVMValueRef r = want_fast(e, b) && fast_forms[id] ? fast_forms[id](e, v.llvm) : NULL;
    if (!r) {
        MathIR m;
        mathir_init(&m, e->cg->mod, e->cg->b);
        r = mathir_get(id)->emit(&m, v.llvm);
    }
    return val_dyn(r, TY_F32);
}

/* rsqrt, fast_rsqrt (op BOP_FAST): f32 or f64 */
Value b_rsqrt(Eval *e, const Builtin *b, const Node *call, const Value *args)
{
    Value v;
    if (!math_arg(e, b, call, args, true, &v)) return val_error();
    CG *cg = e->cg;
    ScalarType ty = v.ty;
    if (want_fast(e, b))
        return val_dyn(nvvm1(e, ty == TY_F64 ? "llvm.nvvm.rsqrt.approx.d" : "llvm.nvvm.rsqrt.approx.ftz.f", v.llvm),
                       ty);
    LLVMTypeRef t = cg_type(cg, ty);
    LLVMValueRef root = cg_intrinsic(cg, "llvm.sqrt", &t, 1, &v.llvm, 1);
    return val_dyn(LLVMBuildFDiv(cg->b, LLVMConstReal(t, 1.0), root, ""), ty);
}

Value b_clamp(Eval *e, const Builtin *b, const Node *call, const Value *args)
{
    (void)b;
    return clamp(e, call, args);
}
