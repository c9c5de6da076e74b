/* gemm_common.c - see gemm_common.h. */
#include "gemm_common.h"
#include "manifest.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gemm_type gemm_type_parse(const char *s) {
  if (s == NULL)
    return GT_OTHER;
  if (strcmp(s, "bf16") == 0)
    return GT_BF16;
  if (strcmp(s, "f16") == 0)
    return GT_F16;
  if (strcmp(s, "f32") == 0)
    return GT_F32;
  return GT_OTHER;
}

const char *gemm_type_name(gemm_type t) {
  switch (t) {
  case GT_BF16: return "bf16";
  case GT_F16: return "f16";
  case GT_F32: return "f32";
  default: return "?";
  }
}

size_t gemm_type_size(gemm_type t) {
  switch (t) {
  case GT_BF16:
  case GT_F16: return 2;
  case GT_F32: return 4;
  default: return 0;
  }
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

uint16_t gemm_f32_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it quiet and a NaN */
    return (uint16_t)((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u); /* overflow carries into infinity */
  return (uint16_t)(u >> 16);
}

float gemm_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

uint16_t gemm_f32_to_f16(float f) {
  uint32_t u = f32_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  u &= 0x7fffffffu;
  if (u > 0x7f800000u)
    return (uint16_t)(sign | 0x7e00u);
  if (u >= 0x477ff000u) /* >= 65520: rounds to infinity (ties to even) */
    return (uint16_t)(sign | 0x7c00u);
  if (u < 0x38800000u) { /* below 2^-14: subnormal (or zero) result */
    /* |f| * 2^24 is exact; rounding it to an integer (current mode: nearest
     * even) gives the subnormal mantissa; 1024 is the smallest normal. */
    float m = nearbyintf(bits_f32(u) * 16777216.0f);
    return (uint16_t)(sign | (uint16_t)m);
  }
  uint32_t h = (u >> 13) - (112u << 10);
  uint32_t rem = u & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    h++;
  return (uint16_t)(sign | h);
}

float gemm_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    float v = ldexpf((float)m, -24);
    return sign ? -v : v;
  }
  if (e == 31)
    return bits_f32(sign | 0x7f800000u | (m << 13));
  return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

double gemm_load(const void *buf, gemm_type t, size_t i) {
  switch (t) {
  case GT_BF16: return (double)gemm_bf16_to_f32(((const uint16_t *)buf)[i]);
  case GT_F16: return (double)gemm_f16_to_f32(((const uint16_t *)buf)[i]);
  case GT_F32: return (double)((const float *)buf)[i];
  default: return NAN;
  }
}

void gemm_rng_seed(gemm_rng *r, uint64_t seed) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull; /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  r->s = z ? z : 0x2545f4914f6cdd1dull;
}

uint64_t gemm_rng_next(gemm_rng *r) {
  uint64_t x = r->s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->s = x;
  return x * 0x2545f4914f6cdd1dull;
}

double gemm_rng_uniform(gemm_rng *r) {
  /* 53 random bits -> [0, 1] -> [-1, 1] */
  double u = (double)(gemm_rng_next(r) >> 11) * (1.0 / 9007199254740991.0);
  return 2.0 * u - 1.0;
}

void gemm_fill_random(gemm_rng *r, gemm_type t, void *dst, double *vals, size_t n) {
  uint16_t *d = dst;
  for (size_t i = 0; i < n; i++) {
    uint16_t h;
    double v;
    do {
      float f = (float)gemm_rng_uniform(r);
      if (t == GT_BF16) {
        h = gemm_f32_to_bf16(f);
        v = (double)gemm_bf16_to_f32(h);
      } else {
        h = gemm_f32_to_f16(f);
        v = (double)gemm_f16_to_f32(h);
      }
    } while (v == 0.0);
    d[i] = h;
    if (vals != NULL)
      vals[i] = v;
  }
}

/* ---- metadata ---- */

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t errlen,
                                                          const char *fmt, ...) {
  if (err == NULL || errlen == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  return p;
}

/* Copies the next whitespace-delimited token into buf; returns the position
 * after it, or NULL when there is none or it does not fit. */
static const char *token(const char *p, const char *end, char *buf, size_t size) {
  p = skip_ws(p, end);
  const char *s = p;
  while (p < end && *p != ' ' && *p != '\t')
    p++;
  size_t n = (size_t)(p - s);
  if (n == 0 || n >= size)
    return NULL;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return p;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *v) {
  if (!isdigit((unsigned char)s[0]))
    return -1;
  char *e;
  errno = 0;
  unsigned long x = strtoul(s, &e, 10);
  if (*e != '\0' || errno != 0 || x > max)
    return -1;
  *v = x;
  return 0;
}

int gemm_parse_meta(const char *text, size_t len, gemm_kernel_meta **out, int *count,
                    char *err, size_t errlen) {
  static const char prefix[] = "// cutec.";
  const size_t plen = sizeof prefix - 1;
  gemm_kernel_meta *blocks = NULL;
  int n = 0, cap = 0;
  long lineno = 0;
  const char *p = text, *end = text + len;
  *out = NULL;
  *count = 0;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *next = eol ? eol + 1 : end;
    const char *le = eol ? eol : end;
    lineno++;
    while (le > p && (le[-1] == '\r' || le[-1] == ' ' || le[-1] == '\t'))
      le--;
    const char *q = skip_ws(p, le);
    p = next;
    if ((size_t)(le - q) <= plen || memcmp(q, prefix, plen) != 0)
      continue;
    q += plen;
    char key[32];
    q = token(q, le, key, sizeof key);
    if (q == NULL)
      continue; /* "// cutec." followed by something odd: not ours */
    int is_kernel = strcmp(key, "kernel") == 0, is_threads = strcmp(key, "threads") == 0,
        is_smem = strcmp(key, "smem_dynamic") == 0, is_param = strcmp(key, "param") == 0;
    int is_tma = strcmp(key, "tma") == 0, is_grid = strcmp(key, "grid") == 0, is_cluster = strcmp(key, "cluster") == 0;
    if (!is_kernel && !is_threads && !is_smem && !is_param && !is_tma && !is_grid && !is_cluster)
      continue; /* unknown cutec line: ignored */
    if (!is_kernel && n == 0) {
      set_err(err, errlen, "cutec.%s before any cutec.kernel line (line %ld)", key, lineno);
      goto fail;
    }
    if (is_kernel) {
      if (n == cap) {
        int ncap = cap ? 2 * cap : 4;
        gemm_kernel_meta *nb = realloc(blocks, (size_t)ncap * sizeof *nb);
        if (nb == NULL) {
          set_err(err, errlen, "out of memory (line %ld)", lineno);
          goto fail;
        }
        blocks = nb;
        cap = ncap;
      }
      gemm_kernel_meta *m = &blocks[n];
      memset(m, 0, sizeof *m);
      m->cluster[0] = m->cluster[1] = m->cluster[2] = 1;
      const char *r = token(q, le, m->kernel, sizeof m->kernel);
      if (r == NULL || skip_ws(r, le) != le) {
        set_err(err, errlen, "malformed cutec.%s line %ld (want: kernel NAME)", key, lineno);
        goto fail;
      }
      n++;
      continue;
    }
    gemm_kernel_meta *m = &blocks[n - 1];
    if (is_cluster) {
      unsigned long v[3];
      char tok[32];
      const char *r = q;
      for (int i = 0; i < 3; i++) {
        r = r ? token(r, le, tok, sizeof tok) : NULL;
        if (r == NULL || parse_uint(tok, 16, &v[i]) != 0 || v[i] == 0)
          r = NULL;
      }
      if (r == NULL) {
        set_err(err, errlen, "malformed cutec.cluster line %ld (want: cluster X Y Z, each 1..16)", lineno);
        goto fail;
      }
      for (int i = 0; i < 3; i++)
        m->cluster[i] = (unsigned)v[i];
      continue;
    }
    if (is_grid) {
      const char *r = q;
      for (int i = 0; i < 3; i++) {
        r = r ? token(r, le, m->grid[i], sizeof m->grid[i]) : NULL;
        if (r == NULL) {
          set_err(err, errlen, "malformed cutec.grid line %ld (want three expressions)", lineno);
          goto fail;
        }
      }
      continue;
    }
    if (is_tma) {
      char line[256];
      size_t ll = (size_t)(le - q) < sizeof line - 1 ? (size_t)(le - q) : sizeof line - 1;
      memcpy(line, q, ll);
      line[ll] = '\0';
      struct gemm_tma t;
      int rest = 0;
      if (m->ntma == 4 || sscanf(line, " %d %15s %7s dims %*s %*s stride %*s box %u %u swizzle %d%n", &t.arg, t.tensor,
                                 t.elem, &t.box0, &t.box1, &t.swizzle, &rest) != 6) {
        set_err(err, errlen, "malformed cutec.tma line %ld", lineno);
        goto fail;
      }
      char flag[16] = "";
      t.unused = sscanf(line + rest, " %15s", flag) == 1 && strcmp(flag, "unused") == 0;
      m->tma[m->ntma++] = t;
      continue;
    }
    if (is_threads) {
      unsigned long v[3];
      char tok[32];
      const char *r = q;
      for (int i = 0; i < 3; i++) {
        r = r ? token(r, le, tok, sizeof tok) : NULL;
        if (r == NULL || parse_uint(tok, 1024, &v[i]) != 0 || v[i] == 0)
          r = NULL;
      }
      if (r == NULL || skip_ws(r, le) != le) {
        set_err(err, errlen, "malformed cutec.%s line %ld (want: threads X Y Z, each 1..1024)",
                key, lineno);
        goto fail;
      }
      for (int i = 0; i < 3; i++)
        m->threads[i] = (unsigned)v[i];
      m->has_threads = 1;
    } else if (is_smem) {
      unsigned long v;
      char tok[32];
      const char *r = token(q, le, tok, sizeof tok);
      if (r == NULL || parse_uint(tok, 0x7fffffffUL, &v) != 0 || skip_ws(r, le) != le) {
        set_err(err, errlen, "malformed cutec.%s line %ld (want: smem_dynamic BYTES)", key,
                lineno);
        goto fail;
      }
      m->smem_dynamic = (unsigned)v;
    } else {
      if (m->nparams == GEMM_MAX_PARAMS) {
        set_err(err, errlen, "too many cutec.%s lines in one block (line %ld)", key, lineno);
        goto fail;
      }
      gemm_param *pp = &m->params[m->nparams];
      const char *r = token(q, le, pp->name, sizeof pp->name);
      const char *v = r ? skip_ws(r, le) : NULL;
      if (r == NULL || v == le || (size_t)(le - v) >= sizeof pp->value) {
        set_err(err, errlen, "malformed cutec.%s line %ld (want: param NAME VALUE)", key, lineno);
        goto fail;
      }
      memcpy(pp->value, v, (size_t)(le - v));
      pp->value[le - v] = '\0';
      for (int i = 0; i < m->nparams; i++) {
        if (strcmp(m->params[i].name, pp->name) == 0) {
          set_err(err, errlen, "duplicate cutec.param %s (line %ld)", pp->name, lineno);
          goto fail;
        }
      }
      m->nparams++;
    }
  }
  *out = blocks;
  *count = n;
  return 0;
fail:
  free(blocks);
  return -1;
}

const char *gemm_meta_param(const gemm_kernel_meta *m, const char *name) {
  for (int i = 0; i < m->nparams; i++)
    if (strcmp(m->params[i].name, name) == 0)
      return m->params[i].value;
  return NULL;
}

int gemm_meta_int(const gemm_kernel_meta *m, const char *name, long *v) {
  const char *s = gemm_meta_param(m, name);
  if (s == NULL)
    return -1;
  char *e;
  errno = 0;
  long x = strtol(s, &e, 10);
  if (e == s || *e != '\0' || errno != 0)
    return -1;
  *v = x;
  return 0;
}

int gemm_point_from_meta(const gemm_kernel_meta *m, gemm_point *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  p->meta = *m;
  const char *t = gemm_meta_param(m, "T"), *tc = gemm_meta_param(m, "TC");
  if (t == NULL || tc == NULL) {
    set_err(err, errlen, "kernel %s: missing cutec.param T or TC", m->kernel);
    return -1;
  }
  p->t = gemm_type_parse(t);
  p->tc = gemm_type_parse(tc);
  static const char *const req[] = {"BM", "BN", "VEC"};
  long *dst[] = {&p->bm, &p->bn, &p->vec};
  for (int i = 0; i < 3; i++) {
    if (gemm_meta_int(m, req[i], dst[i]) != 0 || *dst[i] <= 0) {
      set_err(err, errlen, "kernel %s: missing or non-positive integer cutec.param %s",
              m->kernel, req[i]);
      return -1;
    }
  }
  if (gemm_meta_int(m, "BK", &p->bk) != 0 || p->bk < 0)
    p->bk = 0;
  if (!m->has_threads) {
    set_err(err, errlen, "kernel %s: no cutec.threads line", m->kernel);
    return -1;
  }
  size_t off = 0;
  p->desc[0] = '\0';
  for (int i = 0; i < m->nparams && off < sizeof p->desc; i++) {
    int w = snprintf(p->desc + off, sizeof p->desc - off, "%s%s=%s", i ? " " : "",
                     m->params[i].name, m->params[i].value);
    if (w < 0)
      break;
    off += (size_t)w;
  }
  return 0;
}

char *gemm_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf != NULL) {
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap * 2);
      if (nb == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) {
      if (ferror(f)) {
        free(buf);
        buf = NULL;
      }
      break;
    }
  }
  fclose(f);
  if (buf != NULL) {
    buf[n] = '\0';
    *len = n;
  }
  return buf;
}

long gemm_ceil_div(long a, long b) { return (a + b - 1) / b; }

long gemm_point_n_multiple(const gemm_point *p) {
  for (int t = 0; t < p->meta.ntma; t++)
    if (strcmp(p->meta.tma[t].tensor, "C") == 0 && !p->meta.tma[t].unused)
      return strcmp(p->meta.tma[t].elem, "f32") == 0 ? 4 : 8;
  return 1;
}

int gemm_build_args(cutec_runtime *rt, const gemm_kernel_meta *meta, gemm_args *ga, char *err, size_t errlen) {
  void *base[6] = {&ga->m, &ga->n, &ga->k, &ga->a, &ga->b, &ga->c};
  for (int i = 0; i < 6; i++)
    ga->args[i] = base[i];
  for (int t = 0; t < meta->ntma; t++) {
    const struct gemm_tma *tm = &meta->tma[t];
    int is_a = strcmp(tm->tensor, "A") == 0, is_c = strcmp(tm->tensor, "C") == 0;
    if ((!is_a && !is_c && strcmp(tm->tensor, "B") != 0) || tm->arg < 6 || tm->arg >= 10) {
      set_err(err, errlen, "cutec.tma for argument %d over '%s': only A, B or C, as arguments 6..9", tm->arg,
              tm->tensor);
      return -1;
    }
    ga->args[tm->arg] = &ga->maps[t];
    if (tm->unused) { /* never read by the kernel: no constraints on C's rows */
      memset(&ga->maps[t], 0, sizeof ga->maps[t]);
      continue;
    }
    /* A is M x K, B is N x K (K contiguous); C is M x N (N contiguous) */
    uint64_t esz = strcmp(tm->elem, "f32") == 0 ? 4 : 2;
    uint64_t inner = (uint64_t)(is_c ? ga->n : ga->k);
    uint64_t rows = (uint64_t)(is_a || is_c ? ga->m : ga->n);
    unsigned long long ptr = is_a ? ga->a : is_c ? ga->c : ga->b;
    cutec_status st = cutec_tensor_map_2d(rt, &ga->maps[t], tm->elem, ptr, inner, rows, inner * esz, tm->box0,
                                          tm->box1, tm->swizzle);
    if (st != CUTEC_OK) {
      set_err(err, errlen, "tensor map for %s: %s: %s", tm->tensor, cutec_status_string(st), cutec_runtime_message(rt));
      return -1;
    }
    ga->args[tm->arg] = &ga->maps[t];
  }
  return 0;
}

/* The grid rule, evaluated by the runtime's own evaluator (manifest.h) with
 * M, N, K and, for resident(x), the blocks the device holds at once. */
typedef struct grid_env {
  long m, n, k;
  long long resident;
} grid_env;

static int grid_lookup(void *user, const char *name, size_t len, long long *v) {
  const grid_env *g = user;
  if (len == 9 && memcmp(name, "@resident", 9) == 0) {
    if (g->resident <= 0)
      return -1; /* unknown: resident(x) is x */
    *v = g->resident;
    return 0;
  }
  if (len != 1)
    return -1;
  switch (name[0]) {
  case 'M': *v = g->m; return 0;
  case 'N': *v = g->n; return 0;
  case 'K': *v = g->k; return 0;
  default: return -1;
  }
}

int gemm_grid(const gemm_point *p, long m, long n, long k, long long resident, unsigned grid[3], char *err,
              size_t errlen) {
  if (p->meta.grid[0][0] == '\0') {
    grid[0] = (unsigned)gemm_ceil_div(n, p->bn);
    grid[1] = (unsigned)gemm_ceil_div(m, p->bm);
    grid[2] = 1;
    return 0;
  }
  grid_env env = {m, n, k, resident};
  for (int i = 0; i < 3; i++) {
    long long v;
    char why[128];
    if (cutec_grid_eval(p->meta.grid[i], grid_lookup, &env, &v, why, sizeof why) != 0 || v <= 0 || v > 0x7fffffffLL) {
      set_err(err, errlen, "bad cutec.grid expression '%s' for M=%ld N=%ld K=%ld%s%s", p->meta.grid[i], m, n, k,
              v <= 0 ? "" : ": ", v <= 0 ? "" : why);
      return -1;
    }
    grid[i] = (unsigned)v;
  }
  return 0;
}

long long gemm_resident(cutec_kernel *k, const gemm_point *p) {
  long long blocks = 0;
  if (strstr(p->meta.grid[0], "resident(") == NULL ||
      cutec_occupancy_blocks(k, p->meta.threads, p->meta.cluster, p->meta.smem_dynamic, &blocks) != CUTEC_OK)
    return 0;
  return blocks;
}
