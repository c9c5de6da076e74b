/* cutec/tensor_map.h: TMA descriptors (CUtensorMap) for kernels with
 * tma<...> parameters, built through the dlopen'ed driver.  The PTX
 * metadata line `// cutec.arg ARG NAME tma TENSOR rank R dims D0 D1 .. stride
 * S1 .. box B0 B1 .. swizzle SW` says what to build for kernel argument ARG. */
#ifndef CUTEC_TENSOR_MAP_H
#define CUTEC_TENSOR_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "cutec/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CUtensorMap: 128 bytes, 64-byte aligned; pass its address in the
 * kernel's argument array like any other argument. */
typedef struct cutec_tensor_map {
    _Alignas(64) unsigned char bytes[128];
} cutec_tensor_map;

/* A 2-D tiled map over `addr` (a device pointer, 16-byte aligned): dim0
 * contiguous elements of type elem ("bf16", "f16", "f32", "e4m3", "e5m2"), dim1 rows
 * stride1_bytes apart (a multiple of 16), box0 x box1 elements per copy,
 * swizzle 0, 32, 64 or 128 bytes.  Elements outside the tensor read as zero.
 * CUTEC_ERR_INVALID_ARGUMENT for values the hardware rejects; the message
 * says which. */
cutec_status cutec_tensor_map_2d(cutec_runtime *rt, cutec_tensor_map *map, const char *elem, unsigned long long addr,
                                 uint64_t dim0, uint64_t dim1, uint64_t stride1_bytes, uint32_t box0, uint32_t box1,
                                 int swizzle_bytes);

/* The same map of any rank from 1 to 5 (a batch of matrices is rank 3, the
 * problem its third dimension): dims[0] contiguous elements, dimension i >= 1
 * strides_bytes[i - 1] apart (each a multiple of 16, below 2^40), box[i]
 * elements of dimension i per copy.  The 2-D rules hold for every stride;
 * L2 promotion is 256-byte where the address and every stride are whole
 * 128-byte lines.  CUTEC_ERR_INVALID_ARGUMENT (rank out of range, NULL
 * arrays, what the hardware rejects) with a message naming every
 * dimension. */
cutec_status cutec_tensor_map_nd(cutec_runtime *rt, cutec_tensor_map *map, const char *elem, unsigned long long addr,
                                 int rank, const uint64_t *dims, const uint64_t *strides_bytes, const uint32_t *box,
                                 int swizzle_bytes);

#ifdef __cplusplus
}
#endif
#endif
