/* builtins.c: the builtin table (builtins.h), the argument checker and the
 * call dispatch. */
#include "builtins.h"

#include <string.h>

#include "arch.h"
#include "codegen.h"
#include "program.h"

enum {
    F_SM80 = CUTEC_FEAT_SM80,
    F_SM90 = CUTEC_FEAT_SM90,
    F_TMA = CUTEC_FEAT_TMA,
    F_CLUSTER = CUTEC_FEAT_CLUSTER,
    F_WGMMA = CUTEC_FEAT_WGMMA,
    F_NREG = CUTEC_FEAT_SETMAXNREG,
};

/* Argument lists (c3c's habit): ARGS(kinds...) or NOARGS. */
#define ARGS(...) ((const BuiltinArg[]){__VA_ARGS__, BA_END})
#define NOARGS    ((const BuiltinArg[]){BA_END})
#define OPT(k)    ((BuiltinArg)((k) | BA_OPT))
enum { K = true, P = true }; /* K: kernels only; P: pure */
/* The predicates of the predicated stores: the family evaluates them in
 * its own order (a list in parentheses is combined in the PTX), up to 8. */
#define PREDS8 BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE

/* name, family, features, pure (emits nothing with side effects, so a
 * fused wgmma group may evaluate it in place: eval_wgmma.c), arguments,
 * kernels only */
static const Builtin table[] = {
    /* eval_builtin.c: barriers, math, integer helpers */
    {"sync", core_builtin, 0, false, NOARGS, K},
    {"min", core_builtin, 0, P, ARGS(BA_RVALUE, BA_RVALUE), false},
    {"max", core_builtin, 0, P, ARGS(BA_RVALUE, BA_RVALUE), false},
    {"abs", core_builtin, 0, false, ARGS(BA_RVALUE), false},
    {"sqrt", core_builtin, 0, false, ARGS(BA_RVALUE), false},
    {"fma", core_builtin, 0, false, ARGS(BA_RVALUE, BA_RVALUE, BA_RVALUE), false},
    {"ceil_div", core_builtin, 0, P, ARGS(BA_RVALUE, BA_RVALUE), false},
    {"select", core_builtin, 0, P, ARGS(BA_RVALUE, BA_RVALUE, BA_RVALUE), false},
    {"sizeof", core_builtin, 0, false, ARGS(BA_TYPE), false},
    /* eval_math.c: math for epilogues, exact (math_ir.c) and fast forms */
    {"exp", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"exp2", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"log", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"tanh", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"erf", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"sigmoid", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"rsqrt", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"clamp", math_builtin, 0, P, ARGS(BA_RVALUE, BA_RVALUE, BA_RVALUE), false},
    {"fast_exp", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"fast_exp2", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"fast_log", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"fast_tanh", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"fast_sigmoid", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    {"fast_rsqrt", math_builtin, 0, P, ARGS(BA_RVALUE), false},
    /* eval_tensor.c: tensors, views, sm_80 copies and MMAs */
    {"make_identity_tensor", tensor_builtin, 0, false, ARGS(BA_RVALUE), false},
    /* a tile coordinate written in place may hold `_` */
    {"local_tile", tensor_builtin, 0, false, ARGS(BA_TENSOR, BA_RVALUE, BA_NODE), false},
    {"local_partition", tensor_builtin, 0, false, ARGS(BA_TENSOR, BA_RVALUE, BA_RVALUE), false},
    {"fill", tensor_builtin, 0, false, ARGS(BA_TENSOR, BA_RVALUE), K},
    /* copy(dst, src) or copy(tiled_copy, src, dst) */
    {"copy", tensor_builtin, 0, false, ARGS(BA_EXPR, BA_TENSOR, OPT(BA_TENSOR)), K},
    {"mma_m16n8k16", tensor_builtin, F_SM80, false, ARGS(BA_TENSOR, BA_TENSOR, BA_TENSOR), K},
    {"ldmatrix", tensor_builtin, F_SM80, false, ARGS(BA_TENSOR, BA_SMEM, OPT(BA_CONST_BOOL)), K},
    /* the shared address is taken where the instruction is emitted */
    {"cp_async", tensor_builtin, F_SM80, false, ARGS(BA_EXPR, BA_EXPR, BA_RVALUE, OPT(BA_RVALUE)), K},
    {"cp_async_commit", tensor_builtin, F_SM80, false, NOARGS, K},
    {"cp_async_wait", tensor_builtin, F_SM80, false, ARGS(BA_RVALUE), K},
    {"store_vector", tensor_builtin, 0, false, ARGS(BA_EXPR, BA_TENSOR, OPT(BA_NODE), PREDS8), K},
    /* load_vector(frag, src[, pred]) evaluates src first */
    {"load_vector", tensor_builtin, 0, false, ARGS(BA_NODE, BA_NODE, OPT(BA_NODE)), K},
    {"store_if", tensor_builtin, 0, false,
     ARGS(BA_EXPR, BA_EXPR, BA_NODE, OPT(BA_NODE), BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE, BA_NODE), K},
    /* eval_sm90.c: mbarriers, TMA loads, clusters, named barriers; eval_wgmma.c: wgmma, setmaxnreg */
    {"mbar_init", sm90_builtin, F_SM80, false, ARGS(BA_SMEM, BA_INT), K},
    {"mbar_arrive", sm90_builtin, F_SM80, false, ARGS(BA_SMEM), K},
    {"mbar_arrive_tx", sm90_builtin, F_TMA, false, ARGS(BA_SMEM, BA_INT), K},
    {"mbar_wait", sm90_builtin, F_SM90, false, ARGS(BA_SMEM, BA_INT), K},
    {"fence_barrier_init", sm90_builtin, F_CLUSTER, false, NOARGS, K},
    {"fence_proxy_async", sm90_builtin, F_SM90, false, NOARGS, K},
    /* tma_load(dst, tmap, mbar, c0, c1[, mask]) */
    {"tma_load", sm90_builtin, F_TMA, false, ARGS(BA_SMEM, BA_TMAP, BA_SMEM, BA_INT, BA_INT), K},
    {"tma_load_mc", sm90_builtin, F_TMA | F_CLUSTER, false, ARGS(BA_SMEM, BA_TMAP, BA_SMEM, BA_INT, BA_INT, BA_INT), K},
    {"tma_prefetch", sm90_builtin, F_TMA, false, ARGS(BA_TMAP), K},
    /* smem_desc(view, row, k): the coordinates index the view */
    {"smem_desc", wgmma_builtin, F_WGMMA, P, ARGS(BA_EXPR, BA_NODE, BA_NODE), K},
    /* wgmma(acc, A, B, T[, TB]) */
    {"wgmma", wgmma_builtin, F_WGMMA, false, ARGS(BA_EXPR, BA_EXPR, BA_RVALUE, BA_TYPE, OPT(BA_TYPE)), K},
    {"wgmma_fence", wgmma_builtin, F_WGMMA, false, ARGS(BA_EXPR, OPT(BA_EXPR)), K},
    {"wgmma_commit", wgmma_builtin, F_WGMMA, false, NOARGS, K},
    {"wgmma_wait", wgmma_builtin, F_WGMMA, false, ARGS(BA_RVALUE, BA_EXPR, OPT(BA_EXPR)), K},
    {"setmaxnreg_inc", wgmma_builtin, F_NREG, false, ARGS(BA_RVALUE), K},
    {"setmaxnreg_dec", wgmma_builtin, F_NREG, false, ARGS(BA_RVALUE), K},
    {"elect_one", sm90_builtin, F_SM90, false, NOARGS, K},
    {"bar_sync", sm90_builtin, 0, false, ARGS(BA_INT, BA_INT), K},
    {"bar_arrive", sm90_builtin, 0, false, ARGS(BA_INT, BA_INT), K},
    {"cluster_rank", sm90_builtin, F_CLUSTER, false, NOARGS, K},
    {"cluster_sync", sm90_builtin, F_CLUSTER, false, NOARGS, K},
    {"mbar_arrive_cluster", sm90_builtin, F_CLUSTER, false, ARGS(BA_SMEM, BA_INT), K},
    /* eval_sm90_store.c: the TMA-store epilogue */
    {"stmatrix", sm90_store_builtin, F_SM90, false, ARGS(BA_SMEM, BA_EXPR, OPT(BA_CONST_BOOL)), K},
    {"tma_store", sm90_store_builtin, F_TMA, false, ARGS(BA_TMAP, BA_SMEM, BA_INT, BA_INT), K},
    {"tma_store_commit", sm90_store_builtin, F_TMA, false, NOARGS, K},
    {"tma_store_wait", sm90_store_builtin, F_TMA, false, ARGS(BA_RVALUE), K},
    /* eval_atomic.c: the address is taken after the value is converted */
    {"atomic_add", atomic_builtin, 0, false, ARGS(BA_EXPR, BA_RVALUE), K},
    {"fence_gpu", atomic_builtin, 0, false, NOARGS, K},
    /* atom_make.c, atom_partition.c, atom_gemm.c, atom_copy.c: copy and MMA
     * atoms, tiled copies and MMAs; the features an atom needs are its
     * catalog row's (atom_catalog.c) */
    {"mma_atom", atom_builtin, 0, false, ARGS(BA_CONST_INT, BA_CONST_INT, BA_CONST_INT, BA_TYPE), false},
    {"make_tiled_mma", atom_builtin, 0, false, ARGS(BA_ATOM, BA_RVALUE), false},
    {"copy_atom_universal", atom_builtin, 0, false, ARGS(BA_TYPE, BA_CONST_INT), false},
    {"copy_atom_cp_async", atom_builtin, 0, false, ARGS(BA_TYPE, BA_CONST_INT), false},
    {"copy_atom_ldmatrix", atom_builtin, 0, false, ARGS(BA_TYPE, BA_CONST_INT, OPT(BA_CONST_BOOL)), false},
    {"make_tiled_copy", atom_builtin, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_RVALUE), false},
    {"make_tiled_copy_A", atom_builtin, 0, false, ARGS(BA_ATOM, BA_ATOM), false},
    {"make_tiled_copy_B", atom_builtin, 0, false, ARGS(BA_ATOM, BA_ATOM), false},
    {"partition_A", atom_builtin, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false},
    {"partition_B", atom_builtin, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false},
    {"partition_C", atom_builtin, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false},
    {"partition_S", atom_builtin, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false},
    {"partition_D", atom_builtin, 0, false, ARGS(BA_ATOM, BA_RVALUE, BA_TENSOR), false},
    {"make_fragment_like", atom_builtin, 0, false, ARGS(BA_TENSOR, OPT(BA_TYPE)), K},
    {"gemm", atom_builtin, 0, false, ARGS(BA_ATOM, BA_TENSOR, BA_TENSOR, BA_TENSOR), K},
    {"copy_if", atom_builtin, 0, false, ARGS(BA_ATOM, BA_TENSOR, BA_RVALUE, BA_TENSOR, BA_TENSOR), K},
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
    if (!b->args) return true;
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
    return b->eval(e, name, call, args);
}
