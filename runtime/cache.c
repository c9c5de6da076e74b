/*
 * cache.c - tuning decisions on disk.  One small text file per key, so that
 * processes tuning different problems at once never touch the same file,
 * and processes tuning the same problem each write a complete file (temp
 * file + rename, which is atomic on POSIX file systems; the last one wins and
 * both are valid).  The file name is made of two 64-bit FNV-1a hashes: of
 * the environment (device name and SM count, compute capability, driver,
 * cuBLASLt and cutec versions, the source hashes of the packs in use) and of
 * the problem class (M, N, K, types, layouts, leading dimensions, alpha = 1
 * or not, beta = 0 or not, epilogue, 16-byte alignment).  The file repeats
 * both keys in full and ends with a checksum of its content, so a hash
 * collision, a truncated or edited file, or a decision that no longer
 * resolves (pack entry gone, no longer fitting) is detected, logged and
 * re-tuned, never used.
 *
 *   cutec-tune-cache 1
 *   env device=NVIDIA_H100_80GB_HBM3 sms=132 cc=9.0 driver=13000 ...
 *   problem gemm m=4096 n=4096 k=4096 a=bf16:row:4096 ...
 *   choice dsl <pack hash> <entry> <entry description>   | choice cublas <128 hex digits>
 *   ms 0.812345
 *   checksum <16 hex digits: FNV-1a of every byte above>
 */
#include "gemm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "cutec-tune-cache 1"
#define CACHE_MAX_BYTES 8192

const char *cutec_gemm_cache_dir(struct cutec_gemm_ctx *g) {
  const char *env = getenv("CUTEC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  if (g->cache_dir[0] != '\0')
    snprintf(g->cache_dir_buf, sizeof g->cache_dir_buf, "%s", g->cache_dir);
  else if (env != NULL && env[0] != '\0')
    snprintf(g->cache_dir_buf, sizeof g->cache_dir_buf, "%s", env);
  else if (xdg != NULL && xdg[0] == '/')
    snprintf(g->cache_dir_buf, sizeof g->cache_dir_buf, "%s/cutec", xdg);
  else
    snprintf(g->cache_dir_buf, sizeof g->cache_dir_buf, "%s/.cache/cutec",
             home != NULL && home[0] != '\0' ? home : "/tmp");
  return g->cache_dir_buf;
}

/* mkdir -p */
static int make_dirs(const char *path) {
  char buf[1024];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf)
    return -1;
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (buf[i] != '/' && buf[i] != '\0')
      continue;
    char c = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      return -1;
    buf[i] = c;
  }
  return 0;
}

static int cache_path(cutec_runtime *rt, struct cutec_gemm_ctx *g, const gemm_class *cls,
                      char *path, size_t len, const char **env, char *prob, size_t prob_len) {
  if (cutec_gemm_env_key(rt, g, env) != CUTEC_OK)
    return -1;
  cutec_gemm_class_key(cls, prob, prob_len);
  uint64_t he = cutec_fnv1a(CUTEC_FNV_OFFSET, *env, strlen(*env));
  uint64_t hp = cutec_fnv1a(CUTEC_FNV_OFFSET, prob, strlen(prob));
  int n = snprintf(path, len, "%s/gemm-%016llx-%016llx.txt", cutec_gemm_cache_dir(g),
                   (unsigned long long)he, (unsigned long long)hp);
  return n > 0 && (size_t)n < len ? 0 : -1;
}

static void hex_encode(const void *data, size_t n, char *out) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++)
    sprintf(out + 2 * i, "%02x", p[i]);
}

static int hex_decode(const char *s, void *data, size_t n) {
  unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    if (sscanf(s + 2 * i, "%2x", &v) != 1)
      return -1;
    p[i] = (unsigned char)v;
  }
  return s[2 * n] == '\0' ? 0 : -1;
}

void cutec_gemm_cache_store(cutec_runtime *rt, struct cutec_gemm_ctx *g, const gemm_decision *d) {
  char path[1200], prob[CUTEC_KEY_MAX];
  const char *env;
  if (cache_path(rt, g, &d->cls, path, sizeof path, &env, prob, sizeof prob) != 0) {
    cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning cache: cannot form a key; decision not saved");
    return;
  }
  char body[CACHE_MAX_BYTES];
  int n;
  if (d->kind == DECISION_DSL) {
    n = snprintf(body, sizeof body, CACHE_MAGIC "\nenv %s\nproblem %s\nchoice dsl %016llx %d %s\nms %.6f\n",
                 env, prob, (unsigned long long)d->pack->h.source_hash, d->entry, d->name, d->ms);
  } else {
    char hex[2 * sizeof d->algo + 1];
    hex_encode(&d->algo, sizeof d->algo, hex);
    n = snprintf(body, sizeof body, CACHE_MAGIC "\nenv %s\nproblem %s\nchoice cublas %s\nms %.6f\n",
                 env, prob, hex, d->ms);
  }
  if (n <= 0 || (size_t)n + 32 >= sizeof body)
    return;
  uint64_t sum = cutec_fnv1a(CUTEC_FNV_OFFSET, body, (size_t)n);
  n += snprintf(body + n, sizeof body - (size_t)n, "checksum %016llx\n", (unsigned long long)sum);
  const char *dir = cutec_gemm_cache_dir(g);
  if (make_dirs(dir) != 0) {
    cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning cache: cannot create '%s': %s", dir, strerror(errno));
    return;
  }
  static unsigned counter;
  char tmp[1300];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(), counter++);
  FILE *f = fopen(tmp, "wb");
  int ok = f != NULL && fwrite(body, 1, (size_t)n, f) == (size_t)n;
  if (f != NULL && fclose(f) != 0)
    ok = 0;
  if (!ok || rename(tmp, path) != 0) {
    cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning cache: cannot write '%s': %s", path, strerror(errno));
    remove(tmp);
    return;
  }
  cutec_rt_log(rt, CUTEC_LOG_DEBUG, "tuning cache: wrote '%s'", path);
}

/* The next line of *p (without its newline) into line; 0 at the end. */
static int next_line(char **p, char **line) {
  if (**p == '\0')
    return 0;
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

gemm_decision *cutec_gemm_cache_load(cutec_runtime *rt, struct cutec_gemm_ctx *g,
                                     const cutec_gemm_problem *p, const gemm_class *cls) {
  char path[1200], prob[CUTEC_KEY_MAX];
  const char *env;
  if (cache_path(rt, g, cls, path, sizeof path, &env, prob, sizeof prob) != 0)
    return NULL;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL; /* not tuned yet */
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
  else if (sum_at == NULL || (sum_at != buf && sum_at[-1] != '\n') ||
           sscanf(sum_at, "checksum %16llx", &want) != 1)
    why = "no checksum (truncated?)";
  else if (cutec_fnv1a(CUTEC_FNV_OFFSET, buf, (size_t)(sum_at - buf)) != want)
    why = "checksum mismatch (corrupt)";
  gemm_decision *d = NULL;
  if (why == NULL) {
    *sum_at = '\0';
    char *q = buf, *l[5] = {0};
    int nl = 0;
    while (nl < 5 && next_line(&q, &l[nl]))
      nl++;
    size_t elen = strlen(env);
    if (nl != 5 || *q != '\0' || strcmp(l[0], CACHE_MAGIC) != 0)
      why = "unexpected content";
    else if (strncmp(l[1], "env ", 4) != 0 || strlen(l[1] + 4) != elen || memcmp(l[1] + 4, env, elen) != 0)
      why = "stale: other device, driver, library or pack versions";
    else if (strncmp(l[2], "problem ", 8) != 0 || strcmp(l[2] + 8, prob) != 0)
      why = "key mismatch: another problem";
    else if ((d = calloc(1, sizeof *d)) == NULL)
      why = "out of host memory";
    else if (sscanf(l[4], "ms %lf", &d->ms) != 1)
      why = "unexpected content";
    else if (strncmp(l[3], "choice cublas ", 14) == 0) {
      d->kind = DECISION_CUBLAS;
      d->cls = *cls;
      snprintf(d->name, sizeof d->name, "cublasLt algo (cached)");
      if (hex_decode(l[3] + 14, &d->algo, sizeof d->algo) != 0)
        why = "unexpected content";
      else if (!cutec_gemm_lt(rt, g))
        why = "it chose cuBLASLt, which cannot be loaded now";
    } else if (strncmp(l[3], "choice dsl ", 11) == 0) {
      unsigned long long hash;
      int entry, off = 0;
      if (sscanf(l[3] + 11, "%16llx %d %n", &hash, &entry, &off) != 2 || off == 0) {
        why = "unexpected content";
      } else {
        cutec_pack *pack = NULL;
        for (int i = 0; i < g->npacks; i++)
          if (g->packs[i]->h.source_hash == hash)
            pack = g->packs[i];
        char desc[192];
        static _Thread_local char unfit_why[300];
        if (pack == NULL || entry < 0 || entry >= pack->count) {
          why = "its pack entry is gone";
        } else {
          cutec_pack_entry_describe(pack, entry, desc, sizeof desc);
          const char *unfit;
          if (strcmp(desc, l[3] + 11 + off) != 0)
            why = "its pack entry changed";
          else if ((unfit = cutec_gemm_dsl_unfit(rt, pack, entry, p, cls, d, unfit_why, sizeof unfit_why)) != NULL)
            why = unfit;
          else if (cutec_rt_pack_kernel(pack, entry, &d->kernel) != CUTEC_OK)
            why = "its kernel no longer loads";
          else
            sscanf(l[4], "ms %lf", &d->ms);
        }
      }
    } else {
      why = "unexpected content";
    }
  }
  if (why != NULL) {
    cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning cache: ignoring '%s': %s; tuning again", path, why);
    free(d);
    return NULL;
  }
  cutec_rt_log(rt, CUTEC_LOG_DEBUG, "tuning cache: using '%s' (%s)", path, d->name);
  return d;
}

/* ---- quarantine: pack kernels that faulted while being tuned ---- */

/* "<dir>/quarantine.txt": one line per kernel that faulted, "<pack source
 * hash> <entry> <name>"; a fault poisons the CUDA context, so the tuning
 * that met it ends, and later tunings (new runtimes, new processes) skip
 * the kernel instead of faulting on it again. */
static void quarantine_path(struct cutec_gemm_ctx *g, char *path, size_t len) {
  snprintf(path, len, "%s/quarantine.txt", cutec_gemm_cache_dir(g));
}

char *cutec_gemm_quarantine_load(cutec_runtime *rt, struct cutec_gemm_ctx *g) {
  if (!g->disk_cache)
    return NULL;
  char path[1200];
  quarantine_path(g, path, sizeof path);
  if (access(path, F_OK) != 0) /* nothing quarantined yet */
    return NULL;
  unsigned char *data;
  size_t size;
  return cutec_rt_read_file(rt, path, &data, &size) == CUTEC_OK ? (char *)data : NULL;
}

int cutec_gemm_quarantined(const char *list, const gemm_decision *d) {
  if (list == NULL || d->kind != DECISION_DSL)
    return 0;
  char want[64];
  int n = snprintf(want, sizeof want, "%016llx %d ", (unsigned long long)d->pack->h.source_hash, d->entry);
  for (const char *line = list; *line != '\0';) {
    if (strncmp(line, want, (size_t)n) == 0)
      return 1;
    const char *nl = strchr(line, '\n');
    if (nl == NULL)
      break;
    line = nl + 1;
  }
  return 0;
}

int cutec_gemm_quarantine(cutec_runtime *rt, struct cutec_gemm_ctx *g, const gemm_decision *d, char *path,
                          size_t len) {
  if (d->kind != DECISION_DSL || !g->disk_cache)
    return -1;
  quarantine_path(g, path, len);
  const char *dir = cutec_gemm_cache_dir(g);
  FILE *f = make_dirs(dir) == 0 ? fopen(path, "a") : NULL;
  if (f == NULL) {
    cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: cannot record the faulting kernel in '%s': %s", path, strerror(errno));
    return -1;
  }
  fprintf(f, "%016llx %d %s\n", (unsigned long long)d->pack->h.source_hash, d->entry, d->name);
  fclose(f);
  return 0;
}
