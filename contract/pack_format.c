/*
 * pack_format.c - writing and checking the kernel pack container described
 * in pack_format.h.  Checking comes in a fixed order (magic, version, size,
 * file checksum, table bounds, entry checksums) so that each kind of damage
 * gets its own answer: a file that is not a pack is not called corrupt, a
 * truncated one is not called corrupt either.
 */
#include "pack_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t cutec_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static size_t align16(size_t n) { return (n + 15u) & ~(size_t)15u; }

/* File checksum: FNV-1a over everything, the checksum field read as zeros. */
static uint64_t file_checksum(const unsigned char *data, size_t size)
{
    static const unsigned char zeros[8];
    uint64_t h = cutec_fnv1a(CUTEC_FNV_OFFSET, data, CUTEC_PACK_CHECKSUM_OFFSET);
    h = cutec_fnv1a(h, zeros, 8);
    return cutec_fnv1a(h, data + CUTEC_PACK_CHECKSUM_OFFSET + 8, size - CUTEC_PACK_CHECKSUM_OFFSET - 8);
}

static uint64_t entry_checksum(const cutec_packfmt_entry *e)
{
    uint64_t h = cutec_fnv1a(CUTEC_FNV_OFFSET, e->manifest, e->manifest_size);
    h = cutec_fnv1a(h, e->ptx, e->ptx_size);
    if (e->cubin != NULL) h = cutec_fnv1a(h, e->cubin, e->cubin_size);
    return h;
}

int cutec_packfmt_write(const char *arch, uint32_t cutec_version, uint64_t source_hash,
                        const cutec_packfmt_entry *entries, uint32_t count, unsigned char **out, size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    size_t alen = strlen(arch);
    if (alen == 0 || alen > CUTEC_PACK_ARCH_LEN || count > CUTEC_PACK_MAX_ENTRIES) return -1;
    size_t table = CUTEC_PACK_HEADER_SIZE;
    size_t size = align16(table + (size_t)count * CUTEC_PACK_ENTRY_SIZE);
    for (uint32_t i = 0; i < count; i++)
        size += align16(entries[i].manifest_size) + align16(entries[i].ptx_size) +
                align16(entries[i].cubin != NULL ? entries[i].cubin_size : 0);
    unsigned char *buf = calloc(1, size);
    if (buf == NULL) return -1;
    memcpy(buf, CUTEC_PACK_MAGIC, CUTEC_PACK_MAGIC_LEN);
    put32(buf + 8, CUTEC_PACK_FORMAT_VERSION);
    put32(buf + 12, CUTEC_PACK_HEADER_SIZE);
    put32(buf + 16, cutec_version);
    put32(buf + 20, count);
    memcpy(buf + 24, arch, alen);
    put64(buf + 40, source_hash);
    put64(buf + 48, (uint64_t)size);
    put64(buf + 56, (uint64_t)table);
    size_t off = align16(table + (size_t)count * CUTEC_PACK_ENTRY_SIZE);
    for (uint32_t i = 0; i < count; i++) {
        const cutec_packfmt_entry *e = &entries[i];
        unsigned char *rec = buf + table + (size_t)i * CUTEC_PACK_ENTRY_SIZE;
        const void *parts[3] = {e->manifest, e->ptx, e->cubin};
        size_t sizes[3] = {e->manifest_size, e->ptx_size, e->cubin != NULL ? e->cubin_size : 0};
        for (int j = 0; j < 3; j++) {
            put64(rec + 16 * j, sizes[j] ? (uint64_t)off : 0);
            put64(rec + 16 * j + 8, (uint64_t)sizes[j]);
            if (sizes[j]) memcpy(buf + off, parts[j], sizes[j]);
            off += align16(sizes[j]);
        }
        put64(rec + 48, entry_checksum(e));
    }
    put64(buf + CUTEC_PACK_CHECKSUM_OFFSET, file_checksum(buf, size));
    *out = buf;
    *out_size = size;
    return 0;
}

/* 1 when [off, off + len) lies inside size, without overflow. */
static int span_fits(uint64_t off, uint64_t len, size_t size)
{
    return off <= (uint64_t)size && len <= (uint64_t)size - off;
}

cutec_packfmt_error cutec_packfmt_parse(const unsigned char *data, size_t size, cutec_packfmt_header *h,
                                        cutec_packfmt_entry *entries, char *why, size_t why_len)
{
    memset(h, 0, sizeof *h);
    if (size < CUTEC_PACK_MAGIC_LEN || memcmp(data, CUTEC_PACK_MAGIC, CUTEC_PACK_MAGIC_LEN) != 0) {
        snprintf(why, why_len, "not a cutec kernel pack (no \"%s\" magic at the start)", CUTEC_PACK_MAGIC);
        return CUTEC_PACKFMT_BAD_MAGIC;
    }
    if (size < 12) {
        snprintf(why, why_len, "truncated pack: %zu bytes, not even a header", size);
        return CUTEC_PACKFMT_TRUNCATED;
    }
    h->format_version = get32(data + 8);
    if (h->format_version != CUTEC_PACK_FORMAT_VERSION) {
        snprintf(why, why_len,
                 "pack format version %u, but this runtime reads version %u; rebuild the pack "
                 "with a matching cutec",
                 (unsigned)h->format_version, (unsigned)CUTEC_PACK_FORMAT_VERSION);
        return CUTEC_PACKFMT_VERSION;
    }
    if (size < CUTEC_PACK_HEADER_SIZE) {
        snprintf(why, why_len, "truncated pack: %zu bytes, the header alone has %u", size,
                 (unsigned)CUTEC_PACK_HEADER_SIZE);
        return CUTEC_PACKFMT_TRUNCATED;
    }
    h->cutec_version = get32(data + 16);
    h->entry_count = get32(data + 20);
    memcpy(h->arch, data + 24, CUTEC_PACK_ARCH_LEN);
    h->arch[CUTEC_PACK_ARCH_LEN] = '\0';
    h->source_hash = get64(data + 40);
    h->file_size = get64(data + 48);
    if (h->file_size > (uint64_t)size) {
        snprintf(why, why_len, "truncated pack: %zu bytes of the %llu its header declares", size,
                 (unsigned long long)h->file_size);
        return CUTEC_PACKFMT_TRUNCATED;
    }
    if (h->file_size < (uint64_t)size) {
        snprintf(why, why_len, "corrupt pack: %zu bytes, but its header declares %llu", size,
                 (unsigned long long)h->file_size);
        return CUTEC_PACKFMT_CORRUPT;
    }
    uint64_t want = get64(data + CUTEC_PACK_CHECKSUM_OFFSET), got = file_checksum(data, size);
    if (want != got) {
        snprintf(why, why_len, "corrupt pack: file checksum %016llx, expected %016llx", (unsigned long long)got,
                 (unsigned long long)want);
        return CUTEC_PACKFMT_CORRUPT;
    }
    uint32_t hsize = get32(data + 12);
    uint64_t table = get64(data + 56);
    if (hsize != CUTEC_PACK_HEADER_SIZE || h->entry_count > CUTEC_PACK_MAX_ENTRIES ||
        memchr(h->arch, '\0', CUTEC_PACK_ARCH_LEN + 1) == h->arch ||
        !span_fits(table, (uint64_t)h->entry_count * CUTEC_PACK_ENTRY_SIZE, size)) {
        snprintf(why, why_len, "corrupt pack: inconsistent header (header size %u, %u entries)", (unsigned)hsize,
                 (unsigned)h->entry_count);
        return CUTEC_PACKFMT_CORRUPT;
    }
    for (uint32_t i = 0; i < h->entry_count; i++) {
        const unsigned char *rec = data + table + (size_t)i * CUTEC_PACK_ENTRY_SIZE;
        uint64_t off[3], len[3];
        for (int j = 0; j < 3; j++) {
            off[j] = get64(rec + 16 * j);
            len[j] = get64(rec + 16 * j + 8);
            if (!span_fits(off[j], len[j], size)) {
                snprintf(why, why_len, "corrupt pack: entry %u points outside the file", (unsigned)i);
                return CUTEC_PACKFMT_CORRUPT;
            }
        }
        cutec_packfmt_entry e = {.manifest = (const char *)data + off[0],
                                 .manifest_size = (size_t)len[0],
                                 .ptx = (const char *)data + off[1],
                                 .ptx_size = (size_t)len[1],
                                 .cubin = len[2] ? data + off[2] : NULL,
                                 .cubin_size = (size_t)len[2]};
        if (e.manifest_size == 0 || e.ptx_size == 0) {
            snprintf(why, why_len, "corrupt pack: entry %u has no %s", (unsigned)i,
                     e.manifest_size == 0 ? "manifest" : "PTX");
            return CUTEC_PACKFMT_CORRUPT;
        }
        if (entry_checksum(&e) != get64(rec + 48)) {
            snprintf(why, why_len, "corrupt pack: checksum mismatch in entry %u", (unsigned)i);
            return CUTEC_PACKFMT_CORRUPT;
        }
        if (entries != NULL) entries[i] = e;
    }
    return CUTEC_PACKFMT_OK;
}
