/*
 * gemm.c - the GEMM layer's handle (created on a runtime, told by it of pack
 * unloads and of its destruction through a cutec_rt_layer), its options (one
 * table), the problem as the caller's struct_size lets it be read, argument
 * checks (each kind of mistake its own status), problem classes, the
 * in-memory table of decisions, and the per-call path: check, hash the
 * class, look it up, launch.  That
 * path allocates nothing and makes one driver call besides the launch
 * (cuCtxSetCurrent, to follow the handle across threads).  Everything slow
 * (tuning, the disk cache) happens on a miss, in tune.c and cache.c.
 */
#include "epilogue.h"
#include "gemm_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the contract's dtype table (cutec_dtype numbers its rows) */
size_t cutec_dtype_size(cutec_dtype t) { return (size_t)cutec_dtype_bytes((cutec_ct)t); }

const char *cutec_dtype_name(cutec_dtype t) { return cutec_dtype_str((cutec_ct)t); }

int cutec_dtype_is_fp8(cutec_dtype t) { return cutec_ct_is_fp8((cutec_ct)t); }

/* ---- options: one row each (adding one: an enum value, a field, a row) ---- */

static const struct gemm_option_row {
    cutec_option opt;
    size_t field; /* an int of the handle */
    long long lo, hi, def;
} gemm_options[] = {
    {CUTEC_OPT_TUNE_RUNS, offsetof(cutec_gemm_handle, runs), 20, 10000, 25},
    {CUTEC_OPT_TUNE_WARMUP, offsetof(cutec_gemm_handle, warmup), 1, 10000, 3},
    {CUTEC_OPT_CUBLAS_ALGOS, offsetof(cutec_gemm_handle, cublas_algos), 0, 32, 8},
    {CUTEC_OPT_DISK_CACHE, offsetof(cutec_gemm_handle, disk_cache), 0, 1, 1},
    {CUTEC_OPT_FLUSH_L2, offsetof(cutec_gemm_handle, flush_l2), 0, 1, 1},
    {CUTEC_OPT_TUNE_FINALISTS, offsetof(cutec_gemm_handle, finalists), 0, 10000, 8},
    {CUTEC_OPT_TUNE_SHORTLIST, offsetof(cutec_gemm_handle, shortlist), 0, 10000, 16},
    {CUTEC_OPT_TUNE_MODE, offsetof(cutec_gemm_handle, tune_mode), CUTEC_TUNE_BLOCKING, CUTEC_TUNE_BACKGROUND,
     CUTEC_TUNE_BLOCKING},
    {CUTEC_OPT_DEVICE_CHECK, offsetof(cutec_gemm_handle, device_check), 0, 1, 1},
    {CUTEC_OPT_HOST_BOUND_US, offsetof(cutec_gemm_handle, host_bound_us), 0, 1000000, 0},
    {CUTEC_OPT_TUNE_SHORTLIST_FILL, offsetof(cutec_gemm_handle, shortlist_fill), 0, 1, 1},
    {CUTEC_OPT_TUNE_LEAD, offsetof(cutec_gemm_handle, lead), 0, 1000, 0},
};

static const struct gemm_option_row *option_row(cutec_option opt)
{
    for (size_t i = 0; i < sizeof gemm_options / sizeof gemm_options[0]; i++)
        if (gemm_options[i].opt == opt) return &gemm_options[i];
    return NULL;
}

static int *option_field(cutec_gemm_handle *g, const struct gemm_option_row *row)
{
    return (int *)(void *)((char *)g + row->field);
}

/* ---- the handle ---- */

void cutec_gemm_decision_free(cutec_gemm_handle *g, gemm_decision *d)
{
    if (d == NULL) return;
    if (d->has_plan && g->lt_ok) cutec_lt_plan_destroy(&g->lt, &d->plan);
    free(d->ew);
    cutec_runtime *rt = g->rt;
    if (d->x_owned && d->x != 0 && rt != NULL && rt->init_status == CUTEC_OK && cutec_rt_enter(rt) == CUTEC_OK)
        (void)rt->drv.mem_free(d->x);
    if (d->stage_owned && d->stage != 0 && rt != NULL && rt->init_status == CUTEC_OK && cutec_rt_enter(rt) == CUTEC_OK)
        (void)rt->drv.mem_free(d->stage);
    free(d);
}

static void table_clear(cutec_gemm_handle *g)
{
    /* its copies of the packs and options are stale too: a later class starts a new one */
    cutec_gemm_worker_stop(g);
    for (size_t i = 0; i < g->cap; i++) cutec_gemm_decision_free(g, g->table[i]);
    free(g->table);
    g->table = NULL;
    g->cap = g->used = 0;
    g->env_ready = 0;
}

/* Everything the handle holds of the runtime: decisions (into packs, with
 * cuBLASLt plans), its own workspace, cuBLASLt; the caller made the
 * context current where it could. */
static void handle_release(cutec_gemm_handle *g)
{
    table_clear(g);
    cutec_gemm_check_release(g);
    cutec_runtime *rt = g->rt;
    if (g->workspace_owned && g->workspace != 0 && rt->init_status == CUTEC_OK) (void)rt->drv.mem_free(g->workspace);
    g->workspace = 0;
    g->workspace_owned = 0;
    cutec_cublaslt_unload(&g->lt);
    g->lt_tried = g->lt_ok = 0;
    g->npacks = 0;
}

static cutec_gemm_handle *handle_of(cutec_rt_layer *l)
{
    return (cutec_gemm_handle *)(void *)((char *)l - offsetof(cutec_gemm_handle, layer));
}

/* The runtime is going (it made its context current): release, detach. */
static void on_runtime_destroy(cutec_rt_layer *l)
{
    cutec_gemm_handle *g = handle_of(l);
    handle_release(g);
    g->rt = NULL;
}

/* A pack is going: withdraw it (decisions may point into it; the key
 * changed too). */
static void on_pack_unload(cutec_rt_layer *l, cutec_pack *pack)
{
    cutec_gemm_handle *g = handle_of(l);
    if (pack == g->check_pack) { /* the handle's own check kernel (tune_check.c) */
        g->check_pack = NULL;
        memset(g->check_state, 0, sizeof g->check_state);
        g->check_fp8_state = 0;
        return;
    }
    for (int i = 0; i < g->npacks; i++) {
        if (g->packs[i] != pack) continue;
        memmove(&g->packs[i], &g->packs[i + 1], sizeof g->packs[0] * (size_t)(g->npacks - i - 1));
        g->npacks--;
        table_clear(g);
        return;
    }
}

cutec_status cutec_gemm_create(cutec_runtime *rt, cutec_gemm_handle **out)
{
    if (out != NULL) *out = NULL;
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (out == NULL) return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_create: out is NULL");
    cutec_gemm_handle *g = calloc(1, sizeof *g);
    if (g == NULL) return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_gemm_create: out of host memory");
    g->rt = rt;
    for (size_t i = 0; i < sizeof gemm_options / sizeof gemm_options[0]; i++)
        *option_field(g, &gemm_options[i]) = (int)gemm_options[i].def;
    g->layer.pack_unload = on_pack_unload;
    g->layer.runtime_destroy = on_runtime_destroy;
    cutec_rt_layer_add(rt, &g->layer);
    *out = g;
    return CUTEC_OK;
}

void cutec_gemm_destroy(cutec_gemm_handle *g)
{
    if (g == NULL) return;
    if (g->rt != NULL) {
        if (g->rt->init_status == CUTEC_OK) (void)cutec_rt_enter(g->rt); /* for the workspace's cuMemFree */
        handle_release(g);
        cutec_rt_layer_remove(g->rt, &g->layer);
    }
    free(g);
}

cutec_runtime *cutec_gemm_runtime(const cutec_gemm_handle *g) { return g != NULL ? g->rt : NULL; }

cutec_status cutec_gemm_use_pack(cutec_gemm_handle *g, cutec_pack *pack)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = g->rt;
    if (pack == NULL || pack->rt != rt)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_use_pack: %s",
                             pack == NULL ? "pack is NULL" : "the pack belongs to another runtime");
    for (int i = 0; i < g->npacks; i++)
        if (g->packs[i] == pack) return CUTEC_OK;
    if (g->npacks == CUTEC_GEMM_MAX_PACKS)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_use_pack: at most %d packs",
                             CUTEC_GEMM_MAX_PACKS);
    g->packs[g->npacks++] = pack;
    table_clear(g);
    return CUTEC_OK;
}

size_t cutec_gemm_matrix_bytes(cutec_dtype t, cutec_layout l, long long r, long long c, long long ld)
{
    long long outer = l == CUTEC_LAYOUT_ROW ? r : c, inner = l == CUTEC_LAYOUT_ROW ? c : r;
    return (size_t)((outer - 1) * ld + inner) * cutec_dtype_size(t);
}

size_t cutec_gemm_batch_bytes(cutec_dtype t, cutec_layout l, long long r, long long c, long long ld, long long batch,
                              long long stride)
{
    size_t one = cutec_gemm_matrix_bytes(t, l, r, c, ld);
    return batch > 1 ? one + (size_t)((batch - 1) * stride) * cutec_dtype_size(t) : one;
}

static int dtype_ok(int t) { return t >= CUTEC_DTYPE_BF16 && t <= CUTEC_DTYPE_E5M2; }
static int layout_ok(int l) { return l == CUTEC_LAYOUT_ROW || l == CUTEC_LAYOUT_COL; }

/* Largest element count we accept for one matrix (2^40: 2-8 TiB). */
#define GEMM_MAX_ELEMS (1LL << 40)

/* The smallest problem a caller may pass: every mandatory field. */
#define PROBLEM_MIN_SIZE offsetof(cutec_gemm_problem, epilogue)

/* The caller's problem as this library's struct: the fields inside its
 * struct_size, the later ones zero (their defaults); the bytes past this
 * library's fields must be zero (a newer caller asking nothing new). */
static cutec_status problem_read(cutec_runtime *rt, const char *fn, const cutec_gemm_problem *user,
                                 cutec_gemm_problem *p)
{
    size_t size;
    memcpy(&size, user, sizeof size); /* the caller's struct may be a smaller one */
    if (size < PROBLEM_MIN_SIZE)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "%s: the problem's struct_size is %zu, less than its mandatory fields' %zu "
                             "(initialise it with cutec_gemm_problem_init)",
                             fn, size, (size_t)PROBLEM_MIN_SIZE);
    if (size > CUTEC_GEMM_PROBLEM_MAX_SIZE)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: the problem's struct_size %zu is over %d bytes", fn,
                             size, CUTEC_GEMM_PROBLEM_MAX_SIZE);
    for (size_t i = sizeof *p; i < size; i++)
        if (((const unsigned char *)user)[i] != 0)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                 "%s: the problem sets byte %zu of %zu, past the %zu bytes of fields this library "
                                 "knows (a newer header's field, which this library cannot honour)",
                                 fn, i, size, sizeof *p);
    if (size < sizeof *p) memset((char *)p + size, 0, sizeof *p - size);
    memcpy(p, user, size < sizeof *p ? size : sizeof *p);
    p->struct_size = sizeof *p;
    return CUTEC_OK;
}

/* The caller's args as this library's struct (the same rule as the
 * problem's: fields inside struct_size, later ones NULL, bytes past ours zero). */
static cutec_status args_read(cutec_runtime *rt, const char *fn, const cutec_gemm_args *user, cutec_gemm_args *a)
{
    size_t size;
    memcpy(&size, user, sizeof size);
    size_t min = offsetof(cutec_gemm_args, C);
    if (size < min || size > CUTEC_GEMM_PROBLEM_MAX_SIZE)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "%s: the args' struct_size is %zu, outside %zu to %d (initialise them with "
                             "cutec_gemm_args_init)",
                             fn, size, min, CUTEC_GEMM_PROBLEM_MAX_SIZE);
    for (size_t i = sizeof *a; i < size; i++)
        if (((const unsigned char *)user)[i] != 0)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                 "%s: the args set byte %zu of %zu, past the %zu bytes of fields this library knows",
                                 fn, i, size, sizeof *a);
    if (size < sizeof *a) memset((char *)a + size, 0, sizeof *a - size);
    memcpy(a, user, size < sizeof *a ? size : sizeof *a);
    a->struct_size = sizeof *a;
    return CUTEC_OK;
}

/* The epilogue's fields, before any pointer is looked at. */
static cutec_status epilogue_check(cutec_runtime *rt, const char *fn, cutec_gemm_problem *p)
{
    size_t an = strnlen(p->act, sizeof p->act);
    if (an == sizeof p->act)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: act is not NUL-terminated within %zu bytes", fn,
                             sizeof p->act);
    for (size_t i = 0; i < an; i++) {
        char c = p->act[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i > 0 && c >= '0' && c <= '9')))
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: act '%s' is not a function name", fn, p->act);
    }
    if (strcmp(p->act, "identity") == 0) memset(p->act, 0, sizeof p->act); /* one spelling of none */
    const cutec_act_info *row = cutec_act_find(p->act, strlen(p->act));
    if (p->act[0] == '\0' && p->act_gated)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: act_gated without an activation", fn);
    if (row != NULL && (p->act_gated != 0) != row->gated)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: activation '%s' is %sgated; act_gated is %d", fn,
                             row->name, row->gated ? "" : "not ", p->act_gated);
    const struct {
        const char *name;
        int v;
    } flags[] = {{"act_gated", p->act_gated}, {"bias", p->bias}, {"bias_row", p->bias_row},
                 {"c_source", p->c_source},   {"aux", p->aux},   {"scalars_on_device", p->scalars_on_device},
                 {"clamp", p->clamp}};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (flags[i].v != 0 && flags[i].v != 1)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: %s = %d; it is 0 or 1", fn, flags[i].name,
                                 flags[i].v);
    if ((int)p->scale_mode < CUTEC_SCALE_NONE || (int)p->scale_mode > CUTEC_SCALE_BLOCK)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: scale_mode %d is not a cutec_scale_mode value", fn,
                             (int)p->scale_mode);
    if (p->scale_mode == CUTEC_SCALE_BLOCK && !cutec_dtype_is_fp8(p->a_type))
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: block-wise scales are for fp8 inputs (A and B e4m3 or e5m2), not %s", fn,
                             cutec_dtype_name(p->a_type));
    if (p->bias_type != 0 && !dtype_ok(p->bias_type))
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: bias_type %d is not a cutec_dtype value", fn,
                             (int)p->bias_type);
    if (p->bias_type == 0) p->bias_type = p->c_type;
    if (p->act_gated && !p->c_source && (p->scalars_on_device || p->beta != 0.0f))
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "%s: a gated activation cannot read C in place (D is M x n/2, C M x n): "
                             "give a C source (c_source) or beta = 0",
                             fn);
    return CUTEC_OK;
}

/* Elements from a matrix's first to its last (r x c, layout l, leading dimension ld). */
static long long matrix_span(cutec_layout l, long long r, long long c, long long ld)
{
    return l == CUTEC_LAYOUT_ROW ? (r - 1) * ld + c : (c - 1) * ld + r;
}

/* A strided batch (docs/runtime.md, "Batches"), after the leading
 * dimensions are known.  One problem (batch 0 or 1) gets its matrices'
 * packed steps as strides, which a batched kernel is then launched with
 * (one problem of its batch); the class keeps them zero. */
static cutec_status batch_check(cutec_runtime *rt, const char *fn, cutec_gemm_problem *p, int epi)
{
    long long dc = cutec_gemm_d_cols(p);
    const struct {
        const char *name, *what;
        long long *stride, rows, cols, ld;
        cutec_layout l;
        int present;
    } mats[] = {{"stride_a", "A", &p->stride_a, p->m, p->k, p->lda, p->a_layout, 1},
                {"stride_b", "B", &p->stride_b, p->k, p->n, p->ldb, p->b_layout, 1},
                {"stride_c", "the C source", &p->stride_c, p->m, p->n, p->ld_csrc, p->c_layout, p->c_source},
                {"stride_d", "D", &p->stride_d, p->m, dc, p->ldc, p->c_layout, 1}};
    if (p->batch < 0)
        return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: batch = %lld; it is 0 or 1 (one problem) or more", fn,
                             p->batch);
    if (p->batch <= 1) {
        p->batch = 1;
        for (int i = 0; i < 4; i++)
            *mats[i].stride =
                mats[i].present ? (mats[i].l == CUTEC_LAYOUT_ROW ? mats[i].rows : mats[i].cols) * mats[i].ld : 0;
        if (!p->c_source) p->stride_c = p->stride_d; /* in place, C is D */
        return CUTEC_OK;
    }
    if (p->batch > 0x7fffffffLL)
        return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: batch = %lld is larger than 2^31 - 1", fn, p->batch);
    if (!p->c_source) p->stride_c = 0; /* unused: C is D */
    for (int i = 0; i < 4; i++)
        if (*mats[i].stride < 0)
            return cutec_rt_fail(rt, CUTEC_ERR_BAD_STRIDE, "%s: %s = %lld is negative", fn, mats[i].name,
                                 *mats[i].stride);
    for (int i = 0; i < 4; i++) {
        if (!mats[i].present) continue;
        long long span = matrix_span(mats[i].l, mats[i].rows, mats[i].cols, mats[i].ld);
        if (*mats[i].stride > (GEMM_MAX_ELEMS - span) / (p->batch - 1))
            return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE,
                                 "%s: the batch of %lld matrices %s, %s = %lld apart, spans more than 2^40 elements",
                                 fn, p->batch, mats[i].what, mats[i].name, *mats[i].stride);
    }
    /* D's problems apart by a whole matrix, or side by side within its rows
     * (columns, column-major): heads interleaved in one wide matrix */
    long long inner = p->c_layout == CUTEC_LAYOUT_ROW ? dc : p->m;
    long long span = matrix_span(p->c_layout, p->m, dc, p->ldc);
    if (p->stride_d < span && (p->stride_d < inner || (p->batch - 1) * p->stride_d + inner > p->ldc))
        return cutec_rt_fail(rt, CUTEC_ERR_OVERLAP,
                             "%s: D's %lld problems overlap: stride_d = %lld is less than a matrix's span (%lld "
                             "elements: %lld x %lld, ldc %lld), and they do not lie side by side within its %s",
                             fn, p->batch, p->stride_d, span, p->m, dc, p->ldc,
                             p->c_layout == CUTEC_LAYOUT_ROW ? "rows" : "columns");
    static const struct {
        size_t flag;
        const char *what;
    } unsupported[] = {{offsetof(cutec_gemm_problem, aux), "an aux output"},
                       {offsetof(cutec_gemm_problem, act_gated), "a gated activation"},
                       {offsetof(cutec_gemm_problem, bias_row), "a bias per row"}};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        int v;
        memcpy(&v, (const char *)p + unsupported[i].flag, sizeof v);
        if (v)
            return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED, "%s: a batch (batch %lld) with %s is not supported", fn,
                                 p->batch, unsupported[i].what);
    }
    if (p->scale_mode == CUTEC_SCALE_ROW || p->scale_mode == CUTEC_SCALE_BLOCK)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED, "%s: a batch (batch %lld) with %s scales is not supported", fn,
                             p->batch, p->scale_mode == CUTEC_SCALE_ROW ? "row-wise" : "block-wise");
    /* the tuner's float64 reference of an epilogue (tune_epilogue.c) is of
     * one problem: a batch takes D = alpha A B + beta D only, for now */
    if (epi)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: a batch (batch %lld) with an epilogue (an activation, a bias, a C source, scalars "
                             "on the device, scales, an fp8 output or a clamp) is not supported yet",
                             fn, p->batch);
    return CUTEC_OK;
}

/* The flag of the pointers an fp8 output asks for (its c_type says so) */
#define FLAG_FP8_OUT (-2)

/* The call's pointers, a row each: its name (NULL: the output, C or D),
 * its place in the args, the problem's flag asking for it (-1: always,
 * FLAG_FP8_OUT: with an fp8 output),
 * the problem's field of its element type (-1: f32).  Offsets, so that
 * the per-call path builds nothing. */
static const struct gemm_ptr_row {
    const char *name;
    size_t arg;
    ptrdiff_t flag, type;
} ptr_rows[] = {
    {"matrix A", offsetof(cutec_gemm_args, A), -1, offsetof(cutec_gemm_problem, a_type)},
    {"matrix B", offsetof(cutec_gemm_args, B), -1, offsetof(cutec_gemm_problem, b_type)},
    {NULL, offsetof(cutec_gemm_args, D), -1, offsetof(cutec_gemm_problem, c_type)},
    {"matrix C (the source)", offsetof(cutec_gemm_args, C), offsetof(cutec_gemm_problem, c_source),
     offsetof(cutec_gemm_problem, c_type)},
    {"the bias", offsetof(cutec_gemm_args, bias), offsetof(cutec_gemm_problem, bias),
     offsetof(cutec_gemm_problem, bias_type)},
    {"the bias_row", offsetof(cutec_gemm_args, bias_row), offsetof(cutec_gemm_problem, bias_row),
     offsetof(cutec_gemm_problem, bias_type)},
    {"the aux", offsetof(cutec_gemm_args, aux), offsetof(cutec_gemm_problem, aux),
     offsetof(cutec_gemm_problem, c_type)},
    {"the alpha", offsetof(cutec_gemm_args, alpha), offsetof(cutec_gemm_problem, scalars_on_device), -1},
    {"the beta", offsetof(cutec_gemm_args, beta), offsetof(cutec_gemm_problem, scalars_on_device), -1},
    {"scale_a", offsetof(cutec_gemm_args, scale_a), offsetof(cutec_gemm_problem, scale_mode), -1},
    {"scale_b", offsetof(cutec_gemm_args, scale_b), offsetof(cutec_gemm_problem, scale_mode), -1},
    {"scale_d (an fp8 output's scale)", offsetof(cutec_gemm_args, scale_d), FLAG_FP8_OUT, -1},
    {"amax (an fp8 output's absolute maximum)", offsetof(cutec_gemm_args, amax), FLAG_FP8_OUT, -1},
};

static const void *ptr_of(const cutec_gemm_args *io, const struct gemm_ptr_row *r)
{
    const void *ptr;
    memcpy(&ptr, (const char *)io + r->arg, sizeof ptr);
    return ptr;
}

static int wanted_of(const cutec_gemm_problem *p, const struct gemm_ptr_row *r)
{
    int v = 1;
    if (r->flag >= 0) memcpy(&v, (const char *)p + r->flag, sizeof v);
    if (r->flag == FLAG_FP8_OUT) v = cutec_dtype_is_fp8(p->c_type);
    return v != 0;
}

/* The general grouped GEMM (a list, docs/runtime.md, "Grouped GEMM"):
 * what the sm90 template's GRP = 2 computes, so that a problem no kernel
 * could serve is told why here rather than by every kernel's skip.  The
 * list's rows are in device memory, read by the kernel, never here. */
static cutec_status list_check(cutec_runtime *rt, const char *fn, const cutec_gemm_problem *p,
                               const cutec_gemm_args *io)
{
    if (cutec_dtype_size(p->a_type) != 2 || p->b_type != p->a_type || cutec_dtype_size(p->c_type) != 2)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: a list of problems (group_list) takes 16-bit types in and out (bf16 or f16); "
                             "the problem's are A %s, B %s, D %s",
                             fn, cutec_dtype_name(p->a_type), cutec_dtype_name(p->b_type), cutec_dtype_name(p->c_type));
    if (p->a_layout != CUTEC_LAYOUT_ROW || p->b_layout != CUTEC_LAYOUT_COL || p->c_layout != CUTEC_LAYOUT_ROW)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: a list of problems (group_list) reads A row-major, B stored N x K (column-major "
                             "K x N) and writes D row-major, as its rows describe them; the problem's layouts are "
                             "A %s, B %s, D %s",
                             fn, p->a_layout == CUTEC_LAYOUT_ROW ? "row" : "col",
                             p->b_layout == CUTEC_LAYOUT_ROW ? "row" : "col",
                             p->c_layout == CUTEC_LAYOUT_ROW ? "row" : "col");
    if (p->alpha != 1.0f || p->beta != 0.0f)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: a list of problems (group_list) computes D = A B only; alpha = %g, beta = %g", fn,
                             (double)p->alpha, (double)p->beta);
    if ((uintptr_t)io->group_list % 16 != 0)
        return cutec_rt_fail(rt, CUTEC_ERR_MISALIGNED,
                             "%s: group_list at %p is not 16-byte aligned (rows of 16 int64 the kernel reads)", fn,
                             io->group_list);
    return CUTEC_OK;
}

/* A grouped problem (docs/runtime.md, "Grouped GEMM"), after batch_check
 * gave its one "problem" packed steps: B's step between groups is the
 * caller's again (user: the problem as given).  The row ends are in device
 * memory, read by the kernel (which clamps them), never here. */
static cutec_status groups_check(cutec_runtime *rt, const char *fn, cutec_gemm_problem *p,
                                 const cutec_gemm_problem *user, const cutec_gemm_args *io, int epi)
{
    if (p->groups < 0)
        return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: groups = %lld; it is 0 (not grouped) or more", fn, p->groups);
    if (p->groups == 0) return CUTEC_OK;
    if (p->groups > 0x7fffffffLL)
        return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: groups = %lld is larger than 2^31 - 1", fn, p->groups);
    if (epi)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: a grouped problem (groups %lld) takes no epilogue (an activation, a bias, a C "
                             "source, scalars on the device, scales, an fp8 output or a clamp) yet",
                             fn, p->groups);
    if (io->group_list != NULL) return list_check(rt, fn, p, io);
    if (p->c_layout != CUTEC_LAYOUT_ROW)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: a grouped problem's D is row-major (the groups split its rows); D is column-major",
                             fn);
    p->stride_b = user->stride_b;
    if (p->stride_b < 0)
        return cutec_rt_fail(rt, CUTEC_ERR_BAD_STRIDE, "%s: stride_b = %lld is negative", fn, p->stride_b);
    long long span = matrix_span(p->b_layout, p->k, p->n, p->ldb);
    if (p->groups > 1 && p->stride_b > (GEMM_MAX_ELEMS - span) / (p->groups - 1))
        return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE,
                             "%s: the %lld groups' matrices B, stride_b = %lld apart, span more than 2^40 elements", fn,
                             p->groups, p->stride_b);
    if ((uintptr_t)io->group_ends % sizeof(int) != 0)
        return cutec_rt_fail(rt, CUTEC_ERR_MISALIGNED, "%s: group_ends at %p is not aligned to its 4-byte int32 values",
                             fn, (const void *)io->group_ends);
    return CUTEC_OK;
}

/* The clamp's bounds (problem.clamp): values of the call, not pointers,
 * so not rows of ptr_rows; user: the caller's args (NULL: placeholders). */
static cutec_status clamp_check(cutec_runtime *rt, const char *fn, const cutec_gemm_problem *p,
                                const cutec_gemm_args *user, const cutec_gemm_args *io)
{
    if (!p->clamp) {
        if (io->clamp_lo != 0.0f || io->clamp_hi != 0.0f)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                 "%s: args give clamp bounds (clamp_lo %g, clamp_hi %g), which the problem does not "
                                 "ask for (set its clamp field)",
                                 fn, (double)io->clamp_lo, (double)io->clamp_hi);
        return CUTEC_OK;
    }
    size_t size = sizeof *io;
    if (user != NULL) memcpy(&size, user, sizeof size);
    /* args_read zeroed the bounds an older caller's args lack: [0, 0]
     * would be a clamp no one asked for; cutec_gemm and cutec_gemm_tune
     * pass args without them */
    if (size < offsetof(cutec_gemm_args, clamp_hi) + sizeof io->clamp_hi && strstr(fn, "_ex") == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "%s: the problem asks for a clamp, whose bounds come in cutec_gemm_args (call "
                             "cutec_gemm_ex)",
                             fn);
    if (size < offsetof(cutec_gemm_args, clamp_hi) + sizeof io->clamp_hi)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "%s: the problem asks for a clamp; the args' struct_size %zu ends before clamp_lo and "
                             "clamp_hi (initialise them with cutec_gemm_args_init of a header that has them)",
                             fn, size);
    if (isnan(io->clamp_lo) || isnan(io->clamp_hi))
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "%s: clamp_%s is NaN; the bounds are numbers (an infinite one leaves its side open)", fn,
                             isnan(io->clamp_lo) ? "lo" : "hi");
    if (io->clamp_lo > io->clamp_hi)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: clamp_lo = %g is greater than clamp_hi = %g", fn,
                             (double)io->clamp_lo, (double)io->clamp_hi);
    return CUTEC_OK;
}

cutec_status cutec_gemm_check(cutec_runtime *rt, const char *fn, const cutec_gemm_problem *user,
                              const cutec_gemm_args *uargs, cutec_gemm_problem *out, cutec_gemm_args *io,
                              gemm_class *cls)
{
    if (user == NULL) return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: the problem is NULL", fn);
    cutec_gemm_problem whole;
    cutec_status rs = problem_read(rt, fn, user, &whole);
    if (rs != CUTEC_OK) return rs;
    cutec_gemm_problem *p = &whole;
    if (!dtype_ok(p->a_type) || !dtype_ok(p->b_type) || !dtype_ok(p->c_type))
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "%s: element types (%d, %d, %d) are not cutec_dtype values", fn, (int)p->a_type,
                             (int)p->b_type, (int)p->c_type);
    if (!layout_ok(p->a_layout) || !layout_ok(p->b_layout) || !layout_ok(p->c_layout))
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: layouts (%d, %d, %d) are not cutec_layout values", fn,
                             (int)p->a_layout, (int)p->b_layout, (int)p->c_layout);
    /* Hopper's fp8 MMA reads K-major tiles only; cuBLASLt's fp8 matmul too */
    if (cutec_dtype_is_fp8(p->a_type) != cutec_dtype_is_fp8(p->b_type) ||
        (cutec_dtype_is_fp8(p->c_type) && !cutec_dtype_is_fp8(p->a_type)))
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: types A %s, B %s, D %s: fp8 inputs come in pairs (e4m3 or e5m2 each), and an fp8 "
                             "output needs fp8 inputs",
                             fn, cutec_dtype_name(p->a_type), cutec_dtype_name(p->b_type), cutec_dtype_name(p->c_type));
    if (cutec_dtype_is_fp8(p->a_type) && (p->a_layout != CUTEC_LAYOUT_ROW || p->b_layout != CUTEC_LAYOUT_COL))
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: fp8 operands must be K-major (A row-major, B column-major: the fp8 tensor-core MMA "
                             "reads nothing else); A is %s-major, B %s-major: transpose them first",
                             fn, p->a_layout == CUTEC_LAYOUT_ROW ? "row" : "column",
                             p->b_layout == CUTEC_LAYOUT_ROW ? "row" : "column");
    if (p->epilogue != CUTEC_EPILOGUE_NONE)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: epilogue %d is not a cutec_epilogue value", fn,
                             (int)p->epilogue);
    /* a problem without any epilogue field (every caller before them) takes
     * the short path: the per-call cost of a plain GEMM stays what it was */
    int epi = p->act[0] != '\0' ||
              (p->act_gated | p->bias | p->bias_row | p->c_source | p->aux | p->scalars_on_device | (int)p->bias_type |
               (int)p->scale_mode | p->clamp) != 0 ||
              cutec_dtype_is_fp8(p->c_type) || (p->ld_csrc | p->ld_aux) != 0;
    rs = epi ? epilogue_check(rt, fn, p) : CUTEC_OK;
    if (rs != CUTEC_OK) return rs;
    /* NaN or infinite scales would make every candidate fail its check and
   * the tuning end in CUTEC_ERR_NO_CANDIDATE, blaming the kernels */
    if (p->scalars_on_device) {
        p->alpha = p->beta = 0.0f; /* unknown: not part of the class */
    } else if (!isfinite(p->alpha) || !isfinite(p->beta)) {
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: %s = %g is not a finite number", fn,
                             isfinite(p->alpha) ? "beta" : "alpha", (double)(isfinite(p->alpha) ? p->beta : p->alpha));
    }
    if (uargs != NULL) {
        rs = args_read(rt, fn, uargs, io);
        if (rs != CUTEC_OK) return rs;
    } else { /* placeholders (cutec_gemm_choice): 16-byte aligned, each the problem asks for */
        static char dummy[16] __attribute__((aligned(16)));
        cutec_gemm_args_init(io, dummy, dummy, dummy);
        io->C = p->c_source ? dummy : NULL;
        io->bias = p->bias ? dummy : NULL;
        io->bias_row = p->bias_row ? dummy : NULL;
        io->aux = p->aux ? dummy : NULL;
        io->alpha = io->beta = p->scalars_on_device ? (const float *)(void *)dummy : NULL;
        io->scale_a = io->scale_b = p->scale_mode ? (const float *)(void *)dummy : NULL;
        io->scale_d = cutec_dtype_is_fp8(p->c_type) ? (const float *)(void *)dummy : NULL;
        io->amax = cutec_dtype_is_fp8(p->c_type) ? (float *)(void *)dummy : NULL;
        io->group_ends = p->groups > 0 ? (const int *)(void *)dummy : NULL;
        io->clamp_lo = p->clamp ? -INFINITY : 0.0f;
        io->clamp_hi = p->clamp ? INFINITY : 0.0f;
    }
    rs = clamp_check(rt, fn, p, uargs, io);
    if (rs != CUTEC_OK) return rs;
    if (io->group_list != NULL) {
        if (io->group_ends != NULL)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                 "%s: args give both group_ends and group_list; a grouped problem takes one (row ends: "
                                 "the mixture-of-experts form; a list: the general form)",
                                 fn);
        if (p->groups == 0)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                 "%s: args give group_list, which the problem does not ask for (set its groups field "
                                 "to the list's problems)",
                                 fn);
        /* each problem's matrices are in its row: the a, b and d roles (their
         * tensor maps, which the kernel copies and re-points before any use)
         * need only a valid 16-byte-aligned device address, the list's */
        io->A = io->B = io->group_list;
        io->D = (void *)(uintptr_t)io->group_list;
    }
    if (p->groups <= 0 && io->group_ends != NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "%s: args give group_ends, which the problem does not ask for (set its groups field)", fn);
    if (p->groups > 0 && io->group_ends == NULL && io->group_list == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_NULL_POINTER,
                             "%s: group_ends is a NULL pointer (the problem has %lld groups; cutec_gemm_ex passes it, "
                             "or group_list for a list of problems)",
                             fn, p->groups);
        /* the output is D to cutec_gemm_ex's callers, C to cutec_gemm's (named
     * on failures only: this is the per-call path) */
#define OUT_NAME (strstr(fn, "_ex") != NULL ? "matrix D" : "matrix C")
    /* without an epilogue only A, B and D are asked for, and the others must be NULL */
    size_t nrows = epi || (io->C != NULL || io->bias != NULL || io->bias_row != NULL || io->aux != NULL ||
                           io->alpha != NULL || io->beta != NULL || io->scale_a != NULL || io->scale_b != NULL ||
                           io->scale_d != NULL || io->amax != NULL)
                       ? sizeof ptr_rows / sizeof ptr_rows[0]
                       : 3;
    for (size_t i = 0; i < nrows; i++) {
        const void *ptr = ptr_of(io, &ptr_rows[i]);
        int wanted = wanted_of(p, &ptr_rows[i]);
        const char *name = ptr_rows[i].name != NULL ? ptr_rows[i].name : OUT_NAME;
        if (!wanted && ptr != NULL)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                 "%s: args give %s, which the problem does not ask for (set its field)", fn, name);
    }
    for (size_t i = 0; i < nrows; i++)
        if (wanted_of(p, &ptr_rows[i]) && ptr_of(io, &ptr_rows[i]) == NULL)
            return cutec_rt_fail(rt, CUTEC_ERR_NULL_POINTER, "%s: %s is a NULL pointer%s", fn,
                                 ptr_rows[i].name != NULL ? ptr_rows[i].name : OUT_NAME,
                                 ptr_rows[i].flag >= 0 ? " (the problem asks for it)" : "");
    if (!p->c_source) io->C = io->D; /* in place */
    const struct {
        const char *what;
        long long v;
    } dims[] = {{"M", p->m}, {"N", p->n}, {"K", p->k}};
    for (int i = 0; i < 3; i++) {
        if (dims[i].v <= 0)
            return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: %s = %lld; M, N and K must be >= 1", fn, dims[i].what,
                                 dims[i].v);
        if (dims[i].v > 0x7fffffffLL)
            return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: %s = %lld is larger than 2^31 - 1", fn, dims[i].what,
                                 dims[i].v);
    }
    if (p->act_gated && p->n % 16 != 0)
        return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE,
                             "%s: N = %lld; a gated activation needs a multiple of 16 (gates and ups interleaved "
                             "in blocks of 8)",
                             fn, p->n);
    *out = *p;
    const struct {
        const char *name;
        char ldname[8];
        cutec_layout l;
        long long rows, cols, *ld;
        const void *ptr;
        cutec_dtype t;
        int wanted;
    } mats[] = {{"A", "lda", p->a_layout, p->m, p->k, &out->lda, io->A, p->a_type, 1},
                {"B", "ldb", p->b_layout, p->k, p->n, &out->ldb, io->B, p->b_type, 1},
                {NULL, "ldc", p->c_layout, p->m, cutec_gemm_d_cols(p), &out->ldc, io->D, p->c_type, 1},
                {"C", "ld_csrc", p->c_layout, p->m, p->n, &out->ld_csrc, io->C, p->c_type, p->c_source},
                {"aux", "ld_aux", p->c_layout, p->m, p->n, &out->ld_aux, io->aux, p->c_type, p->aux}};
#define MNAME(i) (mats[i].name != NULL ? mats[i].name : strstr(fn, "_ex") != NULL ? "D" : "C")
    for (size_t i = 0; i < (epi ? sizeof mats / sizeof mats[0] : 3); i++) {
        if (!mats[i].wanted) {
            *mats[i].ld = 0;
            continue;
        }
        long long need = mats[i].l == CUTEC_LAYOUT_ROW ? mats[i].cols : mats[i].rows;
        long long outer = mats[i].l == CUTEC_LAYOUT_ROW ? mats[i].rows : mats[i].cols;
        if (*mats[i].ld == 0) *mats[i].ld = need;
        if (*mats[i].ld < need)
            return cutec_rt_fail(
                rt, CUTEC_ERR_BAD_LEADING_DIM,
                "%s: %s = %lld is smaller than %lld, the %s length of the %s-major "
                "%lld x %lld matrix %s",
                fn, mats[i].ldname, *mats[i].ld, need, mats[i].l == CUTEC_LAYOUT_ROW ? "row" : "column",
                mats[i].l == CUTEC_LAYOUT_ROW ? "row" : "column", mats[i].rows, mats[i].cols, MNAME(i));
        if (*mats[i].ld > GEMM_MAX_ELEMS || (outer - 1) > GEMM_MAX_ELEMS / *mats[i].ld)
            return cutec_rt_fail(rt, CUTEC_ERR_BAD_SIZE, "%s: matrix %s spans more than 2^40 elements", fn, MNAME(i));
    }
#undef MNAME
    if (p->groups > 0 && p->batch > 1)
        return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED,
                             "%s: a grouped problem (groups %lld) cannot also be a batch (batch %lld)", fn, p->groups,
                             p->batch);
    rs = batch_check(rt, fn, out, epi);
    if (rs == CUTEC_OK) rs = groups_check(rt, fn, out, p, io, epi);
    if (rs != CUTEC_OK) return rs;
    for (size_t i = 0; i < nrows; i++) {
        if (!wanted_of(p, &ptr_rows[i])) continue;
        const void *ptr = ptr_of(io, &ptr_rows[i]);
        cutec_dtype t = CUTEC_DTYPE_F32;
        if (ptr_rows[i].type >= 0) memcpy(&t, (const char *)p + ptr_rows[i].type, sizeof t);
        size_t esize = cutec_dtype_size(t);
        if ((uintptr_t)ptr % esize != 0)
            return cutec_rt_fail(rt, CUTEC_ERR_MISALIGNED, "%s: %s at %p is not aligned to its %zu-byte %s elements",
                                 fn, ptr_rows[i].name != NULL ? ptr_rows[i].name : OUT_NAME, ptr, esize,
                                 cutec_dtype_name(t));
    }
#undef OUT_NAME
    /* a column-major D as its row-major transpose (gemm_transpose.c): the
     * class, the tuning and the call are the transposed problem's */
    cutec_gemm_transpose_output(out, io);
    p = out;
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
    cls->alpha_one = !p->scalars_on_device && p->alpha == 1.0f;
    cls->beta_zero = !p->scalars_on_device && p->beta == 0.0f;
    cls->epilogue = (int)p->epilogue;
    cls->align[0] = cutec_gemm_ptr_align(io->A);
    cls->align[1] = cutec_gemm_ptr_align(io->B);
    cls->align[2] = cutec_gemm_ptr_align(io->D);
    if (out->batch > 1) {
        cls->batch = out->batch;
        cls->stride_a = out->stride_a;
        cls->stride_b = out->stride_b;
        cls->stride_c = out->stride_c;
        cls->stride_d = out->stride_d;
    }
    if (out->groups > 0) {
        cls->groups = out->groups;
        cls->list = io->group_list != NULL;
        cls->stride_b = cls->list ? 0 : out->stride_b; /* a list's Bs are in its rows */
    }
    if (!epi) return CUTEC_OK; /* the epilogue's fields: zero */
    memcpy(cls->act, p->act, sizeof cls->act);
    cls->gated = p->act_gated;
    cls->bias = p->bias;
    cls->bias_row = p->bias_row;
    cls->bias_type = p->bias || p->bias_row ? (int)p->bias_type : 0;
    cls->c_source = p->c_source;
    cls->aux = p->aux;
    cls->scalars_on_device = p->scalars_on_device;
    cls->ld_csrc = out->ld_csrc;
    cls->ld_aux = out->ld_aux;
    cls->scale_mode = (int)p->scale_mode;
    cls->clamp = p->clamp;
    const void *epi_ptrs[4] = {p->c_source ? io->C : NULL, io->bias, io->bias_row, io->aux};
    for (int i = 0; i < 4; i++) cls->align_epi[i] = epi_ptrs[i] != NULL ? cutec_gemm_ptr_align(epi_ptrs[i]) : 0;
    if (!gemm_class_has_epilogue(cls)) out->bias_type = 0; /* as a caller before the field */
    return CUTEC_OK;
}

cutec_gemm_act_fn cutec_gemm_act_ref(cutec_gemm_handle *g, const cutec_gemm_problem *p)
{
    const cutec_act_info *row = cutec_act_find(p->act, strlen(p->act));
    if (row != NULL) return row->ref;
    for (int i = 0; i < g->nact_refs; i++)
        if (strcmp(g->act_refs[i].name, p->act) == 0 && g->act_refs[i].gated == p->act_gated) return g->act_refs[i].fn;
    return NULL;
}

cutec_status cutec_gemm_set_activation_ref(cutec_gemm_handle *g, const char *name, cutec_gemm_act_fn fn, int gated)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = g->rt;
    if (name == NULL || name[0] == '\0' || strlen(name) >= sizeof g->act_refs[0].name)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_set_activation_ref: %s",
                             name == NULL ? "name is NULL" : "the name is empty or longer than 31 bytes");
    if (cutec_act_find(name, strlen(name)) != NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "cutec_gemm_set_activation_ref: '%s' is in the epilogue table; its reference is fixed",
                             name);
    int i = 0;
    while (i < g->nact_refs && strcmp(g->act_refs[i].name, name) != 0) i++;
    if (fn == NULL) {
        if (i < g->nact_refs) g->act_refs[i] = g->act_refs[--g->nact_refs];
    } else {
        if (i == g->nact_refs && g->nact_refs == CUTEC_GEMM_MAX_ACT_REFS)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                 "cutec_gemm_set_activation_ref: at most %d references per handle",
                                 CUTEC_GEMM_MAX_ACT_REFS);
        if (i == g->nact_refs) g->nact_refs++;
        snprintf(g->act_refs[i].name, sizeof g->act_refs[i].name, "%s", name);
        g->act_refs[i].fn = fn;
        g->act_refs[i].gated = gated != 0;
    }
    table_clear(g); /* decisions were made without (or with another) reference */
    return CUTEC_OK;
}

uint64_t cutec_gemm_class_hash(const gemm_class *c)
{
    /* the epilogue's fields are zero without one: a plain class hashes the
     * bytes before them only.  Eight bytes a step (multiply and fold, as
     * FNV-1a's byte steps cost a cached call ~600 instructions): the hash
     * lives in memory only (the table, the worker's jobs), never on disk.
     * The class is memset before it is filled, so its padding is zero. */
    size_t n = gemm_class_has_epilogue(c) ? sizeof *c : offsetof(gemm_class, act);
    const unsigned char *b = (const unsigned char *)c;
    uint64_t h = CUTEC_FNV_OFFSET ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, sizeof w);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    h ^= h >> 32;
    return h != 0 ? h : 1; /* 0 marks nothing */
}

/* The epilogue's part of a class key: "none" (the key of a plain GEMM is
 * the one written before epilogues), else the activation and each input
 * present with what decides its kernels: "gelu_tanh+bias:bf16:16+aux:4096:16". */
static void epilogue_key(const gemm_class *c, char *buf, size_t len)
{
    if (!gemm_class_has_epilogue(c)) {
        snprintf(buf, len, "none");
        return;
    }
    size_t n = (size_t)snprintf(buf, len, "%s%s", c->act[0] ? c->act : "identity", c->gated ? ":gated" : "");
    const char *bt = cutec_dtype_name((cutec_dtype)c->bias_type);
    if (c->bias && n < len) n += (size_t)snprintf(buf + n, len - n, "+bias:%s:%d", bt, c->align_epi[1]);
    if (c->bias_row && n < len) n += (size_t)snprintf(buf + n, len - n, "+bias_row:%s:%d", bt, c->align_epi[2]);
    if (c->c_source && n < len) n += (size_t)snprintf(buf + n, len - n, "+c:%lld:%d", c->ld_csrc, c->align_epi[0]);
    if (c->aux && n < len) n += (size_t)snprintf(buf + n, len - n, "+aux:%lld:%d", c->ld_aux, c->align_epi[3]);
    if (c->scalars_on_device && n < len) n += (size_t)snprintf(buf + n, len - n, "+scalars:device");
    static const char *const modes[] = {"", "tensor", "row", "block"};
    if (c->scale_mode > 0 && c->scale_mode <= 3 && n < len)
        n += (size_t)snprintf(buf + n, len - n, "+scale:%s", modes[c->scale_mode]);
    if (c->clamp && n < len) snprintf(buf + n, len - n, "+clamp");
}

/* The batch's part of a class key: "" for one problem (the key written
 * before batches), else "+batch:L" and each stride that is not its
 * matrix's packed step ("+batch:16+stride_b:0" for a broadcast B). */
static void batch_key(const gemm_class *c, char *buf, size_t len)
{
    buf[0] = '\0';
    if (c->groups > 0 && c->list) { /* a list of problems: its sizes are the kernel's to read */
        snprintf(buf, len, "+list:%lld", c->groups);
        return;
    }
    if (c->groups > 0) { /* grouped: "+groups:G", and B's step where it is not packed */
        long long packed = (c->b_layout == CUTEC_LAYOUT_ROW ? c->k : c->n) * c->ldb;
        size_t n = (size_t)snprintf(buf, len, "+groups:%lld", c->groups);
        if (c->stride_b != packed && n < len) snprintf(buf + n, len - n, "+stride_b:%lld", c->stride_b);
        return;
    }
    if (c->batch <= 1) return;
    size_t n = (size_t)snprintf(buf, len, "+batch:%lld", c->batch);
    long long dc = c->gated ? c->n / 2 : c->n;
    const struct {
        const char *name;
        long long stride, packed;
    } s[] = {{"stride_a", c->stride_a, (c->a_layout == CUTEC_LAYOUT_ROW ? c->m : c->k) * c->lda},
             {"stride_b", c->stride_b, (c->b_layout == CUTEC_LAYOUT_ROW ? c->k : c->n) * c->ldb},
             {"stride_c", c->stride_c, c->c_source ? (c->c_layout == CUTEC_LAYOUT_ROW ? c->m : c->n) * c->ld_csrc : 0},
             {"stride_d", c->stride_d, (c->c_layout == CUTEC_LAYOUT_ROW ? c->m : dc) * c->ldc}};
    for (size_t i = 0; i < sizeof s / sizeof s[0] && n < len; i++)
        if (s[i].stride != s[i].packed) n += (size_t)snprintf(buf + n, len - n, "+%s:%lld", s[i].name, s[i].stride);
}

void cutec_gemm_class_key(const gemm_class *c, char *buf, size_t len)
{
    static const char *const lay[] = {"row", "col"};
    char epi[200], batch[128];
    epilogue_key(c, epi, sizeof epi);
    batch_key(c, batch, sizeof batch);
    snprintf(buf, len,
             "gemm m=%lld n=%lld k=%lld a=%s:%s:%lld b=%s:%s:%lld c=%s:%s:%lld alpha=%s beta=%s "
             "epilogue=%s align=%d:%d:%d%s",
             c->m, c->n, c->k, cutec_dtype_name((cutec_dtype)c->a_type), lay[c->a_layout], c->lda,
             cutec_dtype_name((cutec_dtype)c->b_type), lay[c->b_layout], c->ldb,
             cutec_dtype_name((cutec_dtype)c->c_type), lay[c->c_layout], c->ldc, c->alpha_one ? "1" : "any",
             c->beta_zero ? "0" : "any", epi, c->align[0], c->align[1], c->align[2], batch);
}

gemm_decision *cutec_gemm_table_find(cutec_gemm_handle *g, const gemm_class *c, uint64_t h)
{
    if (g->cap == 0) return NULL;
    for (size_t i = (size_t)h & (g->cap - 1);; i = (i + 1) & (g->cap - 1)) {
        gemm_decision *d = g->table[i];
        if (d == NULL) return NULL;
        if (d->hash == h && memcmp(&d->cls, c, sizeof *c) == 0) return d;
    }
}

static void table_insert(gemm_decision **table, size_t cap, gemm_decision *d)
{
    size_t i = (size_t)d->hash & (cap - 1);
    while (table[i] != NULL) i = (i + 1) & (cap - 1);
    table[i] = d;
}

int cutec_gemm_table_put(cutec_gemm_handle *g, gemm_decision *d)
{
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
        if (nt == NULL) return -1;
        for (size_t i = 0; i < g->cap; i++)
            if (g->table[i] != NULL) table_insert(nt, ncap, g->table[i]);
        free(g->table);
        g->table = nt;
        g->cap = ncap;
    }
    table_insert(g->table, g->cap, d);
    g->used++;
    return 0;
}

int cutec_gemm_lt(cutec_gemm_handle *g)
{
    if (!g->lt_tried) {
        g->lt_tried = 1;
        g->lt_ok = cutec_cublaslt_load(&g->lt, g->lt_why, sizeof g->lt_why);
        if (!g->lt_ok) cutec_rt_log(g->rt, CUTEC_LOG_WARNING, "cuBLASLt unavailable: %s", g->lt_why);
    }
    return g->lt_ok;
}

int cutec_gemm_cublas_version(cutec_gemm_handle *g)
{
    if (g == NULL || g->rt == NULL || !cutec_gemm_lt(g)) return 0;
    return (int)g->lt.version;
}

void cutec_gemm_device_facts(cutec_gemm_handle *g)
{
    cutec_runtime *rt = g->rt;
    if (g->facts_read) return;
    g->facts_read = 1;
    if (rt->drv.device_get_attribute(&g->smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, rt->dev) !=
        CUDA_SUCCESS)
        g->smem_optin = 0;
    if (rt->drv.device_get_attribute(&g->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, rt->dev) !=
        CUDA_SUCCESS)
        g->cc_major = 0;
    /* the cost model's facts (tune_model.c): unknown ones read as an H100's */
    const struct {
        int *field;
        CUdevice_attribute attr;
    } model_facts[] = {
        {&g->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        {&g->smem_per_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
        {&g->threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
    };
    for (size_t i = 0; i < sizeof model_facts / sizeof model_facts[0]; i++)
        if (rt->drv.device_get_attribute(model_facts[i].field, model_facts[i].attr, rt->dev) != CUDA_SUCCESS)
            *model_facts[i].field = 0;
}

cutec_status cutec_gemm_run_decision(cutec_gemm_handle *g, gemm_decision *d, const cutec_gemm_problem *p,
                                     const cutec_gemm_args *io, void *stream)
{
    cutec_runtime *rt = g->rt;
    if (d->kind == DECISION_DSL) {
        if (d->scratch_bytes > 0) {
            cutec_status s = cutec_gemm_workspace(g);
            if (s != CUTEC_OK) return s;
            if (g->workspace % 16 != 0)
                return cutec_rt_fail(rt, CUTEC_ERR_MISALIGNED, "%s needs a 16-byte aligned workspace", d->name);
            if (g->workspace_bytes < d->scratch_bytes)
                return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                     "%s needs %zu bytes of workspace; the handle's has %zu (cutec_gemm_set_workspace)",
                                     d->name, d->scratch_bytes, g->workspace_bytes);
        }
        if (d->stage_mask != 0) return cutec_gemm_stage_run(g, d, p, io, stream);
        return cutec_gemm_dsl_launch(rt, d, p, io, g->workspace, stream);
    }
    /* the unfused baseline: cuBLASLt's plain GEMM into x, then the
     * elementwise kernel over x */
    cutec_gemm_problem gp, ep;
    gemm_class ec;
    cutec_gemm_args gio, eio;
    const cutec_gemm_problem *lp = p;
    const cutec_gemm_args *lio = io;
    if (d->ew != NULL) {
        cutec_gemm_ew_split(p, &d->cls, &gp, &ep, &ec);
        gio = *io;
        gio.C = p->c_source ? io->C : io->D;
        gio.D = (void *)(uintptr_t)d->x;
        gio.bias = gio.bias_row = gio.aux = NULL;
        eio = *io;
        eio.C = gio.D;
        lp = &gp, lio = &gio;
    }
    if (!d->has_plan) {
        char why[256];
        if (!cutec_lt_plan_create(&g->lt, lp, &d->plan, why, sizeof why))
            return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED, "cuBLASLt: %s", why);
        d->has_plan = 1;
    }
    cublasStatus_t st =
        cutec_lt_run(&g->lt, &d->plan, lp, &d->algo, lio, (void *)(uintptr_t)g->workspace, g->workspace_bytes, stream);
    if (st != CUBLAS_STATUS_SUCCESS)
        return cutec_rt_fail(rt, CUTEC_ERR_LAUNCH, "cublasLtMatmul (%s) failed with status %d", d->name, st);
    if (d->ew == NULL) return CUTEC_OK;
    if (d->ew->kernel == NULL) {
        cutec_status s = cutec_rt_pack_kernel(d->ew->pack, d->ew->entry, &d->ew->kernel);
        if (s != CUTEC_OK) return s;
    }
    return cutec_gemm_dsl_launch(rt, d->ew, &ep, &eio, 0, stream);
}

/* The decision for a class: memory, then disk, then tuning (blocking), or
 * a modelled choice (deferred and background modes; the background worker
 * then tunes the class).  A modelled decision on disk does not answer a
 * blocking handle, which wants one measured. */
static cutec_status decide(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls, uint64_t h,
                           const cutec_gemm_args *io, void *stream, gemm_decision **out)
{
    gemm_decision *d = NULL;
    int blocking = g->tune_mode == CUTEC_TUNE_BLOCKING;
    if (g->disk_cache) d = cutec_gemm_cache_load(g, p, cls);
    if (d != NULL && d->modelled && blocking) {
        cutec_gemm_decision_free(g, d);
        d = NULL;
    }
    if (d == NULL) {
        cutec_status s = blocking ? cutec_gemm_tune_class(g, p, cls, io, stream, NULL, &d)
                                  : cutec_gemm_model_decision(g, p, cls, io, &d);
        if (s != CUTEC_OK) return s;
    }
    /* a staged decision's buffer now, not at its first run (which may be
     * inside a CUDA graph's capture, where no memory may be allocated) */
    if (d->stage_mask != 0 && d->stage == 0) {
        size_t bytes = cutec_gemm_stage_bytes(p, d->stage_mask);
        if (g->rt->drv.mem_alloc(&d->stage, bytes) != CUDA_SUCCESS) {
            d->stage = 0;
            cutec_gemm_decision_free(g, d);
            return cutec_rt_fail(g->rt, CUTEC_ERR_OUT_OF_MEMORY,
                                 "cutec_gemm: no device memory for %zu bytes of staged operands", bytes);
        }
        d->stage_owned = 1;
    }
    /* the worker has its own buffers for A, B and C (a batch's too); an
     * epilogue's inputs and a grouped problem's row ends it would not
     * have: such a class waits for an explicit tuning */
    if (d->modelled && g->tune_mode == CUTEC_TUNE_BACKGROUND && !gemm_class_has_epilogue(cls) && cls->groups == 0)
        cutec_gemm_worker_submit(g, p, cls, h);
    d->hash = h;
    if (cutec_gemm_table_put(g, d) != 0) {
        cutec_gemm_decision_free(g, d);
        return cutec_rt_fail(g->rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_gemm: out of host memory");
    }
    *out = d;
    return CUTEC_OK;
}

/* What every entry point does first: check the problem, enter the runtime. */
static cutec_status gemm_begin(cutec_gemm_handle *g, const char *fn, const cutec_gemm_problem *p,
                               const cutec_gemm_args *args, cutec_gemm_problem *np, cutec_gemm_args *io,
                               gemm_class *cls)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_status s = cutec_gemm_check(g->rt, fn, p, args, np, io, cls);
    if (s != CUTEC_OK) return s;
    return cutec_rt_enter(g->rt);
}

static cutec_status gemm_run(cutec_gemm_handle *g, const char *fn, const cutec_gemm_problem *p,
                             const cutec_gemm_args *args, void *stream)
{
    cutec_gemm_problem np;
    cutec_gemm_args io;
    gemm_class cls;
    cutec_status s = gemm_begin(g, fn, p, args, &np, &io, &cls);
    if (s != CUTEC_OK) return s;
    if (g->worker != NULL) cutec_gemm_worker_collect(g);
    uint64_t h = cutec_gemm_class_hash(&cls);
    gemm_decision *d = cutec_gemm_table_find(g, &cls, h);
    if (d == NULL) {
        s = decide(g, &np, &cls, h, &io, stream, &d);
        if (s != CUTEC_OK) return s;
    }
    return cutec_gemm_run_decision(g, d, &np, &io, stream);
}

cutec_status cutec_gemm(cutec_gemm_handle *g, const cutec_gemm_problem *p, const void *A, const void *B, void *C,
                        void *stream)
{
    cutec_gemm_args args;
    cutec_gemm_args_init(&args, A, B, C);
    args.struct_size = offsetof(cutec_gemm_args, clamp_lo); /* no bounds: a clamp needs cutec_gemm_ex */
    return gemm_run(g, "cutec_gemm", p, &args, stream);
}

/* args NULL is the caller's mistake (cutec_gemm_check reads NULL as placeholders). */
static cutec_status args_null(cutec_gemm_handle *g, const char *fn)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    return cutec_rt_fail(g->rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: args is NULL", fn);
}

cutec_status cutec_gemm_ex(cutec_gemm_handle *g, const cutec_gemm_problem *p, const cutec_gemm_args *args, void *stream)
{
    if (args == NULL) return args_null(g, "cutec_gemm_ex");
    return gemm_run(g, "cutec_gemm_ex", p, args, stream);
}

static cutec_status gemm_tune(cutec_gemm_handle *g, const char *fn, const cutec_gemm_problem *p,
                              const cutec_gemm_args *args, void *stream, cutec_tune_report **report)
{
    if (report != NULL) *report = NULL;
    cutec_gemm_problem np;
    cutec_gemm_args io;
    gemm_class cls;
    cutec_status s = gemm_begin(g, fn, p, args, &np, &io, &cls);
    if (s != CUTEC_OK) return s;
    gemm_decision *d = NULL;
    s = cutec_gemm_tune_class(g, &np, &cls, &io, stream, report, &d);
    if (s != CUTEC_OK) return s;
    d->hash = cutec_gemm_class_hash(&cls);
    if (cutec_gemm_table_put(g, d) != 0) {
        cutec_gemm_decision_free(g, d);
        return cutec_rt_fail(g->rt, CUTEC_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    return CUTEC_OK;
}

cutec_status cutec_gemm_tune(cutec_gemm_handle *g, const cutec_gemm_problem *p, const void *A, const void *B,
                             const void *C, void *stream, cutec_tune_report **report)
{
    cutec_gemm_args args;
    cutec_gemm_args_init(&args, A, B, (void *)(uintptr_t)C);
    args.struct_size = offsetof(cutec_gemm_args, clamp_lo); /* no bounds: a clamp needs cutec_gemm_ex */
    return gemm_tune(g, "cutec_gemm_tune", p, &args, stream, report);
}

cutec_status cutec_gemm_tune_ex(cutec_gemm_handle *g, const cutec_gemm_problem *p, const cutec_gemm_args *args,
                                void *stream, cutec_tune_report **report)
{
    if (report != NULL) *report = NULL;
    if (args == NULL) return args_null(g, "cutec_gemm_tune_ex");
    return gemm_tune(g, "cutec_gemm_tune_ex", p, args, stream, report);
}

void cutec_tune_report_free(cutec_tune_report *report)
{
    if (report == NULL) return;
    free(report->candidates);
    free(report);
}

cutec_status cutec_gemm_choice(cutec_gemm_handle *g, const cutec_gemm_problem *p, char *name, size_t name_len)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = g->rt;
    if (name == NULL || name_len == 0 || p == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_choice: %s is NULL",
                             p == NULL ? "the problem" : "name");
    name[0] = '\0';
    /* Pointers only decide the alignment class: 16-byte aligned placeholders. */
    cutec_gemm_problem np;
    cutec_gemm_args io;
    gemm_class cls;
    cutec_status s = cutec_gemm_check(rt, "cutec_gemm_choice", p, NULL, &np, &io, &cls);
    if (s != CUTEC_OK) return s;
    gemm_decision *d = cutec_gemm_table_find(g, &cls, cutec_gemm_class_hash(&cls));
    if (d == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_KERNEL_NOT_FOUND,
                             "cutec_gemm_choice: this problem class has not been tuned by this handle");
    snprintf(name, name_len, "%s", d->name);
    return CUTEC_OK;
}

cutec_status cutec_gemm_decision_state(cutec_gemm_handle *g, const cutec_gemm_problem *p, int *state, int *tuning)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = g->rt;
    if (state == NULL || p == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_decision_state: %s is NULL",
                             p == NULL ? "the problem" : "state");
    *state = CUTEC_DECISION_NONE;
    if (tuning != NULL) *tuning = 0;
    cutec_gemm_problem np;
    cutec_gemm_args io;
    gemm_class cls;
    cutec_status s = cutec_gemm_check(rt, "cutec_gemm_decision_state", p, NULL, &np, &io, &cls);
    if (s != CUTEC_OK) return s;
    uint64_t h = cutec_gemm_class_hash(&cls);
    if (g->worker != NULL && rt->init_status == CUTEC_OK && cutec_rt_enter(rt) == CUTEC_OK)
        cutec_gemm_worker_collect(g);
    gemm_decision *d = cutec_gemm_table_find(g, &cls, h);
    if (d != NULL) *state = d->modelled ? CUTEC_DECISION_MODELLED : CUTEC_DECISION_MEASURED;
    if (tuning != NULL && g->worker != NULL) *tuning = cutec_gemm_worker_busy(g, &cls, h);
    return CUTEC_OK;
}

cutec_status cutec_gemm_set_option(cutec_gemm_handle *g, cutec_option opt, long long value)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    const struct gemm_option_row *row = option_row(opt);
    if (row == NULL)
        return cutec_rt_fail(g->rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_set_option: unknown option %d", (int)opt);
    if (value < row->lo || value > row->hi)
        return cutec_rt_fail(g->rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "cutec_gemm_set_option: %lld is out of range for option %d (%lld to %lld)", value,
                             (int)opt, row->lo, row->hi);
    *option_field(g, row) = (int)value;
    if (opt == CUTEC_OPT_HOST_BOUND_US) g->env_ready = 0; /* part of the disk cache's key */
    return CUTEC_OK;
}

cutec_status cutec_gemm_get_option(const cutec_gemm_handle *g, cutec_option opt, long long *value)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    const struct gemm_option_row *row = option_row(opt);
    if (row == NULL || value == NULL)
        return cutec_rt_fail(g->rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_get_option: %s",
                             row == NULL ? "unknown option" : "value is NULL");
    *value = *option_field((cutec_gemm_handle *)g, row);
    return CUTEC_OK;
}

cutec_status cutec_gemm_set_cache_dir(cutec_gemm_handle *g, const char *dir)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (dir != NULL && (dir[0] == '\0' || strlen(dir) >= sizeof g->cache_dir - 64))
        return cutec_rt_fail(g->rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_set_cache_dir: %s",
                             dir[0] == '\0' ? "the directory is empty" : "the path is too long");
    snprintf(g->cache_dir, sizeof g->cache_dir, "%s", dir != NULL ? dir : "");
    return CUTEC_OK;
}

const char *cutec_gemm_cache_dir(cutec_gemm_handle *g)
{
    return g != NULL && g->rt != NULL ? cutec_gemm_cache_dir_of(g) : "";
}

cutec_status cutec_gemm_workspace(cutec_gemm_handle *g)
{
    cutec_runtime *rt = g->rt;
    if (g->workspace != 0) return CUTEC_OK;
    CUresult r = rt->drv.mem_alloc(&g->workspace, CUTEC_DEFAULT_WORKSPACE);
    if (r != CUDA_SUCCESS) {
        g->workspace = 0;
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemAlloc_v2(%u bytes of workspace)",
                                    CUTEC_DEFAULT_WORKSPACE);
    }
    g->workspace_bytes = CUTEC_DEFAULT_WORKSPACE;
    g->workspace_owned = 1;
    return CUTEC_OK;
}

cutec_status cutec_gemm_set_workspace(cutec_gemm_handle *g, void *workspace, size_t bytes)
{
    if (g == NULL || g->rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = g->rt;
    if (workspace != NULL && bytes == 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_set_workspace: size is 0");
    if (g->workspace_owned && g->workspace != 0 && rt->init_status == CUTEC_OK && cutec_rt_enter(rt) == CUTEC_OK)
        (void)rt->drv.mem_free(g->workspace);
    g->workspace = (CUdeviceptr)(uintptr_t)workspace;
    g->workspace_bytes = workspace != NULL ? bytes : 0;
    g->workspace_owned = 0;
    /* cuBLASLt decisions were tuned for the old workspace size */
    table_clear(g);
    return CUTEC_OK;
}

void cutec_gemm_set_progress(cutec_gemm_handle *g, cutec_progress_fn fn, void *user)
{
    if (g == NULL || g->rt == NULL) return;
    g->progress = fn;
    g->progress_user = fn != NULL ? user : NULL;
}
