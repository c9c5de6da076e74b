/* codegen.h: the LLVM side of the evaluator: one context owning the LLVM
 * context, module, builder and cached types (c3c style), plus helpers for
 * intrinsics and kernel metadata. */
#ifndef CUTEC_CODEGEN_H
#define CUTEC_CODEGEN_H

#include <llvm-c/Core.h>
#include "eval.h"

struct CG {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMValueRef fn;         /* the kernel being built */
    LLVMBasicBlockRef entry; /* allocas go here */
    LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_f16, t_bf16, t_f32, t_f64;
    LLVMTypeRef t_ptr, t_gptr, t_sptr; /* generic, global (1), shared (3) */
    int nshared;                       /* for unique shared-memory symbol names */
    /* the current kernel's shared tensors, placed at the end of the kernel:
     * statically up to 48 KiB, else in dynamic shared memory */
    struct CGShared {
        LLVMValueRef global;
        long long bytes;
        long long align;
    } * smem;
    int nsmem, capsmem;
    struct CGDebug *dbg; /* -lineinfo (debuginfo.c); NULL without */
    /* a builtin needs PTX 8.3 (eval_tmap.c): the module is emitted as such,
     * every other module stays at the arch's ISA (contract/arch.c) */
    bool ptx83;
};

void cg_init(CG *cg, const char *module_name, const char *triple);
void cg_dispose(CG *cg);
LLVMTypeRef cg_type(CG *cg, ScalarType t);
LLVMValueRef cg_intrinsic(CG *cg, const char *name, LLVMTypeRef *overloads, unsigned noverloads, LLVMValueRef *args,
                          unsigned nargs);
LLVMValueRef cg_alloca(CG *cg, LLVMTypeRef ty, const char *name);
void cg_annotate(CG *cg, LLVMValueRef fn, const char *key, int value);
/* --fast-math in clang's meaning: every floating-point instruction gets
 * all fast-math flags, every function the attributes that let NVPTX use
 * approximate division and square root and flush f32 subnormals */
void cg_fast_math(CG *cg);
/* `call void asm sideeffect` with convergent; for barriers and the like */
void cg_asm_void(CG *cg, const char *text);
/* an inline asm without side effects (at most 8 operands), for conversions
 * LLVM has no instruction for: LLVM may fold, hoist or drop it like an add */
LLVMValueRef cg_asm_pure(CG *cg, LLVMTypeRef ret, LLVMValueRef *args, unsigned n, const char *text, const char *cons);

#endif
