/* eval_limits.c: the evaluator's bounds on nesting and on unrolled work
 * (EvalLimits in eval.h; the numbers are in docs/compiler.md, "Limits").
 * The evaluator recurses on the program, and partial evaluation expands
 * loops and calls: without these, a chain of constants could overflow the
 * C stack and nested `unroll for` loops could exhaust memory. */
#include "eval.h"

EvalLimits *eval_limits(Eval *e)
{
    if (!e->limits) e->limits = ARENA_NEW(e->arena, EvalLimits);
    return e->limits;
}

bool eval_enter(Eval *e, SrcLoc loc, int cost)
{
    EvalLimits *l = eval_limits(e);
    if (l->depth + cost <= EVAL_MAX_DEPTH) {
        l->depth += cost;
        return true;
    }
    if (!l->depth_reported)
        diag_error(e->diag, loc,
                   "evaluation nested too deeply (past %d levels through constants, calls and blocks; "
                   "a call counts %d)",
                   EVAL_MAX_DEPTH, EVAL_CALL_COST);
    l->depth_reported = true;
    return false;
}

void eval_leave(Eval *e, int cost) { e->limits->depth -= cost; }

bool eval_work(Eval *e, int64_t n, SrcLoc loc)
{
    EvalLimits *l = eval_limits(e);
    if (l->work > EVAL_MAX_WORK) return false;                     /* reported already */
    l->work = n > EVAL_MAX_WORK ? EVAL_MAX_WORK + 1 : l->work + n; /* n can be near INT64_MAX */
    if (l->work <= EVAL_MAX_WORK) return true;
    /* the outermost loop or call that expands is what to change: point there */
    const Node *x = e->expanding;
    const char *what = "the kernel";
    if (x && x->kind == N_FOR) {
        what = "'unroll for'";
        loc = x->loc;
    } else if (x && x->kind == N_CALL) {
        what = x->a->kind == N_NAME ? arena_printf(e->arena, "inlining '%s'", x->a->name) : "inlining the call";
        loc = x->loc;
    }
    diag_error(e->diag, loc,
               "%s expands to more than %lld statements, unrolled iterations, inlined calls and tensor elements "
               "(the limit per kernel); unroll less or use a runtime loop",
               what, (long long)EVAL_MAX_WORK);
    return false;
}

bool eval_exhausted(Eval *e)
{
    EvalLimits *l = eval_limits(e);
    return l->depth_reported || l->work > EVAL_MAX_WORK;
}
