/*
 * fuzz_seeds.c - writes the seed corpora of the pack harnesses from packs
 * that `cutec pack` built: each PACK is copied to OUT/pack/NAME.pack and the
 * manifest of each of its entries to OUT/manifest/NAME-I.txt, through the
 * runtime's own reader (runtime/pack_format.h), so that the seeds follow
 * the formats as they change.
 *
 *   fuzz_seeds OUT PACK...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pack_format.h"

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    unsigned char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            unsigned char *nb = realloc(buf, cap);
            if (nb == NULL) break;
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *size = n;
    return buf;
}

static int spill(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && w == size ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fuzz_seeds OUT PACK...\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/pack", argv[1]);
    mkdir(argv[1], 0777);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/manifest", argv[1]);
    mkdir(path, 0777);
    for (int a = 2; a < argc; a++) {
        const char *slash = strrchr(argv[a], '/'), *base = slash ? slash + 1 : argv[a];
        size_t blen = strcspn(base, ".");
        size_t size = 0;
        unsigned char *data = slurp(argv[a], &size);
        cutec_packfmt_header h;
        char why[256];
        if (data == NULL || cutec_packfmt_parse(data, size, &h, NULL, why, sizeof why) != CUTEC_PACKFMT_OK) {
            fprintf(stderr, "fuzz_seeds: %s: %s\n", argv[a], data ? why : "cannot read it");
            return 1;
        }
        cutec_packfmt_entry *e = calloc((size_t)h.entry_count + 1, sizeof *e);
        if (e == NULL || cutec_packfmt_parse(data, size, &h, e, why, sizeof why) != CUTEC_PACKFMT_OK) return 1;
        snprintf(path, sizeof path, "%s/pack/%.*s.pack", argv[1], (int)blen, base);
        if (spill(path, data, size) != 0) {
            perror(path);
            return 1;
        }
        for (uint32_t i = 0; i < h.entry_count; i++) {
            snprintf(path, sizeof path, "%s/manifest/%.*s-%u.txt", argv[1], (int)blen, base, i);
            if (spill(path, e[i].manifest, e[i].manifest_size) != 0) {
                perror(path);
                return 1;
            }
        }
        free(e);
        free(data);
    }
    return 0;
}
