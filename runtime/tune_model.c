/*
 * tune_model.c - the tuner's cost model (tune_model.h).  A point's time is
 * the largest of three bounds, plus a launch:
 *   - the tiles' work: the output tiles (padded to whole clusters) spread
 *     over the blocks the device holds at once (SMs, blocks per SM by
 *     shared memory and threads, clusters that fit), so a wave that is
 *     only partly full costs a whole wave; each tile's time is the larger
 *     of its MMAs at a tile-shape efficiency and its K loop's memory
 *     latency spread over the ring's stages;
 *   - the tiles' loads from L2 (a multicast cluster shares them);
 *   - the problem's bytes from DRAM, once;
 * a strided batch's tiles and bytes are all its problems' (the persistent
 * loop walks them as one pool).
 * and a prior per parameter value (below) for what the numbers do not see.
 * The constants are an H100's (990 dense TFLOP/s over 132 SMs, 3.35 TB/s
 * DRAM, an effective 20 TB/s from L2 and the multicast, 0.7 us per load round trip), scaled by the
 * device's SM count: the model only has to rank points of one problem on
 * one device, and the shortlist it picks is timed anyway, so it need not be
 * exact, only not push the winner out of the shortlist.
 */
#include "tune_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FLOP_PER_US_SM 7.5e6  /* per SM */
#define L2_B_PER_US    2.0e7  /* whole device, 132 SMs */
#define DRAM_B_PER_US  3.35e6 /* whole device */
#define LOAD_LATENCY   0.7    /* us per k-step without overlap */
#define LAUNCH_US      3.0

/* Priors: measured facts the model's numbers do not see, a row each
 * (a token of the entry's description and a factor on its cost). */
static const struct model_prior {
    const char *token;
    double factor;
} priors[] = {
    /* ping-pong measured slower than the cooperative tiles on large shapes (stdlib/sm90/gemm.cute) */
    {"PP=1", 1.03},
    /* but 128 x 192 ping-pong tiles sharing one C tile measured 1-3% faster than the cooperative tiles,
       plain, and 4-8% with bias + GELU (H200, docs/performance.md): 0.98 with PP's */
    {"PPC=1", 0.95},
    /* splitting the tile along N re-reads B per 64-row block: slower on the H100 (stdlib/sm90/gemm.cute) */
    {"WGN=2", 1.05},
    /* the register epilogue stores pairs of accumulators; the TMA store overlaps the next main loop */
    {"EPI=0", 1.01},
};

/* Clusters of a size that fit at once, as a share of SMs / size (on the
 * H100 only 30-31 clusters of 4 fit: docs/runtime.md). */
static double cluster_fit(int cluster) { return cluster >= 8 ? 0.85 : cluster >= 4 ? 0.92 : 1.0; }

static int has_token(const char *params, const char *token)
{
    if (params == NULL) return 0;
    size_t n = strlen(token);
    for (const char *p = strstr(params, token); p != NULL; p = strstr(p + 1, token))
        if ((p == params || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

static long long cdiv(long long a, long long b) { return b > 0 ? (a + b - 1) / b : a; }

double tune_model_cost(const tune_point *pt, const tune_gemm *g, const tune_device *dev)
{
    long long m = g->m > 0 ? g->m : 1, n = g->n > 0 ? g->n : 1, k = g->k > 0 ? g->k : 1;
    double batch = g->batch > 1 ? (double)g->batch : 1.0;
    int ab_bytes = g->ab_bytes, c_bytes = g->c_bytes;
    int sms = dev != NULL && dev->sms > 0 ? dev->sms : 132;
    double smem_sm = dev != NULL && dev->smem_per_sm > 0 ? (double)dev->smem_per_sm : 228.0 * 1024;
    int thr_sm = dev != NULL && dev->threads_per_sm > 0 ? dev->threads_per_sm : 2048;
    long long bm = pt->bm > 0 ? pt->bm : 128, bn = pt->bn > 0 ? pt->bn : 128;
    /* a kernel with its roles swapped (the GEMV's SW = 1, stdlib/gemv.cute):
     * its BM rows lie along N, its BN along M */
    if (has_token(pt->params, "SW=1")) {
        long long t = bm;
        bm = bn;
        bn = t;
    }
    int cm = pt->cm > 0 ? pt->cm : 1, cn = pt->cn > 0 ? pt->cn : 1;
    int cluster = pt->cluster > 0 ? pt->cluster : cm * cn;
    int stages = pt->stages > 0 ? pt->stages : 3;
    double ab = ab_bytes > 0 ? ab_bytes : 2, cb = c_bytes > 0 ? c_bytes : 2;
    /* tiles, padded to whole clusters */
    long long tm = cdiv(cdiv(m, bm), cm) * cm, tn = cdiv(cdiv(n, bn), cn) * cn;
    double tiles = (double)tm * (double)tn * batch;
    /* blocks at once: per SM by shared memory and threads, whole clusters */
    double occ = 1;
    if (pt->smem > 0) occ = floor(smem_sm / (double)pt->smem);
    if (pt->threads > 0 && floor((double)thr_sm / pt->threads) < occ) occ = floor((double)thr_sm / pt->threads);
    if (occ < 1) occ = 1;
    if (occ > 8) occ = 8;
    double groups = floor((double)sms / cluster * cluster_fit(cluster));
    if (groups < 1) groups = 1;
    double slots = groups * cluster * occ;
    double waves = ceil(tiles / slots);
    /* one tile: its MMAs at the tile shape's efficiency (intensity: larger
     * tiles load less per multiply), or its K loop's load latency */
    double intensity = (double)(bm * bn) / (double)(bm + bn);
    double eff = intensity / (intensity + 12.0) * (stages <= 2 ? 0.8 : stages == 3 ? 0.93 : 1.0);
    double tile_flop = 2.0 * (double)bm * (double)bn * (double)k;
    double mma = tile_flop / (FLOP_PER_US_SM * eff);
    double ksteps = ceil((double)k * ab / 128.0);
    double latency = ksteps * LOAD_LATENCY / stages;
    /* blocks sharing an SM share its tensor cores */
    double wave = fmax(occ * mma, latency);
    double work = waves * wave;
    double scale = (double)sms / 132.0;
    /* SK=1 splits the last round's r tiles along K into S = slots / r
     * chunks (stdlib/sm90/gemm.cute): that round takes 1 / S of a tile's
     * time, plus the fix-up (S - 1 partial tiles, f32, written and read
     * back at one SM's share of L2's bandwidth) and the flags' memset */
    if (has_token(pt->params, "SK=1")) {
        double r = tiles - floor(tiles / slots) * slots;
        double splits = r > 0 ? fmin(fmin(floor(slots / r), ksteps), 16.0) : 1.0;
        if (splits < 1) splits = 1;
        double part = 2.0 * (double)(bm * bn) * 4.0 / (L2_B_PER_US / sms);
        work = floor(tiles / slots) * wave + (r > 0 ? wave / splits + part * (splits - 1) : 0.0) + 2.0;
    }
    double l2 = tiles * ((double)bm / cn + (double)bn / cm) * (double)k * ab / (L2_B_PER_US * scale);
    double dram = (((double)m * (g->a_once ? 1.0 : batch) + (double)n * (g->b_once ? 1.0 : batch)) * (double)k * ab +
                   (double)m * (double)n * cb * batch) /
                  DRAM_B_PER_US;
    /* a shape bound by DRAM (decode, skinny M) ties every point whose
     * tiles and L2 traffic fit under its bytes; the tie goes to the point
     * with the least tile time and L2 traffic (fewer, larger tiles that
     * read the weight once: the exhaustive tuning's winner on
     * dec_m128_gateup, 2026-11-27, which the bare maximum ranked 73rd of
     * 319), a term too small to reorder points that do not tie */
    double cost = fmax(work, fmax(l2, dram)) + LAUNCH_US + 1e-3 * (work + l2);
    for (size_t i = 0; i < sizeof priors / sizeof priors[0]; i++)
        if (has_token(pt->params, priors[i].token)) cost *= priors[i].factor;
    if (cluster >= 4) cost *= 1.03; /* 2x2 clusters measured slower on the H100 (stdlib/sm90/gemm.cute) */
    return cost;
}

void tune_model_rank(const double *cost, int n, int *order)
{
    for (int i = 0; i < n; i++) order[i] = i;
    /* insertion sort (n is a pack's few hundred points), the index as the
     * last key: stable, and no global state for a comparison function */
    for (int i = 1; i < n; i++) {
        int v = order[i], j = i - 1;
        while (j >= 0 && (cost[order[j]] > cost[v] || (cost[order[j]] == cost[v] && order[j] > v))) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = v;
    }
}

void tune_model_shortlist(const double *cost, const long long *tile, const long long *family, int n, int keep,
                          int *order, int *rank)
{
    int *by_cost = malloc(sizeof *by_cost * (size_t)(n > 0 ? n : 1));
    unsigned char *chosen = calloc((size_t)(n > 0 ? n : 1), 1);
    if (by_cost == NULL || chosen == NULL) { /* by cost alone */
        free(by_cost);
        free(chosen);
        tune_model_rank(cost, n, order);
        for (int r = 0; r < n; r++) rank[order[r]] = r;
        return;
    }
    tune_model_rank(cost, n, by_cost);
    for (int r = 0; r < n; r++) rank[by_cost[r]] = r;
    int nsel = 0;
    /* each kernel's best point first: another kernel (a GEMV beside the
     * tile template) is another algorithm, whose strengths the model's
     * tile terms do not see (memory-bound shapes tie on its DRAM bound) */
    for (int r = 0; family != NULL && r < n && nsel < keep; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++) seen = chosen[by_cost[q]] && family[by_cost[q]] == family[by_cost[r]];
        if (!seen) chosen[by_cost[r]] = 1, nsel++;
    }
    for (int r = 0; r < n && nsel < (keep + 1) / 2; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++) seen = chosen[by_cost[q]] && tile[by_cost[q]] == tile[by_cost[r]];
        if (!seen && !chosen[by_cost[r]]) chosen[by_cost[r]] = 1, nsel++;
    }
    for (int r = 0; r < n && nsel < keep; r++)
        if (!chosen[by_cost[r]]) chosen[by_cost[r]] = 1, nsel++;
    int at = 0;
    for (int pass = 1; pass >= 0; pass--)
        for (int r = 0; r < n; r++)
            if (chosen[by_cost[r]] == pass) order[at++] = by_cost[r];
    free(by_cost);
    free(chosen);
}

double tune_model_copy_us(double bytes) { return bytes / DRAM_B_PER_US; }
