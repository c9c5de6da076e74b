/*
 * cutec/timing.h - the runtime's one timing harness: the median time of
 * launches of one or more jobs (callbacks that launch work on a stream),
 * timed in rounds (A B C ... A B C ...) between CUDA events, after
 * warm-ups, each timed launch optionally preceded by a write of a buffer
 * twice the size of L2 and by an untimed launch of the caller's.  The GEMM
 * tuner times its candidates with it and tests/bench/gemm_bench its
 * implementations, so that the two measure alike.
 *
 * It is public rather than internal because gemm_bench, a program outside
 * the library, drives it, and anything installed is an API anyway; it needs
 * only the core runtime (events, memset, synchronisation through the
 * driver) and knows nothing of what the jobs launch.
 */
#ifndef CUTEC_TIMING_H
#define CUTEC_TIMING_H

#include "cutec/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The events and the L2 flush buffer, kept between runs. */
typedef struct cutec_timer cutec_timer;

/* One launch of a job's work on stream (the stream of the cutec_timing);
 * `run` counts the job's launches from 0, its warm-ups first (warm-up w is
 * run w, timed launch r is run warmup + r).  Anything but CUTEC_OK drops
 * the job: its result is +inf with that status. */
typedef cutec_status (*cutec_timing_launch_fn)(void *user, int run, void *stream);

typedef struct cutec_timing_job {
    cutec_timing_launch_fn launch;
    void *user;
} cutec_timing_job;

/*
 * How to time.  Same ABI rule as cutec_gemm_problem: struct_size first
 * (set by cutec_timing_init), fields only appended, zero means the old
 * behaviour.
 */
typedef struct cutec_timing {
    size_t struct_size;
    int warmup;   /* untimed launches of each job before the rounds, >= 0 */
    int runs;     /* rounds: timed launches of each job, >= 1 */
    void *stream; /* a CUstream / cudaStream_t of the primary context; NULL: the default stream */
    /* optional fields: zero is the default */
    int flush_l2;    /* 1: before each timed launch (outside the events), write the
                      timer's flush buffer with the round's number, so that every
                      timed launch starts on a cold L2 (needs a timer created with one) */
    int sync_warmup; /* 1: wait for each job's warm-ups before the next job's, so that
                      a kernel fault in them names the job (*fault of cutec_timer_run) */
    /* Called before each timed launch and its flush (untimed), e.g. to run
   * other work first so that the timed kernel does not start after itself;
   * anything but CUTEC_OK drops the job like a failed launch.  NULL: none. */
    cutec_status (*before)(void *user, int job, int run, void *stream);
    void *before_user;
    /* Untimed launches of the job right before each timed one (after
     * before(), ahead of the flush; launch's `run` is the timed launch's),
     * so that a timed launch runs at the clock its own job's power draw
     * sets under the power cap rather than the one the previous job's set.
     * 0: none. */
    int lead;
} cutec_timing;

/* warmup and runs set, everything else zero. */
static inline void cutec_timing_init(cutec_timing *t, int warmup, int runs)
{
    if (t == 0) return;
    cutec_timing z = {0};
    *t = z;
    t->struct_size = sizeof *t;
    t->warmup = warmup;
    t->runs = runs;
}

typedef struct cutec_timing_result {
    double ms;           /* median of the job's timed launches (the mean of the middle
                          two for an even count); +inf when the job was dropped */
    cutec_status status; /* CUTEC_OK, or why the job was dropped */
    int failed_run;      /* the launch (run index) that dropped it, else -1 */
} cutec_timing_result;

/* cutec_timer_create's flush_bytes for twice the device's L2 size (twice
 * 64 MiB where the driver does not say). */
#define CUTEC_TIMER_FLUSH_L2 ((size_t)-1)

/*
 * A timer on rt, with an L2 flush buffer of flush_bytes (0: none;
 * CUTEC_TIMER_FLUSH_L2: twice L2).  Statuses: CUTEC_ERR_INVALID_ARGUMENT
 * (rt or out NULL), the runtime's creation status, CUTEC_ERR_NO_DRIVER (the
 * driver lacks an event or memset entry point), CUTEC_ERR_OUT_OF_MEMORY.
 * Destroy it before its runtime; a runtime destroyed first frees the timer's
 * device state, and the timer then accepts only cutec_timer_destroy.
 */
cutec_status cutec_timer_create(cutec_runtime *rt, size_t flush_bytes, cutec_timer **out);
void cutec_timer_destroy(cutec_timer *t);
/* The flush buffer's size (0: none). */
size_t cutec_timer_flush_bytes(const cutec_timer *t);

/*
 * Times njobs jobs: each job's warm-ups in turn (waited for after each job
 * with sync_warmup), then `runs` rounds in which every job still running
 * launches once (before(), the flush, an event, the launch, an event), then
 * one wait and the medians into res[0 .. njobs - 1].  A job whose launch (or
 * before()) fails is dropped and the stream waited for; the others go on.
 * The return is CUTEC_OK or what ends the timing for all: a driver failure,
 * or a kernel fault (CUTEC_ERR_KERNEL_FAULT, sticky: the context is lost),
 * in which case *fault (when fault != NULL) is the job whose warm-ups
 * faulted, or -1 when it cannot be told.  Results of jobs not dropped are
 * set only when the return is CUTEC_OK.
 */
cutec_status cutec_timer_run(cutec_timer *t, const cutec_timing *how, const cutec_timing_job *jobs, int njobs,
                             cutec_timing_result *res, int *fault);

#ifdef __cplusplus
}
#endif

#endif /* CUTEC_TIMING_H */
