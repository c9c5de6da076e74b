/*
 * gemm_worker.c - CUTEC_TUNE_BACKGROUND's worker (gemm_internal.h): a
 * thread that tunes the classes a handle answered with a modelled choice.
 * It shares nothing with the handle but a queue under a mutex: it has its
 * own runtime on the same device (the same primary context), its own GEMM
 * handle with copies of the handle's packs and options (so a caller's
 * cutec_gemm never waits for it, and its cuBLASLt state, workspace,
 * message and decisions are its own), a stream of the lowest priority and
 * its own A, B and C of each problem (random values; pointers offset to
 * the class's alignment), since the caller's buffers may be freed while
 * it runs.  A finished class comes back as its cache choice line (data
 * across the seam, not a pointer into the worker's packs); the handle's
 * thread resolves it against its own packs at its next call.  Its handle
 * stores the measured decision on disk too, with the cache on.  Stopping
 * (destroy, packs or workspace changing) sets a flag the tuner reads
 * between candidates, then joins the thread.
 */
#include "gemm_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKER_JOBS 64

typedef enum { JOB_FREE, JOB_QUEUED, JOB_RUNNING, JOB_DONE } job_state;

typedef struct worker_job {
    job_state state;
    cutec_gemm_problem p;
    gemm_class cls;
    uint64_t hash;
    cutec_status status;
    char choice[512]; /* the decision's choice line (cache format) */
    double ms;
    char why[300]; /* the worker runtime's message after a failure */
} worker_job;

struct gemm_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int stop;
    atomic_int finished; /* jobs in JOB_DONE, read without the lock by every call */
    worker_job jobs[WORKER_JOBS];
    /* the worker thread's own, created before it starts and released after the join */
    cutec_runtime *rt;
    cutec_gemm_handle *h;
    cutec_pack *packs[CUTEC_GEMM_MAX_PACKS];
    int npacks;
    CUstream stream;
};

typedef CUresult (*priority_range_fn)(int *least, int *greatest);
typedef CUresult (*stream_create_fn)(CUstream *s, unsigned flags, int priority);
typedef CUresult (*stream_destroy_fn)(CUstream s);

/* A stream of the lowest priority (CU_STREAM_NON_BLOCKING: it does not wait
 * for the legacy default stream); NULL where the driver has none. */
static CUstream low_priority_stream(cutec_runtime *rt)
{
    priority_range_fn range = (priority_range_fn)(uintptr_t)dlsym(rt->drv.lib, "cuCtxGetStreamPriorityRange");
    stream_create_fn create = (stream_create_fn)(uintptr_t)dlsym(rt->drv.lib, "cuStreamCreateWithPriority");
    int least = 0, greatest = 0;
    CUstream s = NULL;
    if (range == NULL || create == NULL || range(&least, &greatest) != CUDA_SUCCESS ||
        create(&s, 1, least) != CUDA_SUCCESS)
        return NULL;
    return s;
}

static void stream_destroy(cutec_runtime *rt, CUstream s)
{
    stream_destroy_fn destroy = (stream_destroy_fn)(uintptr_t)dlsym(rt->drv.lib, "cuStreamDestroy_v2");
    if (s != NULL && destroy != NULL) (void)destroy(s);
}

/* `bytes` of values in [-1, 1] of type t. */
static void random_fill(unsigned char *b, size_t bytes, cutec_dtype t, uint64_t seed)
{
    size_t es = cutec_dtype_size(t);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i + es <= bytes; i += es) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        float f = (float)((double)(s >> 11) / 9007199254740992.0) * 2.0f - 1.0f;
        cutec_dtype_store((cutec_ct)t, b + i, f);
    }
}

/* One class: buffers like the caller's (sizes, alignment), a tuning, the
 * decision's choice line. */
static void run_job(struct gemm_worker *w, worker_job *j)
{
    cutec_runtime *rt = w->rt;
    const cutec_gemm_problem *p = &j->p;
    /* a batch's whole span, at the problem's strides */
    size_t bytes[3] = {cutec_gemm_batch_bytes(p->a_type, p->a_layout, p->m, p->k, p->lda, p->batch, p->stride_a),
                       cutec_gemm_batch_bytes(p->b_type, p->b_layout, p->k, p->n, p->ldb, p->batch, p->stride_b),
                       cutec_gemm_batch_bytes(p->c_type, p->c_layout, p->m, p->n, p->ldc, p->batch, p->stride_d)};
    const cutec_dtype types[3] = {p->a_type, p->b_type, p->c_type};
    unsigned long long base[3] = {0, 0, 0}, ptr[3];
    cutec_status s = CUTEC_OK;
    for (int i = 0; i < 3 && s == CUTEC_OK; i++) {
        /* the class's alignment: offset from the allocation's 256 bytes */
        unsigned long long off = j->cls.align[i] < 16 ? (unsigned long long)j->cls.align[i] : 0;
        s = cutec_malloc(rt, bytes[i] + 16, &base[i]);
        ptr[i] = base[i] + off;
        unsigned char *host = s == CUTEC_OK ? calloc(1, bytes[i]) : NULL;
        if (s == CUTEC_OK && host == NULL) s = CUTEC_ERR_OUT_OF_MEMORY;
        if (s == CUTEC_OK && i < 2) random_fill(host, bytes[i], types[i], (uint64_t)i + 1);
        if (s == CUTEC_OK) s = cutec_memcpy_htod(rt, ptr[i], host, bytes[i]);
        free(host);
    }
    if (s == CUTEC_OK)
        s = cutec_gemm_tune(w->h, p, (const void *)(uintptr_t)ptr[0], (const void *)(uintptr_t)ptr[1],
                            (const void *)(uintptr_t)ptr[2], w->stream, NULL);
    gemm_decision *d = s == CUTEC_OK ? cutec_gemm_table_find(w->h, &j->cls, j->hash) : NULL;
    if (s == CUTEC_OK && d == NULL) {
        s = CUTEC_ERR_NO_CANDIDATE;
        snprintf(j->why, sizeof j->why, "its class came out different (alignment)");
    } else if (s != CUTEC_OK) {
        snprintf(j->why, sizeof j->why, "%s", cutec_runtime_message(rt));
    }
    if (d != NULL) {
        cutec_gemm_choice_line(d, j->choice, sizeof j->choice);
        j->ms = d->ms;
    }
    j->status = s;
    for (int i = 0; i < 3; i++)
        if (base[i] != 0) (void)cutec_free(rt, base[i]);
}

static void *worker_main(void *arg)
{
    struct gemm_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!atomic_load(&w->stop)) {
        worker_job *j = NULL;
        for (int i = 0; i < WORKER_JOBS && j == NULL; i++)
            if (w->jobs[i].state == JOB_QUEUED) j = &w->jobs[i];
        if (j == NULL) {
            pthread_cond_wait(&w->cv, &w->mu);
            continue;
        }
        j->state = JOB_RUNNING;
        pthread_mutex_unlock(&w->mu);
        run_job(w, j);
        pthread_mutex_lock(&w->mu);
        j->state = JOB_DONE;
        atomic_fetch_add(&w->finished, 1);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Everything the worker owns beside the thread. */
static void worker_release(struct gemm_worker *w)
{
    cutec_gemm_destroy(w->h);
    for (int i = 0; i < w->npacks; i++) cutec_pack_unload(w->packs[i]);
    if (w->rt != NULL && w->rt->init_status == CUTEC_OK && cutec_rt_enter(w->rt) == CUTEC_OK)
        stream_destroy(w->rt, w->stream);
    cutec_runtime_destroy(w->rt);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

/* The worker's runtime, handle (the options and cache directory of g,
 * blocking), packs and stream; then the thread.  NULL, logged, on failure. */
static struct gemm_worker *worker_start(cutec_gemm_handle *g)
{
    cutec_runtime *rt = g->rt;
    struct gemm_worker *w = calloc(1, sizeof *w);
    if (w == NULL) return NULL;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    cutec_status s = cutec_runtime_create(&w->rt, rt->ordinal);
    if (s == CUTEC_OK) s = cutec_gemm_create(w->rt, &w->h);
    for (int i = 0; i < g->npacks && s == CUTEC_OK; i++) {
        s = cutec_pack_load_data(w->rt, g->packs[i]->data, g->packs[i]->size, &w->packs[i]);
        if (s == CUTEC_OK) w->npacks++;
        if (s == CUTEC_OK) s = cutec_gemm_use_pack(w->h, w->packs[i]);
    }
    if (s == CUTEC_OK) {
        static const cutec_option copied[] = {
            CUTEC_OPT_TUNE_RUNS,      CUTEC_OPT_TUNE_WARMUP,  CUTEC_OPT_CUBLAS_ALGOS,
            CUTEC_OPT_DISK_CACHE,     CUTEC_OPT_FLUSH_L2,     CUTEC_OPT_TUNE_FINALISTS,
            CUTEC_OPT_TUNE_SHORTLIST, CUTEC_OPT_DEVICE_CHECK, CUTEC_OPT_TUNE_SHORTLIST_FILL,
            CUTEC_OPT_TUNE_LEAD};
        for (size_t i = 0; i < sizeof copied / sizeof copied[0] && s == CUTEC_OK; i++) {
            long long v;
            s = cutec_gemm_get_option(g, copied[i], &v);
            if (s == CUTEC_OK) s = cutec_gemm_set_option(w->h, copied[i], v);
        }
        if (s == CUTEC_OK) s = cutec_gemm_set_cache_dir(w->h, cutec_gemm_cache_dir_of(g));
        w->h->cancel = &w->stop;
        w->stream = low_priority_stream(w->rt);
        if (w->stream == NULL)
            cutec_rt_log(rt, CUTEC_LOG_WARNING,
                         "background tuning: the driver has no stream priorities; tuning on the default stream");
    }
    if (s == CUTEC_OK && pthread_create(&w->thread, NULL, worker_main, w) != 0) s = CUTEC_ERR_OUT_OF_MEMORY;
    if (s != CUTEC_OK) {
        cutec_rt_log(rt, CUTEC_LOG_WARNING, "background tuning: cannot start the worker: %s: %s",
                     cutec_status_string(s), w->rt != NULL ? cutec_runtime_message(w->rt) : "out of host memory");
        worker_release(w);
        (void)cutec_rt_enter(rt); /* the worker's runtime made its context current on this thread */
        return NULL;
    }
    (void)cutec_rt_enter(rt);
    return w;
}

void cutec_gemm_worker_submit(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls, uint64_t h)
{
    if (g->worker == NULL) g->worker = worker_start(g);
    struct gemm_worker *w = g->worker;
    if (w == NULL) return;
    pthread_mutex_lock(&w->mu);
    worker_job *slot = NULL;
    int dup = 0;
    for (int i = 0; i < WORKER_JOBS; i++) {
        worker_job *j = &w->jobs[i];
        if (j->state == JOB_FREE && slot == NULL) slot = j;
        if (j->state != JOB_FREE && j->hash == h && memcmp(&j->cls, cls, sizeof *cls) == 0) dup = 1;
    }
    if (!dup && slot != NULL) {
        memset(slot, 0, sizeof *slot);
        slot->p = *p;
        slot->cls = *cls;
        slot->hash = h;
        slot->state = JOB_QUEUED;
        pthread_cond_signal(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    if (!dup && slot == NULL)
        cutec_rt_log(g->rt, CUTEC_LOG_WARNING, "background tuning: %d classes queued already; this one waits",
                     WORKER_JOBS);
}

int cutec_gemm_worker_busy(cutec_gemm_handle *g, const gemm_class *cls, uint64_t h)
{
    struct gemm_worker *w = g->worker;
    int busy = 0;
    if (w == NULL) return 0;
    pthread_mutex_lock(&w->mu);
    for (int i = 0; i < WORKER_JOBS; i++) {
        const worker_job *j = &w->jobs[i];
        if ((j->state == JOB_QUEUED || j->state == JOB_RUNNING) && j->hash == h &&
            memcmp(&j->cls, cls, sizeof *cls) == 0)
            busy = 1;
    }
    pthread_mutex_unlock(&w->mu);
    return busy;
}

void cutec_gemm_worker_collect(cutec_gemm_handle *g)
{
    struct gemm_worker *w = g->worker;
    if (w == NULL || atomic_load(&w->finished) == 0) return;
    worker_job done[WORKER_JOBS];
    int n = 0;
    pthread_mutex_lock(&w->mu);
    for (int i = 0; i < WORKER_JOBS; i++)
        if (w->jobs[i].state == JOB_DONE) {
            done[n++] = w->jobs[i];
            w->jobs[i].state = JOB_FREE;
            atomic_fetch_sub(&w->finished, 1);
        }
    pthread_mutex_unlock(&w->mu);
    /* resolved against this handle's own packs, on its thread */
    for (int i = 0; i < n; i++) {
        worker_job *j = &done[i];
        char key[CUTEC_KEY_MAX];
        cutec_gemm_class_key(&j->cls, key, sizeof key);
        if (j->status != CUTEC_OK) {
            cutec_rt_log(g->rt, CUTEC_LOG_WARNING, "background tuning of %s failed: %s: %s", key,
                         cutec_status_string(j->status), j->why);
            continue;
        }
        gemm_decision *d = calloc(1, sizeof *d);
        const char *why = d == NULL ? "out of host memory" : cutec_gemm_resolve_choice(g, j->choice, &j->p, &j->cls, d);
        if (why == NULL) {
            d->ms = j->ms;
            d->hash = j->hash;
            cutec_rt_log(g->rt, CUTEC_LOG_INFO, "background tuning: %s: measured %s (%.4f ms)", key, d->name, d->ms);
            if (cutec_gemm_table_put(g, d) == 0) continue;
            why = "out of host memory";
        }
        cutec_rt_log(g->rt, CUTEC_LOG_WARNING, "background tuning of %s: its decision cannot be used: %s", key, why);
        cutec_gemm_decision_free(g, d);
    }
}

void cutec_gemm_worker_stop(cutec_gemm_handle *g)
{
    struct gemm_worker *w = g->worker;
    if (w == NULL) return;
    g->worker = NULL;
    pthread_mutex_lock(&w->mu);
    atomic_store(&w->stop, 1);
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    worker_release(w);
    if (g->rt != NULL && g->rt->init_status == CUTEC_OK) (void)cutec_rt_enter(g->rt);
}
