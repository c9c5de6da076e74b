/* layout_swizzle.c: CuTe's Swizzle<B,M,S>, the bit-permuting function used
 * to avoid shared-memory bank conflicts.  The B bits starting at M+max(0,S)
 * (the "YYY" mask) are XORed into the B bits starting at M-min(0,S) (the
 * "ZZZ" bits): y = x ^ shiftr(x & yyy_mask, S), where a negative S shifts
 * left.  Applied to a dynamic value it builds AND/SHR/XOR nodes. */
#include "layout_internal.h"

bool lay_swizzle_check(LaySwizzle sw, int arg, LayError *err)
{
    if (sw.b < 0 || sw.m < 0) return lay_fail(err, arg, "Sw<%d,%d,%d>: B and M must be non-negative", sw.b, sw.m, sw.s);
    int as = sw.s < 0 ? -sw.s : sw.s;
    if (as < sw.b) return lay_fail(err, arg, "Sw<%d,%d,%d>: |S| must be at least B", sw.b, sw.m, sw.s);
    if (sw.b > 62 || sw.m > 62 || as > 62 || sw.b + sw.m + as > 62)
        return lay_fail(err, arg, "Sw<%d,%d,%d>: swizzle bits past 62", sw.b, sw.m, sw.s);
    return true;
}

static int64_t yyy_mask(LaySwizzle sw)
{
    int64_t bits = ((int64_t)1 << sw.b) - 1;
    return bits << (sw.m + (sw.s > 0 ? sw.s : 0));
}

int64_t lay_swizzle_apply_static(LaySwizzle sw, int64_t x)
{
    int64_t y = x & yyy_mask(sw);
    if (sw.s >= 0)
        y >>= sw.s;
    else
        y = (int64_t)((uint64_t)y << (-sw.s));
    return x ^ y;
}

bool lay_swizzle_apply(Arena *a, LaySwizzle sw, LayInt x, LayInt *out, LayError *err)
{
    if (!lay_swizzle_check(sw, -1, err)) return false;
    if (sw.b == 0) {
        *out = x;
        return true;
    }
    if (x.is_static) {
        *out = lay_int_static(lay_swizzle_apply_static(sw, x.value));
        return true;
    }
    LayInt y;
    if (!lay_int_and(a, x, lay_int_static(yyy_mask(sw)), &y)) return lay_fail(err, -1, "swizzle failed");
    bool ok = sw.s >= 0 ? lay_int_shr(a, y, lay_int_static(sw.s), &y) : lay_int_shl(a, y, lay_int_static(-sw.s), &y);
    if (!ok || !lay_int_xor(a, x, y, out)) return lay_fail(err, -1, "swizzle failed");
    return true;
}
