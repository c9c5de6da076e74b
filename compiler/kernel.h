/* kernel.h: emitting one kernel (a template instance) into the module. */
#ifndef CUTEC_KERNEL_H
#define CUTEC_KERNEL_H

#include <stdbool.h>
#include "arena.h"
#include "ast.h"
#include "cutec/compiler.h"
#include "kdesc.h"

typedef struct Program Program;
typedef struct CG CG;

enum { CUTEC_STATIC_SMEM_MAX = 48 * 1024, CUTEC_SMEM_MAX = 232448 /* 227 KiB, sm_90 opt-in */ };

/* Emits kernel k and fills its contract (desc, never NULL): everything a
 * launcher needs, checked with the runtime's own checker. */
bool kernel_emit(Program *p, CG *cg, const Node *k, cutec_kdesc *desc);
/* The tune points of a compilation (cutec_tune_points), built kernel by
 * kernel in `keep`, an arena that outlives the compilation's. */
typedef struct TuneList {
    Arena *keep;
    cutec_tune_point *points;
    size_t n, cap;
    long long declared; /* points the kernels so far declare, against CUTEC_TUNE_POINTS_MAX */
} TuneList;
/* Appends kernel k's points that meet its requires; false after a
 * diagnostic. */
bool kernel_list_tune(Program *p, const Node *k, TuneList *list);

#endif
