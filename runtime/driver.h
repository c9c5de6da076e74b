/*
 * driver.h - the part of the CUDA driver ABI the runtime uses, declared here
 * instead of including cuda.h so that the runtime builds without the CUDA
 * toolkit and loads libcuda only at run time.  Every typedef, enum value and
 * symbol name below was checked against cuda.h of CUDA 13.0; the symbol names
 * are the versioned ones cuda.h maps the plain names to (cuMemAlloc ->
 * cuMemAlloc_v2, ...).  The ABI of these entry points is stable across driver
 * versions, which is what makes declaring them ourselves safe.
 */
#ifndef CUTEC_RUNTIME_DRIVER_H
#define CUTEC_RUNTIME_DRIVER_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef int CUjit_option;         /* enum CUjit_option_enum */
typedef int CUdevice_attribute;   /* enum CUdevice_attribute_enum */
typedef int CUfunction_attribute; /* enum CUfunction_attribute_enum */
typedef struct CUevent_st *CUevent;

/* CUresult values (cudaError_enum) the runtime treats specially. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_JIT_COMPILATION_DISABLED = 223,
    CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 225,
    CUDA_ERROR_CONTAINED = 226,
    CUDA_ERROR_INVALID_SOURCE = 300,
    CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302,
    CUDA_ERROR_SHARED_OBJECT_INIT_FAILED = 303,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING = 703,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CUDA_ERROR_TENSOR_MEMORY_LEAK = 721,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,
    CUDA_ERROR_UNKNOWN = 999
};

/* CUjit_option values. */
enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

/* CUdevice_attribute values. */
enum {
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
};

/* CUfunction_attribute values. */
enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};

/* The dynamic shared memory a kernel may use without opting in. */
#define CUTEC_DEFAULT_DYNAMIC_SMEM_LIMIT (48u * 1024u)

/* One function pointer per driver entry point used; X(field, symbol, args). */
#define CUTEC_DRIVER_FUNCTIONS(X)                                                                                      \
    X(init, "cuInit", (unsigned int flags))                                                                            \
    X(driver_get_version, "cuDriverGetVersion", (int *version))                                                        \
    X(get_error_name, "cuGetErrorName", (CUresult error, const char **str))                                            \
    X(get_error_string, "cuGetErrorString", (CUresult error, const char **str))                                        \
    X(device_get_count, "cuDeviceGetCount", (int *count))                                                              \
    X(device_get, "cuDeviceGet", (CUdevice * device, int ordinal))                                                     \
    X(device_get_name, "cuDeviceGetName", (char *name, int len, CUdevice dev))                                         \
    X(device_get_attribute, "cuDeviceGetAttribute", (int *pi, CUdevice_attribute attrib, CUdevice dev))                \
    X(primary_ctx_retain, "cuDevicePrimaryCtxRetain", (CUcontext * pctx, CUdevice dev))                                \
    X(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", (CUdevice dev))                                             \
    X(primary_ctx_reset, "cuDevicePrimaryCtxReset_v2", (CUdevice dev))                                                 \
    X(ctx_set_current, "cuCtxSetCurrent", (CUcontext ctx))                                                             \
    X(ctx_get_current, "cuCtxGetCurrent", (CUcontext * pctx))                                                          \
    X(ctx_synchronize, "cuCtxSynchronize", (void))                                                                     \
    X(stream_synchronize, "cuStreamSynchronize", (CUstream stream))                                                    \
    X(module_load_data_ex, "cuModuleLoadDataEx",                                                                       \
      (CUmodule * module, const void *image, unsigned int num_options, CUjit_option *options, void **option_values))   \
    X(module_unload, "cuModuleUnload", (CUmodule hmod))                                                                \
    X(module_get_function, "cuModuleGetFunction", (CUfunction * hfunc, CUmodule hmod, const char *name))               \
    X(func_get_attribute, "cuFuncGetAttribute", (int *pi, CUfunction_attribute attrib, CUfunction hfunc))              \
    X(func_set_attribute, "cuFuncSetAttribute", (CUfunction hfunc, CUfunction_attribute attrib, int value))            \
    X(launch_kernel, "cuLaunchKernel",                                                                                 \
      (CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, unsigned int block_x,              \
       unsigned int block_y, unsigned int block_z, unsigned int shared_mem_bytes, CUstream stream,                     \
       void **kernel_params, void **extra))                                                                            \
    X(mem_alloc, "cuMemAlloc_v2", (CUdeviceptr * dptr, size_t bytesize))                                               \
    X(mem_free, "cuMemFree_v2", (CUdeviceptr dptr))                                                                    \
    X(memcpy_htod, "cuMemcpyHtoD_v2", (CUdeviceptr dst, const void *src, size_t bytes))                                \
    X(memcpy_dtoh, "cuMemcpyDtoH_v2", (void *dst, CUdeviceptr src, size_t bytes))

/* CUDA_MEMCPY2D (cuda.h's CUDA_MEMCPY2D_v2), for the device-to-device
 * copies of staged operands (gemm_stage.c); memory types as cuda.h's
 * CUmemorytype. */
enum { CU_MEMORYTYPE_DEVICE = 2 };
typedef struct CUDA_MEMCPY2D {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

/* Entry points only the tuner and staged operands need (events, memset, 2-D copies): resolved when present,
 * so that a driver (or the test's mock) without them still loads; the tuner
 * reports CUTEC_ERR_NO_DRIVER naming the missing one.  X(field, symbol,
 * alternative symbol or NULL, args); cuda.h of CUDA 13 maps
 * cuEventElapsedTime to the _v2 name, older drivers only have the first. */
#define CUTEC_DRIVER_OPTIONAL_FUNCTIONS(X)                                                                             \
    X(event_create, "cuEventCreate", NULL, (CUevent * event, unsigned int flags))                                      \
    X(event_destroy, "cuEventDestroy_v2", NULL, (CUevent event))                                                       \
    X(event_record, "cuEventRecord", NULL, (CUevent event, CUstream stream))                                           \
    X(event_synchronize, "cuEventSynchronize", NULL, (CUevent event))                                                  \
    X(event_elapsed_time, "cuEventElapsedTime_v2", "cuEventElapsedTime", (float *ms, CUevent start, CUevent end))      \
    X(memset_d8_async, "cuMemsetD8Async", NULL, (CUdeviceptr dst, unsigned char value, size_t n, CUstream stream))     \
    X(memcpy_2d_async, "cuMemcpy2DAsync_v2", NULL, (const CUDA_MEMCPY2D *copy, CUstream stream))

#define CUTEC_DRIVER_FIELD(field, symbol, params)          CUresult(*field) params;
#define CUTEC_DRIVER_OPT_FIELD(field, symbol, alt, params) CUresult(*field) params;

/* The loaded driver: the dlopen handle and the resolved entry points. */
typedef struct cutec_rt_driver {
    void *lib;
    CUTEC_DRIVER_FUNCTIONS(CUTEC_DRIVER_FIELD)
    CUTEC_DRIVER_OPTIONAL_FUNCTIONS(CUTEC_DRIVER_OPT_FIELD)
    const char *missing_optional; /* first optional symbol not found, or NULL */
    /* cuLaunchKernelEx (CUDA 12; clusters) where the driver has it, else
     * NULL: resolved once here, not by dlsym in every cluster launch (a
     * cached GEMM call's host time); launch_cluster.c declares its type */
    void *launch_ex;
    void *tensor_map_encode; /* cuTensorMapEncodeTiled (CUDA 12; TMA), the same way (tensor_map.c) */
} cutec_rt_driver;

#undef CUTEC_DRIVER_OPT_FIELD

#undef CUTEC_DRIVER_FIELD

/* Name of the environment variable that overrides the driver library path. */
#define CUTEC_DRIVER_ENV "CUTEC_CUDA_DRIVER"
/* Library opened when the environment variable is unset or empty. */
#define CUTEC_DRIVER_DEFAULT_LIB "libcuda.so.1"

/*
 * Opens the driver library and resolves every entry point.  On failure the
 * table is left zeroed, a description (naming the library and, if relevant,
 * the missing symbol) is written to err, and 0 is returned.
 */
int cutec_rt_driver_load(cutec_rt_driver *drv, char *err, size_t err_len);
/* Closes the library; the table is zeroed.  Safe on a zeroed table. */
void cutec_rt_driver_unload(cutec_rt_driver *drv);
/* "CUDA_ERROR_..." for a CUresult: asks the driver first and falls back to a
 * built-in table (the stub library cannot name its own errors).  Never NULL. */
const char *cutec_rt_driver_error_name(const cutec_rt_driver *drv, CUresult r);
/* The driver's description of r, or "" when it has none.  Never NULL. */
const char *cutec_rt_driver_error_string(const cutec_rt_driver *drv, CUresult r);

#endif /* CUTEC_RUNTIME_DRIVER_H */
