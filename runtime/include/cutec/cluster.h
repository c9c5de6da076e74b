/* cutec/cluster.h: launching kernels that declare cluster(x, y, z) (their
 * PTX metadata has a `// cutec.cluster X Y Z` line). */
#ifndef CUTEC_CLUSTER_H
#define CUTEC_CLUSTER_H

#include "cutec/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cutec_launch with a thread-block cluster shape; the grid must be a
 * multiple of it.  A cluster of (1, 1, 1) or NULL is a plain launch. */
cutec_status cutec_launch_cluster(cutec_kernel *k, const unsigned grid[3], const unsigned block[3],
                                  const unsigned cluster[3], unsigned dynamic_smem_bytes, void *stream, void **args);

/* How many blocks of k the device holds at once with this block size,
 * cluster shape (NULL: none) and dynamic shared memory, in whole clusters,
 * from the driver's occupancy API: the most a persistent grid should launch
 * (more would run as a second wave).  CUTEC_OK and *blocks, or
 * CUTEC_ERR_UNSUPPORTED where the driver cannot say. */
cutec_status cutec_occupancy_blocks(cutec_kernel *k, const unsigned block[3], const unsigned cluster[3],
                                    unsigned dynamic_smem_bytes, long long *blocks);

#ifdef __cplusplus
}
#endif
#endif
