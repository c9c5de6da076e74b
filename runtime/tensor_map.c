/* tensor_map.c: cuTensorMapEncodeTiled through the runtime's dlopen'ed
 * driver.  The symbol is looked up on first use, so drivers (and the test
 * mock) without it still load; such a driver gets CUTEC_ERR_DRIVER here. */
#include <dlfcn.h>
#include <string.h>

#include "cutec/tensor_map.h"
#include "internal.h"

typedef int (*encode_tiled_fn)(void *map, int dtype, unsigned rank, void *addr, const uint64_t *dims,
                               const uint64_t *strides, const uint32_t *box, const uint32_t *elem_strides,
                               int interleave, int swizzle, int l2promo, int oobfill);

/* CUtensorMapDataType, CUtensorMapSwizzle and CUtensorMapL2promotion values
 * from cuda.h (CUDA 13.0) */
enum { TMAP_U8 = 0, TMAP_F16 = 6, TMAP_F32 = 7, TMAP_BF16 = 9, TMAP_L2_128B = 2, TMAP_L2_256B = 3 };

cutec_status cutec_tensor_map_2d(cutec_runtime *rt, cutec_tensor_map *map, const char *elem,
                                 unsigned long long addr, uint64_t dim0, uint64_t dim1,
                                 uint64_t stride1_bytes, uint32_t box0, uint32_t box1,
                                 int swizzle_bytes) {
  if (rt == NULL)
    return CUTEC_ERR_INVALID_ARGUMENT;
  if (map == NULL || elem == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_tensor_map_2d: NULL map or element type");
  cutec_status st = cutec_rt_enter(rt);
  if (st != CUTEC_OK)
    return st;
  int dtype, esize;
  if (strcmp(elem, "bf16") == 0)
    dtype = TMAP_BF16, esize = 2;
  else if (strcmp(elem, "f16") == 0)
    dtype = TMAP_F16, esize = 2;
  else if (strcmp(elem, "f32") == 0)
    dtype = TMAP_F32, esize = 4;
  else if (strcmp(elem, "e4m3") == 0 || strcmp(elem, "e5m2") == 0)
    dtype = TMAP_U8, esize = 1; /* TMA copies bytes; it has no fp8 type and needs none */
  else
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                         "cutec_tensor_map_2d: element type '%s' is not bf16, f16, f32, e4m3 or e5m2",
                         elem);
  int sw = swizzle_bytes == 0 ? 0 : swizzle_bytes == 32 ? 1 : swizzle_bytes == 64 ? 2 : swizzle_bytes == 128 ? 3 : -1;
  if (sw < 0 || addr % 16 || stride1_bytes % 16 || dim0 == 0 || dim1 == 0 || box0 == 0 || box1 == 0 ||
      box0 > 256 || box1 > 256 || ((uint64_t)box0 * (uint64_t)esize) % 16 ||
      (swizzle_bytes && (uint64_t)box0 * (uint64_t)esize > (uint64_t)swizzle_bytes))
    return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                         "cutec_tensor_map_2d: invalid map (address %#llx, dims %llu x %llu, stride %llu bytes, box %u x %u, "
                         "swizzle %d): addresses and strides must be 16-byte aligned, boxes 1..256 with 16-byte rows "
                         "no wider than the swizzle",
                         addr, (unsigned long long)dim0, (unsigned long long)dim1, (unsigned long long)stride1_bytes, box0,
                         box1, swizzle_bytes);
  encode_tiled_fn encode = (encode_tiled_fn)(uintptr_t)dlsym(rt->drv.lib, "cuTensorMapEncodeTiled");
  if (encode == NULL)
    return cutec_rt_fail(rt, CUTEC_ERR_DRIVER, "the CUDA driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12 or newer)");
  uint64_t dims[2] = {dim0, dim1}, strides[1] = {stride1_bytes};
  uint32_t box[2] = {box0, box1}, estr[2] = {1, 1};
  /* L2 promotion: 256-byte where every row starts on a 128-byte line, else
   * 128-byte.  With rows that straddle lines (K = 3000: 6000-byte rows)
   * 256-byte promotion cost the sm90 GEMM 10% at 3000^3 on the H100
   * (545 -> 604 TFLOP/s with 128-byte; none and 64-byte measured like
   * 128-byte), while on aligned shapes the two measured alike
   * (docs/performance.md). */
  int l2 = addr % 128 == 0 && stride1_bytes % 128 == 0 ? TMAP_L2_256B : TMAP_L2_128B;
  int r = encode(map->bytes, dtype, 2, (void *)(uintptr_t)addr, dims, strides, box, estr, 0, sw, l2, 0);
  if (r != 0)
    return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuTensorMapEncodeTiled");
  return CUTEC_OK;
}
