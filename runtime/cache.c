/*
 * cache.c - decisions on disk under a key (cache.h), for any layer; the
 * GEMM layer's keys and choices are gemm_cache.c.  One small text file per
 * key, so that processes tuning different problems at once never touch the
 * same file, and processes tuning the same problem each write a complete
 * file (temp file + rename, which is atomic on POSIX file systems; the last
 * one wins and both are valid).  The file name is made of the key's kind
 * and two 64-bit FNV-1a hashes: of the environment line and of the problem
 * line.  The file repeats both in full and ends with a checksum of its
 * content, so a hash collision or a truncated or edited file is detected,
 * logged and re-tuned, never used; the layer refuses (cutec_cache_reject)
 * a choice that no longer resolves.  Format 2 added the source line
 * (whether the choice was measured or modelled); files of format 1, which
 * had none, still read, as measured (they were).
 *
 *   cutec-tune-cache 2
 *   env <the key's env>
 *   problem <the key's problem>
 *   choice <the value's choice>
 *   ms 0.812345
 *   source measured                (or: source modelled)
 *   checksum <16 hex digits: FNV-1a of every byte above>
 */
#include "cache.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC     "cutec-tune-cache 2"
#define CACHE_MAGIC_V1  "cutec-tune-cache 1"
#define CACHE_MAX_BYTES 8192

const char *cutec_cache_default_dir(char *buf, size_t len)
{
    const char *env = getenv("CUTEC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env != NULL && env[0] != '\0')
        snprintf(buf, len, "%s", env);
    else if (xdg != NULL && xdg[0] == '/')
        snprintf(buf, len, "%s/cutec", xdg);
    else
        snprintf(buf, len, "%s/.cache/cutec", home != NULL && home[0] != '\0' ? home : "/tmp");
    return buf;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char buf[1024];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        buf[i] = c;
    }
    return 0;
}

/* One line each, so that the file's lines stay its fields. */
static int one_line(const char *s) { return s != NULL && strchr(s, '\n') == NULL; }

static int cache_path(const cutec_cache_key *k, char *path, size_t len)
{
    if (!one_line(k->env) || !one_line(k->problem) || k->dir == NULL || k->kind == NULL) return -1;
    uint64_t he = cutec_fnv1a(CUTEC_FNV_OFFSET, k->env, strlen(k->env));
    uint64_t hp = cutec_fnv1a(CUTEC_FNV_OFFSET, k->problem, strlen(k->problem));
    int n = snprintf(path, len, "%s/%s-%016llx-%016llx.txt", k->dir, k->kind, (unsigned long long)he,
                     (unsigned long long)hp);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int cutec_cache_store(cutec_runtime *rt, const cutec_cache_key *k, const cutec_cache_value *v)
{
    char path[1200];
    if (cache_path(k, path, sizeof path) != 0 || !one_line(v->choice)) {
        cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning cache: cannot form a key; decision not saved");
        return -1;
    }
    char body[CACHE_MAX_BYTES];
    int n = snprintf(body, sizeof body, CACHE_MAGIC "\nenv %s\nproblem %s\nchoice %s\nms %.6f\nsource %s\n", k->env,
                     k->problem, v->choice, v->ms, v->modelled ? "modelled" : "measured");
    if (n <= 0 || (size_t)n + 32 >= sizeof body) return -1;
    uint64_t sum = cutec_fnv1a(CUTEC_FNV_OFFSET, body, (size_t)n);
    n += snprintf(body + n, sizeof body - (size_t)n, "checksum %016llx\n", (unsigned long long)sum);
    if (make_dirs(k->dir) != 0) {
        cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning cache: cannot create '%s': %s", k->dir, strerror(errno));
        return -1;
    }
    /* atomic: a background tuner (gemm_worker.c) stores from its own thread */
    static atomic_uint counter;
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&counter, 1u));
    FILE *f = fopen(tmp, "wb");
    int ok = f != NULL && fwrite(body, 1, (size_t)n, f) == (size_t)n;
    if (f != NULL && fclose(f) != 0) ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning cache: cannot write '%s': %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    cutec_rt_log(rt, CUTEC_LOG_DEBUG, "tuning cache: wrote '%s'", path);
    return 0;
}

/* The next line of *p (without its newline) into line; 0 at the end. */
static int next_line(char **p, char **line)
{
    if (**p == '\0') return 0;
    *line = *p;
    char *nl = strchr(*p, '\n');
    if (nl == NULL) {
        *p += strlen(*p);
    } else {
        *nl = '\0';
        *p = nl + 1;
    }
    return 1;
}

void cutec_cache_reject(cutec_runtime *rt, const char *path, const char *why)
{
    cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning cache: ignoring '%s': %s; tuning again", path, why);
}

int cutec_cache_load(cutec_runtime *rt, const cutec_cache_key *k, cutec_cache_value *v, char *path, size_t path_len)
{
    if (cache_path(k, path, path_len) != 0) {
        if (path_len > 0) path[0] = '\0';
        return 0;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0; /* not tuned yet */
    char buf[CACHE_MAX_BYTES + 1];
    size_t n = fread(buf, 1, CACHE_MAX_BYTES, f);
    int too_big = n == CACHE_MAX_BYTES;
    fclose(f);
    buf[n] = '\0';
    const char *why = NULL;
    char *sum_at = strstr(buf, "checksum ");
    unsigned long long want = 0;
    if (too_big || memchr(buf, '\0', n) != NULL)
        why = "not a cache file";
    else if (sum_at == NULL || (sum_at != buf && sum_at[-1] != '\n') || sscanf(sum_at, "checksum %16llx", &want) != 1)
        why = "no checksum (truncated?)";
    else if (cutec_fnv1a(CUTEC_FNV_OFFSET, buf, (size_t)(sum_at - buf)) != want)
        why = "checksum mismatch (corrupt)";
    if (why == NULL) {
        *sum_at = '\0';
        char *q = buf, *l[6] = {0};
        int nl = 0;
        while (nl < 6 && next_line(&q, &l[nl])) nl++;
        size_t elen = strlen(k->env);
        int v1 = nl == 5 && strcmp(l[0], CACHE_MAGIC_V1) == 0;
        v->modelled = 0;
        if (!v1 && nl == 6 && strcmp(l[0], CACHE_MAGIC) == 0 && strcmp(l[5], "source modelled") == 0) v->modelled = 1;
        if (*q != '\0' || !(v1 || (nl == 6 && strcmp(l[0], CACHE_MAGIC) == 0 &&
                                   (v->modelled || strcmp(l[5], "source measured") == 0))))
            why = "unexpected content";
        else if (strncmp(l[1], "env ", 4) != 0 || strlen(l[1] + 4) != elen || memcmp(l[1] + 4, k->env, elen) != 0)
            why = "stale: other device, driver, library or pack versions";
        else if (strncmp(l[2], "problem ", 8) != 0 || strcmp(l[2] + 8, k->problem) != 0)
            why = "key mismatch: another problem";
        else if (sscanf(l[4], "ms %lf", &v->ms) != 1 || strncmp(l[3], "choice ", 7) != 0 ||
                 strlen(l[3] + 7) >= sizeof v->choice)
            why = "unexpected content";
        else
            snprintf(v->choice, sizeof v->choice, "%s", l[3] + 7);
    }
    if (why != NULL) {
        cutec_cache_reject(rt, path, why);
        return -1;
    }
    return 1;
}

/* ---- lists beside the decisions (the quarantine) ---- */

static void list_path(const char *dir, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
}

char *cutec_cache_list_load(cutec_runtime *rt, const char *dir, const char *name)
{
    char path[1200];
    list_path(dir, name, path, sizeof path);
    if (access(path, F_OK) != 0) /* nothing listed yet */
        return NULL;
    unsigned char *data;
    size_t size;
    return cutec_rt_read_file(rt, path, &data, &size) == CUTEC_OK ? (char *)data : NULL;
}

int cutec_cache_list_has(const char *list, const char *prefix)
{
    if (list == NULL) return 0;
    size_t n = strlen(prefix);
    for (const char *line = list; *line != '\0';) {
        if (strncmp(line, prefix, n) == 0) return 1;
        const char *nl = strchr(line, '\n');
        if (nl == NULL) break;
        line = nl + 1;
    }
    return 0;
}

int cutec_cache_list_add(cutec_runtime *rt, const char *dir, const char *name, const char *line, char *path,
                         size_t path_len)
{
    list_path(dir, name, path, path_len);
    FILE *f = make_dirs(dir) == 0 ? fopen(path, "a") : NULL;
    if (f == NULL) {
        cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning cache: cannot append to '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "%s\n", line);
    return fclose(f) == 0 ? 0 : -1;
}
