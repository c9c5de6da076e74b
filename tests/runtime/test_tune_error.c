/*
 * test_tune_error.c - the host side of `cutec-tune error`
 * (runtime/tools/tune_error.c), on the CPU: the float64 reference of every
 * scale mode against a naive sum, the measures of a known perturbation
 * (so that the study cannot report zero where there is an error), NaN as
 * an infinite error, the inputs' distributions (never zero, inside the
 * type's range, the means asked for) and the sampled rows.
 */
#include "check.h"
#include "cutec/cutec.h"
#include "dtype.h"
#include "tune_error.h"

#include <math.h>
#include <time.h>

/* The naive reference: every product scaled on its own, in float64. */
static double naive(const tune_err_problem *p, long long r, long long c, double *mag)
{
    const unsigned char *a = p->a, *b = p->b;
    size_t es = (size_t)cutec_dtype_bytes((cutec_ct)p->ab);
    long long kbs = (p->k + 127) / 128;
    double v = 0, g = 0;
    for (long long q = 0; q < p->k; q++) {
        double f = p->mode == CUTEC_SCALE_TENSOR  ? (double)p->sa[0] * p->sb[0]
                   : p->mode == CUTEC_SCALE_ROW   ? (double)p->sa[r] * p->sb[c]
                   : p->mode == CUTEC_SCALE_BLOCK ? (double)p->sa[r + p->m * (q / 128)] * p->sb[c / 128 * kbs + q / 128]
                                                  : 1.0;
        double x = f * cutec_dtype_load((cutec_ct)p->ab, a + ((size_t)(r * p->k + q)) * es) *
                   cutec_dtype_load((cutec_ct)p->ab, b + ((size_t)(c * p->k + q)) * es);
        v += x;
        g += fabs(x);
    }
    *mag = g;
    return v;
}

static float *scales(size_t n, float base)
{
    float *s = malloc(n * sizeof *s);
    CHECK(s != NULL);
    for (size_t i = 0; i < n; i++) s[i] = base * (float)(1 + i % 7) / 4; /* positive, far from 1 */
    return s;
}

/* Every scale mode, e4m3 and bf16, K not a multiple of 128 (a partial
 * last block), N past one 128-column block of B's block scales. */
static int test_reference(int argc, char **argv)
{
    (void)argc, (void)argv;
    const long long m = 5, n = 130, k = 300, kbs = (k + 127) / 128;
    const cutec_dtype types[] = {CUTEC_DTYPE_E4M3, CUTEC_DTYPE_E5M2, CUTEC_DTYPE_BF16};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        cutec_dtype t = types[ti];
        size_t es = (size_t)cutec_dtype_bytes((cutec_ct)t);
        unsigned char *a = malloc((size_t)(m * k) * es), *b = malloc((size_t)(n * k) * es);
        CHECK(a != NULL && b != NULL);
        CHECK(tune_err_fill(a, (size_t)(m * k), t, TUNE_ERR_NORMAL, 3) == 0);
        CHECK(tune_err_fill(b, (size_t)(n * k), t, TUNE_ERR_MEAN, 4) == 0);
        for (int mode = CUTEC_SCALE_NONE; mode <= CUTEC_SCALE_BLOCK; mode++) {
            size_t nsa = mode == CUTEC_SCALE_TENSOR ? 1 : mode == CUTEC_SCALE_BLOCK ? (size_t)(m * kbs) : (size_t)m;
            size_t nsb = mode == CUTEC_SCALE_TENSOR  ? 1
                         : mode == CUTEC_SCALE_BLOCK ? (size_t)((n + 127) / 128 * kbs)
                                                     : (size_t)n;
            float *sa = scales(nsa, 0.5f), *sb = scales(nsb, 2.0f);
            tune_err_problem p = {.m = m,
                                  .n = n,
                                  .k = k,
                                  .ab = t,
                                  .a = a,
                                  .b = b,
                                  .mode = (cutec_scale_mode)mode,
                                  .sa = mode ? sa : NULL,
                                  .sb = mode ? sb : NULL};
            long long rows[3];
            tune_err_rows(m, 3, rows);
            CHECK(rows[0] == 0 && rows[1] == 2 && rows[2] == m - 1);
            double ref[3 * 130], mag[3 * 130];
            CHECK(tune_err_reference(&p, rows, 3, ref, mag) == 0);
            for (int i = 0; i < 3; i++)
                for (long long c = 0; c < n; c++) {
                    double g, v = naive(&p, rows[i], c, &g);
                    double got = ref[i * n + c], gm = mag[i * n + c];
                    if (!(fabs(got - v) <= 1e-12 * g && fabs(gm - g) <= 1e-12 * g && g > 0)) {
                        fprintf(stderr, "%s mode %d: row %lld col %lld: %.17g (bound %.17g), naive %.17g (%.17g)\n",
                                cutec_dtype_str((cutec_ct)t), mode, rows[i], c, got, gm, v, g);
                        return 1;
                    }
                }
            free(sa), free(sb);
        }
        free(a), free(b);
    }
    /* a case by hand: A all 2, B all 0.5, per-tensor scales 3 and 0.25: v = K 0.75 */
    unsigned char two, half;
    cutec_dtype_store(CUTEC_CT_E4M3, &two, 2.0);
    cutec_dtype_store(CUTEC_CT_E4M3, &half, 0.5);
    unsigned char a[2 * 1000], b[3 * 1000];
    memset(a, two, sizeof a);
    memset(b, half, sizeof b);
    float sa = 3, sb = 0.25f;
    tune_err_problem p = {.m = 2,
                          .n = 3,
                          .k = 1000,
                          .ab = CUTEC_DTYPE_E4M3,
                          .a = a,
                          .b = b,
                          .mode = CUTEC_SCALE_TENSOR,
                          .sa = &sa,
                          .sb = &sb};
    long long rows[2] = {0, 1};
    double ref[6], mag[6];
    CHECK(tune_err_reference(&p, rows, 2, ref, mag) == 0);
    for (int i = 0; i < 6; i++) CHECK(ref[i] == 750.0 && mag[i] == 750.0);
    printf("tune_err_reference: every scale mode of e4m3, e5m2 and bf16 matches the naive sum\n");
    return 0;
}

/* Known errors: D equal to the reference measures 0; one element off by
 * delta gives max abs delta, RMS delta / sqrt(count) and max/bound
 * delta / mag there; a changed input element gives its product's error;
 * NaN is an infinite error. */
static int test_measure(int argc, char **argv)
{
    (void)argc, (void)argv;
    enum { R = 4, N = 16, K = 256 };
    unsigned char a[R * K], b[N * K];
    CHECK(tune_err_fill(a, sizeof a, CUTEC_DTYPE_E4M3, TUNE_ERR_MEAN, 11) == 0);
    CHECK(tune_err_fill(b, sizeof b, CUTEC_DTYPE_E4M3, TUNE_ERR_NORMAL, 12) == 0);
    float sa = 0.5f, sb = 0.25f;
    tune_err_problem p = {.m = R,
                          .n = N,
                          .k = K,
                          .ab = CUTEC_DTYPE_E4M3,
                          .a = a,
                          .b = b,
                          .mode = CUTEC_SCALE_TENSOR,
                          .sa = &sa,
                          .sb = &sb};
    long long rows[R];
    tune_err_rows(R, R, rows);
    double ref[R * N], mag[R * N];
    CHECK(tune_err_reference(&p, rows, R, ref, mag) == 0);
    /* D in f64 holds the reference exactly */
    double d[R * N];
    memcpy(d, ref, sizeof d);
    tune_err_stats st;
    tune_err_measure(d, (cutec_dtype)CUTEC_CT_F64, R, N, ref, mag, &st);
    CHECK(st.count == R * N && st.nonfinite == 0 && st.max_abs == 0 && st.rms == 0 && st.max_rel == 0);
    /* one element off by delta */
    const double delta = 0.375;
    d[2 * N + 5] += delta;
    tune_err_measure(d, (cutec_dtype)CUTEC_CT_F64, R, N, ref, mag, &st);
    CHECK(fabs(st.max_abs - delta) <= 1e-12 * fabs(ref[2 * N + 5]) + 1e-15);
    CHECK(fabs(st.rms - delta / sqrt(R * N)) <= 1e-9 * st.rms);
    CHECK(fabs(st.max_rel - st.max_abs / mag[2 * N + 5]) <= 1e-12 * st.max_rel);
    CHECK(st.worst_row == 2 && st.worst_col == 5);
    /* a changed input: element (1, 7) of A; the reference of the changed
     * inputs measured against the original one differs by the products */
    unsigned char a2[R * K];
    memcpy(a2, a, sizeof a);
    double was = cutec_dtype_load(CUTEC_CT_E4M3, &a[1 * K + 7]);
    cutec_dtype_store(CUTEC_CT_E4M3, &a2[1 * K + 7], was * 2);
    tune_err_problem p2 = p;
    p2.a = a2;
    double ref2[R * N], mag2[R * N];
    CHECK(tune_err_reference(&p2, rows, R, ref2, mag2) == 0);
    tune_err_measure(ref2, (cutec_dtype)CUTEC_CT_F64, R, N, ref, mag, &st);
    double want = 0;
    for (int c = 0; c < N; c++) want = fmax(want, fabs(0.125 * was * cutec_dtype_load(CUTEC_CT_E4M3, &b[c * K + 7])));
    CHECK(want > 0 && fabs(st.max_abs - want) <= 1e-12 * want);
    CHECK(st.worst_row == 1);
    /* f32 and bf16 outputs: their rounding is measured */
    float d32[R * N];
    uint16_t d16[R * N];
    for (int i = 0; i < R * N; i++) {
        d32[i] = (float)ref[i];
        cutec_dtype_store(CUTEC_CT_BF16, &d16[i], ref[i]);
    }
    tune_err_stats s32, s16;
    tune_err_measure(d32, CUTEC_DTYPE_F32, R, N, ref, mag, &s32);
    tune_err_measure(d16, CUTEC_DTYPE_BF16, R, N, ref, mag, &s16);
    CHECK(s16.max_abs > s32.max_abs && s16.rms > 0);
    double big = 0;
    for (int i = 0; i < R * N; i++) big = fmax(big, fabs(ref[i]));
    CHECK(s16.max_abs <= big * ldexp(1, -8) && s32.max_abs <= big * ldexp(1, -23));
    /* NaN: an infinite error, counted */
    d[7] = NAN;
    tune_err_measure(d, (cutec_dtype)CUTEC_CT_F64, R, N, ref, mag, &st);
    CHECK(st.nonfinite == 1 && isinf(st.max_abs) && isinf(st.rms) && isinf(st.max_rel));
    printf("tune_err_measure: a known perturbation gives its known error; NaN an infinite one\n");
    return 0;
}

/* The distributions: no zero, inside the range, their means and spread. */
static int test_fill(int argc, char **argv)
{
    (void)argc, (void)argv;
    CHECK(tune_err_sigma(CUTEC_DTYPE_E4M3) == 56.0);
    CHECK(tune_err_sigma(CUTEC_DTYPE_E5M2) == 7168.0);
    CHECK(tune_err_sigma(CUTEC_DTYPE_BF16) == 1.0);
    enum { NV = 200000 };
    static unsigned char v[NV];
    for (int d = 0; d < TUNE_ERR_DISTS; d++) {
        CHECK(tune_err_fill(v, NV, CUTEC_DTYPE_E4M3, (tune_err_dist)d, 5) == 0);
        double sum = 0, sum2 = 0, top = 0;
        for (int i = 0; i < NV; i++) {
            double x = cutec_dtype_load(CUTEC_CT_E4M3, &v[i]);
            CHECK(x != 0 && isfinite(x));
            sum += x, sum2 += x * x, top = fmax(top, fabs(x));
        }
        double mean = sum / NV, sd = sqrt(sum2 / NV - mean * mean), sigma = 56;
        CHECK(fabs(mean - sigma * tune_err_dist_mean((tune_err_dist)d)) < 0.02 * sigma);
        CHECK(fabs(sd - sigma) < 0.05 * sigma);
        CHECK(top <= 448 && top > 3 * sigma);
    }
    /* seeded: the same seed the same values, another seed others */
    static unsigned char w[NV];
    CHECK(tune_err_fill(v, NV, CUTEC_DTYPE_E4M3, TUNE_ERR_NORMAL, 5) == 0);
    CHECK(tune_err_fill(w, NV, CUTEC_DTYPE_E4M3, TUNE_ERR_NORMAL, 5) == 0);
    CHECK(memcmp(v, w, NV) == 0);
    CHECK(tune_err_fill(w, NV, CUTEC_DTYPE_E4M3, TUNE_ERR_NORMAL, 6) == 0);
    CHECK(memcmp(v, w, NV) != 0);
    printf("tune_err_fill: no zeros, inside e4m3's range, means 0 and 1 sigma, sigma 56\n");
    return 0;
}

/* Not a test: the host time of the reference at the study's size
 * (test_tune_error time R N K). */
static int time_reference(int argc, char **argv)
{
    CHECK(argc == 3);
    long long r = atoll(argv[0]), n = atoll(argv[1]), k = atoll(argv[2]);
    unsigned char *a = malloc((size_t)(r * k)), *b = malloc((size_t)(n * k));
    double *ref = malloc(sizeof *ref * (size_t)(r * n)), *mag = malloc(sizeof *mag * (size_t)(r * n));
    long long *rows = malloc(sizeof *rows * (size_t)r);
    CHECK(a && b && ref && mag && rows);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(tune_err_fill(a, (size_t)(r * k), CUTEC_DTYPE_E4M3, TUNE_ERR_NORMAL, 1) == 0);
    CHECK(tune_err_fill(b, (size_t)(n * k), CUTEC_DTYPE_E4M3, TUNE_ERR_NORMAL, 2) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double fill = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    tune_err_rows(r, (int)r, rows);
    float s = 1;
    tune_err_problem p = {
        .m = r, .n = n, .k = k, .ab = CUTEC_DTYPE_E4M3, .a = a, .b = b, .mode = CUTEC_SCALE_TENSOR, .sa = &s, .sb = &s};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(tune_err_reference(&p, rows, (int)r, ref, mag) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("fill %.2f s, reference of %lld x %lld x %lld: %.2f s\n", fill, r, n, k,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    free(a), free(b), free(ref), free(mag), free(rows);
    return 0;
}

static const check_case cases[] = {
    {"reference", test_reference},
    {"measure", test_measure},
    {"fill", test_fill},
    {"time", time_reference},
};

int main(int argc, char **argv) { return check_run_cases(cases, sizeof cases / sizeof cases[0], argc, argv); }
