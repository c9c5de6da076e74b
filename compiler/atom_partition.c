/* atom_partition.c: partitioning tensors by tiled MMAs and tiled copies
 * (partition_A/B/C/S/D): layout algebra only, so each result is an
 * ordinary view.  ldmatrix is a copy that feeds an MMA operand: its source
 * addresses are derived from the MMA's TV layout (lane l supplies row
 * l % 8 of matrix l / 8, whose elements the destination layout says which
 * lanes hold), and partition_S checks at compile time that the shared
 * layout makes every such row 8 contiguous, 16-byte aligned elements. */
#include "atom.h"

/* the thread index argument as a layout integer (static or runtime) */
static bool get_index(Eval *e, const Node *arg, Value v, LayInt *out)
{
    LayValue lv;
    if (!val_to_lay(e, v, &lv, arg->loc, "the thread index")) return false;
    if (lv.kind != LAY_V_INT) {
        diag_error(e->diag, arg->loc, "the thread index must be an integer, found %s", val_describe(e, &v));
        return false;
    }
    *out = lv.i;
    return true;
}

/* One operand of a tiled MMA: a tile with modes (rows, cols, extra...) ->
 * (values, rows / (atom rows * warps), cols / (atom cols * warps), extra...)
 * for one lane and warp. */
typedef struct OpPart {
    const LayLayout *tv;
    int64_t d[2], w[2]; /* atom extent and warps along the two modes */
    LayInt lane, wc[2]; /* the thread: lane, warp coordinate per mode */
    const char *what;
    const char *unit; /* "warps" or "warpgroups" */
} OpPart;

static bool part_operand(Eval *e, const LayLayout *L, const void *ctx, LayLayout *out, LayInt *off, SrcLoc loc)
{
    const OpPart *p = ctx;
    int r = lrank(L);
    if (r < 2) {
        diag_error(e->diag, loc, "'%s' needs a tensor of rank 2 or more (%s), got rank %d", p->what,
                   p->what[10] == 'B'   ? "N, K"
                   : p->what[10] == 'C' ? "M, N"
                                        : "M, K",
                   r);
        return false;
    }
    LayLayout *m = ARENA_ARRAY(e->arena, LayLayout, r + 1), at[2], rest[2];
    for (int i = 0; i < 2; i++) {
        LayLayout mi = lmode(L, i), wl;
        int64_t s;
        if (!lsize(e, &mi, &s)) {
            diag_error(e->diag, loc, "'%s' needs a tile of static size, mode %d is %s", p->what, i,
                       lay_print_layout(e->arena, &mi));
            return false;
        }
        if (s % (p->d[i] * p->w[i]) != 0) {
            diag_error(e->diag, loc,
                       "'%s': mode %d of the tile has %lld elements, not a multiple of %lld (%lld per atom x %lld %s)",
                       p->what, i, (long long)s, (long long)(p->d[i] * p->w[i]), (long long)p->d[i], (long long)p->w[i],
                       p->unit);
            return false;
        }
        if (!ldivide(e, &mi, p->d[i], &at[i], &rest[i], loc) || !ldivide(e, &rest[i], p->w[i], &wl, &rest[i], loc) ||
            !add_idx(e, p->wc[i], &wl, off, loc))
            return false;
    }
    /* the atom tile (rows x cols, column-major) composed with the TV layout */
    LayValue args[2] = {{.kind = LAY_V_LAYOUT, .layout = lmake(e, 2, at)}, {.kind = LAY_V_LAYOUT, .layout = *p->tv}},
             tt;
    if (!lcall(e, "composition", args, 2, &tt, loc)) return false;
    LayLayout thr = lmode(&tt.layout, 0);
    if (!add_idx(e, p->lane, &thr, off, loc)) return false;
    m[0] = lmode(&tt.layout, 1);
    m[1] = rest[0];
    m[2] = rest[1];
    for (int i = 2; i < r; i++) m[i + 1] = lmode(L, i);
    *out = lmake(e, r + 1, m);
    return true;
}

static bool operand_part(Eval *e, const Atom *mma, int operand, LayInt lane, LayInt warp, OpPart *p)
{
    static const char *what[] = {"partition_A", "partition_B", "partition_C"};
    LayInt wm, wn, WM = lay_int_static(mma->warps[0]), WN = lay_int_static(mma->warps[1]);
    if (!lay_int_mod(e->arena, warp, WM, &wm) || !lay_int_div(e->arena, warp, WM, &wn) ||
        !lay_int_mod(e->arena, wn, WN, &wn))
        return false;
    /* A is (M, K) over WM warps, B (N, K) over WN, C (M, N) over both */
    static const int dim0[3] = {0, 1, 0}, dim1[3] = {2, 2, 1};
    LayInt zero = lay_int_static(0);
    *p = (OpPart){.tv = &mma->tv[operand],
                  .d = {mma->shp[dim0[operand]], mma->shp[dim1[operand]]},
                  .w = {operand == 1 ? mma->warps[1] : mma->warps[0], operand == 2 ? mma->warps[1] : 1},
                  .lane = lane,
                  .wc = {operand == 1 ? wn : wm, operand == 2 ? wn : zero},
                  .what = what[operand],
                  .unit = mma->info->nthr == 128 ? "warpgroups" : "warps"};
    return true;
}

/* tid -> (thread within its atom, which atom): lane and warp for
 * mma.sync, thread and warpgroup for wgmma */
static bool split_tid(Eval *e, const Atom *mma, LayInt tid, LayInt *lane, LayInt *warp)
{
    LayInt w = lay_int_static(mma->info->nthr);
    return lay_int_mod(e->arena, tid, w, lane) && lay_int_div(e->arena, tid, w, warp);
}

/* partition_A/B/C(mma, tid, T); for a wgmma atom the operands read from
 * shared memory (B, and A but for the RS form) are shared tiles every
 * thread of the warpgroup names whole (their TV layouts have thread
 * stride 0): ((64, K), MI, KI) views that gemm takes descriptors of */
Value b_partition_mma(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    int operand = b->op;
    static const char *what[] = {"partition_A", "partition_B", "partition_C"};
    Value mv = arg[0], t = arg[2];
    LayInt tid, lane, warp;
    if (!get_index(e, call->list.items[1], arg[1], &tid)) return val_error();
    if (mv.atom->kind != AK_MMA) {
        diag_error(e->diag, call->list.items[0]->loc, "'%s' needs a tiled MMA, found %s", what[operand],
                   val_describe(e, &mv));
        return val_error();
    }
    OpPart p;
    bool smem = operand == 0 ? mv.atom->info->smem_a : operand == 1 && mv.atom->info->smem_b;
    if (smem && t.space != SPACE_SMEM) {
        diag_error(e->diag, call->list.items[2]->loc, "'%s' of the %s needs a shared tile, found %s", what[operand],
                   atom_describe(e, mv.atom), val_describe(e, &t));
        return val_error();
    }
    if (!split_tid(e, mv.atom, tid, &lane, &warp) || !operand_part(e, mv.atom, operand, lane, warp, &p))
        return val_error();
    Value r;
    if (!view_apply(e, t, part_operand, &p, call->loc, &r)) return val_error();
    return r;
}

/* a tiled copy: (rows, cols, extra...) -> (values, rows / tile rows,
 * cols / tile cols, extra...) for one thread */
typedef struct CopyPart {
    const Atom *a;
    LayInt tid;
} CopyPart;

static bool part_copy(Eval *e, const LayLayout *L, const void *ctx, LayLayout *out, LayInt *off, SrcLoc loc)
{
    const CopyPart *p = ctx;
    int r = lrank(L), tr = p->a->tile->is_leaf ? 1 : p->a->tile->n;
    if (r < tr) {
        diag_error(e->diag, loc, "the tiled copy's tile %s has rank %d; the tensor has rank %d",
                   lay_print_tuple(e->arena, p->a->tile), tr, r);
        return false;
    }
    LayLayout *m = ARENA_ARRAY(e->arena, LayLayout, r + 1), *at = ARENA_ARRAY(e->arena, LayLayout, tr);
    for (int i = 0; i < tr; i++) {
        LayLayout mi = lmode(L, i);
        LayTuple *ti = p->a->tile->is_leaf ? p->a->tile : p->a->tile->elems[i];
        int64_t s, k = ti->leaf.value;
        if (!lsize(e, &mi, &s) || s % k != 0) {
            diag_error(e->diag, loc, "mode %d of the tensor (%s) is not a static multiple of the tiled copy's %lld", i,
                       lay_print_layout(e->arena, &mi), (long long)k);
            return false;
        }
        if (!ldivide(e, &mi, k, &at[i], &m[i + 1], loc)) return false;
    }
    LayValue args[2] = {{.kind = LAY_V_LAYOUT, .layout = lmake(e, tr, at)},
                        {.kind = LAY_V_LAYOUT, .layout = p->a->ctv}},
             tv;
    if (!lcall(e, "composition", args, 2, &tv, loc)) return false;
    LayLayout thr = lmode(&tv.layout, 0);
    if (!add_idx(e, p->tid, &thr, off, loc)) return false;
    m[0] = lmode(&tv.layout, 1);
    for (int i = tr; i < r; i++) m[i + 1] = lmode(L, i);
    *out = lmake(e, r + 1, m);
    return true;
}

/* ldmatrix source addresses: the MMA operand partition for the lane whose
 * values this lane's row address must point at, with the values one
 * instruction loads grouped into one element (see the file comment). */
typedef struct LdsmPart {
    OpPart op;
    int64_t frg; /* values per atom in the fragment */
    int n;       /* matrices per instruction */
    LayInt in;   /* this lane's value within the instruction's group */
} LdsmPart;

static bool part_ldsm(Eval *e, const LayLayout *L, const void *ctx, LayLayout *out, LayInt *off, SrcLoc loc)
{
    const LdsmPart *p = ctx;
    LayLayout P;
    if (!part_operand(e, L, &p->op, &P, off, loc)) return false;
    int r = lrank(&P);
    LayLayout *m = ARENA_ARRAY(e->arena, LayLayout, r);
    for (int i = 0; i < r; i++) m[i] = lmode(&P, i);
    int64_t g = 2 * p->n; /* values per instruction */
    if (g <= p->frg) {
        LayLayout in;
        if (!ldivide(e, &m[0], g, &in, &m[0], loc) || !add_idx(e, p->in, &in, off, loc)) return false;
    } else {
        int64_t c = g / p->frg, s;
        if (!lsize(e, &m[1], &s) || s % c != 0) {
            diag_error(e->diag, loc, "ldmatrix.x%d loads %lld atoms at once, but this thread has %s of them", p->n,
                       (long long)c, lay_print_layout(e->arena, &m[1]));
            return false;
        }
        LayInt v, j, F = lay_int_static(p->frg);
        LayLayout cm;
        if (!lay_int_mod(e->arena, p->in, F, &v) || !lay_int_div(e->arena, p->in, F, &j) ||
            !add_idx(e, v, &m[0], off, loc) || !ldivide(e, &m[1], c, &cm, &m[1], loc) || !add_idx(e, j, &cm, off, loc))
            return false;
        m[0] = (LayLayout){lay_tuple_leaf(e->arena, lay_int_static(1)), lay_tuple_leaf(e->arena, lay_int_static(0))};
    }
    *out = lmake(e, r, m);
    return true;
}

/* The addresses (element offsets, swizzle applied) of the first n flat
 * values of tile T (offset dropped) partitioned for a static lane: false
 * with a diagnostic on error, *stat = false when they are not static. */
static bool static_addrs(Eval *e, const Value *t, const OpPart *p, int64_t lane, int64_t n, int64_t *out, bool *stat,
                         SrcLoc loc)
{
    OpPart q = *p;
    q.lane = lay_int_static(lane);
    q.wc[0] = q.wc[1] = lay_int_static(0);
    const LayLayout *L = view_layout(t);
    LayLayout P;
    LayInt off = lay_int_static(0);
    if (!part_operand(e, L, &q, &P, &off, loc)) return false;
    LayComposed c = t->lay.composed;
    c.outer = P;
    c.offset = off;
    *stat = true;
    for (int64_t f = 0; f < n; f++) {
        LayTuple *crd = lay_tuple_leaf(e->arena, lay_int_static(f));
        LayError err = {.arg = -1};
        LayInt x;
        bool ok = t->lay.kind == LAY_V_COMPOSED
                      ? lay_composed_crd2idx(e->arena, crd, &c, &x, &err)
                      : lay_crd2idx(e->arena, crd, &P, &x, &err) && lay_int_add(e->arena, x, off, &x);
        if (!ok || !x.is_static) {
            *stat = false;
            return true;
        }
        out[f] = x.value;
    }
    return true;
}

/* Every ldmatrix row: 8 contiguous elements, 16-byte aligned, held by the
 * lanes and values the instruction delivers them to (checked on the first
 * slice of the modes after (values, rows), which the rest repeat). */
static bool check_ldsm(Eval *e, const Atom *a, const Value *t, const OpPart *p, int64_t frg, SrcLoc loc)
{
    const LayLayout *L = view_layout(t);
    LayLayout m0 = lmode(L, 0);
    int64_t rows;
    if (!lsize(e, &m0, &rows)) return true;
    int64_t nvals = frg * (rows / (p->d[0] * p->w[0]));
    int64_t *ad = ARENA_ARRAY(e->arena, int64_t, 32 * nvals);
    for (int64_t l = 0; l < 32; l++) {
        bool stat;
        if (!static_addrs(e, t, p, l, nvals, ad + l * nvals, &stat, loc)) return false;
        if (!stat) return true; /* not static: nothing to check here */
    }
    for (int64_t r = 0; r < nvals / 2; r++)
        for (int64_t k = 0; k < 8; k++) {
            /* row k of matrix r: non-trans, elements (k, 0..7) = lanes 4k..4k+3, values 2r, 2r+1;
             * trans, elements (0..7, k) = lanes 4c + k/2, value 2r + k%2 */
            int64_t base = a->trans ? ad[(k / 2) * nvals + 2 * r + k % 2] : ad[(4 * k) * nvals + 2 * r];
            bool ok = base % 8 == 0;
            for (int64_t c = 0; ok && c < 8; c++) {
                int64_t got = a->trans ? ad[(4 * c + k / 2) * nvals + 2 * r + k % 2]
                                       : ad[(4 * k + c / 2) * nvals + 2 * r + c % 2];
                ok = got == base + c;
            }
            if (!ok) {
                diag_error(e->diag, loc,
                           "ldmatrix%s cannot load operand %c from this shared layout: row %lld of matrix %lld is not "
                           "8 contiguous, 16-byte aligned elements (%s)",
                           a->trans ? ".trans" : "", a->operand ? 'B' : 'A', (long long)k, (long long)r,
                           lay_print_value(e->arena, &t->lay));
                return false;
            }
        }
    return true;
}

/* partition_S/D(tiled_copy, tid, T) */
Value b_partition_copy(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    const char *name = b->name;
    bool src = b->op == 1;
    Value cv = arg[0], t = arg[2];
    LayInt tid;
    if (!get_index(e, call->list.items[1], arg[1], &tid)) return val_error();
    const Atom *a = cv.atom;
    Value r;
    if (a->kind == AK_TILED_COPY) {
        CopyPart p = {a, tid};
        if (!view_apply(e, t, part_copy, &p, call->loc, &r)) return val_error();
        return r;
    }
    if (a->kind != AK_LDSM_COPY) {
        diag_error(e->diag, call->list.items[0]->loc, "'%s' needs a tiled copy, found %s", name, val_describe(e, &cv));
        return val_error();
    }
    if (!src) {
        diag_error(e->diag, call->loc,
                   "an ldmatrix copy writes the MMA's own fragments: use partition_%c's fragment (make_fragment_like) "
                   "as its destination",
                   a->operand ? 'B' : 'A');
        return val_error();
    }
    if (t.space != SPACE_SMEM) {
        diag_error(e->diag, call->list.items[2]->loc, "ldmatrix reads shared memory; this tensor is not shared");
        return val_error();
    }
    if (t.ty != a->ty) {
        diag_error(e->diag, call->list.items[2]->loc, "ldmatrix of %s cannot read a tensor of %s", type_name(a->ty),
                   type_name(t.ty));
        return val_error();
    }
    LdsmPart p = {.n = a->vec};
    LayInt lane, warp, rowlane, grp, x;
    if (!split_tid(e, a->mma, tid, &lane, &warp) || !operand_part(e, a->mma, a->operand, lane, warp, &p.op))
        return val_error();
    p.frg = a->operand ? 4 : 8;
    if (!check_ldsm(e, a, &t, &p.op, p.frg, call->loc)) return val_error();
    /* the lane whose values row (lane % 8) of matrix (lane / 8) % N holds */
    Arena *ar = e->arena;
    LayInt l8, two = lay_int_static(2), eight = lay_int_static(8);
    bool ok = lay_int_mod(ar, lane, eight, &l8) && lay_int_div(ar, lane, eight, &grp) &&
              lay_int_mod(ar, grp, lay_int_static(a->vec), &grp) && lay_int_mul(ar, grp, two, &p.in);
    if (a->trans)
        ok = ok && lay_int_div(ar, l8, two, &rowlane) && lay_int_mod(ar, lane, two, &x) &&
             lay_int_add(ar, p.in, x, &p.in);
    else
        ok = ok && lay_int_mul(ar, l8, lay_int_static(4), &rowlane);
    if (!ok) return val_error();
    p.op.lane = rowlane;
    if (!view_apply(e, t, part_ldsm, &p, call->loc, &r)) return val_error();
    return r;
}
