/*
 * test_batch.c - batches of matrices through the runtime: rank-3 tensor
 * maps from a kernel's description (the batch as the map's third
 * dimension).  One case per process (`test_batch CASE ARGS...`):
 *   tensor_map_rank3        a rank-3 map's dims, byte strides, box and L2
 *                           promotion as the mock driver received them; a
 *                           batch stride off 16 bytes is a reason to skip (mock)
 *   tensor_map_nd           the public rank-N entry (cutec_tensor_map_nd): a
 *                           rank-3 map as the driver receives it, rank 2 the
 *                           same bytes as cutec_tensor_map_2d's, each refusal
 *                           with its message (mock)
 *   statuses                a batch's checks: BAD_SIZE, BAD_STRIDE, OVERLAP
 *                           (and outputs side by side accepted), UNSUPPORTED,
 *                           each with its message; the class key (no GPU)
 *   gemm BATCHED_PACK PACK  a batched problem tuned and run: the batched
 *                           kernel (user_gemm_batched.cute) bound with its
 *                           strides, the rank-2 kernels of PACK skipped with
 *                           the reason, cuBLASLt's batch attributes, every
 *                           problem's D right (mock or GPU)
 * The mock cases run with CUTEC_CUDA_DRIVER (and CUTEC_CUBLASLT) pointing at
 * the mocks.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "cutec/cutec.h"
#include "cutec/tensor_map.h"
#include "gemm_internal.h"
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
    /* the public rank-N entry point: the same map, and its own argument checks */
    strides[1] = 102400;
    CHECK_OK(rt, cutec_tensor_map_nd(rt, &map, "bf16", 0x100000, 3, dims, strides, box, 128));
    memcpy(&t, map.bytes, sizeof t);
    CHECK(t.rank == 3 && t.dims[2] == 3 && t.strides[1] == 102400 && t.box[1] == 128 && t.swizzle == 3);
    CHECK_STATUS(rt, cutec_tensor_map_nd(rt, &map, "bf16", 0x100000, 3, dims, NULL, box, 128),
                 CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_tensor_map_nd(rt, &map, "i32", 0x100000, 3, dims, strides, box, 128),
                 CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "element type 'i32' is not bf16");
    cutec_runtime_destroy(rt);
    return 0;
}

static int test_tensor_map_nd(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = check_gpu_runtime();
    /* 3 f16 matrices of 100 rows of 64 elements (128-byte rows), 100 * 64 + 64 elements apart */
    const uint64_t dims[3] = {64, 100, 3}, strides[2] = {128, (100 * 64 + 64) * 2};
    const uint32_t box[3] = {64, 32, 1};
    cutec_tensor_map map, map2;
    CHECK_OK(rt, cutec_tensor_map_nd(rt, &map, "f16", 0x200000, 3, dims, strides, box, 128));
    struct mock_tensor_map t;
    memcpy(&t, map.bytes, sizeof t);
    CHECK(t.magic == 0x544d4150u && t.rank == 3 && t.addr == 0x200000 && t.swizzle == 3);
    CHECK(t.dims[0] == 64 && t.dims[1] == 100 && t.dims[2] == 3);
    CHECK(t.strides[0] == 128 && t.strides[1] == strides[1]);
    CHECK(t.box[0] == 64 && t.box[1] == 32 && t.box[2] == 1);
    CHECK(t.dtype == cutec_dtype_info_of(CUTEC_CT_F16)->tmap && t.l2promo == 3);
    /* rank 2 is the 2-D entry's map */
    const uint32_t box2[2] = {32, 32}; /* 64-byte rows in a 64-byte swizzle */
    CHECK_OK(rt, cutec_tensor_map_nd(rt, &map, "bf16", 0x200000, 2, dims, strides, box2, 64));
    CHECK_OK(rt, cutec_tensor_map_2d(rt, &map2, "bf16", 0x200000, 64, 100, 128, 32, 32, 64));
    memcpy(&t, map.bytes, sizeof t);
    struct mock_tensor_map t2;
    memcpy(&t2, map2.bytes, sizeof t2);
    CHECK(t.rank == 2 && t2.rank == 2 && t.dtype == t2.dtype && t.swizzle == t2.swizzle && t.l2promo == t2.l2promo);
    CHECK(t.addr == t2.addr && t.dims[0] == t2.dims[0] && t.dims[1] == t2.dims[1] && t.strides[0] == t2.strides[0]);
    CHECK(t.box[0] == t2.box[0] && t.box[1] == t2.box[1] && t.swizzle == 2);
    /* rank 1: no strides needed */
    CHECK_OK(rt, cutec_tensor_map_nd(rt, &map, "f32", 0x200000, 1, dims, NULL, box, 0));
    /* refusals, each with its message */
    static const struct {
        const char *elem;
        int rank;
        uint64_t stride1;
        const char *msg;
    } bad[] = {
        {"f16", 0, 0, "cutec_tensor_map_nd: rank 0 (TMA takes 1 to 5)"},
        {"f16", 6, 0, "cutec_tensor_map_nd: rank 6 (TMA takes 1 to 5)"},
        {"i32", 3, 0, "cutec_tensor_map_nd: element type 'i32' is not bf16, f16, f32, e4m3 or e5m2"},
        {"f16", 3, 100 * 128 + 8, "dims 64 x 100 x 3, strides 128 12808 bytes, box 64 x 32 x 1, swizzle 128"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t s2[2] = {strides[0], bad[i].stride1 ? bad[i].stride1 : strides[1]};
        CHECK_STATUS(rt, cutec_tensor_map_nd(rt, &map, bad[i].elem, 0x200000, bad[i].rank, dims, s2, box, 128),
                     CUTEC_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cutec_runtime_message(rt), bad[i].msg);
    }
    CHECK_STATUS(rt, cutec_tensor_map_nd(rt, &map, "f16", 0x200000, 3, dims, NULL, box, 128),
                 CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_tensor_map_nd: NULL map, element type, dims, box or strides");
    CHECK_STATUS(NULL, cutec_tensor_map_nd(NULL, &map, "f16", 0x200000, 3, dims, strides, box, 128),
                 CUTEC_ERR_INVALID_ARGUMENT);
    cutec_runtime_destroy(rt);
    return 0;
}

/* ---- the GEMM layer's checks ---- */

static cutec_status check(cutec_runtime *rt, const cutec_gemm_problem *p, char *key, size_t len)
{
    static char buf[1 << 16] __attribute__((aligned(16)));
    cutec_gemm_args a;
    cutec_gemm_args_init(&a, buf, buf, buf);
    a.C = p->c_source ? buf : NULL; /* each pointer the problem asks for */
    a.bias = p->bias ? buf : NULL;
    a.bias_row = p->bias_row ? buf : NULL;
    a.aux = p->aux ? buf : NULL;
    cutec_gemm_problem out;
    cutec_gemm_args io;
    gemm_class cls;
    cutec_status s = cutec_gemm_check(rt, "cutec_gemm_ex", p, &a, &out, &io, &cls);
    if (s == CUTEC_OK && key != NULL) cutec_gemm_class_key(&cls, key, len);
    return s;
}

/* 3 problems of 40 x 24 x 32, packed one after another */
static void batched(cutec_gemm_problem *p)
{
    cutec_gemm_problem_init(p, 40, 24, 32, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p->batch = 3;
    p->stride_a = 40 * 32, p->stride_b = 24 * 32, p->stride_d = 40 * 24;
}

static int test_statuses(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = NULL;
    (void)cutec_runtime_create(&rt, 0); /* no driver needed: the checks come first */
    CHECK(rt != NULL);
    cutec_gemm_problem p;
    char key[CUTEC_KEY_MAX];
    batched(&p);
    CHECK_OK(rt, check(rt, &p, key, sizeof key));
    CHECK_CONTAINS(key, " align=16:16:16+batch:3");
    CHECK(strstr(key, "stride") == NULL); /* packed strides are the batch's default */
    p.stride_b = 0;                       /* one B for every problem */
    CHECK_OK(rt, check(rt, &p, key, sizeof key));
    CHECK_CONTAINS(key, "+batch:3+stride_b:0");
    /* one problem: the key written before batches */
    cutec_gemm_problem one;
    cutec_gemm_problem_init(&one, 40, 24, 32, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    one.batch = 1, one.stride_a = -5; /* unused */
    CHECK_OK(rt, check(rt, &one, key, sizeof key));
    CHECK(strstr(key, "batch") == NULL);

    batched(&p);
    p.batch = -2;
    CHECK_STATUS(rt, check(rt, &p, NULL, 0), CUTEC_ERR_BAD_SIZE);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_ex: batch = -2; it is 0 or 1 (one problem) or more");
    batched(&p);
    p.stride_b = -1;
    CHECK_STATUS(rt, check(rt, &p, NULL, 0), CUTEC_ERR_BAD_STRIDE);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_ex: stride_b = -1 is negative");
    CHECK(strcmp(cutec_status_name(CUTEC_ERR_BAD_STRIDE), "CUTEC_ERR_BAD_STRIDE") == 0 &&
          strcmp(cutec_status_name(CUTEC_ERR_OVERLAP), "CUTEC_ERR_OVERLAP") == 0);
    batched(&p);
    p.stride_a = 1LL << 39; /* 3 problems 2^39 apart: past 2^40 elements */
    CHECK_STATUS(rt, check(rt, &p, NULL, 0), CUTEC_ERR_BAD_SIZE);
    CHECK_CONTAINS(cutec_runtime_message(rt), "the batch of 3 matrices A, stride_a = 549755813888 apart, spans more "
                                              "than 2^40 elements");
    batched(&p);
    p.stride_d = 40 * 24 - 1;
    CHECK_STATUS(rt, check(rt, &p, NULL, 0), CUTEC_ERR_OVERLAP);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_ex: D's 3 problems overlap: stride_d = 959 is less than a "
                                              "matrix's span (960 elements: 40 x 24, ldc 24), and they do not lie "
                                              "side by side within its rows");
    /* heads side by side in one wide D: rows of 3 x 24 columns, each problem 24 columns on */
    p.ldc = 72, p.stride_d = 24;
    CHECK_OK(rt, check(rt, &p, key, sizeof key));
    CHECK_CONTAINS(key, "+stride_d:24");
    p.stride_d = 23; /* one column over the next problem's */
    CHECK_STATUS(rt, check(rt, &p, NULL, 0), CUTEC_ERR_OVERLAP);
    p.ldc = 71, p.stride_d = 24; /* the last problem's rows run past ldc */
    CHECK_STATUS(rt, check(rt, &p, NULL, 0), CUTEC_ERR_OVERLAP);
    batched(&p);
    p.bias_row = 1;
    CHECK_STATUS(rt, check(rt, &p, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_ex: a batch (batch 3) with a bias per row is not supported");
    batched(&p);
    p.aux = 1;
    CHECK_STATUS(rt, check(rt, &p, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "a batch (batch 3) with an aux output is not supported");
    batched(&p);
    snprintf(p.act, sizeof p.act, "relu");
    CHECK_STATUS(rt, check(rt, &p, NULL, 0), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt),
                   "a batch (batch 3) with an epilogue (an activation, a bias, a C source, "
                   "scalars on the device, scales, an fp8 output or a clamp) is not supported yet");
    cutec_runtime_destroy(rt);
    return 0;
}

/* ---- a batched GEMM tuned and run ---- */

static int test_gemm(int argc, char **argv)
{
    CHECK(argc >= 2);
    cutec_runtime *rt = check_gpu_runtime();
    cutec_runtime_set_log(rt, check_keep_log, NULL);
    cutec_gemm_handle *g;
    CHECK_OK(rt, cutec_gemm_create(rt, &g));
    CHECK_OK(rt, cutec_gemm_set_option(g, CUTEC_OPT_DISK_CACHE, 0));
    cutec_pack *batched_pack, *plain_pack;
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[0], &batched_pack));
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[1], &plain_pack));
    CHECK_OK(rt, cutec_gemm_use_pack(g, batched_pack));
    CHECK_OK(rt, cutec_gemm_use_pack(g, plain_pack));
    cutec_gemm_problem p;
    batched(&p);
    p.stride_a = 40 * 32 + 8; /* a padded batch of A */
    long long L = p.batch, na = (L - 1) * p.stride_a + 40 * 32, nb = (L - 1) * p.stride_b + 24 * 32,
              nd = (L - 1) * p.stride_d + 40 * 24;
    uint16_t *ha = calloc((size_t)na, 2), *hb = calloc((size_t)nb, 2), *hd = calloc((size_t)nd, 2);
    CHECK(ha != NULL && hb != NULL && hd != NULL);
    for (long long i = 0; i < na; i++) ha[i] = check_to_bf16((float)((i * 7) % 9 - 4) / 4);
    for (long long i = 0; i < nb; i++) hb[i] = check_to_bf16((float)((i * 5) % 7 - 3) / 2);
    unsigned long long a, b, d;
    CHECK_OK(rt, cutec_malloc(rt, (size_t)na * 2, &a));
    CHECK_OK(rt, cutec_malloc(rt, (size_t)nb * 2, &b));
    CHECK_OK(rt, cutec_malloc(rt, (size_t)nd * 2, &d));
    CHECK_OK(rt, cutec_memcpy_htod(rt, a, ha, (size_t)na * 2));
    CHECK_OK(rt, cutec_memcpy_htod(rt, b, hb, (size_t)nb * 2));
    check_log[0] = '\0';
    cutec_tune_report *rep = NULL;
    CHECK_OK(rt, cutec_gemm_tune(g, &p, (void *)(uintptr_t)a, (void *)(uintptr_t)b, (void *)(uintptr_t)d, NULL, &rep));
    int found = 0;
    for (int i = 0; i < rep->count; i++)
        if (strncmp(rep->candidates[i].name, "user_gemm_batched", 17) == 0 && isfinite(rep->candidates[i].ms))
            found = 1;
    cutec_tune_report_free(rep);
    CHECK(found);
    CHECK_CONTAINS(check_log, "tuning: skipping user_gemm_brow T=bf16 TC=bf16: a batched problem (batch 3) needs a "
                              "kernel with a batch role");
    /* cuBLASLt's layouts carry the batch (the mock records the last matmul's; A and B swapped: D is row-major) */
    const char *lt_path = getenv("CUTEC_CUBLASLT");
    void *lt = lt_path != NULL ? dlopen(lt_path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    void *sym = lt != NULL ? dlsym(lt, "cutec_mock_lt_last_batch") : NULL;
    CHECK(lt_path == NULL || sym != NULL); /* the mock's record (a GPU's cuBLASLt has none) */
    if (sym != NULL) {
        void (*last_batch)(long long *, long long *);
        memcpy(&last_batch, &sym, sizeof last_batch);
        long long nbatch[4], stride[4];
        last_batch(nbatch, stride);
        CHECK(nbatch[0] == 3 && nbatch[1] == 3 && nbatch[2] == 3 && nbatch[3] == 3);
        CHECK(stride[0] == p.stride_b && stride[1] == p.stride_a && stride[2] == p.stride_d && stride[3] == p.stride_d);
    }
    if (lt != NULL) dlclose(lt);
    /* whichever won, and the batched kernel alone (a handle without cuBLASLt's
     * algorithms: the pack kernel must win), compute every problem */
    cutec_gemm_handle *only;
    CHECK_OK(rt, cutec_gemm_create(rt, &only));
    CHECK_OK(rt, cutec_gemm_set_option(only, CUTEC_OPT_DISK_CACHE, 0));
    CHECK_OK(rt, cutec_gemm_set_option(only, CUTEC_OPT_CUBLAS_ALGOS, 0));
    CHECK_OK(rt, cutec_gemm_use_pack(only, batched_pack));
    cutec_gemm_handle *hs[2] = {g, only};
    uint16_t *got = malloc((size_t)nd * 2);
    CHECK(got != NULL);
    for (int run = 0; run < 2; run++) {
        CHECK_OK(rt, cutec_memcpy_htod(rt, d, hd, (size_t)nd * 2)); /* zeros */
        CHECK_OK(rt, cutec_gemm(hs[run], &p, (void *)(uintptr_t)a, (void *)(uintptr_t)b, (void *)(uintptr_t)d, NULL));
        CHECK_OK(rt, cutec_synchronize(rt));
        char name[192];
        CHECK_OK(rt, cutec_gemm_choice(hs[run], &p, name, sizeof name));
        if (run == 1) CHECK_CONTAINS(name, "user_gemm_batched");
        CHECK_OK(rt, cutec_memcpy_dtoh(rt, got, d, (size_t)nd * 2));
        for (long long l = 0; l < L; l++)
            for (long long i = 0; i < 40; i++)
                for (long long j = 0; j < 24; j++) {
                    double want = 0;
                    for (long long q = 0; q < 32; q++)
                        want += check_from_bf16(ha[l * p.stride_a + i * 32 + q]) *
                                check_from_bf16(hb[l * p.stride_b + j * 32 + q]);
                    double v = check_from_bf16(got[l * p.stride_d + i * 24 + j]);
                    if (fabs(v - want) > 0.01 * fabs(want) + 1e-3) {
                        fprintf(stderr, "%s: problem %lld D[%lld,%lld] = %g, want %g\n", name, l, i, j, v, want);
                        return 1;
                    }
                }
    }
    free(got);
    cutec_gemm_destroy(only);
    CHECK_OK(rt, cutec_free(rt, a));
    CHECK_OK(rt, cutec_free(rt, b));
    CHECK_OK(rt, cutec_free(rt, d));
    free(ha), free(hb), free(hd);
    cutec_gemm_destroy(g);
    cutec_runtime_destroy(rt);
    return 0;
}

static const check_case cases[] = {
    {"tensor_map_rank3", test_tensor_map_rank3},
    {"tensor_map_nd", test_tensor_map_nd},
    {"statuses", test_statuses},
    {"gemm", test_gemm},
};

int main(int argc, char **argv) { return check_run_cases(cases, sizeof cases / sizeof cases[0], argc, argv); }
