/*
 * tune_list_bench.h - `cutec-tune bench --list` (issue 19): a grouped
 * (mixture-of-experts) shape run as the general grouped GEMM, a list of
 * its groups' problems (args.group_list, cutec_gemm_list_row), over the
 * very buffers and row split the mixture-of-experts form uses, so that the
 * two forms and the loop of cuBLASLt calls compute the same thing; and the
 * check of the list run's D against float64 (tune_error.h's reference)
 * over sampled rows of sampled groups.
 */
#ifndef CUTEC_TUNE_LIST_BENCH_H
#define CUTEC_TUNE_LIST_BENCH_H

#include <stddef.h>

#include "cutec/cutec.h"

/* A grouped problem on the device, as the mixture-of-experts form reads
 * it: A (m x k, row-major, packed) holds every group's rows, B the groups'
 * matrices (each n x k, K-contiguous, stride_b elements apart), D (m x n,
 * row-major, packed) every group's rows; ends the groups' cumulative row
 * ends (host copy, tune_group_ends). */
typedef struct tune_moe {
    const cutec_gemm_problem *p; /* groups > 0 */
    const int *ends;
    unsigned long long a, b, d;
} tune_moe;

/* rows[0 .. groups-1]: problem q is group q, its rows ends[q-1] .. ends[q]-1
 * (m = their count, 0 for an empty group) times its own B: n and k the
 * problem's, lda = ldb = k and ldd = n (the buffers are packed), A and D
 * at the group's first row, B at its matrix.  Returns the largest m: the
 * list problem's bound on it. */
long long tune_list_rows(const tune_moe *moe, cutec_gemm_list_row *rows);

/* The list problem of the grouped problem moe: the same types, n, k and
 * groups, m the bound tune_list_rows gave (the class key and the cost
 * model's "batch of groups problems of the bounds" see the largest group,
 * not all M rows in each), no stride_b (each row names its B). */
void tune_list_problem(const cutec_gemm_problem *moe, long long bound_m, cutec_gemm_problem *list);

/* What a list run's check compared. */
typedef struct tune_list_check {
    long long groups, rows, elements; /* sampled: groups, their rows, rows x n */
    double max_rel;                   /* max |d - v| / sum_k |a b| over them (tune_err_measure) */
    double limit;                     /* the most a right result is off: the output type's tol + k 2^-24 */
} tune_list_check;

/* NaN bytes into the rows of D the check samples, before the run, so that
 * a row the run does not write shows (each sample an infinite error). */
cutec_status tune_list_check_prepare(cutec_runtime *rt, const tune_moe *moe, char *why, size_t why_len);

/*
 * After the run: up to 8 nonempty groups spread over them (the first and
 * the last included), the first and last row of each, every column of D
 * against float64 from the group's rows of A and its B in the grouped
 * layout (independent of the list's rows: a row pointing at another
 * group's B or rows fails).  CUTEC_OK when every element is within the
 * limit; CUTEC_ERR_NO_CANDIDATE (the status of "no candidate computes it
 * right") with `why` naming the worst element otherwise; a copy's status
 * or CUTEC_ERR_OUT_OF_MEMORY with `why` when it could not check.
 */
cutec_status tune_list_check_run(cutec_runtime *rt, const tune_moe *moe, tune_list_check *c, char *why, size_t why_len);

#endif /* CUTEC_TUNE_LIST_BENCH_H */
