/* layout_tuple.c: nested integer tuples (CuTe's IntTuple), the building
 * block of shapes, strides and coordinates: construction, depth checking
 * (user tuples are rejected past LAY_MAX_DEPTH so that every later recursion
 * is bounded), flatten, product, congruence, CuTe's append/prepend and the
 * shape arithmetic ceil_div / shape_div / compact strides. */
#include "layout_internal.h"

LayTuple *lay_tuple_leaf(Arena *a, LayInt v)
{
    LayTuple *t = ARENA_NEW(a, LayTuple);
    t->is_leaf = true;
    t->leaf = v;
    return t;
}

LayTuple *lay_tuple_make(Arena *a, int n, LayTuple **elems)
{
    LayTuple *t = ARENA_NEW(a, LayTuple);
    t->is_leaf = false;
    t->n = n;
    t->elems = ARENA_ARRAY(a, LayTuple *, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) t->elems[i] = elems[i];
    return t;
}

LayTuple *lay_tuple_int(Arena *a, int64_t v) { return lay_tuple_leaf(a, lay_int_static(v)); }

LayTuple *lay_tuple_empty(Arena *a, int n)
{
    LayTuple *t = ARENA_NEW(a, LayTuple);
    t->n = n;
    t->elems = ARENA_ARRAY(a, LayTuple *, n > 0 ? n : 1);
    return t;
}

int lay_tuple_rank(const LayTuple *t) { return t->is_leaf ? 1 : t->n; }

const LayTuple *lay_tuple_get(const LayTuple *t, int i)
{
    if (t->is_leaf) return i == 0 ? t : NULL;
    return (i >= 0 && i < t->n) ? t->elems[i] : NULL;
}

static bool check_rec(const LayTuple *t, int depth)
{
    if (!t) return false;
    if (t->is_leaf) return t->leaf.is_static || t->leaf.expr;
    if (depth >= LAY_MAX_DEPTH) return false;
    if (t->n < 0) return false;
    for (int i = 0; i < t->n; i++)
        if (!check_rec(t->elems[i], depth + 1)) return false;
    return true;
}

bool lay_tuple_check(const LayTuple *t, int arg, const char *what, LayError *err)
{
    if (check_rec(t, 0)) return true;
    if (!t) return lay_fail(err, arg, "%s is missing", what);
    return lay_fail(err, arg, "%s is nested deeper than %d levels (or malformed)", what, LAY_MAX_DEPTH);
}

int lay_tuple_depth(const LayTuple *t)
{
    if (t->is_leaf) return 0;
    int d = 0;
    for (int i = 0; i < t->n; i++) {
        int x = lay_tuple_depth(t->elems[i]);
        if (x > d) d = x;
    }
    return d + 1;
}

int lay_tuple_count_leaves(const LayTuple *t)
{
    if (t->is_leaf) return 1;
    int c = 0;
    for (int i = 0; i < t->n; i++) c += lay_tuple_count_leaves(t->elems[i]);
    return c;
}

static void collect(const LayTuple *t, LayInt *v, int *k)
{
    if (t->is_leaf) {
        v[(*k)++] = t->leaf;
        return;
    }
    for (int i = 0; i < t->n; i++) collect(t->elems[i], v, k);
}

LayInt *lay_tuple_leaves(Arena *a, const LayTuple *t, int *n)
{
    int c = lay_tuple_count_leaves(t);
    LayInt *v = ARENA_ARRAY(a, LayInt, c > 0 ? c : 1);
    int k = 0;
    collect(t, v, &k);
    *n = c;
    return v;
}

LayTuple *lay_tuple_from_leaves(Arena *a, int n, const LayInt *v)
{
    if (n == 1) return lay_tuple_leaf(a, v[0]);
    LayTuple *t = lay_tuple_empty(a, n);
    for (int i = 0; i < n; i++) t->elems[i] = lay_tuple_leaf(a, v[i]);
    return t;
}

LayTuple *lay_tuple_flatten(Arena *a, const LayTuple *t)
{
    if (t->is_leaf) return (LayTuple *)t;
    int n;
    LayInt *v = lay_tuple_leaves(a, t, &n);
    LayTuple *r = lay_tuple_empty(a, n);
    for (int i = 0; i < n; i++) r->elems[i] = lay_tuple_leaf(a, v[i]);
    return r;
}

bool lay_tuple_product(Arena *a, const LayTuple *t, LayInt *out, LayError *err)
{
    if (t->is_leaf) {
        *out = t->leaf;
        return true;
    }
    LayInt p = lay_int_static(1);
    for (int i = 0; i < t->n; i++) {
        LayInt x;
        if (!lay_tuple_product(a, t->elems[i], &x, err)) return false;
        if (!lay_mul_e(a, p, x, &p, "size", err)) return false;
    }
    *out = p;
    return true;
}

bool lay_tuple_congruent(const LayTuple *x, const LayTuple *y)
{
    if (x->is_leaf || y->is_leaf) return x->is_leaf && y->is_leaf;
    if (x->n != y->n) return false;
    for (int i = 0; i < x->n; i++)
        if (!lay_tuple_congruent(x->elems[i], y->elems[i])) return false;
    return true;
}

bool lay_tuple_equal(const LayTuple *x, const LayTuple *y)
{
    if (x->is_leaf || y->is_leaf) return x->is_leaf && y->is_leaf && lay_int_same(x->leaf, y->leaf);
    if (x->n != y->n) return false;
    for (int i = 0; i < x->n; i++)
        if (!lay_tuple_equal(x->elems[i], y->elems[i])) return false;
    return true;
}

/* CuTe append(t, x): a leaf becomes the pair (t, x); a tuple grows by one. */
LayTuple *lay_tuple_append(Arena *a, const LayTuple *t, LayTuple *x)
{
    if (t->is_leaf) {
        LayTuple *r = lay_tuple_empty(a, 2);
        r->elems[0] = (LayTuple *)t;
        r->elems[1] = x;
        return r;
    }
    LayTuple *r = lay_tuple_empty(a, t->n + 1);
    for (int i = 0; i < t->n; i++) r->elems[i] = t->elems[i];
    r->elems[t->n] = x;
    return r;
}

LayTuple *lay_tuple_prepend(Arena *a, const LayTuple *t, LayTuple *x)
{
    if (t->is_leaf) {
        LayTuple *r = lay_tuple_empty(a, 2);
        r->elems[0] = x;
        r->elems[1] = (LayTuple *)t;
        return r;
    }
    LayTuple *r = lay_tuple_empty(a, t->n + 1);
    r->elems[0] = x;
    for (int i = 0; i < t->n; i++) r->elems[i + 1] = t->elems[i];
    return r;
}

LayTuple *lay_tuple_wrap(Arena *a, LayTuple *t)
{
    if (!t->is_leaf) return t;
    LayTuple *r = lay_tuple_empty(a, 1);
    r->elems[0] = t;
    return r;
}

LayTuple *lay_tuple_repeat_like(Arena *a, const LayTuple *like, int64_t v)
{
    if (like->is_leaf) return lay_tuple_int(a, v);
    LayTuple *r = lay_tuple_empty(a, like->n);
    for (int i = 0; i < like->n; i++) r->elems[i] = lay_tuple_repeat_like(a, like->elems[i], v);
    return r;
}

/* Column-major compact strides: each leaf's stride is the product of all
 * leaves before it (CuTe compact_major<LayoutLeft>). */
static bool compact_rec(Arena *a, const LayTuple *s, LayInt *cur, LayTuple **out, LayError *err)
{
    if (s->is_leaf) {
        *out = lay_tuple_leaf(a, *cur);
        return lay_mul_e(a, *cur, s->leaf, cur, "make_layout", err);
    }
    LayTuple *r = lay_tuple_empty(a, s->n);
    for (int i = 0; i < s->n; i++)
        if (!compact_rec(a, s->elems[i], cur, &r->elems[i], err)) return false;
    *out = r;
    return true;
}

bool lay_compact_left(Arena *a, const LayTuple *shape, LayInt start, LayTuple **out, LayError *err)
{
    LayInt cur = start;
    return compact_rec(a, shape, &cur, out, err);
}

/* CuTe ceil_div on tuples: tuple/tuple elementwise (missing modes of y are
 * 1), tuple/int folds the divisor through the modes, int/tuple divides by
 * the product. */
bool lay_ceil_div_tuple(Arena *a, const LayTuple *x, const LayTuple *y, LayTuple **out, LayError *err)
{
    if (!x->is_leaf) {
        LayTuple *r = lay_tuple_empty(a, x->n);
        if (!y->is_leaf) {
            if (y->n > x->n)
                return lay_fail(err, 1, "ceil_div: divisor %s has more modes than %s", lay_print_tuple(a, y),
                                lay_print_tuple(a, x));
            for (int i = 0; i < x->n; i++) {
                const LayTuple *yi = i < y->n ? y->elems[i] : lay_tuple_int(a, 1);
                if (!lay_ceil_div_tuple(a, x->elems[i], yi, &r->elems[i], err)) return false;
            }
        } else {
            LayTuple *rest = (LayTuple *)y;
            for (int i = 0; i < x->n; i++) {
                LayTuple *nr;
                if (!lay_ceil_div_tuple(a, x->elems[i], rest, &r->elems[i], err)) return false;
                if (!lay_ceil_div_tuple(a, rest, x->elems[i], &nr, err)) return false;
                rest = nr;
            }
        }
        *out = r;
        return true;
    }
    LayInt yv;
    if (!lay_tuple_product(a, y, &yv, err)) return false;
    LayInt q;
    if (yv.is_static && yv.value <= 0)
        return lay_fail(err, 1, "ceil_div: divisor must be positive, got %lld", (long long)yv.value);
    if (!lay_cdiv_e(a, x->leaf, yv, &q, "ceil_div", err)) return false;
    *out = lay_tuple_leaf(a, q);
    return true;
}

/* CuTe shape_div: like ceil_div, but the static int/int case requires one
 * operand to divide the other (the "divisibility condition"). */
bool lay_shape_div_tuple(Arena *a, const LayTuple *x, const LayTuple *y, LayTuple **out, LayError *err)
{
    if (!x->is_leaf) {
        LayTuple *r = lay_tuple_empty(a, x->n);
        if (!y->is_leaf) {
            if (y->n != x->n)
                return lay_fail(err, 1, "shape_div: %s and %s have different ranks", lay_print_tuple(a, x),
                                lay_print_tuple(a, y));
            for (int i = 0; i < x->n; i++)
                if (!lay_shape_div_tuple(a, x->elems[i], y->elems[i], &r->elems[i], err)) return false;
        } else {
            LayTuple *rest = (LayTuple *)y;
            for (int i = 0; i < x->n; i++) {
                LayTuple *nr;
                if (!lay_shape_div_tuple(a, x->elems[i], rest, &r->elems[i], err)) return false;
                if (!lay_shape_div_tuple(a, rest, x->elems[i], &nr, err)) return false;
                rest = nr;
            }
        }
        *out = r;
        return true;
    }
    LayInt yv;
    if (!lay_tuple_product(a, y, &yv, err)) return false;
    LayInt xv = x->leaf;
    if (yv.is_static && yv.value <= 0)
        return lay_fail(err, 1, "shape_div: divisor must be positive, got %lld", (long long)yv.value);
    if (xv.is_static && yv.is_static && xv.value % yv.value != 0 && (xv.value == 0 || yv.value % xv.value != 0))
        return lay_fail(err, 1, "shape_div: neither of %lld and %lld divides the other", (long long)xv.value,
                        (long long)yv.value);
    LayInt q;
    if (!lay_cdiv_e(a, xv, yv, &q, "shape_div", err)) return false;
    *out = lay_tuple_leaf(a, q);
    return true;
}

bool lay_coalesce_shape(Arena *a, const LayTuple *t, LayTuple **out, LayError *err)
{
    int n;
    LayInt *v = lay_tuple_leaves(a, t, &n);
    if (t->is_leaf) {
        *out = (LayTuple *)t;
        return true;
    }
    if (n == 0) {
        *out = (LayTuple *)t;
        return true;
    }
    LayInt *r = ARENA_ARRAY(a, LayInt, n);
    int k = 0;
    r[k++] = v[0];
    for (int i = 1; i < n; i++) {
        if (r[k - 1].is_static == v[i].is_static) {
            if (!lay_mul_e(a, r[k - 1], v[i], &r[k - 1], "coalesce", err)) return false;
        } else {
            r[k++] = v[i];
        }
    }
    /* CuTe's fold_first starts from the first leaf, so one survivor is an int */
    if (k == 1) {
        *out = lay_tuple_leaf(a, r[0]);
        return true;
    }
    LayTuple *res = lay_tuple_empty(a, k);
    for (int i = 0; i < k; i++) res->elems[i] = lay_tuple_leaf(a, r[i]);
    *out = res;
    return true;
}

bool lay_product_each(Arena *a, const LayTuple *t, LayTuple **out, LayError *err)
{
    if (t->is_leaf) {
        *out = (LayTuple *)t;
        return true;
    }
    LayTuple *r = lay_tuple_empty(a, t->n);
    for (int i = 0; i < t->n; i++) {
        LayInt p;
        if (!lay_tuple_product(a, t->elems[i], &p, err)) return false;
        r->elems[i] = lay_tuple_leaf(a, p);
    }
    *out = r;
    return true;
}
