/*
 * test_grouped.c - grouped (mixture-of-experts) GEMMs through the runtime
 * (docs/runtime.md, "Grouped GEMM").  One case per process
 * (`test_grouped CASE ARGS...`):
 *   statuses              a grouped problem's checks, each status with its
 *                         message: group_ends NULL (NULL_POINTER), given to
 *                         a problem that is not grouped (INVALID_ARGUMENT),
 *                         groups < 0 (BAD_SIZE), with a batch, an epilogue
 *                         or a column-major D (UNSUPPORTED), a negative
 *                         stride_b (BAD_STRIDE), misaligned (MISALIGNED);
 *                         the class key (no GPU)
 *   gemm GROUPED_PACK PACK [WINNER]
 *                         a grouped problem tuned and run: the grouped
 *                         kernel (user_gemm_grouped.cute, or WINNER: a
 *                         prefix of the name that must win) bound with its row
 *                         ends, the plain kernels of PACK skipped with the
 *                         reason, no cuBLASLt candidate; groups of 0, 1 and
 *                         more rows, a decreasing end (an empty group) and
 *                         the last end short of M: every group's rows right
 *                         against a float64 reference, the rows past the
 *                         last end untouched (mock or GPU)
 */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "cutec/cutec.h"
#include "gemm_internal.h"
#include "internal.h"

static cutec_status check(cutec_runtime *rt, const cutec_gemm_problem *p, const int *ends, char *key, size_t len)
{
    static char buf[1 << 16] __attribute__((aligned(16)));
    cutec_gemm_args a;
    cutec_gemm_args_init(&a, buf, buf, buf);
    a.group_ends = ends;
    a.bias = p->bias ? buf : NULL;
    cutec_gemm_problem out;
    cutec_gemm_args io;
    gemm_class cls;
    cutec_status s = cutec_gemm_check(rt, "cutec_gemm_ex", p, &a, &out, &io, &cls);
    if (s == CUTEC_OK && key != NULL) cutec_gemm_class_key(&cls, key, len);
    return s;
}

/* 4 groups of rows of 40 x 32, each times its own 24 x 32 B, packed */
static void grouped(cutec_gemm_problem *p)
{
    cutec_gemm_problem_init(p, 40, 24, 32, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p->groups = 4;
    p->stride_b = 24 * 32;
}

static int test_statuses(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = NULL;
    (void)cutec_runtime_create(&rt, 0); /* no driver needed: the checks come first */
    CHECK(rt != NULL);
    static int ends[5] __attribute__((aligned(16))) = {3, 3, 20, 40, 0};
    cutec_gemm_problem p;
    char key[CUTEC_KEY_MAX];
    grouped(&p);
    CHECK_OK(rt, check(rt, &p, ends, key, sizeof key));
    CHECK_CONTAINS(key, " align=16:16:16+groups:4");
    CHECK(strstr(key, "stride_b") == NULL); /* packed: the default */
    p.stride_b = 0;                         /* one B for every group */
    CHECK_OK(rt, check(rt, &p, ends, key, sizeof key));
    CHECK_CONTAINS(key, "+groups:4+stride_b:0");

    grouped(&p);
    CHECK_STATUS(rt, check(rt, &p, NULL, NULL, 0), CUTEC_ERR_NULL_POINTER);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_ex: group_ends is a NULL pointer (the problem has 4 groups; "
                                              "cutec_gemm_ex passes it)");
    /* cutec_gemm passes no group_ends: a grouped problem cannot run through it */
    cutec_gemm_handle *h = NULL;
    CHECK(cutec_gemm_create(rt, &h) == CUTEC_OK && h != NULL);
    static char dev[256] __attribute__((aligned(16)));
    CHECK_STATUS(rt, cutec_gemm(h, &p, dev, dev, dev, NULL), CUTEC_ERR_NULL_POINTER);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm: group_ends is a NULL pointer");
    cutec_gemm_destroy(h);
    /* without args (cutec_gemm_choice's check) placeholders stand in for every pointer */
    CHECK_STATUS(
        rt,
        cutec_gemm_check(rt, "cutec_gemm", &p, NULL, &(cutec_gemm_problem){0}, &(cutec_gemm_args){0}, &(gemm_class){0}),
        CUTEC_OK);
    p.groups = 0;
    CHECK_STATUS(rt, check(rt, &p, ends, NULL, 0), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_ex: args give group_ends, which the problem does not ask "
                                              "for (set its groups field)");
    p.groups = -1;
    CHECK_STATUS(rt, check(rt, &p, NULL, NULL, 0), CUTEC_ERR_BAD_SIZE);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_ex: groups = -1; it is 0 (not grouped) or more");
    grouped(&p);
    p.batch = 2;
    CHECK_STATUS(rt, check(rt, &p, ends, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "a grouped problem (groups 4) cannot also be a batch (batch 2)");
    grouped(&p);
    p.bias = 1;
    CHECK_STATUS(rt, check(rt, &p, ends, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "a grouped problem (groups 4) takes no epilogue");
    grouped(&p);
    p.c_layout = CUTEC_LAYOUT_COL;
    CHECK_STATUS(rt, check(rt, &p, ends, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "a grouped problem's D is row-major (the groups split its rows)");
    grouped(&p);
    p.stride_b = -24;
    CHECK_STATUS(rt, check(rt, &p, ends, NULL, 0), CUTEC_ERR_BAD_STRIDE);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_ex: stride_b = -24 is negative");
    grouped(&p);
    p.stride_b = 1LL << 39; /* 4 groups 2^39 apart: past 2^40 elements */
    CHECK_STATUS(rt, check(rt, &p, ends, NULL, 0), CUTEC_ERR_BAD_SIZE);
    CHECK_CONTAINS(cutec_runtime_message(rt), "the 4 groups' matrices B, stride_b = 549755813888 apart, span more "
                                              "than 2^40 elements");
    grouped(&p);
    CHECK_STATUS(rt, check(rt, &p, (const int *)(const void *)((const char *)ends + 2), NULL, 0), CUTEC_ERR_MISALIGNED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "is not aligned to its 4-byte int32 values");
    cutec_runtime_destroy(rt);
    return 0;
}

/* ---- a grouped GEMM tuned and run ---- */

static int test_gemm(int argc, char **argv)
{
    CHECK(argc >= 2);
    cutec_runtime *rt = check_gpu_runtime();
    cutec_runtime_set_log(rt, check_keep_log, NULL);
    cutec_gemm_handle *g;
    CHECK_OK(rt, cutec_gemm_create(rt, &g));
    CHECK_OK(rt, cutec_gemm_set_option(g, CUTEC_OPT_DISK_CACHE, 0));
    cutec_pack *grouped_pack, *plain_pack;
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[0], &grouped_pack));
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[1], &plain_pack));
    CHECK_OK(rt, cutec_gemm_use_pack(g, grouped_pack));
    CHECK_OK(rt, cutec_gemm_use_pack(g, plain_pack));
    /* 6 groups over 40 rows: 0, 1, 17 and 0 rows (a decreasing end: an
     * empty group), 12 and 0, the last end at 30 (rows 30..39 untouched) */
    enum { G = 6, M = 40, N = 24, K = 32 };
    const int ends[G] = {0, 1, 18, 11, 30, 30};
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, M, N, K, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p.groups = G;
    p.stride_b = N * K + 8; /* padded between the experts' weights */
    long long na = M * K, nb = (G - 1) * p.stride_b + N * K, nd = M * N;
    uint16_t *ha = calloc((size_t)na, 2), *hb = calloc((size_t)nb, 2), *hd = calloc((size_t)nd, 2);
    CHECK(ha != NULL && hb != NULL && hd != NULL);
    for (long long i = 0; i < na; i++) ha[i] = check_to_bf16((float)((i * 7) % 9 - 4) / 4);
    for (long long i = 0; i < nb; i++) hb[i] = check_to_bf16((float)((i * 5) % 7 - 3) / 2);
    for (long long i = 0; i < nd; i++) hd[i] = check_to_bf16(-77.0f); /* a sentinel */
    unsigned long long a, b, d, e;
    CHECK_OK(rt, cutec_malloc(rt, (size_t)na * 2, &a));
    CHECK_OK(rt, cutec_malloc(rt, (size_t)nb * 2, &b));
    CHECK_OK(rt, cutec_malloc(rt, (size_t)nd * 2, &d));
    CHECK_OK(rt, cutec_malloc(rt, sizeof ends, &e));
    CHECK_OK(rt, cutec_memcpy_htod(rt, a, ha, (size_t)na * 2));
    CHECK_OK(rt, cutec_memcpy_htod(rt, b, hb, (size_t)nb * 2));
    CHECK_OK(rt, cutec_memcpy_htod(rt, e, ends, sizeof ends));
    cutec_gemm_args args;
    cutec_gemm_args_init(&args, (void *)(uintptr_t)a, (void *)(uintptr_t)b, (void *)(uintptr_t)d);
    args.group_ends = (const int *)(uintptr_t)e;
    check_log[0] = '\0';
    cutec_tune_report *rep = NULL;
    CHECK_OK(rt, cutec_gemm_tune_ex(g, &p, &args, NULL, &rep));
    const char *winner = argc >= 3 ? argv[2] : "user_gemm_grouped";
    CHECK(rep->count >= 1 && strncmp(rep->candidates[0].name, winner, strlen(winner)) == 0 &&
          isfinite(rep->candidates[0].ms));
    for (int i = 0; i < rep->count; i++) CHECK(!rep->candidates[i].is_cublas);
    cutec_tune_report_free(rep);
    CHECK_CONTAINS(check_log,
                   "tuning: skipping user_gemm_brow T=bf16 TC=bf16: a grouped problem (groups 6) needs a kernel "
                   "with a group_ends role");
    /* no kernel with the role: unsupported (not "no cuBLASLt", which never serves groups) */
    cutec_gemm_handle *plain;
    CHECK_OK(rt, cutec_gemm_create(rt, &plain));
    CHECK_OK(rt, cutec_gemm_set_option(plain, CUTEC_OPT_DISK_CACHE, 0));
    CHECK_OK(rt, cutec_gemm_use_pack(plain, plain_pack));
    CHECK_STATUS(rt, cutec_gemm_ex(plain, &p, &args, NULL), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt),
                   "cuBLASLt: cuBLASLt has no grouped GEMM with the row ends in device memory");
    cutec_gemm_destroy(plain);
    CHECK_OK(rt, cutec_memcpy_htod(rt, d, hd, (size_t)nd * 2));
    CHECK_OK(rt, cutec_gemm_ex(g, &p, &args, NULL));
    CHECK_OK(rt, cutec_synchronize(rt));
    uint16_t *got = malloc((size_t)nd * 2);
    CHECK(got != NULL);
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, got, d, (size_t)nd * 2));
    long long r0 = 0, checked = 0;
    for (int q = 0; q < G; q++) {
        long long r1 = ends[q] < r0 ? r0 : ends[q];
        for (long long i = r0; i < r1; i++)
            for (long long j = 0; j < N; j++) {
                double want = 0;
                for (long long k = 0; k < K; k++)
                    want += check_from_bf16(ha[i * K + k]) * check_from_bf16(hb[q * p.stride_b + j * K + k]);
                double v = check_from_bf16(got[i * N + j]);
                checked++;
                if (fabs(v - want) > 0.01 * fabs(want) + 1e-3) {
                    fprintf(stderr, "group %d D[%lld,%lld] = %g, want %g\n", q, i, j, v, want);
                    return 1;
                }
            }
        r0 = r1;
    }
    CHECK(checked == 30 * N);
    for (long long i = 30 * N; i < nd; i++)
        if (got[i] != hd[i]) {
            fprintf(stderr, "D[%lld,%lld], past the last group, was written\n", i / N, i % N);
            return 1;
        }
    free(got);
    CHECK_OK(rt, cutec_free(rt, a));
    CHECK_OK(rt, cutec_free(rt, b));
    CHECK_OK(rt, cutec_free(rt, d));
    CHECK_OK(rt, cutec_free(rt, e));
    free(ha), free(hb), free(hd);
    cutec_gemm_destroy(g);
    cutec_runtime_destroy(rt);
    return 0;
}

static const check_case cases[] = {
    {"statuses", test_statuses},
    {"gemm", test_gemm},
};

int main(int argc, char **argv) { return check_run_cases(cases, sizeof cases / sizeof cases[0], argc, argv); }
