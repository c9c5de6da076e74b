/* gemm_common.c - see gemm_common.h. */
#include "gemm_common.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gemm_type gemm_type_parse(const char *s) { return s == NULL ? GT_OTHER : cutec_dtype_from_name(s, strlen(s)); }

const char *gemm_type_name(gemm_type t) { return cutec_dtype_str(t); }

size_t gemm_type_size(gemm_type t) { return (size_t)cutec_dtype_bytes(t); }

int gemm_type_is_input(gemm_type t) { return t == GT_BF16 || t == GT_F16 || t == GT_E4M3 || t == GT_E5M2; }

/* the conversions are the contract's (contract/dtype.c), one copy for all */
uint16_t gemm_f32_to_bf16(float f) { return cutec_float_to_bf16(f); }
float gemm_bf16_to_f32(uint16_t h) { return cutec_bf16_to_float(h); }
uint16_t gemm_f32_to_f16(float f) { return cutec_float_to_f16(f); }
float gemm_f16_to_f32(uint16_t h) { return cutec_f16_to_float(h); }

double gemm_load(const void *buf, gemm_type t, size_t i)
{
    const cutec_dtype_info *info = cutec_dtype_info_of(t);
    if (info == NULL || !info->is_float) return NAN;
    return cutec_dtype_load(t, (const char *)buf + i * (size_t)info->bytes);
}

void gemm_rng_seed(gemm_rng *r, uint64_t seed)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull; /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    r->s = z ? z : 0x2545f4914f6cdd1dull;
}

uint64_t gemm_rng_next(gemm_rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545f4914f6cdd1dull;
}

double gemm_rng_uniform(gemm_rng *r)
{
    /* 53 random bits -> [0, 1] -> [-1, 1] */
    double u = (double)(gemm_rng_next(r) >> 11) * (1.0 / 9007199254740991.0);
    return 2.0 * u - 1.0;
}

void gemm_fill_random(gemm_rng *r, gemm_type t, void *dst, double *vals, size_t n)
{
    size_t sz = gemm_type_size(t);
    for (size_t i = 0; i < n; i++) {
        char *e = (char *)dst + i * sz;
        double v;
        do {
            /* through f32 as the 16-bit types always were: the same stream of
       * values for bf16 and f16 as before the dtype table */
            cutec_dtype_store(t, e, (double)(float)gemm_rng_uniform(r));
            v = cutec_dtype_load(t, e);
        } while (v == 0.0);
        if (vals != NULL) vals[i] = v;
    }
}

/* ---- kernel descriptions ---- */

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int gemm_parse_meta(const char *text, size_t len, gemm_kernel_meta **out, int *count, char *err, size_t errlen)
{
    static const char prefix[] = "// cutec.kernel ";
    gemm_kernel_meta *blocks = NULL;
    int n = 0;
    *out = NULL;
    *count = 0;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *next = eol ? eol + 1 : end;
        if ((size_t)(end - p) > sizeof prefix - 1 && memcmp(p, prefix, sizeof prefix - 1) == 0) {
            gemm_kernel_meta *nb = realloc(blocks, (size_t)(n + 1) * sizeof *nb);
            if (nb == NULL) {
                set_err(err, errlen, "out of memory");
                free(blocks);
                return -1;
            }
            blocks = nb;
            if (cutec_kdesc_read(p, (size_t)(end - p), &blocks[n], err, errlen) != 0) {
                free(blocks);
                return -1;
            }
            n++;
        }
        p = next;
    }
    *out = blocks;
    *count = n;
    return 0;
}

const char *gemm_meta_param(const gemm_kernel_meta *m, const char *name) { return cutec_kdesc_param(m, name); }

int gemm_meta_int(const gemm_kernel_meta *m, const char *name, long *v)
{
    const char *s = gemm_meta_param(m, name);
    if (s == NULL) return -1;
    char *e;
    errno = 0;
    long x = strtol(s, &e, 10);
    if (e == s || *e != '\0' || errno != 0) return -1;
    *v = x;
    return 0;
}

static gemm_type type_of(cutec_ct t) { return gemm_type_parse(cutec_dtype_str(t)); }

int gemm_point_from_meta(const gemm_kernel_meta *m, gemm_point *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->meta = *m;
    int a = cutec_kdesc_role_arg(m, CUTEC_ROLE_A), d = cutec_kdesc_role_arg(m, CUTEC_ROLE_D);
    if (m->cls != CUTEC_KD_GEMM || a < 0 || d < 0) {
        set_err(err, errlen, "kernel %s: not a GEMM kernel (no serves gemm clause)", m->kernel);
        return -1;
    }
    int b = cutec_kdesc_role_arg(m, CUTEC_ROLE_B);
    p->t = type_of(m->args[a].dtype);
    p->tb = b >= 0 ? type_of(m->args[b].dtype) : p->t;
    p->tc = type_of(m->args[d].dtype);
    static const char *const hint[] = {"BM", "BN", "BK", "VEC"};
    long *dst[] = {&p->bm, &p->bn, &p->bk, &p->vec}, dflt[] = {128, 128, 0, 8};
    for (int i = 0; i < 4; i++)
        if (gemm_meta_int(m, hint[i], dst[i]) != 0 || *dst[i] <= 0) *dst[i] = dflt[i];
    if (m->threads[0] == 0) {
        set_err(err, errlen, "kernel %s: declares no threads()", m->kernel);
        return -1;
    }
    size_t off = 0;
    p->desc[0] = '\0';
    for (int i = 0; i < m->nparams && off < sizeof p->desc; i++) {
        int w = snprintf(p->desc + off, sizeof p->desc - off, "%s%s=%s", i ? " " : "", cutec_kd_s(m, m->pname[i]),
                         cutec_kd_s(m, m->pvalue[i]));
        if (w < 0) break;
        off += (size_t)w;
    }
    return 0;
}

char *gemm_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    fclose(f);
    if (buf != NULL) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

long gemm_ceil_div(long a, long b) { return (a + b - 1) / b; }

long gemm_point_n_multiple(const gemm_point *p)
{
    const cutec_kdesc *m = &p->meta;
    int d = cutec_kdesc_role_arg(m, CUTEC_ROLE_D);
    for (int a = 0; a < m->nargs; a++)
        if (m->args[a].kind == CUTEC_KD_TMA && m->args[a].tensor == d && !m->args[a].unused)
            return 16 / cutec_dtype_bytes(m->args[a].dtype);
    return 1;
}

/* 1 when argument a (a tensor of rank 2 or more) has a K mode (the second)
 * whose stride is not 1: an MN-major operand. */
static int arg_mn_major(const cutec_kdesc *m, int a)
{
    return a >= 0 && m->args[a].rank >= 2 && strcmp(cutec_kd_s(m, m->args[a].stride[1]), "1") != 0;
}

int gemm_point_mn_major(const gemm_point *p, cutec_kd_role r)
{
    return arg_mn_major(&p->meta, cutec_kdesc_role_arg(&p->meta, r));
}

int gemm_point_batched(const gemm_point *p) { return cutec_kdesc_role_arg(&p->meta, CUTEC_ROLE_BATCH) >= 0; }

int gemm_point_grouped(const gemm_point *p) { return cutec_kdesc_role_arg(&p->meta, CUTEC_ROLE_GROUP_ENDS) >= 0; }

int gemm_point_listed(const gemm_point *p) { return cutec_kdesc_role_arg(&p->meta, CUTEC_ROLE_GROUP_LIST) >= 0; }

/* The elements one matrix of role r spans as stored with ga's leading
 * dimensions (0: packed): a batch of one's stride. */
static long long matrix_span(const cutec_kdesc *m, const gemm_args *ga, cutec_kd_role r)
{
    long long rows = r == CUTEC_ROLE_B ? ga->n : ga->m, cols = r == CUTEC_ROLE_A || r == CUTEC_ROLE_B ? ga->k : ga->n;
    long long ld = r == CUTEC_ROLE_A ? ga->lda : r == CUTEC_ROLE_B ? ga->ldb : r == CUTEC_ROLE_D ? ga->ldd : ga->ldc;
    if ((r == CUTEC_ROLE_A || r == CUTEC_ROLE_B) && arg_mn_major(m, cutec_kdesc_role_arg(m, r)))
        return (ld > 0 ? ld : rows) * cols;
    return rows * (ld > 0 ? ld : cols);
}

/* D's columns: N, or N / 2 for a gated epilogue (the d tensor's second
 * extent, evaluated with M, N and K alone). */
static long long d_cols(const cutec_kdesc *m, const gemm_args *ga)
{
    int d = cutec_kdesc_role_arg(m, CUTEC_ROLE_D);
    cutec_kd_values v;
    memset(&v, 0, sizeof v);
    for (int a = 0; a < m->nargs; a++) {
        cutec_kd_role r = m->args[a].role;
        v.set[a] = r == CUTEC_ROLE_M || r == CUTEC_ROLE_N || r == CUTEC_ROLE_K;
        v.v[a] = r == CUTEC_ROLE_M ? ga->m : r == CUTEC_ROLE_N ? ga->n : ga->k;
    }
    long long cols = ga->n;
    char why[120];
    if (d < 0 || m->args[d].rank < 2 || cutec_kdesc_eval(m, m->args[d].shape[1], &v, &cols, why, sizeof why) != 0)
        cols = ga->n;
    return cols;
}

/* The value of integer role r for ga: 0 and *v, or -1 for a role this
 * test does not supply. */
static int role_int(const cutec_kdesc *m, const gemm_args *ga, cutec_kd_role r, long long *v)
{
    int one = ga->batch <= 0; /* one problem: a batch of one, packed strides */
    switch (r) {
    case CUTEC_ROLE_M: *v = ga->m; return 0;
    case CUTEC_ROLE_N: *v = ga->n; return 0;
    case CUTEC_ROLE_K: *v = ga->k; return 0;
    /* a leading dimension left 0 (gemm_bench): packed, as the tensor is read */
    case CUTEC_ROLE_LDA: *v = ga->lda ? ga->lda : arg_mn_major(m, cutec_kdesc_role_arg(m, r)) ? ga->m : ga->k; return 0;
    case CUTEC_ROLE_LDB:
        *v = ga->ldb ? ga->ldb : arg_mn_major(m, cutec_kdesc_role_arg(m, CUTEC_ROLE_B)) ? ga->n : ga->k;
        return 0;
    case CUTEC_ROLE_LDD: *v = ga->ldd ? ga->ldd : d_cols(m, ga); return 0;
    case CUTEC_ROLE_LDC: *v = ga->ldc ? ga->ldc : ga->n; return 0;
    case CUTEC_ROLE_BATCH: *v = one ? 1 : ga->batch; return 0;
    case CUTEC_ROLE_STRIDE_A: *v = one ? matrix_span(m, ga, CUTEC_ROLE_A) : ga->stride_a; return 0;
    case CUTEC_ROLE_STRIDE_B: *v = one ? matrix_span(m, ga, CUTEC_ROLE_B) : ga->stride_b; return 0;
    case CUTEC_ROLE_STRIDE_C: *v = one ? matrix_span(m, ga, CUTEC_ROLE_C) : ga->stride_c; return 0;
    case CUTEC_ROLE_STRIDE_D: *v = one ? matrix_span(m, ga, CUTEC_ROLE_D) : ga->stride_d; return 0;
    default: return -1;
    }
}

/* The values of the description's integer arguments for ga. */
static void problem_values(const cutec_kdesc *m, const gemm_args *ga, cutec_kd_values *v)
{
    memset(v, 0, sizeof *v);
    for (int a = 0; a < m->nargs; a++) {
        long long x;
        v->set[a] = role_int(m, ga, m->args[a].role, &x) == 0;
        v->v[a] = v->set[a] ? x : 0;
    }
}

/* An integer scalar's bytes in its argument's type (i32 or i64). */
static void store_int(cutec_ct t, long long *slot, long long v)
{
    int32_t i32 = (int32_t)v;
    if (cutec_dtype_bytes(t) == 4)
        memcpy(slot, &i32, sizeof i32);
    else
        *slot = v;
}

int gemm_map_geometry(const gemm_kernel_meta *meta, const gemm_args *ga, int a, uint64_t dims[CUTEC_KD_MAX_TMA_RANK],
                      uint64_t strides[CUTEC_KD_MAX_TMA_RANK], char *err, size_t errlen)
{
    const cutec_kd_arg *arg = &meta->args[a];
    cutec_kd_values vals;
    problem_values(meta, ga, &vals);
    char why[200];
    for (int d = 0; d < arg->tma_rank; d++) {
        long long x, step = 0;
        if (cutec_kdesc_eval(meta, arg->dims[d], &vals, &x, why, sizeof why) != 0 ||
            (d > 0 && cutec_kdesc_eval(meta, arg->tstride[d - 1], &vals, &step, why, sizeof why) != 0)) {
            set_err(err, errlen, "tensor map %s: %s", cutec_kd_s(meta, arg->name), why);
            return -1;
        }
        dims[d] = (uint64_t)x;
        if (d > 0) strides[d - 1] = (uint64_t)step * (uint64_t)cutec_dtype_bytes(arg->dtype);
    }
    return 0;
}

int gemm_build_args(cutec_runtime *rt, const gemm_kernel_meta *meta, gemm_args *ga, char *err, size_t errlen)
{
    cutec_kd_values vals;
    problem_values(meta, ga, &vals);
    for (int i = 0; i < meta->nargs; i++) {
        const cutec_kd_arg *arg = &meta->args[i];
        if (arg->kind == CUTEC_KD_SCALAR && cutec_kd_role_value(arg->role) == CUTEC_KD_VALUE_INT && vals.set[i]) {
            int bytes = cutec_dtype_bytes(arg->dtype);
            if (bytes != 4 && bytes != 8) {
                set_err(err, errlen, "argument %s (role %s) is of type %s: this test passes i32 or i64",
                        cutec_kd_s(meta, arg->name), cutec_kd_role_name(arg->role), cutec_dtype_str(arg->dtype));
                return -1;
            }
            store_int(arg->dtype, &ga->ints[i], vals.v[i]);
            ga->args[i] = &ga->ints[i];
            continue;
        }
        switch (arg->role) {
        case CUTEC_ROLE_A: ga->args[i] = &ga->a; break;
        case CUTEC_ROLE_B: ga->args[i] = &ga->b; break;
        case CUTEC_ROLE_D: ga->args[i] = &ga->c; break;
        case CUTEC_ROLE_ALPHA: ga->args[i] = &ga->alpha; break;
        case CUTEC_ROLE_BETA: ga->args[i] = &ga->beta; break;
        case CUTEC_ROLE_CLAMP_LO: ga->args[i] = &ga->clamp_lo; break;
        case CUTEC_ROLE_CLAMP_HI: ga->args[i] = &ga->clamp_hi; break;
        case CUTEC_ROLE_C: ga->args[i] = &ga->s; break;
        case CUTEC_ROLE_BIAS: ga->args[i] = &ga->bias; break;
        case CUTEC_ROLE_BIAS_ROW: ga->args[i] = &ga->bias_row; break;
        case CUTEC_ROLE_AUX: ga->args[i] = &ga->aux; break;
        case CUTEC_ROLE_SCALE_A: ga->args[i] = &ga->scale_a; break;
        case CUTEC_ROLE_SCALE_B: ga->args[i] = &ga->scale_b; break;
        case CUTEC_ROLE_SCALE_D: ga->args[i] = &ga->scale_d; break;
        case CUTEC_ROLE_AMAX: ga->args[i] = &ga->amax; break;
        case CUTEC_ROLE_GROUP_ENDS: ga->args[i] = &ga->ends; break;
        case CUTEC_ROLE_GROUP_LIST: ga->args[i] = &ga->list; break;
        case CUTEC_ROLE_WORKSPACE: ga->args[i] = &ga->ws; break;
        case CUTEC_ROLE_FLAGS: ga->args[i] = &ga->flags; break;
        case CUTEC_ROLE_NONE:
            if (arg->kind == CUTEC_KD_TMA) break;
            /* fall through */
        default:
            set_err(err, errlen, "argument %s has role %s, which this test does not supply",
                    cutec_kd_s(meta, arg->name), cutec_kd_role_name(arg->role));
            return -1;
        }
    }
    for (int i = 0; i < meta->nargs; i++) {
        const cutec_kd_arg *arg = &meta->args[i];
        if (arg->kind != CUTEC_KD_TMA) continue;
        ga->args[i] = &ga->maps[i];
        if (arg->unused) { /* never read by the kernel: no constraints on its tensor */
            memset(&ga->maps[i], 0, sizeof ga->maps[i]);
            continue;
        }
        uint64_t dims[CUTEC_KD_MAX_TMA_RANK], strides[CUTEC_KD_MAX_TMA_RANK];
        if (gemm_map_geometry(meta, ga, i, dims, strides, err, errlen) != 0) return -1;
        unsigned long long ptr = *(const unsigned long long *)ga->args[arg->tensor];
        cutec_status st = cutec_tensor_map_nd(rt, &ga->maps[i], cutec_dtype_str(arg->dtype), ptr, arg->tma_rank, dims,
                                              strides, arg->box, arg->swizzle);
        if (st != CUTEC_OK) {
            set_err(err, errlen, "tensor map %s: %s: %s", cutec_kd_s(meta, arg->name), cutec_status_string(st),
                    cutec_runtime_message(rt));
            return -1;
        }
    }
    return 0;
}

long long gemm_scratch_bytes(const gemm_kernel_meta *meta, const gemm_args *ga, cutec_kd_role r, char *err,
                             size_t errlen)
{
    int a = cutec_kdesc_role_arg(meta, r);
    if (a < 0) return 0;
    cutec_kd_values vals;
    problem_values(meta, ga, &vals);
    long long bytes;
    return cutec_kdesc_tensor_bytes(meta, a, &vals, &bytes, err, errlen) == 0 ? bytes : -1;
}

int gemm_point_fits(const gemm_point *p, const gemm_args *ga, char *why, size_t len)
{
    cutec_kd_values vals;
    problem_values(&p->meta, ga, &vals);
    for (int r = 0; r < p->meta.nrequires; r++) {
        long long v = 0;
        char sub[160] = "";
        int bad = cutec_kdesc_eval(&p->meta, p->meta.requires[r], &vals, &v, sub, sizeof sub) != 0;
        if (bad || v == 0) {
            set_err(why, len, "its condition %s %s%s", cutec_kd_s(&p->meta, p->meta.requires[r]),
                    bad ? "cannot be evaluated: " : "does not hold", sub);
            return 0;
        }
    }
    return 1;
}

int gemm_grid(const gemm_point *p, long m, long n, long k, long long batch, long long resident, unsigned grid[3],
              char *err, size_t errlen)
{
    gemm_args ga;
    memset(&ga, 0, sizeof ga);
    ga.m = (int)m, ga.n = (int)n, ga.k = (int)k, ga.batch = batch;
    cutec_kd_values vals;
    problem_values(&p->meta, &ga, &vals);
    vals.resident = resident;
    return cutec_kdesc_grid(&p->meta, &vals, grid, err, errlen);
}

long long gemm_resident(cutec_kernel *k, const gemm_point *p)
{
    long long blocks = 0;
    if (!p->meta.has_grid || strstr(cutec_kd_s(&p->meta, p->meta.grid[0]), "resident(") == NULL ||
        cutec_occupancy_blocks(k, p->meta.threads, p->meta.cluster, p->meta.smem_dynamic, &blocks) != CUTEC_OK)
        return 0;
    return blocks;
}
