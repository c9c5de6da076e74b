/*
 * launch.c - kernel launch.  Kernels may use at most 48 KiB of dynamic shared
 * memory unless they opt in through MAX_DYNAMIC_SHARED_SIZE_BYTES; the
 * runtime opts in on the caller's behalf when a launch asks for more, and
 * remembers the value per kernel so that repeated launches cost no extra
 * driver call.  The launch itself is asynchronous: only configuration errors
 * are reported here, faults of the running kernel appear at synchronize.
 */
#include "internal.h"

#include <limits.h>

cutec_status cutec_rt_kernel_smem(cutec_kernel *k, unsigned dynamic_smem_bytes)
{
    cutec_runtime *rt = k->module->rt;
    if (dynamic_smem_bytes <= k->dyn_smem_limit) return CUTEC_OK;
    if (dynamic_smem_bytes > (unsigned)INT_MAX)
        return cutec_rt_fail(rt, CUTEC_ERR_LAUNCH, "launch of \"%s\": %u bytes of dynamic shared memory is too large",
                             k->name, dynamic_smem_bytes);
    CUresult r =
        rt->drv.func_set_attribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)dynamic_smem_bytes);
    if (r != CUDA_SUCCESS)
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_LAUNCH,
                                    "cuFuncSetAttribute(\"%s\", MAX_DYNAMIC_SHARED_SIZE_BYTES, %u)", k->name,
                                    dynamic_smem_bytes);
    k->dyn_smem_limit = dynamic_smem_bytes;
    return CUTEC_OK;
}

cutec_status cutec_launch(cutec_kernel *k, const unsigned grid[3], const unsigned block[3], unsigned dynamic_smem_bytes,
                          void *stream, void **args)
{
    return cutec_rt_launch(k, grid, block, dynamic_smem_bytes, stream, args, 1);
}

cutec_status cutec_rt_launch(cutec_kernel *k, const unsigned grid[3], const unsigned block[3],
                             unsigned dynamic_smem_bytes, void *stream, void **args, int enter)
{
    if (k == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = k->module->rt;
    if (grid == NULL || block == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_launch(\"%s\"): %s is NULL", k->name,
                             grid == NULL ? "grid" : "block");
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || block[0] == 0 || block[1] == 0 || block[2] == 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "cutec_launch(\"%s\"): grid (%u, %u, %u) and block (%u, %u, %u) must have "
                             "every component >= 1",
                             k->name, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    cutec_status s = enter ? cutec_rt_enter(rt) : CUTEC_OK;
    if (s != CUTEC_OK) return s;
    s = cutec_rt_kernel_smem(k, dynamic_smem_bytes);
    if (s != CUTEC_OK) return s;
    CUresult r = rt->drv.launch_kernel(k->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                       dynamic_smem_bytes, (CUstream)stream, args, NULL);
    if (r != CUDA_SUCCESS)
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_LAUNCH,
                                    "cuLaunchKernel(\"%s\", grid (%u, %u, %u), block (%u, %u, %u), "
                                    "%u bytes dynamic shared memory)",
                                    k->name, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                    dynamic_smem_bytes);
    return CUTEC_OK;
}
