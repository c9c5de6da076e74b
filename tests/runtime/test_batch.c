/*
 * test_batch.c - batches of matrices through the runtime: rank-3 tensor
 * maps from a kernel's description (the batch as the map's third
 * dimension).  One case per process (`test_batch CASE ARGS...`):
 *   tensor_map_rank3        a rank-3 map's dims, byte strides, box and L2
 *                           promotion as the mock driver received them; a
 *                           batch stride off 16 bytes is a reason to skip (mock)
 * The mock cases run with CUTEC_CUDA_DRIVER pointing at the mock driver.
 */
#include <stdint.h>

#include "check.h"
#include "cutec/cutec.h"
#include "cutec/tensor_map.h"
#include "internal.h"
#include "kdesc.h"

/* What the mock driver's cuTensorMapEncodeTiled writes into a map (the
 * same struct as tests/runtime/mock_driver.c's). */
struct mock_tensor_map {
    uint32_t magic, rank;
    int32_t dtype, swizzle, l2promo, pad;
    uint64_t addr, dims[5], strides[4];
    uint32_t box[5];
};

static const char batched_desc[] = "// cutec.kernel batched_copy\n"
                                   "// cutec.contract 1\n"
                                   "// cutec.class plain\n"
                                   "// cutec.threads 128 1 1\n"
                                   "// cutec.smem_static 0\n"
                                   "// cutec.smem_dynamic 0\n"
                                   "// cutec.arg 0 M scalar i32\n"
                                   "// cutec.arg 1 K scalar i32\n"
                                   "// cutec.arg 2 L scalar i32\n"
                                   "// cutec.arg 3 sa scalar i64\n"
                                   "// cutec.arg 4 A tensor bf16 rank 3 shape M K L stride K 1 sa align 2\n"
                                   "// cutec.arg 5 tmA tma 4 rank 3 dims K M L stride K sa box 64 128 1 swizzle 128\n";

static int test_tensor_map_rank3(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = check_gpu_runtime();
    cutec_kdesc d;
    char why[300] = "";
    CHECK(cutec_kdesc_read(batched_desc, sizeof batched_desc - 1, &d, why, sizeof why) == 0);
    /* 3 matrices of 200 x 256, 256 * 200 + 64 elements apart (a padded batch) */
    int32_t m = 200, k = 256, l = 3;
    int64_t sa = 256 * 200 + 64;
    void *args[6] = {&m, &k, &l, &sa};
    cutec_kd_values v = {0};
    cutec_kdesc_values_from_args(&d, args, &v);
    CHECK(cutec_rt_kdesc_maps_unfit(&d, &v, why, sizeof why) == NULL);
    cutec_tensor_map map;
    CHECK_OK(rt, cutec_rt_kdesc_tensor_map(rt, &d, 5, &v, 0x100000, &map));
    struct mock_tensor_map t;
    memcpy(&t, map.bytes, sizeof t);
    CHECK(t.magic == 0x544d4150u && t.rank == 3 && t.addr == 0x100000);
    CHECK(t.dims[0] == 256 && t.dims[1] == 200 && t.dims[2] == 3);
    CHECK(t.strides[0] == 512 && t.strides[1] == (uint64_t)sa * 2);
    CHECK(t.box[0] == 64 && t.box[1] == 128 && t.box[2] == 1 && t.swizzle == 3);
    CHECK(t.l2promo == 3); /* 256-byte: the address and both strides are whole 128-byte lines */
    /* a batch stride of 16-byte multiples that is not one of 128: 128-byte promotion */
    sa = 256 * 200 + 8;
    cutec_kdesc_values_from_args(&d, args, &v);
    CHECK_OK(rt, cutec_rt_kdesc_tensor_map(rt, &d, 5, &v, 0x100000, &map));
    memcpy(&t, map.bytes, sizeof t);
    CHECK(t.strides[1] == (uint64_t)sa * 2 && t.l2promo == 2);
    /* a batch stride off 16 bytes: the map cannot describe the tensor, and says why */
    sa = 256 * 200 + 3;
    cutec_kdesc_values_from_args(&d, args, &v);
    CHECK(cutec_rt_kdesc_maps_unfit(&d, &v, why, sizeof why) != NULL);
    CHECK_CONTAINS(why, "tensor map 'tmA' needs its stride (sa = 51203 elements of 2 bytes) to be a multiple of 16 "
                        "bytes");
    CHECK_STATUS(rt, cutec_rt_kdesc_tensor_map(rt, &d, 5, &v, 0x100000, &map), CUTEC_ERR_INVALID_ARGUMENT);
    /* the direct entry point's message names all three dimensions */
    uint64_t dims[3] = {256, 200, 3}, strides[2] = {512, 102406};
    uint32_t box[3] = {64, 128, 1};
    CHECK_STATUS(rt, cutec_rt_tensor_map(rt, &map, CUTEC_CT_BF16, 0x100000, 3, dims, strides, box, 128),
                 CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "dims 256 x 200 x 3, strides 512 102406 bytes, box 64 x 128 x 1, "
                                              "swizzle 128");
    cutec_runtime_destroy(rt);
    return 0;
}

static const struct {
    const char *name;
    int (*fn)(int, char **);
} cases[] = {
    {"tensor_map_rank3", test_tensor_map_rank3},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASE [ARGS]\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) return cases[i].fn(argc - 2, argv + 2);
    fprintf(stderr, "unknown case '%s'\n", argv[1]);
    return 2;
}
