/* eval_symbolic.c: `cutec eval`'s symbolic names.  With no kernel to
 * generate code for, a plain name the language does not know (`M` in
 * `zipped_divide(make_layout((M,N)), (128,64))`) stands for a positive
 * integer unknown at compile time: a symbolic leaf of the layout algebra,
 * which then prints results such as `ceil_div(M,128)` exactly as the
 * compiler would index with them.  Only names in value position become
 * symbols, so a misspelt function (`zipped_divde(...)`) is still an
 * unknown name. */
#include "eval.h"

static bool is_symbolic(const Value *v) { return v->kind == V_LAY && v->lay.kind == LAY_V_INT && !v->lay.i.is_static; }

/* Names are looked up one by one along the scope chain: a bound keeps a
 * hostile expression of thousands of names from taking quadratic time. */
enum { MAX_SYMBOLS = 256 };

static void bind_free_names(Eval *e, const Node *n, int *nsym)
{
    if (!n) return;
    if (n->kind == N_NAME) {
        Value v;
        if (scope_lookup(e, n->name, &v) || eval_name_known(e, n->name)) return;
        if (++*nsym > MAX_SYMBOLS) {
            if (*nsym == MAX_SYMBOLS + 1)
                diag_error(e->diag, n->loc, "more than %d symbolic names in one expression", MAX_SYMBOLS);
            return;
        }
        v = (Value){.kind = V_LAY};
        v.lay.kind = LAY_V_INT;
        v.lay.i = lay_int_sym(e->arena, n->name, NULL);
        scope_bind(e, n->name, v);
        return;
    }
    /* a callee or a member's object is never a symbol: f(x), threadIdx.x */
    bool callee = (n->kind == N_CALL || n->kind == N_MEMBER) && n->a && n->a->kind == N_NAME;
    if (!callee) bind_free_names(e, n->a, nsym);
    const Node *kids[4] = {n->b, n->c, n->d, n->e};
    for (int i = 0; i < 4; i++) bind_free_names(e, kids[i], nsym);
    const NodeList *lists[3] = {&n->list, &n->list2, &n->list3};
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < lists[l]->n; i++) bind_free_names(e, lists[l]->items[i], nsym);
}

void eval_bind_symbols(Eval *e, const Node *expr)
{
    int nsym = 0;
    scope_push(e);
    bind_free_names(e, expr, &nsym);
}

/* In a kernel parameter's layout, + - * / % of runtime integers stay
 * expressions of the parameters (N / 2, not an unnamed runtime value), so
 * that the contract can describe the tensor: the leaves keep their LLVM
 * values for lowering. */
static Value binop_param_layout(Eval *e, int op, Value a, Value b, SrcLoc loc)
{
    bool arith = op == '+' || op == '-' || op == '*' || op == '/' || op == '%';
    bool ints =
        (a.kind == V_INT || (a.kind == V_DYN && type_is_int(a.ty)) || (a.kind == V_LAY && a.lay.kind == LAY_V_INT)) &&
        (b.kind == V_INT || (b.kind == V_DYN && type_is_int(b.ty)) || (b.kind == V_LAY && b.lay.kind == LAY_V_INT));
    if (!arith || !ints || (a.kind == V_INT && b.kind == V_INT)) return (Value){.kind = V_VOID};
    LayValue x, y;
    if (!val_to_lay(e, a, &x, loc, "an operand") || !val_to_lay(e, b, &y, loc, "an operand")) return val_error();
    if ((op == '/' || op == '%') && (!y.i.is_static || y.i.value <= 0)) {
        diag_error(e->diag, loc, "operator '%s' in a parameter's layout needs a positive compile-time divisor",
                   ast_op_name(op));
        return val_error();
    }
    LayInt r;
    bool ok = op == '+'   ? lay_int_add(e->arena, x.i, y.i, &r)
              : op == '-' ? lay_int_sub(e->arena, x.i, y.i, &r)
              : op == '*' ? lay_int_mul(e->arena, x.i, y.i, &r)
              : op == '/' ? lay_int_div(e->arena, x.i, y.i, &r)
                          : lay_int_mod(e->arena, x.i, y.i, &r);
    if (!ok) {
        diag_error(e->diag, loc, "value past 64 bits in '%s'", ast_op_name(op));
        return val_error();
    }
    if (r.is_static) return val_int(r.value);
    return (Value){.kind = V_LAY, .lay = {.kind = LAY_V_INT, .i = r}};
}

Value binop_symbolic(Eval *e, int op, Value a, Value b, SrcLoc loc)
{
    if (e->param_layout && e->cg) return binop_param_layout(e, op, a, b, loc);
    if (e->cg || !(is_symbolic(&a) || is_symbolic(&b))) return (Value){.kind = V_VOID};
    LayInt x, y, r;
    const Value *in[2] = {&a, &b};
    LayInt *out[2] = {&x, &y};
    for (int i = 0; i < 2; i++) {
        if (in[i]->kind == V_INT)
            *out[i] = lay_int_static(in[i]->i);
        else if (in[i]->kind == V_LAY && in[i]->lay.kind == LAY_V_INT)
            *out[i] = in[i]->lay.i;
        else {
            diag_error(e->diag, loc, "operator '%s' expects integers, found %s", ast_op_name(op),
                       val_describe(e, in[i]));
            return val_error();
        }
    }
    const char *sym = lay_print_int(e->arena, is_symbolic(&a) ? x : y);
    if ((op == '/' || op == '%') && (!y.is_static || y.value <= 0)) {
        if (y.is_static && y.value == 0)
            diag_error(e->diag, loc, "division by zero");
        else
            diag_error(e->diag, loc, "operator '%s' on the symbolic value %s needs a positive static divisor, got %s",
                       ast_op_name(op), sym, lay_print_int(e->arena, y));
        return val_error();
    }
    bool ok;
    switch (op) {
    case '+': ok = lay_int_add(e->arena, x, y, &r); break;
    case '-': ok = lay_int_sub(e->arena, x, y, &r); break;
    case '*': ok = lay_int_mul(e->arena, x, y, &r); break;
    case '/': ok = lay_int_div(e->arena, x, y, &r); break;
    case '%': ok = lay_int_mod(e->arena, x, y, &r); break;
    default:
        diag_error(e->diag, loc, "operator '%s' needs static values, but %s is symbolic", ast_op_name(op), sym);
        return val_error();
    }
    if (!ok) {
        diag_error(e->diag, loc, "value past 64 bits in '%s'", ast_op_name(op));
        return val_error();
    }
    return lay_to_val(e, (LayValue){.kind = LAY_V_INT, .i = r});
}
