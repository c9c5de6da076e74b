/*
 * test_tune_list.c - `cutec-tune bench --list`'s seam
 * (runtime/tools/tune_list_bench.c): the list of problems built from a
 * grouped problem's buffers and row split, and the check of a run's D
 * against float64, which must pass a right D and fail a D with a row not
 * written, an element off, or a group computed with another group's B.
 *
 *   rows    the list's rows over a skewed split with empty groups (no GPU)
 *   check   the check under the mock driver (its memory is the host's)
 */
#include "check.h"
#include "cutec/cutec.h"
#include "tune_groups.h"
#include "tune_list_bench.h"

#include <math.h>

enum { M = 40, N = 16, K = 32, G = 12 };
#define SKEW 2.0 /* 7 of the 12 groups empty, the largest 26 rows */

static void grouped_problem(cutec_gemm_problem *p)
{
    cutec_gemm_problem_init(p, M, N, K, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p->groups = G;
    p->stride_b = (long long)K * N;
}

static int test_rows(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_gemm_problem p, lp;
    grouped_problem(&p);
    int ends[G];
    CHECK(tune_group_ends(M, G, SKEW, ends) == 0);
    const unsigned long long a = 0x10000, b = 0x200000, d = 0x3000000;
    tune_moe moe = {&p, ends, a, b, d};
    cutec_gemm_list_row rows[G];
    memset(rows, 0x5a, sizeof rows); /* every field must be written */
    long long bound = tune_list_rows(&moe, rows);
    long long total = 0, empty = 0, largest = 0;
    for (int q = 0; q < G; q++) {
        const cutec_gemm_list_row *r = &rows[q];
        long long first = q ? ends[q - 1] : 0;
        CHECK(r->m == ends[q] - first); /* an empty group is a row with m = 0 */
        CHECK(r->n == N && r->k == K && r->lda == K && r->ldb == K && r->ldd == N);
        CHECK(r->a == a + (unsigned long long)(first * K * 2));
        CHECK(r->b == b + (unsigned long long)q * K * N * 2);
        CHECK(r->d == d + (unsigned long long)(first * N * 2));
        for (int z = 0; z < 7; z++) CHECK(r->zero[z] == 0);
        total += r->m, empty += r->m == 0;
        if (r->m > largest) largest = r->m;
    }
    CHECK(total == M && empty == 7 && largest == 26 && bound == 26);
    tune_list_problem(&p, bound, &lp);
    CHECK(lp.m == 26 && lp.n == N && lp.k == K && lp.groups == G && lp.stride_b == 0);
    CHECK(lp.a_type == p.a_type && lp.c_type == p.c_type && lp.struct_size == p.struct_size);
    return 0;
}

/* D's rows of group q computed from A and group bq's B, rounded to bf16. */
static void host_group(const uint16_t *ha, const uint16_t *hb, uint16_t *hd, const int *ends, int q, int bq)
{
    for (int r = q ? ends[q - 1] : 0; r < ends[q]; r++)
        for (int c = 0; c < N; c++) {
            double v = 0;
            for (int i = 0; i < K; i++) v += check_from_bf16(ha[r * K + i]) * check_from_bf16(hb[(bq * N + c) * K + i]);
            hd[r * N + c] = check_to_bf16((float)v);
        }
}

static int test_check(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = NULL;
    CHECK_OK(rt, cutec_runtime_create(&rt, 0));
    cutec_gemm_problem p;
    grouped_problem(&p);
    int ends[G];
    CHECK(tune_group_ends(M, G, SKEW, ends) == 0);
    static uint16_t ha[M * K], hb[G * N * K], hd[M * N];
    /* hashed, not periodic: no two groups' Bs alike */
    for (uint32_t i = 0; i < M * K; i++) ha[i] = check_to_bf16((float)((i * 2654435761u) >> 28) / 4 - 2);
    for (uint32_t i = 0; i < G * N * K; i++) hb[i] = check_to_bf16((float)((i * 2246822519u + 7u) >> 28) / 4 - 2);
    unsigned long long da, db, dd;
    CHECK_OK(rt, cutec_malloc(rt, sizeof ha, &da));
    CHECK_OK(rt, cutec_malloc(rt, sizeof hb, &db));
    CHECK_OK(rt, cutec_malloc(rt, sizeof hd, &dd));
    CHECK_OK(rt, cutec_memcpy_htod(rt, da, ha, sizeof ha));
    CHECK_OK(rt, cutec_memcpy_htod(rt, db, hb, sizeof hb));
    for (int q = 0; q < G; q++) host_group(ha, hb, hd, ends, q, q);
    tune_moe moe = {&p, ends, da, db, dd};
    tune_list_check c;
    char why[512];
    /* right */
    CHECK_OK(rt, cutec_memcpy_htod(rt, dd, hd, sizeof hd));
    CHECK_OK(rt, tune_list_check_run(rt, &moe, &c, why, sizeof why));
    CHECK(c.groups == 5 && c.rows == 10 && c.elements == 10 * N);
    CHECK(c.max_rel <= c.limit && c.limit > 0x1p-7 && c.limit < 0x1p-7 + 1e-5);
    /* the sampled rows made NaN and never written */
    CHECK_OK(rt, tune_list_check_prepare(rt, &moe, why, sizeof why));
    CHECK_STATUS(rt, tune_list_check_run(rt, &moe, &c, why, sizeof why), CUTEC_ERR_NO_CANDIDATE);
    CHECK_CONTAINS(why, "wrong result: D[0,0] (group ");
    CHECK_CONTAINS(why, "nan, float64 reference ");
    /* one element off by more than the rounding: the last row of the largest group */
    int big = 0;
    for (int q = 1; q < G; q++)
        if (ends[q] - ends[q - 1] > ends[big] - (big ? ends[big - 1] : 0)) big = q;
    uint16_t keep = hd[(ends[big] - 1) * N + 3];
    hd[(ends[big] - 1) * N + 3] = check_to_bf16((float)check_from_bf16(keep) * 1.05f + 0.5f);
    CHECK_OK(rt, cutec_memcpy_htod(rt, dd, hd, sizeof hd));
    CHECK_STATUS(rt, tune_list_check_run(rt, &moe, &c, why, sizeof why), CUTEC_ERR_NO_CANDIDATE);
    char where[64];
    snprintf(where, sizeof where, "D[%d,3] (group %d)", ends[big] - 1, big);
    CHECK_CONTAINS(why, where);
    hd[(ends[big] - 1) * N + 3] = keep;
    /* the largest group computed with the next group's B: what a list row
     * pointing at the wrong matrix gives */
    host_group(ha, hb, hd, ends, big, (big + 1) % G);
    CHECK_OK(rt, cutec_memcpy_htod(rt, dd, hd, sizeof hd));
    CHECK_STATUS(rt, tune_list_check_run(rt, &moe, &c, why, sizeof why), CUTEC_ERR_NO_CANDIDATE);
    snprintf(where, sizeof where, "(group %d)", big);
    CHECK_CONTAINS(why, where);
    cutec_free(rt, da), cutec_free(rt, db), cutec_free(rt, dd);
    cutec_runtime_destroy(rt);
    return 0;
}

static const check_case cases[] = {
    {"rows", test_rows},
    {"check", test_check},
};

int main(int argc, char **argv) { return check_run_cases(cases, sizeof cases / sizeof cases[0], argc, argv); }
