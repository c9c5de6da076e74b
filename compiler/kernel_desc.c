/* kernel_desc.c: the compiler's half of the kernel contract.  kernel.c
 * calls these as it binds a kernel's parameters; the description they fill
 * is checked with the reader's own checker (contract/kdesc.c) before it is
 * written, so nothing the runtime would refuse leaves the compiler. */
#include "kernel_desc.h"

#include "builtins.h"

#include <string.h>

bool kdesc_put(Eval *e, cutec_kdesc *d, const char *s, SrcLoc loc, cutec_kd_str *out)
{
    if (cutec_kdesc_intern(d, s, out) == 0) return true;
    diag_error(e->diag, loc,
               "the description of kernel '%s' outgrows the contract's %d-byte string pool "
               "(at '%.40s')",
               d->kernel, CUTEC_KD_POOL, s);
    return false;
}

/* A name in a launcher expression: a template parameter folds to its
 * value, an integer kernel parameter stays a name. */
static bool name_text(Eval *e, const Node *n, const char *what, char **out)
{
    Value v;
    if (scope_lookup(e, n->name, &v) && v.kind == V_DYN && type_is_int(v.ty)) {
        *out = arena_strdup(e->arena, n->name);
        return true;
    }
    Eval sub = *e;
    sub.cg = NULL;
    v = eval_rvalue(&sub, n);
    if (v.kind == V_INT || v.kind == V_BOOL) {
        *out = arena_printf(e->arena, "%lld", (long long)v.i);
        return true;
    }
    if (v.kind != V_ERROR)
        diag_error(e->diag, n->loc,
                   "%s may use integers, template parameters and integer kernel parameters; '%s' is %s", what, n->name,
                   val_describe(e, &v));
    return false;
}

static bool is_text_op(int op)
{
    switch (op) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
    case '<':
    case '>':
    case OP_LE:
    case OP_GE:
    case OP_EQ:
    case OP_NE:
    case OP_AND:
    case OP_OR: return true;
    default: return false;
    }
}

/* Whether n reads no integer kernel parameter (a value known only at run
 * time): then it is a value of the template parameters alone. */
static bool runtime_free(Eval *e, const Node *n)
{
    if (!n) return true;
    Value v;
    if (n->kind == N_NAME) return !(scope_lookup(e, n->name, &v) && v.kind == V_DYN);
    const Node *kids[5] = {n->a, n->b, n->c, n->d, n->e};
    for (int i = 0; i < 5; i++)
        if (!runtime_free(e, kids[i])) return false;
    const NodeList *lists[3] = {&n->list, &n->list2, &n->list3};
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < lists[l]->n; i++)
            if (!runtime_free(e, lists[l]->items[i])) return false;
    return true;
}

/* A subexpression of template parameters only, folded to its integer
 * (or boolean: 0 or 1) value, so that the description reads `(M<=8)`
 * rather than `(((1==0)&&(M<=8))||((1==1)&&(N<=8)))` for SW = 1.
 * Returns 1 with *out set, 0 for an expression of run-time values, -1
 * for one whose evaluation failed (reported). */
static int const_text(Eval *e, const Node *n, long long *out)
{
    Value v;
    if (n->kind == N_INT || n->kind == N_BOOL) {
        *out = n->ival;
        return 1;
    }
    if (n->kind == N_NAME) { /* a name's errors are name_text's to report */
        if (!scope_lookup(e, n->name, &v) || (v.kind != V_INT && v.kind != V_BOOL)) return 0;
    } else {
        if (!runtime_free(e, n)) return 0;
        Eval sub = *e;
        sub.cg = NULL;
        v = eval_rvalue(&sub, n);
        if (v.kind == V_ERROR) return -1;
        if (v.kind != V_INT && v.kind != V_BOOL) return 0;
    }
    *out = v.kind == V_BOOL ? (v.i != 0) : v.i;
    return 1;
}

/* Of a rendered subexpression: 0 for "0", 1 for "1" (what a folded
 * condition prints, and the unit of * and /), -1 for anything else. */
static int number_text(const char *t)
{
    if (strcmp(t, "0") == 0) return 0;
    if (strcmp(t, "1") == 0) return 1;
    return -1;
}

bool kdesc_expr_text(Eval *e, const Node *n, const char *what, char **out)
{
    bool grid = strcmp(what, "grid()") == 0;
    long long cv;
    int folded = const_text(e, n, &cv);
    if (folded < 0) return false;
    if (folded > 0 && n->kind != N_NAME) { /* (a name's value: name_text, below) */
        *out = arena_printf(e->arena, "%lld", cv);
        return true;
    }
    switch (n->kind) {
    case N_INT: *out = arena_printf(e->arena, "%lld", (long long)n->ival); return true;
    case N_BOOL: *out = arena_strdup(e->arena, n->ival ? "1" : "0"); return true;
    case N_NAME: return name_text(e, n, what, out);
    case N_UNARY: {
        char *a;
        if (n->op != OP_NEG && n->op != OP_NOT) break;
        if (!kdesc_expr_text(e, n->a, what, &a)) return false;
        *out = arena_printf(e->arena, "%s(%s)", n->op == OP_NEG ? "-" : "!", a);
        return true;
    }
    case N_BINARY: {
        char *a, *b;
        if (!is_text_op(n->op) ||
            (grid && n->op != '+' && n->op != '-' && n->op != '*' && n->op != '/' && n->op != '%'))
            break;
        if (!kdesc_expr_text(e, n->a, what, &a) || !kdesc_expr_text(e, n->b, what, &b)) return false;
        /* a side that folded to a number may decide or vanish: a switch's
         * term that is off (M * 1 + K * 0 is M), a condition of template
         * values (false && x is false, true && x is x) */
        int na = number_text(a), nb = number_text(b);
        const char *pick = NULL;
        switch (n->op) {
        case OP_AND: pick = na == 0 || nb == 0 ? "0" : na == 1 ? b : nb == 1 ? a : NULL; break;
        case OP_OR: pick = na == 1 || nb == 1 ? "1" : na == 0 ? b : nb == 0 ? a : NULL; break;
        case '*': pick = na == 0 || nb == 0 ? "0" : na == 1 ? b : nb == 1 ? a : NULL; break;
        case '+': pick = na == 0 ? b : nb == 0 ? a : NULL; break;
        case '-': pick = nb == 0 ? a : NULL; break;
        case '/': pick = nb == 1 ? a : NULL; break;
        default: break;
        }
        if (pick) {
            *out = arena_strdup(e->arena, pick);
            return true;
        }
        *out = arena_printf(e->arena, "(%s%s%s)", a, ast_op_name(n->op), b);
        return true;
    }
    case N_CALL:
        /* resident(x): x blocks, capped by the launcher at what the device
         * holds at once (a persistent kernel's grid) */
        if (grid && n->a->kind == N_NAME && n->list.n == 1 && n->list2.n == 0 && strcmp(n->a->name, "resident") == 0) {
            char *a;
            if (!kdesc_expr_text(e, n->list.items[0], what, &a)) return false;
            *out = arena_printf(e->arena, "resident(%s)", a);
            return true;
        }
        /* select(c, a, b) with c of template parameters: the branch it picks */
        if (n->a->kind == N_NAME && n->list.n == 3 && n->list2.n == 0 && strcmp(n->a->name, "select") == 0 &&
            const_text(e, n->list.items[0], &cv) > 0)
            return kdesc_expr_text(e, n->list.items[cv ? 1 : 2], what, out);
        /* ceil_div(x, 1) is x */
        if (n->a->kind == N_NAME && n->list.n == 2 && n->list2.n == 0 && strcmp(n->a->name, "ceil_div") == 0 &&
            const_text(e, n->list.items[1], &cv) > 0 && cv == 1)
            return kdesc_expr_text(e, n->list.items[0], what, out);
        if (n->a->kind == N_NAME && n->list.n == 2 && n->list2.n == 0 &&
            (strcmp(n->a->name, "ceil_div") == 0 || strcmp(n->a->name, "min") == 0 || strcmp(n->a->name, "max") == 0)) {
            char *a, *b;
            if (!kdesc_expr_text(e, n->list.items[0], what, &a) || !kdesc_expr_text(e, n->list.items[1], what, &b))
                return false;
            *out = arena_printf(e->arena, "%s(%s,%s)", n->a->name, a, b);
            return true;
        }
        break;
    default: break;
    }
    if (grid)
        diag_error(e->diag, n->loc, "grid() expressions may use only + - * / %%, ceil_div, min, max and resident");
    else
        diag_error(e->diag, n->loc,
                   "%s conditions may use only integers, + - * / %%, comparisons, && || !, "
                   "ceil_div, min and max",
                   what);
    return false;
}

/* kernel_emit refuses more than CUTEC_KD_MAX_ARGS parameters up front */
static cutec_kd_arg *new_arg(Eval *e, cutec_kdesc *d, const Node *par)
{
    if (d->nargs >= CUTEC_KD_MAX_ARGS) return NULL;
    cutec_kd_arg *a = &d->args[d->nargs++];
    memset(a, 0, sizeof *a);
    if (!kdesc_put(e, d, par->name, par->name_loc, &a->name)) return NULL;
    return a;
}

static cutec_ct ct_of(ScalarType ty) { return cutec_dtype_from_name(type_name(ty), strlen(type_name(ty))); }

bool kdesc_scalar_arg(Eval *e, cutec_kdesc *d, const Node *par, ScalarType ty)
{
    cutec_kd_arg *a = new_arg(e, d, par);
    if (!a) return false;
    a->kind = CUTEC_KD_SCALAR;
    a->dtype = ct_of(ty);
    return true;
}

/* The leaves of a (possibly nested) tuple, left to right. */
static int flatten(const LayTuple *t, LayInt *out, int max, int n)
{
    if (t->is_leaf) {
        if (n < max) out[n] = t->leaf;
        return n + 1;
    }
    for (int i = 0; i < t->n; i++) n = flatten(t->elems[i], out, max, n);
    return n;
}

bool kdesc_tensor_arg(Eval *e, cutec_kdesc *d, const Node *par, ScalarType ty, const LayLayout *L)
{
    cutec_kd_arg *a = new_arg(e, d, par);
    if (!a) return false;
    a->kind = CUTEC_KD_TENSOR;
    a->dtype = ct_of(ty);
    a->align = type_bytes(ty);
    LayInt shape[CUTEC_KD_MAX_RANK], stride[CUTEC_KD_MAX_RANK];
    int rank = flatten(L->shape, shape, CUTEC_KD_MAX_RANK, 0);
    if (rank != flatten(L->stride, stride, CUTEC_KD_MAX_RANK, 0) || rank > CUTEC_KD_MAX_RANK)
        return true; /* rank 0: not described; the `serves` clause refuses roles on it */
    for (int m = 0; m < rank; m++)
        if (!kdesc_put(e, d, lay_print_int(e->arena, shape[m]), par->name_loc, &a->shape[m]) ||
            !kdesc_put(e, d, lay_print_int(e->arena, stride[m]), par->name_loc, &a->stride[m]))
            return false;
    a->rank = rank;
    return true;
}

bool kdesc_tma_arg(Eval *e, cutec_kdesc *d, const Node *par, int tensor, int rank, char *const *dims,
                   char *const *strides, const unsigned *box, int swizzle)
{
    cutec_kd_arg *a = new_arg(e, d, par);
    if (!a) return false;
    a->kind = CUTEC_KD_TMA;
    a->tensor = tensor;
    a->tma_rank = rank;
    a->swizzle = swizzle;
    for (int m = 0; m < rank; m++) {
        a->box[m] = box[m];
        if (!kdesc_put(e, d, dims[m], par->name_loc, &a->dims[m]) ||
            (m > 0 && !kdesc_put(e, d, strides[m - 1], par->name_loc, &a->tstride[m - 1])))
            return false;
    }
    return true;
}

/* GEMM operands are matrices (rank 2) or batches of them (rank 3, the
 * third mode the problem, with a batch role: kdesc_serves); the others are
 * vectors or matrices. */
static bool is_operand(cutec_kd_role r)
{
    return r == CUTEC_ROLE_A || r == CUTEC_ROLE_B || r == CUTEC_ROLE_C || r == CUTEC_ROLE_D;
}

static bool serve_role(Eval *e, const Node *item, cutec_kdesc *d)
{
    int role = cutec_kd_role_from_name(item->name, strlen(item->name));
    if (role < 0) {
        char known[400] = "";
        size_t n = 0;
        for (int r = 1; r < CUTEC_ROLE_COUNT && n < sizeof known; r++)
            n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", r > 1 ? ", " : "",
                                  cutec_kd_role_name((cutec_kd_role)r));
        diag_error(e->diag, item->name_loc, "unknown role '%s' (roles: %s; and act for the epilogue's function)",
                   item->name, known);
        return false;
    }
    int i = cutec_kdesc_arg_index(d, item->a->name);
    if (i < 0) {
        diag_error(e->diag, item->a->loc, "role %s names '%s', which is not a parameter of kernel '%s'", item->name,
                   item->a->name, d->kernel);
        return false;
    }
    cutec_kd_arg *a = &d->args[i];
    int other = cutec_kdesc_role_arg(d, (cutec_kd_role)role);
    if (other >= 0) {
        diag_error(e->diag, item->name_loc, "role %s is given twice (to '%s' and '%s')", item->name,
                   cutec_kd_s(d, d->args[other].name), item->a->name);
        return false;
    }
    if (a->role != CUTEC_ROLE_NONE) {
        diag_error(e->diag, item->a->loc, "parameter '%s' already has role %s", item->a->name,
                   cutec_kd_role_name(a->role));
        return false;
    }
    const cutec_dtype_info *t = cutec_dtype_info_of(a->dtype);
    cutec_kd_value rv = cutec_kd_role_value((cutec_kd_role)role);
    const char *want = rv == CUTEC_KD_VALUE_INT     ? "an integer scalar parameter"
                       : rv == CUTEC_KD_VALUE_FLOAT ? "a floating-point scalar parameter"
                                                    : "a global tensor parameter";
    bool fits = rv == CUTEC_KD_VALUE_TENSOR
                    ? a->kind == CUTEC_KD_TENSOR
                    : a->kind == CUTEC_KD_SCALAR && t && (rv == CUTEC_KD_VALUE_INT ? t->is_int : t->is_float);
    if (!fits) {
        diag_error(e->diag, item->a->loc, "role %s (%s) needs %s; '%s' is not one", item->name,
                   cutec_kd_role_what((cutec_kd_role)role), want, item->a->name);
        return false;
    }
    bool op = is_operand((cutec_kd_role)role);
    if (a->kind == CUTEC_KD_TENSOR && (a->rank == 0 || (op && a->rank != 2 && a->rank != 3))) {
        char has[16];
        snprintf(has, sizeof has, a->rank ? "%d" : "more", a->rank);
        diag_error(e->diag, item->a->loc, "role %s needs a tensor of %s modes; '%s' has %s", item->name,
                   op ? "2 (or 3: a batch)" : "at most 4", item->a->name, has);
        return false;
    }
    if (item->b) {
        if (a->kind != CUTEC_KD_TENSOR) {
            diag_error(e->diag, item->b->loc, "'align' applies to tensor parameters only");
            return false;
        }
        Eval sub = *e;
        sub.cg = NULL;
        Value v = eval_rvalue(&sub, item->b);
        if (v.kind != V_INT || v.i < t->bytes || v.i > 256 || (v.i & (v.i - 1))) {
            if (v.kind != V_ERROR)
                diag_error(e->diag, item->b->loc,
                           "the alignment of '%s' must be a power of two from %d to 256 bytes, found %s", item->a->name,
                           t->bytes, val_describe(e, &v));
            return false;
        }
        a->align = (int)v.i;
    } else if (a->kind == CUTEC_KD_TENSOR) {
        /* GEMM tensors are read in 16-byte vectors or by TMA */
        a->align = a->align > 16 ? a->align : 16;
    }
    a->role = (cutec_kd_role)role;
    return true;
}

/* fn(x) { return x; }: an epilogue that changes nothing, described as none */
static bool fn_is_identity(const Node *fn)
{
    const Node *b = fn->d;
    return fn->list.n == 1 && b && b->list.n == 1 && b->list.items[0]->kind == N_RETURN && b->list.items[0]->a &&
           b->list.items[0]->a->kind == N_NAME && strcmp(b->list.items[0]->a->name, fn->list.items[0]->name) == 0;
}

/* act = F;: the epilogue's elementwise function, a `.cute` fn of one
 * value, or of two (gate, up) for a gated epilogue (docs/contract.md) */
static bool serve_act(Eval *e, const Node *item, cutec_kdesc *d)
{
    if (d->act != 0) {
        diag_error(e->diag, item->name_loc, "act is given twice");
        return false;
    }
    Eval sub = *e;
    sub.cg = NULL;
    Value f = eval_rvalue(&sub, item->a);
    if (f.kind == V_ERROR) return false;
    const Builtin *bi = f.kind == V_BUILTIN ? builtin_find(f.name) : NULL;
    if (bi && bi->pure && bi->args && bi->args[0] == BA_RVALUE && bi->args[1] == BA_END && !item->b) {
        return kdesc_put(e, d, f.name, item->a->loc, &d->act); /* a math builtin of one value: sigmoid, tanh */
    }
    if (f.kind != V_FUNC || item->b) {
        diag_error(e->diag, item->a->loc,
                   "act needs a function of one value (or two: gate and up), a fn or a math builtin of one value; "
                   "found %s",
                   val_describe(e, &f));
        return false;
    }
    const Node *fn = f.node;
    if (fn->list.n != 1 && fn->list.n != 2) {
        diag_error(e->diag, item->a->loc, "act: function '%s' takes %d parameters; an epilogue takes 1 (or 2, gated)",
                   fn->name, fn->list.n);
        return false;
    }
    if (fn_is_identity(fn)) return true;
    d->gated = fn->list.n == 2;
    return kdesc_put(e, d, fn->name, item->a->loc, &d->act);
}

bool kdesc_serves(Eval *e, const Node *k, cutec_kdesc *d)
{
    const Node *s = k->e;
    if (!s) return true;
    int cls = cutec_kd_class_from_name(s->name);
    if (cls <= CUTEC_KD_PLAIN) { /* "plain" is no class to serve */
        diag_error(e->diag, s->name_loc, "unknown problem class '%s' (a kernel can serve: gemm, epilogue)", s->name);
        return false;
    }
    d->cls = (cutec_kd_class)cls;
    bool ok = true;
    for (int i = 0; i < s->list.n; i++) {
        const Node *item = s->list.items[i];
        if (item->kind == N_ROLE && strcmp(item->name, "act") == 0) {
            ok = serve_act(e, item, d) && ok;
            continue;
        }
        if (item->kind == N_ROLE) {
            /* a role on a parameter absent for these template values goes with it */
            Value pv;
            bool gone = scope_lookup(e, item->a->name, &pv) && pv.kind == V_ABSENT;
            if (!gone) ok = serve_role(e, item, d) && ok;
            continue;
        }
        char *text;
        if (!kdesc_expr_text(e, item->a, "require", &text)) {
            ok = false;
            continue;
        }
        if (strcmp(text, "1") == 0) continue; /* true for these template values: no condition */
        if (d->nrequires == CUTEC_KD_MAX_REQUIRES) {
            diag_error(e->diag, item->loc, "a serves clause has at most %d conditions", CUTEC_KD_MAX_REQUIRES);
            return false;
        }
        ok = kdesc_put(e, d, text, item->a->loc, &d->requires[d->nrequires++]) && ok;
    }
    if (!ok) return false;
    const cutec_kd_role *need;
    int nneed = cutec_kd_class_needs(d->cls, &need);
    /* a batch of matrices needs its count: the problems' mode has extent batch */
    for (int i = 0; i < d->nargs && i < k->list.n && cutec_kdesc_role_arg(d, CUTEC_ROLE_BATCH) < 0; i++)
        if (d->args[i].kind == CUTEC_KD_TENSOR && is_operand(d->args[i].role) && d->args[i].rank == 3) {
            diag_error(e->diag, k->list.items[i]->name_loc,
                       "'%s' (role %s) has 3 modes, a batch of matrices, which needs a parameter of role batch "
                       "(the number of problems)",
                       k->list.items[i]->name, cutec_kd_role_name(d->args[i].role));
            ok = false;
        }
    for (int r = 0; r < nneed; r++)
        if (cutec_kdesc_role_arg(d, need[r]) < 0) {
            diag_error(e->diag, s->name_loc, "a kernel that serves %s needs a parameter of role %s (%s)", s->name,
                       cutec_kd_role_name(need[r]), cutec_kd_role_what(need[r]));
            ok = false;
        }
    for (int i = 0; i < d->nargs && i < k->list.n; i++)
        if (d->args[i].kind != CUTEC_KD_TMA && d->args[i].role == CUTEC_ROLE_NONE) {
            const Node *par = k->list.items[i];
            diag_error(e->diag, par->name_loc,
                       "parameter '%s' of kernel '%s', which serves %s, has no role "
                       "(add 'ROLE = %s;' to its serves clause)",
                       par->name, d->kernel, s->name, par->name);
            ok = false;
        }
    return ok;
}
