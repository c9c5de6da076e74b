/* atom_layout.c: the layout helpers that atoms and their partitions are
 * made of: modes of a layout, logical_divide into (inner, rest), offsets
 * of coordinates, the catalogs' TV layouts parsed from CuTe's notation,
 * and a transformation applied to every layout of a tensor view. */
#include <string.h>

#include "atom.h"

int lrank(const LayLayout *L) { return L->shape->is_leaf ? 1 : L->shape->n; }

LayLayout lmode(const LayLayout *L, int i)
{
    if (L->shape->is_leaf) return *L;
    return (LayLayout){L->shape->elems[i], L->stride->elems[i]};
}

LayLayout lmake(Eval *e, int n, const LayLayout *m)
{
    if (n == 1) return m[0];
    LayTuple **s = ARENA_ARRAY(e->arena, LayTuple *, n), **d = ARENA_ARRAY(e->arena, LayTuple *, n);
    for (int i = 0; i < n; i++) {
        s[i] = m[i].shape;
        d[i] = m[i].stride;
    }
    return (LayLayout){lay_tuple_make(e->arena, n, s), lay_tuple_make(e->arena, n, d)};
}

bool lsize(Eval *e, const LayLayout *L, int64_t *n)
{
    LayInt s = lay_size(e->arena, L);
    if (!s.is_static) return false;
    *n = s.value;
    return true;
}

bool lcall(Eval *e, const char *fn, const LayValue *args, int n, LayValue *out, SrcLoc loc)
{
    LayError err = {.arg = -1};
    if (lay_call(e->arena, fn, NULL, 0, args, n, out, &err)) return true;
    diag_error(e->diag, loc, "%s", err.msg);
    return false;
}

bool ldivide(Eval *e, const LayLayout *m, int64_t k, LayLayout *inner, LayLayout *rest, SrcLoc loc)
{
    LayValue args[2] = {{.kind = LAY_V_LAYOUT, .layout = *m}, {.kind = LAY_V_INT, .i = lay_int_static(k)}}, r;
    if (!lcall(e, "logical_divide", args, 2, &r, loc)) return false;
    if (r.kind != LAY_V_LAYOUT || lrank(&r.layout) != 2) {
        diag_error(e->diag, loc, "internal: logical_divide by %lld gave %s", (long long)k,
                   lay_print_value(e->arena, &r));
        return false;
    }
    *inner = lmode(&r.layout, 0);
    *rest = lmode(&r.layout, 1);
    return true;
}

bool add_idx(Eval *e, LayInt crd, const LayLayout *L, LayInt *off, SrcLoc loc)
{
    LayInt x;
    LayError err = {.arg = -1};
    if (!lay_crd2idx(e->arena, lay_tuple_leaf(e->arena, crd), L, &x, &err)) {
        diag_error(e->diag, loc, "%s", err.msg);
        return false;
    }
    if (!lay_int_add(e->arena, *off, x, off)) {
        diag_error(e->diag, loc, "tensor offset overflows 64 bits");
        return false;
    }
    return true;
}

/* The catalogs' TV layouts are written the way CuTe documents them. */
static LayTuple *parse_tuple(Eval *e, const char **p, int64_t n)
{
    if (**p != '(') {
        int64_t v = 0;
        if (**p == 'N' || **p == 'V') v = *(*p)++ == 'N' ? n : n / 8;
        while (**p >= '0' && **p <= '9') v = v * 10 + (*(*p)++ - '0');
        return lay_tuple_leaf(e->arena, lay_int_static(v));
    }
    (*p)++;
    LayTuple *el[8];
    int ne = 0;
    while (**p != ')') {
        el[ne++] = parse_tuple(e, p, n);
        if (**p == ',') (*p)++;
    }
    (*p)++;
    LayTuple **m = ARENA_ARRAY(e->arena, LayTuple *, ne);
    memcpy(m, el, sizeof *m * (size_t)ne);
    return lay_tuple_make(e->arena, ne, m);
}

LayLayout parse_layout(Eval *e, const char *s, int64_t n)
{
    LayLayout l;
    l.shape = parse_tuple(e, &s, n);
    s++; /* ':' */
    l.stride = parse_tuple(e, &s, n);
    return l;
}

const LayLayout *view_layout(const Value *t)
{
    return t->lay.kind == LAY_V_COMPOSED ? &t->lay.composed.outer : &t->lay.layout;
}

bool view_apply(Eval *e, Value t, ViewFn fn, const void *ctx, SrcLoc loc, Value *out)
{
    Value r = t;
    LayInt off = lay_int_static(0);
    if (t.lay.kind == LAY_V_COMPOSED) {
        if (!fn(e, &t.lay.composed.outer, ctx, &r.lay.composed.outer, &off, loc) ||
            !lay_int_add(e->arena, t.lay.composed.offset, off, &r.lay.composed.offset))
            return false;
    } else if (t.lay.kind == LAY_V_LAYOUT) {
        if (!fn(e, &t.lay.layout, ctx, &r.lay.layout, &off, loc) || !lay_int_add(e->arena, t.toff, off, &r.toff))
            return false;
    } else {
        diag_error(e->diag, loc, "the tensor's layout must be a layout, found %s", lay_print_value(e->arena, &t.lay));
        return false;
    }
    if (t.ncomp) {
        r.comp = ARENA_ARRAY(e->arena, LayLayout, t.ncomp);
        r.coff = ARENA_ARRAY(e->arena, LayInt, t.ncomp);
        for (int c = 0; c < t.ncomp; c++) {
            LayInt o = lay_int_static(0);
            if (!fn(e, &t.comp[c], ctx, &r.comp[c], &o, loc) || !lay_int_add(e->arena, t.coff[c], o, &r.coff[c]))
                return false;
        }
    }
    *out = r;
    return true;
}
