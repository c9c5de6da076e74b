/* debuginfo.h: `-lineinfo`: PTX `.loc`/`.file` line information, so that
 * profilers (Nsight Compute's source view) map SASS back to .cute lines,
 * as nvcc -lineinfo does for CUDA.  Line tables only: no variables, no
 * types.  A statement is the unit; a statement of an inlined function
 * keeps its own file and line.  Every call is a no-op on a CG without
 * cg_debug_init, so the evaluator calls them unconditionally. */
#ifndef CUTEC_DEBUGINFO_H
#define CUTEC_DEBUGINFO_H

#include <llvm-c/Core.h>

#include "source.h"

typedef struct CG CG;

/* Starts line information for the module; main_path names the input. */
void cg_debug_init(CG *cg, const char *main_path);
/* The next kernel built is `name`, declared at loc: its subprogram is
 * attached when its first statement is evaluated. */
void cg_debug_kernel(CG *cg, const char *name, SrcLoc loc);
/* After a kernel: no location carries over to the next one. */
void cg_debug_kernel_end(CG *cg);
/* Instructions built from now on belong to loc (eval_stmt). */
void cg_debug_loc(CG *cg, SrcLoc loc);
/* The current location, to restore after an inlined call (NULL: none). */
LLVMMetadataRef cg_debug_save(CG *cg);
void cg_debug_restore(CG *cg, LLVMMetadataRef loc);
/* Before the module is verified and emitted. */
void cg_debug_finish(CG *cg);
/* Frees what cg_debug_init allocated (cg_dispose calls it). */
void cg_debug_dispose(CG *cg);

#endif
