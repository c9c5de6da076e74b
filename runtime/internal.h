/*
 * internal.h - the definitions shared by the runtime's source files: the
 * layouts of the opaque handles and the helpers that record a failure (set
 * the handle's message, call the log callback, return the status) and map a
 * CUresult to a cutec_status.  Nothing here is part of the public API.
 */
#ifndef CUTEC_RUNTIME_INTERNAL_H
#define CUTEC_RUNTIME_INTERNAL_H

#include "cutec/pack.h"
#include "cutec/runtime.h"
#include "driver.h"
#include "kdesc.h"
#include "pack_format.h"

/* Large enough for a JIT error log plus its preamble. */
#define CUTEC_MESSAGE_MAX 16384
/* The creation failure is kept apart so later calls can repeat it. */
#define CUTEC_INIT_MESSAGE_MAX 1024

#if defined(__GNUC__)
#define CUTEC_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define CUTEC_PRINTF(fmt_idx, arg_idx)
#endif

struct cutec_runtime {
    cutec_rt_driver drv;
    cutec_status init_status; /* CUTEC_OK once creation succeeded */
    int ordinal;              /* device index asked for */
    CUdevice dev;
    CUcontext ctx; /* the device's primary context, retained */
    int ctx_retained;
    int faulted; /* a kernel fault poisoned the context: reset it on destroy */
    int driver_version;
    cutec_log_fn log_fn;
    void *log_user;
    cutec_module *modules;         /* loaded modules, unloaded by destroy */
    cutec_pack *packs;             /* loaded packs, unloaded by destroy */
    struct cutec_rt_layer *layers; /* layers built on the runtime (cutec_rt_layer_add) */
    char message[CUTEC_MESSAGE_MAX];
    char init_message[CUTEC_INIT_MESSAGE_MAX];
};

struct cutec_module {
    cutec_runtime *rt;
    CUmodule mod;
    cutec_module *prev, *next; /* in rt->modules */
    cutec_kernel *kernels;     /* handed out by get_kernel, freed on unload */
};

struct cutec_kernel {
    cutec_module *module;
    CUfunction fn;
    unsigned dyn_smem_limit; /* current MAX_DYNAMIC_SHARED_SIZE_BYTES */
    cutec_kernel *next;
    char name[];
};

/* One entry of a loaded pack. */
typedef struct cutec_pack_entry {
    cutec_packfmt_entry fmt; /* points into the pack's data */
    cutec_kdesc desc;        /* the kernel's contract, read from its manifest */
    char *manifest_text;     /* NUL-terminated copy */
    cutec_module *module;    /* loaded on first use */
    cutec_kernel *kernel;
    cutec_status load_status; /* CUTEC_OK until a load failed */
} cutec_pack_entry;

struct cutec_pack {
    cutec_runtime *rt;
    unsigned char *data; /* owned copy of the file */
    size_t size;
    cutec_packfmt_header h;
    int count;
    cutec_pack_entry *entries;
    int use_cubin;           /* the device can run the pack's cubins */
    cutec_pack *prev, *next; /* in rt->packs */
};

/* Reads a whole file (module.c, through file_read.c): only a regular file
 * of at most CUTEC_FILE_MAX_BYTES (1 GiB); on failure sets the message
 * (CUTEC_ERR_IO or CUTEC_ERR_OUT_OF_MEMORY).  *data is malloc'ed, with a NUL
 * byte after its *size bytes (so a text file is a C string). */
cutec_status cutec_rt_read_file(cutec_runtime *rt, const char *path, unsigned char **data, size_t *size);

/* Pack handling for the layers built on the core (pack.c). */
/* Loads entry i's kernel, recording (not reporting) a failure in the entry. */
cutec_status cutec_rt_pack_kernel(cutec_pack *pack, int i, cutec_kernel **out);

/* A layer built on the core runtime (the GEMM handle, gemm.c, is one)
 * hears of the two events that end what it may hold, without the core
 * knowing what the layer is: a pack about to be unloaded (the layer drops
 * every reference into it) and the runtime about to be destroyed (the
 * layer releases its device state and forgets the runtime).  The layer
 * owns the node; the core only links it.  runtime_destroy is called with
 * the context current, before packs and modules are unloaded, and after
 * the core has unlinked the node (the layer must not remove it again);
 * pack_unload must not add or remove layers. */
typedef struct cutec_rt_layer cutec_rt_layer;
struct cutec_rt_layer {
    void (*pack_unload)(cutec_rt_layer *self, cutec_pack *pack);
    void (*runtime_destroy)(cutec_rt_layer *self);
    cutec_rt_layer *next;
};
void cutec_rt_layer_add(cutec_runtime *rt, cutec_rt_layer *layer);
void cutec_rt_layer_remove(cutec_runtime *rt, cutec_rt_layer *layer);
/* Tells every layer that pack is going (pack.c's unload). */
void cutec_rt_layers_pack_unload(cutec_runtime *rt, cutec_pack *pack);

/* What the failing driver call was doing; decides how a CUresult maps. */
typedef enum cutec_rt_phase {
    CUTEC_RT_PHASE_GENERIC,
    CUTEC_RT_PHASE_INIT,        /* cuInit and device discovery */
    CUTEC_RT_PHASE_MODULE_LOAD, /* cuModuleLoadDataEx */
    CUTEC_RT_PHASE_GET_KERNEL,  /* cuModuleGetFunction */
    CUTEC_RT_PHASE_LAUNCH       /* cuFuncSetAttribute / cuLaunchKernel */
} cutec_rt_phase;

/* The status a CUresult stands for when returned by a call of that phase. */
cutec_status cutec_rt_status_from_curesult(CUresult r, cutec_rt_phase phase);

/* Formats the message of rt, logs it at CUTEC_LOG_ERROR and returns s. */
cutec_status cutec_rt_fail(cutec_runtime *rt, cutec_status s, const char *fmt, ...) CUTEC_PRINTF(3, 4);
/* Records the failure of driver call `what` with result r and returns the
 * mapped status.  `what` is a printf format for the rest of the arguments. */
cutec_status cutec_rt_fail_driver(cutec_runtime *rt, CUresult r, cutec_rt_phase phase, const char *what, ...)
    CUTEC_PRINTF(4, 5);
/* Sends a message to the log callback, if any. */
void cutec_rt_log(cutec_runtime *rt, cutec_log_level level, const char *fmt, ...) CUTEC_PRINTF(3, 4);
/* Start of every call that uses the device: fails with the creation status if
 * creation failed, else makes the context current on the calling thread (the
 * handle may move between threads). */
cutec_status cutec_rt_enter(cutec_runtime *rt);
/* Raises the kernel's dynamic shared memory limit when bytes need it (over
 * 48 KiB); shared by every launch path. */
cutec_status cutec_rt_kernel_smem(cutec_kernel *k, unsigned dynamic_smem_bytes);
/* cutec_launch and cutec_launch_cluster; enter 0: the caller made the
 * runtime's context current already (cutec_rt_kdesc_launch). */
cutec_status cutec_rt_launch(cutec_kernel *k, const unsigned grid[3], const unsigned block[3],
                             unsigned dynamic_smem_bytes, void *stream, void **args, int enter);
cutec_status cutec_rt_launch_cluster(cutec_kernel *k, const unsigned grid[3], const unsigned block[3],
                                     const unsigned cluster[3], unsigned dynamic_smem_bytes, void *stream, void **args,
                                     int enter);
/* How many blocks of k (whole clusters of `cluster`, with this block and
 * dynamic shared memory) the device holds at once, from the driver's
 * occupancy API (launch_cluster.c): what a persistent kernel's grid should
 * be.  0 where the driver cannot say (no occupancy entry point, or the
 * mock). */
long long cutec_rt_resident_blocks(cutec_kernel *k, const unsigned block[3], const unsigned cluster[3],
                                   unsigned dynamic_smem_bytes);

/* A TMA descriptor (tensor_map.c): rank dims, rank - 1 byte strides. */
typedef struct cutec_tensor_map cutec_tensor_map;
cutec_status cutec_rt_tensor_map(cutec_runtime *rt, cutec_tensor_map *map, cutec_ct elem, unsigned long long addr,
                                 int rank, const uint64_t *dims, const uint64_t *strides_bytes, const uint32_t *box,
                                 int swizzle_bytes);

/* Launching from a kernel's contract alone (kdesc_launch.c): the core
 * runtime's half of the contract, which knows no problem class. */
typedef struct cutec_launch_plan {
    unsigned grid[3], block[3], cluster[3];
    unsigned smem; /* dynamic shared memory bytes */
} cutec_launch_plan;
/* Why the used tensor maps of d cannot describe their tensors for these
 * argument values (into why, returned), or NULL when they can. */
const char *cutec_rt_kdesc_maps_unfit(const cutec_kdesc *d, const cutec_kd_values *vals, char *why, size_t len);
/* Builds the map of TMA argument a over the tensor at ptr (zeroed when the
 * kernel never reads it). */
cutec_status cutec_rt_kdesc_tensor_map(cutec_runtime *rt, const cutec_kdesc *d, int a, const cutec_kd_values *vals,
                                       unsigned long long ptr, cutec_tensor_map *map);
/* Block, cluster, shared memory and grid (the given one, or the rule's
 * with resident() capped by what the device holds at once when k is
 * known) of kernel d for these values. */
cutec_status cutec_rt_kdesc_plan(cutec_runtime *rt, cutec_kernel *k, const cutec_kdesc *d, const cutec_kd_values *vals,
                                 const unsigned grid[3], cutec_launch_plan *plan);
/* The launch, in the context the caller made current (cutec_rt_enter at
 * the start of its public call): a cached GEMM call makes one
 * cuCtxSetCurrent, not one more per launch. */
cutec_status cutec_rt_kdesc_launch(cutec_kernel *k, const cutec_kdesc *d, const cutec_launch_plan *plan, void *stream,
                                   void **args);

#endif /* CUTEC_RUNTIME_INTERNAL_H */
