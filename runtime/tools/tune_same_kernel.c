/*
 * tune_same_kernel.c - the plain twin of a pack kernel's name
 * (tune_same_kernel.h).
 */
#include "tune_same_kernel.h"

#include <string.h>

/* the switches of the GEMM templates' epilogue and their plain values */
static const struct {
    const char *key, *plain;
} switches[] = {
    {"ACT", "identity"}, {"BIAS", "0"},  {"SRC", "0"}, {"ALPHA", "0"},
    {"AUX", "0"},        {"CLAMP", "0"}, {"GLU", "0"}, {"SCALE", "0"},
};

int tune_plain_twin(const char *name, char *out, size_t len)
{
    if (name == NULL || out == NULL || len == 0) return -1;
    size_t at = 0;
    int act = 0;
    const char *w = name;
    while (*w != '\0') {
        size_t n = strcspn(w, " ");
        const char *eq = memchr(w, '=', n);
        const char *val = w;
        size_t vlen = n, klen = 0;
        if (eq != NULL) {
            klen = (size_t)(eq - w);
            for (size_t i = 0; i < sizeof switches / sizeof switches[0]; i++)
                if (strlen(switches[i].key) == klen && memcmp(w, switches[i].key, klen) == 0) {
                    act |= i == 0;
                    val = switches[i].plain;
                    vlen = strlen(val);
                    break;
                }
        }
        /* the word: KEY=value, or as it was */
        size_t need = (val == w ? n : klen + 1 + vlen) + (at > 0);
        if (at + need + 1 > len) return -1;
        if (at > 0) out[at++] = ' ';
        if (val == w) {
            memcpy(out + at, w, n);
            at += n;
        } else {
            memcpy(out + at, w, klen + 1);
            memcpy(out + at + klen + 1, val, vlen);
            at += klen + 1 + vlen;
        }
        w += n;
        while (*w == ' ') w++;
    }
    out[at] = '\0';
    return act ? 0 : -1;
}
