/*
 * timing.c - the runtime's one timing harness (cutec/timing.h): timed rounds
 * of launch callbacks between CUDA events, medians.  Jobs are timed in
 * rounds (A B C ... A B C ...) rather than one after another so that jobs
 * compared with each other see the same clocks and power cap: on the H100
 * a large GEMM reaches the 700 W cap within a second, and the cap then
 * swings the SM clock between about 1.1 and 2.0 GHz, so that the same
 * kernel timed back to back measured up to 10% apart within one tuning.
 * A timer is a layer on its runtime (internal.h's cutec_rt_layer), so that a
 * runtime destroyed first frees its events and buffer.
 */
#include "cutec/timing.h"
#include "internal.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct cutec_timer {
    cutec_rt_layer layer; /* first */
    cutec_runtime *rt;    /* NULL once the runtime was destroyed */
    CUevent *ev;
    int nev;
    CUdeviceptr flush;
    size_t flush_bytes;
};

static void timer_release(cutec_timer *t)
{
    cutec_runtime *rt = t->rt;
    for (int i = 0; i < t->nev; i++)
        if (t->ev[i] != NULL) (void)rt->drv.event_destroy(t->ev[i]);
    free(t->ev);
    t->ev = NULL;
    t->nev = 0;
    if (t->flush != 0) (void)rt->drv.mem_free(t->flush);
    t->flush = 0;
}

static void on_runtime_destroy(cutec_rt_layer *l)
{
    cutec_timer *t = (cutec_timer *)(void *)((char *)l - offsetof(cutec_timer, layer));
    timer_release(t);
    t->rt = NULL;
}

cutec_status cutec_timer_create(cutec_runtime *rt, size_t flush_bytes, cutec_timer **out)
{
    if (out != NULL) *out = NULL;
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (out == NULL) return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_timer_create: out is NULL");
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    if (rt->drv.missing_optional != NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_NO_DRIVER, "timing needs the driver entry point %s, which the driver lacks",
                             rt->drv.missing_optional);
    cutec_timer *t = calloc(1, sizeof *t);
    if (t == NULL) return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_timer_create: out of host memory");
    t->rt = rt;
    if (flush_bytes == CUTEC_TIMER_FLUSH_L2) {
        int l2 = 0;
        if (rt->drv.device_get_attribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, rt->dev) != CUDA_SUCCESS || l2 <= 0)
            l2 = 64 << 20;
        flush_bytes = 2 * (size_t)l2;
    }
    if (flush_bytes > 0) {
        CUresult r = rt->drv.mem_alloc(&t->flush, flush_bytes);
        if (r != CUDA_SUCCESS) {
            free(t);
            return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC,
                                        "timing: cuMemAlloc_v2(%zu bytes for the L2 flush buffer)", flush_bytes);
        }
        t->flush_bytes = flush_bytes;
    }
    t->layer.runtime_destroy = on_runtime_destroy;
    cutec_rt_layer_add(rt, &t->layer);
    *out = t;
    return CUTEC_OK;
}

void cutec_timer_destroy(cutec_timer *t)
{
    if (t == NULL) return;
    if (t->rt != NULL) {
        (void)cutec_rt_enter(t->rt);
        timer_release(t);
        cutec_rt_layer_remove(t->rt, &t->layer);
    }
    free(t);
}

size_t cutec_timer_flush_bytes(const cutec_timer *t) { return t != NULL ? t->flush_bytes : 0; }

/* Grows the timer's events to at least n (created on first use). */
static cutec_status ensure_events(cutec_timer *t, int n)
{
    if (n <= t->nev) return CUTEC_OK;
    CUevent *ev = realloc(t->ev, sizeof *ev * (size_t)n);
    if (ev == NULL) return cutec_rt_fail(t->rt, CUTEC_ERR_OUT_OF_MEMORY, "timing: out of host memory");
    t->ev = ev;
    for (; t->nev < n; t->nev++) {
        CUresult r = t->rt->drv.event_create(&t->ev[t->nev], 0);
        if (r != CUDA_SUCCESS) {
            t->ev[t->nev] = NULL;
            return cutec_rt_fail_driver(t->rt, r, CUTEC_RT_PHASE_GENERIC, "cuEventCreate");
        }
    }
    return CUTEC_OK;
}

/* The caller's cutec_timing as this library's: the fields inside its
 * struct_size (the mandatory ones at least), the rest zero. */
static cutec_status timing_read(cutec_runtime *rt, const cutec_timing *user, cutec_timing *how)
{
    size_t size;
    memcpy(&size, user, sizeof size);
    if (size < offsetof(cutec_timing, flush_l2) || size > 4096)
        return cutec_rt_fail(
            rt, CUTEC_ERR_INVALID_ARGUMENT,
            "cutec_timer_run: struct_size %zu of the cutec_timing is out of range (cutec_timing_init sets it)", size);
    for (size_t i = sizeof *how; i < size; i++)
        if (((const unsigned char *)user)[i] != 0)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                 "cutec_timer_run: the cutec_timing sets byte %zu, past the fields this library knows",
                                 i);
    memset(how, 0, sizeof *how);
    memcpy(how, user, size < sizeof *how ? size : sizeof *how);
    return CUTEC_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void drop(cutec_timing_result *res, cutec_status s, int run)
{
    res->ms = INFINITY;
    res->status = s;
    res->failed_run = run;
}

cutec_status cutec_timer_run(cutec_timer *t, const cutec_timing *user_how, const cutec_timing_job *jobs, int njobs,
                             cutec_timing_result *res, int *fault)
{
    if (fault != NULL) *fault = -1;
    if (t == NULL || t->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = t->rt;
    if (user_how == NULL || (njobs > 0 && (jobs == NULL || res == NULL)) || njobs < 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_timer_run: %s",
                             user_how == NULL ? "the cutec_timing is NULL"
                             : njobs < 0      ? "njobs is negative"
                                              : "jobs or res is NULL");
    cutec_timing how;
    cutec_status s = timing_read(rt, user_how, &how);
    if (s != CUTEC_OK) return s;
    if (how.warmup < 0 || how.runs < 1 || how.runs > INT_MAX / 2 / (njobs > 0 ? njobs : 1))
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_timer_run: %d warm-ups and %d runs of %d jobs",
                             how.warmup, how.runs, njobs);
    if (how.lead < 0 || how.lead > 1000000)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_timer_run: %d lead launches (0 to 1000000)",
                             how.lead);
    if (how.flush_l2 && t->flush == 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "cutec_timer_run: flush_l2 on a timer without a flush buffer");
    for (int j = 0; j < njobs; j++)
        if (jobs[j].launch == NULL)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_timer_run: job %d has no launch function", j);
    if (njobs == 0) return CUTEC_OK;
    s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    CUstream st = (CUstream)how.stream;
    int runs = how.runs, warmup = how.warmup;
    s = ensure_events(t, 2 * njobs * runs);
    int *live = malloc(sizeof *live * (size_t)njobs);
    double *times = malloc(sizeof *times * (size_t)runs);
    if (s == CUTEC_OK && (live == NULL || times == NULL))
        s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "timing: out of host memory");
    /* each job's warm-ups, waited for (with sync_warmup) so that a kernel
   * fault names its job */
    for (int j = 0; j < njobs && s == CUTEC_OK; j++) {
        live[j] = 1;
        res[j].status = CUTEC_OK;
        res[j].failed_run = -1;
        for (int w = 0; w < warmup && live[j]; w++) {
            cutec_status ls = jobs[j].launch(jobs[j].user, w, how.stream);
            if (ls != CUTEC_OK) {
                drop(&res[j], ls, w);
                live[j] = 0;
            }
        }
        if (how.sync_warmup && warmup > 0 && live[j]) {
            s = cutec_stream_synchronize(rt, how.stream);
            if (s == CUTEC_ERR_KERNEL_FAULT && fault != NULL) *fault = j;
        }
    }
    for (int r = 0; r < runs && s == CUTEC_OK; r++)
        for (int j = 0; j < njobs && s == CUTEC_OK; j++) {
            if (!live[j]) continue;
            int e = 2 * (r * njobs + j);
            cutec_status ls = how.before != NULL ? how.before(how.before_user, j, warmup + r, how.stream) : CUTEC_OK;
            for (int l = 0; l < how.lead && ls == CUTEC_OK; l++)
                ls = jobs[j].launch(jobs[j].user, warmup + r, how.stream);
            CUresult cr = CUDA_SUCCESS;
            if (ls == CUTEC_OK && how.flush_l2)
                cr = rt->drv.memset_d8_async(t->flush, (unsigned char)r, t->flush_bytes, st);
            if (ls == CUTEC_OK && cr == CUDA_SUCCESS) cr = rt->drv.event_record(t->ev[e], st);
            if (cr != CUDA_SUCCESS) {
                s = cutec_rt_fail_driver(rt, cr, CUTEC_RT_PHASE_GENERIC, "cuEventRecord / cuMemsetD8Async");
                break;
            }
            if (ls == CUTEC_OK) ls = jobs[j].launch(jobs[j].user, warmup + r, how.stream);
            if (ls != CUTEC_OK) {
                drop(&res[j], ls, warmup + r);
                live[j] = 0;
                (void)cutec_stream_synchronize(rt, how.stream);
                continue;
            }
            cr = rt->drv.event_record(t->ev[e + 1], st);
            if (cr != CUDA_SUCCESS) s = cutec_rt_fail_driver(rt, cr, CUTEC_RT_PHASE_GENERIC, "cuEventRecord");
        }
    if (s == CUTEC_OK) s = cutec_stream_synchronize(rt, how.stream); /* a kernel fault keeps its status */
    for (int j = 0; j < njobs && s == CUTEC_OK; j++) {
        if (!live[j]) continue;
        for (int r = 0; r < runs; r++) {
            float ms = 0;
            int e = 2 * (r * njobs + j);
            CUresult cr = rt->drv.event_elapsed_time(&ms, t->ev[e], t->ev[e + 1]);
            if (cr != CUDA_SUCCESS) {
                s = cutec_rt_fail_driver(rt, cr, CUTEC_RT_PHASE_GENERIC, "cuEventElapsedTime");
                break;
            }
            times[r] = ms;
        }
        if (s != CUTEC_OK) break;
        qsort(times, (size_t)runs, sizeof *times, cmp_double);
        res[j].ms = runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
    }
    free(live);
    free(times);
    return s;
}
