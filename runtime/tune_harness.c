/*
 * tune_harness.c - the GEMM tuner's one harness (tune_harness.h).  Each
 * candidate first runs once into a scratch C that was filled with NaN
 * bytes and is compared with the reference (the first cuBLASLt algorithm's
 * result, itself checked against a float64 host computation of sampled
 * elements; without cuBLASLt, the samples alone), so a kernel that writes
 * nothing, or wrong values, or fails to load or launch, scores +inf with
 * the reason logged.  Timed runs go in rounds on the caller's stream, each
 * preceded by a write of a buffer twice the size of L2 (outside the timed
 * interval) and bracketed by CUDA events; the score is the median.
 */
#include "tune_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- numbers ---- */

/* Element i of a buffer of type t, through the one dtype table. */
static double load_elem(const unsigned char *buf, cutec_dtype t, size_t i)
{
    cutec_ct ct = (cutec_ct)t;
    return cutec_dtype_load(ct, buf + (size_t)cutec_dtype_bytes(ct) * i);
}

/* Element (r, c) of a matrix stored with layout l and ld. */
static size_t elem_index(cutec_layout l, long long r, long long c, long long ld)
{
    return (size_t)(l == CUTEC_LAYOUT_ROW ? r * ld + c : c * ld + r);
}

/* Relative tolerance unit of the output type (the dtype table's). */
static double out_eps(cutec_dtype t) { return cutec_dtype_info_of((cutec_ct)t)->tol; }

/* ---- the harness ---- */

double tune_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Over the checked problems of a batch (all of one problem): the first,
 * a middle one and the last, D's at l * stride_d. */
void tune_ref_rms(harness *h)
{
    const cutec_gemm_problem *p = h->p;
    if (h->ref_rms >= 0) return;
    long long ls[3];
    int nl = cutec_gemm_checked_entries(p, ls);
    double sum2 = 0;
    for (int e = 0; e < nl; e++)
        for (long long r = 0; r < p->m; r++)
            for (long long c = 0; c < p->n; c++) {
                double v =
                    load_elem(h->ref, p->c_type, (size_t)(ls[e] * p->stride_d) + elem_index(p->c_layout, r, c, p->ldc));
                sum2 += v * v;
            }
    h->ref_rms = sqrt(sum2 / ((double)nl * (double)p->m * (double)p->n));
}

/* Compares the candidate's output with the reference C; 0 or -1 with why. */
static int compare_full(harness *h, char *why, size_t why_len)
{
    const cutec_gemm_problem *p = h->p;
    tune_ref_rms(h);
    double rms = h->ref_rms, eps = out_eps(p->c_type);
    long long ls[3];
    int nl = cutec_gemm_checked_entries(p, ls);
    for (int e = 0; e < nl; e++)
        for (long long r = 0; r < p->m; r++)
            for (long long c = 0; c < p->n; c++) {
                size_t i = (size_t)(ls[e] * p->stride_d) + elem_index(p->c_layout, r, c, p->ldc);
                double want = load_elem(h->ref, p->c_type, i), got = load_elem(h->host_c, p->c_type, i);
                double tol = 2 * eps * fabs(want) + 2 * eps * rms + 1e-30;
                if (!(fabs(got - want) <= tol)) {
                    if (p->batch > 1)
                        snprintf(why, why_len, "wrong result: C[%lld,%lld] of problem %lld = %.6g, reference %.6g", r,
                                 c, ls[e], got, want);
                    else
                        snprintf(why, why_len, "wrong result: C[%lld,%lld] = %.6g, reference %.6g", r, c, got, want);
                    return -1;
                }
            }
    return 0;
}

/* A grouped problem's group of row r (its clamped row ends, ascending). */
static long long group_of(const harness *h, long long r)
{
    long long lo = 0, hi = h->p->groups - 1;
    while (lo < hi) {
        long long mid = (lo + hi) / 2;
        if (h->hends[mid] > r)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The float64 samples: 256 positions of C (its corners first), the same
 * for every candidate, each one's dot product computed once.  Grouped, the
 * rows sampled are the groups' (the rows past the last end are never
 * written), each with its group's B.  The vectors come from the host
 * copies of A and B, or, where the call made none (from_device), each row
 * of A and column of B alone from the device (A row-major and B
 * K-contiguous: contiguous vectors), so that tuning a problem whose B is
 * the experts' 15 GB of weights copies 256 rows and columns, not them. */
static cutec_status samples_prepare(harness *h, int from_device)
{
    const cutec_gemm_problem *p = h->p;
    long long rows = p->groups > 0 ? h->hends[p->groups - 1] : p->m;
    size_t ea = cutec_dtype_size(p->a_type), eb = cutec_dtype_size(p->b_type);
    unsigned char *va = NULL, *vb = NULL;
    h->samp = calloc(256, sizeof *h->samp);
    if (from_device) va = malloc((size_t)p->k * ea), vb = malloc((size_t)p->k * eb);
    if (h->samp == NULL || (from_device && (va == NULL || vb == NULL))) {
        free(va), free(vb);
        return cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (float64 samples)");
    }
    uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)(p->m * 31 + p->n * 17 + p->k);
    long long ls[3];
    int nl = cutec_gemm_checked_entries(p, ls);
    cutec_status st = CUTEC_OK;
    for (int t = 0; t < 256 && rows > 0 && st == CUTEC_OK; t++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        long long r = t < 2 ? 0 : t < 4 ? rows - 1 : (long long)((s >> 20) % (uint64_t)rows);
        long long c = t < 2 ? 0 : t < 4 ? p->n - 1 : (long long)((s >> 40) % (uint64_t)p->n);
        long long l = ls[t % nl]; /* a batch's checked problems in turn */
        size_t oa = (size_t)(l * p->stride_a), ob = (size_t)(l * p->stride_b), od = (size_t)(l * p->stride_d);
        if (p->groups > 0) oa = od = 0, ob = (size_t)(group_of(h, r) * p->stride_b);
        const unsigned char *a = h->ha, *b = h->hb;
        if (from_device) { /* row r of A, column c of B: K contiguous elements each */
            oa += (size_t)(r * p->lda), ob += (size_t)(c * p->ldb);
            st = cutec_memcpy_dtoh(h->rt, va, (unsigned long long)(uintptr_t)h->io.A + oa * ea, (size_t)p->k * ea);
            if (st == CUTEC_OK)
                st = cutec_memcpy_dtoh(h->rt, vb, (unsigned long long)(uintptr_t)h->io.B + ob * eb, (size_t)p->k * eb);
            a = va, b = vb;
        }
        double dot = 0, mag = 0;
        for (long long q = 0; q < p->k && st == CUTEC_OK; q++) {
            double x = load_elem(a, p->a_type, from_device ? (size_t)q : oa + elem_index(p->a_layout, r, q, p->lda));
            double y = load_elem(b, p->b_type, from_device ? (size_t)q : ob + elem_index(p->b_layout, q, c, p->ldb));
            dot += x * y;
            mag += fabs(x * y);
        }
        h->samp[h->nsamp++] = (tune_sample){.r = r, .c = c, .od = od, .want = (double)p->alpha * dot, .mag = mag};
    }
    free(va), free(vb);
    h->samples_ready = st == CUTEC_OK;
    return st;
}

/* The samples against their values in C (got[t] for sample t). */
static int compare_sample_values(const harness *h, const double *got, char *why, size_t why_len)
{
    const cutec_gemm_problem *p = h->p;
    double eps = out_eps(p->c_type);
    for (int t = 0; t < h->nsamp; t++) {
        const tune_sample *x = &h->samp[t];
        double tol = 2 * eps * fabs(x->want) + 4 * eps * fabs((double)p->alpha) * x->mag / sqrt((double)p->k) + 1e-30;
        if (!(fabs(got[t] - x->want) <= tol)) {
            if (h->hlist != NULL)
                snprintf(why, why_len, "wrong result: D[%lld,%lld] of problem %lld = %.6g, float64 reference %.6g",
                         x->r, x->c, x->q, got[t], x->want);
            else
                snprintf(why, why_len, "wrong result: C[%lld,%lld] = %.6g, float64 reference %.6g", x->r, x->c, got[t],
                         x->want);
            return -1;
        }
    }
    return 0;
}

static size_t sample_index(const harness *h, const tune_sample *x)
{
    return x->od + elem_index(h->p->c_layout, x->r, x->c, x->ld > 0 ? x->ld : h->p->ldc);
}

int tune_compare_samples(const harness *h, const unsigned char *buf, char *why, size_t why_len)
{
    double got[256];
    for (int t = 0; t < h->nsamp; t++) got[t] = load_elem(buf, h->p->c_type, sample_index(h, &h->samp[t]));
    return compare_sample_values(h, got, why, why_len);
}

int tune_compare_samples_at(const harness *h, CUdeviceptr buf, char *why, size_t why_len, cutec_status *st)
{
    const cutec_gemm_problem *p = h->p;
    size_t es = cutec_dtype_size(p->c_type);
    double got[256];
    unsigned char e[16];
    *st = CUTEC_OK;
    for (int t = 0; t < h->nsamp && *st == CUTEC_OK; t++) {
        *st = cutec_memcpy_dtoh(h->rt, e, buf + sample_index(h, &h->samp[t]) * es, es);
        got[t] = load_elem(e, p->c_type, 0);
    }
    if (*st != CUTEC_OK) {
        snprintf(why, why_len, "copy failed: %s", cutec_status_string(*st));
        return -1;
    }
    return compare_sample_values(h, got, why, why_len);
}

/* Runs a candidate once into the NaN-filled scratch C and copies it back. */
cutec_status tune_run_once(harness *h, candidate *c)
{
    cutec_runtime *rt = h->rt;
    /* NaN bytes catch outputs never written; with beta != 0 the old C is read,
   * so it starts at zero and the result is alpha * A * B either way (beta
   * on the device may be anything). */
    const cutec_gemm_problem *p = h->p;
    int reads_d = !p->c_source && (p->beta != 0.0f || p->scalars_on_device);
    unsigned char fill = reads_d ? 0x00 : 0xff;
    CUresult r = rt->drv.memset_d8_async(h->cs, fill, h->c_bytes, (CUstream)h->stream);
    if (r != CUDA_SUCCESS) return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemsetD8Async(scratch C)");
    if (h->caux != 0 && (r = rt->drv.memset_d8_async(h->caux, 0xff, h->aux_bytes, (CUstream)h->stream)) != CUDA_SUCCESS)
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemsetD8Async(scratch aux)");
    /* amax is a maximum with what the buffer holds: zero (and a NaN that
     * is never written shows) */
    if (h->camax != 0 && (r = rt->drv.memset_d8_async(h->camax, 0, sizeof(float), (CUstream)h->stream)) != CUDA_SUCCESS)
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemsetD8Async(scratch amax)");
    h->launches++;
    cutec_status s = cutec_gemm_run_decision(h->g, &c->d, p, &h->run, h->stream);
    if (s == CUTEC_OK) s = cutec_stream_synchronize(rt, h->stream);
    /* the device check reads it where it is, and a list's samples too */
    if (s == CUTEC_OK && !h->device_check && h->hlist == NULL) s = cutec_memcpy_dtoh(rt, h->host_c, h->cs, h->c_bytes);
    if (s == CUTEC_OK && h->caux != 0 && !h->device_check)
        s = cutec_memcpy_dtoh(rt, h->host_aux, h->caux, h->aux_bytes);
    if (s == CUTEC_OK && h->camax != 0) s = cutec_memcpy_dtoh(rt, &h->host_amax, h->camax, sizeof(float));
    return s;
}

/* Checks one candidate; +inf and a note when it fails.  Returns a status only
 * for failures that end tuning (kernel faults). */
/* Loads a pack candidate's kernel; +inf and a note when it fails. */
cutec_status tune_load_candidate(candidate *c)
{
    if (c->d.kind == DECISION_DSL && c->d.kernel == NULL) {
        cutec_status s = cutec_rt_pack_kernel(c->d.pack, c->d.entry, &c->d.kernel);
        if (s != CUTEC_OK) {
            if (s == CUTEC_ERR_KERNEL_FAULT) return s;
            snprintf(c->note, sizeof c->note, "load failed: %s", cutec_status_string(s));
            c->ms = INFINITY;
        }
    }
    return CUTEC_OK;
}

/* A candidate the device check failed (why says how): copied back, aux
 * too, and compared on the host, which says where and has the last word
 * (float64 arithmetic, an epilogue's unrounded reference): a borderline
 * element the device counted and the host passes is logged and passes. */
static cutec_status host_recheck(harness *h, candidate *c, char *why, size_t len)
{
    cutec_runtime *rt = h->rt;
    char dev_why[160];
    snprintf(dev_why, sizeof dev_why, "%s", why);
    why[0] = '\0';
    cutec_status s = cutec_memcpy_dtoh(rt, h->host_c, h->cs, h->c_bytes);
    if (s == CUTEC_OK && h->epi && h->caux != 0) s = cutec_memcpy_dtoh(rt, h->host_aux, h->caux, h->aux_bytes);
    if (s == CUTEC_OK && !h->epi) s = tune_ref_to_host(h);
    if (s == CUTEC_ERR_KERNEL_FAULT) return s;
    if (s != CUTEC_OK)
        snprintf(why, len, "copy failed: %s", cutec_status_string(s));
    else if ((h->epi ? tune_epi_compare(h, why, len) : compare_full(h, why, len)) == 0)
        cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: %s: the host check passes where the device check said: %s",
                     c->d.name, dev_why);
    return CUTEC_OK;
}

cutec_status tune_check_candidate(harness *h, candidate *c)
{
    cutec_runtime *rt = h->rt;
    cutec_status s = tune_load_candidate(c);
    if (s != CUTEC_OK || isinf(c->ms)) return s;
    s = tune_run_once(h, c);
    if (s == CUTEC_ERR_KERNEL_FAULT) return s;
    char why[160] = "";
    if (s != CUTEC_OK)
        snprintf(why, sizeof why, "launch failed: %s: %.100s", cutec_status_string(s), cutec_runtime_message(rt));
    else if (h->device_check) {
        cutec_status st;
        int off = h->epi ? tune_epi_compare_on_device(h, why, sizeof why, &st)
                         : tune_check_on_device(h, why, sizeof why, &st);
        if (off != 0 && st == CUTEC_ERR_KERNEL_FAULT) return st;
        /* a reference made on the device has no finer host copy: its
         * verdict stands */
        if (off != 0 && !h->ref_on_device) {
            s = host_recheck(h, c, why, sizeof why);
            if (s == CUTEC_ERR_KERNEL_FAULT) return s;
        }
    } else if (h->epi)
        (void)tune_epi_compare(h, why, sizeof why);
    else if (h->hlist != NULL) {
        cutec_status st;
        if (tune_compare_samples_at(h, h->cs, why, sizeof why, &st) != 0 && st == CUTEC_ERR_KERNEL_FAULT) return st;
    } else if (h->have_ref)
        (void)compare_full(h, why, sizeof why);
    else if (tune_has_samples(h))
        (void)tune_compare_samples(h, h->host_c, why, sizeof why);
    if (why[0] != '\0') {
        snprintf(c->note, sizeof c->note, "%s", why);
        c->ms = INFINITY;
    }
    return CUTEC_OK;
}

/* One candidate's launch on the scratch C, for the timing harness. */
typedef struct timed_candidate {
    harness *h;
    candidate *c;
} timed_candidate;

static cutec_status launch_candidate(void *user, int run, void *stream)
{
    timed_candidate *tc = user;
    harness *h = tc->h;
    (void)run;
    h->launches++;
    return cutec_gemm_run_decision(h->g, &tc->c->d, h->p, &h->run, stream);
}

/* Median times of `runs` runs (after `warmup` each) of nc candidates, in
 * the runtime's timing harness (cutec/timing.h): rounds A B C ... A B C
 * ..., so that candidates compared with each other see the same clocks and
 * power cap (timing.c says why), the L2 flushed before each timed run when
 * the option asks, and each candidate's warm-ups waited for before the
 * next one's, so that a kernel fault names its kernel (*fault, else -1). */
cutec_status tune_time_candidates(harness *h, candidate **cs, int nc, int warmup, int runs, int *fault)
{
    *fault = -1;
    if (nc <= 0) return CUTEC_OK;
    cutec_timing how;
    cutec_timing_init(&how, warmup, runs);
    how.stream = h->stream;
    how.flush_l2 = cutec_timer_flush_bytes(h->timer) > 0;
    how.sync_warmup = 1;
    how.lead = h->lead;
    timed_candidate *tc = malloc(sizeof *tc * (size_t)nc);
    cutec_timing_job *jobs = malloc(sizeof *jobs * (size_t)nc);
    cutec_timing_result *res = malloc(sizeof *res * (size_t)nc);
    cutec_status s = CUTEC_OK;
    if (tc == NULL || jobs == NULL || res == NULL)
        s = cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    for (int j = 0; j < nc && s == CUTEC_OK; j++) {
        tc[j] = (timed_candidate){h, cs[j]};
        jobs[j] = (cutec_timing_job){launch_candidate, &tc[j]};
    }
    if (s == CUTEC_OK) s = cutec_timer_run(h->timer, &how, jobs, nc, res, fault);
    for (int j = 0; j < nc && tc != NULL && jobs != NULL && res != NULL; j++) {
        if (res[j].status != CUTEC_OK && res[j].failed_run >= 0) {
            snprintf(cs[j]->note, sizeof cs[j]->note, "%s launch failed: %s",
                     res[j].failed_run < warmup ? "warm-up" : "timed", cutec_status_string(res[j].status));
            cs[j]->ms = INFINITY;
        } else if (s == CUTEC_OK) {
            cs[j]->ms = res[j].ms;
        }
    }
    free(tc);
    free(jobs);
    free(res);
    return s;
}

cutec_status tune_host_ms(harness *h, candidate *c, double *ms)
{
    enum { BATCHES = 5, PER = 16 };
    double t[BATCHES];
    cutec_status s = cutec_stream_synchronize(h->rt, h->stream);
    for (int b = 0; b < BATCHES && s == CUTEC_OK; b++) {
        double t0 = tune_now();
        for (int i = 0; i < PER && s == CUTEC_OK; i++) {
            h->launches++;
            s = cutec_gemm_run_decision(h->g, &c->d, h->p, &h->run, h->stream);
        }
        t[b] = (tune_now() - t0) * 1e3 / PER;
        if (s == CUTEC_OK) s = cutec_stream_synchronize(h->rt, h->stream);
    }
    if (s != CUTEC_OK) return s;
    for (int i = 1; i < BATCHES; i++) /* insertion sort of five */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    *ms = t[BATCHES / 2];
    return CUTEC_OK;
}

/* A kernel fault while a pack kernel ran: the kernel goes into the
 * quarantine (cache.c), so that later tunings skip it, and the error says
 * so.  Other statuses pass through. */
cutec_status tune_fault_quarantine(cutec_gemm_handle *g, cutec_status s, const candidate *c)
{
    cutec_runtime *rt = g->rt;
    if (s != CUTEC_ERR_KERNEL_FAULT || c->d.kind != DECISION_DSL) return s;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", cutec_runtime_message(rt));
    char path[1200];
    if (cutec_gemm_quarantine(g, &c->d, path, sizeof path) != 0)
        return cutec_rt_fail(rt, s, "tuning: %s faulted: %s", c->d.name, msg);
    return cutec_rt_fail(rt, s, "tuning: %s faulted: %s; it is quarantined in %s, so later tunings skip it", c->d.name,
                         msg, path);
}

/* time_candidates for the tuning's rounds, with each result logged (suffix
 * after the time) and a kernel that faulted quarantined. */
cutec_status tune_timing_rounds(harness *h, candidate **cs, int nc, int warmup, int runs, const char *suffix)
{
    cutec_runtime *rt = h->rt;
    const cutec_gemm_problem *p = h->p;
    int fault = -1;
    cutec_status s = tune_time_candidates(h, cs, nc, warmup, runs, &fault);
    if (fault >= 0) return tune_fault_quarantine(h->g, s, cs[fault]);
    if (s == CUTEC_ERR_KERNEL_FAULT)
        return cutec_rt_fail(rt, s, "tuning: a kernel faulted in the timed rounds: %s", cutec_runtime_message(rt));
    for (int j = 0; j < nc && s == CUTEC_OK; j++) {
        if (isinf(cs[j]->ms))
            cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: candidate %s scores +inf: %s", cs[j]->d.name, cs[j]->note);
        else
            cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: candidate %s: %.4f ms, %.1f TFLOP/s%s", cs[j]->d.name, cs[j]->ms,
                         2.0 * (double)p->batch * (double)p->m * (double)p->n * (double)p->k / (cs[j]->ms * 1e9),
                         suffix);
    }
    return s;
}

int tune_cmp_candidate(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    int xi = isinf(x->ms) != 0, yi = isinf(y->ms) != 0;
    if (xi != yi) return xi - yi;
    if (x->settled != y->settled) return x->settled - y->settled;
    if (x->ms != y->ms) return x->ms < y->ms ? -1 : 1;
    return 0;
}

void tune_harness_free(harness *h)
{
    cutec_runtime *rt = h->rt;
    cutec_timer_destroy(h->timer);
    if (h->cs != 0) (void)rt->drv.mem_free(h->cs);
    if (h->caux != 0) (void)rt->drv.mem_free(h->caux);
    if (h->camax != 0) (void)rt->drv.mem_free(h->camax);
    if (h->ref_dev != 0) (void)rt->drv.mem_free(h->ref_dev);
    if (h->ref_aux_dev != 0) (void)rt->drv.mem_free(h->ref_aux_dev);
    if (h->spare != 0) (void)rt->drv.mem_free(h->spare);
    if (h->dlist != 0) (void)rt->drv.mem_free(h->dlist);
    free(h->hlist);
    tune_epi_free(h);
    free(h->host_c);
    free(h->ref);
    free(h->ha);
    free(h->hb);
    free(h->hends);
    free(h->samp);
}

cutec_status tune_alloc_device(harness *h, CUdeviceptr *p, size_t bytes, const char *what)
{
    CUresult r = h->rt->drv.mem_alloc(p, bytes);
    if (r != CUDA_SUCCESS) {
        *p = 0;
        return cutec_rt_fail_driver(h->rt, r, CUTEC_RT_PHASE_GENERIC, "tuning: cuMemAlloc_v2(%zu bytes for %s)", bytes,
                                    what);
    }
    return CUTEC_OK;
}

/* Sets up buffers and events.  Device allocation failures are
 * CUTEC_ERR_OUT_OF_MEMORY (mapped from the driver). */
cutec_status tune_harness_init(harness *h)
{
    cutec_runtime *rt = h->rt;
    const cutec_gemm_problem *p = h->p;
    cutec_gemm_handle *g = h->g;
    cutec_status s;
    if (h->io.group_list != NULL) { /* a list: its own scratch and samples (tune_list.c) */
        s = cutec_timer_create(rt, g->flush_l2 ? CUTEC_TIMER_FLUSH_L2 : 0, &h->timer);
        return s != CUTEC_OK ? s : tune_list_init(h);
    }
    /* a batch: D's whole span (scratch), and A's and B's (host copies) */
    h->c_bytes =
        cutec_gemm_batch_bytes(p->c_type, p->c_layout, p->m, cutec_gemm_d_cols(p), p->ldc, p->batch, p->stride_d);
    s = tune_alloc_device(h, &h->cs, h->c_bytes, "the scratch C");
    if (s != CUTEC_OK) return s;
    h->run = h->io;
    h->run.D = (void *)(uintptr_t)h->cs;
    if (!p->c_source) h->run.C = h->run.D;
    if (p->aux) {
        h->aux_bytes = cutec_gemm_matrix_bytes(p->c_type, p->c_layout, p->m, p->n, p->ld_aux);
        s = tune_alloc_device(h, &h->caux, h->aux_bytes, "the scratch aux");
        if (s != CUTEC_OK) return s;
        h->run.aux = (void *)(uintptr_t)h->caux;
        h->host_aux = malloc(h->aux_bytes);
        if (h->host_aux == NULL)
            return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (%zu bytes)", h->aux_bytes);
    }
    if (cutec_dtype_is_fp8(p->c_type)) { /* the candidates' amax, not the caller's */
        s = tune_alloc_device(h, &h->camax, sizeof(float), "the scratch amax");
        if (s != CUTEC_OK) return s;
        h->run.amax = (float *)(uintptr_t)h->camax;
    }
    /* the timing harness: its events, and the L2 flush buffer (twice L2) */
    s = cutec_timer_create(rt, g->flush_l2 ? CUTEC_TIMER_FLUSH_L2 : 0, &h->timer);
    if (s != CUTEC_OK) return s;
    h->host_c = malloc(h->c_bytes);
    if (h->host_c == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (%zu bytes)", h->c_bytes);
    /* a grouped problem's row ends, as the kernels will read them (clamped) */
    if (p->groups > 0) {
        h->hends = malloc(sizeof *h->hends * (size_t)p->groups);
        if (h->hends == NULL)
            return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (%lld row ends)", p->groups);
        s = cutec_memcpy_dtoh(rt, h->hends, (unsigned long long)(uintptr_t)h->io.group_ends,
                              sizeof *h->hends * (size_t)p->groups);
        if (s != CUTEC_OK) return s;
        long long prev = 0;
        for (long long q = 0; q < p->groups; q++) {
            long long e = h->hends[q] < prev ? prev : h->hends[q] > p->m ? p->m : h->hends[q];
            h->hends[q] = (int)e;
            prev = e;
        }
    }
    /* With contiguous rows of A and columns of B, the samples' vectors
     * alone come from the device (an epilogue's in tune_epi_reference);
     * else host copies of A and B (optional: skipped, with a note, when the
     * host cannot hold them). */
    if (!h->epi && p->a_layout == CUTEC_LAYOUT_ROW && p->b_layout == CUTEC_LAYOUT_COL) return samples_prepare(h, 1);
    /* an epilogue's samples fetch their rows and columns (tune_epi_reference) */
    if (h->epi && p->a_layout == CUTEC_LAYOUT_ROW && p->b_layout == CUTEC_LAYOUT_COL) return CUTEC_OK;
    size_t ab = cutec_gemm_batch_bytes(p->a_type, p->a_layout, p->m, p->k, p->lda, p->batch, p->stride_a);
    size_t bb = cutec_gemm_batch_bytes(p->b_type, p->b_layout, p->k, p->n, p->ldb, p->groups > 0 ? p->groups : p->batch,
                                       p->stride_b);
    h->ha = malloc(ab);
    h->hb = malloc(bb);
    if (h->ha == NULL || h->hb == NULL) {
        free(h->ha);
        free(h->hb);
        h->ha = h->hb = NULL;
        cutec_rt_log(rt, CUTEC_LOG_WARNING,
                     "tuning: no host memory for copies of A and B; "
                     "results are checked against cuBLASLt only");
    } else {
        double t0 = tune_now();
        s = cutec_memcpy_dtoh(rt, h->ha, (unsigned long long)(uintptr_t)h->io.A, ab);
        if (s == CUTEC_OK) s = cutec_memcpy_dtoh(rt, h->hb, (unsigned long long)(uintptr_t)h->io.B, bb);
        if (s != CUTEC_OK) return s;
        cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: host copies of A and B (%.1f MB) in %.3f s", (double)(ab + bb) * 1e-6,
                     tune_now() - t0);
        if (!h->epi) return samples_prepare(h, 0);
    }
    return CUTEC_OK;
}
