/* tensor_map.c: cuTensorMapEncodeTiled through the runtime's dlopen'ed
 * driver.  The symbol is looked up on first use, so drivers (and the test
 * mock) without it still load; such a driver gets CUTEC_ERR_DRIVER here. */
#include <stdio.h>
#include <string.h>

#include "cutec/tensor_map.h"
#include "internal.h"

typedef int (*encode_tiled_fn)(void *map, int dtype, unsigned rank, void *addr, const uint64_t *dims,
                               const uint64_t *strides, const uint32_t *box, const uint32_t *elem_strides,
                               int interleave, int swizzle, int l2promo, int oobfill);

/* CUtensorMapL2promotion values from cuda.h (CUDA 13.0); the data type
 * values are in the dtype table (contract/dtype.c) */
enum { TMAP_L2_128B = 2, TMAP_L2_256B = 3 };

cutec_status cutec_rt_tensor_map(cutec_runtime *rt, cutec_tensor_map *map, cutec_ct elem, unsigned long long addr,
                                 int rank, const uint64_t *dims, const uint64_t *strides_bytes, const uint32_t *box,
                                 int swizzle_bytes)
{
    const cutec_dtype_info *t = cutec_dtype_info_of(elem);
    if (t == NULL || t->tmap < 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "tensor map: TMA cannot move elements of type %s",
                             cutec_dtype_str(elem));
    uint64_t esize = (uint64_t)t->bytes;
    int sw = swizzle_bytes == 0 ? 0 : swizzle_bytes == 32 ? 1 : swizzle_bytes == 64 ? 2 : swizzle_bytes == 128 ? 3 : -1;
    int bad = sw < 0 || rank < 1 || rank > 5 || addr % 16 || box[0] * esize % 16 ||
              (swizzle_bytes && box[0] * esize > (uint64_t)swizzle_bytes);
    for (int i = 0; i < rank && !bad; i++)
        bad = dims[i] == 0 || dims[i] > (1ull << 32) || box[i] == 0 || box[i] > 256 ||
              (i > 0 && (strides_bytes[i - 1] % 16 || strides_bytes[i - 1] >= (1ull << 40)));
    if (bad) {
        char geo[256]; /* "dims D0 x D1 x D2, strides S1 S2 bytes, box B0 x B1 x B2" */
        size_t n = 0;
        for (int i = 0; i < rank && i < 5 && n < sizeof geo; i++)
            n += (size_t)snprintf(geo + n, sizeof geo - n, "%s%llu", i ? " x " : "dims ", (unsigned long long)dims[i]);
        for (int i = 1; i < rank && i < 5 && n < sizeof geo; i++)
            n += (size_t)snprintf(geo + n, sizeof geo - n, "%s%llu",
                                  i > 1      ? " "
                                  : rank > 2 ? ", strides "
                                             : ", stride ",
                                  (unsigned long long)strides_bytes[i - 1]);
        for (int i = 0; i < rank && i < 5 && n < sizeof geo; i++)
            n += (size_t)snprintf(geo + n, sizeof geo - n, "%s%u",
                                  i          ? " x "
                                  : rank > 1 ? " bytes, box "
                                             : ", box ",
                                  box[i]);
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "tensor map: invalid map (address %#llx, %s, swizzle %d): addresses and strides must be "
                             "16-byte aligned, boxes 1..256 with 16-byte rows no wider than the swizzle",
                             addr, rank >= 1 && rank <= 5 ? geo : "rank out of range", swizzle_bytes);
    }
    cutec_status st = cutec_rt_enter(rt);
    if (st != CUTEC_OK) return st;
    encode_tiled_fn encode; /* resolved with the driver: a call whose pointers moved re-encodes its maps */
    memcpy(&encode, &rt->drv.tensor_map_encode, sizeof encode);
    if (encode == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_DRIVER,
                             "the CUDA driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12 or newer)");
    uint32_t estr[5] = {1, 1, 1, 1, 1};
    /* L2 promotion: 256-byte where every row starts on a 128-byte line, else
   * 128-byte.  With rows that straddle lines (K = 3000: 6000-byte rows)
   * 256-byte promotion cost the sm90 GEMM 10% at 3000^3 on the H100
   * (545 -> 604 TFLOP/s with 128-byte; none and 64-byte measured like
   * 128-byte), while on aligned shapes the two measured alike
   * (docs/performance.md). */
    int l2 = addr % 128 == 0 ? TMAP_L2_256B : TMAP_L2_128B;
    for (int i = 1; i < rank; i++) /* every row: each stride (a batch's too) a whole number of lines */
        if (strides_bytes[i - 1] % 128) l2 = TMAP_L2_128B;
    int r = encode(map->bytes, t->tmap, (unsigned)rank, (void *)(uintptr_t)addr, dims, strides_bytes, box, estr, 0, sw,
                   l2, 0);
    if (r != 0) return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuTensorMapEncodeTiled");
    return CUTEC_OK;
}

/* The element type of a public entry point's map, by name; CUTEC_CT_NONE
 * (with the message) when TMA cannot move it. */
static cutec_ct public_elem(cutec_runtime *rt, const char *fn, const char *elem)
{
    cutec_ct t = cutec_dtype_from_name(elem, strlen(elem));
    const cutec_dtype_info *info = cutec_dtype_info_of(t);
    if (info == NULL || !info->is_float || info->tmap < 0 || info->bytes > 4) {
        cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "%s: element type '%s' is not bf16, f16, f32, e4m3 or e5m2", fn,
                      elem);
        return CUTEC_CT_NONE;
    }
    return t;
}

cutec_status cutec_tensor_map_2d(cutec_runtime *rt, cutec_tensor_map *map, const char *elem, unsigned long long addr,
                                 uint64_t dim0, uint64_t dim1, uint64_t stride1_bytes, uint32_t box0, uint32_t box1,
                                 int swizzle_bytes)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (map == NULL || elem == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_tensor_map_2d: NULL map or element type");
    cutec_ct t = public_elem(rt, "cutec_tensor_map_2d", elem);
    if (t == CUTEC_CT_NONE) return CUTEC_ERR_INVALID_ARGUMENT;
    uint64_t dims[2] = {dim0, dim1}, strides[1] = {stride1_bytes};
    uint32_t box[2] = {box0, box1};
    return cutec_rt_tensor_map(rt, map, t, addr, 2, dims, strides, box, swizzle_bytes);
}

cutec_status cutec_tensor_map_nd(cutec_runtime *rt, cutec_tensor_map *map, const char *elem, unsigned long long addr,
                                 int rank, const uint64_t *dims, const uint64_t *strides_bytes, const uint32_t *box,
                                 int swizzle_bytes)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (map == NULL || elem == NULL || dims == NULL || box == NULL || (rank > 1 && strides_bytes == NULL))
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "cutec_tensor_map_nd: NULL map, element type, dims, box or strides");
    if (rank < 1 || rank > 5)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_tensor_map_nd: rank %d (TMA takes 1 to 5)", rank);
    cutec_ct t = public_elem(rt, "cutec_tensor_map_nd", elem);
    if (t == CUTEC_CT_NONE) return CUTEC_ERR_INVALID_ARGUMENT;
    return cutec_rt_tensor_map(rt, map, t, addr, rank, dims, strides_bytes, box, swizzle_bytes);
}
