/*
 * user_epilogue.c - your own activation, fused into the stdlib GEMM and
 * tuned: D = squared_relu(A B + bias), with squared_relu written in
 * examples/my_epilogue.cute and packed into the Hopper template by
 *
 *   cutec pack stdlib/sm90/gemm.cute --import examples/my_epilogue.cute \
 *         -D ACT=squared_relu -D BIAS=1 -o relu2_bias.pack
 *
 * The runtime cannot check a kernel whose activation it does not know, so
 * the program first registers the function's float64 form
 * (cutec_gemm_set_activation_ref); the tuner then times the pack's kernels
 * and checks each against it.  cuBLASLt has no fused form of a user's
 * activation: its candidates are its plain GEMM followed by an elementwise
 * kernel that applies the activation, where a second pack has one with
 * `cutec.act squared_relu` (stdlib/epilogue_apply.cute packed with the
 * function in its tune list; examples/user_epilogue.cmake); without it the
 * pack kernels compete alone.  Each shape (ragged: M and N no multiples of
 * the tiles) is tuned, run through cutec_gemm_ex and checked element by
 * element against float64.
 *
 *   user_epilogue GEMM_PACK [EW_PACK] [MxNxK ...]
 *
 * Exits 77 where there is no GPU (CTest's skip code), 1 on a wrong result.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cutec/cutec.h>

/* The activation's float64 form: what examples/my_epilogue.cute computes
 * (up is the gated form's second input; squared_relu is not gated). */
static double squared_relu(double x, double up)
{
    (void)up;
    return x > 0 ? x * x : 0;
}

static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
    return (uint16_t)(u >> 16);
}

static double from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void log_line(void *user, int level, const char *msg)
{
    (void)user;
    if (level <= CUTEC_LOG_WARNING || getenv("USER_EPILOGUE_VERBOSE") != NULL) fprintf(stderr, "cutec: %s\n", msg);
}

static cutec_runtime *rt;
static cutec_gemm_handle *gemm;

static int fail(const char *what, cutec_status s)
{
    fprintf(stderr, "%s: %s: %s\n", what, cutec_status_string(s), cutec_runtime_message(rt));
    cutec_gemm_destroy(gemm); /* handles before their runtime */
    cutec_runtime_destroy(rt);
    return s == CUTEC_ERR_NO_DRIVER || s == CUTEC_ERR_NO_DEVICE ? 77 : 1;
}

static cutec_status use_pack(const char *path)
{
    cutec_pack *pack = NULL;
    cutec_status s = cutec_pack_load_file(rt, path, &pack);
    if (s == CUTEC_OK) s = cutec_gemm_use_pack(gemm, pack);
    if (s == CUTEC_OK) printf("pack %s: %d kernels\n", path, cutec_pack_entry_count(pack));
    return s;
}

/* Random values in [-1, 1) as bf16, deterministic. */
static void fill(uint16_t *h, size_t n, uint64_t *x)
{
    for (size_t i = 0; i < n; i++) {
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        h[i] = to_bf16((float)((double)(*x >> 11) / 9007199254740992.0) * 2.0f - 1.0f);
    }
}

/* What the tuner compared (the report, best first): the fastest pack
 * kernel, the fastest unfused cuBLASLt candidate ("cublasLt algo #R + ...",
 * its GEMM then the elementwise kernel), and the winner. */
static void print_report(const cutec_tune_report *r)
{
    const cutec_tune_candidate *dsl = NULL, *lt = NULL;
    for (int i = 0; i < r->count; i++) {
        const cutec_tune_candidate *c = &r->candidates[i];
        if (!isfinite(c->ms)) continue;
        if (!c->is_cublas && dsl == NULL) dsl = c;
        if (c->is_cublas && lt == NULL) lt = c;
    }
    if (dsl != NULL) printf("  fused:   %.4f ms  %s\n", dsl->ms, dsl->name);
    if (lt != NULL)
        printf("  unfused: %.4f ms  %s\n", lt->ms, lt->name);
    else
        printf("  unfused: none (cuBLASLt has no fused form of a user's activation; no elementwise kernel "
               "applies it)\n");
    if (dsl != NULL && lt != NULL) printf("  fused over unfused: %.3fx\n", lt->ms / dsl->ms);
    printf("  winner:  %s\n", r->candidates[r->winner].name);
}

/* Whether arg is a shape MxNxK (else a pack file), into *m, *n, *k. */
static int parse_shape(const char *arg, long long *m, long long *n, long long *k)
{
    int end = 0;
    return sscanf(arg, "%lldx%lldx%lld%n", m, n, k, &end) == 3 && arg[end] == '\0' && *m > 0 && *n > 0 && *k > 0;
}

/* One shape: tuned, run through cutec_gemm_ex and checked; 0, 1 wrong, or
 * a status's exit code. */
static int run_shape(long long m, long long n, long long k)
{
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, m, n, k, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    snprintf(p.act, sizeof p.act, "squared_relu"); /* the .cute function's name */
    p.bias = 1;                                    /* a bias per column, of D's type */
    size_t na = (size_t)(m * k), nb = (size_t)(n * k), nd = (size_t)(m * n);
    uint16_t *ha = malloc(2 * na), *hb = malloc(2 * nb), *hbias = malloc(2 * (size_t)n), *hd = malloc(2 * nd);
    if (!ha || !hb || !hbias || !hd) return fail("host memory", CUTEC_ERR_OUT_OF_MEMORY);
    uint64_t x = 42 + (uint64_t)(m * 31 + n * 17 + k);
    fill(ha, na, &x);
    fill(hb, nb, &x); /* B as N rows of K (a linear layer's weight) */
    fill(hbias, (size_t)n, &x);
    unsigned long long A = 0, B = 0, bias = 0, D = 0;
    cutec_status s = cutec_malloc(rt, 2 * na, &A);
    if (s == CUTEC_OK) s = cutec_malloc(rt, 2 * nb, &B);
    if (s == CUTEC_OK) s = cutec_malloc(rt, 2 * (size_t)n, &bias);
    if (s == CUTEC_OK) s = cutec_malloc(rt, 2 * nd, &D);
    if (s == CUTEC_OK) s = cutec_memcpy_htod(rt, A, ha, 2 * na);
    if (s == CUTEC_OK) s = cutec_memcpy_htod(rt, B, hb, 2 * nb);
    if (s == CUTEC_OK) s = cutec_memcpy_htod(rt, bias, hbias, 2 * (size_t)n);
    if (s != CUTEC_OK) return fail("device memory", s);
    cutec_gemm_args args;
    cutec_gemm_args_init(&args, (void *)(uintptr_t)A, (void *)(uintptr_t)B, (void *)(uintptr_t)D);
    args.bias = (void *)(uintptr_t)bias;

    /* tune now (a report of every candidate), then call as an application
     * would: the tuned decision serves every later call of this class */
    printf("M=%lld N=%lld K=%lld bf16, D = squared_relu(A B + bias):\n", m, n, k);
    cutec_tune_report *report = NULL;
    s = cutec_gemm_tune_ex(gemm, &p, &args, NULL, &report);
    if (s != CUTEC_OK) return fail("cutec_gemm_tune_ex", s);
    print_report(report);
    cutec_tune_report_free(report);
    s = cutec_gemm_ex(gemm, &p, &args, NULL);
    if (s == CUTEC_OK) s = cutec_synchronize(rt);
    if (s == CUTEC_OK) s = cutec_memcpy_dtoh(rt, hd, D, 2 * nd);
    if (s != CUTEC_OK) return fail("cutec_gemm_ex", s);

    /* float64: v = sum a b + bias, D = squared_relu(v); the bound is bf16's
     * rounding of D (2 units) plus the f32 sum's error (ev, generous: 2^-18
     * of sum |a b|) through squared_relu, (v + ev)^2 - v^2 */
    long bad = 0;
    double worst = 0;
    for (long long i = 0; i < m; i++)
        for (long long j = 0; j < n; j++) {
            double v = from_bf16(hbias[j]), mag = fabs(v);
            for (long long q = 0; q < k; q++) {
                double t = from_bf16(ha[i * k + q]) * from_bf16(hb[j * k + q]);
                v += t;
                mag += fabs(t);
            }
            double want = squared_relu(v, 0), got = from_bf16(hd[i * n + j]), err = fabs(got - want);
            double ev = 0x1p-18 * mag, tol = 2 * 0x1p-8 * fabs(want) + (2 * fabs(v) + ev) * ev + 1e-30;
            if (err > worst) worst = err;
            if (!(err <= tol) && bad++ < 5) fprintf(stderr, "D[%lld,%lld] = %g, expected %g\n", i, j, got, want);
        }
    printf("  checked %zu elements against float64: %s (largest error %.3g)\n", nd, bad ? "WRONG" : "ok", worst);
    cutec_free(rt, A);
    cutec_free(rt, B);
    cutec_free(rt, bias);
    cutec_free(rt, D);
    free(ha);
    free(hb);
    free(hbias);
    free(hd);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s GEMM_PACK [EW_PACK] [MxNxK ...]\n", argv[0]);
        return 2;
    }
    cutec_status s = cutec_runtime_create(&rt, 0);
    if (s != CUTEC_OK) return fail("no GPU", s);
    cutec_runtime_set_log(rt, log_line, NULL);
    s = cutec_gemm_create(rt, &gemm);
    if (s != CUTEC_OK) return fail("cutec_gemm_create", s);
    long long m, n, k;
    int a = 1;
    for (; a < argc && !parse_shape(argv[a], &m, &n, &k); a++) /* the packs: the GEMM's, the elementwise kernels' */
        if ((s = use_pack(argv[a])) != CUTEC_OK) return fail(argv[a], s);
    /* without this the tuner skips the pack's kernels: nothing runs unchecked */
    s = cutec_gemm_set_activation_ref(gemm, "squared_relu", squared_relu, 0);
    if (s != CUTEC_OK) return fail("cutec_gemm_set_activation_ref", s);
    (void)cutec_gemm_set_option(gemm, CUTEC_OPT_DISK_CACHE, 0); /* a fresh tuning every run: its report is the point */

    /* ragged shapes (K a multiple of 8: TMA's 16-byte rows); an odd N takes the register stores */
    static const long long shapes[][3] = {{1000, 1544, 520}, {257, 392, 264}, {77, 389, 64}};
    int rc = 0;
    if (a == argc)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0] && rc == 0; i++)
            rc = run_shape(shapes[i][0], shapes[i][1], shapes[i][2]);
    for (; a < argc && rc == 0; a++) {
        if (!parse_shape(argv[a], &m, &n, &k)) {
            fprintf(stderr, "'%s' is not a shape MxNxK (the packs come first)\n", argv[a]);
            rc = 2;
            break;
        }
        rc = run_shape(m, n, k);
    }
    cutec_gemm_destroy(gemm);
    cutec_runtime_destroy(rt); /* also unloads the packs */
    return rc;
}
