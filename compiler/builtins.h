/* builtins.h: the one table of builtin functions.  A row names the
 * builtin, its handler (in the file of its family: eval_builtin.c,
 * eval_math.c, eval_tensor.c, eval_sm90.c, eval_sm90_store.c,
 * eval_atomic.c, eval_wgmma.c, atom_make.c, ...), the hardware features it needs
 * (contract/arch.h: a call on a target without them is a source
 * diagnostic, not a ptxas failure), whether it is pure (no side effects:
 * wgmma fusion may move it), its arguments' kinds and whether it is only
 * allowed inside a kernel.  builtin_call checks a call against its row
 * (template arguments, kernel, count, the kind of each argument, with one
 * wording) and evaluates the arguments, in order, before the handler
 * runs; the handler gets them evaluated.  Rows that differ only by a
 * parameter (min and max, exp and fast_exp) share a handler, which reads
 * the row's `op`; no handler looks at the builtin's name except to print
 * it.  Adding a builtin is a row in builtins.c and its handler. */
#ifndef CUTEC_BUILTINS_H
#define CUTEC_BUILTINS_H

#include <stdbool.h>

#include "eval.h"

/* What the checker makes of one argument (the Value the handler gets). */
typedef enum BuiltinArg {
    BA_END,        /* ends a list */
    BA_EXPR,       /* any value, evaluated as is (an lvalue stays one); the handler checks it */
    BA_RVALUE,     /* any value, loaded */
    BA_NODE,       /* not evaluated (V_VOID): the handler evaluates the node itself */
    BA_INT,        /* an integer, static or runtime: converted to i32 (.llvm) */
    BA_CONST_INT,  /* a compile-time integer (.i) */
    BA_CONST_BOOL, /* true or false (.i) */
    BA_TYPE,       /* a scalar type (.ty) */
    BA_TENSOR,     /* a tensor view (not loaded) */
    BA_ATOM,       /* an atom, a tiled MMA or a tiled copy */
    BA_SMEM,       /* a shared-memory element; .llvm becomes its 32-bit shared address */
    BA_TMAP,       /* a tma<...> kernel parameter (not loaded, so a wrong one is described as written) */
    BA_KIND = 0xff,
    BA_OPT = 0x100, /* flag: this argument and the ones after it may be left out
                        (a variadic builtin lists its most arguments) */
} BuiltinArg;

typedef struct Builtin Builtin;

/* The handler: b is the row (its name for diagnostics, its op), arg[i]
 * the evaluated argument i (call->list.n of them). */
typedef Value (*BuiltinFn)(Eval *e, const Builtin *b, const Node *call, const Value *arg);

struct Builtin {
    const char *name;
    BuiltinFn eval;
    unsigned features; /* CUTEC_FEAT_* the target must have */
    bool pure;
    const BuiltinArg *args; /* BA_END-terminated */
    bool kernel;            /* only allowed inside a kernel */
    int op;                 /* the parameter of a handler shared by several rows (0 where none) */
};

/* The row of name, or NULL (then it may be a layout-algebra function). */
const Builtin *builtin_find(const char *name);

/* Whether the target has features; else a diagnostic at loc, "WHAT needs
 * F, which the target T lacks (--arch)" (builtins and atoms alike). */
bool builtin_target_has(Eval *e, SrcLoc loc, const char *what, unsigned features);

/* The op of a handler that several rows share. */
enum {
    BOP_LOAD = 0, /* load_vector, store_vector */
    BOP_STORE = 1,
    BOP_FENCE = 0, /* wgmma_fence, wgmma_wait */
    BOP_WAIT = 1,
    BOP_DEC = 0, /* setmaxnreg_dec, setmaxnreg_inc */
    BOP_INC = 1,
    BOP_BAR_SYNC = 0, /* bar_sync, bar_arrive */
    BOP_BAR_ARRIVE = 1,
    BOP_FAST = 0x100,   /* a math builtin's approximate form (eval_math.c; the low bits a MathId) */
    BOP_RS = 1,         /* mma_atom_rs: A from registers */
    BOP_ATOMIC_ADD = 0, /* atomic_add, atomic_max */
    BOP_ATOMIC_MAX = 1,
    BOP_TMAP_ADDRESS = 0, /* tmap_replace_address, _dim, _stride */
    BOP_TMAP_DIM = 1,
    BOP_TMAP_STRIDE = 2,
};

/* The handlers the table points to, by file.  min/max take the comparison
 * ('<', '>') as op, the math forms a MathId (| BOP_FAST), copy_atom_* a
 * CopyOp, partition_A/B/C and make_tiled_copy_A/B the operand (0 = A),
 * partition_S/D 1 for the source. */
/* eval_builtin.c */
Value b_sync(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_minmax(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_abs(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_sqrt(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_fma(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_ceil_div(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_select(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_sizeof(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* eval_math.c */
Value b_math(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_rsqrt(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_clamp(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* eval_tensor.c */
Value b_make_identity_tensor(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_local_tile(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_local_partition(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_fill(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_copy(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_mma_m16n8k16(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_ldmatrix(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_cp_async(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_cp_async_commit(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_cp_async_wait(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_vector_access(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* eval_store.c */
Value b_store_if(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* eval_sm90.c */
Value b_mbar_init(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_mbar_arrive(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_mbar_arrive_tx(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_mbar_wait(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_mbar_arrive_cluster(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_fence_barrier_init(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_fence_proxy_async(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* The coordinates of a TMA copy match its map's rank (tmap a V_TMAP);
 * false, reported, if not. */
bool tma_coord_count(Eval *e, const Builtin *b, const Node *call, const Value *tmap, int ncoords);
Value b_tma_load(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tma_load_mc(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tma_prefetch(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_elect_one(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_named_barrier(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_cluster_rank(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_cluster_sync(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* eval_wgmma.c */
Value b_smem_desc(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_wgmma(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_wgmma_fence_wait(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_wgmma_commit(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_setmaxnreg(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* eval_sm90_store.c */
Value b_stmatrix(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tma_store(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tma_store_commit(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tma_store_wait(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* eval_tmap.c */
Value b_tmap_copy(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tmap_replace(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tmap_publish(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tmap_release(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tmap_acquire(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_tmap_at(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* eval_atomic.c */
Value b_atomic(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_warp_max(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_fence_gpu(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* atom_make.c */
Value b_mma_atom(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_make_tiled_mma(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_copy_atom(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_make_tiled_copy(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_make_tiled_copy_op(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_make_fragment_like(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_partition_mma(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_partition_copy(Eval *e, const Builtin *b, const Node *call, const Value *arg);
/* atom_gemm.c, atom_copy.c */
Value b_gemm(Eval *e, const Builtin *b, const Node *call, const Value *arg);
Value b_copy_if(Eval *e, const Builtin *b, const Node *call, const Value *arg);

#endif
