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
 * and m64nNk32 (thread t = 32w + 4g + c of the warpgroup): a descriptor
 * operand is the whole tile, which every thread names (stride 0: CuTe's
 * SS layouts); the accumulator value i of thread t is row 16w + g +
 * 8((i/2)%2), column 2c + i%2 + 8(i/4) (CuTe's CLayout_64xN); a register
 * A (RS) of P elements per 32-bit register (2 for 16-bit types, 4 for
 * fp8) holds value i at row 16w + g + 8((i/P)%2), k Pc + i%P + 4P(i/2P)
 * (CuTe's ALayout_64x16, and its k32 form for fp8). */
#define MMA_SYNC_TV                                                                                                    \
    {                                                                                                                  \
        "((4,8),(2,2,2)):((32,1),(16,8,128))", "((4,8),(2,2)):((16,1),(8,64))", "((4,8),(2,2)):((32,1),(16,8))"        \
    }
#define WGMMA_C_TV "((4,8,4),(2,2,V)):((128,1,16),(64,8,512))"
#define WGMMA_SS16_TV                                                                                                  \
    {                                                                                                                  \
        "(128,(64,16)):(0,(1,64))", "(128,(N,16)):(0,(1,N))", WGMMA_C_TV                                               \
    }
#define WGMMA_SS32_TV                                                                                                  \
    {                                                                                                                  \
        "(128,(64,32)):(0,(1,64))", "(128,(N,32)):(0,(1,N))", WGMMA_C_TV                                               \
    }
#define WGMMA_RS16_TV                                                                                                  \
    {                                                                                                                  \
        "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))", "(128,(N,16)):(0,(1,N))", WGMMA_C_TV                              \
    }
#define WGMMA_RS32_TV                                                                                                  \
    {                                                                                                                  \
        "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))", "(128,(N,32)):(0,(1,N))", WGMMA_C_TV                             \
    }

/* Rows of one name are one form (listed together in diagnostics): keep
 * them adjacent. */
static const MmaAtomInfo mma_atoms[] = {
    /* name, features, M, N from, N to (N a multiple of 8), K, A, B, accumulator, threads, A in shared
     * memory, B in shared memory, TV layouts, emitter */
    {"mma.sync.aligned.m16n8k16", F_SM80, 16, 8, 8, 16, TY_BF16, TY_BF16, TY_F32, 32, false, false, MMA_SYNC_TV,
     mma_sync_emit},
    {"mma.sync.aligned.m16n8k16", F_SM80, 16, 8, 8, 16, TY_F16, TY_F16, TY_F32, 32, false, false, MMA_SYNC_TV,
     mma_sync_emit},
    {"wgmma.mma_async m64nNk16 SS", F_WGMMA, 64, 8, 256, 16, TY_BF16, TY_BF16, TY_F32, 128, true, true, WGMMA_SS16_TV,
     wgmma_ss_emit},
    {"wgmma.mma_async m64nNk16 SS", F_WGMMA, 64, 8, 256, 16, TY_F16, TY_F16, TY_F32, 128, true, true, WGMMA_SS16_TV,
     wgmma_ss_emit},
    {"wgmma.mma_async m64nNk32 SS", F_WGMMA, 64, 8, 256, 32, TY_E4M3, TY_E4M3, TY_F32, 128, true, true, WGMMA_SS32_TV,
     wgmma_ss_emit},
    {"wgmma.mma_async m64nNk32 SS", F_WGMMA, 64, 8, 256, 32, TY_E4M3, TY_E5M2, TY_F32, 128, true, true, WGMMA_SS32_TV,
     wgmma_ss_emit},
    {"wgmma.mma_async m64nNk32 SS", F_WGMMA, 64, 8, 256, 32, TY_E5M2, TY_E4M3, TY_F32, 128, true, true, WGMMA_SS32_TV,
     wgmma_ss_emit},
    {"wgmma.mma_async m64nNk32 SS", F_WGMMA, 64, 8, 256, 32, TY_E5M2, TY_E5M2, TY_F32, 128, true, true, WGMMA_SS32_TV,
     wgmma_ss_emit},
    /* A from registers (mma_atom_rs) */
    {"wgmma.mma_async m64nNk16 RS", F_WGMMA, 64, 8, 256, 16, TY_BF16, TY_BF16, TY_F32, 128, false, true, WGMMA_RS16_TV,
     wgmma_rs_emit},
    {"wgmma.mma_async m64nNk16 RS", F_WGMMA, 64, 8, 256, 16, TY_F16, TY_F16, TY_F32, 128, false, true, WGMMA_RS16_TV,
     wgmma_rs_emit},
    {"wgmma.mma_async m64nNk32 RS", F_WGMMA, 64, 8, 256, 32, TY_E4M3, TY_E4M3, TY_F32, 128, false, true, WGMMA_RS32_TV,
     wgmma_rs_emit},
    {"wgmma.mma_async m64nNk32 RS", F_WGMMA, 64, 8, 256, 32, TY_E4M3, TY_E5M2, TY_F32, 128, false, true, WGMMA_RS32_TV,
     wgmma_rs_emit},
    {"wgmma.mma_async m64nNk32 RS", F_WGMMA, 64, 8, 256, 32, TY_E5M2, TY_E4M3, TY_F32, 128, false, true, WGMMA_RS32_TV,
     wgmma_rs_emit},
    {"wgmma.mma_async m64nNk32 RS", F_WGMMA, 64, 8, 256, 32, TY_E5M2, TY_E5M2, TY_F32, 128, false, true, WGMMA_RS32_TV,
     wgmma_rs_emit},
};

static const CopyAtomInfo copy_atoms[] = {
    /* name, op, features, bytes moved (bit set), ldmatrix's matrices (bit set), the rule, emitter */
    {"universal", OP_UNIVERSAL, 0, 1u << 1 | 1u << 2 | 1u << 4 | 1u << 8 | 1u << 16, 0, "moves 1, 2, 4, 8 or 16 bytes",
     copy_universal_emit},
    {"cp.async", OP_CP_ASYNC, F_SM80, 1u << 4 | 1u << 8 | 1u << 16, 0, "copies 4, 8 or 16 bytes", copy_cp_async_emit},
    {"ldmatrix", OP_LDSM, F_SM80, 0, 1u << 1 | 1u << 2 | 1u << 4, "loads 1, 2 or 4 matrices of a 16-bit type",
     copy_ldmatrix_emit},
};

#define COUNT(a) (sizeof a / sizeof a[0])

static bool n_fits(const MmaAtomInfo *r, int64_t n) { return n >= r->n_min && n <= r->n_max && n % 8 == 0; }

/* the form mma_atom_rs names: A from registers, B from shared memory */
static bool is_rs(const MmaAtomInfo *r) { return !r->smem_a && r->smem_b; }

/* "mma_atom(16, 8, 16, bf16 or f16) (mma.sync..., f32 accumulators); ...":
 * one entry per form (adjacent rows of one name), B's types in brackets
 * where they may differ from A's */
static const char *mma_forms(Eval *e)
{
    const char *s = "";
    for (size_t i = 0; i < COUNT(mma_atoms); i++) {
        const MmaAtomInfo *r = &mma_atoms[i];
        if (i > 0 && strcmp(mma_atoms[i - 1].name, r->name) == 0) continue;
        const char *ta = "", *tb = "";
        bool mixed = false;
        for (size_t j = i; j < COUNT(mma_atoms) && strcmp(mma_atoms[j].name, r->name) == 0; j++) {
            bool new_a = true, new_b = true; /* each type once: "bf16 or f16" */
            for (size_t q = i; q < j; q++) {
                new_a = new_a && mma_atoms[q].a != mma_atoms[j].a;
                new_b = new_b && mma_atoms[q].b != mma_atoms[j].b;
            }
            if (new_a)
                ta =
                    *ta ? arena_printf(e->arena, "%s or %s", ta, type_name(mma_atoms[j].a)) : type_name(mma_atoms[j].a);
            if (new_b)
                tb =
                    *tb ? arena_printf(e->arena, "%s or %s", tb, type_name(mma_atoms[j].b)) : type_name(mma_atoms[j].b);
            mixed = mixed || mma_atoms[j].a != mma_atoms[j].b;
        }
        const char *types = mixed ? arena_printf(e->arena, "%s[, %s]", ta, tb) : ta;
        const char *n = r->n_min == r->n_max ? arena_printf(e->arena, "%lld", (long long)r->n_min) : "N";
        const char *range = r->n_min == r->n_max ? ""
                                                 : arena_printf(e->arena, ", N = %lld..%lld step 8",
                                                                (long long)r->n_min, (long long)r->n_max);
        s = arena_printf(e->arena, "%s%s%s(%lld, %s, %lld, %s) (%s%s, %s accumulators)", s, i ? "; " : "",
                         is_rs(r) ? "mma_atom_rs" : "mma_atom", (long long)r->m, n, (long long)r->k, types, r->name,
                         range, type_name(r->c));
    }
    return s;
}

const MmaAtomInfo *mma_atom_find(Eval *e, const Node *call, bool rs, int64_t m, int64_t n, int64_t k, ScalarType ta,
                                 ScalarType tb)
{
    for (size_t i = 0; i < COUNT(mma_atoms); i++) {
        const MmaAtomInfo *r = &mma_atoms[i];
        if (is_rs(r) != rs || r->m != m || r->k != k || r->a != ta || r->b != tb || !n_fits(r, n)) continue;
        const char *what = arena_printf(e->arena, "the MMA atom m%lldn%lldk%lld (%s)", (long long)m, (long long)n,
                                        (long long)k, r->name);
        return builtin_target_has(e, call->loc, what, r->features) ? r : NULL;
    }
    const char *types = ta == tb ? type_name(ta) : arena_printf(e->arena, "%s x %s", type_name(ta), type_name(tb));
    diag_error(e->diag, call->loc, "no %sMMA atom m%lldn%lldk%lld for %s; available: %s", rs ? "register-A " : "",
               (long long)m, (long long)n, (long long)k, types, mma_forms(e));
    return NULL;
}

const CopyAtomInfo *copy_atom_find(CopyOp op)
{
    for (size_t i = 0; i < COUNT(copy_atoms); i++)
        if (copy_atoms[i].op == op) return &copy_atoms[i];
    return NULL;
}
