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

/* atomic_add(ref, v) and atomic_max(ref, v) (b->op BOP_ATOMIC_ADD, _MAX):
 * ref an i32 or f32 element of global or shared memory */
Value b_atomic(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    Value r = arg[0], v = arg[1];
    if (r.kind != V_REF || (r.space != SPACE_GMEM && r.space != SPACE_SMEM)) {
        diag_error(e->diag, call->list.items[0]->loc, "'%s' needs an element of a global or shared tensor, found %s",
                   b->name, val_describe(e, &r));
        return val_error();
    }
    if (r.ty != TY_I32 && r.ty != TY_F32) {
        diag_error(e->diag, call->list.items[0]->loc, "'%s' works on i32 and f32 elements, not %s", b->name,
                   type_name(r.ty));
        return val_error();
    }
    v = conv_to(e, v, r.ty, call->list.items[1]->loc, false);
    if (v.kind == V_ERROR) return v;
    CG *cg = e->cg;
    bool f = r.ty == TY_F32, gm = r.space == SPACE_GMEM;
    const char *sp = gm ? "global" : "shared";
    LLVMValueRef a[2] = {gm ? LLVMBuildPtrToInt(cg->b, r.llvm, cg->t_i64, "") : smem_addr32(e, &r), v.llvm};
    char text[256], cons[32];
    snprintf(cons, sizeof cons, "=%s,%s,%s,~{memory}", f ? "f" : "r", gm ? "l" : "r", f ? "f" : "r");
    if (b->op == BOP_ATOMIC_ADD)
        snprintf(text, sizeof text, "atom.%s.add.%s $0, [$1], $2;", sp, f ? "f32" : "u32");
    else if (!f)
        snprintf(text, sizeof text, "atom.%s.max.s32 $0, [$1], $2;", sp);
    else
        /* PTX has no atom.max.f32: floats of one sign order as their bits
         * do, as signed integers for v >= 0 (a larger non-negative float
         * has larger bits, and every negative float is a negative s32)
         * and reversed, as unsigned ones, for v < 0 (every non-negative
         * float's bits are below every negative one's); NaN compares as
         * above every float on the s32 path (setp.geu: NaN takes it; a
         * NaN with the sign bit set, as abs() never gives, does not win) */
        snprintf(text, sizeof text,
                 "{\n\t.reg .pred p;\n\t.reg .b32 o, w;\n\tmov.b32 w, $2;\n\tsetp.geu.f32 p, $2, 0f00000000;\n\t"
                 "@p atom.%s.max.s32 o, [$1], w;\n\t@!p atom.%s.min.u32 o, [$1], w;\n\tmov.b32 $0, o;\n\t}",
                 sp, sp);
    return val_dyn(eval_asm(e, f ? cg->t_f32 : cg->t_i32, a, 2, text, cons), r.ty);
}

/* warp_max(v): the largest v of the warp's 32 lanes, in every lane (all
 * lanes must take part: shfl.sync and redux.sync with a full mask); i32
 * is redux.sync.max.s32, f32 five butterfly shuffles (redux has f32 only
 * on sm_100a).  For an amax, warp_max(abs(x)). */
Value b_warp_max(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value v = arg[0];
    if (v.kind == V_ERROR) return v;
    /* static numbers and 16-bit floats widen; i64 and f64 have no form */
    ScalarType ty = v.kind == V_INT ? TY_I32 : v.kind == V_FLOAT ? TY_F32 : v.kind == V_DYN ? v.ty : TY_F64;
    if (ty == TY_BF16 || ty == TY_F16 || ty == TY_E4M3 || ty == TY_E5M2) ty = TY_F32;
    if (ty != TY_I32 && ty != TY_F32) {
        diag_error(e->diag, call->list.items[0]->loc, "'warp_max' works on i32 and f32 values, not %s",
                   val_describe(e, &v));
        return val_error();
    }
    v = conv_to(e, v, ty, call->list.items[0]->loc, false);
    if (v.kind == V_ERROR) return v;
    CG *cg = e->cg;
    LLVMValueRef a[1] = {v.llvm};
    if (ty == TY_I32)
        return val_dyn(eval_asm(e, cg->t_i32, a, 1, "redux.sync.max.s32 $0, $1, 0xffffffff;", "=r,r"), ty);
    char text[640];
    size_t n = (size_t)snprintf(text, sizeof text, "{\n\t.reg .f32 t, m;\n\tmov.f32 m, $1;");
    for (int d = 16; d >= 1; d /= 2)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "\n\tshfl.sync.bfly.b32 t, m, %d, 0x1f, 0xffffffff;\n\tmax.NaN.f32 m, m, t;", d);
    snprintf(text + n, sizeof text - n, "\n\tmov.f32 $0, m;\n\t}");
    return val_dyn(eval_asm(e, cg->t_f32, a, 1, text, "=f,f"), ty);
}

Value b_fence_gpu(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call, (void)arg;
    eval_asm(e, e->cg->t_void, NULL, 0, "fence.acq_rel.gpu;", "~{memory}");
    return (Value){.kind = V_VOID};
}
