/*
 * run_examples.c - runs the two bundled example kernels (transpose.cute and
 * sgemm.cute, compiled to PTX by cutec) through the runtime and checks them
 * against CPU references: transpose exactly, sgemm against a float64 reference
 * with a relative Frobenius error bound and an elementwise bound derived from
 * the standard dot-product error analysis.  Outputs are NaN-poisoned before
 * every launch so that elements the kernel forgets to write are caught.  It
 * also times sgemm (host wall clock around launches + synchronize; indicative
 * only).  Usage: run_examples TRANSPOSE.ptx SGEMM.ptx.  Exit status: 0 all
 * passed, 1 something failed, 77 no GPU (CTest's skip code).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cutec/runtime.h"

#define SKIP 77

static cutec_runtime *rt;
static int failures;

/* Prints a failed runtime call and counts it; returns 1 if s is not OK. */
static int failed(cutec_status s, const char *what)
{
    if (s == CUTEC_OK) return 0;
    fprintf(stderr, "run_examples: %s: %s: %s\n", what, cutec_status_string(s), cutec_runtime_message(rt));
    failures++;
    return 1;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* Uniform in [-1, 1), from a 64-bit LCG (reproducible across platforms). */
static float uniform(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng_state >> 40) & 0xffffff) / (float)0x1000000 * 2.0f - 1.0f;
}

static unsigned ceil_div(int a, int b) { return (unsigned)((a + b - 1) / b); }

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Device buffers of one case; freed together. */
typedef struct buffers {
    unsigned long long d[3];
} buffers;

static int alloc_buffers(buffers *b, const size_t bytes[3], int n)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < n; i++)
        if (failed(cutec_malloc(rt, bytes[i], &b->d[i]), "cutec_malloc")) return 0;
    return 1;
}

static void free_buffers(buffers *b)
{
    for (int i = 0; i < 3; i++)
        if (b->d[i] != 0) failed(cutec_free(rt, b->d[i]), "cutec_free");
}

static void fill_nan(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = NAN;
}

static void run_transpose(cutec_kernel *k, int m, int n)
{
    size_t count = (size_t)m * (size_t)n, bytes = count * sizeof(float);
    float *in = malloc(bytes), *out = malloc(bytes);
    buffers b;
    const size_t sizes[3] = {bytes, bytes, 0};
    if (in == NULL || out == NULL) {
        fprintf(stderr, "run_examples: out of host memory\n");
        failures++;
        goto done;
    }
    for (size_t i = 0; i < count; i++) in[i] = uniform();
    fill_nan(out, count);
    if (!alloc_buffers(&b, sizes, 2)) goto release;
    if (failed(cutec_memcpy_htod(rt, b.d[0], in, bytes), "cutec_memcpy_htod") ||
        failed(cutec_memcpy_htod(rt, b.d[1], out, bytes), "cutec_memcpy_htod (poison)"))
        goto release;
    void *args[] = {&m, &n, &b.d[0], &b.d[1]};
    const unsigned grid[3] = {ceil_div(n, 32), ceil_div(m, 32), 1}, block[3] = {32, 8, 1};
    if (failed(cutec_launch(k, grid, block, 0, NULL, args), "cutec_launch(transpose)") ||
        failed(cutec_synchronize(rt), "cutec_synchronize") ||
        failed(cutec_memcpy_dtoh(rt, out, b.d[1], bytes), "cutec_memcpy_dtoh"))
        goto release;
    size_t wrong = 0, first = 0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            size_t o = (size_t)j * (size_t)m + (size_t)i;
            /* memcmp, not ==, so that a NaN left in place never compares equal. */
            if (memcmp(&out[o], &in[(size_t)i * (size_t)n + (size_t)j], sizeof(float)) != 0) {
                if (wrong++ == 0) first = o;
            }
        }
    }
    if (wrong == 0) {
        printf("PASS transpose M=%d N=%d: all %zu elements exact\n", m, n, count);
    } else {
        printf("FAIL transpose M=%d N=%d: %zu of %zu elements wrong (first at out[%zu] = %g)\n", m, n, wrong, count,
               first, (double)out[first]);
        failures++;
    }
release:
    free_buffers(&b);
done:
    free(in);
    free(out);
}

/* C = A * B on device; returns 1 on success (the launch and the copy back). */
static int launch_sgemm(cutec_kernel *k, int m, int n, int kk, const buffers *b)
{
    void *args[] = {&m, &n, &kk, (void *)&b->d[0], (void *)&b->d[1], (void *)&b->d[2]};
    const unsigned grid[3] = {ceil_div(n, 64), ceil_div(m, 64), 1}, block[3] = {256, 1, 1};
    return !failed(cutec_launch(k, grid, block, 0, NULL, args), "cutec_launch(sgemm)");
}

static void run_sgemm(cutec_kernel *k, int m, int n, int kk)
{
    size_t na = (size_t)m * (size_t)kk, nb = (size_t)kk * (size_t)n, nc = (size_t)m * (size_t)n;
    float *a = malloc(na * sizeof(float)), *bm = malloc(nb * sizeof(float)), *c = malloc(nc * sizeof(float));
    double *ref = calloc(nc, sizeof(double)), *absref = calloc(nc, sizeof(double));
    buffers b;
    const size_t sizes[3] = {na * sizeof(float), nb * sizeof(float), nc * sizeof(float)};
    memset(&b, 0, sizeof b);
    if (a == NULL || bm == NULL || c == NULL || ref == NULL || absref == NULL) {
        fprintf(stderr, "run_examples: out of host memory\n");
        failures++;
        goto done;
    }
    for (size_t i = 0; i < na; i++) a[i] = uniform();
    for (size_t i = 0; i < nb; i++) bm[i] = uniform();
    fill_nan(c, nc);
    if (!alloc_buffers(&b, sizes, 3)) goto done;
    if (failed(cutec_memcpy_htod(rt, b.d[0], a, sizes[0]), "cutec_memcpy_htod(A)") ||
        failed(cutec_memcpy_htod(rt, b.d[1], bm, sizes[1]), "cutec_memcpy_htod(B)") ||
        failed(cutec_memcpy_htod(rt, b.d[2], c, sizes[2]), "cutec_memcpy_htod(C poison)"))
        goto done;
    if (!launch_sgemm(k, m, n, kk, &b) || failed(cutec_synchronize(rt), "cutec_synchronize") ||
        failed(cutec_memcpy_dtoh(rt, c, b.d[2], sizes[2]), "cutec_memcpy_dtoh(C)"))
        goto done;

    /* Reference in float64, with sum |a||b| per element for the error bound. */
    for (int i = 0; i < m; i++) {
        double *r = ref + (size_t)i * (size_t)n, *ra = absref + (size_t)i * (size_t)n;
        for (int p = 0; p < kk; p++) {
            double av = a[(size_t)i * (size_t)kk + (size_t)p];
            const float *brow = bm + (size_t)p * (size_t)n;
            for (int j = 0; j < n; j++) {
                r[j] += av * brow[j];
                ra[j] += fabs(av * brow[j]);
            }
        }
    }
    /* |fl(a.b) - a.b| <= gamma_K sum|a||b| with gamma_K = K u / (1 - K u),
   * u = 2^-24, for any summation order (blocked, FMA or not).  The factor 2
   * leaves room for the float64 reference's own (tiny) error. */
    double u = ldexp(1.0, -24), gamma = (double)kk * u / (1.0 - (double)kk * u);
    double diff2 = 0, ref2 = 0, max_abs = 0, worst_ratio = 0;
    size_t nan_count = 0, over_bound = 0;
    for (size_t i = 0; i < nc; i++) {
        if (isnan(c[i])) {
            nan_count++;
            continue;
        }
        double d = fabs((double)c[i] - ref[i]), bound = 2.0 * gamma * absref[i] + 1e-30;
        diff2 += d * d;
        ref2 += ref[i] * ref[i];
        if (d > max_abs) max_abs = d;
        if (d / bound > worst_ratio) worst_ratio = d / bound;
        if (d > bound) over_bound++;
    }
    double rel = ref2 > 0 ? sqrt(diff2 / ref2) : sqrt(diff2);
    int ok = nan_count == 0 && over_bound == 0 && rel < 1e-5;
    printf("%s sgemm M=%d N=%d K=%d: rel_fro_err=%.3e max_abs_err=%.3e max_err/bound=%.3f "
           "nan=%zu over_bound=%zu\n",
           ok ? "PASS" : "FAIL", m, n, kk, rel, max_abs, worst_ratio, nan_count, over_bound);
    if (!ok) failures++;
done:
    free_buffers(&b);
    free(a);
    free(bm);
    free(c);
    free(ref);
    free(absref);
}

/* Times `reps` back-to-back launches after one warm-up, no checking. */
static void time_sgemm(cutec_kernel *k, int size, int reps)
{
    size_t count = (size_t)size * (size_t)size, bytes = count * sizeof(float);
    float *h = malloc(bytes);
    buffers b;
    const size_t sizes[3] = {bytes, bytes, bytes};
    memset(&b, 0, sizeof b);
    if (h == NULL) {
        failures++;
        return;
    }
    for (size_t i = 0; i < count; i++) h[i] = uniform();
    if (!alloc_buffers(&b, sizes, 3) || failed(cutec_memcpy_htod(rt, b.d[0], h, bytes), "cutec_memcpy_htod(A)") ||
        failed(cutec_memcpy_htod(rt, b.d[1], h, bytes), "cutec_memcpy_htod(B)"))
        goto done;
    if (!launch_sgemm(k, size, size, size, &b) || failed(cutec_synchronize(rt), "cutec_synchronize")) goto done;
    double t0 = now_seconds();
    for (int r = 0; r < reps; r++)
        if (!launch_sgemm(k, size, size, size, &b)) goto done;
    if (failed(cutec_synchronize(rt), "cutec_synchronize")) goto done;
    double dt = (now_seconds() - t0) / reps;
    printf("TIME sgemm %dx%dx%d: %.3f ms/launch, %.1f GFLOP/s (indicative: host wall clock, "
           "%d launches after 1 warm-up)\n",
           size, size, size, dt * 1e3, 2.0 * size * (double)size * size / dt * 1e-9, reps);
done:
    free_buffers(&b);
    free(h);
}

static cutec_module *load(const char *path, const char *kernel, cutec_kernel **k)
{
    cutec_module *m = NULL;
    *k = NULL;
    if (failed(cutec_module_load_file(rt, path, &m), path)) return NULL;
    if (failed(cutec_module_get_kernel(m, kernel, k), kernel)) {
        cutec_module_unload(m);
        return NULL;
    }
    return m;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s TRANSPOSE.ptx SGEMM.ptx\n", argv[0]);
        return 2;
    }
    cutec_status s = cutec_runtime_create(&rt, 0);
    if (s == CUTEC_ERR_NO_DRIVER || s == CUTEC_ERR_NO_DEVICE) {
        fprintf(stderr, "run_examples: no GPU found (%s); skipping\n", cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        return SKIP;
    }
    if (failed(s, "cutec_runtime_create")) {
        cutec_runtime_destroy(rt);
        return 1;
    }
    char name[256];
    int major = 0, minor = 0, sms = 0;
    if (!failed(cutec_device_info(rt, name, sizeof name, &major, &minor, &sms), "cutec_device_info"))
        printf("device: %s (sm_%d%d, %d SMs)\n", name, major, minor, sms);

    cutec_kernel *k = NULL;
    cutec_module *m = load(argv[1], "transpose", &k);
    if (m != NULL) {
        static const int shapes[][2] = {{1, 1}, {33, 65}, {1000, 517}, {2048, 2048}};
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) run_transpose(k, shapes[i][0], shapes[i][1]);
        cutec_module_unload(m);
    }

    m = load(argv[2], "sgemm", &k);
    if (m != NULL) {
        static const int shapes[][3] = {{1, 1, 1},      {7, 13, 5},      {64, 64, 8},
                                        {100, 37, 129}, {256, 512, 300}, {1024, 1024, 1024}};
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            run_sgemm(k, shapes[i][0], shapes[i][1], shapes[i][2]);
        if (failures == 0) {
            time_sgemm(k, 1024, 10);
            time_sgemm(k, 4096, 3);
        }
        cutec_module_unload(m);
    }

    cutec_runtime_destroy(rt);
    printf("%s: %d failure(s)\n", failures == 0 ? "ALL PASS" : "FAILED", failures);
    return failures == 0 ? 0 : 1;
}
