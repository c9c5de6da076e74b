/*
 * memory.c - device allocation and host<->device copies.  Device pointers are
 * passed as unsigned long long (CUdeviceptr) so that the public header needs
 * no CUDA type.  Copies use the synchronous driver calls: when they return,
 * the host buffer may be reused (device-to-host) or holds the data.
 */
#include "internal.h"

cutec_status cutec_malloc(cutec_runtime *rt, size_t bytes, unsigned long long *dptr)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (dptr == NULL || bytes == 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_malloc: %s",
                             dptr == NULL ? "dptr is NULL" : "size is 0");
    *dptr = 0;
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    CUdeviceptr p = 0;
    CUresult r = rt->drv.mem_alloc(&p, bytes);
    if (r != CUDA_SUCCESS)
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemAlloc_v2(%zu bytes)", bytes);
    *dptr = p;
    return CUTEC_OK;
}

cutec_status cutec_free(cutec_runtime *rt, unsigned long long dptr)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (dptr == 0) return CUTEC_OK;
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    CUresult r = rt->drv.mem_free(dptr);
    if (r != CUDA_SUCCESS) return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemFree_v2(0x%llx)", dptr);
    return CUTEC_OK;
}

cutec_status cutec_memcpy_htod(cutec_runtime *rt, unsigned long long dst, const void *src, size_t bytes)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (bytes == 0) return CUTEC_OK;
    if (dst == 0 || src == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_memcpy_htod: %s is NULL", dst == 0 ? "dst" : "src");
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    CUresult r = rt->drv.memcpy_htod(dst, src, bytes);
    if (r != CUDA_SUCCESS)
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemcpyHtoD_v2(%zu bytes)", bytes);
    return CUTEC_OK;
}

cutec_status cutec_memcpy_dtoh(cutec_runtime *rt, void *dst, unsigned long long src, size_t bytes)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (bytes == 0) return CUTEC_OK;
    if (dst == NULL || src == 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_memcpy_dtoh: %s is NULL",
                             dst == NULL ? "dst" : "src");
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    CUresult r = rt->drv.memcpy_dtoh(dst, src, bytes);
    if (r != CUDA_SUCCESS)
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemcpyDtoH_v2(%zu bytes)", bytes);
    return CUTEC_OK;
}
