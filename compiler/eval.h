/* eval.h: the evaluator, which is also the code generator.
 *
 * cutec evaluates kernel bodies by partial evaluation: compile-time values
 * (integers, floats, booleans, types, layouts whose leaves are static or
 * symbolic) are computed here, and only runtime values become LLVM IR.
 * Template parameters, `unroll for` and `if` on a static condition are
 * therefore resolved before LLVM sees the code, which is what gives
 * register fragments static indices.  Functions are inlined at each call.
 * With cg == NULL the evaluator only folds constants (`cutec eval`, -D). */
#ifndef CUTEC_EVAL_H
#define CUTEC_EVAL_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "layout.h"

typedef enum ScalarType {
    TY_VOID,
    TY_BOOL,
    TY_I32,
    TY_I64,
    TY_F16,
    TY_BF16,
    TY_F32,
    TY_F64,
    /* fp8 (OCP/PTX e4m3 and e5m2): storage types held as i8 bit patterns;
     * arithmetic widens them to f32, narrowing to them is explicit */
    TY_E4M3,
    TY_E5M2,
} ScalarType;

typedef enum MemSpace {
    SPACE_GMEM,
    SPACE_SMEM,
    SPACE_RMEM,
    SPACE_IDENT, /* an identity (coordinate) tensor: no memory; element = coordinate */
} MemSpace;

typedef enum VKind {
    V_ERROR, /* an error was reported already: propagate silently */
    V_VOID,
    V_INT,        /* static integer (untyped until it meets a runtime value) */
    V_FLOAT,      /* static floating-point number */
    V_BOOL,       /* static boolean */
    V_DYN,        /* runtime scalar: llvm + ty */
    V_LAY,        /* layout-algebra value (tuple, layout, swizzle, composed, tiler) */
    V_TENSOR,     /* llvm: base pointer; ty: element; space; lay: its layout */
    V_REF,        /* one tensor element (an lvalue): llvm: address; ty; space */
    V_VAR,        /* mutable variable (an lvalue): llvm: alloca; ty */
    V_TYPE,       /* a scalar type, e.g. a `T: type` template parameter */
    V_FUNC,       /* a user `fn`: node */
    V_BUILTIN,    /* a builtin function: name */
    V_UNDERSCORE, /* `_` */
    V_SREG,       /* threadIdx / blockIdx / blockDim / gridDim: name */
    V_TMAP,       /* a TMA descriptor parameter: llvm: its generic address (i64);
                     i: box bytes; lay: the box as a tuple (tensor mode order) */
    V_ATOM,       /* an MMA or copy atom, or a tiled MMA / tiled copy: atom */
    V_DESC,       /* a wgmma shared-memory matrix descriptor (smem_desc): llvm: i64;
                     ty: element type; i: 1 if MN-major (transposed), 0 if K-major */
    V_ABSENT,     /* a kernel parameter whose `if` condition is false: node (the
                     parameter); it may be passed along, not used (kernel.c) */
} VKind;

typedef struct Value {
    VKind kind;
    ScalarType ty;
    MemSpace space;
    int64_t i;
    double f;
    LLVMValueRef llvm;
    LayValue lay;
    LayInt toff;     /* V_TENSOR: element offset of the view from llvm */
    int ncomp;       /* SPACE_IDENT: one layout and offset per coordinate */
    LayLayout *comp; /* component; views transform all of them alike */
    LayInt *coff;
    const Node *node;
    const char *name;
    const struct Atom *atom; /* V_ATOM (atom.h) */
    LLVMValueRef *conj;      /* a predicate list (V_DYN bool from eval_pred): its
                              ncomp runtime booleans, all of which must hold */
} Value;

typedef struct CG CG;           /* codegen.h */
typedef struct Program Program; /* program.h */

/* Local names (eval_scope.c): a persistent chain, so that a copy of an
 * Eval binds without the original seeing it; frames (scope_push) with
 * many bindings index them by name, so a lookup in a large function
 * costs the frames it crosses, not the names bound before it. */
typedef struct Scope Scope;
typedef struct ScopeIndex ScopeIndex;
struct Scope {
    Scope *parent;
    const char *name; /* NULL: a frame marker */
    Value value;
    Scope *frame;      /* a binding's frame marker, NULL outside any */
    ScopeIndex *index; /* a frame marker's index, once it holds SCOPE_INDEX_MIN bindings */
    Scope *shadow;     /* an indexed binding: the one of the same name it hides in its frame */
    unsigned seq;      /* a binding's position in its frame, from 1 */
    bool indexed;      /* on the chain its frame's index covers */
};

typedef struct WgmmaGroup WgmmaGroup;

/* What one evaluation may consume, so that no input exhausts the C stack
 * or memory (docs/compiler.md, "Limits").  Depth counts nested
 * expressions and blocks, whatever they come through (operators,
 * constants, inlined calls); a call counts EVAL_CALL_COST, as its frames
 * take about that many times the stack of an operator's.  At the limit
 * the evaluator uses at most about 2.5 MiB of stack (4 MiB under ASan);
 * the stdlib's templates reach 37.  Work counts evaluated statements,
 * unrolled iterations, inlined calls and the elements of tensors that
 * builtins go through one by one, so that a kernel that would expand to
 * too much code (and memory, up to about 1 KiB a unit) is refused before
 * it is built; the stdlib's templates reach 3,667 and the tests 54,794.
 * One record is shared by an Eval and every copy made of it
 * (eval_limits), so it counts a whole kernel body. */
enum { EVAL_MAX_DEPTH = 1024, EVAL_CALL_COST = 3 };
#define EVAL_MAX_WORK ((int64_t)1 << 18)
typedef struct EvalLimits {
    int depth;
    int64_t work;
    bool depth_reported; /* reported once; deeper evaluations then fail quietly */
} EvalLimits;

typedef struct Eval {
    Arena *arena;
    Diag *diag;
    CG *cg; /* NULL: compile-time only */
    Program *prog;
    Scope *scope;
    int dyn_depth;  /* nesting of runtime control flow */
    int call_depth; /* inlining depth, bounded against recursion */
    bool has_threads;
    int64_t threads[3];
    bool maxnreg_set;        /* the kernel's maxnreg annotation is emitted (setmaxnreg) */
    int64_t cluster_size;    /* blocks per cluster (1 without cluster()) */
    WgmmaGroup *wgmma_group; /* wgmmas being fused into one asm statement (eval_sm90.c) */
    EvalLimits *limits;      /* NULL until first used: see eval_limits */
    const Node *expanding;   /* the outermost `unroll for` or inlined call being expanded */
    bool param_layout;       /* binding the kernel's tensor parameters: arithmetic stays symbolic (eval_symbolic.c) */
    /* function-call state */
    bool in_fn;
    bool returned;
    Value ret;
    SrcLoc ret_loc; /* where it was returned: a conversion to the declared type is reported there */
} Eval;

/* values */
Value val_error(void);
Value val_int(int64_t v);
Value val_float(double f);
Value val_bool(bool b);
Value val_dyn(LLVMValueRef v, ScalarType ty);
const char *type_name(ScalarType t);
bool type_from_name(const char *name, ScalarType *out);
bool type_is_float(ScalarType t);
bool type_is_int(ScalarType t);
/* a static integer fits in i32 (else it is an i64 where it takes a type) */
static inline bool int_fits_i32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }
bool type_is_fp8(ScalarType t);
int type_bytes(ScalarType t);
/* a human description for diagnostics: "i32 value", "layout (4,2):(1,4)" */
const char *val_describe(Eval *e, const Value *v);

/* scopes */
void scope_push(Eval *e);
void scope_pop(Eval *e);
void scope_bind(Eval *e, const char *name, Value v);
bool scope_lookup(Eval *e, const char *name, Value *out);

/* The limits record of e, created on first use.  Callers that copy an
 * Eval (inlined calls, constants) call it first, so the copy shares it. */
EvalLimits *eval_limits(Eval *e);
/* Every recursion of the evaluator passes through eval_expr or
 * eval_block, which bracket their work with these (cost: 1, or
 * EVAL_CALL_COST for a call): false, with one diagnostic at loc, past
 * EVAL_MAX_DEPTH. */
bool eval_enter(Eval *e, SrcLoc loc, int cost);
void eval_leave(Eval *e, int cost);
/* Count n units of work (a statement, an unrolled iteration or an inlined
 * call is one; a builtin over a tensor counts its elements); false once
 * the limit is passed, with one diagnostic at the outermost loop or call
 * being expanded (else at loc). */
bool eval_work(Eval *e, int64_t n, SrcLoc loc);
/* True once either limit was reported: evaluation since then was cut short. */
bool eval_exhausted(Eval *e);

/* expressions and statements */
Value eval_expr(Eval *e, const Node *n);
Value eval_rvalue(Eval *e, const Node *n); /* loads lvalues */
Value val_load(Eval *e, Value v, SrcLoc loc);
void eval_block(Eval *e, const Node *block);
void eval_stmt(Eval *e, const Node *s);
Value eval_call(Eval *e, const Node *call);
Value eval_type(Eval *e, const Node *type); /* V_TYPE or V_TENSOR descriptor */

/* conversions between scalar values */
Value conv_to(Eval *e, Value v, ScalarType ty, SrcLoc loc, bool explicit_cast);
Value binop(Eval *e, int op, Value a, Value b, SrcLoc loc);
/* Bring two scalars (at least one runtime) to their common runtime type. */
bool unify_operands(Eval *e, const char *what, Value *a, Value *b, SrcLoc loc);

/* layout algebra bridge (eval_lay.c) */
bool val_to_lay(Eval *e, Value v, LayValue *out, SrcLoc loc, const char *what);
Value lay_to_val(Eval *e, LayValue lv);
/* v as an i32, or an i64 where a leaf or constant of it is 64-bit */
LLVMValueRef lower_layint(Eval *e, LayInt v);
/* a and b lowered to one width (for a comparison) */
void lower_layint_pair(Eval *e, LayInt a, LayInt b, LLVMValueRef *la, LLVMValueRef *lb);
/* the address of the element at offset off of tensor t (64-bit math for
 * a global tensor's runtime offset) */
LLVMValueRef tensor_addr(Eval *e, const Value *t, LayInt off);
Value tensor_index(Eval *e, Value tensor, const NodeList *args, SrcLoc loc);
LayTuple *coord_of(Eval *e, Value v, SrcLoc loc);
/* L(c) for a layout value: the (possibly runtime) index of coordinate c */
Value layout_apply(Eval *e, Value lay, const NodeList *args, SrcLoc loc);
Value call_layout_fn(Eval *e, const char *name, const Node *call);

/* tensors: views, slicing, tiling, hardware copies and MMAs (eval_tensor.c) */
Value tensor_make(LLVMValueRef base, ScalarType ty, MemSpace space, LayValue lay);
/* T(c0, _, c2): a view keeping the `_` modes; NULL if no argument is `_` */
bool tensor_has_slice(const NodeList *args);
Value tensor_slice(Eval *e, Value t, const NodeList *args, SrcLoc loc);
/* an `unroll for` whose body is only wgmma statements (and unrolled loops
 * of them) fuses them into one asm statement: begin before evaluating it
 * (false: not such a body, or already inside a group), end after */
bool sm90_wgmma_group_begin(Eval *e, const Node *body);
void sm90_wgmma_group_end(Eval *e);
/* `wgmma_fence(acc)` followed by such a loop: the fence joins the group's
 * first statement.  True: st was taken (the group is begun; evaluate next,
 * then end the group); false: evaluate both as usual. */
bool sm90_wgmma_group_fence(Eval *e, const Node *st, const Node *next);
/* for gemm through a wgmma tiled MMA (atom_gemm.c): the descriptor of a
 * shared (MN, K) view at its element (0, 0), checked as smem_desc checks
 * it (a diagnostic at loc names `who`, what the user wrote); the four
 * 32-bit registers of a register A fragment of 16 bytes (its size and
 * type checked by the caller); one wgmma of checked operands (afrag NULL:
 * A is the descriptor da) */
Value wgmma_desc(Eval *e, const Value *view, SrcLoc loc, const char *who);
bool wgmma_pack_a(Eval *e, const Value *frag, LLVMValueRef regs[4]);
/* a group that the wgmmas issued until sm90_wgmma_group_end join (false:
 * one is open already, or no kernel) */
bool wgmma_group_open(Eval *e);
/* fresh: scale-d 0 (acc = A B) */
bool wgmma_issue(Eval *e, const Value *acc, int64_t n, const LLVMValueRef *afrag, LLVMValueRef da, LLVMValueRef db,
                 int ta, int tb, const ScalarType ty[2], bool fresh);

/* Argument checks the builtin table cannot express (builtins.c checks
 * counts and kinds), shared by the families (eval_args.c); each reports a
 * diagnostic at the argument and returns false.  v is argument i of name,
 * evaluated: a compile-time integer in lo..hi (what it is, for the message). */
bool arg_static_range(Eval *e, const Node *call, const char *name, int i, const Value *v, int64_t lo, int64_t hi,
                      const char *what);
/* counts that depend on an argument's value (copy's two forms) */
bool builtin_arity(Eval *e, const Node *call, const char *name, int lo, int hi);

/* the tensor operations' instruction emitters, shared with the atoms */
/* t's static size (false, reported, if dynamic), counted as work
 * (eval_work): the callers go through the elements one by one */
bool tensor_static_size(Eval *e, const Value *t, SrcLoc loc, int64_t *n);
LLVMValueRef tensor_elem_ptr(Eval *e, const Value *t, int64_t i, SrcLoc loc); /* flat index i */
LLVMValueRef eval_asm(Eval *e, LLVMTypeRef ret, LLVMValueRef *args, unsigned nargs, const char *text, const char *cons);
LLVMTypeRef eval_struct_of(Eval *e, LLVMTypeRef t, unsigned n);
LLVMValueRef smem_addr32(Eval *e, const Value *ref);
bool emit_mma16816(Eval *e, const Value *c, int64_t cb, const Value *a, int64_t ab, const Value *b, int64_t bb,
                   SrcLoc loc);
bool emit_ldmatrix(Eval *e, const Value *d, int64_t db, int x, bool trans, LLVMValueRef addr, SrcLoc loc);
void emit_cp_async(Eval *e, LLVMValueRef dst, LLVMValueRef src, int nbytes, LLVMValueRef size);
/* predicated stores (eval_store.c): payload, of `bytes` bytes, to element
 * dst where pred (a V_BOOL or runtime boolean; diagnosed at ploc) holds */
bool emit_store_pred(Eval *e, const Value *dst, LLVMValueRef payload, int bytes, Value pred, const char *name,
                     SrcLoc ploc, SrcLoc loc);
/* A predicate argument of the predicated stores: a boolean, or a list of
 * them in parentheses, `(a, b, c)`, which must all hold.  A list becomes
 * one runtime boolean with .conj set (static trues dropped, a static false
 * makes it false), combined in the store's PTX (setp.ne.and), so LLVM sees
 * no `and` per store. */
Value eval_pred(Eval *e, const Node *arg, const char *name);
/* PTX setting predicate register reg from such a predicate (eval_store.c);
 * shared with the predicated load_vector (eval_tensor.c) */
int pred_ptx(Eval *e, Value p, const char *reg, const char *and_not, unsigned base, LLVMValueRef *args, unsigned *na,
             char *text, size_t tl, char *cons, size_t cl, int *kc);
/* fragment elements to dst + i where preds[i] holds; with vec (the whole
 * fragment, vbytes bytes), stored at once where vpred holds instead */
bool store_elems_pred(Eval *e, const Value *dst, const Value *frag, int64_t n, const Value *preds, const SrcLoc *ploc,
                      LLVMValueRef vec, int vbytes, const Value *vpred, const char *name, SrcLoc loc);

/* copy and MMA atoms, tiled copies and tiled MMAs (atom_*.c) */
/* copy(tiled_copy, src, dst) / copy_if(tiled_copy, crd, bound, src, dst),
 * arg[] evaluated (atom_copy.c) */
Value atom_copy(Eval *e, const Node *call, const Value *arg, bool pred);
const char *atom_describe(Eval *e, const struct Atom *a);
/* An atom's description as data, for `cutec eval` to print and draw
 * (eval_render.c); the pointers point into the atom. */
typedef enum AtomViewKind {
    ATOM_VIEW_MMA,        /* an MMA atom, or a tiled MMA of warps[0] x warps[1] warps */
    ATOM_VIEW_COPY,       /* a copy atom */
    ATOM_VIEW_TILED_COPY, /* make_tiled_copy */
    ATOM_VIEW_LDSM_COPY,  /* make_tiled_copy_A/B: ldmatrix feeding an MMA operand */
} AtomViewKind;
typedef struct AtomView {
    AtomViewKind kind;
    ScalarType ty, acc;     /* element type (an MMA's A type); the MMA's accumulator type */
    ScalarType tyb;         /* MMA: B's type */
    const char *instr;      /* MMA: the PTX instruction, e.g. "mma.sync.aligned.m16n8k16" */
    int64_t atom_threads;   /* MMA: threads that issue one atom (a warp, a warpgroup) */
    int64_t mnk[3];         /* MMA: the atom's M, N, K */
    const LayLayout *tv[3]; /* MMA: A, B, C: (lane, value) -> column-major index in
                                the atom's (M, K), (N, K), (M, N) tile */
    int64_t warps[2];       /* MMA: atoms (warps, warpgroups) along M and N */
    const char *op;         /* copies: "universal", "cp.async" or "ldmatrix" */
    int vec;                /* copies: elements per instruction (ldmatrix: matrices) */
    bool trans;             /* ldmatrix .trans */
    const LayLayout *ctv;   /* tiled copy: (thread, value) -> column-major index in the tile */
    const LayTuple *tile;   /* tiled copy: the tile's shape */
    int64_t nthr;           /* tiled copies: threads */
    const struct Atom *mma; /* ldmatrix tiled copy: the tiled MMA it feeds, */
    int operand;            /* and its operand: 0 = A, 1 = B */
} AtomView;
void atom_view(const struct Atom *a, AtomView *out);
/* `cutec eval` of an atom, tiled MMA or tiled copy (eval_render.c): render
 * is a cutec_eval_render; the text, or NULL after a diagnostic at loc */
const char *atom_render(Eval *e, const Value *v, int render, SrcLoc loc);

/* cutec eval's symbolic names (eval_symbolic.c): binds every plain name in
 * expr that nothing else defines to a symbolic integer, in a new scope */
void eval_bind_symbols(Eval *e, const Node *expr);
/* whether a name means something without a binding: a type, a special
 * register, a builtin or a layout function (eval_expr.c) */
bool eval_name_known(Eval *e, const char *name);
/* a + b etc. where either is a symbolic integer (no code generation
 * only); V_VOID when neither is */
Value binop_symbolic(Eval *e, int op, Value a, Value b, SrcLoc loc);

/* builtins: the table and the call dispatch (builtins.c) */
bool builtin_exists(const char *name);
Value builtin_call(Eval *e, const char *name, const Node *call);
/* whether name is a builtin without side effects (builtins.c) */
bool builtin_is_pure(const char *name);
Value sreg_member(Eval *e, const char *ns, const Node *member);

#endif
