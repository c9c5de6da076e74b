/* eval_render.c: `cutec eval` of an atom, a tiled MMA or a tiled copy.
 * The value prints as CuTe prints a TiledMMA or TiledCopy (the atom, its
 * shape, the thread layout and each operand's TV layout); --table and
 * --svg draw the TV layouts, every cell of a tile labelled with the thread
 * and value that hold it, as CuTe's print_layout and print_svg do.
 *
 * A tiled MMA's TV layouts map (thread, value) to the column-major index
 * of the operand's tile (A: M x K, B: N x K, C: M x N) covered by its
 * warps (or warpgroups) once; they are the atom's layouts with each
 * warp's offset, which is how partition_A/B/C place them
 * (atom_partition.c). */
#include <stdarg.h>
#include <string.h>

#include "cutec/compiler.h"
#include "eval.h"
#include "program.h"

/* a layout written in CuTe's notation, e.g. "((4,8),2):((2,8),1)" */
static bool lay_text(Eval *e, LayLayout *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool lay_text(Eval *e, LayLayout *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *text = arena_vprintf(e->arena, fmt, ap);
    va_end(ap);
    Node *n = parse_expression(e->arena, e->diag, "<atom>", text);
    Value v = n ? eval_rvalue(e, n) : val_error();
    if (v.kind != V_LAY || v.lay.kind != LAY_V_LAYOUT) return false;
    *out = v.lay.layout;
    return true;
}

static bool lay_fn(Eval *e, const char *fn, LayLayout x, LayLayout y, LayLayout *out, SrcLoc loc)
{
    LayValue args[2] = {{.kind = LAY_V_LAYOUT, .layout = x}, {.kind = LAY_V_LAYOUT, .layout = y}}, r;
    LayError err = {.arg = -1};
    if (!lay_call(e->arena, fn, NULL, 0, args, 2, &r, &err)) {
        diag_error(e->diag, loc, "internal: %s: %s", fn, err.msg);
        return false;
    }
    *out = r.layout;
    return true;
}

static LayLayout mode(const LayLayout *l, int i)
{
    return l->shape->is_leaf ? *l : (LayLayout){l->shape->elems[i], l->stride->elems[i]};
}

/* ---- tiled MMAs -------------------------------------------------------- */

static const char *const OPERAND[3] = {"A", "B", "C"};
static const char *const AXES[3] = {"M x K", "N x K", "M x N"};

/* operand op's tile and its TV layout over the whole tiled MMA: the atom's
 * layout placed in the tile, then threads (lane, wm, wn) with the warps'
 * offsets; a warp mode of size 1 is left out, and the warps that share an
 * operand (A along N, B along M) get stride 0.  rep > 1 repeats the tile
 * rep times along its rows, each thread holding the next rep atoms as
 * values (what one ldmatrix.x4 loads of B). */
static bool mma_tv(Eval *e, const AtomView *v, int op, int64_t rep, LayLayout *tv, int64_t *rows, int64_t *cols,
                   SrcLoc loc)
{
    static const int dim0[3] = {0, 1, 0}, dim1[3] = {2, 2, 1};
    int64_t ar = v->mnk[dim0[op]], ac = v->mnk[dim1[op]];
    int64_t once = ar * (dim0[op] == 0 ? v->warps[0] : v->warps[1]);
    *rows = once * rep;
    *cols = ac * (dim1[op] == 1 ? v->warps[1] : 1);
    LayLayout place, atom;
    if (!lay_text(e, &place, "(%lld,%lld):(1,%lld)", (long long)ar, (long long)ac, (long long)*rows) ||
        !lay_fn(e, "composition", place, *v->tv[op], &atom, loc))
        return false;
    int64_t wstride[2] = {op == 1 ? 0 : ar, op == 0 ? 0 : op == 1 ? ar : ac * *rows};
    LayTuple *s[3], *d[3];
    LayLayout lane = mode(&atom, 0);
    int n = 0;
    s[n] = lane.shape;
    d[n++] = lane.stride;
    for (int w = 0; w < 2; w++)
        if (v->warps[w] > 1) {
            s[n] = lay_tuple_leaf(e->arena, lay_int_static(v->warps[w]));
            d[n++] = lay_tuple_leaf(e->arena, lay_int_static(wstride[w]));
        }
    LayLayout thr = n == 1 ? lane : (LayLayout){lay_tuple_make(e->arena, n, s), lay_tuple_make(e->arena, n, d)};
    LayLayout val = mode(&atom, 1);
    if (rep > 1) {
        LayTuple *vs[2] = {val.shape, lay_tuple_leaf(e->arena, lay_int_static(rep))};
        LayTuple *vd[2] = {val.stride, lay_tuple_leaf(e->arena, lay_int_static(once))};
        val = (LayLayout){lay_tuple_make(e->arena, 2, vs), lay_tuple_make(e->arena, 2, vd)};
    }
    LayTuple *ts[2] = {thr.shape, val.shape}, *td[2] = {thr.stride, val.stride};
    *tv = (LayLayout){lay_tuple_make(e->arena, 2, ts), lay_tuple_make(e->arena, 2, td)};
    return true;
}

static const char *mma_title(Eval *e, int op, const LayLayout *tv, int64_t rows, int64_t cols)
{
    const char *r = op == 1 ? "n" : "m", *c = op == 2 ? "n" : "k";
    return arena_printf(e->arena, "Layout%s_TV %s: (thread, value) -> %s + %lld*%s in the %lld x %lld (%s) tile",
                        OPERAND[op], lay_print_layout(e->arena, tv), r, (long long)rows, c, (long long)rows,
                        (long long)cols, AXES[op]);
}

static const char *mma_text(Eval *e, const AtomView *v, SrcLoc loc)
{
    Arena *a = e->arena;
    const char *ty =
        v->ty == v->tyb ? type_name(v->ty) : arena_printf(a, "%s x %s", type_name(v->ty), type_name(v->tyb));
    const char *acc = type_name(v->acc);
    long long T = (long long)v->atom_threads;
    const char *atom =
        arena_printf(a,
                     "MMA_Atom: %s, %s -> %s\n"
                     "  ThrID:         %lld:1\n"
                     "  Shape_MNK:     (%lld,%lld,%lld)\n",
                     v->instr, ty, acc, T, (long long)v->mnk[0], (long long)v->mnk[1], (long long)v->mnk[2]);
    for (int op = 0; op < 3; op++)
        atom = arena_printf(a, "%s  Layout%s_TV:    %s\n", atom, OPERAND[op], lay_print_layout(a, v->tv[op]));
    int64_t wm = v->warps[0], wn = v->warps[1];
    if (wm * wn == 1)
        return arena_printf(a, "%s  (thread, value) -> m + %lld*k, n + %lld*k, m + %lld*n\n", atom,
                            (long long)v->mnk[0], (long long)v->mnk[1], (long long)v->mnk[0]);
    const char *t = arena_printf(a,
                                 "TiledMMA: %lld x %lld %s (%lld threads) of m%lldn%lldk%lld, %s -> %s\n"
                                 "  ThrLayoutVMNK: (%lld,%lld,%lld,1):(1,%lld,%lld,0)\n"
                                 "  Tile_MNK:      (%lld,%lld,%lld)\n",
                                 (long long)wm, (long long)wn, T == 32 ? "warps" : "warpgroups",
                                 (long long)(T * wm * wn), (long long)v->mnk[0], (long long)v->mnk[1],
                                 (long long)v->mnk[2], ty, acc, T, (long long)wm, (long long)wn, T, (long long)(T * wm),
                                 (long long)(v->mnk[0] * wm), (long long)(v->mnk[1] * wn), (long long)v->mnk[2]);
    for (int op = 0; op < 3; op++) {
        LayLayout tv;
        int64_t rows, cols;
        if (!mma_tv(e, v, op, 1, &tv, &rows, &cols, loc)) return NULL;
        t = arena_printf(a, "%s  Layout%s_TV:    %s\n", t, OPERAND[op], lay_print_layout(a, &tv));
    }
    return arena_printf(a, "%s  (thread, value) -> m + %lld*k, n + %lld*k, m + %lld*n\n%s", t,
                        (long long)(v->mnk[0] * wm), (long long)(v->mnk[1] * wn), (long long)(v->mnk[0] * wm), atom);
}

/* C, A and B as CuTe's print_svg places them: A left of C, B (drawn
 * K x N) above it */
static bool mma_panels(Eval *e, const AtomView *v, LayTvPanel p[3], int64_t *width, int64_t *height, SrcLoc loc)
{
    static const int order[3] = {2, 0, 1};
    int64_t K = v->mnk[2], M = v->mnk[0] * v->warps[0], N = v->mnk[1] * v->warps[1];
    for (int i = 0; i < 3; i++) {
        int op = order[i];
        LayTvPanel *q = &p[i];
        memset(q, 0, sizeof *q);
        if (!mma_tv(e, v, op, 1, &q->tv, &q->rows, &q->cols, loc)) return false;
        q->title = mma_title(e, op, &q->tv, q->rows, q->cols);
        q->transposed = op == 1;
        q->x = op == 0 ? 1 : K + 2;
        q->y = op == 1 ? 1 : K + 2;
        q->label_rows = q->label_cols = op != 2;
    }
    *width = K + N + 2;
    *height = K + M + 2;
    return true;
}

/* ---- copies ------------------------------------------------------------ */

/* ldmatrix.xN in 16-bit elements: lane l supplies the address of row l % 8
 * of matrix (l / 8) % N (matrix r's element (i, j) is 64r + 8i + j) and
 * receives, per matrix, two elements of row l / 4 (of column l / 4 with
 * .trans) */
static const struct {
    int n;
    const char *src, *dst, *dst_trans;
} LDSM[] = {
    {1, "((8,4),8):((8,0),1)", "((4,8),2):((2,8),1)", "((4,8),2):((16,1),8)"},
    {2, "((8,2,2),8):((8,64,0),1)", "((4,8),(2,2)):((2,8),(1,64))", "((4,8),(2,2)):((16,1),(8,64))"},
    {4, "((8,4),8):((8,64),1)", "((4,8),(2,4)):((2,8),(1,64))", "((4,8),(2,4)):((16,1),(8,64))"},
};

static const char *copy_atom_text(Eval *e, const AtomView *v)
{
    Arena *a = e->arena;
    int bits = 8 * type_bytes(v->ty);
    if (strcmp(v->op, "ldmatrix") == 0) {
        for (size_t i = 0; i < sizeof LDSM / sizeof LDSM[0]; i++)
            if (LDSM[i].n == v->vec)
                return arena_printf(a,
                                    "Copy_Atom: ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 (%s)\n"
                                    "  ThrID:         32:1\n"
                                    "  ValLayoutSrc:  %s\n"
                                    "  ValLayoutDst:  %s\n"
                                    "  ValueType:     %db\n"
                                    "  (thread, value) -> 64*matrix + 8*row + column\n",
                                    v->vec, v->trans ? ".trans" : "", type_name(v->ty), LDSM[i].src,
                                    v->trans ? LDSM[i].dst_trans : LDSM[i].dst, bits);
        return NULL;
    }
    return arena_printf(a,
                        "Copy_Atom: %s, %d x %s (%d bytes) per instruction\n"
                        "  ThrID:         1:0\n"
                        "  ValLayoutSrc:  (1,%d):(0,1)\n"
                        "  ValLayoutDst:  (1,%d):(0,1)\n"
                        "  ValueType:     %db\n",
                        v->op, v->vec, type_name(v->ty), v->vec * type_bytes(v->ty), v->vec, v->vec, bits);
}

/* An ldmatrix tiled copy's source TV layout over dst, the MMA operand's
 * (rep atoms along its rows when one instruction loads more than one
 * atom's fragment): lane l of warp w reads row l % 8 of the instruction's
 * matrix (l / 8) % N, eight elements, where the MMA's layout puts them (as
 * partition_S does: row k of matrix r is lanes 4k .. 4k+3, values 2r, 2r+1;
 * transposed, lanes 4c + k/2, value 2r + k%2, for its element c).  Each
 * mode coalesced, for reading. */
static bool ldsm_src_tv(Eval *e, const AtomView *v, const AtomView *mma, const LayLayout *dst, LayLayout *out,
                        SrcLoc loc)
{
    int64_t frg = v->operand ? 4 : 8, n = v->vec, W = mma->warps[0] * mma->warps[1], NT = 32 * W;
    long long ni = 2 * n < frg ? (long long)(frg / (2 * n)) : 1, dup = 32 / (8 * n);
    LayLayout g, src, prof;
    bool ok = v->trans ? lay_text(e, &g, "((2,4,%lld,%lld,%lld),(8,%lld)):((%lld,1,%lld,0,32),(4,%lld))", (long long)n,
                                  dup, (long long)W, ni, (long long)NT, (long long)(2 * NT), (long long)(2 * n * NT))
                       : lay_text(e, &g, "((8,%lld,%lld,%lld),(2,4,%lld)):((4,%lld,0,32),(%lld,1,%lld))", (long long)n,
                                  dup, (long long)W, ni, (long long)(2 * NT), (long long)NT, (long long)(2 * n * NT));
    if (!ok || !lay_fn(e, "composition", *dst, g, &src, loc)) return false;
    LayValue args[2] = {{.kind = LAY_V_LAYOUT, .layout = src}, {.kind = LAY_V_TUPLE}}, r;
    if (!lay_text(e, &prof, "(1,1):(0,0)")) return false;
    args[1].tuple = prof.shape;
    LayError err = {.arg = -1};
    if (!lay_call(e->arena, "coalesce", NULL, 0, args, 2, &r, &err)) {
        diag_error(e->diag, loc, "internal: coalesce: %s", err.msg);
        return false;
    }
    *out = r.layout;
    return true;
}

/* a tiled copy's source and destination TV layouts over its tile, as
 * panels side by side */
static bool copy_panels(Eval *e, const AtomView *v, LayTvPanel p[2], SrcLoc loc)
{
    int64_t rows, cols;
    LayLayout tv[2];
    if (v->kind == ATOM_VIEW_TILED_COPY) {
        const LayTuple *t = v->tile;
        int r = t->is_leaf ? 1 : t->n;
        if (r > 2) {
            diag_error(e->diag, loc, "a tiled copy is drawn on a rank-2 tile; this one is %s",
                       lay_print_tuple(e->arena, t));
            return false;
        }
        rows = (t->is_leaf ? t : t->elems[0])->leaf.value;
        cols = r == 2 ? t->elems[1]->leaf.value : 1;
        tv[0] = tv[1] = *v->ctv;
    } else {
        AtomView m;
        atom_view(v->mma, &m);
        int64_t frg = v->operand ? 4 : 8, rep = 2 * v->vec > frg ? 2 * v->vec / frg : 1;
        if (!mma_tv(e, &m, v->operand, rep, &tv[1], &rows, &cols, loc) || !ldsm_src_tv(e, v, &m, &tv[1], &tv[0], loc))
            return false;
    }
    const char *axes = v->kind == ATOM_VIEW_TILED_COPY ? "" : v->operand ? " (N x K)" : " (M x K)";
    for (int i = 0; i < 2; i++)
        p[i] = (LayTvPanel){
            .title = arena_printf(e->arena, "Layout%s_TV %s: (thread, value) -> r + %lld*c in the %lld x %lld%s tile",
                                  i ? "D" : "S", lay_print_layout(e->arena, &tv[i]), (long long)rows, (long long)rows,
                                  (long long)cols, axes),
            .tv = tv[i],
            .rows = rows,
            .cols = cols,
            .x = i ? cols + 3 : 1,
            .y = 1,
            .label_rows = true,
            .label_cols = true};
    return true;
}

static const char *copy_text(Eval *e, const AtomView *v, SrcLoc loc)
{
    Arena *a = e->arena;
    const char *atom = copy_atom_text(e, v);
    if (!atom || v->kind == ATOM_VIEW_COPY) return atom;
    if (v->kind == ATOM_VIEW_TILED_COPY) {
        const char *tv = lay_print_layout(a, v->ctv);
        return arena_printf(a,
                            "TiledCopy: %lld threads, %s %d x %s each\n"
                            "  Tiler_MN:      %s\n"
                            "  LayoutS_TV:    %s\n"
                            "  LayoutD_TV:    %s\n"
                            "  (thread, value) -> the column-major index in the tile\n%s",
                            (long long)v->nthr, v->op, v->vec, type_name(v->ty), lay_print_tuple(a, v->tile), tv, tv,
                            atom);
    }
    LayTvPanel p[2];
    if (!copy_panels(e, v, p, loc)) return NULL;
    return arena_printf(a,
                        "TiledCopy: %lld threads, ldmatrix.x%d%s into operand %s of %s\n"
                        "  Tiler_MN:      (%lld,%lld)   (%s)\n"
                        "  LayoutS_TV:    %s\n"
                        "  LayoutD_TV:    %s\n"
                        "  (thread, value) -> r + %lld*c\n%s",
                        (long long)v->nthr, v->vec, v->trans ? ".trans" : "", OPERAND[v->operand],
                        atom_describe(e, v->mma), (long long)p[0].rows, (long long)p[0].cols, AXES[v->operand],
                        lay_print_layout(a, &p[0].tv), lay_print_layout(a, &p[1].tv), (long long)p[0].rows, atom);
}

/* ---- the entry --------------------------------------------------------- */

const char *atom_render(Eval *e, const Value *val, int render, SrcLoc loc)
{
    AtomView v;
    atom_view(val->atom, &v);
    if (render == CUTEC_EVAL_VALUE) return v.kind == ATOM_VIEW_MMA ? mma_text(e, &v, loc) : copy_text(e, &v, loc);
    LayTvPanel p[3];
    int np = 0;
    int64_t width = 0, height = 0;
    if (v.kind == ATOM_VIEW_MMA) {
        if (!mma_panels(e, &v, p, &width, &height, loc)) return NULL;
        np = 3;
    } else if (v.kind == ATOM_VIEW_COPY) {
        diag_error(
            e->diag, loc,
            "a copy atom alone has no tile to draw; draw a tiled copy, e.g. make_tiled_copy(atom, (32,4), (1,8))");
        return NULL;
    } else {
        if (!copy_panels(e, &v, p, loc)) return NULL;
        np = 2;
        width = 2 * p[0].cols + 4;
        height = p[0].rows + 2;
    }
    LayError err = {.arg = -1};
    char *s = NULL;
    bool ok = render == CUTEC_EVAL_TABLE ? lay_render_tv_table(e->arena, p, np, &s, &err)
                                         : lay_render_tv_svg(e->arena, p, np, width, height, &s, &err);
    if (!ok) diag_error(e->diag, loc, "%s", err.msg);
    return ok ? s : NULL;
}
