/*
 * fuzz_manifest.c - libFuzzer harness: the input is the manifest text of a
 * pack entry.  The harness wraps the bytes, unchanged, as the manifest of
 * the one entry of an sm_80 pack written by the real pack writer
 * (cutec_packfmt_write, runtime/pack_format.h), so that the container and
 * its checksums are right whatever the manifest says; it knows nothing of
 * the manifest's format.  The entry's PTX is the manifest again (the
 * compiler writes those lines before the PTX, and the mock driver reads the
 * template values from them) followed by a stub module with the entry
 * points of the GEMM templates.  Then as fuzz_pack.c: load, queries,
 * cutec_gemm_use_pack and cutec_gemm under the mock driver (fuzz_gemm.h).
 * The seeds are the manifests of real packs that `cutec pack` writes at
 * build time.
 */
#include "fuzz_gemm.h"
#include "pack_format.h"

/* What the mock driver checks of a module: a .version, balanced braces and
 * ".entry NAME(" for each kernel looked up. */
static const char stub_ptx[] = "\n.version 8.0\n.target sm_80\n.address_size 64\n"
                               ".visible .entry gemm_sm80()\n{\n\tret;\n}\n"
                               ".visible .entry gemm_sm90()\n{\n\tret;\n}\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_gemm_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *ptx = malloc(size + sizeof stub_ptx);
    if (ptx == NULL) abort();
    if (size > 0) memcpy(ptx, data, size);
    memcpy(ptx + size, stub_ptx, sizeof stub_ptx);
    cutec_packfmt_entry e = {
        .manifest = (const char *)data, .manifest_size = size, .ptx = ptx, .ptx_size = size + sizeof stub_ptx - 1};
    unsigned char *pack = NULL;
    size_t pack_size = 0;
    if (cutec_packfmt_write("sm_80", CUTEC_VERSION_NUMBER, 0x5eed, &e, 1, &pack, &pack_size) != 0) abort();
    fuzz_gemm_run(pack, pack_size);
    free(pack);
    free(ptx);
    return 0;
}
