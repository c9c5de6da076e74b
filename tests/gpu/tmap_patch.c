/*
 * tmap_patch.c - GPU proof of tensor maps patched on the device
 * (tests/gpu/kernels/tmap_patch.cute, compiled by scripts/gpu-prepare.sh
 * into prebuilt/tmap_patch.ptx; the builtins: compiler/eval_tmap.c): each
 * block copies a template map (over an unrelated 64 x 64 matrix filled with
 * a marker value) into its global slot, then job after job replaces the
 * slot's address, extents and row stride with the job's matrix and
 * TMA-loads a 64 x 64 tile through it.  24 matrices of ragged sizes (1 to
 * 300 rows, 1 to 200 columns, leading dimensions of 8 to 320 elements,
 * tile corners inside, at and past the edges, columns a multiple of 8), each element a distinct
 * small integer (exact in bf16), checked exactly: the matrix's element
 * where the tile lies inside it, zero outside (the replaced extents), never
 * the marker (the replaced address).  Three block counts: one block reusing
 * its slot for all 24 jobs, 5 blocks, 24 blocks (one job each).  MODE (the
 * kernel's template parameter, given again here): 0 patches the global
 * slot, 1 a shared copy published to it, 2 replaces nothing (each job then
 * reads the template's matrix: the copy and the fences alone).
 *
 * Usage: tmap_patch FILE.ptx MODE.  Exit status: 0 passed, 1 failed, 2 usage,
 * 77 no GPU (no driver or no device).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/runtime.h"
#include "cutec/tensor_map.h"

#define SKIP   77
#define NJ     24
#define MARKER 0xC2F6 /* bf16 -123.0 */

typedef struct Job {
    long long rows, cols, ld, r0, c0, off; /* off: first element in the matrix buffer */
} Job;

/* bf16 of a small integer 1..255, exact */
static uint16_t bf16_of(unsigned v)
{
    int e = 0;
    while ((v >> e) > 1) e++;
    unsigned mant = (v << (7 - e)) & 0x7fu;
    return (uint16_t)(((unsigned)(e + 127) << 7) | mant);
}

static uint16_t value(int j, long long r, long long c)
{
    return bf16_of((unsigned)((j * 31 + r * 7 + c * 13) % 255 + 1));
}

int main(int argc, char **argv)
{
    if (argc != 3 || (argv[2][0] < '0' || argv[2][0] > '2') || argv[2][1]) {
        fprintf(stderr, "usage: tmap_patch FILE.ptx MODE (0, 1 or 2)\n");
        return 2;
    }
    int mode = argv[2][0] - '0';
    cutec_runtime *rt = NULL;
    cutec_module *mod = NULL;
    cutec_kernel *k = NULL;
    unsigned long long dm = 0, dx = 0, dj = 0, ds = 0, dout = 0;
    Job jobs[NJ];
    long long total = 0;
    srand(7);
    for (int j = 0; j < NJ; j++) {
        Job *q = &jobs[j];
        q->rows = j == 0 ? 1 : 1 + rand() % 300;
        q->cols = j == 1 ? 1 : 1 + rand() % 200;
        q->ld = (q->cols + 7) / 8 * 8 + 8 * (rand() % 16); /* 16-byte rows, TMA's rule */
        /* corners: the origin, inside, straddling the bottom-right edge, past it */
        int kind = j % 4;
        q->r0 = kind == 0 ? 0 : kind == 1 ? rand() % q->rows : kind == 2 ? q->rows - 1 - rand() % 8 : q->rows + 3;
        q->c0 = kind == 0 ? 0 : kind == 1 ? rand() % q->cols : kind == 2 ? q->cols - 1 - rand() % 8 : rand() % q->cols;
        if (q->r0 < 0) q->r0 = 0;
        /* a box starts on a 16-byte boundary along the contiguous dimension
         * (8 bf16): another start faults the TMA (an illegal instruction) */
        q->c0 = q->c0 < 0 ? 0 : q->c0 / 8 * 8;
        q->off = total;
        total += q->rows * q->ld + 64; /* a gap of poison after each matrix */
    }
    uint16_t *mat = malloc((size_t)total * 2), *out = malloc((size_t)NJ * 4096 * 2), marker[4096];
    long long desc[NJ * 6];
    int rc = 1;
    const char *what = "host memory";
    cutec_status st = CUTEC_OK;
    if (!mat || !out) goto fail_msg;
    for (long long i = 0; i < total; i++) mat[i] = 0xFFFF; /* NaN: poison where no matrix lies */
    for (int j = 0; j < NJ; j++)
        for (long long r = 0; r < jobs[j].rows; r++)
            for (long long c = 0; c < jobs[j].cols; c++) mat[jobs[j].off + r * jobs[j].ld + c] = value(j, r, c);
    for (int i = 0; i < 4096; i++) marker[i] = MARKER;

    what = "cutec_runtime_create";
    st = cutec_runtime_create(&rt, 0);
    if (st == CUTEC_ERR_NO_DRIVER || st == CUTEC_ERR_NO_DEVICE) {
        printf("SKIP tmap_patch: no GPU (%s)\n", cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        free(mat);
        free(out);
        return SKIP;
    }
    if (st != CUTEC_OK) goto fail;
    what = "module";
    if ((st = cutec_module_load_file(rt, argv[1], &mod)) != CUTEC_OK ||
        (st = cutec_module_get_kernel(mod, "tmap_patch", &k)) != CUTEC_OK)
        goto fail;
    what = "device memory";
    if ((st = cutec_malloc(rt, (size_t)total * 2, &dm)) != CUTEC_OK || (st = cutec_malloc(rt, 8192, &dx)) != CUTEC_OK ||
        (st = cutec_malloc(rt, sizeof desc, &dj)) != CUTEC_OK || (st = cutec_malloc(rt, 128 * NJ, &ds)) != CUTEC_OK ||
        (st = cutec_malloc(rt, (size_t)NJ * 4096 * 2, &dout)) != CUTEC_OK)
        goto fail;
    for (int j = 0; j < NJ; j++) {
        long long *d = desc + 6 * j;
        d[0] = (long long)(dm + 2 * (unsigned long long)jobs[j].off);
        d[1] = jobs[j].rows, d[2] = jobs[j].cols, d[3] = jobs[j].ld, d[4] = jobs[j].r0, d[5] = jobs[j].c0;
    }
    if ((st = cutec_memcpy_htod(rt, dm, mat, (size_t)total * 2)) != CUTEC_OK ||
        (st = cutec_memcpy_htod(rt, dx, marker, sizeof marker)) != CUTEC_OK ||
        (st = cutec_memcpy_htod(rt, dj, desc, sizeof desc)) != CUTEC_OK)
        goto fail;
    cutec_tensor_map map;
    what = "tensor map";
    if ((st = cutec_tensor_map_2d(rt, &map, "bf16", dx, 64, 64, 128, 64, 64, 128)) != CUTEC_OK) goto fail;
    static const int blocks[3] = {1, 5, NJ};
    for (int run = 0; run < 3; run++) {
        int nj = NJ, nb = blocks[run];
        what = "poison";
        for (int i = 0; i < NJ * 4096; i++) out[i] = 0xFFFF;
        if ((st = cutec_memcpy_htod(rt, dout, out, (size_t)NJ * 4096 * 2)) != CUTEC_OK) goto fail;
        void *args[7] = {&nj, &nb, &dx, &map, &dj, &ds, &dout};
        unsigned grid[3] = {(unsigned)nb, 1, 1}, block[3] = {128, 1, 1};
        what = "launch";
        if ((st = cutec_launch(k, grid, block, 0, NULL, args)) != CUTEC_OK || (st = cutec_synchronize(rt)) != CUTEC_OK)
            goto fail;
        what = "copy back";
        if ((st = cutec_memcpy_dtoh(rt, out, dout, (size_t)NJ * 4096 * 2)) != CUTEC_OK) goto fail;
        long long inside = 0;
        for (int j = 0; j < NJ; j++) {
            const Job *q = &jobs[j];
            for (int r = 0; r < 64; r++)
                for (int c = 0; c < 64; c++) {
                    long long gr = q->r0 + r, gc = q->c0 + c;
                    /* MODE 2: the template's 64 x 64 matrix of markers */
                    int in = mode == 2 ? gr < 64 && gc < 64 : gr < q->rows && gc < q->cols;
                    uint16_t want = !in ? 0 : mode == 2 ? MARKER : value(j, gr, gc), got = out[j * 4096 + r * 64 + c];
                    inside += in;
                    if (got != want) {
                        printf("FAIL tmap_patch mode %d, %d blocks: job %d (%lld x %lld, ld %lld, tile at %lld, %lld): "
                               "element (%d, %d) is 0x%04x, want 0x%04x%s\n",
                               mode, nb, j, q->rows, q->cols, q->ld, q->r0, q->c0, r, c, got, want,
                               got == MARKER && mode < 2 ? " (the template's matrix: the address was not replaced)"
                                                         : "");
                        goto out;
                    }
                }
        }
        printf("PASS tmap_patch mode %d with %d blocks: %d jobs through %s, %lld elements inside their matrices and "
               "%lld zero-filled outside\n",
               mode, nb, NJ, mode == 2 ? "copies of the template" : "patched maps", inside,
               (long long)NJ * 4096 - inside);
    }
    rc = 0;
    goto out;
fail_msg:
    printf("FAIL tmap_patch: %s\n", what);
    goto out;
fail:
    printf("FAIL tmap_patch mode %d: %s: %s: %s\n", mode, what, cutec_status_string(st), cutec_runtime_message(rt));
out:
    if (rt) {
        cutec_free(rt, dm);
        cutec_free(rt, dx);
        cutec_free(rt, dj);
        cutec_free(rt, ds);
        cutec_free(rt, dout);
    }
    cutec_runtime_destroy(rt);
    free(mat);
    free(out);
    return rc;
}
