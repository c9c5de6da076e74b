/* fuzz_smoke.c: feeds the compiler deterministic pseudo-random inputs
 * (mutations of the given sources and random token soups) and checks that
 * it never crashes, hangs or reports an internal error: every run must
 * end with exit code 0 or 1 within a time bound.  Each run happens in a
 * forked child so that a crash is observed, not suffered.  A failing input
 * is kept as WORK/fail-N.cute.
 *
 *   fuzz_smoke [--runs N] [--seed S] [--timeout SEC] --work DIR FILE.cute...
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cutec/compiler.h"

static uint64_t rng_state;
static uint64_t rnd(void)
{
    /* xorshift64*: deterministic for a given seed on every platform */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static const char *const tokens[] = {
    "kernel",      "fn",
    "let",         "var",
    "for",         "unroll",
    "while",       "in",
    "step",        "if",
    "else",        "return",
    "shared",      "local",
    "align",       "threads",
    "tensor",      "import",
    "true",        "false",
    "_",           "i32",
    "i64",         "f16",
    "bf16",        "f32",
    "f64",         "bool",
    "gmem",        "smem",
    "rmem",        "int",
    "type",        "threadIdx",
    "blockIdx",    "blockDim",
    "gridDim",     ".x",
    ".y",          "sync",
    "min",         "max",
    "abs",         "sqrt",
    "fma",         "ceil_div",
    "select",      "size<",
    "rank<",       "get<",
    "Sw<",         "composition",
    "complement",  "logical_divide",
    "make_layout", "coalesce",
    "cosize",      "x",
    "y",           "N",
    "T",           "0",
    "1",           "2",
    "4",           "32",
    "1024",        "4097",
    "65536",       "9223372036854775807",
    "0x7f",        "1.5",
    "2e3",         "\"m.cute\"",
    "(",           ")",
    "[",           "]",
    "{",           "}",
    "<",           ">",
    "<=",          ">=",
    "==",          "!=",
    "&&",          "||",
    "<<",          ">>",
    "+",           "-",
    "*",           "/",
    "%",           "&",
    "|",           "^",
    "!",           "~",
    "=",           "+=",
    "-=",          "*=",
    "/=",          "%=",
    ":",           ";",
    ",",           ".",
    "..",          "->",
    "//",          "/*",
    "*/",          "\n",
    " ",           "\t",
};
enum { NTOK = sizeof tokens / sizeof tokens[0] };

typedef struct Buf {
    char *p;
    size_t n, cap;
} Buf;

static void put(Buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            perror("realloc");
            exit(2);
        }
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void put_token(Buf *b)
{
    const char *t = tokens[below(NTOK)];
    put(b, t, strlen(t));
    if (below(3)) put(b, " ", 1);
}

/* One mutation: a random edit of `src` (several edits in a row). */
static void mutate(Buf *out, const char *src, size_t n)
{
    out->n = 0;
    put(out, src, n);
    int edits = below(2) ? 1 : 1 + (int)below(8);
    for (int e = 0; e < edits && out->n > 0; e++) {
        size_t at = below(out->n), len = 1 + below(out->n - at < 64 ? out->n - at : 64);
        Buf t = {0};
        switch (below(6)) {
        case 0: /* delete a range */
            memmove(out->p + at, out->p + at + len, out->n - at - len);
            out->n -= len;
            out->p[out->n] = 0;
            break;
        case 1: /* duplicate a range */
            put(&t, out->p, at + len);
            put(&t, out->p + at, out->n - at);
            free(out->p);
            *out = t;
            break;
        case 2: /* insert a token */
            put(&t, out->p, at);
            put_token(&t);
            put(&t, out->p + at, out->n - at);
            free(out->p);
            *out = t;
            break;
        case 3: /* replace a byte by a random byte (any value, NUL included) */ out->p[at] = (char)below(256); break;
        case 4: { /* replace a digit run by a big or odd number */
            static const char *nums[] = {"0", "3", "4097", "2147483648", "99999999999999999999", "-1", "1.0"};
            const char *s = nums[below(sizeof nums / sizeof nums[0])];
            put(&t, out->p, at);
            put(&t, s, strlen(s));
            put(&t, out->p + at + 1, out->n - at - 1);
            free(out->p);
            *out = t;
            break;
        }
        default: { /* swap two halves around `at` */
            put(&t, out->p + at, out->n - at);
            put(&t, out->p, at);
            free(out->p);
            *out = t;
            break;
        }
        }
    }
}

static void soup(Buf *out)
{
    out->n = 0;
    size_t k = 1 + below(400);
    if (below(2)) put(out, "kernel k(n: i32) {\n", 19);
    for (size_t i = 0; i < k; i++) put_token(out);
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    Buf b = {0};
    char tmp[4096];
    size_t got;
    while ((got = fread(tmp, 1, sizeof tmp, f)) > 0) put(&b, tmp, got);
    fclose(f);
    *n = b.n;
    return b.p;
}

static int write_file(const char *path, const Buf *b)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(b->p, 1, b->n, f);
    return fclose(f) == 0 && w == b->n ? 0 : -1;
}

/* Compile `path` in a child; returns a description of a failure or NULL. */
static const char *run_one(const char *path, unsigned timeout, char *why, size_t whylen, int *exit_code)
{
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, whylen, "fork: %s", strerror(errno));
        return why;
    }
    if (pid == 0) {
        alarm(timeout);
        FILE *devnull = fopen("/dev/null", "w");
        cutec_options o;
        cutec_options_init(&o);
        o.opt_level = (int)(rnd() % 2); /* -O0 or -O1: fast, still through LLVM */
        o.diagnostics = devnull;
        cutec_output out;
        cutec_result rc = cutec_compile_file(path, &o, &out);
        cutec_output_free(&out);
        _exit((int)rc);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            snprintf(why, whylen, "waitpid: %s", strerror(errno));
            return why;
        }
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        snprintf(why, whylen, sig == SIGALRM ? "took longer than %u s" : "killed by signal %d",
                 sig == SIGALRM ? timeout : (unsigned)sig);
        return why;
    }
    int rc = WEXITSTATUS(st);
    *exit_code = rc;
    if (rc != 0 && rc != 1) {
        snprintf(why, whylen, "exit code %d (expected 0 or 1)", rc);
        return why;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long runs = 2000;
    unsigned long long seed = 1;
    unsigned timeout = 10;
    const char *work = NULL;
    const char *inputs[64];
    int ninputs = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atol(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
            timeout = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc)
            work = argv[++i];
        else if (argv[i][0] != '-' && ninputs < 64)
            inputs[ninputs++] = argv[i];
        else {
            fprintf(stderr, "usage: fuzz_smoke [--runs N] [--seed S] [--timeout SEC] --work DIR FILE...\n");
            return 2;
        }
    }
    if (!work || ninputs == 0) {
        fprintf(stderr, "fuzz_smoke: need --work DIR and at least one input\n");
        return 2;
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s", work);
    for (char *p = cmd + 1; *p; p++) /* mkdir -p */
        if (*p == '/') {
            *p = 0;
            mkdir(cmd, 0777);
            *p = '/';
        }
    mkdir(cmd, 0777);
    char *src[64];
    size_t srclen[64];
    for (int i = 0; i < ninputs; i++) {
        src[i] = slurp(inputs[i], &srclen[i]);
        if (!src[i]) {
            fprintf(stderr, "fuzz_smoke: cannot read %s\n", inputs[i]);
            return 2;
        }
    }
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
    int failures = 0;
    long counts[2] = {0, 0};
    Buf b = {0};
    char path[4200], why[256];
    snprintf(path, sizeof path, "%s/input.cute", work);
    for (long r = 0; r < runs; r++) {
        if (below(4) == 0)
            soup(&b);
        else {
            int k = (int)below((size_t)ninputs);
            mutate(&b, src[k], srclen[k]);
        }
        if (write_file(path, &b) != 0) {
            fprintf(stderr, "fuzz_smoke: cannot write %s\n", path);
            return 2;
        }
        (void)rnd(); /* the child draws the opt level from this state */
        int code = -1;
        const char *bad = run_one(path, timeout, why, sizeof why, &code);
        if (bad) {
            char keep[4300];
            snprintf(keep, sizeof keep, "%s/fail-%ld.cute", work, r);
            write_file(keep, &b);
            fprintf(stderr, "FAIL run %ld: %s; input kept as %s\n", r, bad, keep);
            if (++failures >= 10) break;
        } else {
            counts[code]++;
        }
    }
    free(b.p);
    for (int i = 0; i < ninputs; i++) free(src[i]);
    printf("fuzz_smoke: %ld runs: %ld compiled, %ld rejected with diagnostics, %d failures (seed %llu)\n", runs,
           counts[0], counts[1], failures, seed);
    return failures ? 1 : 0;
}
