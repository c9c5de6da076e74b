/* eval_atomic.c: atomics and memory-model fences as builtins, what blocks
 * need to hand partial results to each other through global memory (a
 * split-K or stream-K fix-up; tests/gpu/kernels/handoff.cute): atomic_add(ref, v) is PTX
 * `atom.add` (relaxed, gpu scope) returning the old value, fence_gpu() is
 * `fence.acq_rel.gpu`.  A release is stores, fence_gpu(), then the atomic;
 * an acquire is the atomic, fence_gpu(), then loads (PTX ISA, memory
 * consistency model).  Inline PTX, like eval_sm90.c: LLVM's atomicrmw would
 * pick the scope and ordering itself. */
#include <stdio.h>

#include "builtins.h"
#include "codegen.h"
#include "eval.h"

/* atomic_add(ref, v): ref an i32 or f32 element of global or shared memory */
Value b_atomic_add(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value r = arg[0], v = arg[1];
    if (r.kind != V_REF || (r.space != SPACE_GMEM && r.space != SPACE_SMEM)) {
        diag_error(e->diag, call->list.items[0]->loc,
                   "'atomic_add' needs an element of a global or shared tensor, found %s", val_describe(e, &r));
        return val_error();
    }
    if (r.ty != TY_I32 && r.ty != TY_F32) {
        diag_error(e->diag, call->list.items[0]->loc, "'atomic_add' works on i32 and f32 elements, not %s",
                   type_name(r.ty));
        return val_error();
    }
    v = conv_to(e, v, r.ty, call->list.items[1]->loc, false);
    if (v.kind == V_ERROR) return v;
    CG *cg = e->cg;
    bool f = r.ty == TY_F32, gm = r.space == SPACE_GMEM;
    LLVMValueRef a[2] = {gm ? LLVMBuildPtrToInt(cg->b, r.llvm, cg->t_i64, "") : smem_addr32(e, &r), v.llvm};
    char text[64], cons[32];
    snprintf(text, sizeof text, "atom.%s.add.%s $0, [$1], $2;", gm ? "global" : "shared", f ? "f32" : "u32");
    snprintf(cons, sizeof cons, "=%s,%s,%s,~{memory}", f ? "f" : "r", gm ? "l" : "r", f ? "f" : "r");
    return val_dyn(eval_asm(e, f ? cg->t_f32 : cg->t_i32, a, 2, text, cons), r.ty);
}

Value b_fence_gpu(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call, (void)arg;
    eval_asm(e, e->cg->t_void, NULL, 0, "fence.acq_rel.gpu;", "~{memory}");
    return (Value){.kind = V_VOID};
}
