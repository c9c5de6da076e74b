/*
 * cutec_tune.c - `cutec-tune`, the runtime's command line: it needs only the
 * runtime (the CUDA driver and cuBLASLt are opened at run time), never LLVM,
 * so it runs on GPU servers where the compiler is not installed.
 *
 *   cutec-tune list PACK                     entries of a pack (no GPU needed)
 *   cutec-tune tune PACK --m M --n N --k K   ranked candidates and the winner
 *   cutec-tune bench PACK --shapes FILE      per shape: cuBLAS vs best DSL kernel
 *   (tune, bench, overhead: --epilogue ACT [--bias] [--bias-row] [--c-source] [--aux]
 *   for a GEMM with a fused epilogue, against cuBLASLt's fused form)
 *   cutec-tune overhead PACK --m M ...       host time per cached cutec_gemm call
 *   (tune, bench: --groups G [--skew S] for a grouped GEMM, its rows split
 *   by tune_groups.c; bench compares it with a loop of cuBLASLt calls, and
 *   with --list runs it as a list of problems, tune_list_bench.c)
 *   (bench --layouts-h2h [R]: the lines of a shape in several layouts, their
 *   fastest pack kernels timed in the same rounds, tune_layout_h2h.c)
 *
 * The command line is tune_args.c, the shapes file tune_shapes.c.  Exit
 * status: 0 ok, 1 failure, 2 usage, 77 no CUDA driver or device (so tests
 * can report a skip).  Progress goes to stderr only on a terminal.  With
 * --json, stdout holds one JSON object whatever happens after the
 * arguments are read: its "ok" member says whether the command succeeded,
 * and a failure adds "status", "code", "status_text" and "message".
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cutec/cutec.h"
#include "dtype.h"
#include "file_read.h"
#include "gemm_candidate.h"
#include "kdesc.h"
#include "pack_format.h"
#include "tune_args.h"
#include "tune_error.h"
#include "tune_groups.h"
#include "tune_json.h"
#include "tune_layout_h2h.h"
#include "tune_list_bench.h"
#include "tune_same_kernel.h"
#include "tune_shapes.h"

typedef tune_opts opts;

static const char *dtype_name(cutec_dtype t) { return cutec_dtype_str((cutec_ct)t); }

static int is_fp8(cutec_dtype t) { return cutec_ct_is_fp8((cutec_ct)t); }

static int is_tty(void) { return isatty(STDERR_FILENO); }

/* Every failure the runtime logs at CUTEC_LOG_ERROR is also returned to the
 * tool, which reports it once (fail below); the log is for --verbose. */
static void on_log(void *user, int level, const char *msg)
{
    const opts *o = user;
    if (o->verbose)
        fprintf(stderr, "%s%s: %s\n", is_tty() ? "\r" : "",
                level == CUTEC_LOG_ERROR     ? "error"
                : level == CUTEC_LOG_WARNING ? "warning"
                : level == CUTEC_LOG_INFO    ? "info"
                                             : "debug",
                msg);
}

static void on_progress(void *user, int done, int total, const char *name)
{
    (void)user;
    fprintf(stderr, "\r\033[Ktuning %d/%d %.60s", done, total, name);
    if (done == total) fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- failures and JSON ---- */

/* How a command failed: a status (the runtime's, or the one the runtime
 * would give for the same mistake) and the message printed on stderr. */
typedef struct failure {
    cutec_status status;
    char message[20000];
} failure;

static int status_exit(cutec_status s) { return s == CUTEC_ERR_NO_DRIVER || s == CUTEC_ERR_NO_DEVICE ? 77 : 1; }

/* Records the failure, prints it on stderr; returns the exit status. */
static int fail(failure *f, cutec_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    f->status = s;
    fprintf(stderr, "%scutec-tune: error: %s\n", is_tty() ? "\r\033[K" : "", f->message);
    return status_exit(s);
}

/* A runtime call that failed: what was being done, the status, the detail. */
static int fail_runtime(failure *f, cutec_runtime *rt, const char *what, cutec_status s)
{
    return fail(f, s, "%s: %s: %s", what, cutec_status_string(s), cutec_runtime_message(rt));
}

/* With --json, the members that end every object: "ok", and for a failure
 * its status and message; `opened`: the command already printed the
 * object's beginning (else this is the whole object). */
static void json_end(const opts *o, const failure *f, int opened)
{
    if (!o->json) return;
    printf("%s\"ok\": %s", opened ? ", " : "{", f->status == CUTEC_OK ? "true" : "false");
    if (f->status != CUTEC_OK) {
        printf(", \"status\": \"%s\", \"code\": %d, \"status_text\": ", cutec_status_name(f->status), (int)f->status);
        tune_json_string(cutec_status_string(f->status));
        printf(", \"message\": ");
        tune_json_string(f->message);
    }
    printf("}\n");
}

/* ---- list (no GPU) ---- */

static int cmd_list(const opts *o, failure *f)
{
    unsigned char *buf;
    size_t len;
    char why[1200];
    cutec_file_error fe = cutec_file_read(o->pack, CUTEC_FILE_MAX_BYTES, &buf, &len, why, sizeof why);
    if (fe != CUTEC_FILE_OK) {
        int rc = fail(f, fe == CUTEC_FILE_NO_MEMORY ? CUTEC_ERR_OUT_OF_MEMORY : CUTEC_ERR_IO, "%s", why);
        json_end(o, f, 0);
        return rc;
    }
    cutec_packfmt_header h;
    cutec_packfmt_error e = cutec_packfmt_parse(buf, len, &h, NULL, why, sizeof why);
    cutec_packfmt_entry *ents = e == CUTEC_PACKFMT_OK ? calloc(h.entry_count + 1u, sizeof *ents) : NULL;
    if (ents == NULL) {
        /* the statuses cutec_pack_load_file gives for the same defects (pack.c) */
        cutec_status st = e == CUTEC_PACKFMT_BAD_MAGIC   ? CUTEC_ERR_PACK_FORMAT
                          : e == CUTEC_PACKFMT_VERSION   ? CUTEC_ERR_PACK_VERSION
                          : e == CUTEC_PACKFMT_TRUNCATED ? CUTEC_ERR_PACK_TRUNCATED
                          : e == CUTEC_PACKFMT_CORRUPT   ? CUTEC_ERR_PACK_CORRUPT
                                                         : CUTEC_ERR_OUT_OF_MEMORY;
        int rc = st == CUTEC_ERR_OUT_OF_MEMORY ? fail(f, st, "'%s': out of host memory", o->pack)
                                               : fail(f, st, "'%s': %s", o->pack, why);
        free(buf);
        json_end(o, f, 0);
        return rc;
    }
    (void)cutec_packfmt_parse(buf, len, &h, ents, why, sizeof why);
    if (o->json) {
        printf("{\"pack\": ");
        tune_json_string(o->pack);
        printf(", \"arch\": \"%s\", \"cutec_version\": %u, \"source_hash\": \"%016llx\", \"entries\": [", h.arch,
               (unsigned)h.cutec_version, (unsigned long long)h.source_hash);
    } else {
        printf("%s: %u entries, arch %s, cutec %u.%u.%u, source hash %016llx\n", o->pack, (unsigned)h.entry_count,
               h.arch, (unsigned)h.cutec_version / 10000, (unsigned)h.cutec_version / 100 % 100,
               (unsigned)h.cutec_version % 100, (unsigned long long)h.source_hash);
    }
    int rc = 0, listed = 0;
    for (uint32_t i = 0; i < h.entry_count; i++) {
        static cutec_kdesc m;
        if (cutec_kdesc_read(ents[i].manifest, ents[i].manifest_size, &m, why, sizeof why) != 0) {
            rc = fail(f, CUTEC_ERR_PACK_CORRUPT, "'%s': entry %u: %s", o->pack, (unsigned)i, why);
            continue;
        }
        char params[512] = "";
        size_t n = 0;
        for (int j = 0; j < m.nparams && n < sizeof params; j++)
            n += (size_t)snprintf(params + n, sizeof params - n, "%s%s=%s", j ? " " : "", cutec_kd_s(&m, m.pname[j]),
                                  cutec_kd_s(&m, m.pvalue[j]));
        if (o->json)
            printf("%s\n  {\"kernel\": \"%s\", \"params\": \"%s\", \"threads\": %u, \"smem_dynamic\": %u, "
                   "\"ptx_bytes\": %zu, \"cubin_bytes\": %zu}",
                   listed++ ? "," : "", m.kernel, params, m.threads[0] * m.threads[1] * m.threads[2], m.smem_dynamic,
                   ents[i].ptx_size, ents[i].cubin_size);
        else
            printf("%4u  %s %s  threads %u  smem %u  ptx %zu B  cubin %zu B\n", (unsigned)i, m.kernel, params,
                   m.threads[0] * m.threads[1] * m.threads[2], m.smem_dynamic, ents[i].ptx_size, ents[i].cubin_size);
    }
    if (o->json) printf("\n]");
    json_end(o, f, 1);
    free(ents);
    free(buf);
    return rc;
}

/* ---- GPU commands ---- */

/* the public dtypes are the contract table's first rows (contract/dtype.h) */
static size_t dtype_bytes(cutec_dtype t) { return (size_t)cutec_dtype_bytes((cutec_ct)t); }

/* Bytes of a rows x cols matrix of t, or 0 where that overflows size_t. */
static size_t matrix_bytes(long long rows, long long cols, cutec_dtype t)
{
    size_t es = dtype_bytes(t);
    if (rows <= 0 || cols <= 0 || (unsigned long long)rows > SIZE_MAX / (size_t)cols / es) return 0;
    return (size_t)rows * (size_t)cols * es;
}

/* `bytes` of random values in [-1, 1], never zero, of type t. */
static void *random_matrix(size_t bytes, cutec_dtype t, uint64_t seed)
{
    unsigned char *b = malloc(bytes);
    if (b == NULL) return NULL;
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < bytes / dtype_bytes(t); i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        float f = (float)((double)((s * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0) * 2.0f - 1.0f;
        if (fabsf(f) < 1e-3f) f = 0.5f;
        cutec_dtype_store((cutec_ct)t, b + dtype_bytes(t) * i, f); /* round to nearest even */
    }
    return b;
}

typedef struct gpu {
    cutec_runtime *rt;
    cutec_gemm_handle *gemm;
    cutec_pack *pack;
    cutec_pack *more[TUNE_MORE_PACKS];
    double skew;        /* how grouped problems' rows are split (--skew, tune_groups.h) */
    float clamp[2];     /* the bounds of a clamped problem (--clamp) */
    cutec_timer *timer; /* bench's head-to-head timings (bench_plain, --layouts-h2h), made at the first */
} gpu;

static int gpu_open(const opts *o, gpu *g, failure *f)
{
    memset(g, 0, sizeof *g);
    g->skew = o->skew;
    memcpy(g->clamp, o->clamp_bounds, sizeof g->clamp);
    cutec_status s = cutec_runtime_create(&g->rt, (int)o->device);
    if (s != CUTEC_OK) return fail_runtime(f, g->rt, "no GPU", s);
    cutec_runtime_set_log(g->rt, on_log, (void *)o);
    s = cutec_gemm_create(g->rt, &g->gemm);
    if (s != CUTEC_OK) return fail_runtime(f, g->rt, "GEMM handle", s);
    if (is_tty() && !o->json) cutec_gemm_set_progress(g->gemm, on_progress, NULL);
    if (o->runs) s = cutec_gemm_set_option(g->gemm, CUTEC_OPT_TUNE_RUNS, o->runs);
    if (s == CUTEC_OK && o->no_cache) s = cutec_gemm_set_option(g->gemm, CUTEC_OPT_DISK_CACHE, 0);
    if (s == CUTEC_OK && o->cache_dir) s = cutec_gemm_set_cache_dir(g->gemm, o->cache_dir);
    if (s == CUTEC_OK && o->shortlist_set) s = cutec_gemm_set_option(g->gemm, CUTEC_OPT_TUNE_SHORTLIST, o->shortlist);
    /* --shortlist N is exactly N: no fill */
    if (s == CUTEC_OK && o->shortlist_set) s = cutec_gemm_set_option(g->gemm, CUTEC_OPT_TUNE_SHORTLIST_FILL, 0);
    if (s == CUTEC_OK && o->finalists_set) s = cutec_gemm_set_option(g->gemm, CUTEC_OPT_TUNE_FINALISTS, o->finalists);
    if (s == CUTEC_OK && o->lead_set) s = cutec_gemm_set_option(g->gemm, CUTEC_OPT_TUNE_LEAD, o->lead);
    if (s == CUTEC_OK && o->host_bound_us > 0)
        s = cutec_gemm_set_option(g->gemm, CUTEC_OPT_HOST_BOUND_US, o->host_bound_us);
    if (s == CUTEC_OK && o->host_check) s = cutec_gemm_set_option(g->gemm, CUTEC_OPT_DEVICE_CHECK, 0);
    if (s != CUTEC_OK) return fail_runtime(f, g->rt, "options", s);
    s = cutec_pack_load_file(g->rt, o->pack, &g->pack);
    if (s == CUTEC_OK) s = cutec_gemm_use_pack(g->gemm, g->pack);
    if (s != CUTEC_OK) return fail_runtime(f, g->rt, o->pack, s);
    for (int i = 0; i < o->nmore_packs; i++) {
        s = cutec_pack_load_file(g->rt, o->more_packs[i], &g->more[i]);
        if (s == CUTEC_OK) s = cutec_gemm_use_pack(g->gemm, g->more[i]);
        if (s != CUTEC_OK) return fail_runtime(f, g->rt, o->more_packs[i], s);
    }
    return 0;
}

static void gpu_close(gpu *g)
{
    cutec_timer_destroy(g->timer);
    cutec_gemm_destroy(g->gemm);
    cutec_pack_unload(g->pack);
    for (int i = 0; i < TUNE_MORE_PACKS; i++) cutec_pack_unload(g->more[i]);
    cutec_runtime_destroy(g->rt);
}

/* A batch of L problems (L > 1) has each matrix packed after the
 * previous one; a grouped problem (groups > 0) its groups' Bs. */
static void problem_init(const opts *o, cutec_gemm_problem *p, long long m, long long n, long long k, long long batch,
                         long long groups)
{
    cutec_gemm_problem_init(p, m, n, k, o->in, o->out);
    if (groups > 0) {
        p->groups = groups;
        p->stride_b = k * n;
    }
    if (batch > 1) {
        p->batch = batch;
        p->stride_a = m * k;
        p->stride_b = k * n;
        p->stride_c = m * n;
        p->stride_d = m * (o->gated ? n / 2 : n);
    }
    p->alpha = o->alpha;
    p->beta = o->beta;
    snprintf(p->act, sizeof p->act, "%s", o->act);
    p->act_gated = o->gated;
    p->bias = o->bias;
    p->bias_row = o->bias_row;
    p->c_source = o->c_source;
    p->aux = o->aux;
    p->clamp = o->clamp;
    p->scale_mode = o->scale_mode;
    p->a_layout = o->layout[0];
    p->b_layout = o->layout[1];
    p->c_layout = o->layout[2];
}

/* A shape's batch: its batch=L column, else --batch (0: one problem);
 * its groups: its groups=G column, else --groups (0: not grouped).  A
 * line's own column wins over the other's option. */
static long long shape_batch(const opts *o, const tune_shape *sh)
{
    return sh->batch > 0 ? sh->batch : sh->groups > 0 ? 0 : o->batch;
}
static long long shape_groups(const opts *o, const tune_shape *sh)
{
    return sh->groups > 0 ? sh->groups : sh->batch > 0 ? 0 : o->groups;
}

/* The problem of a shapes file's line: its batch and layouts where the
 * line gives them, else the command line's. */
static void shape_problem(const opts *o, cutec_gemm_problem *p, const tune_shape *sh)
{
    problem_init(o, p, sh->m, sh->n, sh->k, shape_batch(o, sh), shape_groups(o, sh));
    cutec_layout l[3];
    if (sh->layout[0] != '\0' && tune_layouts_parse(sh->layout, 3, l) == 0)
        p->a_layout = l[0], p->b_layout = l[1], p->c_layout = l[2];
}

/* The epilogue's name for reports: "relu+bias", "none". */
static void epilogue_name(const opts *o, char *buf, size_t len)
{
    static const char *const modes[] = {"", "+scale:tensor", "+scale:row", "+scale:block"};
    snprintf(buf, len, "%s%s%s%s%s%s%s%s", o->act[0] ? o->act : "identity", o->bias ? "+bias" : "",
             o->bias_row ? "+bias_row" : "", o->c_source ? "+c" : "", o->aux ? "+aux" : "", modes[o->scale_mode],
             is_fp8(o->out) ? "+scale_d+amax" : "", o->clamp ? "+clamp" : "");
    if (strcmp(buf, "identity") == 0) snprintf(buf, len, "none");
}

/* The device buffers of a problem, a row each: D (C in place), A, B, and
 * the epilogue's. */
enum {
    BUF_D,
    BUF_A,
    BUF_B,
    BUF_C,
    BUF_BIAS,
    BUF_BIAS_ROW,
    BUF_AUX,
    BUF_SA,
    BUF_SB,
    BUF_SD,
    BUF_AMAX,
    BUF_ENDS,
    BUF_COUNT
};

/* `n` random f32 scales in [0.25, 4), powers of two times 1 to 1.5: far
 * from 1, so a kernel that skips them fails its check. */
static void *random_scales(size_t n, uint64_t seed)
{
    float *v = malloc(n * sizeof *v);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 7;
    for (size_t i = 0; v != NULL && i < n; i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        uint64_t x = s * 0x2545f4914f6cdd1dull;
        v[i] = ldexpf(1.0f + 0.5f * (float)((x >> 11) & 0xffff) / 65536.0f, (int)(x >> 60) % 4 - 2);
    }
    return v;
}
typedef struct buffers {
    unsigned long long d[BUF_COUNT];
    int clamp; /* the problem's, and its bounds */
    float clamp_lo, clamp_hi;
} buffers;

/* A grouped problem's Bs: random, but from two matrices' worth of host
 * draws (the experts' weights of a large model are gigabytes), group q's
 * the window of them starting at element 7919 q modulo a matrix: each
 * group has its own. */
static int upload_group_bs(gpu *g, const cutec_gemm_problem *p, unsigned long long dev, size_t one, uint64_t seed,
                           failure *f)
{
    size_t es = dtype_bytes(p->b_type), elems = one / es;
    unsigned char *h = one <= SIZE_MAX / 2 ? random_matrix(2 * one, p->b_type, seed) : NULL;
    if (h == NULL) return fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for %zu bytes of input", 2 * one);
    cutec_status s = CUTEC_OK;
    for (long long q = 0; q < p->groups && s == CUTEC_OK; q++)
        s = cutec_memcpy_htod(g->rt, dev + (unsigned long long)q * one, h + (size_t)q * 7919 % elems * es, one);
    free(h);
    return s == CUTEC_OK ? 0 : fail_runtime(f, g->rt, "device buffers", s);
}

/* A grouped problem's row ends on the device (tune_group_ends: the split
 * --skew asks for). */
static int upload_group_ends(gpu *g, const cutec_gemm_problem *p, unsigned long long *dev, failure *f)
{
    int *ends = malloc(sizeof *ends * (size_t)p->groups);
    if (ends == NULL || tune_group_ends(p->m, p->groups, g->skew, ends) != 0) {
        free(ends);
        return fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for %lld row ends", p->groups);
    }
    cutec_status s = cutec_malloc(g->rt, sizeof *ends * (size_t)p->groups, dev);
    if (s == CUTEC_OK) s = cutec_memcpy_htod(g->rt, *dev, ends, sizeof *ends * (size_t)p->groups);
    free(ends);
    return s == CUTEC_OK ? 0 : fail_runtime(f, g->rt, "device buffers", s);
}

static int alloc_problem(gpu *g, const cutec_gemm_problem *p, buffers *bufs, uint64_t seed, failure *f)
{
    memset(bufs, 0, sizeof *bufs);
    bufs->clamp = p->clamp;
    bufs->clamp_lo = g->clamp[0], bufs->clamp_hi = g->clamp[1];
    long long dn = p->act_gated ? p->n / 2 : p->n, kb = (p->k + 127) / 128;
    long long sa_n = p->scale_mode == CUTEC_SCALE_TENSOR ? 1 : p->scale_mode == CUTEC_SCALE_BLOCK ? p->m * kb : p->m;
    long long sb_n = p->scale_mode == CUTEC_SCALE_TENSOR  ? 1
                     : p->scale_mode == CUTEC_SCALE_BLOCK ? (p->n + 127) / 128 * kb
                                                          : p->n;
    /* rows, columns, type, whether present, random (2: positive scales;
     * else zero: with beta != 0 an in-place GEMM reads C, which starts at
     * zero, not at whatever was there; an amax starts at zero) */
    const struct {
        long long r, c;
        cutec_dtype t;
        int want, random;
    } rows[BUF_COUNT] = {
        [BUF_D] = {p->m, dn, p->c_type, 1, 0},
        [BUF_A] = {p->m, p->k, p->a_type, 1, 1},
        [BUF_B] = {p->k, p->n, p->b_type, 1, 1},
        [BUF_C] = {p->m, p->n, p->c_type, p->c_source, 1},
        [BUF_BIAS] = {1, p->n, p->c_type, p->bias, 1},
        [BUF_BIAS_ROW] = {1, p->m, p->c_type, p->bias_row, 1},
        [BUF_AUX] = {p->m, p->n, p->c_type, p->aux, 0},
        [BUF_SA] = {1, sa_n, CUTEC_DTYPE_F32, p->scale_mode != 0, 2},
        [BUF_SB] = {1, sb_n, CUTEC_DTYPE_F32, p->scale_mode != 0, 2},
        [BUF_SD] = {1, 1, CUTEC_DTYPE_F32, is_fp8(p->c_type), 2},
        [BUF_AMAX] = {1, 1, CUTEC_DTYPE_F32, is_fp8(p->c_type), 0},
    };
    cutec_status s = CUTEC_OK;
    for (int i = 0; i < BUF_COUNT && s == CUTEC_OK; i++) {
        if (!rows[i].want) continue;
        /* a batch: the matrices of its problems one after another (biases
         * and scales are shared); grouped, the groups' Bs */
        int matrix = i == BUF_D || i == BUF_A || i == BUF_B || i == BUF_C || i == BUF_AUX;
        long long copies = p->batch > 1 && matrix ? p->batch : p->groups > 0 && i == BUF_B ? p->groups : 1;
        size_t bytes = matrix_bytes(rows[i].r * copies, rows[i].c, rows[i].t);
        if (bytes == 0)
            return fail(f, CUTEC_ERR_BAD_SIZE, "problem: %lld x %lld x %lld: a matrix's size overflows size_t", p->m,
                        p->n, p->k);
        if (p->groups > 0 && i == BUF_B) {
            s = cutec_malloc(g->rt, bytes, &bufs->d[i]);
            if (s != CUTEC_OK) break;
            int rc = upload_group_bs(g, p, bufs->d[i], bytes / (size_t)copies, seed + (uint64_t)i, f);
            if (rc != 0) return rc;
            continue;
        }
        int zero = !rows[i].random && (i != BUF_D || p->beta != 0.0f);
        void *h = rows[i].random == 2 ? random_scales((size_t)(rows[i].r * rows[i].c), seed + (uint64_t)i)
                  : rows[i].random    ? random_matrix(bytes, rows[i].t, seed + (uint64_t)i)
                  : zero              ? calloc(1, bytes)
                                      : NULL;
        if ((rows[i].random || zero) && h == NULL)
            return fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for %zu bytes of input", bytes);
        s = cutec_malloc(g->rt, bytes, &bufs->d[i]);
        if (s == CUTEC_OK && h != NULL) s = cutec_memcpy_htod(g->rt, bufs->d[i], h, bytes);
        free(h);
    }
    if (s != CUTEC_OK) return fail_runtime(f, g->rt, "device buffers", s);
    return p->groups > 0 ? upload_group_ends(g, p, &bufs->d[BUF_ENDS], f) : 0;
}

static void free_problem(gpu *g, buffers *b)
{
    for (int i = 0; i < BUF_COUNT; i++) cutec_free(g->rt, b->d[i]);
    memset(b, 0, sizeof *b);
}

#define PTR(x) ((void *)(uintptr_t)(x))

/* The call's pointers over the buffers. */
static cutec_gemm_args args_of(const buffers *b)
{
    cutec_gemm_args a;
    cutec_gemm_args_init(&a, PTR(b->d[BUF_A]), PTR(b->d[BUF_B]), PTR(b->d[BUF_D]));
    a.C = PTR(b->d[BUF_C]);
    a.bias = PTR(b->d[BUF_BIAS]);
    a.bias_row = PTR(b->d[BUF_BIAS_ROW]);
    a.aux = PTR(b->d[BUF_AUX]);
    a.scale_a = PTR(b->d[BUF_SA]);
    a.scale_b = PTR(b->d[BUF_SB]);
    a.scale_d = PTR(b->d[BUF_SD]);
    a.amax = PTR(b->d[BUF_AMAX]);
    a.group_ends = (const int *)PTR(b->d[BUF_ENDS]);
    if (b->clamp) a.clamp_lo = b->clamp_lo, a.clamp_hi = b->clamp_hi;
    return a;
}

static void device_line(gpu *g, char *buf, size_t len)
{
    char name[128] = "?";
    int maj = 0, min = 0, sms = 0, drv = 0;
    (void)cutec_device_info(g->rt, name, sizeof name, &maj, &min, &sms);
    (void)cutec_driver_version(g->rt, &drv);
    snprintf(buf, len, "%s (sm_%d%d, %d SMs), driver %d, cuBLASLt %d, cutec %s", name, maj, min, sms, drv,
             cutec_gemm_cublas_version(g->gemm), cutec_version_string());
}

/* A grouped problem's split for reports, written at buf: " groups=G
 * skew=S (rows per group: min .. max, E empty)" (nothing when not
 * grouped). */
static void groups_text(const gpu *g, const cutec_gemm_problem *p, char *buf, size_t len)
{
    if (p->groups <= 0) return;
    int *ends = malloc(sizeof *ends * (size_t)p->groups);
    if (ends == NULL || tune_group_ends(p->m, p->groups, g->skew, ends) != 0) {
        snprintf(buf, len, " groups=%lld skew=%g", p->groups, g->skew);
        free(ends);
        return;
    }
    long long lo = p->m, hi = 0, empty = 0;
    for (long long q = 0; q < p->groups; q++) {
        long long r = ends[q] - (q ? ends[q - 1] : 0);
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
        empty += r == 0;
    }
    snprintf(buf, len, " groups=%lld skew=%g (rows per group: %lld .. %lld, %lld empty)", p->groups, g->skew, lo, hi,
             empty);
    free(ends);
}

/* With more than one pack, a pack kernel's pack ("  [pack 2: b.pack]", as
 * the command line gave them, the first 1), so that the same kernel of two
 * packs (two builds of one template, timed in the same rounds) reads apart. */
static void pack_label(const opts *o, const cutec_tune_candidate *c, char *buf, size_t len)
{
    buf[0] = '\0';
    if (o->nmore_packs == 0 || c->pack < 0 || c->pack > o->nmore_packs) return;
    const char *path = c->pack == 0 ? o->pack : o->more_packs[c->pack - 1];
    const char *base = strrchr(path, '/');
    snprintf(buf, len, "  [pack %d: %s]", c->pack + 1, base != NULL ? base + 1 : path);
}

/* A point timed only in the screening (its ms from few runs among every
 * point, never in the rounds): no ratio to cuBLASLt's rounds */
static int screened_only(const cutec_tune_candidate *c) { return c->screened && isinf(c->round_ms) && !isinf(c->ms); }

static void print_tune_report(const opts *o, gpu *g, const cutec_gemm_problem *p, const cutec_tune_report *rep)
{
    char dev[256], epi[96];
    device_line(g, dev, sizeof dev);
    epilogue_name(o, epi, sizeof epi);
    if (!o->json) {
        printf("device: %s\n", dev);
        char batch[128] = "";
        if (p->batch > 1) snprintf(batch, sizeof batch, " batch=%lld", p->batch);
        groups_text(g, p, batch + strlen(batch), sizeof batch - strlen(batch));
        printf("problem: M=%lld N=%lld K=%lld%s %s -> %s%s%s, tuned in %.2f s\n", p->m, p->n, p->k, batch,
               dtype_name(p->a_type), dtype_name(p->c_type), strcmp(epi, "none") ? ", epilogue " : "",
               strcmp(epi, "none") ? epi : "", rep->seconds);
        /* rounds ms: the candidates' medians in the rounds that timed
         * every checked candidate together, the column to compare two
         * candidates by; ms is what the decision used, for the head-to-head
         * pair its own alternation (an A/A pair of one kernel under two
         * names read 4.4% apart in ms, docs/performance.md "Method") */
        printf("%5s  %10s  %10s  %9s  %8s  %s\n", "rank", "ms", "rounds ms", "TFLOP/s", "vs cuBLAS", "candidate");
        for (int i = 0; i < rep->count; i++) {
            const cutec_tune_candidate *c = &rep->candidates[i];
            char rounds[32] = "-", label[96];
            if (!isinf(c->round_ms)) snprintf(rounds, sizeof rounds, "%.4f", c->round_ms);
            pack_label(o, c, label, sizeof label);
            if (isinf(c->ms))
                printf("%5d  %10s  %10s  %9s  %8s  %s%s  (%s)\n", i + 1, "inf", "-", "-", "-", c->name, label, c->note);
            else if (isinf(rep->cublas_ms) || screened_only(c))
                printf("%5d  %10.4f  %10s  %9.1f  %8s  %s%s\n", i + 1, c->ms, rounds, c->tflops, "-", c->name, label);
            else
                printf("%5d  %10.4f  %10s  %9.1f  %8.3f  %s%s\n", i + 1, c->ms, rounds, c->tflops,
                       rep->cublas_ms / c->ms, c->name, label);
        }
        printf("(ms: the head-to-head pair's own alternation where it differs from rounds ms, the median of every\n"
               " checked candidate in the same rounds: compare candidates by rounds ms)\n");
        /* a screened-out point's ms came from rounds among every point, many
         * of them slow (likely a higher clock under the power limit): fp8
         * per tensor at 8192^3 on an H200 (2026-11-29), the finalists, the
         * fastest screened, read at most 0.853 ms there and at least 0.925
         * in the rounds, so no ratio to cuBLASLt's rounds is printed */
        for (int i = 0; i < rep->count; i++)
            if (screened_only(&rep->candidates[i])) {
                printf("(rounds ms \"-\": screened out, ms from the screening's few runs among every point, which "
                       "may read\n faster than the rounds: compare those only with each other)\n");
                break;
            }
        printf("winner: %s\n", rep->candidates[rep->winner].name);
        return;
    }
    printf("{\"device\": ");
    tune_json_string(dev);
    printf(", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"batch\": %lld, ", p->m, p->n, p->k, p->batch > 1 ? p->batch : 1);
    if (p->groups > 0) printf("\"groups\": %lld, \"skew\": %g, ", p->groups, g->skew);
    printf("\"dtype\": \"%s\", \"out_dtype\": \"%s\", \"alpha\": %.9g, \"beta\": %.9g, \"epilogue\": \"%s\", "
           "\"tuning_seconds\": %.3f, \"cublas_ms\": ",
           dtype_name(p->a_type), dtype_name(p->c_type), (double)p->alpha, (double)p->beta, epi, rep->seconds);
    if (isinf(rep->cublas_ms))
        printf("null");
    else
        printf("%.6f", rep->cublas_ms);
    printf(", \"candidates\": [");
    for (int i = 0; i < rep->count; i++) {
        const cutec_tune_candidate *c = &rep->candidates[i];
        printf("%s\n  {\"rank\": %d, \"name\": ", i ? "," : "", i + 1);
        tune_json_string(c->name);
        if (isinf(c->ms))
            printf(", \"cublas\": %s, \"ms\": null, \"tflops\": null, \"ratio\": null, \"note\": ",
                   c->is_cublas ? "true" : "false");
        else
            printf(", \"cublas\": %s, \"ms\": %.6f, \"tflops\": %.3f, \"ratio\": %.4f, \"note\": ",
                   c->is_cublas ? "true" : "false", c->ms, c->tflops,
                   isinf(rep->cublas_ms) ? 0.0 : rep->cublas_ms / c->ms);
        tune_json_string(c->note);
        if (isinf(c->round_ms))
            printf(", \"round_ms\": null");
        else
            printf(", \"round_ms\": %.6f", c->round_ms);
        printf(", \"algo_rank\": %d, \"pack\": %d}", c->algo_rank, c->pack);
    }
    printf("\n], \"winner\": ");
    tune_json_string(rep->candidates[rep->winner].name);
}

static int cmd_tune(const opts *o, failure *f)
{
    gpu g;
    buffers b = {0};
    cutec_tune_report *rep = NULL;
    int rc = gpu_open(o, &g, f);
    cutec_gemm_problem p;
    problem_init(o, &p, o->m, o->n, o->k, o->batch, o->groups);
    if (rc == 0) rc = alloc_problem(&g, &p, &b, 1, f);
    if (rc == 0) {
        cutec_gemm_args a = args_of(&b);
        cutec_status s = cutec_gemm_tune_ex(g.gemm, &p, &a, NULL, &rep);
        if (s != CUTEC_OK) rc = fail_runtime(f, g.rt, "tuning", s);
    }
    if (rc == 0) print_tune_report(o, &g, &p, rep);
    json_end(o, f, rc == 0);
    cutec_tune_report_free(rep);
    if (b.d[BUF_A]) free_problem(&g, &b);
    gpu_close(&g);
    return rc;
}

/* With --list, what a grouped shape's list run gave: the list problem's
 * bound on m and the check of its result. */
typedef struct list_run {
    long long bound_m;
    tune_list_check check;
} list_run;

/* --list: a grouped shape run as a list of its groups' problems
 * (tune_list_bench.h) over the buffers of the mixture-of-experts form
 * (the same seed, so the same A and Bs, and the same split): tuned with a
 * report, as every form is, then run on the decision through
 * cutec_gemm_ex and its D checked against float64.  The caller frees *rep
 * (NULL: not wanted, the warm-up). */
static int bench_list(const opts *o, gpu *g, const tune_shape *sh, cutec_tune_report **rep, list_run *lr, failure *f)
{
    cutec_gemm_problem p, lp;
    shape_problem(o, &p, sh);
    memset(lr, 0, sizeof *lr);
    buffers b;
    int rc = alloc_problem(g, &p, &b, (uint64_t)sh->line, f);
    int *ends = malloc(sizeof *ends * (size_t)p.groups);
    cutec_gemm_list_row *rows = malloc(sizeof *rows * (size_t)p.groups);
    if (rc == 0 && (ends == NULL || rows == NULL || tune_group_ends(p.m, p.groups, g->skew, ends) != 0))
        rc = fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for a list of %lld problems", p.groups);
    tune_moe moe = {&p, ends, b.d[BUF_A], b.d[BUF_B], b.d[BUF_D]};
    unsigned long long dlist = 0;
    cutec_status s = CUTEC_OK;
    if (rc == 0) {
        lr->bound_m = tune_list_rows(&moe, rows);
        tune_list_problem(&p, lr->bound_m, &lp);
        s = cutec_malloc(g->rt, sizeof *rows * (size_t)p.groups, &dlist);
        if (s == CUTEC_OK) s = cutec_memcpy_htod(g->rt, dlist, rows, sizeof *rows * (size_t)p.groups);
        if (s != CUTEC_OK) rc = fail_runtime(f, g->rt, "device buffers", s);
    }
    cutec_gemm_args a;
    cutec_gemm_args_init(&a, NULL, NULL, NULL); /* the list's rows hold the matrices */
    a.group_list = PTR(dlist);
    if (rc == 0) {
        s = cutec_gemm_tune_ex(g->gemm, &lp, &a, NULL, rep);
        if (s != CUTEC_OK) rc = fail_runtime(f, g->rt, sh->name, s);
    }
    char why[1024];
    if (rc == 0) {
        s = tune_list_check_prepare(g->rt, &moe, why, sizeof why);
        if (s != CUTEC_OK) rc = fail(f, s, "%s: the check's rows of D: %s", sh->name, why);
    }
    if (rc == 0) {
        s = cutec_gemm_ex(g->gemm, &lp, &a, NULL);
        if (s == CUTEC_OK) s = cutec_synchronize(g->rt);
        if (s != CUTEC_OK) rc = fail_runtime(f, g->rt, "the list's run", s);
    }
    if (rc == 0) {
        s = tune_list_check_run(g->rt, &moe, &lr->check, why, sizeof why);
        if (s != CUTEC_OK) rc = fail(f, s, "%s: the list's run against float64: %s", sh->name, why);
    }
    cutec_free(g->rt, dlist);
    free_problem(g, &b);
    free(ends), free(rows);
    return rc;
}

/* The warm-up: one tuning of the first shape, not reported.  On the H100
 * the first tuning in a process timed the pack's 1024^3 kernel 0.7-1 us
 * slower (10.5-10.7 against 9.8-9.9 us) than every later tuning of the
 * same shape, cuBLASLt's algorithms not; why is not known
 * (docs/performance.md).  The suite's first shape should not pay for it. */
static int bench_warmup(const opts *o, gpu *g, const tune_shape *shapes, int nshapes, failure *f)
{
    const tune_shape *first = &shapes[0];
    if (o->list) {
        list_run lr;
        if (o->verbose) fprintf(stderr, "cutec-tune: warm-up tuning of %s as a list (not reported)\n", first->name);
        return bench_list(o, g, first, NULL, &lr, f);
    }
    int rc = 0;
    /* the first line the problem can take: a size it cannot (the bench
     * skips that line) moves the warm-up to the next */
    for (int i = 0; i < nshapes; i++) {
        cutec_gemm_problem p;
        shape_problem(o, &p, &shapes[i]);
        buffers b;
        rc = alloc_problem(g, &p, &b, 1, f);
        cutec_status s = CUTEC_OK;
        if (rc == 0) {
            if (o->verbose) fprintf(stderr, "cutec-tune: warm-up tuning of %s (not reported)\n", shapes[i].name);
            cutec_gemm_args a = args_of(&b);
            s = cutec_gemm_tune_ex(g->gemm, &p, &a, NULL, NULL);
            if (s != CUTEC_OK && !(s == CUTEC_ERR_BAD_SIZE && nshapes > 1))
                rc = fail_runtime(f, g->rt, shapes[i].name, s);
        }
        free_problem(g, &b);
        if (rc != 0 || s != CUTEC_ERR_BAD_SIZE) break;
    }
    return rc;
}

/* The geometric means of the ratio columns: sums of logs and counts
 * (vs plain: with --epilogue, the plain GEMM's decision against the
 * epilogue's, head to head; see bench_plain). */
typedef struct bench_means {
    double log_sum, log_sum0, log_plain, log_exh, worst_exh, fast_s, exh_s, log_same, worst_same, log_kern, worst_kern;
    int n, n0, nplain, nexh, nsame, nkern;
} bench_means;

/* The fastest checked pack kernel's median of a report (+inf: none). */
static double report_best_dsl(const cutec_tune_report *rep)
{
    for (int i = 0; i < rep->count; i++)
        if (!rep->candidates[i].is_cublas && !rep->candidates[i].screened && !isinf(rep->candidates[i].ms))
            return rep->candidates[i].ms;
    return INFINITY;
}

/* One job of the head-to-head timing below: a tuned problem run through
 * cutec_gemm_ex, which launches the handle's decision for its class. */
typedef struct decided_job {
    cutec_gemm_handle *h;
    cutec_gemm_problem p;
    cutec_gemm_args a;
} decided_job;

static cutec_status decided_launch(void *user, int run, void *stream)
{
    (void)run;
    const decided_job *j = user;
    return cutec_gemm_ex(j->h, &j->p, &j->a, stream);
}

/* With --epilogue, the plain GEMM of the same shape against it: the
 * fastest pack kernel of the plain tuning (best_ms, +inf: none), its
 * decision (winner), and the two decisions timed head to head (h2h: the
 * plain one's median over the epilogue's, their medians plain_ms and
 * epi_ms; 0: not measured); in the same rounds, the epilogue's fastest
 * pack kernel and the same tune point without the epilogue (twin, from
 * the plain packs; kern: the twin's median over the kernel's, their
 * medians kern_plain_ms and kern_epi_ms; 0: not measured, twin_why says
 * why). */
typedef struct plain_cmp {
    double best_ms, h2h, plain_ms, epi_ms, kern, kern_plain_ms, kern_epi_ms;
    char winner[CUTEC_CANDIDATE_NAME_LEN], twin[CUTEC_CANDIDATE_NAME_LEN], twin_why[512];
} plain_cmp;

/* The plain GEMM of the same shape tuned, then the two decisions (the
 * problem with the epilogue, ep on eb's buffers, and the plain one) timed
 * head to head, alternating in the same rounds after an L2 flush each.
 * The two tunings run seconds apart, and on long shapes the clocks under
 * the power cap move more than the few percent an epilogue costs: only the
 * head to head compares them. */
static int bench_plain(const opts *o, gpu *g, const tune_shape *sh, const cutec_gemm_problem *ep, const buffers *eb,
                       const char *epi_kernel, plain_cmp *pc, failure *f)
{
    opts plain = *o;
    memset(plain.act, 0, sizeof plain.act);
    plain.gated = plain.bias = plain.bias_row = plain.c_source = plain.aux = plain.clamp = 0;
    plain.scale_mode = CUTEC_SCALE_NONE;
    /* D = A B: with --c-source --beta 1 (a residual add) the plain problem
     * is not C += A B, which no pack kernel serves */
    plain.alpha = 1.0;
    plain.beta = 0.0;
    cutec_gemm_problem p;
    shape_problem(&plain, &p, sh);
    buffers b;
    cutec_tune_report *rep = NULL;
    memset(pc, 0, sizeof *pc);
    int rc = alloc_problem(g, &p, &b, (uint64_t)sh->line, f);
    if (rc == 0) {
        cutec_gemm_args a = args_of(&b);
        cutec_status s = cutec_gemm_tune_ex(g->gemm, &p, &a, NULL, &rep);
        if (s != CUTEC_OK) rc = fail_runtime(f, g->rt, sh->name, s);
        if (rc == 0) (void)cutec_gemm_choice(g->gemm, &p, pc->winner, sizeof pc->winner);
        /* one timer (its L2 flush buffer) for every shape */
        if (rc == 0 && g->timer == NULL && cutec_timer_create(g->rt, CUTEC_TIMER_FLUSH_L2, &g->timer) != CUTEC_OK)
            g->timer = NULL;
        /* the epilogue's fastest pack kernel and its twin without the
         * epilogue, run by name (a twin the packs lack is not timed) */
        cutec_gemm_candidate *ck = NULL, *ct = NULL;
        cutec_gemm_args ea = args_of(eb);
        if (rc == 0 && epi_kernel == NULL)
            snprintf(pc->twin_why, sizeof pc->twin_why, "no pack kernel with the epilogue passed");
        else if (rc == 0 && tune_plain_twin(epi_kernel, pc->twin, sizeof pc->twin) != 0)
            snprintf(pc->twin_why, sizeof pc->twin_why, "its kernel has no epilogue parameter");
        else if (rc == 0 && (cutec_gemm_candidate_open(g->gemm, ep, &ea, epi_kernel, &ck) != CUTEC_OK ||
                             cutec_gemm_candidate_open(g->gemm, &p, &a, pc->twin, &ct) != CUTEC_OK))
            snprintf(pc->twin_why, sizeof pc->twin_why, "%s", cutec_runtime_message(g->rt));
        if (rc == 0 && g->timer != NULL) {
            decided_job jobs[2] = {{g->gemm, *ep, ea}, {g->gemm, p, a}};
            cutec_timing_job tj[4] = {
                {decided_launch, &jobs[0]}, {decided_launch, &jobs[1]}, {tune_h2h_launch, ck}, {tune_h2h_launch, ct}};
            int nj = ck != NULL && ct != NULL ? 4 : 2;
            cutec_timing how;
            cutec_timing_init(&how, 3, 20);
            how.flush_l2 = 1;
            cutec_timing_result res[4];
            s = cutec_timer_run(g->timer, &how, tj, nj, res, NULL);
            if (s != CUTEC_OK)
                rc = fail_runtime(f, g->rt, "the head to head with the plain GEMM", s);
            else if (!isinf(res[0].ms) && !isinf(res[1].ms)) {
                pc->epi_ms = res[0].ms;
                pc->plain_ms = res[1].ms;
                pc->h2h = res[1].ms / res[0].ms;
            }
            if (s == CUTEC_OK && nj == 4 && !isinf(res[2].ms) && !isinf(res[3].ms)) {
                pc->kern_epi_ms = res[2].ms;
                pc->kern_plain_ms = res[3].ms;
                pc->kern = res[3].ms / res[2].ms;
            }
        }
        if (ck != NULL || ct != NULL) (void)cutec_synchronize(g->rt);
        cutec_gemm_candidate_close(ck);
        cutec_gemm_candidate_close(ct);
    }
    free_problem(g, &b);
    pc->best_ms = rc == 0 ? report_best_dsl(rep) : INFINITY;
    cutec_tune_report_free(rep);
    return rc;
}

/* With --compare-exhaustive: the same shape tuned again with
 * CUTEC_OPT_TUNE_SHORTLIST 0 (the exhaustive tuning), the option restored
 * after. */
static int bench_exhaustive(const opts *o, gpu *g, const tune_shape *sh, cutec_tune_report **rep, failure *f)
{
    long long keep = 0;
    cutec_status s = cutec_gemm_get_option(g->gemm, CUTEC_OPT_TUNE_SHORTLIST, &keep);
    if (s == CUTEC_OK) s = cutec_gemm_set_option(g->gemm, CUTEC_OPT_TUNE_SHORTLIST, 0);
    if (s != CUTEC_OK) return fail_runtime(f, g->rt, "options", s);
    cutec_gemm_problem p;
    shape_problem(o, &p, sh);
    buffers b;
    int rc = alloc_problem(g, &p, &b, (uint64_t)sh->line, f);
    if (rc == 0) {
        cutec_gemm_args a = args_of(&b);
        s = cutec_gemm_tune_ex(g->gemm, &p, &a, NULL, rep);
        if (s != CUTEC_OK) rc = fail_runtime(f, g->rt, sh->name, s);
    }
    free_problem(g, &b);
    (void)cutec_gemm_set_option(g->gemm, CUTEC_OPT_TUNE_SHORTLIST, keep);
    return rc;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A grouped shape's baseline.  cuBLASLt has no grouped GEMM whose row ends
 * are in device memory, so the runtime has no cuBLASLt candidate for it;
 * bench compares with a loop of one cuBLASLt call per nonempty group: each
 * distinct group size tuned once as the plain problem of its rows (rows x
 * N x K, the same types and layouts), and the fastest cuBLASLt algorithm's
 * median (the report's cublas_ms) summed over the groups, launch gaps not
 * counted.  *ms is +inf where cuBLASLt has no algorithm. */
static int bench_group_loop(gpu *g, const cutec_gemm_problem *gp, uint64_t seed, double *ms, failure *f)
{
    *ms = INFINITY;
    int *rows = malloc(sizeof *rows * (size_t)gp->groups);
    if (rows == NULL || tune_group_ends(gp->m, gp->groups, g->skew, rows) != 0) {
        free(rows);
        return fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for %lld row ends", gp->groups);
    }
    for (long long q = gp->groups - 1; q > 0; q--) rows[q] -= rows[q - 1];
    qsort(rows, (size_t)gp->groups, sizeof *rows, cmp_int);
    double total = 0;
    int rc = 0;
    for (long long q = 0; q < gp->groups && rc == 0 && !isinf(total); q++) {
        long long same = 1;
        while (q + same < gp->groups && rows[q + same] == rows[q]) same++;
        if (rows[q] > 0) {
            cutec_gemm_problem p = *gp;
            p.groups = p.stride_b = 0;
            p.m = rows[q];
            buffers b;
            cutec_tune_report *rep = NULL;
            rc = alloc_problem(g, &p, &b, seed, f);
            if (rc == 0) {
                cutec_gemm_args a = args_of(&b);
                cutec_status s = cutec_gemm_tune_ex(g->gemm, &p, &a, NULL, &rep);
                if (s == CUTEC_ERR_UNSUPPORTED) /* no candidate: no cuBLASLt */
                    total = INFINITY;
                else if (s != CUTEC_OK)
                    rc = fail_runtime(f, g->rt, "a group's cuBLASLt baseline", s);
                else
                    total += (double)same * rep->cublas_ms;
            }
            free_problem(g, &b);
            cutec_tune_report_free(rep);
        }
        q += same - 1;
    }
    free(rows);
    if (rc == 0) *ms = total;
    return rc;
}

/* The exhaustive tuning's winner as the fast tuning saw it: "the winner",
 * "timed: X ms, N of M" (its place in the fast tuning's ranking), its
 * note where it was left out (the cost model's rank, a failure), or "not
 * a candidate". */
static void exhaustive_winner_fate(const cutec_tune_report *fast, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "not a candidate");
    for (int i = 0; i < fast->count; i++) {
        const cutec_tune_candidate *c = &fast->candidates[i];
        if (strcmp(c->name, name) != 0) continue;
        if (i == fast->winner)
            snprintf(buf, len, "the winner");
        else if (c->note[0] != '\0')
            snprintf(buf, len, "%s", c->note);
        else
            snprintf(buf, len, "timed: %.6f ms, %d of %d%s", c->ms, i + 1, fast->count,
                     c->screened ? " (screened only)" : "");
        return;
    }
}

/* One shape's line (or JSON object) from its tuning report (and, with
 * --compare-exhaustive, the exhaustive tuning's report: exh).  A grouped
 * shape's cuBLAS column is group_ms, the loop of bench_group_loop; with
 * --list, rep is its list run's tuning and lr the rest of that run. */
static void bench_report(const opts *o, const tune_shape *sh, const cutec_tune_report *rep,
                         const cutec_tune_report *exh, const plain_cmp *pc, double group_ms, const list_run *lr,
                         int first, bench_means *gm)
{
    /* the fastest pack kernel, winner or not: the first checked one (the
   * report puts the two timed head to head first) */
    double best_dsl = INFINITY;
    const char *dsl_name = NULL;
    for (int i = 0; i < rep->count && dsl_name == NULL; i++)
        if (!rep->candidates[i].is_cublas && !rep->candidates[i].screened && !isinf(rep->candidates[i].ms)) {
            best_dsl = rep->candidates[i].ms;
            dsl_name = rep->candidates[i].name;
        }
    /* Against cuBLASLt's own choice, its heuristic's first algorithm for
   * this problem and workspace (what an untuned caller gets): its median and the
   * fastest pack kernel's in the rounds that timed them together (it is
   * rarely in the head-to-head pair); a candidate that failed the winner's
   * final check after the rounds (ms +inf) does not count */
    double dsl_round = INFINITY, lt0_round = INFINITY;
    for (int i = 0; i < rep->count; i++) {
        const cutec_tune_candidate *c = &rep->candidates[i];
        if (isinf(c->ms)) continue;
        if (c->is_cublas && c->algo_rank == 0)
            lt0_round = c->round_ms;
        else if (!c->is_cublas && c->round_ms < dsl_round)
            dsl_round = c->round_ms;
    }
    long long batch = shape_batch(o, sh) > 1 ? shape_batch(o, sh) : 1, groups = shape_groups(o, sh);
    /* grouped: the row ends cover M, every row computed once */
    double flop = 2.0 * (double)batch * (double)sh->m * (double)sh->n * (double)sh->k;
    double cublas_ms = groups > 0 ? group_ms : rep->cublas_ms;
    double tc = isinf(cublas_ms) ? 0 : flop / (cublas_ms * 1e9);
    double td = isinf(best_dsl) ? 0 : flop / (best_dsl * 1e9);
    double ratio = tc > 0 && td > 0 ? td / tc : 0;
    /* (grouped: no cuBLASLt algorithm #0 of the problem: 0, not reported) */
    double ratio0 = !isinf(dsl_round) && !isinf(lt0_round) ? lt0_round / dsl_round : 0;
    if (ratio > 0) {
        gm->log_sum += log(ratio);
        gm->n++;
    }
    if (ratio0 > 0) {
        gm->log_sum0 += log(ratio0);
        gm->n0++;
    }
    int epi = o->act[0] || o->bias || o->bias_row || o->c_source || o->aux || o->scale_mode || o->clamp;
    /* vs plain: the two decisions head to head (h2h) where measured, else
     * the fastest pack kernels of the two tunings */
    double tunings_plain = !isinf(pc->best_ms) && !isinf(best_dsl) ? pc->best_ms / best_dsl : 0;
    double vs_plain = pc->h2h > 0 ? pc->h2h : tunings_plain;
    if (vs_plain > 0) {
        gm->log_plain += log(vs_plain);
        gm->nplain++;
    }
    /* the epilogue's cost on its fastest pack kernel: the same tune point
     * without it over it (1: free; the worst is the lowest) */
    if (pc->kern > 0) {
        gm->log_kern += log(pc->kern);
        if (gm->nkern == 0 || pc->kern < gm->worst_kern) gm->worst_kern = pc->kern;
        gm->nkern++;
    }
    const char *win = rep->candidates[rep->winner].name;
    /* fast against exhaustive: the two winners' times, each from its own
     * tuning (the same kernel gives a ratio of 1 within the noise) */
    double win_ms = rep->candidates[rep->winner].ms, exh_ms = 0, fast_vs_exh = 0;
    if (exh != NULL) {
        exh_ms = exh->candidates[exh->winner].ms;
        fast_vs_exh = exh_ms > 0 && !isinf(win_ms) ? win_ms / exh_ms : 0;
        if (fast_vs_exh > 0) {
            gm->log_exh += log(fast_vs_exh);
            gm->nexh++;
            if (fast_vs_exh > gm->worst_exh) gm->worst_exh = fast_vs_exh;
        }
        gm->fast_s += rep->seconds;
        gm->exh_s += exh->seconds;
    }
    /* the same, free of the clocks' drift between the two tunings: the
     * fast winner's median against the exhaustive winner's in the
     * exhaustive tuning's common rounds, which timed both (0 where the fast
     * winner did not run in them: screened out there) */
    double same = 0;
    if (exh != NULL) {
        double mine = INFINITY, theirs = exh->candidates[exh->winner].round_ms;
        for (int i = 0; i < exh->count; i++)
            if (strcmp(exh->candidates[i].name, win) == 0) mine = exh->candidates[i].round_ms;
        same = isfinite(mine) && isfinite(theirs) && theirs > 0 ? mine / theirs : 0;
        if (same > 0) {
            gm->log_same += log(same);
            gm->nsame++;
            if (same > gm->worst_same) gm->worst_same = same;
        }
    }
    if (o->json) {
        printf("%s\n  {\"shape\": ", first ? "" : ",");
        tune_json_string(sh->name);
        printf(", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"batch\": %lld, ", sh->m, sh->n, sh->k, batch);
        if (groups > 0) printf("\"groups\": %lld, \"skew\": %g, ", groups, o->skew);
        if (o->list)
            printf("\"list\": true, \"list_bound_m\": %lld, \"checked_groups\": %lld, \"checked_rows\": %lld, "
                   "\"checked_elements\": %lld, \"check_max_rel\": %.3e, \"check_limit\": %.3e, ",
                   lr->bound_m, lr->check.groups, lr->check.rows, lr->check.elements, lr->check.max_rel,
                   lr->check.limit);
        printf("\"cublas_tflops\": %.3f, \"dsl_tflops\": %.3f, \"ratio\": %.4f, \"ratio_vs_algo0\": %.4f, \"winner\": ",
               tc, td, ratio, ratio0);
        tune_json_string(win);
        printf(", \"best_dsl\": ");
        if (dsl_name != NULL)
            tune_json_string(dsl_name);
        else
            printf("null");
        if (epi) {
            printf(", \"ratio_vs_plain\": %.4f, \"ratio_vs_plain_head_to_head\": %.4f, \"ratio_vs_plain_tunings\": "
                   "%.4f, \"head_to_head_ms\": %.6f, \"head_to_head_plain_ms\": %.6f, \"plain_winner\": ",
                   vs_plain, pc->h2h, tunings_plain, pc->epi_ms, pc->plain_ms);
            tune_json_string(pc->winner);
            printf(", \"ratio_vs_same_kernel_plain\": %.4f, \"same_kernel_ms\": %.6f, \"same_kernel_plain_ms\": %.6f, "
                   "\"same_kernel_plain\": ",
                   pc->kern, pc->kern_epi_ms, pc->kern_plain_ms);
            if (pc->kern > 0) {
                tune_json_string(pc->twin);
            } else {
                printf("null, \"same_kernel_plain_why\": ");
                tune_json_string(pc->twin_why[0] ? pc->twin_why : "not measured");
            }
        }
        printf(", \"tuning_seconds\": %.3f", rep->seconds);
        if (exh != NULL) {
            printf(", \"winner_ms\": %.6f, \"exhaustive_winner\": ", win_ms);
            tune_json_string(exh->candidates[exh->winner].name);
            printf(", \"exhaustive_winner_ms\": %.6f, \"fast_vs_exhaustive\": %.4f, "
                   "\"fast_vs_exhaustive_same_rounds\": %.4f, \"exhaustive_tuning_seconds\": %.3f",
                   exh_ms, fast_vs_exh, same, exh->seconds);
            /* what the fast tuning made of the exhaustive winner: where a
             * fast pick falls behind, whether the cost model's shortlist
             * or the screening left the better kernel out */
            char fate[224];
            exhaustive_winner_fate(rep, exh->candidates[exh->winner].name, fate, sizeof fate);
            printf(", \"exhaustive_winner_in_fast\": ");
            tune_json_string(fate);
        }
        printf("}");
    } else {
        /* where cuBLASLt wins, which pack kernel came closest */
        int cublas_won = rep->candidates[rep->winner].is_cublas;
        char plain_col[16] = "";
        if (epi) snprintf(plain_col, sizeof plain_col, " %7.3f", vs_plain);
        char exh_col[96] = "";
        if (exh != NULL)
            snprintf(exh_col, sizeof exh_col, " %8.2f %9.4f %9.4f %8.3f %8.3f%s", exh->seconds, win_ms, exh_ms,
                     fast_vs_exh, same, strcmp(win, exh->candidates[exh->winner].name) == 0 ? " same" : " diff");
        /* a batch: "NAME xL"; grouped: "NAME gG" ("NAME gG list" as a list); the line's own layouts: "NAME rrr" */
        char name[72];
        snprintf(name, sizeof name,
                 batch > 1    ? "%s x%lld"
                 : groups > 0 ? "%s g%lld"
                              : "%s",
                 sh->name, batch > 1 ? batch : groups);
        if (o->list) snprintf(name + strlen(name), sizeof name - strlen(name), " list");
        if (sh->layout[0] != '\0') snprintf(name + strlen(name), sizeof name - strlen(name), " %s", sh->layout);
        printf("%-20s %6lld %6lld %6lld  %12.1f %12.1f %7.3f %7.3f%s  %8.2f%s  %s%s%s%s\n", name, sh->m, sh->n, sh->k,
               tc, td, ratio, ratio0, plain_col, rep->seconds, exh_col, win, cublas_won ? " (best DSL: " : "",
               cublas_won ? (dsl_name != NULL ? dsl_name : "none") : "", cublas_won ? ")" : "");
        if (epi && pc->h2h > 0)
            printf("%-20s head to head: %.4f ms with the epilogue, %.4f ms plain (%s)\n", "", pc->epi_ms, pc->plain_ms,
                   pc->winner);
        if (epi && pc->kern > 0)
            printf("%-20s same kernel: %.4f ms with the epilogue, %.4f ms without (%.3f)\n", "", pc->kern_epi_ms,
                   pc->kern_plain_ms, pc->kern);
        else if (epi && pc->twin_why[0] != '\0')
            printf("%-20s same kernel: not timed: %s\n", "", pc->twin_why);
        if (o->list)
            printf("%-20s list: bound m %lld; checked %lld elements (%lld rows of %lld groups) against float64: max "
                   "|d - v| / sum |a b| %.3g (limit %.3g)\n",
                   "", lr->bound_m, lr->check.elements, lr->check.rows, lr->check.groups, lr->check.max_rel,
                   lr->check.limit);
    }
    fflush(stdout);
}

/* --layouts-h2h: a group of lines sharing a shape's name (tuned, their
 * buffers kept) timed head to head (tune_layout_h2h.h) and logged for the
 * summary and the JSON output; its text line now. */
static int bench_layouts_h2h(const opts *o, gpu *g, const char *shape, tune_h2h_line *lines, int n, tune_h2h_log *log,
                             failure *f)
{
    /* bench's one timer (its L2 flush buffer), shared with bench_plain */
    cutec_status s = g->timer == NULL ? cutec_timer_create(g->rt, CUTEC_TIMER_FLUSH_L2, &g->timer) : CUTEC_OK;
    if (s != CUTEC_OK) {
        g->timer = NULL;
        return fail_runtime(f, g->rt, "a timer for the layouts head to head", s);
    }
    /* flushed as the tuner flushes (CUTEC_OPT_FLUSH_L2, on unless turned off) */
    long long flush = 1;
    (void)cutec_gemm_get_option(g->gemm, CUTEC_OPT_FLUSH_L2, &flush);
    int fault = -1;
    s = tune_h2h_time(g->gemm, g->rt, g->timer, (int)flush, (int)o->layouts_h2h, lines, n, &fault);
    if (s != CUTEC_OK) {
        char what[320];
        snprintf(what, sizeof what, "%s: the layouts head to head%s%.192s", shape, fault >= 0 ? ": " : "",
                 fault >= 0 ? lines[fault].kernel : "");
        return fail_runtime(f, g->rt, what, s);
    }
    if (tune_h2h_log_add(log, shape, lines, n) != 0)
        return fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for the layouts head to head");
    if (!o->json) {
        tune_h2h_print_group(lines, n, (int)o->layouts_h2h);
        fflush(stdout);
    }
    return 0;
}

/* The most consecutive lines sharing a name: the largest group
 * --layouts-h2h holds at once. */
static int largest_group(const tune_shape *shapes, int nshapes)
{
    int most = 1;
    for (int i = 0, run = 1; i + 1 < nshapes; i++) {
        run = strcmp(shapes[i].name, shapes[i + 1].name) == 0 ? run + 1 : 1;
        if (run > most) most = run;
    }
    return most;
}

/* A line of the shapes file the problem cannot take (why: the runtime's
 * message), reported in the table (or as a JSON object) and left out of
 * the means. */
static void bench_skip(const opts *o, const tune_shape *sh, const char *why, int first)
{
    if (o->json) {
        printf("%s\n  {\"shape\": ", first ? "" : ",");
        tune_json_string(sh->name);
        printf(", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"skipped\": ", sh->m, sh->n, sh->k);
        tune_json_string(why);
        printf("}");
    } else
        printf("%-20s %6lld %6lld %6lld  skipped: %s\n", sh->name, sh->m, sh->n, sh->k, why);
    fflush(stdout);
}

static int cmd_bench(const opts *o, failure *f)
{
    /* the whole file first: a wrong path or an empty file costs no GPU time */
    tune_shape *shapes;
    int nshapes;
    char why[1200];
    cutec_status st = tune_shapes_read(o->shapes, &shapes, &nshapes, why, sizeof why);
    if (st != CUTEC_OK) {
        int rc = fail(f, st, "%s", why);
        json_end(o, f, 0);
        return rc;
    }
    /* --list runs grouped shapes only: another line is a usage error, found
     * before the GPU is opened (no JSON, as for every usage error) */
    for (int i = 0; o->list && i < nshapes; i++)
        if (shape_groups(o, &shapes[i]) == 0) {
            fprintf(stderr,
                    "cutec-tune: error: option '--list' needs grouped shapes: %s:%d: '%s' has no groups=G column\n"
                    "see 'cutec-tune bench --help'\n",
                    o->shapes, shapes[i].line, shapes[i].name);
            free(shapes);
            return 2;
        }
    gpu g;
    int rc = gpu_open(o, &g, f);
    if (rc != 0) {
        json_end(o, f, 0);
        gpu_close(&g);
        free(shapes);
        return rc;
    }
    char dev[256], epi[96], lay[4];
    device_line(&g, dev, sizeof dev);
    epilogue_name(o, epi, sizeof epi);
    for (int i = 0; i < 3; i++) lay[i] = o->layout[i] == CUTEC_LAYOUT_ROW ? 'r' : 'c';
    lay[3] = '\0';
    if (o->json) {
        printf("{\"device\": ");
        tune_json_string(dev);
        printf(", \"dtype\": \"%s\", \"out_dtype\": \"%s\", \"epilogue\": \"%s\", \"layout\": \"%s\", \"shapes\": [",
               dtype_name(o->in), dtype_name(o->out), epi, lay);
    } else {
        printf("device: %s\ndtype: %s -> %s\nlayout: %s (A, B as K x N, C)\n", dev, dtype_name(o->in),
               dtype_name(o->out), lay);
        if (strcmp(epi, "none") != 0) printf("epilogue: %s\n", epi);
        if (o->list) printf("form: a list of problems (args.group_list), one per group\n");
        printf("%-20s %6s %6s %6s  %12s %12s %7s %7s%s  %8s%s  %s\n", "shape", "M", "N", "K", "cuBLAS TF/s", "DSL TF/s",
               "ratio", "vs #0", strcmp(epi, "none") ? " vsplain" : "", "tune s",
               o->compare_exhaustive ? "    exh s   fast ms    exh ms fast/exh same-rds     " : "", "winner");
    }
    bench_means gm = {0};
    int printed = 0, skipped = 0; /* lines reported (JSON's commas), and skipped */
    /* --layouts-h2h: the current group's lines and their buffers, freed
     * once it is timed; the timed groups for the JSON output */
    int hmax = o->layouts_h2h > 0 ? largest_group(shapes, nshapes) : 0, nh = 0;
    tune_h2h_line *hl = hmax > 0 ? calloc((size_t)hmax, sizeof *hl) : NULL;
    buffers *hb = hmax > 0 ? calloc((size_t)hmax, sizeof *hb) : NULL;
    tune_h2h_log hlog = {0};
    if (hmax > 0 && (hl == NULL || hb == NULL))
        rc = fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for the layouts head to head");
    if (rc == 0 && !o->no_warmup) rc = bench_warmup(o, &g, shapes, nshapes, f);
    for (int i = 0; rc == 0 && i < nshapes; i++) {
        const tune_shape *sh = &shapes[i];
        cutec_gemm_problem p;
        shape_problem(o, &p, sh);
        buffers b = {0};
        cutec_tune_report *rep = NULL;
        list_run lr = {0};
        int skip = 0;
        rc = o->list ? bench_list(o, &g, sh, &rep, &lr, f) : alloc_problem(&g, &p, &b, (uint64_t)sh->line, f);
        if (rc == 0 && !o->list) {
            cutec_gemm_args a = args_of(&b);
            cutec_status s = cutec_gemm_tune_ex(g.gemm, &p, &a, NULL, &rep);
            /* a size this problem's form cannot take (a gated epilogue's N
             * not a multiple of 16): that line skipped, said so, the rest
             * benched (the suite's odd3000 stopped a whole SwiGLU bench) */
            if (s == CUTEC_ERR_BAD_SIZE && nshapes > 1) {
                bench_skip(o, sh, cutec_runtime_message(g.rt), printed++ == 0);
                skip = 1;
                skipped++;
            } else if (s != CUTEC_OK)
                rc = fail_runtime(f, g.rt, sh->name, s);
        }
        double group_ms = INFINITY;
        plain_cmp pc = {.best_ms = INFINITY};
        char kernel[CUTEC_CANDIDATE_NAME_LEN];
        if (rc == 0 && !skip && !o->list && strcmp(epi, "none") != 0)
            rc = bench_plain(o, &g, sh, &p, &b, tune_h2h_best_pack(rep, kernel, sizeof kernel) ? kernel : NULL, &pc, f);
        if (rc == 0 && !skip && hl != NULL) { /* the line kept for its group's head to head */
            tune_h2h_line *l = &hl[nh];
            memset(l, 0, sizeof *l);
            l->p = p;
            l->args = args_of(&b);
            l->label[0] = p.a_layout == CUTEC_LAYOUT_ROW ? 'r' : 'c';
            l->label[1] = p.b_layout == CUTEC_LAYOUT_ROW ? 'r' : 'c';
            l->label[2] = p.c_layout == CUTEC_LAYOUT_ROW ? 'r' : 'c';
            (void)tune_h2h_best_pack(rep, l->kernel, sizeof l->kernel);
            l->line = sh->line;
            l->flop = 2.0 * (double)(p.batch > 1 ? p.batch : 1) * (double)p.m * (double)p.n * (double)p.k;
            hb[nh++] = b;
            memset(&b, 0, sizeof b);
        }
        free_problem(&g, &b);
        if (rc == 0 && !skip && p.groups > 0) rc = bench_group_loop(&g, &p, (uint64_t)sh->line, &group_ms, f);
        cutec_tune_report *exh = NULL;
        if (rc == 0 && !skip && o->compare_exhaustive) rc = bench_exhaustive(o, &g, sh, &exh, f);
        if (rc == 0 && !skip) bench_report(o, sh, rep, exh, &pc, group_ms, &lr, printed++ == 0, &gm);
        cutec_tune_report_free(rep);
        cutec_tune_report_free(exh);
        /* a group ends where the next line has another name (a group of
         * one line has nothing to be compared with) */
        if (nh > 0 && (i + 1 == nshapes || strcmp(shapes[i + 1].name, sh->name) != 0 || rc != 0)) {
            if (rc == 0 && nh > 1) rc = bench_layouts_h2h(o, &g, sh->name, hl, nh, &hlog, f);
            for (; nh > 0; nh--) free_problem(&g, &hb[nh - 1]);
        }
    }
    for (; nh > 0; nh--) free_problem(&g, &hb[nh - 1]);
    free(hl), free(hb);
    double mean = gm.n ? exp(gm.log_sum / gm.n) : 0, mean0 = gm.n0 ? exp(gm.log_sum0 / gm.n0) : 0;
    double mean_plain = gm.nplain ? exp(gm.log_plain / gm.nplain) : 0;
    if (o->json) {
        printf("\n], \"geomean_ratio\": %.4f, \"geomean_ratio_vs_algo0\": %.4f", mean, mean0);
        if (strcmp(epi, "none") != 0)
            printf(", \"geomean_ratio_vs_plain\": %.4f, \"geomean_ratio_vs_same_kernel_plain\": %.4f, "
                   "\"worst_ratio_vs_same_kernel_plain\": %.4f",
                   mean_plain, gm.nkern ? exp(gm.log_kern / gm.nkern) : 0, gm.worst_kern);
        if (o->compare_exhaustive)
            printf(", \"geomean_fast_vs_exhaustive\": %.4f, \"worst_fast_vs_exhaustive\": %.4f, "
                   "\"geomean_fast_vs_exhaustive_same_rounds\": %.4f, \"worst_fast_vs_exhaustive_same_rounds\": "
                   "%.4f, \"fast_tuning_seconds\": %.3f, \"exhaustive_tuning_seconds\": %.3f",
                   gm.nexh ? exp(gm.log_exh / gm.nexh) : 0, gm.worst_exh, gm.nsame ? exp(gm.log_same / gm.nsame) : 0,
                   gm.worst_same, gm.fast_s, gm.exh_s);
        if (o->layouts_h2h > 0) {
            printf(", ");
            tune_h2h_json(&hlog, (int)o->layouts_h2h);
        }
    }
    int grouped = 0;
    for (int i = 0; i < nshapes; i++) grouped |= shape_groups(o, &shapes[i]) > 0;
    if (!o->json && rc == 0 && grouped)
        printf("grouped shapes (NAME gG, rows split with skew %g): cuBLAS is a loop of cuBLASLt calls, one per "
               "nonempty group; vs #0 not measured\n",
               o->skew);
    if (!o->json && rc == 0 && o->list)
        printf("list (NAME gG list): DSL is the same rows as G problems of args.group_list (m a group's rows, 0 for "
               "an empty one; the problem's m the largest), tuned, then run through cutec_gemm_ex and checked\n");
    if (!o->json && rc == 0 && skipped > 0)
        printf("%d shape%s skipped: a size the problem cannot take (their lines above say why)\n", skipped,
               skipped == 1 ? "" : "s");
    if (o->json) printf(", \"skipped\": %d", skipped);
    if (!o->json && rc == 0 && gm.n > 0) {
        printf("geometric mean over %d shapes: ratio %.3f (the fastest pack kernel against the fastest "
               "cuBLASLt algorithm, head to head)\n",
               gm.n, mean);
        if (gm.n0 > 0)
            printf("geometric mean over %d shapes: vs #0 %.3f (against cuBLASLt's own choice, its heuristic's "
                   "first algorithm, in the common rounds)\n",
                   gm.n0, mean0);
        if (gm.nexh > 0)
            printf("fast against exhaustive tuning over %d shapes: winner time ratio %.4f (geometric mean), %.4f "
                   "(worst); tuning %.1f s against %.1f s\n",
                   gm.nexh, exp(gm.log_exh / gm.nexh), gm.worst_exh, gm.fast_s, gm.exh_s);
        if (gm.nsame > 0)
            printf("fast against exhaustive tuning in the same rounds (the exhaustive tuning's) over %d of %d "
                   "shapes: %.4f (geometric mean), %.4f (worst)\n",
                   gm.nsame, gm.nexh, exp(gm.log_same / gm.nsame), gm.worst_same);
        if (gm.nplain > 0)
            printf("geometric mean over %d shapes: vs plain %.3f (the tuned GEMM without the epilogue against the "
                   "tuned GEMM with it, their decisions head to head in the same rounds: 1 is a free epilogue)\n",
                   gm.nplain, mean_plain);
        if (gm.nkern > 0)
            printf("geometric mean over %d shapes: same kernel %.3f, worst %.3f (the fastest pack kernel with the "
                   "epilogue against the same tune point without it, in the same rounds: 1 is a free epilogue)\n",
                   gm.nkern, exp(gm.log_kern / gm.nkern), gm.worst_kern);
    }
    if (!o->json && rc == 0 && o->layouts_h2h > 0) tune_h2h_print_summary(&hlog);
    tune_h2h_log_free(&hlog);
    json_end(o, f, 1);
    free(shapes);
    gpu_close(&g);
    return rc;
}

static int cmd_overhead(const opts *o, failure *f)
{
    gpu g;
    buffers b = {0};
    int rc = gpu_open(o, &g, f);
    cutec_gemm_problem p;
    problem_init(o, &p, o->m, o->n, o->k, o->batch, 0);
    if (rc == 0) rc = alloc_problem(&g, &p, &b, 7, f);
    cutec_status s = CUTEC_OK;
    cutec_gemm_args a = args_of(&b);
    if (rc == 0) /* the first call tunes (or reads the cache) */
        s = cutec_gemm_ex(g.gemm, &p, &a, NULL);
    if (rc == 0 && s == CUTEC_OK) s = cutec_synchronize(g.rt);
    double t_call = 0, t_lookup = 0;
    long long done = 0;
    char choice[CUTEC_CANDIDATE_NAME_LEN] = "";
    /* Batches of 64 calls, synchronised between batches so that the launch
   * queue never fills and blocks the host: only the calls are timed. */
    while (rc == 0 && s == CUTEC_OK && done < o->calls) {
        double t0 = now_seconds();
        for (int i = 0; i < 64 && s == CUTEC_OK; i++) s = cutec_gemm_ex(g.gemm, &p, &a, NULL);
        t_call += now_seconds() - t0;
        t0 = now_seconds();
        for (int i = 0; i < 64 && s == CUTEC_OK; i++) s = cutec_gemm_choice(g.gemm, &p, choice, sizeof choice);
        t_lookup += now_seconds() - t0;
        done += 64;
        if (s == CUTEC_OK) s = cutec_synchronize(g.rt);
    }
    if (rc == 0 && s != CUTEC_OK) rc = fail_runtime(f, g.rt, "cutec_gemm", s);
    if (rc == 0) {
        double us_call = 1e6 * t_call / (double)done, us_lookup = 1e6 * t_lookup / (double)done;
        if (o->json) {
            printf("{\"m\": %lld, \"n\": %lld, \"k\": %lld, \"calls\": %lld, \"us_per_call\": %.3f, "
                   "\"us_per_lookup\": %.3f, \"choice\": ",
                   p.m, p.n, p.k, done, us_call, us_lookup);
            tune_json_string(choice);
        } else {
            printf("choice: %s\n", choice);
            printf("cutec_gemm host time per cached call (check + lookup + launch): %.3f us over %lld calls\n", us_call,
                   done);
            printf("cutec_gemm_choice (check + lookup): %.3f us\n", us_lookup);
        }
    }
    json_end(o, f, rc == 0);
    if (b.d[BUF_A]) free_problem(&g, &b);
    gpu_close(&g);
    return rc;
}

/* ---- error: each candidate's accumulation error against float64 ---- */

/* Whether name has the word tok ("NAME=VALUE") after its kernel's name. */
static int has_word(const char *name, const char *tok, size_t len)
{
    for (const char *q = strchr(name, ' '); q != NULL; q = strchr(q + 1, ' '))
        if (strncmp(q + 1, tok, len) == 0 && (q[1 + len] == ' ' || q[1 + len] == '\0')) return 1;
    return 0;
}

/* Whether a pack kernel's name has every word of --only (none: all do). */
static int only_match(const opts *o, const char *name)
{
    if (o->only == NULL) return 1;
    for (const char *w = o->only; *w != '\0';) {
        size_t len = strcspn(w, " ");
        if (len > 0 && !has_word(name, w, len)) return 0;
        w += len + (w[len] == ' ');
    }
    return 1;
}

/* A pack kernel's label: its kernel's name and the words that are not the
 * same in every pack kernel of the table (`common`), PROMO always. */
static void error_label(const char *name, const char *common, char *buf, size_t len)
{
    size_t n = strcspn(name, " ");
    snprintf(buf, len, "%.*s", (int)n, name);
    for (const char *w = name + n; *w == ' ';) {
        w++;
        size_t wl = strcspn(w, " ");
        if (strncmp(w, "PROMO=", 6) == 0 || !has_word(common, w, wl))
            snprintf(buf + strlen(buf), len - strlen(buf), " %.*s", (int)wl, w);
        w += wl;
    }
}

/* The study's candidates: indices into the report, the best-tuned pack
 * kernel first, the other pack kernels (in the report's order, --only
 * applied) then cuBLASLt's algorithms by their heuristic's rank; a name
 * twice (two packs) once. */
static int error_candidates(const opts *o, const cutec_tune_report *rep, int best, int *idx)
{
    int n = 0;
    if (best >= 0) idx[n++] = best;
    for (int i = 0; i < rep->count; i++) {
        const cutec_tune_candidate *c = &rep->candidates[i];
        if (c->is_cublas || i == best || !only_match(o, c->name)) continue;
        int seen = 0;
        for (int j = 0; j < n; j++) seen |= strcmp(rep->candidates[idx[j]].name, c->name) == 0;
        if (!seen) idx[n++] = i;
    }
    for (int rank = 0; rank < rep->count; rank++)
        for (int i = 0; i < rep->count; i++)
            if (rep->candidates[i].is_cublas && rep->candidates[i].algo_rank == rank) idx[n++] = i;
    return n;
}

/* The best-tuned pack kernel: the first of the report's checked pack
 * kernels that is an entry of the tuned pack (PACK, not a --pack), else
 * the first screened one (a --pack kernel may have outrun PACK's in the
 * screening); -1: none. */
static int error_best(const gpu *g, const cutec_tune_report *rep)
{
    char name[sizeof rep->candidates[0].name];
    for (int screened = 0; screened < 2; screened++)
        for (int i = 0; i < rep->count; i++) {
            const cutec_tune_candidate *c = &rep->candidates[i];
            if (c->is_cublas || c->screened != screened || isinf(c->ms)) continue;
            for (int e = 0; e < cutec_pack_entry_count(g->pack); e++) {
                cutec_pack_entry_describe(g->pack, e, name, sizeof name);
                if (strcmp(name, c->name) == 0) return i;
            }
        }
    return -1;
}

/* The host side of the study: inputs, scales, the reference, D's rows. */
typedef struct error_host {
    unsigned char *a, *b, *nan, *drows;
    float *sa, *sb;
    double *ref, *mag;
    long long *rows;
    size_t nsa, nsb;
} error_host;

static void error_host_free(error_host *h)
{
    free(h->a), free(h->b), free(h->nan), free(h->drows), free(h->sa), free(h->sb), free(h->ref), free(h->mag);
    free(h->rows);
}

/* One candidate's run: D filled with NaN bytes, the named candidate, the sampled rows back. */
static cutec_status error_run(gpu *g, const cutec_gemm_problem *p, const buffers *b, const error_host *h, int nrows,
                              const char *name)
{
    size_t db = matrix_bytes(p->m, p->n, p->c_type), row = (size_t)p->n * dtype_bytes(p->c_type);
    cutec_status s = cutec_memcpy_htod(g->rt, b->d[BUF_D], h->nan, db);
    cutec_gemm_args a = args_of(b);
    if (s == CUTEC_OK) s = cutec_gemm_run_candidate(g->gemm, p, &a, name, NULL);
    for (int i = 0; i < nrows && s == CUTEC_OK; i++)
        s = cutec_memcpy_dtoh(g->rt, h->drows + (size_t)i * row, b->d[BUF_D] + (unsigned long long)h->rows[i] * row,
                              row);
    return s;
}

static void json_stats(const tune_err_stats *st)
{
    if (isinf(st->max_abs) || st->count == 0)
        printf("\"max_abs\": null, \"rms\": null, \"max_rel\": null");
    else
        printf("\"max_abs\": %.6e, \"rms\": %.6e, \"max_rel\": %.6e", st->max_abs, st->rms, st->max_rel);
    printf(", \"nonfinite\": %lld", st->nonfinite);
}

/* pack / cuBLASLt of the three measures (0 where either is missing). */
static void error_ratios(const tune_err_stats *x, const tune_err_stats *y, double r[3])
{
    double a[3] = {x->max_abs, x->rms, x->max_rel}, b[3] = {y->max_abs, y->rms, y->max_rel};
    for (int q = 0; q < 3; q++) r[q] = b[q] > 0 && !isinf(a[q]) && !isinf(b[q]) ? a[q] / b[q] : 0;
}

static int cmd_error(const opts *o, failure *f)
{
    static const char *const modes[] = {"none", "tensor", "row", "block"};
    cutec_gemm_problem p;
    problem_init(o, &p, o->m, o->n, o->k, 0, 0);
    error_host h = {0};
    int nrows = o->rows < p.m ? (int)o->rows : (int)p.m;
    size_t ab = matrix_bytes(p.m, p.k, p.a_type), bb = matrix_bytes(p.n, p.k, p.b_type);
    size_t db = matrix_bytes(p.m, p.n, p.c_type), samp = matrix_bytes(nrows, p.n, CUTEC_DTYPE_F32);
    if (ab == 0 || bb == 0 || db == 0 || samp == 0) {
        int rc =
            fail(f, CUTEC_ERR_BAD_SIZE, "problem: %lld x %lld x %lld: a matrix's size overflows size_t", p.m, p.n, p.k);
        json_end(o, f, 0);
        return rc;
    }
    long long kb = (p.k + 127) / 128;
    h.nsa = p.scale_mode == CUTEC_SCALE_TENSOR  ? 1
            : p.scale_mode == CUTEC_SCALE_BLOCK ? (size_t)(p.m * kb)
                                                : (size_t)p.m;
    h.nsb = p.scale_mode == CUTEC_SCALE_TENSOR  ? 1
            : p.scale_mode == CUTEC_SCALE_BLOCK ? (size_t)((p.n + 127) / 128 * kb)
                                                : (size_t)p.n;
    h.a = malloc(ab), h.b = malloc(bb), h.nan = malloc(db), h.drows = malloc(samp);
    h.ref = malloc(samp * 2), h.mag = malloc(samp * 2), h.rows = malloc(sizeof *h.rows * (size_t)nrows);
    if (p.scale_mode != CUTEC_SCALE_NONE)
        h.sa = random_scales(h.nsa, o->seed * 2 + BUF_SA), h.sb = random_scales(h.nsb, o->seed * 2 + BUF_SB);
    if (h.a == NULL || h.b == NULL || h.nan == NULL || h.drows == NULL || h.ref == NULL || h.mag == NULL ||
        h.rows == NULL || (p.scale_mode != CUTEC_SCALE_NONE && (h.sa == NULL || h.sb == NULL))) {
        error_host_free(&h);
        int rc = fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for the inputs (%zu bytes) and the reference",
                      ab + bb + db);
        json_end(o, f, 0);
        return rc;
    }
    memset(h.nan, 0xff, db); /* NaN in every float type: an element never written shows */
    tune_err_rows(p.m, nrows, h.rows);
    gpu g;
    buffers b = {0};
    cutec_tune_report *rep = NULL;
    int rc = gpu_open(o, &g, f);
    cutec_status s = CUTEC_OK;
    const struct {
        int buf;
        size_t bytes;
        const void *host;
    } up[] = {{BUF_D, db, NULL},
              {BUF_A, ab, NULL},
              {BUF_B, bb, NULL},
              {BUF_SA, h.nsa * sizeof(float), h.sa},
              {BUF_SB, h.nsb * sizeof(float), h.sb}};
    for (size_t i = 0; rc == 0 && s == CUTEC_OK && i < sizeof up / sizeof up[0]; i++) {
        if (up[i].buf >= BUF_SA && p.scale_mode == CUTEC_SCALE_NONE) continue;
        s = cutec_malloc(g.rt, up[i].bytes, &b.d[up[i].buf]);
        if (s == CUTEC_OK && up[i].host != NULL) s = cutec_memcpy_htod(g.rt, b.d[up[i].buf], up[i].host, up[i].bytes);
    }
    if (rc == 0 && s != CUTEC_OK) rc = fail_runtime(f, g.rt, "device buffers", s);
    tune_err_stats *st[TUNE_ERR_DISTS] = {NULL};
    double ref_rms[TUNE_ERR_DISTS] = {0}, mag_rms[TUNE_ERR_DISTS] = {0};
    int *idx = NULL, nc = 0, best = -1;
    char(*notes)[160] = NULL;
    for (int d = 0; rc == 0 && d < TUNE_ERR_DISTS; d++) {
        uint64_t seed = o->seed * 4 + (uint64_t)d * 2;
        if (tune_err_fill(h.a, ab / dtype_bytes(p.a_type), p.a_type, (tune_err_dist)d, seed) != 0 ||
            tune_err_fill(h.b, bb / dtype_bytes(p.b_type), p.b_type, (tune_err_dist)d, seed + 1) != 0) {
            rc = fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory");
            break;
        }
        s = cutec_memcpy_htod(g.rt, b.d[BUF_A], h.a, ab);
        if (s == CUTEC_OK) s = cutec_memcpy_htod(g.rt, b.d[BUF_B], h.b, bb);
        if (s != CUTEC_OK) {
            rc = fail_runtime(f, g.rt, "device buffers", s);
            break;
        }
        if (d == 0) { /* tuned once, on the first distribution's inputs */
            cutec_gemm_args a = args_of(&b);
            s = cutec_gemm_tune_ex(g.gemm, &p, &a, NULL, &rep);
            if (s != CUTEC_OK) {
                rc = fail_runtime(f, g.rt, "tuning", s);
                break;
            }
            size_t cap = (size_t)rep->count + 1;
            idx = malloc(sizeof *idx * cap), notes = calloc(cap, sizeof *notes);
            for (int q = 0; q < TUNE_ERR_DISTS; q++) st[q] = calloc(cap, sizeof *st[q]);
            if (idx == NULL || notes == NULL || st[0] == NULL || st[TUNE_ERR_DISTS - 1] == NULL) {
                rc = fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory");
                break;
            }
            best = error_best(&g, rep);
            nc = error_candidates(o, rep, best, idx);
        }
        tune_err_problem ep = {.m = p.m,
                               .n = p.n,
                               .k = p.k,
                               .ab = p.a_type,
                               .a = h.a,
                               .b = h.b,
                               .mode = p.scale_mode,
                               .sa = h.sa,
                               .sb = h.sb};
        if (tune_err_reference(&ep, h.rows, nrows, h.ref, h.mag) != 0) {
            rc = fail(f, CUTEC_ERR_OUT_OF_MEMORY, "out of host memory for the reference");
            break;
        }
        for (size_t i = 0; i < (size_t)nrows * (size_t)p.n; i++)
            ref_rms[d] += h.ref[i] * h.ref[i], mag_rms[d] += h.mag[i] * h.mag[i];
        ref_rms[d] = sqrt(ref_rms[d] / ((double)nrows * (double)p.n));
        mag_rms[d] = sqrt(mag_rms[d] / ((double)nrows * (double)p.n));
        for (int c = 0; c < nc; c++) {
            const char *name = rep->candidates[idx[c]].name;
            s = error_run(&g, &p, &b, &h, nrows, name);
            if (s == CUTEC_ERR_KERNEL_FAULT) {
                rc = fail_runtime(f, g.rt, name, s);
                break;
            }
            if (s != CUTEC_OK) {
                snprintf(notes[c], sizeof notes[c], "%s: %.120s", cutec_status_string(s), cutec_runtime_message(g.rt));
                memset(&st[d][c], 0, sizeof st[d][c]);
                st[d][c].max_abs = st[d][c].rms = st[d][c].max_rel = INFINITY;
                continue;
            }
            tune_err_measure(h.drows, p.c_type, nrows, p.n, h.ref, h.mag, &st[d][c]);
        }
    }
    if (rc == 0) {
        /* the words every pack kernel of the table shares: said once */
        char common[sizeof rep->candidates[0].name] = "";
        for (int c = 0; c < nc; c++) {
            const char *nm = rep->candidates[idx[c]].name;
            if (rep->candidates[idx[c]].is_cublas) continue;
            if (common[0] == '\0') {
                snprintf(common, sizeof common, "%s", nm);
                continue;
            }
            char keep[sizeof common];
            size_t kl = strcspn(common, " ");
            snprintf(keep, sizeof keep, "%.*s", (int)kl, common);
            for (const char *w = common + kl; *w == ' ';) {
                w++;
                size_t wl = strcspn(w, " ");
                if (has_word(nm, w, wl)) snprintf(keep + strlen(keep), sizeof keep - strlen(keep), " %.*s", (int)wl, w);
                w += wl;
            }
            snprintf(common, sizeof common, "%s", keep);
        }
        char dev[256];
        device_line(&g, dev, sizeof dev);
        const char *mode = modes[p.scale_mode];
        int i0 = -1; /* cuBLASLt's algorithm #0 */
        for (int c = 0; c < nc; c++)
            if (rep->candidates[idx[c]].is_cublas && rep->candidates[idx[c]].algo_rank == 0) i0 = c;
        if (o->json) {
            printf("{\"device\": ");
            tune_json_string(dev);
            printf(
                ", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"dtype\": \"%s\", \"out_dtype\": \"%s\", \"scale\": \"%s\", "
                "\"rows\": %d, \"seed\": %llu, \"sigma\": %g, \"tuning_seconds\": %.3f, \"best\": ",
                p.m, p.n, p.k, dtype_name(p.a_type), dtype_name(p.c_type), mode, nrows, (unsigned long long)o->seed,
                tune_err_sigma(p.a_type), rep->seconds);
            if (best >= 0)
                tune_json_string(rep->candidates[best].name);
            else
                printf("null");
            printf(", \"distributions\": [");
            for (int d = 0; d < TUNE_ERR_DISTS; d++) {
                printf(
                    "%s\n {\"name\": \"%s\", \"mean\": %g, \"ref_rms\": %.6e, \"bound_rms\": %.6e, \"candidates\": [",
                    d ? "," : "", tune_err_dist_name((tune_err_dist)d), tune_err_dist_mean((tune_err_dist)d),
                    ref_rms[d], mag_rms[d]);
                for (int c = 0; c < nc; c++) {
                    const cutec_tune_candidate *k = &rep->candidates[idx[c]];
                    printf("%s\n  {\"name\": ", c ? "," : "");
                    tune_json_string(k->name);
                    printf(", \"cublas\": %s, \"best\": %s, ", k->is_cublas ? "true" : "false",
                           idx[c] == best ? "true" : "false");
                    json_stats(&st[d][c]);
                    printf(", \"note\": ");
                    tune_json_string(notes[c]);
                    printf("}");
                }
                printf("\n ], \"ratio_vs_algo0\": ");
                double r[3];
                if (best >= 0 && i0 >= 0) {
                    error_ratios(&st[d][0], &st[d][i0], r);
                    printf("{\"max_abs\": %.4f, \"rms\": %.4f, \"max_rel\": %.4f}", r[0], r[1], r[2]);
                } else {
                    printf("null");
                }
                printf("}");
            }
            printf("\n]");
        } else {
            printf("device: %s\n", dev);
            printf("problem: M=%lld N=%lld K=%lld %s -> %s, scale %s, tuned in %.2f s\n", p.m, p.n, p.k,
                   dtype_name(p.a_type), dtype_name(p.c_type), mode, rep->seconds);
            printf("reference: float64 on the host, %d of %lld rows x %lld columns (%lld elements), from the %s values "
                   "and scales\n",
                   nrows, p.m, p.n, (long long)nrows * p.n, dtype_name(p.a_type));
            printf("measures: max |d - v|, RMS of d - v, max |d - v| / sum_k |sa sb a b| (the bound's scale)\n");
            if (common[0] != '\0') printf("pack kernels: %s (rows give the other parameters)\n", common);
            printf("best-tuned pack kernel (*): %s\n", best >= 0 ? rep->candidates[best].name : "none");
            for (int d = 0; d < TUNE_ERR_DISTS; d++) {
                printf(
                    "\ndistribution %s: A, B = %g (%g + N(0, 1)) rounded to %s, never 0; v RMS %.4g, bound scale RMS "
                    "%.4g\n",
                    tune_err_dist_name((tune_err_dist)d), tune_err_sigma(p.a_type),
                    tune_err_dist_mean((tune_err_dist)d), dtype_name(p.a_type), ref_rms[d], mag_rms[d]);
                printf("  %-52s %11s %11s %11s\n", "candidate", "max abs", "RMS", "max/bound");
                for (int c = 0; c < nc; c++) {
                    const cutec_tune_candidate *k = &rep->candidates[idx[c]];
                    char label[CUTEC_CANDIDATE_NAME_LEN];
                    if (k->is_cublas)
                        snprintf(label, sizeof label, "%s", k->name);
                    else
                        error_label(k->name, common, label, sizeof label);
                    printf("%c %-52.52s %11.4e %11.4e %11.4e%s%s\n", idx[c] == best ? '*' : ' ', label,
                           st[d][c].max_abs, st[d][c].rms, st[d][c].max_rel, notes[c][0] ? "  " : "", notes[c]);
                }
            }
            printf("\n");
            if (best < 0 || i0 < 0) {
                printf("pack / cuBLASLt: not measured (%s)\n",
                       best < 0 ? "no pack kernel of the tuned pack serves the problem and passed the "
                                  "tuner's check"
                                : "no cuBLASLt algorithm");
            } else {
                printf("pack / cuBLASLt, the best-tuned pack kernel (*) against cublasLt algo #0 (max abs, RMS, "
                       "max/bound; <= 1: no worse):\n");
                for (int d = 0; d < TUNE_ERR_DISTS; d++) {
                    double r[3];
                    error_ratios(&st[d][0], &st[d][i0], r);
                    printf("  %-8s %7.3f %7.3f %7.3f\n", tune_err_dist_name((tune_err_dist)d), r[0], r[1], r[2]);
                }
            }
        }
    }
    json_end(o, f, rc == 0);
    cutec_tune_report_free(rep);
    if (g.rt != NULL) free_problem(&g, &b);
    gpu_close(&g);
    error_host_free(&h);
    free(idx), free(notes);
    for (int q = 0; q < TUNE_ERR_DISTS; q++) free(st[q]);
    return rc;
}

int main(int argc, char **argv)
{
    opts o;
    int rc = tune_args_parse(argc, argv, &o);
    if (rc >= 0) return rc;
    static failure f; /* static: its message is 20 KB */
    switch (o.cmd) {
    case TUNE_CMD_LIST: rc = cmd_list(&o, &f); break;
    case TUNE_CMD_TUNE: rc = cmd_tune(&o, &f); break;
    case TUNE_CMD_BENCH: rc = cmd_bench(&o, &f); break;
    case TUNE_CMD_OVERHEAD: rc = cmd_overhead(&o, &f); break;
    case TUNE_CMD_ERROR: rc = cmd_error(&o, &f); break;
    case TUNE_CMD_COUNT: break;
    }
    /* output that could not be written (a full disk, a closed pipe) is a
   * failure, not a success with a truncated table */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "cutec-tune: error: cannot write the output: %s\n", strerror(errno));
        return rc != 0 ? rc : 1;
    }
    return rc;
}
