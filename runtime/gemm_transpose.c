/*
 * gemm_transpose.c - a column-major output computed as its row-major
 * transpose.  D = A B with D column-major is, in the same memory, the
 * row-major N x M matrix D^T = B^T A^T: the operands trade places (B's
 * storage read as the left operand, A's as the right), M and N trade, and
 * so do everything indexed by a row or by a column of D (a bias per column
 * becomes a bias per row, row-wise scales of A become those of B).  The
 * pack kernels write row-major D (their store paths and tensor maps are
 * built for it), so this one rewrite lets every one of them serve the
 * column-major outputs too; cuBLASLt computes either form as fast.
 */
#include "gemm_internal.h"

static cutec_layout flip(cutec_layout l) { return l == CUTEC_LAYOUT_ROW ? CUTEC_LAYOUT_COL : CUTEC_LAYOUT_ROW; }

#define SWAP(T, a, b)                                                                                                  \
    do {                                                                                                               \
        T swap_tmp_ = (a);                                                                                             \
        (a) = (b);                                                                                                     \
        (b) = swap_tmp_;                                                                                               \
    } while (0)

int cutec_gemm_transpose_output(cutec_gemm_problem *p, cutec_gemm_args *io)
{
    /* a gated output pairs columns of D (not rows), block-wise scales are
     * laid out per operand (A's per row and K block, B's per 128 x 128
     * block): neither has a transposed form */
    if (p->c_layout != CUTEC_LAYOUT_COL || p->act_gated || p->scale_mode == CUTEC_SCALE_BLOCK) return 0;
    /* A (M x K) stored row-major is, as the right operand of the
     * transpose, K x M column-major, and the other way round */
    cutec_layout la = p->a_layout, lb = p->b_layout;
    p->a_layout = flip(lb);
    p->b_layout = flip(la);
    p->c_layout = CUTEC_LAYOUT_ROW;
    SWAP(long long, p->m, p->n);
    SWAP(cutec_dtype, p->a_type, p->b_type);
    SWAP(long long, p->lda, p->ldb);
    SWAP(long long, p->stride_a, p->stride_b); /* a batch's steps; C's and D's stay */
    SWAP(int, p->bias, p->bias_row);
    SWAP(const void *, io->A, io->B);
    SWAP(const void *, io->bias, io->bias_row);
    SWAP(const float *, io->scale_a, io->scale_b);
    return 1;
}
