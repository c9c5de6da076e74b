/* atom_make.c: atoms as values (CuTe's MMA_Atom / Copy_Atom / TiledMMA /
 * TiledCopy): the constructors, which look the atoms up in the catalogs
 * (atom_catalog.c), make_fragment_like and their descriptions. */
#include "atom.h"
#include "codegen.h"

static const char *op_name(const Atom *a) { return a->cinfo ? a->cinfo->name : "copy"; }

const char *atom_describe(Eval *e, const Atom *a)
{
    switch (a->kind) {
    case AK_MMA: {
        const char *unit = a->info->nthr == 128 ? "warpgroups" : "warps";
        const char *ty =
            a->ty == a->tyb ? type_name(a->ty) : arena_printf(e->arena, "%s x %s", type_name(a->ty), type_name(a->tyb));
        const char *rs = a->info->smem_b && !a->info->smem_a ? " (A in registers)" : "";
        if (a->warps[0] * a->warps[1] == 1)
            return arena_printf(e->arena, "MMA atom m%lldn%lldk%lld %s -> %s%s", (long long)a->shp[0],
                                (long long)a->shp[1], (long long)a->shp[2], ty, type_name(a->acc), rs);
        return arena_printf(e->arena, "tiled MMA (m%lldn%lldk%lld %s -> %s%s, %lld x %lld %s)", (long long)a->shp[0],
                            (long long)a->shp[1], (long long)a->shp[2], ty, type_name(a->acc), rs,
                            (long long)a->warps[0], (long long)a->warps[1], unit);
    }
    case AK_COPY:
        if (a->op == OP_LDSM)
            return arena_printf(e->arena, "copy atom ldmatrix.x%d%s %s", a->vec, a->trans ? ".trans" : "",
                                type_name(a->ty));
        return arena_printf(e->arena, "copy atom %s %d x %s", op_name(a), a->vec, type_name(a->ty));
    case AK_TILED_COPY:
        return arena_printf(e->arena, "tiled copy (%s %d x %s, %lld threads, tile %s, TV %s)", op_name(a), a->vec,
                            type_name(a->ty), (long long)a->nthr, lay_print_tuple(e->arena, a->tile),
                            lay_print_layout(e->arena, &a->ctv));
    case AK_LDSM_COPY:
        return arena_printf(e->arena, "tiled copy (ldmatrix.x%d%s for operand %c of a %s)", a->vec,
                            a->trans ? ".trans" : "", a->operand ? 'B' : 'A', atom_describe(e, a->mma));
    }
    return "atom";
}

void atom_view(const Atom *a, AtomView *v)
{
    static const AtomViewKind kinds[] = {[AK_MMA] = ATOM_VIEW_MMA,
                                         [AK_COPY] = ATOM_VIEW_COPY,
                                         [AK_TILED_COPY] = ATOM_VIEW_TILED_COPY,
                                         [AK_LDSM_COPY] = ATOM_VIEW_LDSM_COPY};
    *v = (AtomView){.kind = kinds[a->kind],
                    .ty = a->ty,
                    .tyb = a->tyb,
                    .acc = a->acc,
                    .mnk = {a->shp[0], a->shp[1], a->shp[2]},
                    .instr = a->info ? a->info->name : NULL,
                    .atom_threads = a->info ? a->info->nthr : 0,
                    .tv = {&a->tv[0], &a->tv[1], &a->tv[2]},
                    .warps = {a->warps[0], a->warps[1]},
                    .op = op_name(a),
                    .vec = a->vec,
                    .trans = a->trans,
                    .ctv = &a->ctv,
                    .tile = a->tile,
                    .nthr = a->nthr,
                    .mma = a->mma,
                    .operand = a->operand};
}

static Value val_atom(Eval *e, const Atom *src)
{
    Atom *a = ARENA_NEW(e->arena, Atom);
    *a = *src;
    return (Value){.kind = V_ATOM, .atom = a};
}

/* mma_atom(M, N, K, TA[, TB]): the catalog's atom of that shape and input
 * types (TB = TA if left out); mma_atom_rs (op BOP_RS): its form with A
 * in registers */
Value b_mma_atom(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    ScalarType tb = call->list.n == 5 ? arg[4].ty : arg[3].ty;
    const MmaAtomInfo *r = mma_atom_find(e, call, b->op == BOP_RS, arg[0].i, arg[1].i, arg[2].i, arg[3].ty, tb);
    if (!r) return val_error();
    Atom a = {.kind = AK_MMA,
              .info = r,
              .ty = r->a,
              .tyb = r->b,
              .acc = r->c,
              .shp = {r->m, arg[1].i, r->k},
              .warps = {1, 1}};
    for (int i = 0; i < 3; i++) a.tv[i] = parse_layout(e, r->tv[i], arg[1].i);
    return val_atom(e, &a);
}

/* make_tiled_mma(atom, (WM, WN)): the atom repeated over WM x WN warps (a
 * wgmma atom: warpgroups), w at (w % WM, w / WM); a tile larger than they
 * cover is repeated over, so each takes atoms wm, wm + WM, ... along M. */
Value b_make_tiled_mma(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value av = arg[0], wv = arg[1];
    if (av.atom->kind != AK_MMA || av.atom->warps[0] * av.atom->warps[1] != 1) {
        diag_error(e->diag, call->list.items[0]->loc, "argument 1 of 'make_tiled_mma' must be an MMA atom, found %s",
                   val_describe(e, &av));
        return val_error();
    }
    LayTuple *w = coord_of(e, wv, call->list.items[1]->loc);
    if (!w) return val_error();
    int64_t ws[3] = {1, 1, 1};
    int n = w->is_leaf ? 1 : w->n;
    bool ok = n >= 1 && n <= 3;
    for (int i = 0; ok && i < n; i++) {
        LayTuple *x = w->is_leaf ? w : w->elems[i];
        ok = x->is_leaf && x->leaf.is_static && x->leaf.value >= 1 && x->leaf.value <= 1024;
        if (ok) ws[i] = x->leaf.value;
    }
    if (!ok || ws[2] != 1 || ws[0] * ws[1] * av.atom->info->nthr > 32 * 32) {
        diag_error(e->diag, call->list.items[1]->loc,
                   "the warp layout of 'make_tiled_mma' must be (WM, WN) or (WM, WN, 1) with static sizes and at most "
                   "32 warps, found %s",
                   val_describe(e, &wv));
        return val_error();
    }
    Atom a = *av.atom;
    a.warps[0] = ws[0];
    a.warps[1] = ws[1];
    return val_atom(e, &a);
}

/* copy_atom_universal(T, N) / copy_atom_cp_async(T, N): N elements of T per
 * instruction (a vector load and store, or one cp.async); ldmatrix: N
 * 8x8 matrices (1, 2, 4), optionally transposed. */
Value b_copy_atom(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    const char *name = b->name;
    const CopyAtomInfo *r = copy_atom_find((CopyOp)b->op);
    if (!builtin_target_has(e, call->loc, arena_printf(e->arena, "'%s'", name), r->features)) return val_error();
    ScalarType ty = arg[0].ty;
    int64_t n = arg[1].i, bytes;
    if (__builtin_mul_overflow(n, (int64_t)type_bytes(ty), &bytes)) {
        diag_error(e->diag, call->loc, "'%s': %lld x %s is more than 2^63 bytes", name, (long long)n, type_name(ty));
        return val_error();
    }
    Atom a = {.kind = AK_COPY, .ty = ty, .cinfo = r, .op = r->op, .vec = (int)n};
    if (call->list.n == 3) a.trans = arg[2].i != 0;
    bool ok = r->counts ? type_bytes(ty) == 2 && n >= 1 && n <= 16 && (r->counts >> n & 1)
                        : n > 0 && bytes <= 16 && (r->bytes >> bytes & 1);
    if (!ok && r->counts) {
        diag_error(e->diag, call->loc, "'%s' %s, got %lld of %s", name, r->rule, (long long)n, type_name(ty));
        return val_error();
    }
    if (!ok) {
        diag_error(e->diag, call->loc, "'%s' %s; %lld x %s is %lld bytes", name, r->rule, (long long)n, type_name(ty),
                   (long long)bytes);
        return val_error();
    }
    return val_atom(e, &a);
}

/* make_tiled_copy(atom, thr, val): threads laid out by thr over the tile
 * (thr maps a thread's coordinate to its index), each holding the block
 * val; the TV layout is make_layout_tv(thr, val). */
Value b_make_tiled_copy(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value av = arg[0];
    if (av.atom->kind != AK_COPY || av.atom->op == OP_LDSM) {
        diag_error(e->diag, call->list.items[0]->loc,
                   "argument 1 of 'make_tiled_copy' must be a universal or cp.async copy atom, found %s%s",
                   val_describe(e, &av),
                   av.atom->op == OP_LDSM ? " (ldmatrix copies come from make_tiled_copy_A/B)" : "");
        return val_error();
    }
    LayValue args[2];
    for (int i = 0; i < 2; i++) {
        const Node *n = call->list.items[1 + i];
        Value v = arg[1 + i];
        if (!val_to_lay(e, v, &args[i], n->loc, i ? "the value layout" : "the thread layout")) return val_error();
        if (args[i].kind == LAY_V_TUPLE) { /* a shape: its column-major layout */
            LayValue s = args[i];
            if (!lcall(e, "make_layout", &s, 1, &args[i], n->loc)) return val_error();
        }
        if (args[i].kind != LAY_V_LAYOUT) {
            diag_error(e->diag, n->loc, "%s of 'make_tiled_copy' must be a layout or a shape, found %s",
                       i ? "the value layout" : "the thread layout", val_describe(e, &v));
            return val_error();
        }
    }
    LayValue r;
    if (!lcall(e, "make_layout_tv", args, 2, &r, call->loc)) return val_error();
    Atom a = *av.atom;
    a.kind = AK_TILED_COPY;
    a.tile = r.list[0].tuple;
    a.ctv = r.list[1].layout;
    LayLayout thr = lmode(&a.ctv, 0), val = lmode(&a.ctv, 1);
    int64_t nv;
    if (!lsize(e, &thr, &a.nthr) || !lsize(e, &val, &nv)) {
        diag_error(e->diag, call->loc, "'make_tiled_copy' needs static thread and value layouts");
        return val_error();
    }
    if (nv % a.vec != 0) {
        diag_error(e->diag, call->list.items[2]->loc,
                   "each thread's %lld values are not a multiple of the atom's %d elements per copy", (long long)nv,
                   a.vec);
        return val_error();
    }
    return val_atom(e, &a);
}

/* make_tiled_copy_A/B(ldmatrix atom, tiled_mma): ldmatrix that loads the
 * MMA's A or B fragments from shared memory. */
Value b_make_tiled_copy_op(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    const char *name = b->name;
    int operand = b->op;
    Value cv = arg[0], mv = arg[1];
    if (cv.atom->kind != AK_COPY || cv.atom->op != OP_LDSM) {
        diag_error(e->diag, call->list.items[0]->loc, "'%s' needs an ldmatrix copy atom, found %s", name,
                   val_describe(e, &cv));
        return val_error();
    }
    if (mv.atom->kind != AK_MMA) {
        diag_error(e->diag, call->list.items[1]->loc, "'%s' needs a tiled MMA, found %s", name, val_describe(e, &mv));
        return val_error();
    }
    if (mv.atom->info->nthr != 32) {
        /* ldmatrix's rows follow one warp's fragment (the .x4 of 32 lanes) */
        diag_error(e->diag, call->list.items[1]->loc, "'%s': the %s reads %s", name, val_describe(e, &mv),
                   mv.atom->info->smem_a ? "A and B from shared memory itself"
                                         : "B from shared memory itself and A from registers its threads fill");
        return val_error();
    }
    if (cv.atom->ty != mv.atom->ty) {
        diag_error(e->diag, call->loc, "'%s': the copy atom moves %s but the MMA takes %s", name,
                   type_name(cv.atom->ty), type_name(mv.atom->ty));
        return val_error();
    }
    Atom a = *cv.atom;
    a.kind = AK_LDSM_COPY;
    a.mma = mv.atom;
    a.operand = operand;
    a.nthr = mv.atom->info->nthr * mv.atom->warps[0] * mv.atom->warps[1];
    return val_atom(e, &a);
}

/* make_fragment_like(T[, type]): a register tensor of T's shape, compact
 * and column-major, of T's element type or the given one */
Value b_make_fragment_like(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value t = arg[0];
    ScalarType ty = call->list.n == 2 ? arg[1].ty : t.ty;
    if (call->list.n == 1 && t.space == SPACE_IDENT) {
        diag_error(e->diag, call->loc,
                   "a fragment like an identity tensor needs an element type: make_fragment_like(T, f32)");
        return val_error();
    }
    const LayLayout *L = view_layout(&t);
    LayValue shape = {.kind = LAY_V_TUPLE, .tuple = L->shape}, lay;
    if (!lcall(e, "make_layout", &shape, 1, &lay, call->loc)) return val_error();
    int64_t n;
    if (!lsize(e, &lay.layout, &n)) {
        diag_error(e->diag, call->loc, "a fragment needs a static shape, found %s",
                   lay_print_tuple(e->arena, L->shape));
        return val_error();
    }
    if (n * type_bytes(ty) > 64 * 1024) {
        diag_error(e->diag, call->loc, "the fragment takes %lld bytes (limit 65536)", (long long)(n * type_bytes(ty)));
        return val_error();
    }
    LLVMTypeRef arr = LLVMArrayType2(cg_type(e->cg, ty), (uint64_t)(n > 0 ? n : 1));
    return tensor_make(cg_alloca(e->cg, arr, "frag"), ty, SPACE_RMEM, lay);
}
