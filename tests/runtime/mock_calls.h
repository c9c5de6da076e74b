/*
 * mock_calls.h - calls per entry point, for the mock driver and the mock
 * cuBLASLt (each library keeps its own table): every entry point counts
 * itself by __func__ (one address per function, so a pointer compare
 * finds its row), and the tests read the counts through each mock's
 * exported functions (test_calls.c: what a cached call asks of each).
 * Header-only: the two mocks are separate shared libraries.
 */
#ifndef CUTEC_TESTS_MOCK_CALLS_H
#define CUTEC_TESTS_MOCK_CALLS_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct mock_calls {
    pthread_mutex_t mu; /* its own lock: entry points may hold their mock's */
    struct {
        const char *name;
        long long n;
    } rows[64];
} mock_calls;

#define MOCK_CALLS_INIT                                                                                                \
    {                                                                                                                  \
        .mu = PTHREAD_MUTEX_INITIALIZER                                                                                \
    }

static inline void mock_calls_count(mock_calls *t, const char *fn)
{
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < sizeof t->rows / sizeof t->rows[0]; i++) {
        if (t->rows[i].name == NULL) t->rows[i].name = fn;
        if (t->rows[i].name == fn) {
            t->rows[i].n++;
            break;
        }
    }
    pthread_mutex_unlock(&t->mu);
}

/* The count of `name` since the last reset (NULL: of every entry point). */
static inline long long mock_calls_of(mock_calls *t, const char *name)
{
    pthread_mutex_lock(&t->mu);
    long long n = 0;
    for (size_t i = 0; i < sizeof t->rows / sizeof t->rows[0] && t->rows[i].name != NULL; i++)
        if (name == NULL || strcmp(t->rows[i].name, name) == 0) n += t->rows[i].n;
    pthread_mutex_unlock(&t->mu);
    return n;
}

static inline void mock_calls_reset(mock_calls *t)
{
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < sizeof t->rows / sizeof t->rows[0]; i++) t->rows[i].n = 0;
    pthread_mutex_unlock(&t->mu);
}

/* "name n, name n, ..." of the entry points called since the last reset. */
static inline void mock_calls_text(mock_calls *t, char *buf, size_t len)
{
    pthread_mutex_lock(&t->mu);
    size_t used = 0;
    if (len > 0) buf[0] = '\0';
    for (size_t i = 0; i < sizeof t->rows / sizeof t->rows[0] && t->rows[i].name != NULL && used < len; i++)
        if (t->rows[i].n > 0) {
            int w = snprintf(buf + used, len - used, "%s%s %lld", used ? ", " : "", t->rows[i].name, t->rows[i].n);
            if (w < 0) break;
            used += (size_t)w;
        }
    pthread_mutex_unlock(&t->mu);
}

#endif
