/* eval_store.c: predicated stores without branches.
 *
 * store_if(dst, value, pred) and store_vector(dst, frag, pred) store only
 * where pred holds.  A runtime predicate becomes one predicated PTX store
 * (`@p st.global ...`) instead of an `if` around a store: an unrolled
 * epilogue of 128 masked stores would otherwise be 128 basic blocks, which
 * cost LLVM's passes and instruction selection far more time than the
 * stores themselves (the sm90 GEMM's register epilogue compiled in 90-150
 * ms that way).  The address is computed either way; only the access is
 * predicated, as in CUTLASS's predicated copies. */
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "builtins.h"
#include "eval.h"

Value eval_pred(Eval *e, const Node *arg, const char *name)
{
    if (arg->kind != N_TUPLE) return eval_rvalue(e, arg);
    /* the stores' asm operand arrays hold up to four per predicate */
    if (arg->list.n > 4) {
        diag_error(e->diag, arg->loc, "a predicate list of '%s' holds at most 4 booleans, got %d", name, arg->list.n);
        return val_error();
    }
    LLVMValueRef *conj = ARENA_ARRAY(e->arena, LLVMValueRef, arg->list.n > 0 ? arg->list.n : 1);
    int n = 0;
    bool never = false;
    for (int i = 0; i < arg->list.n; i++) {
        Value v = eval_rvalue(e, arg->list.items[i]);
        if (v.kind == V_ERROR) return v;
        if (v.kind == V_BOOL) {
            never = never || !v.i;
            continue;
        }
        if (v.kind != V_DYN || v.ty != TY_BOOL) {
            diag_error(e->diag, arg->list.items[i]->loc, "a predicate list of '%s' holds booleans, found %s", name,
                       val_describe(e, &v));
            return val_error();
        }
        conj[n++] = v.llvm;
    }
    if (never || n == 0) return val_bool(!never);
    Value r = val_dyn(conj[0], TY_BOOL);
    if (n > 1) {
        r.conj = conj;
        r.ncomp = n;
    }
    return r;
}

/* PTX that sets predicate register `reg` to a runtime predicate (one
 * boolean or a list) and, with `and_not`, also to the negation of that
 * predicate register: its operands are appended to args from *na; args[j]
 * is asm operand $(base + j) (base: the asm's outputs before them). */
int pred_ptx(Eval *e, Value p, const char *reg, const char *and_not, unsigned base, LLVMValueRef *args, unsigned *na,
             char *text, size_t tl, char *cons, size_t cl, int *kc)
{
    int n = p.conj ? p.ncomp : 1, k = 0;
    for (int i = 0; i < n; i++) {
        LLVMValueRef b = p.conj ? p.conj[i] : p.llvm;
        /* a boolean the statement already has (a row's test shared by the
         * vector and the element stores) is passed once: fewer operands */
        unsigned pi = *na;
        for (unsigned j = 0; j < *na; j++)
            if (LLVMIsAZExtInst(args[j]) && LLVMGetOperand(args[j], 0) == b) pi = j;
        if (pi == *na) {
            args[(*na)++] = LLVMBuildZExt(e->cg->b, b, e->cg->t_i32, "");
            *kc += snprintf(cons + *kc, cl - (size_t)*kc, ",r");
        }
        if (i == 0 && !and_not)
            k += snprintf(text + k, tl - (size_t)k, "\n\tsetp.ne.b32 %s, $%u, 0;", reg, base + pi);
        else if (i == 0)
            k += snprintf(text + k, tl - (size_t)k, "\n\tsetp.ne.and.b32 %s, $%u, 0, !%s;", reg, base + pi, and_not);
        else
            k += snprintf(text + k, tl - (size_t)k, "\n\tsetp.ne.and.b32 %s, $%u, 0, %s;", reg, base + pi, reg);
    }
    return k;
}

/* The payload (any LLVM value of `bytes` bytes) as the integer registers
 * of a PTX st: one b8/b16/b32/b64, or four b32 for 16 bytes.  Returns the
 * register count; *suffix gets the st type, *cons each operand's letter. */
static unsigned payload_regs(Eval *e, LLVMValueRef v, int bytes, LLVMValueRef regs[4], const char **suffix, char *cons)
{
    CG *cg = e->cg;
    LLVMBuilderRef b = cg->b;
    LLVMContextRef c = cg->ctx;
    if (bytes == 16) {
        LLVMValueRef q = LLVMBuildBitCast(b, v, LLVMVectorType(LLVMInt32TypeInContext(c), 4), "");
        for (unsigned i = 0; i < 4; i++) regs[i] = LLVMBuildExtractElement(b, q, LLVMConstInt(cg->t_i32, i, 0), "");
        *suffix = "v4.b32";
        *cons = 'r';
        return 4;
    }
    LLVMTypeRef vt = LLVMTypeOf(v), it = LLVMIntTypeInContext(c, (unsigned)bytes * 8);
    LLVMValueRef x;
    if (bytes > 1 && LLVMGetTypeKind(vt) == LLVMVectorTypeKind &&
        LLVMGetTypeKind(LLVMGetElementType(vt)) == LLVMIntegerTypeKind &&
        LLVMGetIntTypeWidth(LLVMGetElementType(vt)) == 8) {
        /* bytes (fp8 pairs) assembled with shifts: NVPTX lowers the
         * bitcast of a byte vector through the stack */
        x = LLVMConstInt(it, 0, 0);
        for (unsigned i = 0; i < LLVMGetVectorSize(vt); i++) {
            LLVMValueRef el =
                LLVMBuildZExt(b, LLVMBuildExtractElement(b, v, LLVMConstInt(cg->t_i32, i, 0), ""), it, "");
            x = LLVMBuildOr(b, x, LLVMBuildShl(b, el, LLVMConstInt(it, 8 * i, 0), ""), "");
        }
    } else {
        x = LLVMBuildBitCast(b, v, it, "");
    }
    if (bytes == 1) {
        /* PTX's st.b8 takes a 16-bit register */
        x = LLVMBuildZExt(b, x, LLVMInt16TypeInContext(c), "");
        *suffix = "b8";
        *cons = 'h';
    } else {
        *suffix = bytes == 2 ? "b16" : bytes == 4 ? "b32" : "b64";
        *cons = bytes == 2 ? 'h' : bytes == 4 ? 'r' : 'l';
    }
    regs[0] = x;
    return 1;
}

/* The address operand of a predicated st (64-bit global or 32-bit shared),
 * *global set; NULL with a diagnostic ("'NAME' WITH stores to ...") when
 * dst has no global or shared memory behind it. */
static LLVMValueRef pred_store_addr(Eval *e, const Value *dst, const char *name, const char *with, SrcLoc loc,
                                    bool *global)
{
    if (dst->space != SPACE_GMEM && dst->space != SPACE_SMEM) {
        diag_error(e->diag, loc, "'%s' with %s stores to global or shared memory, not to a %s", name, with,
                   dst->space == SPACE_RMEM ? "register ('local') tensor" : "tensor without memory");
        return NULL;
    }
    *global = dst->space == SPACE_GMEM;
    return *global ? LLVMBuildPtrToInt(e->cg->b, dst->llvm, LLVMInt64TypeInContext(e->cg->ctx), "")
                   : smem_addr32(e, dst);
}

bool emit_store_pred(Eval *e, const Value *dst, LLVMValueRef payload, int bytes, Value pred, const char *name,
                     SrcLoc ploc, SrcLoc loc)
{
    CG *cg = e->cg;
    if (pred.kind == V_BOOL) {
        if (pred.i) LLVMSetAlignment(LLVMBuildStore(cg->b, payload, dst->llvm), (unsigned)bytes);
        return true;
    }
    if (pred.kind != V_DYN || pred.ty != TY_BOOL) {
        diag_error(e->diag, ploc, "the predicate of '%s' must be a boolean, found %s", name, val_describe(e, &pred));
        return false;
    }
    bool global;
    LLVMValueRef args[24], regs[4];
    args[0] = pred_store_addr(e, dst, name, "a runtime predicate", loc, &global);
    if (!args[0]) return false;
    const char *suffix;
    char rc;
    unsigned nr = payload_regs(e, payload, bytes, regs, &suffix, &rc);
    for (unsigned i = 0; i < nr; i++) args[1 + i] = regs[i];
    unsigned na = 1 + nr;
    char text[640], cons[96];
    int kc = snprintf(cons, sizeof cons, "%c", global ? 'l' : 'r');
    for (unsigned i = 0; i < nr; i++) kc += snprintf(cons + kc, sizeof cons - (size_t)kc, ",%c", rc);
    int k = snprintf(text, sizeof text, "{\n\t.reg .pred p;");
    k += pred_ptx(e, pred, "p", NULL, 0, args, &na, text + k, sizeof text - (size_t)k, cons, sizeof cons, &kc);
    k += snprintf(text + k, sizeof text - (size_t)k, "\n\t@p st.%s.%s [$0], %s", global ? "global" : "shared", suffix,
                  nr > 1 ? "{" : "");
    for (unsigned i = 0; i < nr; i++) k += snprintf(text + k, sizeof text - (size_t)k, "%s$%u", i ? "," : "", 1 + i);
    snprintf(text + k, sizeof text - (size_t)k, "%s;\n\t}", nr > 1 ? "}" : "");
    snprintf(cons + kc, sizeof cons - (size_t)kc, ",~{memory}");
    eval_asm(e, LLVMVoidTypeInContext(cg->ctx), args, na, text, cons);
    return true;
}

/* Fragment elements i = 0 .. n-1 to dst + i (contiguous elements from dst,
 * as the caller promises for store_vector), each where its own predicate
 * holds: one asm statement of n predicated scalar stores, so an odd row
 * length, where pairs are not aligned, costs no more IR than a vector.
 * With vec (the fragment as one vbytes-byte payload) and its predicate
 * vpred, the statement first stores the whole fragment where vpred holds
 * and the elements only where it does not (store_vector's fallback form):
 * one code path for aligned and unaligned rows, where a branch on the
 * alignment would compile the unrolled epilogue twice. */
bool store_elems_pred(Eval *e, const Value *dst, const Value *frag, int64_t n, const Value *preds, const SrcLoc *ploc,
                      LLVMValueRef vec, int vbytes, const Value *vpred, const char *name, SrcLoc loc)
{
    CG *cg = e->cg;
    bool global;
    LLVMValueRef addr = pred_store_addr(e, dst, name, "a fragment", loc, &global);
    if (!addr) return false;
    const char *space = global ? "global" : "shared";
    int bytes = type_bytes(dst->ty);
    LLVMValueRef args[2 + 4 + 2 * 8 + 4 * 9];
    char text[3072], cons[256];
    int k = snprintf(text, sizeof text, "{\n\t.reg .pred p<%lld>;", (long long)n);
    int kc = snprintf(cons, sizeof cons, "%c", global ? 'l' : 'r');
    args[0] = addr;
    unsigned na = 1;
    /* with the vector's registers in the statement, elements of 2 bytes or
     * more are read out of them in PTX (mov.bN {e0, e1, ..}, r): no
     * per-element values for LLVM to build, which halves the IR of an
     * epilogue's fallback stores */
    char elem[8][16];
    bool unpacked = false;
    if (vec) {
        LLVMValueRef reg[4];
        const char *suffix;
        char rc;
        unsigned nr = payload_regs(e, vec, vbytes, reg, &suffix, &rc);
        k += snprintf(text + k, sizeof text - (size_t)k, "\n\t.reg .pred pv;");
        k += pred_ptx(e, *vpred, "pv", NULL, 0, args, &na, text + k, sizeof text - (size_t)k, cons, sizeof cons, &kc);
        k += snprintf(text + k, sizeof text - (size_t)k, "\n\t@pv st.%s.%s [$0], %s", space, suffix, nr > 1 ? "{" : "");
        unsigned r0 = na;
        for (unsigned i = 0; i < nr; i++) {
            k += snprintf(text + k, sizeof text - (size_t)k, "%s$%u", i ? "," : "", na);
            kc += snprintf(cons + kc, sizeof cons - (size_t)kc, ",%c", rc);
            args[na++] = reg[i];
        }
        k += snprintf(text + k, sizeof text - (size_t)k, "%s;", nr > 1 ? "}" : "");
        int rb = vbytes / (int)nr, per = rb / bytes;
        if (bytes >= 2 && per >= 1 && per * (int)nr == n) {
            unpacked = true;
            if (per > 1)
                k += snprintf(text + k, sizeof text - (size_t)k, "\n\t.reg .b%d e<%lld>;", 8 * bytes, (long long)n);
            for (unsigned r = 0; r < nr; r++) {
                if (per == 1) {
                    snprintf(elem[r], sizeof elem[r], "$%u", r0 + r);
                    continue;
                }
                k += snprintf(text + k, sizeof text - (size_t)k, "\n\tmov.b%d {", 8 * rb);
                for (int j = 0; j < per; j++) {
                    snprintf(elem[r * (unsigned)per + (unsigned)j], sizeof elem[0], "e%u",
                             r * (unsigned)per + (unsigned)j);
                    k += snprintf(text + k, sizeof text - (size_t)k, "%se%u", j ? ", " : "",
                                  r * (unsigned)per + (unsigned)j);
                }
                k += snprintf(text + k, sizeof text - (size_t)k, "}, $%u;", r0 + r);
            }
        }
    }
    unsigned stores = 0;
    for (int64_t i = 0; i < n; i++) {
        Value p = preds[i];
        if (p.kind != V_BOOL && (p.kind != V_DYN || p.ty != TY_BOOL)) {
            diag_error(e->diag, ploc[i], "predicate %lld of '%s' must be a boolean, found %s", (long long)i + 1, name,
                       val_describe(e, &p));
            return false;
        }
        if (p.kind == V_BOOL && !p.i) continue;
        char preg[24];
        snprintf(preg, sizeof preg, "p%lld", (long long)i);
        Value pt = p.kind == V_BOOL ? val_dyn(LLVMConstInt(cg->t_i1, 1, 0), TY_BOOL) : p;
        if (unpacked) {
            k += pred_ptx(e, pt, preg, "pv", 0, args, &na, text + k, sizeof text - (size_t)k, cons, sizeof cons, &kc);
            k += snprintf(text + k, sizeof text - (size_t)k, "\n\t@p%lld st.%s.b%d [$0+%lld], %s;", (long long)i, space,
                          8 * bytes, (long long)i * bytes, elem[i]);
            stores++;
            continue;
        }
        LLVMValueRef ptr = tensor_elem_ptr(e, frag, i, loc);
        if (!ptr) return false;
        Value v =
            conv_to(e, val_dyn(LLVMBuildLoad2(cg->b, cg_type(cg, frag->ty), ptr, ""), frag->ty), dst->ty, loc, false);
        if (v.kind == V_ERROR) return false;
        LLVMValueRef reg[4];
        const char *suffix;
        char rc;
        payload_regs(e, v.llvm, bytes, reg, &suffix, &rc);
        /* with a vector form, element i only where the vector was not stored */
        k += pred_ptx(e, pt, preg, vec ? "pv" : NULL, 0, args, &na, text + k, sizeof text - (size_t)k, cons,
                      sizeof cons, &kc);
        unsigned vi = na;
        args[na++] = reg[0];
        kc += snprintf(cons + kc, sizeof cons - (size_t)kc, ",%c", rc);
        k += snprintf(text + k, sizeof text - (size_t)k, "\n\t@p%lld st.%s.%s [$0+%lld], $%u;", (long long)i, space,
                      suffix, (long long)i * bytes, vi);
        stores++;
    }
    if (!vec && stores == 0) return true;
    snprintf(text + k, sizeof text - (size_t)k, "\n\t}");
    snprintf(cons + kc, sizeof cons - (size_t)kc, ",~{memory}");
    eval_asm(e, LLVMVoidTypeInContext(cg->ctx), args, na, text, cons);
    return true;
}

/* store_if(dst, value, pred): dst = value where pred holds, value converted
 * to dst's element type as an assignment would.  store_if(dst, frag, p0,
 * .., pn-1): element i of the register fragment frag to the i-th element
 * after dst where pi holds. */
Value b_store_if(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b;
    Value d = arg[0], v = arg[1];
    if (d.kind != V_REF) {
        diag_error(e->diag, call->list.items[0]->loc, "'store_if' needs a tensor element to store to, found %s",
                   val_describe(e, &d));
        return val_error();
    }
    Value preds[8];
    SrcLoc ploc[8];
    int np = call->list.n - 2;
    for (int i = 0; i < np; i++) {
        ploc[i] = call->list.items[2 + i]->loc;
        preds[i] = eval_pred(e, call->list.items[2 + i], "store_if");
        if (preds[i].kind == V_ERROR) return val_error();
    }
    if (v.kind == V_TENSOR) {
        int64_t n;
        if (!tensor_static_size(e, &v, call->loc, &n)) return val_error();
        if (v.space != SPACE_RMEM || n != np) {
            if (v.space != SPACE_RMEM)
                diag_error(e->diag, call->list.items[1]->loc,
                           "'store_if' stores a value or a register fragment, found %s", val_describe(e, &v));
            else
                diag_error(e->diag, call->loc,
                           "'store_if' takes one predicate per fragment element; got %lld element%s and %d predicate%s",
                           (long long)n, n == 1 ? "" : "s", np, np == 1 ? "" : "s");
            return val_error();
        }
        if (!store_elems_pred(e, &d, &v, n, preds, ploc, NULL, 0, NULL, "store_if", call->loc)) return val_error();
        return (Value){.kind = V_VOID};
    }
    if (np != 1) {
        diag_error(e->diag, call->loc, "'store_if' of one value takes one predicate, got %d", np);
        return val_error();
    }
    if (v.kind == V_REF || v.kind == V_VAR) v = val_load(e, v, call->loc);
    v = conv_to(e, v, d.ty, call->list.items[1]->loc, false);
    if (v.kind == V_ERROR) return v;
    if (!emit_store_pred(e, &d, v.llvm, type_bytes(d.ty), preds[0], "store_if", ploc[0], call->loc)) return val_error();
    return (Value){.kind = V_VOID};
}
