/*
 * test_epilogue.c - GEMM epilogues in the runtime (cutec_gemm_ex, the
 * problem's epilogue fields, binding by activation and epilogue roles, the
 * tuner's float64 reference, cuBLASLt's fused epilogues, the class key).
 * One case per process (`test_epilogue CASE`):
 *   args     every bad epilogue field or pointer gets its own status (no GPU)
 *   bind     kernels served exactly where their epilogue fits, results
 *            checked against float64, cuBLASLt's epilogue attributes  (mock or GPU;
 *            with TEST_NO_CUBLAS set, cuBLASLt is absent and the tuner checks
 *            at float64 samples)
 *   cache    the epilogue in the class key on disk, read back            (mock or GPU)
 *   clamp    a clamped output (problem.clamp, the call's bounds): bound only to
 *            kernels with both bounds, checked against float64, and
 *            cuBLASLt + an elementwise kernel with the clamp as its baseline (mock)
 *   fp8, fp8_block  e4m3 inputs with row-wise (block-wise) scales; with the
 *            device check, every element of every candidate compared (one
 *            kernel is wrong at one element), else at float64 samples (mock)
 *   user PACK   tests/runtime/user_gemm.cute's act = relu kernel served for relu + bias only
 *   apply PACK  stdlib/epilogue_apply.cute's kernels after cuBLASLt: the unfused baseline
 *   gated PACK  one compiled template point with a gated activation, a bias
 *               and aux (the sm80 and the sm90 template): bound by its own
 *               description, D and aux right on ragged shapes    (mock or GPU)
 * The kernels are descriptions written here (with `cutec.act` lines) and
 * packed in-process; the mock driver computes a GEMM kernel from its own
 * copy of the description (tests/runtime/mock_driver.c), so a kernel can
 * be made to lie: its manifest says one activation, its PTX another.
 */
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "cutec/cutec.h"
#include "dtype.h"
#include "epilogue.h"
#include "pack_format.h"

/* ---- the kernels: one row each ---- */

/* Argument lines after M, N, K, A, B, D (indices 6 on), by name. */
static const struct {
    const char *name, *line;
} arg_specs[] = {
    {"bias", "bias tensor bf16 rank 1 shape N stride 1 align 2 role bias"},
    {"bias_row", "bias_row tensor bf16 rank 1 shape M stride 1 align 2 role bias_row"},
    {"aux", "aux tensor bf16 rank 2 shape M N stride N 1 align 2 role aux"},
    {"c", "C tensor bf16 rank 2 shape M N stride N 1 align 2 role c"},
    {"alpha", "alpha scalar f32 role alpha"},
    {"beta", "beta scalar f32 role beta"},
    {"clamp_lo", "lo scalar f32 role clamp_lo"},
    {"clamp_hi", "hi scalar f32 role clamp_hi"},
};

static const struct kern {
    const char *name;
    const char *act; /* in the manifest */
    int gated;
    const char *args;      /* extra arguments, in order, space-separated */
    const char *mock_act;  /* what the mock computes, when it differs (a lying kernel) */
    int ew;                /* an elementwise epilogue kernel (class epilogue) */
    const char *mock_args; /* the arguments the mock sees, when they differ (a lying kernel) */
} kerns[] = {
    {"epi_relu", "relu", 0, "", NULL, 0, NULL},
    {"epi_relu_bias", "relu", 0, "bias", NULL, 0, NULL},
    {"epi_gelu_aux_bias", "gelu_tanh", 0, "bias aux", NULL, 0, NULL},
    {"epi_swiglu", "swiglu", 1, "", NULL, 0, NULL},
    {"epi_cube", "cube", 0, "", NULL, 0, NULL},
    {"epi_silu_all", "silu", 0, "alpha beta c bias_row", NULL, 0, NULL},
    {"epi_sigmoid_lies", "sigmoid", 0, "", "silu", 0, NULL},
    /* the elementwise halves of unfused baselines */
    {"ew_silu", "silu", 0, "", NULL, 1, NULL},
    {"ew_swiglu", "swiglu", 1, "", NULL, 1, NULL},
    {"ew_gelu_erf_bias", "gelu_erf", 0, "bias", NULL, 1, NULL},
    /* gated with the pre-activation: aux is M x N (the GEMM's width) */
    {"epi_swiglu_bias_aux", "swiglu", 1, "bias aux", NULL, 0, NULL},
    /* says it writes aux, never does */
    {"epi_geglu_aux_lies", "geglu", 1, "aux", NULL, 0, ""},
    /* clamped outputs: both bounds, one (never served), the elementwise half */
    {"epi_relu_clamp", "relu", 0, "clamp_lo clamp_hi", NULL, 0, NULL},
    {"epi_relu_lo", "relu", 0, "clamp_lo", NULL, 0, NULL},
    {"ew_silu_clamp", "silu", 0, "clamp_lo clamp_hi", NULL, 1, NULL},
};

/* A kernel's description, with activation act and extra arguments args. */
static char *describe(const struct kern *k, const char *act, const char *args)
{
    char *t = malloc(4096);
    CHECK(t != NULL);
    const char *dn = k->gated ? "(N/2)" : "N";
    int n = k->ew ? snprintf(t, 4096,
                             "// cutec.kernel %s\n// cutec.contract 1\n// cutec.class epilogue\n"
                             "// cutec.threads 256 1 1\n// cutec.smem_static 0\n// cutec.smem_dynamic 0\n"
                             "// cutec.param T bf16\n"
                             "// cutec.arg 0 M scalar i32 role m\n// cutec.arg 1 N scalar i32 role n\n"
                             "// cutec.arg 2 X tensor bf16 rank 2 shape M N stride N 1 align 2 role c\n"
                             "// cutec.arg 3 D tensor bf16 rank 2 shape M %s stride %s 1 align 2 role d\n",
                             k->name, dn, dn)
                  : snprintf(t, 4096,
                             "// cutec.kernel %s\n// cutec.contract 1\n// cutec.class gemm\n// cutec.threads 16 16 1\n"
                             "// cutec.smem_static 0\n// cutec.smem_dynamic 0\n// cutec.param T bf16\n"
                             "// cutec.arg 0 M scalar i32 role m\n// cutec.arg 1 N scalar i32 role n\n"
                             "// cutec.arg 2 K scalar i32 role k\n"
                             "// cutec.arg 3 A tensor bf16 rank 2 shape M K stride K 1 align 2 role a\n"
                             "// cutec.arg 4 B tensor bf16 rank 2 shape N K stride K 1 align 2 role b\n"
                             "// cutec.arg 5 D tensor bf16 rank 2 shape M %s stride %s 1 align 2 role d\n",
                             k->name, dn, dn);
    int idx = k->ew ? 4 : 6;
    char words[128];
    snprintf(words, sizeof words, "%s", args);
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
        for (size_t i = 0; i < sizeof arg_specs / sizeof arg_specs[0]; i++)
            if (strcmp(arg_specs[i].name, w) == 0)
                n += snprintf(t + n, 4096 - (size_t)n, "// cutec.arg %d %s\n", idx++, arg_specs[i].line);
    snprintf(t + n, 4096 - (size_t)n, "// cutec.grid %s\n// cutec.act %s%s\n",
             k->ew ? "ceil_div((M*N),256) 1 1" : "ceil_div(N,16) ceil_div(M,16) 1", act, k->gated ? " gated" : "");
    return t;
}

/* A pack (PTX only, sm_80) of n kernels: manifest[i] its description,
 * mock[i] what the mock driver computes (the PTX's copy of a description),
 * names[i] the entry; every text freed. */
static cutec_pack *pack_from(cutec_runtime *rt, int n, char **manifest, char **mock, const char *const *names,
                             unsigned magic)
{
    cutec_packfmt_entry *e = calloc((size_t)n, sizeof *e);
    char **ptx = calloc((size_t)n, sizeof *ptx);
    CHECK(e != NULL && ptx != NULL);
    for (int i = 0; i < n; i++) {
        ptx[i] = malloc(strlen(mock[i]) + strlen(names[i]) + 128);
        CHECK(ptx[i] != NULL);
        sprintf(ptx[i], "%s.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry %s(\n)\n{\n}\n", mock[i],
                names[i]);
        free(mock[i]);
        e[i] = (cutec_packfmt_entry){
            .manifest = manifest[i], .manifest_size = strlen(manifest[i]), .ptx = ptx[i], .ptx_size = strlen(ptx[i])};
    }
    unsigned char *out = NULL;
    size_t size = 0;
    CHECK(cutec_packfmt_write("sm_80", CUTEC_VERSION_NUMBER, magic, e, (size_t)n, &out, &size) == 0);
    for (int i = 0; i < n; i++) free(manifest[i]), free(ptx[i]);
    free(e);
    free(ptx);
    cutec_pack *pack = NULL;
    CHECK_OK(rt, cutec_pack_load_data(rt, out, size, &pack));
    free(out);
    return pack;
}

/* The pack of every row. */
static cutec_pack *load_pack(cutec_runtime *rt)
{
    enum { NK = sizeof kerns / sizeof kerns[0] };
    char *manifest[NK], *mock[NK];
    const char *names[NK];
    for (int i = 0; i < NK; i++) {
        const struct kern *k = &kerns[i];
        manifest[i] = describe(k, k->act, k->args);
        mock[i] = describe(k, k->mock_act != NULL ? k->mock_act : k->act, k->mock_args ? k->mock_args : k->args);
        names[i] = k->name;
    }
    return pack_from(rt, NK, manifest, mock, names, 0xe91);
}

/* ---- runtimes, logs ---- */

static char logbuf[1 << 17];
static void keep_log(void *user, int level, const char *msg)
{
    (void)user;
    size_t n = strlen(logbuf);
    if (n + strlen(msg) + 2 < sizeof logbuf) snprintf(logbuf + n, sizeof logbuf - n, "%s\n", msg);
    if (getenv("TEST_EPILOGUE_VERBOSE") != NULL) fprintf(stderr, "[log %d] %s\n", level, msg);
}

static cutec_runtime *gpu_runtime(void)
{
    cutec_runtime *rt = check_gpu_runtime();
    cutec_runtime_set_log(rt, keep_log, NULL);
    return rt;
}

/* Whether the runtime runs on the mock driver (whose cuBLASLt records
 * what it was given). */
static int on_mock(void)
{
    const char *d = getenv("CUTEC_CUDA_DRIVER");
    return d != NULL && strstr(d, "mock") != NULL;
}

/* Whether cuBLASLt could be loaded (bind_no_cublas runs without it:
 * candidates are then checked at float64 samples). */
static int have_lt;

/* ---- data ---- */

static uint64_t rng = 0x2545f4914f6cdd1dull;
static float urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    float f = (float)((double)(rng >> 11) / 9007199254740992.0) * 2.0f - 1.0f;
    return fabsf(f) < 1e-3f ? 0.25f : f;
}

/* A device buffer of n random bf16 values, and its host copy. */
typedef struct buf {
    unsigned long long d;
    uint16_t *h;
    size_t n;
} buf;

static buf buf_new(cutec_runtime *rt, size_t n, int random)
{
    buf b = {0, calloc(n, 2), n};
    CHECK(b.h != NULL);
    for (size_t i = 0; random && i < n; i++) b.h[i] = cutec_float_to_bf16(urand());
    CHECK_OK(rt, cutec_malloc(rt, 2 * n, &b.d));
    CHECK_OK(rt, cutec_memcpy_htod(rt, b.d, b.h, 2 * n));
    return b;
}

static void buf_free(cutec_runtime *rt, buf *b)
{
    cutec_free(rt, b->d);
    free(b->h);
}

static double at(const buf *b, size_t i) { return cutec_bf16_to_float(b->h[i]); }

/* The inputs and outputs of one problem (row-major A, B as N rows of K,
 * row-major D), every optional one allocated; the clamp's bounds (inside
 * the range of D's values, so that both bind). */
typedef struct io {
    buf a, b, d, c, bias, bias_row, aux;
    float lo, hi;
} io;

static void io_new(cutec_runtime *rt, const cutec_gemm_problem *p, io *x)
{
    size_t m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k;
    x->a = buf_new(rt, m * k, 1);
    x->b = buf_new(rt, n * k, 1);
    x->d = buf_new(rt, m * n, 0);
    x->c = buf_new(rt, m * n, 1);
    x->bias = buf_new(rt, n, 1);
    x->bias_row = buf_new(rt, m, 1);
    x->aux = buf_new(rt, m * n, 0);
    x->lo = -0.125f, x->hi = 0.5f;
}

static void io_free(cutec_runtime *rt, io *x)
{
    buf *all[] = {&x->a, &x->b, &x->d, &x->c, &x->bias, &x->bias_row, &x->aux};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) buf_free(rt, all[i]);
}

static void *dp(const buf *b) { return (void *)(uintptr_t)b->d; }

/* The args of p over x: each pointer the problem asks for. */
static cutec_gemm_args args_of(const cutec_gemm_problem *p, const io *x)
{
    cutec_gemm_args a;
    cutec_gemm_args_init(&a, dp(&x->a), dp(&x->b), dp(&x->d));
    if (p->c_source) a.C = dp(&x->c);
    if (p->bias) a.bias = dp(&x->bias);
    if (p->bias_row) a.bias_row = dp(&x->bias_row);
    if (p->aux) a.aux = dp(&x->aux);
    if (p->clamp) a.clamp_lo = x->lo, a.clamp_hi = x->hi;
    return a;
}

/* D (and aux) copied back and compared with float64: v = alpha A B^T +
 * beta C + bias + bias_row, D = act(v) (clamped to x's bounds with a
 * clamp), through the epilogue table's reference or ref. */
static void check_result(cutec_runtime *rt, const cutec_gemm_problem *p, io *x, cutec_gemm_act_fn ref)
{
    size_t m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k, dn = p->act_gated ? n / 2 : n;
    /* C, aux and D as the problem lays them out (packed): (i, j) at i * cols + j, or j * m + i */
    int col = p->c_layout == CUTEC_LAYOUT_COL;
#define AT_MN(i, j, cols) (col ? (j)*m + (i) : (i) * (cols) + (j))
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, x->d.h, x->d.d, 2 * m * dn));
    if (p->aux) CHECK_OK(rt, cutec_memcpy_dtoh(rt, x->aux.h, x->aux.d, 2 * m * n));
    const cutec_act_info *row = cutec_act_find(p->act, strlen(p->act));
    cutec_gemm_act_fn act = row != NULL ? row->ref : ref;
    CHECK(act != NULL);
    double *v = malloc(sizeof *v * m * n);
    CHECK(v != NULL);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t q = 0; q < k; q++) s += at(&x->a, i * k + q) * at(&x->b, j * k + q);
            s *= p->alpha;
            if (p->c_source) s += p->beta * at(&x->c, AT_MN(i, j, n));
            if (p->bias) s += at(&x->bias, j);
            if (p->bias_row) s += at(&x->bias_row, i);
            v[i * n + j] = s;
            if (p->aux && !(fabs(at(&x->aux, AT_MN(i, j, n)) - s) <= fabs(s) / 128 + 1e-2)) {
                fprintf(stderr, "aux[%zu,%zu] = %g, want %g\n", i, j, at(&x->aux, AT_MN(i, j, n)), s);
                exit(1);
            }
        }
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < dn; j++) {
            double want = p->act_gated ? act(v[i * n + (size_t)cutec_act_gate_col((long long)j)],
                                             v[i * n + (size_t)cutec_act_up_col((long long)j)])
                                       : act(v[i * n + j], 0);
            if (p->clamp) want = fmin(fmax(want, x->lo), x->hi);
            double got = at(&x->d, AT_MN(i, j, dn));
            if (!(fabs(got - want) <= fabs(want) / 64 + 2e-2)) {
                fprintf(stderr, "%s: D[%zu,%zu] = %g, want %g\n", p->act, i, j, got, want);
                exit(1);
            }
        }
    free(v);
#undef AT_MN
}

/* The tuned report's best pack kernel: its name, or "" (and its note). */
static const char *best_dsl(const cutec_tune_report *r)
{
    for (int i = 0; i < r->count; i++)
        if (!r->candidates[i].is_cublas && isfinite(r->candidates[i].ms)) return r->candidates[i].name;
    return "";
}

static int cublas_ran(const cutec_tune_report *r)
{
    int n = 0;
    for (int i = 0; i < r->count; i++) n += r->candidates[i].is_cublas && isfinite(r->candidates[i].ms);
    return n;
}

/* What the mock cuBLASLt's last matmul was given. */
typedef void (*lt_last_fn)(int *, const void **, int *, const void **, long long *, int *);
static lt_last_fn lt_last(void)
{
    const char *path = getenv("CUTEC_CUBLASLT");
    void *lib = path != NULL ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    CHECK(lib != NULL);
    void *sym = dlsym(lib, "cutec_mock_lt_last");
    CHECK(sym != NULL);
    lt_last_fn f;
    memcpy(&f, &sym, sizeof f);
    dlclose(lib);
    return f;
}

static double cube(double x, double up)
{
    (void)up;
    return x * x * x;
}

/* ---- cases ---- */

static cutec_gemm_problem problem(long long m, long long n, long long k, const char *act, int gated)
{
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, m, n, k, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    snprintf(p.act, sizeof p.act, "%s", act);
    p.act_gated = gated;
    return p;
}

/* Tunes p (report) and runs it (cutec_gemm_ex), checking the result. */
static cutec_tune_report *tune_and_run(cutec_runtime *rt, cutec_gemm_handle *h, const cutec_gemm_problem *p,
                                       cutec_gemm_act_fn ref)
{
    io x;
    io_new(rt, p, &x);
    cutec_gemm_args a = args_of(p, &x);
    cutec_tune_report *r = NULL;
    logbuf[0] = '\0';
    CHECK_OK(rt, cutec_gemm_tune_ex(h, p, &a, NULL, &r));
    CHECK_OK(rt, cutec_gemm_ex(h, p, &a, NULL));
    CHECK_OK(rt, cutec_synchronize(rt));
    check_result(rt, p, &x, ref);
    io_free(rt, &x);
    return r;
}

static void check_where(cutec_gemm_handle *h);
static int ref_on_device(cutec_gemm_handle *h);
static int device_checks(cutec_gemm_handle *h);

static int test_bind(void)
{
    cutec_runtime *rt = gpu_runtime();
    cutec_gemm_handle *h;
    CHECK_OK(rt, cutec_gemm_create(rt, &h));
    cutec_pack *pack = load_pack(rt);
    CHECK_OK(rt, cutec_gemm_use_pack(h, pack));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    have_lt = cutec_gemm_cublas_version(h) != 0;
    CHECK(have_lt == (getenv("TEST_NO_CUBLAS") == NULL));

    /* relu + bias: the bias kernel, and cuBLASLt's RELU_BIAS */
    cutec_gemm_problem p = problem(40, 32, 24, "relu", 0);
    p.bias = 1;
    cutec_tune_report *r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "epi_relu_bias T=bf16") == 0);
    CHECK((cublas_ran(r) > 0) == have_lt);
    CHECK_CONTAINS(logbuf, "skipping epi_relu T=bf16: adds no bias per column (no argument of role bias)");
    CHECK_CONTAINS(logbuf, "skipping epi_gelu_aux_bias T=bf16: its epilogue applies 'gelu_tanh'; the problem asks "
                           "for 'relu'");
    cutec_tune_report_free(r);
    if (on_mock() && have_lt) { /* the fused epilogue reached cuBLASLt: RELU_BIAS, bf16 bias (CUDA_R_16BF) */
        int epi, bt, mode;
        const void *bias, *aux;
        long long ld;
        lt_last()(&epi, &bias, &bt, &aux, &ld, &mode);
        CHECK(epi == CUTEC_LT_EPILOGUE_RELU_BIAS && bt == 14 && bias != NULL && aux == NULL && mode == 0);
    }

    /* relu without a bias: the bias kernel cannot serve it */
    p.bias = 0;
    r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "epi_relu T=bf16") == 0);
    CHECK_CONTAINS(logbuf, "skipping epi_relu_bias T=bf16: argument 'bias' has role bias");
    /* the float64 samples read their rows of A and columns of B from the
     * device: no whole host copies (A's rows and B's columns contiguous) */
    CHECK(strstr(logbuf, "host copies of A and B") == NULL);
    if (have_lt && !ref_on_device(h)) CHECK_CONTAINS(logbuf, "10-row blocks: acc copied in");
    cutec_tune_report_free(r);

    /* no activation: no epilogue kernel serves it */
    p = problem(40, 32, 24, "", 0);
    if (have_lt) {
        r = tune_and_run(rt, h, &p, NULL);
        CHECK(strcmp(best_dsl(r), "") == 0);
        cutec_tune_report_free(r);
    } else {
        io y;
        io_new(rt, &p, &y);
        cutec_gemm_args b = args_of(&p, &y);
        logbuf[0] = '\0';
        CHECK_STATUS(rt, cutec_gemm_ex(h, &p, &b, NULL), CUTEC_ERR_NO_CUBLAS);
        io_free(rt, &y);
    }
    CHECK_CONTAINS(logbuf, "skipping epi_relu T=bf16: its epilogue applies 'relu'; the problem asks for 'identity'");

    /* GELU with bias and the pre-activation: cuBLASLt's GELU_AUX_BIAS */
    p = problem(40, 32, 24, "gelu_tanh", 0);
    p.bias = p.aux = 1;
    r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "epi_gelu_aux_bias T=bf16") == 0);
    CHECK((cublas_ran(r) > 0) == have_lt);
    cutec_tune_report_free(r);
    if (on_mock() && have_lt) {
        int epi, bt, mode;
        const void *bias, *aux;
        long long ld;
        lt_last()(&epi, &bias, &bt, &aux, &ld, &mode);
        CHECK(epi == CUTEC_LT_EPILOGUE_GELU_AUX_BIAS && aux != NULL && ld == 32);
    }

    /* SwiGLU: D at half width; cuBLASLt has no fused form */
    p = problem(40, 32, 24, "swiglu", 1);
    r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "epi_swiglu T=bf16") == 0);
    CHECK((cublas_ran(r) > 0) == have_lt); /* unfused: cuBLASLt at the GEMM's width, then ew_swiglu */
    CHECK(!have_lt || strstr(logbuf, "the unfused baseline: 4 cuBLASLt algorithms, then ew_swiglu T=bf16") != NULL);
    if (have_lt)
        CHECK_CONTAINS(logbuf,
                       "no cuBLASLt candidate: cuBLASLt has no fused form of this epilogue: a gated activation");
    cutec_tune_report_free(r);

    /* SwiGLU with a bias and the pre-activation: aux is v at the GEMM's
     * width, gates and ups interleaved as B's rows (check_result compares
     * every element of it); cuBLASLt has no form of it either */
    p = problem(40, 48, 24, "swiglu", 1);
    p.bias = p.aux = 1;
    r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "epi_swiglu_bias_aux T=bf16") == 0);
    CHECK_CONTAINS(logbuf, "skipping epi_swiglu T=bf16: ");
    if (have_lt)
        CHECK_CONTAINS(logbuf,
                       "no cuBLASLt candidate: cuBLASLt has no fused form of this epilogue: a gated activation");
    cutec_tune_report_free(r);
    /* a gated kernel that leaves aux unwritten scores +inf: the tuner checks
     * aux against its float64 reference (every element, or at samples
     * without cuBLASLt) */
    {
        cutec_gemm_problem q = problem(40, 48, 24, "geglu", 1);
        q.aux = 1;
        io y;
        io_new(rt, &q, &y);
        cutec_gemm_args b = args_of(&q, &y);
        logbuf[0] = '\0';
        CHECK_STATUS(rt, cutec_gemm_tune_ex(h, &q, &b, NULL, NULL), CUTEC_ERR_NO_CANDIDATE);
        CHECK_CONTAINS(logbuf, "candidate epi_geglu_aux_lies T=bf16 scores +inf: wrong result: aux[");
        io_free(rt, &y);
    }

    /* no GEMM kernel applies plain SiLU, or GELU (erf) with a bias: cuBLASLt
     * unfused, its GEMM then an elementwise kernel, is the only candidate */
    static const struct {
        const char *act, *winner;
        int bias;
    } unfused[] = {{"silu", "cublasLt algo #0 + ew_silu T=bf16", 0},
                   {"gelu_erf", "cublasLt algo #0 + ew_gelu_erf_bias T=bf16", 1}};
    for (size_t u = 0; u < sizeof unfused / sizeof unfused[0]; u++) {
        p = problem(40, 32, 24, unfused[u].act, 0);
        p.bias = unfused[u].bias;
        if (have_lt) {
            r = tune_and_run(rt, h, &p, NULL);
            CHECK(strcmp(r->candidates[0].name, unfused[u].winner) == 0 && r->candidates[0].is_cublas);
            cutec_tune_report_free(r);
        } else {
            io y;
            io_new(rt, &p, &y);
            cutec_gemm_args b = args_of(&p, &y);
            CHECK_STATUS(rt, cutec_gemm_ex(h, &p, &b, NULL), CUTEC_ERR_NO_CUBLAS);
            io_free(rt, &y);
        }
    }

    /* SiLU with alpha, a C source (beta), a bias per row: out of place */
    p = problem(40, 32, 24, "silu", 0);
    p.alpha = 0.5f;
    p.beta = -1.5f;
    p.c_source = p.bias_row = 1;
    r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "epi_silu_all T=bf16") == 0);
    /* where the host makes the reference, a row-major C comes to it a
     * block of rows at a time, beside the work on the last block (and the
     * reference goes up in them) */
    if (have_lt && !ref_on_device(h)) CHECK_CONTAINS(logbuf, "10-row blocks: acc and the source C copied in");
    check_where(h);
    cutec_tune_report_free(r);

    /* the same with a bias per column of a column-major D: computed as the
     * row-major transpose (gemm_transpose.c), whose bias is per row, by the
     * same pack kernel */
    p = problem(40, 32, 24, "silu", 0);
    p.alpha = 0.5f;
    p.beta = -1.5f;
    p.c_source = p.bias = 1;
    p.c_layout = CUTEC_LAYOUT_COL;
    r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "epi_silu_all T=bf16") == 0);
    /* (the transpose's C is row-major: 32 rows, in blocks too) */
    if (have_lt && !ref_on_device(h)) CHECK_CONTAINS(logbuf, "8-row blocks: acc and the source C copied in");
    cutec_tune_report_free(r);

    /* a kernel whose result is not its description's (sigmoid, computes
     * SiLU) scores +inf: the reference checks the epilogue */
    p = problem(40, 32, 24, "sigmoid", 0);
    io x;
    io_new(rt, &p, &x);
    cutec_gemm_args a = args_of(&p, &x);
    logbuf[0] = '\0';
    CHECK_STATUS(rt, cutec_gemm_tune_ex(h, &p, &a, NULL, NULL), CUTEC_ERR_NO_CANDIDATE);
    CHECK_CONTAINS(logbuf, "candidate epi_sigmoid_lies T=bf16 scores +inf: wrong result: D[");

    /* a user's activation: skipped until its reference is registered */
    p = problem(40, 32, 24, "cube", 0);
    logbuf[0] = '\0';
    CHECK_STATUS(rt, cutec_gemm_ex(h, &p, &a, NULL), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "pack kernels: no float64 reference for activation 'cube'");
    CHECK_CONTAINS(logbuf, "skipping epi_cube T=bf16: no float64 reference for activation 'cube' (register one with "
                           "cutec_gemm_set_activation_ref)");
    io_free(rt, &x);
    CHECK_OK(rt, cutec_gemm_set_activation_ref(h, "cube", cube, 0));
    r = tune_and_run(rt, h, &p, cube);
    CHECK(strcmp(best_dsl(r), "epi_cube T=bf16") == 0);
    /* the check pack has no epilogue_ref for it: the host makes its
     * reference through the registered function */
    if (device_checks(h)) {
        CHECK_CONTAINS(logbuf, "tuning: the epilogue's reference is made on the host: activation 'cube' is not one of "
                               "std.epilogue's");
        CHECK_CONTAINS(logbuf, "copied in and the reference up beside");
    }
    cutec_tune_report_free(r);

    /* alpha and beta in device memory: only cuBLASLt (pointer mode device) */
    p = problem(40, 32, 24, "relu", 0);
    p.bias = p.scalars_on_device = 1;
    io_new(rt, &p, &x);
    a = args_of(&p, &x);
    float ab[2] = {1.0f, 0.0f};
    unsigned long long dab;
    CHECK_OK(rt, cutec_malloc(rt, sizeof ab, &dab));
    CHECK_OK(rt, cutec_memcpy_htod(rt, dab, ab, sizeof ab));
    a.alpha = (const float *)(uintptr_t)dab;
    a.beta = a.alpha + 1;
    logbuf[0] = '\0';
    if (!have_lt) {
        CHECK_STATUS(rt, cutec_gemm_tune_ex(h, &p, &a, NULL, &r), CUTEC_ERR_NO_CUBLAS);
        CHECK_CONTAINS(logbuf, "skipping epi_relu_bias T=bf16: takes alpha and beta by value");
        cutec_free(rt, dab);
        io_free(rt, &x);
        cutec_gemm_destroy(h);
        cutec_runtime_destroy(rt);
        return 0;
    }
    CHECK_OK(rt, cutec_gemm_tune_ex(h, &p, &a, NULL, &r));
    CHECK(strcmp(best_dsl(r), "") == 0 && cublas_ran(r) > 0);
    CHECK_CONTAINS(logbuf, "skipping epi_relu_bias T=bf16: takes alpha and beta by value");
    cutec_tune_report_free(r);
    CHECK_OK(rt, cutec_gemm_ex(h, &p, &a, NULL));
    CHECK_OK(rt, cutec_synchronize(rt));
    p.scalars_on_device = 0;
    check_result(rt, &p, &x, NULL);
    if (on_mock() && have_lt) {
        int epi, bt, mode;
        const void *bias, *aux;
        long long ld;
        lt_last()(&epi, &bias, &bt, &aux, &ld, &mode);
        CHECK(mode == 1 && epi == CUTEC_LT_EPILOGUE_RELU_BIAS && bias == dp(&x.bias));
    }
    cutec_free(rt, dab);
    io_free(rt, &x);

    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* The epilogue is in the class key (on disk), a plain key is as before,
 * and a second handle reads the decision back: a pack kernel's, and the
 * unfused baseline's (cuBLASLt's algorithm and the elementwise kernel). */
static int test_cache(void)
{
    cutec_runtime_destroy(gpu_runtime()); /* skipped (77) before a directory is made */
    char dir[] = "/tmp/cutec_epi_cacheXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    static const struct {
        const char *act, *choice, *cached, *key;
        int bias, clamp;
    } cases[] = {
        {"relu", "epi_relu_bias T=bf16", "epi_relu_bias T=bf16", "epilogue=relu+bias:bf16:16 align=16:16:16", 1, 0},
        {"silu", "cublasLt algo #0 + ew_silu T=bf16", "cublasLt algo (cached) + ew_silu T=bf16",
         "epilogue=silu align=16:16:16", 0, 0},
        {"relu", "epi_relu_clamp T=bf16", "epi_relu_clamp T=bf16", "epilogue=relu+clamp align=16:16:16", 0, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cutec_gemm_problem p = problem(40, 32, 24, cases[c].act, 0);
        p.bias = cases[c].bias;
        p.clamp = cases[c].clamp;
        for (int round = 0; round < 2; round++) {
            cutec_runtime *rt = gpu_runtime();
            cutec_gemm_handle *h;
            CHECK_OK(rt, cutec_gemm_create(rt, &h));
            cutec_pack *pack = load_pack(rt);
            CHECK_OK(rt, cutec_gemm_use_pack(h, pack));
            CHECK_OK(rt, cutec_gemm_set_cache_dir(h, dir));
            io x;
            io_new(rt, &p, &x);
            cutec_gemm_args a = args_of(&p, &x);
            logbuf[0] = '\0';
            CHECK_OK(rt, cutec_gemm_ex(h, &p, &a, NULL));
            CHECK_OK(rt, cutec_synchronize(rt));
            check_result(rt, &p, &x, NULL);
            /* tuned the first time, read from disk the second */
            CHECK((strstr(logbuf, "tuning: chose ") != NULL) == (round == 0));
            CHECK(strstr(logbuf, "tuning cache: ignoring") == NULL);
            char name[192];
            CHECK_OK(rt, cutec_gemm_choice(h, &p, name, sizeof name));
            CHECK(strcmp(name, round == 0 ? cases[c].choice : cases[c].cached) == 0);
            io_free(rt, &x);
            cutec_gemm_destroy(h);
            cutec_runtime_destroy(rt);
        }
        char cmd[256];
        snprintf(cmd, sizeof cmd, "grep -rq '%s' %s", cases[c].key, dir);
        CHECK(system(cmd) == 0);
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "grep -rq '^choice cublas+ew [0-9a-f]* [0-9a-f]* 7 ew_silu T=bf16$' %s", dir);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return 0;
}

/* A clamped output: served by the kernel with both bounds only, its D
 * checked element by element against float64 (the bounds cut both ends:
 * relu's values reach 0.5, silu's -0.125); without a clamp that kernel is
 * skipped; cuBLASLt has no clamp, so for silu + clamp, which no GEMM
 * kernel applies, its plain GEMM and the elementwise kernel with the clamp
 * win. */
static int test_clamp(void)
{
    cutec_runtime *rt = gpu_runtime();
    cutec_gemm_handle *h;
    CHECK_OK(rt, cutec_gemm_create(rt, &h));
    cutec_pack *pack = load_pack(rt);
    CHECK_OK(rt, cutec_gemm_use_pack(h, pack));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    cutec_gemm_problem p = problem(40, 32, 24, "relu", 0);
    p.clamp = 1;
    cutec_tune_report *r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "epi_relu_clamp T=bf16") == 0);
    CHECK_CONTAINS(logbuf, "skipping epi_relu T=bf16: applies no clamp (no arguments of roles clamp_lo and clamp_hi); "
                           "the problem has a clamp");
    CHECK_CONTAINS(logbuf, "skipping epi_relu_lo T=bf16: has one bound of a clamp (roles clamp_lo and clamp_hi come "
                           "together)");
    CHECK_CONTAINS(logbuf, "no cuBLASLt candidate: cuBLASLt has no fused form of this epilogue: a clamp (none of its "
                           "epilogues clamps)");
    cutec_tune_report_free(r);

    /* the bounds are the call's: other values, same class, same kernel */
    io x;
    io_new(rt, &p, &x);
    x.lo = -1.0f, x.hi = 0.25f;
    cutec_gemm_args a = args_of(&p, &x);
    CHECK_OK(rt, cutec_gemm_ex(h, &p, &a, NULL));
    CHECK_OK(rt, cutec_synchronize(rt));
    check_result(rt, &p, &x, NULL);
    int at_hi = 0;
    for (size_t i = 0; i < x.d.n; i++) at_hi += cutec_bf16_to_float(x.d.h[i]) == 0.25f;
    CHECK(at_hi > 0); /* the bound cut something */
    io_free(rt, &x);

    /* no clamp: the clamping kernel is not served */
    p.clamp = 0;
    r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "epi_relu T=bf16") == 0);
    CHECK_CONTAINS(logbuf, "skipping epi_relu_clamp T=bf16: clamps its output (arguments of roles clamp_lo and "
                           "clamp_hi); the problem has no clamp");
    cutec_tune_report_free(r);

    /* silu + clamp: the unfused baseline, its elementwise half clamping */
    p = problem(40, 32, 24, "silu", 0);
    p.clamp = 1;
    r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(r->candidates[0].name, "cublasLt algo #0 + ew_silu_clamp T=bf16") == 0 && r->candidates[0].is_cublas);
    CHECK_CONTAINS(logbuf, "skipping ew_silu T=bf16 for the unfused baseline: applies no clamp");
    cutec_tune_report_free(r);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* A handle on a pack file (built by cutec at test time). */
static cutec_gemm_handle *file_handle(cutec_runtime *rt, const char *path)
{
    cutec_gemm_handle *h;
    CHECK_OK(rt, cutec_gemm_create(rt, &h));
    cutec_pack *pack;
    CHECK_OK(rt, cutec_pack_load_file(rt, path, &pack));
    CHECK_OK(rt, cutec_gemm_use_pack(h, pack));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    return h;
}

/* Whether tunings compare candidates on the device: with cuBLASLt (the
 * f32 sums the reference is made from) on a GPU, or on the mock driver
 * where CUTEC_MOCK_CHECK=1 has it run the check kernel (on the host);
 * else the mock loads that kernel but does not run it, and its self-test
 * sends the checks to the host. */
static int device_checks(cutec_gemm_handle *h)
{
    const char *e = getenv("CUTEC_MOCK_CHECK");
    return cutec_gemm_cublas_version(h) != 0 && (!on_mock() || (e != NULL && strcmp(e, "1") == 0));
}

/* Whether the epilogue's reference is made on the device (the check
 * pack's epilogue_ref, tune_epi_device.c): where candidates are compared
 * there, unless CUTEC_MOCK_EPI_REF=wrong has the mock's kernel compute a
 * wrong reference, which the runtime must catch at its float64 rows. */
static int ref_on_device(cutec_gemm_handle *h)
{
    const char *w = getenv("CUTEC_MOCK_EPI_REF");
    return device_checks(h) && !(on_mock() && w != NULL && strcmp(w, "wrong") == 0);
}

/* Where the last tuning compared its candidates: on the device, D and aux
 * against the epilogue's reference (tune_check_epi_begin), made there and
 * checked at float64 rows, or made on the host (a wrong device reference)
 * and gone up a block of rows at a time, agreeing with every candidate
 * the host check passes (a reference wrong on the device would fail them
 * there, and the host pass them again, with a warning); else on the host. */
static void check_where(cutec_gemm_handle *h)
{
    if (!device_checks(h))
        CHECK_CONTAINS(logbuf, "tuning: candidates are checked on the host: ");
    else {
        CHECK_CONTAINS(logbuf, "checked on the device (stdlib/check_close.cute) against the epilogue's reference");
        CHECK(strstr(logbuf, "the host check passes where the device check said") == NULL);
        CHECK(strstr(logbuf, "within one more unit of the device check's bounds") == NULL);
        if (ref_on_device(h)) {
            CHECK_CONTAINS(logbuf, "the epilogue's reference made on the device (stdlib/check_close.cute's "
                                   "epilogue_ref)");
            CHECK(strstr(logbuf, "copied in and the reference up beside") == NULL);
        } else {
            CHECK_CONTAINS(logbuf, "tuning: the epilogue's reference is made on the host: the device's disagrees: D[");
            CHECK_CONTAINS(logbuf, "copied in and the reference up beside");
        }
    }
}

/* The compiler's own descriptions: a user's kernel with act = relu and a
 * bias (tests/runtime/user_gemm.cute) serves exactly relu + bias. */
static int test_user(const char *pack_path)
{
    cutec_runtime *rt = gpu_runtime();
    cutec_gemm_handle *h = file_handle(rt, pack_path);
    cutec_gemm_problem p = problem(40, 24, 32, "relu", 0);
    p.bias = 1;
    cutec_tune_report *r = tune_and_run(rt, h, &p, NULL);
    CHECK(strcmp(best_dsl(r), "user_gemm_relu_bias T=bf16 TC=bf16") == 0);
    check_where(h);
    CHECK_CONTAINS(logbuf, "skipping user_gemm_bias T=bf16 TC=bf16: its epilogue applies no activation; the problem "
                           "asks for 'relu'");
    cutec_tune_report_free(r);
    p.bias = 0; /* relu alone: no kernel of the pack */
    io x;
    io_new(rt, &p, &x);
    cutec_gemm_args a = args_of(&p, &x);
    logbuf[0] = '\0';
    cutec_status s = cutec_gemm_ex(h, &p, &a, NULL);
    CHECK(s == CUTEC_OK || s == CUTEC_ERR_NO_CUBLAS); /* cuBLASLt's RELU serves it where it is loaded */
    CHECK_CONTAINS(logbuf, "skipping user_gemm_relu_bias T=bf16 TC=bf16: argument 'bias' has role bias");
    io_free(rt, &x);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* The stdlib's elementwise kernels (stdlib/epilogue_apply.cute, compiled
 * at test time) as the unfused baseline's second half: with no GEMM
 * kernel in the pack, cuBLASLt + the kernel for the problem's activation
 * and inputs wins, and its result is the float64 one. */
static int test_apply(const char *pack_path)
{
    cutec_runtime *rt = gpu_runtime();
    cutec_gemm_handle *h = file_handle(rt, pack_path);
    if (cutec_gemm_cublas_version(h) == 0) {
        fprintf(stderr, "skipped: no cuBLASLt\n");
        cutec_gemm_destroy(h);
        cutec_runtime_destroy(rt);
        return TEST_SKIP;
    }
    /* the 16-byte vector form (VEC = 8) where N allows whole chunks of 8
     * (gated always: N % 16 == 0), the scalar one elsewhere */
    static const struct {
        const char *act;
        int n, gated, bias, bias_row, aux, clamp;
        const char *winner;
    } cases[] = {
        {"silu", 48, 0, 0, 0, 0, 0,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=silu GLU=0 BIAS=0 AUX=0 VEC=8 CLAMP=0"},
        {"gelu_erf", 48, 0, 1, 1, 1, 0,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=gelu_erf GLU=0 BIAS=3 AUX=1 VEC=8 CLAMP=0"},
        {"relu", 48, 0, 0, 1, 0, 0,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=relu GLU=0 BIAS=2 AUX=0 VEC=8 CLAMP=0"},
        {"swiglu", 48, 1, 1, 0, 0, 0,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=swiglu GLU=1 BIAS=1 AUX=0 VEC=8 CLAMP=0"},
        /* gated with aux: the pre-activation at the GEMM's width */
        {"swiglu", 48, 1, 1, 0, 1, 0,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=swiglu GLU=1 BIAS=1 AUX=1 VEC=8 CLAMP=0"},
        {"geglu", 32, 1, 0, 1, 1, 0,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=geglu GLU=1 BIAS=2 AUX=1 VEC=8 CLAMP=0"},
        {"sigmoid", 48, 0, 0, 0, 1, 0,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=sigmoid GLU=0 BIAS=0 AUX=1 VEC=8 CLAMP=0"},
        {"silu", 44, 0, 1, 0, 0, 0,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=silu GLU=0 BIAS=1 AUX=0 VEC=1 CLAMP=0"},
        /* clamped (cuBLASLt has no clamp): gated, and the clamp alone */
        {"swiglu", 48, 1, 1, 0, 1, 1,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=swiglu GLU=1 BIAS=1 AUX=1 VEC=8 CLAMP=1"},
        {"", 44, 0, 0, 0, 0, 1,
         "cublasLt algo #0 + epilogue_apply T=bf16 ACT=identity GLU=0 BIAS=0 AUX=0 VEC=1 CLAMP=1"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cutec_gemm_problem p = problem(40, cases[c].n, 24, cases[c].act, cases[c].gated);
        p.bias = cases[c].bias, p.bias_row = cases[c].bias_row, p.aux = cases[c].aux, p.clamp = cases[c].clamp;
        cutec_tune_report *r = tune_and_run(rt, h, &p, NULL);
        /* the winner is the baseline with the first of cuBLASLt's algorithms on the mock; on a GPU any of them */
        CHECK(r->candidates[0].is_cublas && strstr(r->candidates[0].name, cases[c].winner + 16) != NULL);
        CHECK(!on_mock() || strcmp(r->candidates[0].name, cases[c].winner) == 0);
        /* D and (with aux) aux went up to the device check in blocks (on
         * the mock: on a GPU the baseline's bf16 intermediate may put an
         * element past the device's bound that the host then passes, a
         * logged warning, which check_where counts as a failure) */
        if (on_mock()) check_where(h);
        cutec_tune_report_free(r);
    }
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* The tensor maps follow the pointers: the runtime keeps a decision's maps
 * while the sizes and pointers stay (runtime/gemm_bind.c); one class called
 * with two sets of buffers of the same sizes, in turn, must launch maps of
 * the set it is given (the mock driver faults a launch whose map holds
 * another tensor's address).  pack_path: one sm90 template point with TMA
 * maps for A, B and D (and relu + a bias, staged in shared memory). */
static int test_maps(const char *pack_path)
{
    cutec_runtime *rt = gpu_runtime();
    cutec_gemm_handle *h = file_handle(rt, pack_path);
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_CUBLAS_ALGOS, 0)); /* the pack kernel serves it */
    cutec_gemm_problem p = problem(200, 136, 64, "relu", 0);
    p.bias = 1;
    io x, y;
    io_new(rt, &p, &x);
    io_new(rt, &p, &y);
    cutec_gemm_args ax = args_of(&p, &x), ay = args_of(&p, &y);
    CHECK_OK(rt, cutec_gemm_ex(h, &p, &ax, NULL));
    char name[192];
    CHECK_OK(rt, cutec_gemm_choice(h, &p, name, sizeof name));
    CHECK(strncmp(name, "gemm_sm90 ", 10) == 0);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(rt, cutec_gemm_ex(h, &p, &ay, NULL));
        CHECK_OK(rt, cutec_gemm_ex(h, &p, &ax, NULL));
    }
    CHECK_OK(rt, cutec_synchronize(rt));
    check_result(rt, &p, &x, NULL);
    check_result(rt, &p, &y, NULL);
    io_free(rt, &x);
    io_free(rt, &y);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* A compiled template point with a gated activation (act, from the
 * pack's description), a bias and aux (sm80 or sm90 by the pack): the
 * runtime binds it by its description (D M x N/2, aux M x N, bias N), the
 * tuner checks it against float64 (cuBLASLt refuses a gated activation, and
 * the pack has no elementwise kernel for an unfused baseline), and D and
 * aux are right element by element, on shapes ragged against its tiles. */
static int test_gated(const char *pack_path, const char *act, const char *kernel)
{
    cutec_runtime *rt = gpu_runtime();
    cutec_gemm_handle *h = file_handle(rt, pack_path);
    static const long long shapes[][3] = {{200, 272, 64}, {64, 128, 40}, {1, 16, 8}, {129, 48, 136}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        cutec_gemm_problem p = problem(shapes[i][0], shapes[i][1], shapes[i][2], act, 1);
        p.bias = p.aux = 1;
        cutec_tune_report *r = tune_and_run(rt, h, &p, NULL);
        CHECK(strncmp(best_dsl(r), kernel, strlen(kernel)) == 0);
        CHECK(strstr(logbuf, "scores +inf") == NULL); /* every point of the pack agrees with float64 */
        check_where(h);
        if (cutec_gemm_cublas_version(h) != 0)
            CHECK_CONTAINS(logbuf,
                           "no cuBLASLt candidate: cuBLASLt has no fused form of this epilogue: a gated activation");
        cutec_tune_report_free(r);
    }
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* cutec_gemm_ex on p and a returns want, with msg in the message. */
static void expect(cutec_runtime *rt, cutec_gemm_handle *h, const cutec_gemm_problem *p, const cutec_gemm_args *a,
                   cutec_status want, const char *msg)
{
    CHECK_STATUS(rt, cutec_gemm_ex(h, p, a, NULL), want);
    if (msg != NULL) CHECK_CONTAINS(cutec_runtime_message(rt), msg);
}

/* Every bad epilogue field or pointer, each with its status and message,
 * before the runtime's own (no driver here: a good call is NO_DRIVER). */
static int test_args(void)
{
    CHECK(setenv("CUTEC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1) == 0);
    cutec_runtime *rt = NULL;
    CHECK_STATUS(rt, cutec_runtime_create(&rt, 0), CUTEC_ERR_NO_DRIVER);
    cutec_gemm_handle *h;
    CHECK_OK(rt, cutec_gemm_create(rt, &h));
    static uint16_t mem[64] __attribute__((aligned(16)));
    char *odd = (char *)mem + 1;
    cutec_gemm_problem p = problem(40, 32, 24, "relu", 0), q;
    p.bias = 1;
    cutec_gemm_args a, b;
    cutec_gemm_args_init(&a, mem, mem, mem);
    a.bias = mem;
    expect(rt, h, &p, &a, CUTEC_ERR_NO_DRIVER, NULL); /* every check passed */
    expect(rt, h, &p, NULL, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_ex: args is NULL");
    b = a, b.struct_size = 0;
    expect(rt, h, &p, &b, CUTEC_ERR_INVALID_ARGUMENT, "the args' struct_size is 0");
    b = a, b.bias = NULL;
    expect(rt, h, &p, &b, CUTEC_ERR_NULL_POINTER,
           "cutec_gemm_ex: the bias is a NULL pointer (the problem asks for it)");
    b = a, b.aux = mem;
    expect(rt, h, &p, &b, CUTEC_ERR_INVALID_ARGUMENT, "args give the aux, which the problem does not ask for");
    b = a, b.D = NULL;
    expect(rt, h, &p, &b, CUTEC_ERR_NULL_POINTER, "matrix D is a NULL pointer");
    b = a, b.bias = odd;
    expect(rt, h, &p, &b, CUTEC_ERR_MISALIGNED, "bias at");
    q = p, q.bias_type = (cutec_dtype)9;
    expect(rt, h, &q, &a, CUTEC_ERR_INVALID_ARGUMENT, "bias_type 9 is not a cutec_dtype value");
    q = p, q.bias = 2;
    expect(rt, h, &q, &a, CUTEC_ERR_INVALID_ARGUMENT, "bias = 2; it is 0 or 1");
    q = p, snprintf(q.act, sizeof q.act, "re lu");
    expect(rt, h, &q, &a, CUTEC_ERR_INVALID_ARGUMENT, "act 're lu' is not a function name");
    q = p, memset(q.act, 'x', sizeof q.act);
    expect(rt, h, &q, &a, CUTEC_ERR_INVALID_ARGUMENT, "act is not NUL-terminated");
    q = p, q.act_gated = 1;
    expect(rt, h, &q, &a, CUTEC_ERR_INVALID_ARGUMENT, "activation 'relu' is not gated; act_gated is 1");
    q = problem(40, 32, 24, "swiglu", 0);
    expect(rt, h, &q, &a, CUTEC_ERR_INVALID_ARGUMENT, "activation 'swiglu' is gated; act_gated is 0");
    q = problem(40, 24, 24, "swiglu", 1); /* gated: a multiple of 16 */
    b = a, b.bias = NULL;
    expect(rt, h, &q, &b, CUTEC_ERR_BAD_SIZE, "a gated activation needs a multiple of 16");
    q = problem(40, 32, 24, "swiglu", 1), q.beta = 1.0f; /* D is half as wide as C */
    expect(rt, h, &q, &b, CUTEC_ERR_INVALID_ARGUMENT, "a gated activation cannot read C in place");
    q = problem(40, 32, 24, "swiglu", 1), q.ldc = 15; /* D is 40 x 16 */
    expect(rt, h, &q, &b, CUTEC_ERR_BAD_LEADING_DIM, "ldc = 15 is smaller than 16");
    q = problem(40, 32, 24, "", 0), q.aux = 1, q.ld_aux = 31;
    b = a, b.bias = NULL, b.aux = mem;
    expect(rt, h, &q, &b, CUTEC_ERR_BAD_LEADING_DIM, "ld_aux = 31 is smaller than 32");
    q = problem(40, 32, 24, "", 0), q.c_source = 1;
    b = a, b.bias = NULL;
    expect(rt, h, &q, &b, CUTEC_ERR_NULL_POINTER, "matrix C (the source) is a NULL pointer (the problem asks for it)");
    q = p, q.scalars_on_device = 1, q.alpha = NAN; /* alpha is then ignored, but its pointers are needed */
    expect(rt, h, &q, &a, CUTEC_ERR_NULL_POINTER, "the alpha is a NULL pointer");
    b = a, b.alpha = b.beta = (const float *)(const void *)odd;
    expect(rt, h, &q, &b, CUTEC_ERR_MISALIGNED, "alpha at");
    b.alpha = b.beta = (const float *)(const void *)mem;
    expect(rt, h, &q, &b, CUTEC_ERR_NO_DRIVER, NULL);
    /* "identity" is no activation, as "" */
    q = problem(40, 32, 24, "identity", 0);
    b = a, b.bias = NULL;
    expect(rt, h, &q, &b, CUTEC_ERR_NO_DRIVER, NULL);
    /* a clamp: both bounds numbers, lo <= hi (infinite ones leave a side
     * open); bounds without it refused; args from before the bounds keep
     * working without a clamp and cannot ask for one */
    q = problem(40, 32, 24, "relu", 0), q.clamp = 1;
    b = a, b.bias = NULL, b.clamp_lo = -INFINITY, b.clamp_hi = 1.0f;
    expect(rt, h, &q, &b, CUTEC_ERR_NO_DRIVER, NULL);
    b.clamp_lo = NAN;
    expect(rt, h, &q, &b, CUTEC_ERR_INVALID_ARGUMENT,
           "cutec_gemm_ex: clamp_lo is NaN; the bounds are numbers (an infinite one leaves its side open)");
    b.clamp_lo = 0.0f, b.clamp_hi = NAN;
    expect(rt, h, &q, &b, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_ex: clamp_hi is NaN");
    b.clamp_lo = 2.0f, b.clamp_hi = 1.0f;
    expect(rt, h, &q, &b, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_ex: clamp_lo = 2 is greater than clamp_hi = 1");
    b.clamp_lo = b.clamp_hi = 1.0f; /* a constant output is a clamp too */
    expect(rt, h, &q, &b, CUTEC_ERR_NO_DRIVER, NULL);
    b.struct_size = offsetof(cutec_gemm_args, clamp_lo);
    expect(rt, h, &q, &b, CUTEC_ERR_INVALID_ARGUMENT,
           "the problem asks for a clamp; the args' struct_size 128 ends before clamp_lo and clamp_hi");
    q.clamp = 0;
    expect(rt, h, &q, &b, CUTEC_ERR_NO_DRIVER, NULL); /* an older caller */
    b.struct_size = sizeof b;
    expect(rt, h, &q, &b, CUTEC_ERR_INVALID_ARGUMENT,
           "cutec_gemm_ex: args give clamp bounds (clamp_lo 1, clamp_hi 1), which the problem does not ask for (set "
           "its clamp field)");
    q.clamp = 2;
    expect(rt, h, &q, &b, CUTEC_ERR_INVALID_ARGUMENT, "clamp = 2; it is 0 or 1");
    q.clamp = 1; /* cutec_gemm and cutec_gemm_tune have no args: no bounds */
    CHECK_STATUS(rt, cutec_gemm(h, &q, mem, mem, mem, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm: the problem asks for a clamp, whose bounds come in "
                                              "cutec_gemm_args (call cutec_gemm_ex)");
    CHECK_STATUS(rt, cutec_gemm_tune(h, &q, mem, mem, mem, NULL, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_tune: the problem asks for a clamp");
    q.clamp = 1, q.batch = 2, q.stride_d = 40 * 32;
    expect(rt, h, &q, &b, CUTEC_ERR_UNSUPPORTED, "a batch (batch 2) with an epilogue");
    /* references: not for a table name, at most 16 */
    CHECK_STATUS(rt, cutec_gemm_set_activation_ref(h, "relu", cube, 0), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "'relu' is in the epilogue table");
    char name[32];
    for (int i = 0; i < 16; i++) {
        snprintf(name, sizeof name, "act%d", i);
        CHECK_OK(rt, cutec_gemm_set_activation_ref(h, name, cube, 0));
    }
    CHECK_STATUS(rt, cutec_gemm_set_activation_ref(h, "one_more", cube, 0), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_OK(rt, cutec_gemm_set_activation_ref(h, "act3", NULL, 0)); /* removed: room for one */
    CHECK_OK(rt, cutec_gemm_set_activation_ref(h, "one_more", cube, 0));
    /* fp8: K-major pairs, scales and the output's scale_d and amax */
    q = problem(40, 32, 32, "", 0), q.a_type = q.b_type = CUTEC_DTYPE_E4M3;
    b = a, b.bias = NULL;
    expect(rt, h, &q, &b, CUTEC_ERR_NO_DRIVER, NULL); /* e4m3 in, bf16 out */
    q.b_type = CUTEC_DTYPE_BF16;
    expect(rt, h, &q, &b, CUTEC_ERR_UNSUPPORTED, "fp8 inputs come in pairs");
    q.b_type = CUTEC_DTYPE_E5M2, q.b_layout = CUTEC_LAYOUT_ROW;
    expect(rt, h, &q, &b, CUTEC_ERR_UNSUPPORTED, "fp8 operands must be K-major (A row-major, B column-major");
    q = problem(40, 32, 32, "", 0), q.c_type = CUTEC_DTYPE_E4M3;
    expect(rt, h, &q, &b, CUTEC_ERR_UNSUPPORTED, "an fp8 output needs fp8 inputs");
    q.a_type = q.b_type = CUTEC_DTYPE_E4M3;
    expect(rt, h, &q, &b, CUTEC_ERR_NULL_POINTER, "scale_d (an fp8 output's scale) is a NULL pointer");
    b.scale_d = (const float *)(const void *)mem;
    expect(rt, h, &q, &b, CUTEC_ERR_NULL_POINTER, "amax (an fp8 output's absolute maximum) is a NULL pointer");
    b.amax = (float *)(void *)(odd + 1);
    expect(rt, h, &q, &b, CUTEC_ERR_MISALIGNED, "amax (an fp8 output's absolute maximum) at");
    b.amax = (float *)(void *)mem;
    expect(rt, h, &q, &b, CUTEC_ERR_NO_DRIVER, NULL);
    q.scale_mode = CUTEC_SCALE_BLOCK;
    expect(rt, h, &q, &b, CUTEC_ERR_NULL_POINTER, "scale_a is a NULL pointer (the problem asks for it)");
    b.scale_a = b.scale_b = (const float *)(const void *)mem;
    expect(rt, h, &q, &b, CUTEC_ERR_NO_DRIVER, NULL);
    q.scale_mode = (cutec_scale_mode)4;
    expect(rt, h, &q, &b, CUTEC_ERR_INVALID_ARGUMENT, "scale_mode 4 is not a cutec_scale_mode value");
    q = problem(40, 32, 32, "", 0), q.scale_mode = CUTEC_SCALE_BLOCK;
    expect(rt, h, &q, &b, CUTEC_ERR_UNSUPPORTED, "block-wise scales are for fp8 inputs");
    q.scale_mode = CUTEC_SCALE_NONE; /* scales given, not asked for */
    b.scale_d = NULL, b.amax = NULL;
    expect(rt, h, &q, &b, CUTEC_ERR_INVALID_ARGUMENT, "args give scale_a, which the problem does not ask for");
    /* cutec_gemm keeps calling the output C */
    q = problem(40, 32, 24, "", 0);
    CHECK_STATUS(rt, cutec_gemm(h, &q, mem, mem, NULL, NULL), CUTEC_ERR_NULL_POINTER);
    CHECK_CONTAINS(cutec_runtime_message(rt), "matrix C is a NULL pointer");
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

/* fp8 inputs (e4m3, bf16 out) with row-wise or block-wise scales, two
 * kernels written here: f8 (right), and where the device check runs
 * (CUTEC_MOCK_CHECK=1 on the mock, or a GPU) f8_one_wrong, whose D the
 * mock makes wrong at one element of the middle, (M/2 + 1, N/2 + 3): the
 * full device check (tune_epilogue.c, fp8_full) must find it, where 256
 * float64 samples seldom would.  Without the device check the candidates
 * are compared at the samples, as the log says.  Block-wise: K of two
 * 128-deep blocks and N of two 128-wide ones, each with its own scales. */
static char *describe_fp8(const char *name, int block)
{
    char *t = malloc(4096);
    CHECK(t != NULL);
    snprintf(t, 4096,
             "// cutec.kernel %s\n// cutec.contract 1\n// cutec.class gemm\n// cutec.threads 16 16 1\n"
             "// cutec.smem_static 0\n// cutec.smem_dynamic 0\n// cutec.param T e4m3\n"
             "// cutec.arg 0 M scalar i32 role m\n// cutec.arg 1 N scalar i32 role n\n"
             "// cutec.arg 2 K scalar i32 role k\n"
             "// cutec.arg 3 A tensor e4m3 rank 2 shape M K stride K 1 align 16 role a\n"
             "// cutec.arg 4 B tensor e4m3 rank 2 shape N K stride K 1 align 16 role b\n"
             "// cutec.arg 5 D tensor bf16 rank 2 shape M N stride N 1 align 2 role d\n%s"
             "// cutec.grid ceil_div(N,16) ceil_div(M,16) 1\n// cutec.act identity\n",
             name,
             block ? "// cutec.arg 6 scale_a tensor f32 rank 2 shape M (K+127)/128 stride 1 M align 4 role scale_a\n"
                     "// cutec.arg 7 scale_b tensor f32 rank 2 shape (N+127)/128 (K+127)/128 stride (K+127)/128 1 "
                     "align 4 role scale_b\n"
                   : "// cutec.arg 6 scale_a tensor f32 rank 2 shape M 1 stride 1 M align 4 role scale_a\n"
                     "// cutec.arg 7 scale_b tensor f32 rank 2 shape N 1 stride 1 1 align 4 role scale_b\n");
    return t;
}

static int test_fp8(int block)
{
    cutec_runtime *rt = gpu_runtime();
    cutec_gemm_handle *h;
    CHECK_OK(rt, cutec_gemm_create(rt, &h));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    have_lt = cutec_gemm_cublas_version(h) != 0;
    /* CUTEC_MOCK_LT_BLOCK=0 (block-wise): cuBLASLt makes no f32 sums with
     * block scales, so there is no reference to compare in full with, and
     * the log says why */
    const char *lt_block = getenv("CUTEC_MOCK_LT_BLOCK");
    int nolt = block && lt_block != NULL && strcmp(lt_block, "0") == 0;
    /* CUTEC_MOCK_EPI_REF=wrong: the device's reference disagrees at its
     * float64 rows, and fp8 inputs fall back to the samples */
    int full = !nolt && device_checks(h) && ref_on_device(h), fallback = !nolt && device_checks(h) && !full;
    const char *names[2] = {"f8", "f8_one_wrong"};
    char *manifest[2], *mock[2];
    for (int i = 0; i < 2; i++) manifest[i] = describe_fp8(names[i], block), mock[i] = describe_fp8(names[i], block);
    cutec_pack *pack = pack_from(rt, full ? 2 : 1, manifest, mock, names, 0xf8);
    if (!full) free(manifest[1]), free(mock[1]);
    CHECK_OK(rt, cutec_gemm_use_pack(h, pack));

    /* the inputs: e4m3 of random values in [-1, 1], scales in [0.5, 1.5):
     * one per row of A and column of B, or per row of A and 128 of K, and
     * per 128 x 128 block of B (K-contiguous) */
    const int M = 64, N = block ? 160 : 48, K = block ? 256 : 64, KB = (K + 127) / 128, NB = (N + 127) / 128;
    const int nsa = block ? M * KB : M, nsb = block ? NB * KB : N;
    unsigned char *ha = malloc((size_t)(M * K)), *hb = malloc((size_t)(N * K));
    float *sa = malloc(sizeof *sa * (size_t)nsa), *sb = malloc(sizeof *sb * (size_t)nsb);
    CHECK(ha != NULL && hb != NULL && sa != NULL && sb != NULL);
    for (int i = 0; i < M * K; i++) cutec_dtype_store(CUTEC_CT_E4M3, ha + i, urand());
    for (int i = 0; i < N * K; i++) cutec_dtype_store(CUTEC_CT_E4M3, hb + i, urand());
    for (int i = 0; i < nsa; i++) sa[i] = 1.0f + 0.5f * urand();
    for (int i = 0; i < nsb; i++) sb[i] = 1.0f + 0.5f * urand();
    unsigned long long da, db, dd, dsa, dsb;
    CHECK_OK(rt, cutec_malloc(rt, (size_t)(M * K), &da));
    CHECK_OK(rt, cutec_malloc(rt, (size_t)(N * K), &db));
    CHECK_OK(rt, cutec_malloc(rt, (size_t)(2 * M * N), &dd));
    CHECK_OK(rt, cutec_malloc(rt, sizeof *sa * (size_t)nsa, &dsa));
    CHECK_OK(rt, cutec_malloc(rt, sizeof *sb * (size_t)nsb, &dsb));
    CHECK_OK(rt, cutec_memcpy_htod(rt, da, ha, (size_t)(M * K)));
    CHECK_OK(rt, cutec_memcpy_htod(rt, db, hb, (size_t)(N * K)));
    CHECK_OK(rt, cutec_memcpy_htod(rt, dsa, sa, sizeof *sa * (size_t)nsa));
    CHECK_OK(rt, cutec_memcpy_htod(rt, dsb, sb, sizeof *sb * (size_t)nsb));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, M, N, K, CUTEC_DTYPE_E4M3, CUTEC_DTYPE_BF16);
    p.scale_mode = block ? CUTEC_SCALE_BLOCK : CUTEC_SCALE_ROW;
    cutec_gemm_args a;
    cutec_gemm_args_init(&a, (void *)(uintptr_t)da, (void *)(uintptr_t)db, (void *)(uintptr_t)dd);
    a.scale_a = (const float *)(uintptr_t)dsa, a.scale_b = (const float *)(uintptr_t)dsb;

    logbuf[0] = '\0';
    cutec_tune_report *r = NULL;
    CHECK_OK(rt, cutec_gemm_tune_ex(h, &p, &a, NULL, &r));
    CHECK(strcmp(best_dsl(r), "f8 T=e4m3") == 0);
    if (full) {
        char want[96];
        snprintf(want, sizeof want, "candidate f8_one_wrong T=e4m3 scores +inf: wrong result: D[%d,%d] = ", M / 2 + 1,
                 N / 2 + 3);
        CHECK_CONTAINS(logbuf, "fp8 inputs compared in full on the device");
        CHECK_CONTAINS(logbuf, want);
        CHECK_CONTAINS(logbuf, "(device check: 1 elements of D and 0 of aux outside the tolerance)");
        CHECK(strstr(logbuf, "candidate f8 T=e4m3 scores +inf") == NULL);
    } else if (nolt) {
        CHECK_CONTAINS(logbuf, "tuning: no f32 GEMM from cuBLASLt for the reference: ");
        CHECK_CONTAINS(logbuf, "tuning: candidates are checked on the host: at float64 samples (no f32 GEMM from "
                               "cuBLASLt)");
    } else {
        CHECK_CONTAINS(logbuf, "tuning: candidates are checked on the host: at float64 samples (fp8 inputs, no "
                               "comparison on the device)");
        if (fallback)
            CHECK_CONTAINS(logbuf, "tuning: the candidates are checked at float64 samples instead: the device's "
                                   "disagrees: D[");
    }
    cutec_tune_report_free(r);

    /* the result of the call, against float64 (bf16's rounding and an fp8
     * sum's error: 2^-11 of the scaled sum of |a b|) */
    CHECK_OK(rt, cutec_gemm_ex(h, &p, &a, NULL));
    CHECK_OK(rt, cutec_synchronize(rt));
    uint16_t *hd = malloc((size_t)(2 * M * N));
    CHECK(hd != NULL);
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, hd, dd, (size_t)(2 * M * N)));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double sum = 0, mag = 0;
            for (int q = 0; q < K; q++) {
                double x =
                    cutec_dtype_load(CUTEC_CT_E4M3, ha + i * K + q) * cutec_dtype_load(CUTEC_CT_E4M3, hb + j * K + q) *
                    (block ? (double)sa[i + M * (q / 128)] * sb[(j / 128) * KB + q / 128] : (double)sa[i] * sb[j]);
                sum += x, mag += fabs(x);
            }
            double got = cutec_bf16_to_float(hd[i * N + j]);
            if (!(fabs(got - sum) <= fabs(sum) / 128 + 0x1p-11 * mag + 1e-6)) {
                fprintf(stderr, "fp8: D[%d,%d] = %g, want %g\n", i, j, got, sum);
                exit(1);
            }
        }
    free(hd);
    free(ha);
    free(hb);
    free(sa);
    free(sb);
    unsigned long long all[] = {da, db, dd, dsa, dsb};
    for (int i = 0; i < 5; i++) cutec_free(rt, all[i]);
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
    return 0;
}

static int test_fp8_row(void) { return test_fp8(0); }
static int test_fp8_block(void) { return test_fp8(1); }

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(void);
    } cases[] = {{"args", test_args},   {"bind", test_bind},   {"cache", test_cache},
                 {"clamp", test_clamp}, {"fp8", test_fp8_row}, {"fp8_block", test_fp8_block}};
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) return cases[i].fn();
    if (argc == 3 && strcmp(argv[1], "user") == 0) return test_user(argv[2]);
    if (argc == 3 && strcmp(argv[1], "apply") == 0) return test_apply(argv[2]);
    if (argc == 3 && strcmp(argv[1], "maps") == 0) return test_maps(argv[2]);
    if (argc == 5 && strcmp(argv[1], "gated") == 0) return test_gated(argv[2], argv[3], argv[4]);
    fprintf(stderr,
            "usage: test_epilogue args|bind|cache|clamp | user USER_PACK | apply EPILOGUE_APPLY_PACK | maps SM90_PACK "
            "| gated PACK ACT KERNEL\n");
    return 2;
}
