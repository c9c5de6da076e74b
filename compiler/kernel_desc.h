/* kernel_desc.h: filling a kernel's contract (contract/kdesc.h) while the
 * kernel is emitted: template values, arguments with their types, layouts
 * and roles, tensor maps, the grid rule and the `serves` clause.  Every
 * fact a launcher needs is decided here, once; the runtime reads it back
 * and assumes nothing else. */
#ifndef CUTEC_KERNEL_DESC_H
#define CUTEC_KERNEL_DESC_H

#include <stdbool.h>

#include "eval.h"
#include "kdesc.h"

/* Interns s into d's pool; a diagnostic at loc when it does not fit. */
bool kdesc_put(Eval *e, cutec_kdesc *d, const char *s, SrcLoc loc, cutec_kd_str *out);
/* The text of a compile-time-or-argument integer expression, as the
 * contract's expressions spell it: integers, template parameters (folded),
 * integer kernel parameters, + - * / %, comparisons, && || !, ceil_div,
 * min, max and (grid only) resident.  `what` names the clause in
 * diagnostics ("grid()", "require"). */
bool kdesc_expr_text(Eval *e, const Node *n, const char *what, char **out);
/* Argument i of the kernel: a scalar of type ty. */
bool kdesc_scalar_arg(Eval *e, cutec_kdesc *d, const Node *par, ScalarType ty);
/* Argument i of the kernel: a global tensor with layout L. */
bool kdesc_tensor_arg(Eval *e, cutec_kdesc *d, const Node *par, ScalarType ty, const LayLayout *L);
/* A tma<T, box, swizzle> parameter of `rank` dimensions: a map over
 * argument `tensor`, dims[0] contiguous, strides[m - 1] the step of
 * dims[m] in elements, box[m] the box's size along dims[m]. */
bool kdesc_tma_arg(Eval *e, cutec_kdesc *d, const Node *par, int tensor, int rank, char *const *dims,
                   char *const *strides, const unsigned *box, int swizzle);
/* The kernel's `serves` clause (k->e): class, roles, alignments and
 * conditions; every argument must be described first. */
bool kdesc_serves(Eval *e, const Node *k, cutec_kdesc *d);

#endif
