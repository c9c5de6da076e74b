/*
 * dtype.c - the element type table and the host conversions.  The
 * conversions are written once here for every user: the tuner's checks,
 * the GPU tests' references and the benchmark's inputs.
 */
#include "dtype.h"

#include <math.h>
#include <string.h>

/* CUtensorMapDataType (cuda.h, CUDA 13.0): UINT8 0, UINT16 1, UINT32 2,
 * INT32 3, UINT64 4, INT64 5, FLOAT16 6, FLOAT32 7, FLOAT64 8, BFLOAT16 9.
 * TMA has no fp8 type and needs none: it copies bytes (UINT8).
 * cudaDataType (library_types.h): R_32F 0, R_64F 1, R_16F 2, R_8I 3,
 * R_8U 8, R_32I 10, R_16BF 14, R_8F_E4M3 28, R_8F_E5M2 29. */
static const cutec_dtype_info table[CUTEC_CT_COUNT] = {
    [CUTEC_CT_BF16] = {"bf16", 2, 1, 0, 1, 9, 14, 0x1p-7, 0x1p-7},
    [CUTEC_CT_F16] = {"f16", 2, 1, 0, 1, 6, 2, 0x1p-10, 0x1p-10},
    [CUTEC_CT_F32] = {"f32", 4, 1, 0, 1, 7, 0, 0x1p-23, 0x1p-16},
    [CUTEC_CT_E4M3] = {"e4m3", 1, 1, 0, 1, 0, 28, 0x1p-3, 0x1p-3},
    [CUTEC_CT_E5M2] = {"e5m2", 1, 1, 0, 1, 0, 29, 0x1p-2, 0x1p-2},
    [CUTEC_CT_F64] = {"f64", 8, 1, 0, 1, 8, 1, 0x1p-52, 0x1p-16},
    [CUTEC_CT_I32] = {"i32", 4, 0, 1, 1, 3, 10, 0, 0},
    [CUTEC_CT_I64] = {"i64", 8, 0, 1, 1, 5, -1, 0, 0},
    [CUTEC_CT_U32] = {"u32", 4, 0, 1, 0, 2, -1, 0, 0},
    [CUTEC_CT_U64] = {"u64", 8, 0, 1, 0, 4, -1, 0, 0},
    [CUTEC_CT_I16] = {"i16", 2, 0, 1, 1, -1, -1, 0, 0},
    [CUTEC_CT_U16] = {"u16", 2, 0, 1, 0, 1, -1, 0, 0},
    [CUTEC_CT_I8] = {"i8", 1, 0, 1, 1, -1, 3, 0, 0},
    [CUTEC_CT_U8] = {"u8", 1, 0, 1, 0, 0, 8, 0, 0},
    [CUTEC_CT_BOOL] = {"bool", 1, 0, 1, 0, 0, -1, 0, 0},
};

const cutec_dtype_info *cutec_dtype_info_of(cutec_ct t)
{
    if ((int)t <= CUTEC_CT_NONE || (int)t >= CUTEC_CT_COUNT) return NULL;
    return &table[t];
}

cutec_ct cutec_dtype_from_name(const char *name, size_t n)
{
    for (int t = 1; t < CUTEC_CT_COUNT; t++)
        if (strlen(table[t].name) == n && memcmp(table[t].name, name, n) == 0) return (cutec_ct)t;
    return CUTEC_CT_NONE;
}

const char *cutec_dtype_str(cutec_ct t)
{
    const cutec_dtype_info *d = cutec_dtype_info_of(t);
    return d != NULL ? d->name : "?";
}

int cutec_dtype_bytes(cutec_ct t)
{
    const cutec_dtype_info *d = cutec_dtype_info_of(t);
    return d != NULL ? d->bytes : 0;
}

int cutec_ct_is_fp8(cutec_ct t)
{
    const cutec_dtype_info *d = cutec_dtype_info_of(t);
    return d != NULL && d->is_float && d->bytes == 1;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float cutec_bf16_to_float(uint16_t h) { return bits_f32((uint32_t)h << 16); }

uint16_t cutec_float_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* NaN stays NaN */
    u += 0x7fffu + ((u >> 16) & 1u);                                           /* round to nearest even */
    return (uint16_t)(u >> 16);
}

/* A small float format: ebits of exponent (bias 2^(ebits-1) - 1), mbits
 * of mantissa; ieee: the top exponent holds inf and NaN (f16, e5m2),
 * else only the all-ones pattern is NaN and the rest are finite (e4m3). */
typedef struct minifloat {
    int ebits, mbits, ieee;
} minifloat;

static const minifloat MF_F16 = {5, 10, 1}, MF_E4M3 = {4, 3, 0}, MF_E5M2 = {5, 2, 1};

static double mf_decode(minifloat m, uint32_t bits)
{
    int bias = (1 << (m.ebits - 1)) - 1;
    uint32_t sign = bits >> (m.ebits + m.mbits) & 1u;
    uint32_t e = bits >> m.mbits & ((1u << m.ebits) - 1), mant = bits & ((1u << m.mbits) - 1);
    double v;
    if (m.ieee && e == (1u << m.ebits) - 1)
        v = mant ? NAN : INFINITY;
    else if (!m.ieee && e == (1u << m.ebits) - 1 && mant == (1u << m.mbits) - 1)
        v = NAN;
    else if (e == 0)
        v = ldexp((double)mant, 1 - bias - m.mbits);
    else
        v = ldexp((double)(mant | 1u << m.mbits), (int)e - bias - m.mbits);
    return sign ? -v : v;
}

static double mf_max(minifloat m)
{
    int bias = (1 << (m.ebits - 1)) - 1;
    int emax = (1 << m.ebits) - 1 - bias - (m.ieee ? 1 : 0);
    /* e4m3's top binade loses its all-ones mantissa to NaN */
    double mant = m.ieee ? 2.0 - ldexp(1.0, -m.mbits) : 2.0 - ldexp(1.0, 1 - m.mbits);
    return ldexp(mant, emax);
}

static uint32_t mf_encode(minifloat m, double f)
{
    int bias = (1 << (m.ebits - 1)) - 1;
    uint32_t sign = signbit(f) ? 1u << (m.ebits + m.mbits) : 0;
    uint32_t emask = (1u << m.ebits) - 1;
    if (isnan(f)) return sign | emask << m.mbits | ((1u << m.mbits) - 1);
    double a = fabs(f);
    /* round to the format's quantum at a's binade (nearbyint: to even) */
    int e = a > 0 ? ilogb(a) : 1 - bias;
    if (e < 1 - bias) e = 1 - bias;
    a = nearbyint(ldexp(a, m.mbits - e));
    a = ldexp(a, e - m.mbits);
    if (a > mf_max(m)) return m.ieee ? sign | emask << m.mbits : sign | (emask << m.mbits) | ((1u << m.mbits) - 2);
    if (a < ldexp(1.0, 1 - bias)) /* subnormal or zero */
        return sign | (uint32_t)ldexp(a, bias - 1 + m.mbits);
    int be = ilogb(a);
    uint32_t mant = (uint32_t)(ldexp(a, m.mbits - be) - ldexp(1.0, m.mbits));
    return sign | (uint32_t)(be + bias) << m.mbits | mant;
}

float cutec_f16_to_float(uint16_t h) { return (float)mf_decode(MF_F16, h); }
uint16_t cutec_float_to_f16(float f) { return (uint16_t)mf_encode(MF_F16, f); }

double cutec_dtype_load(cutec_ct t, const void *p)
{
    uint16_t h;
    uint8_t b;
    switch (t) {
    case CUTEC_CT_BF16: memcpy(&h, p, 2); return cutec_bf16_to_float(h);
    case CUTEC_CT_F16: memcpy(&h, p, 2); return cutec_f16_to_float(h);
    case CUTEC_CT_E4M3: memcpy(&b, p, 1); return mf_decode(MF_E4M3, b);
    case CUTEC_CT_E5M2: memcpy(&b, p, 1); return mf_decode(MF_E5M2, b);
    case CUTEC_CT_F32: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case CUTEC_CT_F64: {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    default: return NAN;
    }
}

void cutec_dtype_store(cutec_ct t, void *p, double f)
{
    uint16_t h;
    uint8_t b;
    switch (t) {
    case CUTEC_CT_BF16:
        h = cutec_float_to_bf16((float)f);
        memcpy(p, &h, 2);
        return;
    case CUTEC_CT_F16:
        h = (uint16_t)mf_encode(MF_F16, f);
        memcpy(p, &h, 2);
        return;
    case CUTEC_CT_E4M3:
        b = (uint8_t)mf_encode(MF_E4M3, f);
        memcpy(p, &b, 1);
        return;
    case CUTEC_CT_E5M2:
        b = (uint8_t)mf_encode(MF_E5M2, f);
        memcpy(p, &b, 1);
        return;
    case CUTEC_CT_F32: {
        float x = (float)f;
        memcpy(p, &x, 4);
        return;
    }
    case CUTEC_CT_F64: memcpy(p, &f, 8); return;
    default: return;
    }
}
