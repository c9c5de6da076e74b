/*
 * internal.h - the definitions shared by the runtime's source files: the
 * layouts of the opaque handles and the helpers that record a failure (set
 * the handle's message, call the log callback, return the status) and map a
 * CUresult to a cutec_status.  Nothing here is part of the public API.
 */
#ifndef CUTEC_RUNTIME_INTERNAL_H
#define CUTEC_RUNTIME_INTERNAL_H

#include "cutec/runtime.h"
#include "driver.h"

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
  CUcontext ctx;            /* the device's primary context, retained */
  int ctx_retained;
  int faulted;              /* a kernel fault poisoned the context: reset it on destroy */
  int driver_version;
  cutec_log_fn log_fn;
  void *log_user;
  cutec_module *modules;    /* loaded modules, unloaded by destroy */
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
  unsigned dyn_smem_limit;   /* current MAX_DYNAMIC_SHARED_SIZE_BYTES */
  cutec_kernel *next;
  char name[];
};

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
cutec_status cutec_rt_fail(cutec_runtime *rt, cutec_status s, const char *fmt, ...)
    CUTEC_PRINTF(3, 4);
/* Records the failure of driver call `what` with result r and returns the
 * mapped status.  `what` is a printf format for the rest of the arguments. */
cutec_status cutec_rt_fail_driver(cutec_runtime *rt, CUresult r, cutec_rt_phase phase,
                               const char *what, ...) CUTEC_PRINTF(4, 5);
/* Sends a message to the log callback, if any. */
void cutec_rt_log(cutec_runtime *rt, cutec_log_level level, const char *fmt, ...)
    CUTEC_PRINTF(3, 4);
/* Start of every call that uses the device: fails with the creation status if
 * creation failed, else makes the context current on the calling thread (the
 * handle may move between threads). */
cutec_status cutec_rt_enter(cutec_runtime *rt);

#endif /* CUTEC_RUNTIME_INTERNAL_H */
