/*
 * kdesc_launch.c - launching a kernel from its contract alone: tensor maps
 * over the described tensors, the grid from the kernel's rule (a persistent
 * kernel's resident() capped by the occupancy API), block, cluster and
 * dynamic shared memory.  The core runtime's half of the contract: it
 * knows no problem class; the GEMM layer (gemm_bind.c) fills the argument
 * values and calls these.
 */
#include <stdio.h>
#include <string.h>

#include "cutec/cluster.h"
#include "cutec/tensor_map.h"
#include "internal.h"
#include "kexpr.h"

/* dims and byte strides of TMA argument a for these values; 0 or -1 with why */
static int map_geometry(const cutec_kdesc *d, int a, const cutec_kd_values *vals, uint64_t dims[CUTEC_KD_MAX_TMA_RANK],
                        uint64_t strides[CUTEC_KD_MAX_TMA_RANK], char *why, size_t len)
{
    const cutec_kd_arg *arg = &d->args[a];
    uint64_t esize = (uint64_t)cutec_dtype_bytes(arg->dtype);
    char sub[200];
    for (int m = 0; m < arg->tma_rank; m++) {
        long long v;
        if (cutec_kdesc_eval(d, arg->dims[m], vals, &v, sub, sizeof sub) != 0) {
            snprintf(why, len, "tensor map '%s': dimension %d: %s", cutec_kd_s(d, arg->name), m, sub);
            return -1;
        }
        if (v < 1 || v > (1LL << 32)) {
            snprintf(why, len, "tensor map '%s': dimension %d is %lld (TMA takes 1 .. 2^32)", cutec_kd_s(d, arg->name),
                     m, v);
            return -1;
        }
        dims[m] = (uint64_t)v;
        if (m == 0) continue;
        if (cutec_kdesc_eval(d, arg->tstride[m - 1], vals, &v, sub, sizeof sub) != 0) {
            snprintf(why, len, "tensor map '%s': stride %d: %s", cutec_kd_s(d, arg->name), m, sub);
            return -1;
        }
        if (v < 1 || v >= (1LL << 40) / (long long)esize || (uint64_t)v * esize % 16 != 0) {
            snprintf(why, len,
                     "tensor map '%s' needs its stride (%s = %lld elements of %d bytes) to be a multiple of 16 bytes",
                     cutec_kd_s(d, arg->name), cutec_kd_s(d, arg->tstride[m - 1]), v, (int)esize);
            return -1;
        }
        strides[m - 1] = (uint64_t)v * esize;
    }
    return 0;
}

const char *cutec_rt_kdesc_maps_unfit(const cutec_kdesc *d, const cutec_kd_values *vals, char *why, size_t len)
{
    for (int a = 0; a < d->nargs; a++) {
        uint64_t dims[CUTEC_KD_MAX_TMA_RANK], strides[CUTEC_KD_MAX_TMA_RANK];
        if (d->args[a].kind == CUTEC_KD_TMA && !d->args[a].unused &&
            map_geometry(d, a, vals, dims, strides, why, len) != 0)
            return why;
    }
    return NULL;
}

cutec_status cutec_rt_kdesc_tensor_map(cutec_runtime *rt, const cutec_kdesc *d, int a, const cutec_kd_values *vals,
                                       unsigned long long ptr, cutec_tensor_map *map)
{
    const cutec_kd_arg *arg = &d->args[a];
    if (arg->unused) { /* never read by the kernel: any bytes do; no constraints on the tensor */
        memset(map, 0, sizeof *map);
        return CUTEC_OK;
    }
    uint64_t dims[CUTEC_KD_MAX_TMA_RANK], strides[CUTEC_KD_MAX_TMA_RANK];
    char why[300];
    if (map_geometry(d, a, vals, dims, strides, why, sizeof why) != 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "kernel '%s': %s", d->kernel, why);
    return cutec_rt_tensor_map(rt, map, arg->dtype, ptr, arg->tma_rank, dims, strides, arg->box, arg->swizzle);
}

cutec_status cutec_rt_kdesc_plan(cutec_runtime *rt, cutec_kernel *k, const cutec_kdesc *d, const cutec_kd_values *vals,
                                 const unsigned grid[3], cutec_launch_plan *plan)
{
    if (d->threads[0] == 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "kernel '%s' declares no threads()", d->kernel);
    memcpy(plan->block, d->threads, sizeof plan->block);
    memcpy(plan->cluster, d->cluster, sizeof plan->cluster);
    plan->smem = d->smem_dynamic;
    if (grid != NULL) {
        memcpy(plan->grid, grid, sizeof plan->grid);
        return CUTEC_OK;
    }
    cutec_kd_values v = *vals;
    v.resident = 0;
    if (k != NULL && d->has_grid && cutec_kexpr_uses_resident(cutec_kd_s(d, d->grid[0])))
        v.resident = cutec_rt_resident_blocks(k, plan->block, plan->cluster, plan->smem);
    char why[512];
    if (v.resident > 0 && cutec_kdesc_grid(d, &v, plan->grid, why, sizeof why) == 0) return CUTEC_OK;
    v.resident = 0; /* the rule without the cap (unknown, or not whole clusters) */
    if (cutec_kdesc_grid(d, &v, plan->grid, why, sizeof why) != 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s", why);
    return CUTEC_OK;
}

cutec_status cutec_rt_kdesc_launch(cutec_kernel *k, const cutec_kdesc *d, const cutec_launch_plan *plan, void *stream,
                                   void **args)
{
    (void)d;
    return cutec_rt_launch_cluster(k, plan->grid, plan->block, plan->cluster, plan->smem, stream, args, 0);
}
