/*
 * dtype.h - the one table of element types, shared by the compiler (names
 * in kernel descriptions), the runtime (sizes, TMA and cuBLASLt enums,
 * checks), the tools and the tests (host encode/decode, tolerances).
 * Adding a type is one row in dtype.c.  Pure C, no CUDA headers: the enum
 * values of cuda.h and library_types.h are copied as plain integers.
 */
#ifndef CUTEC_CONTRACT_DTYPE_H
#define CUTEC_CONTRACT_DTYPE_H

#include <stddef.h>
#include <stdint.h>

/* The first three equal the public cutec_dtype values (cutec/gemm.h), so
 * a public dtype converts by a cast. */
typedef enum cutec_ct {
    CUTEC_CT_NONE = 0,
    CUTEC_CT_BF16 = 1,
    CUTEC_CT_F16 = 2,
    CUTEC_CT_F32 = 3,
    CUTEC_CT_E4M3 = 4,
    CUTEC_CT_E5M2 = 5,
    CUTEC_CT_F64 = 6,
    CUTEC_CT_I32 = 7,
    CUTEC_CT_I64 = 8,
    CUTEC_CT_U32 = 9,
    CUTEC_CT_U64 = 10,
    CUTEC_CT_I16 = 11,
    CUTEC_CT_U16 = 12,
    CUTEC_CT_I8 = 13,
    CUTEC_CT_U8 = 14,
    CUTEC_CT_BOOL = 15,
    CUTEC_CT_COUNT
} cutec_ct;

typedef struct cutec_dtype_info {
    const char *name; /* the language's spelling: "bf16", "i32", "e4m3" */
    int bytes;
    int is_float; /* floating point (fp8 included) */
    int is_int;   /* integer or bool: usable in size expressions */
    int is_signed;
    int tmap;   /* CUtensorMapDataType (cuda.h); -1: TMA cannot move it */
    int cuda;   /* cudaDataType (library_types.h); -1: none */
    double eps; /* one unit in the last place at 1.0 (0 for integers) */
    double tol; /* the unit of result checks: eps, or 2^-16 for f32 and f64
                        results, whose error is the f32 accumulation's */
} cutec_dtype_info;

/* The row of t, or NULL for CUTEC_CT_NONE and values outside the table. */
const cutec_dtype_info *cutec_dtype_info_of(cutec_ct t);
/* The type named name (n bytes of it), or CUTEC_CT_NONE. */
cutec_ct cutec_dtype_from_name(const char *name, size_t n);
/* "bf16", or "?" for a value outside the table. */
const char *cutec_dtype_str(cutec_ct t);
/* Bytes of one element (0 outside the table). */
int cutec_dtype_bytes(cutec_ct t);
/* Whether t is an 8-bit float (e4m3, e5m2): a float row of one byte. */
int cutec_ct_is_fp8(cutec_ct t);

/* Host conversions for the floating types (tests, tuner checks): the
 * value of one element stored at p, and the nearest representable bits of
 * f (round to nearest even; fp8 saturates to its largest finite value). */
double cutec_dtype_load(cutec_ct t, const void *p);
void cutec_dtype_store(cutec_ct t, void *p, double f);
/* The scalar conversions the two above are made of. */
float cutec_bf16_to_float(uint16_t h);
uint16_t cutec_float_to_bf16(float f);
float cutec_f16_to_float(uint16_t h);
uint16_t cutec_float_to_f16(float f);

#endif /* CUTEC_CONTRACT_DTYPE_H */
