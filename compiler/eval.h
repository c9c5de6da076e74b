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
    TY_VOID, TY_BOOL, TY_I32, TY_I64, TY_F16, TY_BF16, TY_F32, TY_F64,
    /* fp8 (OCP/PTX e4m3 and e5m2): storage types held as i8 bit patterns;
     * arithmetic widens them to f32, narrowing to them is explicit */
    TY_E4M3, TY_E5M2,
} ScalarType;

typedef enum MemSpace {
    SPACE_GMEM, SPACE_SMEM, SPACE_RMEM,
    SPACE_IDENT, /* an identity (coordinate) tensor: no memory; element = coordinate */
} MemSpace;

typedef enum VKind {
    V_ERROR,      /* an error was reported already: propagate silently */
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
} VKind;

typedef struct Value {
    VKind kind;
    ScalarType ty;
    MemSpace space;
    int64_t i;
    double f;
    LLVMValueRef llvm;
    LayValue lay;
    LayInt toff;           /* V_TENSOR: element offset of the view from llvm */
    int ncomp;             /* SPACE_IDENT: one layout and offset per coordinate */
    LayLayout *comp;       /* component; views transform all of them alike */
    LayInt *coff;
    const Node *node;
    const char *name;
    const struct Atom *atom; /* V_ATOM (eval_atom.c) */
    LLVMValueRef *conj;    /* a predicate list (V_DYN bool from eval_pred): its
                              ncomp runtime booleans, all of which must hold */
} Value;

typedef struct CG CG;          /* codegen.h */
typedef struct Program Program;/* program.h */

typedef struct Scope Scope;
struct Scope {
    Scope *parent;
    const char *name;
    Value value;
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
    CG *cg;                /* NULL: compile-time only */
    Program *prog;
    Scope *scope;
    int dyn_depth;         /* nesting of runtime control flow */
    int call_depth;        /* inlining depth, bounded against recursion */
    bool has_threads;
    int64_t threads[3];
    bool maxnreg_set;      /* the kernel's maxnreg annotation is emitted (setmaxnreg) */
    int64_t cluster_size;  /* blocks per cluster (1 without cluster()) */
    WgmmaGroup *wgmma_group; /* wgmmas being fused into one asm statement (eval_sm90.c) */
    EvalLimits *limits;    /* NULL until first used: see eval_limits */
    const Node *expanding; /* the outermost `unroll for` or inlined call being expanded */
    bool param_layout;     /* binding the kernel's tensor parameters: an i64 leaf of a layout warns (eval_lay.c) */
    /* function-call state */
    bool in_fn;
    bool returned;
    Value ret;
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
Value eval_rvalue(Eval *e, const Node *n);   /* loads lvalues */
Value val_load(Eval *e, Value v, SrcLoc loc);
void eval_block(Eval *e, const Node *block);
void eval_stmt(Eval *e, const Node *s);
Value eval_call(Eval *e, const Node *call);
Value eval_type(Eval *e, const Node *type);  /* V_TYPE or V_TENSOR descriptor */

/* conversions between scalar values */
Value conv_to(Eval *e, Value v, ScalarType ty, SrcLoc loc, bool explicit_cast);
Value binop(Eval *e, int op, Value a, Value b, SrcLoc loc);
/* Bring two scalars (at least one runtime) to their common runtime type. */
bool unify_operands(Eval *e, const char *what, Value *a, Value *b, SrcLoc loc);

/* layout algebra bridge (eval_lay.c) */
bool val_to_lay(Eval *e, Value v, LayValue *out, SrcLoc loc, const char *what);
Value lay_to_val(Eval *e, LayValue lv, SrcLoc loc);
LLVMValueRef lower_layint(Eval *e, LayInt v);
/* false, reported at loc, where v (or a constant in it) does not fit in i32 */
bool layint_fits(Eval *e, LayInt v, SrcLoc loc);
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
Value sm90_builtin(Eval *e, const char *name, const Node *call);           /* eval_sm90.c */
Value wgmma_builtin(Eval *e, const char *name, const Node *call);          /* eval_wgmma.c */
/* an `unroll for` whose body is only wgmma statements (and unrolled loops
 * of them) fuses them into one asm statement: begin before evaluating it
 * (false: not such a body, or already inside a group), end after */
bool sm90_wgmma_group_begin(Eval *e, const Node *body);
void sm90_wgmma_group_end(Eval *e);
/* `wgmma_fence(acc)` followed by such a loop: the fence joins the group's
 * first statement.  True: st was taken (the group is begun; evaluate next,
 * then end the group); false: evaluate both as usual. */
bool sm90_wgmma_group_fence(Eval *e, const Node *st, const Node *next);
Value atomic_builtin(Eval *e, const char *name, const Node *call);         /* eval_atomic.c */
Value sm90_store_builtin(Eval *e, const char *name, const Node *call);     /* eval_sm90_store.c */
Value tensor_builtin(Eval *e, const char *name, const Node *call);

/* argument checks shared by the builtins (eval_args.c): each reports a
 * diagnostic at the call or argument and returns false */
bool arg_count(Eval *e, const Node *call, const char *name, int n);
bool arg_smem_ref(Eval *e, const Node *arg, const char *what, LLVMValueRef *addr);
bool arg_tmap(Eval *e, const Node *arg, const char *name, LLVMValueRef *out);
bool arg_int(Eval *e, const Node *arg, ScalarType ty, LLVMValueRef *out);
bool arg_static_int(Eval *e, const Node *arg, int64_t lo, int64_t hi, int64_t *out, const char *what);
/* (eval_tensor.c) */
bool builtin_arity(Eval *e, const Node *call, const char *name, int lo, int hi);
bool builtin_need_kernel(Eval *e, const Node *call, const char *name);
bool builtin_get_tensor(Eval *e, const Node *arg, const char *what, Value *out);

/* the tensor operations' instruction emitters, shared with the atoms */
/* t's static size (false, reported, if dynamic), counted as work
 * (eval_work): the callers go through the elements one by one */
bool tensor_static_size(Eval *e, const Value *t, SrcLoc loc, int64_t *n);
LLVMValueRef tensor_elem_ptr(Eval *e, const Value *t, int64_t i, SrcLoc loc);  /* flat index i */
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
Value store_if(Eval *e, const Node *call);
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

/* copy and MMA atoms, tiled copies and tiled MMAs (eval_atom.c) */
Value atom_builtin(Eval *e, const char *name, const Node *call);
/* copy(tiled_copy, src, dst) / copy_if(...), with argument 1 evaluated */
Value atom_copy(Eval *e, const Node *call, Value tc, bool pred);
const char *atom_describe(Eval *e, const struct Atom *a);

/* builtins: the table and the call dispatch (builtins.c) */
bool builtin_exists(const char *name);
Value builtin_call(Eval *e, const char *name, const Node *call);
/* whether name is a builtin without side effects (builtins.c) */
bool builtin_is_pure(const char *name);
Value sreg_member(Eval *e, const char *ns, const Node *member);

#endif
