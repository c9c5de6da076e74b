/*
 * check.h - minimal assertion macros shared by the runtime tests.  A failed
 * check prints where and why and exits with 1; GPU tests exit with 77 (CTest's
 * SKIP_RETURN_CODE) when the runtime reports that there is no driver or device.
 */
#ifndef CUTEC_TEST_CHECK_H
#define CUTEC_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/runtime.h"

#define TEST_SKIP 77

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* Checks that a call returns the expected status; prints both on mismatch,
 * with the runtime's message when a handle is given. */
#define CHECK_STATUS(rt, call, expected)                                                                               \
    do {                                                                                                               \
        cutec_status got_ = (call);                                                                                    \
        if (got_ != (expected)) {                                                                                      \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n%s\n", __FILE__, __LINE__, #call,           \
                    (int)got_, cutec_status_string(got_), (int)(expected), cutec_status_string(expected),              \
                    (rt) != NULL ? cutec_runtime_message(rt) : "");                                                    \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

#define CHECK_OK(rt, call) CHECK_STATUS(rt, call, CUTEC_OK)

#define CHECK_CONTAINS(haystack, needle)                                                                               \
    do {                                                                                                               \
        const char *h_ = (haystack);                                                                                   \
        if (h_ == NULL || strstr(h_, (needle)) == NULL) {                                                              \
            fprintf(stderr, "%s:%d: \"%s\" not found in:\n%s\n", __FILE__, __LINE__, (needle),                         \
                    h_ != NULL ? h_ : "(null)");                                                                       \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* A runtime on the device, or exit TEST_SKIP (no driver or no device). */
static inline cutec_runtime *check_gpu_runtime(void)
{
    cutec_runtime *rt = NULL;
    cutec_status s = cutec_runtime_create(&rt, 0);
    if (s == CUTEC_ERR_NO_DRIVER || s == CUTEC_ERR_NO_DEVICE) {
        fprintf(stderr, "skipped: %s\n", cutec_runtime_message(rt));
        cutec_runtime_destroy(rt);
        exit(TEST_SKIP);
    }
    CHECK_OK(rt, s);
    return rt;
}

/* The runtime's log lines, kept for CHECK_CONTAINS (clear check_log[0]
 * before the calls whose lines a test looks for). */
static char check_log[1 << 16];
static inline void check_keep_log(void *user, int level, const char *msg)
{
    (void)user, (void)level;
    size_t n = strlen(check_log);
    snprintf(check_log + n, sizeof check_log - n, "%s\n", msg);
}

/* bf16 by truncation: exact for the small fractions the GEMM tests use. */
static inline uint16_t check_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}
static inline double check_from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A test program's cases: `PROGRAM CASE ARGS...` runs case CASE with
 * ARGS (exit 2 on a missing or unknown case). */
typedef struct check_case {
    const char *name;
    int (*fn)(int, char **);
} check_case;

static inline int check_run_cases(const check_case *cases, size_t n, int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASE [ARGS]\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(argv[1], cases[i].name) == 0) return cases[i].fn(argc - 2, argv + 2);
    fprintf(stderr, "unknown case '%s'\n", argv[1]);
    return 2;
}

#endif /* CUTEC_TEST_CHECK_H */
