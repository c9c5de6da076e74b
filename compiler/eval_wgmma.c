/* eval_wgmma.c: Hopper's warpgroup MMA as builtins: shared-memory matrix
 * descriptors derived from the layout (smem_desc), wgmma with its
 * accumulators, fence/commit/wait, the fusion of a loop of wgmmas into
 * one asm statement, and warpgroup register reallocation (setmaxnreg).
 * LLVM 19 has no intrinsics for these; they are inline PTX marked
 * sideeffect and convergent (docs/compiler.md).  wgmma accumulators are
 * threaded through the fence and wait asm (tied operands), so LLVM cannot
 * move accumulator reads or writes across them. */
#include <stdio.h>
#include <string.h>

#include "builtins.h"
#include "codegen.h"
#include "eval.h"
#include "program.h"

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

/* element i of a register fragment, through its layout, and where it is
 * static its element offset */
static LLVMValueRef frag_ptr_at(Eval *e, const Value *t, int64_t i, int64_t *off_out, bool *is_static)
{
    LayInt off;
    LayError err = {.arg = -1};
    LayTuple *crd = lay_tuple_leaf(e->arena, lay_int_static(i));
    if (!lay_crd2idx(e->arena, crd, &t->lay.layout, &off, &err) || !lay_int_add(e->arena, t->toff, off, &off))
        return NULL;
    if (off.is_static)
        *off_out = off.value;
    else
        *is_static = false;
    return tensor_addr(e, t, off);
}

static LLVMValueRef frag_ptr(Eval *e, const Value *t, int64_t i)
{
    int64_t off;
    bool is_static = true;
    return frag_ptr_at(e, t, i, &off, &is_static);
}

/* A wgmma's accumulator fragment: N/2 f32 per thread (n <= 128).  The
 * fence and the wait take the accumulators of several wgmmas at once (a
 * warpgroup computing several 64-row blocks), up to 256 registers. */
static bool acc_check(Eval *e, const Node *arg, const Value *acc, int64_t *n, bool several)
{
    if (acc->kind != V_TENSOR || acc->space != SPACE_RMEM || acc->ty != TY_F32 || acc->lay.kind != LAY_V_LAYOUT) {
        diag_error(e->diag, arg->loc, "a wgmma accumulator must be a register tensor of f32, found %s",
                   val_describe(e, acc));
        return false;
    }
    if (!static_size(e, acc, arg->loc, n)) return false;
    if (several && (*n < 4 || *n > 256 || *n % 4)) {
        diag_error(e->diag, arg->loc,
                   "the accumulators of a wgmma fence or wait are 4 to 256 f32 per thread, a multiple of 4; got %lld",
                   (long long)*n);
        return false;
    }
    if (!several && (*n < 4 || *n > 128 || *n % 4)) {
        diag_error(e->diag, arg->loc, "a wgmma accumulator holds N/2 f32 per thread for N in 8..256 step 8; got %lld",
                   (long long)*n);
        return false;
    }
    return true;
}

static bool acc_arg(Eval *e, const Node *arg, Value *acc, int64_t *n, bool several)
{
    *acc = eval_expr(e, arg);
    return acc->kind != V_ERROR && acc_check(e, arg, acc, n, several);
}

/* The register A operand of wgmma: a register tensor of T (bf16, f16,
 * e4m3 or e5m2) holding 16 bytes per thread, 8 or 16 elements, which the
 * instruction takes as four 32-bit registers.  The fence and the wait take
 * the A fragments of several wgmmas at once (several: a multiple of 16
 * bytes, up to 256), as they take several accumulators. */
static bool afrag_check(Eval *e, const Node *arg, const Value *f, bool several)
{
    ScalarType t = f->ty;
    bool ok_ty = t == TY_BF16 || t == TY_F16 || type_is_fp8(t);
    if (f->kind == V_TENSOR && f->space != SPACE_RMEM) {
        diag_error(e->diag, arg->loc, "a wgmma A fragment must be a register tensor ('local'), found a %s tensor of %s",
                   f->space == SPACE_GMEM   ? "global"
                   : f->space == SPACE_SMEM ? "shared"
                                            : "coordinate",
                   type_name(t));
        return false;
    }
    if (f->kind != V_TENSOR || !ok_ty || f->lay.kind != LAY_V_LAYOUT) {
        diag_error(e->diag, arg->loc,
                   "a wgmma A fragment must be a register tensor of bf16, f16, e4m3 or e5m2, found %s",
                   val_describe(e, f));
        return false;
    }
    int64_t n;
    if (!static_size(e, f, arg->loc, &n)) return false;
    int64_t bytes = n * type_bytes(t);
    if (several && (bytes < 16 || bytes > 256 || bytes % 16)) {
        diag_error(e->diag, arg->loc,
                   "the A fragments of a wgmma fence or wait hold a multiple of %d elements of %s per thread (four "
                   "32-bit registers each), at most %d; got %lld",
                   16 / type_bytes(t), type_name(t), 256 / type_bytes(t), (long long)n);
        return false;
    }
    if (!several && bytes != 16) {
        diag_error(e->diag, arg->loc,
                   "a wgmma A fragment of %s holds %d elements per thread (four 32-bit registers); got %lld",
                   type_name(t), 16 / type_bytes(t), (long long)n);
        return false;
    }
    return true;
}

/* the 32-bit registers of a checked A fragment */
static int afrag_regs(Eval *e, const Value *f)
{
    LayInt n = lay_size(e->arena, &f->lay.layout);
    return (int)(n.value * type_bytes(f->ty) / 4);
}

/* Packs the A fragment into nregs i32: element j of register r is element
 * r * per + j of the fragment, lowest in the low bits (PTX's packing of
 * .f16x2 / .b32 fragment registers). */
static bool afrag_pack(Eval *e, const Value *f, LLVMValueRef *regs, int nregs)
{
    CG *cg = e->cg;
    int per = 4 / type_bytes(f->ty);
    LLVMTypeRef vt = LLVMVectorType(cg_type(cg, f->ty), (unsigned)per);
    for (int r = 0; r < nregs; r++) {
        LLVMValueRef v = LLVMGetUndef(vt);
        for (int j = 0; j < per; j++) {
            LLVMValueRef p = frag_ptr(e, f, r * per + j);
            if (!p) return false;
            v = LLVMBuildInsertElement(cg->b, v, LLVMBuildLoad2(cg->b, cg_type(cg, f->ty), p, ""),
                                       LLVMConstInt(cg->t_i32, (unsigned long long)j, 0), "");
        }
        regs[r] = LLVMBuildBitCast(cg->b, v, cg->t_i32, "");
    }
    return true;
}

static bool afrag_unpack(Eval *e, const Value *f, LLVMValueRef *regs, int nregs)
{
    CG *cg = e->cg;
    int per = 4 / type_bytes(f->ty);
    LLVMTypeRef vt = LLVMVectorType(cg_type(cg, f->ty), (unsigned)per);
    for (int r = 0; r < nregs; r++) {
        LLVMValueRef v = LLVMBuildBitCast(cg->b, regs[r], vt, "");
        for (int j = 0; j < per; j++) {
            LLVMValueRef p = frag_ptr(e, f, r * per + j);
            if (!p) return false;
            LLVMBuildStore(cg->b,
                           LLVMBuildExtractElement(cg->b, v, LLVMConstInt(cg->t_i32, (unsigned long long)j, 0), ""), p);
        }
    }
    return true;
}

/* Pass every accumulator register, and the A fragment's registers when
 * there is one, through an asm (the fence or wait), so that reads and
 * writes of them stay on their side: writes of a register A before the
 * fence, and its registers stay alive (unchanged) until the wait. */
static bool thread_acc(Eval *e, const Value *acc, int64_t n, const Value *afrag, const char *text)
{
    int64_t na = afrag ? afrag_regs(e, afrag) : 0, nt = n + na;
    LLVMValueRef *ptrs = ARENA_ARRAY(e->arena, LLVMValueRef, n);
    LLVMValueRef *vals = ARENA_ARRAY(e->arena, LLVMValueRef, nt);
    for (int64_t i = 0; i < n; i++) {
        ptrs[i] = frag_ptr(e, acc, i);
        if (!ptrs[i]) return false;
        vals[i] = LLVMBuildLoad2(e->cg->b, e->cg->t_f32, ptrs[i], "");
    }
    if (afrag && !afrag_pack(e, afrag, vals + n, (int)na)) return false;
    size_t cap = (size_t)nt * 12 + 32;
    char *cons = arena_alloc(e->arena, cap);
    size_t len = 0;
    for (int64_t i = 0; i < nt; i++)
        len += (size_t)snprintf(cons + len, cap - len, "%s=%c", i ? "," : "", i < n ? 'f' : 'r');
    for (int64_t i = 0; i < nt; i++) len += (size_t)snprintf(cons + len, cap - len, ",%lld", (long long)i);
    snprintf(cons + len, cap - len, ",~{memory}");
    LLVMTypeRef *el = ARENA_ARRAY(e->arena, LLVMTypeRef, nt);
    for (int64_t i = 0; i < nt; i++) el[i] = i < n ? e->cg->t_f32 : e->cg->t_i32;
    LLVMTypeRef st = LLVMStructTypeInContext(e->cg->ctx, el, (unsigned)nt, 0);
    LLVMValueRef r = eval_asm(e, st, vals, (unsigned)nt, text, cons);
    for (int64_t i = 0; i < n; i++)
        LLVMBuildStore(e->cg->b, LLVMBuildExtractValue(e->cg->b, r, (unsigned)i, ""), ptrs[i]);
    if (afrag) {
        LLVMValueRef *regs = ARENA_ARRAY(e->arena, LLVMValueRef, na);
        for (int j = 0; j < na; j++) regs[j] = LLVMBuildExtractValue(e->cg->b, r, (unsigned)(n + j), "");
        if (!afrag_unpack(e, afrag, regs, (int)na)) return false;
    }
    return true;
}

/* offset of coordinate (i, j) of a static rank-2 layout; false if it is
 * not static */
static bool offset_at(Eval *e, const LayLayout *L, int64_t i, int64_t j, int64_t *out)
{
    LayTuple *c[2] = {lay_tuple_leaf(e->arena, lay_int_static(i)), lay_tuple_leaf(e->arena, lay_int_static(j))};
    LayInt r;
    LayError err = {.arg = -1};
    if (!lay_crd2idx(e->arena, lay_tuple_make(e->arena, 2, c), L, &r, &err) || !r.is_static) return false;
    *out = r.value;
    return true;
}

static bool mode_size(Eval *e, const LayLayout *L, int m, int64_t *out)
{
    LayLayout sub = {L->shape->elems[m], L->stride->elems[m]};
    LayInt s = lay_size(e->arena, &sub);
    if (!s.is_static) return false;
    *out = s.value;
    return true;
}

/* smem_desc(view, row, k): the wgmma descriptor of the tile of a swizzled
 * shared view (MN, K) that starts at (row, k).  Whether the tile is K-major
 * or MN-major (which mode has stride 1), the swizzle mode, and the strides
 * between swizzle atoms (SBO, and LBO for MN-major) are all read off the
 * view's layout, which must be the canonical layout the descriptor
 * describes (docs/language.md, "wgmma descriptors"):
 *   K-major:  L(mn, k) = k%W + (mn%8)*W + (mn/8)*SBO      (+ (k/W)*any)
 *   MN-major: L(mn, k) = mn%W + (mn/W)*LBO + (k%8)*W + (k/8)*SBO
 * with W the elements in one swizzle row (32, 64 or 128 bytes).  The check
 * runs over the whole view, mode by mode (the offset is a sum of the two
 * modes' parts). */
static Value desc_make(Eval *e, Value t, SrcLoc loc, const Node *call, const char *who)
{
    if (t.kind != V_TENSOR || t.space != SPACE_SMEM || t.lay.kind != LAY_V_COMPOSED) {
        const char *what = t.kind != V_TENSOR ? val_describe(e, &t)
                           : t.space != SPACE_SMEM
                               ? arena_printf(e->arena, "a %s tensor of %s",
                                              t.space == SPACE_GMEM   ? "global"
                                              : t.space == SPACE_RMEM ? "register"
                                                                      : "coordinate",
                                              type_name(t.ty))
                               : arena_printf(e->arena, "an unswizzled shared tensor of %s", type_name(t.ty));
        diag_error(e->diag, loc, "%s needs a swizzled shared tensor view, found %s", who, what);
        return val_error();
    }
    LayLayout *L = &t.lay.composed.outer;
    LaySwizzle sw = t.lay.composed.sw;
    int eb = type_bytes(t.ty), lg = eb == 1 ? 0 : eb == 2 ? 1 : eb == 4 ? 2 : 3;
    const char *lp = lay_print_value(e->arena, &t.lay);
    if (sw.m + lg != 4 || sw.s != 3 || sw.b < 1 || sw.b > 3) {
        diag_error(e->diag, loc, "%s needs a layout swizzled in 16-byte units (Sw<B,%d,3> for %s, B = 1..3), found %s",
                   who, 4 - lg, type_name(t.ty), lp);
        return val_error();
    }
    int64_t mn, ks;
    if (L->shape->is_leaf || L->shape->n != 2 || !mode_size(e, L, 0, &mn) || !mode_size(e, L, 1, &ks)) {
        diag_error(e->diag, loc, "%s needs a static rank-2 (MN, K) view, found %s", who, lp);
        return val_error();
    }
    int swb = 16 << sw.b;               /* bytes in one swizzle row */
    int64_t W = swb / eb, atom = 8 * W; /* elements per row, per swizzle pattern */
    int64_t k1 = 0, m1 = 0;
    if ((ks > 1 && !offset_at(e, L, 0, 1, &k1)) || (mn > 1 && !offset_at(e, L, 1, 0, &m1))) {
        diag_error(e->diag, loc, "%s needs a static layout, found %s", who, lp);
        return val_error();
    }
    bool mn_major = !(ks > 1 && k1 == 1) && mn > 1 && m1 == 1;
    if (!(ks > 1 && k1 == 1) && !mn_major) {
        diag_error(e->diag, loc, "%s: neither mode of %s has stride 1 (a wgmma tile is K-major or MN-major)", who, lp);
        return val_error();
    }
    if (mn_major && eb != 2) {
        diag_error(e->diag, loc, "%s: wgmma reads %s tiles only K-major (K contiguous); %s is MN-major", who,
                   type_name(t.ty), lp);
        return val_error();
    }
    /* the strides between atoms, from the first coordinate past an atom */
    int64_t lbo = atom, sbo = atom, kat = atom, got;
    int64_t mn_rep = mn_major ? W : 8, k_rep = mn_major ? 8 : W;
    if (mn > mn_rep && !offset_at(e, L, mn_rep, 0, mn_major ? &lbo : &sbo)) return val_error();
    if (ks > k_rep && !offset_at(e, L, 0, k_rep, mn_major ? &sbo : &kat)) return val_error();
    for (int m = 0; m < 2; m++) {
        int64_t ext = m ? ks : mn;
        for (int64_t i = 0; i < ext; i++) {
            int64_t want;
            if (!mn_major)
                want = m ? i % W + i / W * kat : (i % 8) * W + i / 8 * sbo;
            else
                want = m ? (i % 8) * W + i / 8 * sbo : i % W + i / W * lbo;
            if (!offset_at(e, L, m ? 0 : i, m ? i : 0, &got)) return val_error();
            if (got != want) {
                diag_error(e->diag, loc,
                           "%s: no wgmma descriptor expresses %s: as %s-major tile with %d-byte swizzle rows, "
                           "element (%lld, %lld) would be at offset %lld, not %lld",
                           who, lp, mn_major ? "an MN" : "a K", swb, (long long)(m ? 0 : i), (long long)(m ? i : 0),
                           (long long)want, (long long)got);
                return val_error();
            }
        }
    }
    /* atoms repeat the swizzle pattern only when they start on its period */
    int64_t rep[2] = {mn_major ? lbo : sbo, mn_major ? sbo : kat};
    for (int i = 0; i < 2; i++)
        if (rep[i] % atom) {
            diag_error(e->diag, loc,
                       "%s: in %s, swizzle atoms %lld elements apart along %s do not start on the %lld-byte period "
                       "of the swizzle",
                       who, lp, (long long)rep[i], i ? "K" : "MN", (long long)(atom * eb));
            return val_error();
        }
    Value ref = {.kind = V_REF};
    if (call)
        ref = tensor_index(e, t, &(NodeList){.items = (Node **)&call->list.items[1], .n = 2}, call->loc);
    else
        ref.llvm = tensor_elem_ptr(e, &t, 0, loc);
    if (ref.kind == V_ERROR || !ref.llvm) return val_error();
    CG *cg = e->cg;
    LLVMBuilderRef b = cg->b;
    LLVMValueRef addr = LLVMBuildZExt(b, LLVMBuildPtrToInt(b, ref.llvm, cg->t_i32, ""), cg->t_i64, "");
    LLVMValueRef lo = LLVMBuildLShr(b, LLVMBuildAnd(b, addr, LLVMConstInt(cg->t_i64, 0x3FFFF, 0), ""),
                                    LLVMConstInt(cg->t_i64, 4, 0), "");
    uint64_t mode = sw.b == 3 ? 1 : sw.b == 2 ? 2 : 3; /* 128B, 64B, 32B */
    /* K-major swizzled tiles have no leading offset: the field is "assumed 1" */
    uint64_t lbo_f = mn_major ? (uint64_t)(lbo * eb) >> 4 : 1, sbo_f = (uint64_t)(sbo * eb) >> 4;
    uint64_t bits = ((lbo_f & 0x3FFF) << 16) | ((sbo_f & 0x3FFF) << 32) | (mode << 62);
    Value d = {
        .kind = V_DESC, .llvm = LLVMBuildOr(b, lo, LLVMConstInt(cg->t_i64, bits, 0), ""), .ty = t.ty, .i = mn_major};
    return d;
}

Value b_smem_desc(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    return desc_make(e, arg[0], call->list.items[0]->loc, call, "'smem_desc'");
}

Value wgmma_desc(Eval *e, const Value *view, SrcLoc loc, const char *who)
{
    return desc_make(e, *view, loc, NULL, who);
}

bool wgmma_pack_a(Eval *e, const Value *frag, LLVMValueRef regs[4]) { return afrag_pack(e, frag, regs, 4); }

/* a descriptor operand: from smem_desc, or a plain i64 (taken as K-major) */
static bool desc_arg(Eval *e, const Node *arg, Value v, ScalarType ty, const char *which, LLVMValueRef *out, int *trans)
{
    if (v.kind == V_DESC) {
        if (v.ty != ty) {
            diag_error(e->diag, arg->loc, "operand %s of 'wgmma' is a %s, but its input type is %s", which,
                       val_describe(e, &v), type_name(ty));
            return false;
        }
        *out = v.llvm;
        *trans = (int)v.i;
        return true;
    }
    if (v.kind == V_DYN && type_is_int(v.ty)) {
        *out = conv_to(e, v, TY_I64, arg->loc, false).llvm;
        *trans = 0;
        return true;
    }
    diag_error(e->diag, arg->loc, "operand %s of 'wgmma' must be a shared-memory descriptor (smem_desc)%s, found %s",
               which, which[0] == 'A' ? " or a register fragment" : "", val_describe(e, &v));
    return false;
}

/* One wgmma of a group: its shape and types, operands (A: one descriptor
 * or four registers; B: a descriptor) and, per accumulator register, the
 * group slot it occupies. */
typedef struct WgmmaOp {
    int64_t n;
    int k;
    bool rs, fp8;
    bool fresh; /* scale-d 0: D = A B, the accumulators' values ignored */
    int ta, tb;
    const char *tya, *tyb;
    LLVMValueRef a[4], b;
    int *slot;
} WgmmaOp;

/* Consecutive wgmmas fused into one inline asm statement (see
 * sm90_wgmma_group_begin): the accumulator registers they touch, each once
 * (keyed by the fragment's base and static element offset), as slots. */
#define GROUP_SLOTS 256
#define GROUP_OPS   64
struct WgmmaGroup {
    int nslot, nop;
    LLVMValueRef *slot_ptr, *slot_base;
    int64_t *slot_off;
    WgmmaOp *op;
    /* a wgmma_fence(acc) just before the group's loop, issued at the head
     * of the group's first statement (sm90_wgmma_group_fence) */
    bool fence;
    Value fence_acc;
    int64_t fence_n, *fence_off;
};

static bool thread_acc(Eval *e, const Value *acc, int64_t n, const Value *afrag, const char *text);

/* The pending fence: true where the group's first statement can carry it
 * (every fenced register is one of its slots); else issued alone here. */
static bool fence_in_group(Eval *e, WgmmaGroup *g)
{
    if (!g->fence) return false;
    g->fence = false;
    bool all = g->nop > 0;
    for (int64_t i = 0; i < g->fence_n && all; i++) {
        bool found = false;
        for (int k = 0; k < g->nslot && !found; k++)
            found = g->slot_base[k] == g->fence_acc.llvm && g->slot_off[k] == g->fence_off[i];
        all = found;
    }
    if (!all) thread_acc(e, &g->fence_acc, g->fence_n, NULL, "wgmma.fence.sync.aligned;");
    return all;
}

/* The group's wgmmas as one asm statement: outputs $0 .. $S-1 are the
 * slots, tied inputs $S .. $2S-1 their values before, then each wgmma's A
 * and B operands in order.  The PTX is the same instruction sequence as
 * one statement per wgmma; LLVM handles the 2S tied operands once
 * instead of once per wgmma, which is most of a GEMM's code generation
 * time (each k-tile of a 128 x 256 tile is four m64n256k16 wgmmas of 128
 * accumulators). */
static void emit_group(Eval *e, WgmmaGroup *g)
{
    bool fence = fence_in_group(e, g);
    if (g->nop == 0) return;
    CG *cg = e->cg;
    int S = g->nslot, nextra = 0;
    for (int j = 0; j < g->nop; j++) nextra += g->op[j].rs ? 5 : 2;
    LLVMValueRef *args = ARENA_ARRAY(e->arena, LLVMValueRef, S + nextra);
    for (int i = 0; i < S; i++) args[i] = LLVMBuildLoad2(cg->b, cg->t_f32, g->slot_ptr[i], "");
    size_t cap = 320;
    for (int j = 0; j < g->nop; j++) cap += (size_t)g->op[j].n * 6 + 160;
    size_t ccap = (size_t)S * 8 + (size_t)nextra * 2 + 32;
    char *text = arena_alloc(e->arena, cap), *cons = arena_alloc(e->arena, ccap);
    size_t tl = fence ? (size_t)snprintf(text, cap, "wgmma.fence.sync.aligned;\n\t") : 0;
    long long x = 2LL * S; /* the next operand number */
    int na = S;
    for (int j = 0; j < g->nop; j++) {
        const WgmmaOp *o = &g->op[j];
        tl += (size_t)snprintf(text + tl, cap - tl, "%swgmma.mma_async.sync.aligned.m64n%lldk%d.f32.%s.%s {",
                               j ? "\n\t" : "", (long long)(2 * o->n), o->k, o->tya, o->tyb);
        for (int64_t i = 0; i < o->n; i++)
            tl += (size_t)snprintf(text + tl, cap - tl, "%s$%d", i ? "," : "", o->slot[i]);
        if (o->rs) {
            tl += (size_t)snprintf(text + tl, cap - tl, "}, {$%lld,$%lld,$%lld,$%lld}, $%lld", x, x + 1, x + 2, x + 3,
                                   x + 4);
            for (int i = 0; i < 4; i++) args[na++] = o->a[i];
            x += 5;
        } else {
            tl += (size_t)snprintf(text + tl, cap - tl, "}, $%lld, $%lld", x, x + 1);
            args[na++] = o->a[0];
            x += 2;
        }
        args[na++] = o->b;
        /* scale-d 1 (acc += A*B) or 0 (acc = A*B: a fresh sum), no
         * negation; transposes exist only for 16-bit types, and only for
         * descriptor operands */
        int sd = o->fresh ? 0 : 1;
        if (o->fp8)
            tl += (size_t)snprintf(text + tl, cap - tl, ", %d, 1, 1;", sd);
        else if (o->rs)
            tl += (size_t)snprintf(text + tl, cap - tl, ", %d, 1, 1, %d;", sd, o->tb);
        else
            tl += (size_t)snprintf(text + tl, cap - tl, ", %d, 1, 1, %d, %d;", sd, o->ta, o->tb);
    }
    size_t cl = 0;
    for (int i = 0; i < S; i++) cl += (size_t)snprintf(cons + cl, ccap - cl, "%s=f", i ? "," : "");
    for (int i = 0; i < S; i++) cl += (size_t)snprintf(cons + cl, ccap - cl, ",%d", i);
    for (int j = 0; j < g->nop; j++) cl += (size_t)snprintf(cons + cl, ccap - cl, g->op[j].rs ? ",r,r,r,r,l" : ",l,l");
    snprintf(cons + cl, ccap - cl, ",~{memory}");
    LLVMTypeRef *el = ARENA_ARRAY(e->arena, LLVMTypeRef, S);
    for (int i = 0; i < S; i++) el[i] = cg->t_f32;
    LLVMValueRef r =
        eval_asm(e, LLVMStructTypeInContext(cg->ctx, el, (unsigned)S, 0), args, (unsigned)(S + nextra), text, cons);
    for (int i = 0; i < S; i++) LLVMBuildStore(cg->b, LLVMBuildExtractValue(cg->b, r, (unsigned)i, ""), g->slot_ptr[i]);
}

static void group_flush(Eval *e, WgmmaGroup *g)
{
    emit_group(e, g);
    g->nslot = g->nop = 0;
}

/* op (its accumulator elements at ptrs, offsets offs from base) joins the
 * group; false where the group has no room for it */
static bool group_add(WgmmaGroup *g, WgmmaOp *op, LLVMValueRef base, LLVMValueRef *ptrs, const int64_t *offs)
{
    if (g->nop == GROUP_OPS) return false;
    int added = 0;
    for (int64_t i = 0; i < op->n; i++) {
        int s = -1;
        for (int k = 0; k < g->nslot + added && s < 0; k++)
            if (g->slot_base[k] == base && g->slot_off[k] == offs[i]) s = k;
        if (s < 0) {
            if (g->nslot + added == GROUP_SLOTS) return false;
            s = g->nslot + added++;
            g->slot_base[s] = base;
            g->slot_off[s] = offs[i];
            g->slot_ptr[s] = ptrs[i];
        }
        op->slot[i] = s;
    }
    g->nslot += added;
    g->op[g->nop++] = *op;
    return true;
}

/* Expressions that may sit in a fused group's wgmma arguments: nothing
 * with an effect, since the group's asm comes after all of them.  Calls
 * are tensor indexing and slicing or pure builtins. */
static bool pure_callee(Eval *e, const Node *callee)
{
    if (callee->kind != N_NAME) return false;
    Value v;
    if (scope_lookup(e, callee->name, &v)) return v.kind == V_TENSOR;
    if (e->prog && program_lookup(e->prog, callee->name)) return false;
    if (builtin_is_pure(callee->name)) return true;
    return false;
}

static bool pure_expr(Eval *e, const Node *n)
{
    switch (n->kind) {
    case N_INT:
    case N_FLOAT:
    case N_BOOL:
    case N_NAME:
    case N_UNDERSCORE:
    case N_MEMBER: return true;
    case N_UNARY: return pure_expr(e, n->a);
    case N_BINARY: return pure_expr(e, n->a) && pure_expr(e, n->b);
    case N_TUPLE:
        for (int i = 0; i < n->list.n; i++)
            if (!pure_expr(e, n->list.items[i])) return false;
        return true;
    case N_CALL:
        if (n->list2.n || !pure_callee(e, n->a)) return false;
        for (int i = 0; i < n->list.n; i++)
            if (!pure_expr(e, n->list.items[i])) return false;
        return true;
    default: return false;
    }
}

/* a block of wgmma statements and unrolled loops of them, nothing else */
static bool wgmma_only(Eval *e, const Node *blk, int *count)
{
    for (int i = 0; i < blk->list.n; i++) {
        const Node *st = blk->list.items[i];
        if (st->kind == N_FOR && st->ival) {
            if (!pure_expr(e, st->a) || !pure_expr(e, st->b) || (st->c && !pure_expr(e, st->c)) ||
                !wgmma_only(e, st->d, count))
                return false;
            continue;
        }
        if (st->kind != N_EXPR_STMT || st->a->kind != N_CALL) return false;
        const Node *call = st->a, *callee = call->a;
        Value v;
        if (callee->kind != N_NAME || strcmp(callee->name, "wgmma") != 0 || scope_lookup(e, "wgmma", &v) ||
            (e->prog && program_lookup(e->prog, "wgmma")) || call->list2.n)
            return false;
        for (int j = 0; j < call->list.n; j++)
            if (!pure_expr(e, call->list.items[j])) return false;
        (*count)++;
    }
    return true;
}

/* a plain builtin call statement NAME(...), the name not shadowed */
static bool builtin_stmt(Eval *e, const Node *st, const char *name)
{
    Value v;
    return st->kind == N_EXPR_STMT && st->a->kind == N_CALL && st->a->a->kind == N_NAME &&
           strcmp(st->a->a->name, name) == 0 && !st->a->list2.n && !scope_lookup(e, name, &v) &&
           !(e->prog && program_lookup(e->prog, name));
}

static bool groupable_loop(Eval *e, const Node *st)
{
    int count = 0;
    return e->cg && e->cg->fn && !e->wgmma_group && st->kind == N_FOR && st->ival && st->d->kind == N_BLOCK &&
           wgmma_only(e, st->d, &count) && count > 0;
}

bool sm90_wgmma_group_fence(Eval *e, const Node *st, const Node *next)
{
    if (!builtin_stmt(e, st, "wgmma_fence") || st->a->list.n != 1 || !pure_expr(e, st->a->list.items[0]) ||
        !groupable_loop(e, next))
        return false;
    Value acc;
    int64_t n;
    if (!acc_arg(e, st->a->list.items[0], &acc, &n, true)) return true; /* diagnosed */
    int64_t *offs = ARENA_ARRAY(e->arena, int64_t, n);
    bool offs_static = true;
    for (int64_t i = 0; i < n; i++)
        if (!frag_ptr_at(e, &acc, i, &offs[i], &offs_static)) return true;
    if (!offs_static) {
        thread_acc(e, &acc, n, NULL, "wgmma.fence.sync.aligned;");
        return true;
    }
    sm90_wgmma_group_begin(e, next->d);
    WgmmaGroup *g = e->wgmma_group;
    g->fence = true;
    g->fence_acc = acc;
    g->fence_n = n;
    g->fence_off = offs;
    return true;
}

bool sm90_wgmma_group_begin(Eval *e, const Node *body)
{
    int count = 0;
    if (!e->cg || !e->cg->fn || e->wgmma_group || body->kind != N_BLOCK || !wgmma_only(e, body, &count) || count == 0)
        return false;
    return wgmma_group_open(e);
}

bool wgmma_group_open(Eval *e)
{
    if (!e->cg || !e->cg->fn || e->wgmma_group) return false;
    WgmmaGroup *g = ARENA_NEW(e->arena, WgmmaGroup);
    *g = (WgmmaGroup){0};
    g->slot_ptr = ARENA_ARRAY(e->arena, LLVMValueRef, GROUP_SLOTS);
    g->slot_base = ARENA_ARRAY(e->arena, LLVMValueRef, GROUP_SLOTS);
    g->slot_off = ARENA_ARRAY(e->arena, int64_t, GROUP_SLOTS);
    g->op = ARENA_ARRAY(e->arena, WgmmaOp, GROUP_OPS);
    e->wgmma_group = g;
    return true;
}

void sm90_wgmma_group_end(Eval *e)
{
    WgmmaGroup *g = e->wgmma_group;
    e->wgmma_group = NULL;
    if (g && e->diag->errors == 0) emit_group(e, g);
}

/* One wgmma (operands checked): acc's n f32 accumulate A (descriptor da,
 * or the four registers afrag) times B (descriptor db); fused into the
 * group being built, if any. */
bool wgmma_issue(Eval *e, const Value *acc, int64_t n, const LLVMValueRef *afrag, LLVMValueRef da, LLVMValueRef db,
                 int ta, int tb, const ScalarType ty[2], bool fresh)
{
    bool rs = afrag != NULL, fp8 = type_is_fp8(ty[0]);
    LLVMValueRef aops[4] = {da};
    for (int i = 0; rs && i < 4; i++) aops[i] = afrag[i];
    WgmmaOp op = {.n = n,
                  .k = fp8 ? 32 : 16,
                  .rs = rs,
                  .fp8 = fp8,
                  .fresh = fresh,
                  .ta = ta,
                  .tb = tb,
                  .b = db,
                  .tya = type_name(ty[0]),
                  .tyb = type_name(ty[1])};
    for (int i = 0; i < (rs ? 4 : 1); i++) op.a[i] = aops[i];
    op.slot = ARENA_ARRAY(e->arena, int, n);
    LLVMValueRef *ptrs = ARENA_ARRAY(e->arena, LLVMValueRef, n);
    int64_t *offs = ARENA_ARRAY(e->arena, int64_t, n);
    bool offs_static = true;
    for (int64_t i = 0; i < n; i++) {
        ptrs[i] = frag_ptr_at(e, acc, i, &offs[i], &offs_static);
        if (!ptrs[i]) return false;
    }
    WgmmaGroup *g = e->wgmma_group;
    if (g && !(offs_static && group_add(g, &op, acc->llvm, ptrs, offs))) {
        /* not groupable (or the group is full): what is pending goes first */
        group_flush(e, g);
        if (offs_static && group_add(g, &op, acc->llvm, ptrs, offs)) return true;
    } else if (g) {
        return true;
    }
    /* alone: one asm statement, its accumulators as slots 0 .. n-1 */
    WgmmaGroup one = {.nslot = (int)n, .slot_ptr = ptrs, .op = &op, .nop = 1};
    for (int64_t i = 0; i < n; i++) op.slot[i] = (int)i;
    emit_group(e, &one);
    return true;
}

/* wgmma(acc, A, B, T) or wgmma(acc, A, B, TA, TB): acc += A * B for one
 * m64nNk16 (bf16, f16) or m64nNk32 (e4m3, e5m2; TA and TB may differ)
 * step, N = 2 * size(acc), f32 accumulation.  B is a descriptor; A is a
 * descriptor (SS) or a register fragment (RS).  MN-major descriptors set
 * the transpose immediates.  wgmma(acc, A, B, TA, TB, ACCUMULATE): a
 * compile-time ACCUMULATE of false (0) gives acc = A * B (scale-d 0),
 * which starts a sum without first zeroing its registers. */
Value b_wgmma(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    int na = call->list.n;
    Value acc = arg[0];
    int64_t n;
    if (!acc_check(e, call->list.items[0], &acc, &n, false)) return val_error();
    ScalarType ty[2];
    for (int i = 0; i < 2; i++) {
        const Node *tn = call->list.items[na >= 5 ? 3 + i : 3];
        Value tv = arg[na >= 5 ? 3 + i : 3];
        if (!(tv.ty == TY_BF16 || tv.ty == TY_F16 || type_is_fp8(tv.ty))) {
            diag_error(e->diag, tn->loc, "the input type of 'wgmma' must be bf16, f16, e4m3 or e5m2, found %s",
                       val_describe(e, &tv));
            return val_error();
        }
        ty[i] = tv.ty;
    }
    bool fp8 = type_is_fp8(ty[0]);
    if (fp8 != type_is_fp8(ty[1]) || (!fp8 && ty[0] != ty[1])) {
        diag_error(e->diag, call->list.items[4]->loc,
                   "'wgmma' multiplies %s by %s: only the fp8 types (e4m3, e5m2) may differ between A and B",
                   type_name(ty[0]), type_name(ty[1]));
        return val_error();
    }
    const Node *an = call->list.items[1];
    Value a = arg[1];
    bool rs = a.kind == V_TENSOR;
    LLVMValueRef aops[4], db;
    int ta = 0, tb = 0;
    if (rs) {
        if (!afrag_check(e, an, &a, false)) return val_error();
        if (a.ty != ty[0]) {
            diag_error(e->diag, an->loc, "the A fragment of 'wgmma' holds %s, but its input type is %s",
                       type_name(a.ty), type_name(ty[0]));
            return val_error();
        }
        if (!afrag_pack(e, &a, aops, 4)) return val_error();
    } else {
        if (a.kind == V_REF || a.kind == V_VAR) a = val_load(e, a, an->loc);
        if (a.kind == V_ERROR || !desc_arg(e, an, a, ty[0], "A", &aops[0], &ta)) return val_error();
    }
    if (!desc_arg(e, call->list.items[2], arg[2], ty[1], "B", &db, &tb)) return val_error();
    /* a static bool (kk != 0) or 0 / 1 */
    Value accumulate = na == 6 ? arg[5] : (Value){.kind = V_INT, .i = 1};
    if (accumulate.kind == V_BOOL) accumulate = (Value){.kind = V_INT, .i = accumulate.i ? 1 : 0};
    if (na == 6 &&
        !arg_static_range(e, call, "wgmma", 5, &accumulate, 0, 1, "the accumulate flag (0: acc = A B, 1: acc += A B)"))
        return val_error();

    return wgmma_issue(e, &acc, n, rs ? aops : NULL, aops[0], db, ta, tb, ty, accumulate.i == 0)
               ? (Value){.kind = V_VOID}
               : val_error();
}

/* wgmma_fence(acc[, afrag]), wgmma_wait(N, acc[, afrag]) (op BOP_WAIT) */
Value b_wgmma_fence_wait(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    bool wait = b->op == BOP_WAIT;
    int64_t n;
    int base = wait ? 1 : 0;
    if (wait && !arg_static_range(e, call, b->name, 0, &arg[0], 0, 7, "the number of pending groups"))
        return val_error();
    if (!acc_check(e, call->list.items[base], &arg[base], &n, true)) return val_error();
    bool has_a = call->list.n == base + 2;
    if (has_a && !afrag_check(e, call->list.items[base + 1], &arg[base + 1], true)) return val_error();
    char text[64];
    if (wait)
        snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %lld;", (long long)arg[0].i);
    else
        snprintf(text, sizeof text, "wgmma.fence.sync.aligned;");
    return thread_acc(e, &arg[base], n, has_a ? &arg[base + 1] : NULL, text) ? (Value){.kind = V_VOID} : val_error();
}

Value b_wgmma_commit(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call, (void)arg;
    eval_asm(e, e->cg->t_void, NULL, 0, "wgmma.commit_group.sync.aligned;", "~{memory}");
    return (Value){.kind = V_VOID};
}

/* setmaxnreg_inc(n), setmaxnreg_dec(n) (op BOP_INC, BOP_DEC) */
Value b_setmaxnreg(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    CG *cg = e->cg;
    int64_t n = arg[0].i;
    if (!arg_static_range(e, call, b->name, 0, &arg[0], 24, 256, "the register count")) return val_error();
    if (n % 8) {
        diag_error(e->diag, call->list.items[0]->loc, "setmaxnreg needs a multiple of 8, got %lld", (long long)n);
        return val_error();
    }
    char text[64];
    snprintf(text, sizeof text, "setmaxnreg.%s.sync.aligned.u32 %lld;", b->op == BOP_INC ? "inc" : "dec", (long long)n);
    /* ptxas honours setmaxnreg only when it knows the register count at
     * the kernel's entry, which .maxnreg pins: the block's share of the
     * 64K registers (168 for 384 threads).  Without it ptxas may pick
     * fewer registers at entry, ignore the setmaxnreg (warning C7508)
     * and spill a large accumulator (seen with 192 x 192 GEMM tiles). */
    if (e->has_threads && !e->maxnreg_set) {
        int64_t nt = e->threads[0] * e->threads[1] * e->threads[2];
        int64_t cap = nt > 0 ? 65536 / nt : 255;
        cap = (cap > 255 ? 255 : cap) / 8 * 8;
        cg_annotate(cg, cg->fn, "maxnreg", (int)cap);
        e->maxnreg_set = true;
    }
    eval_asm(e, cg->t_void, NULL, 0, text, "~{memory}");
    return (Value){.kind = V_VOID};
}
