/*
 * gemm_epilogue.h - the epilogue side of the GEMM GPU check: which inputs a
 * kernel point's description asks for (roles alpha, c with beta, bias,
 * bias_row, aux, and its cutec.act function), random values for them, and
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
    int scale; /* 0: none, 1: scale_a and scale_b one each (per tensor), 2: per row of A and column of B */
    const cutec_act_info *act; /* the table's row; identity without a cutec.act line */
    gemm_type tc;              /* the output's type, also that of S, bias, bias_row and aux */
    double alpha_v, beta_v;
    /* the inputs of one shape (gemm_epi_make): S is m x n, bias n, bias_row m,
     * their encodings and values */
    long m, n;
    unsigned char *s, *b, *br;
    double *sv, *bv, *brv;
    float *sa, *sb; /* the scales (f32 in the kernel): m and n of them (index 0 per tensor) */
} gemm_epi;

/* Reads the epilogue of a point; -1 with a message for an activation the
 * table does not know (no float64 form to check it against). */
int gemm_epi_from_point(const gemm_point *p, gemm_epi *e, char *err, size_t errlen);
/* Whether the point has any epilogue at all (else the plain check applies). */
int gemm_epi_any(const gemm_epi *e);
/* Random inputs for an m x n output (n: the GEMM's columns, before a gated
 * halving); 0, or -1 out of memory.  Frees the previous ones. */
int gemm_epi_make(gemm_epi *e, long m, long n, uint64_t seed);
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
