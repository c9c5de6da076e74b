/* eval_sm90.c: Hopper (sm_90) synchronisation and data movement as
 * builtins: mbarriers, TMA loads (and multicast, prefetch), fences,
 * clusters, elect and named barriers (wgmma is eval_wgmma.c).  LLVM 19 has
 * no intrinsics for most of these; they are inline PTX marked sideeffect
 * and convergent (docs/compiler.md). */
#include "builtins.h"
#include "codegen.h"
#include "eval.h"
#include "program.h"

/* The arguments come checked and evaluated (builtins.c): shared-memory
 * elements as 32-bit shared addresses, integers as i32.  The instruction
 * with the first n arguments as its operands. */
static Value asm_of(Eval *e, const Value *arg, unsigned n, const char *text, const char *cons)
{
    LLVMValueRef a[6];
    for (unsigned i = 0; i < n; i++) a[i] = arg[i].llvm;
    eval_asm(e, e->cg->t_void, a, n, text, cons);
    return (Value){.kind = V_VOID};
}

Value b_mbar_init(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call;
    return asm_of(e, arg, 2, "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}");
}

Value b_mbar_arrive(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call;
    return asm_of(e, arg, 1, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}");
}

Value b_mbar_arrive_tx(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call;
    return asm_of(e, arg, 2, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,~{memory}");
}

Value b_mbar_wait(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call;
    return asm_of(e, arg, 2,
                  "{\n.reg .pred p;\ncutec_wait:\nmbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n@!p bra "
                  "cutec_wait;\n}",
                  "r,r,~{memory}");
}

/* mbar_arrive_cluster(bar, rank): arrive on the mbarrier at the same shared
 * offset in block `rank` of the cluster */
Value b_mbar_arrive_cluster(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call;
    return asm_of(e, arg, 2,
                  "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, $0, $1;\n"
                  "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}",
                  "r,r,~{memory}");
}

Value b_fence_barrier_init(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call;
    return asm_of(e, arg, 0, "fence.mbarrier_init.release.cluster;", "~{memory}");
}

Value b_fence_proxy_async(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call;
    return asm_of(e, arg, 0, "fence.proxy.async.shared::cta;", "~{memory}");
}

bool tma_coord_count(Eval *e, const Builtin *b, const Node *call, const Value *tmap, int ncoords)
{
    int rank = tmap->lay.kind == LAY_V_TUPLE && !tmap->lay.tuple->is_leaf ? tmap->lay.tuple->n : 0;
    if (ncoords == rank) return true;
    diag_error(e->diag, call->loc, "'%s' needs %d coordinates for the rank-%d map '%s' (one per dimension), got %d",
               b->name, rank, rank, tmap->name ? tmap->name : "?", ncoords);
    return false;
}

/* "{$first, $first+1, ...}": n coordinate operands */
static void coord_list(char *buf, size_t len, int first, int n)
{
    size_t at = (size_t)snprintf(buf, len, "{");
    for (int i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s$%d", i ? ", " : "", first + i);
    if (at < len) snprintf(buf + at, len - at, "}");
}

/* tma_load(dst, tmap, mbar, c0, c1[, c2]): coordinates in the map's order
 * (its contiguous dimension first) */
Value b_tma_load(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    int nc = call->list.n - 3;
    if (!tma_coord_count(e, b, call, &arg[1], nc)) return val_error();
    char crd[32], text[160], cons[32];
    coord_list(crd, sizeof crd, 3, nc);
    snprintf(text, sizeof text,
             "cp.async.bulk.tensor.%dd.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, %s], [$2];", nc,
             crd);
    snprintf(cons, sizeof cons, "r,l,r%s,~{memory}", nc == 3 ? ",r,r,r" : ",r,r");
    return asm_of(e, arg, (unsigned)(3 + nc), text, cons);
}

/* tma_load_mc(dst, tmap, mbar, c0, c1[, c2], mask): the tile lands at dst
 * and completes on mbar in every block of the cluster whose rank bit is
 * set in mask */
Value b_tma_load_mc(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    int nc = call->list.n - 4;
    if (!tma_coord_count(e, b, call, &arg[1], nc)) return val_error();
    CG *cg = e->cg;
    LLVMValueRef a[7];
    for (int i = 0; i < 3 + nc; i++) a[i] = arg[i].llvm;
    a[3 + nc] = LLVMBuildTrunc(cg->b, arg[3 + nc].llvm, cg->t_i16, "");
    char crd[32], text[192], cons[32];
    coord_list(crd, sizeof crd, 3, nc);
    snprintf(text, sizeof text,
             "cp.async.bulk.tensor.%dd.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
             "[$0], [$1, %s], [$2], $%d;",
             nc, crd, 3 + nc);
    snprintf(cons, sizeof cons, "r,l,r%s,h,~{memory}", nc == 3 ? ",r,r,r" : ",r,r");
    eval_asm(e, cg->t_void, a, (unsigned)(4 + nc), text, cons);
    return (Value){.kind = V_VOID};
}

/* tma_prefetch(tmap): start fetching the tensor map into the TMA unit's
 * descriptor cache, so that the first load or store using it does not
 * wait for it (a kernel's first microsecond on small problems) */
Value b_tma_prefetch(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call;
    return asm_of(e, arg, 1, "prefetch.tensormap [$0];", "l,~{memory}");
}

Value b_cluster_rank(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call, (void)arg;
    if (e->cluster_size == 1) return val_int(0);
    return val_dyn(cg_intrinsic(e->cg, "llvm.nvvm.read.ptx.sreg.cluster.ctarank", NULL, 0, NULL, 0), TY_I32);
}

/* every thread of every block of the cluster; a plain barrier without one */
Value b_cluster_sync(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call;
    if (e->cluster_size == 1) {
        cg_intrinsic(e->cg, "llvm.nvvm.barrier0", NULL, 0, NULL, 0);
        return (Value){.kind = V_VOID};
    }
    return asm_of(e, arg, 0, "barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;", "~{memory}");
}

Value b_elect_one(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)b, (void)call, (void)arg;
    LLVMValueRef r = eval_asm(e, e->cg->t_i1, NULL, 0, "elect.sync _|$0, 0xffffffff;", "=b");
    return val_dyn(r, TY_BOOL);
}

/* bar_sync(id, threads) / bar_arrive(id, threads) (op): named barriers */
Value b_named_barrier(Eval *e, const Builtin *b, const Node *call, const Value *arg)
{
    (void)call;
    return asm_of(e, arg, 2, b->op == BOP_BAR_SYNC ? "bar.sync $0, $1;" : "bar.arrive $0, $1;", "r,r,~{memory}");
}
