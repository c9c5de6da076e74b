/* layout_product.c: logical_product(A, B) = (A, complement(A, size(A)*
 * cosize(B)) o B): mode 0 is A, mode 1 repeats A "B-wise" over the unused
 * codomain.  zipped/tiled/flat variants regroup like the divides;
 * blocked_product and raked_product pad both ranks to the larger one and zip
 * mode i of A with mode i of the repetition (block-major or interleaved);
 * tile_to_shape repeats a block up to a target shape; make_ordered_layout,
 * make_layout_tv, upcast and downcast live here too. */
#include "layout_internal.h"

static bool product_1(Arena *a, const LayLayout *b, const LayLayout *t, LayLayout *out, LayError *err)
{
    LayInt sb, ct, m;
    LayLayout comp, rep, both[2];
    if (!lay_size_e(a, b, &sb, err) || !lay_cosize(a, t, &ct, err)) return false;
    if (!lay_mul_e(a, sb, ct, &m, "logical_product", err)) return false;
    if (!lay_complement(a, b, lay_tuple_leaf(a, m), &comp, err)) return false;
    if (!lay_composition(a, &comp, t, &rep, err)) return false;
    both[0] = *b;
    both[1] = rep;
    *out = lay_layout_cat(a, 2, both);
    return true;
}

bool lay_logical_product(Arena *a, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err)
{
    if (!t->is_tuple) return product_1(a, l, &t->l, out, err);
    int r = lay_layout_rank(l);
    if (t->n > r)
        return lay_fail(err, 1, "logical_product: tiler has %d modes but layout %s has only %d", t->n,
                        lay_print_layout(a, l), r);
    LayLayout *ms = ARENA_ARRAY(a, LayLayout, r);
    for (int i = 0; i < r; i++) {
        LayLayout m = lay_layout_mode(l, i);
        if (i < t->n) {
            if (!lay_logical_product(a, &m, &t->e[i], &ms[i], err)) return false;
        } else {
            ms[i] = m;
        }
    }
    *out = lay_layout_cat(a, r, ms);
    return true;
}

/* same regrouping as the divides: reuse them through a tiny shim */
static bool zip2(Arena *a, const LayTuple *t, const LayTuple *g, LayTuple **out, LayError *err)
{
    if (g->is_leaf) {
        if (t->is_leaf || t->n != 2)
            return lay_fail(err, -1, "zip: expected a rank-2 mode, got %s", lay_print_tuple(a, t));
        *out = (LayTuple *)t;
        return true;
    }
    LayTuple *first = lay_tuple_empty(a, g->n), *second = lay_tuple_empty(a, t->n);
    for (int i = 0; i < g->n; i++) {
        LayTuple *s;
        if (!zip2(a, t->elems[i], g->elems[i], &s, err)) return false;
        first->elems[i] = s->elems[0];
        second->elems[i] = s->elems[1];
    }
    for (int j = g->n; j < t->n; j++) second->elems[j] = t->elems[j];
    LayTuple *r = lay_tuple_empty(a, 2);
    r->elems[0] = first;
    r->elems[1] = second;
    *out = r;
    return true;
}

static int splice_count(const LayTuple *m, bool on) { return (on && !m->is_leaf && m->n != 1) ? m->n : 1; }

bool lay_product_kind(Arena *a, int kind, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err)
{
    LayLayout r;
    if (!lay_logical_product(a, l, t, &r, err)) return false;
    if (kind == 0) {
        *out = r;
        return true;
    }
    LayTuple *g = lay_tiler_guide(a, t), *s, *d;
    if (!zip2(a, r.shape, g, &s, err) || !zip2(a, r.stride, g, &d, err)) return false;
    if (kind == 1) {
        *out = lay_layout_of(s, d);
        return true;
    }
    bool on0 = kind == 3;
    int n = splice_count(s->elems[0], on0) + splice_count(s->elems[1], true);
    LayTuple *rs = lay_tuple_empty(a, n), *rd = lay_tuple_empty(a, n);
    int k = 0;
    for (int i = 0; i < 2; i++) {
        bool on = i == 0 ? on0 : true;
        if (splice_count(s->elems[i], on) > 1 || (on && !s->elems[i]->is_leaf && s->elems[i]->n != 1)) {
            for (int j = 0; j < s->elems[i]->n; j++) {
                rs->elems[k] = s->elems[i]->elems[j];
                rd->elems[k++] = d->elems[i]->elems[j];
            }
        } else {
            rs->elems[k] = s->elems[i];
            rd->elems[k++] = d->elems[i];
        }
    }
    *out = lay_layout_of(rs, rd);
    return true;
}

/* CuTe append<R>(layout): pad with 1:0 modes up to rank R (a leaf layout
 * stays a leaf when R == 1) */
static LayLayout pad_to(Arena *a, const LayLayout *l, int R)
{
    int r = lay_layout_rank(l);
    if (r >= R) return *l;
    LayTuple *s = lay_tuple_empty(a, R), *d = lay_tuple_empty(a, R);
    for (int i = 0; i < R; i++) {
        if (i < r) {
            s->elems[i] = (LayTuple *)lay_tuple_get(l->shape, i);
            d->elems[i] = (LayTuple *)lay_tuple_get(l->stride, i);
        } else {
            s->elems[i] = lay_tuple_int(a, 1);
            d->elems[i] = lay_tuple_int(a, 0);
        }
    }
    return lay_layout_of(s, d);
}

static LayTuple *zip_pair(Arena *a, const LayTuple *x, const LayTuple *y)
{
    if (x->is_leaf || y->is_leaf) {
        LayTuple *r = lay_tuple_empty(a, 2);
        r->elems[0] = (LayTuple *)x;
        r->elems[1] = (LayTuple *)y;
        return r;
    }
    LayTuple *r = lay_tuple_empty(a, x->n);
    for (int i = 0; i < x->n; i++) {
        LayTuple *p = lay_tuple_empty(a, 2);
        p->elems[0] = x->elems[i];
        p->elems[1] = i < y->n ? y->elems[i] : lay_tuple_int(a, 1);
        r->elems[i] = p;
    }
    return r;
}

bool lay_blocked_product(Arena *a, const LayLayout *b, const LayLayout *t, bool raked, LayLayout *out, LayError *err)
{
    int R = lay_layout_rank(b) > lay_layout_rank(t) ? lay_layout_rank(b) : lay_layout_rank(t);
    LayLayout pb = pad_to(a, b, R), pt = pad_to(a, t, R), r;
    if (!product_1(a, &pb, &pt, &r, err)) return false;
    LayLayout m0 = lay_layout_mode(&r, 0), m1 = lay_layout_mode(&r, 1);
    if (!m0.shape->is_leaf && !m1.shape->is_leaf && m0.shape->n != m1.shape->n)
        return lay_fail(err, -1, "blocked_product: ranks do not match after padding");
    const LayLayout *x = raked ? &m1 : &m0, *y = raked ? &m0 : &m1;
    *out = lay_layout_of(zip_pair(a, x->shape, y->shape), zip_pair(a, x->stride, y->stride));
    return true;
}

bool lay_make_ordered_layout(Arena *a, const LayTuple *shape, const LayTuple *order, LayLayout *out, LayError *err)
{
    if (shape->is_leaf) return lay_compact_layout(a, shape, out, err);
    if (!order || order->is_leaf || order->n != shape->n)
        return lay_fail(err, 1, "make_ordered_layout: order %s must have the rank of shape %s",
                        order ? lay_print_tuple(a, order) : "?", lay_print_tuple(a, shape));
    int n = shape->n;
    int *idx = ARENA_ARRAY(a, int, n);
    int k = 0;
    /* static orders first, ascending (stable); dynamic ones count as large,
     * in left-to-right order (as CuTe documents) */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            const LayTuple *o = order->elems[i];
            if (!o->is_leaf) return lay_fail(err, 1, "make_ordered_layout: nested orders are not supported");
            bool st = o->leaf.is_static;
            if ((pass == 0) != st) continue;
            int j = k++;
            if (st)
                while (j > 0 && order->elems[idx[j - 1]]->leaf.value > o->leaf.value) {
                    idx[j] = idx[j - 1];
                    j--;
                }
            idx[j] = i;
        }
    LayTuple *d = lay_tuple_empty(a, n);
    LayInt cur = lay_int_static(1);
    for (int t = 0; t < n; t++) {
        int i = idx[t];
        LayTuple *sub;
        if (!lay_compact_left(a, shape->elems[i], cur, &sub, err)) return false;
        d->elems[i] = sub;
        LayInt p;
        if (!lay_tuple_product(a, shape->elems[i], &p, err) || !lay_mul_e(a, cur, p, &cur, "make_ordered_layout", err))
            return false;
    }
    *out = lay_layout_of((LayTuple *)shape, d);
    return true;
}

bool lay_tile_to_shape(Arena *a, const LayLayout *b, const LayTuple *trg, const LayTuple *order, LayLayout *out,
                       LayError *err)
{
    int R = lay_tuple_rank(trg);
    if (lay_layout_rank(b) > R)
        return lay_fail(err, 1, "tile_to_shape: block %s has more modes than target shape %s", lay_print_layout(a, b),
                        lay_print_tuple(a, trg));
    LayLayout pb = pad_to(a, b, R);
    LayTuple *bs, *ts, *ps;
    if (!lay_product_each(a, pb.shape, &bs, err) || !lay_product_each(a, trg, &ts, err)) return false;
    for (int i = 0; i < R; i++) {
        LayInt x = lay_tuple_get(ts, i)->leaf, y = lay_tuple_get(bs, i)->leaf;
        if (x.is_static && y.is_static && x.value % y.value != 0)
            return lay_fail(err, 1, "tile_to_shape: block size %lld does not divide target size %lld in mode %d",
                            (long long)y.value, (long long)x.value, i);
    }
    if (!lay_ceil_div_tuple(a, ts, bs, &ps, err)) return false;
    LayLayout rep;
    if (order) {
        if (!lay_make_ordered_layout(a, ps, order, &rep, err)) return false;
    } else if (!lay_compact_layout(a, ps, &rep, err)) {
        return false;
    }
    return lay_blocked_product(a, &pb, &rep, false, out, err);
}

bool lay_make_layout_tv(Arena *a, const LayLayout *thr, const LayLayout *val, LayTuple **tiler, LayLayout *tv,
                        LayError *err)
{
    LayLayout mn, inv, tmp;
    LayInt st, sv;
    if (!lay_blocked_product(a, thr, val, true, &mn, err)) return false;
    if (!lay_right_inverse(a, &mn, &inv, err)) return false;
    if (!lay_size_e(a, thr, &st, err) || !lay_size_e(a, val, &sv, err)) return false;
    LayTuple *s = lay_tuple_empty(a, 2);
    s->elems[0] = lay_tuple_leaf(a, st);
    s->elems[1] = lay_tuple_leaf(a, sv);
    if (!lay_compact_layout(a, s, &tmp, err)) return false;
    if (!lay_composition(a, &inv, &tmp, tv, err)) return false;
    return lay_product_each(a, mn.shape, tiler, err);
}

static bool upcast_rec(Arena *a, const LayTuple *s, const LayTuple *d, int64_t n, LayTuple **os, LayTuple **od,
                       LayError *err)
{
    if (!s->is_leaf) {
        LayTuple *rs = lay_tuple_empty(a, s->n), *rd = lay_tuple_empty(a, s->n);
        for (int i = 0; i < s->n; i++)
            if (!upcast_rec(a, s->elems[i], d->elems[i], n, &rs->elems[i], &rd->elems[i], err)) return false;
        *os = rs;
        *od = rd;
        return true;
    }
    LayInt st = d->leaf, N = lay_int_static(n);
    if (lay_is(st, 0)) {
        *os = (LayTuple *)s;
        *od = (LayTuple *)d;
        return true;
    }
    if (st.is_static) {
        LayInt ab, sg, q, ns, nd;
        if (!lay_int_abs(a, st, &ab)) return lay_fail(err, 0, "value past 64 bits in upcast");
        lay_int_signum(a, st, &sg);
        if (ab.value % n != 0 && n % ab.value != 0)
            return lay_fail(err, 0, "upcast<%lld>: stride %lld and %lld do not divide one another", (long long)n,
                            (long long)st.value, (long long)n);
        if (!lay_cdiv_e(a, N, ab, &q, "upcast", err) || !lay_cdiv_e(a, s->leaf, q, &ns, "upcast", err) ||
            !lay_cdiv_e(a, ab, N, &nd, "upcast", err) || !lay_mul_e(a, sg, nd, &nd, "upcast", err))
            return false;
        *os = lay_tuple_leaf(a, ns);
        *od = lay_tuple_leaf(a, nd);
        return true;
    }
    /* dynamic stride: assumed a multiple of N (CuTe's safe_div) */
    LayInt nd;
    if (!lay_div_e(a, st, N, &nd, "upcast", err)) return false;
    *os = (LayTuple *)s;
    *od = lay_tuple_leaf(a, nd);
    return true;
}

bool lay_upcast(Arena *a, const LayLayout *l, int64_t n, LayLayout *out, LayError *err)
{
    if (n <= 0) return lay_fail(err, -1, "upcast<%lld>: N must be positive", (long long)n);
    LayTuple *s = NULL, *d = NULL;
    if (!upcast_rec(a, l->shape, l->stride, n, &s, &d, err)) return false;
    *out = lay_layout_of(s, d);
    return true;
}

static bool has_unit(const LayTuple *d)
{
    if (d->is_leaf) return lay_is(d->leaf, 1);
    for (int i = 0; i < d->n; i++)
        if (has_unit(d->elems[i])) return true;
    return false;
}

static bool downcast_rec(Arena *a, const LayTuple *s, const LayTuple *d, int64_t n, LayTuple **os, LayTuple **od,
                         LayError *err)
{
    if (!s->is_leaf) {
        LayTuple *rs = lay_tuple_empty(a, s->n), *rd = lay_tuple_empty(a, s->n);
        for (int i = 0; i < s->n; i++)
            if (!downcast_rec(a, s->elems[i], d->elems[i], n, &rs->elems[i], &rd->elems[i], err)) return false;
        *os = rs;
        *od = rd;
        return true;
    }
    LayInt N = lay_int_static(n), x;
    if (lay_is(d->leaf, 1) || lay_is(d->leaf, -1)) {
        if (!lay_mul_e(a, s->leaf, N, &x, "downcast", err)) return false;
        *os = lay_tuple_leaf(a, x);
        *od = (LayTuple *)d;
    } else {
        if (!lay_mul_e(a, d->leaf, N, &x, "downcast", err)) return false;
        *os = (LayTuple *)s;
        *od = lay_tuple_leaf(a, x);
    }
    return true;
}

bool lay_downcast(Arena *a, const LayLayout *l, int64_t n, LayLayout *out, LayError *err)
{
    if (n <= 0) return lay_fail(err, -1, "downcast<%lld>: N must be positive", (long long)n);
    if (!has_unit(l->stride))
        return lay_fail(err, 0, "downcast<%lld>: layout %s has no stride-1 mode", (long long)n, lay_print_layout(a, l));
    LayTuple *s, *d;
    if (!downcast_rec(a, l->shape, l->stride, n, &s, &d, err)) return false;
    *out = lay_layout_of(s, d);
    return true;
}
