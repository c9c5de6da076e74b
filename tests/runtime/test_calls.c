/*
 * test_calls.c - what a cached GEMM call asks of the driver and of
 * cuBLASLt (docs/runtime.md, "A cached call").  After its class is
 * decided, the call runs in a loop with D rotating over three buffers and
 * A over two, as PyTorch's caching allocator hands out its blocks; the
 * mock driver and the mock cuBLASLt count every entry point
 * (cutec_mock_calls, cutec_mock_lt_calls, through dlsym), and each call
 * must make exactly the calls listed below: no tensor map encoded again
 * for a pointer seen before, no descriptor, layout, preference or
 * heuristic, no allocation and no synchronisation (a CUDA graph's capture
 * allows neither).  The mock faults a launch whose tensor map holds
 * another address than its tensor, and every D is checked against
 * float64.  Cases:
 *   pack PACK       a pack kernel without tensor maps (test_gemm.pack)
 *   maps SM90_PACK  a pack kernel with maps over A, B and D, relu and a
 *                   bias (sm90_one.pack)
 *   cublas PACK     a cuBLASLt algorithm (alpha 0.5, which the pack's
 *                   kernels do not compute)
 *   ew APPLY_PACK   cuBLASLt, then the elementwise epilogue kernel
 *                   (SiLU, which cuBLASLt does not fuse;
 *                   epilogue_apply.pack)
 *   callbacks PACK  launches inside a call do not make the context current
 *                   again: a log or progress callback that leaves another
 *                   one current (here none) must not break the tuning's
 *                   launches, nor the call's
 */
#include <dlfcn.h>
#include <math.h>
#include <unistd.h>

#include "check.h"
#include "cutec/gemm.h"
#include "cutec/pack.h"

/* ---- the mocks' counts ---- */

typedef struct counter {
    long long (*calls)(const char *name);
    void (*reset)(void);
    void (*text)(char *buf, size_t len);
} counter;

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (p == NULL) {
        fprintf(stderr, "the mock lacks %s\n", name);
        exit(1);
    }
    return p;
}

/* The counter of the mock library named by environment variable env
 * (prefix: cutec_mock or cutec_mock_lt); not a mock: the test is skipped. */
static counter counter_of(const char *env, const char *prefix)
{
    const char *path = getenv(env);
    void *lib = path != NULL && strstr(path, "mock") != NULL ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (lib == NULL) {
        fprintf(stderr, "skipped: %s is not a loaded mock (the counts are the mocks')\n", env);
        exit(TEST_SKIP);
    }
    char name[64];
    counter c;
    void *p;
    snprintf(name, sizeof name, "%s_calls", prefix);
    p = sym(lib, name);
    memcpy(&c.calls, &p, sizeof p);
    snprintf(name, sizeof name, "%s_calls_reset", prefix);
    p = sym(lib, name);
    memcpy(&c.reset, &p, sizeof p);
    snprintf(name, sizeof name, "%s_calls_text", prefix);
    p = sym(lib, name);
    memcpy(&c.text, &p, sizeof p);
    return c;
}

/* An entry point and its calls per cached GEMM call. */
typedef struct expect {
    const char *name;
    long long per_call;
} expect;

/* The counts after `calls` calls are exactly calls times the expected
 * ones, and nothing else was called; prints them all where not. */
static void check_counts(const counter *c, const char *what, const expect *want, size_t n, long long calls)
{
    long long listed = 0;
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        ok &= c->calls(want[i].name) == want[i].per_call * calls;
        listed += want[i].per_call * calls;
    }
    ok &= c->calls(NULL) == listed;
    if (!ok) {
        char text[2048];
        c->text(text, sizeof text);
        fprintf(stderr, "%s over %lld cached calls: %s\nexpected per call:", what, calls, text[0] ? text : "none");
        for (size_t i = 0; i < n; i++) fprintf(stderr, " %s %lld", want[i].name, want[i].per_call);
        fprintf(stderr, "%s\n", n == 0 ? " none" : "");
        exit(1);
    }
}

/* ---- buffers ---- */

enum { NA = 2, ND = 3 };

typedef struct bufs {
    long long m, n, k;
    unsigned long long a[NA], b, bias, d[ND];
    uint16_t *ha[NA], *hb, *hbias, *hd;
} bufs;

static unsigned long long upload(cutec_runtime *rt, uint16_t **host, size_t count, unsigned seed)
{
    *host = malloc(count * sizeof **host);
    CHECK(*host != NULL);
    for (size_t i = 0; i < count; i++) /* eighths in [-1, 1]: exact in bf16 */
        (*host)[i] = check_to_bf16((float)((int)((i * 37 + seed * 101) % 17) - 8) / 8.0f);
    unsigned long long d;
    CHECK_OK(rt, cutec_malloc(rt, count * 2, &d));
    CHECK_OK(rt, cutec_memcpy_htod(rt, d, *host, count * 2));
    return d;
}

static void bufs_new(cutec_runtime *rt, long long m, long long n, long long k, bufs *x)
{
    x->m = m, x->n = n, x->k = k;
    size_t mk = (size_t)(m * k), nk = (size_t)(n * k), mn = (size_t)(m * n);
    for (int i = 0; i < NA; i++) x->a[i] = upload(rt, &x->ha[i], mk, 1u + (unsigned)i);
    x->b = upload(rt, &x->hb, nk, 7);
    x->bias = upload(rt, &x->hbias, (size_t)n, 9);
    for (int i = 0; i < ND; i++) CHECK_OK(rt, cutec_malloc(rt, mn * 2, &x->d[i]));
    x->hd = malloc(mn * 2);
    CHECK(x->hd != NULL);
}

static void bufs_free(cutec_runtime *rt, bufs *x)
{
    for (int i = 0; i < NA; i++) cutec_free(rt, x->a[i]), free(x->ha[i]);
    for (int i = 0; i < ND; i++) cutec_free(rt, x->d[i]);
    cutec_free(rt, x->b), cutec_free(rt, x->bias);
    free(x->hb), free(x->hbias), free(x->hd);
}

static void *ptr(unsigned long long d) { return (void *)(uintptr_t)d; }

/* Call i's args: A and D rotated, as a caching allocator's blocks. */
static cutec_gemm_args args_at(const cutec_gemm_problem *p, const bufs *x, long long i)
{
    cutec_gemm_args a;
    cutec_gemm_args_init(&a, ptr(x->a[i % NA]), ptr(x->b), ptr(x->d[i % ND]));
    if (p->bias) a.bias = ptr(x->bias);
    return a;
}

/* D of call i (row-major; A row-major, B N x K) against float64:
 * alpha A B^T, plus the bias and relu where the problem has them. */
static void check_d(cutec_runtime *rt, const cutec_gemm_problem *p, bufs *x, long long i)
{
    long long m = x->m, n = x->n, k = x->k;
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, x->hd, x->d[i % ND], (size_t)(m * n) * 2));
    const uint16_t *a = x->ha[i % NA];
    for (long long r = 0; r < m; r++)
        for (long long c = 0; c < n; c++) {
            double v = 0;
            for (long long q = 0; q < k; q++) v += check_from_bf16(a[r * k + q]) * check_from_bf16(x->hb[c * k + q]);
            v *= p->alpha;
            if (p->bias) v += check_from_bf16(x->hbias[c]);
            if (strcmp(p->act, "relu") == 0 && v < 0) v = 0;
            if (strcmp(p->act, "silu") == 0) v = v / (1 + exp(-v));
            double got = check_from_bf16(x->hd[r * n + c]);
            if (!(fabs(got - v) <= 0x1p-7 * (fabs(v) + 1))) {
                fprintf(stderr, "call %lld: D[%lld][%lld] = %g, float64 %g\n", i, r, c, got, v);
                exit(1);
            }
        }
}

/* ---- the loop ---- */

/* A runtime on the test's device and a handle (no disk cache) using the pack */
static cutec_runtime *open_handle(const char *pack_path, cutec_gemm_handle **h)
{
    cutec_runtime *rt = check_gpu_runtime();
    CHECK_OK(rt, cutec_gemm_create(rt, h));
    cutec_pack *pack;
    CHECK_OK(rt, cutec_pack_load_file(rt, pack_path, &pack));
    CHECK_OK(rt, cutec_gemm_use_pack(*h, pack));
    CHECK_OK(rt, cutec_gemm_set_option(*h, CUTEC_OPT_DISK_CACHE, 0));
    return rt;
}

/* Decides p's class (the first call), runs one cycle of the buffer sets
 * (every pointer seen once), then `calls` more under the counters, which
 * must read exactly drv and lt per call; then every D against float64. */
static int run_loop(const char *pack_path, cutec_gemm_problem *p, const char *choice, const expect *drv, size_t ndrv,
                    const expect *lt, size_t nlt)
{
    cutec_gemm_handle *h;
    cutec_runtime *rt = open_handle(pack_path, &h);
    if (lt == NULL) CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_CUBLAS_ALGOS, 0)); /* a pack kernel decides */
    bufs x;
    bufs_new(rt, p->m, p->n, p->k, &x);
    long long i = 0;
    for (; i < NA * ND; i++) {
        cutec_gemm_args a = args_at(p, &x, i);
        CHECK_OK(rt, cutec_gemm_ex(h, p, &a, NULL));
    }
    char name[192];
    CHECK_OK(rt, cutec_gemm_choice(h, p, name, sizeof name));
    if (strncmp(name, choice, strlen(choice)) != 0) {
        fprintf(stderr, "the decision is '%s', not '%s...'\n", name, choice);
        return 1;
    }
    /* the libraries the runtime loaded (cuBLASLt at the first call's tuning) */
    counter cd = counter_of("CUTEC_CUDA_DRIVER", "cutec_mock"), cl = counter_of("CUTEC_CUBLASLT", "cutec_mock_lt");
    enum { CALLS = 4 * NA * ND };
    cd.reset(), cl.reset();
    for (long long end = i + CALLS; i < end; i++) {
        cutec_gemm_args a = args_at(p, &x, i);
        CHECK_OK(rt, cutec_gemm_ex(h, p, &a, NULL));
    }
    check_counts(&cd, "driver", drv, ndrv, CALLS);
    check_counts(&cl, "cuBLASLt", lt, nlt, CALLS);
    CHECK_OK(rt, cutec_synchronize(rt));                          /* the mock faults a launch with a stale map here */
    for (long long j = i - ND; j < i; j++) check_d(rt, p, &x, j); /* the last call into each D */
    bufs_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* The context made current (the handle follows the calling thread), the launch. */
static const expect pack_drv[] = {{"cuCtxSetCurrent", 1}, {"cuLaunchKernel", 1}};

static int test_pack(int argc, char **argv)
{
    CHECK(argc == 1);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 72, 40, 56, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    return run_loop(argv[0], &p, "gemm_sm80 ", pack_drv, 2, NULL, 0);
}

static int test_maps(int argc, char **argv)
{
    CHECK(argc == 1);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 64, 64, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    snprintf(p.act, sizeof p.act, "relu");
    p.bias = 1;
    return run_loop(argv[0], &p, "gemm_sm90 ", pack_drv, 2, NULL, 0);
}

static int test_cublas(int argc, char **argv)
{
    CHECK(argc == 1);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 72, 40, 56, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p.alpha = 0.5f;
    static const expect drv[] = {{"cuCtxSetCurrent", 1}}, lt[] = {{"cublasLtMatmul", 1}};
    return run_loop(argv[0], &p, "cublasLt ", drv, 1, lt, 1);
}

static int test_ew(int argc, char **argv)
{
    CHECK(argc == 1);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 40, 48, 24, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    snprintf(p.act, sizeof p.act, "silu");
    static const expect lt[] = {{"cublasLtMatmul", 1}};
    return run_loop(argv[0], &p, "cublasLt algo #0 + epilogue_apply ", pack_drv, 2, lt, 1);
}

/* The mock driver's cuCtxSetCurrent, as a caller's callback would call
 * its CUDA (another device's context current when it returns). */
static int (*set_current)(void *ctx);
static long long callbacks;
static void on_log(void *user, int level, const char *msg)
{
    (void)user, (void)level, (void)msg;
    callbacks++;
    CHECK(set_current(NULL) == 0);
}
static void on_progress(void *user, int step, int total, const char *name)
{
    (void)user, (void)step, (void)total, (void)name;
    callbacks++;
    CHECK(set_current(NULL) == 0);
}

static int test_callbacks(int argc, char **argv)
{
    CHECK(argc == 1);
    cutec_runtime *rt = check_gpu_runtime();
    void *lib = dlopen(getenv("CUTEC_CUDA_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    CHECK(lib != NULL);
    void *p = sym(lib, "cuCtxSetCurrent");
    memcpy(&set_current, &p, sizeof p);
    cutec_runtime_set_log(rt, on_log, NULL);
    cutec_gemm_handle *h;
    CHECK_OK(rt, cutec_gemm_create(rt, &h));
    cutec_gemm_set_progress(h, on_progress, NULL);
    cutec_pack *pack;
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[0], &pack));
    CHECK_OK(rt, cutec_gemm_use_pack(h, pack));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_TUNE_SHORTLIST, 0)); /* every candidate launched */
    cutec_gemm_problem pr;
    cutec_gemm_problem_init(&pr, 72, 40, 56, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    bufs x;
    bufs_new(rt, pr.m, pr.n, pr.k, &x);
    cutec_tune_report *r = NULL;
    cutec_gemm_args a = args_at(&pr, &x, 0);
    CHECK_OK(rt, cutec_gemm_tune_ex(h, &pr, &a, NULL, &r));
    int failed = 0; /* the mock's candidates are all right: none may fail for want of a context */
    for (int i = 0; i < r->count; i++)
        if (!isfinite(r->candidates[i].ms))
            failed++, fprintf(stderr, "%s: %s\n", r->candidates[i].name, r->candidates[i].note);
    cutec_tune_report_free(r);
    CHECK(failed == 0 && callbacks > 0);
    for (long long i = 0; i < ND; i++) {
        a = args_at(&pr, &x, i);
        CHECK_OK(rt, cutec_gemm_ex(h, &pr, &a, NULL));
    }
    CHECK_OK(rt, cutec_synchronize(rt));
    for (long long i = 0; i < ND; i++) check_d(rt, &pr, &x, i);
    bufs_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* CUTEC_OPT_HOST_BOUND_US: under a driver whose launches cost 200 us of
 * host time ($CUTEC_MOCK_LAUNCH_HOST_US, set by the test), a problem the
 * pack kernel wins on device time alone goes to cuBLASLt once the head to
 * head weighs host time (and stays with the pack kernel without). */
static void host_bound_choice(const char *pack_path, long long bound_us, const char *cache_dir, char *name, size_t len)
{
    cutec_gemm_handle *h;
    cutec_runtime *rt = open_handle(pack_path, &h);
    if (cache_dir != NULL) { /* on disk, in a directory of the test's own */
        CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 1));
        CHECK_OK(rt, cutec_gemm_set_cache_dir(h, cache_dir));
    }
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_HOST_BOUND_US, bound_us));
    long long v = -1;
    CHECK_OK(rt, cutec_gemm_get_option(h, CUTEC_OPT_HOST_BOUND_US, &v));
    CHECK(v == bound_us);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 8, 8, 16, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    bufs x;
    bufs_new(rt, p.m, p.n, p.k, &x);
    cutec_gemm_args a = args_at(&p, &x, 0);
    CHECK_OK(rt, cutec_gemm_ex(h, &p, &a, NULL));
    CHECK_OK(rt, cutec_gemm_choice(h, &p, name, len));
    CHECK_OK(rt, cutec_synchronize(rt));
    check_d(rt, &p, &x, 0);
    bufs_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
}

/* The option decides; with the disk cache on, a decision made with host
 * time weighed is kept apart from one made without (the option is in the
 * cache's key): each handle below tunes anew rather than reading the
 * other's choice back, and a third with the first one's setting reads its
 * decision from disk. */
static int test_host_bound(int argc, char **argv)
{
    CHECK(argc == 1);
    cutec_runtime_destroy(check_gpu_runtime()); /* skipped (77) before a directory is made */
    char dir[] = "/tmp/cutec_host_boundXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char off[192], on[192], again[192];
    host_bound_choice(argv[0], 0, dir, off, sizeof off);
    host_bound_choice(argv[0], 1000, dir, on, sizeof on);
    host_bound_choice(argv[0], 0, dir, again, sizeof again);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    if (strncmp(off, "gemm_sm80 ", 10) != 0 || strncmp(on, "cublasLt ", 9) != 0 || strcmp(again, off) != 0) {
        fprintf(stderr,
                "decisions: '%s' by device time, '%s' with host time weighed, '%s' by device time from disk "
                "(want a pack kernel, cuBLASLt, the pack kernel)\n",
                off, on, again);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {{"pack", test_pack},           {"maps", test_maps},
                                       {"cublas", test_cublas},       {"ew", test_ew},
                                       {"callbacks", test_callbacks}, {"host_bound", test_host_bound}};
    return check_run_cases(cases, sizeof cases / sizeof cases[0], argc, argv);
}
