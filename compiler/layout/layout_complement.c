/* layout_complement.c: complement(A, M), the layout of "the rest" of a
 * codomain of size M: its image is disjoint from A's, it is ordered
 * (strictly increasing), and A together with it covers M.  The filtered
 * modes of A are visited in order of increasing stride; the gaps between
 * consecutive strides become the complement's modes, and the remainder up to
 * the cotarget becomes the last mode(s).  Sorting needs static strides
 * (except for a rank-1 A, as in CuTe); the cotarget may be dynamic. */
#include "layout_internal.h"

bool lay_complement(Arena *a, const LayLayout *l, const LayTuple *cotarget, LayLayout *out, LayError *err)
{
    LayLayout f;
    if (!lay_filter(a, l, &f, err)) return false;
    if (f.shape->is_leaf && lay_is(f.stride->leaf, 0)) {
        /* nothing left of A: the complement is the compact layout of the cotarget */
        LayTuple *cs;
        if (!lay_coalesce_shape(a, cotarget, &cs, err)) return false;
        return lay_compact_layout(a, cs, out, err);
    }
    int R;
    LayInt *S = lay_tuple_leaves(a, f.shape, &R);
    LayInt *D = lay_tuple_leaves(a, f.stride, &R);
    if (R > 1)
        for (int i = 0; i < R; i++)
            if (!lay_need_static(a, D[i], "complement", 0, err)) return false;
    bool *used = ARENA_ARRAY(a, bool, R);
    LayInt *rs = ARENA_ARRAY(a, LayInt, R + 1), *rd = ARENA_ARRAY(a, LayInt, R + 1);
    rd[0] = lay_int_static(1);
    int last = -1;
    for (int step = 0; step < R; step++) {
        /* the smallest remaining stride, first one on ties */
        int mi = -1;
        for (int i = 0; i < R; i++)
            if (!used[i] && (mi < 0 || (D[i].is_static && D[i].value < D[mi].value))) mi = i;
        LayInt ns;
        if (!lay_div_e(a, D[mi], rd[step], &ns, "complement", err)) return false;
        if (lay_is(ns, 0) || (D[mi].is_static && D[mi].value < 0))
            return lay_fail(err, 0, "complement: layout %s is not injective (or has a negative stride)",
                            lay_print_layout(a, l));
        rs[step] = ns;
        if (!lay_mul_e(a, D[mi], S[mi], &rd[step + 1], "complement", err)) return false;
        used[mi] = true;
        last = mi;
    }
    (void)last;
    /* the rest: ceil_div(cotarget, last stride*shape), compact from there */
    LayTuple *rest_s, *rest_d;
    if (!lay_ceil_div_tuple(a, cotarget, lay_tuple_leaf(a, rd[R]), &rest_s, err)) return false;
    if (!lay_coalesce_shape(a, rest_s, &rest_s, err)) return false;
    if (!lay_compact_left(a, rest_s, rd[R], &rest_d, err)) return false;
    LayTuple *shp = lay_tuple_empty(a, 2), *str = lay_tuple_empty(a, 2);
    shp->elems[0] = lay_tuple_from_leaves(a, R, rs);
    str->elems[0] = lay_tuple_from_leaves(a, R, rd);
    shp->elems[1] = rest_s;
    str->elems[1] = rest_d;
    LayLayout pre = lay_layout_of(shp, str);
    return lay_coalesce(a, &pre, out, err);
}

bool lay_complement1(Arena *a, const LayLayout *l, LayLayout *out, LayError *err)
{
    LayLayout f;
    LayInt c;
    if (!lay_filter(a, l, &f, err) || !lay_cosize(a, &f, &c, err)) return false;
    return lay_complement(a, l, lay_tuple_leaf(a, c), out, err);
}
