/*
 * gemm.c - the GEMM entry point: argument checks (each kind of mistake its
 * own status), problem classes, the in-memory table of decisions, options,
 * and the per-call path: check, hash the class, look it up, launch.  That
 * path allocates nothing and makes one driver call besides the launch
 * (cuCtxSetCurrent, to follow the handle across threads).  Everything slow
 * (tuning, the disk cache) happens on a miss, in tune.c and cache.c.
 */
#include "gemm_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t cutec_dtype_size(cutec_dtype t) { return t == CUTEC_DTYPE_F32 ? 4 : 2; }

const char *cutec_dtype_name(cutec_dtype t) {
  return t == CUTEC_DTYPE_BF16 ? "bf16" : t == CUTEC_DTYPE_F16 ? "f16" : "f32";
}

void cutec_gemm_problem_init(cutec_gemm_problem *p, long long m, long long n, long long k,
                             cutec_dtype ab, cutec_dtype c) {
  if (p == NULL)
    return;
  memset(p, 0, sizeof *p);
  p->m = m;
  p->n = n;
  p->k = k;
  p->a_type = p->b_type = ab;
  p->c_type = c;
  p->a_layout = CUTEC_LAYOUT_ROW;
  p->b_layout = CUTEC_LAYOUT_COL;
  p->c_layout = CUTEC_LAYOUT_ROW;
  p->alpha = 1.0f;
  p->beta = 0.0f;
  p->epilogue = CUTEC_EPILOGUE_NONE;
}

struct cutec_gemm_ctx *cutec_gemm_ctx_get(cutec_runtime *rt) {
  if (rt->gemm != NULL)
    return rt->gemm;
  struct cutec_gemm_ctx *g = calloc(1, sizeof *g);
  if (g == NULL)
    return NULL;
  g->runs = 25;
  g->warmup = 3;
  g->cublas_algos = 8;
  g->disk_cache = 1;
  g->flush_l2 = 1;
  g->finalists = 8;
  rt->gemm = g;
  return g;
}

void cutec_gemm_decision_free(struct cutec_gemm_ctx *g, gemm_decision *d) {
  if (d == NULL)
    return;
  if (d->has_plan && g->lt_ok)
    cutec_lt_plan_destroy(&g->lt, &d->plan);
  free(d);
}

static void table_clear(struct cutec_gemm_ctx *g) {
  for (size_t i = 0; i < g->cap; i++)
    cutec_gemm_decision_free(g, g->table[i]);
  free(g->table);
  g->table = NULL;
  g->cap = g->used = 0;
  g->env_ready = 0;
}

void cutec_rt_gemm_destroy(cutec_runtime *rt) {
  struct cutec_gemm_ctx *g = rt->gemm;
  if (g == NULL)
    return;
  table_clear(g);
  if (g->workspace_owned && g->workspace != 0 && rt->init_status == CUTEC_OK)
    (void)rt->drv.mem_free(g->workspace);
  cutec_cublaslt_unload(&g->lt);
  free(g);
  rt->gemm = NULL;
}

void cutec_rt_gemm_forget_pack(cutec_runtime *rt, cutec_pack *pack) {
  struct cutec_gemm_ctx *g = rt->gemm;
  if (g == NULL)
    return;
  for (int i = 0; i < g->npacks; i++) {
    if (g->packs[i] != pack)
      continue;
    memmove(&g->packs[i], &g->packs[i + 1], sizeof g->packs[0] * (size_t)(g->npacks - i - 1));
    g->npacks--;
    table_clear(g); /* decisions may point into the pack; the key changed too */
    return;
  }
}

cutec_status cutec_gemm_use_pack(cutec_runtime *rt, cutec_pack *pack) {
  if (rt == NULL)
    return CUTEC_ERR_INVALID_ARGUMENT;
  if (pack == NULL || pack->rt != rt)
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_use_pack: %s",
                         pack == NULL ? "pack is NULL" : "the pack belongs to another runtime");
  struct cutec_gemm_ctx *g = cutec_gemm_ctx_get(rt);
  if (g == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_gemm_use_pack: out of host memory");
  for (int i = 0; i < g->npacks; i++)
    if (g->packs[i] == pack)
      return CUTEC_OK;
  if (g->npacks == CUTEC_GEMM_MAX_PACKS)
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_use_pack: at most %d packs",
                         CUTEC_GEMM_MAX_PACKS);
  g->packs[g->npacks++] = pack;
  table_clear(g);
  return CUTEC_OK;
}

size_t cutec_gemm_matrix_bytes(cutec_dtype t, cutec_layout l, long long r, long long c,
                               long long ld) {
  long long outer = l == CUTEC_LAYOUT_ROW ? r : c, inner = l == CUTEC_LAYOUT_ROW ? c : r;
  return (size_t)((outer - 1) * ld + inner) * cutec_dtype_size(t);
}

static int dtype_ok(int t) { return t >= CUTEC_DTYPE_BF16 && t <= CUTEC_DTYPE_F32; }
static int layout_ok(int l) { return l == CUTEC_LAYOUT_ROW || l == CUTEC_LAYOUT_COL; }

/* Largest element count we accept for one matrix (2^40: 2-8 TiB). */
#define GEMM_MAX_ELEMS (1LL << 40)

cutec_status cutec_gemm_check(cutec_runtime *rt, const char *fn, const cutec_gemm_problem *p,
                              const void *A, const void *B, const void *C,
                              cutec_gemm_problem *out, gemm_class *cls) {
  if (p == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: the problem is NULL", fn);
  if (!dtype_ok(p->a_type) || !dtype_ok(p->b_type) || !dtype_ok(p->c_type))
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                         "%s: element types (%d, %d, %d) are not cutec_dtype values", fn,
                         (int)p->a_type, (int)p->b_type, (int)p->c_type);
  if (!layout_ok(p->a_layout) || !layout_ok(p->b_layout) || !layout_ok(p->c_layout))
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                         "%s: layouts (%d, %d, %d) are not cutec_layout values", fn,
                         (int)p->a_layout, (int)p->b_layout, (int)p->c_layout);
  if (p->epilogue != CUTEC_EPILOGUE_NONE)
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: epilogue %d is not a cutec_epilogue value",
                         fn, (int)p->epilogue);
  /* NaN or infinite scales would make every candidate fail its check and
   * the tuning end in CUTEC_ERR_NO_CANDIDATE, blaming the kernels */
  if (!isfinite(p->alpha) || !isfinite(p->beta))
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: %s = %g is not a finite number", fn,
                         isfinite(p->alpha) ? "beta" : "alpha",
                         (double)(isfinite(p->alpha) ? p->beta : p->alpha));
  if (A == NULL || B == NULL || C == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_NULL_POINTER, "%s: matrix %s is a NULL pointer", fn,
                         A == NULL ? "A" : B == NULL ? "B" : "C");
  const struct {
    const char *what;
    long long v;
  } dims[] = {{"M", p->m}, {"N", p->n}, {"K", p->k}};
  for (int i = 0; i < 3; i++) {
    if (dims[i].v <= 0)
      return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: %s = %lld; M, N and K must be >= 1", fn,
                           dims[i].what, dims[i].v);
    if (dims[i].v > 0x7fffffffLL)
      return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: %s = %lld is larger than 2^31 - 1", fn,
                           dims[i].what, dims[i].v);
  }
  *out = *p;
  const struct {
    const char *name;
    cutec_layout l;
    long long rows, cols, *ld;
    const void *ptr;
    cutec_dtype t;
  } mats[] = {{"A", p->a_layout, p->m, p->k, &out->lda, A, p->a_type},
              {"B", p->b_layout, p->k, p->n, &out->ldb, B, p->b_type},
              {"C", p->c_layout, p->m, p->n, &out->ldc, C, p->c_type}};
  for (int i = 0; i < 3; i++) {
    long long need = mats[i].l == CUTEC_LAYOUT_ROW ? mats[i].cols : mats[i].rows;
    long long outer = mats[i].l == CUTEC_LAYOUT_ROW ? mats[i].rows : mats[i].cols;
    if (*mats[i].ld == 0)
      *mats[i].ld = need;
    if (*mats[i].ld < need)
      return cutec_rt_fail(rt, CUTEC_ERR_BAD_LEADING_DIM,
                           "%s: ld%c = %lld is smaller than %lld, the %s length of the %s-major "
                           "%lld x %lld matrix %s",
                           fn, "abc"[i], *mats[i].ld, need,
                           mats[i].l == CUTEC_LAYOUT_ROW ? "row" : "column",
                           mats[i].l == CUTEC_LAYOUT_ROW ? "row" : "column", mats[i].rows,
                           mats[i].cols, mats[i].name);
    if (*mats[i].ld > GEMM_MAX_ELEMS || (outer - 1) > GEMM_MAX_ELEMS / *mats[i].ld)
      return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: matrix %s spans more than 2^40 elements",
                           fn, mats[i].name);
  }
  for (int i = 0; i < 3; i++) {
    size_t esize = cutec_dtype_size(mats[i].t);
    if ((uintptr_t)mats[i].ptr % esize != 0)
      return cutec_rt_fail(rt, CUTEC_ERR_MISALIGNED,
                           "%s: matrix %s at %p is not aligned to its %zu-byte %s elements", fn,
                           mats[i].name, mats[i].ptr, esize, cutec_dtype_name(mats[i].t));
  }
  memset(cls, 0, sizeof *cls);
  cls->m = out->m;
  cls->n = out->n;
  cls->k = out->k;
  cls->lda = out->lda;
  cls->ldb = out->ldb;
  cls->ldc = out->ldc;
  cls->a_type = (int)p->a_type;
  cls->b_type = (int)p->b_type;
  cls->c_type = (int)p->c_type;
  cls->a_layout = (int)p->a_layout;
  cls->b_layout = (int)p->b_layout;
  cls->c_layout = (int)p->c_layout;
  cls->alpha_one = p->alpha == 1.0f;
  cls->beta_zero = p->beta == 0.0f;
  cls->epilogue = (int)p->epilogue;
  cls->align[0] = cutec_gemm_ptr_align(A);
  cls->align[1] = cutec_gemm_ptr_align(B);
  cls->align[2] = cutec_gemm_ptr_align(C);
  return CUTEC_OK;
}

uint64_t cutec_gemm_class_hash(const gemm_class *c) {
  uint64_t h = cutec_fnv1a(CUTEC_FNV_OFFSET, c, sizeof *c);
  return h != 0 ? h : 1; /* 0 marks nothing */
}

void cutec_gemm_class_key(const gemm_class *c, char *buf, size_t len) {
  static const char *const lay[] = {"row", "col"};
  snprintf(buf, len,
           "gemm m=%lld n=%lld k=%lld a=%s:%s:%lld b=%s:%s:%lld c=%s:%s:%lld alpha=%s beta=%s "
           "epilogue=none align=%d:%d:%d",
           c->m, c->n, c->k, cutec_dtype_name((cutec_dtype)c->a_type), lay[c->a_layout], c->lda,
           cutec_dtype_name((cutec_dtype)c->b_type), lay[c->b_layout], c->ldb,
           cutec_dtype_name((cutec_dtype)c->c_type), lay[c->c_layout], c->ldc,
           c->alpha_one ? "1" : "any", c->beta_zero ? "0" : "any", c->align[0], c->align[1],
           c->align[2]);
}

gemm_decision *cutec_gemm_table_find(struct cutec_gemm_ctx *g, const gemm_class *c, uint64_t h) {
  if (g->cap == 0)
    return NULL;
  for (size_t i = (size_t)h & (g->cap - 1);; i = (i + 1) & (g->cap - 1)) {
    gemm_decision *d = g->table[i];
    if (d == NULL)
      return NULL;
    if (d->hash == h && memcmp(&d->cls, c, sizeof *c) == 0)
      return d;
  }
}

static void table_insert(gemm_decision **table, size_t cap, gemm_decision *d) {
  size_t i = (size_t)d->hash & (cap - 1);
  while (table[i] != NULL)
    i = (i + 1) & (cap - 1);
  table[i] = d;
}

int cutec_gemm_table_put(struct cutec_gemm_ctx *g, gemm_decision *d) {
  for (size_t i = 0; g->cap != 0 && i < g->cap; i++) {
    gemm_decision *old = g->table[i];
    if (old != NULL && old->hash == d->hash && memcmp(&old->cls, &d->cls, sizeof d->cls) == 0) {
      g->table[i] = d;
      cutec_gemm_decision_free(g, old);
      return 0;
    }
  }
  if ((g->used + 1) * 2 > g->cap) {
    size_t ncap = g->cap ? g->cap * 2 : 64;
    gemm_decision **nt = calloc(ncap, sizeof *nt);
    if (nt == NULL)
      return -1;
    for (size_t i = 0; i < g->cap; i++)
      if (g->table[i] != NULL)
        table_insert(nt, ncap, g->table[i]);
    free(g->table);
    g->table = nt;
    g->cap = ncap;
  }
  table_insert(g->table, g->cap, d);
  g->used++;
  return 0;
}

int cutec_gemm_lt(cutec_runtime *rt, struct cutec_gemm_ctx *g) {
  if (!g->lt_tried) {
    g->lt_tried = 1;
    g->lt_ok = cutec_cublaslt_load(&g->lt, g->lt_why, sizeof g->lt_why);
    if (!g->lt_ok)
      cutec_rt_log(rt, CUTEC_LOG_WARNING, "cuBLASLt unavailable: %s", g->lt_why);
  }
  return g->lt_ok;
}

int cutec_cublas_version(cutec_runtime *rt) {
  if (rt == NULL)
    return 0;
  struct cutec_gemm_ctx *g = cutec_gemm_ctx_get(rt);
  if (g == NULL || !cutec_gemm_lt(rt, g))
    return 0;
  return (int)g->lt.version;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

cutec_status cutec_gemm_env_key(cutec_runtime *rt, struct cutec_gemm_ctx *g, const char **key) {
  if (!g->env_ready) {
    char name[128] = "";
    int maj = 0, min = 0, sms = 0;
    cutec_status s = cutec_device_info(rt, name, sizeof name, &maj, &min, &sms);
    if (s != CUTEC_OK)
      return s;
    for (char *c = name; *c; c++)
      if (*c == ' ' || *c == '\n')
        *c = '_';
    int ltv = cutec_gemm_lt(rt, g) ? (int)g->lt.version : 0;
    uint64_t hashes[CUTEC_GEMM_MAX_PACKS];
    for (int i = 0; i < g->npacks; i++)
      hashes[i] = g->packs[i]->h.source_hash;
    qsort(hashes, (size_t)g->npacks, sizeof hashes[0], cmp_u64);
    size_t n = (size_t)snprintf(g->env_key, sizeof g->env_key,
                                "device=%s sms=%d cc=%d.%d driver=%d cublaslt=%d cutec=%s packs=",
                                name, sms, maj, min, rt->driver_version, ltv,
                                cutec_version_string());
    for (int i = 0; i < g->npacks && n < sizeof g->env_key; i++)
      n += (size_t)snprintf(g->env_key + n, sizeof g->env_key - n, "%s%016llx", i ? "," : "",
                            (unsigned long long)hashes[i]);
    if (g->npacks == 0 && n < sizeof g->env_key)
      snprintf(g->env_key + n, sizeof g->env_key - n, "none");
    g->env_ready = 1;
  }
  *key = g->env_key;
  return CUTEC_OK;
}

cutec_status cutec_gemm_run_decision(cutec_runtime *rt, struct cutec_gemm_ctx *g,
                                     gemm_decision *d, const cutec_gemm_problem *p,
                                     const void *A, const void *B, void *C, void *stream) {
  if (d->kind == DECISION_DSL)
    return cutec_gemm_dsl_launch(rt, d, p, A, B, C, stream);
  if (!d->has_plan) {
    char why[256];
    if (!cutec_lt_plan_create(&g->lt, p, &d->plan, why, sizeof why))
      return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED, "cuBLASLt: %s", why);
    d->has_plan = 1;
  }
  cublasStatus_t st = cutec_lt_run(&g->lt, &d->plan, p, &d->algo, A, B, C,
                                   (void *)(uintptr_t)g->workspace, g->workspace_bytes, stream);
  if (st != CUBLAS_STATUS_SUCCESS)
    return cutec_rt_fail(rt, CUTEC_ERR_LAUNCH, "cublasLtMatmul (%s) failed with status %d", d->name,
                         st);
  return CUTEC_OK;
}

/* The decision for a class: memory, then disk, then tuning. */
static cutec_status decide(cutec_runtime *rt, struct cutec_gemm_ctx *g, const cutec_gemm_problem *p,
                           const gemm_class *cls, uint64_t h, const void *A, const void *B,
                           void *stream, gemm_decision **out) {
  gemm_decision *d = NULL;
  if (g->disk_cache)
    d = cutec_gemm_cache_load(rt, g, p, cls);
  if (d == NULL) {
    cutec_status s = cutec_gemm_tune_class(rt, g, p, cls, A, B, stream, NULL, &d);
    if (s != CUTEC_OK)
      return s;
  }
  d->hash = h;
  if (cutec_gemm_table_put(g, d) != 0) {
    cutec_gemm_decision_free(g, d);
    return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_gemm: out of host memory");
  }
  *out = d;
  return CUTEC_OK;
}

/* What both entry points do first: check the problem, enter the runtime,
 * get the GEMM state. */
static cutec_status gemm_begin(cutec_runtime *rt, const char *fn, const cutec_gemm_problem *p, const void *A,
                               const void *B, const void *C, cutec_gemm_problem *np, gemm_class *cls,
                               struct cutec_gemm_ctx **g) {
  if (rt == NULL)
    return CUTEC_ERR_INVALID_ARGUMENT;
  cutec_status s = cutec_gemm_check(rt, fn, p, A, B, C, np, cls);
  if (s != CUTEC_OK)
    return s;
  s = cutec_rt_enter(rt);
  if (s != CUTEC_OK)
    return s;
  *g = cutec_gemm_ctx_get(rt);
  if (*g == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  return CUTEC_OK;
}

cutec_status cutec_gemm(cutec_runtime *rt, const cutec_gemm_problem *p, const void *A,
                        const void *B, void *C, void *stream) {
  cutec_gemm_problem np;
  gemm_class cls;
  struct cutec_gemm_ctx *g;
  cutec_status s = gemm_begin(rt, "cutec_gemm", p, A, B, C, &np, &cls, &g);
  if (s != CUTEC_OK)
    return s;
  uint64_t h = cutec_gemm_class_hash(&cls);
  gemm_decision *d = cutec_gemm_table_find(g, &cls, h);
  if (d == NULL) {
    s = decide(rt, g, &np, &cls, h, A, B, stream, &d);
    if (s != CUTEC_OK)
      return s;
  }
  return cutec_gemm_run_decision(rt, g, d, &np, A, B, C, stream);
}

cutec_status cutec_gemm_tune(cutec_runtime *rt, const cutec_gemm_problem *p, const void *A,
                             const void *B, const void *C, void *stream,
                             cutec_tune_report **report) {
  if (report != NULL)
    *report = NULL;
  cutec_gemm_problem np;
  gemm_class cls;
  struct cutec_gemm_ctx *g;
  cutec_status s = gemm_begin(rt, "cutec_gemm_tune", p, A, B, C, &np, &cls, &g);
  if (s != CUTEC_OK)
    return s;
  gemm_decision *d = NULL;
  s = cutec_gemm_tune_class(rt, g, &np, &cls, A, B, stream, report, &d);
  if (s != CUTEC_OK)
    return s;
  d->hash = cutec_gemm_class_hash(&cls);
  if (cutec_gemm_table_put(g, d) != 0) {
    cutec_gemm_decision_free(g, d);
    return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_gemm_tune: out of host memory");
  }
  return CUTEC_OK;
}

void cutec_tune_report_free(cutec_tune_report *report) {
  if (report == NULL)
    return;
  free(report->candidates);
  free(report);
}

cutec_status cutec_gemm_choice(cutec_runtime *rt, const cutec_gemm_problem *p, char *name,
                               size_t name_len) {
  if (rt == NULL)
    return CUTEC_ERR_INVALID_ARGUMENT;
  if (name == NULL || name_len == 0 || p == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_choice: %s is NULL",
                         p == NULL ? "the problem" : "name");
  name[0] = '\0';
  /* Pointers only decide the alignment class: assume 16-byte aligned ones. */
  static const char dummy[16] __attribute__((aligned(16))) = {0};
  cutec_gemm_problem np;
  gemm_class cls;
  cutec_status s = cutec_gemm_check(rt, "cutec_gemm_choice", p, dummy, dummy, dummy, &np, &cls);
  if (s != CUTEC_OK)
    return s;
  struct cutec_gemm_ctx *g = rt->gemm;
  gemm_decision *d = g != NULL ? cutec_gemm_table_find(g, &cls, cutec_gemm_class_hash(&cls)) : NULL;
  if (d == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_KERNEL_NOT_FOUND,
                         "cutec_gemm_choice: this problem class has not been tuned by this runtime");
  snprintf(name, name_len, "%s", d->name);
  return CUTEC_OK;
}

cutec_status cutec_set_option(cutec_runtime *rt, cutec_option opt, long long value) {
  if (rt == NULL)
    return CUTEC_ERR_INVALID_ARGUMENT;
  struct cutec_gemm_ctx *g = cutec_gemm_ctx_get(rt);
  if (g == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_set_option: out of host memory");
  switch (opt) {
  case CUTEC_OPT_TUNE_RUNS:
    if (value < 20 || value > 10000)
      break;
    g->runs = (int)value;
    return CUTEC_OK;
  case CUTEC_OPT_TUNE_WARMUP:
    if (value < 1 || value > 10000)
      break;
    g->warmup = (int)value;
    return CUTEC_OK;
  case CUTEC_OPT_CUBLAS_ALGOS:
    if (value < 0 || value > 32)
      break;
    g->cublas_algos = (int)value;
    return CUTEC_OK;
  case CUTEC_OPT_TUNE_FINALISTS:
    if (value < 0 || value > 10000)
      break;
    g->finalists = (int)value;
    return CUTEC_OK;
  case CUTEC_OPT_DISK_CACHE:
  case CUTEC_OPT_FLUSH_L2:
    if (value != 0 && value != 1)
      break;
    if (opt == CUTEC_OPT_DISK_CACHE)
      g->disk_cache = (int)value;
    else
      g->flush_l2 = (int)value;
    return CUTEC_OK;
  default:
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_set_option: unknown option %d",
                         (int)opt);
  }
  return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                       "cutec_set_option: %lld is out of range for option %d", value, (int)opt);
}

cutec_status cutec_set_cache_dir(cutec_runtime *rt, const char *dir) {
  if (rt == NULL)
    return CUTEC_ERR_INVALID_ARGUMENT;
  struct cutec_gemm_ctx *g = cutec_gemm_ctx_get(rt);
  if (g == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_set_cache_dir: out of host memory");
  if (dir != NULL && (dir[0] == '\0' || strlen(dir) >= sizeof g->cache_dir - 64))
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_set_cache_dir: %s",
                         dir[0] == '\0' ? "the directory is empty" : "the path is too long");
  snprintf(g->cache_dir, sizeof g->cache_dir, "%s", dir != NULL ? dir : "");
  return CUTEC_OK;
}

const char *cutec_cache_dir(cutec_runtime *rt) {
  if (rt == NULL)
    return "";
  struct cutec_gemm_ctx *g = cutec_gemm_ctx_get(rt);
  return g != NULL ? cutec_gemm_cache_dir(g) : "";
}

cutec_status cutec_set_workspace(cutec_runtime *rt, void *workspace, size_t bytes) {
  if (rt == NULL)
    return CUTEC_ERR_INVALID_ARGUMENT;
  if (workspace != NULL && bytes == 0)
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_set_workspace: size is 0");
  struct cutec_gemm_ctx *g = cutec_gemm_ctx_get(rt);
  if (g == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_set_workspace: out of host memory");
  if (g->workspace_owned && g->workspace != 0 && rt->init_status == CUTEC_OK &&
      cutec_rt_enter(rt) == CUTEC_OK)
    (void)rt->drv.mem_free(g->workspace);
  g->workspace = (CUdeviceptr)(uintptr_t)workspace;
  g->workspace_bytes = workspace != NULL ? bytes : 0;
  g->workspace_owned = 0;
  /* cuBLASLt decisions were tuned for the old workspace size */
  table_clear(g);
  return CUTEC_OK;
}

void cutec_set_progress(cutec_runtime *rt, cutec_progress_fn fn, void *user) {
  if (rt == NULL)
    return;
  struct cutec_gemm_ctx *g = cutec_gemm_ctx_get(rt);
  if (g == NULL)
    return;
  g->progress = fn;
  g->progress_user = fn != NULL ? user : NULL;
}
