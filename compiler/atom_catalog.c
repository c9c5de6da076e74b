/* atom_catalog.c: the MMA and copy atoms each architecture has, as tables.
 * A row is one instruction form: the features it needs (contract/arch.h),
 * its shape and types, its thread-value layouts (CuTe's, in CuTe's
 * notation) and the emitter that gemm() or copy() calls for one instance.
 * mma_atom(...) and the copy_atom_*(...) constructors look rows up here; a
 * form the target lacks is a source diagnostic.  Adding an atom is a row
 * (and, for a new instruction, its emitter). */
#include <string.h>

#include "arch.h"
#include "atom.h"

enum { F_SM80 = CUTEC_FEAT_SM80, F_WGMMA = CUTEC_FEAT_WGMMA };

/* PTX's fragment layouts (the ISA's figures), value order = register
 * order.  mma.sync m16n8k16 (lane l = 4g + c): a0..a3 hold (row g, col
 * 2c..), (g+8, 2c), (g, 2c+8), (g+8, 2c+8); b0, b1 hold (k 2c.., n g),
 * (k 2c+8.., n g); c0..c3 hold (g, 2c..), (g+8, 2c..).  wgmma m64nNk16
 * (thread t = 32w + 4g + c of the warpgroup): A and B are descriptors of
 * the whole tile, which every thread names (stride 0: CuTe's SS layouts);
 * the accumulator value i of thread t is row 16w + g + 8((i/2)%2), column
 * 2c + i%2 + 8(i/4) (CuTe's CLayout_64xN). */
#define MMA_SYNC_TV                                                                                                    \
    {                                                                                                                  \
        "((4,8),(2,2,2)):((32,1),(16,8,128))", "((4,8),(2,2)):((16,1),(8,64))", "((4,8),(2,2)):((32,1),(16,8))"        \
    }
#define WGMMA_SS_TV                                                                                                    \
    {                                                                                                                  \
        "(128,(64,16)):(0,(1,64))", "(128,(N,16)):(0,(1,N))", "((4,8,4),(2,2,V)):((128,1,16),(64,8,512))"              \
    }

static const MmaAtomInfo mma_atoms[] = {
    /* name, features, M, N from, N to (N a multiple of 8), K, inputs, accumulator, threads, A and B in
     * shared memory, TV layouts, emitter */
    {"mma.sync.aligned.m16n8k16", F_SM80, 16, 8, 8, 16, TY_BF16, TY_F32, 32, false, MMA_SYNC_TV, mma_sync_emit},
    {"mma.sync.aligned.m16n8k16", F_SM80, 16, 8, 8, 16, TY_F16, TY_F32, 32, false, MMA_SYNC_TV, mma_sync_emit},
    {"wgmma.mma_async m64nNk16 SS", F_WGMMA, 64, 8, 256, 16, TY_BF16, TY_F32, 128, true, WGMMA_SS_TV, wgmma_ss_emit},
    {"wgmma.mma_async m64nNk16 SS", F_WGMMA, 64, 8, 256, 16, TY_F16, TY_F32, 128, true, WGMMA_SS_TV, wgmma_ss_emit},
};

static const CopyAtomInfo copy_atoms[] = {
    /* constructor, name, op, features, bytes moved (bit set), ldmatrix's matrices (bit set), the rule, emitter */
    {"copy_atom_universal", "universal", OP_UNIVERSAL, 0, 1u << 1 | 1u << 2 | 1u << 4 | 1u << 8 | 1u << 16, 0,
     "moves 1, 2, 4, 8 or 16 bytes", copy_universal_emit},
    {"copy_atom_cp_async", "cp.async", OP_CP_ASYNC, F_SM80, 1u << 4 | 1u << 8 | 1u << 16, 0, "copies 4, 8 or 16 bytes",
     copy_cp_async_emit},
    {"copy_atom_ldmatrix", "ldmatrix", OP_LDSM, F_SM80, 0, 1u << 1 | 1u << 2 | 1u << 4,
     "loads 1, 2 or 4 matrices of a 16-bit type", copy_ldmatrix_emit},
};

#define COUNT(a) (sizeof a / sizeof a[0])

static bool n_fits(const MmaAtomInfo *r, int64_t n) { return n >= r->n_min && n <= r->n_max && n % 8 == 0; }

/* "mma_atom(16, 8, 16, bf16 or f16) (mma.sync...), ...": the forms, rows
 * that differ only in their input type joined */
static const char *mma_forms(Eval *e)
{
    const char *s = "";
    for (size_t i = 0; i < COUNT(mma_atoms); i++) {
        const MmaAtomInfo *r = &mma_atoms[i];
        if (i > 0 && strcmp(mma_atoms[i - 1].name, r->name) == 0) continue;
        const char *types = type_name(r->ab);
        for (size_t j = i + 1; j < COUNT(mma_atoms) && strcmp(mma_atoms[j].name, r->name) == 0; j++)
            types = arena_printf(e->arena, "%s or %s", types, type_name(mma_atoms[j].ab));
        const char *n = r->n_min == r->n_max ? arena_printf(e->arena, "%lld", (long long)r->n_min) : "N";
        const char *range = r->n_min == r->n_max ? ""
                                                 : arena_printf(e->arena, ", N = %lld..%lld step 8",
                                                                (long long)r->n_min, (long long)r->n_max);
        s = arena_printf(e->arena, "%s%smma_atom(%lld, %s, %lld, %s) (%s%s, %s accumulators)", s, i ? "; " : "",
                         (long long)r->m, n, (long long)r->k, types, r->name, range, type_name(r->c));
    }
    return s;
}

const MmaAtomInfo *mma_atom_find(Eval *e, const Node *call, int64_t m, int64_t n, int64_t k, ScalarType ty)
{
    for (size_t i = 0; i < COUNT(mma_atoms); i++) {
        const MmaAtomInfo *r = &mma_atoms[i];
        if (r->m != m || r->k != k || r->ab != ty || !n_fits(r, n)) continue;
        const char *what = arena_printf(e->arena, "the MMA atom m%lldn%lldk%lld (%s)", (long long)m, (long long)n,
                                        (long long)k, r->name);
        return builtin_target_has(e, call->loc, what, r->features) ? r : NULL;
    }
    diag_error(e->diag, call->loc, "no MMA atom m%lldn%lldk%lld for %s; available: %s", (long long)m, (long long)n,
               (long long)k, type_name(ty), mma_forms(e));
    return NULL;
}

const CopyAtomInfo *copy_atom_find(const char *builtin)
{
    for (size_t i = 0; i < COUNT(copy_atoms); i++)
        if (strcmp(copy_atoms[i].builtin, builtin) == 0) return &copy_atoms[i];
    return NULL;
}
