/* eval_sm90.c: Hopper (sm_90) synchronisation and data movement as
 * builtins: mbarriers, TMA loads (and multicast, prefetch), fences,
 * clusters, elect and named barriers (wgmma is eval_wgmma.c).  LLVM 19 has
 * no intrinsics for most of these; they are inline PTX marked sideeffect
 * and convergent (docs/compiler.md). */
#include <stdio.h>
#include <string.h>

#include "builtins.h"
#include "codegen.h"
#include "eval.h"
#include "program.h"

/* The arguments come checked and evaluated (builtins.c): shared-memory
 * elements as 32-bit shared addresses, integers as i32. */
Value sm90_builtin(Eval *e, const char *name, const Node *call, const Value *arg)
{
    CG *cg = e->cg;
    LLVMValueRef a[6];
    for (int i = 0; i < call->list.n && i < 6; i++) a[i] = arg[i].llvm;
    Value vvoid = {.kind = V_VOID};
    if (strcmp(name, "mbar_init") == 0) {
        eval_asm(e, cg->t_void, a, 2, "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "mbar_arrive") == 0) {
        eval_asm(e, cg->t_void, a, 1, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "mbar_arrive_tx") == 0) {
        eval_asm(e, cg->t_void, a, 2, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "mbar_wait") == 0) {
        eval_asm(e, cg->t_void, a, 2,
                 "{\n.reg .pred p;\ncutec_wait:\nmbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n@!p bra "
                 "cutec_wait;\n}",
                 "r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "fence_barrier_init") == 0) {
        eval_asm(e, cg->t_void, NULL, 0, "fence.mbarrier_init.release.cluster;", "~{memory}");
        return vvoid;
    }
    if (strcmp(name, "fence_proxy_async") == 0) {
        eval_asm(e, cg->t_void, NULL, 0, "fence.proxy.async.shared::cta;", "~{memory}");
        return vvoid;
    }
    if (strcmp(name, "tma_load") == 0) {
        /* tma_load(dst, tmap, mbar, c0, c1): coordinates innermost first */
        eval_asm(
            e, cg->t_void, a, 5,
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {$3, $4}], [$2];",
            "r,l,r,r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "tma_prefetch") == 0) {
        /* tma_prefetch(tmap): start fetching the tensor map into the TMA
         * unit's descriptor cache, so that the first load or store using it
         * does not wait for it (a kernel's first microsecond on small problems) */
        eval_asm(e, cg->t_void, a, 1, "prefetch.tensormap [$0];", "l,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "tma_load_mc") == 0) {
        /* tma_load_mc(dst, tmap, mbar, c0, c1, mask): the tile lands at dst
         * and completes on mbar in every block of the cluster whose rank
         * bit is set in mask */
        a[5] = LLVMBuildTrunc(cg->b, a[5], cg->t_i16, "");
        eval_asm(e, cg->t_void, a, 6,
                 "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[$0], [$1, {$3, $4}], [$2], $5;",
                 "r,l,r,r,r,h,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "cluster_rank") == 0) {
        if (e->cluster_size == 1) return val_int(0);
        return val_dyn(cg_intrinsic(cg, "llvm.nvvm.read.ptx.sreg.cluster.ctarank", NULL, 0, NULL, 0), TY_I32);
    }
    if (strcmp(name, "cluster_sync") == 0) {
        /* every thread of every block of the cluster; a plain barrier without one */
        if (e->cluster_size == 1) {
            cg_intrinsic(cg, "llvm.nvvm.barrier0", NULL, 0, NULL, 0);
            return vvoid;
        }
        eval_asm(e, cg->t_void, NULL, 0, "barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;", "~{memory}");
        return vvoid;
    }
    if (strcmp(name, "mbar_arrive_cluster") == 0) {
        /* arrive on the mbarrier at the same shared offset in block `rank` of the cluster */
        eval_asm(e, cg->t_void, a, 2,
                 "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, $0, $1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}",
                 "r,r,~{memory}");
        return vvoid;
    }
    if (strcmp(name, "elect_one") == 0) {
        LLVMValueRef r = eval_asm(e, cg->t_i1, NULL, 0, "elect.sync _|$0, 0xffffffff;", "=b");
        return val_dyn(r, TY_BOOL);
    }
    /* bar_sync(id, threads) / bar_arrive(id, threads): named barriers */
    eval_asm(e, cg->t_void, a, 2, name[4] == 's' ? "bar.sync $0, $1;" : "bar.arrive $0, $1;", "r,r,~{memory}");
    return vvoid;
}
