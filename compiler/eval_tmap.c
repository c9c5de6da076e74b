/* eval_tmap.c: tensor maps patched on the device (sm_90a, PTX 8.3), what a
 * kernel needs when each unit of work reads other matrices than the
 * launch's maps describe (a grouped GEMM whose groups each have their own
 * pointers, sizes and leading dimensions).  A kernel copies a tma<...>
 * parameter's 128 bytes into a 128-byte-aligned slot of global memory
 * (tmap_copy), replaces the slot's address, extents and strides
 * (tmap_replace_address, _dim, _stride: `tensormap.replace.tile.*.global`),
 * publishes the writes to the tensormap proxy (tmap_release: `fence.proxy.
 * tensormap::generic.release.gpu`, tmap_acquire: `...acquire.gpu [slot],
 * 128`) and uses the slot as the map (tmap_at: the parameter's box and
 * type with the slot's address), in the TMA loads and stores as any map.
 * The slot must not change while a TMA operation that reads it is in
 * flight: a load has read it once its transaction completed on the
 * barrier, a store once tma_store_wait has returned for it.  Inline PTX
 * (LLVM 19 has no intrinsics for these), marked sideeffect; a module
 * that uses them is emitted as PTX 8.3 (codegen.h's ptx83). */
#include <stdio.h>

#include "builtins.h"
#include "codegen.h"
#include "eval.h"

/* A slot: an i64 element of a global tensor (what TMA operations read) or,
 * for tmap_copy and tmap_replace_*, of a shared one (patched there, then
 * published to a global slot with tmap_publish, as CUTLASS's grouped GEMM
 * does).  Its address: global (generic = false), generic, or the 32-bit
 * shared address (*shared set). */
static bool slot_addr(Eval *e, const Builtin *b, const Node *call, int ai, const Value *r, bool generic, bool shared_ok,
                      LLVMValueRef *addr, bool *shared)
{
    bool sm = r->kind == V_REF && r->space == SPACE_SMEM && shared_ok;
    if (r->kind != V_REF || (r->space != SPACE_GMEM && !sm) || r->ty != TY_I64) {
        /* an i64 element in the wrong memory says which memory */
        const char *where = r->kind != V_REF || r->ty != TY_I64 ? NULL
                            : r->space == SPACE_SMEM            ? "an i64 element of a shared tensor"
                                                                : "an i64 element of a register tensor";
        diag_error(e->diag, call->list.items[ai]->loc,
                   "'%s' needs an i64 element of a global%s tensor (the first of the map's 16), found %s", b->name,
                   shared_ok ? " or shared" : "", where ? where : val_describe(e, r));
        return false;
    }
    CG *cg = e->cg;
    cg->ptx83 = true;
    if (shared) *shared = sm;
    if (sm) {
        *addr = smem_addr32(e, r);
        return true;
    }
    LLVMValueRef p = generic ? LLVMBuildAddrSpaceCast(cg->b, r->llvm, cg->t_ptr, "") : r->llvm;
    *addr = LLVMBuildPtrToInt(cg->b, p, cg->t_i64, "");
    return true;
}

/* tmap_copy(slot, tmap): the parameter's 128 bytes into the slot, eight
 * 16-byte loads through the parameter's generic address (the parameter is
 * 64-byte aligned) and global or shared stores */
Value b_tmap_copy(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    LLVMValueRef a[2];
    bool sm = false;
    if (!slot_addr(e, b, call, 0, &arg[0], false, true, &a[0], &sm)) return val_error();
    a[1] = arg[1].llvm;
    char text[1100];
    size_t at = (size_t)snprintf(text, sizeof text, "{\n\t.reg .b64 x, y;\n");
    for (int i = 0; i < 8 && at < sizeof text; i++)
        at += (size_t)snprintf(text + at, sizeof text - at,
                               "\tld.v2.b64 {x, y}, [$1+%d];\n\tst.%s.v2.b64 [$0+%d], {x, y};\n", 16 * i,
                               sm ? "shared" : "global", 16 * i);
    if (at < sizeof text) snprintf(text + at, sizeof text - at, "\t}");
    eval_asm(e, e->cg->t_void, a, 2, text, sm ? "r,l,~{memory}" : "l,l,~{memory}");
    return (Value){.kind = V_VOID};
}

/* tmap_replace_address(slot, addr), tmap_replace_dim(slot, ord, extent),
 * tmap_replace_stride(slot, ord, bytes) (b->op BOP_TMAP_ADDRESS, _DIM,
 * _STRIDE): dimension ord's extent in elements (ord 0 the contiguous one,
 * below 5), or the byte stride of dimension ord + 1 (below 4; a multiple
 * of 16, as cuTensorMapEncodeTiled asks) */
Value b_tmap_replace(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    LLVMValueRef a[2];
    bool sm = false;
    if (!slot_addr(e, b, call, 0, &arg[0], false, true, &a[0], &sm)) return val_error();
    CG *cg = e->cg;
    const char *space = sm ? "shared::cta" : "global";
    char text[160], cons[24];
    if (b->op == BOP_TMAP_ADDRESS) {
        Value v = conv_to(e, arg[1], TY_I64, call->list.items[1]->loc, false);
        if (v.kind == V_ERROR) return v;
        a[1] = v.llvm;
        snprintf(text, sizeof text, "tensormap.replace.tile.global_address.%s.b1024.b64 [$0], $1;", space);
        snprintf(cons, sizeof cons, "%s,l,~{memory}", sm ? "r" : "l");
        eval_asm(e, cg->t_void, a, 2, text, cons);
        return (Value){.kind = V_VOID};
    }
    bool dim = b->op == BOP_TMAP_DIM;
    int64_t ord = arg[1].i, most = dim ? 4 : 3;
    if (ord < 0 || ord > most) {
        diag_error(e->diag, call->list.items[1]->loc, "'%s' takes a dimension from 0 to %lld, got %lld", b->name,
                   (long long)most, (long long)ord);
        return val_error();
    }
    Value v = conv_to(e, arg[2], dim ? TY_I32 : TY_I64, call->list.items[2]->loc, false);
    if (v.kind == V_ERROR) return v;
    a[1] = v.llvm;
    snprintf(text, sizeof text, "tensormap.replace.tile.%s.%s.b1024.%s [$0], %lld, $1;",
             dim ? "global_dim" : "global_stride", space, dim ? "b32" : "b64", (long long)ord);
    snprintf(cons, sizeof cons, "%s,%s,~{memory}", sm ? "r" : "l", dim ? "r" : "l");
    eval_asm(e, cg->t_void, a, 2, text, cons);
    return (Value){.kind = V_VOID};
}

/* tmap_publish(gslot, sslot): the shared slot's 128 bytes to the global
 * slot with the tensormap proxy release fused in (`tensormap.cp_fenceproxy`,
 * .sync.aligned: every thread of the warp executes it, the same operands) */
Value b_tmap_publish(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    LLVMValueRef a[2];
    bool sm = true;
    if (!slot_addr(e, b, call, 0, &arg[0], false, false, &a[0], NULL) ||
        !slot_addr(e, b, call, 1, &arg[1], false, true, &a[1], &sm))
        return val_error();
    if (!sm) {
        diag_error(e->diag, call->list.items[1]->loc,
                   "'%s' copies from a shared slot, found an i64 element of a global tensor", b->name);
        return val_error();
    }
    eval_asm(e, e->cg->t_void, a, 2,
             "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$0], [$1], 128;",
             "l,r,~{memory}");
    return (Value){.kind = V_VOID};
}

/* tmap_release(): this thread's writes to slots become visible to the
 * tensormap proxy (the TMA unit) at gpu scope */
Value b_tmap_release(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call, (void)arg;
    e->cg->ptx83 = true;
    eval_asm(e, e->cg->t_void, NULL, 0, "fence.proxy.tensormap::generic.release.gpu;", "~{memory}");
    return (Value){.kind = V_VOID};
}

/* tmap_acquire(slot): the TMA operations after it see the slot as released */
Value b_tmap_acquire(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    LLVMValueRef a[1];
    if (!slot_addr(e, b, call, 0, &arg[0], true, false, &a[0], NULL)) return val_error();
    eval_asm(e, e->cg->t_void, a, 1, "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;", "l,~{memory}");
    return (Value){.kind = V_VOID};
}

/* tmap_at(tmap, slot): the map in the slot, with tmap's box and tensor (so
 * that tma_load and tma_store check coordinates against it as against
 * tmap) */
Value b_tmap_at(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    Value m = arg[0];
    if (!slot_addr(e, b, call, 1, &arg[1], true, false, &m.llvm, NULL)) return val_error();
    return m;
}
