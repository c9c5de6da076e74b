/* layout_int.c: LayInt, the static-or-symbolic integer every shape, stride,
 * coordinate and index is made of.  Static operands fold (with int64
 * overflow checks, since a silent wrap would be a wrong index); anything
 * involving a dynamic operand builds a LayExpr node after the algebraic
 * identities (x*1, x*0, x+0, x/1, x%1, ...) so that code generation sees
 * small trees.  Also the error helpers shared by the whole module. */
#include "layout_internal.h"

#include <stdio.h>
#include <string.h>

bool lay_fail(LayError *err, int arg, const char *fmt, ...)
{
    if (!err) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->arg = arg;
    return false;
}

bool lay_need_static(Arena *a, LayInt v, const char *what, int arg, LayError *err)
{
    if (v.is_static) return true;
    return lay_fail(err, arg, "%s needs a static value, but %s is dynamic", what, lay_print_int(a, v));
}

LayInt lay_int_static(int64_t v)
{
    LayInt r = {.is_static = true, .value = v, .expr = NULL};
    return r;
}

LayInt lay_int_sym(Arena *a, const char *name, void *user)
{
    LayExpr *e = ARENA_NEW(a, LayExpr);
    e->op = LAY_E_SYM;
    e->name = name ? arena_strdup(a, name) : NULL;
    e->user = user;
    LayInt r = {.is_static = false, .value = 0, .expr = e};
    return r;
}

static const LayExpr *as_expr(Arena *a, LayInt x)
{
    if (!x.is_static) return x.expr;
    LayExpr *e = ARENA_NEW(a, LayExpr);
    e->op = LAY_E_CONST;
    e->value = x.value;
    return e;
}

static LayInt mk(Arena *a, LayExprOp op, LayInt x, LayInt y)
{
    LayExpr *e = ARENA_NEW(a, LayExpr);
    e->op = op;
    e->a = as_expr(a, x);
    e->b = as_expr(a, y);
    LayInt r = {.is_static = false, .value = 0, .expr = e};
    return r;
}

static bool expr_same(const LayExpr *x, const LayExpr *y, int depth)
{
    if (x == y) return true;
    if (!x || !y || x->op != y->op || depth > LAY_MAX_DEPTH) return false;
    switch (x->op) {
    case LAY_E_CONST: return x->value == y->value;
    case LAY_E_SYM:
        if (x->user || y->user) return x->user == y->user;
        return x->name && y->name && strcmp(x->name, y->name) == 0;
    default: return expr_same(x->a, y->a, depth + 1) && expr_same(x->b, y->b, depth + 1);
    }
}

bool lay_int_same(LayInt x, LayInt y)
{
    if (x.is_static != y.is_static) return false;
    if (x.is_static) return x.value == y.value;
    return expr_same(x.expr, y.expr, 0);
}

bool lay_int_add(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (x.is_static && y.is_static) {
        int64_t r;
        if (__builtin_add_overflow(x.value, y.value, &r)) return false;
        *out = lay_int_static(r);
        return true;
    }
    if (lay_is(x, 0)) {
        *out = y;
        return true;
    }
    if (lay_is(y, 0)) {
        *out = x;
        return true;
    }
    *out = mk(a, LAY_E_ADD, x, y);
    return true;
}

bool lay_int_sub(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (x.is_static && y.is_static) {
        int64_t r;
        if (__builtin_sub_overflow(x.value, y.value, &r)) return false;
        *out = lay_int_static(r);
        return true;
    }
    if (lay_is(y, 0)) {
        *out = x;
        return true;
    }
    if (lay_int_same(x, y)) {
        *out = lay_int_static(0);
        return true;
    }
    *out = mk(a, LAY_E_SUB, x, y);
    return true;
}

bool lay_int_mul(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (x.is_static && y.is_static) {
        int64_t r;
        if (__builtin_mul_overflow(x.value, y.value, &r)) return false;
        *out = lay_int_static(r);
        return true;
    }
    if (lay_is(x, 0) || lay_is(y, 0)) {
        *out = lay_int_static(0);
        return true;
    }
    if (lay_is(x, 1)) {
        *out = y;
        return true;
    }
    if (lay_is(y, 1)) {
        *out = x;
        return true;
    }
    /* keep constants on the right: (e*c1)*c2 -> e*(c1*c2) */
    if (x.is_static) {
        LayInt t = x;
        x = y;
        y = t;
    }
    if (y.is_static && x.expr->op == LAY_E_MUL && x.expr->b->op == LAY_E_CONST) {
        int64_t r;
        if (!__builtin_mul_overflow(x.expr->b->value, y.value, &r)) {
            LayInt inner = {.is_static = false, .value = 0, .expr = x.expr->a};
            *out = mk(a, LAY_E_MUL, inner, lay_int_static(r));
            return true;
        }
    }
    *out = mk(a, LAY_E_MUL, x, y);
    return true;
}

/* Floor division; the algebra only divides non-negative values by positive
 * ones except for signed strides, where C truncation would differ from
 * floor, so floor is computed explicitly. */
static int64_t floordiv(int64_t x, int64_t y)
{
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q -= 1;
    return q;
}

bool lay_int_div(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (y.is_static && y.value == 0) return false;
    if (x.is_static && y.is_static) {
        if (x.value == INT64_MIN && y.value == -1) return false;
        *out = lay_int_static(floordiv(x.value, y.value));
        return true;
    }
    if (lay_is(y, 1)) {
        *out = x;
        return true;
    }
    if (lay_is(x, 0)) {
        *out = x;
        return true;
    }
    if (lay_int_same(x, y)) {
        *out = lay_int_static(1);
        return true;
    }
    /* (e*c)/c -> e, common after a multiply by a stride */
    if (y.is_static && !x.is_static && x.expr->op == LAY_E_MUL && x.expr->b->op == LAY_E_CONST && y.value > 0 &&
        x.expr->b->value % y.value == 0) {
        LayInt inner = {.is_static = false, .value = 0, .expr = x.expr->a};
        return lay_int_mul(a, inner, lay_int_static(x.expr->b->value / y.value), out);
    }
    *out = mk(a, LAY_E_DIV, x, y);
    return true;
}

bool lay_int_ceildiv(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (y.is_static && y.value == 0) return false;
    if (x.is_static && y.is_static) {
        int64_t t;
        /* CuTe: (x + y - 1) / y, for positive y */
        if (y.value > 0) {
            if (__builtin_add_overflow(x.value, y.value - 1, &t)) {
                *out = lay_int_static(x.value / y.value + (x.value % y.value != 0));
                return true;
            }
            *out = lay_int_static(floordiv(t, y.value));
            return true;
        }
        if (x.value == INT64_MIN && y.value == -1) return false;
        int64_t q = x.value / y.value;
        if (x.value % y.value != 0 && ((x.value < 0) == (y.value < 0))) q += 1;
        *out = lay_int_static(q);
        return true;
    }
    if (lay_is(y, 1)) {
        *out = x;
        return true;
    }
    if (lay_is(x, 0)) {
        *out = x;
        return true;
    }
    if (lay_int_same(x, y)) {
        *out = lay_int_static(1);
        return true;
    }
    *out = mk(a, LAY_E_CEILDIV, x, y);
    return true;
}

bool lay_int_mod(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (y.is_static && y.value == 0) return false;
    if (x.is_static && y.is_static) {
        if (y.value == -1) {
            *out = lay_int_static(0);
            return true;
        }
        int64_t r = x.value % y.value;
        if (r != 0 && ((r < 0) != (y.value < 0))) r += y.value;
        *out = lay_int_static(r);
        return true;
    }
    if (lay_is(y, 1) || lay_is(x, 0)) {
        *out = lay_int_static(0);
        return true;
    }
    if (lay_int_same(x, y)) {
        *out = lay_int_static(0);
        return true;
    }
    *out = mk(a, LAY_E_MOD, x, y);
    return true;
}

bool lay_int_min(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (x.is_static && y.is_static) {
        *out = lay_int_static(x.value < y.value ? x.value : y.value);
        return true;
    }
    if (lay_int_same(x, y)) {
        *out = x;
        return true;
    }
    *out = mk(a, LAY_E_MIN, x, y);
    return true;
}

bool lay_int_max(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (x.is_static && y.is_static) {
        *out = lay_int_static(x.value > y.value ? x.value : y.value);
        return true;
    }
    if (lay_int_same(x, y)) {
        *out = x;
        return true;
    }
    *out = mk(a, LAY_E_MAX, x, y);
    return true;
}

bool lay_int_abs(Arena *a, LayInt x, LayInt *out)
{
    (void)a;
    if (x.is_static) {
        if (x.value == INT64_MIN) return false;
        *out = lay_int_static(x.value < 0 ? -x.value : x.value);
        return true;
    }
    *out = x; /* dynamic strides and sizes are taken to be non-negative */
    return true;
}

bool lay_int_signum(Arena *a, LayInt x, LayInt *out)
{
    (void)a;
    if (x.is_static) {
        *out = lay_int_static(x.value > 0 ? 1 : x.value < 0 ? -1 : 0);
        return true;
    }
    *out = lay_int_static(1);
    return true;
}

bool lay_int_xor(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (x.is_static && y.is_static) {
        *out = lay_int_static(x.value ^ y.value);
        return true;
    }
    if (lay_is(x, 0)) {
        *out = y;
        return true;
    }
    if (lay_is(y, 0)) {
        *out = x;
        return true;
    }
    *out = mk(a, LAY_E_XOR, x, y);
    return true;
}

bool lay_int_and(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (x.is_static && y.is_static) {
        *out = lay_int_static(x.value & y.value);
        return true;
    }
    if (lay_is(x, 0) || lay_is(y, 0)) {
        *out = lay_int_static(0);
        return true;
    }
    *out = mk(a, LAY_E_AND, x, y);
    return true;
}

bool lay_int_shr(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (y.is_static && (y.value < 0 || y.value > 63)) return false;
    if (x.is_static && y.is_static) {
        *out = lay_int_static(x.value >> y.value);
        return true;
    }
    if (lay_is(y, 0) || lay_is(x, 0)) {
        *out = x;
        return true;
    }
    *out = mk(a, LAY_E_SHR, x, y);
    return true;
}

bool lay_int_shl(Arena *a, LayInt x, LayInt y, LayInt *out)
{
    if (y.is_static && (y.value < 0 || y.value > 63)) return false;
    if (x.is_static && y.is_static) {
        if (x.value < 0 || (y.value > 0 && (x.value >> (63 - y.value)) != 0)) return false;
        *out = lay_int_static(x.value << y.value);
        return true;
    }
    if (lay_is(y, 0) || lay_is(x, 0)) {
        *out = x;
        return true;
    }
    *out = mk(a, LAY_E_SHL, x, y);
    return true;
}

/* ---- error-reporting wrappers used by the algebra ---- */

static bool ovf(LayError *err, const char *op) { return lay_fail(err, -1, "value past 64 bits in %s", op); }

bool lay_add_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err)
{
    return lay_int_add(a, x, y, o) || ovf(err, op);
}

bool lay_mul_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err)
{
    return lay_int_mul(a, x, y, o) || ovf(err, op);
}

bool lay_cdiv_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err)
{
    if (lay_is(y, 0)) return lay_fail(err, -1, "division by zero in %s", op);
    return lay_int_ceildiv(a, x, y, o) || ovf(err, op);
}

bool lay_div_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err)
{
    if (lay_is(y, 0)) return lay_fail(err, -1, "division by zero in %s", op);
    return lay_int_div(a, x, y, o) || ovf(err, op);
}

bool lay_min_e(Arena *a, LayInt x, LayInt y, LayInt *o, const char *op, LayError *err)
{
    (void)op;
    (void)err;
    return lay_int_min(a, x, y, o);
}
