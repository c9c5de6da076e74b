/*
 * kexpr.h - the integer expressions of kernel descriptions: grid rules,
 * tensor shapes and strides, tensor-map dimensions and the conditions a
 * kernel puts on its arguments, written by the compiler and evaluated by
 * the runtime with the launch's argument values.
 *
 *   expr    = or
 *   or      = and ('||' and)*
 *   and     = cmp ('&&' cmp)*
 *   cmp     = sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)?
 *   sum     = term (('+'|'-') term)*
 *   term    = unary (('*'|'/'|'%') unary)*
 *   unary   = ('-'|'!') unary | primary
 *   primary = INT | NAME | '(' expr ')' | ceil_div(e,e) | min(e,e) | max(e,e) | resident(e)
 *
 * 64-bit signed arithmetic; overflow and division by zero are errors, not
 * undefined behaviour, because the values come from callers.  `/` and `%`
 * truncate like C; ceil_div rounds up for any signs.  resident(x) is x
 * capped by the blocks the device holds at once (the lookup's answer for
 * "@resident"; x itself where the lookup does not know).
 */
#ifndef CUTEC_CONTRACT_KEXPR_H
#define CUTEC_CONTRACT_KEXPR_H

#include <stddef.h>

/* Value of a name: 0 and *v, or -1 for an unknown name. */
typedef int (*cutec_kexpr_lookup)(void *user, const char *name, size_t len, long long *v);

/* Evaluates expr: 0 and *v, or -1 with a reason in why. */
int cutec_kexpr_eval(const char *expr, cutec_kexpr_lookup lookup, void *user, long long *v, char *why, size_t why_len);
/* Checks expr's syntax and that every name is known to lookup (whose
 * values are ignored: overflow and division by zero are not errors here).
 * 0, or -1 with a reason. */
int cutec_kexpr_check(const char *expr, cutec_kexpr_lookup lookup, void *user, char *why, size_t why_len);
/* Whether expr uses resident() (a persistent kernel's grid). */
int cutec_kexpr_uses_resident(const char *expr);

#endif /* CUTEC_CONTRACT_KEXPR_H */
