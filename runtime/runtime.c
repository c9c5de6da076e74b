/*
 * runtime.c - the runtime handle: creation (load the driver, cuInit, pick the
 * device, retain its primary context), destruction, the message and log
 * accessors, device queries and synchronisation, and the list of layers
 * built on the runtime (internal.h's cutec_rt_layer: told of pack unloads
 * and of the runtime's destruction).  The primary context is used
 * rather than a private one so that buffers and streams of an application
 * that also uses the CUDA runtime API (which uses the same primary context)
 * work with our kernels; it also avoids cuCtxCreate, whose signature changed
 * in CUDA 13.
 */
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records a creation failure both as the current message and as the text
 * that later calls on the unusable handle repeat. */
static cutec_status init_failed(cutec_runtime *rt, cutec_status s)
{
    rt->init_status = s;
    /* Creation messages are short; truncation would only drop the tail. */
    size_t n = strnlen(rt->message, sizeof rt->init_message - 1);
    memcpy(rt->init_message, rt->message, n);
    rt->init_message[n] = '\0';
    return s;
}

static cutec_status init_driver_failed(cutec_runtime *rt, CUresult r, const char *what)
{
    return init_failed(rt, cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_INIT, "%s", what));
}

cutec_status cutec_runtime_create(cutec_runtime **out, int device)
{
    if (out == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = calloc(1, sizeof *rt);
    *out = rt;
    if (rt == NULL) return CUTEC_ERR_OUT_OF_MEMORY;
    rt->ordinal = device;
    rt->init_status = CUTEC_ERR_DRIVER; /* until creation completes */

    if (device < 0)
        return init_failed(rt, cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "device index %d is negative", device));

    char err[CUTEC_INIT_MESSAGE_MAX];
    if (!cutec_rt_driver_load(&rt->drv, err, sizeof err))
        return init_failed(rt, cutec_rt_fail(rt, CUTEC_ERR_NO_DRIVER, "%s", err));

    CUresult r = rt->drv.init(0);
    if (r != CUDA_SUCCESS) return init_driver_failed(rt, r, "cuInit");
    r = rt->drv.driver_get_version(&rt->driver_version);
    if (r != CUDA_SUCCESS) return init_driver_failed(rt, r, "cuDriverGetVersion");

    int count = 0;
    r = rt->drv.device_get_count(&count);
    if (r != CUDA_SUCCESS) return init_driver_failed(rt, r, "cuDeviceGetCount");
    if (device >= count)
        return init_failed(rt, cutec_rt_fail(rt, CUTEC_ERR_NO_DEVICE,
                                             "CUDA device %d requested but the driver reports %d device(s)", device,
                                             count));

    r = rt->drv.device_get(&rt->dev, device);
    if (r != CUDA_SUCCESS) return init_driver_failed(rt, r, "cuDeviceGet");
    r = rt->drv.primary_ctx_retain(&rt->ctx, rt->dev);
    if (r != CUDA_SUCCESS) return init_driver_failed(rt, r, "cuDevicePrimaryCtxRetain");
    rt->ctx_retained = 1;
    r = rt->drv.ctx_set_current(rt->ctx);
    if (r != CUDA_SUCCESS) return init_driver_failed(rt, r, "cuCtxSetCurrent");

    rt->init_status = CUTEC_OK;
    return CUTEC_OK;
}

void cutec_rt_layer_add(cutec_runtime *rt, cutec_rt_layer *layer)
{
    layer->next = rt->layers;
    rt->layers = layer;
}

void cutec_rt_layer_remove(cutec_runtime *rt, cutec_rt_layer *layer)
{
    for (cutec_rt_layer **at = &rt->layers; *at != NULL; at = &(*at)->next)
        if (*at == layer) {
            *at = layer->next;
            layer->next = NULL;
            return;
        }
}

void cutec_rt_layers_pack_unload(cutec_runtime *rt, cutec_pack *pack)
{
    for (cutec_rt_layer *l = rt->layers; l != NULL; l = l->next)
        if (l->pack_unload != NULL) l->pack_unload(l, pack);
}

/* Each layer is unlinked first, so that it may free itself in the call. */
static void layers_runtime_destroy(cutec_runtime *rt)
{
    while (rt->layers != NULL) {
        cutec_rt_layer *l = rt->layers;
        rt->layers = l->next;
        l->next = NULL;
        if (l->runtime_destroy != NULL) l->runtime_destroy(l);
    }
}

void cutec_runtime_destroy(cutec_runtime *rt)
{
    if (rt == NULL) return;
    if (rt->ctx_retained) {
        /* Errors are ignored: after a kernel fault every call fails, and the
     * release below is what actually frees the context. */
        (void)rt->drv.ctx_set_current(rt->ctx);
        layers_runtime_destroy(rt);
        while (rt->packs != NULL) cutec_pack_unload(rt->packs);
        while (rt->modules != NULL) cutec_module_unload(rt->modules);
        /* Do not leave this thread bound to a context that the release may
     * destroy. */
        CUcontext cur = NULL;
        if (rt->drv.ctx_get_current(&cur) == CUDA_SUCCESS && cur == rt->ctx) (void)rt->drv.ctx_set_current(NULL);
        (void)rt->drv.primary_ctx_release(rt->dev);
        /* A fault is sticky: releasing alone left the primary context poisoned
     * for the next runtime on the H200 (seen 2026-11-21), so reset it.
     * This also frees other handles' allocations on this device: a fault
     * already made those unusable. */
        if (rt->faulted) (void)rt->drv.primary_ctx_reset(rt->dev);
    } else {
        layers_runtime_destroy(rt); /* handles may exist; no device state */
        while (rt->packs != NULL) cutec_pack_unload(rt->packs);
    }
    cutec_rt_driver_unload(&rt->drv);
    free(rt);
}

const char *cutec_runtime_message(const cutec_runtime *rt)
{
    if (rt == NULL) return "no runtime handle (creation ran out of memory, or NULL was passed)";
    return rt->message;
}

void cutec_runtime_set_log(cutec_runtime *rt, cutec_log_fn fn, void *user)
{
    if (rt == NULL) return;
    rt->log_fn = fn;
    rt->log_user = fn != NULL ? user : NULL;
}

cutec_status cutec_rt_enter(cutec_runtime *rt)
{
    if (rt->init_status != CUTEC_OK)
        return cutec_rt_fail(rt, rt->init_status, "the runtime is unusable because its creation failed: %s",
                             rt->init_message);
    CUresult r = rt->drv.ctx_set_current(rt->ctx);
    if (r != CUDA_SUCCESS) return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuCtxSetCurrent");
    return CUTEC_OK;
}

cutec_status cutec_device_info(cutec_runtime *rt, char *name, size_t name_len, int *cc_major, int *cc_minor,
                               int *sm_count)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (name == NULL && name_len != 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_device_info: name is NULL but name_len is %zu",
                             name_len);
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    CUresult r;
    if (name != NULL && name_len > 0) {
        int len = name_len > INT_MAX ? INT_MAX : (int)name_len;
        r = rt->drv.device_get_name(name, len, rt->dev);
        if (r != CUDA_SUCCESS) return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuDeviceGetName");
        name[name_len - 1] = '\0'; /* the driver does not promise a terminator */
    }
    struct {
        int *dst;
        CUdevice_attribute attr;
        const char *what;
    } q[] = {
        {cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR"},
        {cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR"},
        {sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT"},
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        if (q[i].dst == NULL) continue;
        r = rt->drv.device_get_attribute(q[i].dst, q[i].attr, rt->dev);
        if (r != CUDA_SUCCESS)
            return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuDeviceGetAttribute(%s)", q[i].what);
    }
    return CUTEC_OK;
}

cutec_status cutec_driver_version(cutec_runtime *rt, int *version)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (version == NULL) return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_driver_version: version is NULL");
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    *version = rt->driver_version;
    return CUTEC_OK;
}

cutec_status cutec_synchronize(cutec_runtime *rt)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    CUresult r = rt->drv.ctx_synchronize();
    if (r != CUDA_SUCCESS) return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuCtxSynchronize");
    return CUTEC_OK;
}

cutec_status cutec_stream_synchronize(cutec_runtime *rt, void *stream)
{
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    CUresult r = rt->drv.stream_synchronize((CUstream)stream);
    if (r != CUDA_SUCCESS) return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuStreamSynchronize");
    return CUTEC_OK;
}
