/*
 * wgmma_forms.c - GPU check of the single-tile wgmma kernels of
 * tests/gpu/kernels/wgmma_forms.cute: one wgmma form per PTX file (register
 * A, fp8, MN-major shared tiles, the swizzle modes), compiled by
 * scripts/gpu-prepare.sh into prebuilt/wgmma/.
 *
 * Usage: wgmma_forms [--seed N] FILE.ptx...
 *        wgmma_forms --self-test        (CPU only: fp8 encodings)
 *
 * Every file holds one "wgmma_tile" kernel; its template parameters (TA, TB,
 * N, K) come from the "// cutec.param" lines.  The kernel computes, with one
 * warpgroup (block 128, grid 1),
 *     C[64,N] = A[64,K] * B[N,K]^T     (A, B row-major; C f32 row-major).
 * A and B are random, never zero: 16-bit types uniform in [-1, 1] rounded to
 * the type, fp8 types uniform in [-2, 2] rounded to the type.  Every product
 * of two such inputs is exact in f32 (at most 8 + 8 significant bits), so the
 * only error is the accumulation; element (i, j) passes when
 *     |c - ref| <= K * u * sum_k |a||b| + 2^-149
 * with u = 2^-23 (f32 accumulation, allowing for truncating adders).  fp8
 * wgmma is known to accumulate with fewer bits than f32 on Hopper (DeepSeek-V3
 * report: about 14), so for fp8 a result within u = 2^-13 passes with a note
 * ("coarse accumulation"); layout or descriptor mistakes give errors of the
 * order of the values themselves, far above either bound.  C is poisoned with
 * NaN before the launch; a NaN or Inf anywhere fails.
 * One line per file: PASS/FAIL, the worst element, the parameters.  Exit
 * status: 0 all passed, 1 any failure, 2 usage, 77 no GPU (no driver or no
 * device).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/runtime.h"
#include "gemm_common.h"

#define SKIP 77

typedef enum elem { E_BF16, E_F16, E_E4M3, E_E5M2, E_BAD } elem;

static elem elem_parse(const char *s)
{
    if (s == NULL) return E_BAD;
    if (strcmp(s, "bf16") == 0) return E_BF16;
    if (strcmp(s, "f16") == 0) return E_F16;
    if (strcmp(s, "e4m3") == 0) return E_E4M3;
    if (strcmp(s, "e5m2") == 0) return E_E5M2;
    return E_BAD;
}

static int elem_is_fp8(elem t) { return t == E_E4M3 || t == E_E5M2; }
static size_t elem_size(elem t) { return elem_is_fp8(t) ? 1 : 2; }

/* ------------------------------------------------------------- fp8 codes */

/* The value of an fp8 code (NaN for the NaN codes, e5m2 infinities). */
static double fp8_decode(unsigned c, elem t)
{
    int mbits = t == E_E4M3 ? 3 : 2, ebits = t == E_E4M3 ? 4 : 5, bias = t == E_E4M3 ? 7 : 15;
    double s = (c & 0x80) ? -1.0 : 1.0;
    unsigned e = (c >> mbits) & ((1u << ebits) - 1), m = c & ((1u << mbits) - 1);
    if (t == E_E4M3 && e == 15 && m == 7) return NAN;
    if (t == E_E5M2 && e == 31) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp((double)m, 1 - bias - mbits);
    return s * ldexp((double)((1u << mbits) + m), (int)e - bias - mbits);
}

/* The code of the fp8 value nearest to x (ties to even), saturated to the
 * largest finite value: what cvt.rn.satfinite gives.  Found by search over
 * the 127 non-negative finite codes, independent of the compiler's encoder. */
static unsigned fp8_encode(double x, elem t)
{
    unsigned sign = x < 0 ? 0x80 : 0, best = 0;
    double a = fabs(x), bestd = INFINITY;
    for (unsigned c = 0; c < 0x80; c++) {
        double v = fp8_decode(c, t);
        if (!isfinite(v)) continue;
        double d = fabs(v - a);
        if (d < bestd || (d == bestd && (c & 1) == 0)) {
            bestd = d;
            best = c;
        }
    }
    return sign | best;
}

static int self_test(void)
{
    int bad = 0;
    for (int ti = 0; ti < 2; ti++) {
        elem t = ti ? E_E5M2 : E_E4M3;
        for (unsigned c = 0; c < 256; c++) {
            double v = fp8_decode(c, t);
            if (isfinite(v) && fp8_encode(v, t) != c && !(v == 0 && (c & 0x7f) == 0)) {
                printf("self-test: %s code 0x%02x (%g) encodes back as 0x%02x\n", t == E_E4M3 ? "e4m3" : "e5m2", c, v,
                       fp8_encode(v, t));
                bad++;
            }
        }
    }
    /* fixed points: 1.0, the largest finite values, saturation, ties to even */
    struct {
        elem t;
        double x;
        unsigned c;
    } fx[] = {
        {E_E4M3, 1.0, 0x38},    {E_E4M3, 448.0, 0x7E},  {E_E4M3, 1e6, 0x7E},     {E_E4M3, -1e6, 0xFE},
        {E_E4M3, 1.0625, 0x38}, {E_E4M3, 0x1p-9, 0x01}, {E_E5M2, 1.0, 0x3C},     {E_E5M2, 57344.0, 0x7B},
        {E_E5M2, 1e9, 0x7B},    {E_E5M2, 1.125, 0x3C},  {E_E5M2, 0x1p-16, 0x01},
    };
    for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++)
        if (fp8_encode(fx[i].x, fx[i].t) != fx[i].c) {
            printf("self-test: encode(%g) = 0x%02x, want 0x%02x\n", fx[i].x, fp8_encode(fx[i].x, fx[i].t), fx[i].c);
            bad++;
        }
    printf("self-test: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}

/* Random inputs of type t, never zero: encodings in buf, values in vals. */
static void fill_inputs(gemm_rng *r, elem t, void *buf, double *vals, size_t n)
{
    if (!elem_is_fp8(t)) {
        gemm_fill_random(r, t == E_BF16 ? GT_BF16 : GT_F16, buf, vals, n);
        return;
    }
    uint8_t *b = buf;
    for (size_t i = 0; i < n; i++) {
        unsigned c;
        do c = fp8_encode(2.0 * gemm_rng_uniform(r), t);
        while ((c & 0x7f) == 0);
        b[i] = (uint8_t)c;
        vals[i] = fp8_decode(c, t);
    }
}

/* ------------------------------------------------------------------ run */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Runs one file: 0 pass, 1 fail, SKIP no GPU. */
static int run_file(const char *path, uint64_t seed)
{
    size_t len;
    char *text = gemm_read_file(path, &len), err[256];
    if (text == NULL) {
        printf("FAIL %s: cannot read the file\n", base_name(path));
        return 1;
    }
    gemm_kernel_meta *metas = NULL;
    int nmeta = 0;
    if (gemm_parse_meta(text, len, &metas, &nmeta, err, sizeof err) != 0 || nmeta < 1) {
        printf("FAIL %s: %s\n", base_name(path), nmeta < 1 ? "no kernel metadata" : err);
        free(text);
        free(metas);
        return 1;
    }
    free(text);
    const gemm_kernel_meta *m = &metas[0];
    elem ta = elem_parse(gemm_meta_param(m, "TA")), tb = elem_parse(gemm_meta_param(m, "TB"));
    long n = 0, k = 0;
    if (strcmp(m->kernel, "wgmma_tile") != 0 || ta == E_BAD || tb == E_BAD || gemm_meta_int(m, "N", &n) != 0 ||
        gemm_meta_int(m, "K", &k) != 0 || n < 8 || n > 256 || k < 1) {
        printf("FAIL %s: not a wgmma_tile kernel with TA, TB, N, K parameters\n", base_name(path));
        free(metas);
        return 1;
    }
    char desc[512] = "";
    cutec_kdesc_describe(m, desc, sizeof desc);

    size_t na = (size_t)(64 * k), nb = (size_t)(n * k), nc = (size_t)(64 * n);
    void *ha = malloc(na * 2), *hb = malloc(nb * 2);
    double *av = malloc(na * sizeof *av), *bv = malloc(nb * sizeof *bv);
    float *hc = malloc(nc * sizeof *hc);
    if (!ha || !hb || !av || !bv || !hc) {
        printf("FAIL %s: out of host memory\n", base_name(path));
        free(ha), free(hb), free(av), free(bv), free(hc), free(metas);
        return 1;
    }
    gemm_rng r;
    gemm_rng_seed(&r, seed ^ ((uint64_t)n << 32) ^ (uint64_t)k);
    fill_inputs(&r, ta, ha, av, na);
    fill_inputs(&r, tb, hb, bv, nb);
    memset(hc, 0xFF, nc * sizeof *hc); /* NaN */

    int rc = 1;
    cutec_runtime *rt = NULL;
    cutec_module *mod = NULL;
    cutec_kernel *kern = NULL;
    unsigned long long da = 0, db = 0, dc = 0;
    cutec_status st = cutec_runtime_create(&rt, 0);
    const char *what = "cutec_runtime_create";
    if (st == CUTEC_ERR_NO_DRIVER || st == CUTEC_ERR_NO_DEVICE) {
        printf("SKIP %s: no GPU (%s)\n", base_name(path), cutec_runtime_message(rt));
        rc = SKIP;
        goto out;
    }
    if (st != CUTEC_OK) goto fail;
    what = "module load";
    if ((st = cutec_module_load_file(rt, path, &mod)) != CUTEC_OK) goto fail;
    what = "kernel lookup";
    if ((st = cutec_module_get_kernel(mod, m->kernel, &kern)) != CUTEC_OK) goto fail;
    what = "device memory";
    if ((st = cutec_malloc(rt, na * elem_size(ta), &da)) != CUTEC_OK ||
        (st = cutec_malloc(rt, nb * elem_size(tb), &db)) != CUTEC_OK ||
        (st = cutec_malloc(rt, nc * sizeof(float), &dc)) != CUTEC_OK ||
        (st = cutec_memcpy_htod(rt, da, ha, na * elem_size(ta))) != CUTEC_OK ||
        (st = cutec_memcpy_htod(rt, db, hb, nb * elem_size(tb))) != CUTEC_OK ||
        (st = cutec_memcpy_htod(rt, dc, hc, nc * sizeof(float))) != CUTEC_OK)
        goto fail;
    void *args[3] = {&da, &db, &dc};
    unsigned grid[3] = {1, 1, 1}, block[3] = {128, 1, 1};
    what = "launch";
    if ((st = cutec_launch(kern, grid, block, m->smem_dynamic, NULL, args)) != CUTEC_OK) goto fail;
    what = "synchronize";
    if ((st = cutec_synchronize(rt)) != CUTEC_OK) goto fail;
    what = "copy back";
    if ((st = cutec_memcpy_dtoh(rt, hc, dc, nc * sizeof(float))) != CUTEC_OK) goto fail;

    /* float64 reference and the accumulation bound */
    double worst_f32 = 0, worst_coarse = 0, max_err = 0;
    long wi = -1, wj = -1, nbad = 0;
    const double u32 = ldexp(1.0, -23), ucoarse = ldexp(1.0, -13), eta = ldexp(1.0, -149);
    for (long i = 0; i < 64; i++)
        for (long j = 0; j < n; j++) {
            double ref = 0, sabs = 0;
            for (long p = 0; p < k; p++) {
                double x = av[i * k + p] * bv[j * k + p];
                ref += x;
                sabs += fabs(x);
            }
            double c = hc[i * n + j], e = fabs(c - ref);
            double r32 = e / ((double)k * u32 * sabs + eta), rco = e / ((double)k * ucoarse * sabs + eta);
            if (!isfinite(c)) r32 = rco = INFINITY;
            if (rco > 1) {
                if (nbad++ == 0) {
                    wi = i;
                    wj = j;
                    printf("  %s: C(%ld, %ld) = %.9g, reference %.9g\n", base_name(path), i, j, c, ref);
                }
            }
            if (r32 > worst_f32) worst_f32 = r32;
            if (rco > worst_coarse) worst_coarse = rco;
            if (e > max_err || !isfinite(c)) max_err = isfinite(c) ? e : INFINITY;
        }
    int fp8 = elem_is_fp8(ta) || elem_is_fp8(tb);
    int pass = worst_f32 <= 1 || (fp8 && nbad == 0);
    printf("%s %s [%s]: max |err| %.3g, max err/f32-bound %.3g%s", pass ? "PASS" : "FAIL", base_name(path), desc,
           max_err, worst_f32, pass && worst_f32 > 1 ? " (coarse accumulation, within 2^-13)" : "");
    if (!pass) printf(", %ld elements off, first (%ld, %ld)", nbad ? nbad : (long)nc, wi, wj);
    printf("\n");
    rc = pass ? 0 : 1;
    goto out;
fail:
    printf("FAIL %s [%s]: %s: %s: %s\n", base_name(path), desc, what, cutec_status_string(st),
           cutec_runtime_message(rt));
    rc = 1;
out:
    if (rt) {
        cutec_free(rt, da);
        cutec_free(rt, db);
        cutec_free(rt, dc);
    }
    cutec_runtime_destroy(rt);
    free(ha), free(hb), free(av), free(bv), free(hc), free(metas);
    return rc;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int first = 1;
    if (argc == 2 && strcmp(argv[1], "--self-test") == 0) return self_test();
    if (argc >= 3 && strcmp(argv[1], "--seed") == 0) {
        seed = strtoull(argv[2], NULL, 0);
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: wgmma_forms [--seed N] FILE.ptx...\n       wgmma_forms --self-test\n");
        return 2;
    }
    int fails = 0, skips = 0;
    for (int i = first; i < argc; i++) {
        int rc = run_file(argv[i], seed);
        if (rc == SKIP)
            skips++;
        else if (rc)
            fails++;
    }
    if (fails) return 1;
    return skips ? SKIP : 0;
}
