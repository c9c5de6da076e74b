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
                                  const unsigned cluster[3], unsigned dynamic_smem_bytes, void *stream,
                                  void **args);

#ifdef __cplusplus
}
#endif
#endif
