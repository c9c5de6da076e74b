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

/* The values of the description's integer arguments for M x N x K (and
 * the leading dimensions of ga, where given). */
static void problem_values(const cutec_kdesc *m, long pm, long pn, long pk, const gemm_args *ga, cutec_kd_values *v)
{
    memset(v, 0, sizeof *v);
    for (int a = 0; a < m->nargs; a++) {
        cutec_kd_role r = m->args[a].role;
        long long x = r == CUTEC_ROLE_M ? pm : r == CUTEC_ROLE_N ? pn : r == CUTEC_ROLE_K ? pk : -1;
        /* without arguments (a grid rule), one problem */
        if (r == CUTEC_ROLE_BATCH && (ga == NULL || ga->batch == 0)) x = 1;
        if (ga != NULL && x < 0) {
            const struct {
                cutec_kd_role r;
                long long v;
            } given[] = {{CUTEC_ROLE_LDA, ga->lda},           {CUTEC_ROLE_LDB, ga->ldb},
                         {CUTEC_ROLE_LDD, ga->ldd},           {CUTEC_ROLE_LDC, ga->ldc},
                         {CUTEC_ROLE_BATCH, ga->batch},       {CUTEC_ROLE_STRIDE_A, ga->stride_a},
                         {CUTEC_ROLE_STRIDE_B, ga->stride_b}, {CUTEC_ROLE_STRIDE_D, ga->stride_d}};
            for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
                if (given[i].r == r) x = given[i].v;
        }
        v->set[a] = x >= 0;
        v->v[a] = x >= 0 ? x : 0;
    }
}

/* 1 when the tensor of role r is read with a K (second) mode that is not contiguous. */
static int meta_mn_major(const cutec_kdesc *m, cutec_kd_role r)
{
    int a = cutec_kdesc_role_arg(m, r);
    return a >= 0 && m->args[a].rank >= 2 && strcmp(cutec_kd_s(m, m->args[a].stride[1]), "1") != 0;
}

int gemm_point_mn_major(const gemm_point *p, cutec_kd_role r) { return meta_mn_major(&p->meta, r); }

/* A step in elements covering `elems` elements, rounded up to 16 bytes. */
static long long step16(long long elems, const cutec_kdesc *m, cutec_kd_role r)
{
    int a = cutec_kdesc_role_arg(m, r);
    long long es = a >= 0 ? cutec_dtype_bytes(m->args[a].dtype) : 1;
    return (elems * es + 15) / 16 * 16 / es;
}

/* Leading dimensions and a batch left 0 by the caller: packed, one problem. */
static void default_layout(const cutec_kdesc *meta, gemm_args *ga)
{
    int d = cutec_kdesc_role_arg(meta, CUTEC_ROLE_D);
    long long dcols = ga->n;
    cutec_kd_values vals;
    problem_values(meta, ga->m, ga->n, ga->k, NULL, &vals);
    char why[120];
    if (d >= 0 && meta->args[d].rank >= 2 &&
        cutec_kdesc_eval(meta, meta->args[d].shape[1], &vals, &dcols, why, sizeof why) != 0)
        dcols = ga->n;
    if (ga->lda == 0) ga->lda = meta_mn_major(meta, CUTEC_ROLE_A) ? ga->m : ga->k;
    if (ga->ldb == 0) ga->ldb = meta_mn_major(meta, CUTEC_ROLE_B) ? ga->n : ga->k;
    if (ga->ldd == 0) ga->ldd = (int)dcols;
    if (ga->ldc == 0) ga->ldc = ga->n;
    if (ga->batch == 0) ga->batch = 1;
    if (ga->stride_a == 0)
        ga->stride_a =
            step16((long long)(meta_mn_major(meta, CUTEC_ROLE_A) ? ga->k : ga->m) * ga->lda, meta, CUTEC_ROLE_A);
    if (ga->stride_b == 0)
        ga->stride_b =
            step16((long long)(meta_mn_major(meta, CUTEC_ROLE_B) ? ga->k : ga->n) * ga->ldb, meta, CUTEC_ROLE_B);
    if (ga->stride_d == 0) ga->stride_d = step16((long long)ga->m * ga->ldd, meta, CUTEC_ROLE_D);
}

int gemm_build_args(cutec_runtime *rt, const gemm_kernel_meta *meta, gemm_args *ga, char *err, size_t errlen)
{
    default_layout(meta, ga);
    cutec_kd_values vals;
    problem_values(meta, ga->m, ga->n, ga->k, ga, &vals);
    for (int i = 0; i < meta->nargs; i++) {
        const cutec_kd_arg *arg = &meta->args[i];
        switch (arg->role) {
        case CUTEC_ROLE_M: ga->args[i] = &ga->m; break;
        case CUTEC_ROLE_N: ga->args[i] = &ga->n; break;
        case CUTEC_ROLE_K: ga->args[i] = &ga->k; break;
        case CUTEC_ROLE_A: ga->args[i] = &ga->a; break;
        case CUTEC_ROLE_B: ga->args[i] = &ga->b; break;
        case CUTEC_ROLE_D: ga->args[i] = &ga->c; break;
        case CUTEC_ROLE_ALPHA: ga->args[i] = &ga->alpha; break;
        case CUTEC_ROLE_BETA: ga->args[i] = &ga->beta; break;
        case CUTEC_ROLE_C: ga->args[i] = &ga->s; break;
        case CUTEC_ROLE_BIAS: ga->args[i] = &ga->bias; break;
        case CUTEC_ROLE_BIAS_ROW: ga->args[i] = &ga->bias_row; break;
        case CUTEC_ROLE_AUX: ga->args[i] = &ga->aux; break;
        case CUTEC_ROLE_SCALE_A: ga->args[i] = &ga->scale_a; break;
        case CUTEC_ROLE_SCALE_B: ga->args[i] = &ga->scale_b; break;
        case CUTEC_ROLE_SCALE_D: ga->args[i] = &ga->scale_d; break;
        case CUTEC_ROLE_AMAX: ga->args[i] = &ga->amax; break;
        case CUTEC_ROLE_LDA: ga->args[i] = &ga->lda; break;
        case CUTEC_ROLE_LDB: ga->args[i] = &ga->ldb; break;
        case CUTEC_ROLE_LDD: ga->args[i] = &ga->ldd; break;
        case CUTEC_ROLE_LDC: ga->args[i] = &ga->ldc; break;
        case CUTEC_ROLE_BATCH: ga->args[i] = &ga->batch; break;
        case CUTEC_ROLE_STRIDE_A: ga->args[i] = &ga->stride_a; break;
        case CUTEC_ROLE_STRIDE_B: ga->args[i] = &ga->stride_b; break;
        case CUTEC_ROLE_STRIDE_D: ga->args[i] = &ga->stride_d; break;
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
        /* the map's dimensions and steps from the description (rank 2, or 3 for a batch) */
        long long v;
        uint64_t dims[CUTEC_KD_MAX_TMA_RANK], strides[CUTEC_KD_MAX_TMA_RANK];
        int esz = cutec_dtype_bytes(arg->dtype);
        char why[200];
        for (int d = 0; d < arg->tma_rank; d++) {
            if (cutec_kdesc_eval(meta, arg->dims[d], &vals, &v, why, sizeof why) != 0 ||
                (dims[d] = (uint64_t)v,
                 d > 0 && cutec_kdesc_eval(meta, arg->tstride[d - 1], &vals, &v, why, sizeof why) != 0)) {
                set_err(err, errlen, "tensor map %s: %s", cutec_kd_s(meta, arg->name), why);
                return -1;
            }
            if (d > 0) strides[d - 1] = (uint64_t)v * (uint64_t)esz;
        }
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

int gemm_grid(const gemm_point *p, long m, long n, long k, long long resident, unsigned grid[3], char *err,
              size_t errlen)
{
    cutec_kd_values vals;
    problem_values(&p->meta, m, n, k, NULL, &vals);
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
