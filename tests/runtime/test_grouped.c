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
 *   list_statuses         a list of problems' checks (args' group_list):
 *                         both forms given, a list without groups
 *                         (INVALID_ARGUMENT), groups < 0 (BAD_SIZE), types,
 *                         layouts, an epilogue, a batch (UNSUPPORTED),
 *                         misaligned (MISALIGNED); A, B and D may be NULL;
 *                         the class key (no GPU)
 *   list LIST_PACK PLAIN_PACK
 *                         a list of problems tuned and run through the sm90
 *                         template's GRP = 2 point (LIST_PACK): ragged
 *                         problems with padded leading dimensions, an empty
 *                         one, K = 0, one row; each D against float64, its
 *                         guard columns untouched; no cuBLASLt candidate;
 *                         the plain pack's kernels skipped with the reason,
 *                         the list kernel skipped for a plain problem
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
                                              "cutec_gemm_ex passes it, or group_list for a list of problems)");
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

/* A runtime on the test's device and a handle (no disk cache) using the
 * packs argv[0] (the grouped or list kernels) and argv[1] (plain ones,
 * returned in *plain for a second handle) */
static cutec_runtime *open_two_packs(char **argv, cutec_gemm_handle **g, cutec_pack **plain)
{
    cutec_runtime *rt = check_gpu_runtime();
    cutec_runtime_set_log(rt, check_keep_log, NULL);
    CHECK_OK(rt, cutec_gemm_create(rt, g));
    CHECK_OK(rt, cutec_gemm_set_option(*g, CUTEC_OPT_DISK_CACHE, 0));
    cutec_pack *first;
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[0], &first));
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[1], plain));
    CHECK_OK(rt, cutec_gemm_use_pack(*g, first));
    CHECK_OK(rt, cutec_gemm_use_pack(*g, *plain));
    return rt;
}

/* ---- a grouped GEMM tuned and run ---- */

static int test_gemm(int argc, char **argv)
{
    CHECK(argc >= 2);
    cutec_gemm_handle *g;
    cutec_pack *plain_pack;
    cutec_runtime *rt = open_two_packs(argv, &g, &plain_pack);
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

/* ---- lists of problems (args' group_list) ---- */

static int list_bound;

static cutec_status list_check(cutec_runtime *rt, const cutec_gemm_problem *p, const void *list, const int *ends,
                               char *key, size_t len)
{
    cutec_gemm_args a;
    cutec_gemm_args_init(&a, NULL, NULL, NULL); /* the list's rows hold the matrices */
    a.group_list = list;
    a.group_ends = ends;
    cutec_gemm_problem out;
    cutec_gemm_args io;
    gemm_class cls;
    cutec_status s = cutec_gemm_check(rt, "cutec_gemm_ex", p, &a, &out, &io, &cls);
    if (s == CUTEC_OK && key != NULL) cutec_gemm_class_key(&cls, key, len);
    /* the a, b and d roles bound to the list's address, the class a list's */
    list_bound = s == CUTEC_OK && io.A == list && io.B == list && io.D == list && cls.list;
    return s;
}

static int test_list_statuses(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = NULL;
    (void)cutec_runtime_create(&rt, 0);
    CHECK(rt != NULL);
    static long long rows[3 * CUTEC_GEMM_LIST_ROW + 2] __attribute__((aligned(16)));
    static int ends[3] __attribute__((aligned(16)));
    CHECK(sizeof(cutec_gemm_list_row) == CUTEC_GEMM_LIST_ROW * sizeof(long long));
    cutec_gemm_problem p;
    char key[CUTEC_KEY_MAX];
    cutec_gemm_problem_init(&p, 130, 72, 136, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p.groups = 3;
    CHECK_OK(rt, list_check(rt, &p, rows, NULL, key, sizeof key));
    CHECK(list_bound);
    CHECK_CONTAINS(key, " align=16:16:16+list:3");
    CHECK(strstr(key, "groups") == NULL);
    CHECK_STATUS(rt, list_check(rt, &p, NULL, NULL, NULL, 0), CUTEC_ERR_NULL_POINTER);
    CHECK_CONTAINS(cutec_runtime_message(rt), "or group_list for a list of problems");
    CHECK_STATUS(rt, list_check(rt, &p, rows, ends, NULL, 0), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "args give both group_ends and group_list");
    CHECK_STATUS(rt, list_check(rt, &p, (const char *)rows + 8, NULL, NULL, 0), CUTEC_ERR_MISALIGNED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "is not 16-byte aligned (rows of 16 int64 the kernel reads)");
    p.groups = 0;
    CHECK_STATUS(rt, list_check(rt, &p, rows, NULL, NULL, 0), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "args give group_list, which the problem does not ask for");
    p.groups = -2;
    CHECK_STATUS(rt, list_check(rt, &p, rows, NULL, NULL, 0), CUTEC_ERR_BAD_SIZE);
    CHECK_CONTAINS(cutec_runtime_message(rt), "groups = -2; it is 0 (not grouped) or more");
    p.groups = 1LL << 31;
    CHECK_STATUS(rt, list_check(rt, &p, rows, NULL, NULL, 0), CUTEC_ERR_BAD_SIZE);
    p.groups = 3;
    p.c_type = CUTEC_DTYPE_F32;
    CHECK_STATUS(rt, list_check(rt, &p, rows, NULL, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "takes 16-bit types in and out (bf16 or f16); the problem's are A "
                                              "bf16, B bf16, D f32");
    p.c_type = CUTEC_DTYPE_F16; /* bf16 in, f16 out: the template's T and TC */
    CHECK_OK(rt, list_check(rt, &p, rows, NULL, NULL, 0));
    p.b_layout = CUTEC_LAYOUT_ROW;
    CHECK_STATUS(rt, list_check(rt, &p, rows, NULL, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "the problem's layouts are A row, B row, D row");
    p.b_layout = CUTEC_LAYOUT_COL;
    p.beta = 0.5f;
    CHECK_STATUS(rt, list_check(rt, &p, rows, NULL, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "computes D = A B only; alpha = 1, beta = 0.5");
    p.beta = 0;
    p.bias = 1;
    CHECK_STATUS(rt, list_check(rt, &p, rows, NULL, NULL, 0), CUTEC_ERR_NULL_POINTER); /* args give no bias */
    snprintf(p.act, sizeof p.act, "relu");
    p.bias = 0;
    CHECK_STATUS(rt, list_check(rt, &p, rows, NULL, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "a grouped problem (groups 3) takes no epilogue");
    p.act[0] = '\0';
    p.batch = 2;
    CHECK_STATUS(rt, list_check(rt, &p, rows, NULL, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cannot also be a batch (batch 2)");
    cutec_runtime_destroy(rt);
    return 0;
}

/* Problem q of the list test: sizes and padded leading dimensions */
enum { LG = 6, PAD = 8 };
static const long long lsz[LG][3] = {{70, 40, 48}, {0, 24, 32}, {33, 16, 0}, {130, 72, 136}, {1, 8, 16}, {45, 0, 32}};

static int test_list(int argc, char **argv)
{
    CHECK(argc >= 2);
    cutec_gemm_handle *g;
    cutec_pack *plain_pack;
    cutec_runtime *rt = open_two_packs(argv, &g, &plain_pack);
    cutec_gemm_list_row rows[LG];
    uint16_t *ha[LG], *hb[LG], *hd[LG];
    unsigned long long da[LG], db[LG], dd[LG], dl;
    memset(rows, 0, sizeof rows);
    for (int q = 0; q < LG; q++) {
        long long m = lsz[q][0], n = lsz[q][1], k = lsz[q][2];
        cutec_gemm_list_row *r = &rows[q];
        r->m = m, r->n = n, r->k = k, r->lda = k + PAD, r->ldb = k + 2 * PAD, r->ldd = n + PAD;
        size_t na = (size_t)(m * r->lda) + 8, nb = (size_t)(n * r->ldb) + 8, nd = (size_t)(m * r->ldd) + 8;
        ha[q] = malloc(na * 2), hb[q] = malloc(nb * 2), hd[q] = malloc(nd * 2);
        CHECK(ha[q] != NULL && hb[q] != NULL && hd[q] != NULL);
        for (size_t i = 0; i < na; i++) ha[q][i] = check_to_bf16((float)((long long)(i * 7 + (size_t)q) % 9 - 4) / 4);
        for (size_t i = 0; i < nb; i++) hb[q][i] = check_to_bf16((float)((long long)(i * 5 + (size_t)q) % 7 - 3) / 2);
        for (size_t i = 0; i < nd; i++) hd[q][i] = check_to_bf16(-77.0f); /* a sentinel */
        CHECK_OK(rt, cutec_malloc(rt, na * 2, &da[q]));
        CHECK_OK(rt, cutec_malloc(rt, nb * 2, &db[q]));
        CHECK_OK(rt, cutec_malloc(rt, nd * 2, &dd[q]));
        CHECK(da[q] % 16 == 0 && db[q] % 16 == 0 && dd[q] % 16 == 0);
        CHECK_OK(rt, cutec_memcpy_htod(rt, da[q], ha[q], na * 2));
        CHECK_OK(rt, cutec_memcpy_htod(rt, db[q], hb[q], nb * 2));
        CHECK_OK(rt, cutec_memcpy_htod(rt, dd[q], hd[q], nd * 2));
        r->a = da[q], r->b = db[q], r->d = dd[q];
    }
    CHECK_OK(rt, cutec_malloc(rt, sizeof rows, &dl));
    CHECK_OK(rt, cutec_memcpy_htod(rt, dl, rows, sizeof rows));
    cutec_gemm_problem p; /* the bounds over the problems */
    cutec_gemm_problem_init(&p, 130, 72, 136, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p.groups = LG;
    cutec_gemm_args args;
    cutec_gemm_args_init(&args, NULL, NULL, NULL);
    args.group_list = (const void *)(uintptr_t)dl;
    check_log[0] = '\0';
    cutec_tune_report *rep = NULL;
    CHECK_OK(rt, cutec_gemm_tune_ex(g, &p, &args, NULL, &rep));
    CHECK(rep->count >= 1 && strncmp(rep->candidates[0].name, "gemm_sm90", 9) == 0 && isfinite(rep->candidates[0].ms));
    for (int i = 0; i < rep->count; i++) CHECK(!rep->candidates[i].is_cublas);
    cutec_tune_report_free(rep);
    CHECK_CONTAINS(check_log, "tuning: skipping user_gemm_brow T=bf16 TC=bf16: a list of problems (groups 6) needs a "
                              "kernel with a group_list role");
    /* tuning wrote the candidates' scratch outputs, never the caller's */
    for (int q = 0; q < LG; q++) {
        size_t nd = (size_t)(lsz[q][0] * rows[q].ldd) + 8;
        uint16_t *got = malloc(nd * 2);
        CHECK(got != NULL);
        CHECK_OK(rt, cutec_memcpy_dtoh(rt, got, dd[q], nd * 2));
        CHECK(memcmp(got, hd[q], nd * 2) == 0);
        free(got);
    }
    CHECK_OK(rt, cutec_gemm_ex(g, &p, &args, NULL));
    CHECK_OK(rt, cutec_synchronize(rt));
    long long checked = 0;
    for (int q = 0; q < LG; q++) {
        const cutec_gemm_list_row *r = &rows[q];
        size_t nd = (size_t)(r->m * r->ldd) + 8;
        uint16_t *got = malloc(nd * 2);
        CHECK(got != NULL);
        CHECK_OK(rt, cutec_memcpy_dtoh(rt, got, dd[q], nd * 2));
        for (long long i = 0; i < (long long)nd; i++) {
            long long row = i / r->ldd, col = i % r->ldd;
            if (row >= r->m || col >= r->n) { /* guard columns, and past the last row */
                if (got[i] != hd[q][i]) {
                    fprintf(stderr, "problem %d: D[%lld,%lld], outside its %lld x %lld, was written\n", q, row, col,
                            r->m, r->n);
                    return 1;
                }
                continue;
            }
            double want = 0;
            for (long long k = 0; k < r->k; k++)
                want += check_from_bf16(ha[q][row * r->lda + k]) * check_from_bf16(hb[q][col * r->ldb + k]);
            double v = check_from_bf16(got[i]);
            checked++;
            if (fabs(v - want) > 0.01 * fabs(want) + 1e-3) {
                fprintf(stderr, "problem %d D[%lld,%lld] = %g, want %g\n", q, row, col, v, want);
                return 1;
            }
        }
        free(got);
    }
    CHECK(checked == 70 * 40 + 33 * 16 + 130 * 72 + 8);
    /* a plain problem: the list kernel is skipped with the reason */
    cutec_gemm_problem plain;
    cutec_gemm_problem_init(&plain, 40, 24, 32, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    check_log[0] = '\0';
    CHECK_OK(rt, cutec_gemm_tune_ex(g, &plain,
                                    &(cutec_gemm_args){.struct_size = sizeof(cutec_gemm_args),
                                                       .A = (void *)(uintptr_t)da[3],
                                                       .B = (void *)(uintptr_t)db[3],
                                                       .D = (void *)(uintptr_t)dd[3]},
                                    NULL, &rep));
    cutec_tune_report_free(rep);
    CHECK_CONTAINS(check_log, ": a kernel with a group_list role serves lists of problems only (args' group_list)");
    /* no kernel with the role: unsupported, with both reasons */
    cutec_gemm_handle *only_plain;
    CHECK_OK(rt, cutec_gemm_create(rt, &only_plain));
    CHECK_OK(rt, cutec_gemm_set_option(only_plain, CUTEC_OPT_DISK_CACHE, 0));
    CHECK_OK(rt, cutec_gemm_use_pack(only_plain, plain_pack));
    CHECK_STATUS(rt, cutec_gemm_ex(only_plain, &p, &args, NULL), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "+list:6: pack kernels: ");
    CHECK_CONTAINS(cutec_runtime_message(rt),
                   "cuBLASLt: cuBLASLt has no grouped GEMM with the problems' sizes and matrices in device memory");
    cutec_gemm_destroy(only_plain);
    for (int q = 0; q < LG; q++) {
        CHECK_OK(rt, cutec_free(rt, da[q]));
        CHECK_OK(rt, cutec_free(rt, db[q]));
        CHECK_OK(rt, cutec_free(rt, dd[q]));
        free(ha[q]), free(hb[q]), free(hd[q]);
    }
    CHECK_OK(rt, cutec_free(rt, dl));
    cutec_gemm_destroy(g);
    cutec_runtime_destroy(rt);
    return 0;
}

static const check_case cases[] = {
    {"statuses", test_statuses},
    {"gemm", test_gemm},
    {"list_statuses", test_list_statuses},
    {"list", test_list},
};

int main(int argc, char **argv) { return check_run_cases(cases, sizeof cases / sizeof cases[0], argc, argv); }
