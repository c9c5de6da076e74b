/* test_math_ulp.c: the exact math builtins' IR (compiler/math_ir.c), built
 * for the host and run through LLVM's JIT, against libm in double
 * precision.  Each function goes over the whole f32 line (every 1031st bit
 * pattern, both signs), densely over [1/8, 32) of both signs (every 31st)
 * and through the special values; the largest error in ulps must stay
 * within the bound docs/language.md gives, and the special values must
 * come out as C's libm has them.  Prints each function's largest error and
 * where it occurs. */
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/Target.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math_ir.h"

static double sigmoid_ref(double x) { return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x)); }

/* The reference and the documented bound of each function (docs/language.md) */
static const struct {
    const char *name;
    double (*ref)(double);
    double max_ulp;
} funcs[] = {
    {"exp", exp, 1.0},   {"exp2", exp2, 1.0}, {"log", log, 1.0},
    {"tanh", tanh, 1.0}, {"erf", erf, 2.0},   {"sigmoid", sigmoid_ref, 1.5},
};

typedef float (*F32Fn)(float);

static int failures;

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* |got - ref| in units in the last place of f32 at ref (subnormals: 2^-149) */
static double ulp_error(float got, double ref)
{
    if (isnan(ref)) return isnan(got) ? 0 : INFINITY;
    if (isnan(got)) return INFINITY;
    float rf = (float)ref;
    if (isinf(got)) return got == rf ? 0 : INFINITY;
    double a = fabs(ref) < FLT_MAX ? fabs(ref) : FLT_MAX;
    int e = a < FLT_MIN ? -126 : ilogb(a);
    return fabs((double)got - ref) / ldexp(1.0, e - 23);
}

/* float f(float x) { return NAME(x); } in a module of its own, JIT-compiled */
static F32Fn build(const MathFn *fn, LLVMExecutionEngineRef *ee)
{
    LLVMContextRef ctx = LLVMGetGlobalContext();
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext(fn->name, ctx);
    LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx);
    LLVMValueRef f = LLVMAddFunction(mod, "f", LLVMFunctionType(f32, &f32, 1, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
    MathIR m;
    mathir_init(&m, mod, b);
    LLVMBuildRet(b, fn->emit(&m, LLVMGetParam(f, 0)));
    LLVMDisposeBuilder(b);
    char *err = NULL;
    if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &err)) {
        fprintf(stderr, "%s: invalid IR: %s\n", fn->name, err);
        LLVMDisposeMessage(err);
        return NULL;
    }
    LLVMDisposeMessage(err);
    struct LLVMMCJITCompilerOptions opt;
    LLVMInitializeMCJITCompilerOptions(&opt, sizeof opt);
    opt.OptLevel = 2;
    if (LLVMCreateMCJITCompilerForModule(ee, mod, &opt, sizeof opt, &err)) {
        fprintf(stderr, "%s: no JIT: %s\n", fn->name, err);
        LLVMDisposeMessage(err);
        return NULL;
    }
    uint64_t addr = LLVMGetFunctionAddress(*ee, "f");
    F32Fn out;
    memcpy(&out, &addr, sizeof out);
    return out;
}

typedef struct Worst {
    double ulp;
    float at;
    long n;
} Worst;

static void check_one(F32Fn f, double (*ref)(double), float x, Worst *w)
{
    double err = ulp_error(f(x), ref((double)x));
    w->n++;
    if (err > w->ulp || isnan(err)) {
        w->ulp = err;
        w->at = x;
    }
}

/* bit patterns from lo up to hi (exclusive) every stride, both signs */
static void sweep(F32Fn f, double (*ref)(double), uint32_t lo, uint32_t hi, uint32_t stride, Worst *w)
{
    for (uint64_t u = lo; u < hi; u += stride) {
        check_one(f, ref, from_bits((uint32_t)u), w);
        check_one(f, ref, from_bits((uint32_t)u | 0x80000000u), w);
    }
}

static void special(F32Fn f, double (*ref)(double), const char *name)
{
    static const float xs[] = {0.0f,     -0.0f, INFINITY, -INFINITY, NAN,    0x1p-149f, -0x1p-149f, 0x1p-126f, FLT_MAX,
                               -FLT_MAX, 1.0f,  -1.0f,    88.72f,    88.73f, -87.5f,    -103.9f,    128.0f,    -149.0f,
                               -150.0f,  9.0f,  10.0f,    3.92f,     4.0f,   1e-30f,    -1e-30f};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        float got = f(xs[i]);
        double want = ref((double)xs[i]);
        float wf = (float)want;
        /* zeros and infinities exactly, signs included */
        bool exact_kind = wf == 0 || isinf(wf) || isnan(wf);
        bool ok = exact_kind ? (isnan(wf) ? isnan(got) : to_bits(got) == to_bits(wf)) : ulp_error(got, want) <= 2;
        if (!ok) {
            fprintf(stderr, "FAIL %s(%a) = %a, libm says %a\n", name, (double)xs[i], (double)got, want);
            failures++;
        }
    }
}

/* test_math_ulp [STRIDE]: a smaller stride over the whole line (1 is
 * every float; minutes) for the figures docs/language.md gives */
int main(int argc, char **argv)
{
    unsigned long stride = argc > 1 ? strtoul(argv[1], NULL, 10) : 1031;
    if (stride == 0) stride = 1;
    LLVMLinkInMCJIT();
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
        fprintf(stderr, "no native target\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++) {
        const MathFn *fn = mathir_find(funcs[i].name);
        LLVMExecutionEngineRef ee = NULL;
        F32Fn f = fn ? build(fn, &ee) : NULL;
        if (!f) {
            fprintf(stderr, "FAIL %s: not built\n", funcs[i].name);
            failures++;
            continue;
        }
        Worst w = {0};
        sweep(f, funcs[i].ref, 0, 0x7f800000u, (uint32_t)stride, &w);    /* every finite magnitude */
        sweep(f, funcs[i].ref, to_bits(0.125f), to_bits(32.0f), 31, &w); /* where results vary most */
        special(f, funcs[i].ref, funcs[i].name);
        bool ok = w.ulp <= funcs[i].max_ulp;
        printf("%s %-8s max %.3f ulp at %a (bound %.1f, %ld inputs)\n", ok ? "ok  " : "FAIL", funcs[i].name, w.ulp,
               (double)w.at, funcs[i].max_ulp, w.n);
        if (!ok) failures++;
        LLVMDisposeExecutionEngine(ee);
    }
    int n;
    mathir_all(&n);
    if (n != (int)(sizeof funcs / sizeof funcs[0])) {
        fprintf(stderr, "FAIL: math_ir.c has %d functions, this test measures %zu\n", n,
                sizeof funcs / sizeof funcs[0]);
        failures++;
    }
    return failures ? 1 : 0;
}
