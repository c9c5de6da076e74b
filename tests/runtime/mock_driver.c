/*
 * mock_driver.c - a fake libcuda for machines without a GPU.  The runtime is
 * pointed at it through CUTEC_CUDA_DRIVER, which lets the GPU test cases run
 * on the CPU and exercise the runtime's code paths past cuInit (context
 * handling, JIT logs, launch checks, sticky faults) under ASan.  It is a model,
 * not an emulator: "device" memory is host memory, modules are PTX text that
 * is only checked for balanced braces and a known bad token, and the kernels
 * of the test fixtures (vector_add, smem_reverse, write_null, trap_kernel) and
 * of examples/run_examples.c (transpose, sgemm; sgemm skips the work above
 * 2^31 multiply-adds so that its timing runs end) are run by C code found by
 * name, over the whole problem whatever the grid.  Result codes and limits follow cuda.h and the
 * documented driver behaviour (1024 threads per block, 65535 for grid y/z,
 * 48 KiB of dynamic shared memory unless raised, sticky 700-series errors
 * that last until the primary context's last release).
 */
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mock_calls.h"
#include "mock_fp8.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;

#define EXPORT __attribute__((visibility("default")))

EXPORT CUresult cuInit(unsigned int flags);
EXPORT CUresult cuDriverGetVersion(int *version);
EXPORT CUresult cuGetErrorName(CUresult error, const char **str);
EXPORT CUresult cuGetErrorString(CUresult error, const char **str);
EXPORT CUresult cuDeviceGetCount(int *count);
EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal);
EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
EXPORT CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev);
EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev);
EXPORT CUresult cuCtxSetCurrent(CUcontext ctx);
EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx);
EXPORT CUresult cuCtxSynchronize(void);
EXPORT CUresult cuStreamSynchronize(CUstream stream);
EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int num_options, int *options,
                                   void **option_values);
EXPORT CUresult cuModuleUnload(CUmodule hmod);
EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
EXPORT CUresult cuFuncGetAttribute(int *pi, int attrib, CUfunction hfunc);
EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, int attrib, int value);
EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int block_size, size_t smem);
EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                               unsigned int by, unsigned int bz, unsigned int smem, CUstream stream, void **params,
                               void **extra);
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes);
EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr);
EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes);
EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
typedef struct CUevent_st *CUevent;
EXPORT CUresult cuEventCreate(CUevent *event, unsigned int flags);
EXPORT CUresult cuEventDestroy_v2(CUevent event);
EXPORT CUresult cuEventRecord(CUevent event, CUstream stream);
EXPORT CUresult cuEventSynchronize(CUevent event);
EXPORT CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end);
EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, CUstream stream);
/* cuda.h's CUDA_MEMCPY2D_v2 (the fields the runtime sets) */
typedef struct mock_memcpy2d {
    size_t src_x, src_y;
    int src_type;
    const void *src_host;
    CUdeviceptr src;
    void *src_array;
    size_t src_pitch, dst_x, dst_y;
    int dst_type;
    void *dst_host;
    CUdeviceptr dst;
    void *dst_array;
    size_t dst_pitch, width, height;
} mock_memcpy2d;
EXPORT CUresult cuMemcpy2DAsync_v2(const mock_memcpy2d *c, CUstream stream);
EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest);
EXPORT CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority);
EXPORT CUresult cuStreamDestroy_v2(CUstream stream);
EXPORT CUresult cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *addr, const uint64_t *dims,
                                       const uint64_t *strides, const uint32_t *box, const uint32_t *elem_strides,
                                       int interleave, int swizzle, int l2promo, int oobfill);
/* Not a driver function: the launches and event records so far, for tests
 * that a mode runs nothing (dlsym'ed by the test). */
EXPORT void cutec_mock_counts(long long *launches, long long *events);
/* Not a driver function: on = 0 makes a launch check its arguments and
 * return without running the kernel, so that a cached call's host path
 * can be timed without the host GEMM the mock runs for it
 * (python/bench/overhead_cpu.py, dlsym'ed after tuning); 1 again runs them. */
EXPORT void cutec_mock_set_compute(int on);
/* Not a driver function: lets the mock cuBLASLt (mock_cublaslt.c) advance
 * the virtual clock that events read. */
EXPORT void cutec_mock_advance_clock(double us);
/* Not driver functions: the calls of entry point `name` since the last
 * reset (NULL: of all of them), the reset, and the counts as text
 * ("cuCtxSetCurrent 1, cuLaunchKernel 1") for a failing test's message;
 * for tests that pin the driver calls a cached GEMM makes (test_calls.c). */
EXPORT long long cutec_mock_calls(const char *name);
EXPORT void cutec_mock_calls_reset(void);
EXPORT void cutec_mock_calls_text(char *buf, size_t len);

enum {
    OK = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    NOT_INITIALIZED = 3,
    INVALID_DEVICE = 101,
    INVALID_CONTEXT = 201,
    INVALID_PTX = 218,
    INVALID_HANDLE = 400,
    NOT_FOUND = 500,
    ILLEGAL_ADDRESS = 700,
    LAUNCH_FAILED = 719
};

/* The runtime's background tuner calls the driver from a second thread, as
 * the real driver allows: one lock over all of the mock's state, taken by
 * every entry point (recursive: an entry point may call another). */
static pthread_mutex_t mock_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static void mock_unlock(int *held)
{
    (void)held;
    pthread_mutex_unlock(&mock_mu);
}
#define MOCK_LOCK() __attribute__((cleanup(mock_unlock), unused)) int mock_held_ = (pthread_mutex_lock(&mock_mu), 1)
static long long launch_count, events_recorded;

/* Calls per entry point since the last cutec_mock_calls_reset (mock_calls.h). */
static mock_calls calls = MOCK_CALLS_INIT;
/* Every driver entry point starts with this: the lock, and its count. */
#define MOCK_ENTRY()                                                                                                   \
    MOCK_LOCK();                                                                                                       \
    mock_calls_count(&calls, __func__)

static int initialised;
static int ctx_refs;
static CUresult sticky; /* a kernel fault poisons the context until reset */
static struct CUctx_st {
    int dummy;
} the_ctx;
static CUcontext current;

struct CUfunc_st {
    char name[64];
    int max_dyn_smem;
    const char *module_text;
};
struct CUmod_st {
    char *text;
    struct CUfunc_st funcs[8];
    int nfuncs;
};

CUresult cuInit(unsigned int flags)
{
    MOCK_ENTRY();
    if (flags != 0) return INVALID_VALUE;
    initialised = 1;
    return OK;
}

CUresult cuDriverGetVersion(int *version)
{
    MOCK_ENTRY();
    if (version == NULL) return INVALID_VALUE;
    *version = 13000;
    return OK;
}

static const struct {
    CUresult code;
    const char *name, *text;
} errors[] = {
    {OK, "CUDA_SUCCESS", "no error"},
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

static CUresult describe(CUresult error, const char **str, int want_text)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        if (errors[i].code == error) {
            *str = want_text ? errors[i].text : errors[i].name;
            return OK;
        }
    }
    *str = NULL;
    return INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult error, const char **str)
{
    MOCK_ENTRY();
    return describe(error, str, 0);
}
CUresult cuGetErrorString(CUresult error, const char **str)
{
    MOCK_ENTRY();
    return describe(error, str, 1);
}

CUresult cuDeviceGetCount(int *count)
{
    MOCK_ENTRY();
    if (!initialised) return NOT_INITIALIZED;
    *count = 1;
    return OK;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    MOCK_ENTRY();
    if (ordinal != 0) return INVALID_DEVICE;
    *device = 0;
    return OK;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    MOCK_ENTRY();
    (void)dev;
    if (name == NULL || len <= 0) return INVALID_VALUE;
    snprintf(name, (size_t)len, "cutec mock GPU");
    return OK;
}

CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev)
{
    MOCK_ENTRY();
    (void)dev;
    switch (attrib) {
    case 16: *pi = 132; return OK;        /* MULTIPROCESSOR_COUNT */
    case 38: *pi = 64 * 1024; return OK;  /* L2_CACHE_SIZE: small, the flush is a memset here */
    case 97: *pi = 227 * 1024; return OK; /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    case 75: *pi = 9; return OK;          /* COMPUTE_CAPABILITY_MAJOR */
    case 76: *pi = 0; return OK;          /* COMPUTE_CAPABILITY_MINOR */
    default: return INVALID_VALUE;
    }
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    MOCK_ENTRY();
    if (dev != 0) return INVALID_DEVICE;
    ctx_refs++;
    *pctx = &the_ctx;
    return OK;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    MOCK_ENTRY();
    if (dev != 0 || ctx_refs == 0) return INVALID_CONTEXT;
    /* Like the real driver (seen on an H200), releasing does not clear a
   * sticky fault; only a reset does. */
    --ctx_refs;
    return OK;
}

/* Live "device" allocations: a reset destroys the context and with it all
 * of its memory, as the real driver does (what a faulted tuning left
 * allocated is freed there, not leaked). */
static void **allocs;
static size_t nallocs, cap_allocs;

static int track(void *p)
{
    if (nallocs == cap_allocs) {
        size_t cap = cap_allocs ? 2 * cap_allocs : 64;
        void **a = realloc(allocs, cap * sizeof *a);
        if (a == NULL) return 0;
        allocs = a;
        cap_allocs = cap;
    }
    allocs[nallocs++] = p;
    return 1;
}

/* the list itself goes with its last entry: the runtime dlcloses this
 * library, and a list left behind would be a leak */
static void drop_list_if_empty(void)
{
    if (nallocs == 0) {
        free(allocs);
        allocs = NULL;
        cap_allocs = 0;
    }
}

static void untrack(void *p)
{
    for (size_t i = 0; i < nallocs; i++)
        if (allocs[i] == p) {
            allocs[i] = allocs[--nallocs];
            break;
        }
    drop_list_if_empty();
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    MOCK_ENTRY();
    if (dev != 0) return INVALID_DEVICE;
    sticky = OK;
    for (size_t i = 0; i < nallocs; i++) free(allocs[i]);
    nallocs = 0;
    drop_list_if_empty();
    return OK;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    MOCK_ENTRY();
    if (ctx != NULL && ctx != &the_ctx) return INVALID_CONTEXT;
    current = ctx;
    return OK;
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    MOCK_ENTRY();
    *pctx = current;
    return OK;
}

/* Every call that needs a context goes through this. */
static CUresult ready(void)
{
    if (current == NULL || ctx_refs == 0) return INVALID_CONTEXT;
    return sticky;
}

CUresult cuCtxSynchronize(void)
{
    MOCK_ENTRY();
    return ready();
}
CUresult cuStreamSynchronize(CUstream stream)
{
    MOCK_ENTRY();
    (void)stream;
    return ready();
}

static void jit_log(unsigned n, const int *opts, void **vals, const char *msg)
{
    for (unsigned i = 0; i < n; i++) {
        if (opts[i] != 5) /* CU_JIT_ERROR_LOG_BUFFER */
            continue;
        size_t size = 0;
        for (unsigned j = 0; j < n; j++)
            if (opts[j] == 6) /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */
                size = (size_t)(uintptr_t)vals[j];
        if (size > 0) snprintf(vals[i], size, "%s", msg);
    }
}

/* Host time spent where the environment variable name asks for it (a
 * number of microseconds times scale), in a busy wait: the mock's model
 * of a driver call that costs the host time. */
static void spend_host_time(const char *name, double scale)
{
    const char *e = getenv(name);
    double us = e != NULL ? atof(e) * scale : 0.0;
    if (us <= 0) return;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) * 1e6 + (double)(t.tv_nsec - t0.tv_nsec) * 1e-3 < us);
}

/* $CUTEC_MOCK_JIT_MS=T: every module load spends T milliseconds of host
 * time, as the driver's JIT of a GEMM point's PTX does (100-130 ms on an
 * H200 with nothing cached: the tuner bounds its loading) */
static void jit_cost(void) { spend_host_time("CUTEC_MOCK_JIT_MS", 1e3); }

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int n, int *opts, void **vals)
{
    jit_cost();
    MOCK_ENTRY();
    CUresult r = ready();
    if (r != OK) return r;
    if (module == NULL || image == NULL) return INVALID_VALUE;
    const char *text = image; /* strlen: ASan flags a missing terminator */
    size_t len = strlen(text);
    long depth = 0;
    for (size_t i = 0; i < len; i++) depth += text[i] == '{' ? 1 : text[i] == '}' ? -1 : 0;
    if (depth != 0 || strstr(text, ".version") == NULL) {
        jit_log(n, opts, vals, "ptxas fatal   : mock: unbalanced braces or no .version");
        return INVALID_PTX;
    }
    if (strstr(text, "this_is_not_an_instruction") != NULL) {
        jit_log(n, opts, vals,
                "ptxas application ptx input, line 6; error   : Unknown "
                "instruction 'this_is_not_an_instruction'");
        return INVALID_PTX;
    }
    struct CUmod_st *m = calloc(1, sizeof *m);
    if (m == NULL || (m->text = malloc(len + 1)) == NULL) {
        free(m);
        return OUT_OF_MEMORY;
    }
    memcpy(m->text, text, len + 1);
    *module = m;
    return OK;
}

CUresult cuModuleUnload(CUmodule m)
{
    MOCK_ENTRY();
    if (m == NULL) return INVALID_HANDLE;
    free(m->text);
    free(m);
    return OK;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule m, const char *name)
{
    MOCK_ENTRY();
    CUresult r = ready();
    if (r != OK) return r;
    char entry[80];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    if (strstr(m->text, entry) == NULL || m->nfuncs == 8 || strlen(name) >= 64) return NOT_FOUND;
    struct CUfunc_st *f = &m->funcs[m->nfuncs++];
    snprintf(f->name, sizeof f->name, "%s", name);
    f->max_dyn_smem = 48 * 1024;
    f->module_text = m->text;
    *hfunc = f;
    return OK;
}

CUresult cuFuncGetAttribute(int *pi, int attrib, CUfunction f)
{
    MOCK_ENTRY();
    CUresult r = ready();
    if (r != OK) return r;
    switch (attrib) {
    case 0: *pi = 1024; return OK;            /* MAX_THREADS_PER_BLOCK */
    case 1: *pi = 0; return OK;               /* SHARED_SIZE_BYTES */
    case 4: *pi = 16; return OK;              /* NUM_REGS */
    case 8: *pi = f->max_dyn_smem; return OK; /* MAX_DYNAMIC_SHARED_SIZE_BYTES */
    default: return INVALID_VALUE;
    }
}

CUresult cuFuncSetAttribute(CUfunction f, int attrib, int value)
{
    MOCK_ENTRY();
    CUresult r = ready();
    if (r != OK) return r;
    if (attrib != 8 || value < 0 || value > 227 * 1024) return INVALID_VALUE;
    f->max_dyn_smem = value;
    return OK;
}

/* ---- virtual time, events, memset ---- */

static double clock_us; /* advanced by every launch; events read it */
struct CUevent_st {
    double at;
};

/* $CUTEC_MOCK_DRIFT=F: each launch (kernel or cuBLASLt) takes 1 + F n
 * times its time, n the launches before it: a GPU that slows down as it
 * warms, for the test that the tuner compares candidates under the same
 * conditions (timed one after another, the later ones would lose). */
static double drift(void)
{
    static long launches;
    const char *e = getenv("CUTEC_MOCK_DRIFT");
    double f = e != NULL ? atof(e) : 0.0;
    return 1.0 + f * (double)launches++;
}

/* $CUTEC_MOCK_SLOW=F: every launch takes F times as long (a GPU on which
 * the test's small GEMMs take milliseconds: the tuner's time budget). */
static double slow(void)
{
    const char *e = getenv("CUTEC_MOCK_SLOW");
    return e != NULL ? atof(e) : 1.0;
}

/* Whether launches run their kernels (cutec_mock_set_compute); -1: not
 * yet read from $CUTEC_MOCK_COMPUTE ("0": they do not, so that
 * `cutec-tune overhead` over a decision tuned into its disk cache by an
 * earlier run times the host path, not the mock's GEMM). */
static int compute = -1;
static int computing(void)
{
    if (compute < 0) {
        const char *e = getenv("CUTEC_MOCK_COMPUTE");
        compute = e == NULL || strcmp(e, "0") != 0;
    }
    return compute;
}

void cutec_mock_set_compute(int on)
{
    MOCK_LOCK();
    compute = on != 0;
}

void cutec_mock_advance_clock(double us)
{
    MOCK_LOCK();
    clock_us += us * drift() * slow();
}

/* occupancy by threads only (2048 per SM, at most 32 blocks); the mock
 * has no registers or shared-memory model */
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int block_size, size_t smem)
{
    MOCK_ENTRY();
    (void)smem;
    if (n == NULL || f == NULL || block_size <= 0 || block_size > 1024) return INVALID_VALUE;
    *n = 2048 / block_size < 32 ? 2048 / block_size : 32;
    return ready();
}

CUresult cuEventCreate(CUevent *event, unsigned int flags)
{
    MOCK_ENTRY();
    (void)flags;
    CUresult r = ready();
    if (r != OK) return r;
    *event = calloc(1, sizeof **event);
    return *event != NULL ? OK : OUT_OF_MEMORY;
}

CUresult cuEventDestroy_v2(CUevent event)
{
    MOCK_ENTRY();
    free(event);
    return OK;
}

CUresult cuEventRecord(CUevent event, CUstream stream)
{
    MOCK_ENTRY();
    events_recorded++;
    (void)stream;
    CUresult r = ready();
    if (r != OK) return r;
    event->at = clock_us;
    return OK;
}

CUresult cuEventSynchronize(CUevent event)
{
    MOCK_ENTRY();
    (void)event;
    return ready();
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    MOCK_ENTRY();
    CUresult r = ready();
    if (r != OK) return r;
    *ms = (float)((end->at - start->at) / 1000.0);
    return OK;
}

/* Device-to-device pitched copies only (what the runtime's staged operands
 * use); a copy takes virtual time like a kernel of its bytes. */
CUresult cuMemcpy2DAsync_v2(const mock_memcpy2d *c, CUstream stream)
{
    mock_calls_count(&calls, __func__);
    (void)stream;
    {
        MOCK_LOCK();
        CUresult r = ready();
        if (r != OK) return r;
        if (c == NULL || c->src_type != 2 || c->dst_type != 2 || c->src == 0 || c->dst == 0 || c->src_x || c->src_y ||
            c->dst_x || c->dst_y || c->width > c->src_pitch || c->width > c->dst_pitch)
            return INVALID_VALUE;
        for (size_t y = 0; y < c->height; y++)
            memmove((void *)(uintptr_t)(c->dst + y * c->dst_pitch),
                    (const void *)(uintptr_t)(c->src + y * c->src_pitch), c->width);
    }
    cutec_mock_advance_clock(1.0 + 1e-3 * (double)(c->width * c->height));
    return OK;
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, CUstream stream)
{
    MOCK_ENTRY();
    (void)stream;
    CUresult r = ready();
    if (r != OK) return r;
    memset((void *)(uintptr_t)dst, value, n);
    return OK;
}

/* A tensor map is opaque to its users: the mock writes what it was given
 * into its bytes (struct mock_tensor_map, also in tests/runtime/test_batch.c),
 * so that tests can read back how the runtime built it. */
struct mock_tensor_map {
    uint32_t magic, rank;
    int32_t dtype, swizzle, l2promo, pad;
    uint64_t addr, dims[5], strides[4];
    uint32_t box[5];
};
_Static_assert(sizeof(struct mock_tensor_map) <= 128, "a CUtensorMap has 128 bytes");
CUresult cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *addr, const uint64_t *dims,
                                const uint64_t *strides, const uint32_t *box, const uint32_t *elem_strides,
                                int interleave, int swizzle, int l2promo, int oobfill)
{
    MOCK_ENTRY();
    (void)elem_strides, (void)interleave, (void)oobfill;
    if (map == NULL || rank < 1 || rank > 5 || (uintptr_t)addr % 16) return INVALID_VALUE;
    struct mock_tensor_map t = {.magic = 0x544d4150u,
                                .rank = rank,
                                .dtype = dtype,
                                .swizzle = swizzle,
                                .l2promo = l2promo,
                                .addr = (uint64_t)(uintptr_t)addr};
    for (unsigned i = 0; i < rank; i++) {
        t.dims[i] = dims[i], t.box[i] = box[i];
        if (i > 0) t.strides[i - 1] = strides[i - 1];
    }
    memcpy(map, &t, sizeof t);
    return OK;
}

/* "// cutec.param NAME VALUE" of the module a function came from. */
static const char *mock_param(const struct CUfunc_st *f, const char *name, char *buf, size_t len)
{
    char key[80];
    snprintf(key, sizeof key, "// cutec.param %s ", name);
    const char *p = strstr(f->module_text, key);
    if (p == NULL) return NULL;
    p += strlen(key);
    size_t n = strcspn(p, "\r\n");
    if (n >= len) n = len - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

/* The mock's own 16-bit conversions, not the contract's: it is a model of
 * the GPU, loaded and unloaded with dlopen/dlclose by every runtime, and
 * must carry no code (or fuzzer coverage counters) of the project's. */
static float mock_half(uint16_t h, int bf16)
{
    uint32_t u;
    if (bf16) {
        u = (uint32_t)h << 16;
    } else {
        uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
        if (e == 0) {
            float v = (float)m / 16777216.0f;
            return sign ? -v : v;
        }
        u = sign | ((e + 112u) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint16_t mock_to_half(float f, int bf16)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (bf16) {
        u += 0x7fffu + ((u >> 16) & 1u);
        return (uint16_t)(u >> 16);
    }
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    u &= 0x7fffffffu;
    if (u >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (u < 0x38800000u) {
        float a;
        memcpy(&a, &u, sizeof a);
        return (uint16_t)(sign | (uint16_t)(a * 16777216.0f + 0.5f));
    }
    uint32_t h = (u >> 13) - (112u << 10), rem = u & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}

/* CUTEC_MOCK_FAULT_IF="text;text;...": a GEMM kernel whose module (PTX
 * with its manifest) contains every text faults, for the tuner's
 * quarantine test. */
static int fault_requested(const struct CUfunc_st *f)
{
    const char *want = getenv("CUTEC_MOCK_FAULT_IF");
    if (want == NULL || *want == '\0' || f->module_text == NULL) return 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", want);
    for (char *save = NULL, *t = strtok_r(buf, ";", &save); t != NULL; t = strtok_r(NULL, ";", &save))
        if (strstr(f->module_text, t) == NULL) return 0;
    return 1;
}

/* The stdlib GEMM (stdlib/sm80/gemm.cute): C[M,N] = A[M,K] B[N,K]^T with T
 * and TC read from the module's metadata.  Virtual time favours big tiles.
 * $CUTEC_MOCK_WRONG="NAME VALUE" makes the kernels with that template value
 * compute a wrong result (for the tuner's +inf path). */
static void mock_gemm(const struct CUfunc_st *f, void **params, int b_row)
{
    int m = *(int *)params[0], n = *(int *)params[1], k = *(int *)params[2];
    const uint16_t *a = *(uint16_t **)params[3], *b = *(uint16_t **)params[4];
    void *c = *(void **)params[5];
    char t[16] = "bf16", tc[16] = "bf16", bm[16] = "128", bn[16] = "128";
    mock_param(f, "T", t, sizeof t);
    mock_param(f, "TC", tc, sizeof tc);
    mock_param(f, "BM", bm, sizeof bm);
    mock_param(f, "BN", bn, sizeof bn);
    int in_bf16 = strcmp(t, "bf16") == 0, out_bf16 = strcmp(tc, "bf16") == 0;
    int out_f32 = strcmp(tc, "f32") == 0;
    float wrong = 0.0f;
    const char *w = getenv("CUTEC_MOCK_WRONG");
    if (w != NULL && w[0] != '\0') {
        char key[96];
        snprintf(key, sizeof key, "// cutec.param %s\n", w);
        if (strstr(f->module_text, key) != NULL) wrong = 1.0f;
    }
    if ((double)m * n * k <= 64.0 * 1024 * 1024) {
        for (size_t i = 0; i < (size_t)m; i++)
            for (size_t j = 0; j < (size_t)n; j++) {
                float acc = wrong;
                for (size_t p = 0; p < (size_t)k; p++)
                    acc += mock_half(a[i * (size_t)k + p], in_bf16) *
                           mock_half(b[b_row ? p * (size_t)n + j : j * (size_t)k + p], in_bf16);
                size_t idx = i * (size_t)n + j;
                if (out_f32)
                    ((float *)c)[idx] = acc;
                else
                    ((uint16_t *)c)[idx] = mock_to_half(acc, out_bf16);
            }
    }
    double tile = 64.0 / atof(bm) + 64.0 / atof(bn);
    cutec_mock_advance_clock(1.0 + (double)m * n * k * 1e-6 * (1.0 + tile));
}

/* ---- any GEMM kernel, by the roles of its description ---- */

/* The mock's own activations (by name, as in stdlib/std/epilogue.cute;
 * "cube" is the tests' user activation, "squared_relu" examples/my_epilogue.cute's):
 * 1 and *out, or 0 for a name it does not know. */
static int mock_act(const char *name, double x, double up, double *out)
{
    double sig = 1.0 / (1.0 + exp(-x)), gt = 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    if (strcmp(name, "") == 0 || strcmp(name, "identity") == 0)
        *out = x;
    else if (strcmp(name, "relu") == 0)
        *out = x > 0 ? x : 0;
    else if (strcmp(name, "relu6") == 0)
        *out = x < 0 ? 0 : x > 6 ? 6 : x;
    else if (strcmp(name, "gelu_tanh") == 0)
        *out = gt;
    else if (strcmp(name, "gelu_erf") == 0)
        *out = 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    else if (strcmp(name, "silu") == 0)
        *out = x * sig;
    else if (strcmp(name, "sigmoid") == 0)
        *out = sig;
    else if (strcmp(name, "swiglu") == 0)
        *out = x * sig * up;
    else if (strcmp(name, "geglu") == 0)
        *out = gt * up;
    else if (strcmp(name, "cube") == 0)
        *out = x * x * x;
    else if (strcmp(name, "squared_relu") == 0)
        *out = x > 0 ? x * x : 0;
    else
        return 0;
    return 1;
}

enum {
    MR_M,
    MR_N,
    MR_K,
    MR_A,
    MR_B,
    MR_C,
    MR_D,
    MR_BIAS,
    MR_BIAS_ROW,
    MR_AUX,
    MR_ALPHA,
    MR_BETA,
    MR_BATCH,
    MR_SA,
    MR_SB,
    MR_SC,
    MR_SD,
    MR_ENDS,
    MR_WS,
    MR_FLAGS,
    MR_LIST,
    MR_CLAMP_LO,
    MR_CLAMP_HI,
    MR_SCALE_A,
    MR_SCALE_B,
    MR_COUNT
};

/* An integer argument of type t ("i32" or "i64"). */
static long long mock_int(void *param, const char *t)
{
    if (strcmp(t, "i64") == 0) return *(long long *)param;
    return *(int *)param;
}

/* One element of a tensor of type t ("bf16", "f16", "f32", "e4m3", "e5m2"). */
static double mock_load(const void *p, const char *t, size_t i)
{
    if (strcmp(t, "f32") == 0) return ((const float *)p)[i];
    if (t[0] == 'e') return mock_fp8_value(((const uint8_t *)p)[i], strcmp(t, "e5m2") == 0);
    return mock_half(((const uint16_t *)p)[i], strcmp(t, "bf16") == 0);
}

static void mock_store(void *p, const char *t, size_t i, double v)
{
    if (strcmp(t, "f32") == 0)
        ((float *)p)[i] = (float)v;
    else
        ((uint16_t *)p)[i] = mock_to_half((float)v, strcmp(t, "bf16") == 0);
}

/* stdlib/check_close.cute's kernel on the host, where CUTEC_MOCK_CHECK=1
 * asks for it (else, as before, the mock loads it and runs nothing, and
 * the tuner's self-test sends every check to the host): its type from the
 * module's "// cutec.param T" line; bad += !(|X - Y| <= rel |Y| + abs)
 * over R x Cn with leading dimension LD, in f32 as the kernel. */
static int mock_check(void)
{
    const char *e = getenv("CUTEC_MOCK_CHECK");
    return e != NULL && strcmp(e, "1") == 0;
}

/* abs_blocks (fp8 bytes read four to an i32: K4 and LD4 words; per row
 * and 128-byte block, the sum of the magnitudes or their largest, a NaN or
 * an infinity as the format's largest value) on the host, where
 * CUTEC_MOCK_CHECK=1. */
static void mock_abs_blocks(void **params)
{
    int rows = *(int *)params[0], k = 4 * *(int *)params[1], ld = 4 * *(int *)params[2];
    const uint8_t *a = *(uint8_t **)params[3];
    int e5m2 = *(int *)params[4] != 0, maxed = *(int *)params[5] != 0, nkb = *(int *)params[6];
    float *out = *(float **)params[7];
    for (long long r = 0; r < rows; r++)
        for (long long kb = 0; kb < nkb; kb++) {
            double acc = 0;
            for (long long q = 128 * kb; q < k && q < 128 * (kb + 1); q++) {
                double v = fabs(mock_fp8_value(a[r * ld + q], e5m2));
                if (!isfinite(v)) v = e5m2 ? 57344.0 : 448.0;
                acc = maxed ? fmax(acc, v) : acc + v;
            }
            out[r * nkb + kb] = (float)acc;
        }
}

static void mock_check_close(const struct CUfunc_st *f, void **params)
{
    char t[8] = "";
    const char *tp = f->module_text != NULL ? strstr(f->module_text, "// cutec.param T ") : NULL;
    if (tp == NULL || sscanf(tp, "// cutec.param T %7s", t) != 1) return;
    /* check_close_rank1: the bound plus ts TA(r) TB(c), the vectors and ts
     * after tol */
    int rank1 = strcmp(f->name, "check_close_rank1") == 0;
    int rows = *(int *)params[0], cols = *(int *)params[1], ld = *(int *)params[2];
    const void *x = *(void **)params[3], *y = *(void **)params[4];
    float rel = *(float *)params[5], tol = *(float *)params[6];
    const float *ta = rank1 ? *(float **)params[7] : NULL, *tb = rank1 ? *(float **)params[8] : NULL;
    float ts = rank1 ? *(float *)params[9] : 0.0f;
    int *bad = *(int **)params[rank1 ? 10 : 7];
    for (long long r = 0; r < rows; r++)
        for (long long c = 0; c < cols; c++) {
            size_t i = (size_t)(r * ld + c);
            float want = (float)mock_load(y, t, i), d = fabsf((float)mock_load(x, t, i) - want);
            if (!(d <= rel * fabsf(want) + (tol + (rank1 ? ts * ta[r] * tb[c] : 0.0f)))) (*bad)++;
        }
}

/* stdlib/check_close.cute's epilogue_ref on the host, where
 * CUTEC_MOCK_CHECK=1 (as check_close): its type and activation from the
 * module's "// cutec.param" lines, its arguments in the kernel's order
 * (M, N, DN, FL, acc, S, LDS, rs, cs, bias, bias_row, alpha, beta,
 * clamp_lo, clamp_hi, D, LDD, aux, LDA), FL's switches 1 scales, 2 S,
 * 4 bias, 8 bias_row, 16 aux, 32 clamp.  CUTEC_MOCK_EPI_REF=wrong scales
 * every D by 1.1, as a wrong constant in an activation would: the
 * runtime must notice at its float64 rows and make the reference itself. */
static void mock_epilogue_ref(const struct CUfunc_st *f, void **params)
{
    char t[8] = "", act[64] = "";
    const char *tp = f->module_text != NULL ? strstr(f->module_text, "// cutec.param T ") : NULL;
    const char *ap = f->module_text != NULL ? strstr(f->module_text, "// cutec.param ACT ") : NULL;
    if (tp == NULL || ap == NULL || sscanf(tp, "// cutec.param T %7s", t) != 1 ||
        sscanf(ap, "// cutec.param ACT %63s", act) != 1)
        return;
    const char *w = getenv("CUTEC_MOCK_EPI_REF");
    double skew = w != NULL && strcmp(w, "wrong") == 0 ? 1.1 : 1.0;
    int m = *(int *)params[0], n = *(int *)params[1], dn = *(int *)params[2], fl = *(int *)params[3];
    const float *acc = *(float **)params[4], *rs = *(float **)params[7], *cs = *(float **)params[8];
    const float *bias = *(float **)params[9], *bias_row = *(float **)params[10];
    const void *src = *(void **)params[5];
    int lds = *(int *)params[6], ldd = *(int *)params[16], lda = *(int *)params[18];
    float alpha = *(float *)params[11], beta = *(float *)params[12], lo = *(float *)params[13],
          hi = *(float *)params[14];
    void *d = *(void **)params[15], *aux = *(void **)params[17];
    int gated = dn < n;
    for (long long r = 0; r < m; r++) {
        double v[2];
        for (long long j = 0; j < dn; j++) {
            for (int q = 0; q < 1 + gated; q++) {
                long long c = gated ? (j / 8) * 16 + 8 * q + j % 8 : j;
                double x = (double)acc[r * n + c] * alpha;
                if (fl & 1) x *= (double)rs[r] * cs[c];
                if (fl & 2) x += (double)beta * mock_load(src, t, (size_t)(r * lds + c));
                if (fl & 4) x += bias[c];
                if (fl & 8) x += bias_row[r];
                if (fl & 16) mock_store(aux, t, (size_t)(r * lda + c), x);
                v[q] = (float)x;
            }
            double y;
            if (!mock_act(act, v[0], gated ? v[1] : 0, &y)) y = NAN;
            if (fl & 32) y = fmin(fmax(y, lo), hi);
            mock_store(d, t, (size_t)(r * ldd + j), y * skew);
        }
    }
}

/* A list of problems (role group_list, the sm90 template's GRP = 2): row
 * g of the list is m, n, k, lda, ldb, ldd and the addresses of A, B and D
 * (16 int64); each problem's D (row-major, ldd) = A B^T, A and B K-major,
 * 16-bit in and out.  As the kernel: a problem whose addresses are not
 * 16-byte aligned or whose rows are not whole 16 bytes is skipped; K = 0
 * writes zeros.  The kernel's tensor-map slots live in its workspace: a
 * launch without one (NULL, or not 128-byte aligned, as tensormap.replace
 * needs) faults, as it would on a GPU. */
static void mock_list_gemm(const long long *list, long long groups, const char *t, const char *tc, void *ws)
{
    if (list == NULL || ws == NULL || (uintptr_t)ws % 128 != 0 || (uintptr_t)list % 16 != 0) {
        sticky = ILLEGAL_ADDRESS;
        return;
    }
    double work = 0;
    for (long long g = 0; g < groups; g++) {
        const long long *row = list + 16 * g;
        long long m = row[0] < 0 ? 0 : row[0], n = row[1] < 0 ? 0 : row[1], k = row[2] < 0 ? 0 : row[2];
        int ok = row[3] > 0 && row[4] > 0 && row[5] > 0 && row[3] % 8 == 0 && row[4] % 8 == 0 && row[5] % 8 == 0;
        for (int i = 6; i < 9; i++) ok = ok && row[i] % 16 == 0;
        if (!ok || (double)m * (double)n * (double)k > 16.0 * 1024 * 1024) continue;
        const void *a = (const void *)(uintptr_t)row[6], *b = (const void *)(uintptr_t)row[7];
        void *d = (void *)(uintptr_t)row[8];
        for (long long i = 0; i < m; i++)
            for (long long j = 0; j < n; j++) {
                double acc = 0;
                for (long long q = 0; q < k; q++)
                    acc += (double)(float)mock_load(a, t, (size_t)(i * row[3] + q)) *
                           mock_load(b, t, (size_t)(j * row[4] + q));
                mock_store(d, tc, (size_t)(i * row[5] + j), (float)acc);
            }
        work += (double)m * (double)n * (double)(k + 1);
    }
    cutec_mock_advance_clock(1.0 + work * 1e-6 * 1.5);
}

/* A GEMM kernel the mock does not know by name: computed from its
 * description's lines (cutec.arg roles, types, cutec.act) with the
 * contract's meaning, every tensor packed (A M x K, B N x K, C, D and aux
 * row-major): D = act(alpha A B^T + beta C + bias + bias_row); for an
 * elementwise epilogue kernel (class epilogue), D = act(C + bias +
 * bias_row); with roles clamp_lo and clamp_hi, act's value clamped to them
 * (fmin and fmax: PTX's min and max).  With a batch role, each of the batch's problems in turn, its
 * matrices at the roles' strides (stride_c absent: C is D); with a
 * group_ends role (grouped), problem l is the rows group_ends[l-1] ..
 * group_ends[l] - 1 of the one A and D (clamped as the kernel clamps
 * them), times B's matrix l; with a group_list role, mock_list_gemm. */
static void mock_role_gemm(const struct CUfunc_st *f, void **params)
{
    int idx[MR_COUNT];
    char type[MR_COUNT][8];
    static const char *const roles[MR_COUNT] = {
        "m",         "n",     "k",          "a",        "b",        "c",        "d",        "bias",     "bias_row",
        "aux",       "alpha", "beta",       "batch",    "stride_a", "stride_b", "stride_c", "stride_d", "group_ends",
        "workspace", "flags", "group_list", "clamp_lo", "clamp_hi", "scale_a",  "scale_b"};
    for (int r = 0; r < MR_COUNT; r++) idx[r] = -1, type[r][0] = '\0';
    /* the kernel's own description: from its cutec.kernel line to the next */
    char head[96];
    snprintf(head, sizeof head, "// cutec.kernel %s\n", f->name);
    const char *desc = strstr(f->module_text, head);
    if (desc == NULL) return;
    const char *next = strstr(desc + 1, "// cutec.kernel ");
    size_t dlen = next != NULL ? (size_t)(next - desc) : strlen(desc);
    char *text = malloc(dlen + 1);
    if (text == NULL) return;
    memcpy(text, desc, dlen);
    text[dlen] = '\0';
    for (const char *l = strstr(text, "// cutec.arg "); l != NULL; l = strstr(l + 1, "// cutec.arg ")) {
        int i;
        char name[64], kind[16], t[8], role[32] = "";
        if (sscanf(l, "// cutec.arg %d %63s %15s %7s", &i, name, kind, t) != 4) continue;
        const char *rp = strstr(l, " role ");
        const char *eol = strchr(l, '\n');
        if (rp == NULL || (eol != NULL && rp > eol) || sscanf(rp, " role %31s", role) != 1) continue;
        for (int r = 0; r < MR_COUNT; r++)
            if (strcmp(role, roles[r]) == 0) {
                idx[r] = i;
                snprintf(type[r], sizeof type[r], "%s", t);
            }
    }
    char act[64] = "";
    int gated = 0;
    const char *al = strstr(text, "// cutec.act ");
    if (al != NULL) {
        char flag[16] = "";
        int got = sscanf(al, "// cutec.act %63s %15s", act, flag);
        gated = got == 2 && strcmp(flag, "gated") == 0;
    }
    /* an elementwise epilogue kernel reads v from C, before the biases */
    int ew = strstr(text, "// cutec.class epilogue\n") != NULL;
    /* scales (fp8), by scale_a's shape: "1 1" one each, "M 1" one per row of
     * A and column of B, else block-wise (M x ceil(K/128) for A, a scale
     * per 128 x 128 block of B, ceil(N/128) x ceil(K/128) K-contiguous) */
    int scale_rows = 0, scale_blocks = 0;
    const char *sl = strstr(text, " scale_a tensor ");
    const char *shape = sl != NULL ? strstr(sl, " shape ") : NULL;
    char d0[32] = "", d1[32] = "";
    if (shape != NULL && sscanf(shape, " shape %31s %31s", d0, d1) == 2) {
        scale_rows = strcmp(d0, "1") != 0 && strcmp(d1, "1") == 0;
        scale_blocks = strcmp(d0, "1") != 0 && strcmp(d1, "1") != 0;
    }
    /* a kernel named ..._one_wrong gets one element wrong (of the middle,
     * off by 1 + its size): a fault that float64 samples seldom see */
    int one_wrong = strstr(f->name, "one_wrong") != NULL;
    free(text);
    if (idx[MR_M] < 0 || idx[MR_N] < 0 || idx[MR_D] < 0) return;
    if (ew ? idx[MR_C] < 0 : idx[MR_K] < 0 || idx[MR_A] < 0 || idx[MR_B] < 0) return;
#define ARG(r) ((void *)((char *)*(void **)params[idx[r]] + off[r]))
    int m = *(int *)params[idx[MR_M]], n = *(int *)params[idx[MR_N]], k = ew ? 0 : *(int *)params[idx[MR_K]];
    double alpha = idx[MR_ALPHA] >= 0 ? *(float *)params[idx[MR_ALPHA]] : 1.0;
    double beta = idx[MR_BETA] >= 0 ? *(float *)params[idx[MR_BETA]] : 0.0;
    double lo = idx[MR_CLAMP_LO] >= 0 ? *(float *)params[idx[MR_CLAMP_LO]] : -INFINITY;
    double hi = idx[MR_CLAMP_HI] >= 0 ? *(float *)params[idx[MR_CLAMP_HI]] : INFINITY;
    long long batch = idx[MR_BATCH] >= 0 ? mock_int(params[idx[MR_BATCH]], type[MR_BATCH]) : 1;
    int dn = gated ? n / 2 : n;
    /* scratch (roles workspace and flags): a kernel counting on its flags
     * finds them zeroed (the runtime's memset before the launch) and leaves
     * them set, as tests/runtime/user_gemm_splitk.cute does: a launch
     * without the memset fails as its second run would on a GPU */
    if (idx[MR_FLAGS] >= 0) {
        int *fl = *(int **)params[idx[MR_FLAGS]];
        if (fl == NULL || *fl != 0 || (idx[MR_WS] >= 0 && *(void **)params[idx[MR_WS]] == NULL)) {
            sticky = ILLEGAL_ADDRESS;
            return;
        }
        *fl = 2;
    }
    if (idx[MR_LIST] >= 0) {
        mock_list_gemm(*(const long long **)params[idx[MR_LIST]], batch, type[MR_A], type[MR_D],
                       idx[MR_WS] >= 0 ? *(void **)params[idx[MR_WS]] : NULL);
        return;
    }
    double *v = malloc(sizeof *v * (size_t)m * (size_t)n);
    if (v == NULL || (double)m * n * k * (double)batch > 64.0 * 1024 * 1024) {
        free(v);
        return;
    }
    long long r1 = 0; /* grouped: the previous group's row end */
    for (long long l = 0; l < batch; l++) {
        long long r0 = 0;
        if (idx[MR_ENDS] >= 0) {
            long long e = ((const int *)*(void **)params[idx[MR_ENDS]])[l];
            r0 = r1;
            r1 = e < r0 ? r0 : e > m ? m : e;
        }
        /* byte offsets of problem l's matrices (stride roles count elements) */
        size_t off[MR_COUNT] = {0};
        static const int strided[][2] = {{MR_A, MR_SA}, {MR_B, MR_SB}, {MR_C, MR_SC}, {MR_D, MR_SD}};
        for (int q = 0; q < 4; q++) {
            int t = strided[q][0], sr = idx[strided[q][1]] >= 0 ? strided[q][1] : -1;
            if (t == MR_C && sr < 0) sr = idx[MR_SD] >= 0 ? MR_SD : -1; /* in place: C is D */
            long long st = sr >= 0 ? mock_int(params[idx[sr]], type[sr]) : 0;
            size_t esize = strcmp(type[t], "f32") == 0 ? 4 : type[t][0] == 'e' ? 1 : 2; /* e4m3, e5m2: 1 */
            off[t] = (size_t)(l * st) * esize;
            if (idx[MR_ENDS] >= 0 && t != MR_B) off[t] = 0; /* grouped: one A, C and D */
        }
        size_t i0 = idx[MR_ENDS] >= 0 ? (size_t)r0 : 0, i1 = idx[MR_ENDS] >= 0 ? (size_t)r1 : (size_t)m;
        for (size_t i = i0; i < i1; i++)
            for (size_t j = 0; j < (size_t)n; j++) {
                double acc = 0;
                int scaled = idx[MR_SCALE_A] >= 0 && idx[MR_SCALE_B] >= 0;
                const float *sa = scaled ? *(float **)params[idx[MR_SCALE_A]] : NULL;
                const float *sb = scaled ? *(float **)params[idx[MR_SCALE_B]] : NULL;
                size_t kbs = ((size_t)k + 127) / 128;
                for (size_t q = 0; q < (size_t)k; q++)
                    acc +=
                        (double)(float)mock_load(ARG(MR_A), type[MR_A], i * (size_t)k + q) *
                        mock_load(ARG(MR_B), type[MR_B], j * (size_t)k + q) *
                        (scaled && scale_blocks ? (double)sa[i + (size_t)m * (q / 128)] * sb[(j / 128) * kbs + q / 128]
                                                : 1.0);
                if (scaled && !scale_blocks) acc *= sa[scale_rows ? i : 0] * (double)sb[scale_rows ? j : 0];
                double x = ew ? mock_load(ARG(MR_C), type[MR_C], i * (size_t)n + j) : alpha * (float)acc;
                if (one_wrong && i == (size_t)m / 2 + 1 && j == (size_t)n / 2 + 3) x += 1 + fabs(x);
                if (!ew && idx[MR_C] >= 0 && beta != 0.0)
                    x += beta * mock_load(ARG(MR_C), type[MR_C], i * (size_t)n + j);
                if (idx[MR_BIAS] >= 0) x += mock_load(ARG(MR_BIAS), type[MR_BIAS], j);
                if (idx[MR_BIAS_ROW] >= 0) x += mock_load(ARG(MR_BIAS_ROW), type[MR_BIAS_ROW], i);
                v[i * (size_t)n + j] = (float)x;
                if (idx[MR_AUX] >= 0) mock_store(ARG(MR_AUX), type[MR_AUX], i * (size_t)n + j, x);
            }
        for (size_t i = i0; i < i1; i++)
            for (size_t j = 0; j < (size_t)dn; j++) {
                double g = v[i * (size_t)n + (gated ? j / 8 * 16 + j % 8 : j)], out = NAN;
                double up = gated ? v[i * (size_t)n + j / 8 * 16 + 8 + j % 8] : 0;
                if (!mock_act(act, g, up, &out)) out = NAN; /* an activation the mock cannot run: a wrong result */
                if (idx[MR_CLAMP_LO] >= 0 || idx[MR_CLAMP_HI] >= 0) out = fmin(fmax(out, lo), hi);
                mock_store(ARG(MR_D), type[MR_D], i * (size_t)dn + j, out);
            }
    }
#undef ARG
    free(v);
    cutec_mock_advance_clock(1.0 + (double)batch * (ew ? (double)m * n * 1e-3 : (double)m * n * k * 1e-6 * 1.5));
}

/* Whether a gemm_sm80 kernel (the stdlib template) applies an epilogue
 * (its ACT, BIAS, SRC, ALPHA, AUX or GLU parameter): then its arguments
 * follow its roles, not mock_gemm's fixed order of M, N, K, A, B, C. */
static int sm80_epilogue(const struct CUfunc_st *f)
{
    static const char *const sw[] = {"BIAS", "SRC", "ALPHA", "AUX", "GLU"};
    char v[64];
    if (f->module_text == NULL) return 0;
    if (mock_param(f, "ACT", v, sizeof v) != NULL && strcmp(v, "identity") != 0) return 1;
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++)
        if (mock_param(f, sw[i], v, sizeof v) != NULL && strcmp(v, "0") != 0) return 1;
    return 0;
}

/* Whether argument i of the kernel's manifest is a tensor of that role
 * (its "// cutec.arg I ... tensor ... role ROLE" line). */
static int arg_tensor_role(const struct CUfunc_st *f, int i, const char *role)
{
    char key[32], tail[32];
    snprintf(key, sizeof key, "// cutec.arg %d ", i);
    snprintf(tail, sizeof tail, " role %s", role);
    const char *p = f->module_text != NULL ? strstr(f->module_text, key) : NULL;
    if (p == NULL) return 0;
    const char *e = strchr(p, '\n');
    size_t n = e != NULL ? (size_t)(e - p) : strlen(p), nt = strlen(tail);
    const char *t = strstr(p, " tensor ");
    return t != NULL && t < p + n && n > nt && memcmp(p + n - nt, tail, nt) == 0;
}

/* Whether every tensor map a launch passes describes the memory of its
 * tensor: each "// cutec.arg I NAME tma T" line of the kernel's section of
 * its module, where argument I is a map as cuTensorMapEncodeTiled wrote it
 * (struct mock_tensor_map), holds tensor argument T's address.  A map kept
 * from an earlier call with another pointer (a stale cache in the runtime)
 * would make a GPU read or write the wrong memory, which nothing in the
 * mock's role-based results would show: such a launch faults here. */
static int maps_match(const struct CUfunc_st *f, void **params)
{
    if (f->module_text == NULL || params == NULL) return 1;
    char head[160];
    snprintf(head, sizeof head, "// cutec.kernel %s\n", f->name);
    const char *sec = strstr(f->module_text, head);
    if (sec == NULL) return 1;
    const char *end = strstr(sec + strlen(head), "// cutec.kernel ");
    for (const char *p = strstr(sec, "// cutec.arg "); p != NULL && (end == NULL || p < end);
         p = strstr(p + 1, "// cutec.arg ")) {
        int i = -1, t = -1;
        char name[64], kind[16];
        if (sscanf(p, "// cutec.arg %d %63s %15s %d", &i, name, kind, &t) != 4 || strcmp(kind, "tma") != 0) continue;
        if (i < 0 || t < 0 || params[i] == NULL || params[t] == NULL) return 0;
        struct mock_tensor_map m;
        memcpy(&m, params[i], sizeof m);
        if (m.magic != 0x544d4150u) continue; /* an unused map: zeros */
        uint64_t ptr;
        memcpy(&ptr, params[t], sizeof ptr);
        if (m.addr != ptr) return 0;
    }
    return 1;
}

/* $CUTEC_MOCK_LAUNCH_HOST_US=U: every kernel launch spends U microseconds
 * of host time (a driver whose launches cost the host more than
 * cuBLASLt's calls: the tuner's CUTEC_OPT_HOST_BOUND_US test) */
static void launch_host_cost(void) { spend_host_time("CUTEC_MOCK_LAUNCH_HOST_US", 1.0); }

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int smem, CUstream stream, void **params,
                        void **extra)
{
    launch_host_cost();
    MOCK_ENTRY();
    launch_count++;
    (void)stream;
    (void)extra;
    CUresult r = ready();
    if (r != OK) return r;
    if (f == NULL) return INVALID_HANDLE;
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || gy > 65535 || gz > 65535 ||
        (unsigned long long)bx * by * bz > 1024 || smem > (unsigned)f->max_dyn_smem)
        return INVALID_VALUE;
    if (!computing()) return OK;
    if (!maps_match(f, params)) {
        sticky = ILLEGAL_ADDRESS;
        return OK;
    }
    unsigned long long threads = (unsigned long long)gx * gy * gz * bx * by * bz;
    if (strcmp(f->name, "vector_add") == 0) {
        const float *a = *(float **)params[0], *b = *(float **)params[1];
        float *c = *(float **)params[2];
        int n = *(int *)params[3];
        for (unsigned long long i = 0; i < threads && i < (unsigned long long)n; i++) c[i] = a[i] + b[i];
    } else if (strcmp(f->name, "smem_reverse") == 0) {
        const float *in = *(float **)params[0];
        float *out = *(float **)params[1];
        int n = *(int *)params[2];
        if ((size_t)n * sizeof(float) > smem)
            sticky = ILLEGAL_ADDRESS; /* the kernel would run off its shared memory */
        else
            for (int i = 0; i < n; i++) out[i] = in[n - 1 - i];
    } else if (strcmp(f->name, "transpose") == 0) {
        int m = *(int *)params[0], n = *(int *)params[1];
        const float *in = *(float **)params[2];
        float *out = *(float **)params[3];
        for (size_t i = 0; i < (size_t)m; i++)
            for (size_t j = 0; j < (size_t)n; j++) out[j * (size_t)m + i] = in[i * (size_t)n + j];
    } else if (strcmp(f->name, "sgemm") == 0) {
        int m = *(int *)params[0], n = *(int *)params[1], k = *(int *)params[2];
        const float *a = *(float **)params[3], *b = *(float **)params[4];
        float *c = *(float **)params[5];
        if ((double)m * n * k <= 2147483648.0) {
            for (size_t i = 0; i < (size_t)m; i++) {
                float *crow = c + i * (size_t)n;
                for (size_t j = 0; j < (size_t)n; j++) crow[j] = 0.0f;
                for (size_t p = 0; p < (size_t)k; p++)
                    for (size_t j = 0; j < (size_t)n; j++) crow[j] += a[i * (size_t)k + p] * b[p * (size_t)n + j];
            }
        }
    } else if (strcmp(f->name, "gemm_sm80") == 0) {
        if (fault_requested(f))
            sticky = ILLEGAL_ADDRESS; /* as a kernel that ran off its memory */
        else if (sm80_epilogue(f))
            mock_role_gemm(f, params); /* its epilogue by its roles (a gated D is half as wide) */
        else if (arg_tensor_role(f, 3, "a") && arg_tensor_role(f, 4, "b") && arg_tensor_role(f, 5, "d"))
            mock_gemm(f, params, 0); /* the template's own arguments: M, N, K, A, B, C */
        else
            mock_role_gemm(f, params); /* another kernel of that name (a fuzzed manifest), by its roles */
    } else if (strcmp(f->name, "user_gemm_brow") == 0) {
        mock_gemm(f, params, 1); /* tests/runtime/user_gemm.cute: B stored K x N */
    } else if (f->module_text != NULL && (strstr(f->module_text, "// cutec.class gemm") != NULL ||
                                          strstr(f->module_text, "// cutec.class epilogue") != NULL)) {
        mock_role_gemm(f, params); /* any other GEMM or elementwise epilogue kernel, by its roles */
    } else if ((strcmp(f->name, "check_close") == 0 || strcmp(f->name, "check_close_rank1") == 0) && mock_check()) {
        mock_check_close(f, params);
    } else if (strcmp(f->name, "epilogue_ref") == 0 && mock_check()) {
        mock_epilogue_ref(f, params);
    } else if (strcmp(f->name, "abs_blocks") == 0 && mock_check()) {
        mock_abs_blocks(params);
    } else if (strcmp(f->name, "write_null") == 0) {
        sticky = ILLEGAL_ADDRESS;
    } else if (strcmp(f->name, "trap_kernel") == 0) {
        sticky = LAUNCH_FAILED;
    }
    return OK;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
    MOCK_ENTRY();
    CUresult r = ready();
    if (r != OK) return r;
    if (bytes == 0) return INVALID_VALUE;
    if (bytes > ((size_t)1 << 36)) return OUT_OF_MEMORY;
    /* 256-byte aligned, as cuMemAlloc's (a list's map slots need 128) */
    void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (p == NULL || !track(p)) {
        free(p);
        return OUT_OF_MEMORY;
    }
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return OK;
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    MOCK_ENTRY();
    CUresult r = ready();
    if (r != OK) return r;
    untrack((void *)(uintptr_t)dptr);
    free((void *)(uintptr_t)dptr);
    return OK;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes)
{
    MOCK_ENTRY();
    CUresult r = ready();
    if (r != OK) return r;
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return OK;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
    MOCK_ENTRY();
    CUresult r = ready();
    if (r != OK) return r;
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return OK;
}

CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
    MOCK_ENTRY();
    if (least != NULL) *least = 0;
    if (greatest != NULL) *greatest = -5;
    return ready();
}

/* Streams are ordered like everything else here (the work runs at launch). */
static struct CUstream_st {
    int priority;
} streams[8];

CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority)
{
    MOCK_ENTRY();
    (void)flags;
    for (int i = 0; i < 8; i++)
        if (streams[i].priority == 0) {
            streams[i].priority = priority - 100; /* never 0 while in use */
            *stream = &streams[i];
            return ready();
        }
    return OUT_OF_MEMORY;
}

CUresult cuStreamDestroy_v2(CUstream stream)
{
    MOCK_ENTRY();
    if (stream == NULL || stream < &streams[0] || stream > &streams[7] || stream->priority == 0) return INVALID_HANDLE;
    stream->priority = 0;
    return OK;
}

long long cutec_mock_calls(const char *name) { return mock_calls_of(&calls, name); }

void cutec_mock_calls_reset(void) { mock_calls_reset(&calls); }

void cutec_mock_calls_text(char *buf, size_t len) { mock_calls_text(&calls, buf, len); }

void cutec_mock_counts(long long *l, long long *e)
{
    MOCK_LOCK();
    *l = launch_count;
    *e = events_recorded;
}
