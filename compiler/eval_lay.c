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

/* A runtime integer as an i32 symbolic leaf (index math is 32-bit).  An
 * i64 is never narrowed silently: in a kernel parameter's layout (an i64
 * leading dimension, as BLAS has them) it is a warning, elsewhere an
 * error that asks for i32(...). */
static bool dyn_leaf(Eval *e, Value v, SrcLoc loc, const char *what, LayInt *out)
{
    LLVMValueRef x = v.llvm;
    if (v.ty == TY_I64) {
        const char *name = v.name ? arena_printf(e->arena, "'%s'", v.name) : "an i64 value";
        if (!e->param_layout) {
            diag_error(e->diag, loc, "%s is %s%s, but index math is 32-bit; convert it with i32(...)", what,
                       v.name ? "the i64 value " : "", v.name ? name : "an i64 value");
            return false;
        }
        diag_warning(e->diag, loc, "i64 parameter %s is used as i32 in this layout (index math is 32-bit)", name);
        x = LLVMBuildTrunc(e->cg->b, x, e->cg->t_i32, "");
    }
    *out = lay_int_sym(e->arena, v.name, x);
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
            return dyn_leaf(e, v, loc, what, &out->i);
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

static LLVMValueRef lower_expr(Eval *e, const LayExpr *x)
{
    LLVMBuilderRef b = e->cg->b;
    LLVMTypeRef i32 = e->cg->t_i32;
    switch (x->op) {
    case LAY_E_SYM: return (LLVMValueRef)x->user;
    case LAY_E_CONST: return LLVMConstInt(i32, (unsigned long long)x->value, 1);
    default: break;
    }
    LLVMValueRef l = lower_expr(e, x->a), r = lower_expr(e, x->b);
    switch (x->op) {
    /* an index fits in 32 bits (the runtime rejects larger tensors), so
     * sums and products do not wrap: `nsw` lets LLVM fold a constant
     * offset into the address (sext(x + c) = sext(x) + c), one add for
     * each of an unrolled epilogue's stores instead of a multiply-add */
    case LAY_E_ADD: return LLVMBuildNSWAdd(b, l, r, "");
    case LAY_E_SUB: return LLVMBuildSub(b, l, r, "");
    case LAY_E_MUL: return LLVMBuildNSWMul(b, l, r, "");
    /* layout arithmetic is on non-negative values: unsigned ops are exact
     * and cheaper than signed ones */
    case LAY_E_DIV: return LLVMBuildUDiv(b, l, r, "");
    case LAY_E_MOD: return LLVMBuildURem(b, l, r, "");
    case LAY_E_CEILDIV: {
        LLVMValueRef one = LLVMConstInt(i32, 1, 0);
        return LLVMBuildUDiv(b, LLVMBuildSub(b, LLVMBuildAdd(b, l, r, ""), one, ""), r, "");
    }
    case LAY_E_MIN: return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, l, r, ""), l, r, "");
    case LAY_E_MAX: return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, l, r, ""), l, r, "");
    case LAY_E_XOR: return LLVMBuildXor(b, l, r, "");
    case LAY_E_AND: return LLVMBuildAnd(b, l, r, "");
    case LAY_E_SHR: return LLVMBuildLShr(b, l, r, "");
    case LAY_E_SHL: return LLVMBuildShl(b, l, r, "");
    default: return LLVMConstInt(i32, 0, 0);
    }
}

/* Index math is 32-bit: a static term past i32 would be truncated when
 * lowered, so it is an error instead.  Checked on the whole index and on
 * the constant terms near its root (an offset added to a runtime index);
 * expressions share subterms, so the walk stops at a small depth. */
static bool const_fits(const LayExpr *x, int depth, int64_t *bad)
{
    if (x->op == LAY_E_CONST) {
        *bad = x->value;
        return x->value >= INT32_MIN && x->value <= INT32_MAX;
    }
    if (x->op == LAY_E_SYM || depth == 0) return true;
    return (!x->a || const_fits(x->a, depth - 1, bad)) && (!x->b || const_fits(x->b, depth - 1, bad));
}

bool layint_fits(Eval *e, LayInt v, SrcLoc loc)
{
    int64_t bad = v.value;
    if (v.is_static ? v.value >= INT32_MIN && v.value <= INT32_MAX : const_fits(v.expr, 3, &bad)) return true;
    diag_error(e->diag, loc, "index %lld does not fit in 32 bits (index math is 32-bit)", (long long)bad);
    return false;
}

LLVMValueRef lower_layint(Eval *e, LayInt v)
{
    if (v.is_static) return LLVMConstInt(e->cg->t_i32, (unsigned long long)v.value, 1);
    return lower_expr(e, v.expr);
}

Value lay_to_val(Eval *e, LayValue lv, SrcLoc loc)
{
    if (lv.kind == LAY_V_INT) {
        if (lv.i.is_static) return val_int(lv.i.value);
        /* without code generation a dynamic integer is one of cutec eval's
         * symbolic names (eval_symbolic.c), or built from them: it stays
         * symbolic; lowered, its constants must fit index math's 32 bits */
        if (!e->cg) return (Value){.kind = V_LAY, .lay = lv};
        if (!layint_fits(e, lv.i, loc)) return val_error();
        return val_dyn(lower_layint(e, lv.i), TY_I32);
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
    return lay_to_val(e, r, loc);
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
    if (!layint_fits(e, off, loc)) return val_error();
    LLVMValueRef idx = lower_layint(e, off);
    LLVMTypeRef et = cg_type(e->cg, t.ty);
    LLVMValueRef addr = LLVMBuildGEP2(e->cg->b, et, t.llvm, &idx, 1, "");
    Value r = {.kind = V_REF, .llvm = addr, .ty = t.ty, .space = t.space};
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
    return lay_to_val(e, out, call->loc);
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
