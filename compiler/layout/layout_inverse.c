/* layout_inverse.c: right_inverse(A) = R with A(R(i)) == i on R's domain
 * (the largest such compact prefix: modes of A are chained by increasing
 * stride as long as each stride equals the span of the previous ones), and
 * left_inverse(A) = L with L(A(i)) == i (for injective A).  Both work on
 * coalesce(A); strides must be static (right_inverse skips dynamic ones, as
 * CuTe does), max_common_layout/max_common_vector build on right_inverse. */
#include "layout_internal.h"

typedef struct Flat {
    int n;
    LayInt *s, *d, *pre; /* pre[i]: product of s[0..i) */
} Flat;

static bool flat_of(Arena *a, const LayLayout *l, Flat *f, LayError *err)
{
    LayLayout c;
    if (!lay_coalesce(a, l, &c, err)) return false;
    f->s = lay_tuple_leaves(a, c.shape, &f->n);
    f->d = lay_tuple_leaves(a, c.stride, &f->n);
    f->pre = ARENA_ARRAY(a, LayInt, f->n + 1);
    f->pre[0] = lay_int_static(1);
    for (int i = 0; i < f->n; i++)
        if (!lay_mul_e(a, f->pre[i], f->s[i], &f->pre[i + 1], "inverse", err)) return false;
    return true;
}

/* stable order of mode indices by static stride (dynamic ones excluded) */
static int *sort_by_stride(Arena *a, const Flat *f, int *cnt)
{
    int *idx = ARENA_ARRAY(a, int, f->n + 1);
    int k = 0;
    for (int i = 0; i < f->n; i++) {
        if (!f->d[i].is_static) continue;
        int j = k++;
        while (j > 0 && f->d[idx[j - 1]].value > f->d[i].value) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    *cnt = k;
    return idx;
}

bool lay_right_inverse(Arena *a, const LayLayout *l, LayLayout *out, LayError *err)
{
    Flat f;
    if (!flat_of(a, l, &f, err)) return false;
    int k;
    int *ord = sort_by_stride(a, &f, &k);
    LayInt *rs = ARENA_ARRAY(a, LayInt, f.n + 1), *rd = ARENA_ARRAY(a, LayInt, f.n + 1);
    int m = 0;
    rs[m] = lay_int_static(1);
    rd[m] = lay_int_static(0);
    m++;
    LayInt cur = lay_int_static(1);
    for (int t = 0; t < k; t++) {
        int i = ord[t];
        if (cur.is_static && f.d[i].value == cur.value) {
            rs[m] = f.s[i];
            rd[m] = f.pre[i];
            m++;
            if (!lay_mul_e(a, f.s[i], f.d[i], &cur, "right_inverse", err)) return false;
        }
    }
    LayTuple *ts = lay_tuple_empty(a, m), *td = lay_tuple_empty(a, m);
    for (int i = 0; i < m; i++) {
        ts->elems[i] = lay_tuple_leaf(a, rs[i]);
        td->elems[i] = lay_tuple_leaf(a, rd[i]);
    }
    LayLayout r = lay_layout_of(ts, td);
    return lay_coalesce(a, &r, out, err);
}

bool lay_left_inverse(Arena *a, const LayLayout *l, LayLayout *out, LayError *err)
{
    Flat f;
    if (!flat_of(a, l, &f, err)) return false;
    for (int i = 0; i < f.n; i++)
        if (!lay_need_static(a, f.d[i], "left_inverse", 0, err)) return false;
    int k;
    int *ord = sort_by_stride(a, &f, &k);
    LayInt *rs = ARENA_ARRAY(a, LayInt, f.n + 1), *rd = ARENA_ARRAY(a, LayInt, f.n + 2);
    int m = 0;
    rd[0] = lay_int_static(0);
    int nd = 1;
    LayInt size = lay_int_static(1);
    for (int t = 0; t < k; t++) {
        int i = ord[t];
        if (lay_is(f.d[i], 0)) continue;
        if (f.d[i].value < 0) return lay_fail(err, 0, "left_inverse: negative stride in %s", lay_print_layout(a, l));
        if (!lay_need_static(a, size, "left_inverse", 0, err)) return false;
        if (f.d[i].value % size.value != 0)
            return lay_fail(err, 0,
                            "left_inverse: stride %lld is not a multiple of %lld in %s "
                            "(the layout is not invertible)",
                            (long long)f.d[i].value, (long long)size.value, lay_print_layout(a, l));
        rs[m++] = lay_int_static(f.d[i].value / size.value);
        if (!lay_mul_e(a, size, rs[m - 1], &size, "left_inverse", err)) return false;
        rd[nd++] = f.pre[i];
    }
    /* the last mode: the shape of the mode with the largest stride */
    rs[m++] = k > 0 ? f.s[ord[k - 1]] : lay_int_static(1);
    LayTuple *ts = lay_tuple_empty(a, m), *td = lay_tuple_empty(a, nd);
    for (int i = 0; i < m; i++) ts->elems[i] = lay_tuple_leaf(a, rs[i]);
    for (int i = 0; i < nd; i++) td->elems[i] = lay_tuple_leaf(a, rd[i]);
    if (m != nd) return lay_fail(err, 0, "left_inverse: internal mismatch");
    LayLayout r = lay_layout_of(ts, td);
    return lay_coalesce(a, &r, out, err);
}

bool lay_max_common_layout(Arena *a, const LayLayout *x, const LayLayout *y, LayLayout *out, LayError *err)
{
    LayLayout inv, c, cc;
    if (!lay_right_inverse(a, y, &inv, err)) return false;
    if (!lay_composition(a, x, &inv, &c, err) || !lay_coalesce(a, &c, &cc, err)) return false;
    LayLayout m0 = lay_layout_mode(&cc, 0);
    if (m0.shape->is_leaf && m0.shape->leaf.is_static && lay_is(m0.stride->leaf, 1))
        return lay_composition(a, &inv, &m0, out, err);
    *out = lay_layout_int(a, 1, 0);
    return true;
}

bool lay_max_common_vector(Arena *a, const LayLayout *x, const LayLayout *y, LayInt *out, LayError *err)
{
    LayLayout inv, c, cc;
    if (!lay_right_inverse(a, y, &inv, err)) return false;
    if (!lay_composition(a, x, &inv, &c, err) || !lay_coalesce(a, &c, &cc, err)) return false;
    LayLayout m0 = lay_layout_mode(&cc, 0);
    if (m0.shape->is_leaf && m0.shape->leaf.is_static && lay_is(m0.stride->leaf, 1))
        *out = m0.shape->leaf;
    else
        *out = lay_int_static(1);
    return true;
}
