/* atom_gemm.c: gemm(tiled_mma, acc, a, b), acc(_, i, j) += a(_, i, k) *
 * b(_, j, k) over every i, j and k, each step through the atom's emitter
 * (its catalog row): mma.sync on register fragments, or wgmma on shared
 * tiles (descriptors taken of each (64, K) or (N, K) atom tile of
 * partition_A/B) and, for the RS form, A's register fragment. */
#include "atom.h"

/* the static extent of each mode (rank <= 4) */
static int mode_sizes(Eval *e, const Value *t, int64_t *s)
{
    const LayLayout *L = view_layout(t);
    int r = lrank(L);
    if (r > 4) return -1;
    for (int i = 0; i < r; i++) {
        LayLayout m = lmode(L, i);
        if (!lsize(e, &m, &s[i])) return -1;
    }
    return r;
}

/* acc (values, MI, NI), a (values, MI[, K]), b (values, NI[, K]), the
 * values of each what the atom's TV layout gives one thread; A and B are
 * register fragments, or for an atom that reads them from shared memory
 * the shared partitions (atom tile, MI[, K]) */
static bool gemm_operands(Eval *e, const Node *call, MmaOperands *op)
{
    const Atom *mma = op->mma;
    const Value *ts[3] = {&op->c, &op->a, &op->b};
    static const char *what[3] = {"the accumulator", "the A fragment", "the B fragment"};
    ScalarType want[3] = {mma->acc, mma->ty, mma->tyb};
    bool smem[3] = {false, mma->info->smem_a, mma->info->smem_b};
    int64_t s[3][4] = {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}}, frg[3];
    static const int tvi[3] = {2, 0, 1};
    for (int i = 0; i < 3; i++) {
        LayLayout v = lmode(&mma->tv[tvi[i]], 1);
        if (!lsize(e, &v, &frg[i])) return false;
    }
    int rk[3];
    for (int i = 0; i < 3; i++) {
        rk[i] = mode_sizes(e, ts[i], s[i]);
        MemSpace space = smem[i] ? SPACE_SMEM : SPACE_RMEM;
        if (ts[i]->space != space || ts[i]->ty != want[i] || rk[i] < 2 || rk[i] > 3 || s[i][0] != frg[i]) {
            LayLayout v = lmode(&mma->tv[tvi[i]], 1);
            const char *vals = space == SPACE_SMEM ? lay_print_tuple(e->arena, v.shape)
                                                   : arena_printf(e->arena, "%lld", (long long)frg[i]);
            diag_error(
                e->diag, call->list.items[i + 1]->loc, "%s of 'gemm' must be %s of %s shaped (%s, %s), found %s%s",
                what[i], space == SPACE_SMEM ? "a shared partition (partition_A/B)" : "a register fragment",
                type_name(want[i]), vals,
                i == 0   ? "MI, NI"
                : i == 1 ? "MI[, K]"
                         : "NI[, K]",
                val_describe(e, ts[i]),
                rk[i] > 0 ? arena_printf(e->arena, " with layout %s", lay_print_value(e->arena, &ts[i]->lay)) : "");
            return false;
        }
    }
    op->MI = s[1][1];
    op->NI = s[2][1];
    op->K = s[1][2];
    if (rk[0] != 3 || s[0][1] != op->MI || s[0][2] != op->NI || s[2][2] != op->K) {
        diag_error(e->diag, call->loc,
                   "'gemm': the accumulator is (%lld, %lld, %lld) but A is (%lld, %lld, %lld) and B (%lld, %lld, %lld)",
                   (long long)s[0][0], (long long)s[0][1], (long long)s[0][2], (long long)frg[1], (long long)op->MI,
                   (long long)op->K, (long long)frg[2], (long long)op->NI, (long long)s[2][2]);
        return false;
    }
    return true;
}

Value b_gemm(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value mv = arg[0];
    if (mv.atom->kind != AK_MMA) {
        diag_error(e->diag, call->list.items[0]->loc, "'gemm' needs a tiled MMA, found %s", val_describe(e, &mv));
        return val_error();
    }
    MmaOperands op = {.mma = mv.atom,
                      .c = arg[1],
                      .a = arg[2],
                      .b = arg[3],
                      .aloc = call->list.items[2]->loc,
                      .bloc = call->list.items[3]->loc};
    if (!gemm_operands(e, call, &op)) return val_error();
    /* wgmmas of one gemm are one asm statement, as a loop of wgmma builtins is */
    bool group = mv.atom->info->smem_b && wgmma_group_open(e), ok = true;
    for (int64_t k = 0; ok && k < op.K; k++)
        for (int64_t i = 0; ok && i < op.MI; i++)
            for (int64_t j = 0; ok && j < op.NI; j++) ok = mv.atom->info->emit(e, &op, i, j, k, call->loc);
    if (group) sm90_wgmma_group_end(e);
    return ok ? (Value){.kind = V_VOID} : val_error();
}

/* mma.sync: the fragments' values in PTX's register order, 4 + 8 + 4 per atom */
bool mma_sync_emit(Eval *e, const MmaOperands *op, int64_t i, int64_t j, int64_t k, SrcLoc loc)
{
    return emit_mma16816(e, &op->c, 4 * (i + op->MI * j), &op->a, 8 * (i + op->MI * k), &op->b, 4 * (j + op->NI * k),
                         loc);
}

/* (values, X, Y[, ...]) -> its mode 0 at (_, x, y): one atom's part */
typedef struct Block {
    int64_t x, y;
} Block;

static bool block_of(Eval *e, const LayLayout *L, const void *ctx, LayLayout *out, LayInt *off, SrcLoc loc)
{
    const Block *b = ctx;
    int r = lrank(L);
    LayLayout mx = lmode(L, 1);
    if (!add_idx(e, lay_int_static(b->x), &mx, off, loc)) return false;
    if (r > 2) {
        LayLayout my = lmode(L, 2);
        if (!add_idx(e, lay_int_static(b->y), &my, off, loc)) return false;
    }
    *out = lmode(L, 0);
    return true;
}

static bool block(Eval *e, const Value *t, int64_t x, int64_t y, SrcLoc loc, Value *out)
{
    Block b = {x, y};
    return view_apply(e, *t, block_of, &b, loc, out);
}

/* wgmma SS: descriptors of the A and B atom tiles, the accumulators of
 * block (i, j); fused with the wgmmas around it where they form a group
 * (eval_wgmma.c).  A descriptor error names gemm's operand. */
bool wgmma_ss_emit(Eval *e, const MmaOperands *op, int64_t i, int64_t j, int64_t k, SrcLoc loc)
{
    Value a, b, c;
    if (!block(e, &op->a, i, k, loc, &a) || !block(e, &op->b, j, k, loc, &b) || !block(e, &op->c, i, j, loc, &c))
        return false;
    Value da = wgmma_desc(e, &a, op->aloc, "'gemm' (operand A)");
    if (da.kind == V_ERROR) return false;
    Value db = wgmma_desc(e, &b, op->bloc, "'gemm' (operand B)");
    if (db.kind == V_ERROR) return false;
    ScalarType ty[2] = {op->mma->ty, op->mma->tyb};
    return wgmma_issue(e, &c, op->mma->shp[1] / 2, NULL, da.llvm, db.llvm, (int)da.i, (int)db.i, ty, false);
}

/* wgmma RS: the A fragment's values of block (i, k) as four registers, a
 * descriptor of the B atom tile */
bool wgmma_rs_emit(Eval *e, const MmaOperands *op, int64_t i, int64_t j, int64_t k, SrcLoc loc)
{
    Value a, b, c;
    LLVMValueRef regs[4];
    if (!block(e, &op->a, i, k, loc, &a) || !block(e, &op->b, j, k, loc, &b) || !block(e, &op->c, i, j, loc, &c) ||
        !wgmma_pack_a(e, &a, regs))
        return false;
    Value db = wgmma_desc(e, &b, op->bloc, "'gemm' (operand B)");
    if (db.kind == V_ERROR) return false;
    ScalarType ty[2] = {op->mma->ty, op->mma->tyb};
    return wgmma_issue(e, &c, op->mma->shp[1] / 2, regs, NULL, db.llvm, 0, (int)db.i, ty, false);
}
