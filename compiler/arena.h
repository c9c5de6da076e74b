/* arena.h: bump allocator; one arena per compilation, freed in one call.
 * Every compiler data structure (tokens, AST, layouts, diagnostics) lives in
 * an arena so that no error path has to free nodes one by one. */
#ifndef CUTEC_ARENA_H
#define CUTEC_ARENA_H

#include <stddef.h>
#include <stdarg.h>

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
    ArenaBlock *head;
    size_t total; /* bytes handed out, for statistics and limits */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Zeroed, 16-byte aligned memory; aborts only if malloc itself fails. */
void *arena_alloc(Arena *a, size_t size);
void *arena_memdup(Arena *a, const void *p, size_t size);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap);

#define ARENA_NEW(a, T)      ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

#endif
