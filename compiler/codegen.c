/* codegen.c: LLVM context, types, intrinsics and NVVM annotations. */
#include "codegen.h"

#include <string.h>

#include "debuginfo.h"

void cg_init(CG *cg, const char *module_name, const char *triple)
{
    memset(cg, 0, sizeof *cg);
    cg->ctx = LLVMContextCreate();
    cg->mod = LLVMModuleCreateWithNameInContext(module_name, cg->ctx);
    LLVMSetTarget(cg->mod, triple);
    cg->b = LLVMCreateBuilderInContext(cg->ctx);
    cg->t_void = LLVMVoidTypeInContext(cg->ctx);
    cg->t_i1 = LLVMInt1TypeInContext(cg->ctx);
    cg->t_i8 = LLVMInt8TypeInContext(cg->ctx);
    cg->t_i16 = LLVMInt16TypeInContext(cg->ctx);
    cg->t_i32 = LLVMInt32TypeInContext(cg->ctx);
    cg->t_i64 = LLVMInt64TypeInContext(cg->ctx);
    cg->t_f16 = LLVMHalfTypeInContext(cg->ctx);
    cg->t_bf16 = LLVMBFloatTypeInContext(cg->ctx);
    cg->t_f32 = LLVMFloatTypeInContext(cg->ctx);
    cg->t_f64 = LLVMDoubleTypeInContext(cg->ctx);
    cg->t_ptr = LLVMPointerTypeInContext(cg->ctx, 0);
    cg->t_gptr = LLVMPointerTypeInContext(cg->ctx, 1);
    cg->t_sptr = LLVMPointerTypeInContext(cg->ctx, 3);
}

void cg_dispose(CG *cg)
{
    cg_debug_dispose(cg);
    if (cg->b) LLVMDisposeBuilder(cg->b);
    if (cg->mod) LLVMDisposeModule(cg->mod);
    if (cg->ctx) LLVMContextDispose(cg->ctx);
    memset(cg, 0, sizeof *cg);
}

LLVMTypeRef cg_type(CG *cg, ScalarType t)
{
    switch (t) {
    case TY_VOID: return cg->t_void;
    case TY_BOOL: return cg->t_i1;
    case TY_I32: return cg->t_i32;
    case TY_I64: return cg->t_i64;
    case TY_F16: return cg->t_f16;
    case TY_BF16: return cg->t_bf16;
    case TY_F32: return cg->t_f32;
    case TY_F64: return cg->t_f64;
    case TY_E4M3:
    case TY_E5M2: return cg->t_i8; /* bit patterns; LLVM has no fp8 type */
    }
    return cg->t_void;
}

LLVMValueRef cg_intrinsic(CG *cg, const char *name, LLVMTypeRef *overloads, unsigned noverloads, LLVMValueRef *args,
                          unsigned nargs)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, overloads, noverloads);
    LLVMTypeRef fty = LLVMIntrinsicGetType(cg->ctx, id, overloads, noverloads);
    return LLVMBuildCall2(cg->b, fty, fn, args, nargs, "");
}

LLVMValueRef cg_alloca(CG *cg, LLVMTypeRef ty, const char *name)
{
    /* allocas in the entry block so that mem2reg/SROA promote them */
    LLVMBuilderRef tmp = LLVMCreateBuilderInContext(cg->ctx);
    LLVMValueRef first = LLVMGetFirstInstruction(cg->entry);
    if (first)
        LLVMPositionBuilderBefore(tmp, first);
    else
        LLVMPositionBuilderAtEnd(tmp, cg->entry);
    LLVMValueRef a = LLVMBuildAlloca(tmp, ty, name);
    LLVMDisposeBuilder(tmp);
    return a;
}

void cg_annotate(CG *cg, LLVMValueRef fn, const char *key, int value)
{
    LLVMMetadataRef md[3] = {
        LLVMValueAsMetadata(fn),
        LLVMMDStringInContext2(cg->ctx, key, strlen(key)),
        LLVMValueAsMetadata(LLVMConstInt(cg->t_i32, (unsigned long long)value, 0)),
    };
    LLVMAddNamedMetadataOperand(cg->mod, "nvvm.annotations",
                                LLVMMetadataAsValue(cg->ctx, LLVMMDNodeInContext2(cg->ctx, md, 3)));
}

void cg_fast_math(CG *cg)
{
    static const char *const attrs[][2] = {
        {"unsafe-fp-math", "true"},      {"no-nans-fp-math", "true"},
        {"no-infs-fp-math", "true"},     {"no-signed-zeros-fp-math", "true"},
        {"approx-func-fp-math", "true"}, {"denormal-fp-math-f32", "preserve-sign,preserve-sign"},
    };
    for (LLVMValueRef fn = LLVMGetFirstFunction(cg->mod); fn; fn = LLVMGetNextFunction(fn)) {
        if (!LLVMGetFirstBasicBlock(fn)) continue; /* declarations: intrinsics */
        for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
            LLVMAttributeRef a = LLVMCreateStringAttribute(cg->ctx, attrs[i][0], (unsigned)strlen(attrs[i][0]),
                                                           attrs[i][1], (unsigned)strlen(attrs[i][1]));
            LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
        }
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
                if (LLVMCanValueUseFastMathFlags(in)) LLVMSetFastMathFlags(in, LLVMFastMathAll);
    }
}

void cg_asm_void(CG *cg, const char *text)
{
    LLVMTypeRef fty = LLVMFunctionType(cg->t_void, NULL, 0, 0);
    const char *cons = "~{memory}";
    LLVMValueRef ia = LLVMGetInlineAsm(fty, text, strlen(text), cons, strlen(cons), 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef call = LLVMBuildCall2(cg->b, fty, ia, NULL, 0, "");
    unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, kind, 0));
}

LLVMValueRef cg_asm_pure(CG *cg, LLVMTypeRef ret, LLVMValueRef *args, unsigned n, const char *text, const char *cons)
{
    LLVMTypeRef tys[8];
    for (unsigned i = 0; i < n && i < 8; i++) tys[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, tys, n, 0);
    LLVMValueRef ia = LLVMGetInlineAsm(fty, text, strlen(text), cons, strlen(cons), 0, 0, LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(cg->b, fty, ia, args, n, "");
}
