/*
 * gemm_tuned.c - embedding the cutec runtime: load the stdlib GEMM pack, make
 * it a GEMM candidate, multiply through cutec_gemm (which tunes against
 * cuBLASLt on the first call and caches the decision), check the result
 * against a float64 CPU reference, and print what the tuner chose.
 *
 *   gemm_tuned PACK [M N K]          (default 1000 x 1536 x 512, bf16 -> bf16)
 *
 * Exits 77 where there is no GPU (CTest's skip code), 1 on a wrong result.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cutec/cutec.h>

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
    if (level <= CUTEC_LOG_WARNING) /* tuning failures of single candidates */
        fprintf(stderr, "cutec: %s\n", msg);
}

static cutec_gemm_handle *gemm; /* the GEMM layer's handle, on the runtime */

static int fail(cutec_runtime *rt, const char *what, cutec_status s)
{
    fprintf(stderr, "%s: %s: %s\n", what, cutec_status_string(s), cutec_runtime_message(rt));
    cutec_gemm_destroy(gemm); /* handles before their runtime */
    cutec_runtime_destroy(rt);
    return s == CUTEC_ERR_NO_DRIVER || s == CUTEC_ERR_NO_DEVICE ? 77 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 5) {
        fprintf(stderr, "usage: %s PACK [M N K]\n", argv[0]);
        return 2;
    }
    long long m = argc == 5 ? atoll(argv[2]) : 1000, n = argc == 5 ? atoll(argv[3]) : 1536,
              k = argc == 5 ? atoll(argv[4]) : 512;
    cutec_runtime *rt = NULL;
    cutec_status s = cutec_runtime_create(&rt, 0);
    if (s != CUTEC_OK) return fail(rt, "no GPU", s);
    cutec_runtime_set_log(rt, log_line, NULL);
    cutec_pack *pack = NULL;
    s = cutec_gemm_create(rt, &gemm);
    if (s == CUTEC_OK) s = cutec_pack_load_file(rt, argv[1], &pack);
    if (s == CUTEC_OK) s = cutec_gemm_use_pack(gemm, pack);
    if (s != CUTEC_OK) return fail(rt, argv[1], s);
    printf("pack %s: %d kernels for %s\n", argv[1], cutec_pack_entry_count(pack), cutec_pack_arch(pack));

    /* C[M,N] = A[M,K] B[K,N]; A row-major, B column-major (K-contiguous), C row-major */
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, m, n, k, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    size_t na = (size_t)(m * k), nb = (size_t)(k * n), nc = (size_t)(m * n);
    uint16_t *ha = malloc(2 * na), *hb = malloc(2 * nb), *hc = malloc(2 * nc);
    if (!ha || !hb || !hc) return fail(rt, "host memory", CUTEC_ERR_OUT_OF_MEMORY);
    uint64_t x = 42;
    for (size_t i = 0; i < na + nb; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        float v = (float)((double)(x >> 11) / 9007199254740992.0) * 2.0f - 1.0f;
        if (i < na)
            ha[i] = to_bf16(v);
        else
            hb[i - na] = to_bf16(v);
    }
    unsigned long long A = 0, B = 0, C = 0;
    s = cutec_malloc(rt, 2 * na, &A);
    if (s == CUTEC_OK) s = cutec_malloc(rt, 2 * nb, &B);
    if (s == CUTEC_OK) s = cutec_malloc(rt, 2 * nc, &C);
    if (s == CUTEC_OK) s = cutec_memcpy_htod(rt, A, ha, 2 * na);
    if (s == CUTEC_OK) s = cutec_memcpy_htod(rt, B, hb, 2 * nb);
    if (s != CUTEC_OK) return fail(rt, "device memory", s);

    /* first call: tunes (or reads the disk cache); later calls: lookup + launch */
    for (int call = 0; call < 3 && s == CUTEC_OK; call++)
        s = cutec_gemm(gemm, &p, (void *)(uintptr_t)A, (void *)(uintptr_t)B, (void *)(uintptr_t)C, NULL);
    if (s == CUTEC_OK) s = cutec_synchronize(rt);
    if (s == CUTEC_OK) s = cutec_memcpy_dtoh(rt, hc, C, 2 * nc);
    if (s != CUTEC_OK) return fail(rt, "cutec_gemm", s);
    char choice[192];
    if (cutec_gemm_choice(gemm, &p, choice, sizeof choice) == CUTEC_OK)
        printf("M=%lld N=%lld K=%lld bf16: the tuner chose %s (cache: %s)\n", m, n, k, choice,
               cutec_gemm_cache_dir(gemm));

    long bad = 0;
    double worst = 0;
    for (long long i = 0; i < m; i++)
        for (long long j = 0; j < n; j++) {
            double dot = 0, mag = 0;
            for (long long q = 0; q < k; q++) {
                double v = from_bf16(ha[i * k + q]) * from_bf16(hb[j * k + q]);
                dot += v;
                mag += fabs(v);
            }
            double got = from_bf16(hc[i * n + j]), err = fabs(got - dot);
            double tol = 2 * 0x1p-7 * fabs(dot) + 4 * 0x1p-7 * mag / sqrt((double)k);
            if (err > worst) worst = err;
            if (!(err <= tol) && bad++ < 5) fprintf(stderr, "C[%lld,%lld] = %g, expected %g\n", i, j, got, dot);
        }
    printf("checked %zu elements against float64: %s (largest error %.3g)\n", nc, bad ? "WRONG" : "ok", worst);
    cutec_free(rt, A);
    cutec_free(rt, B);
    cutec_free(rt, C);
    free(ha);
    free(hb);
    free(hc);
    cutec_gemm_destroy(gemm);
    cutec_runtime_destroy(rt); /* also unloads the pack */
    return bad ? 1 : 0;
}
