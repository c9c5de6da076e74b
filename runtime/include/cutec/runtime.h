/*
 * cutec/runtime.h - the C runtime that applications embed to load and launch
 * kernels compiled by cutec.  It wraps the CUDA driver API, which it loads at
 * run time with dlopen("libcuda.so.1") (or the path in the environment
 * variable CUTEC_CUDA_DRIVER), so an application linking this library starts
 * and reports a clean error on machines without a GPU.  Every function returns
 * a cutec_status; the detail of the last failure on a runtime handle is kept
 * in cutec_runtime_message() and is also passed to an optional log callback.
 * The library never prints.  A handle may be used from any thread, but not
 * from two threads at once (the message buffer is per handle).
 */
#ifndef CUTEC_RUNTIME_H
#define CUTEC_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUTEC_VERSION_MAJOR 0
#define CUTEC_VERSION_MINOR 1
#define CUTEC_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH, e.g. 100 for 0.1.0. */
#define CUTEC_VERSION_NUMBER (CUTEC_VERSION_MAJOR * 10000 + CUTEC_VERSION_MINOR * 100 + CUTEC_VERSION_PATCH)

/* Version of the library actually linked (compare with CUTEC_VERSION_NUMBER). */
int cutec_version_number(void);
/* "MAJOR.MINOR.PATCH" of the library actually linked. */
const char *cutec_version_string(void);

/* Status codes.  The numeric values are fixed and will not change. */
typedef enum cutec_status {
    CUTEC_OK = 0,
    CUTEC_ERR_INVALID_ARGUMENT = 1, /* NULL handle/pointer, bad sizes */
    CUTEC_ERR_NO_DRIVER = 2,        /* driver library not loadable, a required
                                     symbol missing, or it is the stub library */
    CUTEC_ERR_NO_DEVICE = 3,        /* driver loaded but no CUDA device (or the
                                     device index is out of range) */
    CUTEC_ERR_DRIVER = 4,           /* any other driver failure; the message
                                     names the CUresult */
    CUTEC_ERR_OUT_OF_MEMORY = 5,    /* device or host allocation failed */
    CUTEC_ERR_IO = 6,               /* file could not be read */
    CUTEC_ERR_MODULE_LOAD = 7,      /* PTX/cubin rejected; the message includes
                                     the JIT error log */
    CUTEC_ERR_KERNEL_NOT_FOUND = 8, /* no kernel of that name in the module */
    CUTEC_ERR_LAUNCH = 9,           /* launch rejected (bad grid/block/smem) */
    CUTEC_ERR_KERNEL_FAULT = 10,    /* failure while a kernel ran (illegal
                                     address, trap, ...), usually reported at
                                     synchronize.  The context is then unusable:
                                     destroy the runtime. */
    /* Kernel packs (cutec/pack.h). */
    CUTEC_ERR_PACK_FORMAT = 11,        /* not a kernel pack (wrong magic) */
    CUTEC_ERR_PACK_VERSION = 12,       /* a pack of another container format version */
    CUTEC_ERR_PACK_CUTEC_VERSION = 13, /* built by another cutec major.minor */
    CUTEC_ERR_PACK_ARCH = 14,          /* built for an architecture the device cannot run */
    CUTEC_ERR_PACK_TRUNCATED = 15,     /* shorter than its header declares */
    CUTEC_ERR_PACK_CORRUPT = 16,       /* checksum mismatch, bad table or manifest */
    /* GEMM (cutec/gemm.h). */
    CUTEC_ERR_NULL_POINTER = 17,    /* a matrix pointer is NULL */
    CUTEC_ERR_MISALIGNED = 18,      /* a matrix pointer is not aligned to its element */
    CUTEC_ERR_BAD_SIZE = 19,        /* M, N or K zero, negative or too large */
    CUTEC_ERR_BAD_LEADING_DIM = 20, /* a leading dimension smaller than the matrix needs */
    CUTEC_ERR_UNSUPPORTED = 21,     /* no candidate supports this combination of
                                     types, layouts, alpha/beta and epilogue */
    CUTEC_ERR_NO_CUBLAS = 22,       /* cuBLASLt could not be loaded (where it is needed) */
    CUTEC_ERR_NO_CANDIDATE = 23,    /* every candidate failed while tuning */
    CUTEC_ERR_BAD_STRIDE = 24,      /* a batch stride is negative */
    CUTEC_ERR_OVERLAP = 25          /* the output's problems of a batch overlap in memory */
} cutec_status;

/* Stable short text for a status ("ok", "invalid argument", ...); never NULL,
 * "unknown status" for values outside the enum. */
const char *cutec_status_string(cutec_status s);
/* The enumerator's name ("CUTEC_ERR_IO"), for machine-readable output; never
 * NULL, "CUTEC_STATUS_UNKNOWN" for values outside the enum. */
const char *cutec_status_name(cutec_status s);

typedef struct cutec_runtime cutec_runtime; /* driver + device + context */
typedef struct cutec_module cutec_module;   /* one loaded PTX/cubin image */
typedef struct cutec_kernel cutec_kernel;   /* a kernel of a module; owned by it */

/* Log levels passed to the log callback. */
typedef enum cutec_log_level {
    CUTEC_LOG_ERROR = 1, /* a call failed; msg equals cutec_runtime_message() */
    CUTEC_LOG_WARNING = 2,
    CUTEC_LOG_INFO = 3, /* e.g. the PTX JIT info log of a module load */
    CUTEC_LOG_DEBUG = 4
} cutec_log_level;

typedef void (*cutec_log_fn)(void *user, int level, const char *msg);

/*
 * Loads the driver, initialises it and makes the primary context of CUDA
 * device `device` (0-based) available to this handle.  Always allocates *out
 * (unless host memory is exhausted, then *out is NULL and the result is
 * CUTEC_ERR_OUT_OF_MEMORY) so that cutec_runtime_message() explains a failure;
 * the caller destroys it in every case.  A handle whose creation failed
 * rejects every later call with the creation status, except that argument and
 * file errors are reported first.
 */
cutec_status cutec_runtime_create(cutec_runtime **out, int device);
/* Unloads the modules still loaded through this handle and releases the
 * primary context.  NULL is accepted. */
void cutec_runtime_destroy(cutec_runtime *rt);
/* Detail of the last failure on this handle; "" if none.  Never NULL (also
 * for rt == NULL, which gives a fixed text).  Valid until the next call on rt. */
const char *cutec_runtime_message(const cutec_runtime *rt);
/* Installs (fn != NULL) or removes (fn == NULL) the log callback. */
void cutec_runtime_set_log(cutec_runtime *rt, cutec_log_fn fn, void *user);

/* Device name (NUL-terminated, truncated to name_len), compute capability and
 * multiprocessor count.  Every output pointer may be NULL to skip it. */
cutec_status cutec_device_info(cutec_runtime *rt, char *name, size_t name_len, int *cc_major, int *cc_minor,
                               int *sm_count);
/* Driver version as cuDriverGetVersion reports it (e.g. 12040 for 12.4). */
cutec_status cutec_driver_version(cutec_runtime *rt, int *version);

/* Loads a .ptx or .cubin file; the format is detected from the content (ELF
 * magic means cubin, fatbin magic means fatbin, anything else is PTX text). */
cutec_status cutec_module_load_file(cutec_runtime *rt, const char *path, cutec_module **out);
/* Same for an image in memory.  PTX need not be NUL-terminated: the runtime
 * copies it when it is not.  The data may be freed after the call. */
cutec_status cutec_module_load_data(cutec_runtime *rt, const void *data, size_t size, cutec_module **out);
/* Unloads the module; its kernel handles become invalid.  NULL is accepted. */
void cutec_module_unload(cutec_module *m);
/* Looks up a kernel by its (unmangled, extern "C"/.entry) name.  The handle is
 * owned by the module; asking twice returns the same handle. */
cutec_status cutec_module_get_kernel(cutec_module *m, const char *name, cutec_kernel **out);
/* Registers used per thread, static shared memory in bytes and the largest
 * block the kernel can be launched with.  Output pointers may be NULL. */
cutec_status cutec_kernel_info(cutec_kernel *k, int *num_regs, int *static_smem_bytes, int *max_threads_per_block);

/*
 * Launches k with the given grid and block (x, y, z; every component >= 1) on
 * `stream` (a CUstream / cudaStream_t of the device's primary context; NULL is
 * the default stream).  args holds one pointer per kernel parameter, pointing
 * at the parameter's value (as for cuLaunchKernel); it may be NULL for a
 * kernel without parameters.  When dynamic_smem_bytes exceeds 48 KiB the
 * runtime first raises the kernel's MAX_DYNAMIC_SHARED_SIZE_BYTES attribute.
 * The launch is asynchronous: faults while the kernel runs are reported by a
 * later cutec_synchronize / cutec_stream_synchronize as CUTEC_ERR_KERNEL_FAULT.
 */
cutec_status cutec_launch(cutec_kernel *k, const unsigned grid[3], const unsigned block[3], unsigned dynamic_smem_bytes,
                          void *stream, void **args);
/* Waits for all work on the device (cuCtxSynchronize). */
cutec_status cutec_synchronize(cutec_runtime *rt);
/* Waits for the work on one stream (NULL: the default stream). */
cutec_status cutec_stream_synchronize(cutec_runtime *rt, void *stream);

/* Device memory.  bytes must be > 0 for cutec_malloc; cutec_free(rt, 0) is a
 * no-op; copies of 0 bytes are no-ops.  Copies are synchronous with respect to
 * the host (cuMemcpyHtoD / cuMemcpyDtoH). */
cutec_status cutec_malloc(cutec_runtime *rt, size_t bytes, unsigned long long *dptr);
cutec_status cutec_free(cutec_runtime *rt, unsigned long long dptr);
cutec_status cutec_memcpy_htod(cutec_runtime *rt, unsigned long long dst, const void *src, size_t bytes);
cutec_status cutec_memcpy_dtoh(cutec_runtime *rt, void *dst, unsigned long long src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* CUTEC_RUNTIME_H */
