/*
 * pack_format.h - the on-disk format of a kernel pack (`cutec pack`), shared
 * by the writer in the compiler (compiler/pack.c) and the reader in the
 * runtime (runtime/pack.c).  Pure C: no LLVM, no CUDA.
 *
 * Layout (every integer little-endian, offsets from the start of the file):
 *
 *   header (CUTEC_PACK_HEADER_SIZE = 96 bytes)
 *     0  magic "CUTECPAK"                          8 bytes
 *     8  format version (CUTEC_PACK_FORMAT_VERSION) u32
 *    12  header size (96)                          u32
 *    16  cutec version number (MAJOR*10000+...)    u32
 *    20  entry count                               u32
 *    24  target arch, NUL-padded ("sm_80")         16 bytes
 *    40  source hash (FNV-1a 64, see below)        u64
 *    48  file size in bytes                        u64
 *    56  offset of the entry table                 u64
 *    64  reserved (0)                              24 bytes
 *    88  file checksum                             u64
 *   entry table: entry count records of CUTEC_PACK_ENTRY_SIZE = 64 bytes
 *     0  manifest offset, size                     u64, u64
 *    16  PTX offset, size                          u64, u64
 *    32  cubin offset, size (0, 0: no cubin)       u64, u64
 *    48  entry checksum                            u64
 *    56  reserved (0)                              u64
 *   data: manifests, PTX and cubins, each 16-byte aligned, zero padding.
 *
 * The file checksum is FNV-1a 64 over the whole file with the checksum field
 * read as zero, so any flipped byte is caught; the entry checksum covers the
 * entry's manifest, PTX and cubin bytes, so the reader can say which entry is
 * damaged.  The file size field catches truncation before the checksum is
 * even computed.  A manifest is the entry's kernel contract in its line
 * format (contract/kdesc.h, docs/contract.md).
 */
#ifndef CUTEC_CONTRACT_PACK_FORMAT_H
#define CUTEC_CONTRACT_PACK_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define CUTEC_PACK_MAGIC     "CUTECPAK"
#define CUTEC_PACK_MAGIC_LEN 8
/* 2: manifests are kernel contracts (contract/kdesc.h) */
#define CUTEC_PACK_FORMAT_VERSION  2u
#define CUTEC_PACK_HEADER_SIZE     96u
#define CUTEC_PACK_ENTRY_SIZE      64u
#define CUTEC_PACK_ARCH_LEN        16u
#define CUTEC_PACK_CHECKSUM_OFFSET 88u
#define CUTEC_PACK_MAX_ENTRIES     100000u

/* FNV-1a 64-bit: start with CUTEC_FNV_OFFSET, feed bytes. */
#define CUTEC_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t cutec_fnv1a(uint64_t h, const void *data, size_t len);

/* One entry as written or as read (pointers into the caller's buffers). */
typedef struct cutec_packfmt_entry {
    const char *manifest;
    size_t manifest_size;
    const char *ptx;
    size_t ptx_size;
    const unsigned char *cubin; /* NULL when there is none */
    size_t cubin_size;
} cutec_packfmt_entry;

typedef struct cutec_packfmt_header {
    uint32_t format_version;
    uint32_t cutec_version;
    uint32_t entry_count;
    char arch[CUTEC_PACK_ARCH_LEN + 1]; /* NUL-terminated */
    uint64_t source_hash;
    uint64_t file_size;
} cutec_packfmt_header;

/* Serialises a pack into a malloc'ed buffer (*out, *out_size).  Returns 0, or
 * -1 when memory is exhausted or arch does not fit. */
int cutec_packfmt_write(const char *arch, uint32_t cutec_version, uint64_t source_hash,
                        const cutec_packfmt_entry *entries, uint32_t count, unsigned char **out, size_t *out_size);

/* What is wrong with a buffer that claims to be a pack. */
typedef enum cutec_packfmt_error {
    CUTEC_PACKFMT_OK = 0,
    CUTEC_PACKFMT_BAD_MAGIC, /* not a pack at all */
    CUTEC_PACKFMT_VERSION,   /* a pack of another format version */
    CUTEC_PACKFMT_TRUNCATED, /* shorter than its header says */
    CUTEC_PACKFMT_CORRUPT    /* checksum mismatch or inconsistent table */
} cutec_packfmt_error;

/*
 * Checks a whole pack: magic, format version, size, checksums, and that every
 * entry lies inside the buffer.  Fills *h (also on most failures, as far as
 * the header could be read) and, on success, entries[0 .. entry_count) when
 * entries != NULL (the caller sizes it from a first call with entries ==
 * NULL, or from h->entry_count).  On failure writes a sentence to why.
 */
cutec_packfmt_error cutec_packfmt_parse(const unsigned char *data, size_t size, cutec_packfmt_header *h,
                                        cutec_packfmt_entry *entries, char *why, size_t why_len);

#endif /* CUTEC_CONTRACT_PACK_FORMAT_H */
