/* arena.c: see arena.h. Blocks grow geometrically; large requests get a
 * block of their own so a 10 MB input does not waste a 10 MB tail. */
#include "arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaBlock {
    ArenaBlock *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_MIN_BLOCK = 64 * 1024 };

void arena_init(Arena *a)
{
    a->head = NULL;
    a->total = 0;
}

void arena_free(Arena *a)
{
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
    a->total = 0;
}

void *arena_alloc(Arena *a, size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    if (size == 0) size = 16;
    ArenaBlock *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = b ? b->cap * 2 : ARENA_MIN_BLOCK;
        if (cap > 8u * 1024u * 1024u) cap = 8u * 1024u * 1024u;
        if (cap < size) cap = size;
        ArenaBlock *nb = malloc(sizeof(ArenaBlock) + cap);
        if (!nb) {
            fputs("cutec: out of memory\n", stderr);
            abort();
        }
        nb->used = 0;
        nb->cap = cap;
        if (b && size > b->cap / 2 && b->cap - b->used > 4096) {
            /* keep the current block as head: it still has room */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += size;
    a->total += size;
    memset(p, 0, size);
    return p;
}

void *arena_memdup(Arena *a, const void *p, size_t size)
{
    void *q = arena_alloc(a, size + 1);
    if (size) memcpy(q, p, size);
    return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *q = arena_alloc(a, n + 1);
    memcpy(q, s, n);
    q[n] = 0;
    return q;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_vprintf(Arena *a, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) n = 0;
    char *q = arena_alloc(a, (size_t)n + 1);
    vsnprintf(q, (size_t)n + 1, fmt, ap);
    return q;
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *q = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return q;
}
