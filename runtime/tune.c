/*
 * tune.c - the GEMM autotuner.  Candidates: every GEMM entry of the packs in
 * use that fits the problem (pruned statically: element types, layouts and
 * leading dimensions the kernel hard-codes, alpha/beta, K % VEC, 16-byte
 * alignment, shared memory against the device's opt-in limit, 32-bit
 * indexing, grid limits) and up to N algorithms of cuBLASLt's heuristic.
 *
 * One harness times them all: each candidate first runs once into a scratch
 * C that was filled with NaN bytes and is compared with the reference (the
 * first cuBLASLt algorithm's result, itself checked against a float64 host
 * computation of sampled elements; without cuBLASLt, the samples alone), so
 * a kernel that writes nothing, or wrong values, or fails to load or launch,
 * scores +inf with the reason logged.  Then warm-up runs and R timed runs on
 * the caller's stream, each preceded by a write of a buffer twice the size
 * of L2 (outside the timed interval) and bracketed by CUDA events; the score
 * is the median.  The best pack kernel and the best cuBLASLt algorithm
 * are then timed again in alternation, so that the two compare under the
 * same clocks.  The winner is run and checked once more before it is
 * trusted.  A kernel fault cannot be survived (CUDA poisons the context), so
 * it ends tuning with CUTEC_ERR_KERNEL_FAULT; a pack kernel that faulted
 * goes into the quarantine file beside the cache, which later tunings skip.
 */
#include "gemm_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- numbers ---- */

static float half_to_float(uint16_t h, int bf16) {
  uint32_t u;
  if (bf16) {
    u = (uint32_t)h << 16;
  } else {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (e == 0) {
      float v = ldexpf((float)mant, -24);
      return sign ? -v : v;
    }
    u = e == 31 ? sign | 0x7f800000u | (mant << 13) : sign | ((e + 112u) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static double load_elem(const unsigned char *buf, cutec_dtype t, size_t i) {
  if (t == CUTEC_DTYPE_F32) {
    float f;
    memcpy(&f, buf + 4 * i, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, buf + 2 * i, 2);
  return half_to_float(h, t == CUTEC_DTYPE_BF16);
}

/* Element (r, c) of a matrix stored with layout l and ld. */
static size_t elem_index(cutec_layout l, long long r, long long c, long long ld) {
  return (size_t)(l == CUTEC_LAYOUT_ROW ? r * ld + c : c * ld + r);
}

/* Relative precision of the output type (one unit in the last place). */
static double out_eps(cutec_dtype t) {
  return t == CUTEC_DTYPE_BF16 ? 0x1p-7 : t == CUTEC_DTYPE_F16 ? 0x1p-10 : 0x1p-16;
}

/* ---- the harness ---- */

typedef struct harness {
  cutec_runtime *rt;
  struct cutec_gemm_ctx *g;
  const cutec_gemm_problem *p;
  const void *A, *B;
  void *stream;
  CUdeviceptr cs, flush;
  size_t c_bytes, flush_bytes;
  CUevent *ev;
  int nev;
  unsigned char *host_c, *ref, *ha, *hb;
  int have_ref;
  double ref_rms; /* of the reference C, once (negative: not yet) */
} harness;

typedef struct candidate {
  gemm_decision d;
  double ms;
  char note[160];
  int screened; /* timed in the screening round only, never checked: cannot win */
  double round_ms; /* the median of the common timed rounds (the report's round_ms) */
  int algo_rank;   /* cuBLASLt's heuristic rank, -1 for a pack kernel */
} candidate;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Compares the candidate's output with the reference C; 0 or -1 with why. */
static int compare_full(harness *h, char *why, size_t why_len) {
  const cutec_gemm_problem *p = h->p;
  if (h->ref_rms < 0) {
    double sum2 = 0;
    for (long long r = 0; r < p->m; r++)
      for (long long c = 0; c < p->n; c++) {
        double v = load_elem(h->ref, p->c_type, elem_index(p->c_layout, r, c, p->ldc));
        sum2 += v * v;
      }
    h->ref_rms = sqrt(sum2 / ((double)p->m * (double)p->n));
  }
  double rms = h->ref_rms, eps = out_eps(p->c_type);
  for (long long r = 0; r < p->m; r++)
    for (long long c = 0; c < p->n; c++) {
      size_t i = elem_index(p->c_layout, r, c, p->ldc);
      double want = load_elem(h->ref, p->c_type, i), got = load_elem(h->host_c, p->c_type, i);
      double tol = 2 * eps * fabs(want) + 2 * eps * rms + 1e-30;
      if (!(fabs(got - want) <= tol)) {
        snprintf(why, why_len, "wrong result: C[%lld,%lld] = %.6g, reference %.6g", r, c, got, want);
        return -1;
      }
    }
  return 0;
}

/* Compares buf (a C on the host) at sampled positions with float64 dot
 * products of the host copies of A and B. */
static int compare_samples(const harness *h, const unsigned char *buf, char *why, size_t why_len) {
  const cutec_gemm_problem *p = h->p;
  uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)(p->m * 31 + p->n * 17 + p->k);
  double eps = out_eps(p->c_type);
  for (int t = 0; t < 256; t++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    long long r = t == 0 ? 0 : t == 1 ? p->m - 1 : (long long)((s >> 20) % (uint64_t)p->m);
    long long c = t == 0 ? 0 : t == 1 ? p->n - 1 : (long long)((s >> 40) % (uint64_t)p->n);
    double dot = 0, mag = 0;
    for (long long q = 0; q < p->k; q++) {
      double a = load_elem(h->ha, p->a_type, elem_index(p->a_layout, r, q, p->lda));
      double b = load_elem(h->hb, p->b_type, elem_index(p->b_layout, q, c, p->ldb));
      dot += a * b;
      mag += fabs(a * b);
    }
    double want = (double)p->alpha * dot, got = load_elem(buf, p->c_type,
                                                        elem_index(p->c_layout, r, c, p->ldc));
    double tol = 2 * eps * fabs(want) + 4 * eps * fabs((double)p->alpha) * mag / sqrt((double)p->k) + 1e-30;
    if (!(fabs(got - want) <= tol)) {
      snprintf(why, why_len, "wrong result: C[%lld,%lld] = %.6g, float64 reference %.6g", r, c, got,
               want);
      return -1;
    }
  }
  return 0;
}

/* Runs a candidate once into the NaN-filled scratch C and copies it back. */
static cutec_status run_once(harness *h, candidate *c) {
  cutec_runtime *rt = h->rt;
  /* NaN bytes catch outputs never written; with beta != 0 the old C is read,
   * so it starts at zero and the result is alpha * A * B either way. */
  unsigned char fill = h->p->beta == 0.0f ? 0xff : 0x00;
  CUresult r = rt->drv.memset_d8_async(h->cs, fill, h->c_bytes, (CUstream)h->stream);
  if (r != CUDA_SUCCESS)
    return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemsetD8Async(scratch C)");
  cutec_status s = cutec_gemm_run_decision(rt, h->g, &c->d, h->p, h->A, h->B,
                                           (void *)(uintptr_t)h->cs, h->stream);
  if (s == CUTEC_OK)
    s = cutec_stream_synchronize(rt, h->stream);
  if (s == CUTEC_OK)
    s = cutec_memcpy_dtoh(rt, h->host_c, h->cs, h->c_bytes);
  return s;
}

/* Checks one candidate; +inf and a note when it fails.  Returns a status only
 * for failures that end tuning (kernel faults). */
/* Loads a pack candidate's kernel; +inf and a note when it fails. */
static cutec_status load_candidate(candidate *c) {
  if (c->d.kind == DECISION_DSL && c->d.kernel == NULL) {
    cutec_status s = cutec_rt_pack_kernel(c->d.pack, c->d.entry, &c->d.kernel);
    if (s != CUTEC_OK) {
      if (s == CUTEC_ERR_KERNEL_FAULT)
        return s;
      snprintf(c->note, sizeof c->note, "load failed: %s", cutec_status_string(s));
      c->ms = INFINITY;
    }
  }
  return CUTEC_OK;
}

static cutec_status check_candidate(harness *h, candidate *c) {
  cutec_runtime *rt = h->rt;
  cutec_status s = load_candidate(c);
  if (s != CUTEC_OK || isinf(c->ms))
    return s;
  s = run_once(h, c);
  if (s == CUTEC_ERR_KERNEL_FAULT)
    return s;
  char why[160] = "";
  if (s != CUTEC_OK)
    snprintf(why, sizeof why, "launch failed: %s: %.100s", cutec_status_string(s),
             cutec_runtime_message(rt));
  else if (h->have_ref)
    (void)compare_full(h, why, sizeof why);
  else if (h->ha != NULL)
    (void)compare_samples(h, h->host_c, why, sizeof why);
  if (why[0] != '\0') {
    snprintf(c->note, sizeof c->note, "%s", why);
    c->ms = INFINITY;
  }
  return CUTEC_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Grows the harness's events to at least n (created on first use). */
static cutec_status ensure_events(harness *h, int n) {
  if (n <= h->nev)
    return CUTEC_OK;
  CUevent *ev = realloc(h->ev, sizeof *ev * (size_t)n);
  if (ev == NULL)
    return cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
  h->ev = ev;
  for (; h->nev < n; h->nev++) {
    CUresult r = h->rt->drv.event_create(&h->ev[h->nev], 0);
    if (r != CUDA_SUCCESS) {
      h->ev[h->nev] = NULL;
      return cutec_rt_fail_driver(h->rt, r, CUTEC_RT_PHASE_GENERIC, "cuEventCreate");
    }
  }
  return CUTEC_OK;
}

/* Median times of `runs` runs (after `warmup` each) of nc candidates, in
 * rounds: every candidate runs once per round (A B C ... A B C ...), so
 * that candidates compared with each other see the same clocks and
 * power cap.  Timed back to back instead, a candidate's score depended on
 * when its turn came: on the H100 a large GEMM reaches the 700 W cap within
 * a second, and the cap then swings the SM clock between about 1.1 and
 * 2.0 GHz, so that the same kernel measured up to 10% apart within one
 * tuning.  Each
 * candidate's warm-ups are waited for before the next one's, so that a
 * kernel fault names its kernel (*fault, else -1). */
static cutec_status time_candidates(harness *h, candidate **cs, int nc, int warmup, int runs, int *fault) {
  cutec_runtime *rt = h->rt;
  struct cutec_gemm_ctx *g = h->g;
  void *sc = (void *)(uintptr_t)h->cs;
  CUstream st = (CUstream)h->stream;
  *fault = -1;
  if (nc <= 0)
    return CUTEC_OK;
  cutec_status s = ensure_events(h, 2 * nc * runs);
  int *live = malloc(sizeof *live * (size_t)nc);
  double *t = malloc(sizeof *t * (size_t)runs);
  if (s == CUTEC_OK && (live == NULL || t == NULL))
    s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
  for (int j = 0; j < nc && s == CUTEC_OK; j++) {
    live[j] = 1;
    for (int w = 0; w < warmup && live[j]; w++) {
      cutec_status ls = cutec_gemm_run_decision(rt, g, &cs[j]->d, h->p, h->A, h->B, sc, h->stream);
      if (ls != CUTEC_OK) {
        snprintf(cs[j]->note, sizeof cs[j]->note, "warm-up launch failed: %s", cutec_status_string(ls));
        cs[j]->ms = INFINITY;
        live[j] = 0;
      }
    }
    if (warmup > 0 && live[j]) {
      s = cutec_stream_synchronize(rt, h->stream);
      if (s == CUTEC_ERR_KERNEL_FAULT)
        *fault = j;
    }
  }
  for (int r = 0; r < runs && s == CUTEC_OK; r++)
    for (int j = 0; j < nc && s == CUTEC_OK; j++) {
      if (!live[j])
        continue;
      int e = 2 * (r * nc + j);
      CUresult cr = CUDA_SUCCESS;
      if (h->flush != 0)
        cr = rt->drv.memset_d8_async(h->flush, (unsigned char)r, h->flush_bytes, st);
      if (cr == CUDA_SUCCESS)
        cr = rt->drv.event_record(h->ev[e], st);
      if (cr != CUDA_SUCCESS) {
        s = cutec_rt_fail_driver(rt, cr, CUTEC_RT_PHASE_GENERIC, "cuEventRecord / cuMemsetD8Async");
        break;
      }
      cutec_status ls = cutec_gemm_run_decision(rt, g, &cs[j]->d, h->p, h->A, h->B, sc, h->stream);
      if (ls != CUTEC_OK) {
        snprintf(cs[j]->note, sizeof cs[j]->note, "timed launch failed: %s", cutec_status_string(ls));
        cs[j]->ms = INFINITY;
        live[j] = 0;
        (void)cutec_stream_synchronize(rt, h->stream);
        continue;
      }
      cr = rt->drv.event_record(h->ev[e + 1], st);
      if (cr != CUDA_SUCCESS)
        s = cutec_rt_fail_driver(rt, cr, CUTEC_RT_PHASE_GENERIC, "cuEventRecord");
    }
  if (s == CUTEC_OK)
    s = cutec_stream_synchronize(rt, h->stream); /* a kernel fault keeps its status */
  for (int j = 0; j < nc && s == CUTEC_OK; j++) {
    if (!live[j])
      continue;
    for (int r = 0; r < runs; r++) {
      float ms = 0;
      int e = 2 * (r * nc + j);
      CUresult cr = rt->drv.event_elapsed_time(&ms, h->ev[e], h->ev[e + 1]);
      if (cr != CUDA_SUCCESS) {
        s = cutec_rt_fail_driver(rt, cr, CUTEC_RT_PHASE_GENERIC, "cuEventElapsedTime");
        break;
      }
      t[r] = ms;
    }
    if (s != CUTEC_OK)
      break;
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    cs[j]->ms = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
  }
  free(live);
  free(t);
  return s;
}

/* A kernel fault while a pack kernel ran: the kernel goes into the
 * quarantine (cache.c), so that later tunings skip it, and the error says
 * so.  Other statuses pass through. */
static cutec_status fault_quarantine(cutec_runtime *rt, struct cutec_gemm_ctx *g, cutec_status s, const candidate *c) {
  if (s != CUTEC_ERR_KERNEL_FAULT || c->d.kind != DECISION_DSL)
    return s;
  char msg[512];
  snprintf(msg, sizeof msg, "%s", cutec_runtime_message(rt));
  char path[1200];
  if (cutec_gemm_quarantine(rt, g, &c->d, path, sizeof path) != 0)
    return cutec_rt_fail(rt, s, "tuning: %s faulted: %s", c->d.name, msg);
  return cutec_rt_fail(rt, s,
                       "tuning: %s faulted: %s; it is quarantined in %s, so later tunings skip it",
                       c->d.name, msg, path);
}

/* time_candidates for the tuning's rounds, with each result logged (suffix
 * after the time) and a kernel that faulted quarantined. */
static cutec_status timing_rounds(harness *h, candidate **cs, int nc, int warmup, int runs,
                                  const char *suffix) {
  cutec_runtime *rt = h->rt;
  const cutec_gemm_problem *p = h->p;
  int fault = -1;
  cutec_status s = time_candidates(h, cs, nc, warmup, runs, &fault);
  if (fault >= 0)
    return fault_quarantine(rt, h->g, s, cs[fault]);
  if (s == CUTEC_ERR_KERNEL_FAULT)
    return cutec_rt_fail(rt, s, "tuning: a kernel faulted in the timed rounds: %s",
                         cutec_runtime_message(rt));
  for (int j = 0; j < nc && s == CUTEC_OK; j++) {
    if (isinf(cs[j]->ms))
      cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: candidate %s scores +inf: %s", cs[j]->d.name,
                   cs[j]->note);
    else
      cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: candidate %s: %.4f ms, %.1f TFLOP/s%s", cs[j]->d.name,
                   cs[j]->ms, 2.0 * (double)p->m * (double)p->n * (double)p->k / (cs[j]->ms * 1e9),
                   suffix);
  }
  return s;
}

static int cmp_candidate(const void *a, const void *b) {
  const candidate *x = a, *y = b;
  if (x->ms != y->ms)
    return x->ms < y->ms ? -1 : 1;
  return 0;
}

static void harness_free(harness *h) {
  cutec_runtime *rt = h->rt;
  if (h->ev != NULL)
    for (int i = 0; i < h->nev; i++)
      if (h->ev[i] != NULL)
        (void)rt->drv.event_destroy(h->ev[i]);
  free(h->ev);
  if (h->cs != 0)
    (void)rt->drv.mem_free(h->cs);
  if (h->flush != 0)
    (void)rt->drv.mem_free(h->flush);
  free(h->host_c);
  free(h->ref);
  free(h->ha);
  free(h->hb);
}

static cutec_status alloc_device(harness *h, CUdeviceptr *p, size_t bytes, const char *what) {
  CUresult r = h->rt->drv.mem_alloc(p, bytes);
  if (r != CUDA_SUCCESS) {
    *p = 0;
    return cutec_rt_fail_driver(h->rt, r, CUTEC_RT_PHASE_GENERIC,
                                "tuning: cuMemAlloc_v2(%zu bytes for %s)", bytes, what);
  }
  return CUTEC_OK;
}

/* Sets up buffers and events.  Device allocation failures are
 * CUTEC_ERR_OUT_OF_MEMORY (mapped from the driver). */
static cutec_status harness_init(harness *h) {
  cutec_runtime *rt = h->rt;
  const cutec_gemm_problem *p = h->p;
  struct cutec_gemm_ctx *g = h->g;
  h->c_bytes = cutec_gemm_matrix_bytes(p->c_type, p->c_layout, p->m, p->n, p->ldc);
  cutec_status s = alloc_device(h, &h->cs, h->c_bytes, "the scratch C");
  if (s != CUTEC_OK)
    return s;
  if (g->flush_l2) {
    int l2 = 0;
    if (rt->drv.device_get_attribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, rt->dev) != CUDA_SUCCESS ||
        l2 <= 0)
      l2 = 64 << 20;
    h->flush_bytes = 2 * (size_t)l2;
    s = alloc_device(h, &h->flush, h->flush_bytes, "the L2 flush buffer");
    if (s != CUTEC_OK)
      return s;
  }
  h->host_c = malloc(h->c_bytes);
  if (h->host_c == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory (%zu bytes)",
                         h->c_bytes);
  /* the events: time_candidates creates as many as it needs */
  /* Host copies of A and B for the float64 samples; optional (skipped, with
   * a note, when the host cannot hold them). */
  size_t ab = cutec_gemm_matrix_bytes(p->a_type, p->a_layout, p->m, p->k, p->lda);
  size_t bb = cutec_gemm_matrix_bytes(p->b_type, p->b_layout, p->k, p->n, p->ldb);
  h->ha = malloc(ab);
  h->hb = malloc(bb);
  if (h->ha == NULL || h->hb == NULL) {
    free(h->ha);
    free(h->hb);
    h->ha = h->hb = NULL;
    cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: no host memory for copies of A and B; "
                                        "results are checked against cuBLASLt only");
  } else {
    s = cutec_memcpy_dtoh(rt, h->ha, (unsigned long long)(uintptr_t)h->A, ab);
    if (s == CUTEC_OK)
      s = cutec_memcpy_dtoh(rt, h->hb, (unsigned long long)(uintptr_t)h->B, bb);
    if (s != CUTEC_OK)
      return s;
  }
  return CUTEC_OK;
}

static void progress(struct cutec_gemm_ctx *g, int done, int total, const char *name) {
  if (g->progress != NULL)
    g->progress(g->progress_user, done, total, name);
}

cutec_status cutec_gemm_tune_class(cutec_runtime *rt, struct cutec_gemm_ctx *g,
                                   const cutec_gemm_problem *p, const gemm_class *cls,
                                   const void *A, const void *B, void *stream,
                                   cutec_tune_report **report, gemm_decision **out) {
  double t0 = now_seconds();
  *out = NULL;
  if (rt->drv.missing_optional != NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_NO_DRIVER,
                         "tuning needs the driver entry point %s, which the driver lacks",
                         rt->drv.missing_optional);
  if (g->smem_optin == 0 &&
      rt->drv.device_get_attribute(&g->smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                   rt->dev) != CUDA_SUCCESS)
    g->smem_optin = 0;
  if (g->cc_major == 0 &&
      rt->drv.device_get_attribute(&g->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, rt->dev) != CUDA_SUCCESS)
    g->cc_major = 0;

  /* Candidates: DSL entries that fit, then cuBLASLt algorithms. */
  int ndsl = 0, cap = 8;
  for (int i = 0; i < g->npacks; i++)
    cap += g->packs[i]->count;
  cap += g->cublas_algos + 1;
  candidate *cands = calloc((size_t)cap, sizeof *cands);
  if (cands == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
  char pruned[300] = "", unfit_why[300];
  int quarantined = 0;
  char *quarantine = cutec_gemm_quarantine_load(rt, g);
  for (int pi = 0; pi < g->npacks; pi++)
    for (int i = 0; i < g->packs[pi]->count; i++) {
      const char *unfit = cutec_gemm_dsl_unfit(rt, g->packs[pi], i, p, cls, &cands[ndsl].d, unfit_why, sizeof unfit_why);
      if (unfit == NULL && cutec_gemm_quarantined(quarantine, &cands[ndsl].d)) {
        quarantined++; /* faulted in an earlier tuning: its slot is reused */
      } else if (unfit == NULL) {
        ndsl++;
      } else {
        char name[192];
        cutec_pack_entry_describe(g->packs[pi], i, name, sizeof name);
        cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: skipping %s: %s", name, unfit);
        if (pruned[0] == '\0' && strncmp(unfit, "not a GEMM", 10) != 0)
          snprintf(pruned, sizeof pruned, "%s", unfit);
      }
    }
  free(quarantine);
  if (quarantined > 0)
    cutec_rt_log(rt, CUTEC_LOG_WARNING,
                 "tuning: skipping %d pack kernel%s that faulted in an earlier tuning (listed in %s/quarantine.txt)",
                 quarantined, quarantined == 1 ? "" : "s", cutec_gemm_cache_dir(g));
  int n = ndsl;
  int lt = cutec_gemm_lt(rt, g);
  cutec_lt_plan ref_plan;
  int have_plan = 0, nalgo = 0;
  cublasLtMatmulHeuristicResult_t *heur = NULL;
  char ltwhy[256] = "";
  cutec_status s = CUTEC_OK;
  if (lt && g->workspace == 0) {
    CUresult r = rt->drv.mem_alloc(&g->workspace, CUTEC_DEFAULT_WORKSPACE);
    if (r != CUDA_SUCCESS) {
      g->workspace = 0;
      free(cands);
      return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC,
                                  "cuMemAlloc_v2(%u bytes of cuBLASLt workspace)",
                                  CUTEC_DEFAULT_WORKSPACE);
    }
    g->workspace_bytes = CUTEC_DEFAULT_WORKSPACE;
    g->workspace_owned = 1;
  }
  if (lt && cutec_lt_plan_create(&g->lt, p, &ref_plan, ltwhy, sizeof ltwhy)) {
    have_plan = 1;
    int want = g->cublas_algos > 0 ? g->cublas_algos : 1;
    heur = calloc((size_t)want, sizeof *heur);
    if (heur != NULL)
      nalgo = cutec_lt_heuristics(&g->lt, &ref_plan, g->workspace_bytes, heur, want, ltwhy,
                                  sizeof ltwhy);
    for (int a = 0; a < nalgo && a < g->cublas_algos; a++) {
      candidate *c = &cands[n++];
      c->d.kind = DECISION_CUBLAS;
      c->d.cls = *cls;
      c->d.algo = heur[a].algo;
      c->algo_rank = a;
      snprintf(c->d.name, sizeof c->d.name, "cublasLt algo #%d", a);
      char what[160];
      cutec_lt_algo_describe(&g->lt, &c->d.algo, what, sizeof what);
      cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: %s is %s (cublasLt.h's values)", c->d.name, what);
    }
  }
  if (!lt)
    snprintf(ltwhy, sizeof ltwhy, "%s", g->lt_why);
  if (n == 0) {
    if (have_plan)
      cutec_lt_plan_destroy(&g->lt, &ref_plan);
    free(heur);
    free(cands);
    char key[CUTEC_KEY_MAX];
    cutec_gemm_class_key(cls, key, sizeof key);
    return cutec_rt_fail(rt, lt || ndsl > 0 ? CUTEC_ERR_UNSUPPORTED : CUTEC_ERR_NO_CUBLAS,
                         "no candidate for %s: pack kernels: %s; cuBLASLt: %s", key,
                         g->npacks == 0 ? "no pack in use (cutec_gemm_use_pack)"
                         : pruned[0]    ? pruned
                                        : "none is a GEMM kernel",
                         ltwhy[0] ? ltwhy : "no algorithm");
  }

  harness h = {.rt = rt, .g = g, .p = p, .A = A, .B = B, .stream = stream, .ref_rms = -1};
  s = harness_init(&h);
  /* The reference: cuBLASLt's first algorithm, itself checked against the
   * float64 samples. */
  if (s == CUTEC_OK && nalgo > 0) {
    candidate ref = {.d = {.kind = DECISION_CUBLAS, .algo = heur[0].algo, .plan = ref_plan,
                           .has_plan = 1}};
    snprintf(ref.d.name, sizeof ref.d.name, "cublasLt reference");
    s = run_once(&h, &ref);
    char why[160] = "";
    if (s == CUTEC_OK && (h.ha == NULL || compare_samples(&h, h.host_c, why, sizeof why) == 0)) {
      h.ref = h.host_c;
      h.host_c = malloc(h.c_bytes);
      h.have_ref = h.host_c != NULL;
      if (h.host_c == NULL)
        s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    } else if (s == CUTEC_OK) {
      cutec_rt_log(rt, CUTEC_LOG_WARNING,
                   "tuning: cuBLASLt's result disagrees with float64 samples (%s); checking "
                   "against the samples instead",
                   why);
    } else if (s != CUTEC_ERR_KERNEL_FAULT) {
      cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: the cuBLASLt reference failed: %s",
                   cutec_runtime_message(rt));
      s = CUTEC_OK;
    }
  }
  if (have_plan)
    cutec_lt_plan_destroy(&g->lt, &ref_plan);
  free(heur);
  if (s == CUTEC_OK && !h.have_ref && h.ha == NULL) {
    s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY,
                      "tuning: no reference to check candidates against (cuBLASLt unavailable "
                      "and no host memory for A and B)");
  }

  /* With many pack candidates, a screening round of a few unchecked runs
   * each ranks them, and only the fastest `finalists` are checked against
   * the reference and timed in full, with every cuBLASLt algorithm (the
   * reference the result is judged against).  The check copies C to the
   * host and compares every element, which for a large C costs far more
   * than the runs: checking 8 points instead of 160 is most of the saving.
   * A point far behind in 5 runs does not win in 25; one that is not
   * checked cannot win.  Steps for the progress callback: each candidate
   * loaded or checked, the screening rounds, each finalist checked, the
   * timed rounds. */
  int screen = g->finalists > 0 && ndsl > g->finalists && g->runs > 5;
  int total = n + (screen ? 1 + g->finalists : 0) + 1, step = 0;
  for (int i = 0; i < n && s == CUTEC_OK; i++) {
    candidate *c = &cands[i];
    c->screened = screen && c->d.kind != DECISION_CUBLAS;
    s = fault_quarantine(rt, g, c->screened ? load_candidate(c) : check_candidate(&h, c), c);
    if (s == CUTEC_OK && isinf(c->ms))
      cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: candidate %s scores +inf: %s", c->d.name,
                   c->note);
    progress(g, ++step, total, c->d.name);
  }
  candidate **timed = malloc(sizeof *timed * (size_t)(n > 0 ? n : 1));
  if (s == CUTEC_OK && timed == NULL)
    s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
  int nt = 0;
  if (screen && s == CUTEC_OK) {
    for (int i = 0; i < ndsl; i++)
      if (!isinf(cands[i].ms))
        timed[nt++] = &cands[i];
    s = timing_rounds(&h, timed, nt, 1, 5, " (screening: 5 runs, not checked)");
    progress(g, ++step, total, "screening rounds");
    /* the pack candidates come first in cands: rank them, then check the
     * best, which the timed rounds below time in full */
    if (s == CUTEC_OK)
      qsort(cands, (size_t)ndsl, sizeof *cands, cmp_candidate);
    for (int i = 0; i < g->finalists && s == CUTEC_OK && !isinf(cands[i].ms); i++) {
      candidate *c = &cands[i];
      c->ms = 0;
      c->screened = 0;
      s = fault_quarantine(rt, g, check_candidate(&h, c), c);
      if (s == CUTEC_OK && isinf(c->ms))
        cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: finalist %s scores +inf: %s", c->d.name, c->note);
      progress(g, ++step, total, c->d.name);
    }
    for (int i = 0; i < ndsl; i++)
      if (cands[i].screened && cands[i].note[0] == '\0')
        snprintf(cands[i].note, sizeof cands[i].note, "screened (5 runs), not among the %d finalists",
                 g->finalists);
  }
  /* Every checked candidate, pack kernels and cuBLASLt algorithms, in the
   * same rounds. */
  nt = 0;
  for (int i = 0; i < n; i++)
    cands[i].round_ms = INFINITY;
  for (int i = 0; i < n && s == CUTEC_OK; i++)
    if (!cands[i].screened && !isinf(cands[i].ms))
      timed[nt++] = &cands[i];
  if (s == CUTEC_OK) {
    s = timing_rounds(&h, timed, nt, g->warmup, g->runs, "");
    progress(g, ++step, total, "timed rounds");
    for (int j = 0; j < nt; j++)
      timed[j]->round_ms = timed[j]->ms;
  }
  free(timed);
  qsort(cands, (size_t)n, sizeof *cands, cmp_candidate);
  /* The best pack kernel and the best cuBLASLt algorithm, the fastest of
   * each kind in the rounds above, are timed once more, the two alone in
   * alternation: this decides between them and gives the report's two
   * times, free of the bias of picking the best of several noisy medians.
   * They go first, the faster one leading; the rest keep the order of the
   * rounds, whose times may be lower than the pair's (taken a moment
   * earlier), but never against a time of the same round. */
  if (s == CUTEC_OK) {
    int bd = -1, bc = -1;
    for (int i = 0; i < n && !isinf(cands[i].ms); i++) {
      if (cands[i].d.kind == DECISION_CUBLAS && bc < 0)
        bc = i;
      else if (cands[i].d.kind != DECISION_CUBLAS && !cands[i].screened && bd < 0)
        bd = i;
    }
    if (bd >= 0 && bc >= 0) {
      candidate *pair[2] = {&cands[bd], &cands[bc]};
      int fault = -1;
      s = time_candidates(&h, pair, 2, g->warmup, g->runs, &fault);
      if (fault >= 0)
        s = fault_quarantine(rt, g, s, pair[fault]);
      if (s == CUTEC_OK) {
        cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: head to head, in alternation: %s %.4f ms, %s %.4f ms",
                     cands[bd].d.name, cands[bd].ms, cands[bc].d.name, cands[bc].ms);
        candidate x = cands[bd], y = cands[bc];
        int lo = bd < bc ? bd : bc, hi = bd < bc ? bc : bd;
        /* remove both (hi first), then put them in front */
        memmove(&cands[hi], &cands[hi + 1], sizeof *cands * (size_t)(n - hi - 1));
        memmove(&cands[lo], &cands[lo + 1], sizeof *cands * (size_t)(n - lo - 2));
        memmove(&cands[2], &cands[0], sizeof *cands * (size_t)(n - 2));
        int dsl_first = x.ms < y.ms; /* a tie goes to cuBLASLt, the reference */
        cands[0] = dsl_first ? x : y;
        cands[1] = dsl_first ? y : x;
      }
    }
  }
  /* The winner is checked once more before it is trusted. */
  int win = -1;
  for (int i = 0; i < n && s == CUTEC_OK && win < 0 && !isinf(cands[i].ms); i++) {
    if (cands[i].screened)
      continue;
    double ms = cands[i].ms;
    cands[i].ms = 0;
    s = fault_quarantine(rt, g, check_candidate(&h, &cands[i]), &cands[i]);
    if (s == CUTEC_OK && cands[i].ms == 0) {
      cands[i].ms = ms;
      win = i;
    } else if (s == CUTEC_OK) {
      cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: %s failed its final check: %s", cands[i].d.name,
                   cands[i].note);
    }
  }
  harness_free(&h);
  if (s == CUTEC_OK && win < 0)
    s = cutec_rt_fail(rt, CUTEC_ERR_NO_CANDIDATE, "tuning: all %d candidates failed (first: %s: %s)",
                      n, cands[0].d.name, cands[0].note);
  if (s == CUTEC_OK) {
    /* the winner first (a screened-only candidate may have a smaller,
     * unchecked time), the rest in the order of their times */
    if (win > 0) {
      candidate tmp = cands[win];
      memmove(&cands[1], &cands[0], sizeof *cands * (size_t)win);
      cands[0] = tmp;
    }
    win = 0;
    gemm_decision *d = malloc(sizeof *d);
    if (d == NULL) {
      s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    } else {
      *d = cands[win].d;
      d->ms = cands[win].ms;
      cands[win].d.has_plan = 0; /* the plan moved to d */
      cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: chose %s (%.4f ms)", d->name, d->ms);
      if (g->disk_cache)
        cutec_gemm_cache_store(rt, g, d);
      *out = d;
    }
  }
  if (s == CUTEC_OK && report != NULL) {
    cutec_tune_report *rep = calloc(1, sizeof *rep);
    cutec_tune_candidate *rc = rep != NULL ? calloc((size_t)n, sizeof *rc) : NULL;
    if (rc == NULL) {
      free(rep);
    } else {
      double flop = 2.0 * (double)p->m * (double)p->n * (double)p->k;
      rep->count = n;
      rep->candidates = rc;
      rep->winner = 0;
      rep->cublas_ms = INFINITY;
      for (int i = 0; i < n; i++) {
        snprintf(rc[i].name, sizeof rc[i].name, "%s", cands[i].d.name);
        rc[i].is_cublas = cands[i].d.kind == DECISION_CUBLAS;
        rc[i].screened = cands[i].screened;
        rc[i].round_ms = cands[i].round_ms;
        rc[i].algo_rank = rc[i].is_cublas ? cands[i].algo_rank : -1;
        rc[i].ms = cands[i].ms;
        rc[i].tflops = isinf(cands[i].ms) ? 0 : flop / (cands[i].ms * 1e9);
        snprintf(rc[i].note, sizeof rc[i].note, "%s", cands[i].note);
        /* the first: where both kinds ran, timed head to head */
        if (rc[i].is_cublas && isinf(rep->cublas_ms))
          rep->cublas_ms = cands[i].ms;
      }
      rep->seconds = now_seconds() - t0;
      *report = rep;
    }
  }
  for (int i = 0; i < n; i++)
    if (cands[i].d.has_plan)
      cutec_lt_plan_destroy(&g->lt, &cands[i].d.plan);
  free(cands);
  return s;
}
