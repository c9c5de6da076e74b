/*
 * test_tune_modes.c - fast tuning and the tuning modes (docs/runtime.md,
 * "Fast tuning", "Tuning modes"): the cost model's ranking (CPU, no
 * device), the shortlist, a deferred handle that answers without timing
 * and marks its decision modelled until cutec_gemm_tune measures it, and a
 * background handle whose worker thread measures it (polled with a
 * timeout), destroyed while tuning too.  The mock cases run against
 * tests/runtime/mock_driver.c (whose launch and event counts it reads
 * through dlsym) and mock_cublaslt.c.
 */
#include "check.h"
#include "cutec/cutec.h"
#include "dtype.h"
#include "gemm_internal.h"
#include "tune_model.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

/* ---- the cost model ---- */

static double cost_batch(long long bm, long long bn, int stages, int cm, int cn, long long m, long long n, long long k,
                         long long batch, const char *params)
{
    tune_point pt = {.bm = bm,
                     .bn = bn,
                     .stages = stages,
                     .cm = cm,
                     .cn = cn,
                     .cluster = cm * cn,
                     .threads = 384,
                     .smem = (bm + bn) * 64 * 2 * stages,
                     .persistent = 1,
                     .params = params};
    tune_device dev = {.sms = 132, .smem_per_sm = 228 * 1024, .threads_per_sm = 2048};
    tune_gemm g = {.m = m, .n = n, .k = k, .batch = batch, .ab_bytes = 2, .c_bytes = 2};
    return tune_model_cost(&pt, &g, &dev);
}

static double cost(long long bm, long long bn, int stages, int cm, int cn, long long m, long long n, long long k,
                   const char *params)
{
    return cost_batch(bm, bn, stages, cm, cn, m, n, k, 1, params);
}

static int test_model(int argc, char **argv)
{
    (void)argc, (void)argv;
    /* a small, odd shape: the small tile first (more tiles over the SMs, no padding) */
    CHECK(cost(64, 64, 4, 1, 1, 200, 120, 64, "") < cost(128, 256, 4, 1, 1, 200, 120, 64, ""));
    CHECK(cost(64, 128, 4, 1, 1, 72, 40, 56, "") < cost(256, 128, 3, 1, 1, 72, 40, 56, ""));
    /* a large square: the large tile first (less traffic from L2 per multiply) */
    CHECK(cost(128, 256, 4, 1, 1, 8192, 8192, 8192, "") < cost(64, 64, 4, 1, 1, 8192, 8192, 8192, ""));
    CHECK(cost(128, 256, 4, 2, 1, 8192, 8192, 8192, "") < cost(64, 128, 4, 1, 1, 8192, 8192, 8192, ""));
    /* bound by DRAM (dec_m128_gateup: 128 x 28672 x 8192), the points tie on
     * the weight's bytes; fewer, larger tiles (one tile row, the weight
     * read once from L2 too) break the tie: 128 x 256 before 128 x 128 and
     * 64 x 256, a 1 x 2 cluster sharing the A tile before it */
    double dec = cost(128, 256, 3, 1, 1, 128, 28672, 8192, "EPI=1");
    CHECK(dec < cost(128, 128, 4, 1, 1, 128, 28672, 8192, "EPI=1"));
    CHECK(dec < cost(64, 256, 4, 1, 1, 128, 28672, 8192, "EPI=1"));
    CHECK(cost(128, 256, 3, 1, 2, 128, 28672, 8192, "EPI=1") < dec);
    /* ... by a hair: the DRAM bound is the cost */
    CHECK(cost(128, 128, 4, 1, 1, 128, 28672, 8192, "EPI=1") < 1.002 * dec);
    /* one tile over a whole wave costs a second wave */
    double one = cost(128, 128, 4, 1, 1, 128 * 12, 128 * 11, 4096, ""); /* 132 tiles */
    double over = cost(128, 128, 4, 1, 1, 128 * 12, 128 * 11 + 1, 4096, "");
    CHECK(over > 1.8 * one);
    /* SK=1: one tile over a whole wave is split along K over the idle
     * SMs, a fraction of a round more, not a second round; whole waves are
     * cheaper without it (the flags' memset), and without the token the
     * point is plain */
    CHECK(cost(128, 128, 4, 1, 1, 128 * 12, 128 * 11 + 1, 4096, "SK=1") < 0.95 * over);
    CHECK(cost(128, 256, 4, 1, 1, 8192, 8192 + 256 * 2, 8192, "EPI=1 SK=1") <
          cost(128, 256, 4, 1, 1, 8192, 8192 + 256 * 2, 8192, "EPI=1 SK=0"));
    CHECK(cost(128, 128, 4, 1, 1, 128 * 12, 128 * 11, 4096, "SK=1") > one);
    CHECK(cost(128, 128, 4, 1, 1, 128 * 12, 128 * 11, 4096, "XSK=1") == one);
    /* few tiles over many SMs: split-K */
    CHECK(cost(128, 256, 4, 1, 1, 256, 512, 16384, "SK=1") < cost(128, 256, 4, 1, 1, 256, 512, 16384, ""));
    /* a cluster that does not fit the tiles pads them: 3 tile rows in 2x1
     * clusters are 4, and 3 x 44 tiles, one wave, become two */
    CHECK(cost(128, 128, 4, 2, 1, 384, 128 * 44, 4096, "") > 1.5 * cost(128, 128, 4, 1, 1, 384, 128 * 44, 4096, ""));
    /* deep rings hide a long K's load latency on a skinny (decode) shape */
    CHECK(cost(64, 128, 8, 1, 1, 8, 8192, 8192, "") <= cost(64, 128, 3, 1, 1, 8, 8192, 8192, ""));
    /* a prior: ping-pong costs more than the same tile without, on a whole token only */
    CHECK(cost(64, 128, 4, 1, 1, 4096, 4096, 4096, "X PP=1 Y") > cost(64, 128, 4, 1, 1, 4096, 4096, 4096, "X PP=0"));
    CHECK(cost(64, 128, 4, 1, 1, 4096, 4096, 4096, "XPP=1") == cost(64, 128, 4, 1, 1, 4096, 4096, 4096, ""));
    /* but ping-pong with a shared C tile (PPC = 1) costs less than the same tile cooperative */
    CHECK(cost(128, 192, 4, 1, 1, 4096, 4608, 4096, "PP=1 PPC=1") < cost(128, 192, 4, 1, 1, 4096, 4608, 4096, "PP=0"));
    /* a swapped point (SW = 1: BM rows along N) costs what the tile it
     * covers does: 8 x 32 swapped is a 32 x 8 tile, not 8192 / 8 tile rows */
    CHECK(cost(8, 32, 8, 1, 1, 8192, 8, 8192, "SW=1") == cost(32, 8, 8, 1, 1, 8192, 8, 8192, ""));
    CHECK(cost(8, 32, 8, 1, 1, 8192, 8, 8192, "SW=1") < cost(8, 32, 8, 1, 1, 8192, 8, 8192, ""));
    /* the ranking is stable: equal costs keep their order */
    double c[5] = {3, 1, 2, 1, 3};
    int order[5];
    tune_model_rank(c, 5, order);
    CHECK(order[0] == 1 && order[1] == 3 && order[2] == 2 && order[3] == 0 && order[4] == 4);
    /* the shortlist: half of it the best point of each of the best tile
     * shapes, so variants of one tile (2, 0, 3, 4 are tile 1) do not crowd
     * the others out; the rest by cost */
    double sc[7] = {1.0, 1.1, 1.2, 1.3, 1.4, 5.0, 6.0};
    long long tile[7] = {1, 1, 1, 1, 1, 2, 3};
    int so[7], sr[7];
    tune_model_shortlist(sc, tile, NULL, 7, 4, so, sr);
    /* 4: the best of tiles 1 and 2, then 1 and 2 by cost; by cost alone tile 2 were out */
    static const int want4[7] = {0, 1, 2, 5, 3, 4, 6}, want6[7] = {0, 1, 2, 3, 5, 6, 4};
    for (int i = 0; i < 7; i++) CHECK(so[i] == want4[i]);
    CHECK(sr[5] == 5 && sr[6] == 6 && sr[0] == 0 && sr[4] == 4);
    /* 6: all three tiles */
    tune_model_shortlist(sc, tile, NULL, 7, 6, so, sr);
    for (int i = 0; i < 7; i++) CHECK(so[i] == want6[i]);
    tune_model_shortlist(sc, tile, NULL, 7, 7, so, sr);
    for (int i = 0; i < 7; i++) CHECK(so[i] == i);
    /* each kernel's best point first: point 6 (another kernel, a GEMV
     * beside the tile template) is the costliest, yet in a shortlist of 2;
     * one family changes nothing */
    long long fam[7] = {1, 1, 1, 1, 1, 1, 2}, fam1[7] = {1, 1, 1, 1, 1, 1, 1};
    static const int want2[7] = {0, 6, 1, 2, 3, 4, 5};
    tune_model_shortlist(sc, tile, fam, 7, 2, so, sr);
    for (int i = 0; i < 7; i++) CHECK(so[i] == want2[i]);
    CHECK(sr[6] == 6);
    tune_model_shortlist(sc, tile, fam1, 7, 4, so, sr);
    for (int i = 0; i < 7; i++) CHECK(so[i] == want4[i]);
    /* unknown facts read as neutral values, never as a division by zero */
    tune_point none = {0};
    tune_gemm unit = {.m = 1, .n = 1, .k = 1}, zero = {0};
    CHECK(isfinite(tune_model_cost(&none, &unit, NULL)) && isfinite(tune_model_cost(&none, &zero, NULL)));
    /* a batch's tiles are one pool: 64 problems of 512 x 4096 x 1024 fill the
     * SMs many times over with 128 x 256 tiles, which load less per
     * multiply than 64 x 128 ones; one such problem (64 tiles of 128 x 256
     * on 132 SMs) is better off with the smaller tiles */
    CHECK(cost_batch(128, 256, 4, 1, 1, 512, 4096, 1024, 64, "") <
          cost_batch(64, 128, 4, 1, 1, 512, 4096, 1024, 64, ""));
    CHECK(cost_batch(128, 256, 4, 1, 1, 512, 4096, 1024, 1, "") > cost_batch(64, 128, 4, 1, 1, 512, 4096, 1024, 1, ""));
    /* and costs about the 32 waves of its 4096 tiles, not one problem's half wave */
    CHECK(cost_batch(128, 256, 4, 1, 1, 512, 4096, 1024, 64, "") > 20 * cost(128, 256, 4, 1, 1, 512, 4096, 1024, ""));
    printf("model: ok\n");
    return 0;
}

/* ---- GEMMs against the mocks ---- */

typedef struct mats {
    unsigned long long a, b, c;
    uint16_t *ha, *hb;
    long long m, n, k;
} mats;

static void mats_init(cutec_runtime *rt, long long m, long long n, long long k, mats *x)
{
    *x = (mats){.m = m, .n = n, .k = k};
    x->ha = malloc(2 * (size_t)(m * k));
    x->hb = malloc(2 * (size_t)(n * k));
    CHECK(x->ha != NULL && x->hb != NULL);
    uint64_t s = 12345;
    for (long long i = 0; i < m * k + n * k; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        float f = (float)((double)(s >> 11) / 9007199254740992.0) * 2.0f - 1.0f;
        (i < m * k ? x->ha : x->hb - m * k)[i] = cutec_float_to_bf16(f);
    }
    CHECK_OK(rt, cutec_malloc(rt, 2 * (size_t)(m * k), &x->a));
    CHECK_OK(rt, cutec_malloc(rt, 2 * (size_t)(n * k), &x->b));
    CHECK_OK(rt, cutec_malloc(rt, 2 * (size_t)(m * n), &x->c));
    CHECK_OK(rt, cutec_memcpy_htod(rt, x->a, x->ha, 2 * (size_t)(m * k)));
    CHECK_OK(rt, cutec_memcpy_htod(rt, x->b, x->hb, 2 * (size_t)(n * k)));
}

static void mats_free(cutec_runtime *rt, mats *x)
{
    cutec_free(rt, x->a);
    cutec_free(rt, x->b);
    cutec_free(rt, x->c);
    free(x->ha);
    free(x->hb);
}

/* Whether C is A B against float64 (A row-major, B stored N x K, C as
 * the problem lays it out), within the GEMM tests' bound. */
static int c_correct(cutec_runtime *rt, const cutec_gemm_problem *p, const mats *x)
{
    uint16_t *got = malloc(2 * (size_t)(x->m * x->n));
    CHECK(got != NULL);
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, got, x->c, 2 * (size_t)(x->m * x->n)));
    int ok = 1;
    for (long long i = 0; i < x->m; i++)
        for (long long j = 0; j < x->n; j++) {
            double dot = 0, mag = 0;
            for (long long q = 0; q < x->k; q++) {
                double v = cutec_bf16_to_float(x->ha[i * x->k + q]) * cutec_bf16_to_float(x->hb[j * x->k + q]);
                dot += v;
                mag += fabs(v);
            }
            double g = cutec_bf16_to_float(got[p->c_layout == CUTEC_LAYOUT_ROW ? i * x->n + j : j * x->m + i]);
            ok &= fabs(g - dot) <= 2 * 0x1p-7 * fabs(dot) + 4 * 0x1p-7 * mag / sqrt((double)x->k);
        }
    free(got);
    return ok;
}

/* cutec_gemm, then C against float64. */
static void gemm_checked(cutec_runtime *rt, cutec_gemm_handle *h, const cutec_gemm_problem *p, mats *x)
{
    CHECK_OK(rt, cutec_gemm(h, p, (void *)(uintptr_t)x->a, (void *)(uintptr_t)x->b, (void *)(uintptr_t)x->c, NULL));
    CHECK_OK(rt, cutec_synchronize(rt));
    CHECK(c_correct(rt, p, x));
}

/* The mock driver's launch and event counts. */
static void mock_counts(long long *launches, long long *events)
{
    void *lib = dlopen(getenv("CUTEC_CUDA_DRIVER"), RTLD_NOW);
    CHECK(lib != NULL);
    void (*counts)(long long *, long long *) =
        (void (*)(long long *, long long *))(uintptr_t)dlsym(lib, "cutec_mock_counts");
    CHECK(counts != NULL);
    counts(launches, events);
    dlclose(lib);
}

/* The text of the one cache file in dir ("" when none). */
static void cache_text(const char *dir, char *buf, size_t len)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cat '%s'/gemm-*.txt 2>/dev/null", dir);
    FILE *f = popen(cmd, "r");
    CHECK(f != NULL);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    pclose(f);
}

static cutec_runtime *mock_runtime(const char *pack_path, cutec_pack **pack, cutec_gemm_handle **h, const char *dir)
{
    cutec_runtime *rt = check_gpu_runtime();
    CHECK_OK(rt, cutec_gemm_create(rt, h));
    CHECK_OK(rt, cutec_pack_load_file(rt, pack_path, pack));
    CHECK_OK(rt, cutec_gemm_use_pack(*h, *pack));
    CHECK_OK(rt, cutec_gemm_set_cache_dir(*h, dir));
    return rt;
}

static int state_of(cutec_runtime *rt, cutec_gemm_handle *h, const cutec_gemm_problem *p, int *tuning)
{
    int st = -1;
    CHECK_OK(rt, cutec_gemm_decision_state(h, p, &st, tuning));
    return st;
}

/* Deferred: the first call times nothing and is right; the cache says
 * modelled; cutec_gemm_tune measures it; a blocking handle does not take a
 * modelled decision from disk. */
static int test_deferred(int argc, char **argv)
{
    CHECK(argc >= 1);
    char dir[] = "/tmp/cutec-test-modes-XXXXXX", text[8192];
    CHECK(mkdtemp(dir) != NULL);
    cutec_pack *pack;
    cutec_gemm_handle *h;
    cutec_runtime *rt = mock_runtime(argv[0], &pack, &h, dir);
    CHECK_STATUS(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_MODE, 3), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_MODE, CUTEC_TUNE_DEFERRED));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 72, 40, 56, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, 72, 40, 56, &x);
    CHECK(state_of(rt, h, &p, NULL) == CUTEC_DECISION_NONE);
    long long l0, e0, l1, e1;
    mock_counts(&l0, &e0);
    gemm_checked(rt, h, &p, &x);
    mock_counts(&l1, &e1);
    CHECK(e1 == e0); /* no event: nothing timed */
    CHECK(state_of(rt, h, &p, NULL) == CUTEC_DECISION_MODELLED);
    char choice[256];
    CHECK_OK(rt, cutec_gemm_choice(h, &p, choice, sizeof choice));
    /* with cuBLASLt: its heuristic's first algorithm; without: the model's pack kernel */
    CHECK(strstr(choice, getenv("TEST_NO_CUBLAS") != NULL ? "gemm_sm80" : "cublasLt algo #0") != NULL);
    cache_text(dir, text, sizeof text);
    CHECK_CONTAINS(text, "cutec-tune-cache 2\n");
    CHECK_CONTAINS(text, "\nsource modelled\n");
    /* later calls: the same decision, still nothing timed */
    gemm_checked(rt, h, &p, &x);
    mock_counts(&l1, &e1);
    CHECK(e1 == e0);
    /* an explicit tuning measures it */
    cutec_tune_report *rep = NULL;
    CHECK_OK(
        rt, cutec_gemm_tune(h, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c, NULL, &rep));
    CHECK(rep != NULL && rep->count > 0 && !rep->from_cache);
    cutec_tune_report_free(rep);
    mock_counts(&l1, &e1);
    CHECK(e1 > e0);
    CHECK(state_of(rt, h, &p, NULL) == CUTEC_DECISION_MEASURED);
    cache_text(dir, text, sizeof text);
    CHECK_CONTAINS(text, "\nsource measured\n");
    gemm_checked(rt, h, &p, &x);
    /* a new handle (deferred) reads the measured decision from disk */
    cutec_gemm_handle *h2;
    CHECK_OK(rt, cutec_gemm_create(rt, &h2));
    CHECK_OK(rt, cutec_gemm_use_pack(h2, pack));
    CHECK_OK(rt, cutec_gemm_set_cache_dir(h2, dir));
    CHECK_OK(rt, cutec_gemm_set_option(h2, CUTEC_OPT_TUNE_MODE, CUTEC_TUNE_DEFERRED));
    gemm_checked(rt, h2, &p, &x);
    CHECK(state_of(rt, h2, &p, NULL) == CUTEC_DECISION_MEASURED);
    cutec_gemm_destroy(h2);
    /* another class, modelled on disk: a blocking handle tunes it anyway */
    cutec_gemm_problem q;
    cutec_gemm_problem_init(&q, 64, 48, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats y;
    mats_init(rt, 64, 48, 64, &y);
    gemm_checked(rt, h, &q, &y);
    CHECK(state_of(rt, h, &q, NULL) == CUTEC_DECISION_MODELLED);
    CHECK_OK(rt, cutec_gemm_create(rt, &h2));
    CHECK_OK(rt, cutec_gemm_use_pack(h2, pack));
    CHECK_OK(rt, cutec_gemm_set_cache_dir(h2, dir));
    mock_counts(&l0, &e0);
    gemm_checked(rt, h2, &q, &y);
    mock_counts(&l1, &e1);
    CHECK(e1 > e0);
    CHECK(state_of(rt, h2, &q, NULL) == CUTEC_DECISION_MEASURED);
    cutec_gemm_destroy(h2);
    mats_free(rt, &x);
    mats_free(rt, &y);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    printf("deferred: ok\n");
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Background: the first call answers with a modelled decision; the worker
 * measures it (a later call takes it up); the cache says measured; a
 * handle destroyed while its worker tunes joins it. */
static int test_background(int argc, char **argv)
{
    CHECK(argc >= 1);
    char dir[] = "/tmp/cutec-test-modes-XXXXXX", text[8192];
    CHECK(mkdtemp(dir) != NULL);
    cutec_pack *pack;
    cutec_gemm_handle *h;
    cutec_runtime *rt = mock_runtime(argv[0], &pack, &h, dir);
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_MODE, CUTEC_TUNE_BACKGROUND));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 100, 72, 40, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, 100, 72, 40, &x);
    gemm_checked(rt, h, &p, &x);
    int tuning = -1, st = state_of(rt, h, &p, &tuning);
    CHECK(st == CUTEC_DECISION_MODELLED || st == CUTEC_DECISION_MEASURED);
    double t0 = now_s();
    while ((st = state_of(rt, h, &p, &tuning)) != CUTEC_DECISION_MEASURED && now_s() - t0 < 120)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    CHECK(st == CUTEC_DECISION_MEASURED && tuning == 0);
    printf("background: measured after %.2f s\n", now_s() - t0);
    gemm_checked(rt, h, &p, &x);
    cache_text(dir, text, sizeof text);
    CHECK_CONTAINS(text, "\nsource measured\n");
    /* destroyed while its worker tunes another class */
    cutec_gemm_problem q;
    cutec_gemm_problem_init(&q, 128, 128, 128, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats y;
    mats_init(rt, 128, 128, 128, &y);
    gemm_checked(rt, h, &q, &y);
    CHECK_OK(rt, cutec_gemm_decision_state(h, &q, &st, &tuning));
    CHECK(st != CUTEC_DECISION_NONE);
    cutec_gemm_destroy(h);
    /* the runtime still works */
    CHECK_OK(rt, cutec_synchronize(rt));
    mats_free(rt, &x);
    mats_free(rt, &y);
    /* a runtime destroyed before a background handle stops its worker too */
    CHECK_OK(rt, cutec_gemm_create(rt, &h));
    CHECK_OK(rt, cutec_gemm_use_pack(h, pack));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_MODE, CUTEC_TUNE_BACKGROUND));
    mats_init(rt, 64, 48, 64, &x);
    cutec_gemm_problem_init(&p, 64, 48, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    gemm_checked(rt, h, &p, &x);
    mats_free(rt, &x);
    cutec_runtime_destroy(rt);
    cutec_gemm_destroy(h);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    printf("background: ok\n");
    return 0;
}

static char log_text[1 << 16];
static void keep_log(void *user, int level, const char *msg)
{
    (void)user, (void)level;
    size_t n = strlen(log_text);
    snprintf(log_text + n, sizeof log_text - n, "%s\n", msg);
}

/* The shortlist: with 4 of the pack's 12 points (and no fill), 8 are
 * never run and say why; the winner is checked and timed, and the rounds
 * stop once the ranking is settled (the mock's times do not vary: after
 * two batches); 0 runs every point, every round.  Then the fill (the
 * default): a 128^3 problem's run is microseconds by the cost model, so
 * the shortlist of 4 grows to the whole pack and the log says why, once
 * the pack's modules are loaded: first, on a fresh pack whose module
 * loads take 100 ms each (CUTEC_MOCK_JIT_MS, as the driver's JIT of a GEMM
 * point's PTX with nothing cached), past the shortlist's 4 points load
 * only while the loading has taken less than the screening's 0.6 s budget,
 * and the rest are not run. */
static int test_shortlist(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_pack *pack;
    cutec_gemm_handle *h;
    cutec_runtime *rt = mock_runtime(argv[0], &pack, &h, "/nonexistent-cache");
    cutec_runtime_set_log(rt, keep_log, NULL);
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 128, 128, 128, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, 128, 128, 128, &x);
    {
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST, 4));
        cutec_tune_report *rep = NULL;
        log_text[0] = '\0';
        setenv("CUTEC_MOCK_JIT_MS", "100", 1);
        CHECK_OK(rt, cutec_gemm_tune(h, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c,
                                     NULL, &rep));
        unsetenv("CUTEC_MOCK_JIT_MS");
        CHECK_CONTAINS(log_text, "the shortlist grows");
        CHECK_CONTAINS(log_text, "past the screening's budget");
        int unloaded = 0;
        for (int i = 0; i < rep->count; i++)
            unloaded += strstr(rep->candidates[i].note, "did not load within the screening's budget") != NULL;
        /* the shortlist's 4, then more while under 0.6 s (about 6 of the
         * 12; fewer where a loaded machine stretches the waits) */
        CHECK(unloaded >= 1 && unloaded <= cutec_pack_entry_count(pack) - 4);
        CHECK(!isinf(rep->candidates[0].ms));
        printf("fill over slow loads: %d pack kernels not run\n", unloaded);
        cutec_tune_report_free(rep);
    }
    long long fill = -1;
    CHECK_OK(rt, cutec_gemm_get_option(h, CUTEC_OPT_TUNE_SHORTLIST_FILL, &fill));
    CHECK(fill == 1);
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST_FILL, 0));
    for (int shortlist = 4; shortlist >= 0; shortlist -= 4) {
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST, shortlist));
        cutec_tune_report *rep = NULL;
        log_text[0] = '\0';
        CHECK_OK(rt, cutec_gemm_tune(h, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c,
                                     NULL, &rep));
        if (shortlist)
            CHECK_CONTAINS(log_text, "tuning: the ranking settled after 10 of 25 rounds");
        else
            CHECK(strstr(log_text, "settled") == NULL);
        int pruned = 0, dsl = 0;
        for (int i = 0; i < rep->count; i++) {
            const cutec_tune_candidate *c = &rep->candidates[i];
            dsl += !c->is_cublas;
            if (strstr(c->note, "not timed: the cost model ranks it") != NULL) {
                pruned++;
                CHECK(isinf(c->ms) && c->screened && !c->is_cublas);
            }
        }
        CHECK(dsl == cutec_pack_entry_count(pack));
        CHECK(pruned == (shortlist ? dsl - shortlist : 0));
        CHECK(!isinf(rep->candidates[0].ms) && !rep->candidates[0].screened);
        printf("shortlist %d: %d pack kernels not run, winner %s\n", shortlist, pruned, rep->candidates[0].name);
        cutec_tune_report_free(rep);
    }
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST, 4));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST_FILL, 1));
    CHECK(cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST_FILL, 2) == CUTEC_ERR_INVALID_ARGUMENT);
    cutec_tune_report *rep = NULL;
    log_text[0] = '\0';
    CHECK_OK(
        rt, cutec_gemm_tune(h, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c, NULL, &rep));
    char grown[96];
    snprintf(grown, sizeof grown,
             "tuning: the shortlist grows from 4 to %d of %d pack kernels: what 0.6 s of screening",
             cutec_pack_entry_count(pack), cutec_pack_entry_count(pack));
    CHECK_CONTAINS(log_text, grown);
    for (int i = 0; i < rep->count; i++) CHECK(strstr(rep->candidates[i].note, "not timed") == NULL);
    printf("fill: every pack kernel timed, winner %s\n", rep->candidates[0].name);
    cutec_tune_report_free(rep);
    /* CUTEC_OPT_TUNE_LEAD: exhaustive, unscreened rounds without and with 2
     * untimed runs before each timed one; the rounds' runs of the pack
     * kernels (25 each) come back three times (the log's run count) */
    long long runs[2] = {0, 0};
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST, 0));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_FINALISTS, 0));
    for (int lead = 0; lead <= 2; lead += 2) {
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_LEAD, lead));
        log_text[0] = '\0';
        CHECK_OK(rt, cutec_gemm_tune(h, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c,
                                     NULL, &rep));
        const char *at = strstr(log_text, " runs (one run");
        CHECK(at != NULL);
        while (at > log_text && at[-1] >= '0' && at[-1] <= '9') at--;
        runs[lead / 2] = atoll(at);
        cutec_tune_report_free(rep);
    }
    long long led = 0;
    CHECK_OK(rt, cutec_gemm_get_option(h, CUTEC_OPT_TUNE_LEAD, &led));
    CHECK(led == 2 && cutec_gemm_set_option(h, CUTEC_OPT_TUNE_LEAD, 1001) == CUTEC_ERR_INVALID_ARGUMENT);
    printf("lead 0: %lld runs, lead 2: %lld runs\n", runs[0], runs[1]);
    CHECK(runs[1] - runs[0] >= 2 * 25 * (long long)cutec_pack_entry_count(pack));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_LEAD, 0));
    gemm_checked(rt, h, &p, &x);
    mats_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* Fast tuning's time budget: where a run takes milliseconds (the mock's
 * launches 8000 times slower: about 40 ms for this problem), the
 * screening times each candidate twice, the rounds stop after two batches
 * and the head to head runs 10 times; at the mock's own speed, 5
 * screening runs and the head to head's 25.  The same screening with a
 * bias (the epilogue's reference, which times no run). */
static int test_budget(int argc, char **argv)
{
    CHECK(argc >= 1);
    for (int slow = 1; slow >= 0; slow--) {
        if (slow)
            setenv("CUTEC_MOCK_SLOW", "8000", 1);
        else
            unsetenv("CUTEC_MOCK_SLOW");
        cutec_pack *pack;
        cutec_gemm_handle *h;
        cutec_runtime *rt = mock_runtime(argv[0], &pack, &h, "/nonexistent-cache");
        cutec_runtime_set_log(rt, keep_log, NULL);
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST, 6));
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST_FILL, 0));
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_FINALISTS, 3));
        cutec_gemm_problem p;
        cutec_gemm_problem_init(&p, 128, 128, 128, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
        mats x;
        mats_init(rt, 128, 128, 128, &x);
        log_text[0] = '\0';
        cutec_tune_report *rep = NULL;
        CHECK_OK(rt, cutec_gemm_tune(h, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c,
                                     NULL, &rep));
        CHECK_CONTAINS(log_text, slow ? "(screening: 2 runs, not checked)" : "(screening: 5 runs, not checked)");
        CHECK_CONTAINS(log_text, slow ? "the ranking settled after 10 of 10 rounds" : "of 25 rounds");
        /* the phase line: where the time went, and how many runs */
        CHECK_CONTAINS(log_text, "s: candidates ");
        CHECK_CONTAINS(log_text, ", head to head ");
        const char *ms = strstr(log_text, "(one run ");
        CHECK(ms != NULL);
        double one = atof(ms + strlen("(one run "));
        CHECK(slow ? one > 10.0 : one < 0.1);
        printf("slow %d: one run %.3f ms, winner %s\n", slow, one, rep->candidates[0].name);
        cutec_tune_report_free(rep);
        gemm_checked(rt, h, &p, &x);
        /* with an epilogue (a bias: cuBLASLt's fused BIAS), whose reference
         * times nothing: the first cuBLASLt candidate's timed run is the
         * budget's estimate, so the slow runs are screened fewer times too */
        cutec_gemm_problem pb = p;
        pb.bias = 1;
        unsigned long long bias;
        CHECK_OK(rt, cutec_malloc(rt, 2 * 128, &bias));
        CHECK_OK(rt, cutec_memcpy_htod(rt, bias, x.ha, 2 * 128));
        cutec_gemm_args ab;
        cutec_gemm_args_init(&ab, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c);
        ab.bias = (const void *)(uintptr_t)bias;
        log_text[0] = '\0';
        CHECK_OK(rt, cutec_gemm_tune_ex(h, &pb, &ab, NULL, &rep));
        CHECK_CONTAINS(log_text, "tuning: the budget's first estimate of a run: ");
        /* (cuBLASLt's 4 algorithms alone: no pack kernel adds a bias; 600 ms / (4 x 50 ms)) */
        CHECK_CONTAINS(log_text, slow ? "(screening: 3 runs, not checked)" : "(screening: 5 runs, not checked)");
        cutec_tune_report_free(rep);
        CHECK_OK(rt, cutec_free(rt, bias));
        mats_free(rt, &x);
        cutec_gemm_destroy(h);
        cutec_runtime_destroy(rt);
    }
    return 0;
}

/* C as NaN bytes (an output never written shows). */
static void c_poison(cutec_runtime *rt, const mats *x)
{
    size_t bytes = 2 * (size_t)(x->m * x->n);
    unsigned char *nan = malloc(bytes);
    CHECK(nan != NULL);
    memset(nan, 0xff, bytes);
    CHECK_OK(rt, cutec_memcpy_htod(rt, x->c, nan, bytes));
    free(nan);
}

/* Staged operands (gemm_stage.c): A 2 bytes past a 16-byte boundary and
 * N = 45 (rows of D 90 bytes apart) leave no pack kernel able to read A or
 * write D where they are; staged copies they can.  Without cuBLASLt a staged kernel wins, is
 * right against float64, goes to the cache as "staged ..." and comes back
 * from it (a second handle runs it without tuning: nothing timed); a
 * staged candidate also runs by its name. */
static int test_staged(int argc, char **argv)
{
    CHECK(argc >= 1);
    CHECK(setenv("CUTEC_CUBLASLT", "/nonexistent/libcublasLt.so", 1) == 0);
    char dir[] = "/tmp/cutec-test-staged-XXXXXX", text[8192];
    CHECK(mkdtemp(dir) != NULL);
    cutec_pack *pack;
    cutec_gemm_handle *h;
    cutec_runtime *rt = mock_runtime(argv[0], &pack, &h, dir);
    cutec_runtime_set_log(rt, keep_log, NULL);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 64, 45, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, 64, 45, 64, &x);
    unsigned long long a_base;
    CHECK_OK(rt, cutec_malloc(rt, 2 * 64 * 64 + 16, &a_base));
    CHECK_OK(rt, cutec_memcpy_htod(rt, a_base + 2, x.ha, 2 * 64 * 64));
    unsigned long long a_packed = x.a;
    x.a = a_base + 2;
    log_text[0] = '\0';
    cutec_tune_report *rep = NULL;
    cutec_status ts =
        cutec_gemm_tune(h, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c, NULL, &rep);
    if (ts != CUTEC_OK) fprintf(stderr, "%s", log_text); /* why each kernel was skipped */
    CHECK_OK(rt, ts);
    CHECK_CONTAINS(log_text, "fit once operands are staged (A D or some of them, copied with 16-byte aligned rows");
    CHECK(strncmp(rep->candidates[0].name, "staged gemm_sm80 ", 17) == 0 && !isinf(rep->candidates[0].ms));
    char name[CUTEC_CANDIDATE_NAME_LEN];
    snprintf(name, sizeof name, "%s", rep->candidates[0].name);
    printf("staged winner: %s (%.4f ms)\n", name, rep->candidates[0].ms);
    cutec_tune_report_free(rep);
    gemm_checked(rt, h, &p, &x);
    cache_text(dir, text, sizeof text);
    CHECK_CONTAINS(text, "staged ");
    /* by its name, on a C that starts as NaN bytes */
    c_poison(rt, &x);
    cutec_gemm_args args;
    cutec_gemm_args_init(&args, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c);
    CHECK_OK(rt, cutec_gemm_run_candidate(h, &p, &args, name, NULL));
    CHECK(c_correct(rt, &p, &x));
    cutec_gemm_destroy(h);
    /* a second handle: the staged decision from the cache, nothing timed */
    CHECK_OK(rt, cutec_gemm_create(rt, &h));
    CHECK_OK(rt, cutec_gemm_use_pack(h, pack));
    CHECK_OK(rt, cutec_gemm_set_cache_dir(h, dir));
    c_poison(rt, &x);
    /* under the mock: one launch, no event (nothing timed); on a GPU the result alone */
    const char *drv = getenv("CUTEC_CUDA_DRIVER");
    int mock = drv != NULL && strstr(drv, "mock") != NULL;
    long long l0 = 0, e0 = 0, l1 = 0, e1 = 0;
    if (mock) mock_counts(&l0, &e0);
    gemm_checked(rt, h, &p, &x);
    if (mock) mock_counts(&l1, &e1);
    CHECK(e1 == e0 && l1 == l0 + mock);
    x.a = a_packed;
    cutec_free(rt, a_base);
    mats_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return 0;
}

/* ---- the device check ---- */

/* Which check the tuner uses is logged: under the mock driver the check
 * kernel loads but does not run, so its self-test fails and the host
 * checks; with CUTEC_OPT_DEVICE_CHECK 0 the host checks without trying. */
static int test_check_select(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_pack *pack;
    cutec_gemm_handle *h;
    cutec_runtime *rt = mock_runtime(argv[0], &pack, &h, "/nonexistent-cache");
    cutec_runtime_set_log(rt, keep_log, NULL);
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 64, 48, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, 64, 48, 64, &x);
    long long bad = 0;
    CHECK_STATUS(rt, cutec_gemm_check_close(h, CUTEC_DTYPE_BF16, 4, 4, 4, x.a, x.a, 0.01, 0, NULL, &bad),
                 CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "its self-test counted 0 of 2 wrong elements");
    log_text[0] = '\0';
    gemm_checked(rt, h, &p, &x);
    CHECK_CONTAINS(log_text, "tuning: candidates are checked on the host: its self-test counted 0 of 2");
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DEVICE_CHECK, 0));
    log_text[0] = '\0';
    CHECK_OK(
        rt, cutec_gemm_tune(h, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c, NULL, NULL));
    CHECK_CONTAINS(log_text, "tuning: candidates are checked on the host: CUTEC_OPT_DEVICE_CHECK is 0");
    mats_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* On a GPU: the device check counts exactly what the host counts over the
 * same stored values (NaN, far and near misses, padding past the columns
 * never read), for each type; and a tuning checks on the device, with the
 * same verdicts as one checking on the host. */
static int test_check_agree(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_pack *pack;
    cutec_gemm_handle *h;
    cutec_runtime *rt = mock_runtime(argv[0], &pack, &h, "/nonexistent-cache");
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    const long long rows = 1000, cols = 777, ld = 800;
    for (cutec_dtype t = CUTEC_DTYPE_BF16; t <= CUTEC_DTYPE_F32; t++) {
        size_t es = t == CUTEC_DTYPE_F32 ? 4 : 2, bytes = es * (size_t)(rows * ld);
        unsigned char *hx = malloc(bytes), *hy = malloc(bytes);
        CHECK(hx != NULL && hy != NULL);
        double rel = 2 * cutec_dtype_info_of((cutec_ct)t)->tol, abs_tol = 1e-3;
        uint64_t s = 7;
        for (long long i = 0; i < rows * ld; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            float v = (float)((double)(s >> 11) / 9007199254740992.0) * 2.0f - 1.0f, w = v;
            long long c = i % ld;
            if (c >= cols)
                w = NAN; /* padding: never compared */
            else if (i % 997 == 0)
                w = NAN; /* a NaN: wrong */
            else if (i % 1009 == 0)
                w = v + 0.5f; /* far off: wrong */
            else if (i % 1013 == 0)
                w = v * (1 + (float)rel / 4); /* within the bound */
            cutec_dtype_store((cutec_ct)t, hy + es * (size_t)i, v);
            cutec_dtype_store((cutec_ct)t, hx + es * (size_t)i, w);
        }
        long long want = 0;
        for (long long r = 0; r < rows; r++)
            for (long long c = 0; c < cols; c++) {
                double xv = cutec_dtype_load((cutec_ct)t, hx + es * (size_t)(r * ld + c));
                double yv = cutec_dtype_load((cutec_ct)t, hy + es * (size_t)(r * ld + c));
                want += !(fabs(xv - yv) <= rel * fabs(yv) + abs_tol);
            }
        unsigned long long dx, dy;
        CHECK_OK(rt, cutec_malloc(rt, bytes, &dx));
        CHECK_OK(rt, cutec_malloc(rt, bytes, &dy));
        CHECK_OK(rt, cutec_memcpy_htod(rt, dx, hx, bytes));
        CHECK_OK(rt, cutec_memcpy_htod(rt, dy, hy, bytes));
        long long got = -1;
        CHECK_OK(rt, cutec_gemm_check_close(h, t, rows, cols, ld, dx, dy, rel, abs_tol, NULL, &got));
        printf("check %s: device %lld, host %lld wrong elements\n", cutec_dtype_name(t), got, want);
        CHECK(got == want && want > 1000);
        CHECK_OK(rt, cutec_gemm_check_close(h, t, rows, cols, ld, dy, dy, rel, 0, NULL, &got));
        CHECK(got == 0);
        cutec_free(rt, dx);
        cutec_free(rt, dy);
        free(hx);
        free(hy);
    }
    /* a tuning on the device, then on the host: the same candidates fail */
    cutec_runtime_set_log(rt, keep_log, NULL);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 1000, 1536, 512, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, 1000, 1536, 512, &x);
    int failed[2] = {0, 0};
    for (int dev = 1; dev >= 0; dev--) {
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DEVICE_CHECK, dev));
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST, 0));
        log_text[0] = '\0';
        cutec_tune_report *rep = NULL;
        CHECK_OK(rt, cutec_gemm_tune(h, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c,
                                     NULL, &rep));
        CHECK_CONTAINS(log_text, dev ? "checked on the device" : "checked on the host");
        for (int i = 0; i < rep->count; i++) failed[dev] += strncmp(rep->candidates[i].note, "wrong result", 12) == 0;
        printf("tuning with the %s check: %.2f s, %d wrong\n", dev ? "device" : "host", rep->seconds, failed[dev]);
        cutec_tune_report_free(rep);
    }
    CHECK(failed[0] == failed[1]);
    gemm_checked(rt, h, &p, &x);
    mats_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* A column-major D is computed as its row-major transpose (B^T A^T, the
 * operands trading places), so a pack kernel that writes row-major D
 * serves it: without cuBLASLt this is the only way to compute it. */
static int test_col_major(int argc, char **argv)
{
    CHECK(argc >= 1);
    char dir[] = "/tmp/cutec-test-colmajor-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    cutec_pack *pack;
    cutec_gemm_handle *h;
    cutec_runtime *rt = mock_runtime(argv[0], &pack, &h, dir);
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_MODE, CUTEC_TUNE_DEFERRED));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 72, 40, 56, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p.c_layout = CUTEC_LAYOUT_COL;
    mats x;
    mats_init(rt, 72, 40, 56, &x);
    gemm_checked(rt, h, &p, &x);
    char choice[256];
    CHECK_OK(rt, cutec_gemm_choice(h, &p, choice, sizeof choice));
    CHECK_CONTAINS(choice, "gemm_sm80");
    printf("column-major D: %s\n", choice);
    mats_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* cutec_gemm_run_candidate: every candidate of a tuning's report runs by
 * its name, unchecked (with CUTEC_MOCK_WRONG="BM 64" those kernels' wrong
 * results come back as they are, the others right), the handle's decision
 * untouched; names that are no candidate, a NULL name or args refused. */
static int test_run_candidate(int argc, char **argv)
{
    CHECK(argc >= 1);
    char dir[] = "/tmp/cutec-test-run-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    cutec_pack *pack;
    cutec_gemm_handle *h;
    cutec_runtime *rt = mock_runtime(argv[0], &pack, &h, dir);
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 72, 40, 56, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, 72, 40, 56, &x);
    cutec_gemm_args a;
    cutec_gemm_args_init(&a, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c);
    cutec_tune_report *rep = NULL;
    CHECK_OK(rt, cutec_gemm_tune_ex(h, &p, &a, NULL, &rep));
    const char *wrong = getenv("CUTEC_MOCK_WRONG");
    int dsl = 0, lt = 0, bad = 0;
    for (int i = 0; i < rep->count; i++) {
        const char *name = rep->candidates[i].name;
        CHECK_OK(rt, cutec_gemm_run_candidate(h, &p, &a, name, NULL));
        int want_wrong = wrong != NULL && strstr(name, " BM=64 ") != NULL;
        if (c_correct(rt, &p, &x) == want_wrong) {
            fprintf(stderr, "%s: %s result\n", name, want_wrong ? "a right" : "a wrong");
            return 1;
        }
        bad += want_wrong;
        *(rep->candidates[i].is_cublas ? &lt : &dsl) += 1;
    }
    CHECK(dsl >= 4 && lt >= 1 && (wrong == NULL || bad >= 2));
    char choice[256];
    CHECK_OK(rt, cutec_gemm_choice(h, &p, choice, sizeof choice));
    CHECK(strcmp(choice, rep->candidates[rep->winner].name) == 0);
    CHECK_STATUS(rt, cutec_gemm_run_candidate(h, &p, &a, "gemm_sm80 T=f16", NULL), CUTEC_ERR_KERNEL_NOT_FOUND);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_run_candidate: no candidate 'gemm_sm80 T=f16' serves this "
                                              "problem (");
    CHECK_STATUS(rt, cutec_gemm_run_candidate(h, &p, &a, "cublasLt algo #31", NULL), CUTEC_ERR_KERNEL_NOT_FOUND);
    CHECK_STATUS(rt, cutec_gemm_run_candidate(h, &p, &a, NULL, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_run_candidate: name is NULL");
    CHECK_STATUS(rt, cutec_gemm_run_candidate(h, &p, NULL, rep->candidates[0].name, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_gemm_run_candidate(NULL, &p, &a, "x", NULL), CUTEC_ERR_INVALID_ARGUMENT);
    printf("run_candidate: %d pack kernels (%d wrong on purpose) and %d cuBLASLt algorithms by name\n", dsl, bad, lt);
    cutec_tune_report_free(rep);
    mats_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    rmdir(dir);
    return 0;
}

static const check_case cases[] = {
    {"col_major", test_col_major}, {"check_select", test_check_select},   {"check_agree", test_check_agree},
    {"model", test_model},         {"deferred", test_deferred},           {"background", test_background},
    {"shortlist", test_shortlist}, {"run_candidate", test_run_candidate}, {"budget", test_budget},
    {"staged", test_staged},
};

int main(int argc, char **argv) { return check_run_cases(cases, sizeof cases / sizeof cases[0], argc, argv); }
