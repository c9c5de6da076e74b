/* eval_sm90_store.c: the Hopper (sm_90a) store path of an epilogue as
 * builtins: stmatrix (16-bit register fragments to shared memory) and the
 * TMA store (a shared tile to global memory through a tensor map) with its
 * bulk-group commit and wait.  A separate file from eval_sm90.c so the
 * epilogue and the main loop can change independently.  LLVM 19 has no
 * intrinsics for stmatrix or the tensor store; like eval_sm90.c these are
 * inline PTX marked sideeffect and convergent (docs/compiler.md). */
#include <string.h>

#include "codegen.h"
#include "eval.h"

/* A shared-memory element (V_REF in smem): its 32-bit shared address. */
static bool smem_elem(Eval *e, const Node *arg, const char *what, Value *ref, LLVMValueRef *addr)
{
    *ref = eval_expr(e, arg);
    if (ref->kind == V_ERROR) return false;
    if (ref->kind != V_REF || ref->space != SPACE_SMEM) {
        diag_error(e->diag, arg->loc, "%s must be a shared-memory element, found %s", what, val_describe(e, ref));
        return false;
    }
    *addr = LLVMBuildPtrToInt(e->cg->b, ref->llvm, e->cg->t_i32, "");
    return true;
}

static bool coord_arg(Eval *e, const Node *arg, LLVMValueRef *out)
{
    Value v = eval_rvalue(e, arg);
    if (v.kind == V_ERROR) return false;
    if (!(v.kind == V_INT || (v.kind == V_DYN && type_is_int(v.ty)))) {
        diag_error(e->diag, arg->loc, "a TMA coordinate must be an integer, found %s", val_describe(e, &v));
        return false;
    }
    v = conv_to(e, v, TY_I32, arg->loc, false); /* i64 coordinates are an error, not truncated */
    if (v.kind == V_ERROR) return false;
    *out = v.llvm;
    return true;
}

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
        LLVMValueRef idx = lower_layint(e, off);
        LLVMValueRef p = LLVMBuildGEP2(cg->b, et, t->llvm, &idx, 1, "");
        v = LLVMBuildInsertElement(cg->b, v, LLVMBuildLoad2(cg->b, et, p, ""), LLVMConstInt(cg->t_i32, (unsigned)h, 0), "");
    }
    return LLVMBuildBitCast(cg->b, v, cg->t_i32, "");
}

/* stmatrix(dst, frag[, trans]): frag is a register fragment of 2, 4 or 8
 * bf16/f16 elements (one, two or four 8x8 matrices, a pair per register);
 * each lane passes in dst the start of one 16-byte matrix row (lanes 0-7
 * the rows of matrix 0, 8-15 of matrix 1, ...).  The mirror of ldmatrix. */
static Value stmatrix(Eval *e, const Node *call)
{
    if (!builtin_arity(e, call, "stmatrix", 2, 3)) return val_error();
    Value dst, f;
    LLVMValueRef args[5];
    if (!smem_elem(e, call->list.items[0], "the destination of 'stmatrix'", &dst, &args[0])) return val_error();
    f = eval_expr(e, call->list.items[1]);
    if (f.kind == V_ERROR) return f;
    if (f.kind != V_TENSOR || f.space != SPACE_RMEM || f.lay.kind != LAY_V_LAYOUT) {
        diag_error(e->diag, call->list.items[1]->loc, "the source of 'stmatrix' must be a register fragment, found %s",
                   val_describe(e, &f));
        return val_error();
    }
    bool trans = false;
    if (call->list.n == 3) {
        Value t = eval_rvalue(e, call->list.items[2]);
        if (t.kind == V_ERROR) return t;
        if (t.kind != V_BOOL) {
            diag_error(e->diag, call->list.items[2]->loc, "the 'trans' argument of 'stmatrix' must be true or false, found %s",
                       val_describe(e, &t));
            return val_error();
        }
        trans = t.i != 0;
    }
    LayValue r;
    LayError err = {.arg = -1};
    if (!lay_call(e->arena, "size", NULL, 0, &f.lay, 1, &r, &err) || r.kind != LAY_V_INT || !r.i.is_static) {
        diag_error(e->diag, call->list.items[1]->loc, "the fragment's size must be static");
        return val_error();
    }
    int64_t n = r.i.value;
    if ((f.ty != TY_BF16 && f.ty != TY_F16) || (n != 2 && n != 4 && n != 8)) {
        diag_error(e->diag, call->list.items[1]->loc, "'stmatrix' stores 2, 4 or 8 elements of bf16 or f16, got %lld x %s",
                   (long long)n, type_name(f.ty));
        return val_error();
    }
    if (dst.ty != f.ty) {
        diag_error(e->diag, call->list.items[0]->loc, "'stmatrix' stores %s elements into a %s shared tensor", type_name(f.ty),
                   type_name(dst.ty));
        return val_error();
    }
    unsigned x = (unsigned)(n / 2);
    for (unsigned i = 0; i < x; i++)
        if (!(args[1 + i] = frag_pair(e, &f, i))) return val_error();
    const char *tr = trans ? ".trans" : "";
    char text[128];
    if (x == 1) snprintf(text, sizeof text, "stmatrix.sync.aligned.m8n8.x1%s.shared.b16 [$0], {$1};", tr);
    else if (x == 2) snprintf(text, sizeof text, "stmatrix.sync.aligned.m8n8.x2%s.shared.b16 [$0], {$1,$2};", tr);
    else snprintf(text, sizeof text, "stmatrix.sync.aligned.m8n8.x4%s.shared.b16 [$0], {$1,$2,$3,$4};", tr);
    eval_asm(e, e->cg->t_void, args, 1 + x, text, x == 1 ? "r,r,~{memory}" : x == 2 ? "r,r,r,~{memory}" : "r,r,r,r,r,~{memory}");
    return (Value){.kind = V_VOID};
}

/* tma_store(tmap, src, c0, c1): the box of tmap at coordinates (c0, c1),
 * innermost first, written from the shared tile at src.  Out-of-bounds
 * parts of the box are not written.  The shared writes must be made
 * visible to the async proxy first (fence_proxy_async and a barrier). */
static Value tma_store(Eval *e, const Node *call)
{
    if (!builtin_arity(e, call, "tma_store", 4, 4)) return val_error();
    Value tm = eval_expr(e, call->list.items[0]), src;
    if (tm.kind == V_ERROR) return tm;
    if (tm.kind != V_TMAP) {
        diag_error(e->diag, call->list.items[0]->loc, "'tma_store' needs a tma<...> parameter first, found %s",
                   val_describe(e, &tm));
        return val_error();
    }
    LLVMValueRef args[4] = {tm.llvm};
    if (!smem_elem(e, call->list.items[1], "the source of 'tma_store'", &src, &args[1])) return val_error();
    if (src.ty != tm.ty) {
        diag_error(e->diag, call->list.items[1]->loc,
                   "'tma_store' copies %s elements, but the tensor map '%s' describes %s elements", type_name(src.ty),
                   tm.name ? tm.name : "?", type_name(tm.ty));
        return val_error();
    }
    if (!coord_arg(e, call->list.items[2], &args[2]) || !coord_arg(e, call->list.items[3], &args[3])) return val_error();
    eval_asm(e, e->cg->t_void, args, 4, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$2, $3}], [$1];",
              "l,r,r,r,~{memory}");
    return (Value){.kind = V_VOID};
}

Value sm90_store_builtin(Eval *e, const char *name, const Node *call)
{
    if (!e->cg || !e->cg->fn) {
        diag_error(e->diag, call->loc, "'%s' is only allowed inside a kernel", name);
        return val_error();
    }
    if (call->list2.n) {
        diag_error(e->diag, call->loc, "'%s' takes no template arguments", name);
        return val_error();
    }
    if (strcmp(name, "stmatrix") == 0) return stmatrix(e, call);
    if (strcmp(name, "tma_store") == 0) return tma_store(e, call);
    if (strcmp(name, "tma_store_commit") == 0) {
        /* closes this thread's bulk group: every earlier tma_store of it */
        if (!builtin_arity(e, call, name, 0, 0)) return val_error();
        eval_asm(e, e->cg->t_void, NULL, 0, "cp.async.bulk.commit_group;", "~{memory}");
        return (Value){.kind = V_VOID};
    }
    /* tma_store_wait(N): until at most N of this thread's bulk groups still
     * read shared memory (.read: their sources may then be overwritten) */
    if (!builtin_arity(e, call, name, 1, 1)) return val_error();
    Value v = eval_rvalue(e, call->list.items[0]);
    if (v.kind == V_ERROR) return v;
    if (v.kind != V_INT || v.i < 0 || v.i > 7) {
        diag_error(e->diag, call->list.items[0]->loc,
                   "the number of pending groups of 'tma_store_wait' must be a compile-time integer in 0..7, found %s",
                   val_describe(e, &v));
        return val_error();
    }
    char text[64];
    snprintf(text, sizeof text, "cp.async.bulk.wait_group.read %lld;", (long long)v.i);
    eval_asm(e, e->cg->t_void, NULL, 0, text, "~{memory}");
    return (Value){.kind = V_VOID};
}
