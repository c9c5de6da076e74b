/* layout_internal.h: helpers shared by the layout_*.c files and not part of
 * the contract in layout.h.  The algebra works on the public LayTuple /
 * LayLayout types directly; this header adds error reporting, depth limits,
 * a "flat" form (arrays of leaves) that most CuTe algorithms operate on, and
 * the internal entry points of every operation so that lay_call (the name
 * dispatcher) and the operations can call one another. */
#ifndef CUTEC_LAYOUT_INTERNAL_H
#define CUTEC_LAYOUT_INTERNAL_H

#include "layout.h"

#include <stdarg.h>

/* Nesting deeper than this is rejected with an error, so that recursion over
 * user data is bounded (a parser can build a tuple nested 10,000 deep). */
#define LAY_MAX_DEPTH 64
/* Operations that enumerate a domain (tables, svg) refuse larger ones. */
#define LAY_MAX_ENUM (1 << 20)

/* A text growing in the arena, for the renderers (layout_render.c). */
typedef struct LayBuf {
    Arena *a;
    char *p;
    size_t len, cap;
} LayBuf;
void lay_buf_printf(LayBuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* print_svg's colours of threads 0..7 (repeating) */
extern const char *const lay_tv_colors[8];

/* Formats into err->msg, sets err->arg, returns false (so `return lay_fail(...)`). */
bool lay_fail(LayError *err, int arg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "<what> needs a static value, but X is dynamic" when v is dynamic. */
bool lay_need_static(Arena *a, LayInt v, const char *what, int arg, LayError *err);

/* ---- LayInt helpers (layout_int.c) ---- */
static inline bool lay_is(LayInt x, int64_t v) { return x.is_static && x.value == v; }
bool lay_int_same(LayInt x, LayInt y);                /* structurally equal */
bool lay_int_abs(Arena *a, LayInt x, LayInt *out);    /* dynamic assumed >= 0 */
bool lay_int_signum(Arena *a, LayInt x, LayInt *out); /* dynamic assumed > 0 */
bool lay_int_xor(Arena *a, LayInt x, LayInt y, LayInt *out);
bool lay_int_and(Arena *a, LayInt x, LayInt y, LayInt *out);
bool lay_int_shr(Arena *a, LayInt x, LayInt y, LayInt *out);
bool lay_int_shl(Arena *a, LayInt x, LayInt y, LayInt *out);
/* Arithmetic that reports overflow as a LayError naming the operation. */
bool lay_add_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err);
bool lay_mul_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err);
bool lay_cdiv_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err);
bool lay_div_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err);
bool lay_min_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err);

/* ---- tuples (layout_tuple.c) ---- */
LayTuple *lay_tuple_int(Arena *a, int64_t v);
LayTuple *lay_tuple_empty(Arena *a, int n);              /* n modes, elems to fill */
int lay_tuple_rank(const LayTuple *t);                   /* leaf: 1 */
const LayTuple *lay_tuple_get(const LayTuple *t, int i); /* leaf: itself for i == 0 */
/* false when nested deeper than LAY_MAX_DEPTH */
bool lay_tuple_check(const LayTuple *t, int arg, const char *what, LayError *err);
int lay_tuple_depth(const LayTuple *t); /* leaf 0; assumes checked */
int lay_tuple_count_leaves(const LayTuple *t);
/* leaves in order into a fresh array; *n receives the count */
LayInt *lay_tuple_leaves(Arena *a, const LayTuple *t, int *n);
LayTuple *lay_tuple_flatten(Arena *a, const LayTuple *t);
bool lay_tuple_product(Arena *a, const LayTuple *t, LayInt *out, LayError *err);
bool lay_tuple_congruent(const LayTuple *x, const LayTuple *y);
bool lay_tuple_equal(const LayTuple *x, const LayTuple *y);
LayTuple *lay_tuple_from_leaves(Arena *a, int n, const LayInt *v);    /* n == 1: a leaf */
LayTuple *lay_tuple_append(Arena *a, const LayTuple *t, LayTuple *x); /* CuTe append */
LayTuple *lay_tuple_prepend(Arena *a, const LayTuple *t, LayTuple *x);
LayTuple *lay_tuple_wrap(Arena *a, LayTuple *t); /* leaf -> (leaf), tuple unchanged */
/* a tuple congruent with `like` with every leaf replaced by v */
LayTuple *lay_tuple_repeat_like(Arena *a, const LayTuple *like, int64_t v);
/* compact strides of `shape` in column-major order, starting at `start` */
bool lay_compact_left(Arena *a, const LayTuple *shape, LayInt start, LayTuple **out, LayError *err);
bool lay_ceil_div_tuple(Arena *a, const LayTuple *x, const LayTuple *y, LayTuple **out, LayError *err);
bool lay_shape_div_tuple(Arena *a, const LayTuple *x, const LayTuple *y, LayTuple **out, LayError *err);
/* CuTe coalesce(shape): merge neighbouring leaves of equal static-ness */
bool lay_coalesce_shape(Arena *a, const LayTuple *t, LayTuple **out, LayError *err);
bool lay_product_each(Arena *a, const LayTuple *t, LayTuple **out, LayError *err);

/* ---- layouts (layout_core.c) ---- */
LayLayout lay_layout_of(LayTuple *shape, LayTuple *stride);
LayLayout lay_layout_int(Arena *a, int64_t s, int64_t d);
/* mode i of a layout (CuTe layout<i>); a leaf layout has mode 0 itself */
LayLayout lay_layout_mode(const LayLayout *l, int i);
int lay_layout_rank(const LayLayout *l);
/* concatenation: make_layout(l0, l1, ...) -> ((s0,s1,...):(d0,d1,...)) */
LayLayout lay_layout_cat(Arena *a, int n, const LayLayout *ls);
bool lay_compact_layout(Arena *a, const LayTuple *shape, LayLayout *out, LayError *err);
bool lay_cosize(Arena *a, const LayLayout *l, LayInt *out, LayError *err);
bool lay_size_e(Arena *a, const LayLayout *l, LayInt *out, LayError *err);
bool lay_coalesce(Arena *a, const LayLayout *l, LayLayout *out, LayError *err);
bool lay_coalesce_x(Arena *a, const LayLayout *l, LayLayout *out, LayError *err);
bool lay_coalesce_profile(Arena *a, const LayLayout *l, const LayTuple *prof, LayLayout *out, LayError *err);
bool lay_filter(Arena *a, const LayLayout *l, LayLayout *out, LayError *err);
bool lay_filter_zeros(Arena *a, const LayLayout *l, LayLayout *out, LayError *err);
bool lay_crd2idx_sd(Arena *a, const LayTuple *crd, const LayTuple *shape, const LayTuple *stride, LayInt *out,
                    LayError *err);
bool lay_check_layout(const LayLayout *l, int arg, LayError *err);
/* static evaluation for enumeration: all static, crd given as a linear index */
bool lay_eval_static(const LayLayout *l, int64_t idx, int64_t *out);

/* ---- tilers: a layout, or a tuple of tilers (ints are n:1) ---- */
typedef struct LayTiler LayTiler;
struct LayTiler {
    bool is_tuple;
    LayLayout l; /* !is_tuple */
    int n;       /* is_tuple */
    LayTiler *e;
};
/* accept LAY_V_LAYOUT, LAY_V_INT (n:1), LAY_V_TUPLE (shape: each leaf n:1),
 * LAY_V_TILER */
bool lay_tiler_from_value(Arena *a, const LayValue *v, LayTiler *out, int arg, LayError *err);
LayTuple *lay_tiler_guide(Arena *a, const LayTiler *t); /* profile for zip2_by */

/* ---- algebra ---- */
bool lay_composition(Arena *a, const LayLayout *l, const LayLayout *r, LayLayout *out, LayError *err);
bool lay_composition_tiler(Arena *a, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err);
bool lay_complement(Arena *a, const LayLayout *l, const LayTuple *cotarget, LayLayout *out, LayError *err);
bool lay_complement1(Arena *a, const LayLayout *l, LayLayout *out, LayError *err);
bool lay_right_inverse(Arena *a, const LayLayout *l, LayLayout *out, LayError *err);
bool lay_left_inverse(Arena *a, const LayLayout *l, LayLayout *out, LayError *err);
bool lay_logical_divide(Arena *a, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err);
/* kind: 0 logical, 1 zipped, 2 tiled, 3 flat */
bool lay_divide_kind(Arena *a, int kind, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err);
bool lay_logical_product(Arena *a, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err);
bool lay_product_kind(Arena *a, int kind, const LayLayout *l, const LayTiler *t, LayLayout *out, LayError *err);
bool lay_blocked_product(Arena *a, const LayLayout *b, const LayLayout *t, bool raked, LayLayout *out, LayError *err);
bool lay_tile_to_shape(Arena *a, const LayLayout *b, const LayTuple *trg, const LayTuple *order, LayLayout *out,
                       LayError *err);
bool lay_make_ordered_layout(Arena *a, const LayTuple *shape, const LayTuple *order, LayLayout *out, LayError *err);
bool lay_make_layout_tv(Arena *a, const LayLayout *thr, const LayLayout *val, LayTuple **tiler, LayLayout *tv,
                        LayError *err);
bool lay_upcast(Arena *a, const LayLayout *l, int64_t n, LayLayout *out, LayError *err);
bool lay_downcast(Arena *a, const LayLayout *l, int64_t n, LayLayout *out, LayError *err);
bool lay_max_common_layout(Arena *a, const LayLayout *x, const LayLayout *y, LayLayout *out, LayError *err);
bool lay_max_common_vector(Arena *a, const LayLayout *x, const LayLayout *y, LayInt *out, LayError *err);

/* ---- swizzles (layout_swizzle.c) ---- */
bool lay_swizzle_check(LaySwizzle sw, int arg, LayError *err);
bool lay_swizzle_apply(Arena *a, LaySwizzle sw, LayInt x, LayInt *out, LayError *err);
int64_t lay_swizzle_apply_static(LaySwizzle sw, int64_t x);

/* ---- values ---- */
bool lay_value_check(const LayValue *v, int arg, LayError *err); /* depth, congruence */

#endif
