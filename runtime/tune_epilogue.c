/*
 * tune_epilogue.c - the tuner's reference for a problem with an epilogue
 * (docs/contract.md, "What a GEMM kernel computes"):
 *
 *   v(m, n) = alpha sa sb acc(m, n) + beta C(m, n) + bias(n) + bias_row(m),  aux = v,  D = act(v)
 *
 * (with a clamp, D = min(max(act(v), clamp_lo), clamp_hi), the call's bounds)
 *
 * (sa, sb: the scales of cutec_scale_mode; block-wise ones sit inside the
 * sum, which cuBLASLt's plain GEMM cannot give: those problems are checked
 * at float64 samples; an fp8 output is scale_d act(v), its amax max |act(v)|).
 *
 * acc is the plain GEMM in f32 from cuBLASLt (its first algorithm, no
 * epilogue), itself checked against float64 dot products at sampled
 * positions; the epilogue is applied on the host in float64 through the
 * epilogue table's reference (or the handle's registration), so that a
 * candidate's whole epilogue is checked, whether cuBLASLt has a fused form
 * of it or not.  Without cuBLASLt (or when its acc disagrees with the
 * samples) candidates are checked at the samples alone, in float64.
 */
#include "epilogue.h"
#include "par_rows.h"
#include "tune_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double load_elem(const unsigned char *buf, cutec_dtype t, size_t i)
{
    cutec_ct ct = (cutec_ct)t;
    return cutec_dtype_load(ct, buf + (size_t)cutec_dtype_bytes(ct) * i);
}

static size_t elem_index(cutec_layout l, long long r, long long c, long long ld)
{
    return (size_t)(l == CUTEC_LAYOUT_ROW ? r * ld + c : c * ld + r);
}

void tune_epi_free(harness *h)
{
    free(h->hcsrc);
    free(h->hbias);
    free(h->hbias_row);
    free(h->esamp);
    h->esamp = NULL;
    free(h->vr_idx);
    free(h->vc_idx);
    free(h->vr);
    free(h->vc);
    h->vr_idx = h->vc_idx = NULL;
    h->vr = h->vc = NULL;
    if (h->dacc != 0) (void)h->rt->drv.mem_free(h->dacc);
    h->dacc = 0;
    CUdeviceptr *fp8_dev[2] = {&h->fp8_ta, &h->fp8_tb};
    for (int i = 0; i < 2; i++) {
        if (*fp8_dev[i] != 0) (void)h->rt->drv.mem_free(*fp8_dev[i]);
        *fp8_dev[i] = 0;
    }
    free(h->fp8_hta);
    free(h->fp8_htb);
    h->fp8_hta = h->fp8_htb = NULL;
    free(h->ref_d);
    free(h->ref_aux);
    free(h->host_aux);
    free(h->hsa);
    free(h->hsb);
    h->hsa = h->hsb = NULL;
    h->hcsrc = h->host_aux = NULL;
    h->hbias = h->hbias_row = NULL;
    h->ref_d = h->ref_aux = NULL;
}

/* n elements of type t at dptr (a bias, the scales), copied to the host
 * as doubles. */
static cutec_status load_vector(harness *h, const void *dptr, cutec_ct t, long long n, double **out)
{
    size_t bytes = (size_t)n * (size_t)cutec_dtype_bytes(t);
    unsigned char *raw = malloc(bytes);
    *out = malloc(sizeof **out * (size_t)n);
    cutec_status s = raw == NULL || *out == NULL
                         ? cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory")
                         : cutec_memcpy_dtoh(h->rt, raw, (unsigned long long)(uintptr_t)dptr, bytes);
    for (long long i = 0; s == CUTEC_OK && i < n; i++) (*out)[i] = load_elem(raw, (cutec_dtype)t, (size_t)i);
    free(raw);
    return s;
}

/* n f32 scales; each must be finite (a NaN scale would fail every
 * candidate and blame the kernels). */
static cutec_status load_scales(harness *h, const float *dptr, long long n, double **out)
{
    cutec_status s = load_vector(h, dptr, CUTEC_CT_F32, n, out);
    for (long long i = 0; s == CUTEC_OK && i < n; i++)
        if (!isfinite((*out)[i]))
            s = cutec_rt_fail(h->rt, CUTEC_ERR_INVALID_ARGUMENT, "tuning: scale %lld in device memory is %g", i,
                              (*out)[i]);
    return s;
}

/* wgmma's fp8 products are summed in fewer bits than f32 and truncated
 * (about 13; DeepGEMM): the error grows with K, not with its root, until
 * the sums are promoted into f32 (every PROMO k-tiles).  Measured on the
 * H100 at K = 16384 (2026-11-25): 2.9e-4 of sum |a b| for the pack's
 * points, 2.4e-4 for cuBLASLt's fp8 matmul, both with an f32 output.  The
 * check allows 2^-11 of sum |a b| (scaled) for fp8 inputs; `cutec-tune
 * error` measures the actual error against cuBLASLt's. */
#define FP8_SUM_UNIT 0x1p-11
/* D's fp8 bound over aux's (the pre-activation's): the activation's
 * slope, as compare_samples takes it for an ungated one */
#define FP8_D_SLOPE 1.2

/* fp8 inputs: their candidates are checked at float64 samples
 * (tune_epi_compare), which read the source C whole, unless fp8_full. */
static int fp8_inputs(const cutec_gemm_problem *p)
{
    return cutec_dtype_is_fp8(p->a_type) || cutec_dtype_is_fp8(p->b_type);
}

/* fp8 inputs whose candidates are compared in full on the device
 * (fp8_bounds): not gated (a product of two sums), a 16-bit or f32 output
 * (the check kernel's types), row-major D (a column-major one reaches the
 * tuner transposed, but for gated and block-wise outputs), K-major A and
 * B (fp8's rule).  256 float64 samples alone missed a wrong 128 x 128 tile
 * of an 8192^2 output with probability 0.94. */
static int fp8_full(const cutec_gemm_problem *p)
{
    return fp8_inputs(p) && !p->act_gated && !cutec_dtype_is_fp8(p->c_type) && p->c_layout == CUTEC_LAYOUT_ROW &&
           p->a_layout == CUTEC_LAYOUT_ROW && p->b_layout == CUTEC_LAYOUT_COL;
}

/* Whether tune_epi_reference's loop fetches the source C a block of rows
 * at a time beside its work (row-major C, and no float64 samples that
 * read it later: fp8 inputs are checked at them) rather than whole first:
 * for the Llama-70B gate+up's residual (940 MB) the whole copy took 0.6 s
 * of a 3.9 s tuning (H200, 2026-11-29), most of it the first touch of
 * fresh host pages. */
static int csrc_in_blocks(const cutec_gemm_problem *p)
{
    return p->c_source && p->c_layout == CUTEC_LAYOUT_ROW && !fp8_inputs(p);
}

/* The source C copied to the host whole (h->hcsrc). */
static cutec_status load_csrc(harness *h)
{
    const cutec_gemm_problem *p = h->p;
    if (!p->c_source || h->hcsrc != NULL) return CUTEC_OK;
    size_t bytes = cutec_gemm_matrix_bytes(p->c_type, p->c_layout, p->m, p->n, p->ld_csrc);
    h->hcsrc = malloc(bytes);
    return h->hcsrc == NULL ? cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory")
                            : cutec_memcpy_dtoh(h->rt, h->hcsrc, (unsigned long long)(uintptr_t)h->io.C, bytes);
}

/* The host copies of the epilogue's inputs (the source C whole unless
 * csrc_in_blocks). */
static cutec_status load_inputs(harness *h)
{
    const cutec_gemm_problem *p = h->p;
    cutec_runtime *rt = h->rt;
    cutec_status s = CUTEC_OK;
    h->alpha = p->alpha;
    h->beta = p->c_source ? p->beta : 0.0; /* in place, C is the zeroed scratch */
    if (p->scalars_on_device) {
        float ab[2];
        s = cutec_memcpy_dtoh(rt, &ab[0], (unsigned long long)(uintptr_t)h->io.alpha, sizeof(float));
        if (s == CUTEC_OK) s = cutec_memcpy_dtoh(rt, &ab[1], (unsigned long long)(uintptr_t)h->io.beta, sizeof(float));
        if (s != CUTEC_OK) return s;
        if (!isfinite(ab[0]) || !isfinite(ab[1]))
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "tuning: alpha or beta in device memory is %g",
                                 (double)(isfinite(ab[0]) ? ab[1] : ab[0]));
        h->alpha = ab[0];
        h->beta = p->c_source ? ab[1] : 0.0;
    }
    h->sd = 1.0;
    if (p->scale_mode != CUTEC_SCALE_NONE) {
        s = load_scales(h, h->io.scale_a, cutec_gemm_scale_count(p, CUTEC_ROLE_SCALE_A), &h->hsa);
        if (s == CUTEC_OK) s = load_scales(h, h->io.scale_b, cutec_gemm_scale_count(p, CUTEC_ROLE_SCALE_B), &h->hsb);
    }
    if (s == CUTEC_OK && cutec_dtype_is_fp8(p->c_type)) {
        float sd;
        s = cutec_memcpy_dtoh(rt, &sd, (unsigned long long)(uintptr_t)h->io.scale_d, sizeof sd);
        if (s == CUTEC_OK && !isfinite(sd))
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "tuning: scale_d in device memory is %g", (double)sd);
        h->sd = sd;
    }
    if (s != CUTEC_OK) return s;
    if (p->bias) s = load_vector(h, h->io.bias, (cutec_ct)p->bias_type, p->n, &h->hbias);
    if (s == CUTEC_OK && p->bias_row) s = load_vector(h, h->io.bias_row, (cutec_ct)p->bias_type, p->m, &h->hbias_row);
    if (s == CUTEC_OK && !csrc_in_blocks(p)) s = load_csrc(h);
    return s;
}

/* v(r, c) from a GEMM value x (acc, or a float64 dot product) and the
 * source C's element there (0 without one). */
double tune_epi_v(const harness *h, long long r, long long c, double x, double csrc)
{
    const cutec_gemm_problem *p = h->p;
    double v = h->alpha * x;
    if (p->scale_mode == CUTEC_SCALE_TENSOR) v *= h->hsa[0] * h->hsb[0];
    if (p->scale_mode == CUTEC_SCALE_ROW) v *= h->hsa[r] * h->hsb[c];
    if (p->c_source) v += h->beta * csrc;
    if (h->hbias != NULL) v += h->hbias[c];
    if (h->hbias_row != NULL) v += h->hbias_row[r];
    return v;
}

/* The same with C from its whole host copy. */
static double epi_v(const harness *h, long long r, long long c, double x)
{
    const cutec_gemm_problem *p = h->p;
    double cv = h->hcsrc != NULL ? load_elem(h->hcsrc, p->c_type, elem_index(p->c_layout, r, c, p->ld_csrc)) : 0.0;
    return tune_epi_v(h, r, c, x, cv);
}

/* The clamp after the activation (problem.clamp), as the kernels' PTX
 * max and min: a NaN gives clamp_lo. */
double tune_epi_clamp(const harness *h, double d)
{
    return h->p->clamp ? fmin(fmax(d, (double)h->io.clamp_lo), (double)h->io.clamp_hi) : d;
}

/* The fetched vector (a row of A, a column of B) of index i: idx sorted, n
 * of them, k elements of type t each at data. */
static const unsigned char *vec_of(const long long *idx, int n, const unsigned char *data, long long i, long long k,
                                   cutec_dtype t)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (idx[mid] == i) return data + (size_t)mid * (size_t)k * cutec_dtype_size(t);
        if (idx[mid] < i)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL; /* not reached: every sampled index was fetched */
}

/* The float64 dot product of row r of A and column c of B, and the sum of
 * the magnitudes of its terms; with block-wise scales, each term scaled by
 * its blocks' (they do not factor out). */
static double dot(const harness *h, long long r, long long c, double *mag)
{
    const cutec_gemm_problem *p = h->p;
    double d = 0;
    *mag = 0;
    const unsigned char *va = h->ha == NULL ? vec_of(h->vr_idx, h->nvr, h->vr, r, p->k, p->a_type) : NULL;
    const unsigned char *vb = h->ha == NULL ? vec_of(h->vc_idx, h->nvc, h->vc, c, p->k, p->b_type) : NULL;
    if (h->ha == NULL && (va == NULL || vb == NULL)) return *mag = NAN; /* fails the check: never reached */
    for (long long q = 0; q < p->k; q++) {
        double a = va != NULL ? load_elem(va, p->a_type, (size_t)q)
                              : load_elem(h->ha, p->a_type, elem_index(p->a_layout, r, q, p->lda));
        double b = vb != NULL ? load_elem(vb, p->b_type, (size_t)q)
                              : load_elem(h->hb, p->b_type, elem_index(p->b_layout, q, c, p->ldb));
        if (p->scale_mode == CUTEC_SCALE_BLOCK)
            a *= h->hsa[r + p->m * (q / 128)] * h->hsb[(c / 128) * ((p->k + 127) / 128) + q / 128];
        d += a * b;
        *mag += fabs(a * b);
    }
    return d;
}

/* acc from cuBLASLt: the plain GEMM, f32, row-major M x n, left on the
 * device (h->dacc; 0: none).  The host reads it at the samples and then
 * row block by row block (tune_epi_reference): a whole copy into fresh
 * host memory took 1.5 s of the 7.2 s tuning of the Llama-70B gate+up's
 * SwiGLU (1.9 GB, H200, 2026-11-28), most of it the pages' first touch. */
static cutec_status lt_acc(harness *h)
{
    cutec_gemm_handle *g = h->g;
    cutec_runtime *rt = h->rt;
    const cutec_gemm_problem *p = h->p;
    if (!cutec_gemm_lt(g)) return CUTEC_OK;
    cutec_gemm_problem q;
    cutec_gemm_problem_init(&q, p->m, p->n, p->k, p->a_type, CUTEC_DTYPE_F32);
    q.b_type = p->b_type;
    q.a_layout = p->a_layout, q.b_layout = p->b_layout, q.lda = p->lda, q.ldb = p->ldb, q.ldc = p->n;
    /* block-wise scales sit inside the sum: cuBLASLt applies them (its
     * VEC128 and BLK128x128 modes); the others the epilogue applies */
    if (p->scale_mode == CUTEC_SCALE_BLOCK) q.scale_mode = CUTEC_SCALE_BLOCK;
    size_t bytes = (size_t)p->m * (size_t)p->n * sizeof(float);
    cutec_lt_plan plan;
    cublasLtMatmulHeuristicResult_t heur;
    char why[256];
    /* where cuBLASLt makes no reference the log says why (the next line
     * says only where candidates are then compared: a block-wise fp8
     * tuning on the H200 fell back to the samples with no word of why,
     * 2026-11-29) */
    if (!cutec_lt_plan_create(&g->lt, &q, &plan, why, sizeof why)) {
        cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: no f32 GEMM from cuBLASLt for the reference: %s", why);
        return CUTEC_OK;
    }
    /* the block-wise scales' pointers before the heuristic, which answers
     * INVALID_VALUE (7) for block modes without them (H200, cuBLASLt
     * 13.1, 2026-11-29: block-wise candidates never got this reference) */
    cutec_gemm_args io;
    cutec_gemm_args_init(&io, h->io.A, h->io.B, NULL);
    if (q.scale_mode == CUTEC_SCALE_BLOCK) io.scale_a = h->io.scale_a, io.scale_b = h->io.scale_b;
    const int align[3] = {cutec_gemm_ptr_align(h->io.A), cutec_gemm_ptr_align(h->io.B), 16};
    int n = 0;
    if (cutec_lt_plan_pointers(&g->lt, &plan, &q, &io) != CUBLAS_STATUS_SUCCESS)
        snprintf(why, sizeof why, "cuBLASLt refused the scales' pointers");
    else
        n = cutec_lt_heuristics(&g->lt, &plan, align, g->workspace_bytes, &heur, 1, why, sizeof why);
    if (n <= 0) cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: no f32 GEMM from cuBLASLt for the reference: %s", why);
    CUdeviceptr dacc = 0;
    cutec_status s = CUTEC_OK;
    CUresult r = n > 0 ? rt->drv.mem_alloc(&dacc, bytes) : CUDA_SUCCESS;
    if (r != CUDA_SUCCESS) {
        dacc = 0;
        s = cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "tuning: cuMemAlloc_v2(%zu bytes for the f32 GEMM)",
                                 bytes);
    }
    if (s == CUTEC_OK && n > 0) {
        io.C = io.D = (void *)(uintptr_t)dacc;
        cublasStatus_t st = cutec_lt_run(&g->lt, &plan, &q, &heur.algo, &io, (void *)(uintptr_t)g->workspace,
                                         g->workspace_bytes, h->stream);
        if (st == CUBLAS_STATUS_SUCCESS) s = cutec_stream_synchronize(rt, h->stream);
        if (st == CUBLAS_STATUS_SUCCESS && s == CUTEC_OK) {
            h->dacc = dacc;
            dacc = 0;
        }
        if (st != CUBLAS_STATUS_SUCCESS)
            cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: the cuBLASLt reference failed with status %d", st);
    }
    if (dacc != 0) (void)rt->drv.mem_free(dacc);
    cutec_lt_plan_destroy(&g->lt, &plan);
    return s;
}

/* The first state of sample()'s walk for a problem: acc_agrees,
 * compare_samples (epi_samples) and fetch_vectors, which fetches what the
 * other two read, must walk the same positions. */
static uint64_t sample_seed(const cutec_gemm_problem *p)
{
    return 0x9e3779b97f4a7c15ull ^ (uint64_t)(p->m * 31 + p->n * 17 + p->k);
}

/* Sampled positions: the corners, then a fixed pseudo-random walk. */
static void sample(const harness *h, int t, uint64_t *s, long long cols, long long *r, long long *c)
{
    const cutec_gemm_problem *p = h->p;
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    *r = t == 0 ? 0 : t == 1 ? p->m - 1 : (long long)((*s >> 20) % (uint64_t)p->m);
    *c = t == 0 ? 0 : t == 1 ? cols - 1 : (long long)((*s >> 40) % (uint64_t)cols);
}

/* Whether acc (on the device) agrees with float64 dot products at the
 * samples (within an f32 GEMM's error, or with fp8 inputs an fp8 sum's):
 * 1, 0 with why, or -1 (*st: the copy failed). */
static int acc_agrees(harness *h, char *why, size_t len, cutec_status *st)
{
    const cutec_gemm_problem *p = h->p;
    const double eps = cutec_dtype_info_of(CUTEC_CT_F32)->tol;
    uint64_t s = sample_seed(p);
    for (int t = 0; t < 256; t++) {
        long long r, c;
        double mag;
        float got;
        sample(h, t, &s, p->n, &r, &c);
        *st = cutec_memcpy_dtoh(h->rt, &got, h->dacc + ((size_t)r * (size_t)p->n + (size_t)c) * sizeof got, sizeof got);
        if (*st != CUTEC_OK) return -1;
        double want = dot(h, r, c, &mag);
        /* fp8 inputs: cuBLASLt's fp8 sums, short of f32 (FP8_SUM_UNIT) */
        double sum_err = fp8_inputs(p) ? FP8_SUM_UNIT * mag : 4 * eps * mag / sqrt((double)p->k);
        if (!(fabs(got - want) <= 2 * eps * fabs(want) + sum_err + 1e-30)) {
            snprintf(why, len, "A B[%lld,%lld] = %.6g, float64 %.6g", r, c, (double)got, want);
            return 0;
        }
    }
    return 1;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* idx[0 .. n) sorted, duplicates dropped; the count left. */
static int sort_unique(long long *idx, int n)
{
    qsort(idx, (size_t)n, sizeof *idx, cmp_ll);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || idx[i] != idx[u - 1]) idx[u++] = idx[i];
    return u;
}

/* The float64 samples' operands, where A's rows and B's columns are
 * contiguous (tune_harness_init then copies neither whole): the rows of A
 * and columns of B that acc_agrees and compare_samples read, K elements
 * each, from the device.  Whole copies of A and B took 0.75 s of a 7.2 s
 * tuning of the Llama-70B gate+up's SwiGLU (1.07 GB, H200, 2026-11-28). */
static cutec_status fetch_vectors(harness *h)
{
    const cutec_gemm_problem *p = h->p;
    long long dn = cutec_gemm_d_cols(p);
    long long *rows = malloc(sizeof *rows * 512), *cols = malloc(sizeof *cols * 768);
    if (rows == NULL || cols == NULL) {
        free(rows), free(cols);
        return cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (float64 samples)");
    }
    int nr = 0, nc = 0;
    const uint64_t seed = sample_seed(p);
    uint64_t s = seed;
    for (int t = 0; t < 256; t++) { /* acc_agrees's */
        long long r, c;
        sample(h, t, &s, p->n, &r, &c);
        rows[nr++] = r, cols[nc++] = c;
    }
    s = seed;
    for (int t = 0; t < 256; t++) { /* compare_samples's: the gate's column and the up's */
        long long r, j;
        sample(h, t, &s, dn, &r, &j);
        rows[nr++] = r;
        cols[nc++] = p->act_gated ? cutec_act_gate_col(j) : j;
        if (p->act_gated) cols[nc++] = cutec_act_up_col(j);
    }
    nr = sort_unique(rows, nr);
    nc = sort_unique(cols, nc);
    size_t ea = cutec_dtype_size(p->a_type), eb = cutec_dtype_size(p->b_type), k = (size_t)p->k;
    h->vr_idx = rows, h->vc_idx = cols, h->nvr = nr, h->nvc = nc;
    h->vr = malloc((size_t)nr * k * ea + 1);
    h->vc = malloc((size_t)nc * k * eb + 1);
    if (h->vr == NULL || h->vc == NULL)
        return cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (float64 samples)");
    cutec_status st = CUTEC_OK;
    unsigned long long a = (unsigned long long)(uintptr_t)h->io.A, b = (unsigned long long)(uintptr_t)h->io.B;
    for (int i = 0; i < nr && st == CUTEC_OK; i++)
        st = cutec_memcpy_dtoh(h->rt, h->vr + (size_t)i * k * ea, a + (size_t)rows[i] * (size_t)p->lda * ea, k * ea);
    for (int i = 0; i < nc && st == CUTEC_OK; i++)
        st = cutec_memcpy_dtoh(h->rt, h->vc + (size_t)i * k * eb, b + (size_t)cols[i] * (size_t)p->ldb * eb, k * eb);
    return st;
}

/* Rows b0 .. b1 of a block of rows (from row r0) of the reference, one
 * part of tune_epi_reference's loop (par_rows.h): v = the epilogue's sum
 * of cuBLASLt's f32 acc (aux, or the part's scratch row without an aux
 * output), then D = act(v) (clamped, scaled for an fp8 output); the part's
 * sums of squares and largest |act(v)|.  Where the reference goes to the
 * device a block at a time, the block's rows of D and aux also in the
 * output type, as they lie in memory (sd, saux). */
typedef struct ref_job {
    harness *h;
    long long dn, r0;
    const float *acc;          /* the block's rows of acc */
    const unsigned char *csrc; /* the block's rows of the source C (NULL: h->hcsrc has all of it) */
    unsigned char *sd, *saux;  /* the block's rows in the output type (NULL: not staged) */
    float *scratch;            /* a row of v per part where aux is not kept */
    double sv[CUTEC_PAR_MAX], sd2[CUTEC_PAR_MAX], amax[CUTEC_PAR_MAX];
} ref_job;

static void ref_rows(void *ctx, int part, long long b0, long long b1)
{
    ref_job *j = ctx;
    harness *h = j->h;
    const cutec_gemm_problem *p = h->p;
    cutec_ct ct = (cutec_ct)p->c_type;
    size_t es = cutec_dtype_size(p->c_type);
    double sv = 0, sd = 0, amax = 0;
    for (long long b = b0; b < b1; b++) {
        long long r = j->r0 + b;
        const float *ar = j->acc + (size_t)b * (size_t)p->n;
        const unsigned char *cr = j->csrc != NULL ? j->csrc + (size_t)(b * p->ld_csrc) * es : NULL;
        float *vr =
            h->ref_aux != NULL ? h->ref_aux + (size_t)r * (size_t)p->n : j->scratch + (size_t)part * (size_t)p->n;
        /* the row's source C or none, decided once a row */
        if (cr != NULL)
            for (long long c = 0; c < p->n; c++)
                vr[c] = (float)tune_epi_v(h, r, c, ar[c], cutec_dtype_load(ct, cr + (size_t)c * es));
        else
            for (long long c = 0; c < p->n; c++) vr[c] = (float)epi_v(h, r, c, ar[c]);
        for (long long c = 0; c < p->n; c++) sv += (double)vr[c] * vr[c];
        if (j->saux != NULL)
            for (long long c = 0; c < p->n; c++)
                cutec_dtype_store(ct, j->saux + (size_t)(b * p->ld_aux + c) * es, vr[c]);
        float *dr = h->ref_d + (size_t)r * (size_t)j->dn;
        for (long long k = 0; k < j->dn; k++) {
            double d = p->act_gated ? h->act(vr[cutec_act_gate_col(k)], vr[cutec_act_up_col(k)]) : h->act(vr[k], 0);
            d = tune_epi_clamp(h, d);
            if (fabs(d) > amax) amax = fabs(d);
            d *= h->sd; /* 1 but for an fp8 output */
            dr[k] = (float)d;
            sd += d * d;
        }
        if (j->sd != NULL)
            for (long long k = 0; k < j->dn; k++) cutec_dtype_store(ct, j->sd + (size_t)(b * p->ldc + k) * es, dr[k]);
    }
    j->sv[part] = sv;
    j->sd2[part] = sd;
    j->amax[part] = amax;
}

/* Rows of acc a block: copied into one reused buffer, the copy's pages
 * touched once */
#define REF_BLOCK_BYTES (64u << 20)

/* What tune_epi_reference's copying thread does beside the parts' work on
 * a block (cutec_par_rows_beside): the last block's rows of the reference
 * up to the device (where staged), then the next block's rows of acc (and
 * of the source C, where it comes in blocks) from it; the status in s,
 * the seconds it took added to secs. */
typedef struct block_copy {
    harness *h;
    size_t row, crow; /* bytes of a row of acc and of the source C */
    long long r0, nr; /* the next block */
    float *dst;
    unsigned char *cdst;
    const unsigned char *up_d, *up_aux; /* the last block's staged rows (NULL: none) */
    long long up_r0, up_nr;
    double secs;
    cutec_status s;
} block_copy;

static void copy_block(void *arg)
{
    block_copy *c = arg;
    harness *h = c->h;
    double t0 = tune_now();
    c->s = CUTEC_OK;
    if (c->up_d != NULL) c->s = tune_check_epi_rows(h, c->up_d, c->up_aux, c->up_r0, c->up_nr);
    if (c->s == CUTEC_OK && c->nr > 0)
        c->s = cutec_memcpy_dtoh(h->rt, c->dst, h->dacc + (size_t)c->r0 * c->row, (size_t)c->nr * c->row);
    if (c->s == CUTEC_OK && c->nr > 0 && c->cdst != NULL)
        c->s = cutec_memcpy_dtoh(h->rt, c->cdst, (unsigned long long)(uintptr_t)h->io.C + (size_t)c->r0 * c->crow,
                                 (size_t)(c->nr - 1) * c->crow + (size_t)h->p->n * cutec_dtype_size(h->p->c_type));
    c->secs += tune_now() - t0;
}

/* The device check given up before any candidate ran (an fp8 problem
 * whose reference or bounds could not be made there): the samples decide. */
static void epi_device_drop(harness *h)
{
    CUdeviceptr *d[2] = {&h->ref_dev, &h->ref_aux_dev};
    for (int i = 0; i < 2; i++) {
        if (*d[i] != 0) (void)h->rt->drv.mem_free(*d[i]);
        *d[i] = 0;
    }
    h->device_check = 0;
}

/* f32 vector v (n of them) on the device at *dev (allocated), what names it. */
static cutec_status upload_floats(harness *h, CUdeviceptr *dev, const float *v, long long n, const char *what)
{
    cutec_status s = tune_alloc_device(h, dev, (size_t)n * sizeof(float), what);
    return s == CUTEC_OK ? cutec_memcpy_htod(h->rt, *dev, v, (size_t)n * sizeof(float)) : s;
}

/* fp8_full's bound of each element's fp8 sum error: sum_k |a_rk b_kc| <=
 * (sum_k |a_rk|) (max_k |b_kc|), and with block-wise scales, block by
 * block, sum_kb sa(r, kb) sb(c, kb) sum_{k in kb} |a_rk b_kc| <= (sum_kb
 * sa(r, kb) sum_{k in kb} |a_rk|) (max_kb sb(c, kb) max_{k in kb} |b_kc|),
 * from abs_blocks's sums (A) and largest elements (B) of each row's
 * 128-byte blocks (stdlib/check_close.cute), so that an outlier row of A
 * or column of B widens its own bound alone.  The candidate's sum and
 * cuBLASLt's (the reference's) may each be FP8_SUM_UNIT of it off, so aux
 * row r column c may differ by ta[r] tb[c], 2 FP8_SUM_UNIT |alpha| times
 * that bound (per-tensor and row-wise scales in it), more than a 16-bit
 * GEMM's, and D by FP8_D_SLOPE times that (the activation's slope, as
 * compare_samples takes it).  1 made, 0 where the
 * fp8 kernels are unavailable or do not take the rows (logged), -1 (*st:
 * a failure). */
static int fp8_bounds(harness *h, cutec_status *st)
{
    const cutec_gemm_problem *p = h->p;
    cutec_runtime *rt = h->rt;
    long long m = p->m, n = p->n, nkb = (p->k + 127) / 128;
    *st = cutec_gemm_fp8_ready(h->g, p->c_type, h->stream);
    if (*st == CUTEC_ERR_KERNEL_FAULT) return -1;
    if (*st != CUTEC_OK) {
        *st = CUTEC_OK;
        return 0;
    }
    size_t na = (size_t)m * (size_t)nkb, nb = (size_t)n * (size_t)nkb;
    CUdeviceptr da = 0, db = 0;
    float *ha = malloc(sizeof *ha * na), *hb = malloc(sizeof *hb * nb);
    h->fp8_hta = malloc(sizeof(float) * (size_t)m);
    h->fp8_htb = malloc(sizeof(float) * (size_t)n);
    *st = ha == NULL || hb == NULL || h->fp8_hta == NULL || h->fp8_htb == NULL
              ? cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (fp8 bounds)")
              : CUTEC_OK;
    if (*st == CUTEC_OK) *st = tune_alloc_device(h, &da, sizeof(float) * na, "abs_blocks of A");
    if (*st == CUTEC_OK) *st = tune_alloc_device(h, &db, sizeof(float) * nb, "abs_blocks of B");
    if (*st == CUTEC_OK)
        *st = cutec_gemm_fp8_abs_blocks(h->g, p->a_type, m, p->k, p->lda, (unsigned long long)(uintptr_t)h->io.A, 0, da,
                                        h->stream);
    if (*st == CUTEC_OK)
        *st = cutec_gemm_fp8_abs_blocks(h->g, p->b_type, n, p->k, p->ldb, (unsigned long long)(uintptr_t)h->io.B, 1, db,
                                        h->stream);
    if (*st == CUTEC_OK) *st = cutec_stream_synchronize(rt, h->stream);
    if (*st == CUTEC_OK) *st = cutec_memcpy_dtoh(rt, ha, da, sizeof(float) * na);
    if (*st == CUTEC_OK) *st = cutec_memcpy_dtoh(rt, hb, db, sizeof(float) * nb);
    if (da != 0) (void)rt->drv.mem_free(da);
    if (db != 0) (void)rt->drv.mem_free(db);
    /* rows abs_blocks does not take (K or a leading dimension not a
     * multiple of 16 bytes): the samples decide */
    int taken = *st != CUTEC_ERR_UNSUPPORTED;
    if (!taken) {
        cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: no fp8 bounds: %s", cutec_runtime_message(rt));
        *st = CUTEC_OK;
    }
    if (*st == CUTEC_OK && taken) {
        int row = p->scale_mode == CUTEC_SCALE_ROW, block = p->scale_mode == CUTEC_SCALE_BLOCK;
        double a =
            2 * FP8_SUM_UNIT * fabs(h->alpha) * (p->scale_mode == CUTEC_SCALE_TENSOR ? h->hsa[0] * h->hsb[0] : 1.0);
        for (long long r = 0; r < m; r++) {
            double t = 0;
            for (long long kb = 0; kb < nkb; kb++)
                t += (block ? h->hsa[r + m * kb] : 1.0) * (double)ha[(size_t)(r * nkb + kb)];
            h->fp8_hta[r] = (float)(a * (row ? h->hsa[r] : 1.0) * t);
        }
        for (long long c = 0; c < n; c++) {
            double t = 0;
            for (long long kb = 0; kb < nkb; kb++)
                t = fmax(t, (block ? h->hsb[(c / 128) * nkb + kb] : 1.0) * (double)hb[(size_t)(c * nkb + kb)]);
            h->fp8_htb[c] = (float)((row ? h->hsb[c] : 1.0) * t);
        }
        *st = upload_floats(h, &h->fp8_ta, h->fp8_hta, m, "the fp8 bound (rows)");
        if (*st == CUTEC_OK) *st = upload_floats(h, &h->fp8_tb, h->fp8_htb, n, "the fp8 bound (columns)");
    }
    free(ha);
    free(hb);
    return *st != CUTEC_OK ? -1 : taken;
}

cutec_status tune_epi_reference(harness *h)
{
    const cutec_gemm_problem *p = h->p;
    cutec_runtime *rt = h->rt;
    h->act = cutec_gemm_act_ref(h->g, p);
    if (h->act == NULL) /* only cuBLASLt could be a candidate, and it has no form of a user's activation */
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED, "tuning: no float64 reference for activation '%s'", p->act);
    /* each step's seconds, for the log (where the reference's time goes) */
    double t0 = tune_now();
    cutec_status s = load_inputs(h);
    /* without host copies of A and B (tune_harness_init), the samples' rows and columns */
    if (s == CUTEC_OK && h->ha == NULL && p->a_layout == CUTEC_LAYOUT_ROW && p->b_layout == CUTEC_LAYOUT_COL)
        s = fetch_vectors(h);
    int samples = h->ha != NULL || h->vr != NULL;
    double t1 = tune_now();
    /* cuBLASLt's GEMM is A B without scales, or with block-wise ones (they
     * sit inside the sum); other fp8 inputs than fp8_full's are checked at
     * the samples alone (tune_epi_compare) */
    if (s == CUTEC_OK && samples && (!fp8_inputs(p) || fp8_full(p))) s = lt_acc(h);
    char why[160];
    int agree = s == CUTEC_OK && h->dacc != 0 ? acc_agrees(h, why, sizeof why, &s) : 0;
    if (s != CUTEC_OK) return s;
    if (h->dacc != 0 && agree == 0) {
        cutec_rt_log(rt, CUTEC_LOG_WARNING,
                     "tuning: cuBLASLt's GEMM disagrees with float64 samples (%s); checking against the samples "
                     "instead",
                     why);
        (void)rt->drv.mem_free(h->dacc);
        h->dacc = 0;
    }
    if (h->dacc == 0) {
        if (!samples)
            return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY,
                                 "tuning: no reference to check candidates against (no host memory for A and B)");
        cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: candidates are checked on the host: at float64 samples (%s)",
                     fp8_inputs(p) && !fp8_full(p) ? "fp8 inputs" : "no f32 GEMM from cuBLASLt");
        return load_csrc(h); /* the samples read it */
    }
    double t2 = tune_now();
    long long dn = cutec_gemm_d_cols(p);
    size_t nv = (size_t)p->m * (size_t)p->n, nd = (size_t)p->m * (size_t)dn, row = (size_t)p->n * sizeof(float);
    size_t es = cutec_dtype_size(p->c_type);
    long long brows = (long long)(REF_BLOCK_BYTES / row) > 0 ? (long long)(REF_BLOCK_BYTES / row) : 1;
    /* at least four blocks: the copies overlap the work from the second
     * (and a small problem's tuning runs the whole pipeline) */
    if (brows > (p->m + 3) / 4) brows = (p->m + 3) / 4;
    /* where the candidates are compared; 1: the reference goes up a block
     * at a time.  fp8 inputs have sums here only where fp8_full (lt_acc):
     * on the device, within fp8_bounds, against a reference made there, or
     * at the float64 samples (tune_epi_compare), never the host's */
    int dev = tune_check_epi_begin(h), fp8 = fp8_inputs(p);
    int bounds = fp8 && dev == 1 ? fp8_bounds(h, &s) : 1;
    if (bounds < 0) return s;
    /* the reference made on the device, where its kernel serves the
     * problem and agrees with float64 (tune_epi_device.c); else here */
    int made = dev == 1 && bounds > 0 ? tune_epi_device_reference(h, &s) : 0;
    if (made != 0 || fp8) {
        (void)rt->drv.mem_free(h->dacc);
        h->dacc = 0;
        h->have_ref = made > 0;
        if (made > 0 && fp8)
            cutec_rt_log(rt, CUTEC_LOG_INFO,
                         "tuning: fp8 inputs compared in full on the device, within 2^-11 of sum |a b| more (its "
                         "bound per row and column, from abs_blocks); the reference %.3f s",
                         tune_now() - t2);
        else if (made > 0)
            cutec_rt_log(rt, CUTEC_LOG_INFO,
                         "tuning: the epilogue's reference: inputs and samples %.3f s, cuBLASLt's f32 GEMM and its "
                         "check %.3f s, made on the device %.3f s",
                         t1 - t0, t2 - t1, tune_now() - t2);
        if (made != 0) return s;
        if (dev == 1) epi_device_drop(h);
        cutec_rt_log(rt, CUTEC_LOG_INFO,
                     "tuning: candidates are checked on the host: at float64 samples (fp8 inputs, no comparison on "
                     "the device)");
        return load_csrc(h);
    }
    /* the table's references are pure C; a registered one (a user's, or a
     * Python callback) is called from this thread alone */
    int parts = cutec_act_find(p->act, strlen(p->act)) != NULL ? cutec_par_parts(p->m) : 1;
    /* the problem's share of threads, each with a row of the block at
     * least: par_rows.h's 16 rows a part, applied to the block, would give
     * a block of under 256 rows fewer threads than cores (9 of 16 for the
     * Llama-70B gate+up's rows in 32 MB blocks, H200 host, 2026-11-29) */
    if (parts > brows) parts = (int)brows;
    h->ref_d = malloc(sizeof *h->ref_d * nd);
    /* v in full only where the aux output is compared with it */
    if (p->aux) h->ref_aux = malloc(sizeof *h->ref_aux * nv);
    ref_job job = {.h = h, .dn = dn};
    block_copy next = {.h = h, .row = row, .crow = (size_t)p->ld_csrc * es, .s = CUTEC_OK};
    /* two of each block buffer: the next block's is filled (by this
     * thread) while the parts work on this one's */
    int two = p->m > brows, blocks_c = csrc_in_blocks(p);
    size_t sd_bytes = (size_t)(brows * p->ldc) * es, saux_bytes = p->aux ? (size_t)(brows * p->ld_aux) * es : 0;
    float *block[2] = {NULL, NULL};
    unsigned char *cblock[2] = {NULL, NULL}, *stage_d[2] = {NULL, NULL}, *stage_aux[2] = {NULL, NULL};
    int nomem = h->ref_d == NULL || (p->aux && h->ref_aux == NULL);
    for (int i = 0; i < 1 + two; i++) {
        nomem |= (block[i] = malloc(row * (size_t)brows)) == NULL;
        if (blocks_c) nomem |= (cblock[i] = malloc(next.crow * (size_t)brows)) == NULL;
        /* zeroed: the gaps between rows (a leading dimension past the
         * width) go up too */
        if (dev == 1) nomem |= (stage_d[i] = calloc(sd_bytes, 1)) == NULL;
        if (dev == 1 && p->aux) nomem |= (stage_aux[i] = calloc(saux_bytes, 1)) == NULL;
    }
    job.scratch = p->aux ? NULL : malloc(row * (size_t)parts);
    if (nomem || (!p->aux && job.scratch == NULL))
        s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory for the reference");
    double sv = 0, sd = 0;
    if (s == CUTEC_OK) {
        next.nr = p->m < brows ? p->m : brows;
        next.dst = block[0];
        next.cdst = cblock[0];
        copy_block(&next);
        s = next.s;
    }
    for (long long r0 = 0, b = 0; s == CUTEC_OK && r0 < p->m; r0 += brows, b++) {
        long long nr = p->m - r0 < brows ? p->m - r0 : brows;
        job.r0 = r0;
        job.acc = block[b % 2];
        job.csrc = cblock[b % 2];
        job.sd = stage_d[b % 2];
        job.saux = stage_aux[b % 2];
        /* beside this block: the last one's upload, the next one's copies */
        next.up_d = b > 0 ? stage_d[(b + 1) % 2] : NULL;
        next.up_aux = stage_aux[(b + 1) % 2];
        next.up_r0 = r0 - brows;
        next.up_nr = brows;
        next.dst = block[(b + 1) % 2];
        next.cdst = cblock[(b + 1) % 2];
        next.r0 = r0 + brows;
        next.nr = p->m - next.r0 < brows ? p->m - next.r0 : brows;
        int np = parts < nr ? parts : (int)nr;
        if ((next.nr > 0 || next.up_d != NULL) && parts > 1)
            cutec_par_rows_beside(nr, np, ref_rows, &job, copy_block, &next);
        else {
            cutec_par_rows(nr, np, ref_rows, &job);
            if (next.nr > 0 || next.up_d != NULL) copy_block(&next);
        }
        s = next.s;
        for (int q = 0; q < np; q++) { /* in block and part order: the same sums on every run */
            sv += job.sv[q];
            sd += job.sd2[q];
            if (job.amax[q] > h->ref_amax) h->ref_amax = job.amax[q];
        }
        if (s == CUTEC_OK && dev == 1 && r0 + nr >= p->m) { /* the last block's rows */
            next.up_d = stage_d[b % 2];
            next.up_aux = stage_aux[b % 2];
            next.up_r0 = r0;
            next.up_nr = nr;
            next.nr = 0;
            copy_block(&next);
            s = next.s;
        }
    }
    for (int i = 0; i < 2; i++) {
        free(block[i]);
        free(cblock[i]);
        free(stage_d[i]);
        free(stage_aux[i]);
    }
    free(job.scratch);
    (void)rt->drv.mem_free(h->dacc);
    h->dacc = 0;
    if (s != CUTEC_OK) return s;
    h->rms_v = sqrt(sv / (double)nv);
    h->rms_d = sqrt(sd / (double)nd);
    h->have_ref = 1;
    double t3 = tune_now();
    if (dev == 2) s = tune_check_epi_upload(h);
    cutec_rt_log(rt, CUTEC_LOG_INFO,
                 "tuning: the epilogue's reference: inputs and samples %.3f s, cuBLASLt's f32 GEMM and its check %.3f "
                 "s, the float64 epilogue (%d thread%s, %lld-row blocks: acc%s copied in%s beside the last one's "
                 "epilogue, %.3f s of copies) %.3f s, upload %.3f s",
                 t1 - t0, t2 - t1, parts, parts == 1 ? "" : "s", brows, blocks_c ? " and the source C" : "",
                 dev == 1 ? " and the reference up" : "", next.secs, t3 - t2, tune_now() - t3);
    return s;
}

/* One element against its reference; 0, or -1 with why. */
static int close_to(double got, double want, double tol, const char *what, long long r, long long c, char *why,
                    size_t len)
{
    if (fabs(got - want) <= tol) return 0;
    snprintf(why, len, "wrong result: %s[%lld,%lld] = %.6g, reference %.6g", what, r, c, got, want);
    return -1;
}

/* An fp8 output's amax: the largest |act(v)| (exactly, within the error
 * of v: relative 2^-10 and the spread of v's rounding) or, checked at
 * samples only, at least the largest of theirs. */
static int amax_check(harness *h, double lower, char *why, size_t len)
{
    if (h->camax == 0) return 0;
    double a = h->host_amax, tol = ldexp(1.0, -10) * (h->ref_amax + h->rms_v) + 1e-30;
    if (!isfinite(a) || (lower < 0 && fabs(a - h->ref_amax) > tol) ||
        (lower >= 0 && a < lower * (1 - ldexp(1.0, -10)))) {
        snprintf(why, len, "wrong amax: %.6g, reference %s%.6g", a, lower < 0 ? "" : "at least ",
                 lower < 0 ? h->ref_amax : lower);
        return -1;
    }
    return 0;
}

/* compare_full's absolute slack on D: the error of v (the accumulation's
 * order) grows through a gated product with the other factor */
static double d_slack(const harness *h, double eps)
{
    return 2 * eps * (h->rms_d + h->rms_v * (h->p->act_gated ? 1 + h->rms_v : 1)) + 1e-30;
}

/* Every element of D and aux against the reference from acc. */
static int compare_full(harness *h, char *why, size_t len)
{
    const cutec_gemm_problem *p = h->p;
    double eps = cutec_dtype_info_of((cutec_ct)p->c_type)->tol;
    double slack = d_slack(h, eps);
    long long dn = cutec_gemm_d_cols(p);
    for (long long r = 0; r < p->m; r++)
        for (long long j = 0; j < dn; j++) {
            double want = h->ref_d[(size_t)r * (size_t)dn + (size_t)j];
            double got = load_elem(h->host_c, p->c_type, elem_index(p->c_layout, r, j, p->ldc));
            if (close_to(got, want, 2 * eps * fabs(want) + slack, "D", r, j, why, len) != 0) return -1;
        }
    for (long long r = 0; p->aux && r < p->m; r++)
        for (long long c = 0; c < p->n; c++) {
            double want = h->ref_aux[(size_t)r * (size_t)p->n + (size_t)c];
            double got = load_elem(h->host_aux, p->c_type, elem_index(p->c_layout, r, c, p->ld_aux));
            if (close_to(got, want, 2 * eps * (fabs(want) + h->rms_v) + 1e-30, "aux", r, c, why, len) != 0) return -1;
        }
    return amax_check(h, -1, why, len);
}

/* The per-tensor or row-wise scales of element (r, c) (1 without). */
static double scale_of(const harness *h, long long r, long long c)
{
    const cutec_gemm_problem *p = h->p;
    if (p->scale_mode == CUTEC_SCALE_TENSOR) return h->hsa[0] * h->hsb[0];
    if (p->scale_mode == CUTEC_SCALE_ROW) return h->hsa[r] * h->hsb[c];
    return 1.0;
}

/* compare_samples's positions and their float64 dot products (the gate's
 * and, gated, the up's), computed at the first comparison and kept: they
 * do not depend on the candidate.  Recomputed for each, they made an fp8
 * tuning of 4096^3 take 23 s, every finalist checked at 256 samples of
 * K = 4096 fp8 products (H200, 2026-11-28). */
struct epi_samp {
    long long r, j, cg, cu;
    double dg, mg, du, mu;
};

static cutec_status epi_samples(harness *h)
{
    if (h->esamp != NULL) return CUTEC_OK;
    const cutec_gemm_problem *p = h->p;
    long long dn = cutec_gemm_d_cols(p);
    struct epi_samp *e = calloc(256, sizeof *e);
    if (e == NULL) return cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (float64 samples)");
    uint64_t s = sample_seed(p);
    for (int t = 0; t < 256; t++) {
        sample(h, t, &s, dn, &e[t].r, &e[t].j);
        e[t].cg = p->act_gated ? cutec_act_gate_col(e[t].j) : e[t].j;
        e[t].cu = p->act_gated ? cutec_act_up_col(e[t].j) : e[t].j;
        e[t].dg = dot(h, e[t].r, e[t].cg, &e[t].mg);
        if (p->act_gated) e[t].du = dot(h, e[t].r, e[t].cu, &e[t].mu);
    }
    h->esamp = e;
    return CUTEC_OK;
}

/* D (and aux) at sampled positions against float64 dot products. */
static int compare_samples(harness *h, char *why, size_t len)
{
    const cutec_gemm_problem *p = h->p;
    double eps = cutec_dtype_info_of((cutec_ct)p->c_type)->tol;
    if (epi_samples(h) != CUTEC_OK) {
        snprintf(why, len, "%.150s", cutec_runtime_message(h->rt));
        return -1;
    }
    double most = 0;
    for (int t = 0; t < 256; t++) {
        const struct epi_samp *e = &h->esamp[t];
        long long r = e->r, j = e->j, cg = e->cg, cu = e->cu;
        double mg = e->mg, mu = p->act_gated ? e->mu : 0;
        double vg = epi_v(h, r, cg, e->dg), vu = p->act_gated ? epi_v(h, r, cu, e->du) : 0;
        /* the error of v, through the activation (slope about 1, or the
         * other factor of a gated one) */
        double ev = 4 * eps * fabs(h->alpha) * (mg + mu) / sqrt((double)p->k);
        if (fp8_inputs(p)) ev = fmax(ev, FP8_SUM_UNIT * fabs(h->alpha * scale_of(h, r, cg)) * (mg + mu));
        double slope = p->act_gated ? FP8_D_SLOPE * (fabs(vg) + fabs(vu) + 1) : FP8_D_SLOPE;
        double want = tune_epi_clamp(h, h->act(vg, vu));
        if (fabs(want) > most) most = fabs(want);
        want *= h->sd, ev *= fabs(h->sd); /* 1 but for an fp8 output */
        double got = load_elem(h->host_c, p->c_type, elem_index(p->c_layout, r, j, p->ldc));
        if (close_to(got, want, 2 * eps * fabs(want) + slope * ev + 1e-30, "D", r, j, why, len) != 0) return -1;
        /* aux: the pre-activation, both the gate's and (gated) the up's */
        for (int q = 0; p->aux && q < 1 + (p->act_gated != 0); q++) {
            long long ca = q ? cu : cg;
            double va = q ? vu : vg;
            double ga = load_elem(h->host_aux, p->c_type, elem_index(p->c_layout, r, ca, p->ld_aux));
            if (close_to(ga, va, 2 * eps * fabs(va) + ev + 1e-30, "aux", r, ca, why, len) != 0) return -1;
        }
    }
    return amax_check(h, most, why, len);
}

/* The device check's counts of D's and aux's elements outside its
 * bounds, those units of the output type's tolerance wide. */
static cutec_status count_on_device(harness *h, double units, long long *bad, long long *abad)
{
    const cutec_gemm_problem *p = h->p;
    double eps = cutec_dtype_info_of((cutec_ct)p->c_type)->tol, wide = units / 3;
    *bad = *abad = 0;
    double aux_slack = wide * 2 * eps * h->rms_v + 1e-30;
    int row = p->c_layout == CUTEC_LAYOUT_ROW;
    cutec_status st;
    if (h->fp8_tb != 0) { /* fp8_full: row-major, each element's fp8 bound added */
        st = cutec_gemm_check_close_rank1(h->g, p->c_type, h->rows, h->cols, p->ldc, h->cs, h->ref_dev, units * eps,
                                          wide * d_slack(h, eps), h->fp8_ta, h->fp8_tb, FP8_D_SLOPE, h->stream, bad);
        if (st == CUTEC_OK && p->aux)
            st = cutec_gemm_check_close_rank1(h->g, p->c_type, p->m, p->n, p->ld_aux, h->caux, h->ref_aux_dev,
                                              units * eps, aux_slack, h->fp8_ta, h->fp8_tb, 1.0, h->stream, abad);
        return st;
    }
    st = cutec_gemm_check_close(h->g, p->c_type, h->rows, h->cols, p->ldc, h->cs, h->ref_dev, units * eps,
                                wide * d_slack(h, eps), h->stream, bad);
    if (st == CUTEC_OK && p->aux)
        st = cutec_gemm_check_close(h->g, p->c_type, row ? p->m : p->n, row ? p->n : p->m, p->ld_aux, h->caux,
                                    h->ref_aux_dev, units * eps, aux_slack, h->stream, abad);
    return st;
}

/* Where a reference made on the device has no host copy to say where a
 * candidate is wrong: the first element of what (D or aux, rows x cols
 * with leading dimension ld as stored) outside the device check's bound,
 * from host copies of both, into why (left as it was where none is found
 * or a copy fails: the counts still say it). */
static void locate_bad(harness *h, const char *what, CUdeviceptr got, CUdeviceptr ref, long long rows, long long cols,
                       long long ld, double rel, double abs_tol, const float *ta, float ts, const char *counts,
                       char *why, size_t len)
{
    const cutec_gemm_problem *p = h->p;
    cutec_ct ct = (cutec_ct)p->c_type;
    size_t es = cutec_dtype_size(p->c_type), bytes = (size_t)((rows - 1) * ld + cols) * es;
    unsigned char *g = malloc(bytes), *r = malloc(bytes);
    int ok = g != NULL && r != NULL && cutec_memcpy_dtoh(h->rt, g, got, bytes) == CUTEC_OK &&
             cutec_memcpy_dtoh(h->rt, r, ref, bytes) == CUTEC_OK;
    for (long long i = 0; ok && i < rows; i++)
        for (long long j = 0; j < cols; j++) {
            size_t at = (size_t)(i * ld + j) * es;
            float x = (float)cutec_dtype_load(ct, g + at), y = (float)cutec_dtype_load(ct, r + at);
            /* (ta: fp8_full's row bounds, row-major, with h->fp8_htb, as
             * check_close_rank1 adds them) */
            float extra = ta != NULL ? ta[i] * (ts * h->fp8_htb[j]) : 0.0f;
            if (fabsf(x - y) <= (float)rel * fabsf(y) + ((float)abs_tol + extra)) continue;
            int row = p->c_layout == CUTEC_LAYOUT_ROW;
            snprintf(why, len, "wrong result: %s[%lld,%lld] = %.6g, reference %.6g (device check: %.80s)", what,
                     row ? i : j, row ? j : i, (double)x, (double)y, counts);
            ok = 0;
            break;
        }
    free(g);
    free(r);
}

int tune_epi_compare_on_device(harness *h, char *why, size_t why_len, cutec_status *st)
{
    long long bad = 0, abad = 0;
    /* compare_full's bounds, plus one unit for the reference's rounding */
    *st = count_on_device(h, 3, &bad, &abad);
    /* a reference made on the device has no float64 host copy to have the
     * last word on a borderline element (a result rounded twice, as the
     * unfused baseline's bf16 intermediate is): one unit more, logged */
    long long wbad = 0, wabad = 0;
    if (*st == CUTEC_OK && (bad > 0 || abad > 0) && h->ref_on_device) {
        *st = count_on_device(h, 4, &wbad, &wabad);
        if (*st == CUTEC_OK && wbad == 0 && wabad == 0)
            cutec_rt_log(h->rt, CUTEC_LOG_WARNING,
                         "tuning: %lld elements of D and %lld of aux within one more unit of the device check's "
                         "bounds: passed",
                         bad, abad);
        if (*st == CUTEC_OK && wbad == 0 && wabad == 0) bad = abad = 0;
    }
    if (*st != CUTEC_OK) {
        snprintf(why, why_len, "the device check failed: %.120s", cutec_runtime_message(h->rt));
        return -1;
    }
    if (bad > 0 || abad > 0) {
        snprintf(why, why_len, "wrong result: %lld elements of D and %lld of aux outside the tolerance (device check)",
                 bad, abad);
        if (h->ref_on_device) {
            const cutec_gemm_problem *p = h->p;
            double eps = cutec_dtype_info_of((cutec_ct)p->c_type)->tol;
            int row = p->c_layout == CUTEC_LAYOUT_ROW;
            char counts[96];
            snprintf(counts, sizeof counts, "%lld elements of D and %lld of aux outside the tolerance", bad, abad);
            if (bad > 0)
                locate_bad(h, "D", h->cs, h->ref_dev, h->rows, h->cols, p->ldc, 4 * eps, 4.0 / 3 * d_slack(h, eps),
                           h->fp8_hta, (float)FP8_D_SLOPE, counts, why, why_len);
            else
                locate_bad(h, "aux", h->caux, h->ref_aux_dev, row ? p->m : p->n, row ? p->n : p->m, p->ld_aux, 4 * eps,
                           4.0 / 3 * (2 * eps * h->rms_v + 1e-30), h->fp8_hta, 1.0f, counts, why, why_len);
        }
        return -1;
    }
    return amax_check(h, -1, why, why_len);
}

int tune_epi_compare(harness *h, char *why, size_t why_len)
{
    /* fp8 inputs against float64 samples: the full reference is cuBLASLt's
     * fp8 sums, as short of f32 as the candidate's */
    int fp8 = fp8_inputs(h->p);
    return h->ref_d != NULL && !fp8 ? compare_full(h, why, why_len) : compare_samples(h, why, why_len);
}
