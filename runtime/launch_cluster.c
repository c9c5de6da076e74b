/* launch_cluster.c: launching with a thread-block cluster shape through
 * cuLaunchKernelEx (an optional symbol of the driver table, resolved when
 * the driver loads, so older drivers and the test mock still load).  The launch configuration
 * structs are declared here as cuda.h (CUDA 13.0) lays them out. */
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "cutec/cluster.h"
#include "internal.h"

typedef struct launch_attr {
    int id; /* CUlaunchAttributeID */
    char pad[4];
    union {
        char bytes[64];
        struct {
            unsigned x, y, z;
        } cluster_dim;
    } value;
} launch_attr;

typedef struct launch_config {
    unsigned grid[3], block[3], smem;
    void *stream;
    launch_attr *attrs;
    unsigned nattrs;
} launch_config;

typedef int (*launch_ex_fn)(const launch_config *cfg, void *fn, void **args, void **extra);

enum { ATTR_CLUSTER_DIMENSION = 4 };

/* The launch attribute that carries the cluster shape. */
static launch_attr cluster_attr(const unsigned cluster[3])
{
    launch_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.id = ATTR_CLUSTER_DIMENSION;
    attr.value.cluster_dim.x = cluster[0];
    attr.value.cluster_dim.y = cluster[1];
    attr.value.cluster_dim.z = cluster[2];
    return attr;
}

cutec_status cutec_launch_cluster(cutec_kernel *k, const unsigned grid[3], const unsigned block[3],
                                  const unsigned cluster[3], unsigned dynamic_smem_bytes, void *stream, void **args)
{
    return cutec_rt_launch_cluster(k, grid, block, cluster, dynamic_smem_bytes, stream, args, 1);
}

cutec_status cutec_rt_launch_cluster(cutec_kernel *k, const unsigned grid[3], const unsigned block[3],
                                     const unsigned cluster[3], unsigned dynamic_smem_bytes, void *stream, void **args,
                                     int enter)
{
    if (k == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = k->module->rt;
    if (cluster == NULL || (cluster[0] == 1 && cluster[1] == 1 && cluster[2] == 1))
        return cutec_rt_launch(k, grid, block, dynamic_smem_bytes, stream, args, enter);
    if (grid == NULL || block == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_launch_cluster(\"%s\"): grid or block is NULL",
                             k->name);
    for (int i = 0; i < 3; i++)
        if (cluster[i] == 0 || grid[i] == 0 || block[i] == 0 || grid[i] % cluster[i] != 0)
            return cutec_rt_fail(
                rt, CUTEC_ERR_INVALID_ARGUMENT,
                "cutec_launch_cluster(\"%s\"): grid (%u, %u, %u) must be a positive multiple of the cluster "
                "(%u, %u, %u) in every dimension",
                k->name, grid[0], grid[1], grid[2], cluster[0], cluster[1], cluster[2]);
    cutec_status s = enter ? cutec_rt_enter(rt) : CUTEC_OK;
    if (s != CUTEC_OK) return s;
    s = cutec_rt_kernel_smem(k, dynamic_smem_bytes);
    if (s != CUTEC_OK) return s;
    CUresult r;
    launch_ex_fn launch;
    memcpy(&launch, &rt->drv.launch_ex, sizeof launch); /* as driver.c's resolve: no cast of void * to a function */
    if (launch == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_DRIVER,
                             "the CUDA driver has no cuLaunchKernelEx (clusters need CUDA 12 or newer)");
    launch_attr attr = cluster_attr(cluster);
    launch_config cfg = {
        {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}, dynamic_smem_bytes, stream, &attr, 1};
    r = launch(&cfg, k->fn, args, NULL);
    if (r != CUDA_SUCCESS)
        return cutec_rt_fail_driver(
            rt, r, CUTEC_RT_PHASE_LAUNCH,
            "cuLaunchKernelEx(\"%s\", grid (%u, %u, %u), block (%u, %u, %u), cluster (%u, %u, %u), "
            "%u bytes dynamic shared memory)",
            k->name, grid[0], grid[1], grid[2], block[0], block[1], block[2], cluster[0], cluster[1], cluster[2],
            dynamic_smem_bytes);
    return CUTEC_OK;
}

typedef int (*max_clusters_fn)(int *n, void *fn, const launch_config *cfg);
typedef int (*max_blocks_fn)(int *n, void *fn, int block_size, size_t dynamic_smem);

long long cutec_rt_resident_blocks(cutec_kernel *k, const unsigned block[3], const unsigned cluster[3],
                                   unsigned dynamic_smem_bytes)
{
    if (k == NULL || block == NULL) return 0;
    cutec_runtime *rt = k->module->rt;
    /* occupancy counts the dynamic shared memory, which needs the opt-in first */
    if (cutec_rt_kernel_smem(k, dynamic_smem_bytes) != CUTEC_OK) return 0;
    unsigned cs = cluster ? cluster[0] * cluster[1] * cluster[2] : 1;
    if (cs > 1) {
        max_clusters_fn f = (max_clusters_fn)(uintptr_t)dlsym(rt->drv.lib, "cuOccupancyMaxActiveClusters");
        if (f == NULL) return 0;
        launch_attr attr = cluster_attr(cluster);
        launch_config cfg = {
            {cluster[0], cluster[1], cluster[2]}, {block[0], block[1], block[2]}, dynamic_smem_bytes, NULL, &attr, 1};
        int n = 0;
        if (f(&n, k->fn, &cfg) != CUDA_SUCCESS || n <= 0) return 0;
        return (long long)n * cs;
    }
    max_blocks_fn f = (max_blocks_fn)(uintptr_t)dlsym(rt->drv.lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    int per_sm = 0, sms = 0;
    if (f == NULL || f(&per_sm, k->fn, (int)(block[0] * block[1] * block[2]), dynamic_smem_bytes) != CUDA_SUCCESS ||
        per_sm <= 0 ||
        rt->drv.device_get_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, rt->dev) != CUDA_SUCCESS ||
        sms <= 0)
        return 0;
    return (long long)per_sm * sms;
}

cutec_status cutec_occupancy_blocks(cutec_kernel *k, const unsigned block[3], const unsigned cluster[3],
                                    unsigned dynamic_smem_bytes, long long *blocks)
{
    if (k == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = k->module->rt;
    if (block == NULL || blocks == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_occupancy_blocks(\"%s\"): block or blocks is NULL",
                             k->name);
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    *blocks = cutec_rt_resident_blocks(k, block, cluster, dynamic_smem_bytes);
    if (*blocks <= 0)
        return cutec_rt_fail(
            rt, CUTEC_ERR_UNSUPPORTED,
            "cutec_occupancy_blocks(\"%s\"): the driver's occupancy API gave no answer for block (%u, %u, %u), "
            "%u bytes of dynamic shared memory",
            k->name, block[0], block[1], block[2], dynamic_smem_bytes);
    return CUTEC_OK;
}
