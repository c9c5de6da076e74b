/* eval_stmt.c: statements and types.  Static `if` conditions and
 * `unroll for` loops are resolved here; runtime ones become basic blocks. */
#include <string.h>

#include "codegen.h"
#include "debuginfo.h"
#include "eval.h"
#include "kernel.h" /* CUTEC_SMEM_MAX */

Value eval_type(Eval *e, const Node *t)
{
    if (t->kind == N_TYPE_NAME) {
        Value v;
        if (scope_lookup(e, t->name, &v)) {
            if (v.kind == V_TYPE) return v;
            diag_error(e->diag, t->loc, "'%s' is not a type (it is a %s)", t->name, val_describe(e, &v));
            return val_error();
        }
        ScalarType ty;
        if (type_from_name(t->name, &ty)) return (Value){.kind = V_TYPE, .ty = ty};
        diag_error(e->diag, t->loc,
                   "unknown type '%s' (expected i32, i64, f16, bf16, f32, f64, bool or a type parameter)", t->name);
        return val_error();
    }
    /* tensor<T, space, layout> */
    Value et = eval_type(e, t->a);
    if (et.kind == V_ERROR) return et;
    if (et.ty == TY_BOOL) {
        diag_error(e->diag, t->a->loc, "tensors of bool are not supported");
        return val_error();
    }
    Value r = tensor_make(NULL, et.ty, SPACE_GMEM, (LayValue){0});
    if (strcmp(t->name, "gmem") == 0)
        r.space = SPACE_GMEM;
    else if (strcmp(t->name, "smem") == 0)
        r.space = SPACE_SMEM;
    else if (strcmp(t->name, "rmem") == 0)
        r.space = SPACE_RMEM;
    else {
        diag_error(e->diag, t->name_loc, "unknown memory space '%s' (expected gmem, smem or rmem)", t->name);
        return val_error();
    }
    Value l = eval_rvalue(e, t->b);
    if (l.kind == V_ERROR) return l;
    if (l.kind != V_LAY || (l.lay.kind != LAY_V_LAYOUT && l.lay.kind != LAY_V_COMPOSED)) {
        LayValue lv;
        if (l.kind == V_LAY && l.lay.kind == LAY_V_TUPLE) {
            /* a bare shape means the compact column-major layout, as in CuTe */
            LayError err = {.arg = -1};
            if (lay_call(e->arena, "make_layout", NULL, 0, &l.lay, 1, &lv, &err)) {
                r.lay = lv;
                return r;
            }
        }
        diag_error(e->diag, t->b->loc, "a tensor type needs a layout, found %s", val_describe(e, &l));
        return val_error();
    }
    r.lay = l.lay;
    return r;
}

static bool static_cosize(Eval *e, const LayValue *lay, SrcLoc loc, int64_t *out)
{
    LayValue r;
    LayError err = {.arg = -1};
    if (!lay_call(e->arena, "cosize", NULL, 0, lay, 1, &r, &err)) {
        diag_error(e->diag, loc, "%s", err.msg);
        return false;
    }
    if (r.kind != LAY_V_INT || !r.i.is_static) {
        diag_error(e->diag, loc, "the layout of a shared or local tensor must be static, found %s",
                   lay_print_value(e->arena, lay));
        return false;
    }
    *out = r.i.value;
    return true;
}

static bool require_cg(Eval *e, SrcLoc loc, const char *what)
{
    if (e->cg && e->cg->fn) return true;
    diag_error(e->diag, loc, "%s is only allowed inside a kernel", what);
    return false;
}

static void eval_let(Eval *e, const Node *s)
{
    Value v = s->ival ? eval_rvalue(e, s->b) : eval_expr(e, s->b);
    if (v.kind == V_REF) v = val_load(e, v, s->b->loc);
    if (v.kind == V_VAR) v = val_load(e, v, s->b->loc);
    ScalarType ty = TY_VOID;
    if (s->a) {
        Value t = eval_type(e, s->a);
        if (t.kind == V_TYPE) {
            ty = t.ty;
            if (v.kind != V_ERROR && (s->ival || v.kind == V_DYN)) v = conv_to(e, v, ty, s->b->loc, false);
            /* a static `let` stays untyped, but must fit the type it names */
            if (v.kind == V_INT && ty == TY_I32 && !int_fits_i32(v.i)) {
                diag_error(e->diag, s->b->loc, "integer %lld does not fit in i32", (long long)v.i);
                v = val_error();
            }
        } else if (t.kind != V_ERROR) {
            diag_error(e->diag, s->a->loc, "a binding's type must be a scalar type");
        }
    }
    if (!s->ival) {
        scope_bind(e, s->name, v);
        return;
    }
    if (v.kind == V_ERROR) {
        scope_bind(e, s->name, v);
        return;
    }
    if (!require_cg(e, s->loc, "'var'")) {
        scope_bind(e, s->name, val_error());
        return;
    }
    if (ty == TY_VOID) {
        switch (v.kind) {
        case V_INT: ty = int_fits_i32(v.i) ? TY_I32 : TY_I64; break;
        case V_FLOAT: ty = TY_F32; break;
        case V_BOOL: ty = TY_BOOL; break;
        case V_DYN: ty = v.ty; break;
        default:
            diag_error(e->diag, s->b->loc, "a 'var' holds a number or boolean, found %s; use 'let'",
                       val_describe(e, &v));
            scope_bind(e, s->name, val_error());
            return;
        }
        v = conv_to(e, v, ty, s->b->loc, false);
    }
    LLVMValueRef slot = cg_alloca(e->cg, cg_type(e->cg, ty), s->name);
    if (v.kind == V_DYN) LLVMBuildStore(e->cg->b, v.llvm, slot);
    scope_bind(e, s->name, (Value){.kind = V_VAR, .llvm = slot, .ty = ty});
}

static void eval_assign(Eval *e, const Node *s)
{
    Value t = eval_expr(e, s->a);
    if (t.kind == V_ERROR) return;
    if (t.kind != V_REF && t.kind != V_VAR) {
        if (s->a->kind == N_NAME)
            diag_error(e->diag, s->a->loc, "cannot assign to '%s': it is not a 'var' (it is a %s)", s->a->name,
                       val_describe(e, &t));
        else
            diag_error(e->diag, s->a->loc, "cannot assign to %s", val_describe(e, &t));
        return;
    }
    Value v = eval_rvalue(e, s->b);
    if (v.kind == V_ERROR) return;
    if (s->op != '=') v = binop(e, s->op, val_load(e, t, s->a->loc), v, s->loc);
    v = conv_to(e, v, t.ty, s->b->loc, false);
    if (v.kind == V_ERROR) return;
    LLVMBuildStore(e->cg->b, v.llvm, t.llvm);
}

static bool block_open(Eval *e) { return !LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(e->cg->b)); }

static LLVMBasicBlockRef new_block(Eval *e, const char *name)
{
    return LLVMAppendBasicBlockInContext(e->cg->ctx, e->cg->fn, name);
}

/* The next index of an unrolled loop, or hi after the last (i + st may pass INT64_MAX). */
static int64_t unroll_next(int64_t i, int64_t hi, int64_t st)
{
    return (uint64_t)hi - (uint64_t)i > (uint64_t)st ? i + st : hi;
}

static void eval_for(Eval *e, const Node *s)
{
    Value lo = eval_rvalue(e, s->a), hi = eval_rvalue(e, s->b);
    Value st = s->c ? eval_rvalue(e, s->c) : val_int(1);
    if (lo.kind == V_ERROR || hi.kind == V_ERROR || st.kind == V_ERROR) return;
    const Node *bad = NULL;
    const Value *vals[3] = {&lo, &hi, &st};
    const Node *nodes[3] = {s->a, s->b, s->c};
    for (int i = 0; i < 3; i++)
        if (vals[i]->kind != V_INT && !(vals[i]->kind == V_DYN && type_is_int(vals[i]->ty))) bad = nodes[i];
    if (bad) {
        diag_error(e->diag, bad->loc, "loop bounds and step must be integers");
        return;
    }
    if (st.kind == V_INT && st.i <= 0) {
        diag_error(e->diag, s->c->loc, "loop step must be positive, got %lld", (long long)st.i);
        return;
    }
    if (s->ival) { /* unroll for: the body is evaluated once per iteration */
        for (int i = 0; i < 3; i++)
            if (vals[i]->kind != V_INT) {
                diag_error(e->diag, nodes[i]->loc, "'unroll for' needs compile-time bounds and step");
                return;
            }
        /* hi - lo can pass INT64_MAX; as unsigned it cannot */
        uint64_t span = hi.i > lo.i ? (uint64_t)hi.i - (uint64_t)lo.i : 0;
        uint64_t iters = span ? (span - 1) / (uint64_t)st.i + 1 : 0;
        if (iters > 4096) {
            diag_error(e->diag, s->loc, "'unroll for' would unroll %llu iterations (limit 4096)",
                       (unsigned long long)iters);
            return;
        }
        bool group = sm90_wgmma_group_begin(e, s->d);
        const Node *outer = e->expanding;
        if (!outer) e->expanding = s;
        /* i + st.i may pass INT64_MAX after the last iteration: stop first */
        for (int64_t i = lo.i; i < hi.i && !e->returned && eval_work(e, 1, s->loc); i = unroll_next(i, hi.i, st.i)) {
            scope_push(e);
            scope_bind(e, s->name, val_int(i));
            eval_block(e, s->d);
            scope_pop(e);
        }
        e->expanding = outer;
        if (group) sm90_wgmma_group_end(e);
        return;
    }
    if (lo.kind == V_INT && hi.kind == V_INT && lo.i >= hi.i) return;
    if (!require_cg(e, s->loc, "a runtime loop")) return;
    /* the loop counts in i64 if a bound or the step is one (or a static
     * integer past i32), as arithmetic would */
    ScalarType ty = TY_I32;
    const Value *ends[3] = {&lo, &hi, &st};
    for (int i = 0; i < 3; i++)
        if ((ends[i]->kind == V_DYN && ends[i]->ty == TY_I64) || (ends[i]->kind == V_INT && !int_fits_i32(ends[i]->i)))
            ty = TY_I64;
    lo = conv_to(e, lo, ty, s->a->loc, false);
    hi = conv_to(e, hi, ty, s->b->loc, false);
    Value stv = conv_to(e, st, ty, s->loc, false);
    if (lo.kind == V_ERROR || hi.kind == V_ERROR || stv.kind == V_ERROR) return;
    CG *cg = e->cg;
    LLVMValueRef slot = cg_alloca(cg, cg_type(cg, ty), s->name);
    LLVMBuildStore(cg->b, lo.llvm, slot);
    LLVMBasicBlockRef cond = new_block(e, "for.cond"), body = new_block(e, "for.body"), exit = new_block(e, "for.end");
    LLVMBuildBr(cg->b, cond);
    LLVMPositionBuilderAtEnd(cg->b, cond);
    LLVMValueRef iv = LLVMBuildLoad2(cg->b, cg_type(cg, ty), slot, s->name);
    LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, iv, hi.llvm, ""), body, exit);
    LLVMPositionBuilderAtEnd(cg->b, body);
    e->dyn_depth++;
    scope_push(e);
    Value ivv = val_dyn(iv, ty);
    ivv.name = s->name;
    scope_bind(e, s->name, ivv);
    eval_block(e, s->d);
    scope_pop(e);
    e->dyn_depth--;
    if (block_open(e)) {
        LLVMBuildStore(cg->b, LLVMBuildAdd(cg->b, iv, stv.llvm, ""), slot);
        LLVMBuildBr(cg->b, cond);
    }
    LLVMPositionBuilderAtEnd(cg->b, exit);
}

/* `while C { }`: C is evaluated at the top of every iteration (a `var`
 * it reads is loaded there).  A condition that is static false emits
 * nothing; static true could only run forever (there is no `break`). */
static void eval_while(Eval *e, const Node *s)
{
    if (!require_cg(e, s->loc, "a 'while' loop")) return;
    CG *cg = e->cg;
    LLVMBasicBlockRef cond = new_block(e, "while.cond"), body = new_block(e, "while.body"),
                      exit = new_block(e, "while.end");
    LLVMBuildBr(cg->b, cond);
    LLVMPositionBuilderAtEnd(cg->b, cond);
    Value c = eval_rvalue(e, s->a);
    if (c.kind == V_DYN && c.ty == TY_BOOL) {
        LLVMBuildCondBr(cg->b, c.llvm, body, exit);
    } else {
        if (c.kind == V_BOOL && c.i)
            diag_error(e->diag, s->a->loc, "the 'while' condition is always true: the loop would never end");
        else if (c.kind != V_ERROR && c.kind != V_BOOL)
            diag_error(e->diag, s->a->loc, "condition must be a boolean, found %s", val_describe(e, &c));
        LLVMBuildBr(cg->b, exit);
        LLVMDeleteBasicBlock(body);
        LLVMPositionBuilderAtEnd(cg->b, exit);
        return;
    }
    LLVMPositionBuilderAtEnd(cg->b, body);
    e->dyn_depth++;
    eval_block(e, s->d);
    e->dyn_depth--;
    if (block_open(e)) LLVMBuildBr(cg->b, cond);
    LLVMPositionBuilderAtEnd(cg->b, exit);
}

static void eval_if(Eval *e, const Node *s)
{
    Value c = eval_rvalue(e, s->a);
    if (c.kind == V_ERROR) return;
    if (c.kind == V_BOOL) { /* static: only the taken branch exists */
        if (c.i)
            eval_block(e, s->b);
        else if (s->c)
            eval_stmt(e, s->c);
        return;
    }
    if (c.kind != V_DYN || c.ty != TY_BOOL) {
        diag_error(e->diag, s->a->loc, "condition must be a boolean, found %s", val_describe(e, &c));
        return;
    }
    CG *cg = e->cg;
    LLVMBasicBlockRef then = new_block(e, "if.then"), merge = new_block(e, "if.end");
    LLVMBasicBlockRef els = s->c ? new_block(e, "if.else") : merge;
    LLVMBuildCondBr(cg->b, c.llvm, then, els);
    e->dyn_depth++;
    LLVMPositionBuilderAtEnd(cg->b, then);
    eval_block(e, s->b);
    if (block_open(e)) LLVMBuildBr(cg->b, merge);
    if (s->c) {
        LLVMPositionBuilderAtEnd(cg->b, els);
        eval_stmt(e, s->c);
        if (block_open(e)) LLVMBuildBr(cg->b, merge);
    }
    e->dyn_depth--;
    LLVMMoveBasicBlockAfter(merge, LLVMGetInsertBlock(cg->b));
    LLVMPositionBuilderAtEnd(cg->b, merge);
}

static void eval_buffer(Eval *e, const Node *s, bool shared)
{
    if (!require_cg(e, s->loc, shared ? "'shared'" : "'local'")) return;
    Value et = eval_type(e, s->a);
    Value l = eval_rvalue(e, s->b);
    if (et.kind == V_ERROR || l.kind == V_ERROR) goto fail;
    if (et.kind != V_TYPE || et.ty == TY_BOOL) {
        diag_error(e->diag, s->a->loc, "element type must be a numeric scalar type");
        goto fail;
    }
    LayValue lay;
    if (!val_to_lay(e, l, &lay, s->b->loc, "the layout")) goto fail;
    if (lay.kind == LAY_V_INT || lay.kind == LAY_V_TUPLE) {
        LayValue arg = lay;
        LayError err = {.arg = -1};
        if (!lay_call(e->arena, "make_layout", NULL, 0, &arg, 1, &lay, &err)) {
            diag_error(e->diag, s->b->loc, "%s", err.msg);
            goto fail;
        }
    }
    if (lay.kind != LAY_V_LAYOUT && lay.kind != LAY_V_COMPOSED) {
        diag_error(e->diag, s->b->loc, "expected a layout, found %s", val_describe(e, &l));
        goto fail;
    }
    int64_t n;
    if (!static_cosize(e, &lay, s->b->loc, &n)) goto fail;
    /* bounded here, each, so that the kernel's total cannot overflow either */
    int64_t bytes, limit = shared ? CUTEC_SMEM_MAX : 64 * 1024;
    bool ovf = __builtin_mul_overflow(n, (int64_t)type_bytes(et.ty), &bytes);
    if (ovf || bytes > limit) {
        diag_error(e->diag, s->loc, "%s tensor '%s' takes %s bytes (limit %lld)", shared ? "shared" : "local", s->name,
                   ovf ? "more than 2^63" : arena_printf(e->arena, "%lld", (long long)bytes), (long long)limit);
        goto fail;
    }
    CG *cg = e->cg;
    LLVMTypeRef arr = LLVMArrayType2(cg_type(cg, et.ty), (uint64_t)(n > 0 ? n : 1));
    LLVMValueRef ptr;
    if (shared) {
        int64_t align = 16;
        if (s->c) {
            Value a = eval_rvalue(e, s->c);
            if (a.kind != V_INT || a.i <= 0 || (a.i & (a.i - 1)) || a.i > 4096) {
                diag_error(e->diag, s->c->loc, "alignment must be a power of two between 1 and 4096");
                goto fail;
            }
            align = a.i;
        }
        char *name = arena_printf(e->arena, "__smem_%s_%d", s->name, cg->nshared++);
        ptr = LLVMAddGlobalInAddressSpace(cg->mod, arr, name, 3);
        LLVMSetLinkage(ptr, LLVMInternalLinkage);
        LLVMSetInitializer(ptr, LLVMGetUndef(arr));
        LLVMSetAlignment(ptr, (unsigned)align);
        if (cg->nsmem == cg->capsmem) {
            int cap = cg->capsmem ? cg->capsmem * 2 : 8;
            struct CGShared *grown = ARENA_ARRAY(e->arena, struct CGShared, cap);
            if (cg->nsmem) memcpy(grown, cg->smem, sizeof *grown * (size_t)cg->nsmem);
            cg->smem = grown;
            cg->capsmem = cap;
        }
        cg->smem[cg->nsmem++] = (struct CGShared){ptr, bytes, align};
    } else {
        ptr = cg_alloca(cg, arr, s->name);
    }
    scope_bind(e, s->name, tensor_make(ptr, et.ty, shared ? SPACE_SMEM : SPACE_RMEM, lay));
    return;
fail:
    scope_bind(e, s->name, val_error());
}

static void eval_return(Eval *e, const Node *s)
{
    if (!e->in_fn) { /* in a kernel: `return;` ends this thread */
        if (s->a) {
            diag_error(e->diag, s->a->loc, "a kernel cannot return a value");
            return;
        }
        if (!require_cg(e, s->loc, "'return'")) return;
        LLVMBuildRetVoid(e->cg->b);
        LLVMPositionBuilderAtEnd(e->cg->b, new_block(e, "after.return"));
        return;
    }
    if (e->dyn_depth > 0) {
        diag_error(e->diag, s->loc, "'return' inside runtime control flow is not supported in functions");
        return;
    }
    e->ret = s->a ? eval_rvalue(e, s->a) : (Value){.kind = V_VOID};
    e->ret_loc = s->a ? s->a->loc : s->loc;
    e->returned = true;
}

void eval_stmt(Eval *e, const Node *s)
{
    if (!eval_work(e, 1, s->loc)) return;
    if (e->cg && s->kind != N_BLOCK) cg_debug_loc(e->cg, s->loc);
    switch (s->kind) {
    case N_LET: eval_let(e, s); break;
    case N_ASSIGN: eval_assign(e, s); break;
    case N_FOR: eval_for(e, s); break;
    case N_IF: eval_if(e, s); break;
    case N_WHILE: eval_while(e, s); break;
    case N_SHARED: eval_buffer(e, s, true); break;
    case N_LOCAL: eval_buffer(e, s, false); break;
    case N_RETURN: eval_return(e, s); break;
    case N_BLOCK: eval_block(e, s); break;
    case N_EXPR_STMT: eval_expr(e, s->a); break;
    default: diag_error(e->diag, s->loc, "expected a statement"); break;
    }
}

void eval_block(Eval *e, const Node *block)
{
    if (!eval_enter(e, block->loc, 1)) return;
    scope_push(e);
    for (int i = 0; i < block->list.n && !e->returned; i++) {
        const Node *st = block->list.items[i];
        if (i + 1 < block->list.n && sm90_wgmma_group_fence(e, st, block->list.items[i + 1])) {
            /* wgmma_fence(acc) and the wgmma loop after it: one asm statement */
            eval_stmt(e, block->list.items[++i]);
            sm90_wgmma_group_end(e);
            continue;
        }
        eval_stmt(e, st);
    }
    scope_pop(e);
    eval_leave(e, 1);
}
