/* layout_core.c: the layout as a function.  Construction with congruence
 * and depth checks, size/cosize, crd2idx and idx2crd (CuTe's
 * colexicographic coordinate maps; they build LayExpr trees when anything is
 * dynamic, which is how the compiler gets its tensor indexing), coalesce
 * (CuTe's right-to-left merge, including the coalesce_x variant composition
 * uses), filter, and small structural helpers (modes, concatenation). */
#include "layout_internal.h"

LayLayout lay_layout_of(LayTuple *shape, LayTuple *stride)
{
    LayLayout l = {.shape = shape, .stride = stride};
    return l;
}

LayLayout lay_layout_int(Arena *a, int64_t s, int64_t d)
{
    return lay_layout_of(lay_tuple_int(a, s), lay_tuple_int(a, d));
}

LayLayout lay_layout_mode(const LayLayout *l, int i)
{
    LayLayout r = {(LayTuple *)lay_tuple_get(l->shape, i), (LayTuple *)lay_tuple_get(l->stride, i)};
    return r;
}

int lay_layout_rank(const LayLayout *l) { return lay_tuple_rank(l->shape); }

LayLayout lay_layout_cat(Arena *a, int n, const LayLayout *ls)
{
    LayTuple *s = lay_tuple_empty(a, n), *d = lay_tuple_empty(a, n);
    for (int i = 0; i < n; i++) {
        s->elems[i] = ls[i].shape;
        d->elems[i] = ls[i].stride;
    }
    return lay_layout_of(s, d);
}

static bool first_bad_leaf(const LayTuple *t, int64_t *bad)
{
    if (t->is_leaf) {
        if (t->leaf.is_static && t->leaf.value <= 0) {
            *bad = t->leaf.value;
            return true;
        }
        return false;
    }
    for (int i = 0; i < t->n; i++)
        if (first_bad_leaf(t->elems[i], bad)) return true;
    return false;
}

bool lay_check_layout(const LayLayout *l, int arg, LayError *err)
{
    if (!lay_tuple_check(l->shape, arg, "shape", err)) return false;
    if (!lay_tuple_check(l->stride, arg, "stride", err)) return false;
    int64_t bad;
    bool congruent = lay_tuple_congruent(l->shape, l->stride);
    if (congruent && !first_bad_leaf(l->shape, &bad)) return true;
    /* only the failure path needs memory, for the message */
    Arena tmp;
    arena_init(&tmp);
    if (!congruent)
        lay_fail(err, arg, "shape %s and stride %s are not congruent", lay_print_tuple(&tmp, l->shape),
                 lay_print_tuple(&tmp, l->stride));
    else
        lay_fail(err, arg, "size must be positive, got %lld (in shape %s)", (long long)bad,
                 lay_print_tuple(&tmp, l->shape));
    arena_free(&tmp);
    return false;
}

bool lay_layout_make(Arena *a, LayTuple *shape, LayTuple *stride, LayLayout *out, LayError *err)
{
    (void)a;
    LayLayout l = lay_layout_of(shape, stride);
    if (!lay_check_layout(&l, -1, err)) return false;
    *out = l;
    return true;
}

bool lay_compact_layout(Arena *a, const LayTuple *shape, LayLayout *out, LayError *err)
{
    LayTuple *d;
    if (!lay_compact_left(a, shape, lay_int_static(1), &d, err)) return false;
    *out = lay_layout_of((LayTuple *)shape, d);
    return true;
}

bool lay_size_e(Arena *a, const LayLayout *l, LayInt *out, LayError *err)
{
    return lay_tuple_product(a, l->shape, out, err);
}

LayInt lay_size(Arena *a, const LayLayout *l)
{
    LayInt r = lay_int_static(0);
    LayError e;
    if (!lay_size_e(a, l, &r, &e)) return lay_int_static(0); /* overflow: callers check via lay_call */
    return r;
}

/* CuTe coshape/cosize: the image of the last coordinate, plus one. */
bool lay_cosize(Arena *a, const LayLayout *l, LayInt *out, LayError *err)
{
    int n;
    LayInt *s = lay_tuple_leaves(a, l->shape, &n);
    LayInt *d = lay_tuple_leaves(a, l->stride, &n);
    LayInt acc = lay_int_static(0);
    for (int i = 0; i < n; i++) {
        LayInt t;
        if (!lay_int_sub(a, s[i], lay_int_static(1), &t)) return lay_fail(err, -1, "value past 64 bits in cosize");
        if (!lay_mul_e(a, t, d[i], &t, "cosize", err)) return false;
        if (!lay_add_e(a, acc, t, &acc, "cosize", err)) return false;
    }
    return lay_add_e(a, acc, lay_int_static(1), out, "cosize", err);
}

/* ---- crd2idx / idx2crd ---- */

bool lay_crd2idx_sd(Arena *a, const LayTuple *crd, const LayTuple *shape, const LayTuple *stride, LayInt *out,
                    LayError *err)
{
    if (!crd->is_leaf) {
        if (shape->is_leaf || crd->n != shape->n)
            return lay_fail(err, 0, "coordinate %s does not match shape %s", lay_print_tuple(a, crd),
                            lay_print_tuple(a, shape));
        LayInt acc = lay_int_static(0);
        for (int i = 0; i < crd->n; i++) {
            LayInt t;
            if (!lay_crd2idx_sd(a, crd->elems[i], shape->elems[i], stride->elems[i], &t, err)) return false;
            if (!lay_add_e(a, acc, t, &acc, "crd2idx", err)) return false;
        }
        *out = acc;
        return true;
    }
    if (shape->is_leaf) return lay_mul_e(a, crd->leaf, stride->leaf, out, "crd2idx", err);
    /* an integer coordinate into a tuple shape: split it colexicographically;
     * the last mode takes the remaining quotient unreduced (as CuTe does) */
    LayInt c = crd->leaf, acc = lay_int_static(0);
    for (int i = 0; i < shape->n; i++) {
        LayInt part = c;
        if (i + 1 < shape->n) {
            LayInt p;
            if (!lay_tuple_product(a, shape->elems[i], &p, err)) return false;
            if (lay_is(p, 0)) return lay_fail(err, 1, "crd2idx: mode of size 0");
            if (!lay_int_mod(a, c, p, &part) || !lay_int_div(a, c, p, &c))
                return lay_fail(err, -1, "value past 64 bits in crd2idx");
        }
        LayInt t;
        if (!lay_crd2idx_sd(a, lay_tuple_leaf(a, part), shape->elems[i], stride->elems[i], &t, err)) return false;
        if (!lay_add_e(a, acc, t, &acc, "crd2idx", err)) return false;
    }
    *out = acc;
    return true;
}

bool lay_crd2idx(Arena *a, const LayTuple *crd, const LayLayout *l, LayInt *out, LayError *err)
{
    if (!lay_tuple_check(crd, 0, "coordinate", err)) return false;
    if (!lay_check_layout(l, 1, err)) return false;
    return lay_crd2idx_sd(a, crd, l->shape, l->stride, out, err);
}

/* The largest power of two that x is known to be a multiple of (capped at
 * 2^62): from constant factors of products and shifts, the common factor of
 * sums.  A runtime symbol contributes 1. */
static int64_t known_pow2(const LayExpr *e)
{
    switch (e->op) {
    case LAY_E_CONST: {
        int64_t v = e->value < 0 ? -e->value : e->value;
        return v == 0 ? (int64_t)1 << 62 : v & -v;
    }
    case LAY_E_MUL: {
        int64_t p = known_pow2(e->a), q = known_pow2(e->b);
        return (p >= (int64_t)1 << 31 || q >= (int64_t)1 << 31) ? (int64_t)1 << 62 : p * q;
    }
    case LAY_E_ADD:
    case LAY_E_SUB: {
        int64_t p = known_pow2(e->a), q = known_pow2(e->b);
        return p < q ? p : q;
    }
    case LAY_E_SHL:
        if (e->b->op == LAY_E_CONST && e->b->value >= 0 && e->b->value < 31) {
            int64_t p = known_pow2(e->a);
            return p >= (int64_t)1 << 31 ? (int64_t)1 << 62 : p << e->b->value;
        }
        return 1;
    default: return 1;
    }
}

bool lay_composed_crd2idx(Arena *a, const LayTuple *crd, const LayComposed *l, LayInt *out, LayError *err)
{
    LayInt x;
    if (!lay_swizzle_check(l->sw, 1, err)) return false;
    if (!lay_crd2idx(a, crd, &l->outer, &x, err)) return false;
    /* A swizzle reads and writes only the bits below 2^(B+M+|S|), so an
     * offset that is a multiple of that period passes through it:
     * sw(offset + x) == offset + sw(x).  Keeping a runtime offset (a pipeline
     * stage, say) outside lets the swizzled part be computed once. */
    int as = l->sw.s < 0 ? -l->sw.s : l->sw.s;
    int64_t period = (int64_t)1 << (l->sw.b + l->sw.m + as);
    if (!lay_add_e(a, l->offset, x, &x, "crd2idx", err)) return false;
    if (x.is_static) return lay_swizzle_apply(a, l->sw, x, out, err);
    /* split the sum into terms that are multiples of the period (they pass
     * through) and the rest (swizzled) */
    const LayExpr *stack[64], *terms[64];
    int sp = 0, nt = 0;
    stack[sp++] = x.expr;
    while (sp > 0) {
        const LayExpr *e = stack[--sp];
        if (e->op == LAY_E_ADD && sp + 2 <= 64) {
            stack[sp++] = e->a;
            stack[sp++] = e->b;
        } else if (nt < 64) {
            terms[nt++] = e;
        } else {
            return lay_swizzle_apply(a, l->sw, x, out, err);
        }
    }
    LayInt hi = lay_int_static(0), lo = lay_int_static(0);
    for (int i = nt - 1; i >= 0; i--) {
        LayInt t = terms[i]->op == LAY_E_CONST ? lay_int_static(terms[i]->value) : (LayInt){.expr = terms[i]};
        bool passes = known_pow2(terms[i]) % period == 0;
        if (!lay_add_e(a, passes ? hi : lo, t, passes ? &hi : &lo, "crd2idx", err)) return false;
    }
    if (!lay_swizzle_apply(a, l->sw, lo, &lo, err)) return false;
    return lay_add_e(a, hi, lo, out, "crd2idx", err);
}

static bool idx2crd_rec(Arena *a, const LayTuple *idx, const LayTuple *shape, LayTuple **out, LayError *err)
{
    if (!idx->is_leaf) {
        if (shape->is_leaf || idx->n != shape->n)
            return lay_fail(err, 0, "index %s does not match shape %s", lay_print_tuple(a, idx),
                            lay_print_tuple(a, shape));
        LayTuple *r = lay_tuple_empty(a, idx->n);
        for (int i = 0; i < idx->n; i++)
            if (!idx2crd_rec(a, idx->elems[i], shape->elems[i], &r->elems[i], err)) return false;
        *out = r;
        return true;
    }
    if (shape->is_leaf) {
        *out = (LayTuple *)idx;
        return true;
    }
    LayTuple *r = lay_tuple_empty(a, shape->n);
    LayInt c = idx->leaf;
    for (int i = 0; i < shape->n; i++) {
        LayInt part = c;
        if (i + 1 < shape->n) {
            LayInt p;
            if (!lay_tuple_product(a, shape->elems[i], &p, err)) return false;
            if (lay_is(p, 0)) return lay_fail(err, 1, "idx2crd: mode of size 0");
            if (!lay_int_mod(a, c, p, &part) || !lay_int_div(a, c, p, &c))
                return lay_fail(err, -1, "value past 64 bits in idx2crd");
        }
        if (!idx2crd_rec(a, lay_tuple_leaf(a, part), shape->elems[i], &r->elems[i], err)) return false;
    }
    *out = r;
    return true;
}

bool lay_idx2crd(Arena *a, LayInt idx, const LayTuple *shape, LayTuple **out, LayError *err)
{
    if (!lay_tuple_check(shape, 1, "shape", err)) return false;
    return idx2crd_rec(a, lay_tuple_leaf(a, idx), shape, out, err);
}

/* Static evaluation for enumerating a domain: the flat colexicographic
 * split, last leaf unreduced (same function as lay_crd2idx on an integer). */
bool lay_eval_static(const LayLayout *l, int64_t idx, int64_t *out)
{
    Arena tmp;
    arena_init(&tmp);
    int n;
    LayInt *s = lay_tuple_leaves(&tmp, l->shape, &n);
    LayInt *d = lay_tuple_leaves(&tmp, l->stride, &n);
    int64_t acc = 0;
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        if (!s[i].is_static || !d[i].is_static || s[i].value <= 0) {
            ok = false;
            break;
        }
        int64_t c = (i + 1 < n) ? idx % s[i].value : idx;
        if (i + 1 < n) idx /= s[i].value;
        int64_t t;
        if (__builtin_mul_overflow(c, d[i].value, &t) || __builtin_add_overflow(acc, t, &acc)) ok = false;
    }
    arena_free(&tmp);
    *out = acc;
    return ok;
}

/* ---- coalesce ---- */

/* Right-to-left merge of a flat layout (CuTe bw_coalesce).  `st` is the
 * stack of produced modes, front (the leftmost so far) at st[k-1].  A mode
 * s:d merges into the front s':d' when d' == s*d, all of it static. */
static bool bw_coalesce(Arena *a, int n, const LayInt *S, const LayInt *D, LayInt s0, LayInt d0, LayLayout *out,
                        LayError *err)
{
    LayInt *ss = ARENA_ARRAY(a, LayInt, n + 1), *dd = ARENA_ARRAY(a, LayInt, n + 1);
    int k = 1;
    ss[0] = s0;
    dd[0] = d0;
    for (int i = n - 2; i >= 0; i--) {
        if (lay_is(S[i], 1)) continue;
        if (k == 1 && lay_is(ss[0], 1)) {
            ss[0] = S[i];
            dd[0] = D[i];
            continue;
        }
        LayInt fs = ss[k - 1], fd = dd[k - 1];
        int64_t prod;
        if (fs.is_static && S[i].is_static && D[i].is_static && fd.is_static &&
            !__builtin_mul_overflow(S[i].value, D[i].value, &prod) && prod == fd.value) {
            if (!lay_mul_e(a, S[i], fs, &ss[k - 1], "coalesce", err)) return false;
            dd[k - 1] = D[i];
        } else {
            ss[k] = S[i];
            dd[k] = D[i];
            k++;
        }
    }
    if (k == 1) {
        if (lay_is(ss[0], 1))
            *out = lay_layout_int(a, 1, 0);
        else
            *out = lay_layout_of(lay_tuple_leaf(a, ss[0]), lay_tuple_leaf(a, dd[0]));
        return true;
    }
    LayTuple *rs = lay_tuple_empty(a, k), *rd = lay_tuple_empty(a, k);
    for (int j = 0; j < k; j++) {
        rs->elems[j] = lay_tuple_leaf(a, ss[k - 1 - j]);
        rd->elems[j] = lay_tuple_leaf(a, dd[k - 1 - j]);
    }
    *out = lay_layout_of(rs, rd);
    return true;
}

static bool coalesce_impl(Arena *a, const LayLayout *l, bool x, LayLayout *out, LayError *err)
{
    int n;
    LayInt *S = lay_tuple_leaves(a, l->shape, &n);
    LayInt *D = lay_tuple_leaves(a, l->stride, &n);
    if (n == 0) {
        *out = lay_layout_int(a, 1, 0);
        return true;
    }
    LayInt s0 = S[n - 1];
    /* coalesce_x keeps a trailing size-1 mode's stride alive as a size-2 mode
     * so the function is preserved outside the domain too */
    if (x && lay_is(s0, 1)) s0 = lay_int_static(2);
    return bw_coalesce(a, n, S, D, s0, D[n - 1], out, err);
}

bool lay_coalesce(Arena *a, const LayLayout *l, LayLayout *out, LayError *err)
{
    return coalesce_impl(a, l, false, out, err);
}

bool lay_coalesce_x(Arena *a, const LayLayout *l, LayLayout *out, LayError *err)
{
    return coalesce_impl(a, l, true, out, err);
}

bool lay_coalesce_profile(Arena *a, const LayLayout *l, const LayTuple *prof, LayLayout *out, LayError *err)
{
    if (prof->is_leaf) return lay_coalesce(a, l, out, err);
    int r = lay_layout_rank(l);
    if (prof->n > r)
        return lay_fail(err, 1, "coalesce: profile %s has more modes than layout %s", lay_print_tuple(a, prof),
                        lay_print_layout(a, l));
    LayLayout *ms = ARENA_ARRAY(a, LayLayout, r);
    for (int i = 0; i < r; i++) {
        LayLayout m = lay_layout_mode(l, i);
        if (i < prof->n) {
            if (!lay_coalesce_profile(a, &m, prof->elems[i], &ms[i], err)) return false;
        } else {
            ms[i] = m;
        }
    }
    *out = lay_layout_cat(a, r, ms);
    return true;
}

static LayTuple *filter_zeros_rec(Arena *a, const LayTuple *s, const LayTuple *d)
{
    if (s->is_leaf) return lay_is(d->leaf, 0) ? lay_tuple_int(a, 1) : (LayTuple *)s;
    LayTuple *r = lay_tuple_empty(a, s->n);
    for (int i = 0; i < s->n; i++) r->elems[i] = filter_zeros_rec(a, s->elems[i], d->elems[i]);
    return r;
}

bool lay_filter_zeros(Arena *a, const LayLayout *l, LayLayout *out, LayError *err)
{
    (void)err;
    *out = lay_layout_of(filter_zeros_rec(a, l->shape, l->stride), l->stride);
    return true;
}

bool lay_filter(Arena *a, const LayLayout *l, LayLayout *out, LayError *err)
{
    LayLayout z;
    return lay_filter_zeros(a, l, &z, err) && lay_coalesce(a, &z, out, err);
}
