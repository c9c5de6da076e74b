/*
 * gemm_epilogue.h - the epilogue side of the GEMM GPU check: which inputs a
 * kernel point's description asks for (roles alpha, c with beta, bias,
 * bias_row, aux, clamp_lo and clamp_hi, and its cutec.act function), random
 * values for them, and
 * the float64 expected value and error bound of each output element, from
 * the plain GEMM's reference (docs/contract.md, "What a GEMM kernel
 * computes").  The activations' float64 forms are the contract's table
 * (contract/epilogue.h).
 */
#ifndef CUTEC_TESTS_GEMM_EPILOGUE_H
#define CUTEC_TESTS_GEMM_EPILOGUE_H

#include "epilogue.h"
#include "gemm_common.h"

typedef struct gemm_epi {
    /* what the point computes */
    int alpha, src, bias, bias_row, aux, gated;
    int clamp; /* the activation's value clamped to [clamp_lo_v, clamp_hi_v] (roles clamp_lo, clamp_hi) */
    double clamp_lo_v, clamp_hi_v;
    int scale;        /* 0: none, 1: scale_a and scale_b one each (per tensor), 2: per row of A and column of B,
                  3: block-wise (1 x 128 of A, 128 x 128 of B; applied inside the sum: the
                  caller's reference is of the scaled A and B, gemm_epi_scale_inputs) */
    int fp8_out;      /* an fp8 output: D = TC(scale_d v), amax = max |v| (roles scale_d, amax) */
    double scale_d_v; /* scale_d: a power of two set per shape by the caller */
    const cutec_act_info *act; /* the table's row; identity without a cutec.act line */
    gemm_type tc;              /* the output's type, also that of S, bias, bias_row and aux */
    double alpha_v, beta_v;
    /* the inputs of one shape (gemm_epi_make): S is m x n, bias n, bias_row m,
     * their encodings and values */
    long m, n, k, kb, nb; /* kb = ceil(k / 128), nb = ceil(n / 128): block-wise scales */
    unsigned char *s, *b, *br;
    double *sv, *bv, *brv;
    float *sa, *sb; /* the scales (f32 in the kernel): m and n of them (index 0 per tensor); block-wise
                       m x kb (index i + m kb) and nb x kb (index jb kb + kb) */
} gemm_epi;

/* Reads the epilogue of a point; -1 with a message for an activation the
 * table does not know (no float64 form to check it against). */
int gemm_epi_from_point(const gemm_point *p, gemm_epi *e, char *err, size_t errlen);
/* Whether the point has any epilogue at all (else the plain check applies). */
int gemm_epi_any(const gemm_epi *e);
/* Random inputs for an m x n output (n: the GEMM's columns, before a gated
 * halving); 0, or -1 out of memory.  Frees the previous ones. */
int gemm_epi_make(gemm_epi *e, long m, long n, long k, uint64_t seed);
/* Block-wise scales: A's and B's float64 values (m x k and n x k, K
 * contiguous) multiplied by their blocks' scales, for the reference. */
void gemm_epi_scale_inputs(const gemm_epi *e, double *av, double *bv);
void gemm_epi_free(gemm_epi *e);
/* Columns of D for a GEMM of n columns. */
long gemm_epi_out_cols(const gemm_epi *e, long n);

/* The expected pre-activation v(i, j) and its bound, from the GEMM's
 * reference acc and sum |a||b| (absacc) and the accumulation's unit
 * gamma = K * unit per addition. */
void gemm_epi_pre(const gemm_epi *e, long i, long j, double acc, double absacc, double gamma, double *v, double *bound);
/* The expected output D(i, j) and its bound (without the output's
 * rounding) from the pre-activations: v, bv for a plain activation;
 * gate and up (g, bg, u, bu) for a gated one. */
void gemm_epi_out(const gemm_epi *e, double g, double bg, double u, double bu, double *out, double *bound);

#endif
