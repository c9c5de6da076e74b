/*
 * gemm_cache.c - the GEMM layer's use of the disk cache (cache.h): its key
 * (the environment: device name and SM count, compute capability, driver,
 * cuBLASLt and cutec versions, the source hashes of the handle's packs; the
 * problem class: M, N, K, types, layouts, leading dimensions, alpha = 1 or
 * not, beta = 0 or not, epilogue, pointer alignment), its choice line
 * ("dsl <pack source hash> <entry> <entry description>" or "cublas <the
 * algorithm, 128 hex digits>") and its resolution back into a decision,
 * refused when the pack entry is gone or changed, no longer fits, or
 * cuBLASLt cannot be loaded.  And the quarantine of pack kernels that
 * faulted while tuned, a list beside the decisions.
 */
#include "cache.h"
#include "gemm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

const char *cutec_gemm_cache_dir_of(cutec_gemm_handle *g)
{
    if (g->cache_dir[0] != '\0')
        snprintf(g->cache_dir_buf, sizeof g->cache_dir_buf, "%s", g->cache_dir);
    else
        cutec_cache_default_dir(g->cache_dir_buf, sizeof g->cache_dir_buf);
    return g->cache_dir_buf;
}

cutec_status cutec_gemm_env_key(cutec_gemm_handle *g, const char **key)
{
    cutec_runtime *rt = g->rt;
    if (!g->env_ready) {
        char name[128] = "";
        int maj = 0, min = 0, sms = 0;
        cutec_status s = cutec_device_info(rt, name, sizeof name, &maj, &min, &sms);
        if (s != CUTEC_OK) return s;
        for (char *c = name; *c; c++)
            if (*c == ' ' || *c == '\n') *c = '_';
        int ltv = cutec_gemm_lt(g) ? (int)g->lt.version : 0;
        uint64_t hashes[CUTEC_GEMM_MAX_PACKS];
        for (int i = 0; i < g->npacks; i++) hashes[i] = g->packs[i]->h.source_hash;
        qsort(hashes, (size_t)g->npacks, sizeof hashes[0], cmp_u64);
        size_t n = (size_t)snprintf(g->env_key, sizeof g->env_key,
                                    "device=%s sms=%d cc=%d.%d driver=%d cublaslt=%d cutec=%s packs=", name, sms, maj,
                                    min, rt->driver_version, ltv, cutec_version_string());
        for (int i = 0; i < g->npacks && n < sizeof g->env_key; i++)
            n += (size_t)snprintf(g->env_key + n, sizeof g->env_key - n, "%s%016llx", i ? "," : "",
                                  (unsigned long long)hashes[i]);
        if (g->npacks == 0 && n < sizeof g->env_key)
            n += (size_t)snprintf(g->env_key + n, sizeof g->env_key - n, "none");
        /* weighing host time changes what wins (docs/runtime.md, "Host-bound
         * calls"): such decisions are kept apart; the default's keys are as before */
        if (g->host_bound_us != 0 && n < sizeof g->env_key)
            snprintf(g->env_key + n, sizeof g->env_key - n, " host_bound_us=%d", g->host_bound_us);
        g->env_ready = 1;
    }
    *key = g->env_key;
    return CUTEC_OK;
}

/* The cache key of a class (prob receives its text). */
static int gemm_key(cutec_gemm_handle *g, const gemm_class *cls, cutec_cache_key *k, char *prob, size_t len)
{
    const char *env;
    if (cutec_gemm_env_key(g, &env) != CUTEC_OK) return -1;
    cutec_gemm_class_key(cls, prob, len);
    *k = (cutec_cache_key){.dir = cutec_gemm_cache_dir_of(g), .kind = "gemm", .env = env, .problem = prob};
    return 0;
}

static void hex_encode(const void *data, size_t n, char *out)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
}

static int hex_decode(const char *s, void *data, size_t n)
{
    unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        p[i] = (unsigned char)v;
    }
    return s[2 * n] == '\0' ? 0 : -1;
}

void cutec_gemm_choice_line(const gemm_decision *d, char *buf, size_t len)
{
    char hex[2 * sizeof d->algo + 1];
    if (d->kind != DECISION_DSL) hex_encode(&d->algo, sizeof d->algo, hex);
    char desc[CUTEC_CANDIDATE_NAME_LEN];
    if (d->kind == DECISION_DSL && d->stage_mask != 0) /* the entry's own description, not the "staged" name */
        cutec_pack_entry_describe(d->pack, d->entry, desc, sizeof desc);
    if (d->kind == DECISION_DSL && d->stage_mask != 0)
        snprintf(buf, len, "staged %d %016llx %d %s", d->stage_mask, (unsigned long long)d->pack->h.source_hash,
                 d->entry, desc);
    else if (d->kind == DECISION_DSL)
        snprintf(buf, len, "dsl %016llx %d %s", (unsigned long long)d->pack->h.source_hash, d->entry, d->name);
    else if (d->ew == NULL)
        snprintf(buf, len, "cublas %s", hex);
    else /* the unfused baseline: the algorithm, then the elementwise kernel as a dsl choice */
        snprintf(buf, len, "cublas+ew %s %016llx %d %s", hex, (unsigned long long)d->ew->pack->h.source_hash,
                 d->ew->entry, d->ew->name);
}

void cutec_gemm_cache_store(cutec_gemm_handle *g, const gemm_decision *d)
{
    char prob[CUTEC_KEY_MAX];
    cutec_cache_key k;
    if (gemm_key(g, &d->cls, &k, prob, sizeof prob) != 0) {
        cutec_rt_log(g->rt, CUTEC_LOG_WARNING, "tuning cache: cannot form a key; decision not saved");
        return;
    }
    cutec_cache_value v = {.ms = d->ms, .modelled = d->modelled};
    cutec_gemm_choice_line(d, v.choice, sizeof v.choice);
    (void)cutec_cache_store(g->rt, &k, &v);
}

const char *cutec_gemm_resolve_choice(cutec_gemm_handle *g, const char *choice, const cutec_gemm_problem *p,
                                      const gemm_class *cls, gemm_decision *d)
{
    static _Thread_local char unfit_why[300];
    d->cls = *cls;
    if (strncmp(choice, "cublas+ew ", 10) == 0) {
        char hex[2 * sizeof d->algo + 1];
        const char *rest = choice + 10;
        size_t hn = strcspn(rest, " ");
        if (hn != sizeof hex - 1 || rest[hn] != ' ') return "unexpected content";
        memcpy(hex, rest, hn);
        hex[hn] = '\0';
        if (hex_decode(hex, &d->algo, sizeof d->algo) != 0) return "unexpected content";
        if (!cutec_gemm_lt(g)) return "it chose cuBLASLt, which cannot be loaded now";
        unsigned long long hash;
        int entry, off = 0;
        if (sscanf(rest + hn + 1, "%16llx %d %n", &hash, &entry, &off) != 2 || off == 0) return "unexpected content";
        cutec_pack *pack = NULL;
        for (int i = 0; i < g->npacks; i++)
            if (g->packs[i]->h.source_hash == hash) pack = g->packs[i];
        if (pack == NULL || entry < 0 || entry >= pack->count) return "its elementwise kernel's pack entry is gone";
        char desc[CUTEC_CANDIDATE_NAME_LEN];
        cutec_pack_entry_describe(pack, entry, desc, sizeof desc);
        if (strcmp(desc, rest + hn + 1 + off) != 0) return "its elementwise kernel's pack entry changed";
        d->ew = calloc(1, sizeof *d->ew);
        if (d->ew == NULL) return "out of host memory";
        const char *unfit = cutec_gemm_ew_unfit(g, pack, entry, p, cls, d->ew, unfit_why, sizeof unfit_why);
        if (unfit != NULL) return unfit;
        cutec_runtime *rt = g->rt;
        if (rt->drv.mem_alloc(&d->x, cutec_gemm_ew_x_bytes(p)) != CUDA_SUCCESS) {
            d->x = 0;
            return "no device memory for its intermediate";
        }
        d->x_owned = 1;
        d->kind = DECISION_CUBLAS;
        snprintf(d->name, sizeof d->name, "cublasLt algo (cached) + %.150s", d->ew->name);
        return NULL;
    }
    if (strncmp(choice, "cublas ", 7) == 0) {
        d->kind = DECISION_CUBLAS;
        snprintf(d->name, sizeof d->name, "cublasLt algo (cached)");
        if (hex_decode(choice + 7, &d->algo, sizeof d->algo) != 0) return "unexpected content";
        if (!cutec_gemm_lt(g)) return "it chose cuBLASLt, which cannot be loaded now";
        return NULL;
    }
    /* a pack kernel, on the operands as they are or on staged copies (gemm_stage.c) */
    /* "staged MASK ...": the operands it stages (bit 0 A, 1 B, 2 D) */
    int staged = strncmp(choice, "staged ", 7) == 0, mask = 0, moff = 0;
    if (!staged && strncmp(choice, "dsl ", 4) != 0) return "unexpected content";
    choice += staged ? 7 : 4;
    if (staged && (sscanf(choice, "%d %n", &mask, &moff) != 1 || moff == 0)) return "unexpected content";
    choice += moff;
    unsigned long long hash;
    int entry, off = 0;
    if (sscanf(choice, "%16llx %d %n", &hash, &entry, &off) != 2 || off == 0) return "unexpected content";
    cutec_pack *pack = NULL;
    for (int i = 0; i < g->npacks; i++)
        if (g->packs[i]->h.source_hash == hash) pack = g->packs[i];
    if (pack == NULL || entry < 0 || entry >= pack->count) return "its pack entry is gone";
    char desc[CUTEC_CANDIDATE_NAME_LEN];
    cutec_pack_entry_describe(pack, entry, desc, sizeof desc);
    if (strcmp(desc, choice + off) != 0) return "its pack entry changed";
    if (staged && (mask < 1 || mask > 7 || (mask & cutec_gemm_stage_mask(p, cls)) != mask))
        return "it stages operands this problem does not need staged";
    cutec_gemm_problem sp = *p;
    gemm_class scls = *cls;
    if (staged) cutec_gemm_stage_problem(p, mask, &sp, &scls);
    const char *unfit = cutec_gemm_dsl_unfit(g, pack, entry, &sp, &scls, d, unfit_why, sizeof unfit_why);
    if (unfit != NULL) return unfit;
    if (staged) {
        d->cls = *cls;
        d->stage_mask = mask;
        snprintf(d->name, sizeof d->name, "staged %.300s", desc);
    }
    if (cutec_rt_pack_kernel(pack, entry, &d->kernel) != CUTEC_OK) return "its kernel no longer loads";
    return NULL;
}

gemm_decision *cutec_gemm_cache_load(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls)
{
    char prob[CUTEC_KEY_MAX], path[1200];
    cutec_cache_key k;
    cutec_cache_value v;
    if (gemm_key(g, cls, &k, prob, sizeof prob) != 0 || cutec_cache_load(g->rt, &k, &v, path, sizeof path) != 1)
        return NULL;
    cutec_gemm_device_facts(g); /* the fit of a pack kernel depends on them */
    gemm_decision *d = calloc(1, sizeof *d);
    const char *why = d == NULL ? "out of host memory" : cutec_gemm_resolve_choice(g, v.choice, p, cls, d);
    if (why != NULL) {
        cutec_cache_reject(g->rt, path, why);
        cutec_gemm_decision_free(g, d);
        return NULL;
    }
    d->ms = v.ms;
    d->modelled = v.modelled;
    cutec_rt_log(g->rt, CUTEC_LOG_DEBUG, "tuning cache: using '%s' (%s, %s)", path, d->name,
                 d->modelled ? "modelled" : "measured");
    return d;
}

/* ---- quarantine: pack kernels that faulted while being tuned ---- */

/* "<dir>/quarantine.txt": one line per kernel that faulted, "<pack source
 * hash> <entry> <name>"; a fault poisons the CUDA context, so the tuning
 * that met it ends, and later tunings (new runtimes, new processes) skip
 * the kernel instead of faulting on it again. */
#define QUARANTINE "quarantine.txt"

char *cutec_gemm_quarantine_load(cutec_gemm_handle *g)
{
    return g->disk_cache ? cutec_cache_list_load(g->rt, cutec_gemm_cache_dir_of(g), QUARANTINE) : NULL;
}

/* The start of d's kernel's line. */
static void quarantine_prefix(const gemm_decision *d, char *buf, size_t len)
{
    snprintf(buf, len, "%016llx %d ", (unsigned long long)d->pack->h.source_hash, d->entry);
}

int cutec_gemm_quarantined(const char *list, const gemm_decision *d)
{
    if (list == NULL || d->kind != DECISION_DSL) return 0;
    char want[64];
    quarantine_prefix(d, want, sizeof want);
    return cutec_cache_list_has(list, want);
}

int cutec_gemm_quarantine(cutec_gemm_handle *g, const gemm_decision *d, char *path, size_t len)
{
    if (d->kind != DECISION_DSL || !g->disk_cache) return -1;
    char line[64 + CUTEC_CANDIDATE_NAME_LEN];
    quarantine_prefix(d, line, sizeof line);
    size_t n = strlen(line);
    snprintf(line + n, sizeof line - n, "%s", d->name);
    return cutec_cache_list_add(g->rt, cutec_gemm_cache_dir_of(g), QUARANTINE, line, path, len);
}
