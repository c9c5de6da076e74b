/* kernel.c: template instantiation and kernel emission.  Template
 * parameters take their -D value or their default; scalar parameters are
 * bound first so that tensor layouts may use them in any order; the body
 * is then evaluated into one PTX entry function. */
#include <string.h>

#include "builtins.h"
#include "codegen.h"
#include "kernel.h"
#include "kernel_desc.h"
#include "program.h"

/* Evaluate a compile-time expression (a -D value or a default) in `scope`. */
static Value eval_static(Eval *e, const Node *n)
{
    Eval sub = *e;
    sub.cg = NULL;
    return eval_rvalue(&sub, n);
}

/* The kinds of template parameter: `int` (a compile-time integer), `type`
 * (a scalar type), `fn` (a function or builtin, called as its name is). */
typedef enum TParamKind { TP_INT, TP_TYPE, TP_FN } TParamKind;

static bool tparam_kind(const char *name, TParamKind *out)
{
    static const struct {
        const char *name;
        TParamKind kind;
    } kinds[] = {
        {"int", TP_INT},
        {"type", TP_TYPE},
        {"fn", TP_FN},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, name) == 0) {
            *out = kinds[i].kind;
            return true;
        }
    return false;
}

static bool is_fn_value(const Value *v) { return v->kind == V_FUNC || v->kind == V_BUILTIN; }

/* A template value as -D, --list-tune and the kernel description spell it. */
static const char *tparam_text(Arena *a, const Value *v)
{
    if (v->kind == V_TYPE) return type_name(v->ty);
    if (v->kind == V_FUNC) return v->node->name;
    if (v->kind == V_BUILTIN) return v->name;
    return arena_printf(a, "%lld", (long long)v->i);
}

/* The value of fn parameter tp from expression n (a -D value or a
 * default): a bare name that names no function, constant or builtin is
 * reported as such, with the parameter, rather than as an unknown name. */
static Value eval_fn_param(Eval *e, const Node *tp, const Node *n)
{
    if (n->kind == N_NAME) {
        Value v;
        TopSym *s = e->prog ? program_lookup(e->prog, n->name) : NULL;
        if (!s && !scope_lookup(e, n->name, &v) && !builtin_exists(n->name) && !lay_is_function(n->name)) {
            diag_error(e->diag, n->loc, "template parameter '%s' needs a function; '%s' is not a function or builtin",
                       tp->name, n->name);
            return val_error();
        }
    }
    return eval_static(e, n);
}

/* Binds each template parameter to, in order of precedence: the tune
 * point's value (`point`, may be NULL), its -D value, its default.  Records
 * the values in `desc` when given. */
static bool bind_template_params(Eval *e, Program *p, const Node *k, const Value *point, cutec_kdesc *desc)
{
    bool ok = true;
    if (desc && k->list2.n > CUTEC_KD_MAX_PARAMS) {
        diag_error(e->diag, k->list2.items[CUTEC_KD_MAX_PARAMS]->name_loc,
                   "a kernel has at most %d template parameters", CUTEC_KD_MAX_PARAMS);
        return false;
    }
    for (int i = 0; i < k->list2.n; i++) {
        const Node *tp = k->list2.items[i];
        TParamKind kind;
        if (!tparam_kind(tp->a->name, &kind)) {
            diag_error(e->diag, tp->a->loc, "template parameter kind must be 'int', 'type' or 'fn', found '%s'",
                       tp->a->name);
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
        if (point && point[i].kind != V_VOID) {
            v = point[i];
        } else if (d) {
            d->used = true;
            v = kind == TP_FN ? eval_fn_param(e, tp, d->expr) : eval_static(e, d->expr);
            where = d->expr->loc;
        } else if (tp->b) {
            v = kind == TP_FN ? eval_fn_param(e, tp, tp->b) : eval_static(e, tp->b);
            where = tp->b->loc;
        } else {
            diag_error(e->diag, tp->name_loc, "template parameter '%s' of kernel '%s' has no value; pass -D %s=VALUE",
                       tp->name, k->name, tp->name);
            ok = false;
            scope_bind(e, tp->name, val_error());
            continue;
        }
        if (v.kind != V_ERROR && kind == TP_TYPE && v.kind != V_TYPE) {
            diag_error(e->diag, where, "template parameter '%s' must be a type, found %s", tp->name,
                       val_describe(e, &v));
            v = val_error();
        } else if (v.kind != V_ERROR && kind == TP_FN && !is_fn_value(&v)) {
            diag_error(e->diag, where, "template parameter '%s' must be a function, found %s", tp->name,
                       val_describe(e, &v));
            v = val_error();
        } else if (v.kind != V_ERROR && kind == TP_INT && v.kind != V_INT) {
            diag_error(e->diag, where, "template parameter '%s' must be a compile-time integer, found %s", tp->name,
                       val_describe(e, &v));
            v = val_error();
        }
        if (v.kind == V_ERROR) ok = false;
        scope_bind(e, tp->name, v);
        if (desc && v.kind != V_ERROR) {
            const char *val = tparam_text(p->arena, &v);
            ok = kdesc_put(e, desc, tp->name, tp->name_loc, &desc->pname[desc->nparams]) &&
                 kdesc_put(e, desc, val, where, &desc->pvalue[desc->nparams]) && ok;
            desc->nparams++;
        }
    }
    return ok;
}

/* The tune clause's `require` conditions, with template parameters bound.
 * report: diagnose a failing condition (compiling a point) or stay quiet
 * (enumerating points). */
static bool check_requires(Eval *e, const Node *k, bool report)
{
    if (!k->c) return true;
    bool ok = true;
    for (int i = 0; i < k->c->list.n; i++) {
        const Node *r = k->c->list.items[i];
        if (r->kind != N_TUNE_REQUIRE) continue;
        Eval sub = *e;
        sub.cg = NULL;
        Value v = eval_rvalue(&sub, r->a);
        if (v.kind == V_ERROR) return false;
        if (v.kind != V_BOOL) {
            diag_error(e->diag, r->a->loc, "a 'require' condition must be a compile-time boolean, found %s",
                       val_describe(e, &v));
            return false;
        }
        if (!v.i) {
            if (report)
                diag_error(e->diag, r->a->loc, "this point of kernel '%s' violates its tune constraint", k->name);
            ok = false;
        }
    }
    return ok;
}

/* The values one tune variable ranges over. */
static bool tune_values(Eval *e, const Node *k, const Node *var, Value **vals, int *n)
{
    int idx = -1;
    for (int i = 0; i < k->list2.n; i++)
        if (strcmp(k->list2.items[i]->name, var->name) == 0) idx = i;
    if (idx < 0) {
        diag_error(e->diag, var->name_loc, "tune variable '%s' is not a template parameter of kernel '%s'", var->name,
                   k->name);
        return false;
    }
    Eval sub = *e;
    sub.cg = NULL;
    if (!var->a) {
        *n = var->list.n;
        *vals = ARENA_ARRAY(e->arena, Value, *n);
        for (int i = 0; i < *n; i++) {
            TParamKind kind;
            const Node *tp = k->list2.items[idx];
            bool fn = tparam_kind(tp->a->name, &kind) && kind == TP_FN;
            (*vals)[i] = fn ? eval_fn_param(&sub, tp, var->list.items[i]) : eval_rvalue(&sub, var->list.items[i]);
            if ((*vals)[i].kind != V_INT && (*vals)[i].kind != V_TYPE && !is_fn_value(&(*vals)[i])) {
                if ((*vals)[i].kind != V_ERROR)
                    diag_error(e->diag, var->list.items[i]->loc,
                               "a tune value must be a compile-time integer, type or function");
                return false;
            }
        }
        return true;
    }
    Value lo = eval_rvalue(&sub, var->a), hi = eval_rvalue(&sub, var->b);
    if (lo.kind != V_INT || hi.kind != V_INT || hi.i <= lo.i || (uint64_t)hi.i - (uint64_t)lo.i > 4096) {
        diag_error(e->diag, var->loc,
                   "a tune range a..b needs compile-time integers with a < b and at most 4096 values");
        return false;
    }
    *n = (int)(hi.i - lo.i);
    *vals = ARENA_ARRAY(e->arena, Value, *n);
    for (int i = 0; i < *n; i++) (*vals)[i] = val_int(lo.i + i);
    return true;
}

/* Counts kernel k's declared points (the product of its variables'
 * numbers of values) against the file's limit; false after a diagnostic. */
static bool count_points(Program *p, const Node *k, const int *nvals, int nv, TuneList *list, long long *total)
{
    long long left = CUTEC_TUNE_POINTS_MAX - list->declared;
    *total = 1;
    for (int i = 0; i <= nv; i++) {
        if (*total > left) { /* checked before each product: nvals < 2^31, so it cannot overflow */
            SrcLoc at = k->c ? k->c->loc : k->name_loc;
            if (list->declared)
                diag_error(p->diag, at,
                           "kernel '%s' declares more tune points than the %lld left of the limit of %d per file (the "
                           "kernels before it declare %lld)",
                           k->name, left, CUTEC_TUNE_POINTS_MAX, list->declared);
            else
                diag_error(p->diag, at,
                           "kernel '%s' declares more than %d tune points, the limit per file (the product of its "
                           "variables' numbers of values)",
                           k->name, CUTEC_TUNE_POINTS_MAX);
            return false;
        }
        if (i < nv) *total *= nvals[i];
    }
    list->declared += *total;
    return true;
}

static void append_point(TuneList *list, const char *kernel, cutec_define *defs, int n)
{
    if (list->n == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 64;
        cutec_tune_point *grown = ARENA_ARRAY(list->keep, cutec_tune_point, cap);
        if (list->n) memcpy(grown, list->points, sizeof *grown * list->n);
        list->points = grown;
        list->cap = cap;
    }
    list->points[list->n++] = (cutec_tune_point){.kernel = kernel, .defines = defs, .ndefines = n};
}

bool kernel_list_tune(Program *p, const Node *k, TuneList *list)
{
    Eval ev = {.arena = p->arena, .diag = p->diag, .prog = p};
    int before = p->diag->errors;
    int nt = k->list2.n;
    const Node *vars[64];
    Value *vals[64];
    int nvals[64], pidx[64], nv = 0;
    if (k->c)
        for (int i = 0; i < k->c->list.n; i++) {
            const Node *v = k->c->list.items[i];
            if (v->kind != N_TUNE_VAR) continue;
            if (nv == 64) {
                diag_error(p->diag, v->loc, "more than 64 tune variables");
                return false;
            }
            scope_push(&ev);
            if (!tune_values(&ev, k, v, &vals[nv], &nvals[nv])) return false;
            for (int j = 0; j < nt; j++)
                if (strcmp(k->list2.items[j]->name, v->name) == 0) pidx[nv] = j;
            vars[nv++] = v;
        }
    long long total;
    if (!count_points(p, k, nvals, nv, list, &total)) return false;
    /* each variable's values as -D takes them, once, where the list lives */
    const char *kernel = arena_strdup(list->keep, k->name);
    cutec_define *text[64];
    for (int i = 0; i < nv; i++) {
        text[i] = ARENA_ARRAY(list->keep, cutec_define, nvals[i]);
        const char *name = arena_strdup(list->keep, vars[i]->name);
        for (int j = 0; j < nvals[i]; j++) {
            const Value *v = &vals[i][j];
            text[i][j].name = name;
            /* a type, a function (fn parameters) or an integer, as -D spells it */
            text[i][j].value = arena_strdup(list->keep, tparam_text(list->keep, v));
        }
    }
    int *odo = ARENA_ARRAY(p->arena, int, nv + 1);
    Value *point = ARENA_ARRAY(p->arena, Value, nt + 1);
    for (long long n = 0; n < total; n++) {
        for (int j = 0; j < nt; j++) point[j] = (Value){.kind = V_VOID};
        for (int i = 0; i < nv; i++) point[pidx[i]] = vals[i][odo[i]];
        /* a point's bindings and conditions in an arena of their own, freed
         * after it, so that memory does not grow with the number of points
         * (top-level constants keep their values in the program's arena) */
        Arena scratch;
        arena_init(&scratch);
        Eval e = ev;
        e.arena = &scratch;
        e.scope = NULL;
        scope_push(&e);
        if (bind_template_params(&e, p, k, point, NULL) && check_requires(&e, k, false)) {
            cutec_define *defs = ARENA_ARRAY(list->keep, cutec_define, nv + 1);
            for (int i = 0; i < nv; i++) defs[i] = text[i][odo[i]];
            append_point(list, kernel, defs, nv);
        }
        arena_free(&scratch);
        if (p->diag->errors != before) return false;
        for (int i = nv - 1; i >= 0; i--) { /* odometer, last variable fastest */
            if (++odo[i] < nvals[i]) break;
            odo[i] = 0;
        }
    }
    return true;
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
        int64_t lim = i == 2 ? 64 : 1024; /* the hardware's block limits */
        if (v.kind != V_INT || v.i <= 0 || v.i > lim) {
            diag_error(e->diag, k->list3.items[i]->loc,
                       "threads() dimension %c must be a compile-time integer in 1..%lld, found %s", "xyz"[i],
                       (long long)lim, val_describe(e, &v));
            return false;
        }
        e->threads[i] = v.i;
        total *= v.i;
    }
    if (total > 1024) {
        SrcLoc all = k->list3.items[0]->loc;
        all.last_line = k->list3.items[k->list3.n - 1]->loc.last_line;
        all.last_column = k->list3.items[k->list3.n - 1]->loc.last_column;
        diag_error(e->diag, all, "threads() asks for %lld threads per block; the limit is 1024", (long long)total);
        return false;
    }
    e->has_threads = true;
    return true;
}

/* A grid() expression as text for the launcher: template parameters and
 * constants are substituted, scalar kernel parameters stay by name.  The
 * grammar is the small one docs/compiler.md gives (integers, names,
 * + - * / %, ceil_div, min, max, resident). */
/* Up to 48 KiB the shared tensors stay static globals; beyond, they move
 * into the dynamic shared memory window (the launcher passes the size from
 * the kernel's metadata).  Returns the bytes used, or -1 on error. */
static long long place_shared(CG *cg, Eval *e, const Node *k)
{
    long long total = 0, maxalign = 16;
    long long *offs = ARENA_ARRAY(e->arena, long long, cg->nsmem + 1);
    for (int i = 0; i < cg->nsmem; i++) {
        long long a = cg->smem[i].align;
        total = (total + a - 1) / a * a;
        offs[i] = total;
        total += cg->smem[i].bytes;
        if (a > maxalign) maxalign = a;
    }
    if (total > CUTEC_SMEM_MAX) {
        diag_error(e->diag, k->name_loc, "kernel '%s' needs %lld bytes of shared memory; the limit is %d", k->name,
                   total, CUTEC_SMEM_MAX);
        cg->nsmem = 0;
        return -1;
    }
    if (total > CUTEC_STATIC_SMEM_MAX) {
        LLVMValueRef base = LLVMGetNamedGlobal(cg->mod, "__cutec_dsmem");
        if (!base) {
            base = LLVMAddGlobalInAddressSpace(cg->mod, LLVMArrayType2(cg->t_i8, 0), "__cutec_dsmem", 3);
            LLVMSetLinkage(base, LLVMExternalLinkage);
            LLVMSetAlignment(base, 1024);
        }
        if (maxalign > 1024) LLVMSetAlignment(base, (unsigned)maxalign);
        for (int i = 0; i < cg->nsmem; i++) {
            LLVMValueRef off = LLVMConstInt(cg->t_i64, (unsigned long long)offs[i], 0);
            LLVMValueRef at = LLVMConstInBoundsGEP2(cg->t_i8, base, &off, 1);
            LLVMReplaceAllUsesWith(cg->smem[i].global, at);
            LLVMDeleteGlobal(cg->smem[i].global);
        }
    }
    cg->nsmem = 0;
    return total;
}

/* tma<A, box, SW> parameters: a 128-byte CUtensorMap passed by value as
 * a grid constant (so its address is a param-space address, as TMA needs),
 * built by the launcher from tensor A as the `// cutec.arg ... tma` line
 * says.  A is flat, of rank 2 or 3, with one mode of stride 1: the map's
 * dimension 0; the other modes follow in A's mode order (a rank-3 A is a
 * batch of matrices, its third mode the batch). */
typedef struct TmaParam {
    bool set;
    int tensor; /* index of the parameter the map describes */
    int rank;
    char *dims[CUTEC_KD_MAX_TMA_RANK], *stride[CUTEC_KD_MAX_TMA_RANK - 1];
    unsigned box[CUTEC_KD_MAX_TMA_RANK];
    int swizzle;
    LLVMValueRef val; /* the map's address, to see whether the body used it */
} TmaParam;

/* A's rank when it is flat, of rank 2 or 3, with a mode of static stride 1
 * (*inner: the last such mode); 0 when TMA cannot describe it. */
static int tma_tensor_rank(const LayLayout *L, int *inner)
{
    const LayTuple *s = L->shape;
    if (s->is_leaf || s->n < 2 || s->n > CUTEC_KD_MAX_TMA_RANK) return 0;
    *inner = -1;
    for (int m = 0; m < s->n; m++) {
        if (!s->elems[m]->is_leaf) return 0;
        if (L->stride->elems[m]->leaf.is_static && L->stride->elems[m]->leaf.value == 1) *inner = m;
    }
    return *inner < 0 ? 0 : s->n;
}

/* The box: one compile-time size in 1..256 per mode of A. */
static bool tma_box_ok(const LayTuple *bt, int rank)
{
    if (!bt || bt->is_leaf || bt->n != rank) return false;
    for (int m = 0; m < rank; m++)
        if (!bt->elems[m]->is_leaf || !bt->elems[m]->leaf.is_static || bt->elems[m]->leaf.value < 1 ||
            bt->elems[m]->leaf.value > 256)
            return false;
    return true;
}

static bool bind_tma_params(Eval *e, Program *p, const Node *k, LLVMValueRef fn, const Value *ptypes, TmaParam *tmas)
{
    CG *cg = e->cg;
    bool ok = true;
    int np = k->list.n, ngc = 0;
    LLVMMetadataRef *gc = ARENA_ARRAY(p->arena, LLVMMetadataRef, np + 1);
    for (int i = 0; i < np; i++) {
        const Node *par = k->list.items[i];
        if (ptypes[i].kind != V_TMAP) continue;
        const Node *ty = par->a;
        LLVMValueRef pv = LLVMGetParam(fn, (unsigned)i);
        LLVMAddAttributeAtIndex(fn, (unsigned)i + 1,
                                LLVMCreateTypeAttribute(cg->ctx, LLVMGetEnumAttributeKindForName("byval", 5),
                                                        LLVMArrayType2(cg->t_i8, 128)));
        LLVMAddAttributeAtIndex(fn, (unsigned)i + 1,
                                LLVMCreateEnumAttribute(cg->ctx, LLVMGetEnumAttributeKindForName("align", 5), 64));
        gc[ngc++] = LLVMValueAsMetadata(LLVMConstInt(cg->t_i32, (unsigned long long)i + 1, 0));
        Value t;
        if (!scope_lookup(e, ty->name, &t) || t.kind != V_TENSOR || t.space != SPACE_GMEM ||
            t.lay.kind != LAY_V_LAYOUT) {
            diag_error(e->diag, ty->name_loc, "tma<%s, ...> needs a global tensor parameter named '%s'", ty->name,
                       ty->name);
            ok = false;
            scope_bind(e, par->name, val_error());
            continue;
        }
        LayLayout *L = &t.lay.layout;
        Eval sub = *e;
        sub.cg = NULL;
        Value box = eval_rvalue(&sub, ty->a), sw = eval_rvalue(&sub, ty->b);
        LayTuple *bt = box.kind == V_LAY && box.lay.kind == LAY_V_TUPLE ? box.lay.tuple : NULL;
        int inner = -1, rank = tma_tensor_rank(L, &inner);
        if (rank == 0) {
            diag_error(e->diag, ty->name_loc,
                       "tma<%s, ...>: TMA needs a flat tensor of rank 2 or 3 with one mode of stride 1, found %s",
                       ty->name, lay_print_layout(e->arena, L));
            ok = false;
            continue;
        }
        if (!tma_box_ok(bt, rank)) {
            diag_error(e->diag, ty->a->loc,
                       "the TMA box must be a tuple of %d compile-time sizes in 1..256 (one per mode of '%s'), found "
                       "%s",
                       rank, ty->name, val_describe(e, &box));
            ok = false;
            continue;
        }
        /* map order: the stride-1 mode, then the others in mode order */
        int order[CUTEC_KD_MAX_TMA_RANK], n = 0;
        order[n++] = inner;
        for (int m = 0; m < rank; m++)
            if (m != inner) order[n++] = m;
        int64_t b0 = bt->elems[inner]->leaf.value, bytes = 1;
        int eb = type_bytes(t.ty);
        if (sw.kind != V_INT || (sw.i != 0 && sw.i != 32 && sw.i != 64 && sw.i != 128) || (sw.i && b0 * eb > sw.i) ||
            (b0 * eb) % 16) {
            diag_error(e->diag, ty->b->loc,
                       "TMA swizzle must be 0, 32, 64 or 128 bytes, at least the box's inner row (%lld bytes, a "
                       "multiple of 16)",
                       (long long)(b0 * eb));
            ok = false;
            continue;
        }
        TmaParam tp = {.set = true, .rank = rank, .swizzle = (int)sw.i};
        for (int m = 0; m < rank; m++) {
            const LayTuple *mode = L->shape->elems[order[m]];
            tp.dims[m] = lay_print_int(e->arena, mode->leaf);
            tp.box[m] = (unsigned)bt->elems[order[m]]->leaf.value;
            if (m > 0) tp.stride[m - 1] = lay_print_int(e->arena, L->stride->elems[order[m]]->leaf);
            bytes *= bt->elems[m]->leaf.value;
        }
        Value tv = {.kind = V_TMAP,
                    .llvm = LLVMBuildPtrToInt(cg->b, pv, cg->t_i64, par->name),
                    .i = bytes * eb,
                    .ty = t.ty,
                    .lay = box.lay,
                    .name = par->name};
        scope_bind(e, par->name, tv);
        while (strcmp(k->list.items[tp.tensor]->name, ty->name) != 0) tp.tensor++;
        tp.val = tv.llvm;
        tmas[i] = tp;
    }
    if (ngc) {
        LLVMMetadataRef md[3] = {LLVMValueAsMetadata(fn), LLVMMDStringInContext2(cg->ctx, "grid_constant", 13),
                                 LLVMMDNodeInContext2(cg->ctx, gc, (size_t)ngc)};
        LLVMAddNamedMetadataOperand(cg->mod, "nvvm.annotations",
                                    LLVMMetadataAsValue(cg->ctx, LLVMMDNodeInContext2(cg->ctx, md, 3)));
    }
    return ok;
}

/* The kernel's arguments in parameter order, once all are bound. */
static bool describe_args(Eval *e, const Node *k, const Value *ptypes, const TmaParam *tmas, cutec_kdesc *desc)
{
    bool ok = true;
    for (int i = 0; i < k->list.n && ok; i++) {
        const Node *par = k->list.items[i];
        Value t;
        if (ptypes[i].kind == V_TYPE)
            ok = kdesc_scalar_arg(e, desc, par, ptypes[i].ty);
        else if (ptypes[i].kind == V_TMAP && tmas[i].set)
            ok = kdesc_tma_arg(e, desc, par, tmas[i].tensor, tmas[i].rank, tmas[i].dims, tmas[i].stride, tmas[i].box,
                               tmas[i].swizzle);
        else if (scope_lookup(e, par->name, &t) && t.kind == V_TENSOR && t.lay.kind == LAY_V_LAYOUT)
            ok = kdesc_tensor_arg(e, desc, par, t.ty, &t.lay.layout);
        else
            ok = false; /* reported where it was bound */
    }
    for (int i = 0; i < desc->nargs && ok; i++) /* a map's element is its tensor's, wherever that comes */
        if (desc->args[i].kind == CUTEC_KD_TMA) desc->args[i].dtype = desc->args[desc->args[i].tensor].dtype;
    return ok;
}

/* The kernel with only the parameters that exist for these template
 * values (`NAME: type if COND`): a copy of k whose parameter list leaves
 * out those whose condition is false.  Those are bound as V_ABSENT values:
 * a use reads "absent" rather than "unknown name", and a serves role on one
 * is dropped with it (kernel_desc.c). */
static const Node *present_params(Eval *e, const Node *k, bool *ok)
{
    bool any = false;
    for (int i = 0; i < k->list.n; i++) any |= k->list.items[i]->b != NULL;
    if (!any) return k;
    Node *kk = ARENA_NEW(e->arena, Node);
    *kk = *k;
    kk->list = (NodeList){ARENA_ARRAY(e->arena, Node *, k->list.n), 0, k->list.n};
    for (int i = 0; i < k->list.n; i++) {
        Node *par = k->list.items[i];
        bool present = true;
        if (par->b) {
            Value c = eval_static(e, par->b);
            if (c.kind != V_BOOL) {
                if (c.kind != V_ERROR)
                    diag_error(e->diag, par->b->loc,
                               "the condition of parameter '%s' must be a compile-time boolean, found %s", par->name,
                               val_describe(e, &c));
                *ok = false;
            } else {
                present = c.i != 0;
            }
        }
        /* an absent parameter can still be named and passed to a function
         * (which uses it only where the same condition holds) */
        if (present)
            kk->list.items[kk->list.n++] = par;
        else
            scope_bind(e, par->name, (Value){.kind = V_ABSENT, .node = par});
    }
    return kk;
}

bool kernel_emit(Program *p, CG *cg, const Node *k, cutec_kdesc *desc)
{
    Eval ev = {.arena = p->arena, .diag = p->diag, .cg = cg, .prog = p};
    Eval *e = &ev;
    int before = p->diag->errors;
    scope_push(e);
    cutec_kdesc_init(desc, k->name);
    bool ok = bind_template_params(e, p, k, NULL, desc);
    ok = ok && check_requires(e, k, true);
    if (ok) k = present_params(e, k, &ok);
    /* the limit is on the parameters an instance has: a template's
     * conditional ones (`if SWITCH == 1`) may declare more in all */
    if (ok && k->list.n > CUTEC_KD_MAX_ARGS) {
        diag_error(e->diag, k->list.items[CUTEC_KD_MAX_ARGS]->name_loc,
                   "a kernel has at most %d parameters (present in this instance)", CUTEC_KD_MAX_ARGS);
        return false;
    }
    TmaParam *tmas = ARENA_ARRAY(p->arena, TmaParam, k->list.n + 1);
    ok = eval_threads(e, k) && ok;
    int64_t cl[3] = {1, 1, 1};
    if (k->a) {
        int64_t total = 1;
        for (int i = 0; i < k->a->list.n; i++) {
            Value v = eval_static(e, k->a->list.items[i]);
            if (i >= 3 || v.kind != V_INT || v.i < 1 || v.i > 16) {
                if (v.kind != V_ERROR)
                    diag_error(e->diag, k->a->list.items[i]->loc,
                               i >= 3 ? "cluster() takes at most 3 dimensions"
                                      : "a cluster dimension must be a compile-time integer in 1..16");
                ok = false;
                break;
            }
            cl[i] = v.i;
            total *= v.i;
        }
        if (ok && total > 16) {
            diag_error(e->diag, k->a->loc, "a cluster of %lld blocks is larger than 16", (long long)total);
            ok = false;
        }
        for (int i = 0; i < 3; i++) desc->cluster[i] = (unsigned)cl[i];
    }
    e->cluster_size = cl[0] * cl[1] * cl[2];

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
        } else if (par->a->kind == N_TYPE_TMA) {
            ptypes[i] = (Value){.kind = V_TMAP};
            lt[i] = cg->t_ptr;
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
        if (par->a->kind == N_TYPE_TMA) continue;
        e->param_layout = true;
        Value t = eval_type(e, par->a);
        e->param_layout = false;
        if (t.kind == V_TENSOR && t.space != SPACE_GMEM) {
            diag_error(e->diag, par->a->name_loc, "kernel parameter '%s' must be in gmem", par->name);
            t = val_error();
        }
        if (t.kind == V_TENSOR)
            t.llvm = LLVMGetParam(fn, (unsigned)i);
        else
            ok = false;
        scope_bind(e, par->name, t);
    }
    ok = bind_tma_params(e, p, k, fn, ptypes, tmas) && ok;
    ok = ok && describe_args(e, k, ptypes, tmas, desc) && kdesc_serves(e, k, desc);
    if (k->b) {
        if (k->b->list.n > 3) {
            diag_error(e->diag, k->b->list.items[3]->loc, "grid() takes at most 3 dimensions");
            ok = false;
        }
        for (int i = 0; i < 3; i++) {
            char *t = "1";
            if (i < k->b->list.n && !kdesc_expr_text(e, k->b->list.items[i], "grid()", &t))
                ok = false;
            else
                ok = kdesc_put(e, desc, t, k->b->loc, &desc->grid[i]) && ok;
        }
        desc->has_grid = 1;
    }
    eval_block(e, k->d);
    if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b))) LLVMBuildRetVoid(cg->b);
    /* A map the body never reads (e.g. the C map of a direct-store epilogue)
     * says so: the launcher may then pass any 128 bytes, so a tensor the
     * TMA cannot describe (unaligned rows) does not stop the launch. */
    for (int i = 0; i < desc->nargs; i++)
        if (desc->args[i].kind == CUTEC_KD_TMA && !LLVMGetFirstUse(tmas[i].val)) desc->args[i].unused = 1;
    cg->fn = NULL;
    long long smem = place_shared(cg, e, k);
    if (smem < 0) ok = false;
    for (int i = 0; i < 3; i++) desc->threads[i] = e->has_threads ? (unsigned)e->threads[i] : 0;
    desc->smem_dynamic = smem > CUTEC_STATIC_SMEM_MAX ? (unsigned)smem : 0;
    desc->smem_static = smem > CUTEC_STATIC_SMEM_MAX ? 0 : (unsigned)smem;
    char why[256];
    if (ok && p->diag->errors == before && cutec_kdesc_check(desc, why, sizeof why) != 0) {
        diag_error(e->diag, k->name_loc, "kernel '%s' cannot be described to a launcher: %s", k->name, why);
        ok = false;
    }
    return ok && p->diag->errors == before;
}
