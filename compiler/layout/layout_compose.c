/* layout_compose.c: functional composition R = A o B, R(c) = A(B(c)) for
 * every c in B's domain, with R shaped like B.  B distributes over its
 * modes; for one integral mode s:d of B, A (coalesced) is walked mode by
 * mode: the stride d first "skips" whole A modes (ceil_div), then the
 * remaining size s is split over the A modes it covers.  CuTe's weak
 * divisibility conditions are checked whenever the values involved are
 * static; with dynamic values the result is symbolic (as in CuTe) and
 * correct only when those conditions hold at run time.  Also composition
 * with tilers (mode-wise) and the tiler representation. */
#include "layout_internal.h"

/* lhs is flat (a leaf layout or a tuple of leaves), rhs_s:rhs_d integral */
static bool compose_1(Arena *a, const LayLayout *lhs, LayInt rs, LayInt rd, LayLayout *out, LayError *err)
{
    if (lay_is(rd, 0)) {
        *out = lay_layout_of(lay_tuple_leaf(a, rs), lay_tuple_leaf(a, rd));
        return true;
    }
    if (lhs->shape->is_leaf) {
        LayInt d;
        if (!lay_mul_e(a, rd, lhs->stride->leaf, &d, "composition", err)) return false;
        *out = lay_layout_of(lay_tuple_leaf(a, rs), lay_tuple_leaf(a, d));
        return true;
    }
    int R = lhs->shape->n;
    LayInt *res_s = ARENA_ARRAY(a, LayInt, R + 1), *res_d = ARENA_ARRAY(a, LayInt, R + 1);
    int k = 0;
    LayInt rest_s = rs, rest_d = rd;
    for (int i = 0; i + 1 < R; i++) {
        LayInt cs = lhs->shape->elems[i]->leaf, cd = lhs->stride->elems[i]->leaf;
        LayInt ad, sg;
        if (!lay_int_abs(a, rest_d, &ad)) return lay_fail(err, 1, "value past 64 bits in composition");
        lay_int_signum(a, rest_d, &sg);
        if (cs.is_static && ad.is_static && !(ad.value % cs.value == 0 || ad.value < cs.value))
            return lay_fail(err, 1,
                            "composition: stride %lld of the right layout does not meet the stride "
                            "divisibility condition with mode of size %lld of %s",
                            (long long)rest_d.value, (long long)cs.value, lay_print_layout(a, lhs));
        LayInt next_s, next_d;
        if (!lay_cdiv_e(a, cs, ad, &next_s, "composition", err)) return false;
        if (!lay_cdiv_e(a, ad, cs, &next_d, "composition", err)) return false;
        if (!lay_mul_e(a, next_d, sg, &next_d, "composition", err)) return false;
        if (lay_is(next_s, 1) || lay_is(rest_s, 1)) {
            rest_d = next_d;
            continue;
        }
        LayInt ns;
        lay_min_e(a, next_s, rest_s, &ns, "composition", err);
        if (ns.is_static && rest_s.is_static && rest_s.value % ns.value != 0)
            return lay_fail(err, 1,
                            "composition: shape %lld of the right layout does not meet the shape "
                            "divisibility condition (not a multiple of %lld) against %s",
                            (long long)rest_s.value, (long long)ns.value, lay_print_layout(a, lhs));
        /* CuTe checks only the weak form above; when this mode is consumed
         * to its end (ns == next_s) and more of B remains, the stride must
         * really divide the mode or the result silently differs from
         * A(B(i)).  Report it instead of returning a wrong layout. */
        if (lay_int_same(ns, next_s) && cs.is_static && ad.is_static && rest_s.is_static && rest_s.value > ns.value &&
            cs.value % ad.value != 0)
            return lay_fail(err, 1,
                            "composition: stride %lld of the right layout does not meet the stride "
                            "divisibility condition with mode of size %lld of %s",
                            (long long)rest_d.value, (long long)cs.value, lay_print_layout(a, lhs));
        res_s[k] = ns;
        if (!lay_mul_e(a, rest_d, cd, &res_d[k], "composition", err)) return false;
        k++;
        if (!lay_div_e(a, rest_s, ns, &rest_s, "composition", err)) return false;
        rest_d = next_d;
    }
    LayInt last_d;
    if (!lay_mul_e(a, rest_d, lhs->stride->elems[R - 1]->leaf, &last_d, "composition", err)) return false;
    if (k == 0) {
        *out = lay_layout_of(lay_tuple_leaf(a, rest_s), lay_tuple_leaf(a, last_d));
        return true;
    }
    if (!lay_is(rest_s, 1)) {
        res_s[k] = rest_s;
        res_d[k] = last_d;
        k++;
    }
    *out = lay_layout_of(lay_tuple_from_leaves(a, k, res_s), lay_tuple_from_leaves(a, k, res_d));
    return true;
}

static bool compose_rec(Arena *a, const LayLayout *lhs, const LayTuple *rs, const LayTuple *rd, LayLayout *out,
                        LayError *err)
{
    if (rs->is_leaf) return compose_1(a, lhs, rs->leaf, rd->leaf, out, err);
    LayLayout *ms = ARENA_ARRAY(a, LayLayout, rs->n > 0 ? rs->n : 1);
    for (int i = 0; i < rs->n; i++)
        if (!compose_rec(a, lhs, rs->elems[i], rd->elems[i], &ms[i], err)) return false;
    *out = lay_layout_cat(a, rs->n, ms);
    return true;
}

bool lay_composition(Arena *a, const LayLayout *l, const LayLayout *r, LayLayout *out, LayError *err)
{
    LayLayout flat;
    if (!lay_coalesce_x(a, l, &flat, err)) return false;
    return compose_rec(a, &flat, r->shape, r->stride, out, err);
}

bool lay_composition_tiler(Arena *a, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err)
{
    if (!t->is_tuple) return lay_composition(a, l, &t->l, out, err);
    int r = lay_layout_rank(l);
    if (t->n > r)
        return lay_fail(err, 1, "composition: tiler has %d modes but layout %s has only %d", t->n,
                        lay_print_layout(a, l), r);
    /* modes of l that the tiler does not reach are dropped, as in CuTe */
    LayLayout *ms = ARENA_ARRAY(a, LayLayout, t->n > 0 ? t->n : 1);
    for (int i = 0; i < t->n; i++) {
        LayLayout m = lay_layout_mode(l, i);
        if (!lay_composition_tiler(a, &m, &t->e[i], &ms[i], err)) return false;
    }
    *out = lay_layout_cat(a, t->n, ms);
    return true;
}

/* ---- tilers ---- */

static bool tiler_from_tuple(Arena *a, const LayTuple *tu, LayTiler *out)
{
    if (tu->is_leaf) {
        out->is_tuple = false;
        out->l = lay_layout_of((LayTuple *)tu, lay_tuple_int(a, 1));
        return true;
    }
    out->is_tuple = true;
    out->n = tu->n;
    out->e = ARENA_ARRAY(a, LayTiler, tu->n > 0 ? tu->n : 1);
    for (int i = 0; i < tu->n; i++) tiler_from_tuple(a, tu->elems[i], &out->e[i]);
    return true;
}

static bool tiler_rec(Arena *a, const LayValue *v, LayTiler *out, int arg, LayError *err, int depth)
{
    if (depth > LAY_MAX_DEPTH) return lay_fail(err, arg, "tiler is nested deeper than %d levels", LAY_MAX_DEPTH);
    switch (v->kind) {
    case LAY_V_LAYOUT:
        if (!lay_check_layout(&v->layout, arg, err)) return false;
        out->is_tuple = false;
        out->l = v->layout;
        return true;
    case LAY_V_INT:
        if (v->i.is_static && v->i.value <= 0)
            return lay_fail(err, arg, "size must be positive, got %lld (in tiler)", (long long)v->i.value);
        out->is_tuple = false;
        out->l = lay_layout_of(lay_tuple_leaf(a, v->i), lay_tuple_int(a, 1));
        return true;
    case LAY_V_TUPLE: {
        LayLayout probe = {v->tuple, v->tuple};
        if (!lay_check_layout(&probe, arg, err)) return false;
        return tiler_from_tuple(a, v->tuple, out);
    }
    case LAY_V_TILER:
    case LAY_V_LIST: {
        int n = v->kind == LAY_V_TILER ? v->ntiler : v->nlist;
        const LayValue *e = v->kind == LAY_V_TILER ? v->tiler : v->list;
        out->is_tuple = true;
        out->n = n;
        out->e = ARENA_ARRAY(a, LayTiler, n > 0 ? n : 1);
        for (int i = 0; i < n; i++)
            if (!tiler_rec(a, &e[i], &out->e[i], arg, err, depth + 1)) return false;
        return true;
    }
    default: return lay_fail(err, arg, "argument %d must be a layout or a tiler", arg + 1);
    }
}

bool lay_tiler_from_value(Arena *a, const LayValue *v, LayTiler *out, int arg, LayError *err)
{
    return tiler_rec(a, v, out, arg, err, 0);
}

LayTuple *lay_tiler_guide(Arena *a, const LayTiler *t)
{
    if (!t->is_tuple) return lay_tuple_int(a, 0);
    LayTuple *r = lay_tuple_empty(a, t->n);
    for (int i = 0; i < t->n; i++) r->elems[i] = lay_tiler_guide(a, &t->e[i]);
    return r;
}
