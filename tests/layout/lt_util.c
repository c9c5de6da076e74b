/* lt_util.c: see lt_util.h.  The parser is deliberately small: it exists so
 * that test expectations can be written in the same notation as CuTe's
 * documentation; the real parser belongs to the compiler's front end. */
#include "lt_util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int lt_failures = 0, lt_checks = 0;

typedef struct P {
    Arena *a;
    const char *s;
    LayError *err;
    int depth;
} P;

static void ws(P *p)
{
    while (isspace((unsigned char)*p->s)) p->s++;
}

static bool perr(P *p, const char *what)
{
    snprintf(p->err->msg, sizeof p->err->msg, "parse error: %s at '%.20s'", what, p->s);
    p->err->arg = -2;
    return false;
}

static bool expr(P *p, LayValue *out);

static bool as_tuple(Arena *a, const LayValue *v, LayTuple **t)
{
    if (v->kind == LAY_V_INT) {
        *t = lay_tuple_leaf(a, v->i);
        return true;
    }
    if (v->kind == LAY_V_TUPLE) {
        *t = v->tuple;
        return true;
    }
    return false;
}

static bool primary(P *p, LayValue *out)
{
    ws(p);
    memset(out, 0, sizeof *out);
    if (++p->depth > 20000) return perr(p, "too deep");
    if (*p->s == '(') {
        p->s++;
        LayValue *el = NULL;
        int n = 0, cap = 0;
        bool comma = false;
        ws(p);
        while (*p->s != ')') {
            if (n == cap) {
                cap = cap ? cap * 2 : 4;
                LayValue *ne = arena_alloc(p->a, sizeof(LayValue) * (size_t)cap);
                if (el) memcpy(ne, el, sizeof(LayValue) * (size_t)n);
                el = ne;
            }
            if (!expr(p, &el[n])) return false;
            n++;
            ws(p);
            if (*p->s == ',') {
                p->s++;
                comma = true;
                ws(p);
                continue;
            }
            if (*p->s != ')') return perr(p, "expected , or )");
        }
        p->s++;
        if (n == 1 && !comma) {
            *out = el[0];
            p->depth--;
            return true;
        }
        bool any_layout = false;
        for (int i = 0; i < n; i++)
            if (el[i].kind != LAY_V_INT && el[i].kind != LAY_V_TUPLE) any_layout = true;
        if (any_layout) {
            out->kind = LAY_V_TILER;
            out->ntiler = n;
            out->tiler = el;
        } else {
            LayTuple **ts = arena_alloc(p->a, sizeof(LayTuple *) * (size_t)(n ? n : 1));
            for (int i = 0; i < n; i++) as_tuple(p->a, &el[i], &ts[i]);
            out->kind = LAY_V_TUPLE;
            out->tuple = lay_tuple_make(p->a, n, ts);
        }
        p->depth--;
        return true;
    }
    if (isdigit((unsigned char)*p->s) || (*p->s == '-' && isdigit((unsigned char)p->s[1]))) {
        char *end;
        long long v = strtoll(p->s, &end, 10);
        p->s = end;
        out->kind = LAY_V_INT;
        out->i = lay_int_static(v);
        p->depth--;
        return true;
    }
    if (isalpha((unsigned char)*p->s) || *p->s == '_') {
        const char *b = p->s;
        while (isalnum((unsigned char)*p->s) || *p->s == '_') p->s++;
        char *name = arena_strndup(p->a, b, (size_t)(p->s - b));
        ws(p);
        int64_t targs[64];
        int nt = 0;
        if (*p->s == '<') {
            p->s++;
            for (;;) {
                ws(p);
                char *end;
                long long v = strtoll(p->s, &end, 10);
                if (end == p->s) return perr(p, "expected template integer");
                p->s = end;
                if (nt < 64) targs[nt++] = v;
                ws(p);
                if (*p->s == ',') {
                    p->s++;
                    continue;
                }
                if (*p->s == '>') {
                    p->s++;
                    break;
                }
                return perr(p, "expected , or >");
            }
            ws(p);
        }
        if (strcmp(name, "Sw") == 0) {
            if (nt != 3) return perr(p, "Sw needs 3 template arguments");
            out->kind = LAY_V_SWIZZLE;
            out->sw.b = (int)targs[0];
            out->sw.m = (int)targs[1];
            out->sw.s = (int)targs[2];
            p->depth--;
            return true;
        }
        if (*p->s == '(') {
            p->s++;
            LayValue args[16];
            int n = 0;
            ws(p);
            while (*p->s != ')') {
                if (n == 16) return perr(p, "too many arguments");
                if (!expr(p, &args[n++])) return false;
                ws(p);
                if (*p->s == ',') {
                    p->s++;
                    continue;
                }
                if (*p->s != ')') return perr(p, "expected , or ) in call");
            }
            p->s++;
            if (!lay_call(p->a, name, targs, nt, args, n, out, p->err)) return false;
            p->depth--;
            return true;
        }
        if (nt) return perr(p, "template arguments without a call");
        out->kind = LAY_V_INT;
        out->i = lay_int_sym(p->a, name, NULL);
        p->depth--;
        return true;
    }
    return perr(p, "unexpected character");
}

static bool expr(P *p, LayValue *out)
{
    if (!primary(p, out)) return false;
    ws(p);
    if (*p->s == ':') {
        p->s++;
        LayValue d;
        if (!primary(p, &d)) return false;
        LayTuple *s, *t;
        if (!as_tuple(p->a, out, &s) || !as_tuple(p->a, &d, &t)) return perr(p, "layout needs int tuples");
        LayLayout l;
        if (!lay_layout_make(p->a, s, t, &l, p->err)) return false;
        memset(out, 0, sizeof *out);
        out->kind = LAY_V_LAYOUT;
        out->layout = l;
    }
    return true;
}

bool lt_eval(Arena *a, const char *src, LayValue *out, LayError *err)
{
    P p = {a, src, err, 0};
    err->arg = -1;
    err->msg[0] = 0;
    if (!expr(&p, out)) return false;
    ws(&p);
    if (*p.s) return perr(&p, "trailing input");
    return true;
}

void lt_expect(const char *src, const char *want)
{
    Arena a;
    arena_init(&a);
    LayValue v;
    LayError e;
    lt_checks++;
    if (!lt_eval(&a, src, &v, &e)) {
        lt_failures++;
        fprintf(stderr, "FAILED %s\n  expected %s\n  got error: %s (arg %d)\n", src, want, e.msg, e.arg);
    } else {
        const char *got = lay_print_value(&a, &v);
        if (strcmp(got, want) != 0) {
            lt_failures++;
            fprintf(stderr, "FAILED %s\n  expected %s\n  got      %s\n", src, want, got);
        }
    }
    arena_free(&a);
}

void lt_expect_error(const char *src, const char *msg, int arg)
{
    Arena a;
    arena_init(&a);
    LayValue v;
    LayError e;
    lt_checks++;
    if (lt_eval(&a, src, &v, &e)) {
        lt_failures++;
        fprintf(stderr, "FAILED %s\n  expected error: %s\n  got value %s\n", src, msg, lay_print_value(&a, &v));
    } else if (strcmp(e.msg, msg) != 0 || (arg != -9 && e.arg != arg)) {
        lt_failures++;
        fprintf(stderr, "FAILED %s\n  expected error: %s (arg %d)\n  got error:      %s (arg %d)\n", src, msg, arg,
                e.msg, e.arg);
    }
    arena_free(&a);
}

bool lt_expr_eval(const LayExpr *e, int n, const char *const *names, const int64_t *vals, int64_t *out)
{
    if (!e) return false;
    int64_t x = 0, y = 0;
    switch (e->op) {
    case LAY_E_CONST: *out = e->value; return true;
    case LAY_E_SYM:
        for (int i = 0; i < n; i++)
            if (e->name && strcmp(e->name, names[i]) == 0) {
                *out = vals[i];
                return true;
            }
        return false;
    default: break;
    }
    if (!lt_expr_eval(e->a, n, names, vals, &x) || !lt_expr_eval(e->b, n, names, vals, &y)) return false;
    switch (e->op) {
    case LAY_E_ADD: *out = x + y; return true;
    case LAY_E_SUB: *out = x - y; return true;
    case LAY_E_MUL: *out = x * y; return true;
    case LAY_E_DIV:
        if (y <= 0 || x < 0) return false;
        *out = x / y;
        return true;
    case LAY_E_CEILDIV:
        if (y <= 0 || x < 0) return false;
        *out = (x + y - 1) / y;
        return true;
    case LAY_E_MOD:
        if (y <= 0 || x < 0) return false;
        *out = x % y;
        return true;
    case LAY_E_MIN: *out = x < y ? x : y; return true;
    case LAY_E_MAX: *out = x > y ? x : y; return true;
    case LAY_E_XOR: *out = x ^ y; return true;
    case LAY_E_AND: *out = x & y; return true;
    case LAY_E_SHR: *out = x >> y; return true;
    case LAY_E_SHL: *out = x << y; return true;
    default: return false;
    }
}

bool lt_int_eval(LayInt v, int n, const char *const *names, const int64_t *vals, int64_t *out)
{
    if (v.is_static) {
        *out = v.value;
        return true;
    }
    return lt_expr_eval(v.expr, n, names, vals, out);
}

int lt_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, lt_checks, lt_failures);
    return lt_failures ? 1 : 0;
}
