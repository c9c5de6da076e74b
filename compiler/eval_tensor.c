/* eval_tensor.c: tensor views and the hardware operations on them.
 *
 * local_tile builds a view of one tile (CuTe's zipped_divide then slice);
 * fill and copy walk a tensor with static indices, so register fragments
 * stay in SSA values; mma_m16n8k16, ldmatrix and cp_async map one call to
 * one PTX instruction, reading and writing fragment tensors element by
 * element through their layouts. */
#include <string.h>

#include "builtins.h"
#include "codegen.h"
#include "eval.h"

Value tensor_make(LLVMValueRef base, ScalarType ty, MemSpace space, LayValue lay)
{
    Value v = {.kind = V_TENSOR, .llvm = base, .ty = ty, .space = space, .lay = lay};
    v.toff = lay_int_static(0);
    return v;
}

/* Operations that move data need memory behind the tensor. */
static bool has_memory(Eval *e, const Value *t, const Node *arg)
{
    if (t->space != SPACE_IDENT) return true;
    diag_error(e->diag, arg->loc, "an identity tensor has no memory; index it for coordinates instead");
    return false;
}

/* make_identity_tensor((M, N)): a tensor whose element at (i, j) is the
 * coordinate (i, j) itself, CuTe's identity tensor.  Tiled, partitioned or
 * sliced like the data tensor, it tells each thread which coordinates its
 * elements have, for predication of residue tiles.  One layout per
 * coordinate (stride 1 in its own mode, 0 elsewhere) plays the role of
 * CuTe's basis strides. */
Value b_make_identity_tensor(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value sv = arg[0];
    LayTuple *shape = coord_of(e, sv, call->list.items[0]->loc);
    if (!shape) return val_error();
    int r = shape->is_leaf ? 1 : shape->n;
    if (r > 8) {
        diag_error(e->diag, call->list.items[0]->loc, "an identity tensor has at most 8 modes, got %d", r);
        return val_error();
    }
    for (int i = 0; i < r; i++)
        if (!shape->is_leaf && !shape->elems[i]->is_leaf) {
            diag_error(e->diag, call->list.items[0]->loc, "an identity tensor needs a flat shape, got %s",
                       lay_print_tuple(e->arena, shape));
            return val_error();
        }
    Value t = tensor_make(NULL, TY_I32, SPACE_IDENT, (LayValue){.kind = LAY_V_LAYOUT});
    t.ncomp = r;
    t.comp = ARENA_ARRAY(e->arena, LayLayout, r);
    t.coff = ARENA_ARRAY(e->arena, LayInt, r);
    for (int c = 0; c < r; c++) {
        LayTuple *st;
        if (shape->is_leaf) {
            st = lay_tuple_leaf(e->arena, lay_int_static(1));
        } else {
            LayTuple **el = ARENA_ARRAY(e->arena, LayTuple *, r);
            for (int i = 0; i < r; i++) el[i] = lay_tuple_leaf(e->arena, lay_int_static(i == c));
            st = lay_tuple_make(e->arena, r, el);
        }
        t.comp[c] = (LayLayout){shape, st};
        t.coff[c] = lay_int_static(0);
    }
    t.lay.layout = t.comp[0];
    return t;
}

bool tensor_static_size(Eval *e, const Value *t, SrcLoc loc, int64_t *n)
{
    LayValue r;
    LayError err = {.arg = -1};
    if (!lay_call(e->arena, "size", NULL, 0, &t->lay, 1, &r, &err)) {
        diag_error(e->diag, loc, "%s", err.msg);
        return false;
    }
    if (r.kind != LAY_V_INT || !r.i.is_static) {
        diag_error(e->diag, loc, "the tensor's size must be static here, found %s", lay_print_value(e->arena, &r));
        return false;
    }
    *n = r.i.value;
    return eval_work(e, *n, loc);
}

/* The address of element i (a linear index) of tensor t. */
LLVMValueRef tensor_elem_ptr(Eval *e, const Value *t, int64_t i, SrcLoc loc)
{
    LayTuple *crd = lay_tuple_leaf(e->arena, lay_int_static(i));
    LayInt off;
    LayError err = {.arg = -1};
    bool ok = t->lay.kind == LAY_V_COMPOSED ? lay_composed_crd2idx(e->arena, crd, &t->lay.composed, &off, &err)
                                            : lay_crd2idx(e->arena, crd, &t->lay.layout, &off, &err);
    if (!ok || !lay_int_add(e->arena, t->toff, off, &off)) {
        diag_error(e->diag, loc, "%s", ok ? "tensor offset overflows 64 bits" : err.msg);
        return NULL;
    }
    return tensor_addr(e, t, off);
}

/* One layout tiled: cs[i] the tile coordinate of mode i, or NULL for `_`
 * (the tile count of that mode becomes a trailing mode). */
static bool tile_one(Eval *e, const Node *call, const LayLayout *L, const LayTuple *tt, LayInt **cs, LayLayout *out,
                     LayInt off0, LayInt *off)
{
    int rank = L->shape->is_leaf ? 1 : L->shape->n;
    LayTuple **is = ARENA_ARRAY(e->arena, LayTuple *, 2 * rank), **id = ARENA_ARRAY(e->arena, LayTuple *, 2 * rank);
    LayTuple **os = ARENA_ARRAY(e->arena, LayTuple *, rank), **od = ARENA_ARRAY(e->arena, LayTuple *, rank);
    int n = 0, nouter = 0;
    *off = off0;
    for (int i = 0; i < rank; i++) {
        LayTuple *si = L->shape->is_leaf ? L->shape : L->shape->elems[i];
        LayTuple *di = L->stride->is_leaf ? L->stride : L->stride->elems[i];
        LayTuple *ti = tt->is_leaf ? (LayTuple *)tt : tt->elems[i];
        if (!si->is_leaf || !ti->is_leaf || !ti->leaf.is_static || ti->leaf.value <= 0) {
            diag_error(e->diag, call->loc,
                       "'local_tile' needs a flat tensor layout and static positive tile sizes (mode %d)", i);
            return false;
        }
        LayInt step;
        if (!lay_int_mul(e->arena, ti->leaf, di->leaf, &step)) return false;
        is[n] = ti;
        id[n++] = di;
        if (!cs[i]) {
            LayInt cnt;
            if (!lay_int_ceildiv(e->arena, si->leaf, ti->leaf, &cnt)) return false;
            os[nouter] = lay_tuple_leaf(e->arena, cnt);
            od[nouter++] = lay_tuple_leaf(e->arena, step);
            continue;
        }
        LayInt x;
        if (!lay_int_mul(e->arena, *cs[i], step, &x) || !lay_int_add(e->arena, *off, x, off)) return false;
    }
    for (int i = 0; i < nouter; i++) {
        is[n] = os[i];
        id[n++] = od[i];
    }
    *out = n == 1 ? (LayLayout){is[0], id[0]}
                  : (LayLayout){lay_tuple_make(e->arena, n, is), lay_tuple_make(e->arena, n, id)};
    return true;
}

/* local_tile(T, (BM, BK), (bm, _)): the tile at coordinate bm along mode 0;
 * a `_` keeps that mode's tile index as an extra trailing mode, as CuTe's
 * local_tile does.  T must have a flat layout. */
Value b_local_tile(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value t = arg[0], tile = arg[1];
    if (t.lay.kind != LAY_V_LAYOUT) {
        diag_error(e->diag, call->list.items[0]->loc, "'local_tile' needs a tensor with a plain layout");
        return val_error();
    }
    LayLayout *L = &t.lay.layout;
    int rank = L->shape->is_leaf ? 1 : L->shape->n;
    LayTuple *tt = coord_of(e, tile, call->list.items[1]->loc);
    if (!tt) return val_error();
    int tr = tt->is_leaf ? 1 : tt->n;
    const Node *cn = call->list.items[2];
    /* a tuple written in place may hold `_`; otherwise any tuple value */
    LayTuple *cval = NULL;
    if (cn->kind != N_TUPLE) {
        Value cv = eval_rvalue(e, cn);
        if (cv.kind == V_ERROR) return cv;
        cval = coord_of(e, cv, cn->loc);
        if (!cval) return val_error();
    }
    int cr = cn->kind == N_TUPLE ? cn->list.n : cval->is_leaf ? 1 : cval->n;
    if (tr != rank || cr != rank) {
        diag_error(e->diag, call->loc,
                   "'local_tile' of a rank-%d tensor needs a rank-%d tile and coordinate, got %d and %d", rank, rank,
                   tr, cr);
        return val_error();
    }
    /* the coordinates once (NULL for `_`); then the same tiling of every
     * component of an identity tensor */
    LayInt **cs = ARENA_ARRAY(e->arena, LayInt *, rank);
    for (int i = 0; i < rank; i++) {
        const Node *ci = cn->kind == N_TUPLE ? cn->list.items[i] : cn;
        cs[i] = NULL;
        if (cval) {
            LayTuple *ct = cval->is_leaf ? cval : cval->elems[i];
            if (!ct->is_leaf) {
                diag_error(e->diag, cn->loc, "a tile coordinate must be an integer or '_'");
                return val_error();
            }
            cs[i] = ARENA_NEW(e->arena, LayInt);
            *cs[i] = ct->leaf;
            continue;
        }
        if (ci->kind == N_UNDERSCORE) continue;
        Value c = eval_rvalue(e, ci);
        if (c.kind == V_ERROR) return c;
        LayValue cv;
        if (!val_to_lay(e, c, &cv, ci->loc, "a tile coordinate")) return val_error();
        if (cv.kind != LAY_V_INT) {
            diag_error(e->diag, ci->loc, "a tile coordinate must be an integer or '_'");
            return val_error();
        }
        cs[i] = ARENA_NEW(e->arena, LayInt);
        *cs[i] = cv.i;
    }
    Value r = t;
    if (!tile_one(e, call, L, tt, cs, &r.lay.layout, t.toff, &r.toff)) return val_error();
    if (t.ncomp) {
        r.comp = ARENA_ARRAY(e->arena, LayLayout, t.ncomp);
        r.coff = ARENA_ARRAY(e->arena, LayInt, t.ncomp);
        for (int c = 0; c < t.ncomp; c++)
            if (!tile_one(e, call, &t.comp[c], tt, cs, &r.comp[c], t.coff[c], &r.coff[c])) return val_error();
    }
    return r;
}

/* One layout partitioned for thread idx by thread layout P. */
static bool partition_one(Eval *e, const Node *call, const LayLayout *L, const LayLayout *P, LayInt idx, LayLayout *out,
                          LayInt off0, LayInt *off)
{
    int rank = L->shape->is_leaf ? 1 : L->shape->n;
    LayTuple **rs = ARENA_ARRAY(e->arena, LayTuple *, rank), **rd = ARENA_ARRAY(e->arena, LayTuple *, rank);
    *off = off0;
    for (int i = 0; i < rank; i++) {
        LayTuple *si = L->shape->is_leaf ? L->shape : L->shape->elems[i];
        LayTuple *di = L->stride->is_leaf ? L->stride : L->stride->elems[i];
        LayTuple *ps = P->shape->is_leaf ? P->shape : P->shape->elems[i];
        LayTuple *pd = P->stride->is_leaf ? P->stride : P->stride->elems[i];
        if (!si->is_leaf || !ps->is_leaf || !ps->leaf.is_static || !pd->is_leaf || !pd->leaf.is_static ||
            ps->leaf.value <= 0) {
            diag_error(e->diag, call->loc, "'local_partition' needs flat layouts and a static thread layout (mode %d)",
                       i);
            return false;
        }
        LayInt c, x, cnt, step;
        if (!lay_int_div(e->arena, idx, pd->leaf, &c) || !lay_int_mod(e->arena, c, ps->leaf, &c) ||
            !lay_int_mul(e->arena, c, di->leaf, &x) || !lay_int_add(e->arena, *off, x, off) ||
            !lay_int_ceildiv(e->arena, si->leaf, ps->leaf, &cnt) || !lay_int_mul(e->arena, ps->leaf, di->leaf, &step)) {
            diag_error(e->diag, call->loc, "'local_partition' overflows 64 bits");
            return false;
        }
        rs[i] = lay_tuple_leaf(e->arena, cnt);
        rd[i] = lay_tuple_leaf(e->arena, step);
    }
    *out = rank == 1 ? (LayLayout){rs[0], rd[0]}
                     : (LayLayout){lay_tuple_make(e->arena, rank, rs), lay_tuple_make(e->arena, rank, rd)};
    return true;
}

/* local_partition(T, thr, idx): the elements of T that thread idx owns when
 * the thread layout thr tiles T (CuTe's local_partition / outer_partition):
 * thread coordinate c_i = (idx / d_i) % s_i in each mode of thr; the view
 * keeps every s_i-th element of mode i starting at c_i. */
Value b_local_partition(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value t = arg[0], thr = arg[1], idx = arg[2];
    if (t.lay.kind != LAY_V_LAYOUT || thr.kind != V_LAY || thr.lay.kind != LAY_V_LAYOUT) {
        diag_error(e->diag, call->loc, "'local_partition' needs a tensor with a plain layout and a thread layout");
        return val_error();
    }
    LayValue iv;
    if (!val_to_lay(e, idx, &iv, call->list.items[2]->loc, "the thread index")) return val_error();
    if (iv.kind != LAY_V_INT) {
        diag_error(e->diag, call->list.items[2]->loc, "the thread index must be an integer");
        return val_error();
    }
    LayLayout *L = &t.lay.layout, *P = &thr.lay.layout;
    int rank = L->shape->is_leaf ? 1 : L->shape->n;
    int prank = P->shape->is_leaf ? 1 : P->shape->n;
    if (rank != prank) {
        diag_error(e->diag, call->loc,
                   "'local_partition' of a rank-%d tensor needs a rank-%d thread layout, got rank %d", rank, rank,
                   prank);
        return val_error();
    }
    Value r = t;
    if (!partition_one(e, call, L, P, iv.i, &r.lay.layout, t.toff, &r.toff)) return val_error();
    if (t.ncomp) {
        r.comp = ARENA_ARRAY(e->arena, LayLayout, t.ncomp);
        r.coff = ARENA_ARRAY(e->arena, LayInt, t.ncomp);
        for (int c = 0; c < t.ncomp; c++)
            if (!partition_one(e, call, &t.comp[c], P, iv.i, &r.comp[c], t.coff[c], &r.coff[c])) return val_error();
    }
    return r;
}

Value b_fill(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value t = arg[0], v = arg[1];
    int64_t n;
    if (!has_memory(e, &t, call->list.items[0]) || !tensor_static_size(e, &t, call->loc, &n)) return val_error();
    v = conv_to(e, v, t.ty, call->list.items[1]->loc, false);
    if (v.kind == V_ERROR) return v;
    for (int64_t i = 0; i < n; i++) {
        LLVMValueRef p = tensor_elem_ptr(e, &t, i, call->loc);
        if (!p) return val_error();
        LLVMBuildStore(e->cg->b, v.llvm, p);
    }
    return (Value){.kind = V_VOID};
}

/* copy(dst, src): element i of src to element i of dst, converting the
 * element type; both sizes static and equal. */
Value b_copy(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value d = arg[0], s = arg[1];
    /* copy(tiled_copy, src, dst) is the atom form (atom_copy.c) */
    if (d.kind == V_ATOM) return builtin_arity(e, call, "copy", 3, 3) ? atom_copy(e, call, arg, false) : val_error();
    if (d.kind != V_TENSOR) {
        diag_error(e->diag, call->list.items[0]->loc, "argument 1 of 'copy' must be a tensor or a tiled copy, found %s",
                   val_describe(e, &d));
        return val_error();
    }
    if (!builtin_arity(e, call, "copy", 2, 2) || !has_memory(e, &d, call->list.items[0]) ||
        !has_memory(e, &s, call->list.items[1]))
        return val_error();
    int64_t nd, ns;
    if (!tensor_static_size(e, &d, call->list.items[0]->loc, &nd) ||
        !tensor_static_size(e, &s, call->list.items[1]->loc, &ns))
        return val_error();
    if (nd != ns) {
        diag_error(e->diag, call->loc, "'copy' needs tensors of the same size, got %lld and %lld", (long long)nd,
                   (long long)ns);
        return val_error();
    }
    for (int64_t i = 0; i < nd; i++) {
        LLVMValueRef ps = tensor_elem_ptr(e, &s, i, call->loc), pd = tensor_elem_ptr(e, &d, i, call->loc);
        if (!ps || !pd) return val_error();
        Value v = val_dyn(LLVMBuildLoad2(e->cg->b, cg_type(e->cg, s.ty), ps, ""), s.ty);
        v = conv_to(e, v, d.ty, call->loc, false);
        if (v.kind == V_ERROR) return v;
        LLVMBuildStore(e->cg->b, v.llvm, pd);
    }
    return (Value){.kind = V_VOID};
}

LLVMValueRef eval_asm(Eval *e, LLVMTypeRef ret, LLVMValueRef *args, unsigned nargs, const char *text, const char *cons)
{
    CG *cg = e->cg;
    LLVMTypeRef *tys = ARENA_ARRAY(e->arena, LLVMTypeRef, nargs > 0 ? nargs : 1);
    for (unsigned i = 0; i < nargs; i++) tys[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, tys, nargs, 0);
    LLVMValueRef ia = LLVMGetInlineAsm(fty, text, strlen(text), cons, strlen(cons), 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef call = LLVMBuildCall2(cg->b, fty, ia, args, nargs, "");
    unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, kind, 0));
    return call;
}

LLVMTypeRef eval_struct_of(Eval *e, LLVMTypeRef t, unsigned n)
{
    LLVMTypeRef el[8];
    for (unsigned i = 0; i < n; i++) el[i] = t;
    return LLVMStructTypeInContext(e->cg->ctx, el, n, 0);
}

static bool is16(ScalarType t) { return t == TY_BF16 || t == TY_F16; }

/* elements 2i and 2i+1 of a 16-bit fragment, packed into one b32 register */
static LLVMValueRef pack_pair(Eval *e, const Value *t, int64_t i, SrcLoc loc)
{
    LLVMValueRef p0 = tensor_elem_ptr(e, t, 2 * i, loc), p1 = tensor_elem_ptr(e, t, 2 * i + 1, loc);
    if (!p0 || !p1) return NULL;
    LLVMTypeRef et = cg_type(e->cg, t->ty);
    LLVMTypeRef vt = LLVMVectorType(et, 2);
    LLVMValueRef v = LLVMGetUndef(vt);
    v = LLVMBuildInsertElement(e->cg->b, v, LLVMBuildLoad2(e->cg->b, et, p0, ""), LLVMConstInt(e->cg->t_i32, 0, 0), "");
    v = LLVMBuildInsertElement(e->cg->b, v, LLVMBuildLoad2(e->cg->b, et, p1, ""), LLVMConstInt(e->cg->t_i32, 1, 0), "");
    return LLVMBuildBitCast(e->cg->b, v, e->cg->t_i32, "");
}

static bool unpack_pair(Eval *e, const Value *t, int64_t i, LLVMValueRef r, SrcLoc loc)
{
    LLVMValueRef p0 = tensor_elem_ptr(e, t, 2 * i, loc), p1 = tensor_elem_ptr(e, t, 2 * i + 1, loc);
    if (!p0 || !p1) return false;
    LLVMTypeRef vt = LLVMVectorType(cg_type(e->cg, t->ty), 2);
    LLVMValueRef v = LLVMBuildBitCast(e->cg->b, r, vt, "");
    LLVMBuildStore(e->cg->b, LLVMBuildExtractElement(e->cg->b, v, LLVMConstInt(e->cg->t_i32, 0, 0), ""), p0);
    LLVMBuildStore(e->cg->b, LLVMBuildExtractElement(e->cg->b, v, LLVMConstInt(e->cg->t_i32, 1, 0), ""), p1);
    return true;
}

/* One mma.sync m16n8k16: accumulators c[cb .. cb+4), A fragment a[ab ..
 * ab+8), B fragment b[bb .. bb+4) (flat element indices, in PTX's register
 * order).  The caller has checked the types. */
bool emit_mma16816(Eval *e, const Value *c, int64_t cb, const Value *a, int64_t ab, const Value *b, int64_t bb,
                   SrcLoc loc)
{
    LLVMValueRef args[14];
    for (int i = 0; i < 4; i++) args[i] = pack_pair(e, a, ab / 2 + i, loc);
    for (int i = 0; i < 2; i++) args[4 + i] = pack_pair(e, b, bb / 2 + i, loc);
    LLVMValueRef cp[4];
    for (int i = 0; i < 4; i++) {
        cp[i] = tensor_elem_ptr(e, c, cb + i, loc);
        if (!cp[i]) return false;
        args[6 + i] = LLVMBuildLoad2(e->cg->b, e->cg->t_f32, cp[i], "");
    }
    for (int i = 0; i < 6; i++)
        if (!args[i]) return false;
    char text[160];
    snprintf(
        text, sizeof text,
        "mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};",
        type_name(a->ty), type_name(a->ty));
    LLVMValueRef r = eval_asm(e, eval_struct_of(e, e->cg->t_f32, 4), args, 10, text, "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3");
    for (unsigned i = 0; i < 4; i++) LLVMBuildStore(e->cg->b, LLVMBuildExtractValue(e->cg->b, r, i, ""), cp[i]);
    return true;
}

/* mma_m16n8k16(acc, a, b): acc (4 x f32) += a (8 x bf16|f16) * b (4 x same),
 * fragments in the order of PTX's mma.m16n8k16 register layout. */
Value b_mma_m16n8k16(Eval *e, const Builtin *row, const Node *call, const Value *arg)
{
    (void)row;
    Value c = arg[0], a = arg[1], b = arg[2];
    if (!has_memory(e, &c, call->list.items[0]) || !has_memory(e, &a, call->list.items[1]) ||
        !has_memory(e, &b, call->list.items[2]))
        return val_error();
    int64_t nc, na, nb;
    if (!tensor_static_size(e, &c, call->list.items[0]->loc, &nc) ||
        !tensor_static_size(e, &a, call->list.items[1]->loc, &na) ||
        !tensor_static_size(e, &b, call->list.items[2]->loc, &nb))
        return val_error();
    if (c.ty != TY_F32 || nc != 4 || !is16(a.ty) || na != 8 || b.ty != a.ty || nb != 4) {
        diag_error(e->diag, call->loc,
                   "'mma_m16n8k16' needs (acc: 4 x f32, a: 8 x bf16|f16, b: 4 x the same type), got (%lld x %s, %lld x "
                   "%s, %lld x %s)",
                   (long long)nc, type_name(c.ty), (long long)na, type_name(a.ty), (long long)nb, type_name(b.ty));
        return val_error();
    }
    if (!emit_mma16816(e, &c, 0, &a, 0, &b, 0, call->loc)) return val_error();
    return (Value){.kind = V_VOID};
}

LLVMValueRef smem_addr32(Eval *e, const Value *ref) { return LLVMBuildPtrToInt(e->cg->b, ref->llvm, e->cg->t_i32, ""); }

/* One ldmatrix .x1/.x2/.x4 (x = 1, 2, 4) from the 32-bit shared address
 * addr into registers that unpack to d[db .. db + 2x) (flat indices). */
bool emit_ldmatrix(Eval *e, const Value *d, int64_t db, int x, bool trans, LLVMValueRef addr, SrcLoc loc)
{
    char text[128], cons[64];
    if (x == 1)
        snprintf(text, sizeof text, "ldmatrix.sync.aligned.m8n8.x1%s.shared.b16 {$0}, [$1];", trans ? ".trans" : "");
    else if (x == 2)
        snprintf(text, sizeof text, "ldmatrix.sync.aligned.m8n8.x2%s.shared.b16 {$0,$1}, [$2];", trans ? ".trans" : "");
    else
        snprintf(text, sizeof text, "ldmatrix.sync.aligned.m8n8.x4%s.shared.b16 {$0,$1,$2,$3}, [$4];",
                 trans ? ".trans" : "");
    snprintf(cons, sizeof cons, "%s",
             x == 1   ? "=r,r,~{memory}"
             : x == 2 ? "=r,=r,r,~{memory}"
                      : "=r,=r,=r,=r,r,~{memory}");
    LLVMTypeRef rt = x == 1 ? e->cg->t_i32 : eval_struct_of(e, e->cg->t_i32, (unsigned)x);
    LLVMValueRef r = eval_asm(e, rt, &addr, 1, text, cons);
    for (int i = 0; i < x; i++) {
        LLVMValueRef ri = x == 1 ? r : LLVMBuildExtractValue(e->cg->b, r, (unsigned)i, "");
        if (!unpack_pair(e, d, db / 2 + i, ri, loc)) return false;
    }
    return true;
}

/* ldmatrix(dst, src[, trans]): dst is a 2, 4 or 8 element 16-bit fragment
 * (x1, x2, x4); src is this lane's row address in shared memory. */
Value b_ldmatrix(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value d = arg[0];
    if (!has_memory(e, &d, call->list.items[0])) return val_error();
    bool trans = call->list.n == 3 && arg[2].i;
    int64_t n;
    if (!tensor_static_size(e, &d, call->list.items[0]->loc, &n)) return val_error();
    if (!is16(d.ty) || (n != 2 && n != 4 && n != 8)) {
        diag_error(e->diag, call->list.items[0]->loc,
                   "'ldmatrix' loads 2, 4 or 8 elements of bf16 or f16, got %lld x %s", (long long)n, type_name(d.ty));
        return val_error();
    }
    if (!emit_ldmatrix(e, &d, 0, (int)(n / 2), trans, arg[1].llvm, call->loc)) return val_error();
    return (Value){.kind = V_VOID};
}

/* One cp.async of nbytes (4, 8, 16) from global pointer src to the 32-bit
 * shared address dst; size (an i32) is nbytes, or 0 to zero-fill. */
void emit_cp_async(Eval *e, LLVMValueRef dst, LLVMValueRef src, int nbytes, LLVMValueRef size)
{
    LLVMValueRef args[3] = {dst, LLVMBuildPtrToInt(e->cg->b, src, e->cg->t_i64, ""), size};
    char text[96];
    /* .cg (L2 only) exists for 16 bytes; smaller copies use .ca */
    snprintf(text, sizeof text, "cp.async.%s.shared.global [$0], [$1], %d, $2;", nbytes == 16 ? "cg" : "ca", nbytes);
    eval_asm(e, e->cg->t_void, args, 3, text, "r,l,r,~{memory}");
}

/* cp_async(dst, src, bytes[, pred]): an asynchronous global -> shared copy of
 * 4, 8 or 16 bytes; with pred false the destination is zero-filled and
 * nothing is read. */
Value b_cp_async(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value d = arg[0], s = arg[1], nb = arg[2];
    if (d.kind != V_REF || d.space != SPACE_SMEM) {
        diag_error(e->diag, call->list.items[0]->loc,
                   "the destination of 'cp_async' must be a shared-memory element, found %s", val_describe(e, &d));
        return val_error();
    }
    if (s.kind != V_REF || s.space != SPACE_GMEM) {
        diag_error(e->diag, call->list.items[1]->loc,
                   "the source of 'cp_async' must be a global-memory element, found %s", val_describe(e, &s));
        return val_error();
    }
    if (nb.kind != V_INT || (nb.i != 4 && nb.i != 8 && nb.i != 16)) {
        diag_error(e->diag, call->list.items[2]->loc,
                   "'cp_async' copies 4, 8 or 16 bytes (a compile-time integer), found %s", val_describe(e, &nb));
        return val_error();
    }
    LLVMValueRef size = LLVMConstInt(e->cg->t_i32, (unsigned long long)nb.i, 0);
    if (call->list.n == 4) {
        Value p = arg[3];
        if (p.kind == V_BOOL) {
            if (!p.i) size = LLVMConstInt(e->cg->t_i32, 0, 0);
        } else if (p.kind == V_DYN && p.ty == TY_BOOL) {
            size = LLVMBuildSelect(e->cg->b, p.llvm, size, LLVMConstInt(e->cg->t_i32, 0, 0), "");
        } else {
            diag_error(e->diag, call->list.items[3]->loc, "the predicate of 'cp_async' must be a boolean");
            return val_error();
        }
    }
    emit_cp_async(e, smem_addr32(e, &d), s.llvm, (int)nb.i, size);
    return (Value){.kind = V_VOID};
}

/* store_vector(dst, frag, pred, p0, .., pn-1): the vector store where pred
 * holds, else the elements where their own predicates do */
static Value store_vector_or_elems(Eval *e, const Node *call, const Value *dst, const Value *frag, int64_t n,
                                   LLVMValueRef vec, int bytes, Value pred)
{
    int np = call->list.n - 3;
    if (np != n) {
        diag_error(e->diag, call->loc,
                   "'store_vector' with element predicates takes one per fragment element; got %lld element%s and %d "
                   "predicate%s",
                   (long long)n, n == 1 ? "" : "s", np, np == 1 ? "" : "s");
        return val_error();
    }
    SrcLoc vloc = call->list.items[2]->loc;
    if (pred.kind != V_BOOL && (pred.kind != V_DYN || pred.ty != TY_BOOL)) {
        diag_error(e->diag, vloc, "the predicate of 'store_vector' must be a boolean, found %s",
                   val_describe(e, &pred));
        return val_error();
    }
    Value preds[8];
    SrcLoc ploc[8];
    for (int i = 0; i < np; i++) {
        ploc[i] = call->list.items[3 + i]->loc;
        preds[i] = eval_pred(e, call->list.items[3 + i], "store_vector");
        if (preds[i].kind == V_ERROR) return val_error();
    }
    bool ok;
    if (pred.kind == V_BOOL && pred.i) /* the elements never store */
        ok = emit_store_pred(e, dst, vec, bytes, pred, "store_vector", vloc, call->loc);
    else
        ok = store_elems_pred(e, dst, frag, n, preds, ploc, pred.kind == V_BOOL ? NULL : vec, bytes,
                              pred.kind == V_BOOL ? NULL : &pred, "store_vector", call->loc);
    return ok ? (Value){.kind = V_VOID} : val_error();
}

/* load_vector(frag, src, pred): one predicated load (inline PTX, as the
 * predicated stores of eval_store.c, whose predicate forms it shares: a
 * boolean or a list of up to four), zeros where pred fails and nothing
 * read.  No branch: code that adds such a fragment to registers under a
 * runtime condition (another block's partial sums added to accumulators,
 * tests/gpu/kernels/handoff.cute) stays one basic block, where a branch
 * would give LLVM a phi per register to merge. */
static LLVMValueRef load_pred(Eval *e, const Node *call, const Value *src, LLVMTypeRef vt, int bytes)
{
    Value p = eval_pred(e, call->list.items[2], "load_vector");
    if (p.kind == V_ERROR) return NULL;
    if (p.kind != V_BOOL && (p.kind != V_DYN || p.ty != TY_BOOL)) {
        diag_error(e->diag, call->list.items[2]->loc, "the predicate of 'load_vector' must be a boolean, found %s",
                   val_describe(e, &p));
        return NULL;
    }
    if (src->space != SPACE_GMEM && src->space != SPACE_SMEM) {
        diag_error(e->diag, call->list.items[1]->loc,
                   "a predicated 'load_vector' reads global or shared memory, found %s", val_describe(e, src));
        return NULL;
    }
    CG *cg = e->cg;
    if (p.kind == V_BOOL) {
        if (p.i) {
            LLVMValueRef v = LLVMBuildLoad2(cg->b, vt, src->llvm, "");
            LLVMSetAlignment(v, (unsigned)bytes);
            return v;
        }
        return LLVMConstNull(vt);
    }
    /* words of 32 bits (16 for a 2-byte fragment), zeroed, then loaded
     * where p holds: outputs $0 .. $nw-1, then the predicate's booleans,
     * then the address */
    bool half = bytes == 2;
    int nw = half ? 1 : bytes / 4;
    bool gm = src->space == SPACE_GMEM;
    char text[512], cons[96];
    LLVMValueRef args[6];
    unsigned na = 0;
    int t = snprintf(text, sizeof text, "{\n.reg .pred p;"), kc = 0;
    for (int i = 0; i < nw; i++)
        kc += snprintf(cons + kc, sizeof cons - (size_t)kc, "%s=%s", i ? "," : "", half ? "h" : "r");
    t += pred_ptx(e, p, "p", NULL, (unsigned)nw, args, &na, text + t, sizeof text - (size_t)t, cons, sizeof cons, &kc);
    unsigned addr = (unsigned)nw + na;
    args[na++] = gm ? LLVMBuildPtrToInt(cg->b, src->llvm, cg->t_i64, "") : smem_addr32(e, src);
    snprintf(cons + kc, sizeof cons - (size_t)kc, ",%s,~{memory}", gm ? "l" : "r");
    t += snprintf(text + t, sizeof text - (size_t)t, "\n");
    for (int i = 0; i < nw; i++)
        t += snprintf(text + t, sizeof text - (size_t)t, "mov.b%d $%d, 0;\n", half ? 16 : 32, i);
    t += snprintf(text + t, sizeof text - (size_t)t, "@p ld.%s%s.b%d %s", gm ? "global" : "shared",
                  nw > 1 ? (nw == 2 ? ".v2" : ".v4") : "", half ? 16 : 32, nw > 1 ? "{" : "");
    for (int i = 0; i < nw; i++) t += snprintf(text + t, sizeof text - (size_t)t, "%s$%d", i ? ", " : "", i);
    snprintf(text + t, sizeof text - (size_t)t, "%s, [$%u];\n}", nw > 1 ? "}" : "", addr);
    LLVMTypeRef wt = half ? cg->t_i16 : cg->t_i32;
    LLVMValueRef r = eval_asm(e, nw > 1 ? eval_struct_of(e, wt, (unsigned)nw) : wt, args, na, text, cons);
    LLVMValueRef words = LLVMGetUndef(LLVMVectorType(wt, (unsigned)nw));
    for (int i = 0; i < nw; i++)
        words = LLVMBuildInsertElement(cg->b, words, nw > 1 ? LLVMBuildExtractValue(cg->b, r, (unsigned)i, "") : r,
                                       LLVMConstInt(cg->t_i32, (unsigned long long)i, 0), "");
    return LLVMBuildBitCast(cg->b, words, vt, "");
}

/* store_vector(dst, frag[, pred[, p0, .., pn-1]]) / load_vector(frag, src[, pred]):
 * the whole fragment as one 2/4/8/16-byte access at element dst/src, which
 * the caller promises is aligned to that size where the access happens
 * (the hardware faults otherwise); with a predicate the store is a
 * predicated instruction (eval_store.c), and with one predicate per element
 * after it, element i is stored alone where pred fails and pi holds (rows
 * whose alignment is only known at run time). */
Value b_vector_access(Eval *e, const Builtin *row, const Node *call, const Value *arg)
{
    bool store = row->op == BOP_STORE;
    const char *name = row->name;
    Value f, r = store ? arg[0] : eval_expr(e, call->list.items[1]);
    if (r.kind == V_ERROR) return r;
    if (store) {
        f = arg[1];
    } else {
        f = eval_expr(e, call->list.items[0]);
        if (f.kind == V_ERROR) return f;
        if (f.kind != V_TENSOR) {
            diag_error(e->diag, call->list.items[0]->loc, "argument 1 of 'load_vector' must be a tensor, found %s",
                       val_describe(e, &f));
            return val_error();
        }
    }
    if (!has_memory(e, &f, call->list.items[store ? 1 : 0])) return val_error();
    if (r.kind != V_REF) {
        diag_error(e->diag, call->list.items[store ? 0 : 1]->loc,
                   "'%s' needs a tensor element as its address, found %s", name, val_describe(e, &r));
        return val_error();
    }
    int64_t n;
    if (!tensor_static_size(e, &f, call->loc, &n)) return val_error();
    int64_t bytes = n * type_bytes(f.ty);
    if (f.ty != r.ty || (bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16) || f.space != SPACE_RMEM) {
        diag_error(e->diag, call->loc,
                   "'%s' moves a register fragment of 2, 4, 8 or 16 bytes of the element's type; got %lld x %s for %s",
                   name, (long long)n, type_name(f.ty), type_name(r.ty));
        return val_error();
    }
    LLVMTypeRef vt = LLVMVectorType(cg_type(e->cg, f.ty), (unsigned)n);
    LLVMBuilderRef b = e->cg->b;
    if (store) {
        LLVMValueRef v = LLVMGetUndef(vt);
        for (int64_t i = 0; i < n; i++) {
            LLVMValueRef p = tensor_elem_ptr(e, &f, i, call->loc);
            if (!p) return val_error();
            v = LLVMBuildInsertElement(b, v, LLVMBuildLoad2(b, cg_type(e->cg, f.ty), p, ""),
                                       LLVMConstInt(e->cg->t_i32, (unsigned long long)i, 0), "");
        }
        Value pred = val_bool(true);
        if (call->list.n >= 3) pred = eval_pred(e, call->list.items[2], name);
        if (pred.kind == V_ERROR) return val_error();
        if (call->list.n > 3) return store_vector_or_elems(e, call, &r, &f, n, v, (int)bytes, pred);
        if (!emit_store_pred(e, &r, v, (int)bytes, pred, name, call->list.items[2 < call->list.n ? 2 : 1]->loc,
                             call->loc))
            return val_error();
    } else {
        LLVMValueRef v;
        if (call->list.n == 3) {
            v = load_pred(e, call, &r, vt, (int)bytes);
            if (!v) return val_error();
        } else {
            v = LLVMBuildLoad2(b, vt, r.llvm, "");
            LLVMSetAlignment(v, (unsigned)bytes);
        }
        for (int64_t i = 0; i < n; i++) {
            LLVMValueRef p = tensor_elem_ptr(e, &f, i, call->loc);
            if (!p) return val_error();
            LLVMBuildStore(b, LLVMBuildExtractElement(b, v, LLVMConstInt(e->cg->t_i32, (unsigned long long)i, 0), ""),
                           p);
        }
    }
    return (Value){.kind = V_VOID};
}

Value b_cp_async_commit(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call, (void)arg;
    cg_intrinsic(e->cg, "llvm.nvvm.cp.async.commit.group", NULL, 0, NULL, 0);
    return (Value){.kind = V_VOID};
}

/* cp_async_wait(n): wait until at most n groups are pending */
Value b_cp_async_wait(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    if (!arg_static_range(e, call, b->name, 0, &arg[0], 0, 7, "the number of pending groups")) return val_error();
    LLVMValueRef n = LLVMConstInt(e->cg->t_i32, (unsigned long long)arg[0].i, 0);
    cg_intrinsic(e->cg, "llvm.nvvm.cp.async.wait.group", NULL, 0, &n, 1);
    return (Value){.kind = V_VOID};
}
