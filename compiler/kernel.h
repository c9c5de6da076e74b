/* kernel.h: emitting one kernel (a template instance) into the module. */
#ifndef CUTEC_KERNEL_H
#define CUTEC_KERNEL_H

#include <stdbool.h>
#include "ast.h"
#include "kdesc.h"

typedef struct Program Program;
typedef struct CG CG;

#include <stdio.h>

enum { CUTEC_STATIC_SMEM_MAX = 48 * 1024, CUTEC_SMEM_MAX = 232448 /* 227 KiB, sm_90 opt-in */ };


/* Emits kernel k and fills its contract (desc, never NULL): everything a
 * launcher needs, checked with the runtime's own checker. */
bool kernel_emit(Program *p, CG *cg, const Node *k, cutec_kdesc *desc);
/* --list-tune: one line per tune point that meets the kernel's requires:
 * "NAME -D A=1 -D B=2". */
bool kernel_list_tune(Program *p, const Node *k, FILE *out);

#endif
