/*
 * tune_list.c - the tuner's harness for a list of problems (the general
 * grouped GEMM, args' group_list; docs/runtime.md, "Grouped GEMM").  The
 * candidates run on a copy of the caller's list whose D addresses point
 * into one scratch buffer, NaN-filled before each run like a plain
 * problem's scratch C, so that a candidate that writes nothing or the
 * wrong problem fails its check and the caller's outputs stay untouched
 * until the winner runs.  Each candidate is checked against float64 dot
 * products of sampled elements of every problem's D, each from its own A
 * and B: only the sampled rows of A and B are copied from the device.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_harness.h"

enum { L_M, L_N, L_K, L_LDA, L_LDB, L_LDD, L_A, L_B, L_D };

/* Problem row's size i clamped to 0 .. 2^31 - 1, as the kernel reads it */
static long long list_dim(const long long *row, int i)
{
    return row[i] < 0 ? 0 : row[i] > 0x7fffffffLL ? 0x7fffffffLL : row[i];
}

/* Whether the kernel computes a problem (the sm90 template's list_walk):
 * rows and columns to write, addresses and leading dimensions TMA can
 * read (16-byte aligned, whole 16-byte rows).  Skipped problems keep
 * their D, so the check samples none of them. */
static int list_served(const long long *row, size_t eab, size_t ec)
{
    long long va = (long long)(16 / eab), vc = (long long)(16 / ec);
    for (int i = L_A; i <= L_D; i++)
        if ((unsigned long long)row[i] % 16 != 0) return 0;
    return list_dim(row, L_M) > 0 && list_dim(row, L_N) > 0 && row[L_LDA] > 0 && row[L_LDB] > 0 && row[L_LDD] > 0 &&
           row[L_LDA] % va == 0 && row[L_LDB] % va == 0 && row[L_LDD] % vc == 0;
}

/* One sample: row r of A and row c of B (K contiguous elements each) from
 * the device, their float64 dot product. */
static cutec_status list_dot(harness *h, const long long *row, long long r, long long c, unsigned char *va,
                             unsigned char *vb, double *dot, double *mag)
{
    const cutec_gemm_problem *p = h->p;
    size_t ea = cutec_dtype_size(p->a_type), eb = cutec_dtype_size(p->b_type);
    long long k = list_dim(row, L_K);
    *dot = *mag = 0;
    if (k == 0) return CUTEC_OK; /* D = zeros */
    cutec_status s =
        cutec_memcpy_dtoh(h->rt, va, (unsigned long long)row[L_A] + (size_t)(r * row[L_LDA]) * ea, (size_t)k * ea);
    if (s == CUTEC_OK)
        s = cutec_memcpy_dtoh(h->rt, vb, (unsigned long long)row[L_B] + (size_t)(c * row[L_LDB]) * eb, (size_t)k * eb);
    for (long long q = 0; q < k && s == CUTEC_OK; q++) {
        double x = cutec_dtype_load((cutec_ct)p->a_type, va + (size_t)q * ea);
        double y = cutec_dtype_load((cutec_ct)p->b_type, vb + (size_t)q * eb);
        *dot += x * y;
        *mag += fabs(x * y);
    }
    return s;
}

/* 256 samples over the served problems in turn (each one's corners
 * first, then random elements), each with its problem's offset in the
 * scratch C and leading dimension. */
static cutec_status list_samples(harness *h, const size_t *off)
{
    const cutec_gemm_problem *p = h->p;
    size_t ea = cutec_dtype_size(p->a_type), eb = cutec_dtype_size(p->b_type);
    long long *live = malloc(sizeof *live * (size_t)p->groups), nlive = 0, kmax = 0;
    h->samp = calloc(256, sizeof *h->samp);
    if (live == NULL || h->samp == NULL) {
        free(live);
        return cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (float64 samples)");
    }
    for (long long q = 0; q < p->groups; q++) {
        const long long *row = h->hlist + q * CUTEC_GEMM_LIST_ROW;
        if (!list_served(row, ea, cutec_dtype_size(p->c_type))) continue;
        live[nlive++] = q;
        if (list_dim(row, L_K) > kmax) kmax = list_dim(row, L_K);
    }
    unsigned char *va = malloc((size_t)(kmax > 0 ? kmax : 1) * ea), *vb = malloc((size_t)(kmax > 0 ? kmax : 1) * eb);
    cutec_status s = va != NULL && vb != NULL
                         ? CUTEC_OK
                         : cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (samples)");
    uint64_t rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(p->groups * 31 + p->m * 17 + p->k);
    for (int t = 0; t < 256 && nlive > 0 && s == CUTEC_OK; t++) {
        long long q = live[t % nlive], v = t / nlive;
        const long long *row = h->hlist + q * CUTEC_GEMM_LIST_ROW;
        long long m = list_dim(row, L_M), n = list_dim(row, L_N);
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        long long r = v == 0 ? 0 : v == 1 ? m - 1 : (long long)((rng >> 20) % (uint64_t)m);
        long long c = v == 0 ? 0 : v == 1 ? n - 1 : (long long)((rng >> 40) % (uint64_t)n);
        double dot, mag;
        s = list_dot(h, row, r, c, va, vb, &dot, &mag);
        h->samp[h->nsamp++] =
            (tune_sample){.r = r, .c = c, .od = off[q], .want = dot, .mag = mag, .q = q, .ld = row[L_LDD]};
    }
    free(live), free(va), free(vb);
    h->samples_ready = s == CUTEC_OK;
    return s;
}

cutec_status tune_list_init(harness *h)
{
    cutec_runtime *rt = h->rt;
    const cutec_gemm_problem *p = h->p;
    size_t ec = cutec_dtype_size(p->c_type), rows = (size_t)p->groups * CUTEC_GEMM_LIST_ROW;
    h->hlist = malloc(sizeof *h->hlist * rows);
    size_t *off = malloc(sizeof *off * (size_t)p->groups);
    if (h->hlist == NULL || off == NULL) {
        free(off);
        return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (the list's %lld rows)",
                             p->groups);
    }
    /* the caller's rows (tuning synchronises anyway) */
    cutec_status s =
        cutec_memcpy_dtoh(rt, h->hlist, (unsigned long long)(uintptr_t)h->io.group_list, sizeof *h->hlist * rows);
    /* each served problem's D in the scratch C: m rows of ldd, 16-byte
     * aligned (whole 16-byte rows); the others keep the caller's address,
     * which the kernel never writes */
    double total = 0;
    for (long long q = 0; q < p->groups && s == CUTEC_OK; q++) {
        const long long *row = h->hlist + q * CUTEC_GEMM_LIST_ROW;
        off[q] = (size_t)(total / (double)ec);
        if (!list_served(row, cutec_dtype_size(p->a_type), ec)) continue;
        if (row[L_M] > p->m || row[L_N] > p->n || row[L_K] > p->k)
            cutec_rt_log(rt, CUTEC_LOG_WARNING,
                         "tuning: problem %lld of the list is %lld x %lld x %lld, past the problem's bounds %lld x "
                         "%lld x %lld (the class and the launch's maps use the bounds)",
                         q, row[L_M], row[L_N], row[L_K], p->m, p->n, p->k);
        total += (double)list_dim(row, L_M) * (double)row[L_LDD] * (double)ec;
    }
    if (s == CUTEC_OK && total > 0x1p40)
        s = cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "tuning: the list's outputs span %.0f bytes, more than 2^40", total);
    h->c_bytes = (size_t)total > 256 ? (size_t)total : 256;
    if (s == CUTEC_OK && rt->drv.mem_alloc(&h->cs, h->c_bytes) != CUDA_SUCCESS) {
        h->cs = 0;
        s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: no device memory for the list's outputs (%zu bytes)",
                          h->c_bytes);
    }
    long long *cand = s == CUTEC_OK ? malloc(sizeof *cand * rows) : NULL;
    if (s == CUTEC_OK && cand == NULL) s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    if (s == CUTEC_OK) {
        memcpy(cand, h->hlist, sizeof *cand * rows);
        for (long long q = 0; q < p->groups; q++)
            if (list_served(h->hlist + q * CUTEC_GEMM_LIST_ROW, cutec_dtype_size(p->a_type), ec))
                cand[q * CUTEC_GEMM_LIST_ROW + L_D] = (long long)(h->cs + off[q] * ec);
        if (rt->drv.mem_alloc(&h->dlist, sizeof *cand * rows) != CUDA_SUCCESS) {
            h->dlist = 0;
            s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: no device memory for the candidates' list");
        }
    }
    if (s == CUTEC_OK) s = cutec_memcpy_htod(rt, h->dlist, cand, sizeof *cand * rows);
    free(cand);
    h->run = h->io;
    h->run.group_list = (const void *)(uintptr_t)h->dlist;
    h->run.D = (void *)(uintptr_t)h->cs;
    h->run.C = h->run.D;
    if (s == CUTEC_OK) s = list_samples(h, off);
    free(off);
    return s;
}
