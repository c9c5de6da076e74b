/* atom.h: what the atom files share (atom_catalog.c, atom_make.c,
 * atom_layout.c, atom_partition.c, atom_gemm.c, atom_copy.c): the atom
 * value, the per-architecture catalogs of MMA and copy atoms, and the
 * layout helpers that partitioning is made of.
 *
 * An atom knows its instruction and its thread-value (TV) layouts: for an
 * MMA, (thread, value) -> column-major index in the atom's A (M x K), B
 * (N x K) and C (M x N) tiles; for a tiled copy, (thread, value) -> index
 * in the copy's tile.  Partitioning a tensor by an atom is layout algebra
 * only (logical_divide, composition with the TV layout, a slice at the
 * thread), so the views it returns index memory through lay_crd2idx like
 * every other view, and the copy and gemm loops only walk flat indices. */
#ifndef CUTEC_ATOM_H
#define CUTEC_ATOM_H

#include "builtins.h"
#include "eval.h"

typedef enum AtomKind { AK_MMA, AK_COPY, AK_TILED_COPY, AK_LDSM_COPY } AtomKind;
typedef enum CopyOp { OP_UNIVERSAL, OP_CP_ASYNC, OP_LDSM } CopyOp;

typedef struct Atom Atom;
typedef struct MmaAtomInfo MmaAtomInfo;
typedef struct CopyAtomInfo CopyAtomInfo;

/* gemm's operands, checked against the atom (atom_gemm.c): acc (values,
 * MI, NI), a (values or the atom's A tile, MI, K), b (..., NI, K); where
 * the user wrote a and b, for diagnostics */
typedef struct MmaOperands {
    const Atom *mma;
    Value c, a, b;
    int64_t MI, NI, K;
    SrcLoc aloc, bloc;
} MmaOperands;

/* One atom's instruction for block (i, j) and k-step k of gemm's operands. */
typedef bool (*MmaEmitFn)(Eval *e, const MmaOperands *op, int64_t i, int64_t j, int64_t k, SrcLoc loc);

/* An MMA atom of the catalog (atom_catalog.c).  The TV layouts are
 * CuTe's, written in its notation; in them N stands for the atom's N and
 * V for N / 8 (wgmma's N is any multiple of 8 in n_min..n_max). */
struct MmaAtomInfo {
    const char *name;  /* the PTX instruction, for descriptions */
    unsigned features; /* CUTEC_FEAT_* the target needs */
    int64_t m, n_min, n_max, k;
    ScalarType a, b, c;  /* A's and B's input types, the accumulator type */
    int nthr;            /* threads that issue one atom: a warp, a warpgroup */
    bool smem_a, smem_b; /* the operand read from shared memory (a wgmma descriptor), else a register fragment */
    const char *tv[3];   /* A, B, C */
    MmaEmitFn emit;
};

/* copy one vector (or one ldmatrix) of a copy's elements i .. (atom_copy.c) */
typedef struct CopyStep {
    const Atom *atom;
    const Value *src, *dst;
    int64_t i;           /* flat index of the first element (ldmatrix: the source element) */
    LLVMValueRef ps, pd; /* their addresses (ldmatrix: ps only) */
    LLVMValueRef ok;     /* the in-bounds predicate, NULL if all are in bounds */
} CopyStep;
typedef bool (*CopyEmitFn)(Eval *e, const CopyStep *st, SrcLoc loc);

/* A copy atom of the catalog: the sizes it moves and the emitter of one
 * instruction (the op is the constructor's, builtins.c). */
struct CopyAtomInfo {
    const char *name; /* in descriptions */
    CopyOp op;
    unsigned features;
    unsigned bytes;   /* bit b set: moves b bytes at once (0: counted in matrices) */
    unsigned counts;  /* bit n set: n 8x8 matrices of a 16-bit type (ldmatrix) */
    const char *rule; /* the sizes, for the diagnostic */
    CopyEmitFn emit;
};

struct Atom {
    AtomKind kind;
    ScalarType ty, acc; /* element type (an MMA's A type); MMA accumulator type */
    ScalarType tyb;     /* an MMA's B type (fp8 wgmma: may differ from A's) */
    /* MMA (an atom is a tiled MMA of 1 x 1 warps or warpgroups) */
    const MmaAtomInfo *info;
    int64_t shp[3];   /* atom M, N, K */
    LayLayout tv[3];  /* A, B, C: (thread, value) -> column-major index in the atom tile */
    int64_t warps[2]; /* atoms (warps, warpgroups) along M and N (column-major) */
    /* copies */
    const CopyAtomInfo *cinfo;
    CopyOp op;
    int vec; /* elements per instruction (ldmatrix: registers, 1/2/4) */
    bool trans;
    LayLayout ctv;  /* tiled copy: (thread, value) -> column-major index in the tile */
    LayTuple *tile; /* tiled copy: the tile shape */
    int64_t nthr;
    const struct Atom *mma; /* ldmatrix copy: the tiled MMA it feeds and which operand */
    int operand;            /* 0 = A, 1 = B */
};

/* the catalogs (atom_catalog.c): the atom for the call's arguments on the
 * target (rs: A from registers, B from shared memory; mma_atom_rs), or
 * NULL with a diagnostic (no such atom; the target lacks it) */
const MmaAtomInfo *mma_atom_find(Eval *e, const Node *call, bool rs, int64_t m, int64_t n, int64_t k, ScalarType ta,
                                 ScalarType tb);
const CopyAtomInfo *copy_atom_find(CopyOp op);

/* the emitters the catalogs point to */
bool mma_sync_emit(Eval *e, const MmaOperands *op, int64_t i, int64_t j, int64_t k, SrcLoc loc); /* atom_gemm.c */
bool wgmma_ss_emit(Eval *e, const MmaOperands *op, int64_t i, int64_t j, int64_t k, SrcLoc loc); /* atom_gemm.c */
bool wgmma_rs_emit(Eval *e, const MmaOperands *op, int64_t i, int64_t j, int64_t k, SrcLoc loc);
bool copy_universal_emit(Eval *e, const CopyStep *st, SrcLoc loc); /* atom_copy.c */
bool copy_cp_async_emit(Eval *e, const CopyStep *st, SrcLoc loc);
bool copy_ldmatrix_emit(Eval *e, const CopyStep *st, SrcLoc loc);

/* layout helpers (atom_layout.c) */
int lrank(const LayLayout *L);
LayLayout lmode(const LayLayout *L, int i);
LayLayout lmake(Eval *e, int n, const LayLayout *m);
bool lsize(Eval *e, const LayLayout *L, int64_t *n);
/* a layout function of the algebra on layouts (and integers) */
bool lcall(Eval *e, const char *fn, const LayValue *args, int n, LayValue *out, SrcLoc loc);
/* logical_divide(m, k) = (the first k elements, the rest) */
bool ldivide(Eval *e, const LayLayout *m, int64_t k, LayLayout *inner, LayLayout *rest, SrcLoc loc);
/* *off += L(crd) */
bool add_idx(Eval *e, LayInt crd, const LayLayout *L, LayInt *off, SrcLoc loc);
/* "((4,8),(2,2,2)):((32,1),(16,8,128))" -> a layout; N and V in it stand
 * for n and n / 8 */
LayLayout parse_layout(Eval *e, const char *s, int64_t n);
/* the layout of a tensor view (the outer layout of a swizzled one) */
const LayLayout *view_layout(const Value *t);
/* Apply a layout transformation to a tensor view: the plain layout, the
 * outer layout of a swizzled one, and every coordinate component of an
 * identity tensor; what fn moves into the offset goes to toff, inside the
 * swizzle, or to the component's offset. */
typedef bool (*ViewFn)(Eval *e, const LayLayout *in, const void *ctx, LayLayout *out, LayInt *off, SrcLoc loc);
bool view_apply(Eval *e, Value t, ViewFn fn, const void *ctx, SrcLoc loc, Value *out);

#endif
