/*
 * grouped_list.c - GPU check of the general grouped GEMM (the sm90
 * template's GRP = 2: role group_list, docs/contract.md): every kernel point
 * of the PTX files that has the role runs lists of problems, each with its
 * own sizes, leading dimensions and matrices, in one launch, and each
 * problem's D is checked against a float64 reference of its own A and B.
 *
 * The lists hold ragged problems (M, N and K not multiples of the tiles,
 * rows padded past K and N), a problem with no rows, one with no columns,
 * one with K = 0 (D must become zeros), problems of one row and of one
 * tile, and one whose A is not 16-byte aligned (the kernel skips it: its D
 * must keep its poison); D is NaN-poisoned with guard columns past N (and
 * rows past M) that must stay so.  Three lists: 7 problems, the same
 * backwards (another walk over the blocks' map slots), and 40 small ones
 * (blocks re-patch their maps many times).
 *
 * Usage: grouped_list FILE.ptx...  Exit status: 0 passed, 1 failed, 2 usage
 * or no point with the role, 77 no GPU.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/runtime.h"
#include "gemm_common.h"

#define SKIP   77
#define MAXG   40
#define PAD_K  24 /* elements of row padding past K in A and B */
#define PAD_N  16 /* columns of guard past N in D */
#define PAD_M  3  /* rows of guard past M in D */
#define POISON 0xFFFF

typedef struct prob {
    long m, n, k, lda, ldb, ldd;
    int skew;                      /* A one element off its 16-byte alignment: the kernel skips it */
    uint16_t *a, *b, *d;           /* host: A (m x lda), B (n x ldb), D as read back ((m + PAD_M) x ldd) */
    double *ra, *rb;               /* A's and B's values */
    unsigned long long da, db, dd; /* device */
} prob;

/* The problems of list `which` (their sizes; 0 on success) */
static int list_make(int which, prob *p, int *count)
{
    static const long base[7][3] = {{130, 264, 200}, {1, 8, 16},  {0, 64, 64},    {257, 72, 88},
                                    {64, 128, 0},    {45, 0, 32}, {300, 520, 136}};
    int g = 0;
    if (which < 2) {
        for (int i = 0; i < 7; i++) {
            int j = which == 0 ? i : 6 - i;
            p[g] = (prob){.m = base[j][0], .n = base[j][1], .k = base[j][2]};
            g++;
        }
        p[which == 0 ? 3 : 2].skew = 1; /* the 257-row problem's A */
    } else {
        for (int i = 0; i < MAXG; i++) {
            p[g] = (prob){.m = 1 + (i * 37) % 150, .n = 8 * (1 + (i * 11) % 40), .k = 16 * (1 + (i * 5) % 12)};
            g++;
        }
    }
    for (int i = 0; i < g; i++) {
        p[i].lda = p[i].k + PAD_K, p[i].ldb = p[i].k + PAD_K, p[i].ldd = p[i].n + PAD_N;
    }
    *count = g;
    return 0;
}

static void prob_free(prob *p)
{
    free(p->a), free(p->b), free(p->d), free(p->ra), free(p->rb);
    p->a = p->b = p->d = NULL;
    p->ra = p->rb = NULL;
}

/* D of problem q as read back against its float64 reference: 0 when every
 * element inside (m x n) is within the bound, every guard still poison; a
 * skipped problem's D all poison */
static int prob_check(const prob *q, gemm_type tc, char *why, size_t wl)
{
    for (long i = 0; i < q->m + PAD_M; i++)
        for (long j = 0; j < q->ldd; j++) {
            uint16_t got = q->d[i * q->ldd + j];
            int inside = i < q->m && j < q->n && !q->skew;
            if (!inside) {
                if (got != POISON) {
                    snprintf(why, wl, "element (%ld, %ld) outside D%s was written (0x%04x)", i, j,
                             q->skew ? " (a skipped problem)" : "", got);
                    return -1;
                }
                continue;
            }
            double ref = 0, mag = 0;
            for (long l = 0; l < q->k; l++) {
                double t = q->ra[i * q->lda + l] * q->rb[j * q->ldb + l];
                ref += t, mag += fabs(t);
            }
            double v = tc == GT_BF16 ? gemm_bf16_to_f32(got) : gemm_f16_to_f32(got);
            /* the output's rounding (2^-8 for bf16) and f32 sums */
            double bound = (tc == GT_BF16 ? 0x1p-8 : 0x1p-11) * fabs(ref) + 0x1p-16 * mag + 1e-30;
            if (!(fabs(v - ref) <= bound)) {
                snprintf(why, wl, "D(%ld, %ld) = %.6g, want %.6g (bound %.3g)", i, j, v, ref, bound);
                return -1;
            }
        }
    return 0;
}

/* One list on one point: 1 passed, 0 failed, -1 runtime error (message printed) */
static int run_list(cutec_runtime *rt, cutec_kernel *k, const gemm_point *gp, int which, uint64_t seed)
{
    prob p[MAXG];
    int G = 0, rc = -1;
    list_make(which, p, &G);
    size_t ta = gemm_type_size(gp->t), tcs = gemm_type_size(gp->tc);
    int64_t *list = calloc((size_t)G * 16, sizeof *list);
    unsigned long long dlist = 0, dws = 0, dummy = 0;
    long mm = 1, mn = 8, mk = 16;
    cutec_status st = CUTEC_OK;
    gemm_rng rng;
    gemm_rng_seed(&rng, seed);
    if (list == NULL) goto oom;
    for (int g = 0; g < G; g++) {
        prob *q = &p[g];
        size_t na = (size_t)(q->m * q->lda) + 8, nb = (size_t)(q->n * q->ldb) + 8;
        size_t nd = (size_t)((q->m + PAD_M) * q->ldd) + 8;
        q->a = calloc(na, 2), q->b = calloc(nb, 2), q->d = malloc(nd * 2);
        q->ra = calloc(na, sizeof(double)), q->rb = calloc(nb, sizeof(double));
        if (!q->a || !q->b || !q->d || !q->ra || !q->rb) goto oom;
        gemm_fill_random(&rng, gp->t, q->a, q->ra, na);
        gemm_fill_random(&rng, gp->t, q->b, q->rb, nb);
        for (size_t i = 0; i < nd; i++) q->d[i] = POISON;
        mm = q->m > mm ? q->m : mm, mn = q->n > mn ? q->n : mn, mk = q->k > mk ? q->k : mk;
        if ((st = cutec_malloc(rt, na * ta + 16, &q->da)) != CUTEC_OK ||
            (st = cutec_malloc(rt, nb * ta + 16, &q->db)) != CUTEC_OK ||
            (st = cutec_malloc(rt, nd * tcs, &q->dd)) != CUTEC_OK ||
            (st = cutec_memcpy_htod(rt, q->da + (q->skew ? 2 : 0), q->a, na * ta)) != CUTEC_OK ||
            (st = cutec_memcpy_htod(rt, q->db, q->b, nb * ta)) != CUTEC_OK ||
            (st = cutec_memcpy_htod(rt, q->dd, q->d, nd * tcs)) != CUTEC_OK)
            goto fail;
        int64_t *row = list + 16 * g;
        row[0] = q->m, row[1] = q->n, row[2] = q->k, row[3] = q->lda, row[4] = q->ldb, row[5] = q->ldd;
        row[6] = (int64_t)(q->da + (q->skew ? 2 : 0)), row[7] = (int64_t)q->db, row[8] = (int64_t)q->dd;
    }
    if ((st = cutec_malloc(rt, (size_t)G * 128, &dlist)) != CUTEC_OK ||
        (st = cutec_memcpy_htod(rt, dlist, list, (size_t)G * 128)) != CUTEC_OK)
        goto fail;
    /* the launch's maps: over a dummy buffer with the largest sizes (the
     * kernel patches them before any use) */
    mk = (mk + 7) / 8 * 8, mn = (mn + 7) / 8 * 8;
    if ((st = cutec_malloc(rt, 4096, &dummy)) != CUTEC_OK) goto fail;
    gemm_args ga = {.m = (int)mm,
                    .n = (int)mn,
                    .k = (int)mk,
                    .lda = (int)mk,
                    .ldb = (int)mk,
                    .ldd = (int)mn,
                    .batch = G,
                    .a = dummy,
                    .b = dummy,
                    .c = dummy,
                    .list = dlist};
    ga.stride_a = (long long)mm * mk, ga.stride_b = (long long)mn * mk, ga.stride_d = (long long)mm * mn;
    char err[256];
    long long wsb = gemm_scratch_bytes(&gp->meta, &ga, CUTEC_ROLE_WORKSPACE, err, sizeof err);
    if (wsb <= 0) {
        printf("FAIL %s: the workspace (map slots): %s\n", gp->desc, wsb < 0 ? err : "none");
        rc = 0;
        goto out;
    }
    if ((st = cutec_malloc(rt, (size_t)wsb, &dws)) != CUTEC_OK) goto fail;
    ga.ws = dws;
    unsigned grid[3];
    if (gemm_build_args(rt, &gp->meta, &ga, err, sizeof err) != 0 ||
        gemm_grid(gp, mm, mn, mk, G, gemm_resident(k, gp), grid, err, sizeof err) != 0) {
        printf("FAIL %s: %s\n", gp->desc, err);
        rc = 0;
        goto out;
    }
    if ((st = cutec_launch_cluster(k, grid, gp->meta.threads, gp->meta.cluster, gp->meta.smem_dynamic, NULL,
                                   ga.args)) != CUTEC_OK ||
        (st = cutec_synchronize(rt)) != CUTEC_OK)
        goto fail;
    rc = 1;
    for (int g = 0; g < G && rc == 1; g++) {
        prob *q = &p[g];
        size_t nd = (size_t)((q->m + PAD_M) * q->ldd);
        char why[200];
        if ((st = cutec_memcpy_dtoh(rt, q->d, q->dd, nd * tcs)) != CUTEC_OK) goto fail;
        if (prob_check(q, gp->tc, why, sizeof why) != 0) {
            printf("FAIL %s, list %d (%d problems): problem %d (%ld x %ld x %ld): %s\n", gp->desc, which, G, g, q->m,
                   q->n, q->k, why);
            rc = 0;
        }
    }
    if (rc == 1) printf("PASS %s, list %d: %d problems, each D against float64\n", gp->desc, which, G);
    goto out;
oom:
    printf("FAIL %s: host out of memory\n", gp->desc);
    rc = 0;
    goto out;
fail:
    printf("FAIL %s, list %d: %s: %s\n", gp->desc, which, cutec_status_string(st), cutec_runtime_message(rt));
    rc = -1;
out:
    for (int g = 0; g < G; g++) {
        cutec_free(rt, p[g].da), cutec_free(rt, p[g].db), cutec_free(rt, p[g].dd);
        prob_free(&p[g]);
    }
    cutec_free(rt, dlist), cutec_free(rt, dws), cutec_free(rt, dummy);
    free(list);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: grouped_list FILE.ptx...\n");
        return 2;
    }
    cutec_runtime *rt = NULL;
    cutec_status st = cutec_runtime_create(&rt, 0);
    if (st == CUTEC_ERR_NO_DRIVER || st == CUTEC_ERR_NO_DEVICE) {
        printf("SKIP grouped_list: no GPU (%s)\n", cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        return SKIP;
    }
    if (st != CUTEC_OK) {
        printf("FAIL grouped_list: %s\n", cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        return 1;
    }
    int points = 0, failed = 0, cases = 0, passed = 0;
    for (int f = 1; f < argc; f++) {
        size_t len = 0;
        char *text = gemm_read_file(argv[f], &len), err[256];
        gemm_kernel_meta *meta = NULL;
        int n = 0;
        cutec_module *mod = NULL;
        if (text == NULL || gemm_parse_meta(text, len, &meta, &n, err, sizeof err) != 0) {
            printf("FAIL %s: %s\n", argv[f], text ? err : "cannot read it");
            failed++;
            free(text);
            continue;
        }
        if ((st = cutec_module_load_data(rt, text, len + 1, &mod)) != CUTEC_OK) {
            printf("FAIL %s: %s\n", argv[f], cutec_runtime_message(rt));
            failed++;
        }
        for (int i = 0; i < n && mod; i++) {
            gemm_point gp;
            cutec_kernel *k = NULL;
            if (gemm_point_from_meta(&meta[i], &gp, err, sizeof err) != 0 || !gemm_point_listed(&gp)) continue;
            points++;
            if (cutec_module_get_kernel(mod, gp.meta.kernel, &k) != CUTEC_OK) {
                printf("FAIL %s: %s\n", gp.desc, cutec_runtime_message(rt));
                failed++;
                continue;
            }
            for (int which = 0; which < 3; which++) {
                int r = run_list(rt, k, &gp, which, 0x5eed + (uint64_t)which);
                cases++;
                passed += r == 1;
                failed += r != 1;
                if (r < 0) break; /* a fault leaves the context unusable */
            }
        }
        cutec_module_unload(mod);
        free(meta);
        free(text);
    }
    cutec_runtime_destroy(rt);
    if (points == 0) {
        printf("FAIL grouped_list: no kernel with the group_list role in the files\n");
        return 2;
    }
    printf("grouped_list: %d/%d cases passed over %d points\n", passed, cases, points);
    return failed ? 1 : 0;
}
