/* layout_divide.c: logical_divide(A, T) = A o (T, complement(T, size(A))):
 * mode 0 enumerates one tile, mode 1 the tiles.  A tiler that is a tuple
 * applies mode by mode (extra modes of A are kept).  The zipped / tiled /
 * flat variants regroup the (tile, rest) pairs found at the tiler's leaves
 * (CuTe's zip2_by) and then unpack the rest (tiled) or both (flat). */
#include "layout_internal.h"

bool lay_logical_divide(Arena *a, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err)
{
    if (t->is_tuple) {
        int r = lay_layout_rank(l);
        if (t->n > r)
            return lay_fail(err, 1, "logical_divide: tiler has %d modes but layout %s has only %d", t->n,
                            lay_print_layout(a, l), r);
        LayLayout *ms = ARENA_ARRAY(a, LayLayout, r);
        for (int i = 0; i < r; i++) {
            LayLayout m = lay_layout_mode(l, i);
            if (i < t->n) {
                if (!lay_logical_divide(a, &m, &t->e[i], &ms[i], err)) return false;
            } else {
                ms[i] = m;
            }
        }
        *out = lay_layout_cat(a, r, ms);
        return true;
    }
    LayLayout c, comp, both[2];
    if (!lay_coalesce(a, l, &c, err)) return false;
    if (!lay_complement(a, &t->l, c.shape, &comp, err)) return false;
    both[0] = t->l;
    both[1] = comp;
    LayLayout rhs = lay_layout_cat(a, 2, both);
    return lay_composition(a, l, &rhs, out, err);
}

/* zip2_by on one tuple (shape or stride) guided by the tiler's profile:
 * ((A,a),((B,b),(C,c)),d) by (X,(X,X)) -> ((A,(B,C)),(a,(b,c),d)) */
static bool zip2_by(Arena *a, const LayTuple *t, const LayTuple *g, LayTuple **out, LayError *err)
{
    if (g->is_leaf) {
        if (t->is_leaf || t->n != 2)
            return lay_fail(err, -1, "zip: expected a rank-2 mode, got %s", lay_print_tuple(a, t));
        *out = (LayTuple *)t;
        return true;
    }
    if (t->is_leaf || t->n < g->n)
        return lay_fail(err, -1, "zip: %s has fewer modes than the tiler", lay_print_tuple(a, t));
    LayTuple *first = lay_tuple_empty(a, g->n), *second = lay_tuple_empty(a, t->n);
    for (int i = 0; i < g->n; i++) {
        LayTuple *s;
        if (!zip2_by(a, t->elems[i], g->elems[i], &s, err)) return false;
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

static bool tile_unzip(Arena *a, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err)
{
    LayTuple *g = lay_tiler_guide(a, t), *s, *d;
    if (!zip2_by(a, l->shape, g, &s, err) || !zip2_by(a, l->stride, g, &d, err)) return false;
    *out = lay_layout_of(s, d);
    return true;
}

/* result(_, repeat<rank<1>>(_)) and friends: splice the modes of the
 * selected top-level modes into the top level (a rank-1 mode stays). */
static LayLayout unpack(Arena *a, const LayLayout *l, bool m0, bool m1)
{
    int n = 0;
    LayTuple *S = l->shape, *D = l->stride;
    for (int i = 0; i < 2; i++) {
        bool sp = (i == 0 ? m0 : m1) && !S->elems[i]->is_leaf && S->elems[i]->n != 1;
        n += sp ? S->elems[i]->n : 1;
    }
    LayTuple *rs = lay_tuple_empty(a, n), *rd = lay_tuple_empty(a, n);
    int k = 0;
    for (int i = 0; i < 2; i++) {
        bool sp = (i == 0 ? m0 : m1) && !S->elems[i]->is_leaf && S->elems[i]->n != 1;
        if (sp) {
            for (int j = 0; j < S->elems[i]->n; j++) {
                rs->elems[k] = S->elems[i]->elems[j];
                rd->elems[k++] = D->elems[i]->elems[j];
            }
        } else {
            rs->elems[k] = S->elems[i];
            rd->elems[k++] = D->elems[i];
        }
    }
    return lay_layout_of(rs, rd);
}

bool lay_divide_kind(Arena *a, int kind, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err)
{
    LayLayout r, z;
    if (!lay_logical_divide(a, l, t, &r, err)) return false;
    if (kind == 0) {
        *out = r;
        return true;
    }
    if (!tile_unzip(a, &r, t, &z, err)) return false;
    if (kind == 1)
        *out = z;
    else
        *out = unpack(a, &z, kind == 3, true);
    return true;
}
