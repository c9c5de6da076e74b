/*
 * cache.h - decisions on disk under a key (cache.c), for any layer of the
 * runtime: the cache knows keys (the text of an environment and of a
 * problem class, which the layer forms) and a value record (a choice line
 * the layer writes and reads back, and a time), never what they mean.  The
 * GEMM layer's use of it is gemm_cache.c.  Not part of the public API.
 */
#ifndef CUTEC_RUNTIME_CACHE_H
#define CUTEC_RUNTIME_CACHE_H

#include "internal.h"

/* Room for the key lines and the choice line (each one line of text). */
#define CUTEC_CACHE_LINE_MAX 512

/* Where a decision lives: "<dir>/<kind>-<env hash>-<problem hash>.txt". */
typedef struct cutec_cache_key {
    const char *dir;     /* the directory (created when a decision is stored) */
    const char *kind;    /* the file name's prefix, e.g. "gemm" */
    const char *env;     /* the environment it holds for (device, versions, ...) */
    const char *problem; /* the problem class */
} cutec_cache_key;

/* What was decided. */
typedef struct cutec_cache_value {
    char choice[CUTEC_CACHE_LINE_MAX]; /* the layer's own line, no newline */
    double ms;                         /* the choice's time (0 for a modelled one) */
    int modelled;                      /* 1: chosen without timing (a model or a heuristic);
                                          0: measured.  Files of format 1 read as measured. */
} cutec_cache_value;

/* The default directory: $CUTEC_CACHE_DIR, else $XDG_CACHE_HOME/cutec,
 * else $HOME/.cache/cutec (/tmp/.cache/cutec without HOME); into buf. */
const char *cutec_cache_default_dir(char *buf, size_t len);
/* Writes the decision atomically (temporary file, rename); 0, or -1 with
 * the reason logged as a warning (a cache that cannot be written is never
 * fatal). */
int cutec_cache_store(cutec_runtime *rt, const cutec_cache_key *k, const cutec_cache_value *v);
/* Reads the decision of a key: 1 and *v when there is a valid one; 0 when
 * there is none; -1 when a file is there but unusable (truncated, corrupt,
 * another environment or problem: logged "tuning cache: ignoring ...").
 * path receives the file's path either way. */
int cutec_cache_load(cutec_runtime *rt, const cutec_cache_key *k, cutec_cache_value *v, char *path, size_t path_len);
/* The layer's refusal of a value cutec_cache_load gave (its choice no longer
 * resolves), logged as the cache's own refusals are. */
void cutec_cache_reject(cutec_runtime *rt, const char *path, const char *why);

/* A list beside the decisions, "<dir>/<name>", one line per item, appended
 * to (the GEMM layer's quarantine of kernels that faulted): its content
 * (malloc'ed; NULL when absent or unreadable); whether a line of list
 * starts with prefix; appending a line (0 and the path in path, or -1,
 * logged, when it cannot be written). */
char *cutec_cache_list_load(cutec_runtime *rt, const char *dir, const char *name);
int cutec_cache_list_has(const char *list, const char *prefix);
int cutec_cache_list_add(cutec_runtime *rt, const char *dir, const char *name, const char *line, char *path,
                         size_t path_len);

#endif /* CUTEC_RUNTIME_CACHE_H */
