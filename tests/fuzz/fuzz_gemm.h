/*
 * fuzz_gemm.h - what the two pack harnesses (fuzz_pack.c, fuzz_manifest.c)
 * share: bytes loaded as a pack with cutec_pack_load_data and, when they
 * load, the entry queries, cutec_gemm_use_pack and cutec_gemm on a small
 * problem, all under the mock CUDA driver and the mock cuBLASLt
 * (tests/runtime/mock_driver.c, mock_cublaslt.c).  A fresh runtime and GEMM
 * handle per input is the reset: packs, modules, decisions and the mocks' device state
 * all go with it.  Nothing touches the disk: the tuning cache is off and
 * its directory does not exist.
 */
#ifndef CUTEC_FUZZ_GEMM_H
#define CUTEC_FUZZ_GEMM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cutec.h"

#ifndef FUZZ_MOCK_DRIVER
#error "define FUZZ_MOCK_DRIVER and FUZZ_MOCK_CUBLASLT (tests/fuzz/CMakeLists.txt)"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The mocks that CMake built beside the harness, unless the environment
 * names others; the cache somewhere that cannot be written. */
static void fuzz_gemm_init(void)
{
    if (getenv("CUTEC_CUDA_DRIVER") == NULL) setenv("CUTEC_CUDA_DRIVER", FUZZ_MOCK_DRIVER, 1);
    if (getenv("CUTEC_CUBLASLT") == NULL) setenv("CUTEC_CUBLASLT", FUZZ_MOCK_CUBLASLT, 1);
    setenv("CUTEC_CACHE_DIR", "/nonexistent/cutec-fuzz-cache", 1);
}

/* bf16 of small integers, so that the mock's products are exact */
static uint16_t fuzz_bf16(int v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}

/* The pack's entries through every read-only query. */
static void fuzz_pack_queries(cutec_pack *pack)
{
    int n = cutec_pack_entry_count(pack);
    (void)cutec_pack_arch(pack);
    (void)cutec_pack_source_hash(pack);
    (void)cutec_pack_cutec_version(pack);
    char buf[256];
    for (int i = 0; i < n && i < 64; i++) {
        const char *k = cutec_pack_entry_kernel(pack, i);
        (void)cutec_pack_entry_manifest(pack, i);
        (void)cutec_pack_entry_param(pack, i, "BM");
        cutec_pack_entry_describe(pack, i, buf, sizeof buf);
        if (k != NULL) (void)cutec_pack_find(pack, k, "BM=64 BN=64");
    }
    (void)cutec_pack_entry_kernel(pack, n);
    (void)cutec_pack_find(pack, "gemm_sm80", NULL);
}

/* Loads the bytes as a pack and, when they load, runs a 16 x 16 x 16 bf16
 * GEMM through the tuner twice (a tuning, then the table's decision). */
static void fuzz_gemm_run(const void *bytes, size_t size)
{
    cutec_runtime *rt = NULL;
    if (cutec_runtime_create(&rt, 0) != CUTEC_OK) {
        fprintf(stderr, "fuzz_gemm: no runtime on the mock driver %s: %s\n", getenv("CUTEC_CUDA_DRIVER"),
                cutec_runtime_message(rt));
        abort();
    }
    cutec_pack *pack = NULL;
    cutec_gemm_handle *h = NULL;
    if (cutec_gemm_create(rt, &h) != CUTEC_OK) {
        fprintf(stderr, "fuzz_gemm: no GEMM handle: %s\n", cutec_runtime_message(rt));
        abort();
    }
    if (cutec_pack_load_data(rt, bytes, size, &pack) == CUTEC_OK) {
        fuzz_pack_queries(pack);
        /* the fewest timed runs the tuner allows: tuning is the slow part */
        (void)cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0);
        (void)cutec_gemm_set_option(h, CUTEC_OPT_TUNE_RUNS, 20);
        (void)cutec_gemm_set_option(h, CUTEC_OPT_TUNE_WARMUP, 1);
        (void)cutec_gemm_set_option(h, CUTEC_OPT_CUBLAS_ALGOS, 1);
        if (cutec_gemm_use_pack(h, pack) == CUTEC_OK) {
            enum { DIM = 16 };
            uint16_t ha[DIM * DIM], hb[DIM * DIM];
            for (int i = 0; i < DIM * DIM; i++) {
                ha[i] = fuzz_bf16(i % 5 - 2);
                hb[i] = fuzz_bf16(i % 3 - 1);
            }
            unsigned long long a = 0, b = 0, c = 0;
            if (cutec_malloc(rt, sizeof ha, &a) == CUTEC_OK && cutec_malloc(rt, sizeof hb, &b) == CUTEC_OK &&
                cutec_malloc(rt, sizeof ha, &c) == CUTEC_OK && cutec_memcpy_htod(rt, a, ha, sizeof ha) == CUTEC_OK &&
                cutec_memcpy_htod(rt, b, hb, sizeof hb) == CUTEC_OK) {
                cutec_gemm_problem p;
                cutec_gemm_problem_init(&p, DIM, DIM, DIM, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
                void *A = (void *)(uintptr_t)a, *B = (void *)(uintptr_t)b, *C = (void *)(uintptr_t)c;
                if (cutec_gemm(h, &p, A, B, C, NULL) == CUTEC_OK) {
                    (void)cutec_gemm(h, &p, A, B, C, NULL);
                    char name[192];
                    (void)cutec_gemm_choice(h, &p, name, sizeof name);
                }
            }
            if (c != 0) (void)cutec_free(rt, c);
            if (b != 0) (void)cutec_free(rt, b);
            if (a != 0) (void)cutec_free(rt, a);
        }
        cutec_pack_unload(pack); /* withdraws it from h */
    }
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
}

#endif /* CUTEC_FUZZ_GEMM_H */
