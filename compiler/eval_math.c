/* eval_math.c: the math builtins for epilogues (the rows are in
 * builtins.c): exp, exp2, log, tanh, erf, sigmoid, rsqrt, clamp, and the
 * fast forms fast_exp ... fast_rsqrt.  The exact forms are math_ir.c's
 * polynomials (f32; rsqrt also f64); the fast forms are the GPU's
 * approximate instructions, which --fast-math substitutes for the exact
 * ones (docs/language.md, "Math builtins"). */
#include <string.h>

#include "builtins.h"
#include "codegen.h"
#include "eval.h"
#include "math_ir.h"
#include "program.h"

#define LOG2E 0x1.715476p+0
#define LN2   0x1.62e43p-1

/* max/min as the min and max builtins pick (`a > b ? a : b`), so that
 * clamp(x, lo, hi) is min(max(x, lo), hi) exactly, statics folded */
static Value pick(Eval *e, int op, Value a, Value b, SrcLoc loc)
{
    Value c = binop(e, op, a, b, loc);
    if (c.kind == V_ERROR) return c;
    if (c.kind == V_BOOL) return c.i ? a : b;
    if (!unify_operands(e, "'clamp'", &a, &b, loc)) return val_error();
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
 * __expf, __logf, tanhf under --use_fast_math; NULL: none for `base` */
static LLVMValueRef fast_form(Eval *e, const char *base, LLVMValueRef x)
{
    CG *cg = e->cg;
    if (strcmp(base, "exp2") == 0) return nvvm1(e, "llvm.nvvm.ex2.approx.ftz.f", x);
    if (strcmp(base, "exp") == 0) return nvvm1(e, "llvm.nvvm.ex2.approx.ftz.f", fmul_c(e, x, LOG2E));
    if (strcmp(base, "log") == 0) return fmul_c(e, nvvm1(e, "llvm.nvvm.lg2.approx.ftz.f", x), LN2);
    if (strcmp(base, "tanh") == 0) /* sm_75 on; LLVM 19 has no intrinsic for it */
        return cg_asm_pure(cg, cg->t_f32, &x, 1, "tanh.approx.f32 $0, $1;", "=f,f");
    if (strcmp(base, "sigmoid") == 0) {
        LLVMValueRef z = nvvm1(e, "llvm.nvvm.ex2.approx.ftz.f", fmul_c(e, x, -LOG2E));
        return nvvm1(e, "llvm.nvvm.rcp.approx.ftz.f", LLVMBuildFAdd(cg->b, z, LLVMConstReal(cg->t_f32, 1.0), ""));
    }
    if (strcmp(base, "rsqrt") == 0) return nvvm1(e, "llvm.nvvm.rsqrt.approx.ftz.f", x);
    return NULL;
}

/* exp, exp2, log, tanh, erf, sigmoid, rsqrt, clamp and fast_* (builtins.c:
 * the table checked the count and evaluated the arguments, in args) */
Value math_builtin(Eval *e, const char *name, const Node *call, const Value *args)
{
    if (strcmp(name, "clamp") == 0) return clamp(e, call, args);
    const Node *arg = call->list.items[0];
    Value x = args[0];
    bool number = x.kind == V_INT || x.kind == V_FLOAT || (x.kind == V_DYN && type_is_float(x.ty));
    if (!number) {
        diag_error(e->diag, arg->loc, "'%s' expects a floating-point argument, found %s", name, val_describe(e, &x));
        return val_error();
    }
    if (!e->cg) {
        diag_error(e->diag, call->loc, "'%s' is not evaluated at compile time", name);
        return val_error();
    }
    bool explicit_fast = strncmp(name, "fast_", 5) == 0;
    const char *base = explicit_fast ? name + 5 : name;
    bool fast = explicit_fast || (e->prog && e->prog->fast_math);
    bool rsqrt = strcmp(base, "rsqrt") == 0;
    ScalarType ty = x.kind == V_DYN && x.ty == TY_F64 ? TY_F64 : TY_F32;
    if (ty == TY_F64 && !rsqrt) {
        diag_error(e->diag, arg->loc,
                   "'%s' is implemented for f32 only (f16 and bf16 compute in f32); convert with f32(...)", name);
        return val_error();
    }
    Value v = conv_to(e, x, ty, arg->loc, false); /* f16, bf16, fp8 and static numbers widen */
    if (v.kind == V_ERROR) return v;
    CG *cg = e->cg;
    if (rsqrt) {
        if (fast)
            return val_dyn(nvvm1(e, ty == TY_F64 ? "llvm.nvvm.rsqrt.approx.d" : "llvm.nvvm.rsqrt.approx.ftz.f", v.llvm),
                           ty);
        LLVMTypeRef t = cg_type(cg, ty);
        LLVMValueRef root = cg_intrinsic(cg, "llvm.sqrt", &t, 1, &v.llvm, 1);
        return val_dyn(LLVMBuildFDiv(cg->b, LLVMConstReal(t, 1.0), root, ""), ty);
    }
    LLVMValueRef r = fast ? fast_form(e, base, v.llvm) : NULL;
    if (!r) {
        MathIR m;
        mathir_init(&m, cg->mod, cg->b);
        r = mathir_find(base)->emit(&m, v.llvm);
    }
    return val_dyn(r, TY_F32);
}
