/* kernel.h: emitting one kernel (a template instance) into the module. */
#ifndef CUTEC_KERNEL_H
#define CUTEC_KERNEL_H

#include <stdbool.h>
#include "ast.h"

typedef struct Program Program;
typedef struct CG CG;

#include <stdio.h>

enum { CUTEC_STATIC_SMEM_MAX = 48 * 1024, CUTEC_SMEM_MAX = 232448 /* 227 KiB, sm_90 opt-in */ };

/* What the launcher needs to know; printed as `// cutec.` lines in the PTX. */
typedef struct KernelInfo {
    const char *name;
    int threads[3];          /* 0 when the kernel declares no threads() */
    long long smem_static;   /* bytes of static shared memory */
    long long smem_dynamic;  /* bytes to pass at launch (0: none) */
    int nparams;             /* template parameters and their values */
    const char **pnames, **pvalues;
    int nargs;               /* kernel parameters: name and kind ("i32", "tensor bf16") */
    const char **anames, **akinds;
    const char *grid[3];     /* launch grid expressions over scalar parameters, or NULL */
    int cluster[3];          /* cluster shape, 0 0 0 without cluster() */
    int ntma;                /* TMA descriptors the launcher builds (`// cutec.tma` lines) */
    const char **tma;
} KernelInfo;

bool kernel_emit(Program *p, CG *cg, const Node *k, KernelInfo *info);
/* --list-tune: one line per tune point that meets the kernel's requires:
 * "NAME -D A=1 -D B=2". */
bool kernel_list_tune(Program *p, const Node *k, FILE *out);

#endif
