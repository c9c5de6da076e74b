/* codegen.c: LLVM context, types, intrinsics and NVVM annotations. */
#include "codegen.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    free(cg->cse);
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
    }
    return cg->t_void;
}

LLVMValueRef cg_intrinsic(CG *cg, const char *name, LLVMTypeRef *overloads, unsigned noverloads,
                          LLVMValueRef *args, unsigned nargs)
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

void cg_asm_void(CG *cg, const char *text)
{
    LLVMTypeRef fty = LLVMFunctionType(cg->t_void, NULL, 0, 0);
    const char *cons = "~{memory}";
    LLVMValueRef ia = LLVMGetInlineAsm(fty, text, strlen(text), cons, strlen(cons), 1, 0,
                                       LLVMInlineAsmDialectATT, 0);
    LLVMValueRef call = LLVMBuildCall2(cg->b, fty, ia, NULL, 0, "");
    unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, kind, 0));
}

void cg_cse_reset(CG *cg)
{
    if (cg->cse) memset(cg->cse, 0, sizeof *cg->cse * cg->capcse);
    cg->ncse = 0;
}

static unsigned cse_hash(LLVMBasicBlockRef bb, int op, LLVMValueRef a, LLVMValueRef b, LLVMTypeRef ty)
{
    uint64_t h = (uint64_t)(uintptr_t)bb * 0x9e3779b97f4a7c15u;
    h = (h ^ (uint64_t)op) * 0x100000001b3u;
    h = (h ^ (uint64_t)(uintptr_t)a) * 0x100000001b3u;
    h = (h ^ (uint64_t)(uintptr_t)b) * 0x100000001b3u;
    h = (h ^ (uint64_t)(uintptr_t)ty) * 0x100000001b3u;
    return (unsigned)(h ^ (h >> 29));
}

/* The slot of (bb, op, a, b, ty): its entry, or the empty slot to fill. */
static struct CGCse *cse_slot(CG *cg, int op, LLVMValueRef a, LLVMValueRef b, LLVMTypeRef ty)
{
    if (2 * (cg->ncse + 1) > cg->capcse) {
        unsigned cap = cg->capcse ? 2 * cg->capcse : 1024;
        struct CGCse *old = cg->cse, *t = calloc(cap, sizeof *t);
        if (!t) return NULL;
        for (unsigned i = 0; i < cg->capcse; i++) {
            if (!old[i].v) continue;
            unsigned h = cse_hash(old[i].bb, old[i].op, old[i].a, old[i].b, old[i].ty) & (cap - 1);
            while (t[h].v) h = (h + 1) & (cap - 1);
            t[h] = old[i];
        }
        free(old);
        cg->cse = t;
        cg->capcse = cap;
    }
    LLVMBasicBlockRef bb = LLVMGetInsertBlock(cg->b);
    unsigned h = cse_hash(bb, op, a, b, ty) & (cg->capcse - 1);
    for (;; h = (h + 1) & (cg->capcse - 1)) {
        struct CGCse *c = &cg->cse[h];
        if (!c->v) {
            c->bb = bb, c->op = op, c->a = a, c->b = b, c->ty = ty;
            return c;
        }
        if (c->bb == bb && c->op == op && c->a == a && c->b == b && c->ty == ty) return c;
    }
}

static bool const_value(LLVMValueRef v, long long *out)
{
    if (!LLVMIsAConstantInt(v)) return false;
    *out = LLVMConstIntGetSExtValue(v);
    return true;
}

static int log2_exact(long long c)
{
    if (c <= 0 || (c & (c - 1))) return -1;
    int k = 0;
    while ((1LL << k) != c) k++;
    return k;
}

LLVMValueRef cg_ibin(CG *cg, LLVMOpcode op, LLVMValueRef a, LLVMValueRef b)
{
    LLVMTypeRef ty = LLVMTypeOf(a);
    long long ca = 0, cb = 0;
    bool ka = const_value(a, &ca), kb = const_value(b, &cb);
    bool commutes = op == LLVMAdd || op == LLVMMul || op == LLVMAnd || op == LLVMOr || op == LLVMXor;
    if (commutes && ka && !kb) { /* constant on the right: one key for x+c and c+x */
        LLVMValueRef t = a; a = b; b = t;
        ka = false, kb = true, cb = ca;
    }
    if (kb && !ka) {
        int k = log2_exact(cb);
        switch (op) {
        case LLVMAdd: case LLVMSub: case LLVMOr: case LLVMXor: case LLVMShl: case LLVMLShr: case LLVMAShr:
            if (cb == 0) return a;
            break;
        case LLVMMul:
            if (cb == 0) return b;
            if (cb == 1) return a;
            if (k > 0) op = LLVMShl, b = LLVMConstInt(ty, (unsigned long long)k, 0);
            break;
        case LLVMUDiv:
            if (cb == 1) return a;
            if (k > 0) op = LLVMLShr, b = LLVMConstInt(ty, (unsigned long long)k, 0);
            break;
        case LLVMSDiv:
            if (cb == 1) return a;
            break;
        case LLVMURem:
            if (cb == 1) return LLVMConstInt(ty, 0, 0);
            if (k > 0) op = LLVMAnd, b = LLVMConstInt(ty, (unsigned long long)cb - 1, 0);
            break;
        case LLVMSRem:
            if (cb == 1) return LLVMConstInt(ty, 0, 0);
            break;
        case LLVMAnd:
            if (cb == 0) return b;
            if (cb == -1) return a;
            break;
        default: break;
        }
    }
    struct CGCse *c = cse_slot(cg, (int)op, a, b, NULL);
    if (c && c->v) return c->v;
    LLVMValueRef v = LLVMBuildBinOp(cg->b, op, a, b, "");
    if (c) {
        c->v = v;
        cg->ncse++;
    }
    return v;
}

LLVMValueRef cg_gep(CG *cg, LLVMTypeRef ty, LLVMValueRef base, LLVMValueRef idx)
{
    struct CGCse *c = cse_slot(cg, -1, base, idx, ty);
    if (c && c->v) return c->v;
    LLVMValueRef v = LLVMBuildGEP2(cg->b, ty, base, &idx, 1, "");
    if (c) {
        c->v = v;
        cg->ncse++;
    }
    return v;
}
