/*
 * tune_harness.h - the GEMM tuner's harness (tune_harness.c), used by the
 * tuner's steps (tune.c): candidates, their checks against the reference,
 * and timed rounds, which are the runtime's one timing harness
 * (cutec/timing.h) over the candidates' launches.  Not part of the public
 * API.
 */
#ifndef CUTEC_RUNTIME_TUNE_HARNESS_H
#define CUTEC_RUNTIME_TUNE_HARNESS_H

#include "cutec/timing.h"
#include "gemm_internal.h"

/* One float64 sample of C (tune_compare_samples): its position, D's
 * offset of its problem, and the reference's value and magnitude; in a
 * list of problems (tune_list.c) also its problem and D's leading
 * dimension (ld 0: the problem's ldc). */
typedef struct tune_sample {
    long long r, c;
    size_t od;
    double want, mag;
    long long q, ld;
} tune_sample;

typedef struct harness {
    cutec_runtime *rt;
    cutec_gemm_handle *g;
    const cutec_gemm_problem *p;
    cutec_gemm_args io;  /* the caller's pointers */
    cutec_gemm_args run; /* the candidates': D (C too, in place) and aux the scratch ones */
    void *stream;
    CUdeviceptr cs; /* the scratch D */
    size_t c_bytes;
    cutec_timer *timer; /* the runtime's harness (cutec/timing.h): events, the L2 flush */
    unsigned char *host_c, *ref, *ha, *hb;
    int *hends; /* a grouped problem's row ends (clamped as the kernels clamp them) */
    /* a list of problems (tune_list.c): the caller's rows on the host, and
     * the candidates' copy on the device, its Ds in the scratch C */
    long long *hlist;
    CUdeviceptr dlist;
    /* the float64 samples, computed once (samples_ready; nsamp may be 0:
     * a grouped problem whose groups are all empty) */
    tune_sample *samp;
    int nsamp, samples_ready;
    int have_ref;
    double ref_rms; /* of the reference C, once (negative: not yet) */
    /* a problem with an epilogue (tune_epilogue.c): the scratch aux, the
     * host copies of the epilogue's inputs, the float64 reference */
    int epi;
    CUdeviceptr caux;
    size_t aux_bytes;
    unsigned char *host_aux, *hcsrc;
    double *hbias, *hbias_row, alpha, beta;
    cutec_gemm_act_fn act;
    CUdeviceptr dacc;       /* A B in f32 from cuBLASLt, row-major M x n, while the reference is made */
    float *ref_d, *ref_aux; /* the reference D and aux (aux only where compared), from acc */
    /* the float64 samples' rows of A and columns of B (sorted indices, K
     * elements each, fetched from the device) where tune_harness_init
     * copies neither whole (an epilogue with A's rows and B's columns
     * contiguous) */
    long long *vr_idx, *vc_idx;
    unsigned char *vr, *vc;
    int nvr, nvc;
    struct epi_samp *esamp; /* the samples' float64 dot products, once (tune_epilogue.c) */
    double rms_d, rms_v;
    /* scales (cutec_scale_mode) and an fp8 output: host copies of the
     * scales, the scratch amax the candidates write (zeroed before each
     * run) and what it held after the last, the reference's amax */
    double *hsa, *hsb, sd;
    CUdeviceptr camax;
    float host_amax;
    double ref_amax;
    /* the device check (tune_check.c): the reference kept on the device,
     * and C as rows x cols with leading dimension ldc */
    int device_check;
    int lead;                   /* cutec_timing's lead for the timed runs (0 in the screening) */
    CUdeviceptr ref_dev, spare; /* spare: the candidates' scratch C once the reference keeps cs */
    CUdeviceptr ref_aux_dev;    /* an epilogue's reference aux (tune_check_epi_begin) */
    int ref_on_device;          /* an epilogue's reference made there (tune_epi_device.c): no host copy */
    /* fp8 inputs checked in full on the device (tune_epilogue.c, fp8_bounds):
     * row r, column c of aux may be off by ta[r] tb[c] more than a 16-bit
     * GEMM's (the tensor cores' fp8 sums), D by FP8_D_SLOPE times that; on
     * the device and the host (0 and NULL: not such a problem) */
    CUdeviceptr fp8_ta, fp8_tb;
    float *fp8_hta, *fp8_htb;
    long long rows, cols;
    long long launches; /* candidate runs so far (checks, warm-ups, timed runs): the log's phase line */
} harness;

typedef struct candidate {
    gemm_decision d;
    double ms;
    char note[160];
    int screened;    /* timed in the screening round only, never checked: cannot win */
    double round_ms; /* the median of the common timed rounds (the report's round_ms) */
    int algo_rank;   /* cuBLASLt's heuristic rank, -1 for a pack kernel */
    int pruned;      /* left out of the shortlist by the cost model: never run */
    int settled;     /* dropped from fast tuning's rounds as slower than the best of its
                       kind: ranked after the others (its time is from fewer, earlier rounds) */
} candidate;

/* tune_epilogue.c: the reference of a problem with an epilogue (host
 * copies of its inputs, the GEMM in f32 from cuBLASLt checked against
 * float64 samples, the epilogue applied in float64), and a candidate's D
 * and aux compared with it (every element, or float64 samples without
 * cuBLASLt).  0, or -1 with why. */
cutec_status tune_epi_reference(harness *h);
int tune_epi_compare(harness *h, char *why, size_t why_len);
/* tune_epi_compare's bounds on the device (the reference rounded to the
 * output type: one more unit of its tolerance), amax on the host; 0, or
 * -1 with why (and *st a status where the check itself failed). */
int tune_epi_compare_on_device(harness *h, char *why, size_t why_len, cutec_status *st);
void tune_epi_free(harness *h);
/* The epilogue's sum v at (r, c) from a GEMM value x (acc, or a float64
 * dot product) and the source C's element there (0 without one), and the
 * clamp after the activation (problem.clamp), as the kernels apply it. */
double tune_epi_v(const harness *h, long long r, long long c, double x, double csrc);
double tune_epi_clamp(const harness *h, double d);
/* tune_epi_device.c: the reference made on the device from acc (h->dacc)
 * into the device check's buffers (tune_check_epi_begin returned 1), its
 * sampled rows checked against float64: 1 (h->ref_on_device, the RMS of
 * v and D set), 0 (the host must make it; logged why), -1 (*st: a
 * failure, a kernel fault among them). */
int tune_epi_device_reference(harness *h, cutec_status *st);

/* tune_check.c: before the reference runs, whether candidates will be
 * compared on the device (1: the reference's run leaves C there; 0, with
 * the reason logged: the host compares); after it, adopt (the reference
 * validated: kept on the device, its RMS from sampled rows) or drop (the
 * host compares after all); a candidate's output compared on the device
 * with the reference (0, or -1 with why; *st the status of the check
 * itself: not CUTEC_OK when it could not run); the reference copied to
 * the host where the host must have the last word. */
int tune_check_prepare(harness *h);
cutec_status tune_check_adopt(harness *h);
void tune_check_drop(harness *h);
int tune_check_on_device(harness *h, char *why, size_t why_len, cutec_status *st);
/* A problem with an epilogue, before its reference is made: whether
 * candidates will be compared on the device (the reference's buffers
 * there allocated: 1 where D is row-major, its rows uploaded a block at a
 * time by tune_check_epi_rows as they are made; 2, uploaded whole by
 * tune_check_epi_upload once made) or on the host (0, logged why).  The
 * reference goes up rounded to the output type; tune_check_epi_rows's d
 * and aux hold rows r0 .. r0 + nr of D and aux as they lie in memory
 * (leading dimensions ldc and ld_aux). */
int tune_check_epi_begin(harness *h);
cutec_status tune_check_epi_upload(harness *h);
cutec_status tune_check_epi_rows(harness *h, const unsigned char *d, const unsigned char *aux, long long r0,
                                 long long nr);
/* A device buffer for the tuning (*p 0 and a failure naming what when
 * there is none). */
cutec_status tune_alloc_device(harness *h, CUdeviceptr *p, size_t bytes, const char *what);
cutec_status tune_ref_to_host(harness *h);
/* The RMS of the reference C (h->ref_rms), once. */
void tune_ref_rms(harness *h);

/* tune_list.c: a list of problems' scratch outputs, the candidates' list
 * over them and its float64 samples (tune_harness_init calls it). */
cutec_status tune_list_init(harness *h);

/* Monotonic seconds. */
double tune_now(void);
/* Buffers (scratch C, L2 flush, host copies of A and B); device allocation
 * failures are CUTEC_ERR_OUT_OF_MEMORY (mapped from the driver). */
cutec_status tune_harness_init(harness *h);
void tune_harness_free(harness *h);
/* Runs a candidate once into the NaN-filled scratch C and copies it back. */
cutec_status tune_run_once(harness *h, candidate *c);
/* Loads a pack candidate's kernel; +inf and a note when it fails. */
cutec_status tune_load_candidate(candidate *c);
/* Loads, runs and checks one candidate against the reference; +inf and a
 * note when it fails.  Returns a status only for failures that end tuning
 * (kernel faults). */
cutec_status tune_check_candidate(harness *h, candidate *c);
/* Whether a problem without an epilogue has float64 samples to check against. */
static inline int tune_has_samples(const harness *h) { return h->samples_ready; }

/* Row i of nr evenly spaced over rows (nr <= rows), the first and the last
 * among them: the rows the device check's RMS (tune_check.c) and the
 * device-made reference's float64 check (tune_epi_device.c) read. */
static inline long long tune_spaced_row(long long i, long long nr, long long rows)
{
    return nr > 1 ? i * (rows - 1) / (nr - 1) : 0;
}
/* Compares buf (a C on the host) at sampled positions with their float64
 * dot products: 0, or -1 with why. */
int tune_compare_samples(const harness *h, const unsigned char *buf, char *why, size_t why_len);
/* The same for a C on the device: the sampled elements alone are copied
 * (*st: the copies' status). */
int tune_compare_samples_at(const harness *h, CUdeviceptr buf, char *why, size_t why_len, cutec_status *st);
/* Median times of `runs` runs (after `warmup` each) of nc candidates, in
 * rounds (A B C ... A B C ...); *fault: the candidate whose warm-ups
 * faulted, else -1. */
/* The host time (ms) of one call of candidate c on the harness's stream:
 * the median of 5 batches of 16 launches issued back to back, each batch
 * waited for afterwards (untimed), so that the queue never fills. */
cutec_status tune_host_ms(harness *h, candidate *c, double *ms);
cutec_status tune_time_candidates(harness *h, candidate **cs, int nc, int warmup, int runs, int *fault);
/* The same with each result logged (suffix after the time) and a kernel
 * that faulted quarantined. */
cutec_status tune_timing_rounds(harness *h, candidate **cs, int nc, int warmup, int runs, const char *suffix);
/* A kernel fault while a pack kernel ran: quarantined, and said so. */
cutec_status tune_fault_quarantine(cutec_gemm_handle *g, cutec_status s, const candidate *c);
/* qsort order: faster first; settled candidates after the others, failures last. */
int tune_cmp_candidate(const void *a, const void *b);

#endif /* CUTEC_RUNTIME_TUNE_HARNESS_H */
