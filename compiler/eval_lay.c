/* eval_lay.c: the bridge between evaluator values and the layout algebra.
 * Runtime integers enter layouts as symbolic leaves (their LLVM value rides
 * in LayExpr.user); whatever the algebra returns comes back as a static
 * value or is lowered here, and tensor indexing goes through lay_crd2idx
 * alone: there is no other index computation in the compiler. */
#include <string.h>

#include "codegen.h"
#include "eval.h"

static Value lay_error(Eval *e, const LayError *err, SrcLoc loc, const NodeList *args)
{
    SrcLoc at = loc;
    if (args && err->arg >= 0 && err->arg < args->n) at = args->items[err->arg]->loc;
    diag_error(e->diag, at, "%s", err->msg);
    return val_error();
}

/* A runtime integer as a symbolic leaf of its own width: an i64 leaf
 * makes the index math it enters 64-bit (lower_expr), so nothing is
 * narrowed. */
static bool dyn_leaf(Eval *e, Value v, LayInt *out)
{
    *out = lay_int_sym(e->arena, v.name, v.llvm);
    return true;
}

bool val_to_lay(Eval *e, Value v, LayValue *out, SrcLoc loc, const char *what)
{
    memset(out, 0, sizeof *out);
    switch (v.kind) {
    case V_INT:
        out->kind = LAY_V_INT;
        out->i = lay_int_static(v.i);
        return true;
    case V_DYN:
        if (type_is_int(v.ty)) {
            out->kind = LAY_V_INT;
            return dyn_leaf(e, v, &out->i);
        }
        break;
    case V_LAY: *out = v.lay; return true;
    case V_TENSOR: *out = v.lay; return true;
    case V_ERROR: return false;
    default: break;
    }
    diag_error(e->diag, loc, "%s must be an integer, tuple or layout, found %s", what, val_describe(e, &v));
    return false;
}

static bool is_i64(LLVMValueRef v) { return LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 64; }

/* v (an i32) as an i64 in a global tensor's offset.  A sum, difference
 * or product with a constant is extended through: a coordinate such as
 * `r + 16 * i` is taken as the integer it denotes, so sext(r) + 16 lets
 * LLVM fold the constant into the address, as it did in 32 bits.  Kernel
 * parameters are sizes, strides or coordinates, never negative: zero-
 * extended, like the special registers LLVM knows to be non-negative, so
 * that their products are PTX's mul.wide.u32 and not 64-bit multiplies
 * of mixed extensions; anything else is sign-extended. */
static LLVMValueRef widen(Eval *e, LLVMValueRef v, int depth)
{
    LLVMBuilderRef b = e->cg->b;
    if (LLVMIsAConstantInt(v)) return LLVMConstInt(e->cg->t_i64, (unsigned long long)LLVMConstIntGetSExtValue(v), 1);
    LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : (LLVMOpcode)0;
    if (depth > 0 && (op == LLVMAdd || op == LLVMSub || op == LLVMMul) &&
        (LLVMIsAConstantInt(LLVMGetOperand(v, 0)) || LLVMIsAConstantInt(LLVMGetOperand(v, 1)))) {
        LLVMValueRef l = widen(e, LLVMGetOperand(v, 0), depth - 1), r = widen(e, LLVMGetOperand(v, 1), depth - 1);
        return op == LLVMAdd   ? LLVMBuildNSWAdd(b, l, r, "")
               : op == LLVMSub ? LLVMBuildNSWSub(b, l, r, "")
                               : LLVMBuildNSWMul(b, l, r, "");
    }
    if (LLVMIsAArgument(v)) return LLVMBuildZExt(b, v, e->cg->t_i64, "");
    return LLVMBuildSExt(b, v, e->cg->t_i64, "");
}

/* l and r at one width: the wider of the two (sign-extended, as the GEP
 * extends an i32 index), or 64 bits if wide. */
static void same_width(Eval *e, LLVMValueRef *l, LLVMValueRef *r, bool wide)
{
    if (wide || is_i64(*l) || is_i64(*r)) {
        if (!is_i64(*l)) *l = wide ? widen(e, *l, 4) : LLVMBuildSExt(e->cg->b, *l, e->cg->t_i64, "");
        if (!is_i64(*r)) *r = wide ? widen(e, *r, 4) : LLVMBuildSExt(e->cg->b, *r, e->cg->t_i64, "");
    }
}

static LLVMValueRef lower_expr(Eval *e, const LayExpr *x, bool wide);

/* The factors of a product (through nested products), constants
 * multiplied into *c; false past n_max factors or 64 bits. */
static bool product_factors(const LayExpr *x, const LayExpr **f, int *n, int n_max, int64_t *c)
{
    if (x->op == LAY_E_CONST) return !__builtin_mul_overflow(*c, x->value, c);
    if (x->op != LAY_E_MUL) {
        if (*n == n_max) return false;
        f[(*n)++] = x;
        return true;
    }
    return product_factors(x->a, f, n, n_max, c) && product_factors(x->b, f, n, n_max, c);
}

/* A product in a global tensor's offset: the runtime factors first, the
 * constants last, so that i * (64 * K) is one mul.wide of i and K and a
 * shift rather than a 64-bit multiply of i by the widened 64 * K. */
static LLVMValueRef lower_product(Eval *e, const LayExpr *x)
{
    enum { MAX_FACTORS = 8 };
    const LayExpr *f[MAX_FACTORS];
    int n = 0;
    int64_t c = 1;
    if (!product_factors(x, f, &n, MAX_FACTORS, &c) || n == 0) return NULL;
    LLVMValueRef p = lower_expr(e, f[0], true);
    for (int i = 1; i < n; i++) {
        LLVMValueRef v = lower_expr(e, f[i], true);
        same_width(e, &p, &v, true);
        p = LLVMBuildNSWMul(e->cg->b, p, v, "");
    }
    if (!is_i64(p)) p = widen(e, p, 4);
    if (c == 1) return p;
    return LLVMBuildNSWMul(e->cg->b, p, LLVMConstInt(e->cg->t_i64, (unsigned long long)c, 1), "");
}

/* Index math has the width its values need (docs/compiler.md, "Index
 * math"): 32-bit where every leaf is i32 and every constant fits, 64-bit
 * from any i64 leaf or larger constant upwards.  A global tensor's
 * runtime offset is lowered `wide`: its sums and products are 64-bit
 * whatever the leaves' width (a product of two i32 values is one
 * mul.wide), so that m * lda past 2^31 does not wrap; divisions and the
 * swizzle's bit operations keep their operands' width, so that the
 * decomposition of a thread index stays 32-bit. */
static LLVMValueRef lower_expr(Eval *e, const LayExpr *x, bool wide)
{
    LLVMBuilderRef b = e->cg->b;
    switch (x->op) {
    case LAY_E_SYM: return (LLVMValueRef)x->user;
    case LAY_E_CONST: {
        bool fits = int_fits_i32(x->value);
        return LLVMConstInt(fits ? e->cg->t_i32 : e->cg->t_i64, (unsigned long long)x->value, 1);
    }
    default: break;
    }
    if (wide && x->op == LAY_E_MUL) {
        LLVMValueRef p = lower_product(e, x);
        if (p) return p;
    }
    LLVMValueRef l = lower_expr(e, x->a, wide), r = lower_expr(e, x->b, wide);
    same_width(e, &l, &r, wide && (x->op == LAY_E_ADD || x->op == LAY_E_SUB || x->op == LAY_E_MUL));
    LLVMTypeRef t = LLVMTypeOf(l);
    switch (x->op) {
    /* an index fits in its width (64 bits for global tensors; shared and
     * register tensors are far smaller than 2^31 elements), so sums and
     * products do not wrap: `nsw` lets LLVM fold a constant offset into
     * the address (sext(x + c) = sext(x) + c), one add for each of an
     * unrolled epilogue's stores instead of a multiply-add */
    case LAY_E_ADD: return LLVMBuildNSWAdd(b, l, r, "");
    case LAY_E_SUB: return LLVMBuildSub(b, l, r, "");
    case LAY_E_MUL: return LLVMBuildNSWMul(b, l, r, "");
    /* layout arithmetic is on non-negative values: unsigned ops are exact
     * and cheaper than signed ones */
    case LAY_E_DIV: return LLVMBuildUDiv(b, l, r, "");
    case LAY_E_MOD: return LLVMBuildURem(b, l, r, "");
    case LAY_E_CEILDIV: {
        LLVMValueRef one = LLVMConstInt(t, 1, 0);
        return LLVMBuildUDiv(b, LLVMBuildSub(b, LLVMBuildAdd(b, l, r, ""), one, ""), r, "");
    }
    case LAY_E_MIN: return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, l, r, ""), l, r, "");
    case LAY_E_MAX: return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, l, r, ""), l, r, "");
    case LAY_E_XOR: return LLVMBuildXor(b, l, r, "");
    case LAY_E_AND: return LLVMBuildAnd(b, l, r, "");
    case LAY_E_SHR: return LLVMBuildLShr(b, l, r, "");
    case LAY_E_SHL: return LLVMBuildShl(b, l, r, "");
    default: return LLVMConstInt(t, 0, 0);
    }
}

LLVMValueRef lower_layint(Eval *e, LayInt v)
{
    if (!v.is_static) return lower_expr(e, v.expr, false);
    bool fits = int_fits_i32(v.value);
    return LLVMConstInt(fits ? e->cg->t_i32 : e->cg->t_i64, (unsigned long long)v.value, 1);
}

void lower_layint_pair(Eval *e, LayInt a, LayInt b, LLVMValueRef *la, LLVMValueRef *lb)
{
    *la = lower_layint(e, a);
    *lb = lower_layint(e, b);
    same_width(e, la, lb, false);
}

LLVMValueRef tensor_addr(Eval *e, const Value *t, LayInt off)
{
    bool wide = t->space == SPACE_GMEM && !off.is_static;
    LLVMValueRef idx = wide ? lower_expr(e, off.expr, true) : lower_layint(e, off);
    return LLVMBuildGEP2(e->cg->b, cg_type(e->cg, t->ty), t->llvm, &idx, 1, "");
}

Value lay_to_val(Eval *e, LayValue lv)
{
    if (lv.kind == LAY_V_INT) {
        if (lv.i.is_static) return val_int(lv.i.value);
        /* without code generation a dynamic integer is one of cutec eval's
         * symbolic names (eval_symbolic.c), or built from them: it stays
         * symbolic; lowered, it is i64 where a leaf or constant needs it */
        if (!e->cg) return (Value){.kind = V_LAY, .lay = lv};
        LLVMValueRef x = lower_layint(e, lv.i);
        return val_dyn(x, is_i64(x) ? TY_I64 : TY_I32);
    }
    Value v = {.kind = V_LAY, .lay = lv};
    return v;
}

/* One coordinate argument of a tensor access: an integer or a tuple. */
LayTuple *coord_of(Eval *e, Value v, SrcLoc loc)
{
    if (v.kind == V_UNDERSCORE) {
        diag_error(e->diag, loc, "slicing with '_' is not supported yet; index every mode");
        return NULL;
    }
    LayValue lv;
    if (!val_to_lay(e, v, &lv, loc, "a tensor coordinate")) return NULL;
    if (lv.kind == LAY_V_INT) return lay_tuple_leaf(e->arena, lv.i);
    if (lv.kind == LAY_V_TUPLE) return lv.tuple;
    diag_error(e->diag, loc, "a tensor coordinate must be an integer or a tuple, found %s", val_describe(e, &v));
    return NULL;
}

/* The index of the coordinate given by `args` in layout `lay`. */
static bool index_of(Eval *e, const LayValue *lay, const NodeList *args, SrcLoc loc, LayInt *off)
{
    if (args->n == 0) {
        diag_error(e->diag, loc, "an access needs a coordinate");
        return false;
    }
    LayTuple **elems = ARENA_ARRAY(e->arena, LayTuple *, args->n);
    bool ok = true;
    for (int i = 0; i < args->n; i++) {
        Value c = eval_rvalue(e, args->items[i]);
        if (c.kind == V_ERROR) {
            ok = false;
            continue;
        }
        elems[i] = coord_of(e, c, args->items[i]->loc);
        if (!elems[i]) ok = false;
    }
    if (!ok) return false;
    LayTuple *crd = args->n == 1 ? elems[0] : lay_tuple_make(e->arena, args->n, elems);
    LayError err = {.arg = -1};
    bool done = lay->kind == LAY_V_COMPOSED ? lay_composed_crd2idx(e->arena, crd, &lay->composed, off, &err)
                                            : lay_crd2idx(e->arena, crd, &lay->layout, off, &err);
    if (!done) {
        lay_error(e, &err, loc, args);
        return false;
    }
    return true;
}

Value layout_apply(Eval *e, Value lay, const NodeList *args, SrcLoc loc)
{
    LayInt off;
    if (!index_of(e, &lay.lay, args, loc, &off)) return val_error();
    LayValue r = {.kind = LAY_V_INT, .i = off};
    return lay_to_val(e, r);
}

/* An identity tensor's element: the coordinate tuple, one crd2idx per
 * component layout. */
static Value identity_index(Eval *e, Value t, const NodeList *args, SrcLoc loc)
{
    LayTuple **el = ARENA_ARRAY(e->arena, LayTuple *, t.ncomp);
    for (int c = 0; c < t.ncomp; c++) {
        LayValue lv = {.kind = LAY_V_LAYOUT, .layout = t.comp[c]};
        LayInt x;
        if (!index_of(e, &lv, args, loc, &x) || !lay_int_add(e->arena, t.coff[c], x, &x)) return val_error();
        el[c] = lay_tuple_leaf(e->arena, x);
    }
    Value r = {.kind = V_LAY};
    r.lay.kind = LAY_V_TUPLE;
    r.lay.tuple = lay_tuple_make(e->arena, t.ncomp, el);
    return r;
}

Value tensor_index(Eval *e, Value t, const NodeList *args, SrcLoc loc)
{
    if (tensor_has_slice(args)) return tensor_slice(e, t, args, loc);
    if (t.space == SPACE_IDENT) return identity_index(e, t, args, loc);
    LayInt off;
    if (!index_of(e, &t.lay, args, loc, &off)) return val_error();
    if (!lay_int_add(e->arena, t.toff, off, &off)) {
        diag_error(e->diag, loc, "tensor offset overflows 64 bits");
        return val_error();
    }
    if (!e->cg) {
        diag_error(e->diag, loc, "tensor elements are not compile-time values");
        return val_error();
    }
    Value r = {.kind = V_REF, .llvm = tensor_addr(e, &t, off), .ty = t.ty, .space = t.space};
    return r;
}

Value call_layout_fn(Eval *e, const char *name, const Node *call)
{
    int n = call->list.n, nt = call->list2.n;
    LayValue *args = ARENA_ARRAY(e->arena, LayValue, n > 0 ? n : 1);
    int64_t *targs = ARENA_ARRAY(e->arena, int64_t, nt > 0 ? nt : 1);
    bool ok = true;
    for (int i = 0; i < nt; i++) {
        Value v = eval_rvalue(e, call->list2.items[i]);
        if (v.kind == V_ERROR) {
            ok = false;
            continue;
        }
        if (v.kind != V_INT) {
            diag_error(e->diag, call->list2.items[i]->loc,
                       "template argument of '%s' must be a compile-time integer, found %s", name, val_describe(e, &v));
            ok = false;
            continue;
        }
        targs[i] = v.i;
    }
    Value tensor = {.kind = V_VOID};
    for (int i = 0; i < n; i++) {
        Value v = eval_rvalue(e, call->list.items[i]);
        if (v.kind == V_ERROR) {
            ok = false;
            continue;
        }
        if (i == 0 && v.kind == V_TENSOR) tensor = v;
        const char *what = arena_printf(e->arena, "argument %d of '%s'", i + 1, name);
        if (!val_to_lay(e, v, &args[i], call->list.items[i]->loc, what)) ok = false;
    }
    if (!ok) return val_error();
    LayValue out;
    LayError err = {.arg = -1};
    if (!lay_call(e->arena, name, targs, nt, args, n, &out, &err)) return lay_error(e, &err, call->loc, &call->list);
    /* a layout function applied to a tensor and giving a layout gives a view
     * of the same data: zipped_divide(T, (BM, BK)), coalesce(T), ...; an
     * identity tensor's coordinate components all get the same function */
    if (tensor.kind == V_TENSOR && (out.kind == LAY_V_LAYOUT || out.kind == LAY_V_COMPOSED)) {
        if (tensor.ncomp) {
            LayLayout *comps = ARENA_ARRAY(e->arena, LayLayout, tensor.ncomp);
            for (int c = 0; c < tensor.ncomp; c++) {
                args[0] = (LayValue){.kind = LAY_V_LAYOUT, .layout = tensor.comp[c]};
                LayValue oc;
                if (!lay_call(e->arena, name, targs, nt, args, n, &oc, &err) || oc.kind != LAY_V_LAYOUT)
                    return lay_error(e, &err, call->loc, &call->list);
                comps[c] = oc.layout;
            }
            tensor.comp = comps;
        }
        tensor.lay = out;
        return tensor;
    }
    return lay_to_val(e, out);
}

bool tensor_has_slice(const NodeList *args)
{
    for (int i = 0; i < args->n; i++)
        if (args->items[i]->kind == N_UNDERSCORE) return true;
    return false;
}

/* One layout sliced: fixed modes (crds[i] != NULL) add their index to
 * *off, `_` modes stay. */
static bool slice_one(Eval *e, const LayLayout *L, LayTuple **crds, const NodeList *args, SrcLoc loc, LayLayout *out,
                      LayInt *off)
{
    int rank = L->shape->is_leaf ? 1 : L->shape->n;
    LayTuple **ks = ARENA_ARRAY(e->arena, LayTuple *, rank), **kd = ARENA_ARRAY(e->arena, LayTuple *, rank);
    int nk = 0;
    for (int i = 0; i < rank; i++) {
        LayTuple *si = L->shape->is_leaf ? L->shape : L->shape->elems[i];
        LayTuple *di = L->stride->is_leaf ? L->stride : L->stride->elems[i];
        if (!crds[i]) {
            ks[nk] = si;
            kd[nk++] = di;
            continue;
        }
        LayLayout mode = {.shape = si, .stride = di};
        LayInt x;
        LayError err = {.arg = -1};
        if (!lay_crd2idx(e->arena, crds[i], &mode, &x, &err)) {
            diag_error(e->diag, args->items[i]->loc, "%s", err.msg);
            return false;
        }
        if (!lay_int_add(e->arena, *off, x, off)) {
            diag_error(e->diag, loc, "tensor offset overflows 64 bits");
            return false;
        }
    }
    *out = nk == 1 ? (LayLayout){ks[0], kd[0]}
                   : (LayLayout){lay_tuple_make(e->arena, nk, ks), lay_tuple_make(e->arena, nk, kd)};
    return true;
}

/* T(c0, _, c2): fixed modes move into the view's offset (inside the
 * swizzle for a composed layout, as CuTe does), `_` modes stay. */
Value tensor_slice(Eval *e, Value t, const NodeList *args, SrcLoc loc)
{
    LayLayout *L = t.lay.kind == LAY_V_COMPOSED ? &t.lay.composed.outer : &t.lay.layout;
    int rank = L->shape->is_leaf ? 1 : L->shape->n;
    if (args->n != rank) {
        diag_error(e->diag, loc, "slicing a rank-%d tensor needs %d coordinates, got %d", rank, rank, args->n);
        return val_error();
    }
    /* the coordinates once; then the same slice of every component */
    LayTuple **crds = ARENA_ARRAY(e->arena, LayTuple *, rank);
    for (int i = 0; i < rank; i++) {
        crds[i] = NULL;
        if (args->items[i]->kind == N_UNDERSCORE) continue;
        Value c = eval_rvalue(e, args->items[i]);
        if (c.kind == V_ERROR) return c;
        crds[i] = coord_of(e, c, args->items[i]->loc);
        if (!crds[i]) return val_error();
    }
    Value r = t;
    if (t.lay.kind == LAY_V_COMPOSED) {
        LayInt off = lay_int_static(0);
        if (!slice_one(e, L, crds, args, loc, &r.lay.composed.outer, &off) ||
            !lay_int_add(e->arena, t.lay.composed.offset, off, &r.lay.composed.offset))
            return val_error();
        return r;
    }
    r.toff = lay_int_static(0);
    if (!slice_one(e, &t.lay.layout, crds, args, loc, &r.lay.layout, &r.toff) ||
        !lay_int_add(e->arena, t.toff, r.toff, &r.toff))
        return val_error();
    if (t.ncomp) {
        r.comp = ARENA_ARRAY(e->arena, LayLayout, t.ncomp);
        r.coff = ARENA_ARRAY(e->arena, LayInt, t.ncomp);
        for (int c = 0; c < t.ncomp; c++) {
            LayInt off = lay_int_static(0);
            if (!slice_one(e, &t.comp[c], crds, args, loc, &r.comp[c], &off) ||
                !lay_int_add(e->arena, t.coff[c], off, &r.coff[c]))
                return val_error();
        }
    }
    return r;
}
