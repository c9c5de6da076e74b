/* layout_print.c: the one printer, in CuTe's notation.  Tuples print as
 * "(a,b)" with no spaces, a rank-1 tuple as "(4)" and the empty one as "()"
 * (CuTe's print_tuple); a layout is "shape:stride"; swizzles "Sw<B,M,S>";
 * composed layouts "Sw<3,4,3> o 0 o (8,64):(64,1)".  Static integers print
 * plain (CuTe would write _4); dynamic ones print their expression in C-like
 * infix with minimal parentheses, ceil_div/min/max as calls. */
#include "layout_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct Buf {
    Arena *a;
    char *p;
    size_t len, cap;
} Buf;

static void put(Buf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + n + 1) cap *= 2;
        char *np = arena_alloc(b->a, cap);
        if (b->p) memcpy(np, b->p, b->len);
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void putint(Buf *b, int64_t v)
{
    char t[32];
    snprintf(t, sizeof t, "%lld", (long long)v);
    put(b, t);
}

static char *done(Buf *b)
{
    if (!b->p) put(b, "");
    return b->p;
}

/* C precedence levels: smaller binds tighter */
static int prec(LayExprOp op)
{
    switch (op) {
    case LAY_E_MUL:
    case LAY_E_DIV:
    case LAY_E_MOD: return 3;
    case LAY_E_ADD:
    case LAY_E_SUB: return 4;
    case LAY_E_SHL:
    case LAY_E_SHR: return 5;
    case LAY_E_AND: return 8;
    case LAY_E_XOR: return 9;
    default: return 0; /* atoms and calls */
    }
}

static const char *opstr(LayExprOp op)
{
    switch (op) {
    case LAY_E_ADD: return "+";
    case LAY_E_SUB: return "-";
    case LAY_E_MUL: return "*";
    case LAY_E_DIV: return "/";
    case LAY_E_MOD: return "%";
    case LAY_E_XOR: return "^";
    case LAY_E_AND: return "&";
    case LAY_E_SHR: return ">>";
    case LAY_E_SHL: return "<<";
    case LAY_E_CEILDIV: return "ceil_div";
    case LAY_E_MIN: return "min";
    case LAY_E_MAX: return "max";
    default: return "?";
    }
}

static void pexpr(Buf *b, const LayExpr *e, int depth);

static void pchild(Buf *b, const LayExpr *c, int parent, bool right, int depth)
{
    int p = prec(c->op);
    bool paren = p > parent || (right && p == parent && p != 0) || (c->op == LAY_E_CONST && c->value < 0);
    if (paren) put(b, "(");
    pexpr(b, c, depth);
    if (paren) put(b, ")");
}

static void pexpr(Buf *b, const LayExpr *e, int depth)
{
    if (!e) {
        put(b, "?");
        return;
    }
    if (depth > 200) {
        put(b, "...");
        return;
    }
    switch (e->op) {
    case LAY_E_SYM: put(b, e->name ? e->name : "?"); return;
    case LAY_E_CONST: putint(b, e->value); return;
    case LAY_E_CEILDIV:
    case LAY_E_MIN:
    case LAY_E_MAX:
        put(b, opstr(e->op));
        put(b, "(");
        pexpr(b, e->a, depth + 1);
        put(b, ",");
        pexpr(b, e->b, depth + 1);
        put(b, ")");
        return;
    default: {
        int p = prec(e->op);
        /* + and * are associative, so a left operand of equal rank needs no
         * parentheses; a right one does ("a-(b-c)") */
        pchild(b, e->a, p, false, depth + 1);
        put(b, opstr(e->op));
        bool assoc = e->op == LAY_E_ADD || e->op == LAY_E_MUL || e->op == LAY_E_XOR || e->op == LAY_E_AND;
        int cp = prec(e->b->op);
        bool paren =
            cp > p || (cp == p && !(assoc && e->b->op == e->op)) || (e->b->op == LAY_E_CONST && e->b->value < 0);
        if (paren) put(b, "(");
        pexpr(b, e->b, depth + 1);
        if (paren) put(b, ")");
        return;
    }
    }
}

static void pint(Buf *b, LayInt v)
{
    if (v.is_static)
        putint(b, v.value);
    else
        pexpr(b, v.expr, 0);
}

char *lay_print_int(Arena *a, LayInt v)
{
    Buf b = {a, NULL, 0, 0};
    pint(&b, v);
    return done(&b);
}

static void ptuple(Buf *b, const LayTuple *t, int depth)
{
    if (!t) {
        put(b, "?");
        return;
    }
    if (t->is_leaf) {
        pint(b, t->leaf);
        return;
    }
    if (depth > LAY_MAX_DEPTH) {
        put(b, "(...)");
        return;
    }
    put(b, "(");
    for (int i = 0; i < t->n; i++) {
        if (i) put(b, ",");
        ptuple(b, t->elems[i], depth + 1);
    }
    put(b, ")");
}

char *lay_print_tuple(Arena *a, const LayTuple *t)
{
    Buf b = {a, NULL, 0, 0};
    ptuple(&b, t, 0);
    return done(&b);
}

static void playout(Buf *b, const LayLayout *l)
{
    ptuple(b, l->shape, 0);
    put(b, ":");
    ptuple(b, l->stride, 0);
}

char *lay_print_layout(Arena *a, const LayLayout *l)
{
    Buf b = {a, NULL, 0, 0};
    playout(&b, l);
    return done(&b);
}

static void pswizzle(Buf *b, LaySwizzle s)
{
    char t[96];
    snprintf(t, sizeof t, "Sw<%d,%d,%d>", s.b, s.m, s.s);
    put(b, t);
}

static void pvalue(Buf *b, const LayValue *v, int depth)
{
    if (!v) {
        put(b, "?");
        return;
    }
    if (depth > LAY_MAX_DEPTH) {
        put(b, "(...)");
        return;
    }
    switch (v->kind) {
    case LAY_V_INT: pint(b, v->i); return;
    case LAY_V_TUPLE: ptuple(b, v->tuple, 0); return;
    case LAY_V_LAYOUT: playout(b, &v->layout); return;
    case LAY_V_SWIZZLE: pswizzle(b, v->sw); return;
    case LAY_V_COMPOSED:
        pswizzle(b, v->composed.sw);
        put(b, " o ");
        pint(b, v->composed.offset);
        put(b, " o ");
        playout(b, &v->composed.outer);
        return;
    case LAY_V_TILER:
    case LAY_V_LIST: {
        int n = v->kind == LAY_V_TILER ? v->ntiler : v->nlist;
        const LayValue *e = v->kind == LAY_V_TILER ? v->tiler : v->list;
        put(b, "(");
        for (int i = 0; i < n; i++) {
            if (i) put(b, ",");
            pvalue(b, &e[i], depth + 1);
        }
        put(b, ")");
        return;
    }
    }
    put(b, "?");
}

char *lay_print_value(Arena *a, const LayValue *v)
{
    Buf b = {a, NULL, 0, 0};
    pvalue(&b, v, 0);
    return done(&b);
}
