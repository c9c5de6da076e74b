/* lt_util.h: helpers shared by the layout tests: a tiny parser for the
 * language's layout spelling (so expectations read like `cutec eval`
 * input), a checker that counts assertions and prints what differed, and an
 * evaluator for symbolic LayExpr trees. */
#ifndef LT_UTIL_H
#define LT_UTIL_H

#include "layout.h"

#include <stdio.h>

extern int lt_failures, lt_checks;

/* Parse `src` into a value: ints, identifiers (dynamic symbols), tuples
 * "(a,b)" / "(a,)", layouts "S:D", tilers (tuples with layouts), Sw<b,m,s>,
 * and calls name(args) / name<i,j>(args) evaluated through lay_call.
 * Returns false with the error in err (a parse error sets err->arg = -2). */
bool lt_eval(Arena *a, const char *src, LayValue *out, LayError *err);

/* Evaluate `src`, print it, compare with `want`; counts a check. */
void lt_expect(const char *src, const char *want);
/* Evaluate `src`; it must fail with exactly `msg` (and arg, if arg != -9). */
void lt_expect_error(const char *src, const char *msg, int arg);

#define LT_CHECK(cond, ...)                                                                                            \
    do {                                                                                                               \
        lt_checks++;                                                                                                   \
        if (!(cond)) {                                                                                                 \
            lt_failures++;                                                                                             \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                                          \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

/* value of a symbolic tree; symbols are looked up by name in names/vals */
bool lt_expr_eval(const LayExpr *e, int n, const char *const *names, const int64_t *vals, int64_t *out);
bool lt_int_eval(LayInt v, int n, const char *const *names, const int64_t *vals, int64_t *out);

int lt_report(const char *name);

#endif
