/* eval_sm90_store.c: the Hopper (sm_90a) store path of an epilogue as
 * builtins: stmatrix (16-bit register fragments to shared memory) and the
 * TMA store (a shared tile to global memory through a tensor map) with its
 * bulk-group commit and wait.  A separate file from eval_sm90.c so the
 * epilogue and the main loop can change independently.  LLVM 19 has no
 * intrinsics for stmatrix or the tensor store; like eval_sm90.c these are
 * inline PTX marked sideeffect and convergent (docs/compiler.md). */
#include <stdio.h>

#include "builtins.h"
#include "codegen.h"
#include "eval.h"

/* Elements 2i and 2i+1 of a 16-bit fragment, read through its layout,
 * packed into one 32-bit register (element 2i in the low half, as
 * stmatrix and memory order expect). */
static LLVMValueRef frag_pair(Eval *e, const Value *t, int64_t i)
{
    CG *cg = e->cg;
    LLVMTypeRef et = cg_type(cg, t->ty);
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(et, 2));
    for (int h = 0; h < 2; h++) {
        LayInt off;
        LayError err = {.arg = -1};
        LayTuple *crd = lay_tuple_leaf(e->arena, lay_int_static(2 * i + h));
        if (!lay_crd2idx(e->arena, crd, &t->lay.layout, &off, &err) || !lay_int_add(e->arena, t->toff, off, &off))
            return NULL;
        LLVMValueRef p = tensor_addr(e, t, off);
        v = LLVMBuildInsertElement(cg->b, v, LLVMBuildLoad2(cg->b, et, p, ""), LLVMConstInt(cg->t_i32, (unsigned)h, 0),
                                   "");
    }
    return LLVMBuildBitCast(cg->b, v, cg->t_i32, "");
}

/* stmatrix(dst, frag[, trans]): frag is a register fragment of 2, 4 or 8
 * bf16/f16 elements (one, two or four 8x8 matrices, a pair per register);
 * each lane passes in dst the start of one 16-byte matrix row (lanes 0-7
 * the rows of matrix 0, 8-15 of matrix 1, ...).  The mirror of ldmatrix. */
Value b_stmatrix(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value dst = arg[0], f = arg[1];
    LLVMValueRef args[5] = {dst.llvm};
    if (f.kind != V_TENSOR || f.space != SPACE_RMEM || f.lay.kind != LAY_V_LAYOUT) {
        diag_error(e->diag, call->list.items[1]->loc, "the source of 'stmatrix' must be a register fragment, found %s",
                   val_describe(e, &f));
        return val_error();
    }
    bool trans = call->list.n == 3 && arg[2].i;
    LayValue r;
    LayError err = {.arg = -1};
    if (!lay_call(e->arena, "size", NULL, 0, &f.lay, 1, &r, &err) || r.kind != LAY_V_INT || !r.i.is_static) {
        diag_error(e->diag, call->list.items[1]->loc, "the fragment's size must be static");
        return val_error();
    }
    int64_t n = r.i.value;
    if ((f.ty != TY_BF16 && f.ty != TY_F16) || (n != 2 && n != 4 && n != 8)) {
        diag_error(e->diag, call->list.items[1]->loc,
                   "'stmatrix' stores 2, 4 or 8 elements of bf16 or f16, got %lld x %s", (long long)n, type_name(f.ty));
        return val_error();
    }
    if (dst.ty != f.ty) {
        diag_error(e->diag, call->list.items[0]->loc, "'stmatrix' stores %s elements into a %s shared tensor",
                   type_name(f.ty), type_name(dst.ty));
        return val_error();
    }
    unsigned x = (unsigned)(n / 2);
    for (unsigned i = 0; i < x; i++)
        if (!(args[1 + i] = frag_pair(e, &f, i))) return val_error();
    const char *tr = trans ? ".trans" : "";
    char text[128];
    if (x == 1)
        snprintf(text, sizeof text, "stmatrix.sync.aligned.m8n8.x1%s.shared.b16 [$0], {$1};", tr);
    else if (x == 2)
        snprintf(text, sizeof text, "stmatrix.sync.aligned.m8n8.x2%s.shared.b16 [$0], {$1,$2};", tr);
    else
        snprintf(text, sizeof text, "stmatrix.sync.aligned.m8n8.x4%s.shared.b16 [$0], {$1,$2,$3,$4};", tr);
    eval_asm(e, e->cg->t_void, args, 1 + x, text,
             x == 1   ? "r,r,~{memory}"
             : x == 2 ? "r,r,r,~{memory}"
                      : "r,r,r,r,r,~{memory}");
    return (Value){.kind = V_VOID};
}

/* tma_store(tmap, src, c0, c1[, c2]): the box of tmap at these
 * coordinates (in the map's order, its contiguous dimension first),
 * written from the shared tile at src.  Out-of-bounds parts of the box
 * are not written.  The shared writes must be made visible to the async
 * proxy first (fence_proxy_async and a barrier). */
Value b_tma_store(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    Value tm = arg[0], src = arg[1];
    int nc = call->list.n - 2;
    LLVMValueRef args[5] = {tm.llvm, src.llvm};
    if (src.ty != tm.ty) {
        diag_error(e->diag, call->list.items[1]->loc,
                   "'tma_store' copies %s elements, but the tensor map '%s' describes %s elements", type_name(src.ty),
                   tm.name ? tm.name : "?", type_name(tm.ty));
        return val_error();
    }
    if (!tma_coord_count(e, b, call, &tm, nc)) return val_error();
    for (int i = 0; i < nc; i++) args[2 + i] = arg[2 + i].llvm;
    char text[128];
    snprintf(text, sizeof text, "cp.async.bulk.tensor.%dd.global.shared::cta.bulk_group [$0, {$2, $3%s}], [$1];", nc,
             nc == 3 ? ", $4" : "");
    eval_asm(e, e->cg->t_void, args, (unsigned)(2 + nc), text, nc == 3 ? "l,r,r,r,r,~{memory}" : "l,r,r,r,~{memory}");
    return (Value){.kind = V_VOID};
}

/* closes this thread's bulk group: every earlier tma_store of it */
Value b_tma_store_commit(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call, (void)arg;
    eval_asm(e, e->cg->t_void, NULL, 0, "cp.async.bulk.commit_group;", "~{memory}");
    return (Value){.kind = V_VOID};
}

/* tma_store_wait(N): until at most N of this thread's bulk groups still
 * read shared memory (.read: their sources may then be overwritten) */
Value b_tma_store_wait(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    if (!arg_static_range(e, call, b->name, 0, &arg[0], 0, 7, "the number of pending groups")) return val_error();
    char text[64];
    snprintf(text, sizeof text, "cp.async.bulk.wait_group.read %lld;", (long long)arg[0].i);
    eval_asm(e, e->cg->t_void, NULL, 0, text, "~{memory}");
    return (Value){.kind = V_VOID};
}
