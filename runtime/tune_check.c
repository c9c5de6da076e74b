/*
 * tune_check.c - comparing a candidate's output with the reference on the
 * device: stdlib/check_close.cute's kernel, whose pack the build embeds in
 * the runtime (runtime/CMakeLists.txt, check_pack.c), counts the elements
 * outside the tolerance and only the count comes back, where the host
 * check copied the whole output (940 MB for the Llama-70B gate+up
 * projection) for every candidate.  Loaded with the driver alone (no LLVM:
 * PTX for sm_80, JIT-compiled by the driver once per handle), and trusted
 * only after a self-test on known data: a runtime built without the pack,
 * a driver that cannot load it, or one that does not run it (the tests'
 * mock driver) leaves the host check in charge.
 */
#include "par_rows.h"
#include "tune_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char cutec_check_pack[];
extern const size_t cutec_check_pack_size;

/* The check's entry for element type t (-1 when the pack has none). */
static int check_entry(cutec_pack *pack, cutec_dtype t)
{
    char params[32];
    snprintf(params, sizeof params, "T=%s", cutec_dtype_name(t));
    return cutec_pack_find(pack, "check_close", params);
}

/* Counts !(|x - y| <= rel |y| + abs (+ ts ta[r] tb[c] where ta is not 0:
 * check_close_rank1)) over rows x cols (leading dimension ld) of type t:
 * the launch and the copy of the count, no self-test. */
static cutec_status count_bad(cutec_gemm_handle *g, cutec_dtype t, long long rows, long long cols, long long ld,
                              CUdeviceptr x, CUdeviceptr y, double rel, double abs_tol, CUdeviceptr ta, CUdeviceptr tb,
                              double ts, void *stream, long long *bad)
{
    cutec_runtime *rt = g->rt;
    char params[32];
    snprintf(params, sizeof params, "T=%s", cutec_dtype_name(t));
    int e = ta != 0 ? cutec_pack_find(g->check_pack, "check_close_rank1", params) : check_entry(g->check_pack, t);
    if (e < 0)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED, "the check kernel has no entry for %s", cutec_dtype_name(t));
    int r = (int)rows, c = (int)cols, l = (int)ld;
    float frel = (float)rel, fabs_tol = (float)abs_tol, fts = (float)ts;
    unsigned long long px = x, py = y, pb = g->check_count, pa = ta, pt = tb;
    void *plain[] = {&r, &c, &l, &px, &py, &frel, &fabs_tol, &pb};
    void *rank1[] = {&r, &c, &l, &px, &py, &frel, &fabs_tol, &pa, &pt, &fts, &pb};
    void **args = ta != 0 ? rank1 : plain;
    CUresult cr = rt->drv.memset_d8_async(g->check_count, 0, sizeof(int), (CUstream)stream);
    if (cr != CUDA_SUCCESS) return cutec_rt_fail_driver(rt, cr, CUTEC_RT_PHASE_GENERIC, "cuMemsetD8Async(check count)");
    cutec_status s = cutec_pack_launch(g->check_pack, e, NULL, stream, args);
    if (s == CUTEC_OK) s = cutec_stream_synchronize(rt, stream);
    int n = 0;
    if (s == CUTEC_OK) s = cutec_memcpy_dtoh(rt, &n, g->check_count, sizeof n);
    *bad = n;
    return s;
}

/* The check kernel is missing or does not work: the status and message of
 * a failure, logged as information only (the tuner then checks on the
 * host, as it always could; an error line in a user's log would be
 * wrong). */
static cutec_status check_unavailable(cutec_runtime *rt, const char *why)
{
    snprintf(rt->message, sizeof rt->message, "%s", why);
    cutec_rt_log(rt, CUTEC_LOG_INFO, "the device check is unavailable: %s", why);
    return CUTEC_ERR_UNSUPPORTED;
}

/* The pack, its count buffer and a self-test per handle and type: two
 * wrong elements of four (a NaN and one off by 25%) must count 2, the same
 * data compared with itself 0. */
static cutec_status check_ready(cutec_gemm_handle *g, cutec_dtype t, void *stream)
{
    cutec_runtime *rt = g->rt;
    int ti = (int)t - 1;
    if (g->check_state[ti] > 0) return CUTEC_OK;
    if (g->check_state[ti] < 0) return check_unavailable(rt, g->check_why);
    cutec_status s = CUTEC_OK;
    if (cutec_check_pack_size == 0) {
        snprintf(g->check_why, sizeof g->check_why, "the runtime was built without its check kernel");
        s = CUTEC_ERR_UNSUPPORTED;
    }
    if (s == CUTEC_OK && g->check_pack == NULL) {
        s = cutec_pack_load_data(rt, cutec_check_pack, cutec_check_pack_size, &g->check_pack);
        if (s != CUTEC_OK) g->check_pack = NULL;
        if (s == CUTEC_OK && rt->drv.mem_alloc(&g->check_count, 256) != CUDA_SUCCESS) {
            g->check_count = 0;
            s = CUTEC_ERR_OUT_OF_MEMORY;
        }
        if (s != CUTEC_OK)
            snprintf(g->check_why, sizeof g->check_why, "its pack does not load: %.200s", cutec_runtime_message(rt));
    }
    CUdeviceptr buf = 0;
    if (s == CUTEC_OK && rt->drv.mem_alloc(&buf, 64) != CUDA_SUCCESS) {
        buf = 0;
        s = CUTEC_ERR_OUT_OF_MEMORY;
        snprintf(g->check_why, sizeof g->check_why, "no device memory for its self-test");
    }
    long long bad = -1, same = -1;
    if (s == CUTEC_OK) {
        const float xs[4] = {1.0f, 2.0f, NAN, 4.0f}, ys[4] = {1.0f, 2.0f, 3.0f, 5.0f};
        unsigned char host[32];
        size_t es = cutec_dtype_size(t);
        for (int i = 0; i < 4; i++) {
            cutec_dtype_store((cutec_ct)t, host + es * (size_t)i, xs[i]);
            cutec_dtype_store((cutec_ct)t, host + es * (size_t)(4 + i), ys[i]);
        }
        s = cutec_memcpy_htod(rt, buf, host, 8 * es);
        if (s == CUTEC_OK) s = count_bad(g, t, 2, 2, 2, buf, buf + 4 * es, 0.01, 1e-6, 0, 0, 0, stream, &bad);
        if (s == CUTEC_OK) s = count_bad(g, t, 2, 2, 2, buf + 4 * es, buf + 4 * es, 0.01, 1e-6, 0, 0, 0, stream, &same);
        if (s == CUTEC_ERR_KERNEL_FAULT) return s;
        if (s != CUTEC_OK)
            snprintf(g->check_why, sizeof g->check_why, "it does not run: %.200s", cutec_runtime_message(rt));
        else if (bad != 2 || same != 0)
            snprintf(g->check_why, sizeof g->check_why,
                     "its self-test counted %lld of 2 wrong elements and %lld of 0 (the driver does not run it)", bad,
                     same);
        if (s == CUTEC_OK && (bad != 2 || same != 0)) s = CUTEC_ERR_UNSUPPORTED;
    }
    if (buf != 0) (void)rt->drv.mem_free(buf);
    g->check_state[ti] = s == CUTEC_OK ? 1 : -1;
    if (s != CUTEC_OK) return check_unavailable(rt, g->check_why);
    return CUTEC_OK;
}

cutec_status cutec_gemm_check_close(cutec_gemm_handle *g, cutec_dtype t, long long rows, long long cols, long long ld,
                                    CUdeviceptr x, CUdeviceptr y, double rel, double abs_tol, void *stream,
                                    long long *bad)
{
    *bad = -1;
    if (rows < 1 || cols < 1 || ld < cols || rows > 0x7fffffffLL / ld)
        return cutec_rt_fail(g->rt, CUTEC_ERR_UNSUPPORTED, "the check kernel takes at most 2^31 elements");
    cutec_status s = check_ready(g, t, stream);
    if (s != CUTEC_OK) return s;
    return count_bad(g, t, rows, cols, ld, x, y, rel, abs_tol, 0, 0, 0, stream, bad);
}

cutec_status cutec_gemm_check_close_rank1(cutec_gemm_handle *g, cutec_dtype t, long long rows, long long cols,
                                          long long ld, CUdeviceptr x, CUdeviceptr y, double rel, double abs_tol,
                                          CUdeviceptr ta, CUdeviceptr tb, double ts, void *stream, long long *bad)
{
    *bad = -1;
    if (rows < 1 || cols < 1 || ld < cols || rows > 0x7fffffffLL / ld)
        return cutec_rt_fail(g->rt, CUTEC_ERR_UNSUPPORTED, "the check kernel takes at most 2^31 elements");
    if (ta == 0 || tb == 0) return cutec_rt_fail(g->rt, CUTEC_ERR_INVALID_ARGUMENT, "check_close_rank1: no bounds");
    cutec_status s = cutec_gemm_fp8_ready(g, t, stream);
    if (s != CUTEC_OK) return s;
    return count_bad(g, t, rows, cols, ld, x, y, rel, abs_tol, ta, tb, ts, stream, bad);
}

/* abs_blocks's launch (the bytes read four to an i32), no self-test. */
static cutec_status launch_abs_blocks(cutec_gemm_handle *g, cutec_dtype t, long long rows, long long k, long long ld,
                                      CUdeviceptr x, int maxed, CUdeviceptr out, void *stream)
{
    cutec_runtime *rt = g->rt;
    int e = cutec_pack_find(g->check_pack, "abs_blocks", "");
    if (e < 0) return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED, "the check pack has no abs_blocks kernel");
    if (rows < 1 || k < 1 || k % 16 != 0 || ld % 16 != 0 || ld < k || rows > 0x7fffffffLL / ld)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "abs_blocks: %lld x %lld (ld %lld) is not whole 16-byte rows within 2^31 bytes", rows, k,
                             ld);
    int r = (int)rows, k4 = (int)(k / 4), ld4 = (int)(ld / 4), fmt = t == CUTEC_DTYPE_E5M2, mx = maxed != 0;
    int nkb = (int)((k + 127) / 128);
    unsigned long long px = x, po = out;
    void *args[] = {&r, &k4, &ld4, &px, &fmt, &mx, &nkb, &po};
    return cutec_pack_launch(g->check_pack, e, NULL, stream, args);
}

cutec_status cutec_gemm_fp8_abs_blocks(cutec_gemm_handle *g, cutec_dtype t, long long rows, long long k, long long ld,
                                       CUdeviceptr x, int maxed, CUdeviceptr out, void *stream)
{
    cutec_status s = cutec_gemm_fp8_ready(g, CUTEC_DTYPE_F32, stream);
    if (s != CUTEC_OK) return s;
    if (!cutec_dtype_is_fp8(t))
        return cutec_rt_fail(g->rt, CUTEC_ERR_INVALID_ARGUMENT, "abs_blocks: %s is no fp8 type", cutec_dtype_name(t));
    return launch_abs_blocks(g, t, rows, k, ld, x, maxed, out, stream);
}

/* abs_blocks's self-test for one format: rows 0 .. 255 and 255 .. 0 of
 * every byte (two 128-byte blocks each), the blocks' sums and largest
 * magnitudes against the contract's decoding (a NaN or an infinity as the
 * format's largest value, as the kernel takes them); 1 passed, 0 not
 * (why), -1 (a fault). */
static int abs_blocks_selftest(cutec_gemm_handle *g, cutec_dtype t, CUdeviceptr buf, void *stream)
{
    cutec_runtime *rt = g->rt;
    unsigned char bytes[512];
    double sum[2] = {0, 0}, most[2] = {0, 0}, top = t == CUTEC_DTYPE_E5M2 ? 57344.0 : 448.0;
    for (int i = 0; i < 256; i++) {
        bytes[i] = (unsigned char)i, bytes[511 - i] = (unsigned char)i;
        double v = fabs(cutec_dtype_load((cutec_ct)t, &bytes[i]));
        if (!isfinite(v)) v = top;
        sum[i / 128] += v;
        most[i / 128] = v > most[i / 128] ? v : most[i / 128];
    }
    /* rows 0 and 1, blocks 0 and 1: row 1's blocks are row 0's swapped */
    const double want[2][4] = {{sum[0], sum[1], sum[1], sum[0]}, {most[0], most[1], most[1], most[0]}};
    float got[8] = {0};
    cutec_status s = cutec_memcpy_htod(rt, buf, bytes, sizeof bytes);
    if (s == CUTEC_OK) s = launch_abs_blocks(g, t, 2, 256, 256, buf, 0, buf + 512, stream);
    if (s == CUTEC_OK) s = launch_abs_blocks(g, t, 2, 256, 256, buf, 1, buf + 528, stream);
    if (s == CUTEC_OK) s = cutec_stream_synchronize(rt, stream);
    if (s == CUTEC_OK) s = cutec_memcpy_dtoh(rt, got, buf + 512, sizeof got);
    if (s == CUTEC_ERR_KERNEL_FAULT) return -1;
    if (s != CUTEC_OK) {
        snprintf(g->check_why, sizeof g->check_why, "abs_blocks does not run: %.200s", cutec_runtime_message(rt));
        return 0;
    }
    for (int i = 0; i < 4; i++)
        if (!(fabs(got[i] - want[0][i]) <= 1e-5 * want[0][i]) || got[4 + i] != (float)want[1][i]) {
            snprintf(g->check_why, sizeof g->check_why,
                     "abs_blocks's self-test (%s): block %d sum %g largest %g, want %g and %g", cutec_dtype_name(t), i,
                     (double)got[i], (double)got[4 + i], want[0][i], want[1][i]);
            return 0;
        }
    return 1;
}

cutec_status cutec_gemm_fp8_ready(cutec_gemm_handle *g, cutec_dtype t, void *stream)
{
    cutec_runtime *rt = g->rt;
    /* the plain check first (its pack, count buffer and self-test) */
    cutec_status s = check_ready(g, t, stream);
    if (s != CUTEC_OK) return s;
    if (g->check_fp8_state > 0) return CUTEC_OK;
    if (g->check_fp8_state < 0) return check_unavailable(rt, g->check_why);
    CUdeviceptr buf = 0;
    if (rt->drv.mem_alloc(&buf, 1024) != CUDA_SUCCESS) {
        snprintf(g->check_why, sizeof g->check_why, "no device memory for the fp8 kernels' self-test");
        g->check_fp8_state = -1;
        return check_unavailable(rt, g->check_why);
    }
    int ok = abs_blocks_selftest(g, CUTEC_DTYPE_E4M3, buf, stream);
    if (ok > 0) ok = abs_blocks_selftest(g, CUTEC_DTYPE_E5M2, buf, stream);
    /* check_close_rank1 (f32): of x = (1, 2, NaN, 4) against y = (1, 2, 3,
     * 5), 2 x 2, ta = (0, 1), tb = (0, 2), ts = 0.75, the NaN counts and 4
     * passes (|4 - 5| <= 1.5; with ts = 0.25 it would not): 1 */
    long long bad = -1;
    if (ok > 0) {
        const float h[8] = {1.0f, 2.0f, NAN, 4.0f, 1.0f, 2.0f, 3.0f, 5.0f}, ab[4] = {0.0f, 1.0f, 0.0f, 2.0f};
        s = cutec_memcpy_htod(rt, buf, h, sizeof h);
        if (s == CUTEC_OK) s = cutec_memcpy_htod(rt, buf + 64, ab, sizeof ab);
        if (s == CUTEC_OK)
            s = count_bad(g, CUTEC_DTYPE_F32, 2, 2, 2, buf, buf + 16, 0.01, 1e-6, buf + 64, buf + 72, 0.75, stream,
                          &bad);
        if (s == CUTEC_ERR_KERNEL_FAULT)
            ok = -1;
        else if (s != CUTEC_OK || bad != 1) {
            snprintf(g->check_why, sizeof g->check_why, "check_close_rank1's self-test counted %lld of 1 (%.160s)", bad,
                     s != CUTEC_OK ? cutec_runtime_message(rt) : "the driver does not run it");
            ok = 0;
        }
    }
    (void)rt->drv.mem_free(buf);
    if (ok < 0) return CUTEC_ERR_KERNEL_FAULT;
    g->check_fp8_state = ok > 0 ? 1 : -1;
    return ok > 0 ? CUTEC_OK : check_unavailable(rt, g->check_why);
}

void cutec_gemm_check_release(cutec_gemm_handle *g)
{
    cutec_runtime *rt = g->rt;
    if (g->check_count != 0 && rt != NULL && rt->init_status == CUTEC_OK) (void)rt->drv.mem_free(g->check_count);
    g->check_count = 0;
    if (g->check_pack != NULL) cutec_pack_unload(g->check_pack);
    g->check_pack = NULL;
    memset(g->check_state, 0, sizeof g->check_state);
    g->check_fp8_state = 0;
}

/* Where candidates will be compared: on the host, logged why (0), or on
 * the device, C being rows x cols (1). */
static int check_verdict(harness *h, const char *why, long long rows, long long cols)
{
    if (why != NULL) {
        cutec_rt_log(h->rt, CUTEC_LOG_INFO, "tuning: candidates are checked on the host: %s", why);
        return 0;
    }
    h->rows = rows;
    h->cols = cols;
    h->device_check = 1;
    return 1;
}

/* The harness's side, before the reference runs: whether candidates will
 * be compared on the device.  If so the reference stays on the device (in
 * the scratch C it is computed into: tune_run_once copies nothing back),
 * is checked against the float64 samples there, and a second scratch C
 * (spare) takes the candidates' outputs: no copy of C to the host, which
 * for the Llama-70B gate+up projection (940 MB) cost more than timing a
 * candidate.  The self-test runs here, on known data. */
int tune_check_prepare(harness *h)
{
    cutec_runtime *rt = h->rt;
    cutec_gemm_handle *g = h->g;
    const cutec_gemm_problem *p = h->p;
    const char *why = NULL;
    long long rows = p->c_layout == CUTEC_LAYOUT_ROW ? p->m : cutec_gemm_d_cols(p);
    long long cols = p->c_layout == CUTEC_LAYOUT_ROW ? cutec_gemm_d_cols(p) : p->m;
    if (!g->device_check)
        why = "CUTEC_OPT_DEVICE_CHECK is 0";
    else if (h->epi)
        why = "a problem with an epilogue is compared on the host (tune_epilogue.c)";
    else if (p->batch > 1)
        why = "a batch is compared on the host (its first, a middle and its last problems)";
    else if (rows < 1 || cols < 1 || rows > 0x7fffffffLL / p->ldc)
        why = "the check kernel takes at most 2^31 elements";
    if (why == NULL && check_ready(g, p->c_type, h->stream) != CUTEC_OK) why = cutec_runtime_message(rt);
    if (why == NULL && rt->drv.mem_alloc(&h->spare, h->c_bytes) != CUDA_SUCCESS) {
        h->spare = 0;
        why = "no device memory for a second output";
    }
    return check_verdict(h, why, rows, cols);
}

/* The RMS of the reference (the device check's absolute tolerance) from
 * up to 64 evenly spaced rows of C (all of them when it has fewer): a few
 * MB copied instead of all of C; the host check, where it has the last
 * word, computes it over all of C (tune_ref_to_host). */
static cutec_status ref_rms_rows(harness *h)
{
    const cutec_gemm_problem *p = h->p;
    size_t es = cutec_dtype_size(p->c_type);
    long long nr = h->rows < 64 ? h->rows : 64;
    unsigned char *row = malloc((size_t)h->cols * es);
    if (row == NULL) return cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    double sum2 = 0;
    cutec_status s = CUTEC_OK;
    for (long long i = 0; i < nr && s == CUTEC_OK; i++) {
        long long r = tune_spaced_row(i, nr, h->rows);
        s = cutec_memcpy_dtoh(h->rt, row, h->ref_dev + (size_t)(r * p->ldc) * es, (size_t)h->cols * es);
        for (long long c = 0; c < h->cols && s == CUTEC_OK; c++) {
            double v = cutec_dtype_load((cutec_ct)p->c_type, row + (size_t)c * es);
            sum2 += v * v;
        }
    }
    free(row);
    if (s == CUTEC_OK) h->ref_rms = sqrt(sum2 / ((double)nr * (double)h->cols));
    return s;
}

cutec_status tune_check_adopt(harness *h)
{
    h->ref_dev = h->cs;
    h->cs = h->spare;
    h->spare = 0;
    h->run.D = (void *)(uintptr_t)h->cs;
    if (!h->p->c_source) h->run.C = h->run.D;
    h->have_ref = 1;
    cutec_rt_log(h->rt, CUTEC_LOG_INFO, "tuning: candidates are checked on the device (stdlib/check_close.cute)");
    return ref_rms_rows(h);
}

void tune_check_drop(harness *h)
{
    if (h->spare != 0) (void)h->rt->drv.mem_free(h->spare);
    h->spare = 0;
    h->device_check = 0;
}

cutec_status tune_ref_to_host(harness *h)
{
    if (h->ref != NULL) return CUTEC_OK;
    if ((h->ref = malloc(h->c_bytes)) == NULL)
        return cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (%zu bytes)", h->c_bytes);
    cutec_status s = cutec_memcpy_dtoh(h->rt, h->ref, h->ref_dev, h->c_bytes);
    h->ref_rms = -1; /* over all of C, now that the host has it */
    return s;
}

int tune_check_on_device(harness *h, char *why, size_t why_len, cutec_status *st)
{
    const cutec_gemm_problem *p = h->p;
    double eps = cutec_dtype_info_of((cutec_ct)p->c_type)->tol;
    long long bad = 0;
    /* compare_full's bound: 2 ulp of the value plus 2 ulp of the RMS */
    *st = cutec_gemm_check_close(h->g, p->c_type, h->rows, h->cols, p->ldc, h->cs, h->ref_dev, 2 * eps,
                                 2 * eps * h->ref_rms + 1e-30, h->stream, &bad);
    if (*st != CUTEC_OK) {
        snprintf(why, why_len, "the device check failed: %.120s", cutec_runtime_message(h->rt));
        return -1;
    }
    if (bad > 0) snprintf(why, why_len, "wrong result: %lld elements outside the tolerance (device check)", bad);
    return bad > 0 ? -1 : 0;
}

/* A reference of m x n floats (row-major, as tune_epilogue.c keeps it)
 * stored as type t in layout l, leading dimension ld: rows r0 .. r1, one
 * part of tune_check_epi_upload's loop (par_rows.h). */
typedef struct store_job {
    const float *ref;
    unsigned char *buf;
    cutec_ct t;
    size_t es;
    long long n, ld;
    cutec_layout l;
} store_job;

static void store_rows(void *ctx, int part, long long r0, long long r1)
{
    (void)part;
    const store_job *j = ctx;
    for (long long r = r0; r < r1; r++)
        for (long long c = 0; c < j->n; c++) {
            size_t at = (size_t)(j->l == CUTEC_LAYOUT_ROW ? r * j->ld + c : c * j->ld + r);
            cutec_dtype_store(j->t, j->buf + at * j->es, j->ref[(size_t)r * (size_t)j->n + (size_t)c]);
        }
}

/* The reference ref (m x n floats, row-major) in an output buffer of the
 * problem's output type, layout l, leading dimension ld, bytes long,
 * uploaded to the device buffer dev. */
static cutec_status upload_ref(harness *h, const float *ref, long long m, long long n, cutec_layout l, long long ld,
                               size_t bytes, CUdeviceptr dev)
{
    cutec_runtime *rt = h->rt;
    unsigned char *buf = calloc(bytes, 1);
    if (buf == NULL) return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (%zu bytes)", bytes);
    store_job job = {.ref = ref,
                     .buf = buf,
                     .t = (cutec_ct)h->p->c_type,
                     .es = cutec_dtype_size(h->p->c_type),
                     .n = n,
                     .ld = ld,
                     .l = l};
    cutec_par_rows(m, cutec_par_parts(m), store_rows, &job);
    cutec_status s = cutec_memcpy_htod(rt, dev, buf, bytes);
    free(buf);
    return s;
}

/* An epilogue's candidates were compared with its float64-derived
 * reference on the host, every element of every finalist: for a bias +
 * GELU at 8192^3 about half a second each, most of a 10 s tuning
 * (docs/performance.md).  Here the reference goes to the device and the
 * check kernel compares each candidate there.  Decided before the
 * reference is made, so that a row-major reference goes up a block of
 * rows at a time beside the host's work on the next block
 * (tune_epilogue.c): uploaded whole afterwards, the Llama-70B gate+up's
 * (940 MB) took 0.2-0.4 s of a 3.7-3.9 s tuning (H200, 2026-11-29). */
int tune_check_epi_begin(harness *h)
{
    cutec_runtime *rt = h->rt;
    cutec_gemm_handle *g = h->g;
    const cutec_gemm_problem *p = h->p;
    long long dn = cutec_gemm_d_cols(p);
    int row = p->c_layout == CUTEC_LAYOUT_ROW;
    long long rows = row ? p->m : dn, cols = row ? dn : p->m;
    long long arows = row ? p->m : p->n, acols = row ? p->n : p->m;
    const char *why = NULL;
    if (!g->device_check)
        why = "CUTEC_OPT_DEVICE_CHECK is 0";
    else if (p->batch > 1 || p->groups > 0)
        why = "a batch or grouped problem's epilogue is compared on the host";
    else if (rows < 1 || cols < 1 || rows > 0x7fffffffLL / p->ldc ||
             (p->aux && (arows < 1 || acols < 1 || arows > 0x7fffffffLL / p->ld_aux)))
        why = "the check kernel takes at most 2^31 elements";
    if (why == NULL && check_ready(g, p->c_type, h->stream) != CUTEC_OK) why = cutec_runtime_message(rt);
    cutec_status s = CUTEC_OK;
    if (why == NULL) s = tune_alloc_device(h, &h->ref_dev, h->c_bytes, "the epilogue's reference");
    if (why == NULL && s == CUTEC_OK && p->aux)
        s = tune_alloc_device(h, &h->ref_aux_dev, h->aux_bytes, "the epilogue's reference aux");
    if (why == NULL && s != CUTEC_OK) why = cutec_runtime_message(rt);
    if (check_verdict(h, why, rows, cols) == 0) {
        if (h->ref_dev != 0) (void)rt->drv.mem_free(h->ref_dev);
        h->ref_dev = 0;
        return 0;
    }
    cutec_rt_log(rt, CUTEC_LOG_INFO,
                 "tuning: candidates are checked on the device (stdlib/check_close.cute) against the epilogue's "
                 "reference");
    return row ? 1 : 2;
}

cutec_status tune_check_epi_upload(harness *h)
{
    const cutec_gemm_problem *p = h->p;
    long long dn = cutec_gemm_d_cols(p);
    cutec_status s = upload_ref(h, h->ref_d, p->m, dn, p->c_layout, p->ldc, h->c_bytes, h->ref_dev);
    if (s == CUTEC_OK && p->aux)
        s = upload_ref(h, h->ref_aux, p->m, p->n, p->c_layout, p->ld_aux, h->aux_bytes, h->ref_aux_dev);
    return s;
}

cutec_status tune_check_epi_rows(harness *h, const unsigned char *d, const unsigned char *aux, long long r0,
                                 long long nr)
{
    const cutec_gemm_problem *p = h->p;
    size_t es = cutec_dtype_size(p->c_type);
    size_t at = (size_t)(r0 * p->ldc) * es, bytes = (size_t)((nr - 1) * p->ldc + cutec_gemm_d_cols(p)) * es;
    cutec_status s = cutec_memcpy_htod(h->rt, h->ref_dev + at, d, bytes);
    if (s == CUTEC_OK && p->aux)
        s = cutec_memcpy_htod(h->rt, h->ref_aux_dev + (size_t)(r0 * p->ld_aux) * es, aux,
                              (size_t)((nr - 1) * p->ld_aux + p->n) * es);
    return s;
}
