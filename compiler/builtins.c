/* builtins.c: the builtin table (builtins.h) and the call dispatch. */
#include "builtins.h"

#include <string.h>

#include "arch.h"
#include "program.h"

enum {
    F_SM80 = CUTEC_FEAT_SM80,
    F_SM90 = CUTEC_FEAT_SM90,
    F_TMA = CUTEC_FEAT_TMA,
    F_CLUSTER = CUTEC_FEAT_CLUSTER,
    F_WGMMA = CUTEC_FEAT_WGMMA,
    F_NREG = CUTEC_FEAT_SETMAXNREG,
};

/* name, family, features, pure (emits nothing with side effects, so a
 * fused wgmma group may evaluate it in place: eval_sm90.c) */
static const Builtin table[] = {
    /* eval_builtin.c: barriers, math, integer helpers */
    {"sync", core_builtin, 0, false},
    {"min", core_builtin, 0, true},
    {"max", core_builtin, 0, true},
    {"abs", core_builtin, 0, false},
    {"sqrt", core_builtin, 0, false},
    {"fma", core_builtin, 0, false},
    {"ceil_div", core_builtin, 0, true},
    {"select", core_builtin, 0, true},
    {"sizeof", core_builtin, 0, false},
    /* eval_math.c: math for epilogues, exact (math_ir.c) and fast forms */
    {"exp", math_builtin, 0, true},
    {"exp2", math_builtin, 0, true},
    {"log", math_builtin, 0, true},
    {"tanh", math_builtin, 0, true},
    {"erf", math_builtin, 0, true},
    {"sigmoid", math_builtin, 0, true},
    {"rsqrt", math_builtin, 0, true},
    {"clamp", math_builtin, 0, true},
    {"fast_exp", math_builtin, 0, true},
    {"fast_exp2", math_builtin, 0, true},
    {"fast_log", math_builtin, 0, true},
    {"fast_tanh", math_builtin, 0, true},
    {"fast_sigmoid", math_builtin, 0, true},
    {"fast_rsqrt", math_builtin, 0, true},
    /* eval_tensor.c: tensors, views, sm_80 copies and MMAs */
    {"make_identity_tensor", tensor_builtin, 0, false},
    {"local_tile", tensor_builtin, 0, false},
    {"local_partition", tensor_builtin, 0, false},
    {"fill", tensor_builtin, 0, false},
    {"copy", tensor_builtin, 0, false},
    {"mma_m16n8k16", tensor_builtin, F_SM80, false},
    {"ldmatrix", tensor_builtin, F_SM80, false},
    {"cp_async", tensor_builtin, F_SM80, false},
    {"cp_async_commit", tensor_builtin, F_SM80, false},
    {"cp_async_wait", tensor_builtin, F_SM80, false},
    {"store_vector", tensor_builtin, 0, false},
    {"load_vector", tensor_builtin, 0, false},
    {"store_if", tensor_builtin, 0, false},
    /* eval_sm90.c: mbarriers, TMA loads, clusters, named barriers; eval_wgmma.c: wgmma, setmaxnreg */
    {"mbar_init", sm90_builtin, F_SM80, false},
    {"mbar_arrive", sm90_builtin, F_SM80, false},
    {"mbar_arrive_tx", sm90_builtin, F_TMA, false},
    {"mbar_wait", sm90_builtin, F_SM90, false},
    {"fence_barrier_init", sm90_builtin, F_CLUSTER, false},
    {"fence_proxy_async", sm90_builtin, F_SM90, false},
    {"tma_load", sm90_builtin, F_TMA, false},
    {"tma_load_mc", sm90_builtin, F_TMA | F_CLUSTER, false},
    {"tma_prefetch", sm90_builtin, F_TMA, false},
    {"smem_desc", wgmma_builtin, F_WGMMA, true},
    {"wgmma", wgmma_builtin, F_WGMMA, false},
    {"wgmma_fence", wgmma_builtin, F_WGMMA, false},
    {"wgmma_commit", wgmma_builtin, F_WGMMA, false},
    {"wgmma_wait", wgmma_builtin, F_WGMMA, false},
    {"setmaxnreg_inc", wgmma_builtin, F_NREG, false},
    {"setmaxnreg_dec", wgmma_builtin, F_NREG, false},
    {"elect_one", sm90_builtin, F_SM90, false},
    {"bar_sync", sm90_builtin, 0, false},
    {"bar_arrive", sm90_builtin, 0, false},
    {"cluster_rank", sm90_builtin, F_CLUSTER, false},
    {"cluster_sync", sm90_builtin, F_CLUSTER, false},
    {"mbar_arrive_cluster", sm90_builtin, F_CLUSTER, false},
    /* eval_sm90_store.c: the TMA-store epilogue */
    {"stmatrix", sm90_store_builtin, F_SM90, false},
    {"tma_store", sm90_store_builtin, F_TMA, false},
    {"tma_store_commit", sm90_store_builtin, F_TMA, false},
    {"tma_store_wait", sm90_store_builtin, F_TMA, false},
    /* eval_atomic.c */
    {"atomic_add", atomic_builtin, 0, false},
    {"fence_gpu", atomic_builtin, 0, false},
    /* eval_atom.c: copy and MMA atoms, tiled copies and MMAs */
    {"mma_atom", atom_builtin, 0, false},
    {"make_tiled_mma", atom_builtin, 0, false},
    {"copy_atom_universal", atom_builtin, 0, false},
    {"copy_atom_cp_async", atom_builtin, F_SM80, false},
    {"copy_atom_ldmatrix", atom_builtin, F_SM80, false},
    {"make_tiled_copy", atom_builtin, 0, false},
    {"make_tiled_copy_A", atom_builtin, 0, false},
    {"make_tiled_copy_B", atom_builtin, 0, false},
    {"partition_A", atom_builtin, 0, false},
    {"partition_B", atom_builtin, 0, false},
    {"partition_C", atom_builtin, 0, false},
    {"partition_S", atom_builtin, 0, false},
    {"partition_D", atom_builtin, 0, false},
    {"make_fragment_like", atom_builtin, 0, false},
    {"gemm", atom_builtin, 0, false},
    {"copy_if", atom_builtin, 0, false},
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

Value builtin_call(Eval *e, const char *name, const Node *call)
{
    const Builtin *b = builtin_find(name);
    if (!b) return call_layout_fn(e, name, call);
    const cutec_arch_info *arch = e->prog ? e->prog->arch : NULL;
    unsigned missing = arch ? b->features & ~arch->features : 0;
    if (missing) {
        unsigned first = missing & -missing;
        diag_error(e->diag, call->loc, "'%s' needs %s, which the target %s lacks (--arch)", name,
                   cutec_feature_name(first), arch->name);
        return val_error();
    }
    return b->eval(e, name, call);
}
