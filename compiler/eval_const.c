/* eval_const.c: top-level constants (`let` outside kernels and functions).
 * Each is evaluated once, on first use, without local scopes or code
 * generation, and its value kept.
 *
 * Evaluating a constant evaluates the constants its initializer names, so
 * a chain `let c1 = c0 + 1; ... let c1999 = c1998 + 1;` would recurse
 * through the evaluator once per link and overflow the C stack.  Instead,
 * the constants an initializer names are found in its syntax tree and
 * evaluated first, in dependency order, by a depth-first walk with an
 * explicit stack: each then finds its own dependencies already evaluated.
 * The same walk finds cycles before anything on them is evaluated.
 * Dependencies the walk cannot see (through a function's body) are still
 * evaluated on demand, within the evaluator's depth limit. */
#include <string.h>

#include "program.h"

/* A constant in the walk: its unevaluated dependencies and the next to visit. */
typedef struct Frame {
    TopSym *sym;
    TopSym **deps;
    int ndeps, next;
} Frame;

typedef struct SymList {
    TopSym **items;
    int n, cap;
} SymList;

static void push_sym(Arena *a, SymList *l, TopSym *s)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        TopSym **grown = ARENA_ARRAY(a, TopSym *, cap);
        if (l->n) memcpy(grown, l->items, sizeof *grown * (size_t)l->n);
        l->items = grown;
        l->cap = cap;
    }
    l->items[l->n++] = s;
}

static void collect_list(Program *p, const NodeList *nl, SymList *out);

/* The unevaluated constants n names.  Recursive, but on one expression,
 * whose depth the parser bounds (PARSE_MAX_EXPR_DEPTH). */
static void collect(Program *p, const Node *n, SymList *out)
{
    if (!n) return;
    if (n->kind == N_NAME) {
        TopSym *s = program_lookup(p, n->name);
        if (s && s->node->kind == N_CONST && s->state == 0) push_sym(p->arena, out, s);
        return;
    }
    collect(p, n->a, out);
    collect(p, n->b, out);
    collect(p, n->c, out);
    collect(p, n->d, out);
    collect_list(p, &n->list, out);
    collect_list(p, &n->list2, out);
    collect_list(p, &n->list3, out);
}

static void collect_list(Program *p, const NodeList *nl, SymList *out)
{
    for (int i = 0; i < nl->n; i++) collect(p, nl->items[i], out);
}

/* Evaluates s's initializer, whatever the state of its dependencies. */
static Value eval_const_now(Eval *e, TopSym *s)
{
    s->state = 1;
    /* constants see only the top level: evaluate without local scopes and
     * without code generation, so they are always compile-time values */
    eval_limits(e); /* shared with the copy */
    Eval sub = *e;
    sub.scope = NULL;
    sub.cg = NULL;
    sub.dyn_depth = 0;
    sub.expanding = NULL; /* a constant's own calls are what expands */
    /* the value is kept for the whole compilation: in the program's arena,
     * whatever shorter-lived arena the first user evaluates in (a tune
     * point's, kernel_list_tune) */
    sub.arena = e->prog->arena;
    Value v = eval_rvalue(&sub, s->node->b);
    s->value = v;
    s->state = 2;
    return v;
}

static void report_cycle(Eval *e, TopSym *s)
{
    diag_error(e->diag, s->node->name_loc, "constant '%s' depends on itself", s->name);
    s->value = val_error();
    s->state = 2;
}

/* Evaluates the constants that root depends on, dependencies first; root
 * itself is left to the caller.  walk: 1 while a constant is on the stack,
 * 2 once its dependencies are done. */
static void eval_deps_first(Eval *e, TopSym *root)
{
    Program *p = e->prog;
    Frame *frames = NULL;
    int nframes = 0, capframes = 0;
    TopSym *next = root;
    for (;;) {
        if (next) {
            if (nframes == capframes) {
                int cap = capframes ? capframes * 2 : 16;
                Frame *grown = ARENA_ARRAY(p->arena, Frame, cap);
                if (nframes) memcpy(grown, frames, sizeof *grown * (size_t)nframes);
                frames = grown;
                capframes = cap;
            }
            SymList deps = {0};
            collect(p, next->node->b, &deps);
            next->walk = 1;
            frames[nframes++] = (Frame){.sym = next, .deps = deps.items, .ndeps = deps.n};
            next = NULL;
        }
        if (nframes == 0) return;
        Frame *f = &frames[nframes - 1];
        if (f->next < f->ndeps) {
            TopSym *d = f->deps[f->next++];
            if (d->state != 0 || d->walk == 2) continue;
            if (d->walk == 1)
                report_cycle(e, d);
            else
                next = d;
            continue;
        }
        /* all of f's dependencies are done: evaluate it (the root is the caller's) */
        f->sym->walk = 2;
        if (nframes > 1 && f->sym->state == 0) eval_const_now(e, f->sym);
        nframes--;
    }
}

Value eval_const(Eval *e, TopSym *s)
{
    if (s->state == 2) return s->value;
    if (s->state == 1) {
        diag_error(e->diag, s->node->name_loc, "constant '%s' depends on itself", s->name);
        return val_error();
    }
    if (s->walk == 0) eval_deps_first(e, s);
    if (s->state == 2) return s->value; /* it was on a cycle */
    return eval_const_now(e, s);
}
