/*
 * cutec/pack.h - kernel packs: the file `cutec pack FILE.cute` writes, holding
 * for every tune point of every kernel of a source file its manifest (the
 * "// cutec." lines: kernel name, threads, shared memory, template values,
 * parameters and grid rule), its PTX and, where ptxas was found, its cubin.
 * Loading a pack needs no LLVM.  A pack is checked when loaded (format,
 * checksums, cutec version, architecture against the device); modules are
 * loaded lazily, when an entry is first launched.  A pack belongs to the
 * runtime that loaded it: destroying the runtime unloads it.
 */
#ifndef CUTEC_PACK_H
#define CUTEC_PACK_H

#include "cutec/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cutec_pack cutec_pack;

/*
 * Reads and checks a pack.  Format problems are reported first, before the
 * device is looked at (so a bad file is named as such on a machine without a
 * GPU): CUTEC_ERR_IO (unreadable), CUTEC_ERR_PACK_FORMAT (not a pack),
 * CUTEC_ERR_PACK_VERSION (other container version), CUTEC_ERR_PACK_TRUNCATED,
 * CUTEC_ERR_PACK_CORRUPT (checksum, table or manifest), then
 * CUTEC_ERR_PACK_CUTEC_VERSION (other cutec major.minor), then the runtime's
 * creation status if it failed, then CUTEC_ERR_PACK_ARCH (an sm_90a pack on
 * anything but a 9.0 device, an sm_80 pack on a device older than 8.0).
 * *out is NULL after a failure.
 */
cutec_status cutec_pack_load_file(cutec_runtime *rt, const char *path, cutec_pack **out);
/* Same from memory; the data is copied, the caller may free it. */
cutec_status cutec_pack_load_data(cutec_runtime *rt, const void *data, size_t size, cutec_pack **out);
/* Unloads the pack and the modules loaded from it.  NULL is accepted. */
void cutec_pack_unload(cutec_pack *pack);

/* Facts about a loaded pack (0 / "" for NULL). */
int cutec_pack_entry_count(const cutec_pack *pack);
const char *cutec_pack_arch(const cutec_pack *pack);               /* "sm_80", "sm_90a" */
unsigned long long cutec_pack_source_hash(const cutec_pack *pack); /* FNV-1a of the sources */
int cutec_pack_cutec_version(const cutec_pack *pack);              /* CUTEC_VERSION_NUMBER form */

/* Entry i (0-based): kernel name, manifest text (the "// cutec." lines), and
 * the value of a template parameter (NULL when there is none of that name or
 * i is out of range). */
const char *cutec_pack_entry_kernel(const cutec_pack *pack, int i);
const char *cutec_pack_entry_manifest(const cutec_pack *pack, int i);
const char *cutec_pack_entry_param(const cutec_pack *pack, int i, const char *name);
/* "gemm_sm80 T=bf16 TC=bf16 BM=128 ..." into buf (always NUL-terminated). */
void cutec_pack_entry_describe(const cutec_pack *pack, int i, char *buf, size_t len);
/*
 * The first entry of kernel `kernel` whose template values include every
 * "NAME=VALUE" of `params` (space separated; NULL or "" matches any), or -1.
 */
int cutec_pack_find(const cutec_pack *pack, const char *kernel, const char *params);

/* The kernel of entry i, loading its module (cubin when the device can run
 * it, else PTX) on first use. */
cutec_status cutec_pack_get_kernel(cutec_pack *pack, int i, cutec_kernel **out);

/*
 * Launches entry i.  args holds one pointer per kernel parameter (as for
 * cutec_launch; a tensor parameter is the address of its 64-bit device
 * pointer).  The block comes from the manifest's threads, the dynamic shared
 * memory from its smem_dynamic, and the grid from `grid` or, when grid is
 * NULL, from the manifest's grid rule evaluated with the scalar arguments
 * (CUTEC_ERR_INVALID_ARGUMENT if the manifest has none, if an expression
 * names an unknown parameter or divides by zero, or if a component is not in
 * 1 .. 2^31-1).
 */
cutec_status cutec_pack_launch(cutec_pack *pack, int i, const unsigned grid[3], void *stream, void **args);

#ifdef __cplusplus
}
#endif

#endif /* CUTEC_PACK_H */
