/* kernel.c: template instantiation and kernel emission.  Template
 * parameters take their -D value or their default; scalar parameters are
 * bound first so that tensor layouts may use them in any order; the body
 * is then evaluated into one PTX entry function. */
#include <string.h>

#include "codegen.h"
#include "kernel.h"
#include "program.h"

/* Evaluate a compile-time expression (a -D value or a default) in `scope`. */
static Value eval_static(Eval *e, const Node *n)
{
    Eval sub = *e;
    sub.cg = NULL;
    return eval_rvalue(&sub, n);
}

static bool bind_template_params(Eval *e, Program *p, const Node *k)
{
    bool ok = true;
    for (int i = 0; i < k->list2.n; i++) {
        const Node *tp = k->list2.items[i];
        const char *kind = tp->a->name;
        bool is_type = strcmp(kind, "type") == 0;
        if (!is_type && strcmp(kind, "int") != 0) {
            diag_error(e->diag, tp->a->loc, "template parameter kind must be 'int' or 'type', found '%s'", kind);
            ok = false;
            scope_bind(e, tp->name, val_error());
            continue;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(k->list2.items[j]->name, tp->name) == 0) {
                diag_error(e->diag, tp->name_loc, "duplicate template parameter '%s'", tp->name);
                ok = false;
            }
        Define *d = program_define(p, tp->name);
        Value v;
        SrcLoc where = tp->name_loc;
        if (d) {
            d->used = true;
            v = eval_static(e, d->expr);
            where = d->expr->loc;
        } else if (tp->b) {
            v = eval_static(e, tp->b);
            where = tp->b->loc;
        } else {
            diag_error(e->diag, tp->name_loc, "template parameter '%s' of kernel '%s' has no value; pass -D %s=VALUE",
                       tp->name, k->name, tp->name);
            ok = false;
            scope_bind(e, tp->name, val_error());
            continue;
        }
        if (v.kind != V_ERROR && is_type && v.kind != V_TYPE) {
            diag_error(e->diag, where, "template parameter '%s' must be a type, found %s", tp->name, val_describe(e, &v));
            v = val_error();
        } else if (v.kind != V_ERROR && !is_type && v.kind != V_INT) {
            diag_error(e->diag, where, "template parameter '%s' must be a compile-time integer, found %s", tp->name,
                       val_describe(e, &v));
            v = val_error();
        }
        if (v.kind == V_ERROR) ok = false;
        scope_bind(e, tp->name, v);
    }
    return ok;
}

static bool eval_threads(Eval *e, const Node *k)
{
    if (k->list3.n == 0) return true;
    if (k->list3.n > 3) {
        diag_error(e->diag, k->list3.items[3]->loc, "threads() takes at most 3 dimensions");
        return false;
    }
    int64_t total = 1;
    e->threads[0] = e->threads[1] = e->threads[2] = 1;
    for (int i = 0; i < k->list3.n; i++) {
        Value v = eval_static(e, k->list3.items[i]);
        if (v.kind == V_ERROR) return false;
        if (v.kind != V_INT || v.i <= 0 || v.i > 1024) {
            diag_error(e->diag, k->list3.items[i]->loc, "threads() dimension must be a compile-time integer in 1..1024, found %s",
                       val_describe(e, &v));
            return false;
        }
        e->threads[i] = v.i;
        total *= v.i;
    }
    if (total > 1024) {
        diag_error(e->diag, k->list3.items[0]->loc, "threads() asks for %lld threads per block; the limit is 1024",
                   (long long)total);
        return false;
    }
    e->has_threads = true;
    return true;
}

bool kernel_emit(Program *p, CG *cg, const Node *k, KernelInfo *info)
{
    Eval ev = {.arena = p->arena, .diag = p->diag, .cg = cg, .prog = p};
    Eval *e = &ev;
    int before = p->diag->errors;
    scope_push(e);
    bool ok = bind_template_params(e, p, k);
    ok = eval_threads(e, k) && ok;

    /* parameter types: scalars by value, tensors as global pointers */
    int np = k->list.n;
    Value *ptypes = ARENA_ARRAY(p->arena, Value, np > 0 ? np : 1);
    LLVMTypeRef *lt = ARENA_ARRAY(p->arena, LLVMTypeRef, np > 0 ? np : 1);
    for (int i = 0; i < np; i++) {
        const Node *par = k->list.items[i];
        for (int j = 0; j < i; j++)
            if (strcmp(k->list.items[j]->name, par->name) == 0) {
                diag_error(e->diag, par->name_loc, "duplicate parameter '%s'", par->name);
                ok = false;
            }
        if (!par->a) {
            diag_error(e->diag, par->name_loc, "kernel parameter '%s' needs a type", par->name);
            ok = false;
            ptypes[i] = val_error();
            lt[i] = cg->t_i32;
            continue;
        }
        if (par->a->kind == N_TYPE_NAME) {
            ptypes[i] = eval_type(e, par->a);
            lt[i] = ptypes[i].kind == V_TYPE ? cg_type(cg, ptypes[i].ty) : cg->t_i32;
        } else {
            ptypes[i] = (Value){.kind = V_TENSOR};
            lt[i] = cg->t_gptr;
        }
        if (ptypes[i].kind == V_ERROR) ok = false;
    }
    LLVMTypeRef fty = LLVMFunctionType(cg->t_void, lt, (unsigned)np, 0);
    if (LLVMGetNamedFunction(cg->mod, k->name)) {
        diag_error(e->diag, k->name_loc, "kernel '%s' is defined twice", k->name);
        return false;
    }
    LLVMValueRef fn = LLVMAddFunction(cg->mod, k->name, fty);
    LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
    cg->fn = fn;
    cg->entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
    LLVMPositionBuilderAtEnd(cg->b, cg->entry);
    if (e->has_threads) {
        cg_annotate(cg, fn, "reqntidx", (int)e->threads[0]);
        cg_annotate(cg, fn, "reqntidy", (int)e->threads[1]);
        cg_annotate(cg, fn, "reqntidz", (int)e->threads[2]);
    }
    /* scalars first, so that tensor layouts can name them in any order */
    for (int i = 0; i < np; i++) {
        const Node *par = k->list.items[i];
        LLVMValueRef pv = LLVMGetParam(fn, (unsigned)i);
        LLVMSetValueName2(pv, par->name, strlen(par->name));
        if (ptypes[i].kind == V_TYPE) {
            Value v = val_dyn(pv, ptypes[i].ty);
            v.name = par->name;
            scope_bind(e, par->name, v);
        }
    }
    for (int i = 0; i < np; i++) {
        const Node *par = k->list.items[i];
        if (ptypes[i].kind != V_TENSOR) {
            if (ptypes[i].kind == V_ERROR) scope_bind(e, par->name, val_error());
            continue;
        }
        Value t = eval_type(e, par->a);
        if (t.kind == V_TENSOR && t.space != SPACE_GMEM) {
            diag_error(e->diag, par->a->name_loc, "kernel parameter '%s' must be in gmem", par->name);
            t = val_error();
        }
        if (t.kind == V_TENSOR) t.llvm = LLVMGetParam(fn, (unsigned)i);
        else ok = false;
        scope_bind(e, par->name, t);
    }
    eval_block(e, k->d);
    if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b))) LLVMBuildRetVoid(cg->b);
    cg->fn = NULL;
    if (info) {
        info->name = k->name;
        for (int i = 0; i < 3; i++) info->threads[i] = e->has_threads ? (int)e->threads[i] : 0;
    }
    return ok && p->diag->errors == before;
}
