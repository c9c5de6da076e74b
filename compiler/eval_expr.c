/* eval_expr.c: expressions: names, literals, tuples and layouts,
 * operators, calls (user functions are inlined), member access. */
#include <string.h>

#include "codegen.h"
#include "debuginfo.h"
#include "eval.h"
#include "program.h"

Value val_load(Eval *e, Value v, SrcLoc loc)
{
    (void)loc;
    if (v.kind != V_REF && v.kind != V_VAR) return v;
    LLVMValueRef x = LLVMBuildLoad2(e->cg->b, cg_type(e->cg, v.ty), v.llvm, "");
    return val_dyn(x, v.ty);
}

Value eval_rvalue(Eval *e, const Node *n) { return val_load(e, eval_expr(e, n), n->loc); }

static const char *sreg_names[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};

bool eval_name_known(Eval *e, const char *name)
{
    ScalarType ty;
    if ((e->prog && program_lookup(e->prog, name)) || type_from_name(name, &ty)) return true;
    for (size_t i = 0; i < sizeof sreg_names / sizeof sreg_names[0]; i++)
        if (strcmp(sreg_names[i], name) == 0) return true;
    return builtin_exists(name) || lay_is_function(name);
}

static Value eval_name(Eval *e, const Node *n)
{
    Value v;
    if (scope_lookup(e, n->name, &v)) {
        if (v.kind == V_DYN) v.name = n->name;
        return v;
    }
    TopSym *s = e->prog ? program_lookup(e->prog, n->name) : NULL;
    if (s) {
        if (s->node->kind == N_CONST) return eval_const(e, s);
        if (s->node->kind == N_FUNC) return (Value){.kind = V_FUNC, .node = s->node};
        diag_error(e->diag, n->loc, "kernel '%s' cannot be used in an expression", n->name);
        return val_error();
    }
    ScalarType ty;
    if (type_from_name(n->name, &ty)) return (Value){.kind = V_TYPE, .ty = ty};
    for (size_t i = 0; i < sizeof sreg_names / sizeof sreg_names[0]; i++)
        if (strcmp(sreg_names[i], n->name) == 0) return (Value){.kind = V_SREG, .name = sreg_names[i]};
    if (builtin_exists(n->name) || lay_is_function(n->name)) return (Value){.kind = V_BUILTIN, .name = n->name};
    diag_error(e->diag, n->loc, "unknown name '%s'", n->name);
    return val_error();
}

/* (a, b, ...): an integer tuple, or a tiler when any element is a layout. */
static Value eval_tuple(Eval *e, const Node *n)
{
    int k = n->list.n;
    LayValue *vals = ARENA_ARRAY(e->arena, LayValue, k > 0 ? k : 1);
    bool ok = true, tiler = false;
    for (int i = 0; i < k; i++) {
        Value v = eval_rvalue(e, n->list.items[i]);
        if (v.kind == V_ERROR || !val_to_lay(e, v, &vals[i], n->list.items[i]->loc, "a tuple element")) {
            ok = false;
            continue;
        }
        if (vals[i].kind == LAY_V_LAYOUT) tiler = true;
        if (vals[i].kind == LAY_V_SWIZZLE || vals[i].kind == LAY_V_COMPOSED || vals[i].kind == LAY_V_TILER) {
            diag_error(e->diag, n->list.items[i]->loc, "a tuple element must be an integer, tuple or layout, found %s",
                       val_describe(e, &v));
            ok = false;
        }
    }
    if (!ok) return val_error();
    Value r = {.kind = V_LAY};
    if (tiler) {
        r.lay.kind = LAY_V_TILER;
        r.lay.ntiler = k;
        r.lay.tiler = vals;
        for (int i = 0; i < k; i++) {
            if (vals[i].kind == LAY_V_LAYOUT) continue;
            /* an integer n in a tiler is the layout n:1; a tuple is a shape with compact strides */
            LayTuple *shape = vals[i].kind == LAY_V_INT ? lay_tuple_leaf(e->arena, vals[i].i) : vals[i].tuple;
            LayValue lv, arg = {.kind = LAY_V_TUPLE, .tuple = shape};
            if (vals[i].kind == LAY_V_INT) arg = vals[i];
            LayError err = {.arg = -1};
            if (!lay_call(e->arena, "make_layout", NULL, 0, &arg, 1, &lv, &err)) {
                diag_error(e->diag, n->list.items[i]->loc, "%s", err.msg);
                return val_error();
            }
            vals[i] = lv;
        }
        return r;
    }
    LayTuple **elems = ARENA_ARRAY(e->arena, LayTuple *, k > 0 ? k : 1);
    for (int i = 0; i < k; i++)
        elems[i] = vals[i].kind == LAY_V_INT ? lay_tuple_leaf(e->arena, vals[i].i) : vals[i].tuple;
    r.lay.kind = LAY_V_TUPLE;
    r.lay.tuple = lay_tuple_make(e->arena, k, elems);
    return r;
}

static LayTuple *as_tuple(Eval *e, const Node *n, const char *what)
{
    Value v = eval_rvalue(e, n);
    if (v.kind == V_ERROR) return NULL;
    LayValue lv;
    if (!val_to_lay(e, v, &lv, n->loc, what)) return NULL;
    if (lv.kind == LAY_V_INT) return lay_tuple_leaf(e->arena, lv.i);
    if (lv.kind == LAY_V_TUPLE) return lv.tuple;
    diag_error(e->diag, n->loc, "%s must be an integer or a tuple of integers, found %s", what, val_describe(e, &v));
    return NULL;
}

static Value eval_layout(Eval *e, const Node *n)
{
    LayTuple *shape = as_tuple(e, n->a, "the shape of a layout");
    LayTuple *stride = as_tuple(e, n->b, "the stride of a layout");
    if (!shape || !stride) return val_error();
    Value r = {.kind = V_LAY};
    r.lay.kind = LAY_V_LAYOUT;
    LayError err = {.arg = -1};
    if (!lay_layout_make(e->arena, shape, stride, &r.lay.layout, &err)) {
        diag_error(e->diag, n->loc, "%s", err.msg);
        return val_error();
    }
    return r;
}

static Value eval_swizzle(Eval *e, const Node *n)
{
    int64_t bms[3];
    static const char *names[3] = {"B", "M", "S"};
    for (int i = 0; i < 3; i++) {
        Value v = eval_rvalue(e, n->list.items[i]);
        if (v.kind == V_ERROR) return v;
        if (v.kind != V_INT) {
            diag_error(e->diag, n->list.items[i]->loc, "swizzle parameter %s must be a compile-time integer, found %s",
                       names[i], val_describe(e, &v));
            return val_error();
        }
        bms[i] = v.i;
    }
    if (bms[0] < 0 || bms[0] > 16 || bms[1] < 0 || bms[1] > 32 || bms[2] < -32 || bms[2] > 32) {
        diag_error(e->diag, n->loc,
                   "swizzle Sw<%lld,%lld,%lld> is out of range (need 0 <= B <= 16, 0 <= M <= 32, |S| <= 32)",
                   (long long)bms[0], (long long)bms[1], (long long)bms[2]);
        return val_error();
    }
    Value r = {.kind = V_LAY};
    r.lay.kind = LAY_V_SWIZZLE;
    r.lay.sw = (LaySwizzle){(int)bms[0], (int)bms[1], (int)bms[2]};
    return r;
}

static Value eval_unary(Eval *e, const Node *n)
{
    Value v = eval_rvalue(e, n->a);
    if (v.kind == V_ERROR) return v;
    switch (n->op) {
    case OP_NEG:
        if (v.kind == V_INT) {
            if (v.i == INT64_MIN) {
                diag_error(e->diag, n->loc, "integer overflow in '-'");
                return val_error();
            }
            return val_int(-v.i);
        }
        if (v.kind == V_FLOAT) return val_float(-v.f);
        if (v.kind == V_DYN && v.ty != TY_BOOL) {
            if (type_is_float(v.ty)) {
                if (v.ty != TY_F32 && v.ty != TY_F64) v = conv_to(e, v, TY_F32, n->loc, false);
                return val_dyn(LLVMBuildFNeg(e->cg->b, v.llvm, ""), v.ty);
            }
            return val_dyn(LLVMBuildNeg(e->cg->b, v.llvm, ""), v.ty);
        }
        break;
    case '!':
        if (v.kind == V_BOOL) return val_bool(!v.i);
        if (v.kind == V_DYN && v.ty == TY_BOOL) return val_dyn(LLVMBuildNot(e->cg->b, v.llvm, ""), TY_BOOL);
        break;
    case '~':
        if (v.kind == V_INT) return val_int(~v.i);
        if (v.kind == V_DYN && type_is_int(v.ty)) return val_dyn(LLVMBuildNot(e->cg->b, v.llvm, ""), v.ty);
        break;
    default: break;
    }
    diag_error(e->diag, n->loc, "operator '%s' does not apply to %s", ast_op_name(n->op), val_describe(e, &v));
    return val_error();
}

static Value call_function(Eval *e, const Node *fn, const Node *call)
{
    if (call->list2.n) {
        diag_error(e->diag, call->loc, "function '%s' takes no template arguments", fn->name);
        return val_error();
    }
    if (call->list.n != fn->list.n) {
        diag_error(e->diag, call->loc, "function '%s' expects %d argument%s, got %d", fn->name, fn->list.n,
                   fn->list.n == 1 ? "" : "s", call->list.n);
        return val_error();
    }
    if (e->call_depth >= 64) {
        diag_error(e->diag, call->loc, "calls nested more than 64 deep (recursion is not supported)");
        return val_error();
    }
    Value *args = ARENA_ARRAY(e->arena, Value, fn->list.n > 0 ? fn->list.n : 1);
    bool ok = true;
    for (int i = 0; i < fn->list.n; i++) {
        args[i] = eval_rvalue(e, call->list.items[i]);
        if (args[i].kind == V_ERROR) ok = false;
        const Node *ty = fn->list.items[i]->a;
        if (ok && ty && ty->kind == N_TYPE_NAME) {
            Value tv = eval_type(e, ty);
            if (tv.kind == V_TYPE) args[i] = conv_to(e, args[i], tv.ty, call->list.items[i]->loc, false);
            if (args[i].kind == V_ERROR) ok = false;
        }
    }
    if (!ok) return val_error();
    if (!eval_work(e, 1, call->loc)) return val_error();
    eval_limits(e); /* shared with the copy */
    Eval sub = *e;
    sub.scope = NULL; /* lexical scoping: a function sees globals and its parameters */
    if (!sub.expanding) sub.expanding = call;
    sub.call_depth++;
    sub.in_fn = true;
    sub.returned = false;
    sub.ret = (Value){.kind = V_VOID};
    sub.dyn_depth = 0;
    scope_push(&sub);
    for (int i = 0; i < fn->list.n; i++) scope_bind(&sub, fn->list.items[i]->name, args[i]);
    LLVMMetadataRef at = cg_debug_save(e->cg); /* the rest of the caller's statement is the caller's line */
    eval_block(&sub, fn->d);
    cg_debug_restore(e->cg, at);
    if (eval_exhausted(&sub)) return val_error(); /* the body was cut short, reported */
    Value r = sub.ret;
    if (fn->a && r.kind != V_ERROR) {
        Value tv = eval_type(&sub, fn->a);
        if (tv.kind == V_TYPE) r = conv_to(&sub, r, tv.ty, r.kind == V_VOID ? call->loc : sub.ret_loc, false);
    }
    return r;
}

Value eval_call(Eval *e, const Node *call)
{
    Value callee = eval_expr(e, call->a);
    switch (callee.kind) {
    case V_ERROR: return callee;
    case V_FUNC: return call_function(e, callee.node, call);
    case V_BUILTIN: return builtin_call(e, callee.name, call);
    case V_TYPE:
        if (call->list.n != 1) {
            diag_error(e->diag, call->loc, "conversion to %s takes one argument", type_name(callee.ty));
            return val_error();
        }
        return conv_to(e, eval_rvalue(e, call->list.items[0]), callee.ty, call->loc, true);
    case V_TENSOR: return tensor_index(e, callee, &call->list, call->loc);
    case V_ABSENT:
        diag_error(e->diag, call->a->loc,
                   "parameter '%s' is absent here: its condition is false for these template values",
                   callee.node->name);
        diag_note(e->diag, callee.node->b->loc, "the condition of '%s'", callee.node->name);
        return val_error();
    case V_LAY:
        if (callee.lay.kind == LAY_V_LAYOUT || callee.lay.kind == LAY_V_COMPOSED) {
            /* L(c): the index of coordinate c, as in CuTe */
            Value t = callee;
            t.ty = TY_VOID;
            return layout_apply(e, t, &call->list, call->loc);
        }
        break;
    default: break;
    }
    diag_error(e->diag, call->a->loc, "%s cannot be called", val_describe(e, &callee));
    return val_error();
}

static Value eval_node(Eval *e, const Node *n)
{
    switch (n->kind) {
    case N_INT: return val_int(n->ival);
    case N_FLOAT: return val_float(n->fval);
    case N_BOOL: return val_bool(n->ival != 0);
    case N_NAME: return eval_name(e, n);
    case N_UNDERSCORE: return (Value){.kind = V_UNDERSCORE};
    case N_TUPLE: return eval_tuple(e, n);
    case N_LAYOUT: return eval_layout(e, n);
    case N_SWIZZLE: return eval_swizzle(e, n);
    case N_UNARY: return eval_unary(e, n);
    case N_BINARY: {
        Value a = eval_rvalue(e, n->a), b = eval_rvalue(e, n->b);
        return binop(e, n->op, a, b, n->loc);
    }
    case N_CALL: return eval_call(e, n);
    case N_MEMBER: {
        Value o = eval_expr(e, n->a);
        if (o.kind == V_ERROR) return o;
        if (o.kind == V_SREG) return sreg_member(e, o.name, n);
        diag_error(e->diag, n->name_loc, "%s has no member '%s'", val_describe(e, &o), n->name);
        return val_error();
    }
    case N_STRING: diag_error(e->diag, n->loc, "a string is not a value here"); return val_error();
    default: diag_error(e->diag, n->loc, "expected an expression"); return val_error();
    }
}

Value eval_expr(Eval *e, const Node *n)
{
    int cost = n->kind == N_CALL ? EVAL_CALL_COST : 1;
    if (!eval_enter(e, n->loc, cost)) return val_error();
    Value v = eval_node(e, n);
    eval_leave(e, cost);
    return v;
}
