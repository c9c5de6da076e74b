/* builtins.c: the builtin table (builtins.h), the argument checker and the
 * call dispatch. */
#include "builtins.h"

#include <string.h>

#include "arch.h"
#include "atom.h"
#include "codegen.h"
#include "math_ir.h"
#include "program.h"

enum {
    F_SM80 = CUTEC_FEAT_SM80,
    F_SM90 = CUTEC_FEAT_SM90,
    F_TMA = CUTEC_FEAT_TMA,
    F_CLUSTER = CUTEC_FEAT_CLUSTER,
    F_WGMMA = CUTEC_FEAT_WGMMA,
    F_NREG = CUTEC_FEAT_SETMAXNREG,
    F_TMAP = CUTEC_FEAT_TMAP_REPLACE,
};

/* Argument lists (c3c's habit): ARGS(kinds...) or NOARGS. */
#define ARGS(...) ((const BuiltinArg[]){__VA_ARGS__, BA_END})
#define NOARGS    ((const BuiltinArg[]){BA_END})
#define OPT(k)    ((BuiltinArg)((k) | BA_OPT))
enum { K = true, P = true }; /* K: kernels only; P: pure */
/* The predicates of the predicated stores: the handler evaluates them in
 * its own order (a list in parentheses is combined in the PTX), up to 8. */
#define PREDS8 BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE

/* name, handler, features, pure (emits nothing with side effects, so a
 * fused wgmma group may evaluate it in place: eval_wgmma.c), arguments,
 * kernels only, the handler's op where rows share one (builtins.h) */
static const Builtin table[] = {
    /* eval_builtin.c: barriers, math, integer helpers */
    {"sync", b_sync, 0, false, NOARGS, K, 0},
    {"min", b_minmax, 0, P, ARGS(BA_RVALUE, BA_RVALUE), false, '<'},
    {"max", b_minmax, 0, P, ARGS(BA_RVALUE, BA_RVALUE), false, '>'},
    {"abs", b_abs, 0, false, ARGS(BA_RVALUE), false, 0},
    {"sqrt", b_sqrt, 0, false, ARGS(BA_RVALUE), false, 0},
    {"fma", b_fma, 0, false, ARGS(BA_RVALUE, BA_RVALUE, BA_RVALUE), false, 0},
    {"ceil_div", b_ceil_div, 0, P, ARGS(BA_RVALUE, BA_RVALUE), false, 0},
    {"select", b_select, 0, P, ARGS(BA_RVALUE, BA_RVALUE, BA_RVALUE), false, 0},
    {"sizeof", b_sizeof, 0, false, ARGS(BA_TYPE), false, 0},
    /* eval_math.c: math for epilogues, exact (math_ir.c) and fast forms */
    {"exp", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_EXP},
    {"exp2", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_EXP2},
    {"log", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_LOG},
    {"tanh", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_TANH},
    {"erf", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_ERF},
    {"sigmoid", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_SIGMOID},
    {"rsqrt", b_rsqrt, 0, P, ARGS(BA_RVALUE), false, 0},
    {"clamp", b_clamp, 0, P, ARGS(BA_RVALUE, BA_RVALUE, BA_RVALUE), false, 0},
    {"fast_exp", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_EXP | BOP_FAST},
    {"fast_exp2", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_EXP2 | BOP_FAST},
    {"fast_log", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_LOG | BOP_FAST},
    {"fast_tanh", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_TANH | BOP_FAST},
    {"fast_sigmoid", b_math, 0, P, ARGS(BA_RVALUE), false, MATH_SIGMOID | BOP_FAST},
    {"fast_rsqrt", b_rsqrt, 0, P, ARGS(BA_RVALUE), false, BOP_FAST},
    /* eval_tensor.c: tensors, views, sm_80 copies and MMAs */
    {"make_identity_tensor", b_make_identity_tensor, 0, false, ARGS(BA_RVALUE), false, 0},
    /* a tile coordinate written in place may hold `_` */
    {"local_tile", b_local_tile, 0, false, ARGS(BA_TENSOR, BA_RVALUE, BA_NODE), false, 0},
    {"local_partition", b_local_partition, 0, false, ARGS(BA_TENSOR, BA_RVALUE, BA_RVALUE), false, 0},
    {"fill", b_fill, 0, false, ARGS(BA_TENSOR, BA_RVALUE), K, 0},
    /* copy(dst, src) or copy(tiled_copy, src, dst) */
    {"copy", b_copy, 0, false, ARGS(BA_EXPR, BA_TENSOR, OPT(BA_TENSOR)), K, 0},
    {"mma_m16n8k16", b_mma_m16n8k16, F_SM80, false, ARGS(BA_TENSOR, BA_TENSOR, BA_TENSOR), K, 0},
    {"ldmatrix", b_ldmatrix, F_SM80, false, ARGS(BA_TENSOR, BA_SMEM, OPT(BA_CONST_BOOL)), K, 0},
    /* the shared address is taken where the instruction is emitted */
    {"cp_async", b_cp_async, F_SM80, false, ARGS(BA_EXPR, BA_EXPR, BA_RVALUE, OPT(BA_RVALUE)), K, 0},
    {"cp_async_commit", b_cp_async_commit, F_SM80, false, NOARGS, K, 0},
    {"cp_async_wait", b_cp_async_wait, F_SM80, false, ARGS(BA_RVALUE), K, 0},
    {"store_vector", b_vector_access, 0, false, ARGS(BA_EXPR, BA_TENSOR, OPT(BA_NODE), PREDS8), K, BOP_STORE},
    /* load_vector(frag, src[, pred]) evaluates src first */
    {"load_vector", b_vector_access, 0, false, ARGS(BA_NODE, BA_NODE, OPT(BA_NODE)), K, BOP_LOAD},
    {"store_if", b_store_if, 0, false,
     ARGS(BA_EXPR, BA_EXPR, BA_NODE, OPT(BA_NODE), BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE), K, 0},
    /* eval_sm90.c: mbarriers, TMA loads, clusters, named barriers; eval_wgmma.c: wgmma, setmaxnreg */
    {"mbar_init", b_mbar_init, F_SM80, false, ARGS(BA_SMEM, BA_INT), K, 0},
    {"mbar_arrive", b_mbar_arrive, F_SM80, false, ARGS(BA_SMEM), K, 0},
    {"mbar_arrive_tx", b_mbar_arrive_tx, F_TMA, false, ARGS(BA_SMEM, BA_INT), K, 0},
    {"mbar_wait", b_mbar_wait, F_SM90, false, ARGS(BA_SMEM, BA_INT), K, 0},
    {"fence_barrier_init", b_fence_barrier_init, F_CLUSTER, false, NOARGS, K, 0},
    {"fence_proxy_async", b_fence_proxy_async, F_SM90, false, NOARGS, K, 0},
    /* tma_load(dst, tmap, mbar, c0, c1[, c2]), tma_load_mc(dst, tmap, mbar, c0, c1[, c2], mask): one coordinate
     * per map dimension, which the handler checks */
    {"tma_load", b_tma_load, F_TMA, false, ARGS(BA_SMEM, BA_TMAP, BA_SMEM, BA_INT, BA_INT, OPT(BA_INT)), K, 0},
    {"tma_load_mc", b_tma_load_mc, F_TMA | F_CLUSTER, false,
     ARGS(BA_SMEM, BA_TMAP, BA_SMEM, BA_INT, BA_INT, BA_INT, OPT(BA_INT)), K, 0},
    {"tma_prefetch", b_tma_prefetch, F_TMA, false, ARGS(BA_TMAP), K, 0},
    /* smem_desc(view, row, k): the coordinates index the view */
    {"smem_desc", b_smem_desc, F_WGMMA, P, ARGS(BA_EXPR, BA_NODE, BA_NODE), K, 0},
    /* wgmma(acc, A, B, T[, TB[, ACCUMULATE]]) */
    {"wgmma", b_wgmma, F_WGMMA, false, ARGS(BA_EXPR, BA_EXPR, BA_RVALUE, BA_TYPE, OPT(BA_TYPE), BA_RVALUE), K, 0},
    {"wgmma_fence", b_wgmma_fence_wait, F_WGMMA, false, ARGS(BA_EXPR, OPT(BA_EXPR)), K, BOP_FENCE},
    {"wgmma_commit", b_wgmma_commit, F_WGMMA, false, NOARGS, K, 0},
    {"wgmma_wait", b_wgmma_fence_wait, F_WGMMA, false, ARGS(BA_RVALUE, BA_EXPR, OPT(BA_EXPR)), K, BOP_WAIT},
    {"setmaxnreg_inc", b_setmaxnreg, F_NREG, false, ARGS(BA_RVALUE), K, BOP_INC},
    {"setmaxnreg_dec", b_setmaxnreg, F_NREG, false, ARGS(BA_RVALUE), K, BOP_DEC},
    {"elect_one", b_elect_one, F_SM90, false, NOARGS, K, 0},
    {"bar_sync", b_named_barrier, 0, false, ARGS(BA_INT, BA_INT), K, BOP_BAR_SYNC},
    {"bar_arrive", b_named_barrier, 0, false, ARGS(BA_INT, BA_INT), K, BOP_BAR_ARRIVE},
    {"cluster_rank", b_cluster_rank, F_CLUSTER, false, NOARGS, K, 0},
    {"cluster_sync", b_cluster_sync, F_CLUSTER, false, NOARGS, K, 0},
    {"mbar_arrive_cluster", b_mbar_arrive_cluster, F_CLUSTER, false, ARGS(BA_SMEM, BA_INT), K, 0},
    /* eval_sm90_store.c: the TMA-store epilogue */
    {"stmatrix", b_stmatrix, F_SM90, false, ARGS(BA_SMEM, BA_EXPR, OPT(BA_CONST_BOOL)), K, 0},
    /* tma_store(tmap, src, c0, c1[, c2]) */
    {"tma_store", b_tma_store, F_TMA, false, ARGS(BA_TMAP, BA_SMEM, BA_INT, BA_INT, OPT(BA_INT)), K, 0},
    {"tma_store_commit", b_tma_store_commit, F_TMA, false, NOARGS, K, 0},
    {"tma_store_wait", b_tma_store_wait, F_TMA, false, ARGS(BA_RVALUE), K, 0},
    /* eval_tmap.c: tensor maps patched on the device; slot = the first of 16 i64 elements of global memory */
    {"tmap_copy", b_tmap_copy, F_TMA | F_TMAP, false, ARGS(BA_EXPR, BA_TMAP), K, 0},
    {"tmap_replace_address", b_tmap_replace, F_TMA | F_TMAP, false, ARGS(BA_EXPR, BA_RVALUE), K, BOP_TMAP_ADDRESS},
    {"tmap_replace_dim", b_tmap_replace, F_TMA | F_TMAP, false, ARGS(BA_EXPR, BA_CONST_INT, BA_RVALUE), K,
     BOP_TMAP_DIM},
    {"tmap_replace_stride", b_tmap_replace, F_TMA | F_TMAP, false, ARGS(BA_EXPR, BA_CONST_INT, BA_RVALUE), K,
     BOP_TMAP_STRIDE},
    {"tmap_publish", b_tmap_publish, F_TMA | F_TMAP, false, ARGS(BA_EXPR, BA_EXPR), K, 0},
    {"tmap_release", b_tmap_release, F_TMA | F_TMAP, false, NOARGS, K, 0},
    {"tmap_acquire", b_tmap_acquire, F_TMA | F_TMAP, false, ARGS(BA_EXPR), K, 0},
    {"tmap_at", b_tmap_at, F_TMA | F_TMAP, false, ARGS(BA_TMAP, BA_EXPR), K, 0},
    /* eval_atomic.c: the address is taken after the value is converted */
    {"atomic_add", b_atomic, 0, false, ARGS(BA_EXPR, BA_RVALUE), K, BOP_ATOMIC_ADD},
    {"atomic_max", b_atomic, 0, false, ARGS(BA_EXPR, BA_RVALUE), K, BOP_ATOMIC_MAX},
    {"warp_max", b_warp_max, 0, false, ARGS(BA_RVALUE), K, 0},
    {"fence_gpu", b_fence_gpu, 0, false, NOARGS, K, 0},
    /* atom_make.c, atom_partition.c, atom_gemm.c, atom_copy.c: copy and MMA
     * atoms, tiled copies and MMAs; the features an atom needs are its
     * catalog row's (atom_catalog.c) */
    /* mma_atom(M, N, K, TA[, TB]) */
    {"mma_atom", b_mma_atom, 0, false, ARGS(BA_CONST_INT, BA_CONST_INT, BA_CONST_INT, BA_TYPE, OPT(BA_TYPE)), false, 0},
    {"mma_atom_rs", b_mma_atom, 0, false, ARGS(BA_CONST_INT, BA_CONST_INT, BA_CONST_INT, BA_TYPE, OPT(BA_TYPE)), false,
     BOP_RS},
    {"make_tiled_mma", b_make_tiled_mma, 0, false, ARGS(BA_ATOM, BA_RVALUE), false, 0},
    {"copy_atom_universal", b_copy_atom, 0, false, ARGS(BA_TYPE, BA_CONST_INT), false, OP_UNIVERSAL},
    {"copy_atom_cp_async", b_copy_atom, 0, false, ARGS(BA_TYPE, BA_CONST_INT), false, OP_CP_ASYNC},
    {"copy_atom_ldmatrix", b_copy_atom, 0, false, ARGS(BA_TYPE, BA_CONST_INT, OPT(BA_CONST_BOOL)), false, OP_LDSM},
    {"make_tiled_copy", b_make_tiled_copy, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_RVALUE), false, 0},
    {"make_tiled_copy_A", b_make_tiled_copy_op, 0, false, ARGS(BA_ATOM, BA_ATOM), false, 0},
    {"make_tiled_copy_B", b_make_tiled_copy_op, 0, false, ARGS(BA_ATOM, BA_ATOM), false, 1},
    {"partition_A", b_partition_mma, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false, 0},
    {"partition_B", b_partition_mma, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false, 1},
    {"partition_C", b_partition_mma, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false, 2},
    {"partition_S", b_partition_copy, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false, 1},
    {"partition_D", b_partition_copy, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false, 0},
    {"make_fragment_like", b_make_fragment_like, 0, false, ARGS(BA_TENSOR, OPT(BA_TYPE)), K, 0},
    {"gemm", b_gemm, 0, false, ARGS(BA_ATOM, BA_TENSOR, BA_TENSOR, BA_TENSOR), K, 0},
    {"copy_if", b_copy_if, 0, false, ARGS(BA_ATOM, BA_TENSOR, BA_RVALUE, BA_TENSOR, BA_TENSOR), K, 0},
};

const Builtin *builtin_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0) return &table[i];
    return NULL;
}

bool builtin_exists(const char *name) { return builtin_find(name) != NULL; }

bool builtin_is_pure(const char *name)
{
    const Builtin *b = builtin_find(name);
    return b && b->pure;
}

/* what a kind must be, for the one wording of a wrong argument */
static const char *kind_name(BuiltinArg k)
{
    switch (k) {
    case BA_INT: return "an integer";
    case BA_CONST_INT: return "a compile-time integer";
    case BA_CONST_BOOL: return "true or false";
    case BA_TYPE: return "a scalar type";
    case BA_TENSOR: return "a tensor";
    case BA_ATOM: return "an atom, a tiled MMA or a tiled copy";
    case BA_SMEM: return "a shared-memory element";
    case BA_TMAP: return "a tma<...> parameter";
    default: return "a value";
    }
}

/* The counts a kind list allows: lo required, hi at most. */
static void arg_counts(const BuiltinArg *k, int *lo, int *hi)
{
    *lo = 0;
    *hi = 0;
    bool opt = false;
    for (; *k != BA_END; k++) {
        opt = opt || (*k & BA_OPT);
        if (!opt) (*lo)++;
        (*hi)++;
    }
}

/* Argument i evaluated as kind k: false, reported, if it is not one. */
static bool eval_arg(Eval *e, const char *name, const Node *call, int i, BuiltinArg k, Value *out)
{
    const Node *arg = call->list.items[i];
    if (k == BA_NODE) {
        *out = (Value){.kind = V_VOID};
        return true;
    }
    bool lvalue = k == BA_EXPR || k == BA_TENSOR || k == BA_SMEM || k == BA_TMAP;
    Value v = lvalue ? eval_expr(e, arg) : eval_rvalue(e, arg);
    *out = v;
    if (v.kind == V_ERROR) return false;
    bool ok;
    switch (k) {
    case BA_INT: ok = v.kind == V_INT || (v.kind == V_DYN && type_is_int(v.ty)); break;
    case BA_CONST_INT: ok = v.kind == V_INT; break;
    case BA_CONST_BOOL: ok = v.kind == V_BOOL; break;
    case BA_TYPE: ok = v.kind == V_TYPE; break;
    case BA_TENSOR: ok = v.kind == V_TENSOR; break;
    case BA_ATOM: ok = v.kind == V_ATOM; break;
    case BA_SMEM: ok = v.kind == V_REF && v.space == SPACE_SMEM; break;
    case BA_TMAP: ok = v.kind == V_TMAP; break;
    default: ok = true; break;
    }
    if (!ok) {
        diag_error(e->diag, arg->loc, "argument %d of '%s' must be %s, found %s", i + 1, name, kind_name(k),
                   val_describe(e, &v));
        return false;
    }
    /* converted where they are evaluated, so the IR keeps the arguments'
     * order; an i64 where an i32 goes is an error, not a truncation */
    if (k == BA_INT) {
        *out = conv_to(e, v, TY_I32, arg->loc, false);
        return out->kind != V_ERROR;
    }
    if (k == BA_SMEM) out->llvm = smem_addr32(e, &v);
    return true;
}

static bool builtin_check(Eval *e, const Builtin *b, const Node *call, Value **args)
{
    *args = NULL;
    if (call->list2.n) {
        diag_error(e->diag, call->loc, "'%s' takes no template arguments", b->name);
        return false;
    }
    if (b->kernel && !(e->cg && e->cg->fn)) {
        diag_error(e->diag, call->loc, "'%s' is only allowed inside a kernel", b->name);
        return false;
    }
    int lo, hi;
    arg_counts(b->args, &lo, &hi);
    if (!builtin_arity(e, call, b->name, lo, hi)) return false;
    int n = call->list.n;
    Value *v = ARENA_ARRAY(e->arena, Value, n > 0 ? n : 1);
    const BuiltinArg *k = b->args;
    for (int i = 0; i < n; i++)
        if (!eval_arg(e, b->name, call, i, (BuiltinArg)(k[i] & BA_KIND), &v[i])) return false;
    *args = v;
    return true;
}

bool builtin_target_has(Eval *e, SrcLoc loc, const char *what, unsigned features)
{
    const cutec_arch_info *arch = e->prog ? e->prog->arch : NULL;
    unsigned missing = arch ? features & ~arch->features : 0;
    if (!missing) return true;
    unsigned first = missing & -missing;
    diag_error(e->diag, loc, "%s needs %s, which the target %s lacks (--arch)", what, cutec_feature_name(first),
               arch->name);
    return false;
}

Value builtin_call(Eval *e, const char *name, const Node *call)
{
    const Builtin *b = builtin_find(name);
    if (!b) return call_layout_fn(e, name, call);
    if (!builtin_target_has(e, call->loc, arena_printf(e->arena, "'%s'", name), b->features)) return val_error();
    Value *args;
    if (!builtin_check(e, b, call, &args)) return val_error();
    return b->eval(e, b, call, args);
}
