/*
 * test_runtime_cpu.c - runtime tests that need no GPU: status texts, argument
 * checking, and the failure paths of runtime creation (no driver library, a
 * library that is not the driver, the toolkit's stub driver, and whatever the
 * default libcuda.so.1 gives on this machine).  Usage:
 *   test_runtime_cpu CASE [ARG]
 * where CASE is one of the functions in the table at the bottom.  Cases that
 * need a particular driver library set CUTEC_CUDA_DRIVER themselves, so they
 * behave the same under CTest and when run by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int test_status_strings(const char *arg)
{
    (void)arg;
    const char *seen[CUTEC_ERR_OVERLAP + 1];
    for (int i = 0; i <= CUTEC_ERR_OVERLAP; i++) {
        const char *s = cutec_status_string((cutec_status)i);
        CHECK(s != NULL && s[0] != '\0');
        CHECK(strcmp(s, "unknown status") != 0);
        CHECK(strncmp(cutec_status_name((cutec_status)i), "CUTEC_", 6) == 0);
        CHECK(strcmp(cutec_status_name((cutec_status)i), "CUTEC_STATUS_UNKNOWN") != 0);
        for (int j = 0; j < i; j++) CHECK(strcmp(seen[j], s) != 0);
        seen[i] = s;
    }
    CHECK(strcmp(cutec_status_string(CUTEC_OK), "ok") == 0);
    CHECK(strcmp(cutec_status_string((cutec_status)(CUTEC_ERR_OVERLAP + 1)), "unknown status") == 0);
    CHECK(strcmp(cutec_status_string((cutec_status)-1), "unknown status") == 0);
    CHECK(strcmp(cutec_status_name(CUTEC_OK), "CUTEC_OK") == 0);
    CHECK(strcmp(cutec_status_name(CUTEC_ERR_IO), "CUTEC_ERR_IO") == 0);
    CHECK(strcmp(cutec_status_name(CUTEC_ERR_NO_CANDIDATE), "CUTEC_ERR_NO_CANDIDATE") == 0);
    CHECK(strcmp(cutec_status_name((cutec_status)(CUTEC_ERR_OVERLAP + 1)), "CUTEC_STATUS_UNKNOWN") == 0);
    /* Fixed numeric values are part of the ABI. */
    CHECK(CUTEC_ERR_INVALID_ARGUMENT == 1 && CUTEC_ERR_NO_DRIVER == 2 && CUTEC_ERR_NO_DEVICE == 3 &&
          CUTEC_ERR_DRIVER == 4 && CUTEC_ERR_OUT_OF_MEMORY == 5 && CUTEC_ERR_IO == 6 && CUTEC_ERR_MODULE_LOAD == 7 &&
          CUTEC_ERR_KERNEL_NOT_FOUND == 8 && CUTEC_ERR_LAUNCH == 9 && CUTEC_ERR_KERNEL_FAULT == 10 &&
          CUTEC_ERR_PACK_FORMAT == 11 && CUTEC_ERR_PACK_VERSION == 12 && CUTEC_ERR_PACK_CUTEC_VERSION == 13 &&
          CUTEC_ERR_PACK_ARCH == 14 && CUTEC_ERR_PACK_TRUNCATED == 15 && CUTEC_ERR_PACK_CORRUPT == 16 &&
          CUTEC_ERR_NULL_POINTER == 17 && CUTEC_ERR_MISALIGNED == 18 && CUTEC_ERR_BAD_SIZE == 19 &&
          CUTEC_ERR_BAD_LEADING_DIM == 20 && CUTEC_ERR_UNSUPPORTED == 21 && CUTEC_ERR_NO_CUBLAS == 22 &&
          CUTEC_ERR_NO_CANDIDATE == 23 && CUTEC_ERR_BAD_STRIDE == 24 && CUTEC_ERR_OVERLAP == 25);
    CHECK(cutec_version_number() == CUTEC_VERSION_NUMBER);
    CHECK(CUTEC_VERSION_NUMBER == 100);
    CHECK(strcmp(cutec_version_string(), "0.1.0") == 0);
    return 0;
}

/* A handle whose creation failed (no driver), for argument checks that come
 * before the runtime's state is consulted. */
static cutec_runtime *failed_runtime(void)
{
    CHECK(setenv("CUTEC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1) == 0);
    cutec_runtime *rt = NULL;
    CHECK_STATUS(rt, cutec_runtime_create(&rt, 0), CUTEC_ERR_NO_DRIVER);
    CHECK(rt != NULL);
    return rt;
}

static int test_null_args(const char *arg)
{
    (void)arg;
    unsigned long long d = 0;
    char buf[16];
    int v = 0;
    const unsigned dims[3] = {1, 1, 1};
    cutec_module *m = (cutec_module *)&v; /* must be overwritten with NULL */
    cutec_kernel *k = (cutec_kernel *)&v;

    /* NULL handles. */
    CHECK_STATUS(NULL, cutec_runtime_create(NULL, 0), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_device_info(NULL, buf, sizeof buf, &v, &v, &v), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_driver_version(NULL, &v), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_module_load_file(NULL, "x.ptx", &m), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK(m == NULL);
    m = (cutec_module *)&v;
    CHECK_STATUS(NULL, cutec_module_load_data(NULL, "x", 1, &m), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK(m == NULL);
    CHECK_STATUS(NULL, cutec_module_get_kernel(NULL, "k", &k), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK(k == NULL);
    CHECK_STATUS(NULL, cutec_kernel_info(NULL, &v, &v, &v), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_launch(NULL, dims, dims, 0, NULL, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_synchronize(NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_stream_synchronize(NULL, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_malloc(NULL, 4, &d), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_free(NULL, 1), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_memcpy_htod(NULL, 1, buf, 4), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_memcpy_dtoh(NULL, buf, 1, 4), CUTEC_ERR_INVALID_ARGUMENT);
    cutec_runtime_destroy(NULL);
    cutec_module_unload(NULL);
    cutec_runtime_set_log(NULL, NULL, NULL);
    CHECK(cutec_runtime_message(NULL) != NULL);

    /* Negative device index: a handle is still returned, with a message. */
    cutec_runtime *rt = NULL;
    CHECK_STATUS(rt, cutec_runtime_create(&rt, -1), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK(rt != NULL);
    CHECK_CONTAINS(cutec_runtime_message(rt), "-1");
    CHECK_STATUS(rt, cutec_synchronize(rt), CUTEC_ERR_INVALID_ARGUMENT);
    cutec_runtime_destroy(rt);

    /* NULL pointers and bad sizes on a real handle are argument errors, whatever
   * the state of the runtime, and leave a message. */
    rt = failed_runtime();
    CHECK_STATUS(rt, cutec_module_load_file(rt, NULL, &m), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK(cutec_runtime_message(rt)[0] != '\0');
    CHECK_STATUS(rt, cutec_module_load_file(rt, "x.ptx", NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_module_load_data(rt, NULL, 4, &m), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_module_load_data(rt, "x", 0, &m), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_module_load_data(rt, "x", 1, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_malloc(rt, 0, &d), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_malloc(rt, 4, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_memcpy_htod(rt, 0, buf, 4), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_memcpy_htod(rt, 1, NULL, 4), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_memcpy_dtoh(rt, NULL, 1, 4), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_memcpy_dtoh(rt, buf, 0, 4), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_device_info(rt, NULL, 8, NULL, NULL, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_driver_version(rt, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    /* Documented no-ops. */
    CHECK_OK(rt, cutec_free(rt, 0));
    CHECK_OK(rt, cutec_memcpy_htod(rt, 0, NULL, 0));
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, NULL, 0, 0));
    cutec_runtime_destroy(rt);
    return 0;
}

typedef struct log_record {
    int calls;
    int level;
    char last[4096];
} log_record;

static void record_log(void *user, int level, const char *msg)
{
    log_record *r = user;
    r->calls++;
    r->level = level;
    snprintf(r->last, sizeof r->last, "%s", msg);
}

/* CUTEC_CUDA_DRIVER names a file that does not exist. */
static int test_no_driver(const char *fixture)
{
    const char *lib = "/nonexistent/libcuda.so.1";
    CHECK(setenv("CUTEC_CUDA_DRIVER", lib, 1) == 0);
    cutec_runtime *rt = NULL;
    CHECK_STATUS(rt, cutec_runtime_create(&rt, 0), CUTEC_ERR_NO_DRIVER);
    CHECK(rt != NULL);
    CHECK_CONTAINS(cutec_runtime_message(rt), lib);
    CHECK_CONTAINS(cutec_runtime_message(rt), "CUTEC_CUDA_DRIVER");

    log_record log = {0};
    cutec_runtime_set_log(rt, record_log, &log);

    /* Every later call repeats the creation failure (and logs it). */
    unsigned long long d = 0;
    char name[64];
    int v;
    CHECK_STATUS(rt, cutec_synchronize(rt), CUTEC_ERR_NO_DRIVER);
    CHECK(log.calls == 1 && log.level == CUTEC_LOG_ERROR);
    CHECK(strcmp(log.last, cutec_runtime_message(rt)) == 0);
    CHECK_CONTAINS(cutec_runtime_message(rt), lib);
    CHECK_STATUS(rt, cutec_malloc(rt, 16, &d), CUTEC_ERR_NO_DRIVER);
    CHECK(d == 0);
    CHECK_STATUS(rt, cutec_device_info(rt, name, sizeof name, &v, &v, &v), CUTEC_ERR_NO_DRIVER);
    CHECK_STATUS(rt, cutec_driver_version(rt, &v), CUTEC_ERR_NO_DRIVER);
    CHECK_STATUS(rt, cutec_memcpy_htod(rt, 64, name, 4), CUTEC_ERR_NO_DRIVER);
    cutec_module *m = NULL;
    CHECK_STATUS(rt, cutec_module_load_data(rt, ".version 8.0", 12, &m), CUTEC_ERR_NO_DRIVER);
    CHECK(m == NULL);

    /* A missing file is reported as an I/O error even without a driver... */
    const char *missing = "/nonexistent/dir/kernel.ptx";
    CHECK_STATUS(rt, cutec_module_load_file(rt, missing, &m), CUTEC_ERR_IO);
    CHECK(m == NULL);
    CHECK_CONTAINS(cutec_runtime_message(rt), missing);
    /* ...and so is a directory, which opens but cannot be read. */
    CHECK_STATUS(rt, cutec_module_load_file(rt, "/", &m), CUTEC_ERR_IO);
    /* An existing file gets as far as the missing driver. */
    if (fixture != NULL) CHECK_STATUS(rt, cutec_module_load_file(rt, fixture, &m), CUTEC_ERR_NO_DRIVER);
    CHECK(m == NULL);

    cutec_runtime_set_log(rt, NULL, NULL);
    int before = log.calls;
    CHECK_STATUS(rt, cutec_synchronize(rt), CUTEC_ERR_NO_DRIVER);
    CHECK(log.calls == before);
    cutec_runtime_destroy(rt);
    return 0;
}

/* CUTEC_CUDA_DRIVER names a shared library that is not the driver. */
static int test_not_a_driver(const char *lib)
{
    CHECK(lib != NULL);
    CHECK(setenv("CUTEC_CUDA_DRIVER", lib, 1) == 0);
    cutec_runtime *rt = NULL;
    CHECK_STATUS(rt, cutec_runtime_create(&rt, 0), CUTEC_ERR_NO_DRIVER);
    CHECK_CONTAINS(cutec_runtime_message(rt), "lacks the symbol cuInit");
    CHECK_CONTAINS(cutec_runtime_message(rt), lib);
    cutec_runtime_destroy(rt);
    return 0;
}

/* CUTEC_CUDA_DRIVER names the toolkit's stub libcuda.so, whose every entry
 * point returns CUDA_ERROR_STUB_LIBRARY. */
static int test_stub_driver(const char *lib)
{
    CHECK(lib != NULL);
    CHECK(setenv("CUTEC_CUDA_DRIVER", lib, 1) == 0);
    cutec_runtime *rt = NULL;
    CHECK_STATUS(rt, cutec_runtime_create(&rt, 0), CUTEC_ERR_NO_DRIVER);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cuInit");
    CHECK_CONTAINS(cutec_runtime_message(rt), "CUDA_ERROR_STUB_LIBRARY");
    CHECK_CONTAINS(cutec_runtime_message(rt), "stub");
    CHECK_STATUS(rt, cutec_synchronize(rt), CUTEC_ERR_NO_DRIVER);
    cutec_runtime_destroy(rt);
    return 0;
}

/* The default libcuda.so.1.  This test must pass with and without a GPU:
 * without one the result is NO_DRIVER or NO_DEVICE with an explanation. */
static int test_default_driver(const char *arg)
{
    (void)arg;
    CHECK(unsetenv("CUTEC_CUDA_DRIVER") == 0);
    cutec_runtime *rt = NULL;
    cutec_status s = cutec_runtime_create(&rt, 0);
    CHECK(rt != NULL);
    printf("cutec_runtime_create(default driver): %s; message: %s\n", cutec_status_string(s),
           cutec_runtime_message(rt));
    if (s == CUTEC_OK) {
        char name[256];
        int major = 0, minor = 0, sms = 0, version = 0;
        CHECK_OK(rt, cutec_device_info(rt, name, sizeof name, &major, &minor, &sms));
        CHECK_OK(rt, cutec_driver_version(rt, &version));
        CHECK(name[0] != '\0' && major >= 1 && sms >= 1 && version > 0);
        /* An index past the last device is NO_DEVICE, with a handle. */
        cutec_runtime *rt2 = NULL;
        CHECK_STATUS(rt2, cutec_runtime_create(&rt2, 1 << 20), CUTEC_ERR_NO_DEVICE);
        CHECK(cutec_runtime_message(rt2)[0] != '\0');
        cutec_runtime_destroy(rt2);
    } else {
        CHECK(s == CUTEC_ERR_NO_DRIVER || s == CUTEC_ERR_NO_DEVICE);
        CHECK(cutec_runtime_message(rt)[0] != '\0');
        CHECK_STATUS(rt, cutec_synchronize(rt), s);
    }
    cutec_runtime_destroy(rt);
    return 0;
}

static const struct {
    const char *name;
    int (*fn)(const char *arg);
} cases[] = {
    {"status_strings", test_status_strings}, {"null_args", test_null_args},     {"no_driver", test_no_driver},
    {"not_a_driver", test_not_a_driver},     {"stub_driver", test_stub_driver}, {"default_driver", test_default_driver},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASE [ARG]\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) return cases[i].fn(argc > 2 ? argv[2] : NULL);
    fprintf(stderr, "unknown case '%s'\n", argv[1]);
    return 2;
}
