/* eval_atom.c: copy and MMA atoms as values, tiled copies and tiled MMAs
 * built from them, and the partitions, fragments, copies and gemm that use
 * them (CuTe's Copy_Atom / MMA_Atom / TiledCopy / TiledMMA).
 *
 * An atom knows its instruction and its thread-value (TV) layouts: for an
 * MMA, (lane, value) -> column-major index in the atom's A (M x K), B (N x
 * K) and C (M x N) tiles; for a tiled copy, (thread, value) -> index in the
 * copy's tile.  Partitioning a tensor by an atom is layout algebra only
 * (logical_divide, composition with the TV layout, a slice at the thread),
 * so the views it returns index memory through lay_crd2idx like every other
 * view, and the copy and gemm loops below only walk flat indices.
 *
 * ldmatrix is a copy that feeds an MMA operand: its source addresses are
 * derived from the MMA's TV layout (lane l supplies row l % 8 of matrix
 * l / 8, whose elements the destination layout says which lanes hold), and
 * partition_S checks at compile time that the shared layout makes every
 * such row 8 contiguous, 16-byte aligned elements. */
#include <string.h>

#include "codegen.h"
#include "eval.h"

typedef enum AtomKind { AK_MMA, AK_COPY, AK_TILED_COPY, AK_LDSM_COPY } AtomKind;
typedef enum CopyOp { OP_UNIVERSAL, OP_CP_ASYNC, OP_LDSM } CopyOp;

struct Atom {
    AtomKind kind;
    ScalarType ty, acc;       /* element type; MMA accumulator type */
    /* MMA (an atom is a tiled MMA of 1 x 1 warps) */
    int64_t shp[3];           /* atom M, N, K */
    LayLayout tv[3];          /* A, B, C: (lane, value) -> column-major index in the atom tile */
    int64_t warps[2];         /* warps along M and N (column-major) */
    /* copies */
    CopyOp op;
    int vec;                  /* elements per instruction (ldmatrix: registers, 1/2/4) */
    bool trans;
    LayLayout ctv;            /* tiled copy: (thread, value) -> column-major index in the tile */
    LayTuple *tile;           /* tiled copy: the tile shape */
    int64_t nthr;
    const struct Atom *mma;   /* ldmatrix copy: the tiled MMA it feeds and which operand */
    int operand;              /* 0 = A, 1 = B */
};
typedef struct Atom Atom;

static const char *op_name(CopyOp op)
{
    return op == OP_UNIVERSAL ? "universal" : op == OP_CP_ASYNC ? "cp.async" : "ldmatrix";
}

const char *atom_describe(Eval *e, const Atom *a)
{
    switch (a->kind) {
    case AK_MMA:
        if (a->warps[0] * a->warps[1] == 1)
            return arena_printf(e->arena, "MMA atom m%lldn%lldk%lld %s -> %s", (long long)a->shp[0], (long long)a->shp[1],
                                (long long)a->shp[2], type_name(a->ty), type_name(a->acc));
        return arena_printf(e->arena, "tiled MMA (m%lldn%lldk%lld %s -> %s, %lld x %lld warps)", (long long)a->shp[0],
                            (long long)a->shp[1], (long long)a->shp[2], type_name(a->ty), type_name(a->acc),
                            (long long)a->warps[0], (long long)a->warps[1]);
    case AK_COPY:
        if (a->op == OP_LDSM)
            return arena_printf(e->arena, "copy atom ldmatrix.x%d%s %s", a->vec, a->trans ? ".trans" : "", type_name(a->ty));
        return arena_printf(e->arena, "copy atom %s %d x %s", op_name(a->op), a->vec, type_name(a->ty));
    case AK_TILED_COPY:
        return arena_printf(e->arena, "tiled copy (%s %d x %s, %lld threads, tile %s, TV %s)", op_name(a->op), a->vec,
                            type_name(a->ty), (long long)a->nthr, lay_print_tuple(e->arena, a->tile),
                            lay_print_layout(e->arena, &a->ctv));
    case AK_LDSM_COPY:
        return arena_printf(e->arena, "tiled copy (ldmatrix.x%d%s for operand %c of a %s)", a->vec, a->trans ? ".trans" : "",
                            a->operand ? 'B' : 'A', atom_describe(e, a->mma));
    }
    return "atom";
}

/* ---- small helpers ----------------------------------------------------- */

static Value val_atom(Eval *e, const Atom *src)
{
    Atom *a = ARENA_NEW(e->arena, Atom);
    *a = *src;
    return (Value){.kind = V_ATOM, .atom = a};
}

static bool get_atom(Eval *e, const Node *arg, const char *what, Value *out)
{
    *out = eval_rvalue(e, arg);
    if (out->kind == V_ERROR) return false;
    if (out->kind != V_ATOM) {
        diag_error(e->diag, arg->loc, "%s must be %s, found %s", what, "an atom, a tiled MMA or a tiled copy",
                   val_describe(e, out));
        return false;
    }
    return true;
}

static bool get_type(Eval *e, const Node *arg, const char *what, ScalarType *out)
{
    Value v = eval_rvalue(e, arg);
    if (v.kind == V_ERROR) return false;
    if (v.kind != V_TYPE) {
        diag_error(e->diag, arg->loc, "%s must be a type, found %s", what, val_describe(e, &v));
        return false;
    }
    *out = v.ty;
    return true;
}

static bool get_int(Eval *e, const Node *arg, const char *what, int64_t *out)
{
    Value v = eval_rvalue(e, arg);
    if (v.kind == V_ERROR) return false;
    if (v.kind != V_INT) {
        diag_error(e->diag, arg->loc, "%s must be a compile-time integer, found %s", what, val_describe(e, &v));
        return false;
    }
    *out = v.i;
    return true;
}

/* the thread index argument as a layout integer (static or runtime) */
static bool get_index(Eval *e, const Node *arg, LayInt *out)
{
    Value v = eval_rvalue(e, arg);
    if (v.kind == V_ERROR) return false;
    LayValue lv;
    if (!val_to_lay(e, v, &lv, arg->loc, "the thread index")) return false;
    if (lv.kind != LAY_V_INT) {
        diag_error(e->diag, arg->loc, "the thread index must be an integer, found %s", val_describe(e, &v));
        return false;
    }
    *out = lv.i;
    return true;
}

static int lrank(const LayLayout *L) { return L->shape->is_leaf ? 1 : L->shape->n; }

static LayLayout lmode(const LayLayout *L, int i)
{
    if (L->shape->is_leaf) return *L;
    return (LayLayout){L->shape->elems[i], L->stride->elems[i]};
}

static LayLayout lmake(Eval *e, int n, const LayLayout *m)
{
    if (n == 1) return m[0];
    LayTuple **s = ARENA_ARRAY(e->arena, LayTuple *, n), **d = ARENA_ARRAY(e->arena, LayTuple *, n);
    for (int i = 0; i < n; i++) {
        s[i] = m[i].shape;
        d[i] = m[i].stride;
    }
    return (LayLayout){lay_tuple_make(e->arena, n, s), lay_tuple_make(e->arena, n, d)};
}

static bool lsize(Eval *e, const LayLayout *L, int64_t *n)
{
    LayInt s = lay_size(e->arena, L);
    if (!s.is_static) return false;
    *n = s.value;
    return true;
}

/* a layout function of the algebra on layouts (and integers) */
static bool lcall(Eval *e, const char *fn, const LayValue *args, int n, LayValue *out, SrcLoc loc)
{
    LayError err = {.arg = -1};
    if (lay_call(e->arena, fn, NULL, 0, args, n, out, &err)) return true;
    diag_error(e->diag, loc, "%s", err.msg);
    return false;
}

/* logical_divide(m, k) = (the first k elements, the rest) */
static bool ldivide(Eval *e, const LayLayout *m, int64_t k, LayLayout *inner, LayLayout *rest, SrcLoc loc)
{
    LayValue args[2] = {{.kind = LAY_V_LAYOUT, .layout = *m}, {.kind = LAY_V_INT, .i = lay_int_static(k)}}, r;
    if (!lcall(e, "logical_divide", args, 2, &r, loc)) return false;
    if (r.kind != LAY_V_LAYOUT || lrank(&r.layout) != 2) {
        diag_error(e->diag, loc, "internal: logical_divide by %lld gave %s", (long long)k, lay_print_value(e->arena, &r));
        return false;
    }
    *inner = lmode(&r.layout, 0);
    *rest = lmode(&r.layout, 1);
    return true;
}

static bool add_idx(Eval *e, LayInt crd, const LayLayout *L, LayInt *off, SrcLoc loc)
{
    LayInt x;
    LayError err = {.arg = -1};
    if (!lay_crd2idx(e->arena, lay_tuple_leaf(e->arena, crd), L, &x, &err)) {
        diag_error(e->diag, loc, "%s", err.msg);
        return false;
    }
    if (!lay_int_add(e->arena, *off, x, off)) {
        diag_error(e->diag, loc, "tensor offset overflows 64 bits");
        return false;
    }
    return true;
}

/* "((4,8),(2,2,2)):((32,1),(16,8,128))" -> a layout (the atoms' constant
 * TV layouts are written the way CuTe documents them) */
static LayTuple *parse_tuple(Eval *e, const char **p)
{
    if (**p != '(') {
        int64_t v = 0;
        while (**p >= '0' && **p <= '9') v = v * 10 + (*(*p)++ - '0');
        return lay_tuple_leaf(e->arena, lay_int_static(v));
    }
    (*p)++;
    LayTuple *el[8];
    int n = 0;
    while (**p != ')') {
        el[n++] = parse_tuple(e, p);
        if (**p == ',') (*p)++;
    }
    (*p)++;
    LayTuple **m = ARENA_ARRAY(e->arena, LayTuple *, n);
    memcpy(m, el, sizeof *m * (size_t)n);
    return lay_tuple_make(e->arena, n, m);
}

static LayLayout parse_layout(Eval *e, const char *s)
{
    LayLayout l;
    l.shape = parse_tuple(e, &s);
    s++; /* ':' */
    l.stride = parse_tuple(e, &s);
    return l;
}

/* Apply a layout transformation to a tensor view: the plain layout, the
 * outer layout of a swizzled one, and every coordinate component of an
 * identity tensor; what fn moves into the offset goes to toff, inside the
 * swizzle, or to the component's offset. */
typedef bool (*ViewFn)(Eval *e, const LayLayout *in, const void *ctx, LayLayout *out, LayInt *off, SrcLoc loc);

static bool view_apply(Eval *e, Value t, ViewFn fn, const void *ctx, SrcLoc loc, Value *out)
{
    Value r = t;
    LayInt off = lay_int_static(0);
    if (t.lay.kind == LAY_V_COMPOSED) {
        if (!fn(e, &t.lay.composed.outer, ctx, &r.lay.composed.outer, &off, loc) ||
            !lay_int_add(e->arena, t.lay.composed.offset, off, &r.lay.composed.offset))
            return false;
    } else if (t.lay.kind == LAY_V_LAYOUT) {
        if (!fn(e, &t.lay.layout, ctx, &r.lay.layout, &off, loc) || !lay_int_add(e->arena, t.toff, off, &r.toff))
            return false;
    } else {
        diag_error(e->diag, loc, "the tensor's layout must be a layout, found %s", lay_print_value(e->arena, &t.lay));
        return false;
    }
    if (t.ncomp) {
        r.comp = ARENA_ARRAY(e->arena, LayLayout, t.ncomp);
        r.coff = ARENA_ARRAY(e->arena, LayInt, t.ncomp);
        for (int c = 0; c < t.ncomp; c++) {
            LayInt o = lay_int_static(0);
            if (!fn(e, &t.comp[c], ctx, &r.comp[c], &o, loc) || !lay_int_add(e->arena, t.coff[c], o, &r.coff[c]))
                return false;
        }
    }
    *out = r;
    return true;
}

/* ---- constructors ------------------------------------------------------ */

/* mma_atom(16, 8, 16, T): mma.sync m16n8k16, T = bf16 or f16, f32 accumulators */
static Value mma_atom(Eval *e, const Node *call)
{
    int64_t m, n, k;
    ScalarType ty;
    if (!builtin_arity(e, call, "mma_atom", 4, 4) || !get_int(e, call->list.items[0], "the atom's M", &m) ||
        !get_int(e, call->list.items[1], "the atom's N", &n) || !get_int(e, call->list.items[2], "the atom's K", &k) ||
        !get_type(e, call->list.items[3], "the atom's input type", &ty))
        return val_error();
    if (m != 16 || n != 8 || k != 16 || (ty != TY_BF16 && ty != TY_F16)) {
        diag_error(e->diag, call->loc,
                   "no MMA atom m%lldn%lldk%lld for %s; available: mma_atom(16, 8, 16, bf16 or f16) (mma.sync, f32 accumulators)",
                   (long long)m, (long long)n, (long long)k, type_name(ty));
        return val_error();
    }
    Atom a = {.kind = AK_MMA, .ty = ty, .acc = TY_F32, .shp = {16, 8, 16}, .warps = {1, 1}};
    /* PTX's m16n8k16 fragment layouts (the ISA's figures), value order =
     * register order: a0..a3 hold (row g, col 2c..), (g+8, 2c), (g, 2c+8),
     * (g+8, 2c+8) for lane 4g + c; b0, b1 hold (k 2c.., n g), (k 2c+8.., n g);
     * c0..c3 hold (g, 2c..), (g+8, 2c..). */
    a.tv[0] = parse_layout(e, "((4,8),(2,2,2)):((32,1),(16,8,128))");
    a.tv[1] = parse_layout(e, "((4,8),(2,2)):((16,1),(8,64))");
    a.tv[2] = parse_layout(e, "((4,8),(2,2)):((32,1),(16,8))");
    return val_atom(e, &a);
}

/* make_tiled_mma(atom, (WM, WN)): the atom repeated over WM x WN warps,
 * warp w at (w % WM, w / WM); a tile larger than the warps cover is
 * repeated over, so each warp takes atoms wm, wm + WM, ... along M. */
static Value make_tiled_mma(Eval *e, const Node *call)
{
    Value av;
    if (!builtin_arity(e, call, "make_tiled_mma", 2, 2) || !get_atom(e, call->list.items[0], "argument 1 of 'make_tiled_mma'", &av))
        return val_error();
    if (av.atom->kind != AK_MMA || av.atom->warps[0] * av.atom->warps[1] != 1) {
        diag_error(e->diag, call->list.items[0]->loc, "argument 1 of 'make_tiled_mma' must be an MMA atom, found %s",
                   val_describe(e, &av));
        return val_error();
    }
    Value wv = eval_rvalue(e, call->list.items[1]);
    if (wv.kind == V_ERROR) return wv;
    LayTuple *w = coord_of(e, wv, call->list.items[1]->loc);
    if (!w) return val_error();
    int64_t ws[3] = {1, 1, 1};
    int n = w->is_leaf ? 1 : w->n;
    bool ok = n >= 1 && n <= 3;
    for (int i = 0; ok && i < n; i++) {
        LayTuple *x = w->is_leaf ? w : w->elems[i];
        ok = x->is_leaf && x->leaf.is_static && x->leaf.value >= 1;
        if (ok) ws[i] = x->leaf.value;
    }
    if (!ok || ws[2] != 1 || ws[0] * ws[1] > 32) {
        diag_error(e->diag, call->list.items[1]->loc,
                   "the warp layout of 'make_tiled_mma' must be (WM, WN) or (WM, WN, 1) with static sizes and at most 32 warps, found %s",
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
static Value copy_atom(Eval *e, const Node *call, CopyOp op, const char *name)
{
    ScalarType ty;
    int64_t n;
    if (!builtin_arity(e, call, name, 2, op == OP_LDSM ? 3 : 2) || !get_type(e, call->list.items[0], "the element type", &ty) ||
        !get_int(e, call->list.items[1], op == OP_LDSM ? "the number of matrices" : "the elements per copy", &n))
        return val_error();
    Atom a = {.kind = AK_COPY, .ty = ty, .op = op, .vec = (int)n};
    int64_t bytes;
    if (__builtin_mul_overflow(n, (int64_t)type_bytes(ty), &bytes)) {
        diag_error(e->diag, call->loc, "'%s': %lld x %s is more than 2^63 bytes", name, (long long)n, type_name(ty));
        return val_error();
    }
    if (op == OP_LDSM) {
        if (call->list.n == 3) {
            Value t = eval_rvalue(e, call->list.items[2]);
            if (t.kind == V_ERROR) return t;
            if (t.kind != V_BOOL) {
                diag_error(e->diag, call->list.items[2]->loc, "the 'trans' argument of '%s' must be true or false", name);
                return val_error();
            }
            a.trans = t.i != 0;
        }
        if (type_bytes(ty) != 2 || (n != 1 && n != 2 && n != 4)) {
            diag_error(e->diag, call->loc, "'%s' loads 1, 2 or 4 matrices of a 16-bit type, got %lld of %s", name,
                       (long long)n, type_name(ty));
            return val_error();
        }
    } else if (op == OP_CP_ASYNC && (n <= 0 || (bytes != 4 && bytes != 8 && bytes != 16))) {
        diag_error(e->diag, call->loc, "'%s' copies 4, 8 or 16 bytes; %lld x %s is %lld bytes", name, (long long)n,
                   type_name(ty), (long long)bytes);
        return val_error();
    } else if (op == OP_UNIVERSAL && (n <= 0 || bytes > 16 || (bytes & (bytes - 1)))) {
        diag_error(e->diag, call->loc, "'%s' moves 1, 2, 4, 8 or 16 bytes; %lld x %s is %lld bytes", name, (long long)n,
                   type_name(ty), (long long)bytes);
        return val_error();
    }
    return val_atom(e, &a);
}

/* make_tiled_copy(atom, thr, val): threads laid out by thr over the tile
 * (thr maps a thread's coordinate to its index), each holding the block
 * val; the TV layout is make_layout_tv(thr, val). */
static Value make_tiled_copy(Eval *e, const Node *call)
{
    Value av;
    if (!builtin_arity(e, call, "make_tiled_copy", 3, 3) || !get_atom(e, call->list.items[0], "argument 1 of 'make_tiled_copy'", &av))
        return val_error();
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
        Value v = eval_rvalue(e, n);
        if (v.kind == V_ERROR) return v;
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
                   "each thread's %lld values are not a multiple of the atom's %d elements per copy", (long long)nv, a.vec);
        return val_error();
    }
    return val_atom(e, &a);
}

/* make_tiled_copy_A/B(ldmatrix atom, tiled_mma): ldmatrix that loads the
 * MMA's A or B fragments from shared memory. */
static Value make_tiled_copy_op(Eval *e, const Node *call, int operand)
{
    const char *name = operand ? "make_tiled_copy_B" : "make_tiled_copy_A";
    Value cv, mv;
    if (!builtin_arity(e, call, name, 2, 2) || !get_atom(e, call->list.items[0], "the copy atom", &cv) ||
        !get_atom(e, call->list.items[1], "the tiled MMA", &mv))
        return val_error();
    if (cv.atom->kind != AK_COPY || cv.atom->op != OP_LDSM) {
        diag_error(e->diag, call->list.items[0]->loc, "'%s' needs an ldmatrix copy atom, found %s", name,
                   val_describe(e, &cv));
        return val_error();
    }
    if (mv.atom->kind != AK_MMA) {
        diag_error(e->diag, call->list.items[1]->loc, "'%s' needs a tiled MMA, found %s", name, val_describe(e, &mv));
        return val_error();
    }
    if (cv.atom->ty != mv.atom->ty) {
        diag_error(e->diag, call->loc, "'%s': the copy atom moves %s but the MMA takes %s", name, type_name(cv.atom->ty),
                   type_name(mv.atom->ty));
        return val_error();
    }
    Atom a = *cv.atom;
    a.kind = AK_LDSM_COPY;
    a.mma = mv.atom;
    a.operand = operand;
    a.nthr = 32 * mv.atom->warps[0] * mv.atom->warps[1];
    return val_atom(e, &a);
}

/* ---- partitions -------------------------------------------------------- */

/* One operand of a tiled MMA: a tile with modes (rows, cols, extra...) ->
 * (values, rows / (atom rows * warps), cols / (atom cols * warps), extra...)
 * for one lane and warp. */
typedef struct OpPart {
    const LayLayout *tv;
    int64_t d[2], w[2];       /* atom extent and warps along the two modes */
    LayInt lane, wc[2];       /* the thread: lane, warp coordinate per mode */
    const char *what;
} OpPart;

static bool part_operand(Eval *e, const LayLayout *L, const void *ctx, LayLayout *out, LayInt *off, SrcLoc loc)
{
    const OpPart *p = ctx;
    int r = lrank(L);
    if (r < 2) {
        diag_error(e->diag, loc, "'%s' needs a tensor of rank 2 or more (%s), got rank %d", p->what,
                   p->d[0] == 8 ? "N, K" : p->d[1] == 8 ? "M, N" : "M, K", r);
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
            diag_error(e->diag, loc, "'%s': mode %d of the tile has %lld elements, not a multiple of %lld (%lld per atom x %lld warps)",
                       p->what, i, (long long)s, (long long)(p->d[i] * p->w[i]), (long long)p->d[i], (long long)p->w[i]);
            return false;
        }
        if (!ldivide(e, &mi, p->d[i], &at[i], &rest[i], loc) || !ldivide(e, &rest[i], p->w[i], &wl, &rest[i], loc) ||
            !add_idx(e, p->wc[i], &wl, off, loc))
            return false;
    }
    /* the atom tile (rows x cols, column-major) composed with the TV layout */
    LayValue args[2] = {{.kind = LAY_V_LAYOUT, .layout = lmake(e, 2, at)}, {.kind = LAY_V_LAYOUT, .layout = *p->tv}}, tt;
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
                  .what = what[operand]};
    return true;
}

static bool split_tid(Eval *e, LayInt tid, LayInt *lane, LayInt *warp)
{
    LayInt w = lay_int_static(32);
    return lay_int_mod(e->arena, tid, w, lane) && lay_int_div(e->arena, tid, w, warp);
}

/* partition_A/B/C(mma, tid, T) */
static Value partition_mma(Eval *e, const Node *call, int operand)
{
    static const char *what[] = {"partition_A", "partition_B", "partition_C"};
    Value mv, t;
    LayInt tid, lane, warp;
    if (!builtin_arity(e, call, what[operand], 3, 3) || !get_atom(e, call->list.items[0], "the tiled MMA", &mv) ||
        !get_index(e, call->list.items[1], &tid) || !builtin_get_tensor(e, call->list.items[2], "the tensor", &t))
        return val_error();
    if (mv.atom->kind != AK_MMA) {
        diag_error(e->diag, call->list.items[0]->loc, "'%s' needs a tiled MMA, found %s", what[operand], val_describe(e, &mv));
        return val_error();
    }
    OpPart p;
    if (!split_tid(e, tid, &lane, &warp) || !operand_part(e, mv.atom, operand, lane, warp, &p)) return val_error();
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
    LayValue args[2] = {{.kind = LAY_V_LAYOUT, .layout = lmake(e, tr, at)}, {.kind = LAY_V_LAYOUT, .layout = p->a->ctv}}, tv;
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
    int64_t frg;      /* values per atom in the fragment */
    int n;            /* matrices per instruction */
    LayInt in;        /* this lane's value within the instruction's group */
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
        if (!lay_int_mod(e->arena, p->in, F, &v) || !lay_int_div(e->arena, p->in, F, &j) || !add_idx(e, v, &m[0], off, loc) ||
            !ldivide(e, &m[1], c, &cm, &m[1], loc) || !add_idx(e, j, &cm, off, loc))
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
    const LayLayout *L = t->lay.kind == LAY_V_COMPOSED ? &t->lay.composed.outer : &t->lay.layout;
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
        bool ok = t->lay.kind == LAY_V_COMPOSED ? lay_composed_crd2idx(e->arena, crd, &c, &x, &err)
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
    const LayLayout *L = t->lay.kind == LAY_V_COMPOSED ? &t->lay.composed.outer : &t->lay.layout;
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
                int64_t got = a->trans ? ad[(4 * c + k / 2) * nvals + 2 * r + k % 2] : ad[(4 * k + c / 2) * nvals + 2 * r + c % 2];
                ok = got == base + c;
            }
            if (!ok) {
                diag_error(e->diag, loc,
                           "ldmatrix%s cannot load operand %c from this shared layout: row %lld of matrix %lld is not 8 contiguous, 16-byte aligned elements (%s)",
                           a->trans ? ".trans" : "", a->operand ? 'B' : 'A', (long long)k, (long long)r,
                           lay_print_value(e->arena, &t->lay));
                return false;
            }
        }
    return true;
}

/* partition_S/D(tiled_copy, tid, T) */
static Value partition_copy(Eval *e, const Node *call, bool src)
{
    const char *name = src ? "partition_S" : "partition_D";
    Value cv, t;
    LayInt tid;
    if (!builtin_arity(e, call, name, 3, 3) || !get_atom(e, call->list.items[0], "the tiled copy", &cv) ||
        !get_index(e, call->list.items[1], &tid) || !builtin_get_tensor(e, call->list.items[2], "the tensor", &t))
        return val_error();
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
                   "an ldmatrix copy writes the MMA's own fragments: use partition_%c's fragment (make_fragment_like) as its destination",
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
    if (!split_tid(e, tid, &lane, &warp) || !operand_part(e, a->mma, a->operand, lane, warp, &p.op)) return val_error();
    p.frg = a->operand ? 4 : 8;
    if (!check_ldsm(e, a, &t, &p.op, p.frg, call->loc)) return val_error();
    /* the lane whose values row (lane % 8) of matrix (lane / 8) % N holds */
    Arena *ar = e->arena;
    LayInt l8, two = lay_int_static(2), eight = lay_int_static(8);
    bool ok = lay_int_mod(ar, lane, eight, &l8) && lay_int_div(ar, lane, eight, &grp) &&
              lay_int_mod(ar, grp, lay_int_static(a->vec), &grp) && lay_int_mul(ar, grp, two, &p.in);
    if (a->trans) ok = ok && lay_int_div(ar, l8, two, &rowlane) && lay_int_mod(ar, lane, two, &x) && lay_int_add(ar, p.in, x, &p.in);
    else ok = ok && lay_int_mul(ar, l8, lay_int_static(4), &rowlane);
    if (!ok) return val_error();
    p.op.lane = rowlane;
    if (!view_apply(e, t, part_ldsm, &p, call->loc, &r)) return val_error();
    return r;
}

/* make_fragment_like(T[, type]): a register tensor of T's shape, compact
 * and column-major, of T's element type or the given one */
static Value make_fragment_like(Eval *e, const Node *call)
{
    Value t;
    if (!builtin_arity(e, call, "make_fragment_like", 1, 2) || !builtin_need_kernel(e, call, "make_fragment_like") ||
        !builtin_get_tensor(e, call->list.items[0], "argument 1 of 'make_fragment_like'", &t))
        return val_error();
    ScalarType ty = t.ty;
    if (call->list.n == 2 && !get_type(e, call->list.items[1], "the fragment's element type", &ty)) return val_error();
    if (call->list.n == 1 && t.space == SPACE_IDENT) {
        diag_error(e->diag, call->loc, "a fragment like an identity tensor needs an element type: make_fragment_like(T, f32)");
        return val_error();
    }
    const LayLayout *L = t.lay.kind == LAY_V_COMPOSED ? &t.lay.composed.outer : &t.lay.layout;
    LayValue shape = {.kind = LAY_V_TUPLE, .tuple = L->shape}, lay;
    if (!lcall(e, "make_layout", &shape, 1, &lay, call->loc)) return val_error();
    int64_t n;
    if (!lsize(e, &lay.layout, &n)) {
        diag_error(e->diag, call->loc, "a fragment needs a static shape, found %s", lay_print_tuple(e->arena, L->shape));
        return val_error();
    }
    if (n * type_bytes(ty) > 64 * 1024) {
        diag_error(e->diag, call->loc, "the fragment takes %lld bytes (limit 65536)", (long long)(n * type_bytes(ty)));
        return val_error();
    }
    LLVMTypeRef arr = LLVMArrayType2(cg_type(e->cg, ty), (uint64_t)(n > 0 ? n : 1));
    return tensor_make(cg_alloca(e->cg, arr, "frag"), ty, SPACE_RMEM, lay);
}

/* ---- gemm and copy ----------------------------------------------------- */

/* the static extent of each mode (rank <= 4) */
static int mode_sizes(Eval *e, const Value *t, int64_t *s)
{
    const LayLayout *L = t->lay.kind == LAY_V_COMPOSED ? &t->lay.composed.outer : &t->lay.layout;
    int r = lrank(L);
    if (r > 4) return -1;
    for (int i = 0; i < r; i++) {
        LayLayout m = lmode(L, i);
        if (!lsize(e, &m, &s[i])) return -1;
    }
    return r;
}

/* gemm(mma, acc, a, b): acc(_, i, j) += a(_, i, k) * b(_, j, k) over every
 * i, j and k; a and b are (values, MI[, K]) and (values, NI[, K]) register
 * fragments, acc (values, MI, NI). */
static Value gemm(Eval *e, const Node *call)
{
    Value mv, c, a, b;
    if (!builtin_arity(e, call, "gemm", 4, 4) || !builtin_need_kernel(e, call, "gemm") ||
        !get_atom(e, call->list.items[0], "the tiled MMA", &mv) ||
        !builtin_get_tensor(e, call->list.items[1], "the accumulator", &c) ||
        !builtin_get_tensor(e, call->list.items[2], "the A fragment", &a) || !builtin_get_tensor(e, call->list.items[3], "the B fragment", &b))
        return val_error();
    if (mv.atom->kind != AK_MMA) {
        diag_error(e->diag, call->list.items[0]->loc, "'gemm' needs a tiled MMA, found %s", val_describe(e, &mv));
        return val_error();
    }
    const Value *ts[3] = {&c, &a, &b};
    static const char *what[3] = {"the accumulator", "the A fragment", "the B fragment"};
    ScalarType want[3] = {mv.atom->acc, mv.atom->ty, mv.atom->ty};
    int64_t s[3][4] = {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}}, frg[3] = {4, 8, 4};
    int rk[3];
    for (int i = 0; i < 3; i++) {
        rk[i] = mode_sizes(e, ts[i], s[i]);
        if (ts[i]->space != SPACE_RMEM || ts[i]->ty != want[i] || rk[i] < 2 || rk[i] > 3 || s[i][0] != frg[i]) {
            diag_error(e->diag, call->list.items[i + 1]->loc,
                       "%s of 'gemm' must be a register fragment of %s shaped (%lld, %s), found %s%s", what[i],
                       type_name(want[i]), (long long)frg[i], i == 0 ? "MI, NI" : i == 1 ? "MI[, K]" : "NI[, K]",
                       val_describe(e, ts[i]),
                       rk[i] > 0 ? arena_printf(e->arena, " with layout %s", lay_print_value(e->arena, &ts[i]->lay)) : "");
            return val_error();
        }
    }
    int64_t MI = s[1][1], NI = s[2][1], K = s[1][2];
    if (rk[0] != 3 || s[0][1] != MI || s[0][2] != NI || s[2][2] != K) {
        diag_error(e->diag, call->loc, "'gemm': the accumulator is (%lld, %lld, %lld) but A is (8, %lld, %lld) and B (4, %lld, %lld)",
                   (long long)s[0][0], (long long)s[0][1], (long long)s[0][2], (long long)MI, (long long)K, (long long)NI,
                   (long long)s[2][2]);
        return val_error();
    }
    for (int64_t k = 0; k < K; k++)
        for (int64_t i = 0; i < MI; i++)
            for (int64_t j = 0; j < NI; j++)
                if (!emit_mma16816(e, &c, 4 * (i + MI * j), &a, 8 * (i + MI * k), &b, 4 * (j + NI * k), call->loc))
                    return val_error();
    return (Value){.kind = V_VOID};
}

/* The values i .. i+vec of t are one contiguous run in memory: they lie
 * in one run of mode 0 (the values mode of a partition), whose static
 * strides make them consecutive. */
static bool contiguous(Eval *e, const Value *t, int64_t i, int vec)
{
    const LayLayout *L = t->lay.kind == LAY_V_COMPOSED ? &t->lay.composed.outer : &t->lay.layout;
    LayLayout m0 = lmode(L, 0);
    int64_t s0;
    if (!lsize(e, &m0, &s0) || s0 % vec != 0) return false;
    int64_t c = i % s0;
    LayInt x0;
    LayError err = {.arg = -1};
    if (!lay_crd2idx(e->arena, lay_tuple_leaf(e->arena, lay_int_static(c)), &m0, &x0, &err) || !x0.is_static) return false;
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
        LLVMValueRef q = LLVMBuildICmp(e->cg->b, LLVMIntSLT, lower_layint(e, x), lower_layint(e, bd), "");
        p = p ? LLVMBuildAnd(e->cg->b, p, q, "") : q;
    }
    if (!p) return LLVMConstInt(e->cg->t_i1, 1, 0);
    *all = false;
    return p;
}

/* copy(tc, src, dst) and copy_if(tc, crd, bound, src, dst) */
Value atom_copy(Eval *e, const Node *call, Value tc, bool pred)
{
    const char *name = pred ? "copy_if" : "copy";
    int base = pred ? 3 : 1;
    if (!builtin_arity(e, call, name, base + 2, base + 2) || !builtin_need_kernel(e, call, name)) return val_error();
    const Atom *a = tc.atom;
    if (a->kind != AK_TILED_COPY && a->kind != AK_LDSM_COPY && a->kind != AK_COPY) {
        diag_error(e->diag, call->list.items[0]->loc, "'%s' needs a copy atom or tiled copy, found %s", name,
                   val_describe(e, &tc));
        return val_error();
    }
    Value s, d, crd = {.kind = V_VOID};
    LayTuple *bound = NULL;
    if (pred) {
        if (!builtin_get_tensor(e, call->list.items[1], "the coordinate tensor", &crd)) return val_error();
        if (crd.space != SPACE_IDENT) {
            diag_error(e->diag, call->list.items[1]->loc,
                       "the coordinate tensor of 'copy_if' must be an identity tensor partitioned like the source, found %s",
                       val_describe(e, &crd));
            return val_error();
        }
        Value bv = eval_rvalue(e, call->list.items[2]);
        if (bv.kind == V_ERROR) return bv;
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
    if (!builtin_get_tensor(e, call->list.items[base], "the source", &s) || !builtin_get_tensor(e, call->list.items[base + 1], "the destination", &d))
        return val_error();
    int64_t ns, nd, nc = 0;
    SrcLoc sl = call->list.items[base]->loc, dl = call->list.items[base + 1]->loc;
    if (!tensor_static_size(e, &s, sl, &ns) || !tensor_static_size(e, &d, dl, &nd) ||
        (pred && !tensor_static_size(e, &crd, call->list.items[1]->loc, &nc)))
        return val_error();
    if (s.space == SPACE_IDENT || d.space == SPACE_IDENT) {
        diag_error(e->diag, s.space == SPACE_IDENT ? sl : dl, "an identity tensor has no memory; index it for coordinates instead");
        return val_error();
    }
    if (a->op == OP_LDSM) {
        if (pred) {
            diag_error(e->diag, call->loc, "ldmatrix copies are not predicated: use 'copy'");
            return val_error();
        }
        if (a->kind != AK_LDSM_COPY) {
            diag_error(e->diag, call->list.items[0]->loc, "an ldmatrix atom copies through make_tiled_copy_A/B(atom, mma)");
            return val_error();
        }
        if (s.space != SPACE_SMEM || d.space != SPACE_RMEM || d.ty != a->ty || nd != ns * 2 * a->vec) {
            diag_error(e->diag, call->loc,
                       "an ldmatrix.x%d copy takes a source from partition_S (one element per instruction) and the %lld-element register fragment it fills; got %lld x %s %s and %lld x %s %s",
                       a->vec, (long long)(ns * 2 * a->vec), (long long)ns, type_name(s.ty), s.space == SPACE_SMEM ? "shared" : "non-shared",
                       (long long)nd, type_name(d.ty), d.space == SPACE_RMEM ? "registers" : "memory");
            return val_error();
        }
        for (int64_t g = 0; g < ns; g++) {
            LLVMValueRef p = tensor_elem_ptr(e, &s, g, call->loc);
            if (!p) return val_error();
            Value ref = {.kind = V_REF, .llvm = p, .ty = s.ty, .space = SPACE_SMEM};
            if (!emit_ldmatrix(e, &d, 2 * a->vec * g, a->vec, a->trans, smem_addr32(e, &ref), call->loc)) return val_error();
        }
        return (Value){.kind = V_VOID};
    }
    if (ns != nd || (pred && nc != ns)) {
        diag_error(e->diag, call->loc, "'%s' needs tensors of the same size, got %lld (source) and %lld (destination)%s", name,
                   (long long)ns, (long long)nd,
                   pred ? arena_printf(e->arena, " and %lld coordinates", (long long)nc) : "");
        return val_error();
    }
    if (s.ty != a->ty || d.ty != a->ty) {
        diag_error(e->diag, call->loc, "the copy atom moves %s; the source is %s and the destination %s", type_name(a->ty),
                   type_name(s.ty), type_name(d.ty));
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
    LLVMBuilderRef b = e->cg->b;
    LLVMTypeRef et = cg_type(e->cg, a->ty), vt = a->vec > 1 ? LLVMVectorType(et, (unsigned)a->vec) : et;
    unsigned bytes = (unsigned)(a->vec * type_bytes(a->ty));
    for (int64_t i = 0; i < ns; i += a->vec) {
        if (!contiguous(e, &s, i, a->vec) || !contiguous(e, &d, i, a->vec)) {
            diag_error(e->diag, call->loc,
                       "the atom moves %d elements at once, but elements %lld..%lld of the %s are not contiguous in memory (%s)",
                       a->vec, (long long)i, (long long)(i + a->vec - 1), contiguous(e, &s, i, a->vec) ? "destination" : "source",
                       lay_print_value(e->arena, contiguous(e, &s, i, a->vec) ? &d.lay : &s.lay));
            return val_error();
        }
        LLVMValueRef ps = tensor_elem_ptr(e, &s, i, call->loc), pd = tensor_elem_ptr(e, &d, i, call->loc);
        if (!ps || !pd) return val_error();
        bool all = true;
        LLVMValueRef ok = pred ? in_bounds(e, &crd, bound, i, call->loc, &all) : NULL;
        if (pred && !ok) return val_error();
        if (a->op == OP_CP_ASYNC) {
            /* out of bounds: zero-fill, reading nothing, from the tensor's
             * base element (an address that exists) */
            LLVMValueRef size = LLVMConstInt(e->cg->t_i32, bytes, 0);
            if (!all) {
                size = LLVMBuildSelect(b, ok, size, LLVMConstInt(e->cg->t_i32, 0, 0), "");
                ps = LLVMBuildSelect(b, ok, ps, s.llvm, "");
            }
            Value ref = {.kind = V_REF, .llvm = pd, .ty = d.ty, .space = SPACE_SMEM};
            emit_cp_async(e, smem_addr32(e, &ref), ps, (int)bytes, size);
            continue;
        }
        LLVMBasicBlockRef then = NULL, merge = NULL;
        if (!all) { /* a universal copy skips elements out of bounds */
            then = LLVMAppendBasicBlockInContext(e->cg->ctx, e->cg->fn, "copy.in");
            merge = LLVMAppendBasicBlockInContext(e->cg->ctx, e->cg->fn, "copy.end");
            LLVMBuildCondBr(b, ok, then, merge);
            LLVMPositionBuilderAtEnd(b, then);
        }
        LLVMValueRef v = LLVMBuildLoad2(b, vt, ps, "");
        LLVMSetAlignment(v, bytes);
        LLVMValueRef st = LLVMBuildStore(b, v, pd);
        LLVMSetAlignment(st, bytes);
        if (!all) {
            LLVMBuildBr(b, merge);
            LLVMPositionBuilderAtEnd(b, merge);
        }
    }
    return (Value){.kind = V_VOID};
}

Value atom_builtin(Eval *e, const char *name, const Node *call)
{
    if (call->list2.n) {
        diag_error(e->diag, call->loc, "'%s' takes no template arguments", name);
        return val_error();
    }
    if (strcmp(name, "mma_atom") == 0) return mma_atom(e, call);
    if (strcmp(name, "make_tiled_mma") == 0) return make_tiled_mma(e, call);
    if (strcmp(name, "copy_atom_universal") == 0) return copy_atom(e, call, OP_UNIVERSAL, name);
    if (strcmp(name, "copy_atom_cp_async") == 0) return copy_atom(e, call, OP_CP_ASYNC, name);
    if (strcmp(name, "copy_atom_ldmatrix") == 0) return copy_atom(e, call, OP_LDSM, name);
    if (strcmp(name, "make_tiled_copy") == 0) return make_tiled_copy(e, call);
    if (strcmp(name, "make_tiled_copy_A") == 0) return make_tiled_copy_op(e, call, 0);
    if (strcmp(name, "make_tiled_copy_B") == 0) return make_tiled_copy_op(e, call, 1);
    if (strcmp(name, "partition_A") == 0) return partition_mma(e, call, 0);
    if (strcmp(name, "partition_B") == 0) return partition_mma(e, call, 1);
    if (strcmp(name, "partition_C") == 0) return partition_mma(e, call, 2);
    if (strcmp(name, "partition_S") == 0) return partition_copy(e, call, true);
    if (strcmp(name, "partition_D") == 0) return partition_copy(e, call, false);
    if (strcmp(name, "make_fragment_like") == 0) return make_fragment_like(e, call);
    if (strcmp(name, "gemm") == 0) return gemm(e, call);
    /* copy_if(tiled_copy, crd, bound, src, dst) */
    if (call->list.n < 1) return builtin_arity(e, call, name, 5, 5), val_error();
    Value tc;
    if (!get_atom(e, call->list.items[0], "argument 1 of 'copy_if'", &tc)) return val_error();
    return atom_copy(e, call, tc, true);
}
