/*
 * kdesc.c - the kernel description's builder, checker, writer and reader.
 * The reader accepts exactly what the writer produces (one line per fact,
 * whitespace-separated tokens) and runs the same checker the compiler runs
 * before writing, so a description that reads is safe to launch from:
 * every index is in range, every expression parses and names only integer
 * arguments or template parameters.
 */
#include "kdesc.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kexpr.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail(char *why, size_t why_len, const char *fmt, ...)
{
    if (why != NULL && why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- roles ---- */

static const struct {
    const char *name;
    cutec_kd_value value;
    const char *what;
} roles[CUTEC_ROLE_COUNT] = {
#define CUTEC_KD_ROLE_ROW(id, name, value, what) {name, value, what},
    CUTEC_KD_ROLES(CUTEC_KD_ROLE_ROW)
#undef CUTEC_KD_ROLE_ROW
};

/* The problem classes: a row each, its name and the roles it needs. */
static const struct {
    const char *name;
    cutec_kd_role need[6];
    int nneed;
} classes[CUTEC_KD_CLASS_COUNT] = {
    [CUTEC_KD_PLAIN] = {"plain", {CUTEC_ROLE_NONE}, 0},
    [CUTEC_KD_GEMM] = {"gemm", {CUTEC_ROLE_M, CUTEC_ROLE_N, CUTEC_ROLE_K, CUTEC_ROLE_A, CUTEC_ROLE_B, CUTEC_ROLE_D}, 6},
    [CUTEC_KD_EPILOGUE] = {"epilogue", {CUTEC_ROLE_M, CUTEC_ROLE_N, CUTEC_ROLE_C, CUTEC_ROLE_D}, 4},
};

const char *cutec_kd_class_name(cutec_kd_class c)
{
    return (int)c >= 0 && c < CUTEC_KD_CLASS_COUNT ? classes[c].name : "?";
}

int cutec_kd_class_from_name(const char *name)
{
    for (int c = 0; c < CUTEC_KD_CLASS_COUNT; c++)
        if (strcmp(classes[c].name, name) == 0) return c;
    return -1;
}

int cutec_kd_class_needs(cutec_kd_class c, const cutec_kd_role **roles_out)
{
    if ((int)c < 0 || c >= CUTEC_KD_CLASS_COUNT) return 0;
    *roles_out = classes[c].need;
    return classes[c].nneed;
}

const char *cutec_kd_role_name(cutec_kd_role r) { return (int)r >= 0 && r < CUTEC_ROLE_COUNT ? roles[r].name : "?"; }

const char *cutec_kd_role_what(cutec_kd_role r) { return (int)r >= 0 && r < CUTEC_ROLE_COUNT ? roles[r].what : "?"; }

cutec_kd_value cutec_kd_role_value(cutec_kd_role r)
{
    return (int)r >= 0 && r < CUTEC_ROLE_COUNT ? roles[r].value : CUTEC_KD_VALUE_NONE;
}

int cutec_kd_role_from_name(const char *name, size_t n)
{
    for (int r = 1; r < CUTEC_ROLE_COUNT; r++)
        if (strlen(roles[r].name) == n && memcmp(roles[r].name, name, n) == 0) return r;
    return -1;
}

/* ---- building ---- */

void cutec_kdesc_init(cutec_kdesc *d, const char *kernel)
{
    memset(d, 0, sizeof *d);
    d->version = CUTEC_KDESC_VERSION;
    snprintf(d->kernel, sizeof d->kernel, "%s", kernel != NULL ? kernel : "");
    d->cluster[0] = d->cluster[1] = d->cluster[2] = 1;
    d->pool_used = 1; /* offset 0 is "" */
}

int cutec_kdesc_intern(cutec_kdesc *d, const char *s, cutec_kd_str *out)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        if (isspace((unsigned char)s[i])) return -1;
    if (n == 0) {
        *out = 0;
        return 0;
    }
    if (d->pool_used + n + 1 > sizeof d->pool) return -1;
    memcpy(d->pool + d->pool_used, s, n + 1);
    *out = (cutec_kd_str)d->pool_used;
    d->pool_used += (unsigned)(n + 1);
    return 0;
}

/* ---- queries ---- */

int cutec_kdesc_role_arg(const cutec_kdesc *d, cutec_kd_role r)
{
    for (int i = 0; i < d->nargs; i++)
        if (d->args[i].role == r) return i;
    return -1;
}

int cutec_kdesc_arg_index(const cutec_kdesc *d, const char *name)
{
    for (int i = 0; i < d->nargs; i++)
        if (strcmp(cutec_kd_s(d, d->args[i].name), name) == 0) return i;
    return -1;
}

const char *cutec_kdesc_param(const cutec_kdesc *d, const char *name)
{
    for (int i = 0; i < d->nparams; i++)
        if (strcmp(cutec_kd_s(d, d->pname[i]), name) == 0) return cutec_kd_s(d, d->pvalue[i]);
    return NULL;
}

void cutec_kdesc_describe(const cutec_kdesc *d, char *buf, size_t len)
{
    if (len == 0) return;
    size_t n = (size_t)snprintf(buf, len, "%s", d->kernel);
    for (int j = 0; j < d->nparams && n < len; j++)
        n += (size_t)snprintf(buf + n, len - n, " %s=%s", cutec_kd_s(d, d->pname[j]), cutec_kd_s(d, d->pvalue[j]));
}

/* ---- evaluation ---- */

typedef struct eval_env {
    const cutec_kdesc *d;
    const cutec_kd_values *vals; /* NULL: checking names only */
} eval_env;

static int param_int(const char *s, long long *v)
{
    char *e;
    errno = 0;
    long long x = strtoll(s, &e, 10);
    if (e == s || *e != '\0' || errno != 0) return -1;
    *v = x;
    return 0;
}

static int env_lookup(void *user, const char *name, size_t len, long long *v)
{
    const eval_env *env = user;
    const cutec_kdesc *d = env->d;
    if (len == 9 && memcmp(name, "@resident", 9) == 0) {
        if (env->vals == NULL || env->vals->resident <= 0) return -1;
        *v = env->vals->resident;
        return 0;
    }
    for (int i = 0; i < d->nargs; i++) {
        const cutec_kd_arg *a = &d->args[i];
        const char *an = cutec_kd_s(d, a->name);
        if (strlen(an) != len || memcmp(an, name, len) != 0) continue;
        const cutec_dtype_info *t = cutec_dtype_info_of(a->dtype);
        if (a->kind != CUTEC_KD_SCALAR || t == NULL || !t->is_int) return -1;
        if (env->vals == NULL) {
            *v = 1;
            return 0;
        }
        if (!env->vals->set[i]) return -1;
        *v = env->vals->v[i];
        return 0;
    }
    for (int i = 0; i < d->nparams; i++) {
        const char *pn = cutec_kd_s(d, d->pname[i]);
        if (strlen(pn) == len && memcmp(pn, name, len) == 0) return param_int(cutec_kd_s(d, d->pvalue[i]), v);
    }
    return -1;
}

int cutec_kdesc_eval(const cutec_kdesc *d, cutec_kd_str s, const cutec_kd_values *vals, long long *v, char *why,
                     size_t why_len)
{
    eval_env env = {d, vals};
    return cutec_kexpr_eval(cutec_kd_s(d, s), env_lookup, &env, v, why, why_len);
}

void cutec_kdesc_values_from_args(const cutec_kdesc *d, void *const *args, cutec_kd_values *vals)
{
    for (int i = 0; i < d->nargs; i++) {
        const cutec_kd_arg *a = &d->args[i];
        const cutec_dtype_info *t = cutec_dtype_info_of(a->dtype);
        vals->set[i] = 0;
        if (a->kind != CUTEC_KD_SCALAR || t == NULL || !t->is_int || args == NULL || args[i] == NULL) continue;
        const void *p = args[i];
        long long x;
        switch (t->bytes) {
        case 1: x = t->is_signed ? (long long)*(const int8_t *)p : (long long)*(const uint8_t *)p; break;
        case 2: x = t->is_signed ? (long long)*(const int16_t *)p : (long long)*(const uint16_t *)p; break;
        case 4: x = t->is_signed ? (long long)*(const int32_t *)p : (long long)*(const uint32_t *)p; break;
        default: {
            uint64_t u;
            memcpy(&u, p, 8);
            if (!t->is_signed && u > INT64_MAX) continue; /* not representable: expressions naming it fail */
            x = (long long)u;
        }
        }
        vals->v[i] = x;
        vals->set[i] = 1;
    }
}

int cutec_kdesc_grid(const cutec_kdesc *d, const cutec_kd_values *vals, unsigned grid[3], char *why, size_t why_len)
{
    if (!d->has_grid) return fail(why, why_len, "kernel '%s' has no grid rule (grid(...))", d->kernel);
    for (int i = 0; i < 3; i++) {
        long long v;
        char sub[256];
        if (cutec_kdesc_eval(d, d->grid[i], vals, &v, sub, sizeof sub) != 0)
            return fail(why, why_len, "grid rule '%s' of '%s': %s", cutec_kd_s(d, d->grid[i]), d->kernel, sub);
        long long max = i == 0 ? 0x7fffffffLL : 65535;
        if (v < 1 || v > max)
            return fail(why, why_len, "grid rule '%s' of '%s' gives %lld (must be 1 .. %lld)",
                        cutec_kd_s(d, d->grid[i]), d->kernel, v, max);
        if (v % d->cluster[i] != 0)
            return fail(why, why_len, "grid rule '%s' of '%s' gives %lld, not a multiple of the cluster's %u",
                        cutec_kd_s(d, d->grid[i]), d->kernel, v, d->cluster[i]);
        grid[i] = (unsigned)v;
    }
    return 0;
}

int cutec_kdesc_tensor_bytes(const cutec_kdesc *d, int a, const cutec_kd_values *vals, long long *bytes, char *why,
                             size_t why_len)
{
    const cutec_kd_arg *arg = &d->args[a];
    long long last = 0;
    for (int m = 0; m < arg->rank; m++) {
        long long e, s;
        char sub[200];
        if (cutec_kdesc_eval(d, arg->shape[m], vals, &e, sub, sizeof sub) != 0 ||
            cutec_kdesc_eval(d, arg->stride[m], vals, &s, sub, sizeof sub) != 0)
            return fail(why, why_len, "the layout of '%s' cannot be evaluated for this problem: %s",
                        cutec_kd_s(d, arg->name), sub);
        if (e <= 0) {
            *bytes = 0;
            return 0;
        }
        last += (e - 1) * (s < 0 ? -s : s);
    }
    *bytes = (last + 1) * cutec_dtype_info_of(arg->dtype)->bytes;
    return 0;
}

/* ---- checking ---- */

static int check_expr(const cutec_kdesc *d, cutec_kd_str s, const char *what, char *why, size_t why_len)
{
    if (s >= d->pool_used) return fail(why, why_len, "%s: string offset out of range", what);
    eval_env env = {d, NULL};
    char sub[200];
    if (cutec_kexpr_check(cutec_kd_s(d, s), env_lookup, &env, sub, sizeof sub) != 0)
        return fail(why, why_len, "%s '%s': %s", what, cutec_kd_s(d, s), sub);
    return 0;
}

static int is_pow2(long long x) { return x > 0 && (x & (x - 1)) == 0; }

static int check_arg(const cutec_kdesc *d, int i, char *why, size_t wl)
{
    const cutec_kd_arg *a = &d->args[i];
    if (a->name >= d->pool_used || cutec_kd_s(d, a->name)[0] == '\0')
        return fail(why, wl, "argument %d has no name", i);
    const char *an = cutec_kd_s(d, a->name);
    for (int j = 0; j < i; j++)
        if (strcmp(cutec_kd_s(d, d->args[j].name), an) == 0)
            return fail(why, wl, "argument %d: duplicate name '%s'", i, an);
    if ((int)a->role < 0 || a->role >= CUTEC_ROLE_COUNT)
        return fail(why, wl, "argument '%s': role %d out of range", an, (int)a->role);
    const cutec_dtype_info *t = cutec_dtype_info_of(a->dtype);
    cutec_kd_value rv = roles[a->role].value;
    if (a->role != CUTEC_ROLE_NONE &&
        (rv == CUTEC_KD_VALUE_TENSOR
             ? a->kind != CUTEC_KD_TENSOR
             : a->kind != CUTEC_KD_SCALAR || t == NULL || !(rv == CUTEC_KD_VALUE_INT ? t->is_int : t->is_float)))
        return fail(why, wl, "argument '%s': role %s needs %s", an, roles[a->role].name,
                    rv == CUTEC_KD_VALUE_TENSOR ? "a tensor"
                    : rv == CUTEC_KD_VALUE_INT  ? "an integer scalar"
                                                : "a floating-point scalar");
    if (a->role != CUTEC_ROLE_NONE && cutec_kdesc_role_arg(d, a->role) != i)
        return fail(why, wl, "argument '%s': role %s is given twice", an, roles[a->role].name);
    switch (a->kind) {
    case CUTEC_KD_SCALAR:
        if (t == NULL) return fail(why, wl, "argument '%s': no element type", an);
        return 0;
    case CUTEC_KD_TENSOR:
        if (t == NULL) return fail(why, wl, "argument '%s': no element type", an);
        if (a->rank < 1 || a->rank > CUTEC_KD_MAX_RANK)
            return fail(why, wl, "argument '%s': rank %d (1 .. %d)", an, a->rank, CUTEC_KD_MAX_RANK);
        for (int m = 0; m < a->rank; m++)
            if (check_expr(d, a->shape[m], "shape", why, wl) != 0 ||
                check_expr(d, a->stride[m], "stride", why, wl) != 0)
                return -1;
        if (!is_pow2(a->align) || a->align > 256 || a->align < t->bytes)
            return fail(why, wl, "argument '%s': alignment %d (a power of two, %d .. 256)", an, a->align, t->bytes);
        return 0;
    case CUTEC_KD_TMA: {
        if (a->tensor < 0 || a->tensor >= d->nargs || d->args[a->tensor].kind != CUTEC_KD_TENSOR)
            return fail(why, wl, "argument '%s': the map's tensor %d is not a tensor argument", an, a->tensor);
        if (a->dtype != d->args[a->tensor].dtype)
            return fail(why, wl, "argument '%s': element type differs from its tensor's", an);
        if (a->tma_rank < 1 || a->tma_rank > CUTEC_KD_MAX_TMA_RANK)
            return fail(why, wl, "argument '%s': map rank %d (1 .. %d)", an, a->tma_rank, CUTEC_KD_MAX_TMA_RANK);
        for (int m = 0; m < a->tma_rank; m++) {
            if (a->box[m] < 1 || a->box[m] > 256)
                return fail(why, wl, "argument '%s': box %u (1 .. 256)", an, a->box[m]);
            if (check_expr(d, a->dims[m], "map dimension", why, wl) != 0 ||
                (m > 0 && check_expr(d, a->tstride[m - 1], "map stride", why, wl) != 0))
                return -1;
        }
        if (a->swizzle != 0 && a->swizzle != 32 && a->swizzle != 64 && a->swizzle != 128)
            return fail(why, wl, "argument '%s': swizzle %d (0, 32, 64 or 128)", an, a->swizzle);
        return 0;
    }
    default: return fail(why, wl, "argument '%s': kind %d out of range", an, (int)a->kind);
    }
}

int cutec_kdesc_check(const cutec_kdesc *d, char *why, size_t wl)
{
    if (d->version != CUTEC_KDESC_VERSION)
        return fail(why, wl, "contract version %d (this cutec reads %d)", d->version, CUTEC_KDESC_VERSION);
    if (d->kernel[0] == '\0' || memchr(d->kernel, '\0', sizeof d->kernel) == NULL)
        return fail(why, wl, "no kernel name");
    if (d->pool_used < 1 || d->pool_used > sizeof d->pool || d->pool[0] != '\0' || d->pool[d->pool_used - 1] != '\0')
        return fail(why, wl, "string pool damaged");
    if ((int)d->cls < 0 || d->cls >= CUTEC_KD_CLASS_COUNT)
        return fail(why, wl, "problem class %d out of range", (int)d->cls);
    unsigned long long nt = 1, nc = 1;
    for (int i = 0; i < 3; i++) {
        if (d->threads[i] > 1024 || (d->threads[i] == 0) != (d->threads[0] == 0))
            return fail(why, wl, "threads %u %u %u (each 1 .. 1024, or none)", d->threads[0], d->threads[1],
                        d->threads[2]);
        nt *= d->threads[i] ? d->threads[i] : 1;
        if (d->cluster[i] < 1 || d->cluster[i] > 16)
            return fail(why, wl, "cluster %u %u %u (each 1 .. 16)", d->cluster[0], d->cluster[1], d->cluster[2]);
        nc *= d->cluster[i];
    }
    if (nt > 1024 || nc > 16)
        return fail(why, wl, "%s blocks", nt > 1024 ? "more than 1024 threads in" : "clusters of more than 16");
    if (d->smem_static > 0x7fffffffu || d->smem_dynamic > 0x7fffffffu)
        return fail(why, wl, "shared memory out of range");
    if (d->nparams < 0 || d->nparams > CUTEC_KD_MAX_PARAMS || d->nargs < 0 || d->nargs > CUTEC_KD_MAX_ARGS ||
        d->nrequires < 0 || d->nrequires > CUTEC_KD_MAX_REQUIRES)
        return fail(why, wl, "too many parameters, arguments or conditions");
    for (int i = 0; i < d->nparams; i++)
        if (d->pname[i] >= d->pool_used || d->pvalue[i] >= d->pool_used || cutec_kd_s(d, d->pname[i])[0] == '\0')
            return fail(why, wl, "template parameter %d damaged", i);
    for (int i = 0; i < d->nargs; i++)
        if (check_arg(d, i, why, wl) != 0) return -1;
    for (int i = 0; d->has_grid && i < 3; i++)
        if (check_expr(d, d->grid[i], "grid rule", why, wl) != 0) return -1;
    for (int i = 0; i < d->nrequires; i++)
        if (check_expr(d, d->requires[i], "condition", why, wl) != 0) return -1;
    if (d->act >= d->pool_used || (d->gated && d->act == 0))
        return fail(why, wl, "epilogue function damaged (or gated without one)");
    if (d->act != 0 && d->cls == CUTEC_KD_PLAIN) return fail(why, wl, "an epilogue function on a plain kernel");
    for (const char *c = cutec_kd_s(d, d->act); *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_'))
            return fail(why, wl, "epilogue function '%s' is not a name", cutec_kd_s(d, d->act));
    if (d->cls != CUTEC_KD_PLAIN) {
        const cutec_kd_role *need;
        int nneed = cutec_kd_class_needs(d->cls, &need);
        const char *cn = d->cls == CUTEC_KD_GEMM ? "GEMM" : cutec_kd_class_name(d->cls);
        const char *an = strchr("aeiou", cn[0]) != NULL ? "an" : "a";
        for (int r = 0; r < nneed; r++)
            if (cutec_kdesc_role_arg(d, need[r]) < 0)
                return fail(why, wl, "%s %s kernel without an argument of role %s (%s)", an, cn, roles[need[r]].name,
                            roles[need[r]].what);
        for (int i = 0; i < d->nargs; i++)
            if (d->args[i].kind != CUTEC_KD_TMA && d->args[i].role == CUTEC_ROLE_NONE)
                return fail(why, wl, "%s kernel argument '%s' has no role", cn, cutec_kd_s(d, d->args[i].name));
    }
    return 0;
}

/* ---- the writer ---- */

typedef struct out {
    char *buf;
    size_t len, n;
} out;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->n < o->len ? o->buf + o->n : NULL, o->n < o->len ? o->len - o->n : 0, fmt, ap);
    va_end(ap);
    if (k > 0) o->n += (size_t)k;
}

size_t cutec_kdesc_write(const cutec_kdesc *d, char *buf, size_t len)
{
    out o = {buf, len, 0};
    if (len > 0) buf[0] = '\0';
    put(&o, "// cutec.kernel %s\n// cutec.contract %d\n// cutec.class %s\n", d->kernel, d->version,
        cutec_kd_class_name(d->cls));
    if (d->threads[0]) put(&o, "// cutec.threads %u %u %u\n", d->threads[0], d->threads[1], d->threads[2]);
    put(&o, "// cutec.smem_static %u\n// cutec.smem_dynamic %u\n", d->smem_static, d->smem_dynamic);
    for (int i = 0; i < d->nparams; i++)
        put(&o, "// cutec.param %s %s\n", cutec_kd_s(d, d->pname[i]), cutec_kd_s(d, d->pvalue[i]));
    for (int i = 0; i < d->nargs; i++) {
        const cutec_kd_arg *a = &d->args[i];
        put(&o, "// cutec.arg %d %s", i, cutec_kd_s(d, a->name));
        if (a->kind == CUTEC_KD_SCALAR) {
            put(&o, " scalar %s", cutec_dtype_str(a->dtype));
        } else if (a->kind == CUTEC_KD_TENSOR) {
            put(&o, " tensor %s rank %d shape", cutec_dtype_str(a->dtype), a->rank);
            for (int m = 0; m < a->rank; m++) put(&o, " %s", cutec_kd_s(d, a->shape[m]));
            put(&o, " stride");
            for (int m = 0; m < a->rank; m++) put(&o, " %s", cutec_kd_s(d, a->stride[m]));
            put(&o, " align %d", a->align);
        } else {
            put(&o, " tma %d rank %d dims", a->tensor, a->tma_rank);
            for (int m = 0; m < a->tma_rank; m++) put(&o, " %s", cutec_kd_s(d, a->dims[m]));
            put(&o, " stride");
            for (int m = 1; m < a->tma_rank; m++) put(&o, " %s", cutec_kd_s(d, a->tstride[m - 1]));
            put(&o, " box");
            for (int m = 0; m < a->tma_rank; m++) put(&o, " %u", a->box[m]);
            put(&o, " swizzle %d%s", a->swizzle, a->unused ? " unused" : "");
        }
        if (a->role != CUTEC_ROLE_NONE) put(&o, " role %s", cutec_kd_role_name(a->role));
        put(&o, "\n");
    }
    if (d->has_grid)
        put(&o, "// cutec.grid %s %s %s\n", cutec_kd_s(d, d->grid[0]), cutec_kd_s(d, d->grid[1]),
            cutec_kd_s(d, d->grid[2]));
    if (d->cluster[0] * d->cluster[1] * d->cluster[2] != 1)
        put(&o, "// cutec.cluster %u %u %u\n", d->cluster[0], d->cluster[1], d->cluster[2]);
    for (int i = 0; i < d->nrequires; i++) put(&o, "// cutec.require %s\n", cutec_kd_s(d, d->requires[i]));
    if (d->act != 0) put(&o, "// cutec.act %s%s\n", cutec_kd_s(d, d->act), d->gated ? " gated" : "");
    return o.n;
}

/* ---- the reader ---- */

typedef struct line {
    const char *p, *end;
} line;

/* The next whitespace-separated token into buf; 0 when there is none or it
 * does not fit. */
static int tok(line *l, char *buf, size_t size)
{
    const char *s = l->p;
    while (s < l->end && (*s == ' ' || *s == '\t')) s++;
    const char *e = s;
    while (e < l->end && *e != ' ' && *e != '\t') e++;
    size_t n = (size_t)(e - s);
    l->p = e;
    if (n == 0 || n >= size) return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return 1;
}

static int tok_is(line *l, const char *want)
{
    char buf[32];
    return tok(l, buf, sizeof buf) && strcmp(buf, want) == 0;
}

static int tok_u(line *l, unsigned long long max, unsigned long long *v)
{
    char buf[32];
    if (!tok(l, buf, sizeof buf) || !isdigit((unsigned char)buf[0])) return 0;
    char *e;
    errno = 0;
    unsigned long long x = strtoull(buf, &e, 10);
    if (*e != '\0' || errno != 0 || x > max) return 0;
    *v = x;
    return 1;
}

static int tok_str(line *l, cutec_kdesc *d, cutec_kd_str *s)
{
    char buf[512];
    return tok(l, buf, sizeof buf) && cutec_kdesc_intern(d, buf, s) == 0;
}

static int at_end(line *l)
{
    while (l->p < l->end && (*l->p == ' ' || *l->p == '\t')) l->p++;
    return l->p == l->end;
}

static int read_arg(line *l, cutec_kdesc *d, char *why, size_t wl)
{
    unsigned long long idx, v;
    char kind[16], type[16], flag[16];
    if (d->nargs == CUTEC_KD_MAX_ARGS) return fail(why, wl, "more than %d cutec.arg lines", CUTEC_KD_MAX_ARGS);
    if (!tok_u(l, CUTEC_KD_MAX_ARGS - 1, &idx) || idx != (unsigned long long)d->nargs)
        return fail(why, wl, "cutec.arg lines out of order (expected index %d)", d->nargs);
    cutec_kd_arg *a = &d->args[d->nargs];
    memset(a, 0, sizeof *a);
    if (!tok_str(l, d, &a->name) || !tok(l, kind, sizeof kind))
        return fail(why, wl, "malformed cutec.arg %d (want: arg INDEX NAME KIND ...)", d->nargs);
    if (strcmp(kind, "scalar") == 0 || strcmp(kind, "tensor") == 0) {
        a->kind = kind[0] == 's' ? CUTEC_KD_SCALAR : CUTEC_KD_TENSOR;
        if (!tok(l, type, sizeof type) || (a->dtype = cutec_dtype_from_name(type, strlen(type))) == CUTEC_CT_NONE)
            return fail(why, wl, "cutec.arg %d: missing or unknown element type", d->nargs);
        if (a->kind == CUTEC_KD_TENSOR) {
            if (!tok_is(l, "rank") || !tok_u(l, CUTEC_KD_MAX_RANK, &v) || v == 0 || !tok_is(l, "shape"))
                return fail(why, wl, "cutec.arg %d: want 'rank R shape ...' (R 1 .. %d)", d->nargs, CUTEC_KD_MAX_RANK);
            a->rank = (int)v;
            for (int m = 0; m < a->rank; m++)
                if (!tok_str(l, d, &a->shape[m])) return fail(why, wl, "cutec.arg %d: shape", d->nargs);
            if (!tok_is(l, "stride")) return fail(why, wl, "cutec.arg %d: want 'stride'", d->nargs);
            for (int m = 0; m < a->rank; m++)
                if (!tok_str(l, d, &a->stride[m])) return fail(why, wl, "cutec.arg %d: stride", d->nargs);
            if (!tok_is(l, "align") || !tok_u(l, 256, &v))
                return fail(why, wl, "cutec.arg %d: want 'align BYTES'", d->nargs);
            a->align = (int)v;
        }
    } else if (strcmp(kind, "tma") == 0) {
        a->kind = CUTEC_KD_TMA;
        if (!tok_u(l, CUTEC_KD_MAX_ARGS - 1, &v))
            return fail(why, wl, "cutec.arg %d: want 'tma TENSOR_INDEX'", d->nargs);
        a->tensor = (int)v;
        if (!tok_is(l, "rank") || !tok_u(l, CUTEC_KD_MAX_TMA_RANK, &v) || v == 0 || !tok_is(l, "dims"))
            return fail(why, wl, "cutec.arg %d: want 'rank R dims ...' (R 1 .. %d)", d->nargs, CUTEC_KD_MAX_TMA_RANK);
        a->tma_rank = (int)v;
        for (int m = 0; m < a->tma_rank; m++)
            if (!tok_str(l, d, &a->dims[m])) return fail(why, wl, "cutec.arg %d: dims", d->nargs);
        if (!tok_is(l, "stride")) return fail(why, wl, "cutec.arg %d: want 'stride'", d->nargs);
        for (int m = 1; m < a->tma_rank; m++)
            if (!tok_str(l, d, &a->tstride[m - 1])) return fail(why, wl, "cutec.arg %d: stride", d->nargs);
        if (!tok_is(l, "box")) return fail(why, wl, "cutec.arg %d: want 'box'", d->nargs);
        for (int m = 0; m < a->tma_rank; m++) {
            if (!tok_u(l, 256, &v)) return fail(why, wl, "cutec.arg %d: box", d->nargs);
            a->box[m] = (unsigned)v;
        }
        if (!tok_is(l, "swizzle") || !tok_u(l, 128, &v))
            return fail(why, wl, "cutec.arg %d: want 'swizzle BYTES'", d->nargs);
        a->swizzle = (int)v;
    } else {
        return fail(why, wl, "cutec.arg %d: unknown kind '%s'", d->nargs, kind);
    }
    while (!at_end(l)) {
        if (!tok(l, flag, sizeof flag)) return fail(why, wl, "cutec.arg %d: malformed flag", d->nargs);
        if (strcmp(flag, "unused") == 0 && a->kind == CUTEC_KD_TMA) {
            a->unused = 1;
        } else if (strcmp(flag, "role") == 0) {
            char r[32];
            int role;
            if (!tok(l, r, sizeof r) || (role = cutec_kd_role_from_name(r, strlen(r))) < 0)
                return fail(why, wl, "cutec.arg %d: unknown role", d->nargs);
            a->role = (cutec_kd_role)role;
        } else {
            return fail(why, wl, "cutec.arg %d: unknown flag '%s'", d->nargs, flag);
        }
    }
    d->nargs++;
    return 0;
}

/* TMA maps take their element type from their tensor, which may come later. */
static void resolve_tma(cutec_kdesc *d)
{
    for (int i = 0; i < d->nargs; i++) {
        cutec_kd_arg *a = &d->args[i];
        if (a->kind == CUTEC_KD_TMA && a->tensor >= 0 && a->tensor < d->nargs) a->dtype = d->args[a->tensor].dtype;
    }
}

static int read_line(line *l, const char *key, cutec_kdesc *d, char *why, size_t wl)
{
    unsigned long long v;
    if (strcmp(key, "contract") == 0) {
        if (!tok_u(l, 1000000, &v)) return fail(why, wl, "malformed cutec.contract line");
        d->version = (int)v;
        if (v != CUTEC_KDESC_VERSION)
            return fail(why, wl, "contract version %llu; this cutec reads version %d (recompile the kernel)", v,
                        CUTEC_KDESC_VERSION);
    } else if (strcmp(key, "class") == 0) {
        char c[16];
        int cls = tok(l, c, sizeof c) ? cutec_kd_class_from_name(c) : -1;
        if (cls < 0) return fail(why, wl, "malformed cutec.class line (want gemm, epilogue or plain)");
        d->cls = (cutec_kd_class)cls;
    } else if (strcmp(key, "threads") == 0 || strcmp(key, "cluster") == 0) {
        unsigned *dst = key[0] == 't' ? d->threads : d->cluster;
        for (int i = 0; i < 3; i++) {
            if (!tok_u(l, 1024, &v) || v == 0) return fail(why, wl, "malformed cutec.%s line (want X Y Z)", key);
            dst[i] = (unsigned)v;
        }
    } else if (strcmp(key, "smem_static") == 0 || strcmp(key, "smem_dynamic") == 0) {
        if (!tok_u(l, 0x7fffffffull, &v)) return fail(why, wl, "malformed cutec.%s line", key);
        *(key[5] == 's' ? &d->smem_static : &d->smem_dynamic) = (unsigned)v;
    } else if (strcmp(key, "param") == 0) {
        if (d->nparams == CUTEC_KD_MAX_PARAMS)
            return fail(why, wl, "more than %d cutec.param lines", CUTEC_KD_MAX_PARAMS);
        if (!tok_str(l, d, &d->pname[d->nparams]) || !tok_str(l, d, &d->pvalue[d->nparams]))
            return fail(why, wl, "malformed cutec.param line");
        d->nparams++;
    } else if (strcmp(key, "arg") == 0) {
        return read_arg(l, d, why, wl);
    } else if (strcmp(key, "grid") == 0) {
        for (int i = 0; i < 3; i++)
            if (!tok_str(l, d, &d->grid[i])) return fail(why, wl, "malformed cutec.grid line (want three expressions)");
        d->has_grid = 1;
    } else if (strcmp(key, "require") == 0) {
        if (d->nrequires == CUTEC_KD_MAX_REQUIRES)
            return fail(why, wl, "more than %d cutec.require lines", CUTEC_KD_MAX_REQUIRES);
        if (!tok_str(l, d, &d->requires[d->nrequires])) return fail(why, wl, "malformed cutec.require line");
        d->nrequires++;
    } else if (strcmp(key, "act") == 0) {
        char g[8];
        if (d->act != 0 || !tok_str(l, d, &d->act) || d->act == 0) return fail(why, wl, "malformed cutec.act line");
        if (tok(l, g, sizeof g)) {
            if (strcmp(g, "gated") != 0) return fail(why, wl, "cutec.act line: unknown flag '%s'", g);
            d->gated = 1;
        }
    } else {
        return fail(why, wl, "unknown line cutec.%s", key);
    }
    if (!at_end(l)) return fail(why, wl, "cutec.%s line: unexpected text at its end", key);
    return 0;
}

int cutec_kdesc_read(const char *text, size_t len, cutec_kdesc *d, char *why, size_t why_len)
{
    static const char prefix[] = "// cutec.";
    const size_t plen = sizeof prefix - 1;
    cutec_kdesc_init(d, "");
    d->version = 0; /* until the contract line says */
    int blocks = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        line l = {p, eol ? eol : end};
        p = eol ? eol + 1 : end;
        while (l.end > l.p && (l.end[-1] == '\r' || l.end[-1] == ' ' || l.end[-1] == '\t')) l.end--;
        if ((size_t)(l.end - l.p) <= plen || memcmp(l.p, prefix, plen) != 0) continue;
        l.p += plen;
        char key[32];
        if (!tok(&l, key, sizeof key)) return fail(why, why_len, "malformed '// cutec.' line");
        if (strcmp(key, "kernel") == 0) {
            if (blocks++ > 0) break; /* the first description only */
            if (!tok(&l, d->kernel, sizeof d->kernel) || !at_end(&l))
                return fail(why, why_len, "malformed cutec.kernel line");
            continue;
        }
        if (blocks == 0) return fail(why, why_len, "cutec.%s before cutec.kernel", key);
        if (strcmp(key, "contract") != 0 && d->version == 0)
            return fail(why, why_len,
                        "kernel '%s': no cutec.contract line after cutec.kernel (a description "
                        "older than contract version %d: recompile the kernel)",
                        d->kernel, CUTEC_KDESC_VERSION);
        char sub[256];
        if (read_line(&l, key, d, sub, sizeof sub) != 0) return fail(why, why_len, "kernel '%s': %s", d->kernel, sub);
    }
    if (blocks == 0) return fail(why, why_len, "no cutec.kernel line");
    if (d->version == 0)
        return fail(why, why_len, "kernel '%s': no cutec.contract line (recompile the kernel)", d->kernel);
    resolve_tma(d);
    char sub[256];
    if (cutec_kdesc_check(d, sub, sizeof sub) != 0) return fail(why, why_len, "kernel '%s': %s", d->kernel, sub);
    return 0;
}

int cutec_kdesc_read_kernel(const char *text, size_t len, const char *kernel, cutec_kdesc *d, char *why, size_t why_len)
{
    static const char prefix[] = "// cutec.kernel ";
    const size_t plen = sizeof prefix - 1, klen = strlen(kernel);
    for (const char *p = text, *end = text + len; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end;
        while (le > p && (le[-1] == '\r' || le[-1] == ' ' || le[-1] == '\t')) le--;
        if ((size_t)(le - p) == plen + klen && memcmp(p, prefix, plen) == 0 && memcmp(p + plen, kernel, klen) == 0)
            return cutec_kdesc_read(p, (size_t)(end - p), d, why, why_len);
        p = eol ? eol + 1 : end;
    }
    return fail(why, why_len, "no description of kernel '%s'", kernel);
}
