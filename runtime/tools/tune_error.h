/*
 * tune_error.h - the host side of `cutec-tune error`, the accumulation
 * error study (issue 18: fp8 sums promoted into f32 against cuBLASLt's fp8
 * GEMM): the inputs it draws (two distributions of values of the operand
 * type, never zero), the float64 reference of sampled rows of D computed
 * from them, and a candidate's D measured against it.  No GPU here, so
 * that the numbers the study prints are tested on the CPU
 * (tests/runtime/test_tune_error.c).
 */
#ifndef CUTEC_TUNE_ERROR_H
#define CUTEC_TUNE_ERROR_H

#include <stddef.h>
#include <stdint.h>

#include "cutec/cutec.h"

/* The input distributions, each scaled by tune_err_sigma: a normal one of
 * mean 0, and one of mean 1 sigma, whose dot products all grow like K (so
 * the running sums are as large as their bound: where an accumulator that
 * drops bits loses most). */
typedef enum tune_err_dist { TUNE_ERR_NORMAL, TUNE_ERR_MEAN, TUNE_ERR_DISTS } tune_err_dist;

/* "normal", "mean". */
const char *tune_err_dist_name(tune_err_dist d);
/* The distribution's mean, in units of sigma (0 or 1). */
double tune_err_dist_mean(tune_err_dist d);

/* The unit the inputs of type t are drawn in: 1 for 16-bit and 32-bit
 * types; for fp8 its largest finite value / 8 (56 for e4m3), so that
 * the draws fill the type's range as a per-tensor scale would, and
 * the largest of them stays inside it. */
double tune_err_sigma(cutec_dtype t);

/* n elements of type t at dst from distribution d (seeded): drawn from a
 * pool of 65536 samples of it rounded to t, none zero (a zero is drawn
 * again).  0, or -1 when out of host memory. */
int tune_err_fill(void *dst, size_t n, cutec_dtype t, tune_err_dist d, uint64_t seed);

/* The GEMM as the reference reads it: A row-major M x K and B stored N x
 * K (K-contiguous), both of type ab, host copies; the scales of `mode`
 * (cutec/gemm.h's layouts; NULL and CUTEC_SCALE_NONE: none). */
typedef struct tune_err_problem {
    long long m, n, k;
    cutec_dtype ab;
    const void *a, *b;
    cutec_scale_mode mode;
    const float *sa, *sb;
} tune_err_problem;

/* For rows[0 .. nrows-1] of D and every column c, the value
 * ref[i n + c] = sum over k of sa sb A(r, k) B(k, c) and the standard
 * bound's scale mag[i n + c] = sum over k of |sa sb A(r, k) B(k, c)|, in
 * float64 (the products are exact; the scales taken per 128-column block
 * of K, as block-wise scales are).  0, or -1 when out of host memory. */
int tune_err_reference(const tune_err_problem *p, const long long *rows, int nrows, double *ref, double *mag);

/* nrows rows spread over 0 .. m-1, the first and the last included (nrows <= m). */
void tune_err_rows(long long m, int nrows, long long *rows);

/* One candidate's error over the sampled elements. */
typedef struct tune_err_stats {
    double max_abs; /* max |d - v| */
    double rms;     /* sqrt(mean (d - v)^2) */
    double max_rel; /* max |d - v| / mag: the error in units of the bound's scale */
    long long count, nonfinite;
    long long worst_row, worst_col; /* where max_rel is (an index into rows, a column) */
} tune_err_stats;

/* D's sampled rows (nrows rows of n elements of type t, in the order of
 * tune_err_reference's rows) against ref and mag.  A NaN or infinite
 * element is an infinite error (and counted), never a small one. */
void tune_err_measure(const void *drows, cutec_dtype t, int nrows, long long n, const double *ref, const double *mag,
                      tune_err_stats *st);

#endif /* CUTEC_TUNE_ERROR_H */
