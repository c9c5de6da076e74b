/* layout_call.c: lay_call, the by-name entry point used by `cutec eval` and
 * the compiler.  One table row per CuTe function name gives its arity; each
 * handler converts and checks its argument values (reporting the offending
 * argument in err->arg, 0-based), handles template arguments (size<1>(x),
 * get<0,1>(x), upcast<2>(L)) and wraps the result back into a LayValue.
 * Every argument is validated up front (depth, congruence, positive sizes)
 * so that the operations can trust their inputs. */
#include "layout_internal.h"

#include <string.h>

typedef bool (*Handler)(Arena *a, const char *name, const int64_t *targs, int ntargs, const LayValue *args, int nargs,
                        LayValue *out, LayError *err);

typedef struct Fn {
    const char *name;
    int min, max;   /* argument counts */
    int tmin, tmax; /* template argument counts */
    Handler h;
} Fn;

/* ---- value helpers ---- */

static LayValue v_int(LayInt i)
{
    LayValue v;
    memset(&v, 0, sizeof v);
    v.kind = LAY_V_INT;
    v.i = i;
    return v;
}

static LayValue v_tuple(LayTuple *t)
{
    if (t->is_leaf) return v_int(t->leaf);
    LayValue v;
    memset(&v, 0, sizeof v);
    v.kind = LAY_V_TUPLE;
    v.tuple = t;
    return v;
}

static LayValue v_layout(LayLayout l)
{
    LayValue v;
    memset(&v, 0, sizeof v);
    v.kind = LAY_V_LAYOUT;
    v.layout = l;
    return v;
}

static const char *kind_name(LayValueKind k)
{
    switch (k) {
    case LAY_V_INT: return "an integer";
    case LAY_V_TUPLE: return "a tuple";
    case LAY_V_LAYOUT: return "a layout";
    case LAY_V_SWIZZLE: return "a swizzle";
    case LAY_V_COMPOSED: return "a composed layout";
    case LAY_V_TILER: return "a tiler";
    case LAY_V_LIST: return "a tuple of values";
    }
    return "a value";
}

static bool check_value_rec(const LayValue *v, int arg, LayError *err, int depth)
{
    if (!v) return lay_fail(err, arg, "argument %d is missing", arg + 1);
    if (depth > LAY_MAX_DEPTH)
        return lay_fail(err, arg, "argument %d is nested deeper than %d levels", arg + 1, LAY_MAX_DEPTH);
    switch (v->kind) {
    case LAY_V_INT:
        if (!v->i.is_static && !v->i.expr) return lay_fail(err, arg, "argument %d is malformed", arg + 1);
        return true;
    case LAY_V_TUPLE: return lay_tuple_check(v->tuple, arg, "tuple", err);
    case LAY_V_LAYOUT: return lay_check_layout(&v->layout, arg, err);
    case LAY_V_SWIZZLE: return lay_swizzle_check(v->sw, arg, err);
    case LAY_V_COMPOSED:
        return lay_swizzle_check(v->composed.sw, arg, err) && lay_check_layout(&v->composed.outer, arg, err);
    case LAY_V_TILER:
    case LAY_V_LIST: {
        int n = v->kind == LAY_V_TILER ? v->ntiler : v->nlist;
        const LayValue *e = v->kind == LAY_V_TILER ? v->tiler : v->list;
        if (n < 0 || (n > 0 && !e)) return lay_fail(err, arg, "argument %d is malformed", arg + 1);
        for (int i = 0; i < n; i++)
            if (!check_value_rec(&e[i], arg, err, depth + 1)) return false;
        return true;
    }
    }
    return lay_fail(err, arg, "argument %d has an unknown kind", arg + 1);
}

bool lay_value_check(const LayValue *v, int arg, LayError *err) { return check_value_rec(v, arg, err, 0); }

static bool want_layout(const char *fn, const LayValue *args, int i, bool allow_int, LayLayout *out, Arena *a,
                        LayError *err)
{
    const LayValue *v = &args[i];
    if (v->kind == LAY_V_LAYOUT) {
        *out = v->layout;
        return true;
    }
    if (allow_int && v->kind == LAY_V_INT) {
        if (v->i.is_static && v->i.value <= 0)
            return lay_fail(err, i, "size must be positive, got %lld", (long long)v->i.value);
        *out = lay_layout_of(lay_tuple_leaf(a, v->i), lay_tuple_int(a, 1));
        return true;
    }
    return lay_fail(err, i, "argument %d of %s must be a layout, got %s", i + 1, fn, kind_name(v->kind));
}

/* an int or a tuple of ints (a shape, coordinate, cotarget) */
static bool want_tuple(const char *fn, const LayValue *args, int i, LayTuple **out, Arena *a, LayError *err)
{
    const LayValue *v = &args[i];
    if (v->kind == LAY_V_INT) {
        *out = lay_tuple_leaf(a, v->i);
        return true;
    }
    if (v->kind == LAY_V_TUPLE) {
        *out = v->tuple;
        return true;
    }
    return lay_fail(err, i, "argument %d of %s must be an integer or a tuple, got %s", i + 1, fn, kind_name(v->kind));
}

static bool want_shape(const char *fn, const LayValue *args, int i, LayTuple **out, Arena *a, LayError *err)
{
    if (!want_tuple(fn, args, i, out, a, err)) return false;
    LayLayout probe = {*out, *out};
    return lay_check_layout(&probe, i, err);
}

/* set err->arg on failures coming from deep inside an operation that only
 * knew "the layout" or "the other operand" */
static bool at(bool ok, int arg, LayError *err)
{
    if (!ok && err && err->arg < 0) err->arg = arg;
    return ok;
}

/* ---- get / select / structural ---- */

/* one step of get<i> on any value; `what` names the function for errors */
static bool get1(Arena *a, const LayValue *v, int64_t i, LayValue *out, const char *fn, LayError *err)
{
    switch (v->kind) {
    case LAY_V_INT:
        if (i != 0) break;
        *out = *v;
        return true;
    case LAY_V_TUPLE:
        if (i < 0 || i >= v->tuple->n) break;
        *out = v_tuple(v->tuple->elems[i]);
        return true;
    case LAY_V_LAYOUT: {
        int r = lay_layout_rank(&v->layout);
        if (i < 0 || i >= r) break;
        *out = v_layout(lay_layout_mode(&v->layout, (int)i));
        return true;
    }
    case LAY_V_COMPOSED: return lay_fail(err, 0, "%s<%lld> of a composed layout is not supported", fn, (long long)i);
    case LAY_V_TILER:
    case LAY_V_LIST: {
        int n = v->kind == LAY_V_TILER ? v->ntiler : v->nlist;
        const LayValue *e = v->kind == LAY_V_TILER ? v->tiler : v->list;
        if (i < 0 || i >= n) break;
        *out = e[i];
        return true;
    }
    case LAY_V_SWIZZLE: return lay_fail(err, 0, "%s<%lld> of a swizzle is not defined", fn, (long long)i);
    }
    return lay_fail(err, 0, "%s: index %lld is out of range for %s", fn, (long long)i, lay_print_value(a, v));
}

static bool getn(Arena *a, const LayValue *v, const int64_t *t, int n, LayValue *out, const char *fn, LayError *err)
{
    LayValue cur = *v;
    for (int k = 0; k < n; k++) {
        LayValue nx;
        if (!get1(a, &cur, t[k], &nx, fn, err)) return false;
        cur = nx;
    }
    *out = cur;
    return true;
}

static bool h_get(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                  LayError *err)
{
    (void)n;
    return getn(a, &args[0], t, nt, out, fn, err);
}

static bool size_of(Arena *a, const LayValue *v, LayInt *out, LayError *err)
{
    switch (v->kind) {
    case LAY_V_INT: *out = v->i; return true;
    case LAY_V_TUPLE: return lay_tuple_product(a, v->tuple, out, err);
    case LAY_V_LAYOUT: return lay_size_e(a, &v->layout, out, err);
    case LAY_V_COMPOSED: return lay_size_e(a, &v->composed.outer, out, err);
    case LAY_V_TILER: {
        LayInt p = lay_int_static(1);
        for (int i = 0; i < v->ntiler; i++) {
            LayInt s;
            if (!size_of(a, &v->tiler[i], &s, err) || !lay_mul_e(a, p, s, &p, "size", err)) return false;
        }
        *out = p;
        return true;
    }
    default: return lay_fail(err, 0, "size of %s is not defined", kind_name(v->kind));
    }
}

static bool h_size(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                   LayError *err)
{
    (void)n;
    LayValue x;
    LayInt s;
    if (!getn(a, &args[0], t, nt, &x, fn, err) || !at(size_of(a, &x, &s, err), 0, err)) return false;
    *out = v_int(s);
    return true;
}

static bool h_cosize(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                     LayError *err)
{
    (void)n;
    LayValue x = args[0];
    if (x.kind == LAY_V_COMPOSED) x = v_layout(x.composed.outer);
    if (!getn(a, &x, t, nt, &x, fn, err)) return false;
    LayLayout l;
    LayInt c;
    if (!want_layout(fn, &x, 0, false, &l, a, err) || !at(lay_cosize(a, &l, &c, err), 0, err)) return false;
    *out = v_int(c);
    return true;
}

static int value_rank(const LayValue *v)
{
    switch (v->kind) {
    case LAY_V_TUPLE: return v->tuple->n;
    case LAY_V_LAYOUT: return lay_layout_rank(&v->layout);
    case LAY_V_COMPOSED: return lay_layout_rank(&v->composed.outer);
    case LAY_V_TILER: return v->ntiler;
    case LAY_V_LIST: return v->nlist;
    default: return 1;
    }
}

static bool h_rank(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                   LayError *err)
{
    (void)n;
    LayValue x;
    if (!getn(a, &args[0], t, nt, &x, fn, err)) return false;
    *out = v_int(lay_int_static(value_rank(&x)));
    return true;
}

static int value_depth(const LayValue *v)
{
    switch (v->kind) {
    case LAY_V_TUPLE: return lay_tuple_depth(v->tuple);
    case LAY_V_LAYOUT: return lay_tuple_depth(v->layout.shape);
    case LAY_V_COMPOSED: return lay_tuple_depth(v->composed.outer.shape);
    case LAY_V_TILER:
    case LAY_V_LIST: {
        int n = v->kind == LAY_V_TILER ? v->ntiler : v->nlist;
        const LayValue *e = v->kind == LAY_V_TILER ? v->tiler : v->list;
        int d = 0;
        for (int i = 0; i < n; i++) {
            int x = value_depth(&e[i]);
            if (x > d) d = x;
        }
        return d + 1;
    }
    default: return 0;
    }
}

static bool h_depth(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                    LayError *err)
{
    (void)n;
    LayValue x;
    if (!getn(a, &args[0], t, nt, &x, fn, err)) return false;
    *out = v_int(lay_int_static(value_depth(&x)));
    return true;
}

static bool h_shape_stride(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n,
                           LayValue *out, LayError *err)
{
    (void)n;
    bool is_shape = strcmp(fn, "shape") == 0;
    LayValue x = args[0];
    if (x.kind == LAY_V_COMPOSED) x = v_layout(x.composed.outer);
    if (is_shape && (x.kind == LAY_V_INT || x.kind == LAY_V_TUPLE)) {
        /* shape(shape) is itself, as in CuTe */
        return getn(a, &x, t, nt, out, fn, err);
    }
    if (is_shape && x.kind == LAY_V_TILER) {
        /* the shape of a tiler: the shape of each mode */
        LayTuple *r = lay_tuple_empty(a, x.ntiler);
        for (int i = 0; i < x.ntiler; i++) {
            LayTiler tl;
            if (!lay_tiler_from_value(a, &x.tiler[i], &tl, 0, err)) return false;
            if (tl.is_tuple) return lay_fail(err, 0, "shape of a nested tiler is not supported");
            r->elems[i] = tl.l.shape;
        }
        LayValue tv = v_tuple(r);
        return getn(a, &tv, t, nt, out, fn, err);
    }
    if (!getn(a, &x, t, nt, &x, fn, err)) return false;
    if (x.kind != LAY_V_LAYOUT)
        return lay_fail(err, 0, "argument 1 of %s must be a layout, got %s", fn, kind_name(x.kind));
    *out = v_tuple(is_shape ? x.layout.shape : x.layout.stride);
    return true;
}

/* select<I...>(x) / take<B,E>(x): pick top-level modes */
static bool pick(Arena *a, const char *fn, const LayValue *x, const int64_t *idx, int k, LayValue *out, LayError *err)
{
    int r = value_rank(x);
    for (int i = 0; i < k; i++)
        if (idx[i] < 0 || idx[i] >= r)
            return lay_fail(err, 0, "%s: index %lld is out of range for %s", fn, (long long)idx[i],
                            lay_print_value(a, x));
    if (x->kind == LAY_V_TUPLE || x->kind == LAY_V_INT) {
        LayTuple *src = x->kind == LAY_V_INT ? lay_tuple_leaf(a, x->i) : x->tuple;
        LayTuple *res = lay_tuple_empty(a, k);
        for (int i = 0; i < k; i++) res->elems[i] = (LayTuple *)lay_tuple_get(src, (int)idx[i]);
        LayValue v;
        memset(&v, 0, sizeof v);
        v.kind = LAY_V_TUPLE;
        v.tuple = res;
        *out = v;
        return true;
    }
    if (x->kind == LAY_V_LAYOUT) {
        LayLayout *ms = ARENA_ARRAY(a, LayLayout, k > 0 ? k : 1);
        for (int i = 0; i < k; i++) ms[i] = lay_layout_mode(&x->layout, (int)idx[i]);
        *out = v_layout(lay_layout_cat(a, k, ms));
        return true;
    }
    return lay_fail(err, 0, "argument 1 of %s must be a tuple or a layout, got %s", fn, kind_name(x->kind));
}

static bool h_select(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                     LayError *err)
{
    (void)n;
    return pick(a, fn, &args[0], t, nt, out, err);
}

static bool h_take(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                   LayError *err)
{
    (void)n;
    (void)nt;
    int r = value_rank(&args[0]);
    if (t[0] < 0 || t[1] < t[0] || t[1] > r)
        return lay_fail(err, 0, "%s<%lld,%lld>: range out of bounds for rank %d", fn, (long long)t[0], (long long)t[1],
                        r);
    int k = (int)(t[1] - t[0]);
    int64_t *idx = ARENA_ARRAY(a, int64_t, k > 0 ? k : 1);
    for (int i = 0; i < k; i++) idx[i] = t[0] + i;
    return pick(a, fn, &args[0], idx, k, out, err);
}

static LayTuple *group_t(Arena *a, const LayTuple *x, int b, int e)
{
    LayTuple *src = lay_tuple_wrap(a, (LayTuple *)x);
    int n = src->n - (e - b) + 1;
    LayTuple *r = lay_tuple_empty(a, n), *g = lay_tuple_empty(a, e - b);
    for (int i = b; i < e; i++) g->elems[i - b] = src->elems[i];
    int k = 0;
    for (int i = 0; i < b; i++) r->elems[k++] = src->elems[i];
    r->elems[k++] = g;
    for (int i = e; i < src->n; i++) r->elems[k++] = src->elems[i];
    return r;
}

static bool h_group(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                    LayError *err)
{
    (void)n;
    (void)nt;
    int r = value_rank(&args[0]);
    if (t[0] < 0 || t[1] < t[0] || t[1] > r)
        return lay_fail(err, 0, "%s<%lld,%lld>: range out of bounds for rank %d", fn, (long long)t[0], (long long)t[1],
                        r);
    int b = (int)t[0], e = (int)t[1];
    if (args[0].kind == LAY_V_LAYOUT) {
        *out = v_layout(lay_layout_of(group_t(a, args[0].layout.shape, b, e), group_t(a, args[0].layout.stride, b, e)));
        return true;
    }
    LayTuple *x = NULL;
    if (!want_tuple(fn, args, 0, &x, a, err)) return false;
    LayValue v;
    memset(&v, 0, sizeof v);
    v.kind = LAY_V_TUPLE;
    v.tuple = group_t(a, x, b, e);
    *out = v;
    return true;
}

static bool h_flatten(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                      LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    if (args[0].kind == LAY_V_LAYOUT) {
        *out = v_layout(
            lay_layout_of(lay_tuple_flatten(a, args[0].layout.shape), lay_tuple_flatten(a, args[0].layout.stride)));
        return true;
    }
    LayTuple *x = NULL;
    if (!want_tuple(fn, args, 0, &x, a, err)) return false;
    LayTuple *f = lay_tuple_flatten(a, x);
    LayValue v;
    memset(&v, 0, sizeof v);
    if (f->is_leaf)
        v = v_int(f->leaf);
    else {
        v.kind = LAY_V_TUPLE;
        v.tuple = f;
    }
    *out = v;
    return true;
}

/* append(x, y), append<N>(x[, y]); prepend likewise.  Padding element: 1
 * for tuples, 1:0 for layouts. */
static LayTuple *pend(Arena *a, const LayTuple *x, LayTuple *y, bool front, int64_t N, bool has_n)
{
    if (!has_n) return front ? lay_tuple_prepend(a, x, y) : lay_tuple_append(a, x, y);
    int r = lay_tuple_rank(x);
    if (N <= r) return (LayTuple *)x;
    LayTuple *src = lay_tuple_wrap(a, (LayTuple *)x);
    LayTuple *res = lay_tuple_empty(a, (int)N);
    int pad = (int)N - r;
    for (int i = 0; i < (int)N; i++) {
        if (front)
            res->elems[i] = i < pad ? y : src->elems[i - pad];
        else
            res->elems[i] = i < r ? src->elems[i] : y;
    }
    return res;
}

static bool h_pend(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                   LayError *err)
{
    bool front = strcmp(fn, "prepend") == 0, has_n = nt == 1;
    if (!has_n && n != 2) return lay_fail(err, -1, "%s expects 2 arguments, got %d", fn, n);
    if (has_n && (t[0] < 0 || t[0] > 1024)) return lay_fail(err, -1, "%s<%lld>: bad rank", fn, (long long)t[0]);
    if (has_n && t[0] < value_rank(&args[0]))
        return lay_fail(err, 0, "%s<%lld>: %s already has more modes", fn, (long long)t[0],
                        lay_print_value(a, &args[0]));
    if (args[0].kind == LAY_V_LAYOUT) {
        LayLayout y = lay_layout_int(a, 1, 0);
        if (n == 2 && !want_layout(fn, args, 1, true, &y, a, err)) return false;
        *out = v_layout(lay_layout_of(pend(a, args[0].layout.shape, y.shape, front, has_n ? t[0] : 0, has_n),
                                      pend(a, args[0].layout.stride, y.stride, front, has_n ? t[0] : 0, has_n)));
        return true;
    }
    LayTuple *x = NULL, *y = lay_tuple_int(a, 1);
    if (!want_tuple(fn, args, 0, &x, a, err)) return false;
    if (n == 2 && !want_tuple(fn, args, 1, &y, a, err)) return false;
    LayValue v;
    memset(&v, 0, sizeof v);
    v.kind = LAY_V_TUPLE;
    v.tuple = pend(a, x, y, front, has_n ? t[0] : 0, has_n);
    *out = v;
    return true;
}

/* ---- index maps ---- */

static bool h_crd2idx(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                      LayError *err)
{
    (void)t;
    (void)nt;
    LayTuple *crd = NULL;
    if (!want_tuple(fn, args, 0, &crd, a, err)) return false;
    LayInt r;
    if (n == 2 && args[1].kind == LAY_V_COMPOSED) {
        if (!lay_composed_crd2idx(a, crd, &args[1].composed, &r, err)) return false;
    } else if (n == 2 && args[1].kind == LAY_V_LAYOUT) {
        if (!lay_crd2idx(a, crd, &args[1].layout, &r, err)) return false;
    } else {
        /* crd2idx(crd, shape[, stride]); shape alone means compact column-major */
        LayTuple *shape = NULL;
        LayLayout l;
        if (!want_shape(fn, args, 1, &shape, a, err)) return false;
        if (n == 3) {
            LayTuple *stride = NULL;
            if (!want_tuple(fn, args, 2, &stride, a, err)) return false;
            if (!lay_layout_make(a, shape, stride, &l, err)) return at(false, 2, err);
        } else if (!lay_compact_layout(a, shape, &l, err)) {
            return false;
        }
        if (!lay_crd2idx(a, crd, &l, &r, err)) return false;
    }
    *out = v_int(r);
    return true;
}

static bool h_idx2crd(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                      LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayTuple *idx = NULL, *shape = NULL, *r = NULL;
    if (!want_tuple(fn, args, 0, &idx, a, err) || !want_shape(fn, args, 1, &shape, a, err)) return false;
    if (idx->is_leaf) {
        if (!lay_idx2crd(a, idx->leaf, shape, &r, err)) return false;
    } else {
        /* a tuple index splits mode by mode */
        if (shape->is_leaf || shape->n != idx->n)
            return lay_fail(err, 0, "index %s does not match shape %s", lay_print_tuple(a, idx),
                            lay_print_tuple(a, shape));
        r = lay_tuple_empty(a, idx->n);
        for (int i = 0; i < idx->n; i++) {
            LayValue sub[2] = {v_tuple(idx->elems[i]), v_tuple(shape->elems[i])};
            LayValue o;
            if (!h_idx2crd(a, fn, t, nt, sub, 2, &o, err)) return false;
            r->elems[i] = o.kind == LAY_V_INT ? lay_tuple_leaf(a, o.i) : o.tuple;
        }
    }
    *out = v_tuple(r);
    return true;
}

/* ---- algebra ---- */

static bool h_coalesce(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                       LayError *err)
{
    (void)t;
    (void)nt;
    if (args[0].kind == LAY_V_TUPLE || args[0].kind == LAY_V_INT) {
        if (n != 1) return lay_fail(err, 1, "coalesce of a shape takes no profile");
        LayTuple *r = NULL;
        if (!lay_coalesce_shape(a, args[0].kind == LAY_V_INT ? lay_tuple_leaf(a, args[0].i) : args[0].tuple, &r, err))
            return false;
        *out = v_tuple(r);
        return true;
    }
    LayLayout l, r;
    if (!want_layout(fn, args, 0, false, &l, a, err)) return false;
    if (n == 2) {
        LayTuple *prof = NULL;
        if (!want_tuple(fn, args, 1, &prof, a, err)) return false;
        if (!at(lay_coalesce_profile(a, &l, prof, &r, err), 0, err)) return false;
    } else if (!at(lay_coalesce(a, &l, &r, err), 0, err)) {
        return false;
    }
    *out = v_layout(r);
    return true;
}

static bool h_filter(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                     LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayLayout l, r;
    if (!want_layout(fn, args, 0, false, &l, a, err)) return false;
    bool ok = strcmp(fn, "filter_zeros") == 0 ? lay_filter_zeros(a, &l, &r, err) : lay_filter(a, &l, &r, err);
    if (!at(ok, 0, err)) return false;
    *out = v_layout(r);
    return true;
}

static bool h_composition(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n,
                          LayValue *out, LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    const LayValue *x = &args[0];
    if (x->kind == LAY_V_SWIZZLE || x->kind == LAY_V_COMPOSED) {
        /* swizzle o layout: a composed layout (swizzle, offset 0, layout) */
        LayComposed c;
        if (x->kind == LAY_V_SWIZZLE) {
            c.sw = x->sw;
            c.offset = lay_int_static(0);
            if (args[1].kind != LAY_V_LAYOUT)
                return lay_fail(err, 1, "argument 2 of %s must be a layout when argument 1 is a swizzle, got %s", fn,
                                kind_name(args[1].kind));
            c.outer = args[1].layout;
        } else {
            c = x->composed;
            LayTiler tl;
            if (!lay_tiler_from_value(a, &args[1], &tl, 1, err)) return false;
            if (!at(lay_composition_tiler(a, &x->composed.outer, &tl, &c.outer, err), 1, err)) return false;
        }
        LayValue v;
        memset(&v, 0, sizeof v);
        v.kind = LAY_V_COMPOSED;
        v.composed = c;
        *out = v;
        return true;
    }
    LayLayout l, r;
    LayTiler tl;
    if (!want_layout(fn, args, 0, false, &l, a, err)) return false;
    if (args[1].kind == LAY_V_SWIZZLE || args[1].kind == LAY_V_COMPOSED)
        return lay_fail(err, 1, "composition of a layout with %s is not supported", kind_name(args[1].kind));
    if (!lay_tiler_from_value(a, &args[1], &tl, 1, err)) return false;
    if (!at(lay_composition_tiler(a, &l, &tl, &r, err), 1, err)) return false;
    *out = v_layout(r);
    return true;
}

static bool h_complement(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                         LayError *err)
{
    (void)t;
    (void)nt;
    LayLayout l, r;
    if (!want_layout(fn, args, 0, false, &l, a, err)) return false;
    if (n == 2) {
        LayTuple *ct = NULL;
        if (args[1].kind == LAY_V_LAYOUT)
            ct = args[1].layout.shape; /* CuTe: shape(cotarget) */
        else if (args[1].kind == LAY_V_INT || args[1].kind == LAY_V_TUPLE) {
            if (!want_shape(fn, args, 1, &ct, a, err)) return false;
        } else {
            return lay_fail(err, 1, "argument 2 of complement must be an integer or a shape, got %s",
                            kind_name(args[1].kind));
        }
        if (!at(lay_complement(a, &l, ct, &r, err), 0, err)) return false;
    } else if (!at(lay_complement1(a, &l, &r, err), 0, err)) {
        return false;
    }
    *out = v_layout(r);
    return true;
}

static bool h_inverse(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                      LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayLayout l, r;
    if (!want_layout(fn, args, 0, false, &l, a, err)) return false;
    bool ok = fn[0] == 'r' ? lay_right_inverse(a, &l, &r, err) : lay_left_inverse(a, &l, &r, err);
    if (!at(ok, 0, err)) return false;
    *out = v_layout(r);
    return true;
}

static int kind_of(const char *fn)
{
    if (strncmp(fn, "logical", 7) == 0) return 0;
    if (strncmp(fn, "zipped", 6) == 0) return 1;
    if (strncmp(fn, "tiled", 5) == 0) return 2;
    return 3;
}

static bool h_divide(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                     LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayLayout l, r;
    LayTiler tl;
    bool composed = args[0].kind == LAY_V_COMPOSED;
    if (composed)
        l = args[0].composed.outer;
    else if (!want_layout(fn, args, 0, false, &l, a, err))
        return false;
    if (!lay_tiler_from_value(a, &args[1], &tl, 1, err)) return false;
    bool ok = strstr(fn, "divide") ? lay_divide_kind(a, kind_of(fn), &l, &tl, &r, err)
                                   : lay_product_kind(a, kind_of(fn), &l, &tl, &r, err);
    if (!at(ok, 1, err)) return false;
    if (composed) {
        /* the swizzle and offset act after the outer layout: divide the outer */
        LayValue v;
        memset(&v, 0, sizeof v);
        v.kind = LAY_V_COMPOSED;
        v.composed = args[0].composed;
        v.composed.outer = r;
        *out = v;
        return true;
    }
    *out = v_layout(r);
    return true;
}

static bool h_blocked(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                      LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayLayout x, y, r;
    if (!want_layout(fn, args, 0, false, &x, a, err) || !want_layout(fn, args, 1, true, &y, a, err)) return false;
    if (!at(lay_blocked_product(a, &x, &y, fn[0] == 'r', &r, err), 1, err)) return false;
    *out = v_layout(r);
    return true;
}

static bool h_tile_to_shape(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n,
                            LayValue *out, LayError *err)
{
    (void)t;
    (void)nt;
    LayLayout x, r;
    LayTuple *trg = NULL, *ord = NULL;
    if (!want_layout(fn, args, 0, false, &x, a, err) || !want_shape(fn, args, 1, &trg, a, err)) return false;
    if (n == 3 && !want_tuple(fn, args, 2, &ord, a, err)) return false;
    if (!at(lay_tile_to_shape(a, &x, trg, ord, &r, err), 1, err)) return false;
    *out = v_layout(r);
    return true;
}

static bool h_layout_tv(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                        LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayLayout thr, val, tv;
    LayTuple *tiler = NULL;
    if (!want_layout(fn, args, 0, false, &thr, a, err) || !want_layout(fn, args, 1, false, &val, a, err)) return false;
    if (!at(lay_make_layout_tv(a, &thr, &val, &tiler, &tv, err), 0, err)) return false;
    LayValue v;
    memset(&v, 0, sizeof v);
    v.kind = LAY_V_LIST;
    v.nlist = 2;
    v.list = ARENA_ARRAY(a, LayValue, 2);
    v.list[0] = v_tuple(tiler);
    v.list[1] = v_layout(tv);
    *out = v;
    return true;
}

static bool h_cast(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                   LayError *err)
{
    (void)nt;
    (void)n;
    LayLayout l, r;
    if (t[0] <= 0) return lay_fail(err, -1, "%s<%lld>: N must be positive", fn, (long long)t[0]);
    if (!want_layout(fn, args, 0, false, &l, a, err)) return false;
    bool ok = fn[0] == 'u' ? lay_upcast(a, &l, t[0], &r, err) : lay_downcast(a, &l, t[0], &r, err);
    if (!at(ok, 0, err)) return false;
    *out = v_layout(r);
    return true;
}

static bool h_common(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                     LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayLayout x, y, r;
    if (!want_layout(fn, args, 0, false, &x, a, err) || !want_layout(fn, args, 1, false, &y, a, err)) return false;
    if (strcmp(fn, "max_common_vector") == 0) {
        LayInt v;
        if (!at(lay_max_common_vector(a, &x, &y, &v, err), 0, err)) return false;
        *out = v_int(v);
        return true;
    }
    if (!at(lay_max_common_layout(a, &x, &y, &r, err), 0, err)) return false;
    *out = v_layout(r);
    return true;
}

static bool h_div(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                  LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayTuple *x = NULL, *y = NULL, *r = NULL;
    if (!want_tuple(fn, args, 0, &x, a, err)) return false;
    if (args[1].kind == LAY_V_LAYOUT && strcmp(fn, "ceil_div") == 0) {
        /* ceil_div(target, tiler layout) = shape(complement(tiler, shape(target))) */
        LayLayout c;
        if (!at(lay_complement(a, &args[1].layout, x, &c, err), 1, err)) return false;
        *out = v_tuple(c.shape);
        return true;
    }
    if (!want_tuple(fn, args, 1, &y, a, err)) return false;
    bool ok =
        strcmp(fn, "ceil_div") == 0 ? lay_ceil_div_tuple(a, x, y, &r, err) : lay_shape_div_tuple(a, x, y, &r, err);
    if (!ok) return false;
    *out = v_tuple(r);
    return true;
}

static bool h_product(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                      LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayTuple *x = NULL, *r = NULL;
    if (!want_tuple(fn, args, 0, &x, a, err)) return false;
    if (strcmp(fn, "product_each") == 0) {
        if (!lay_product_each(a, x, &r, err)) return false;
        *out = v_tuple(r);
        return true;
    }
    LayInt p;
    if (!lay_tuple_product(a, x, &p, err)) return false;
    *out = v_int(p);
    return true;
}

static bool h_make_layout(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n,
                          LayValue *out, LayError *err)
{
    (void)t;
    (void)nt;
    if (args[0].kind == LAY_V_LAYOUT) {
        /* concatenation of layouts into modes */
        LayLayout *ms = ARENA_ARRAY(a, LayLayout, n);
        for (int i = 0; i < n; i++)
            if (!want_layout(fn, args, i, false, &ms[i], a, err)) return false;
        *out = v_layout(lay_layout_cat(a, n, ms));
        return true;
    }
    if (n > 2) return lay_fail(err, 2, "make_layout of a shape expects 1 or 2 arguments, got %d", n);
    LayTuple *s = NULL;
    LayLayout l;
    if (!want_shape(fn, args, 0, &s, a, err)) return false;
    if (n == 2) {
        LayTuple *d = NULL;
        if (!want_tuple(fn, args, 1, &d, a, err)) return false;
        if (!lay_layout_make(a, s, d, &l, err)) return at(false, 1, err);
    } else if (!lay_compact_layout(a, s, &l, err)) {
        return false;
    }
    *out = v_layout(l);
    return true;
}

static bool h_ordered(Arena *a, const char *fn, const int64_t *t, int nt, const LayValue *args, int n, LayValue *out,
                      LayError *err)
{
    (void)t;
    (void)nt;
    (void)n;
    LayTuple *s = NULL, *o = NULL;
    LayLayout l;
    if (!want_shape(fn, args, 0, &s, a, err) || !want_tuple(fn, args, 1, &o, a, err)) return false;
    if (!lay_make_ordered_layout(a, s, o, &l, err)) return false;
    *out = v_layout(l);
    return true;
}

static const Fn FNS[] = {
    {"size", 1, 1, 0, 8, h_size},
    {"cosize", 1, 1, 0, 8, h_cosize},
    {"rank", 1, 1, 0, 8, h_rank},
    {"depth", 1, 1, 0, 8, h_depth},
    {"shape", 1, 1, 0, 8, h_shape_stride},
    {"stride", 1, 1, 0, 8, h_shape_stride},
    {"get", 1, 1, 1, 8, h_get},
    {"layout", 1, 1, 0, 8, h_get},
    {"select", 1, 1, 1, 64, h_select},
    {"take", 1, 1, 2, 2, h_take},
    {"flatten", 1, 1, 0, 0, h_flatten},
    {"group", 1, 1, 2, 2, h_group},
    {"append", 1, 2, 0, 1, h_pend},
    {"prepend", 1, 2, 0, 1, h_pend},
    {"crd2idx", 2, 3, 0, 0, h_crd2idx},
    {"idx2crd", 2, 2, 0, 0, h_idx2crd},
    {"coalesce", 1, 2, 0, 0, h_coalesce},
    {"filter", 1, 1, 0, 0, h_filter},
    {"filter_zeros", 1, 1, 0, 0, h_filter},
    {"composition", 2, 2, 0, 0, h_composition},
    {"complement", 1, 2, 0, 0, h_complement},
    {"right_inverse", 1, 1, 0, 0, h_inverse},
    {"left_inverse", 1, 1, 0, 0, h_inverse},
    {"logical_divide", 2, 2, 0, 0, h_divide},
    {"zipped_divide", 2, 2, 0, 0, h_divide},
    {"tiled_divide", 2, 2, 0, 0, h_divide},
    {"flat_divide", 2, 2, 0, 0, h_divide},
    {"logical_product", 2, 2, 0, 0, h_divide},
    {"zipped_product", 2, 2, 0, 0, h_divide},
    {"tiled_product", 2, 2, 0, 0, h_divide},
    {"flat_product", 2, 2, 0, 0, h_divide},
    {"blocked_product", 2, 2, 0, 0, h_blocked},
    {"raked_product", 2, 2, 0, 0, h_blocked},
    {"tile_to_shape", 2, 3, 0, 0, h_tile_to_shape},
    {"make_layout_tv", 2, 2, 0, 0, h_layout_tv},
    {"upcast", 1, 1, 1, 1, h_cast},
    {"downcast", 1, 1, 1, 1, h_cast},
    {"max_common_layout", 2, 2, 0, 0, h_common},
    {"max_common_vector", 2, 2, 0, 0, h_common},
    {"ceil_div", 2, 2, 0, 0, h_div},
    {"shape_div", 2, 2, 0, 0, h_div},
    {"product", 1, 1, 0, 0, h_product},
    {"product_each", 1, 1, 0, 0, h_product},
    {"make_layout", 1, 64, 0, 0, h_make_layout},
    {"make_ordered_layout", 2, 2, 0, 0, h_ordered},
};

static const Fn *find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof FNS / sizeof FNS[0]; i++)
        if (strcmp(FNS[i].name, name) == 0) return &FNS[i];
    return NULL;
}

bool lay_is_function(const char *name) { return find(name) != NULL; }

static const char *plural(int n) { return n == 1 ? "" : "s"; }

bool lay_call(Arena *a, const char *name, const int64_t *targs, int ntargs, const LayValue *args, int nargs,
              LayValue *out, LayError *err)
{
    LayError dummy;
    if (!err) err = &dummy;
    err->arg = -1;
    err->msg[0] = 0;
    const Fn *f = find(name);
    if (!f) return lay_fail(err, -1, "unknown layout function '%s'", name ? name : "");
    if (nargs < f->min || nargs > f->max) {
        if (f->min == f->max)
            return lay_fail(err, -1, "%s expects %d argument%s, got %d", name, f->min, plural(f->min), nargs);
        return lay_fail(err, -1, "%s expects %d to %d arguments, got %d", name, f->min, f->max, nargs);
    }
    if (ntargs < 0 || (ntargs > 0 && !targs)) return lay_fail(err, -1, "%s: malformed template arguments", name);
    if (ntargs < f->tmin || ntargs > f->tmax) {
        if (f->tmax == 0) return lay_fail(err, -1, "%s takes no template arguments", name);
        if (f->tmin == f->tmax)
            return lay_fail(err, -1, "%s expects %d template argument%s, got %d", name, f->tmin, plural(f->tmin),
                            ntargs);
        return lay_fail(err, -1, "%s expects %d to %d template arguments, got %d", name, f->tmin, f->tmax, ntargs);
    }
    if (nargs > 0 && !args) return lay_fail(err, -1, "%s: missing arguments", name);
    for (int i = 0; i < nargs; i++)
        if (!lay_value_check(&args[i], i, err)) return false;
    LayValue r;
    memset(&r, 0, sizeof r);
    if (!f->h(a, name, targs, ntargs, args, nargs, &r, err)) {
        if (!err->msg[0]) lay_fail(err, err->arg, "%s failed", name);
        return false;
    }
    *out = r;
    return true;
}
