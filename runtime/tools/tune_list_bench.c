/*
 * tune_list_bench.c - a grouped shape as a list of problems, and the check
 * of its run (tune_list_bench.h).  The check reads the operands where the
 * mixture-of-experts form has them, not where the list's rows point, so a
 * list that is not the same GEMM fails it even though the tuner, which
 * checks candidates against the list's own rows, passed it.
 */
#include "tune_list_bench.h"

#include "dtype.h"
#include "tune_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many groups and rows of each are checked: every column of
 * a sampled row is a dot product of K on the host (Mixtral's gate+up, N
 * 28672 and K 4096: 16 rows are about 2 G multiply-adds). */
enum { CHECK_GROUPS = 8, CHECK_ROWS = 2 };

static size_t dtype_bytes(cutec_dtype t) { return (size_t)cutec_dtype_bytes((cutec_ct)t); }

static long long group_first(const tune_moe *moe, long long q) { return q > 0 ? moe->ends[q - 1] : 0; }

static long long group_rows(const tune_moe *moe, long long q)
{
    long long r = moe->ends[q] - group_first(moe, q);
    return r > 0 ? r : 0;
}

long long tune_list_rows(const tune_moe *moe, cutec_gemm_list_row *rows)
{
    const cutec_gemm_problem *p = moe->p;
    size_t ea = dtype_bytes(p->a_type), eb = dtype_bytes(p->b_type), ec = dtype_bytes(p->c_type);
    long long bound = 0;
    memset(rows, 0, sizeof *rows * (size_t)p->groups);
    for (long long q = 0; q < p->groups; q++) {
        cutec_gemm_list_row *r = &rows[q];
        unsigned long long first = (unsigned long long)group_first(moe, q);
        r->m = group_rows(moe, q);
        r->n = p->n, r->k = p->k;
        r->lda = p->k, r->ldb = p->k, r->ldd = p->n;
        /* an empty group's addresses are where its rows would start (past the
         * last row for trailing ones): the kernel reads its row, never them */
        r->a = moe->a + first * (unsigned long long)p->k * ea;
        r->b = moe->b + (unsigned long long)q * (unsigned long long)p->stride_b * eb;
        r->d = moe->d + first * (unsigned long long)p->n * ec;
        if (r->m > bound) bound = r->m;
    }
    return bound;
}

void tune_list_problem(const cutec_gemm_problem *moe, long long bound_m, cutec_gemm_problem *list)
{
    *list = *moe;
    list->m = bound_m;
    list->stride_b = 0;
}

/* The sampled groups, at most CHECK_GROUPS spread over the nonempty ones
 * (the first and the last included), in order; their count. */
static int sample_groups(const tune_moe *moe, long long *out)
{
    long long live = 0, pick[CHECK_GROUPS], seen = 0;
    for (long long q = 0; q < moe->p->groups; q++) live += group_rows(moe, q) > 0;
    int ng = live < CHECK_GROUPS ? (int)live : CHECK_GROUPS, j = 0;
    if (ng == 0) return 0;
    tune_err_rows(live, ng, pick); /* strictly increasing: ng <= live */
    for (long long q = 0; q < moe->p->groups && j < ng; q++) {
        if (group_rows(moe, q) == 0) continue;
        if (seen++ == pick[j]) out[j++] = q;
    }
    return j;
}

/* Group q's sampled rows, as offsets from its first row; their count. */
static int sample_rows(const tune_moe *moe, long long q, long long *rows)
{
    long long m = group_rows(moe, q);
    int nr = m < CHECK_ROWS ? (int)m : CHECK_ROWS;
    tune_err_rows(m, nr, rows);
    return nr;
}

static cutec_status copy_failed(cutec_runtime *rt, cutec_status s, char *why, size_t why_len)
{
    snprintf(why, why_len, "%s: %s", cutec_status_string(s), cutec_runtime_message(rt));
    return s;
}

cutec_status tune_list_check_prepare(cutec_runtime *rt, const tune_moe *moe, char *why, size_t why_len)
{
    const cutec_gemm_problem *p = moe->p;
    size_t row = (size_t)p->n * dtype_bytes(p->c_type);
    unsigned char *nan = malloc(row);
    if (nan == NULL) {
        snprintf(why, why_len, "out of host memory for a row of D (%zu bytes)", row);
        return CUTEC_ERR_OUT_OF_MEMORY;
    }
    memset(nan, 0xff, row); /* NaN in every float type */
    long long groups[CHECK_GROUPS], rows[CHECK_ROWS];
    int ng = sample_groups(moe, groups);
    cutec_status s = CUTEC_OK;
    for (int j = 0; j < ng && s == CUTEC_OK; j++) {
        int nr = sample_rows(moe, groups[j], rows);
        for (int i = 0; i < nr && s == CUTEC_OK; i++)
            s = cutec_memcpy_htod(rt, moe->d + (unsigned long long)(group_first(moe, groups[j]) + rows[i]) * row, nan,
                                  row);
    }
    free(nan);
    return s == CUTEC_OK ? s : copy_failed(rt, s, why, why_len);
}

/* The host copies of one sampled group: its B, its sampled rows of A and
 * D, and their reference. */
typedef struct check_host {
    unsigned char *b, *a, *d;
    double *ref, *mag;
} check_host;

/* Group q's operands from the device: B whole, the sampled rows of A and D. */
static cutec_status copy_group(cutec_runtime *rt, const tune_moe *moe, long long q, const long long *rows, int nr,
                               const check_host *h)
{
    const cutec_gemm_problem *p = moe->p;
    size_t ea = dtype_bytes(p->a_type), eb = dtype_bytes(p->b_type), ec = dtype_bytes(p->c_type);
    size_t arow = (size_t)p->k * ea, drow = (size_t)p->n * ec;
    cutec_status s = cutec_memcpy_dtoh(rt, h->b, moe->b + (unsigned long long)q * (unsigned long long)p->stride_b * eb,
                                       (size_t)p->n * (size_t)p->k * eb);
    for (int i = 0; i < nr && s == CUTEC_OK; i++) {
        unsigned long long r = (unsigned long long)(group_first(moe, q) + rows[i]);
        s = cutec_memcpy_dtoh(rt, h->a + (size_t)i * arow, moe->a + r * arow, arow);
        if (s == CUTEC_OK) s = cutec_memcpy_dtoh(rt, h->d + (size_t)i * drow, moe->d + r * drow, drow);
    }
    return s;
}

cutec_status tune_list_check_run(cutec_runtime *rt, const tune_moe *moe, tune_list_check *c, char *why, size_t why_len)
{
    const cutec_gemm_problem *p = moe->p;
    size_t ea = dtype_bytes(p->a_type), eb = dtype_bytes(p->b_type), ec = dtype_bytes(p->c_type);
    size_t n = (size_t)p->n, k = (size_t)p->k;
    memset(c, 0, sizeof *c);
    /* a right result: rounded once to the output type, summed in f32 (at most k units of 2^-24 of sum |a b|) */
    c->limit = cutec_dtype_info_of((cutec_ct)p->c_type)->tol + (double)p->k * 0x1p-24;
    check_host h = {malloc(n * k * eb), malloc(CHECK_ROWS * k * ea), malloc(CHECK_ROWS * n * ec),
                    malloc(CHECK_ROWS * n * sizeof(double)), malloc(CHECK_ROWS * n * sizeof(double))};
    cutec_status s = CUTEC_OK;
    if (h.b == NULL || h.a == NULL || h.d == NULL || h.ref == NULL || h.mag == NULL) {
        snprintf(why, why_len, "out of host memory for a group's B (%zu bytes) and the reference", n * k * eb);
        s = CUTEC_ERR_OUT_OF_MEMORY;
    }
    long long groups[CHECK_GROUPS], rows[CHECK_ROWS], idx[CHECK_ROWS] = {0, 1};
    long long worst_q = -1, worst_r = 0, worst_c = 0;
    double worst_d = 0, worst_v = 0;
    int ng = s == CUTEC_OK ? sample_groups(moe, groups) : 0;
    for (int j = 0; j < ng && s == CUTEC_OK; j++) {
        long long q = groups[j];
        int nr = sample_rows(moe, q, rows);
        s = copy_group(rt, moe, q, rows, nr, &h);
        if (s != CUTEC_OK) {
            copy_failed(rt, s, why, why_len);
            break;
        }
        /* the compact copy of A holds the sampled rows as its rows 0 .. nr-1 */
        tune_err_problem ep = {.m = nr, .n = p->n, .k = p->k, .ab = p->a_type, .a = h.a, .b = h.b};
        if (tune_err_reference(&ep, idx, nr, h.ref, h.mag) != 0) {
            snprintf(why, why_len, "out of host memory for the float64 reference");
            s = CUTEC_ERR_OUT_OF_MEMORY;
            break;
        }
        tune_err_stats st;
        tune_err_measure(h.d, p->c_type, nr, p->n, h.ref, h.mag, &st);
        c->groups++, c->rows += nr, c->elements += st.count;
        if (worst_q < 0 || st.max_rel > c->max_rel) {
            size_t at = (size_t)st.worst_row * n + (size_t)st.worst_col;
            c->max_rel = st.max_rel;
            worst_q = q, worst_r = group_first(moe, q) + rows[st.worst_row], worst_c = st.worst_col;
            worst_d = cutec_dtype_load((cutec_ct)p->c_type, h.d + at * ec), worst_v = h.ref[at];
        }
    }
    free(h.b), free(h.a), free(h.d), free(h.ref), free(h.mag);
    if (s != CUTEC_OK) return s;
    if (c->elements == 0) {
        snprintf(why, why_len, "no row of D to check (every group empty)");
        return CUTEC_ERR_NO_CANDIDATE;
    }
    if (!(c->max_rel <= c->limit)) {
        snprintf(why, why_len,
                 "wrong result: D[%lld,%lld] (group %lld) = %.6g, float64 reference %.6g: |d - v| / sum |a b| = %.3g, "
                 "more than %.3g",
                 worst_r, worst_c, worst_q, worst_d, worst_v, c->max_rel, c->limit);
        return CUTEC_ERR_NO_CANDIDATE;
    }
    return CUTEC_OK;
}
