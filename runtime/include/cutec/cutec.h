/*
 * cutec/cutec.h - the whole public API of the cutec runtime in one include:
 * runtime.h (driver, modules, launch, memory, statuses, log), pack.h (kernel
 * packs) and gemm.h (the autotuned GEMM entry point).
 */
#ifndef CUTEC_CUTEC_H
#define CUTEC_CUTEC_H

#include "cutec/gemm.h"
#include "cutec/pack.h"
#include "cutec/runtime.h"

#endif /* CUTEC_CUTEC_H */
