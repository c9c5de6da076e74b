/*
 * module.c - loading PTX / cubin / fatbin images into the runtime's context
 * and looking up kernels in them.  The format is recognised from the content,
 * not the file name, because compiled kernels are often passed around as
 * bytes.  cuModuleLoadDataEx is not told the image size, so images are
 * checked here first: PTX gets a NUL terminator when it lacks one, and the
 * ELF / fatbin headers must describe data that lies inside the buffer, so a
 * truncated image cannot make the driver read past it.  Load failures carry
 * the JIT error log, which is what tells a user what is wrong with the PTX.
 */
#include "file_read.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JIT_LOG_BYTES 8192

static uint64_t read_le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
}

/* 1 if [off, off + count * entsize) lies inside size (no overflow). */
static int table_fits(uint64_t off, uint64_t count, uint64_t entsize, size_t size)
{
    if (count == 0) return 1;
    if (entsize != 0 && count > UINT64_MAX / entsize) return 0;
    uint64_t len = count * entsize;
    return off <= (uint64_t)size && len <= (uint64_t)size - off;
}

typedef enum image_kind { IMAGE_PTX, IMAGE_CUBIN, IMAGE_FATBIN } image_kind;

static const char *image_kind_name(image_kind k)
{
    return k == IMAGE_CUBIN ? "cubin" : k == IMAGE_FATBIN ? "fatbin" : "PTX";
}

/* Recognises the image and checks its headers; on failure writes why. */
static int classify(const unsigned char *p, size_t size, image_kind *kind, char *why, size_t why_len)
{
    if (size >= 4 && memcmp(p,
                            "\x7f"
                            "ELF",
                            4) == 0) {
        *kind = IMAGE_CUBIN;
        /* ELF64 little-endian header: class at 4, data at 5, tables at 32..63. */
        if (size < 64 || p[4] != 2 || p[5] != 1) {
            snprintf(why, why_len, "not a 64-bit little-endian ELF image (%zu bytes)", size);
            return 0;
        }
        uint64_t phoff = read_le(p + 32, 8), shoff = read_le(p + 40, 8);
        uint64_t phentsize = read_le(p + 54, 2), phnum = read_le(p + 56, 2);
        uint64_t shentsize = read_le(p + 58, 2), shnum = read_le(p + 60, 2);
        if (!table_fits(phoff, phnum, phentsize, size) || !table_fits(shoff, shnum, shentsize, size)) {
            snprintf(why, why_len, "truncated ELF image: its headers reach past the %zu bytes given", size);
            return 0;
        }
        return 1;
    }
    if (size >= 4 && read_le(p, 4) == 0xBA55ED50u) {
        *kind = IMAGE_FATBIN;
        /* magic (4), version (2), header size (2), size of the rest (8). */
        if (size < 16) {
            snprintf(why, why_len, "truncated fatbin header (%zu bytes)", size);
            return 0;
        }
        uint64_t header = read_le(p + 6, 2), body = read_le(p + 8, 8);
        if (!table_fits(header, 1, body, size)) {
            snprintf(why, why_len, "truncated fatbin image: it declares %llu bytes, %zu given",
                     (unsigned long long)(header + body), size);
            return 0;
        }
        return 1;
    }
    *kind = IMAGE_PTX;
    return 1;
}

static void link_module(cutec_runtime *rt, cutec_module *m)
{
    m->rt = rt;
    m->prev = NULL;
    m->next = rt->modules;
    if (rt->modules != NULL) rt->modules->prev = m;
    rt->modules = m;
}

static void unlink_module(cutec_module *m)
{
    if (m->prev != NULL)
        m->prev->next = m->next;
    else
        m->rt->modules = m->next;
    if (m->next != NULL) m->next->prev = m->prev;
    m->prev = m->next = NULL;
}

/* The shared part of both load calls; arguments already checked. */
static cutec_status load_image(cutec_runtime *rt, const unsigned char *data, size_t size, const char *origin,
                               cutec_module **out)
{
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    image_kind kind;
    char why[256];
    if (!classify(data, size, &kind, why, sizeof why))
        return cutec_rt_fail(rt, CUTEC_ERR_MODULE_LOAD, "%s: %s", origin, why);

    /* PTX is read up to its first NUL; give it one when the buffer has none. */
    unsigned char *copy = NULL;
    const void *image = data;
    if (kind == IMAGE_PTX && memchr(data, '\0', size) == NULL) {
        copy = malloc(size + 1);
        if (copy == NULL)
            return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "%s: no memory to copy %zu bytes of PTX", origin, size);
        memcpy(copy, data, size);
        copy[size] = '\0';
        image = copy;
    }

    cutec_module *m = calloc(1, sizeof *m);
    char *logs = calloc(2, JIT_LOG_BYTES);
    if (m == NULL || logs == NULL) {
        free(m);
        free(logs);
        free(copy);
        return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "%s: out of host memory", origin);
    }
    char *error_log = logs, *info_log = logs + JIT_LOG_BYTES;
    CUjit_option opts[4] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    /* Sizes are passed by value in the pointer slot, as cuda.h specifies. */
    void *vals[4] = {error_log, (void *)(uintptr_t)JIT_LOG_BYTES, info_log, (void *)(uintptr_t)JIT_LOG_BYTES};
    CUresult r = rt->drv.module_load_data_ex(&m->mod, image, 4, opts, vals);
    free(copy);
    error_log[JIT_LOG_BYTES - 1] = '\0';
    info_log[JIT_LOG_BYTES - 1] = '\0';

    if (r != CUDA_SUCCESS) {
        s = cutec_rt_status_from_curesult(r, CUTEC_RT_PHASE_MODULE_LOAD);
        const char *desc = cutec_rt_driver_error_string(&rt->drv, r);
        cutec_rt_fail(rt, s, "cuModuleLoadDataEx(%s, %s, %zu bytes) failed: %s (%d)%s%s\nJIT error log:\n%s", origin,
                      image_kind_name(kind), size, cutec_rt_driver_error_name(&rt->drv, r), r,
                      desc[0] != '\0' ? ": " : "", desc, error_log[0] != '\0' ? error_log : "(empty)");
        free(logs);
        free(m);
        return s;
    }
    if (info_log[0] != '\0') cutec_rt_log(rt, CUTEC_LOG_INFO, "JIT info log for %s:\n%s", origin, info_log);
    free(logs);
    link_module(rt, m);
    *out = m;
    return CUTEC_OK;
}

cutec_status cutec_module_load_data(cutec_runtime *rt, const void *data, size_t size, cutec_module **out)
{
    if (out != NULL) *out = NULL;
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (out == NULL || data == NULL || size == 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_module_load_data: %s",
                             out == NULL    ? "out is NULL"
                             : data == NULL ? "data is NULL"
                                            : "size is 0");
    return load_image(rt, data, size, "image in memory", out);
}

/* Reads a whole file; on failure sets the message and returns the status. */
cutec_status cutec_rt_read_file(cutec_runtime *rt, const char *path, unsigned char **data, size_t *size)
{
    char why[CUTEC_MESSAGE_MAX];
    cutec_file_error e = cutec_file_read(path, CUTEC_FILE_MAX_BYTES, data, size, why, sizeof why);
    if (e == CUTEC_FILE_OK) return CUTEC_OK;
    return cutec_rt_fail(rt, e == CUTEC_FILE_NO_MEMORY ? CUTEC_ERR_OUT_OF_MEMORY : CUTEC_ERR_IO, "%s", why);
}

cutec_status cutec_module_load_file(cutec_runtime *rt, const char *path, cutec_module **out)
{
    if (out != NULL) *out = NULL;
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (path == NULL || out == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_module_load_file: %s is NULL",
                             path == NULL ? "path" : "out");
    /* The file is read before the runtime's state is looked at, so that a bad
   * path is reported as such even on a machine without a GPU. */
    unsigned char *data = NULL;
    size_t size = 0;
    cutec_status s = cutec_rt_read_file(rt, path, &data, &size);
    if (s != CUTEC_OK) return s;
    if (size == 0) {
        free(data);
        s = cutec_rt_enter(rt);
        if (s != CUTEC_OK) return s;
        return cutec_rt_fail(rt, CUTEC_ERR_MODULE_LOAD, "'%s' is empty", path);
    }
    char origin[512];
    snprintf(origin, sizeof origin, "'%s'", path);
    s = load_image(rt, data, size, origin, out);
    free(data);
    return s;
}

void cutec_module_unload(cutec_module *m)
{
    if (m == NULL) return;
    cutec_runtime *rt = m->rt;
    unlink_module(m);
    for (cutec_kernel *k = m->kernels, *next; k != NULL; k = next) {
        next = k->next;
        free(k);
    }
    if (rt->drv.ctx_set_current(rt->ctx) == CUDA_SUCCESS) {
        CUresult r = rt->drv.module_unload(m->mod);
        if (r != CUDA_SUCCESS)
            cutec_rt_log(rt, CUTEC_LOG_WARNING, "cuModuleUnload failed: %s (%d)",
                         cutec_rt_driver_error_name(&rt->drv, r), r);
    }
    free(m);
}

cutec_status cutec_module_get_kernel(cutec_module *m, const char *name, cutec_kernel **out)
{
    if (out != NULL) *out = NULL;
    if (m == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = m->rt;
    if (name == NULL || out == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_module_get_kernel: %s is NULL",
                             name == NULL ? "name" : "out");
    for (cutec_kernel *k = m->kernels; k != NULL; k = k->next) {
        if (strcmp(k->name, name) == 0) {
            *out = k;
            return CUTEC_OK;
        }
    }
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    CUfunction fn = NULL;
    CUresult r = rt->drv.module_get_function(&fn, m->mod, name);
    if (r != CUDA_SUCCESS)
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GET_KERNEL, "cuModuleGetFunction(\"%s\")", name);
    size_t len = strlen(name);
    cutec_kernel *k = malloc(sizeof *k + len + 1);
    if (k == NULL) return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for kernel '%s'", name);
    k->module = m;
    k->fn = fn;
    k->dyn_smem_limit = CUTEC_DEFAULT_DYNAMIC_SMEM_LIMIT;
    memcpy(k->name, name, len + 1);
    k->next = m->kernels;
    m->kernels = k;
    *out = k;
    return CUTEC_OK;
}

cutec_status cutec_kernel_info(cutec_kernel *k, int *num_regs, int *static_smem_bytes, int *max_threads_per_block)
{
    if (k == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = k->module->rt;
    cutec_status s = cutec_rt_enter(rt);
    if (s != CUTEC_OK) return s;
    struct {
        int *dst;
        CUfunction_attribute attr;
        const char *what;
    } q[] = {
        {num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS"},
        {static_smem_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES"},
        {max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK"},
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        if (q[i].dst == NULL) continue;
        CUresult r = rt->drv.func_get_attribute(q[i].dst, q[i].attr, k->fn);
        if (r != CUDA_SUCCESS)
            return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuFuncGetAttribute(%s, \"%s\")", q[i].what,
                                        k->name);
    }
    return CUTEC_OK;
}
