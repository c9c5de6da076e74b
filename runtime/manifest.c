/*
 * manifest.c - parsing the "// cutec." lines of a kernel and evaluating its
 * grid rule.  The grid rule is a tiny expression language evaluated by
 * recursive descent on 64-bit integers; overflow and division by zero are
 * errors, not undefined behaviour, because the values come from the caller.
 */
#include "manifest.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *why, size_t why_len, const char *fmt, ...) {
  if (why != NULL && why_len > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* Next whitespace-separated token of [*p, end) into buf; 0 when none fits. */
static int next_token(const char **p, const char *end, char *buf, size_t size) {
  const char *s = *p;
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  const char *e = s;
  while (e < end && *e != ' ' && *e != '\t')
    e++;
  size_t n = (size_t)(e - s);
  *p = e;
  if (n == 0 || n >= size)
    return 0;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return 1;
}

static int parse_u(const char *s, unsigned long long max, unsigned long long *v) {
  if (!isdigit((unsigned char)s[0]))
    return -1;
  char *e;
  errno = 0;
  unsigned long long x = strtoull(s, &e, 10);
  if (*e != '\0' || errno != 0 || x > max)
    return -1;
  *v = x;
  return 0;
}

static const struct {
  const char *name;
  int size, is_int, is_signed;
} scalar_types[] = {
    {"i8", 1, 1, 1},   {"u8", 1, 1, 0},   {"i16", 2, 1, 1}, {"u16", 2, 1, 0},
    {"i32", 4, 1, 1},  {"u32", 4, 1, 0},  {"i64", 8, 1, 1}, {"u64", 8, 1, 0},
    {"bool", 1, 1, 0}, {"f16", 2, 0, 0},  {"bf16", 2, 0, 0}, {"f32", 4, 0, 0},
    {"f64", 8, 0, 0},
};

static int parse_arg(const char *p, const char *end, cutec_manifest *m, char *why, size_t wl) {
  char idx[16], name[CUTEC_MF_NAME], kind[16], elem[16];
  unsigned long long i;
  if (!next_token(&p, end, idx, sizeof idx) || parse_u(idx, CUTEC_MF_MAX_ARGS - 1, &i) != 0 ||
      !next_token(&p, end, name, sizeof name) || !next_token(&p, end, kind, sizeof kind))
    return fail(why, wl, "malformed cutec.arg line (want: arg INDEX NAME TYPE | tensor ELEM)");
  if (i != (unsigned long long)m->nargs)
    return fail(why, wl, "cutec.arg %llu out of order (expected %d)", i, m->nargs);
  cutec_mf_arg *a = &m->args[m->nargs];
  memset(a, 0, sizeof *a);
  memcpy(a->name, name, sizeof a->name);
  if (strcmp(kind, "tma") == 0) {
    if (!next_token(&p, end, elem, sizeof elem))
      return fail(why, wl, "cutec.arg %s: tma without its tensor", name);
    a->kind = CUTEC_MF_TMA;
    memcpy(a->type, elem, sizeof a->type);
    a->size = 128;
  } else if (strcmp(kind, "tensor") == 0) {
    if (!next_token(&p, end, elem, sizeof elem))
      return fail(why, wl, "cutec.arg %s: tensor without element type", name);
    a->kind = CUTEC_MF_TENSOR;
    memcpy(a->type, elem, sizeof a->type);
    a->size = 8;
  } else {
    int found = 0;
    for (size_t t = 0; t < sizeof scalar_types / sizeof scalar_types[0]; t++) {
      if (strcmp(kind, scalar_types[t].name) == 0) {
        a->size = scalar_types[t].size;
        a->is_int = scalar_types[t].is_int;
        a->is_signed = scalar_types[t].is_signed;
        found = 1;
      }
    }
    if (!found)
      return fail(why, wl, "cutec.arg %s: unknown type '%s'", name, kind);
    a->kind = CUTEC_MF_SCALAR;
    memcpy(a->type, kind, sizeof a->type);
  }
  m->nargs++;
  return 0;
}

int cutec_manifest_parse(const char *text, size_t len, cutec_manifest *m, char *why,
                         size_t why_len) {
  static const char prefix[] = "// cutec.";
  const size_t plen = sizeof prefix - 1;
  memset(m, 0, sizeof *m);
  m->cluster[0] = m->cluster[1] = m->cluster[2] = 1;
  int blocks = 0;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *next = eol ? eol + 1 : end, *le = eol ? eol : end;
    while (le > p && (le[-1] == '\r' || le[-1] == ' ' || le[-1] == '\t'))
      le--;
    const char *q = p;
    p = next;
    if ((size_t)(le - q) <= plen || memcmp(q, prefix, plen) != 0)
      continue;
    q += plen;
    char key[32], tok[CUTEC_MF_EXPR];
    if (!next_token(&q, le, key, sizeof key))
      continue;
    if (strcmp(key, "kernel") == 0) {
      if (blocks++ > 0)
        break; /* the first block only */
      if (!next_token(&q, le, m->kernel, sizeof m->kernel))
        return fail(why, why_len, "malformed cutec.kernel line");
      continue;
    }
    if (blocks == 0)
      return fail(why, why_len, "cutec.%s before cutec.kernel", key);
    unsigned long long v;
    if (strcmp(key, "threads") == 0) {
      for (int i = 0; i < 3; i++) {
        if (!next_token(&q, le, tok, sizeof tok) || parse_u(tok, 1024, &v) != 0 || v == 0)
          return fail(why, why_len, "malformed cutec.threads line (want X Y Z, each 1..1024)");
        m->threads[i] = (unsigned)v;
      }
      m->has_threads = 1;
    } else if (strcmp(key, "smem_static") == 0 || strcmp(key, "smem_dynamic") == 0) {
      if (!next_token(&q, le, tok, sizeof tok) || parse_u(tok, 0x7fffffffull, &v) != 0)
        return fail(why, why_len, "malformed cutec.%s line", key);
      if (key[5] == 's')
        m->smem_static = (unsigned)v;
      else
        m->smem_dynamic = (unsigned)v;
    } else if (strcmp(key, "param") == 0) {
      if (m->nparams == CUTEC_MF_MAX_PARAMS)
        return fail(why, why_len, "more than %d cutec.param lines", CUTEC_MF_MAX_PARAMS);
      if (!next_token(&q, le, m->pnames[m->nparams], CUTEC_MF_NAME) ||
          !next_token(&q, le, m->pvalues[m->nparams], CUTEC_MF_NAME))
        return fail(why, why_len, "malformed cutec.param line");
      m->nparams++;
    } else if (strcmp(key, "arg") == 0) {
      if (m->nargs == CUTEC_MF_MAX_ARGS)
        return fail(why, why_len, "more than %d cutec.arg lines", CUTEC_MF_MAX_ARGS);
      if (parse_arg(q, le, m, why, why_len) != 0)
        return -1;
    } else if (strcmp(key, "cluster") == 0) {
      char ctok[16];
      for (int i = 0; i < 3; i++) {
        unsigned long long cv;
        if (!next_token(&q, le, ctok, sizeof ctok) || parse_u(ctok, 16, &cv) != 0 || cv == 0)
          return fail(why, why_len, "malformed cutec.cluster line (want: cluster X Y Z, each 1..16)");
        m->cluster[i] = (unsigned)cv;
      }
    } else if (strcmp(key, "tma") == 0) {
      char line[256];
      size_t ll = (size_t)(le - q) < sizeof line - 1 ? (size_t)(le - q) : sizeof line - 1;
      memcpy(line, q, ll);
      line[ll] = '\0';
      struct cutec_mf_tma *t = &m->tma[m->ntma];
      int rest = 0;
      if (m->ntma == 4 || sscanf(line, " %d %63s %15s dims %*s %*s stride %*s box %u %u swizzle %d%n", &t->arg,
                                 t->tensor, t->elem, &t->box0, &t->box1, &t->swizzle, &rest) != 6)
        return fail(why, why_len, "malformed cutec.tma line");
      char flag[16] = "";
      t->unused = sscanf(line + rest, " %15s", flag) == 1 && strcmp(flag, "unused") == 0;
      m->ntma++;
    } else if (strcmp(key, "grid") == 0) {
      for (int i = 0; i < 3; i++)
        if (!next_token(&q, le, m->grid[i], sizeof m->grid[i]))
          return fail(why, why_len, "malformed cutec.grid line (want three expressions)");
      m->has_grid = 1;
    }
    /* other keys: a newer compiler's, ignored */
  }
  if (blocks == 0)
    return fail(why, why_len, "no cutec.kernel line");
  return 0;
}

const char *cutec_manifest_param(const cutec_manifest *m, const char *name) {
  for (int i = 0; i < m->nparams; i++)
    if (strcmp(m->pnames[i], name) == 0)
      return m->pvalues[i];
  return NULL;
}

int cutec_manifest_param_int(const cutec_manifest *m, const char *name, long long *v) {
  const char *s = cutec_manifest_param(m, name);
  if (s == NULL)
    return -1;
  char *e;
  errno = 0;
  long long x = strtoll(s, &e, 10);
  if (e == s || *e != '\0' || errno != 0)
    return -1;
  *v = x;
  return 0;
}

int cutec_manifest_arg(const cutec_manifest *m, const char *name) {
  for (int i = 0; i < m->nargs; i++)
    if (strcmp(m->args[i].name, name) == 0)
      return i;
  return -1;
}

/* ---- grid rule ---- */

typedef struct gx {
  const char *p;
  cutec_mf_lookup lookup;
  void *user;
  char *why;
  size_t why_len;
  int failed;
} gx;

static long long gx_expr(gx *g);

static long long gx_fail(gx *g, const char *msg) {
  if (!g->failed)
    fail(g->why, g->why_len, "%s at '%s'", msg, g->p);
  g->failed = 1;
  return 0;
}

static int gx_eat(gx *g, char c) {
  if (*g->p == c) {
    g->p++;
    return 1;
  }
  return 0;
}

static long long gx_checked(gx *g, __int128 v) {
  if (v > INT64_MAX || v < INT64_MIN)
    return gx_fail(g, "overflow");
  return (long long)v;
}

static long long gx_div(gx *g, long long a, long long b, char op) {
  if (b == 0)
    return gx_fail(g, "division by zero");
  if (a == INT64_MIN && b == -1)
    return gx_fail(g, "overflow");
  if (op == '%')
    return a % b;
  if (op == '/')
    return a / b;
  /* ceil_div, for the non-negative operands a grid rule has */
  long long q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

static long long gx_primary(gx *g) {
  if (g->failed)
    return 0;
  if (gx_eat(g, '(')) {
    long long v = gx_expr(g);
    if (!gx_eat(g, ')'))
      return gx_fail(g, "expected ')'");
    return v;
  }
  if (gx_eat(g, '-'))
    return gx_checked(g, -(__int128)gx_primary(g));
  if (isdigit((unsigned char)*g->p)) {
    char *e;
    errno = 0;
    long long v = strtoll(g->p, &e, 10);
    if (errno != 0)
      return gx_fail(g, "integer too large");
    g->p = e;
    return v;
  }
  if (isalpha((unsigned char)*g->p) || *g->p == '_') {
    const char *s = g->p;
    while (isalnum((unsigned char)*g->p) || *g->p == '_')
      g->p++;
    size_t n = (size_t)(g->p - s);
    if (*g->p == '(' && n == 8 && memcmp(s, "resident", 8) == 0) {
      /* resident(x): x blocks, at most as many as the device holds at once
       * (whole clusters); the lookup answers "@resident" where it knows
       * that number (at launch, from the occupancy API), else x stays */
      g->p++;
      long long x = gx_expr(g), cap = 0;
      if (!gx_eat(g, ')'))
        return gx_fail(g, "expected ')'");
      if (!g->failed && g->lookup != NULL && g->lookup(g->user, "@resident", 9, &cap) == 0 && cap > 0 && cap < x)
        x = cap;
      return x;
    }
    if (*g->p == '(') {
      int which = n == 8 && memcmp(s, "ceil_div", 8) == 0 ? 1
                  : n == 3 && memcmp(s, "min", 3) == 0    ? 2
                  : n == 3 && memcmp(s, "max", 3) == 0    ? 3
                                                          : 0;
      if (!which)
        return gx_fail(g, "unknown function");
      g->p++;
      long long a = gx_expr(g);
      if (!gx_eat(g, ','))
        return gx_fail(g, "expected ','");
      long long b = gx_expr(g);
      if (!gx_eat(g, ')'))
        return gx_fail(g, "expected ')'");
      if (g->failed)
        return 0;
      return which == 1 ? gx_div(g, a, b, 'c') : which == 2 ? (a < b ? a : b) : (a > b ? a : b);
    }
    long long v = 0;
    if (g->lookup == NULL || g->lookup(g->user, s, n, &v) != 0) {
      g->p = s;
      return gx_fail(g, "unknown name");
    }
    return v;
  }
  return gx_fail(g, "expected a number, a name or '('");
}

static long long gx_term(gx *g) {
  long long v = gx_primary(g);
  for (;;) {
    char op = *g->p;
    if (g->failed || (op != '*' && op != '/' && op != '%'))
      return v;
    g->p++;
    long long r = gx_primary(g);
    v = op == '*' ? gx_checked(g, (__int128)v * r) : gx_div(g, v, r, op);
  }
}

static long long gx_expr(gx *g) {
  long long v = gx_term(g);
  for (;;) {
    char op = *g->p;
    if (g->failed || (op != '+' && op != '-'))
      return v;
    g->p++;
    long long r = gx_term(g);
    v = gx_checked(g, op == '+' ? (__int128)v + r : (__int128)v - r);
  }
}

int cutec_grid_eval(const char *expr, cutec_mf_lookup lookup, void *user, long long *v,
                    char *why, size_t why_len) {
  gx g = {.p = expr, .lookup = lookup, .user = user, .why = why, .why_len = why_len};
  long long r = gx_expr(&g);
  if (!g.failed && *g.p != '\0')
    gx_fail(&g, "unexpected character");
  if (g.failed)
    return -1;
  *v = r;
  return 0;
}

typedef struct grid_env {
  const cutec_manifest *m;
  void **args;
} grid_env;

static int grid_lookup(void *user, const char *name, size_t len, long long *v) {
  const grid_env *env = user;
  const cutec_manifest *m = env->m;
  for (int i = 0; i < m->nargs; i++) {
    const cutec_mf_arg *a = &m->args[i];
    if (strlen(a->name) != len || memcmp(a->name, name, len) != 0)
      continue;
    if (!a->is_int || env->args == NULL || env->args[i] == NULL)
      return -1;
    const void *p = env->args[i];
    switch (a->size) {
    case 1: *v = a->is_signed ? (long long)*(const int8_t *)p : (long long)*(const uint8_t *)p; return 0;
    case 2: *v = a->is_signed ? (long long)*(const int16_t *)p : (long long)*(const uint16_t *)p; return 0;
    case 4: *v = a->is_signed ? (long long)*(const int32_t *)p : (long long)*(const uint32_t *)p; return 0;
    default: {
      uint64_t u;
      memcpy(&u, p, 8);
      if (!a->is_signed && u > INT64_MAX)
        return -1;
      *v = (long long)u;
      return 0;
    }
    }
  }
  for (int i = 0; i < m->nparams; i++) {
    if (strlen(m->pnames[i]) == len && memcmp(m->pnames[i], name, len) == 0) {
      char *e;
      errno = 0;
      long long x = strtoll(m->pvalues[i], &e, 10);
      if (e == m->pvalues[i] || *e != '\0' || errno != 0)
        return -1;
      *v = x;
      return 0;
    }
  }
  return -1;
}

int cutec_manifest_grid(const cutec_manifest *m, void **args, unsigned grid[3], char *why,
                        size_t why_len) {
  if (!m->has_grid)
    return fail(why, why_len, "the manifest of '%s' has no grid rule (cutec.grid); pass the grid",
                m->kernel);
  grid_env env = {m, args};
  for (int i = 0; i < 3; i++) {
    long long v;
    char sub[256];
    if (cutec_grid_eval(m->grid[i], grid_lookup, &env, &v, sub, sizeof sub) != 0)
      return fail(why, why_len, "grid rule '%s' of '%s': %s", m->grid[i], m->kernel, sub);
    if (v < 1 || v > 0x7fffffffLL)
      return fail(why, why_len, "grid rule '%s' of '%s' gives %lld (must be 1 .. 2^31-1)",
                  m->grid[i], m->kernel, v);
    grid[i] = (unsigned)v;
  }
  return 0;
}
