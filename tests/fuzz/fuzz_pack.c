/*
 * fuzz_pack.c - libFuzzer harness: the input is a whole kernel pack file.
 * It goes to cutec_pack_load_data as it is (container, checksums, manifest
 * parsing, version and architecture checks); a pack that loads is queried
 * entry by entry and given to cutec_gemm_use_pack and cutec_gemm on a small
 * problem under the mock driver (fuzz_gemm.h).  The seed is a real pack
 * that `cutec pack` writes at build time, so the harness follows the format
 * wherever it goes.  The container's checksums turn away almost every
 * mutated file early: fuzz_manifest.c reaches past them.
 */
#include "fuzz_gemm.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_gemm_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_gemm_run(data, size);
    return 0;
}
