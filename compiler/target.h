/* target.h: LLVM's NVPTX back end: optimisation and PTX emission. */
#ifndef CUTEC_TARGET_H
#define CUTEC_TARGET_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>

#include "timing.h"

#define CUTEC_TRIPLE "nvptx64-nvidia-cuda"

bool target_arch_valid(const char *arch);
/* Sets the data layout, verifies, optimises at `opt` (0..3), and renders
 * either IR text (want_ptx false) or PTX: PTX 8.3 where ptx83 (the module
 * uses an instruction that needs it: codegen.h), else the arch's ISA.  *out is malloc'ed.  On failure
 * returns false with *err (malloc'ed) describing an internal error.  Stage
 * times go to `tm` (may be NULL). */
bool target_emit(LLVMModuleRef m, const char *arch, bool ptx83, int opt, bool want_ptx, char **out, size_t *len,
                 char **err, Timing *tm);

#endif
