/*
 * handoff.c - GPU check of atomic_add, fence_gpu and the predicated
 * load_vector (tests/gpu/kernels/handoff.cute, compiled by
 * scripts/gpu-prepare.sh into prebuilt/handoff.ptx): NB blocks store partial
 * vectors, count themselves on a global counter between fences, and the last
 * to arrive sums every block's vectors.  Checked exactly (every value is an
 * integer below 2^24): the last block's sums, zeros from the predicated loads
 * of every other block, exactly one last block, the f32 atomic's count, and
 * the counter back at zero for the next launch.  Run three times with
 * different block counts, the workspace poisoned in between, so a stale or
 * early read shows.
 *
 * Usage: handoff FILE.ptx.  Exit status: 0 passed, 1 failed, 2 usage, 77 no
 * GPU (no driver or no device).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cutec/runtime.h"

#define SKIP 77

static int check(const float *s, const float *p, const float *g, int f0, int nb, char *why, size_t wl)
{
    int lasts = 0;
    for (int b = 0; b < nb; b++) {
        if (p[b] != 0.0f) lasts++;
    }
    if (lasts != 1) {
        snprintf(why, wl, "%d blocks saw themselves last (want 1)", lasts);
        return 0;
    }
    for (int t = 0; t < 128; t++) {
        double sum = 0;
        for (int b = 0; b < nb; b++) sum += b * 128 + t + 1;
        for (int i = 0; i < 4; i++) {
            if (s[4 * t + i] != (float)((i + 1) * sum)) {
                snprintf(why, wl, "S(%d) = %.9g, want %.9g", 4 * t + i, s[4 * t + i], (i + 1) * sum);
                return 0;
            }
        }
    }
    for (int b = 0; b < nb; b++) {
        double sum = 0;
        for (int c = 0; c < nb; c++) sum += c * 128 + 1;
        if (p[b] != 0.0f && p[b] != (float)sum) {
            snprintf(why, wl, "P(%d) = %.9g, want 0 or %.9g", b, p[b], sum);
            return 0;
        }
    }
    if (g[0] != (float)nb || g[1] != 0.0f || g[2] != 0.0f) {
        snprintf(why, wl, "G = %g %g %g, want %d 0 0", g[0], g[1], g[2], nb);
        return 0;
    }
    if (f0 != 0) {
        snprintf(why, wl, "the counter is %d after the launch, want 0", f0);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: handoff FILE.ptx\n");
        return 2;
    }
    cutec_runtime *rt = NULL;
    cutec_module *mod = NULL;
    cutec_kernel *k = NULL;
    unsigned long long dw = 0, df = 0, ds = 0, dp = 0, dg = 0;
    static float poison[65536], s[512], p[128], g[4];
    int rc = 1, f0 = -1;
    const char *what = "cutec_runtime_create";
    cutec_status st = cutec_runtime_create(&rt, 0);
    if (st == CUTEC_ERR_NO_DRIVER || st == CUTEC_ERR_NO_DEVICE) {
        printf("SKIP handoff: no GPU (%s)\n", cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        return SKIP;
    }
    if (st != CUTEC_OK) goto fail;
    what = "module";
    if ((st = cutec_module_load_file(rt, argv[1], &mod)) != CUTEC_OK ||
        (st = cutec_module_get_kernel(mod, "handoff", &k)) != CUTEC_OK)
        goto fail;
    what = "device memory";
    if ((st = cutec_malloc(rt, sizeof poison, &dw)) != CUTEC_OK || (st = cutec_malloc(rt, 16, &df)) != CUTEC_OK ||
        (st = cutec_malloc(rt, sizeof s, &ds)) != CUTEC_OK || (st = cutec_malloc(rt, sizeof p, &dp)) != CUTEC_OK ||
        (st = cutec_malloc(rt, sizeof g, &dg)) != CUTEC_OK)
        goto fail;
    int zero[4] = {0, 0, 0, 0};
    if ((st = cutec_memcpy_htod(rt, df, zero, sizeof zero)) != CUTEC_OK) goto fail;
    static const int counts[3] = {128, 7, 100};
    for (int r = 0; r < 3; r++) {
        int nb = counts[r];
        /* NaN everywhere the kernel writes or reads, but the counter */
        memset(poison, 0xFF, sizeof poison);
        what = "poison";
        if ((st = cutec_memcpy_htod(rt, dw, poison, sizeof poison)) != CUTEC_OK ||
            (st = cutec_memcpy_htod(rt, ds, poison, sizeof s)) != CUTEC_OK ||
            (st = cutec_memcpy_htod(rt, dp, poison, sizeof p)) != CUTEC_OK ||
            (st = cutec_memcpy_htod(rt, dg, zero, sizeof g)) != CUTEC_OK)
            goto fail;
        void *args[6] = {&nb, &dw, &df, &ds, &dp, &dg};
        unsigned grid[3] = {(unsigned)nb, 1, 1}, block[3] = {128, 1, 1};
        what = "launch";
        if ((st = cutec_launch(k, grid, block, 0, NULL, args)) != CUTEC_OK || (st = cutec_synchronize(rt)) != CUTEC_OK)
            goto fail;
        what = "copy back";
        if ((st = cutec_memcpy_dtoh(rt, s, ds, sizeof s)) != CUTEC_OK ||
            (st = cutec_memcpy_dtoh(rt, p, dp, sizeof p)) != CUTEC_OK ||
            (st = cutec_memcpy_dtoh(rt, g, dg, sizeof g)) != CUTEC_OK ||
            (st = cutec_memcpy_dtoh(rt, &f0, df, sizeof f0)) != CUTEC_OK)
            goto fail;
        char why[160];
        if (!check(s, p, g, f0, nb, why, sizeof why)) {
            printf("FAIL handoff with %d blocks: %s\n", nb, why);
            goto out;
        }
        printf("PASS handoff with %d blocks: the last block summed all %d, the others read zeros\n", nb, nb);
    }
    rc = 0;
    goto out;
fail:
    printf("FAIL handoff: %s: %s: %s\n", what, cutec_status_string(st), cutec_runtime_message(rt));
out:
    if (rt) {
        cutec_free(rt, dw);
        cutec_free(rt, df);
        cutec_free(rt, ds);
        cutec_free(rt, dp);
        cutec_free(rt, dg);
    }
    cutec_runtime_destroy(rt);
    return rc;
}
