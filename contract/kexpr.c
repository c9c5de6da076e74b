/*
 * kexpr.c - recursive descent over the expression text (grammar in
 * kexpr.h), evaluating as it parses.  Depth is bounded so that a crafted
 * expression cannot exhaust the stack.
 */
#include "kexpr.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEXPR_MAX_DEPTH 64

typedef struct kx {
    const char *start, *p;
    cutec_kexpr_lookup lookup;
    void *user;
    char *why;
    size_t why_len;
    int failed, depth;
    int syntax_only; /* cutec_kexpr_check: arithmetic errors are not errors */
} kx;

static long long kx_or(kx *g);

static long long kx_fail(kx *g, const char *msg)
{
    if (!g->failed && g->why != NULL && g->why_len > 0)
        snprintf(g->why, g->why_len, "%s at offset %d of '%.80s'", msg, (int)(g->p - g->start), g->start);
    g->failed = 1;
    return 0;
}

static int kx_eat(kx *g, const char *tok)
{
    size_t n = strlen(tok);
    if (strncmp(g->p, tok, n) != 0) return 0;
    g->p += n;
    return 1;
}

static long long kx_checked(kx *g, __int128 v)
{
    if (v > INT64_MAX || v < INT64_MIN) return g->syntax_only ? 0 : kx_fail(g, "overflow");
    return (long long)v;
}

static long long kx_div(kx *g, long long a, long long b, char op)
{
    if (b == 0 || (a == INT64_MIN && b == -1))
        return g->syntax_only ? 0 : kx_fail(g, b == 0 ? "division by zero" : "overflow");
    if (op == '%') return a % b;
    long long q = a / b;                                      /* truncated */
    if (op == 'c' && a % b != 0 && ((a < 0) == (b < 0))) q++; /* the true quotient is positive and was rounded down */
    return q;
}

static long long kx_call(kx *g, const char *s, size_t n)
{
    static const char *const fns[] = {"ceil_div", "min", "max", "resident"};
    int which = -1;
    for (int i = 0; i < 4; i++)
        if (strlen(fns[i]) == n && memcmp(s, fns[i], n) == 0) which = i;
    if (which < 0) return kx_fail(g, "unknown function");
    g->p++; /* ( */
    long long a = kx_or(g), b = 0;
    if (which < 3) {
        if (!kx_eat(g, ",")) return kx_fail(g, "expected ','");
        b = kx_or(g);
    }
    if (!kx_eat(g, ")")) return kx_fail(g, "expected ')'");
    if (g->failed) return 0;
    switch (which) {
    case 0: return kx_div(g, a, b, 'c');
    case 1: return a < b ? a : b;
    case 2: return a > b ? a : b;
    default: {
        long long cap = 0;
        if (g->lookup != NULL && g->lookup(g->user, "@resident", 9, &cap) == 0 && cap > 0 && cap < a) a = cap;
        return a;
    }
    }
}

static long long kx_unary(kx *g)
{
    if (g->failed) return 0;
    if (++g->depth > KEXPR_MAX_DEPTH) {
        g->depth--;
        return kx_fail(g, "expression nested too deeply");
    }
    long long v = 0;
    if (kx_eat(g, "(")) {
        v = kx_or(g);
        if (!kx_eat(g, ")")) v = kx_fail(g, "expected ')'");
    } else if (kx_eat(g, "-")) {
        v = kx_checked(g, -(__int128)kx_unary(g));
    } else if (*g->p == '!' && g->p[1] != '=') {
        g->p++;
        v = !kx_unary(g);
    } else if (isdigit((unsigned char)*g->p)) {
        char *e;
        errno = 0;
        v = strtoll(g->p, &e, 10);
        if (errno != 0)
            v = kx_fail(g, "integer too large");
        else
            g->p = e;
    } else if (isalpha((unsigned char)*g->p) || *g->p == '_') {
        const char *s = g->p;
        while (isalnum((unsigned char)*g->p) || *g->p == '_') g->p++;
        size_t n = (size_t)(g->p - s);
        if (*g->p == '(') {
            v = kx_call(g, s, n);
        } else if (g->lookup == NULL || g->lookup(g->user, s, n, &v) != 0) {
            g->p = s;
            v = kx_fail(g, "unknown name");
        }
    } else {
        v = kx_fail(g, "expected a number, a name or '('");
    }
    g->depth--;
    return v;
}

static long long kx_term(kx *g)
{
    long long v = kx_unary(g);
    for (;;) {
        char op = *g->p;
        if (g->failed || (op != '*' && op != '/' && op != '%')) return v;
        g->p++;
        long long r = kx_unary(g);
        v = op == '*' ? kx_checked(g, (__int128)v * r) : kx_div(g, v, r, op);
    }
}

static long long kx_sum(kx *g)
{
    long long v = kx_term(g);
    for (;;) {
        char op = *g->p;
        if (g->failed || (op != '+' && op != '-')) return v;
        g->p++;
        long long r = kx_term(g);
        v = kx_checked(g, op == '+' ? (__int128)v + r : (__int128)v - r);
    }
}

static long long kx_cmp(kx *g)
{
    long long a = kx_sum(g);
    static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    for (int i = 0; i < 6 && !g->failed; i++) {
        if (!kx_eat(g, ops[i])) continue;
        long long b = kx_sum(g);
        switch (i) {
        case 0: return a == b;
        case 1: return a != b;
        case 2: return a <= b;
        case 3: return a >= b;
        case 4: return a < b;
        default: return a > b;
        }
    }
    return a;
}

static long long kx_and(kx *g)
{
    long long v = kx_cmp(g);
    while (!g->failed && kx_eat(g, "&&")) {
        long long r = kx_cmp(g);
        v = v && r;
    }
    return v;
}

static long long kx_or(kx *g)
{
    long long v = kx_and(g);
    while (!g->failed && kx_eat(g, "||")) {
        long long r = kx_and(g);
        v = v || r;
    }
    return v;
}

int cutec_kexpr_eval(const char *expr, cutec_kexpr_lookup lookup, void *user, long long *v, char *why, size_t why_len)
{
    kx g = {.start = expr, .p = expr, .lookup = lookup, .user = user, .why = why, .why_len = why_len};
    long long r = kx_or(&g);
    if (!g.failed && *g.p != '\0') kx_fail(&g, "unexpected character");
    if (g.failed) return -1;
    *v = r;
    return 0;
}

int cutec_kexpr_check(const char *expr, cutec_kexpr_lookup lookup, void *user, char *why, size_t why_len)
{
    kx g = {.start = expr, .p = expr, .lookup = lookup, .user = user, .why = why, .why_len = why_len, .syntax_only = 1};
    (void)kx_or(&g);
    if (!g.failed && *g.p != '\0') kx_fail(&g, "unexpected character");
    return g.failed ? -1 : 0;
}

int cutec_kexpr_uses_resident(const char *expr) { return strstr(expr, "resident(") != NULL; }
