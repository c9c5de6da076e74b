/* eval_sm90.c: Hopper (sm_90a) operations as builtins: mbarriers, TMA
 * loads, wgmma with shared-memory descriptors derived from the layout,
 * warpgroup register reallocation, elect, fences and named barriers.
 * LLVM 19 has no intrinsics for most of these; they are inline PTX marked
 * sideeffect and convergent (docs/compiler.md).  wgmma accumulators are
 * threaded through the fence and wait asm (tied operands), so LLVM cannot
 * move accumulator reads or writes across them. */
#include <string.h>

#include "codegen.h"
#include "eval.h"

static const char *names[] = {"mbar_init", "mbar_arrive", "mbar_arrive_tx", "mbar_wait", "fence_barrier_init",
                              "fence_proxy_async", "tma_load", "smem_desc", "wgmma", "wgmma_fence",
                              "wgmma_commit", "wgmma_wait", "setmaxnreg_inc", "setmaxnreg_dec", "elect_one",
                              "bar_sync", "bar_arrive", "cluster_rank", "cluster_sync", "mbar_arrive_cluster",
                              "tma_load_mc"};

bool sm90_builtin_exists(const char *name)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], name) == 0) return true;
    return false;
}

static bool arity(Eval *e, const Node *call, const char *name, int n)
{
    if (call->list.n == n) return true;
    diag_error(e->diag, call->loc, "'%s' expects %d argument%s, got %d", name, n, n == 1 ? "" : "s", call->list.n);
    return false;
}

static LLVMValueRef asm_call(Eval *e, LLVMTypeRef ret, LLVMValueRef *args, unsigned n, const char *text, const char *cons)
{
    CG *cg = e->cg;
    LLVMTypeRef tys[300];
    for (unsigned i = 0; i < n; i++) tys[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, tys, n, 0);
    LLVMValueRef ia = LLVMGetInlineAsm(fty, text, strlen(text), cons, strlen(cons), 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef c = LLVMBuildCall2(cg->b, fty, ia, args, n, "");
    unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
    LLVMAddCallSiteAttribute(c, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, kind, 0));
    return c;
}

/* a shared-memory element: its 32-bit shared address */
static bool smem_ref(Eval *e, const Node *arg, const char *what, LLVMValueRef *addr)
{
    Value r = eval_expr(e, arg);
    if (r.kind == V_ERROR) return false;
    if (r.kind != V_REF || r.space != SPACE_SMEM) {
        diag_error(e->diag, arg->loc, "%s must be a shared-memory element, found %s", what, val_describe(e, &r));
        return false;
    }
    *addr = LLVMBuildPtrToInt(e->cg->b, r.llvm, e->cg->t_i32, "");
    return true;
}

static bool int_arg(Eval *e, const Node *arg, ScalarType ty, LLVMValueRef *out)
{
    Value v = eval_rvalue(e, arg);
    if (v.kind == V_ERROR) return false;
    if (!(v.kind == V_INT || (v.kind == V_DYN && type_is_int(v.ty)))) {
        diag_error(e->diag, arg->loc, "expected an integer, found %s", val_describe(e, &v));
        return false;
    }
    v = conv_to(e, v, ty, arg->loc, true);
    if (v.kind == V_ERROR) return false;
    *out = v.llvm;
    return true;
}

static bool static_int(Eval *e, const Node *arg, int64_t lo, int64_t hi, int64_t *out, const char *what)
{
    Value v = eval_rvalue(e, arg);
    if (v.kind == V_ERROR) return false;
    if (v.kind != V_INT || v.i < lo || v.i > hi) {
        diag_error(e->diag, arg->loc, "%s must be a compile-time integer in %lld..%lld, found %s", what, (long long)lo,
                   (long long)hi, val_describe(e, &v));
        return false;
    }
    *out = v.i;
    return true;
}

static bool static_size(Eval *e, const Value *t, SrcLoc loc, int64_t *n)
{
    LayValue r;
    LayError err = {.arg = -1};
    if (!lay_call(e->arena, "size", NULL, 0, &t->lay, 1, &r, &err) || r.kind != LAY_V_INT || !r.i.is_static) {
        diag_error(e->diag, loc, "the fragment's size must be static");
        return false;
    }
    *n = r.i.value;
    return true;
}

/* element i of a register fragment, through its layout */
static LLVMValueRef frag_ptr(Eval *e, const Value *t, int64_t i)
{
    LayInt off;
    LayError err = {.arg = -1};
    LayTuple *crd = lay_tuple_leaf(e->arena, lay_int_static(i));
    if (!lay_crd2idx(e->arena, crd, &t->lay.layout, &off, &err) || !lay_int_add(e->arena, t->toff, off, &off)) return NULL;
    LLVMValueRef idx = lower_layint(e, off);
    return LLVMBuildGEP2(e->cg->b, cg_type(e->cg, t->ty), t->llvm, &idx, 1, "");
}

static bool acc_arg(Eval *e, const Node *arg, Value *acc, int64_t *n)
{
    *acc = eval_expr(e, arg);
    if (acc->kind == V_ERROR) return false;
    if (acc->kind != V_TENSOR || acc->space != SPACE_RMEM || acc->ty != TY_F32 || acc->lay.kind != LAY_V_LAYOUT) {
        diag_error(e->diag, arg->loc, "a wgmma accumulator must be a register tensor of f32, found %s", val_describe(e, acc));
        return false;
    }
    if (!static_size(e, acc, arg->loc, n)) return false;
    if (*n < 4 || *n > 128 || *n % 4) {
        diag_error(e->diag, arg->loc, "a wgmma accumulator holds N/2 f32 per thread for N in 8..256 step 8; got %lld",
                   (long long)*n);
        return false;
    }
    return true;
}

/* Pass every accumulator register through an asm (the fence or wait), so
 * that reads and writes of it stay on their side. */
static bool thread_acc(Eval *e, const Value *acc, int64_t n, const char *text)
{
    LLVMValueRef *ptrs = ARENA_ARRAY(e->arena, LLVMValueRef, n);
    LLVMValueRef *vals = ARENA_ARRAY(e->arena, LLVMValueRef, n);
    for (int64_t i = 0; i < n; i++) {
        ptrs[i] = frag_ptr(e, acc, i);
        if (!ptrs[i]) return false;
        vals[i] = LLVMBuildLoad2(e->cg->b, e->cg->t_f32, ptrs[i], "");
    }
    size_t cap = (size_t)n * 12 + 32;
    char *cons = arena_alloc(e->arena, cap);
    size_t len = 0;
    for (int64_t i = 0; i < n; i++) len += (size_t)snprintf(cons + len, cap - len, "%s=f", i ? "," : "");
    for (int64_t i = 0; i < n; i++) len += (size_t)snprintf(cons + len, cap - len, ",%lld", (long long)i);
    snprintf(cons + len, cap - len, ",~{memory}");
    LLVMTypeRef *el = ARENA_ARRAY(e->arena, LLVMTypeRef, n);
    for (int64_t i = 0; i < n; i++) el[i] = e->cg->t_f32;
    LLVMTypeRef st = LLVMStructTypeInContext(e->cg->ctx, el, (unsigned)n, 0);
    LLVMValueRef r = asm_call(e, st, vals, (unsigned)n, text, cons);
    for (int64_t i = 0; i < n; i++) LLVMBuildStore(e->cg->b, LLVMBuildExtractValue(e->cg->b, r, (unsigned)i, ""), ptrs[i]);
    return true;
}

/* smem_desc(view, row, k): the wgmma descriptor of the K-major tile of a
 * swizzled shared tensor view (rows, K) starting at (row, k).  The swizzle
 * mode and the stride between 8-row groups come from the view's layout. */
static Value smem_desc(Eval *e, const Node *call)
{
    if (!arity(e, call, "smem_desc", 3)) return val_error();
    Value t = eval_expr(e, call->list.items[0]);
    if (t.kind == V_ERROR) return t;
    if (t.kind != V_TENSOR || t.space != SPACE_SMEM || t.lay.kind != LAY_V_COMPOSED) {
        diag_error(e->diag, call->list.items[0]->loc, "'smem_desc' needs a swizzled shared tensor view, found %s",
                   val_describe(e, &t));
        return val_error();
    }
    LayLayout *L = &t.lay.composed.outer;
    LaySwizzle sw = t.lay.composed.sw;
    int eb = type_bytes(t.ty), lg = eb == 1 ? 0 : eb == 2 ? 1 : eb == 4 ? 2 : 3;
    bool rank2 = !L->shape->is_leaf && L->shape->n == 2 && L->stride->elems[0]->is_leaf && L->stride->elems[1]->is_leaf &&
                 L->stride->elems[0]->leaf.is_static && L->stride->elems[1]->leaf.is_static;
    if (!rank2 || L->stride->elems[1]->leaf.value != 1 || sw.m + lg != 4 || sw.s != 3 || sw.b < 1 || sw.b > 3) {
        diag_error(e->diag, call->list.items[0]->loc,
                   "'smem_desc' needs a K-major (rows, K) view swizzled in 16-byte units (Sw<B,%d,3>, B = 1..3), found %s",
                   4 - lg, lay_print_value(e->arena, &t.lay));
        return val_error();
    }
    int64_t row_bytes = L->stride->elems[0]->leaf.value * eb;
    if (row_bytes != (16 << sw.b)) {
        diag_error(e->diag, call->list.items[0]->loc, "'smem_desc': rows of %lld bytes do not match the %d-byte swizzle",
                   (long long)row_bytes, 16 << sw.b);
        return val_error();
    }
    Value ref = tensor_index(e, t, &(NodeList){.items = (Node **)&call->list.items[1], .n = 2}, call->loc);
    if (ref.kind == V_ERROR) return ref;
    CG *cg = e->cg;
    LLVMBuilderRef b = cg->b;
    LLVMValueRef addr = LLVMBuildZExt(b, LLVMBuildPtrToInt(b, ref.llvm, cg->t_i32, ""), cg->t_i64, "");
    LLVMValueRef lo = LLVMBuildLShr(b, LLVMBuildAnd(b, addr, LLVMConstInt(cg->t_i64, 0x3FFFF, 0), ""),
                                    LLVMConstInt(cg->t_i64, 4, 0), "");
    uint64_t mode = sw.b == 3 ? 1 : sw.b == 2 ? 2 : 3; /* 128B, 64B, 32B */
    uint64_t sbo = (uint64_t)(8 * row_bytes) >> 4;
    uint64_t bits = (1ull << 16) | (sbo << 32) | (mode << 62);
    return val_dyn(LLVMBuildOr(b, lo, LLVMConstInt(cg->t_i64, bits, 0), ""), TY_I64);
}

/* wgmma(acc, descA, descB, T): acc += A * B, m64nNk16, both from shared
 * memory, K-major, N = 2 * size(acc). */
static Value wgmma(Eval *e, const Node *call)
{
    if (!arity(e, call, "wgmma", 4)) return val_error();
    Value acc;
    int64_t n;
    LLVMValueRef da, db;
    if (!acc_arg(e, call->list.items[0], &acc, &n) || !int_arg(e, call->list.items[1], TY_I64, &da) ||
        !int_arg(e, call->list.items[2], TY_I64, &db))
        return val_error();
    Value ty = eval_rvalue(e, call->list.items[3]);
    if (ty.kind != V_TYPE || (ty.ty != TY_BF16 && ty.ty != TY_F16)) {
        diag_error(e->diag, call->list.items[3]->loc, "the input type of 'wgmma' must be bf16 or f16");
        return val_error();
    }
    LLVMValueRef *ptrs = ARENA_ARRAY(e->arena, LLVMValueRef, n);
    LLVMValueRef *args = ARENA_ARRAY(e->arena, LLVMValueRef, n + 2);
    for (int64_t i = 0; i < n; i++) {
        ptrs[i] = frag_ptr(e, &acc, i);
        if (!ptrs[i]) return val_error();
        args[i] = LLVMBuildLoad2(e->cg->b, e->cg->t_f32, ptrs[i], "");
    }
    args[n] = da;
    args[n + 1] = db;
    size_t cap = (size_t)n * 16 + 256;
    char *text = arena_alloc(e->arena, cap), *cons = arena_alloc(e->arena, cap);
    size_t tl = (size_t)snprintf(text, cap, "wgmma.mma_async.sync.aligned.m64n%lldk16.f32.%s.%s {", (long long)(2 * n),
                                 type_name(ty.ty), type_name(ty.ty));
    for (int64_t i = 0; i < n; i++) tl += (size_t)snprintf(text + tl, cap - tl, "%s$%lld", i ? "," : "", (long long)i);
    /* operands count the tied inputs: descriptors are $(2n) and $(2n+1) */
    snprintf(text + tl, cap - tl, "}, $%lld, $%lld, 1, 1, 1, 0, 0;", (long long)(2 * n), (long long)(2 * n + 1));
    size_t cl = 0;
    for (int64_t i = 0; i < n; i++) cl += (size_t)snprintf(cons + cl, cap - cl, "%s=f", i ? "," : "");
    for (int64_t i = 0; i < n; i++) cl += (size_t)snprintf(cons + cl, cap - cl, ",%lld", (long long)i);
    snprintf(cons + cl, cap - cl, ",l,l,~{memory}");
    LLVMTypeRef *el = ARENA_ARRAY(e->arena, LLVMTypeRef, n);
    for (int64_t i = 0; i < n; i++) el[i] = e->cg->t_f32;
    LLVMValueRef r = asm_call(e, LLVMStructTypeInContext(e->cg->ctx, el, (unsigned)n, 0), args, (unsigned)n + 2, text, cons);
    for (int64_t i = 0; i < n; i++) LLVMBuildStore(e->cg->b, LLVMBuildExtractValue(e->cg->b, r, (unsigned)i, ""), ptrs[i]);
    return (Value){.kind = V_VOID};
}

Value sm90_builtin(Eval *e, const char *name, const Node *call)
{
    if (!e->cg || !e->cg->fn) {
        diag_error(e->diag, call->loc, "'%s' is only allowed inside a kernel", name);
        return val_error();
    }
    CG *cg = e->cg;
    LLVMValueRef a[6];
    Value vvoid = {.kind = V_VOID};
    if (strcmp(name, "mbar_init") == 0) {
        if (!arity(e, call, name, 2) || !smem_ref(e, call->list.items[0], "the mbarrier", &a[0]) ||
            !int_arg(e, call->list.items[1], TY_I32, &a[1]))
            return val_error();
        asm_call(e, cg->t_void, a, 2, "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "mbar_arrive") == 0) {
        if (!arity(e, call, name, 1) || !smem_ref(e, call->list.items[0], "the mbarrier", &a[0])) return val_error();
        asm_call(e, cg->t_void, a, 1, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "mbar_arrive_tx") == 0) {
        if (!arity(e, call, name, 2) || !smem_ref(e, call->list.items[0], "the mbarrier", &a[0]) ||
            !int_arg(e, call->list.items[1], TY_I32, &a[1]))
            return val_error();
        asm_call(e, cg->t_void, a, 2, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "mbar_wait") == 0) {
        if (!arity(e, call, name, 2) || !smem_ref(e, call->list.items[0], "the mbarrier", &a[0]) ||
            !int_arg(e, call->list.items[1], TY_I32, &a[1]))
            return val_error();
        asm_call(e, cg->t_void, a, 2,
                 "{\n.reg .pred p;\ncutec_wait:\nmbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n@!p bra cutec_wait;\n}",
                 "r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "fence_barrier_init") == 0) {
        if (!arity(e, call, name, 0)) return val_error();
        asm_call(e, cg->t_void, NULL, 0, "fence.mbarrier_init.release.cluster;", "~{memory}");
        return vvoid;
    }
    if (strcmp(name, "fence_proxy_async") == 0) {
        if (!arity(e, call, name, 0)) return val_error();
        asm_call(e, cg->t_void, NULL, 0, "fence.proxy.async.shared::cta;", "~{memory}");
        return vvoid;
    }
    if (strcmp(name, "tma_load") == 0) {
        /* tma_load(dst, tmap, mbar, c0, c1): coordinates innermost first */
        if (!arity(e, call, name, 5) || !smem_ref(e, call->list.items[0], "the destination", &a[0])) return val_error();
        Value tm = eval_rvalue(e, call->list.items[1]);
        if (tm.kind == V_ERROR) return tm;
        if (tm.kind != V_TMAP) {
            diag_error(e->diag, call->list.items[1]->loc, "'tma_load' needs a tma<...> parameter, found %s", val_describe(e, &tm));
            return val_error();
        }
        a[1] = tm.llvm;
        if (!smem_ref(e, call->list.items[2], "the mbarrier", &a[2]) || !int_arg(e, call->list.items[3], TY_I32, &a[3]) ||
            !int_arg(e, call->list.items[4], TY_I32, &a[4]))
            return val_error();
        asm_call(e, cg->t_void, a, 5,
                 "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {$3, $4}], [$2];",
                 "r,l,r,r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "tma_load_mc") == 0) {
        /* tma_load_mc(dst, tmap, mbar, c0, c1, mask): the tile lands at dst
         * and completes on mbar in every block of the cluster whose rank
         * bit is set in mask */
        if (!arity(e, call, name, 6) || !smem_ref(e, call->list.items[0], "the destination", &a[0])) return val_error();
        Value tm = eval_rvalue(e, call->list.items[1]);
        if (tm.kind == V_ERROR) return tm;
        if (tm.kind != V_TMAP) {
            diag_error(e->diag, call->list.items[1]->loc, "'%s' needs a tma<...> parameter, found %s", name,
                       val_describe(e, &tm));
            return val_error();
        }
        a[1] = tm.llvm;
        if (!smem_ref(e, call->list.items[2], "the mbarrier", &a[2]) || !int_arg(e, call->list.items[3], TY_I32, &a[3]) ||
            !int_arg(e, call->list.items[4], TY_I32, &a[4]) || !int_arg(e, call->list.items[5], TY_I32, &a[5]))
            return val_error();
        a[5] = LLVMBuildTrunc(cg->b, a[5], cg->t_i16, "");
        asm_call(e, cg->t_void, a, 6,
                 "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[$0], [$1, {$3, $4}], [$2], $5;",
                 "r,l,r,r,r,h,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "cluster_rank") == 0) {
        if (!arity(e, call, name, 0)) return val_error();
        if (e->cluster_size == 1) return val_int(0);
        return val_dyn(cg_intrinsic(cg, "llvm.nvvm.read.ptx.sreg.cluster.ctarank", NULL, 0, NULL, 0), TY_I32);
    }
    if (strcmp(name, "cluster_sync") == 0) {
        if (!arity(e, call, name, 0)) return val_error();
        /* every thread of every block of the cluster; a plain barrier without one */
        if (e->cluster_size == 1) {
            cg_intrinsic(cg, "llvm.nvvm.barrier0", NULL, 0, NULL, 0);
            return vvoid;
        }
        asm_call(e, cg->t_void, NULL, 0, "barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;", "~{memory}");
        return vvoid;
    }
    if (strcmp(name, "mbar_arrive_cluster") == 0) {
        /* arrive on the mbarrier at the same shared offset in block `rank` of the cluster */
        if (!arity(e, call, name, 2) || !smem_ref(e, call->list.items[0], "the mbarrier", &a[0]) ||
            !int_arg(e, call->list.items[1], TY_I32, &a[1]))
            return val_error();
        asm_call(e, cg->t_void, a, 2,
                 "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, $0, $1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}",
                 "r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "smem_desc") == 0) return smem_desc(e, call);
    if (strcmp(name, "wgmma") == 0) return wgmma(e, call);
    if (strcmp(name, "wgmma_fence") == 0 || strcmp(name, "wgmma_wait") == 0) {
        bool wait = name[6] == 'w';
        Value acc;
        int64_t n, k = 0;
        if (!arity(e, call, name, wait ? 2 : 1)) return val_error();
        if (wait && !static_int(e, call->list.items[0], 0, 7, &k, "the number of pending groups")) return val_error();
        if (!acc_arg(e, call->list.items[wait ? 1 : 0], &acc, &n)) return val_error();
        char text[64];
        if (wait) snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %lld;", (long long)k);
        else snprintf(text, sizeof text, "wgmma.fence.sync.aligned;");
        return thread_acc(e, &acc, n, text) ? vvoid : val_error();
    }
    if (strcmp(name, "wgmma_commit") == 0) {
        if (!arity(e, call, name, 0)) return val_error();
        asm_call(e, cg->t_void, NULL, 0, "wgmma.commit_group.sync.aligned;", "~{memory}");
        return vvoid;
    }
    if (strcmp(name, "setmaxnreg_inc") == 0 || strcmp(name, "setmaxnreg_dec") == 0) {
        int64_t n;
        if (!arity(e, call, name, 1) || !static_int(e, call->list.items[0], 24, 256, &n, "the register count")) return val_error();
        if (n % 8) {
            diag_error(e->diag, call->list.items[0]->loc, "setmaxnreg needs a multiple of 8, got %lld", (long long)n);
            return val_error();
        }
        char text[64];
        snprintf(text, sizeof text, "setmaxnreg.%s.sync.aligned.u32 %lld;", name[11] == 'i' ? "inc" : "dec", (long long)n);
        asm_call(e, cg->t_void, NULL, 0, text, "~{memory}");
        return vvoid;
    }
    if (strcmp(name, "elect_one") == 0) {
        if (!arity(e, call, name, 0)) return val_error();
        LLVMValueRef r = asm_call(e, cg->t_i1, NULL, 0, "elect.sync _|$0, 0xffffffff;", "=b");
        return val_dyn(r, TY_BOOL);
    }
    /* bar_sync(id, threads) / bar_arrive(id, threads): named barriers */
    if (!arity(e, call, name, 2) || !int_arg(e, call->list.items[0], TY_I32, &a[0]) ||
        !int_arg(e, call->list.items[1], TY_I32, &a[1]))
        return val_error();
    asm_call(e, cg->t_void, a, 2, name[4] == 's' ? "bar.sync $0, $1;" : "bar.arrive $0, $1;", "r,r,~{memory}");
    return vvoid;
}
