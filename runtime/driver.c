/*
 * driver.c - opens the CUDA driver library with dlopen and fills the table of
 * entry points declared in driver.h.  The library path is "libcuda.so.1"
 * unless the environment variable CUTEC_CUDA_DRIVER names another one, which
 * lets tests exercise the no-driver and stub-driver paths on any machine.  It
 * also names CUresults without the driver's help, because the stub library
 * (and a driver that failed to initialise) cannot name its own errors.
 */
#include "driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dlsym returns void *; converting it to a function pointer is what POSIX
 * requires to work, but ISO C does not define it, so go through memcpy. */
static int resolve(void *lib, const char *symbol, void *slot, size_t slot_size)
{
    void *p = dlsym(lib, symbol);
    if (p == NULL) return 0;
    memcpy(slot, &p, slot_size);
    return 1;
}

/* The first of two names that resolves (alt may be NULL). */
static int resolve_either(void *lib, const char *symbol, const char *alt, void *slot, size_t slot_size)
{
    return resolve(lib, symbol, slot, slot_size) || (alt != NULL && resolve(lib, alt, slot, slot_size));
}

int cutec_rt_driver_load(cutec_rt_driver *drv, char *err, size_t err_len)
{
    memset(drv, 0, sizeof *drv);
    const char *path = getenv(CUTEC_DRIVER_ENV);
    int from_env = path != NULL && path[0] != '\0';
    if (!from_env) path = CUTEC_DRIVER_DEFAULT_LIB;

    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        snprintf(err, err_len, "could not load the CUDA driver library '%s'%s: %s", path,
                 from_env ? " (from " CUTEC_DRIVER_ENV ")" : "", why != NULL ? why : "unknown dlopen error");
        return 0;
    }

#define CUTEC_DRIVER_RESOLVE(field, symbol, params)                                                                    \
    if (!resolve(lib, symbol, &drv->field, sizeof drv->field)) {                                                       \
        snprintf(err, err_len,                                                                                         \
                 "the CUDA driver library '%s' lacks the symbol %s "                                                   \
                 "(not a CUDA driver, or one too old)",                                                                \
                 path, symbol);                                                                                        \
        dlclose(lib);                                                                                                  \
        memset(drv, 0, sizeof *drv);                                                                                   \
        return 0;                                                                                                      \
    }
    CUTEC_DRIVER_FUNCTIONS(CUTEC_DRIVER_RESOLVE)
#undef CUTEC_DRIVER_RESOLVE

#define CUTEC_DRIVER_RESOLVE_OPTIONAL(field, symbol, alt, params)                                                      \
    if (!resolve_either(lib, symbol, alt, &drv->field, sizeof drv->field) && drv->missing_optional == NULL)            \
        drv->missing_optional = symbol;
    CUTEC_DRIVER_OPTIONAL_FUNCTIONS(CUTEC_DRIVER_RESOLVE_OPTIONAL)
#undef CUTEC_DRIVER_RESOLVE_OPTIONAL

    /* optional, and named where a launch needs them */
    drv->launch_ex = dlsym(lib, "cuLaunchKernelEx");
    drv->tensor_map_encode = dlsym(lib, "cuTensorMapEncodeTiled");
    drv->lib = lib;
    return 1;
}

void cutec_rt_driver_unload(cutec_rt_driver *drv)
{
    if (drv->lib != NULL) dlclose(drv->lib);
    memset(drv, 0, sizeof *drv);
}

/* Names for the codes most likely to reach a user, for when the driver cannot
 * name them itself.  Values from cuda.h (cudaError_enum). */
static const struct {
    CUresult code;
    const char *name;
} fallback_names[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {35, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC_LEGACY"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
    {225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"},
    {226, "CUDA_ERROR_CONTAINED"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND"},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {401, "CUDA_ERROR_ILLEGAL_STATE"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"},
    {710, "CUDA_ERROR_ASSERT"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
    {721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"},
    {913, "CUDA_ERROR_FUNCTION_NOT_LOADED"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

const char *cutec_rt_driver_error_name(const cutec_rt_driver *drv, CUresult r)
{
    const char *s = NULL;
    if (drv != NULL && drv->get_error_name != NULL && drv->get_error_name(r, &s) == CUDA_SUCCESS && s != NULL) return s;
    for (size_t i = 0; i < sizeof fallback_names / sizeof fallback_names[0]; i++)
        if (fallback_names[i].code == r) return fallback_names[i].name;
    return "CUDA_ERROR_(unlisted)";
}

const char *cutec_rt_driver_error_string(const cutec_rt_driver *drv, CUresult r)
{
    const char *s = NULL;
    if (drv != NULL && drv->get_error_string != NULL && drv->get_error_string(r, &s) == CUDA_SUCCESS && s != NULL)
        return s;
    return "";
}
