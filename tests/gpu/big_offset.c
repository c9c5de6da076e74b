/*
 * big_offset.c - GPU check of 64-bit index math (tests/gpu/kernels/
 * big_offset.cute, compiled by scripts/gpu-prepare.sh into
 * prebuilt/big_offset.ptx): on one 5 GiB buffer, `rows` writes the last 64
 * rows of an 81920 x 32768 f16 matrix of i32 sizes (element offsets from
 * 2^31 + ... up to 2^31.3, past what 32-bit index math reaches), `strided`
 * two rows 2^31 + 64 elements apart (an i64 leading dimension; row 1 starts
 * past 4 GiB), `tail` the last 1000 elements through an i64 coordinate.
 * The regions are poisoned first and read back exactly: every element is
 * (row + column) % 1024, and the poison between `strided`'s rows, past its
 * row length, stays.  32-bit offsets would wrap below the buffer (a fault)
 * or write the wrong rows.
 *
 * Usage: big_offset FILE.ptx.  Exit status: 0 passed, 1 failed, 2 usage,
 * 77 no GPU (no driver, no device, or less than 5 GiB free).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/runtime.h"

#define SKIP  77
#define BYTES (5ull << 30)

/* f16 of a small integer (0..1023, exact), as the kernel's conversion gives it */
static uint16_t f16_of(unsigned v)
{
    if (v == 0) return 0;
    int e = 0;
    while ((v >> e) > 1) e++;
    unsigned mant = (v << (10 - e)) & 0x3ffu; /* e <= 9, so exact */
    return (uint16_t)(((unsigned)(e + 15) << 10) | mant);
}

typedef struct Region {
    unsigned long long first; /* element index */
    unsigned long long count;
} Region;

static cutec_status poison(cutec_runtime *rt, unsigned long long buf, Region r, uint16_t *host)
{
    memset(host, 0xFF, r.count * 2);
    return cutec_memcpy_htod(rt, buf + 2 * r.first, host, r.count * 2);
}

/* element i of region r must be want(i); returns the first mismatch or -1 */
static long long check(const uint16_t *got, Region r, unsigned long long ld, unsigned long long len, char *why,
                       size_t wl)
{
    for (unsigned long long i = 0; i < r.count; i++) {
        unsigned long long e = r.first + i, row = ld ? e / ld : 0, col = ld ? e % ld : e;
        uint16_t want = col < len ? f16_of((unsigned)((row + col) % 1024)) : 0xFFFF;
        if (!ld) want = f16_of((unsigned)(e % 1024));
        if (got[i] != want) {
            snprintf(why, wl, "element %llu (row %llu, column %llu) is 0x%04x, want 0x%04x", e, row, col, got[i], want);
            return (long long)i;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: big_offset FILE.ptx\n");
        return 2;
    }
    cutec_runtime *rt = NULL;
    cutec_module *mod = NULL;
    cutec_kernel *k = NULL;
    unsigned long long buf = 0;
    int rc = 1;
    const char *what = "cutec_runtime_create";
    cutec_status st = cutec_runtime_create(&rt, 0);
    if (st == CUTEC_ERR_NO_DRIVER || st == CUTEC_ERR_NO_DEVICE) {
        printf("SKIP big_offset: no GPU (%s)\n", cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        return SKIP;
    }
    if (st != CUTEC_OK) goto fail;
    what = "module";
    if ((st = cutec_module_load_file(rt, argv[1], &mod)) != CUTEC_OK) goto fail;
    st = cutec_malloc(rt, BYTES, &buf);
    if (st == CUTEC_ERR_OUT_OF_MEMORY) {
        printf("SKIP big_offset: no 5 GiB buffer (%s)\n", cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        return SKIP;
    }
    what = "device memory";
    if (st != CUTEC_OK) goto fail;
    const unsigned long long ELEMS = BYTES / 2, LD = (1ull << 31) + 64;
    int M = 81920, N = 32768, M2 = 2, N2 = 128;
    long long L = (long long)ELEMS, base = L - 1000, ld = (long long)LD;
    static const struct {
        const char *name;
        unsigned blocks;
    } runs[3] = {{"rows", 64}, {"strided", 2}, {"tail", 8}};
    /* what each writes: rows M-64..M-1; rows 0 and 1 of the strided view and
     * the gap after row 0's 128 elements; the last 1000 elements */
    Region regs[3] = {{(unsigned long long)(M - 64) * (unsigned long long)N, 64ull * (unsigned long long)N},
                      {LD - 256, 2 * 256 + (unsigned long long)N2},
                      {(unsigned long long)base, 1000}};
    uint16_t *host = malloc(regs[0].count * 2);
    what = "host memory";
    if (!host) goto fail;
    void *args[3][4] = {{&M, &N, &buf}, {&M2, &N2, &ld, &buf}, {&L, &base, &buf}};
    for (int r = 0; r < 3; r++) {
        what = "poison";
        if ((st = poison(rt, buf, regs[r], host)) != CUTEC_OK) goto fail;
        /* strided also checks its row 0 (elements 0..127) */
        if (r == 1 && (st = poison(rt, buf, (Region){0, 256}, host)) != CUTEC_OK) goto fail;
        what = runs[r].name;
        unsigned grid[3] = {runs[r].blocks, 1, 1}, block[3] = {128, 1, 1};
        if ((st = cutec_module_get_kernel(mod, runs[r].name, &k)) != CUTEC_OK ||
            (st = cutec_launch(k, grid, block, 0, NULL, args[r])) != CUTEC_OK ||
            (st = cutec_synchronize(rt)) != CUTEC_OK)
            goto fail;
        char why[200];
        Region parts[2] = {regs[r], {0, 256}};
        for (int p = 0; p < (r == 1 ? 2 : 1); p++) {
            what = "copy back";
            if ((st = cutec_memcpy_dtoh(rt, host, buf + 2 * parts[p].first, parts[p].count * 2)) != CUTEC_OK) goto fail;
            unsigned long long rld = r == 0 ? (unsigned long long)N : r == 1 ? LD : 0;
            unsigned long long len = r == 0 ? (unsigned long long)N : r == 1 ? (unsigned long long)N2 : 0;
            if (check(host, parts[p], rld, len, why, sizeof why) >= 0) {
                printf("FAIL big_offset %s: %s\n", runs[r].name, why);
                free(host);
                goto out;
            }
        }
        printf("PASS big_offset %s: %llu elements from element %llu (byte %llu)\n", runs[r].name, regs[r].count,
               regs[r].first, 2 * regs[r].first);
    }
    free(host);
    rc = 0;
    goto out;
fail:
    printf("FAIL big_offset: %s: %s: %s\n", what, cutec_status_string(st), cutec_runtime_message(rt));
out:
    if (rt) cutec_free(rt, buf);
    cutec_runtime_destroy(rt);
    return rc;
}
