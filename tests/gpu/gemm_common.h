/*
 * gemm_common.h - helpers shared by the GEMM GPU check (tests/gpu/gemm_check.c)
 * and the GEMM benchmark (tests/bench/gemm_bench.c): the "// cutec." kernel
 * metadata at the top of a PTX file produced by cutec, 16-bit float
 * conversions (round to nearest even) and a small deterministic RNG.
 * Everything here runs on the CPU and is exercised by `gemm_check --self-test`.
 */
#ifndef CUTEC_TESTS_GEMM_COMMON_H
#define CUTEC_TESTS_GEMM_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Element types of the GEMM kernels: the contract's dtype table
 * (contract/dtype.h), under the short names these programs use. */
#include "dtype.h"
typedef cutec_ct gemm_type;
#define GT_BF16  CUTEC_CT_BF16
#define GT_F16   CUTEC_CT_F16
#define GT_F32   CUTEC_CT_F32
#define GT_E4M3  CUTEC_CT_E4M3
#define GT_E5M2  CUTEC_CT_E5M2
#define GT_OTHER CUTEC_CT_NONE

/* The type of that name ("bf16", "e4m3", ...), GT_OTHER for NULL or an unknown name. */
gemm_type gemm_type_parse(const char *s);
const char *gemm_type_name(gemm_type t);
/* Bytes per element (0 for GT_OTHER). */
size_t gemm_type_size(gemm_type t);
/* A floating input type the GEMM checks can fill: bf16, f16, e4m3, e5m2. */
int gemm_type_is_input(gemm_type t);

/* 16-bit float encodings, round to nearest even (NaN stays NaN, overflow
 * gives infinity, f16 subnormals are produced and read). */
uint16_t gemm_f32_to_bf16(float f);
float gemm_bf16_to_f32(uint16_t h);
uint16_t gemm_f32_to_f16(float f);
float gemm_f16_to_f32(uint16_t h);
/* Reads element i of a buffer of type t (a floating type) as a double. */
double gemm_load(const void *buf, gemm_type t, size_t i);

/* splitmix64 seeding + xorshift64* stream. */
typedef struct gemm_rng {
    uint64_t s;
} gemm_rng;
void gemm_rng_seed(gemm_rng *r, uint64_t seed);
uint64_t gemm_rng_next(gemm_rng *r);
/* Uniform in [-1, 1] (53-bit resolution). */
double gemm_rng_uniform(gemm_rng *r);
/* Fills n elements of type t (gemm_type_is_input) with values uniform in
 * [-1, 1] rounded to t, never zero; when vals != NULL also stores the rounded
 * values as doubles. */
void gemm_fill_random(gemm_rng *r, gemm_type t, void *dst, double *vals, size_t n);

/* One kernel description of a PTX file: the contract the compiler wrote
 * (contract/kdesc.h), read with the runtime's own reader. */
#include "kdesc.h"
typedef cutec_kdesc gemm_kernel_meta;

/*
 * Reads every kernel description of a PTX text.  On success returns 0 and
 * a malloc'ed array (*out, *count; free() it; a text without descriptions
 * gives *count 0).  On a malformed description returns -1 with a message.
 */
int gemm_parse_meta(const char *text, size_t len, gemm_kernel_meta **out, int *count, char *err, size_t errlen);

/* Value of a template parameter, or NULL when the kernel has none of that name. */
const char *gemm_meta_param(const gemm_kernel_meta *m, const char *name);
/* Integer value of a template parameter: 0 and *v set, -1 when absent or not
 * an integer. */
int gemm_meta_int(const gemm_kernel_meta *m, const char *name, long *v);

/* A GEMM kernel point: the description plus the values the host needs. */
typedef struct gemm_point {
    gemm_kernel_meta meta;
    gemm_type t, tb, tc;  /* the element types of the tensors of roles a, b and d */
    long bm, bn, bk, vec; /* tile sizes, for choosing ragged shapes only: the
                           BM, BN, BK, VEC template values where the kernel
                           has them (else 128, 128, 0, 8) */
    char desc[512];       /* "T=bf16 TC=bf16 BM=128 ..." (every param, in order) */
} gemm_point;

/* Fills p from the description of a GEMM kernel (a `serves gemm` clause
 * and threads() required).  Returns 0, or -1 with a message. */
int gemm_point_from_meta(const gemm_kernel_meta *m, gemm_point *p, char *err, size_t errlen);

/* The kernel arguments of a GEMM point, by role (m, n, k, the leading
 * dimensions, a batch's count and strides, a, b, d, and the epilogue's
 * alpha, beta, c, bias, bias_row, aux) and, for each tensor map, the map
 * over its tensor as the description's expressions say, of the map's rank
 * (zeros for a map marked unused).  Integer scalars are passed in their
 * argument's type (i32 or i64).  The scalars and pointers args points at
 * must outlive the launch.  Returns 0, or -1 with a message. */
#include "cutec/cluster.h"
#include "cutec/tensor_map.h"
typedef struct gemm_args {
    int m, n, k;
    /* leading dimensions, for the roles lda, ldb, ldd (D) and ldc (the
     * source C) where the kernel has them; 0: packed */
    int lda, ldb, ldd, ldc;
    /* a strided batch, for the roles batch and stride_a .. stride_d (in
     * elements): batch 0 is one problem, passed to a batched kernel as a
     * batch of one with each stride its matrix's span (as the runtime does) */
    long long batch, stride_a, stride_b, stride_c, stride_d;
    unsigned long long a, b, c;
    /* a grouped GEMM (role group_ends): batch the groups, `ends` the device
     * address of their int32 row ends; A and D one matrix each (stride_a
     * and stride_d their spans), B's matrices stride_b apart */
    unsigned long long ends;
    /* a general grouped GEMM (role group_list): batch the problems, `list`
     * the device address of their rows of 16 int64 (tests/gpu/grouped_list.c) */
    unsigned long long list;
    /* the epilogue's inputs, for the roles alpha, beta, c (s), bias,
     * bias_row and aux where the kernel has them */
    float alpha, beta;
    float clamp_lo, clamp_hi; /* roles clamp_lo and clamp_hi */
    unsigned long long s, bias, bias_row, aux, scale_a, scale_b, scale_d, amax;
    /* scratch for the roles workspace and flags (stream-K); the caller
     * zeroes the flags before each launch, as the runtime does */
    unsigned long long ws, flags;
    long long ints[CUTEC_KD_MAX_ARGS]; /* the integer scalars, in their argument's type */
    cutec_tensor_map maps[CUTEC_KD_MAX_ARGS];
    void *args[CUTEC_KD_MAX_ARGS];
} gemm_args;
int gemm_build_args(cutec_runtime *rt, const gemm_kernel_meta *meta, gemm_args *ga, char *err, size_t errlen);
/* The geometry gemm_build_args gives TMA argument a for ga: its tma_rank
 * dimensions and tma_rank - 1 byte strides, each the description's
 * expression evaluated (a batch's rank-3 map: the problem the third
 * dimension, stride_a .. stride_d its step).  Returns 0, or -1 with a
 * message. */
int gemm_map_geometry(const gemm_kernel_meta *meta, const gemm_args *ga, int a, uint64_t dims[CUTEC_KD_MAX_TMA_RANK],
                      uint64_t strides[CUTEC_KD_MAX_TMA_RANK], char *err, size_t errlen);

/* The launch grid of a kernel point for a problem M x N x K (a batch of
 * `batch` of them; 0: one), from its grid rule (resident(x) capped at
 * `resident` blocks where that is > 0, as the runtime's GEMM entry point
 * does).  Returns 0, or -1 with a message. */
int gemm_grid(const gemm_point *p, long m, long n, long k, long long batch, long long resident, unsigned grid[3],
              char *err, size_t errlen);

/* Bytes the point's argument of role r (CUTEC_ROLE_WORKSPACE or _FLAGS)
 * spans for ga; 0 when it has none, -1 with a message. */
long long gemm_scratch_bytes(const gemm_kernel_meta *meta, const gemm_args *ga, cutec_kd_role r, char *err,
                             size_t errlen);

/* 1 when every `require` condition of the point's description holds for
 * the problem in ga (its leading dimensions 0: packed), as the runtime's
 * binding checks them; 0 with the first that fails (or cannot be
 * evaluated) in why. */
int gemm_point_fits(const gemm_point *p, const gemm_args *ga, char *why, size_t len);

/* 1 when the point serves a batch (its description has the batch role). */
int gemm_point_batched(const gemm_point *p);
/* 1 when the point is a grouped GEMM (its description has the group_ends
 * role; it serves grouped problems only). */
int gemm_point_grouped(const gemm_point *p);
/* 1 when the point is a general grouped GEMM (the group_list role). */
int gemm_point_listed(const gemm_point *p);
/* The blocks of the loaded kernel k the device holds at once (the
 * occupancy API) when its grid rule says resident(x); 0 otherwise or where
 * the driver cannot say. */
long long gemm_resident(cutec_kernel *k, const gemm_point *p);

/* 1 when the point reads its operand of role r (CUTEC_ROLE_A or _B)
 * MN-major: the tensor's K mode (the second) does not have stride 1. */
int gemm_point_mn_major(const gemm_point *p, cutec_kd_role r);

/* The multiple N must be for this point: 16 bytes of the output's element
 * when a used tensor map covers the output (role d), else 1. */
long gemm_point_n_multiple(const gemm_point *p);

/* Reads a whole file (NUL-terminated, *len without the NUL).  NULL on error. */
char *gemm_read_file(const char *path, size_t *len);

/* ceil(a / b) for b > 0. */
long gemm_ceil_div(long a, long b);

#endif
