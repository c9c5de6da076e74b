/* math_ir.c: the exact f32 math functions as LLVM IR (math_ir.h).
 *
 * Every multiply-add is an explicit fma: NVPTX contracts a separate fmul
 * and fadd into fma on its own, and explicit fmas make the GPU compute
 * what the host does when tests/math runs this IR, bit for bit.  Special
 * values (NaN, infinities, zeros, subnormals) follow C's libm. */
#include "math_ir.h"

#include <string.h>

/* scripts/math_coeffs.py prints these (highest degree first) */
static const float EXP_TAYLOR[] = {0x1.a01a02p-13f, 0x1.6c16c2p-10f, 0x1.111112p-7f, 0x1.555556p-5f,
                                   0x1.555556p-3f,  0x1p-1f,         0x1p+0f,        0x1p+0f};
static const float EXP2_TAYLOR[] = {0x1.ffcbfcp-17f, 0x1.430912p-13f, 0x1.5d87fep-10f, 0x1.3b2ab6p-7f,
                                    0x1.c6b08ep-5f,  0x1.ebfbep-3f,   0x1.62e43p-1f,   0x1p+0f};
static const float LOG_ATANH[] = {0x1.c71c72p-3f, 0x1.24924ap-2f, 0x1.99999ap-2f, 0x1.555556p-1f};
static const float TANH_SMALL[] = {-0x1.988704p-8f, 0x1.58b0acp-6f,  -0x1.b91388p-5f,
                                   0x1.110c78p-3f,  -0x1.555546p-2f, -0x1.03d068p-30f};
static const float ERF_SMALL[] = {0x1.4a569p-14f, -0x1.a45088p-11f, 0x1.54127p-8f, -0x1.b7fabap-6f,
                                  0x1.ce2d1p-4f,  -0x1.81273ep-2f,  0x1.06eba8p-3f};
static const float ERF_LARGE[] = {-0x1.45ac78p-24f, 0x1.b1ade4p-20f, -0x1.b1b6e2p-17f, 0x1.44964ep-14f,
                                  -0x1.b93b66p-12f, 0x1.1bcb0cp-9f,  -0x1.63cc74p-7f,  -0x1.e34608p-1f,
                                  -0x1.569252p+2f,  -0x1.f3a2dcp+2f};

/* ln 2 in two parts: k * LN2_HI is exact for the |k| <= 151 of the
 * reductions (LN2_HI has 17 significant bits and x - k * LN2_HI is a
 * multiple of 2^-17 below 1/2), so only the tiny LN2_LO term rounds */
#define LN2_HI 0x1.62e4p-1
#define LN2_LO 0x1.7f7d1cp-20
#define LOG2E  0x1.715476p+0

#define NCOEF(c) ((int)(sizeof c / sizeof c[0]))

static LLVMValueRef cf(MathIR *m, double v) { return LLVMConstReal(m->f32, v); }
static LLVMValueRef ci(MathIR *m, long long v) { return LLVMConstInt(m->i32, (unsigned long long)v, 1); }

static LLVMValueRef call_f32(MathIR *m, const char *name, LLVMValueRef *args, unsigned n)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMTypeRef ov = m->f32;
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m->mod, id, &ov, 1);
    LLVMTypeRef fty = LLVMIntrinsicGetType(LLVMGetModuleContext(m->mod), id, &ov, 1);
    return LLVMBuildCall2(m->b, fty, fn, args, n, "");
}

static LLVMValueRef fma3(MathIR *m, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    LLVMValueRef args[3] = {a, b, c};
    return call_f32(m, "llvm.fma", args, 3);
}

static LLVMValueRef rint1(MathIR *m, LLVMValueRef x) { return call_f32(m, "llvm.rint", &x, 1); }
static LLVMValueRef fabs1(MathIR *m, LLVMValueRef x) { return call_f32(m, "llvm.fabs", &x, 1); }

/* c[0] x^(n-1) + ... + c[n-1] by Horner's rule, one fma a step */
static LLVMValueRef horner(MathIR *m, LLVMValueRef x, const float *c, int n)
{
    LLVMValueRef r = cf(m, c[0]);
    for (int i = 1; i < n; i++) r = fma3(m, r, x, cf(m, c[i]));
    return r;
}

static LLVMValueRef bits(MathIR *m, LLVMValueRef x) { return LLVMBuildBitCast(m->b, x, m->i32, ""); }
static LLVMValueRef from_bits(MathIR *m, LLVMValueRef i) { return LLVMBuildBitCast(m->b, i, m->f32, ""); }

static LLVMValueRef fcmp(MathIR *m, LLVMRealPredicate p, LLVMValueRef x, double c)
{
    return LLVMBuildFCmp(m->b, p, x, cf(m, c), "");
}

/* x limited to [lo, hi]; NaN stays NaN (both comparisons are false) */
static LLVMValueRef clampf(MathIR *m, LLVMValueRef x, double lo, double hi)
{
    x = LLVMBuildSelect(m->b, fcmp(m, LLVMRealOGT, x, hi), cf(m, hi), x, "");
    return LLVMBuildSelect(m->b, fcmp(m, LLVMRealOLT, x, lo), cf(m, lo), x, "");
}

/* NaN in, NaN out: the reductions turn NaN into an integer, which LLVM
 * leaves undefined, so the result is chosen past them */
static LLVMValueRef nan_through(MathIR *m, LLVMValueRef x, LLVMValueRef r)
{
    return LLVMBuildSelect(m->b, LLVMBuildFCmp(m->b, LLVMRealUNO, x, x, ""), x, r, "");
}

/* 2^e as a float, e in [-126, 127] */
static LLVMValueRef pow2i(MathIR *m, LLVMValueRef e)
{
    return from_bits(m, LLVMBuildShl(m->b, LLVMBuildAdd(m->b, e, ci(m, 127), ""), ci(m, 23), ""));
}

/* p 2^k, k in [-151, 129], by two normal powers of two: p 2^(k/2) is
 * exact, so a subnormal result rounds once */
static LLVMValueRef scale(MathIR *m, LLVMValueRef p, LLVMValueRef k)
{
    LLVMValueRef h = LLVMBuildAShr(m->b, k, ci(m, 1), "");
    LLVMValueRef r = LLVMBuildFMul(m->b, p, pow2i(m, h), "");
    return LLVMBuildFMul(m->b, r, pow2i(m, LLVMBuildSub(m->b, k, h, "")), "");
}

/* x = k ln2 + f, |f| <= ln2/2 (Cody and Waite): k as a float */
static LLVMValueRef reduce_ln2(MathIR *m, LLVMValueRef x, LLVMValueRef *f)
{
    LLVMValueRef k = rint1(m, LLVMBuildFMul(m->b, x, cf(m, LOG2E), ""));
    LLVMValueRef nk = LLVMBuildFNeg(m->b, k, "");
    *f = fma3(m, nk, cf(m, LN2_LO), fma3(m, nk, cf(m, LN2_HI), x));
    return k;
}

/* e^x: past 89 it overflows, below -104 it rounds to 0 */
static LLVMValueRef emit_exp(MathIR *m, LLVMValueRef x)
{
    LLVMValueRef f, xc = clampf(m, x, -104.0, 89.0);
    LLVMValueRef k = reduce_ln2(m, xc, &f);
    LLVMValueRef p = horner(m, f, EXP_TAYLOR, NCOEF(EXP_TAYLOR));
    return nan_through(m, x, scale(m, p, LLVMBuildFPToSI(m->b, k, m->i32, "")));
}

/* 2^x = 2^k 2^f, k = rint(x), f = x - k exact */
static LLVMValueRef emit_exp2(MathIR *m, LLVMValueRef x)
{
    LLVMValueRef xc = clampf(m, x, -151.0, 129.0);
    LLVMValueRef k = rint1(m, xc);
    LLVMValueRef p = horner(m, LLVMBuildFSub(m->b, xc, k, ""), EXP2_TAYLOR, NCOEF(EXP2_TAYLOR));
    return nan_through(m, x, scale(m, p, LLVMBuildFPToSI(m->b, k, m->i32, "")));
}

/* e^y - 1 for y in [0, 20], accurate near 0: 2^k (e^f - 1) + (2^k - 1) */
static LLVMValueRef expm1_pos(MathIR *m, LLVMValueRef y)
{
    LLVMValueRef f, k = reduce_ln2(m, y, &f);
    /* (e^f - 1) / f to degree 6, times f */
    LLVMValueRef q = LLVMBuildFMul(m->b, horner(m, f, EXP_TAYLOR, NCOEF(EXP_TAYLOR) - 1), f, "");
    LLVMValueRef s = pow2i(m, LLVMBuildFPToSI(m->b, k, m->i32, ""));
    return fma3(m, s, q, LLVMBuildFSub(m->b, s, cf(m, 1.0), ""));
}

static LLVMValueRef with_sign_of(MathIR *m, LLVMValueRef mag, LLVMValueRef x)
{
    LLVMValueRef sign = LLVMBuildAnd(m->b, bits(m, x), ci(m, (long long)0x80000000u), "");
    return from_bits(m, LLVMBuildOr(m->b, bits(m, mag), sign, ""));
}

/* num / den with den = dh + dl (dl below half an ulp of dh): one
 * rounding of the quotient and one of dh + dl fewer than num / (dh + dl),
 * through the exact residual num - q dh that fma gives */
static LLVMValueRef div2(MathIR *m, LLVMValueRef num, LLVMValueRef dh, LLVMValueRef dl)
{
    LLVMValueRef q = LLVMBuildFDiv(m->b, num, dh, "");
    LLVMValueRef nq = LLVMBuildFNeg(m->b, q, "");
    LLVMValueRef res = fma3(m, nq, dl, fma3(m, nq, dh, num));
    return fma3(m, res, LLVMBuildFDiv(m->b, cf(m, 1.0), dh, ""), q);
}

/* 1 + z as dh + dl exactly, for 0 <= z (Fast2Sum: 1 >= z or the sum is z's) */
static LLVMValueRef one_plus(MathIR *m, LLVMValueRef z, LLVMValueRef *dl)
{
    LLVMValueRef one = cf(m, 1.0);
    LLVMValueRef big = LLVMBuildSelect(m->b, fcmp(m, LLVMRealOGT, z, 1.0), z, one, "");
    LLVMValueRef small = LLVMBuildSelect(m->b, fcmp(m, LLVMRealOGT, z, 1.0), one, z, "");
    LLVMValueRef dh = LLVMBuildFAdd(m->b, big, small, "");
    *dl = LLVMBuildFSub(m->b, small, LLVMBuildFSub(m->b, dh, big, ""), "");
    return dh;
}

/* tanh x = x + x P(x^2) below 0.55; above, t / (t + 2), t = e^(2|x|) - 1
 * (at least 2); 1 from 2|x| = 20 on */
static LLVMValueRef emit_tanh(MathIR *m, LLVMValueRef x)
{
    LLVMValueRef a = fabs1(m, x);
    LLVMValueRef small = fma3(m, a, horner(m, LLVMBuildFMul(m->b, a, a, ""), TANH_SMALL, NCOEF(TANH_SMALL)), a);
    LLVMValueRef y = clampf(m, LLVMBuildFAdd(m->b, a, a, ""), 0.0, 20.0);
    LLVMValueRef t = expm1_pos(m, y);
    LLVMValueRef dl, dh = one_plus(m, LLVMBuildFMul(m->b, t, cf(m, 0.5), ""), &dl); /* t + 2 = 2 (1 + t/2) */
    LLVMValueRef r = div2(m, LLVMBuildFMul(m->b, t, cf(m, 0.5), ""), dh, dl);
    r = LLVMBuildSelect(m->b, fcmp(m, LLVMRealOLT, a, 0.55), small, r, "");
    return nan_through(m, x, with_sign_of(m, r, x));
}

/* 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below, so that e^-|x| never
 * overflows and tiny results keep their subnormal digits */
static LLVMValueRef emit_sigmoid(MathIR *m, LLVMValueRef x)
{
    LLVMValueRef z = emit_exp(m, LLVMBuildFNeg(m->b, fabs1(m, x), ""));
    LLVMValueRef num = LLVMBuildSelect(m->b, fcmp(m, LLVMRealOLT, x, 0.0), z, cf(m, 1.0), "");
    LLVMValueRef dl, dh = one_plus(m, z, &dl);
    return nan_through(m, x, div2(m, num, dh, dl));
}

/* log x = e ln2 + log(1 + f), x = 2^e (1 + f), 1 + f in [sqrt(1/2), sqrt(2));
 * log(1 + f) = 2 atanh(s), s = f / (2 + f), |s| <= 0.1716, written as
 * f - (f^2/2 - s (f^2/2 + R)), R = 2s^2/3 + 2s^4/5 + ... (as fdlibm
 * does): f is exact and the rounded terms are a fifth of the result */
static LLVMValueRef emit_log(MathIR *m, LLVMValueRef x)
{
    LLVMBuilderRef b = m->b;
    LLVMValueRef tiny = fcmp(m, LLVMRealOLT, x, 0x1p-126); /* subnormal: scale into the normal range */
    LLVMValueRef xs = LLVMBuildSelect(b, tiny, LLVMBuildFMul(b, x, cf(m, 0x1p23), ""), x, "");
    LLVMValueRef eadj = LLVMBuildSelect(b, tiny, ci(m, -23), ci(m, 0), "");
    LLVMValueRef ix = LLVMBuildSub(b, bits(m, xs), ci(m, 0x3f3504f3), ""); /* 0x3f3504f3: sqrt(1/2) */
    LLVMValueRef e = LLVMBuildAdd(b, LLVMBuildAShr(b, ix, ci(m, 23), ""), eadj, "");
    LLVMValueRef mant = from_bits(m, LLVMBuildAdd(b, LLVMBuildAnd(b, ix, ci(m, 0x7fffff), ""), ci(m, 0x3f3504f3), ""));
    LLVMValueRef f = LLVMBuildFSub(b, mant, cf(m, 1.0), "");
    LLVMValueRef s = LLVMBuildFDiv(b, f, LLVMBuildFAdd(b, f, cf(m, 2.0), ""), "");
    LLVMValueRef z = LLVMBuildFMul(b, s, s, "");
    LLVMValueRef hfsq = LLVMBuildFMul(b, LLVMBuildFMul(b, f, cf(m, 0.5), ""), f, "");
    LLVMValueRef u = fma3(m, z, horner(m, z, LOG_ATANH, NCOEF(LOG_ATANH)), hfsq); /* f^2/2 + R */
    LLVMValueRef ef = LLVMBuildSIToFP(b, e, m->f32, "");
    LLVMValueRef t = fma3(m, s, u, LLVMBuildFMul(b, ef, cf(m, LN2_LO), ""));
    LLVMValueRef w = LLVMBuildFSub(b, LLVMBuildFSub(b, hfsq, t, ""), f, "");
    LLVMValueRef r = fma3(m, ef, cf(m, LN2_HI), LLVMBuildFNeg(b, w, ""));
    r = LLVMBuildSelect(b, fcmp(m, LLVMRealOEQ, x, 0x1p128), x, r, "");           /* log(inf) = inf */
    r = LLVMBuildSelect(b, fcmp(m, LLVMRealOEQ, x, 0.0), cf(m, -0x1p128), r, ""); /* log(+-0) = -inf */
    LLVMValueRef nan = from_bits(m, ci(m, 0x7fc00000));
    return LLVMBuildSelect(b, fcmp(m, LLVMRealULT, x, 0.0), nan, r, ""); /* negative or NaN */
}

/* erf x = x + x P(x^2) below 1; 1 - e^Q(|x| - 2.5) from 1 to 4 (Q fits
 * log erfc); 1 from 4 on, where erfc x is below half an ulp of 1 */
static LLVMValueRef emit_erf(MathIR *m, LLVMValueRef x)
{
    LLVMValueRef a = fabs1(m, x);
    LLVMValueRef small = fma3(m, x, horner(m, LLVMBuildFMul(m->b, x, x, ""), ERF_SMALL, NCOEF(ERF_SMALL)), x);
    LLVMValueRef t = LLVMBuildFSub(m->b, clampf(m, a, 1.0, 4.0), cf(m, 2.5), "");
    LLVMValueRef q = emit_exp(m, horner(m, t, ERF_LARGE, NCOEF(ERF_LARGE)));
    LLVMValueRef large = with_sign_of(m, LLVMBuildFSub(m->b, cf(m, 1.0), q, ""), x);
    return nan_through(m, x, LLVMBuildSelect(m->b, fcmp(m, LLVMRealOLT, a, 1.0), small, large, ""));
}

static const MathFn table[MATH_COUNT] = {
    [MATH_EXP] = {"exp", emit_exp},    [MATH_EXP2] = {"exp2", emit_exp2}, [MATH_LOG] = {"log", emit_log},
    [MATH_TANH] = {"tanh", emit_tanh}, [MATH_ERF] = {"erf", emit_erf},    [MATH_SIGMOID] = {"sigmoid", emit_sigmoid},
};

void mathir_init(MathIR *m, LLVMModuleRef mod, LLVMBuilderRef b)
{
    LLVMContextRef ctx = LLVMGetModuleContext(mod);
    *m = (MathIR){.mod = mod, .b = b, .f32 = LLVMFloatTypeInContext(ctx), .i32 = LLVMInt32TypeInContext(ctx)};
}

const MathFn *mathir_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0) return &table[i];
    return NULL;
}

const MathFn *mathir_get(MathId id) { return &table[id]; }

const MathFn *mathir_all(int *n)
{
    *n = (int)(sizeof table / sizeof table[0]);
    return table;
}
