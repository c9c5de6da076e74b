/* kernel.h: emitting one kernel (a template instance) into the module. */
#ifndef CUTEC_KERNEL_H
#define CUTEC_KERNEL_H

#include <stdbool.h>
#include "ast.h"

typedef struct Program Program;
typedef struct CG CG;

typedef struct KernelInfo {
    const char *name;
    int threads[3];     /* 0 when the kernel declares no threads() */
} KernelInfo;

bool kernel_emit(Program *p, CG *cg, const Node *k, KernelInfo *info);

#endif
