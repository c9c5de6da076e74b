/*
 * gemm_bench.c - benchmark of the GEMM templates' points (stdlib/sm80/gemm.cute
 * and stdlib/sm90/gemm.cute, compiled to PTX) against cuBLAS, bf16 inputs,
 * f32 accumulation, bf16 output.
 *
 * Usage: gemm_bench [options] FILE.ptx... (gemm_bench --help lists them)
 *
 * Layout ("TN"): C[M,N] = A[M,K] * B[N,K]^T, A and B row-major with K
 * contiguous, C row-major.  cuBLAS (column-major) computes C^T = B * A^T:
 * cublasGemmEx(OP_T, OP_N, m=N, n=M, k=K, A=B lda=K, B=A ldb=K, C ldc=N),
 * CUDA_R_16BF in and out, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT.
 *
 * For each shape of the shapes file (default: tests/bench/shapes.txt; lines
 * "name M N K note", '#' comments), in one process and on the same random
 * bf16 inputs (uniform in [-1, 1]): cuBLAS is run once to give the reference,
 * then timed; every DSL kernel point of the PTX files with T=bf16 whose VEC
 * divides K and whose `require` conditions hold (a GEMV's M <= BM) is run
 * once on NaN-poisoned C and checked against cuBLAS (max |c - c_cublas| /
 * max |c_cublas| < 2e-2, no NaN), and timed only if it
 * passes (a failing point is reported as FAILED, not timed; with --no-check
 * it is timed and marked UNCHECKED: experiments that drop work on purpose).
 *
 * Timing: the runtime's timing harness (cutec/timing.h, the tuner's too):
 * 3 warm-up runs, then the median of --reps (default 20) runs, each
 * between two CUDA events on one stream (--flush: a memset of twice the L2
 * before each; --after cublas|N: an untimed run of cuBLAS or of point N
 * before each, so that every timed kernel starts after other code).  L2:
 * consecutive runs read and write different copies of A, B and C (at most
 * --copies N of them): the benchmark allocates
 * ceil(256 MiB / (bytes of A+B+C)) copies (at least 1; large shapes are far
 * above the 50 MB L2 by themselves) and run r uses copy r mod copies, so the
 * data of a run was last touched >= 256 MiB of traffic earlier.
 *
 * Copy bandwidth: at start-up, the device-to-device copy bandwidth of the GPU,
 * the yardstick for the memory-bound decode shapes (M <= 128, judged against
 * 80% of it): cudaMemcpyAsync (= cuMemcpyDtoDAsync) of a 1 GiB buffer into
 * another, 3 warm-ups, median of max(--reps, 20) runs between CUDA events.
 * GB/s count read + write bytes, 2 x 1 GiB / time, the same convention as the
 * decode rows' GB/s (A and B read, C written, once each); decode rows print
 * their GB/s as a fraction of the copy's.
 *
 * Output: one line per (shape, implementation), then a Markdown table (device,
 * max SM clock, date, command line in its header) for docs/performance.md;
 * --json writes the same results as JSON.  Exit status: 0 done and every
 * timed DSL point passed its check, 1 a failure, 2 usage, 77 no GPU.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "cutec/runtime.h"
#include "cutec/timing.h"
#include "gemm_common.h"

#ifndef GEMM_BENCH_DEFAULT_SHAPES
#define GEMM_BENCH_DEFAULT_SHAPES "tests/bench/shapes.txt"
#endif
#define SKIP         77
#define WARMUP       3
#define ROTATE_BYTES (256.0 * 1024 * 1024)
#define CHECK_LIMIT  2e-2
/* --no-check: time points whose result is wrong too (marked "UNCHECKED"), for
 * experiments that drop part of a kernel's work to measure what it costs */
static int no_check;
/* --flush: before each timed run, a memset of twice the L2 (as the runtime
 * autotuner's harness does), besides the rotating copies: each run starts on
 * an L2 full of another buffer's dirty lines, and the host has queued the
 * run before the GPU reaches it (no host-side launch time in the events) */
static int flush;
static int flush_now; /* on once the copy bandwidth is measured (never flushed) */
/* --after cublas|N: before each timed run (and its memset), an untimed run
 * of cuBLAS or of point N, as in an application where another GEMM ran
 * just before: each timed kernel starts after different code, not after
 * itself.  Not before the runs of that kernel itself. */
static int after = -2; /* -2: off, -1: cuBLAS, N >= 0: point N */
/* --copies N: at most N copies of A, B, C in rotation (1: the same buffers
 * every run, as in the autotuner, which times on the caller's matrices) */
static int max_copies;
/* --null-stream: everything on the legacy default stream, as cutec-tune
 * times (it passes no stream) */
static int null_stream;
static int (*after_fn)(void *ctx, int copy, char *why, size_t whylen);
static void *after_ctx;
static const void *after_point;          /* the bpoint run before, or NULL for cuBLAS */
static const void *ctx_point(void *ctx); /* the bpoint of a DSL run's context */
#define COPY_BYTES    ((size_t)1 << 30)  /* far above L2: the copy streams from HBM */
#define COPY_MIN_REPS 20

typedef struct bshape {
    char name[64];
    long m, n, k;
    char note[160];
} bshape;

typedef struct bpoint {
    gemm_point gp;
    const char *file;
    cutec_kernel *k;
    long long resident; /* blocks held at once, for a resident(x) grid (0: x) */
} bpoint;

/* Result of one implementation on one shape. */
typedef enum pstate { P_TIMED, P_SKIPPED, P_FAILED } pstate;
typedef struct presult {
    pstate state;
    double ms, tflops, gbs, maxrel;
    char why[256];
} presult;

typedef struct sresult {
    const bshape *s;
    int done;
    presult cublas;
    presult *pts; /* one per point */
    int best;     /* index of the fastest timed point, -1 if none */
    int copies;
} sresult;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int read_shapes(const char *path, bshape **out, int *count)
{
    size_t len;
    char *text = gemm_read_file(path, &len);
    if (text == NULL) {
        fprintf(stderr, "gemm_bench: cannot read shapes file %s\n", path);
        return -1;
    }
    bshape *v = NULL;
    int n = 0, cap = 0, lineno = 0, rc = 0;
    for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL) *next++ = '\0';
        lineno++;
        char *hash = strchr(line, '#');
        if (hash != NULL) *hash = '\0';
        bshape s;
        memset(&s, 0, sizeof s);
        int used = 0;
        char name[64];
        if (sscanf(line, " %63s%n", name, &used) != 1) continue; /* blank or comment */
        int used2 = 0;
        if (sscanf(line + used, " %ld %ld %ld%n", &s.m, &s.n, &s.k, &used2) != 3 || s.m <= 0 || s.n <= 0 || s.k <= 0 ||
            s.m > 0x7fffffffL || s.n > 0x7fffffffL || s.k > 0x7fffffffL) {
            fprintf(stderr, "gemm_bench: %s:%d: want \"name M N K note\"\n", path, lineno);
            rc = -1;
            break;
        }
        snprintf(s.name, sizeof s.name, "%s", name);
        const char *note = line + used + used2;
        while (*note == ' ' || *note == '\t') note++;
        snprintf(s.note, sizeof s.note, "%s", note);
        size_t nl = strlen(s.note);
        while (nl > 0 && (s.note[nl - 1] == ' ' || s.note[nl - 1] == '\r' || s.note[nl - 1] == '\t'))
            s.note[--nl] = '\0';
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            bshape *nv = realloc(v, (size_t)cap * sizeof *nv);
            if (nv == NULL) {
                rc = -1;
                break;
            }
            v = nv;
        }
        v[n++] = s;
    }
    free(text);
    if (rc != 0) {
        free(v);
        return -1;
    }
    *out = v;
    *count = n;
    return 0;
}

/* ---- the GPU part: globals to keep the calls short ---- */
static cutec_runtime *rt;
static cudaStream_t stream;
static cublasHandle_t blas;
static cutec_timer *timer; /* the runtime's timing harness: events, the flush buffer */
static int sticky_fault;   /* a DSL kernel faulted: the context is gone */
static double copy_gbs;    /* device-to-device copy bandwidth (read + write), 0: not measured */

/* Device buffers of one shape: `copies` sets of A, B, C. */
typedef struct dbufs {
    int copies;
    void **a, **b, **c;
    size_t bytes_a, bytes_b, bytes_c;
} dbufs;

static void dbufs_free(dbufs *d)
{
    for (int i = 0; i < d->copies; i++) {
        if (d->a) cudaFree(d->a[i]);
        if (d->b) cudaFree(d->b[i]);
        if (d->c) cudaFree(d->c[i]);
    }
    free(d->a);
    free(d->b);
    free(d->c);
    memset(d, 0, sizeof *d);
}

static int cuda_ok(cudaError_t e, const char *what, char *why, size_t whylen)
{
    if (e == cudaSuccess) return 1;
    snprintf(why, whylen, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return 0;
}

typedef int (*run_fn)(void *ctx, int copy, char *why, size_t whylen);

/* Whether fn with ctx runs the kernel --after puts before every run (it
 * is not put before its own runs). */
static int same_kernel(run_fn fn, void *ctx)
{
    if (fn != after_fn) return 0;
    return after_point == NULL || ctx_point(ctx) == after_point;
}

/* One implementation's runs for the timing harness: run r uses copy
 * r mod copies (warm-ups first), the reason of a failure goes to why. */
typedef struct timed_fn {
    run_fn fn;
    void *ctx;
    int copies;
    char *why;
    size_t whylen;
} timed_fn;

static cutec_status timed_launch(void *user, int run, void *stream_)
{
    timed_fn *t = user;
    (void)stream_;
    return t->fn(t->ctx, run % t->copies, t->why, t->whylen) ? CUTEC_OK : CUTEC_ERR_LAUNCH;
}

/* --after: the untimed run before each timed one (not before the runs of
 * that kernel itself). */
static cutec_status timed_before(void *user, int job, int run, void *stream_)
{
    timed_fn *t = user;
    (void)job, (void)stream_;
    if (after_fn == NULL || same_kernel(t->fn, t->ctx)) return CUTEC_OK;
    return after_fn(after_ctx, run % t->copies, t->why, t->whylen) ? CUTEC_OK : CUTEC_ERR_LAUNCH;
}

/* Runs fn WARMUP times then reps times between events (the runtime's
 * harness: --after's run, then --flush's memset, before each); median in
 * *ms. */
static int time_runs(run_fn fn, void *ctx, int copies, int reps, double *ms, char *why, size_t whylen)
{
    why[0] = '\0';
    timed_fn t = {fn, ctx, copies, why, whylen};
    cutec_timing how;
    cutec_timing_init(&how, WARMUP, reps);
    how.stream = (void *)stream;
    how.flush_l2 = flush_now;
    how.before = timed_before;
    how.before_user = &t;
    cutec_timing_job job = {timed_launch, &t};
    cutec_timing_result res;
    cutec_status st = cutec_timer_run(timer, &how, &job, 1, &res, NULL);
    if (st == CUTEC_OK && res.status == CUTEC_OK) {
        *ms = res.ms;
        return 1;
    }
    if (why[0] == '\0')
        snprintf(why, whylen, "timing: %s: %s", cutec_status_string(st != CUTEC_OK ? st : res.status),
                 cutec_runtime_message(rt));
    return 0;
}

/* One 1 GiB device-to-device copy; ctx: {dst, src}. */
static int run_copy(void *ctx, int copy, char *why, size_t whylen)
{
    void **buf = ctx;
    (void)copy;
    return cuda_ok(cudaMemcpyAsync(buf[0], buf[1], COPY_BYTES, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync",
                   why, whylen);
}

/* The copy bandwidth in GB/s counting read + write bytes (2 x COPY_BYTES per
 * copy), median of `reps` runs; 0 with the reason in why if it cannot run. */
static double measure_copy(int reps, double *ms, char *why, size_t whylen)
{
    void *buf[2] = {NULL, NULL};
    double gbs = 0;
    if (cuda_ok(cudaMalloc(&buf[0], COPY_BYTES), "cudaMalloc", why, whylen) &&
        cuda_ok(cudaMalloc(&buf[1], COPY_BYTES), "cudaMalloc", why, whylen) &&
        cuda_ok(cudaMemsetAsync(buf[1], 0x3c, COPY_BYTES, stream), "cudaMemsetAsync", why, whylen) &&
        time_runs(run_copy, buf, 1, reps, ms, why, whylen))
        gbs = 2.0 * (double)COPY_BYTES / (*ms * 1e-3) / 1e9;
    cudaFree(buf[0]);
    cudaFree(buf[1]);
    return gbs;
}

typedef struct blas_ctx {
    const bshape *s;
    dbufs *d;
} blas_ctx;

static int run_cublas(void *vctx, int copy, char *why, size_t whylen)
{
    blas_ctx *c = vctx;
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st =
        cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)c->s->n, (int)c->s->m, (int)c->s->k, &alpha, c->d->b[copy],
                     CUDA_R_16BF, (int)c->s->k, c->d->a[copy], CUDA_R_16BF, (int)c->s->k, &beta, c->d->c[copy],
                     CUDA_R_16BF, (int)c->s->n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, whylen, "cublasGemmEx: %s", cublasGetStatusString(st));
        return 0;
    }
    return 1;
}

typedef struct dsl_ctx {
    const bshape *s;
    dbufs *d;
    const bpoint *p;
    gemm_args ga[64]; /* per input copy: the arguments, tensor maps built once */
    int built[64];
} dsl_ctx;

static const void *ctx_point(void *ctx) { return ((const dsl_ctx *)ctx)->p; }

static int run_dsl(void *vctx, int copy, char *why, size_t whylen)
{
    dsl_ctx *c = vctx;
    const gemm_point *gp = &c->p->gp;
    if (copy < 0 || copy >= 64) {
        snprintf(why, whylen, "more than 64 input copies");
        return 0;
    }
    gemm_args *ga = &c->ga[copy];
    if (!c->built[copy]) {
        *ga = (gemm_args){.m = (int)c->s->m,
                          .n = (int)c->s->n,
                          .k = (int)c->s->k,
                          .a = (unsigned long long)(uintptr_t)c->d->a[copy],
                          .b = (unsigned long long)(uintptr_t)c->d->b[copy],
                          .c = (unsigned long long)(uintptr_t)c->d->c[copy]};
        if (gemm_build_args(rt, &gp->meta, ga, why, whylen) != 0) return 0;
        c->built[copy] = 1;
    }
    void **args = ga->args;
    unsigned grid[3];
    if (gemm_grid(gp, c->s->m, c->s->n, c->s->k, 0, c->p->resident, grid, why, whylen) != 0) return 0;
    cutec_status st = cutec_launch_cluster(c->p->k, grid, gp->meta.threads, gp->meta.cluster, gp->meta.smem_dynamic,
                                           (void *)stream, args);
    if (st != CUTEC_OK) {
        snprintf(why, whylen, "cutec_launch: %s: %s", cutec_status_string(st), cutec_runtime_message(rt));
        if (st == CUTEC_ERR_KERNEL_FAULT) sticky_fault = 1;
        return 0;
    }
    return 1;
}

/* After a failed DSL run: if the device no longer synchronizes cleanly, the
 * failure was a kernel fault, which is sticky (the context is unusable). */
static void note_fault(void)
{
    if (cudaDeviceSynchronize() != cudaSuccess) sticky_fault = 1;
}

static double flops(const bshape *s) { return 2.0 * (double)s->m * (double)s->n * (double)s->k; }

static double decode_bytes(const bshape *s)
{
    return 2.0 * ((double)s->m * (double)s->k + (double)s->n * (double)s->k + (double)s->m * (double)s->n);
}

static void fill_result(presult *r, const bshape *s, double ms)
{
    r->state = P_TIMED;
    r->ms = ms;
    r->tflops = flops(s) / (ms * 1e-3) / 1e12;
    r->gbs = decode_bytes(s) / (ms * 1e-3) / 1e9;
}

/* Benchmarks one shape.  Returns 0 on success, -1 when the shape could not be
 * run at all (message printed), -2 after a sticky fault. */
static int bench_shape(const bshape *s, bpoint *pts, int npts, int reps, uint64_t seed, sresult *res)
{
    res->s = s;
    res->best = -1;
    res->cublas.state = P_FAILED;
    for (int i = 0; i < npts; i++) {
        res->pts[i].state = P_SKIPPED;
        snprintf(res->pts[i].why, sizeof res->pts[i].why, "not run");
    }
    size_t na = (size_t)s->m * (size_t)s->k, nb = (size_t)s->n * (size_t)s->k;
    size_t nc = (size_t)s->m * (size_t)s->n, szc = 2;
    for (int i = 0; i < npts; i++)
        if (s->k % pts[i].gp.vec == 0 && gemm_type_size(pts[i].gp.tc) > szc) szc = gemm_type_size(pts[i].gp.tc);
    dbufs d;
    memset(&d, 0, sizeof d);
    d.bytes_a = na * 2;
    d.bytes_b = nb * 2;
    d.bytes_c = nc * szc;
    double set = (double)(na * 2 + nb * 2 + nc * 2);
    int copies = (int)ceil(ROTATE_BYTES / set);
    if (max_copies > 0 && copies > max_copies) copies = max_copies;
    if (copies < 1) copies = 1;
    size_t freeb = 0, totalb = 0;
    cudaMemGetInfo(&freeb, &totalb);
    double per = (double)(d.bytes_a + d.bytes_b + d.bytes_c);
    if (per > 0.9 * (double)freeb) {
        snprintf(res->cublas.why, sizeof res->cublas.why, "needs %.0f MB of device memory, %.0f MB free", per / 1e6,
                 (double)freeb / 1e6);
        printf("%-18s SKIPPED: %s\n", s->name, res->cublas.why);
        return -1;
    }
    while (copies > 1 && per * copies > 0.8 * (double)freeb) copies--;
    res->copies = copies;
    char why[512] = "";
    uint16_t *ha = malloc(na * 2), *hb = malloc(nb * 2), *href = malloc(nc * 2);
    void *hout = malloc(nc * szc);
    int rc = -1;
    d.a = calloc((size_t)copies, sizeof(void *));
    d.b = calloc((size_t)copies, sizeof(void *));
    d.c = calloc((size_t)copies, sizeof(void *));
    d.copies = copies;
    if (ha == NULL || hb == NULL || href == NULL || hout == NULL || d.a == NULL || d.b == NULL || d.c == NULL) {
        snprintf(why, sizeof why, "host out of memory");
        goto out;
    }
    gemm_rng rng;
    gemm_rng_seed(&rng, seed ^ ((uint64_t)s->m * 0x9e3779b1u) ^ ((uint64_t)s->n << 21) ^ ((uint64_t)s->k << 42));
    gemm_fill_random(&rng, GT_BF16, ha, NULL, na);
    gemm_fill_random(&rng, GT_BF16, hb, NULL, nb);
    for (int i = 0; i < copies; i++) {
        if (!cuda_ok(cudaMalloc(&d.a[i], d.bytes_a), "cudaMalloc", why, sizeof why) ||
            !cuda_ok(cudaMalloc(&d.b[i], d.bytes_b), "cudaMalloc", why, sizeof why) ||
            !cuda_ok(cudaMalloc(&d.c[i], d.bytes_c), "cudaMalloc", why, sizeof why))
            goto out;
        if (i == 0) {
            if (!cuda_ok(cudaMemcpy(d.a[0], ha, d.bytes_a, cudaMemcpyHostToDevice), "cudaMemcpy", why, sizeof why) ||
                !cuda_ok(cudaMemcpy(d.b[0], hb, d.bytes_b, cudaMemcpyHostToDevice), "cudaMemcpy", why, sizeof why))
                goto out;
        } else if (!cuda_ok(cudaMemcpy(d.a[i], d.a[0], d.bytes_a, cudaMemcpyDeviceToDevice), "cudaMemcpy", why,
                            sizeof why) ||
                   !cuda_ok(cudaMemcpy(d.b[i], d.b[0], d.bytes_b, cudaMemcpyDeviceToDevice), "cudaMemcpy", why,
                            sizeof why)) {
            goto out;
        }
    }
    if (!cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize", why, sizeof why)) goto out;
    /* cuBLAS: reference, then timing. */
    blas_ctx bc = {s, &d};
    if (!run_cublas(&bc, 0, why, sizeof why) ||
        !cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize", why, sizeof why) ||
        !cuda_ok(cudaMemcpy(href, d.c[0], nc * 2, cudaMemcpyDeviceToHost), "cudaMemcpy", why, sizeof why))
        goto out;
    double refmax = 0;
    for (size_t i = 0; i < nc; i++) {
        double v = fabs((double)gemm_bf16_to_f32(href[i]));
        if (!(v <= refmax)) refmax = v; /* NaN propagates and fails the checks below */
    }
    if (!isfinite(refmax) || refmax == 0) {
        snprintf(why, sizeof why, "cuBLAS result has NaN/Inf or is all zero");
        goto out;
    }
    /* --after: what runs before each timed run */
    static dsl_ctx adc; /* as dc below */
    after_fn = NULL;
    after_point = NULL;
    if (after == -1) {
        after_fn = run_cublas;
        after_ctx = &bc;
    } else if (after >= 0 && s->k % pts[after].gp.vec != 0) {
        printf("%-18s --after %d: that point does not fit (VEC does not divide K); nothing runs before\n", s->name,
               after);
    } else if (after >= 0) {
        memset(&adc, 0, sizeof adc);
        adc.s = s;
        adc.d = &d;
        adc.p = &pts[after];
        after_fn = run_dsl;
        after_ctx = &adc;
        after_point = adc.p;
    }
    double ms = 0;
    if (!time_runs(run_cublas, &bc, copies, reps, &ms, why, sizeof why)) goto out;
    fill_result(&res->cublas, s, ms);
    printf("%-18s %-7s %9.4f ms %8.1f TFLOP/s", s->name, "cuBLAS", ms, res->cublas.tflops);
    if (s->m <= 128) {
        printf(" %8.1f GB/s", res->cublas.gbs);
        if (copy_gbs > 0) printf(" (%.2f of copy)", res->cublas.gbs / copy_gbs);
    }
    printf("  (%d cop%s of A,B,C in rotation)\n", copies, copies == 1 ? "y" : "ies");
    fflush(stdout);
    rc = 0;

    for (int i = 0; i < npts; i++) {
        bpoint *p = &pts[i];
        presult *pr = &res->pts[i];
        if (s->k % p->gp.vec != 0) {
            snprintf(pr->why, sizeof pr->why, "VEC=%ld does not divide K", p->gp.vec);
            printf("%-18s point %d SKIPPED (%s) [%s]\n", s->name, i, pr->why, p->gp.desc);
            continue;
        }
        /* the point's own conditions (a GEMV's M <= BM), as the runtime checks them */
        gemm_args fit = {.m = (int)s->m, .n = (int)s->n, .k = (int)s->k};
        if (!gemm_point_fits(&p->gp, &fit, pr->why, sizeof pr->why)) {
            printf("%-18s point %d SKIPPED (%s) [%s]\n", s->name, i, pr->why, p->gp.desc);
            continue;
        }
        /* stream-K's and a list's scratch (roles workspace and flags) is the
         * runtime's, zeroed before every launch: this benchmark passes none,
         * so such a point would write through a null workspace (an illegal
         * address, which ends the process's context); cutec-tune bench
         * times them through the runtime */
        char serr[160];
        if (gemm_scratch_bytes(&p->gp.meta, &fit, CUTEC_ROLE_WORKSPACE, serr, sizeof serr) != 0 ||
            gemm_scratch_bytes(&p->gp.meta, &fit, CUTEC_ROLE_FLAGS, serr, sizeof serr) != 0) {
            snprintf(pr->why, sizeof pr->why, "needs the runtime's workspace (cutec-tune bench times it)");
            printf("%-18s point %d SKIPPED (%s) [%s]\n", s->name, i, pr->why, p->gp.desc);
            continue;
        }
        pr->state = P_FAILED;
        static dsl_ctx dc; /* 64 argument sets with tensor maps: not on the stack */
        memset(&dc, 0, sizeof dc);
        dc.s = s;
        dc.d = &d;
        dc.p = p;
        /* Check on NaN-poisoned C. */
        if (!cuda_ok(cudaMemsetAsync(d.c[0], 0xFF, nc * gemm_type_size(p->gp.tc), stream), "cudaMemsetAsync", pr->why,
                     sizeof pr->why) ||
            !run_dsl(&dc, 0, pr->why, sizeof pr->why) ||
            !cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize", pr->why, sizeof pr->why) ||
            !cuda_ok(cudaMemcpy(hout, d.c[0], nc * gemm_type_size(p->gp.tc), cudaMemcpyDeviceToHost), "cudaMemcpy",
                     pr->why, sizeof pr->why)) {
            note_fault();
            printf("%-18s point %d FAILED: %s [%s]\n", s->name, i, pr->why, p->gp.desc);
            if (sticky_fault) {
                rc = -2;
                goto out;
            }
            continue;
        }
        double maxerr = 0;
        size_t nnan = 0;
        for (size_t e = 0; e < nc; e++) {
            double v = gemm_load(hout, p->gp.tc, e);
            if (!isfinite(v)) {
                nnan++;
                continue;
            }
            double err = fabs(v - (double)gemm_bf16_to_f32(href[e]));
            if (err > maxerr) maxerr = err;
        }
        pr->maxrel = maxerr / refmax;
        if (!no_check && (nnan > 0 || !(pr->maxrel < CHECK_LIMIT))) {
            snprintf(pr->why, sizeof pr->why, "check vs cuBLAS: max rel err %.3g (limit %.0e), %zu NaN", pr->maxrel,
                     CHECK_LIMIT, nnan);
            printf("%-18s point %d FAILED: %s [%s]\n", s->name, i, pr->why, p->gp.desc);
            continue;
        }
        if (!time_runs(run_dsl, &dc, copies, reps, &ms, pr->why, sizeof pr->why)) {
            note_fault();
            printf("%-18s point %d FAILED: %s [%s]\n", s->name, i, pr->why, p->gp.desc);
            if (sticky_fault) {
                rc = -2;
                goto out;
            }
            continue;
        }
        fill_result(pr, s, ms);
        pr->maxrel = maxerr / refmax;
        printf("%-18s point %-2d %9.4f ms %8.1f TFLOP/s", s->name, i, ms, pr->tflops);
        if (s->m <= 128) {
            printf(" %8.1f GB/s", pr->gbs);
            if (copy_gbs > 0) printf(" (%.2f of copy)", pr->gbs / copy_gbs);
        }
        printf("  %.2fx cuBLAS  err %.2g%s  [%s %s]\n", pr->tflops / res->cublas.tflops, pr->maxrel,
               nnan > 0 || !(pr->maxrel < CHECK_LIMIT) ? " UNCHECKED" : "", base_name(p->file), p->gp.desc);
        fflush(stdout);
        if (res->best < 0 || pr->ms < res->pts[res->best].ms) res->best = i;
    }
out:
    if (rc == -1) {
        snprintf(res->cublas.why, sizeof res->cublas.why, "%.*s", (int)sizeof res->cublas.why - 1, why);
        printf("%-18s FAILED: %s\n", s->name, why);
    }
    res->done = rc == 0;
    if (!sticky_fault) dbufs_free(&d);
    free(ha);
    free(hb);
    free(href);
    free(hout);
    return rc;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_presult(FILE *f, const presult *r)
{
    fprintf(f, "\"status\": \"%s\"", r->state == P_TIMED ? "timed" : r->state == P_SKIPPED ? "skipped" : "failed");
    if (r->state == P_TIMED)
        fprintf(f, ", \"ms\": %.6f, \"tflops\": %.3f, \"gbs\": %.2f", r->ms, r->tflops, r->gbs);
    else {
        fprintf(f, ", \"why\": ");
        json_string(f, r->why);
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gemm_bench [--shapes FILE] [--only NAME] [--reps N] [--json OUT] "
               "[--seed N] [--no-check] [--flush] [--after cublas|N] [--copies N]\n"
               "                  [--null-stream] FILE.ptx...\n");
}

int main(int argc, char **argv)
{
    const char *shapes_path = GEMM_BENCH_DEFAULT_SHAPES, *only = NULL, *json = NULL;
    int reps = 20, nfiles = 0;
    uint64_t seed = 0xbe4c;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    char cmdline[2048] = "";
    size_t cl = 0;
    for (int i = 0; i < argc && cl < sizeof cmdline; i++) {
        int w = snprintf(cmdline + cl, sizeof cmdline - cl, "%s%s", i ? " " : "", argv[i]);
        if (w > 0) cl += (size_t)w;
    }
    if (files == NULL) return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shapes") == 0 && i + 1 < argc)
            shapes_path = argv[++i];
        else if (strcmp(argv[i], "--no-check") == 0)
            no_check = 1;
        else if (strcmp(argv[i], "--flush") == 0)
            flush = 1;
        else if (strcmp(argv[i], "--null-stream") == 0)
            null_stream = 1;
        else if (strcmp(argv[i], "--copies") == 0 && i + 1 < argc) {
            max_copies = atoi(argv[++i]);
            if (max_copies < 1 || max_copies > 64) {
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--after") == 0 && i + 1 < argc) {
            char *end;
            const char *v = argv[++i];
            after = strcmp(v, "cublas") == 0 ? -1 : (int)strtol(v, &end, 10);
            if (after != -1 && (*v == '\0' || *end != '\0' || after < 0)) {
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1 || reps > 100000) {
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            usage(stderr);
            return 2;
        } else
            files[nfiles++] = argv[i];
    }
    if (nfiles == 0) {
        usage(stderr);
        return 2;
    }
    bshape *shapes = NULL;
    int nshapes = 0;
    if (read_shapes(shapes_path, &shapes, &nshapes) != 0) return 1;
    if (only != NULL) {
        int j = 0;
        for (int i = 0; i < nshapes; i++)
            if (strcmp(shapes[i].name, only) == 0) shapes[j++] = shapes[i];
        nshapes = j;
        if (nshapes == 0) {
            fprintf(stderr, "gemm_bench: no shape named %s in %s\n", only, shapes_path);
            return 2;
        }
    }

    /* Kernel points (bf16 inputs only). */
    bpoint *pts = NULL;
    int npts = 0, cap = 0, bad = 0;
    for (int f = 0; f < nfiles; f++) {
        size_t len;
        char *text = gemm_read_file(files[f], &len), err[256];
        gemm_kernel_meta *metas = NULL;
        int nm = 0;
        if (text == NULL || gemm_parse_meta(text, len, &metas, &nm, err, sizeof err) != 0) {
            fprintf(stderr, "gemm_bench: %s: %s\n", files[f], text == NULL ? "cannot read file" : err);
            free(text);
            bad++;
            continue;
        }
        free(text);
        for (int i = 0; i < nm; i++) {
            gemm_point gp;
            if (metas[i].cls != CUTEC_KD_GEMM /* no serves gemm clause */) continue;
            if (gemm_point_from_meta(&metas[i], &gp, err, sizeof err) != 0) {
                fprintf(stderr, "gemm_bench: %s: %s\n", files[f], err);
                bad++;
                continue;
            }
            if (gp.t != GT_BF16 || gp.tc == GT_OTHER) {
                printf("note: %s: skipping point [%s] (the benchmark is bf16 in)\n", base_name(files[f]), gp.desc);
                continue;
            }
            if (npts == cap) {
                cap = cap ? 2 * cap : 8;
                bpoint *np = realloc(pts, (size_t)cap * sizeof *np);
                if (np == NULL) return 1;
                pts = np;
            }
            pts[npts].gp = gp;
            pts[npts].file = files[f];
            pts[npts].k = NULL;
            npts++;
        }
        free(metas);
    }
    if (bad) return 1;
    if (npts == 0) fprintf(stderr, "gemm_bench: warning: no bf16 GEMM point: timing cuBLAS only\n");
    if (after >= npts) {
        fprintf(stderr, "gemm_bench: --after %d: there are %d points (0 to %d)\n", after, npts, npts - 1);
        return 2;
    }

    cutec_status st = cutec_runtime_create(&rt, 0);
    if (st != CUTEC_OK) {
        int skip = st == CUTEC_ERR_NO_DRIVER || st == CUTEC_ERR_NO_DEVICE;
        printf("gemm_bench: %s: %s: %s\n", skip ? "no GPU, skipping" : "cannot create the runtime",
               cutec_status_string(st), cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        return skip ? SKIP : 1;
    }
    cutec_module **mods = calloc((size_t)nfiles, sizeof *mods);
    for (int f = 0; f < nfiles && mods != NULL; f++) {
        st = cutec_module_load_file(rt, files[f], &mods[f]);
        for (int i = 0; i < npts; i++) {
            if (pts[i].file != files[f]) continue;
            cutec_status ks = st == CUTEC_OK ? cutec_module_get_kernel(mods[f], pts[i].gp.meta.kernel, &pts[i].k) : st;
            if (ks == CUTEC_OK) pts[i].resident = gemm_resident(pts[i].k, &pts[i].gp);
            if (ks != CUTEC_OK) {
                fprintf(stderr, "gemm_bench: %s: %s: %s\n", files[f], cutec_status_string(ks),
                        cutec_runtime_message(rt));
                bad++;
            }
        }
    }
    char why[512];
    int clock_khz = 0;
    if (mods == NULL || bad || !cuda_ok(cudaSetDevice(0), "cudaSetDevice", why, sizeof why) ||
        (!null_stream && !cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate", why, sizeof why))) {
        if (!bad) fprintf(stderr, "gemm_bench: %s\n", mods == NULL ? "out of memory" : why);
        cutec_runtime_destroy(rt);
        return 1;
    }
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0) != cudaSuccess) clock_khz = 0;
    cublasStatus_t bs = cublasCreate(&blas);
    if (bs != CUBLAS_STATUS_SUCCESS || cublasSetStream(blas, stream) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "gemm_bench: cublasCreate/SetStream: %s\n", cublasGetStatusString(bs));
        cutec_runtime_destroy(rt);
        return 1;
    }
    int copy_reps = reps > COPY_MIN_REPS ? reps : COPY_MIN_REPS;
    st = cutec_timer_create(rt, flush ? CUTEC_TIMER_FLUSH_L2 : 0, &timer);
    if (st != CUTEC_OK) {
        fprintf(stderr, "gemm_bench: the timing harness%s: %s: %s\n", flush ? " (and the L2 flush buffer)" : "",
                cutec_status_string(st), cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        return 1;
    }
    char dev[256] = "?";
    int ccmaj = 0, ccmin = 0, sms = 0;
    cutec_device_info(rt, dev, sizeof dev, &ccmaj, &ccmin, &sms);
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    char clock_s[64];
    if (clock_khz > 0)
        snprintf(clock_s, sizeof clock_s, "%d MHz (max, CLOCK_RATE)", clock_khz / 1000);
    else
        snprintf(clock_s, sizeof clock_s, "n/a");
    int cublas_ver = 0;
    cublasGetVersion(blas, &cublas_ver);
    printf("gemm_bench: %s (sm_%d%d, %d SMs), SM clock %s, cuBLAS %d, %d point(s), %d shape(s), "
           "%d reps\n",
           dev, ccmaj, ccmin, sms, clock_s, cublas_ver, npts, nshapes, reps);
    for (int i = 0; i < npts; i++) printf("  point %d: %s [%s]\n", i, base_name(pts[i].file), pts[i].gp.desc);
    double copy_ms = 0;
    copy_gbs = measure_copy(copy_reps, &copy_ms, why, sizeof why);
    if (copy_gbs > 0)
        printf("gemm_bench: device-to-device copy %.1f GB/s (cudaMemcpyAsync of %zu MiB, %.4f ms, "
               "median of %d runs after %d warm-ups; GB/s = read + write bytes = 2 x size / time)\n",
               copy_gbs, COPY_BYTES >> 20, copy_ms, copy_reps, WARMUP);
    else
        printf("gemm_bench: device-to-device copy bandwidth not measured: %s\n", why);
    if (flush) {
        flush_now = 1;
        printf("gemm_bench: --flush: a %zu MiB memset before each timed run\n", cutec_timer_flush_bytes(timer) >> 20);
    }
    fflush(stdout);

    sresult *res = calloc((size_t)nshapes, sizeof *res);
    int failures = 0;
    for (int i = 0; i < nshapes && res != NULL; i++) {
        res[i].pts = calloc((size_t)(npts ? npts : 1), sizeof *res[i].pts);
        res[i].s = &shapes[i];
        res[i].best = -1;
        if (res[i].pts == NULL) return 1;
    }
    for (int i = 0; i < nshapes && res != NULL; i++) {
        int rc = bench_shape(&shapes[i], pts, npts, reps, seed, &res[i]);
        for (int p = 0; p < npts; p++) failures += res[i].pts[p].state == P_FAILED;
        if (rc != 0) failures++;
        if (rc == -2) {
            printf("gemm_bench: a DSL kernel faulted; the CUDA context is unusable: stopping\n");
            break;
        }
    }

    /* Markdown table. */
    printf("\n### GEMM template points vs cuBLAS (bf16 in, f32 accumulate, bf16 out)\n\n");
    printf("Device: %s (sm_%d%d, %d SMs); SM clock: %s; cuBLAS %d; date: %s  \n", dev, ccmaj, ccmin, sms, clock_s,
           cublas_ver, date);
    printf("Command: `%s`  \n", cmdline);
    printf("Median of %d runs after %d warm-up runs (CUDA events); inputs rotate among copies "
           "of A, B, C totalling >= 256 MiB so that no run finds its data in L2.  \n",
           reps, WARMUP);
    if (copy_gbs > 0)
        printf("Device-to-device copy bandwidth: %.0f GB/s (cudaMemcpyAsync of 1 GiB, read + write "
               "bytes, median of %d runs); decode rows (M <= 128) give the DSL's GB/s as a fraction "
               "of it (the bar is 0.80).\n\n",
               copy_gbs, copy_reps);
    else
        printf("Device-to-device copy bandwidth: not measured.\n\n");
    printf("| shape | M | N | K | cuBLAS ms | cuBLAS TFLOP/s | best DSL TFLOP/s | DSL / cuBLAS | "
           "GB/s cuBLAS / DSL | best point |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < nshapes && res != NULL; i++) {
        const sresult *r = &res[i];
        const bshape *s = &shapes[i];
        printf("| %s | %ld | %ld | %ld | ", s->name, s->m, s->n, s->k);
        if (r->cublas.state != P_TIMED) {
            printf("%s | | | | | |\n", r->done || r->cublas.why[0] ? "failed" : "not run");
            continue;
        }
        printf("%.3f | %.1f | ", r->cublas.ms, r->cublas.tflops);
        const presult *b = r->best >= 0 ? &r->pts[r->best] : NULL;
        if (b != NULL)
            printf("%.1f | %.2f | ", b->tflops, b->tflops / r->cublas.tflops);
        else
            printf("— | — | ");
        if (s->m <= 128 && b != NULL && copy_gbs > 0)
            printf("%.0f / %.0f (%.2f of copy) | ", r->cublas.gbs, b->gbs, b->gbs / copy_gbs);
        else if (s->m <= 128 && b != NULL)
            printf("%.0f / %.0f | ", r->cublas.gbs, b->gbs);
        else if (s->m <= 128)
            printf("%.0f / — | ", r->cublas.gbs);
        else
            printf(" | ");
        if (b != NULL)
            printf("%d: %s |\n", r->best, pts[r->best].gp.desc);
        else {
            int nf = 0;
            for (int p = 0; p < npts; p++) nf += r->pts[p].state == P_FAILED;
            printf("%s |\n", nf ? "all points failed" : "no point ran");
        }
    }
    printf("\nPoints: ");
    for (int i = 0; i < npts; i++) printf("%s%d = %s [%s]", i ? "; " : "", i, base_name(pts[i].file), pts[i].gp.desc);
    printf("\n");

    if (json != NULL && res != NULL) {
        FILE *f = fopen(json, "w");
        if (f == NULL) {
            fprintf(stderr, "gemm_bench: cannot write %s\n", json);
            failures++;
        } else {
            fprintf(f, "{\n  \"device\": ");
            json_string(f, dev);
            fprintf(f, ",\n  \"sm_clock_khz\": %d,\n  \"cublas_version\": %d,\n  \"date\": ", clock_khz, cublas_ver);
            json_string(f, date);
            fprintf(f, ",\n  \"command\": ");
            json_string(f, cmdline);
            fprintf(f, ",\n  \"reps\": %d,\n  \"warmup\": %d,\n", reps, WARMUP);
            fprintf(f,
                    "  \"copy_bandwidth\": {\"method\": \"cudaMemcpyAsync device to device\", "
                    "\"bytes\": %zu, \"reps\": %d, \"convention\": \"read + write: 2 * bytes / time\", ",
                    COPY_BYTES, copy_reps);
            if (copy_gbs > 0)
                fprintf(f, "\"ms\": %.6f, \"gbs\": %.2f},\n", copy_ms, copy_gbs);
            else
                fprintf(f, "\"gbs\": null},\n");
            fprintf(f, "  \"points\": [");
            for (int i = 0; i < npts; i++) {
                fprintf(f, "%s\n    {\"index\": %d, \"file\": ", i ? "," : "", i);
                json_string(f, pts[i].file);
                fprintf(f, ", \"kernel\": ");
                json_string(f, pts[i].gp.meta.kernel);
                fprintf(f, ", \"params\": {");
                for (int p = 0; p < pts[i].gp.meta.nparams; p++) {
                    fprintf(f, "%s", p ? ", " : "");
                    json_string(f, cutec_kd_s(&pts[i].gp.meta, pts[i].gp.meta.pname[p]));
                    fprintf(f, ": ");
                    json_string(f, cutec_kd_s(&pts[i].gp.meta, pts[i].gp.meta.pvalue[p]));
                }
                fprintf(f, "}}");
            }
            fprintf(f, "\n  ],\n  \"shapes\": [");
            for (int i = 0; i < nshapes; i++) {
                const sresult *r = &res[i];
                fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
                json_string(f, shapes[i].name);
                fprintf(f, ", \"M\": %ld, \"N\": %ld, \"K\": %ld, \"copies\": %d, \"cublas\": {", shapes[i].m,
                        shapes[i].n, shapes[i].k, r->copies);
                json_presult(f, &r->cublas);
                fprintf(f, "}, \"best_point\": %d", r->best);
                if (shapes[i].m <= 128 && copy_gbs > 0) {
                    /* the decode bar: the DSL's GB/s against 80% of the copy's */
                    if (r->cublas.state == P_TIMED)
                        fprintf(f, ", \"cublas_fraction_of_copy\": %.4f", r->cublas.gbs / copy_gbs);
                    if (r->best >= 0) fprintf(f, ", \"dsl_fraction_of_copy\": %.4f", r->pts[r->best].gbs / copy_gbs);
                }
                fprintf(f, ", \"points\": [");
                for (int p = 0; p < npts; p++) {
                    fprintf(f, "%s{\"index\": %d, ", p ? ", " : "", p);
                    json_presult(f, &r->pts[p]);
                    if (r->pts[p].state == P_TIMED) fprintf(f, ", \"max_rel_err\": %.3g", r->pts[p].maxrel);
                    fprintf(f, "}");
                }
                fprintf(f, "]}");
            }
            fprintf(f, "\n  ]\n}\n");
            fclose(f);
        }
    }

    cutec_timer_destroy(timer);
    if (!sticky_fault) {
        cublasDestroy(blas);
        cudaStreamDestroy(stream);
        for (int f = 0; f < nfiles; f++) cutec_module_unload(mods[f]);
    }
    cutec_runtime_destroy(rt);
    for (int i = 0; i < nshapes && res != NULL; i++) free(res[i].pts);
    free(res);
    free(mods);
    free(pts);
    free(shapes);
    free(files);
    return failures ? 1 : 0;
}
