/*
 * cutec/cutec.h - the whole public API of the cutec runtime in one include:
 * runtime.h (driver, modules, launch, memory, statuses, log), pack.h (kernel
 * packs), gemm.h (the GEMM layer: its handle, the autotuned entry point) and
 * timing.h (the timing harness).
 */
#ifndef CUTEC_CUTEC_H
#define CUTEC_CUTEC_H

#include "cutec/gemm.h"
#include "cutec/pack.h"
#include "cutec/runtime.h"
#include "cutec/timing.h"

#endif /* CUTEC_CUTEC_H */
