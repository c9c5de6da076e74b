/*
 * test_runtime_gpu.c - runtime tests that need a CUDA GPU.  Each case runs in
 * its own process (a kernel fault ruins the context for the rest of the
 * process) and exits with 77, CTest's skip code, when the runtime reports no
 * driver or no device.  Usage:
 *   test_runtime_gpu CASE FIXTURE_DIR [CUBIN]
 * FIXTURE_DIR holds vector_add.ptx and fault.ptx; CUBIN is a cubin of
 * vector_add.ptx for sm_90 (only for the case "cubin").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cluster.h"

static char fixture_dir[4096];

static const char *fixture(const char *name)
{
    static char path[4096 + 64];
    snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
    return path;
}

/* Creates the runtime on device 0, or exits with the skip code. */
static cutec_runtime *open_runtime(void)
{
    cutec_runtime *rt = NULL;
    cutec_status s = cutec_runtime_create(&rt, 0);
    if (s == CUTEC_ERR_NO_DRIVER || s == CUTEC_ERR_NO_DEVICE) {
        printf("skipping: %s: %s\n", cutec_status_string(s), cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        exit(TEST_SKIP);
    }
    CHECK_OK(rt, s);
    char name[256];
    int major = 0, minor = 0, sms = 0, version = 0;
    CHECK_OK(rt, cutec_device_info(rt, name, sizeof name, &major, &minor, &sms));
    CHECK_OK(rt, cutec_driver_version(rt, &version));
    printf("device: %s, sm_%d%d, %d SMs, driver %d\n", name, major, minor, sms, version);
    return rt;
}

static cutec_module *load(cutec_runtime *rt, const char *path)
{
    cutec_module *m = NULL;
    CHECK_OK(rt, cutec_module_load_file(rt, path, &m));
    CHECK(m != NULL);
    return m;
}

static float uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((*state >> 40) & 0xffffff) / (float)0x1000000 * 2.0f - 1.0f;
}

/* Runs vector_add on n random elements and checks every result exactly. */
static void run_vector_add(cutec_runtime *rt, cutec_kernel *k, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    CHECK(a != NULL && b != NULL && c != NULL);
    uint64_t seed = 12345u + (uint64_t)n;
    for (int i = 0; i < n; i++) {
        a[i] = uniform(&seed);
        b[i] = uniform(&seed);
        c[i] = -1e30f;
    }
    unsigned long long da = 0, db = 0, dc = 0;
    CHECK_OK(rt, cutec_malloc(rt, bytes, &da));
    CHECK_OK(rt, cutec_malloc(rt, bytes, &db));
    CHECK_OK(rt, cutec_malloc(rt, bytes, &dc));
    CHECK_OK(rt, cutec_memcpy_htod(rt, da, a, bytes));
    CHECK_OK(rt, cutec_memcpy_htod(rt, db, b, bytes));
    CHECK_OK(rt, cutec_memcpy_htod(rt, dc, c, bytes)); /* poison */
    void *args[] = {&da, &db, &dc, &n};
    const unsigned block[3] = {128, 1, 1};
    const unsigned grid[3] = {((unsigned)n + block[0] - 1) / block[0], 1, 1};
    CHECK_OK(rt, cutec_launch(k, grid, block, 0, NULL, args));
    CHECK_OK(rt, cutec_synchronize(rt));
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, c, dc, bytes));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i]) {
            if (bad++ < 5)
                fprintf(stderr, "n=%d: c[%d] = %g, expected %g\n", n, i, (double)c[i], (double)(a[i] + b[i]));
        }
    }
    CHECK(bad == 0);
    CHECK_OK(rt, cutec_free(rt, da));
    CHECK_OK(rt, cutec_free(rt, db));
    CHECK_OK(rt, cutec_free(rt, dc));
    free(a);
    free(b);
    free(c);
    printf("vector_add n=%d: ok\n", n);
}

static int test_vector_add(void)
{
    cutec_runtime *rt = open_runtime();
    cutec_module *m = load(rt, fixture("vector_add.ptx"));
    cutec_kernel *k = NULL, *k2 = NULL;
    CHECK_OK(rt, cutec_module_get_kernel(m, "vector_add", &k));
    CHECK_OK(rt, cutec_module_get_kernel(m, "vector_add", &k2));
    CHECK(k == k2);
    int regs = -1, smem = -1, max_threads = -1;
    CHECK_OK(rt, cutec_kernel_info(k, &regs, &smem, &max_threads));
    printf("vector_add: %d registers, %d bytes static smem, max %d threads\n", regs, smem, max_threads);
    CHECK(regs > 0 && smem == 0 && max_threads >= 128);
    /* Occupancy: 128-thread blocks fill every SM several times over (the
   * mock: 16 per SM on 132 SMs); whole SMs' worth, never zero. */
    long long resident = 0;
    int sms = 0;
    CHECK_OK(rt, cutec_occupancy_blocks(k, (const unsigned[3]){128, 1, 1}, NULL, 0, &resident));
    CHECK_OK(rt, cutec_device_info(rt, NULL, 0, NULL, NULL, &sms));
    printf("vector_add: %lld blocks of 128 threads resident on %d SMs\n", resident, sms);
    CHECK(sms > 0 && resident >= 2LL * sms && resident % sms == 0);
    CHECK(cutec_occupancy_blocks(k, NULL, NULL, 0, &resident) == CUTEC_ERR_INVALID_ARGUMENT);
    /* Ragged sizes: not multiples of the 128-thread block. */
    run_vector_add(rt, k, 1);
    run_vector_add(rt, k, 1000);
    run_vector_add(rt, k, 1000003);
    cutec_module_unload(m);
    cutec_runtime_destroy(rt);
    return 0;
}

/* The same kernel from an in-memory image without a NUL terminator, and a
 * module left loaded for destroy to clean up. */
static int test_load_data(void)
{
    cutec_runtime *rt = open_runtime();
    FILE *f = fopen(fixture("vector_add.ptx"), "rb");
    CHECK(f != NULL);
    char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK(n > 0 && n < sizeof buf);
    char *exact = malloc(n); /* no room for a terminator: ASan would catch overreads */
    CHECK(exact != NULL);
    memcpy(exact, buf, n);
    cutec_module *m = NULL;
    CHECK_OK(rt, cutec_module_load_data(rt, exact, n, &m));
    free(exact);
    cutec_kernel *k = NULL;
    CHECK_OK(rt, cutec_module_get_kernel(m, "vector_add", &k));
    run_vector_add(rt, k, 4097);
    cutec_runtime_destroy(rt); /* unloads m */
    return 0;
}

/* smem_reverse with 64 KiB of dynamic shared memory: over the 48 KiB default,
 * so the launch only works if the runtime opts the kernel in. */
static int test_large_smem(void)
{
    cutec_runtime *rt = open_runtime();
    cutec_module *m = load(rt, fixture("vector_add.ptx"));
    cutec_kernel *k = NULL;
    CHECK_OK(rt, cutec_module_get_kernel(m, "smem_reverse", &k));
    int n = 16384;
    size_t bytes = (size_t)n * sizeof(float);
    float *in = malloc(bytes), *out = malloc(bytes);
    CHECK(in != NULL && out != NULL);
    for (int i = 0; i < n; i++) in[i] = (float)i;
    unsigned long long din = 0, dout = 0;
    CHECK_OK(rt, cutec_malloc(rt, bytes, &din));
    CHECK_OK(rt, cutec_malloc(rt, bytes, &dout));
    CHECK_OK(rt, cutec_memcpy_htod(rt, din, in, bytes));
    void *args[] = {&din, &dout, &n};
    const unsigned grid[3] = {1, 1, 1}, block[3] = {256, 1, 1};
    for (int rep = 0; rep < 2; rep++) { /* the second launch reuses the attribute */
        memset(out, 0, bytes);
        CHECK_OK(rt, cutec_memcpy_htod(rt, dout, out, bytes));
        CHECK_OK(rt, cutec_launch(k, grid, block, (unsigned)bytes, NULL, args));
        CHECK_OK(rt, cutec_stream_synchronize(rt, NULL));
        CHECK_OK(rt, cutec_memcpy_dtoh(rt, out, dout, bytes));
        for (int i = 0; i < n; i++) CHECK(out[i] == (float)(n - 1 - i));
    }
    /* More than any GPU offers per block is a rejected launch. */
    CHECK_STATUS(rt, cutec_launch(k, grid, block, 16u << 20, NULL, args), CUTEC_ERR_LAUNCH);
    printf("launch with 16 MiB smem: %s\n", cutec_runtime_message(rt));
    CHECK_OK(rt, cutec_free(rt, din));
    CHECK_OK(rt, cutec_free(rt, dout));
    free(in);
    free(out);
    cutec_module_unload(m);
    cutec_runtime_destroy(rt);
    printf("smem_reverse with %zu bytes of dynamic smem: ok\n", bytes);
    return 0;
}

/* Corrupted PTX: MODULE_LOAD, with the JIT's error log in the message. */
static int test_bad_ptx(void)
{
    cutec_runtime *rt = open_runtime();
    const char *ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                      ".visible .entry broken()\n{\n\tthis_is_not_an_instruction %r1;\n\tret;\n}\n";
    cutec_module *m = NULL;
    CHECK_STATUS(rt, cutec_module_load_data(rt, ptx, strlen(ptx), &m), CUTEC_ERR_MODULE_LOAD);
    CHECK(m == NULL);
    const char *msg = cutec_runtime_message(rt);
    printf("message:\n%s\n", msg);
    const char *log = strstr(msg, "JIT error log:\n");
    CHECK(log != NULL);
    log += strlen("JIT error log:\n");
    CHECK(log[0] != '\0' && strcmp(log, "(empty)") != 0);
    /* A valid fixture truncated in the middle of a kernel is rejected too. */
    FILE *f = fopen(fixture("vector_add.ptx"), "rb");
    CHECK(f != NULL);
    char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK_STATUS(rt, cutec_module_load_data(rt, buf, n / 2, &m), CUTEC_ERR_MODULE_LOAD);
    /* A truncated ELF header is caught before the driver sees it. */
    const unsigned char elf[8] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
    CHECK_STATUS(rt, cutec_module_load_data(rt, elf, sizeof elf, &m), CUTEC_ERR_MODULE_LOAD);
    CHECK_CONTAINS(cutec_runtime_message(rt), "ELF");
    /* The runtime is still usable afterwards. */
    m = load(rt, fixture("vector_add.ptx"));
    cutec_module_unload(m);
    cutec_runtime_destroy(rt);
    return 0;
}

static int test_unknown_kernel(void)
{
    cutec_runtime *rt = open_runtime();
    cutec_module *m = load(rt, fixture("vector_add.ptx"));
    cutec_kernel *k = (cutec_kernel *)m;
    CHECK_STATUS(rt, cutec_module_get_kernel(m, "no_such_kernel", &k), CUTEC_ERR_KERNEL_NOT_FOUND);
    CHECK(k == NULL);
    CHECK_CONTAINS(cutec_runtime_message(rt), "no_such_kernel");
    cutec_module_unload(m);
    cutec_runtime_destroy(rt);
    return 0;
}

/* Launch configurations the driver rejects. */
static int test_bad_launch(void)
{
    cutec_runtime *rt = open_runtime();
    cutec_module *m = load(rt, fixture("vector_add.ptx"));
    cutec_kernel *k = NULL;
    CHECK_OK(rt, cutec_module_get_kernel(m, "vector_add", &k));
    unsigned long long d = 0;
    CHECK_OK(rt, cutec_malloc(rt, 4096 * sizeof(float), &d));
    int n = 4096;
    void *args[] = {&d, &d, &d, &n};
    const unsigned grid[3] = {2, 1, 1};
    const unsigned big_block[3] = {2048, 1, 1};
    CHECK_STATUS(rt, cutec_launch(k, grid, big_block, 0, NULL, args), CUTEC_ERR_LAUNCH);
    printf("block of 2048: %s\n", cutec_runtime_message(rt));
    CHECK_CONTAINS(cutec_runtime_message(rt), "2048");
    const unsigned zero_block[3] = {0, 1, 1};
    CHECK_STATUS(rt, cutec_launch(k, grid, zero_block, 0, NULL, args), CUTEC_ERR_INVALID_ARGUMENT);
    const unsigned huge_grid[3] = {1, 1u << 20, 1}; /* grid.y is limited to 65535 */
    const unsigned block[3] = {128, 1, 1};
    CHECK_STATUS(rt, cutec_launch(k, huge_grid, block, 0, NULL, args), CUTEC_ERR_LAUNCH);
    /* None of this harms the context. */
    CHECK_OK(rt, cutec_launch(k, grid, block, 0, NULL, args));
    CHECK_OK(rt, cutec_synchronize(rt));
    CHECK_OK(rt, cutec_free(rt, d));
    cutec_module_unload(m);
    cutec_runtime_destroy(rt);
    return 0;
}

/* A kernel that faults: the launch succeeds, synchronize reports the fault. */
static int run_fault(const char *kernel)
{
    cutec_runtime *rt = open_runtime();
    cutec_module *m = load(rt, fixture("fault.ptx"));
    cutec_kernel *k = NULL;
    CHECK_OK(rt, cutec_module_get_kernel(m, kernel, &k));
    const unsigned one[3] = {1, 1, 1};
    CHECK_OK(rt, cutec_launch(k, one, one, 0, NULL, NULL));
    CHECK_STATUS(rt, cutec_synchronize(rt), CUTEC_ERR_KERNEL_FAULT);
    printf("%s: %s\n", kernel, cutec_runtime_message(rt));
    CHECK_CONTAINS(cutec_runtime_message(rt), "cuCtxSynchronize");
    /* The error is sticky; later calls keep reporting it, none crashes. */
    unsigned long long d = 0;
    cutec_status s = cutec_malloc(rt, 64, &d);
    CHECK(s == CUTEC_ERR_KERNEL_FAULT || s == CUTEC_ERR_DRIVER);
    cutec_module_unload(m);
    cutec_runtime_destroy(rt);
    /* A fault is sticky for the whole process on the real driver (seen on an
   * H200 with driver 580: even after release and reset of the primary
   * context, retaining it again reports the fault).  A new runtime must
   * then fail cleanly with KERNEL_FAULT, or work if the driver recovered. */
    cutec_runtime *again = NULL;
    cutec_status cs = cutec_runtime_create(&again, 0);
    printf("after the fault, a new runtime: %s (%s)\n", cutec_status_string(cs), cutec_runtime_message(again));
    CHECK(cs == CUTEC_OK || cs == CUTEC_ERR_KERNEL_FAULT);
    if (cs == CUTEC_OK) {
        m = load(again, fixture("vector_add.ptx"));
        CHECK_OK(again, cutec_module_get_kernel(m, "vector_add", &k));
        run_vector_add(again, k, 333);
    }
    cutec_runtime_destroy(again);
    return 0;
}

static int test_fault_null_write(void) { return run_fault("write_null"); }
static int test_fault_trap(void) { return run_fault("trap_kernel"); }

static int test_out_of_memory(void)
{
    cutec_runtime *rt = open_runtime();
    unsigned long long d = 0;
    CHECK_STATUS(rt, cutec_malloc(rt, (size_t)1 << 50, &d), CUTEC_ERR_OUT_OF_MEMORY);
    CHECK(d == 0);
    CHECK_CONTAINS(cutec_runtime_message(rt), "CUDA_ERROR_OUT_OF_MEMORY");
    CHECK_OK(rt, cutec_malloc(rt, 1 << 20, &d));
    CHECK_OK(rt, cutec_free(rt, d));
    cutec_runtime_destroy(rt);
    return 0;
}

/* Two handles on the same device share the primary context; destroying one
 * leaves the other working. */
static int test_two_runtimes(void)
{
    cutec_runtime *a = open_runtime();
    cutec_runtime *b = open_runtime();
    cutec_module *m = load(b, fixture("vector_add.ptx"));
    cutec_kernel *k = NULL;
    CHECK_OK(b, cutec_module_get_kernel(m, "vector_add", &k));
    cutec_runtime_destroy(a);
    run_vector_add(b, k, 777);
    cutec_runtime_destroy(b);
    return 0;
}

static int test_cubin(const char *cubin)
{
    cutec_runtime *rt = open_runtime();
    int major = 0, minor = 0;
    CHECK_OK(rt, cutec_device_info(rt, NULL, 0, &major, &minor, NULL));
    if (cubin == NULL || major != 9 || minor != 0) {
        printf("skipping: the cubin is for sm_90, the device is sm_%d%d\n", major, minor);
        cutec_runtime_destroy(rt);
        return TEST_SKIP;
    }
    cutec_module *m = load(rt, cubin);
    cutec_kernel *k = NULL;
    CHECK_OK(rt, cutec_module_get_kernel(m, "vector_add", &k));
    run_vector_add(rt, k, 5000);
    cutec_module_unload(m);
    cutec_runtime_destroy(rt);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s CASE FIXTURE_DIR [CUBIN]\n", argv[0]);
        return 2;
    }
    snprintf(fixture_dir, sizeof fixture_dir, "%s", argv[2]);
    const char *c = argv[1];
    if (strcmp(c, "vector_add") == 0) return test_vector_add();
    if (strcmp(c, "load_data") == 0) return test_load_data();
    if (strcmp(c, "large_smem") == 0) return test_large_smem();
    if (strcmp(c, "bad_ptx") == 0) return test_bad_ptx();
    if (strcmp(c, "unknown_kernel") == 0) return test_unknown_kernel();
    if (strcmp(c, "bad_launch") == 0) return test_bad_launch();
    if (strcmp(c, "fault_null_write") == 0) return test_fault_null_write();
    if (strcmp(c, "fault_trap") == 0) return test_fault_trap();
    if (strcmp(c, "out_of_memory") == 0) return test_out_of_memory();
    if (strcmp(c, "two_runtimes") == 0) return test_two_runtimes();
    if (strcmp(c, "cubin") == 0) return test_cubin(argc > 3 ? argv[3] : NULL);
    fprintf(stderr, "unknown case '%s'\n", c);
    return 2;
}
