/*
 * errors.c - status texts, the version query, the mapping from CUresult to
 * cutec_status, and the helpers that record a failure on a handle.  The
 * mapping depends on what the failing call was doing: INVALID_VALUE from
 * cuLaunchKernel is a rejected launch configuration, from cuModuleLoadDataEx
 * a rejected image; faults of a running kernel (700-series) are sticky and can
 * surface from any later call, so they map to KERNEL_FAULT everywhere.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

int cutec_version_number(void) { return CUTEC_VERSION_NUMBER; }

#define CUTEC_STR2(x) #x
#define CUTEC_STR(x)  CUTEC_STR2(x)
const char *cutec_version_string(void)
{
    return CUTEC_STR(CUTEC_VERSION_MAJOR) "." CUTEC_STR(CUTEC_VERSION_MINOR) "." CUTEC_STR(CUTEC_VERSION_PATCH);
}

/* Every status with its text: one list, so that the name and the text of a
 * status cannot drift apart; a switch over it lets -Wswitch flag a status
 * added to the enum but not here. */
#define CUTEC_STATUS_LIST(X)                                                                                           \
    X(CUTEC_OK, "ok")                                                                                                  \
    X(CUTEC_ERR_INVALID_ARGUMENT, "invalid argument")                                                                  \
    X(CUTEC_ERR_NO_DRIVER, "CUDA driver not available")                                                                \
    X(CUTEC_ERR_NO_DEVICE, "no CUDA device")                                                                           \
    X(CUTEC_ERR_DRIVER, "CUDA driver error")                                                                           \
    X(CUTEC_ERR_OUT_OF_MEMORY, "out of memory")                                                                        \
    X(CUTEC_ERR_IO, "I/O error")                                                                                       \
    X(CUTEC_ERR_MODULE_LOAD, "module load failed")                                                                     \
    X(CUTEC_ERR_KERNEL_NOT_FOUND, "kernel not found")                                                                  \
    X(CUTEC_ERR_LAUNCH, "launch failed")                                                                               \
    X(CUTEC_ERR_KERNEL_FAULT, "kernel fault")                                                                          \
    X(CUTEC_ERR_PACK_FORMAT, "not a kernel pack")                                                                      \
    X(CUTEC_ERR_PACK_VERSION, "unsupported pack format version")                                                       \
    X(CUTEC_ERR_PACK_CUTEC_VERSION, "pack built by another cutec version")                                             \
    X(CUTEC_ERR_PACK_ARCH, "pack built for another architecture")                                                      \
    X(CUTEC_ERR_PACK_TRUNCATED, "truncated pack")                                                                      \
    X(CUTEC_ERR_PACK_CORRUPT, "corrupt pack")                                                                          \
    X(CUTEC_ERR_NULL_POINTER, "null pointer")                                                                          \
    X(CUTEC_ERR_MISALIGNED, "misaligned pointer")                                                                      \
    X(CUTEC_ERR_BAD_SIZE, "invalid matrix size")                                                                       \
    X(CUTEC_ERR_BAD_LEADING_DIM, "leading dimension too small")                                                        \
    X(CUTEC_ERR_UNSUPPORTED, "unsupported problem")                                                                    \
    X(CUTEC_ERR_NO_CUBLAS, "cuBLASLt not available")                                                                   \
    X(CUTEC_ERR_NO_CANDIDATE, "no working candidate")                                                                  \
    X(CUTEC_ERR_BAD_STRIDE, "invalid batch stride")                                                                    \
    X(CUTEC_ERR_OVERLAP, "overlapping outputs")

const char *cutec_status_string(cutec_status s)
{
    switch (s) {
#define CUTEC_STATUS_TEXT(name, text)                                                                                  \
    case name: return text;
        CUTEC_STATUS_LIST(CUTEC_STATUS_TEXT)
#undef CUTEC_STATUS_TEXT
    }
    return "unknown status";
}

const char *cutec_status_name(cutec_status s)
{
    switch (s) {
#define CUTEC_STATUS_NAME(name, text)                                                                                  \
    case name: return #name;
        CUTEC_STATUS_LIST(CUTEC_STATUS_NAME)
#undef CUTEC_STATUS_NAME
    }
    return "CUTEC_STATUS_UNKNOWN";
}

static int is_kernel_fault(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_CONTAINED: return 1;
    default: return 0;
    }
}

cutec_status cutec_rt_status_from_curesult(CUresult r, cutec_rt_phase phase)
{
    if (r == CUDA_SUCCESS) return CUTEC_OK;
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return CUTEC_ERR_OUT_OF_MEMORY;
    /* The stub shipped with the toolkit answers every call with this: there is
   * no real driver behind it, which is what NO_DRIVER means to a caller. */
    if (r == CUDA_ERROR_STUB_LIBRARY) return CUTEC_ERR_NO_DRIVER;
    if (is_kernel_fault(r)) return CUTEC_ERR_KERNEL_FAULT;
    switch (phase) {
    case CUTEC_RT_PHASE_INIT:
        if (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_INVALID_DEVICE) return CUTEC_ERR_NO_DEVICE;
        break;
    case CUTEC_RT_PHASE_MODULE_LOAD:
        switch (r) {
        case CUDA_ERROR_INVALID_VALUE:
        case CUDA_ERROR_INVALID_IMAGE:
        case CUDA_ERROR_NO_BINARY_FOR_GPU:
        case CUDA_ERROR_INVALID_PTX:
        case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        case CUDA_ERROR_JIT_COMPILATION_DISABLED:
        case CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC:
        case CUDA_ERROR_INVALID_SOURCE:
        case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
        case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: return CUTEC_ERR_MODULE_LOAD;
        default: break;
        }
        break;
    case CUTEC_RT_PHASE_GET_KERNEL:
        if (r == CUDA_ERROR_NOT_FOUND) return CUTEC_ERR_KERNEL_NOT_FOUND;
        break;
    case CUTEC_RT_PHASE_LAUNCH:
        switch (r) {
        case CUDA_ERROR_INVALID_VALUE:
        case CUDA_ERROR_INVALID_HANDLE: /* e.g. a stream of another context */
        case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        case CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING:
        case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
        case CUDA_ERROR_INVALID_CLUSTER_SIZE:
        case CUDA_ERROR_NO_BINARY_FOR_GPU: /* lazy loading reports it here */ return CUTEC_ERR_LAUNCH;
        default: break;
        }
        break;
    case CUTEC_RT_PHASE_GENERIC: break;
    }
    return CUTEC_ERR_DRIVER;
}

static void deliver(cutec_runtime *rt, cutec_log_level level, const char *msg)
{
    if (rt->log_fn == NULL) return;
    rt->log_fn(rt->log_user, (int)level, msg);
    /* The callback may have made another context current (CUDA on another
     * device); the call it interrupted made this one current once, at its
     * start, and launches in it without asking again. */
    if (rt->ctx_retained) (void)rt->drv.ctx_set_current(rt->ctx);
}

cutec_status cutec_rt_fail(cutec_runtime *rt, cutec_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->message, sizeof rt->message, fmt, ap);
    va_end(ap);
    deliver(rt, CUTEC_LOG_ERROR, rt->message);
    return s;
}

cutec_status cutec_rt_fail_driver(cutec_runtime *rt, CUresult r, cutec_rt_phase phase, const char *what, ...)
{
    char call[512];
    va_list ap;
    va_start(ap, what);
    vsnprintf(call, sizeof call, what, ap);
    va_end(ap);
    const char *desc = cutec_rt_driver_error_string(&rt->drv, r);
    cutec_status s = cutec_rt_status_from_curesult(r, phase);
    const char *hint = "";
    if (r == CUDA_ERROR_STUB_LIBRARY)
        hint = "; the loaded library is the toolkit's stub, not a real driver";
    else if (s == CUTEC_ERR_KERNEL_FAULT) {
        hint = "; the context is now unusable, destroy the runtime";
        rt->faulted = 1;
    }
    return cutec_rt_fail(rt, s, "%s failed: %s (%d)%s%s%s", call, cutec_rt_driver_error_name(&rt->drv, r), r,
                         desc[0] != '\0' ? ": " : "", desc, hint);
}

void cutec_rt_log(cutec_runtime *rt, cutec_log_level level, const char *fmt, ...)
{
    if (rt->log_fn == NULL) return;
    char buf[CUTEC_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    deliver(rt, level, buf);
}
