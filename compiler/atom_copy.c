/* atom_copy.c: copy(tiled_copy, src, dst) and copy_if(tiled_copy, crd,
 * bound, src, dst): the checks of the source and destination against the
 * atom, then one instruction at a time through the atom's emitter (its
 * catalog row, atom_catalog.c), which are here: a vector load and store,
 * cp.async, ldmatrix. */
#include "atom.h"
#include "codegen.h"

/* The values i .. i+vec of t are one contiguous run in memory: they lie
 * in one run of mode 0 (the values mode of a partition), whose static
 * strides make them consecutive. */
static bool contiguous(Eval *e, const Value *t, int64_t i, int vec)
{
    const LayLayout *L = view_layout(t);
    LayLayout m0 = lmode(L, 0);
    int64_t s0;
    if (!lsize(e, &m0, &s0) || s0 % vec != 0) return false;
    int64_t c = i % s0;
    LayInt x0;
    LayError err = {.arg = -1};
    if (!lay_crd2idx(e->arena, lay_tuple_leaf(e->arena, lay_int_static(c)), &m0, &x0, &err) || !x0.is_static)
        return false;
    for (int q = 1; q < vec; q++) {
        LayInt x;
        if (!lay_crd2idx(e->arena, lay_tuple_leaf(e->arena, lay_int_static(c + q)), &m0, &x, &err) || !x.is_static ||
            x.value != x0.value + q)
            return false;
    }
    /* a swizzle moves aligned blocks of 2^m elements: the run must be one */
    if (t->lay.kind == LAY_V_COMPOSED && t->lay.composed.sw.b > 0 &&
        (((int64_t)1 << t->lay.composed.sw.m) < vec || x0.value % vec != 0))
        return false;
    return true;
}

/* the in-bounds predicate of flat element i of identity tensor crd */
static LLVMValueRef in_bounds(Eval *e, const Value *crd, const LayTuple *bound, int64_t i, SrcLoc loc, bool *all)
{
    LLVMValueRef p = NULL;
    *all = true;
    for (int c = 0; c < crd->ncomp; c++) {
        LayInt x;
        LayError err = {.arg = -1};
        if (!lay_crd2idx(e->arena, lay_tuple_leaf(e->arena, lay_int_static(i)), &crd->comp[c], &x, &err) ||
            !lay_int_add(e->arena, x, crd->coff[c], &x)) {
            diag_error(e->diag, loc, "%s", err.msg);
            return NULL;
        }
        LayInt bd = bound->is_leaf ? bound->leaf : bound->elems[c]->leaf;
        if (x.is_static && bd.is_static) {
            if (x.value < bd.value) continue;
            *all = false;
            return LLVMConstInt(e->cg->t_i1, 0, 0);
        }
        LLVMValueRef lx, lb;
        lower_layint_pair(e, x, bd, &lx, &lb);
        LLVMValueRef q = LLVMBuildICmp(e->cg->b, LLVMIntSLT, lx, lb, "");
        p = p ? LLVMBuildAnd(e->cg->b, p, q, "") : q;
    }
    if (!p) return LLVMConstInt(e->cg->t_i1, 1, 0);
    *all = false;
    return p;
}

/* copy(tc, src, dst) and copy_if(tc, crd, bound, src, dst): the checks of
 * the atom's kind, then one instruction at a time through its emitter */
Value atom_copy(Eval *e, const Node *call, const Value *arg, bool pred)
{
    const char *name = pred ? "copy_if" : "copy";
    int base = pred ? 3 : 1;
    Value tc = arg[0];
    const Atom *a = tc.atom;
    if (a->kind != AK_TILED_COPY && a->kind != AK_LDSM_COPY && a->kind != AK_COPY) {
        diag_error(e->diag, call->list.items[0]->loc, "'%s' needs a copy atom or tiled copy, found %s", name,
                   val_describe(e, &tc));
        return val_error();
    }
    Value s = arg[base], d = arg[base + 1], crd = {.kind = V_VOID};
    LayTuple *bound = NULL;
    if (pred) {
        crd = arg[1];
        if (crd.space != SPACE_IDENT) {
            diag_error(
                e->diag, call->list.items[1]->loc,
                "the coordinate tensor of 'copy_if' must be an identity tensor partitioned like the source, found %s",
                val_describe(e, &crd));
            return val_error();
        }
        Value bv = arg[2];
        bound = coord_of(e, bv, call->list.items[2]->loc);
        if (!bound) return val_error();
        for (int c = 0; !bound->is_leaf && c < bound->n; c++)
            if (!bound->elems[c]->is_leaf) {
                diag_error(e->diag, call->list.items[2]->loc, "the bound must be a flat tuple of integers, found %s",
                           lay_print_tuple(e->arena, bound));
                return val_error();
            }
        if ((bound->is_leaf ? 1 : bound->n) != crd.ncomp) {
            diag_error(e->diag, call->list.items[2]->loc, "the bound has %d components, the coordinates %d",
                       bound->is_leaf ? 1 : bound->n, crd.ncomp);
            return val_error();
        }
    }
    int64_t ns, nd, nc = 0;
    SrcLoc sl = call->list.items[base]->loc, dl = call->list.items[base + 1]->loc;
    if (!tensor_static_size(e, &s, sl, &ns) || !tensor_static_size(e, &d, dl, &nd) ||
        (pred && !tensor_static_size(e, &crd, call->list.items[1]->loc, &nc)))
        return val_error();
    if (s.space == SPACE_IDENT || d.space == SPACE_IDENT) {
        diag_error(e->diag, s.space == SPACE_IDENT ? sl : dl,
                   "an identity tensor has no memory; index it for coordinates instead");
        return val_error();
    }
    if (a->op == OP_LDSM) {
        if (pred) {
            diag_error(e->diag, call->loc, "ldmatrix copies are not predicated: use 'copy'");
            return val_error();
        }
        if (a->kind != AK_LDSM_COPY) {
            diag_error(e->diag, call->list.items[0]->loc,
                       "an ldmatrix atom copies through make_tiled_copy_A/B(atom, mma)");
            return val_error();
        }
        if (s.space != SPACE_SMEM || d.space != SPACE_RMEM || d.ty != a->ty || nd != ns * 2 * a->vec) {
            diag_error(e->diag, call->loc,
                       "an ldmatrix.x%d copy takes a source from partition_S (one element per instruction) and the "
                       "%lld-element register fragment it fills; got %lld x %s %s and %lld x %s %s",
                       a->vec, (long long)(ns * 2 * a->vec), (long long)ns, type_name(s.ty),
                       s.space == SPACE_SMEM ? "shared" : "non-shared", (long long)nd, type_name(d.ty),
                       d.space == SPACE_RMEM ? "registers" : "memory");
            return val_error();
        }
        for (int64_t g = 0; g < ns; g++) {
            CopyStep st = {.atom = a, .src = &s, .dst = &d, .i = g, .ps = tensor_elem_ptr(e, &s, g, call->loc)};
            if (!st.ps || !a->cinfo->emit(e, &st, call->loc)) return val_error();
        }
        return (Value){.kind = V_VOID};
    }
    if (ns != nd || (pred && nc != ns)) {
        diag_error(
            e->diag, call->loc, "'%s' needs tensors of the same size, got %lld (source) and %lld (destination)%s", name,
            (long long)ns, (long long)nd, pred ? arena_printf(e->arena, " and %lld coordinates", (long long)nc) : "");
        return val_error();
    }
    if (s.ty != a->ty || d.ty != a->ty) {
        diag_error(e->diag, call->loc, "the copy atom moves %s; the source is %s and the destination %s",
                   type_name(a->ty), type_name(s.ty), type_name(d.ty));
        return val_error();
    }
    if (a->op == OP_CP_ASYNC && (s.space != SPACE_GMEM || d.space != SPACE_SMEM)) {
        diag_error(e->diag, call->loc, "cp.async copies global memory to shared memory");
        return val_error();
    }
    if (ns % a->vec != 0) {
        diag_error(e->diag, call->loc, "%lld elements are not a multiple of the atom's %d", (long long)ns, a->vec);
        return val_error();
    }
    for (int64_t i = 0; i < ns; i += a->vec) {
        if (!contiguous(e, &s, i, a->vec) || !contiguous(e, &d, i, a->vec)) {
            diag_error(e->diag, call->loc,
                       "the atom moves %d elements at once, but elements %lld..%lld of the %s are not contiguous in "
                       "memory (%s)",
                       a->vec, (long long)i, (long long)(i + a->vec - 1),
                       contiguous(e, &s, i, a->vec) ? "destination" : "source",
                       lay_print_value(e->arena, contiguous(e, &s, i, a->vec) ? &d.lay : &s.lay));
            return val_error();
        }
        LLVMValueRef ps = tensor_elem_ptr(e, &s, i, call->loc), pd = tensor_elem_ptr(e, &d, i, call->loc);
        if (!ps || !pd) return val_error();
        bool all = true;
        LLVMValueRef ok = pred ? in_bounds(e, &crd, bound, i, call->loc, &all) : NULL;
        if (pred && !ok) return val_error();
        CopyStep st = {.atom = a, .src = &s, .dst = &d, .i = i, .ps = ps, .pd = pd, .ok = all ? NULL : ok};
        if (!a->cinfo->emit(e, &st, call->loc)) return val_error();
    }
    return (Value){.kind = V_VOID};
}

/* ---- the copy atoms' emitters (atom_catalog.c) ------------------------- */

static unsigned step_bytes(const Atom *a) { return (unsigned)(a->vec * type_bytes(a->ty)); }

/* one vector load and store; out of bounds (ok false) skipped */
bool copy_universal_emit(Eval *e, const CopyStep *st, SrcLoc loc)
{
    (void)loc;
    const Atom *a = st->atom;
    LLVMBuilderRef b = e->cg->b;
    LLVMTypeRef et = cg_type(e->cg, a->ty), vt = a->vec > 1 ? LLVMVectorType(et, (unsigned)a->vec) : et;
    unsigned bytes = step_bytes(a);
    LLVMBasicBlockRef then = NULL, merge = NULL;
    if (st->ok) {
        then = LLVMAppendBasicBlockInContext(e->cg->ctx, e->cg->fn, "copy.in");
        merge = LLVMAppendBasicBlockInContext(e->cg->ctx, e->cg->fn, "copy.end");
        LLVMBuildCondBr(b, st->ok, then, merge);
        LLVMPositionBuilderAtEnd(b, then);
    }
    LLVMValueRef v = LLVMBuildLoad2(b, vt, st->ps, "");
    LLVMSetAlignment(v, bytes);
    LLVMValueRef w = LLVMBuildStore(b, v, st->pd);
    LLVMSetAlignment(w, bytes);
    if (st->ok) {
        LLVMBuildBr(b, merge);
        LLVMPositionBuilderAtEnd(b, merge);
    }
    return true;
}

/* one cp.async; out of bounds: zero-fill, reading nothing, from the
 * tensor's base element (an address that exists) */
bool copy_cp_async_emit(Eval *e, const CopyStep *st, SrcLoc loc)
{
    (void)loc;
    LLVMBuilderRef b = e->cg->b;
    unsigned bytes = step_bytes(st->atom);
    LLVMValueRef size = LLVMConstInt(e->cg->t_i32, bytes, 0), ps = st->ps;
    if (st->ok) {
        size = LLVMBuildSelect(b, st->ok, size, LLVMConstInt(e->cg->t_i32, 0, 0), "");
        ps = LLVMBuildSelect(b, st->ok, ps, st->src->llvm, "");
    }
    Value ref = {.kind = V_REF, .llvm = st->pd, .ty = st->dst->ty, .space = SPACE_SMEM};
    emit_cp_async(e, smem_addr32(e, &ref), ps, (int)bytes, size);
    return true;
}

/* one ldmatrix from source element i (this lane's row) into the next 2N
 * fragment values */
bool copy_ldmatrix_emit(Eval *e, const CopyStep *st, SrcLoc loc)
{
    const Atom *a = st->atom;
    Value ref = {.kind = V_REF, .llvm = st->ps, .ty = st->src->ty, .space = SPACE_SMEM};
    return emit_ldmatrix(e, st->dst, 2 * a->vec * st->i, a->vec, a->trans, smem_addr32(e, &ref), loc);
}

Value b_copy_if(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    return atom_copy(e, call, arg, true);
}
