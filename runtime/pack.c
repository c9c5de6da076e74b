/*
 * pack.c - loading kernel packs (pack_format.h) and launching their entries
 * from the manifest.  The file is checked completely before anything else
 * happens, and before the device is consulted, so that a damaged file is
 * named as damaged on any machine.  Modules are loaded per entry and only
 * when first used: a GEMM pack has over a hundred entries and most problems
 * need a few of them.  The cubin is preferred where the device can run it
 * (same major compute capability, minor at least the target's; exactly 9.0
 * for an sm_90a pack), the PTX otherwise (the driver compiles it).
 */
#include "cutec/tensor_map.h"
#include "arch.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "sm_90a" -> 9, 0, 1.  0 when the name is not of that form. */
static cutec_status format_status(cutec_packfmt_error e)
{
    switch (e) {
    case CUTEC_PACKFMT_OK: return CUTEC_OK;
    case CUTEC_PACKFMT_BAD_MAGIC: return CUTEC_ERR_PACK_FORMAT;
    case CUTEC_PACKFMT_VERSION: return CUTEC_ERR_PACK_VERSION;
    case CUTEC_PACKFMT_TRUNCATED: return CUTEC_ERR_PACK_TRUNCATED;
    case CUTEC_PACKFMT_CORRUPT: break;
    }
    return CUTEC_ERR_PACK_CORRUPT;
}

static void free_pack(cutec_pack *p)
{
    if (p == NULL) return;
    for (int i = 0; i < p->count; i++) free(p->entries[i].manifest_text);
    free(p->entries);
    free(p->data);
    free(p);
}

/* Takes ownership of data. */
static cutec_status load_pack(cutec_runtime *rt, unsigned char *data, size_t size, const char *origin, cutec_pack **out)
{
    cutec_pack *p = calloc(1, sizeof *p);
    if (p == NULL) {
        free(data);
        return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "%s: out of host memory", origin);
    }
    p->rt = rt;
    p->data = data;
    p->size = size;
    char why[512];
    cutec_packfmt_error fe = cutec_packfmt_parse(data, size, &p->h, NULL, why, sizeof why);
    if (fe != CUTEC_PACKFMT_OK) {
        free_pack(p);
        return cutec_rt_fail(rt, format_status(fe), "%s: %s", origin, why);
    }
    p->count = (int)p->h.entry_count;
    p->entries = calloc((size_t)p->count + 1, sizeof *p->entries);
    cutec_packfmt_entry *fmt = calloc((size_t)p->count + 1, sizeof *fmt);
    if (p->entries == NULL || fmt == NULL) {
        free(fmt);
        free_pack(p);
        return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "%s: out of host memory", origin);
    }
    (void)cutec_packfmt_parse(data, size, &p->h, fmt, why, sizeof why);
    for (int i = 0; i < p->count; i++) {
        cutec_pack_entry *e = &p->entries[i];
        e->fmt = fmt[i];
        e->manifest_text = malloc(e->fmt.manifest_size + 1);
        if (e->manifest_text == NULL) {
            free(fmt);
            free_pack(p);
            return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "%s: out of host memory", origin);
        }
        memcpy(e->manifest_text, e->fmt.manifest, e->fmt.manifest_size);
        e->manifest_text[e->fmt.manifest_size] = '\0';
        if (cutec_kdesc_read(e->manifest_text, e->fmt.manifest_size, &e->desc, why, sizeof why) != 0) {
            free(fmt);
            free_pack(p);
            return cutec_rt_fail(rt, CUTEC_ERR_PACK_CORRUPT, "%s: entry %d: bad manifest: %s", origin, i, why);
        }
    }
    free(fmt);

    int mine = CUTEC_VERSION_NUMBER / 100, theirs = (int)(p->h.cutec_version / 100);
    if (mine != theirs) {
        unsigned v = p->h.cutec_version;
        free_pack(p);
        return cutec_rt_fail(rt, CUTEC_ERR_PACK_CUTEC_VERSION,
                             "%s: built by cutec %u.%u.%u, but this runtime is %s (major.minor must "
                             "match); rebuild the pack",
                             origin, v / 10000, v / 100 % 100, v % 100, cutec_version_string());
    }
    int amaj, amin, aspec;
    if (!cutec_arch_parse(p->h.arch, &amaj, &amin, &aspec)) {
        char arch[sizeof p->h.arch];
        memcpy(arch, p->h.arch, sizeof arch);
        free_pack(p);
        return cutec_rt_fail(rt, CUTEC_ERR_PACK_CORRUPT, "%s: unknown target architecture '%s'", origin, arch);
    }

    cutec_status s = cutec_rt_enter(rt);
    int cmaj = 0, cmin = 0;
    char name[128] = "";
    if (s == CUTEC_OK) s = cutec_device_info(rt, name, sizeof name, &cmaj, &cmin, NULL);
    if (s != CUTEC_OK) {
        free_pack(p);
        return s;
    }
    cutec_arch_info target = {.major = amaj, .minor = amin, .specific = aspec};
    int runs = cutec_arch_runs_on(&target, cmaj, cmin);
    if (!runs) {
        char arch[sizeof p->h.arch];
        memcpy(arch, p->h.arch, sizeof arch);
        free_pack(p);
        return cutec_rt_fail(rt, CUTEC_ERR_PACK_ARCH,
                             "%s: built for %s, but device %d (%s) is sm_%d%d%s; build the pack "
                             "with --arch for this device",
                             origin, arch, rt->ordinal, name, cmaj, cmin,
                             aspec ? " (an sm_XYa pack runs only on exactly that architecture)" : "");
    }
    p->use_cubin = cmaj == amaj && cmin >= amin && (!aspec || cmin == amin);
    p->next = rt->packs;
    if (rt->packs != NULL) rt->packs->prev = p;
    rt->packs = p;
    *out = p;
    return CUTEC_OK;
}

cutec_status cutec_pack_load_data(cutec_runtime *rt, const void *data, size_t size, cutec_pack **out)
{
    if (out != NULL) *out = NULL;
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (out == NULL || data == NULL || size == 0)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_pack_load_data: %s",
                             out == NULL    ? "out is NULL"
                             : data == NULL ? "data is NULL"
                                            : "size is 0");
    unsigned char *copy = malloc(size);
    if (copy == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_pack_load_data: no memory for %zu bytes", size);
    memcpy(copy, data, size);
    return load_pack(rt, copy, size, "pack in memory", out);
}

cutec_status cutec_pack_load_file(cutec_runtime *rt, const char *path, cutec_pack **out)
{
    if (out != NULL) *out = NULL;
    if (rt == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (path == NULL || out == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_pack_load_file: %s is NULL",
                             path == NULL ? "path" : "out");
    unsigned char *data = NULL;
    size_t size = 0;
    cutec_status s = cutec_rt_read_file(rt, path, &data, &size);
    if (s != CUTEC_OK) return s;
    char origin[512];
    snprintf(origin, sizeof origin, "'%s'", path);
    return load_pack(rt, data, size, origin, out);
}

void cutec_pack_unload(cutec_pack *pack)
{
    if (pack == NULL) return;
    cutec_runtime *rt = pack->rt;
    cutec_rt_layers_pack_unload(rt, pack);
    for (int i = 0; i < pack->count; i++) cutec_module_unload(pack->entries[i].module);
    if (pack->prev != NULL)
        pack->prev->next = pack->next;
    else
        rt->packs = pack->next;
    if (pack->next != NULL) pack->next->prev = pack->prev;
    free_pack(pack);
}

int cutec_pack_entry_count(const cutec_pack *pack) { return pack != NULL ? pack->count : 0; }
const char *cutec_pack_arch(const cutec_pack *pack) { return pack != NULL ? pack->h.arch : ""; }
unsigned long long cutec_pack_source_hash(const cutec_pack *pack)
{
    return pack != NULL ? (unsigned long long)pack->h.source_hash : 0;
}
int cutec_pack_cutec_version(const cutec_pack *pack) { return pack != NULL ? (int)pack->h.cutec_version : 0; }

static const cutec_pack_entry *entry_at(const cutec_pack *pack, int i)
{
    return pack != NULL && i >= 0 && i < pack->count ? &pack->entries[i] : NULL;
}

const char *cutec_pack_entry_kernel(const cutec_pack *pack, int i)
{
    const cutec_pack_entry *e = entry_at(pack, i);
    return e != NULL ? e->desc.kernel : NULL;
}

const char *cutec_pack_entry_manifest(const cutec_pack *pack, int i)
{
    const cutec_pack_entry *e = entry_at(pack, i);
    return e != NULL ? e->manifest_text : NULL;
}

const char *cutec_pack_entry_param(const cutec_pack *pack, int i, const char *name)
{
    const cutec_pack_entry *e = entry_at(pack, i);
    return e != NULL && name != NULL ? cutec_kdesc_param(&e->desc, name) : NULL;
}

void cutec_pack_entry_describe(const cutec_pack *pack, int i, char *buf, size_t len)
{
    if (buf == NULL || len == 0) return;
    buf[0] = '\0';
    const cutec_pack_entry *e = entry_at(pack, i);
    if (e == NULL) return;
    cutec_kdesc_describe(&e->desc, buf, len);
}

int cutec_pack_find(const cutec_pack *pack, const char *kernel, const char *params)
{
    if (pack == NULL || kernel == NULL) return -1;
    for (int i = 0; i < pack->count; i++) {
        const cutec_kdesc *m = &pack->entries[i].desc;
        if (strcmp(m->kernel, kernel) != 0) continue;
        int ok = 1;
        const char *p = params != NULL ? params : "";
        while (ok && *p) {
            while (*p == ' ') p++;
            const char *e = p;
            while (*e && *e != ' ') e++;
            const char *eq = memchr(p, '=', (size_t)(e - p));
            if (e > p) {
                ok = 0;
                for (int j = 0; eq != NULL && j < m->nparams && !ok; j++) {
                    const char *pn = cutec_kd_s(m, m->pname[j]), *pv = cutec_kd_s(m, m->pvalue[j]);
                    ok = strlen(pn) == (size_t)(eq - p) && memcmp(pn, p, (size_t)(eq - p)) == 0 &&
                         strlen(pv) == (size_t)(e - eq - 1) && memcmp(pv, eq + 1, (size_t)(e - eq - 1)) == 0;
                }
            }
            p = e;
        }
        if (ok) return i;
    }
    return -1;
}

cutec_status cutec_rt_pack_kernel(cutec_pack *pack, int i, cutec_kernel **out)
{
    cutec_pack_entry *e = &pack->entries[i];
    *out = NULL;
    if (e->kernel != NULL) {
        *out = e->kernel;
        return CUTEC_OK;
    }
    if (e->load_status != CUTEC_OK) return e->load_status; /* failed before: do not pay for it again */
    cutec_runtime *rt = pack->rt;
    cutec_status s;
    if (pack->use_cubin && e->fmt.cubin != NULL)
        s = cutec_module_load_data(rt, e->fmt.cubin, e->fmt.cubin_size, &e->module);
    else
        s = cutec_module_load_data(rt, e->fmt.ptx, e->fmt.ptx_size, &e->module);
    if (s == CUTEC_OK) s = cutec_module_get_kernel(e->module, e->desc.kernel, &e->kernel);
    if (s != CUTEC_OK) {
        cutec_module_unload(e->module);
        e->module = NULL;
        e->kernel = NULL;
        if (s != CUTEC_ERR_KERNEL_FAULT && s != CUTEC_ERR_NO_DRIVER && s != CUTEC_ERR_NO_DEVICE) e->load_status = s;
        return s;
    }
    *out = e->kernel;
    return CUTEC_OK;
}

cutec_status cutec_pack_get_kernel(cutec_pack *pack, int i, cutec_kernel **out)
{
    if (out != NULL) *out = NULL;
    if (pack == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    if (out == NULL || i < 0 || i >= pack->count)
        return cutec_rt_fail(pack->rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_pack_get_kernel: %s",
                             out == NULL ? "out is NULL" : "no such entry");
    return cutec_rt_pack_kernel(pack, i, out);
}

cutec_status cutec_pack_launch(cutec_pack *pack, int i, const unsigned grid[3], void *stream, void **args)
{
    if (pack == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    cutec_runtime *rt = pack->rt;
    if (i < 0 || i >= pack->count)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_pack_launch: entry %d (the pack has %d)", i,
                             pack->count);
    const cutec_kdesc *d = &pack->entries[i].desc;
    if (d->nargs > 0 && args == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                             "cutec_pack_launch: kernel '%s' takes %d arguments, args is NULL", d->kernel, d->nargs);
    cutec_kernel *k;
    cutec_status s = cutec_pack_get_kernel(pack, i, &k);
    if (s == CUTEC_OK) s = cutec_rt_enter(rt); /* for cutec_rt_kdesc_launch */
    if (s != CUTEC_OK) return s;
    /* the caller's args, with the tensor maps it left NULL built here */
    void *full[CUTEC_KD_MAX_ARGS];
    cutec_tensor_map maps[CUTEC_KD_MAX_ARGS];
    cutec_kd_values vals;
    cutec_kdesc_values_from_args(d, args, &vals);
    for (int a = 0; a < d->nargs; a++) {
        full[a] = args[a];
        const cutec_kd_arg *arg = &d->args[a];
        if (arg->kind != CUTEC_KD_TMA || args[a] != NULL) continue;
        if (args[arg->tensor] == NULL)
            return cutec_rt_fail(rt, CUTEC_ERR_INVALID_ARGUMENT,
                                 "cutec_pack_launch: tensor map '%s' of '%s' is NULL and so is its tensor",
                                 cutec_kd_s(d, arg->name), d->kernel);
        unsigned long long ptr;
        memcpy(&ptr, args[arg->tensor], sizeof ptr);
        s = cutec_rt_kdesc_tensor_map(rt, d, a, &vals, ptr, &maps[a]);
        if (s != CUTEC_OK) return s;
        full[a] = &maps[a];
    }
    cutec_launch_plan plan;
    s = cutec_rt_kdesc_plan(rt, k, d, &vals, grid, &plan);
    if (s != CUTEC_OK) return s;
    return cutec_rt_kdesc_launch(k, d, &plan, stream, full);
}
