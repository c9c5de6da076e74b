/*
 * gemm_bind.c - a GEMM problem bound to a kernel's contract: whether a pack
 * kernel can compute the problem, and the kernel's arguments for a call.
 * Everything comes from the kernel's description (contract/kdesc.h): the
 * role of each argument, its element type, the layout its tensors are read
 * with (shape and stride expressions, evaluated for the problem and
 * compared with the problem's own), alignment, conditions, tensor maps and
 * the grid rule.  No parameter name, layout or element size is assumed.
 * Adding a role the problem can supply is one case in role_int or
 * role_matrix (and role_ptr, role_align); an epilogue input the kernel
 * must read, a row of dsl_unfit's inputs.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gemm_internal.h"

/* The problem's value of an integer role; 0 and *v, or -1 when the
 * problem has none.  n is the GEMM's width (B's rows; twice D's columns
 * with a gated activation). */
static int role_int(const cutec_gemm_problem *p, cutec_kd_role r, long long *v)
{
    switch (r) {
    case CUTEC_ROLE_M: *v = p->m; return 0;
    case CUTEC_ROLE_N: *v = p->n; return 0;
    case CUTEC_ROLE_K: *v = p->k; return 0;
    case CUTEC_ROLE_LDA: *v = p->lda; return 0;
    case CUTEC_ROLE_LDB: *v = p->ldb; return 0;
    case CUTEC_ROLE_LDC: *v = p->c_source ? p->ld_csrc : p->ldc; return 0; /* in place, C is D */
    case CUTEC_ROLE_LDD: *v = p->ldc; return 0;
    /* one problem: batch 1, the strides each matrix's packed step (gemm.c);
     * grouped, the batch is the groups (B's matrices) */
    case CUTEC_ROLE_BATCH: *v = p->groups > 0 ? p->groups : p->batch; return 0;
    case CUTEC_ROLE_STRIDE_A: *v = p->stride_a; return 0;
    case CUTEC_ROLE_STRIDE_B: *v = p->stride_b; return 0;
    case CUTEC_ROLE_STRIDE_C: *v = p->stride_c; return 0;
    case CUTEC_ROLE_STRIDE_D: *v = p->stride_d; return 0;
    default: return -1;
    }
}

/* The problem's tensor of a role: its rank, extents and strides in the
 * role's index order (A (m, k), B (n, k), C, D and aux (m, n), bias (n),
 * bias_row (m)), element type and a description; -1 when the problem
 * supplies none.  The problem's B is K x N, so its row-major form steps 1
 * along n.  A, B, C and D are of rank 3 in a batch, their third mode the
 * problem (extent batch, step the role's stride), and for a kernel that
 * reads them so (rank 3) also for one problem (a batch of one).  Grouped,
 * B's third mode is the groups (extent groups, step stride_b) and A's, C's
 * and D's is of extent 1: one matrix, its rows split by group_ends, which
 * is a rank-1 int32 tensor of one end per group. */
typedef struct role_tensor {
    int rank;
    long long ext[3], str[3];
    cutec_dtype t;
    const char *what;
} role_tensor;

static int role_matrix(const cutec_gemm_problem *p, const gemm_class *cls, cutec_kd_role r, int kernel_rank,
                       role_tensor *o)
{
    int row;
    long long ld, step = 0;
    o->rank = 2;
    switch (r) {
    case CUTEC_ROLE_A:
        o->ext[0] = p->m, o->ext[1] = p->k, row = p->a_layout == CUTEC_LAYOUT_ROW, ld = p->lda, o->t = p->a_type;
        o->what = row ? "A (row-major M x K)" : "A (column-major M x K)";
        step = p->stride_a;
        break;
    case CUTEC_ROLE_B:
        o->ext[0] = p->n, o->ext[1] = p->k, row = p->b_layout != CUTEC_LAYOUT_ROW, ld = p->ldb, o->t = p->b_type;
        o->what = row ? "B (column-major K x N)" : "B (row-major K x N)";
        step = p->stride_b;
        break;
    case CUTEC_ROLE_C:
        if (p->c_source) {
            o->ext[0] = p->m, o->ext[1] = p->n, row = p->c_layout == CUTEC_LAYOUT_ROW, ld = p->ld_csrc;
            o->t = p->c_type;
            o->what = row ? "C source (row-major M x N)" : "C source (column-major M x N)";
            step = p->stride_c;
            break;
        }
        /* in place, C is D */
        /* fall through */
    case CUTEC_ROLE_D:
        o->ext[0] = p->m, o->ext[1] = cutec_gemm_d_cols(p), row = p->c_layout == CUTEC_LAYOUT_ROW, ld = p->ldc;
        o->t = p->c_type;
        o->what = p->act_gated ? (row ? "D (row-major M x N/2)" : "D (column-major M x N/2)")
                               : (row ? "C (row-major M x N)" : "C (column-major M x N)");
        step = p->stride_d;
        break;
    case CUTEC_ROLE_AUX:
        if (!p->aux) return -1;
        o->ext[0] = p->m, o->ext[1] = p->n, row = p->c_layout == CUTEC_LAYOUT_ROW, ld = p->ld_aux, o->t = p->c_type;
        o->what = row ? "aux (row-major M x N)" : "aux (column-major M x N)";
        break;
    case CUTEC_ROLE_BIAS:
    case CUTEC_ROLE_BIAS_ROW:
        if (!(r == CUTEC_ROLE_BIAS ? p->bias : p->bias_row)) return -1;
        o->rank = 1;
        o->ext[0] = r == CUTEC_ROLE_BIAS ? p->n : p->m, o->ext[1] = 1;
        o->str[0] = 1, o->str[1] = 0;
        o->t = p->bias_type;
        o->what = r == CUTEC_ROLE_BIAS ? "bias (N)" : "bias_row (M)";
        return 0;
    case CUTEC_ROLE_GROUP_ENDS:
        if (p->groups <= 0 || cls->list) return -1;
        o->rank = 1;
        o->ext[0] = p->groups, o->ext[1] = 1;
        o->str[0] = 1, o->str[1] = 0;
        o->t = (cutec_dtype)CUTEC_CT_I32;
        o->what = "group_ends (groups)";
        return 0;
    case CUTEC_ROLE_GROUP_LIST: /* rows of 16 int64, one per problem (cutec_gemm_list_row) */
        if (!cls->list) return -1;
        o->ext[0] = CUTEC_GEMM_LIST_ROW, o->ext[1] = p->groups;
        o->str[0] = 1, o->str[1] = CUTEC_GEMM_LIST_ROW;
        o->t = (cutec_dtype)CUTEC_CT_I64;
        o->what = "group_list (16 x groups int64)";
        return 0;
    default: return -1;
    }
    o->str[0] = row ? ld : 1;
    o->str[1] = row ? 1 : ld;
    /* a batch's third mode; a kernel's matrix of rank 2 is every problem's
     * own only where the problem broadcasts it (step 0) */
    long long l = p->groups > 0 ? (r == CUTEC_ROLE_B && !cls->list ? p->groups : 1) : p->batch;
    if (r != CUTEC_ROLE_AUX && (kernel_rank == 3 || (l > 1 && step != 0))) {
        o->rank = 3;
        o->ext[2] = l, o->str[2] = step;
    }
    return 0;
}

/* The call's pointer of a tensor role (C is D in place: io says so). */
static const void *role_ptr(const cutec_gemm_args *io, cutec_kd_role r)
{
    switch (r) {
    case CUTEC_ROLE_A: return io->A;
    case CUTEC_ROLE_B: return io->B;
    case CUTEC_ROLE_C: return io->C;
    case CUTEC_ROLE_BIAS: return io->bias;
    case CUTEC_ROLE_BIAS_ROW: return io->bias_row;
    case CUTEC_ROLE_AUX: return io->aux;
    case CUTEC_ROLE_SCALE_A: return io->scale_a;
    case CUTEC_ROLE_SCALE_B: return io->scale_b;
    case CUTEC_ROLE_SCALE_D: return io->scale_d;
    case CUTEC_ROLE_AMAX: return io->amax;
    case CUTEC_ROLE_GROUP_ENDS: return io->group_ends;
    case CUTEC_ROLE_GROUP_LIST: return io->group_list;
    default: return io->D;
    }
}

/* The largest power of two dividing the address, at most 16: problem
 * classes (and cache keys) tell pointers apart up to 16-byte alignment, as
 * vector loads and TMA need; a kernel that declares more is not served. */
int cutec_gemm_ptr_align(const void *ptr)
{
    uintptr_t u = (uintptr_t)ptr;
    int a = 1;
    while (a < 16 && u % (uintptr_t)(2 * a) == 0) a *= 2;
    return a;
}

static int role_align(const gemm_class *cls, cutec_kd_role r)
{
    switch (r) {
    case CUTEC_ROLE_A: return cls->align[0];
    case CUTEC_ROLE_B: return cls->align[1];
    case CUTEC_ROLE_C: return cls->c_source ? cls->align_epi[0] : cls->align[2];
    case CUTEC_ROLE_BIAS: return cls->align_epi[1];
    case CUTEC_ROLE_BIAS_ROW: return cls->align_epi[2];
    case CUTEC_ROLE_AUX: return cls->align_epi[3];
    case CUTEC_ROLE_SCALE_A:
    case CUTEC_ROLE_SCALE_B:
    case CUTEC_ROLE_SCALE_D:
    case CUTEC_ROLE_AMAX:
    case CUTEC_ROLE_GROUP_ENDS: return 4;  /* f32 and int32 pointers, checked aligned (gemm.c) */
    case CUTEC_ROLE_GROUP_LIST: return 16; /* checked so (gemm.c) */
    default: return cls->align[2];
    }
}

/* The values the description's expressions see: every integer argument
 * with a role the problem gives. */
void cutec_gemm_kd_values(const cutec_kdesc *d, const cutec_gemm_problem *p, cutec_kd_values *vals)
{
    memset(vals, 0, sizeof *vals);
    for (int i = 0; i < d->nargs; i++)
        vals->set[i] = d->args[i].kind == CUTEC_KD_SCALAR && role_int(p, d->args[i].role, &vals->v[i]) == 0;
}

static const char *unfit(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static const char *unfit(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return why;
}

/* The scales' layouts (cutec_scale_mode): what role r (scale_a, scale_b,
 * scale_d or amax) holds for p, as extents and strides; -1 when p has no
 * such tensor.  A mode of one element has no step, so a per-tensor scale
 * of shape 1 or (1, 1) and a row-wise one of shape m or (m, 1) both match. */
static int scale_layout(const cutec_gemm_problem *p, cutec_kd_role r, long long ext[2], long long str[2])
{
    long long kb = (p->k + 127) / 128;
    int fp8_out = cutec_dtype_is_fp8(p->c_type);
    ext[1] = 1, str[1] = 1, str[0] = 1;
    switch (r) {
    case CUTEC_ROLE_SCALE_D:
    case CUTEC_ROLE_AMAX: ext[0] = 1; return fp8_out ? 0 : -1;
    case CUTEC_ROLE_SCALE_A:
    case CUTEC_ROLE_SCALE_B: break;
    default: return -1;
    }
    int a = r == CUTEC_ROLE_SCALE_A;
    switch (p->scale_mode) {
    case CUTEC_SCALE_TENSOR: ext[0] = 1; return 0;
    case CUTEC_SCALE_ROW: ext[0] = a ? p->m : p->n; return 0;
    case CUTEC_SCALE_BLOCK:
        ext[0] = a ? p->m : (p->n + 127) / 128, ext[1] = kb;
        str[0] = a ? 1 : kb, str[1] = a ? p->m : 1;
        return 0;
    default: return -1;
    }
}

static const char *scale_unfit(const cutec_kdesc *d, const cutec_kd_arg *a, const cutec_gemm_problem *p,
                               const cutec_kd_values *vals, char *why, size_t len);

long long cutec_gemm_scale_count(const cutec_gemm_problem *p, cutec_kd_role r)
{
    long long ext[2], str[2];
    return scale_layout(p, r, ext, str) == 0 ? ext[0] * ext[1] : 0;
}

/* Whether argument a's tensor reads the problem's matrix as it is stored. */
static const char *tensor_unfit(const cutec_kdesc *d, const cutec_kd_arg *a, const cutec_gemm_problem *p,
                                const gemm_class *cls, const cutec_kd_values *vals, char *why, size_t len)
{
    long long got[4];
    role_tensor o;
    const char *an = cutec_kd_s(d, a->name), *rn = cutec_kd_role_name(a->role);
    if (a->role == CUTEC_ROLE_SCALE_A || a->role == CUTEC_ROLE_SCALE_B || a->role == CUTEC_ROLE_SCALE_D ||
        a->role == CUTEC_ROLE_AMAX)
        return scale_unfit(d, a, p, vals, why, len);
    if (role_matrix(p, cls, a->role, a->rank, &o) != 0)
        return unfit(why, len, "argument '%s' has role %s (%s), which cutec_gemm's problem does not supply", an, rn,
                     cutec_kd_role_what(a->role));
    if ((int)a->dtype != (int)o.t)
        return unfit(why, len, "'%s' (role %s) is %s in the kernel, %s in the problem", an, rn,
                     cutec_dtype_str(a->dtype), cutec_dtype_str((cutec_ct)o.t));
    if (a->rank != o.rank)
        return unfit(why, len, "'%s' (role %s) has rank %d in the kernel; the problem's %s has rank %d", an, rn,
                     a->rank, o.what, o.rank);
    char sub[200];
    for (int m = 0; m < o.rank && m < 2; m++)
        if (cutec_kdesc_eval(d, a->shape[m], vals, &got[m], sub, sizeof sub) != 0 ||
            cutec_kdesc_eval(d, a->stride[m], vals, &got[2 + m], sub, sizeof sub) != 0)
            return unfit(why, len, "the layout of '%s' cannot be evaluated for this problem: %s", an, sub);
    if (o.rank == 1) {
        if (got[0] != o.ext[0] || (o.ext[0] != 1 && got[2] != 1))
            return unfit(why, len,
                         "'%s' (role %s) is read as (%s):(%s) = (%lld):(%lld); the problem's %s is (%lld):(1)", an, rn,
                         cutec_kd_s(d, a->shape[0]), cutec_kd_s(d, a->stride[0]), got[0], got[2], o.what, o.ext[0]);
    } else if (o.rank == 2) {
        int same = got[0] == o.ext[0] && got[1] == o.ext[1];
        for (int m = 0; m < 2 && same; m++)
            same = o.ext[m] == 1 || got[2 + m] == o.str[m]; /* a mode of one element has no step */
        if (!same)
            return unfit(why, len,
                         "'%s' (role %s) is read as (%s,%s):(%s,%s) = (%lld,%lld):(%lld,%lld); the problem's %s, ld "
                         "%lld, is (%lld,%lld):(%lld,%lld)",
                         an, rn, cutec_kd_s(d, a->shape[0]), cutec_kd_s(d, a->shape[1]), cutec_kd_s(d, a->stride[0]),
                         cutec_kd_s(d, a->stride[1]), got[0], got[1], got[2], got[3], o.what,
                         o.str[0] == 1 ? o.str[1] : o.str[0], o.ext[0], o.ext[1], o.str[0], o.str[1]);
    } else {
        long long g3[6];
        int same = 1;
        for (int m = 0; m < 3; m++)
            if (cutec_kdesc_eval(d, a->shape[m], vals, &g3[m], sub, sizeof sub) != 0 ||
                cutec_kdesc_eval(d, a->stride[m], vals, &g3[3 + m], sub, sizeof sub) != 0)
                return unfit(why, len, "the layout of '%s' cannot be evaluated for this problem: %s", an, sub);
        for (int m = 0; m < 3 && same; m++) same = g3[m] == o.ext[m] && (o.ext[m] == 1 || g3[3 + m] == o.str[m]);
        if (!same)
            return unfit(why, len,
                         "'%s' (role %s) is read as (%s,%s,%s):(%s,%s,%s) = (%lld,%lld,%lld):(%lld,%lld,%lld); the "
                         "problem's batch of %lld %s is (%lld,%lld,%lld):(%lld,%lld,%lld)",
                         an, rn, cutec_kd_s(d, a->shape[0]), cutec_kd_s(d, a->shape[1]), cutec_kd_s(d, a->shape[2]),
                         cutec_kd_s(d, a->stride[0]), cutec_kd_s(d, a->stride[1]), cutec_kd_s(d, a->stride[2]), g3[0],
                         g3[1], g3[2], g3[3], g3[4], g3[5], p->batch, o.what, o.ext[0], o.ext[1], o.ext[2], o.str[0],
                         o.str[1], o.str[2]);
    }
    if (role_align(cls, a->role) < a->align)
        return unfit(why, len, "'%s' (role %s) must be %d-byte aligned; the problem's pointer is %d-byte aligned", an,
                     rn, a->align, role_align(cls, a->role));
    return NULL;
}

static const char *scale_unfit(const cutec_kdesc *d, const cutec_kd_arg *a, const cutec_gemm_problem *p,
                               const cutec_kd_values *vals, char *why, size_t len)
{
    static const char *const modes[] = {"none", "per tensor", "row-wise", "block-wise"};
    const char *an = cutec_kd_s(d, a->name), *rn = cutec_kd_role_name(a->role);
    long long ext[2], str[2], got[4] = {1, 1, 1, 1};
    if (scale_layout(p, a->role, ext, str) != 0)
        return unfit(why, len, "argument '%s' has role %s (%s); the problem has %s", an, rn,
                     cutec_kd_role_what(a->role),
                     a->role == CUTEC_ROLE_SCALE_D || a->role == CUTEC_ROLE_AMAX ? "no fp8 output" : "no scales");
    if (a->dtype != CUTEC_CT_F32 || a->rank < 1 || a->rank > 2)
        return unfit(why, len, "'%s' (role %s) is not an f32 tensor of rank 1 or 2", an, rn);
    char sub[200];
    for (int m = 0; m < a->rank; m++)
        if (cutec_kdesc_eval(d, a->shape[m], vals, &got[m], sub, sizeof sub) != 0 ||
            cutec_kdesc_eval(d, a->stride[m], vals, &got[2 + m], sub, sizeof sub) != 0)
            return unfit(why, len, "the layout of '%s' cannot be evaluated for this problem: %s", an, sub);
    int same = got[0] == ext[0] && got[1] == ext[1];
    for (int m = 0; m < 2 && same; m++) same = ext[m] == 1 || got[2 + m] == str[m];
    if (!same)
        return unfit(why, len, "'%s' (role %s) is read as %lld x %lld scales; the problem's %s ones are %lld x %lld",
                     an, rn, got[0], got[1],
                     a->role == CUTEC_ROLE_SCALE_A || a->role == CUTEC_ROLE_SCALE_B ? modes[p->scale_mode]
                                                                                    : "fp8 output's",
                     ext[0], ext[1]);
    return NULL;
}

/* Whether the kernel's epilogue function is the problem's activation
 * (identity: no cutec.act line, or "identity"). */
static const char *act_unfit(const cutec_kdesc *d, const cutec_gemm_problem *p, char *why, size_t len)
{
    const char *ka = d->act != 0 ? cutec_kd_s(d, d->act) : "";
    if (strcmp(ka, "identity") == 0) ka = "";
    if (strcmp(ka, p->act) == 0 && (d->gated != 0) == (p->act_gated != 0)) return NULL;
    const char *pa = p->act[0] ? p->act : "identity";
    if (ka[0] == '\0')
        return unfit(why, len, "its epilogue applies no activation; the problem asks for '%s'%s", pa,
                     p->act_gated ? " (gated)" : "");
    return unfit(why, len, "its epilogue applies '%s'%s; the problem asks for '%s'%s", ka, d->gated ? " (gated)" : "",
                 pa, p->act_gated ? " (gated)" : "");
}

/* Whether entry i of pack, a kernel of class want, can serve p. */
static const char *bind_unfit(cutec_gemm_handle *g, cutec_pack *pack, int i, const cutec_gemm_problem *p,
                              const gemm_class *cls, cutec_kd_class want, gemm_decision *dec, char *why, size_t len)
{
    const cutec_kdesc *d = &pack->entries[i].desc;
    if (d->cls != want)
        return want == CUTEC_KD_GEMM ? unfit(why, len, "not a GEMM kernel (it has no 'serves gemm' clause)")
                                     : unfit(why, len, "not an elementwise epilogue kernel (no 'serves epilogue')");
    const char *w = act_unfit(d, p, why, len);
    if (w != NULL) return w;
    if (p->scalars_on_device)
        return unfit(why, len, "takes alpha and beta by value; the problem's are in device memory");
    if (p->batch > 1 && cutec_kdesc_role_arg(d, CUTEC_ROLE_BATCH) < 0)
        return unfit(why, len, "a batched problem (batch %lld) needs a kernel with a batch role", p->batch);
    int has_list = cutec_kdesc_role_arg(d, CUTEC_ROLE_GROUP_LIST) >= 0;
    if (cls->list && !has_list)
        return unfit(why, len, "a list of problems (groups %lld) needs a kernel with a group_list role", p->groups);
    if (!cls->list && has_list)
        return unfit(why, len, "a kernel with a group_list role serves lists of problems only (args' group_list)");
    if (p->groups > 0 && !cls->list && cutec_kdesc_role_arg(d, CUTEC_ROLE_GROUP_ENDS) < 0)
        return unfit(why, len, "a grouped problem (groups %lld) needs a kernel with a group_ends role", p->groups);
    cutec_kd_values vals;
    cutec_gemm_kd_values(d, p, &vals);
    int has_alpha = 0, has_beta = 0, has_c = 0, has_tma = 0, has[CUTEC_ROLE_COUNT] = {0};
    long long scratch[2] = {0, 0}; /* bytes of flags, of workspace */
    for (int a = 0; a < d->nargs; a++) {
        const cutec_kd_arg *arg = &d->args[a];
        const char *an = cutec_kd_s(d, arg->name);
        has[arg->role] = 1;
        switch (cutec_kd_role_value(arg->role)) {
        case CUTEC_KD_VALUE_INT: {
            long long v;
            if (role_int(p, arg->role, &v) != 0)
                return unfit(why, len, "argument '%s' has role %s (%s), which cutec_gemm's problem does not supply", an,
                             cutec_kd_role_name(arg->role), cutec_kd_role_what(arg->role));
            const cutec_dtype_info *t = cutec_dtype_info_of(arg->dtype);
            long long max =
                t->bytes >= 8 ? INT64_MAX : (long long)(((unsigned long long)1 << (8 * t->bytes - t->is_signed)) - 1);
            if (v > max)
                return unfit(why, len, "'%s' (role %s) = %lld does not fit the kernel's %s", an,
                             cutec_kd_role_name(arg->role), v, t->name);
            break;
        }
        case CUTEC_KD_VALUE_FLOAT:
            has_alpha |= arg->role == CUTEC_ROLE_ALPHA;
            has_beta |= arg->role == CUTEC_ROLE_BETA;
            break;
        case CUTEC_KD_VALUE_TENSOR:
            if (arg->role == CUTEC_ROLE_FLAGS || arg->role == CUTEC_ROLE_WORKSPACE) {
                long long b;
                if (cutec_kdesc_tensor_bytes(d, a, &vals, &b, why, len) != 0) return why;
                if (arg->role == CUTEC_ROLE_FLAGS && cutec_dtype_info_of(arg->dtype)->bytes != 4)
                    return unfit(why, len, "'%s' (role flags) must have 32-bit elements, not %s", an,
                                 cutec_dtype_str(arg->dtype));
                scratch[arg->role == CUTEC_ROLE_WORKSPACE] += b;
                /* the workspace starts 256-byte aligned in the handle's: only
                 * its base can fall short (a list's map slots need 128) */
                if (arg->role == CUTEC_ROLE_WORKSPACE && arg->align > 16 && g->workspace % (CUdeviceptr)arg->align != 0)
                    return unfit(why, len,
                                 "'%s' (role workspace) must be %d-byte aligned; the handle's workspace is "
                                 "not (cutec_gemm_set_workspace)",
                                 an, arg->align);
                break;
            }
            has_c |= arg->role == CUTEC_ROLE_C;
            if ((w = tensor_unfit(d, arg, p, cls, &vals, why, len)) != NULL) return w;
            break;
        default: has_tma |= arg->kind == CUTEC_KD_TMA; break;
        }
    }
    if (want == CUTEC_KD_EPILOGUE && (has_alpha || has_beta))
        return unfit(why, len, "an elementwise epilogue kernel with alpha or beta (the GEMM before it scales)");
    if (!has_alpha && !cls->alpha_one) return unfit(why, len, "computes alpha = 1 only (no argument of role alpha)");
    /* the clamp: both bounds, where the problem clamps and only there */
    int bounds = has[CUTEC_ROLE_CLAMP_LO] + has[CUTEC_ROLE_CLAMP_HI];
    if (bounds == 1) return unfit(why, len, "has one bound of a clamp (roles clamp_lo and clamp_hi come together)");
    if (p->clamp && bounds == 0)
        return unfit(why, len,
                     "applies no clamp (no arguments of roles clamp_lo and clamp_hi); the problem has a clamp");
    if (!p->clamp && bounds == 2)
        return unfit(why, len,
                     "clamps its output (arguments of roles clamp_lo and clamp_hi); the problem has no clamp");
    if ((!has_beta || !has_c) && !cls->beta_zero)
        return unfit(why, len, "computes beta = 0 only (no arguments of roles beta and c)");
    /* every input of the problem's epilogue is one the kernel reads (a
     * kernel's own epilogue roles were checked above: the problem supplies
     * them) */
    static const struct {
        cutec_kd_role role;
        size_t flag; /* its int in the problem */
        const char *what;
    } inputs[] = {{CUTEC_ROLE_BIAS, offsetof(cutec_gemm_problem, bias), "adds no bias per column"},
                  {CUTEC_ROLE_BIAS_ROW, offsetof(cutec_gemm_problem, bias_row), "adds no bias per row"},
                  {CUTEC_ROLE_AUX, offsetof(cutec_gemm_problem, aux), "writes no pre-activation"},
                  {CUTEC_ROLE_SCALE_A, offsetof(cutec_gemm_problem, scale_mode), "applies no scales"}};
    for (size_t q = 0; q < sizeof inputs / sizeof inputs[0]; q++) {
        int asked;
        memcpy(&asked, (const char *)p + inputs[q].flag, sizeof asked);
        if (asked && !has[inputs[q].role])
            return unfit(why, len, "%s (no argument of role %s); the problem has %s", inputs[q].what,
                         cutec_kd_role_name(inputs[q].role), cutec_kd_role_name(inputs[q].role));
    }
    char sub[200];
    for (int r = 0; r < d->nrequires; r++) {
        long long v;
        if (cutec_kdesc_eval(d, d->requires[r], &vals, &v, sub, sizeof sub) != 0)
            return unfit(why, len, "its condition %s cannot be evaluated: %s", cutec_kd_s(d, d->requires[r]), sub);
        if (v == 0)
            return unfit(why, len, "its condition %s does not hold for M=%lld N=%lld K=%lld",
                         cutec_kd_s(d, d->requires[r]), p->m, p->n, p->k);
    }
    if (d->threads[0] == 0) return unfit(why, len, "the kernel declares no threads()");
    if (g->smem_optin > 0 && (long long)d->smem_dynamic + d->smem_static > (long long)g->smem_optin)
        return unfit(why, len, "needs %u bytes of shared memory; the device allows %d per block",
                     d->smem_dynamic + d->smem_static, g->smem_optin);
    unsigned grid[3];
    if (cutec_kdesc_grid(d, &vals, grid, sub, sizeof sub) != 0) return unfit(why, len, "%s", sub);
    if (has_tma && g->cc_major < 9) return unfit(why, len, "uses TMA, which needs compute capability 9.0");
    if (cutec_rt_kdesc_maps_unfit(d, &vals, sub, sizeof sub) != NULL) return unfit(why, len, "%s", sub);
    /* the flags first, the rest 256-byte aligned after them */
    size_t scratch_off = ((size_t)scratch[0] + 255) / 256 * 256;
    size_t scratch_need = scratch[1] > 0 ? scratch_off + (size_t)scratch[1] : (size_t)scratch[0];
    size_t have = g->workspace != 0 ? g->workspace_bytes : CUTEC_DEFAULT_WORKSPACE;
    if (scratch_need > have)
        return unfit(why, len, "needs %zu bytes of workspace; the handle's is %zu (cutec_gemm_set_workspace)",
                     scratch_need, have);
    if (dec != NULL) {
        memset(dec, 0, sizeof *dec);
        dec->kind = DECISION_DSL;
        dec->pack = pack;
        dec->entry = i;
        memcpy(dec->launch.grid, grid, sizeof grid);
        memcpy(dec->launch.block, d->threads, sizeof dec->launch.block);
        memcpy(dec->launch.cluster, d->cluster, sizeof dec->launch.cluster);
        dec->launch.smem = d->smem_dynamic;
        dec->cls = *cls;
        dec->flags_bytes = (size_t)scratch[0];
        dec->scratch_off = scratch_off;
        dec->scratch_bytes = scratch_need;
        cutec_kdesc_describe(d, dec->name, sizeof dec->name);
    }
    return NULL;
}

const char *cutec_gemm_dsl_unfit(cutec_gemm_handle *g, cutec_pack *pack, int i, const cutec_gemm_problem *p,
                                 const gemm_class *cls, gemm_decision *dec, char *why, size_t len)
{
    return bind_unfit(g, pack, i, p, cls, CUTEC_KD_GEMM, dec, why, len);
}

void cutec_gemm_ew_split(const cutec_gemm_problem *p, const gemm_class *cls, cutec_gemm_problem *gemm,
                         cutec_gemm_problem *ew, gemm_class *ew_cls)
{
    long long ld_x = p->c_layout == CUTEC_LAYOUT_ROW ? p->n : p->m;
    int reads_c = p->c_source || p->scalars_on_device || p->beta != 0.0f;
    *gemm = *p;
    memset(gemm->act, 0, sizeof gemm->act);
    gemm->act_gated = gemm->bias = gemm->bias_row = gemm->aux = gemm->clamp = 0; /* the elementwise kernel's */
    gemm->ldc = ld_x;
    gemm->c_source = reads_c;
    gemm->ld_csrc = p->c_source ? p->ld_csrc : reads_c ? p->ldc : 0;
    *ew = *p;
    ew->c_source = 1;
    ew->ld_csrc = ld_x;
    ew->alpha = 1.0f, ew->beta = 1.0f, ew->scalars_on_device = 0;
    ew->scale_mode = CUTEC_SCALE_NONE; /* the GEMM before it scales */
    *ew_cls = *cls;
    ew_cls->c_source = 1;
    ew_cls->ld_csrc = ld_x;
    ew_cls->align_epi[0] = 16; /* x: from cuMemAlloc */
    ew_cls->alpha_one = ew_cls->beta_zero = 1;
    ew_cls->scalars_on_device = 0;
}

size_t cutec_gemm_ew_x_bytes(const cutec_gemm_problem *p)
{
    return (size_t)p->m * (size_t)p->n * cutec_dtype_size(p->c_type);
}

const char *cutec_gemm_ew_unfit(cutec_gemm_handle *g, cutec_pack *pack, int i, const cutec_gemm_problem *p,
                                const gemm_class *cls, gemm_decision *dec, char *why, size_t len)
{
    cutec_gemm_problem gp, ep;
    gemm_class ec;
    cutec_gemm_ew_split(p, cls, &gp, &ep, &ec);
    return bind_unfit(g, pack, i, &ep, &ec, CUTEC_KD_EPILOGUE, dec, why, len);
}

/* The call's value of a float role (alpha, beta: the problem's; the
 * clamp's bounds: the call's). */
static double role_float(const cutec_gemm_problem *p, const cutec_gemm_args *io, cutec_kd_role r)
{
    switch (r) {
    case CUTEC_ROLE_ALPHA: return p->alpha;
    case CUTEC_ROLE_CLAMP_LO: return io->clamp_lo;
    case CUTEC_ROLE_CLAMP_HI: return io->clamp_hi;
    default: return p->beta;
    }
}

/* A scalar argument's bytes from a float role. */
static void store_float(cutec_ct t, void *dst, double v)
{
    if (t == CUTEC_CT_F32) {
        float f = (float)v;
        memcpy(dst, &f, sizeof f);
    } else {
        cutec_dtype_store(t, dst, v);
    }
}

static void store_int(const cutec_dtype_info *t, void *dst, long long v)
{
    int32_t i32 = (int32_t)v;
    int16_t i16 = (int16_t)v;
    int8_t i8 = (int8_t)v;
    switch (t->bytes) {
    case 1: memcpy(dst, &i8, 1); break;
    case 2: memcpy(dst, &i16, 2); break;
    case 4: memcpy(dst, &i32, 4); break;
    default: memcpy(dst, &v, 8); break;
    }
}

cutec_status cutec_gemm_dsl_launch(cutec_runtime *rt, gemm_decision *dec, const cutec_gemm_problem *p,
                                   const cutec_gemm_args *io, CUdeviceptr workspace, void *stream)
{
    const cutec_kdesc *d = &dec->pack->entries[dec->entry].desc;
    void *args[CUTEC_KD_MAX_ARGS];
    cutec_kd_values vals;
    cutec_gemm_kd_values(d, p, &vals);
    /* tensor maps depend on the pointers and sizes: encoded once per pointer
     * while the sizes stay (a cached call encodes none for pointers it saw) */
    long long key[12] = {p->m,     p->n,        p->k,        p->lda,      p->ldb,      p->ldc,
                         p->batch, p->stride_a, p->stride_b, p->stride_c, p->stride_d, p->groups};
    if (memcmp(key, dec->map_key, sizeof key) != 0) {
        memset(dec->maps, 0, sizeof dec->maps);
        memcpy(dec->map_key, key, sizeof key);
    }
    cutec_tensor_map spill[CUTEC_KD_MAX_ARGS]; /* the maps of TMA arguments past CUTEC_GEMM_MAP_ARGS */
    for (int a = 0; a < d->nargs; a++) {
        const cutec_kd_arg *arg = &d->args[a];
        args[a] = &dec->argv[a];
        if (arg->kind == CUTEC_KD_SCALAR) {
            if (cutec_kd_role_value(arg->role) == CUTEC_KD_VALUE_INT)
                store_int(cutec_dtype_info_of(arg->dtype), &dec->argv[a], vals.v[a]);
            else
                store_float(arg->dtype, &dec->argv[a], role_float(p, io, arg->role));
        } else if (arg->role == CUTEC_ROLE_FLAGS) {
            dec->argv[a] = workspace;
        } else if (arg->role == CUTEC_ROLE_WORKSPACE) {
            dec->argv[a] = workspace + dec->scratch_off;
        } else if (arg->kind == CUTEC_KD_TENSOR) {
            dec->argv[a] = (unsigned long long)(uintptr_t)role_ptr(io, arg->role);
        }
    }
    for (int a = 0, t = 0; a < d->nargs; a++) {
        const cutec_kd_arg *arg = &d->args[a];
        if (arg->kind != CUTEC_KD_TMA) continue;
        unsigned long long ptr = dec->argv[arg->tensor];
        struct gemm_maps *m = t < CUTEC_GEMM_MAP_ARGS ? &dec->maps[t++] : NULL;
        cutec_tensor_map *map = &spill[a];
        int w = 0;
        if (m != NULL) {
            while (w < m->n && m->ptr[w] != ptr) w++;
            if (w < m->n) {
                args[a] = &m->map[w];
                continue;
            }
            if (m->n < CUTEC_GEMM_MAP_WAYS) {
                w = m->n++;
            } else {
                w = m->next;
                m->next = (w + 1) % CUTEC_GEMM_MAP_WAYS;
            }
            m->ptr[w] = ptr;
            map = &m->map[w];
        }
        cutec_status s = cutec_rt_kdesc_tensor_map(rt, d, a, &vals, ptr, map);
        if (s != CUTEC_OK) {
            if (m != NULL) memset(m, 0, sizeof *m); /* no way holds a map that failed */
            return s;
        }
        args[a] = map;
    }
    /* A persistent kernel's resident() grid is capped by the blocks the
   * device holds at once, once its kernel is loaded: on the H100 only 30
   * clusters of 4 fit at once, not 132 / 4 (docs/performance.md). */
    if (!dec->grid_resident) {
        cutec_launch_plan plan;
        if (cutec_rt_kdesc_plan(rt, dec->kernel, d, &vals, NULL, &plan) == CUTEC_OK) dec->launch = plan;
        dec->grid_resident = 1;
    }
    /* a stream-K fix-up's flags start at zero in every launch (stream-ordered) */
    if (dec->flags_bytes > 0) {
        if (rt->drv.memset_d8_async == NULL)
            return cutec_rt_fail(rt, CUTEC_ERR_UNSUPPORTED, "%s needs cuMemsetD8Async, which the driver lacks",
                                 dec->name);
        CUresult r = rt->drv.memset_d8_async(workspace, 0, dec->flags_bytes, (CUstream)stream);
        if (r != CUDA_SUCCESS)
            return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_LAUNCH, "cuMemsetD8Async(the flags of %s)", dec->name);
    }
    return cutec_rt_kdesc_launch(dec->kernel, d, &dec->launch, stream, args);
}
