/*
 * tune_args.c - cutec-tune's command line (see tune_args.h).  Every number
 * is parsed whole and range-checked here, so that a value like
 * --k 99999999999999999999 is named as the mistake it is instead of
 * overflowing the size arithmetic further on.
 */
#include "tune_args.h"
#include "tune_groups.h"
#include "tune_layout_h2h.h"
#include "tune_shapes.h"

#include "dtype.h"
#include "epilogue.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD(c)   (1u << (c))
#define CMDS_ALL (CMD(TUNE_CMD_COUNT) - 1u)
/* the commands that time a problem of any form (epilogues, batches, layouts) */
#define CMDS_RUN   (CMD(TUNE_CMD_TUNE) | CMD(TUNE_CMD_BENCH) | CMD(TUNE_CMD_OVERHEAD))
#define CMDS_GPU   (CMDS_RUN | CMD(TUNE_CMD_ERROR))
#define CMDS_ONE   (CMD(TUNE_CMD_TUNE) | CMD(TUNE_CMD_OVERHEAD) | CMD(TUNE_CMD_ERROR)) /* one problem, --m --n --k */
#define CMDS_TUNED (CMD(TUNE_CMD_TUNE) | CMD(TUNE_CMD_BENCH)) /* the commands that report tunings */

static const struct command {
    const char *name, *synopsis, *about;
} commands[TUNE_CMD_COUNT] = {
    [TUNE_CMD_LIST] = {"list", "PACK [--json]",
                       "Lists the entries of a kernel pack (from `cutec pack`); needs no GPU.\n"},
    [TUNE_CMD_TUNE] = {"tune", "PACK --m M --n N --k K [options]",
                       "Tunes one GEMM problem (ignoring the caches) and prints the ranked candidates\n"
                       "(median ms, the median in the rounds that timed every checked candidate together:\n"
                       "compare candidates by that; TFLOP/s, ratio to the best cuBLASLt algorithm) and\n"
                       "the winner.\n"},
    [TUNE_CMD_BENCH] = {"bench", "PACK --shapes FILE [options]",
                        "Tunes every shape of FILE (one 'NAME M N K' per line, '#' starts a comment;\n"
                        "a line that is neither is skipped with a warning) and prints per shape\n"
                        "cuBLASLt's TFLOP/s, the fastest pack kernel's, their ratios and the winner,\n"
                        "then their geometric means.  With an epilogue it also tunes each shape's plain\n"
                        "GEMM and times, in the same rounds, the two decisions ('vs plain') and the\n"
                        "epilogue's fastest pack kernel against the same tune point without the\n"
                        "epilogue, found in the packs given ('same kernel': 1 is a free epilogue).\n"},
    [TUNE_CMD_OVERHEAD] = {"overhead", "PACK --m M --n N --k K [--calls N] [options]",
                           "Measures the host time of a cached cutec_gemm call (check + lookup +\n"
                           "launch) and of the lookup alone.\n"},
    [TUNE_CMD_ERROR] = {"error", "PACK --m M --n N --k K [--pack FILE]... [options]",
                        "Measures each candidate's error against float64: tunes the problem over\n"
                        "PACK (its fastest checked kernel is the best-tuned one, marked *), then\n"
                        "runs every pack kernel that serves it (PACK's and the --pack ones') and\n"
                        "cuBLASLt's algorithms once on two input distributions (normal, and with a\n"
                        "mean of one sigma: fp8 values fill its range) and prints per candidate\n"
                        "the max abs error, the RMS error and the max error over the bound's scale\n"
                        "sum_k |sa sb a b|, over sampled rows of D computed in float64 on the host;\n"
                        "then the best-tuned kernel's measures over cuBLASLt algorithm #0's.\n"},
};

typedef enum opt_id {
    OPT_M,
    OPT_N,
    OPT_K,
    OPT_SHAPES,
    OPT_CALLS,
    OPT_DTYPE,
    OPT_OUT_DTYPE,
    OPT_ALPHA,
    OPT_BETA,
    OPT_EPILOGUE,
    OPT_BIAS,
    OPT_BIAS_ROW,
    OPT_C_SOURCE,
    OPT_AUX,
    OPT_CLAMP,
    OPT_SCALE,
    OPT_LAYOUT,
    OPT_BATCH,
    OPT_GROUPS,
    OPT_SKEW,
    OPT_LIST,
    OPT_LAYOUTS_H2H,
    OPT_RUNS,
    OPT_DEVICE,
    OPT_PACK,
    OPT_CACHE_DIR,
    OPT_NO_CACHE,
    OPT_NO_WARMUP,
    OPT_SHORTLIST,
    OPT_FINALISTS,
    OPT_LEAD,
    OPT_HOST_BOUND,
    OPT_COMPARE_EXHAUSTIVE,
    OPT_HOST_CHECK,
    OPT_VERBOSE,
    OPT_JSON,
    OPT_SEED,
    OPT_ROWS,
    OPT_ONLY,
    OPT_HELP,
} opt_id;

/* Adding an option is one row here and one case in store_option.  A
 * value in brackets ("[R]") is optional: the next argument is taken as it
 * when it looks like a number (a digit, or a sign and a digit), so that a
 * pack file or another option can follow the option alone. */
static const struct option {
    opt_id id;
    const char *name, *value; /* value: NULL for a flag */
    unsigned cmds;            /* CMD(c) for each command that takes it */
    const char *help;
} options[] = {
    {OPT_M, "--m", "M", CMDS_ONE, "rows of A and C, 1 to 2^31-1"},
    {OPT_N, "--n", "N", CMDS_ONE, "columns of B and C, 1 to 2^31-1"},
    {OPT_K, "--k", "K", CMDS_ONE, "columns of A and rows of B, 1 to 2^31-1"},
    {OPT_SHAPES, "--shapes", "FILE", CMD(TUNE_CMD_BENCH),
     "the shapes: a regular file of at most 1 MiB (each M, N, K 1 to 2^31-1); a line whose size the problem "
     "cannot take (a gated epilogue's N not a multiple of 16) is reported as skipped"},
    {OPT_CALLS, "--calls", "N", CMD(TUNE_CMD_OVERHEAD),
     "cached calls to time, 1 to 10^9, in whole batches of 64 (default 20000)"},
    {OPT_DTYPE, "--dtype", "T", CMDS_GPU, "input type: bf16 (default), f16, e4m3 or e5m2 (fp8: A and B K-major)"},
    {OPT_OUT_DTYPE, "--out-dtype", "T", CMDS_GPU,
     "output type: bf16, f16, f32, e4m3 or e5m2 (default: the input type, bf16 for fp8 inputs; an fp8 output is "
     "scaled by a random scale_d and writes its amax)"},
    {OPT_SCALE, "--scale", "MODE", CMDS_GPU,
     "random positive scales of A B: tensor (one each), row (per row of A and column of B) or block (fp8: 1 x 128 "
     "of A, 128 x 128 of B)"},
    {OPT_BATCH, "--batch", "L", CMDS_RUN,
     "a strided batch of L problems, 1 to 2^31-1, each matrix packed after the previous one (bench: for the shapes "
     "without a batch=L column)"},
    {OPT_GROUPS, "--groups", "G", CMDS_TUNED,
     "a grouped (mixture-of-experts) GEMM of G groups, 1 to 2^31-1: M's rows split among G matrices B (packed one "
     "after another), row ends as --skew says (bench: for the shapes without a groups=G or batch=L column)"},
    {OPT_SKEW, "--skew", "S", CMDS_TUNED,
     "how --groups splits M's rows, 0 to 8: 0 balanced (default), S > 0 Zipf-like, a seeded permutation's rank r "
     "giving a group the weight (1 + r)^-S"},
    {OPT_LIST, "--list", NULL, CMD(TUNE_CMD_BENCH),
     "run each grouped shape as the general grouped GEMM, a list of G problems (args.group_list: one per group, m "
     "its rows, 0 for an empty one), over the same rows, Bs and split, with a list pack (GRP = 2); its result "
     "checked against float64; every shape must be grouped"},
    {OPT_LAYOUTS_H2H, "--layouts-h2h", "[R]", CMD(TUNE_CMD_BENCH),
     "after each group of consecutive lines sharing a name (a shape in several layouts) is tuned, time every line's "
     "fastest pack kernel on its own problem and buffers, all lines' in the same R rounds (5 to 10000, default 20), "
     "each run after an L2 flush: per line the median, TFLOP/s and its ratio to the group's first line (> 1 "
     "faster), and per layout the geometric mean and worst over the groups"},
    {OPT_ALPHA, "--alpha", "X", CMDS_RUN, "alpha, a finite float (default 1; pack kernels need 1)"},
    {OPT_BETA, "--beta", "X", CMDS_RUN, "beta, a finite float (default 0; pack kernels need 0)"},
    {OPT_EPILOGUE, "--epilogue", "ACT", CMDS_RUN,
     "the epilogue's activation: identity (default), relu, relu6, gelu_tanh, gelu_erf, silu, sigmoid, or gated "
     "swiglu, geglu (then N is the GEMM's width, a multiple of 16, and D has N/2 columns)"},
    {OPT_BIAS, "--bias", NULL, CMDS_RUN, "add a random bias per column (before the activation)"},
    {OPT_BIAS_ROW, "--bias-row", NULL, CMDS_RUN, "add a random bias per row"},
    {OPT_C_SOURCE, "--c-source", NULL, CMDS_RUN, "read beta * C from a random C and write D out of place"},
    {OPT_AUX, "--aux", NULL, CMDS_RUN, "also write the pre-activation (an aux output)"},
    {OPT_CLAMP, "--clamp", "LO,HI", CMDS_RUN,
     "clamp the activation's value into [LO, HI] before the conversion to the output type (numbers, LO <= HI; inf "
     "or -inf leaves a side open); cuBLASLt's baseline is then its GEMM and a --pack's elementwise kernel"},
    {OPT_LAYOUT, "--layout", "ABC", CMDS_RUN,
     "the layouts of A, B (as the K x N matrix) and C, a letter each: r row-major, c column-major (default "
     "rcr: B stored N x K; `x @ W` with W stored K x N is rrr); leading dimensions packed"},
    {OPT_RUNS, "--runs", "R", CMDS_GPU, "timed runs per candidate, 20 to 10000 (default 25)"},
    {OPT_DEVICE, "--device", "D", CMDS_GPU, "CUDA device, 0 to 2^31-1 (default 0)"},
    {OPT_PACK, "--pack", "FILE", CMDS_GPU,
     "another pack whose kernels are candidates too, up to 8 (e.g. the plain GEMM's pack beside an epilogue's, "
     "stdlib/epilogue_apply.cute's for the unfused baseline, or a second build of the same template: tune then "
     "ends each pack kernel's line with its pack, \"[pack 2: FILE]\")"},
    {OPT_CACHE_DIR, "--cache-dir", "DIR", CMDS_GPU,
     "tuning cache directory (default: $CUTEC_CACHE_DIR, $XDG_CACHE_HOME/cutec)"},
    {OPT_NO_CACHE, "--no-cache", NULL, CMDS_GPU, "neither read nor write the disk cache"},
    {OPT_NO_WARMUP, "--no-warmup", NULL, CMD(TUNE_CMD_BENCH),
     "skip the warm-up, an unreported tuning of the first shape"},
    {OPT_SHORTLIST, "--shortlist", "N", CMDS_GPU,
     "fast tuning: time only the N pack kernels the cost model ranks first, exactly N, 0 to 10000 (0: "
     "exhaustive; default: the runtime's 16, grown to as many as 0.6 s of screening affords at the model's time "
     "of a run: every kernel for short ones)"},
    {OPT_FINALISTS, "--finalists", "N", CMDS_GPU,
     "with more pack kernels than N, screen them in a few runs each and time only the N fastest in full, 0 to "
     "10000 (0: no screening, every kernel in the full rounds; default: the runtime's 8)"},
    {OPT_LEAD, "--lead", "N", CMDS_GPU,
     "N untimed runs of a candidate right before each of its timed runs in the rounds and the head to head, so that "
     "each is timed at the clock its own power draw sets under the power cap, 0 to 1000 (default 0)"},
    {OPT_HOST_BOUND, "--host-bound-us", "U", CMDS_GPU,
     "below U microseconds of device time, decide between the best pack kernel and the best cuBLASLt algorithm by "
     "the longer of device and host time per call, 0 to 1000000 (default 0: device time alone)"},
    {OPT_COMPARE_EXHAUSTIVE, "--compare-exhaustive", NULL, CMD(TUNE_CMD_BENCH),
     "tune each shape twice, fast and exhaustive (--shortlist 0), and print both winners' times, their ratio "
     "and both tuning times"},
    {OPT_HOST_CHECK, "--host-check", NULL, CMDS_GPU,
     "compare candidates with the reference on the host, not on the device"},
    {OPT_VERBOSE, "--verbose", NULL, CMDS_GPU, "print the runtime's log (every candidate, failures) to stderr"},
    {OPT_SEED, "--seed", "S", CMD(TUNE_CMD_ERROR), "the inputs' and scales' seed, 0 to 2^63-1 (default 1)"},
    {OPT_ROWS, "--rows", "R", CMD(TUNE_CMD_ERROR),
     "rows of D compared with float64 (every column), spread over M, 1 to 4096 (default 64; at most M)"},
    {OPT_ONLY, "--only", "WORDS", CMD(TUNE_CMD_ERROR),
     "measure only the pack kernels whose parameters include every NAME=VALUE word, e.g. 'BM=128 BN=128' "
     "(the best-tuned one always)"},
    {OPT_JSON, "--json", NULL, CMDS_ALL, "machine-readable output on stdout: one JSON object, also on failure"},
    {OPT_HELP, "--help", NULL, CMDS_ALL, "this help (also -h)"},
};
#define NOPTIONS (sizeof options / sizeof options[0])

static const char exit_text[] = "exit status: 0 ok, 1 failure, 2 bad usage, 77 no CUDA driver or device\n";

static void print_usage(FILE *f)
{
    for (int c = 0; c < TUNE_CMD_COUNT; c++)
        fprintf(f, "%s cutec-tune %s %s\n", c ? "      " : "usage:", commands[c].name, commands[c].synopsis);
    fprintf(f,
            "       cutec-tune --version\n\n"
            "Runs the autotuner of the cutec runtime on a kernel pack (from `cutec pack`) against\n"
            "cuBLASLt: C[M,N] = alpha * A[M,K] * B[K,N] + beta * C[M,N], A row-major, B column-major\n"
            "(K-contiguous), C row-major, random inputs in [-1, 1], f32 accumulation; with --epilogue\n"
            "and its inputs, D = act(alpha A B + beta C + bias), against cuBLASLt's fused epilogue.\n\n"
            "'cutec-tune COMMAND --help' describes a command and its options.\n\n%s",
            exit_text);
}

static void print_command_usage(tune_cmd c, FILE *f)
{
    fprintf(f, "usage: cutec-tune %s %s\n\n%s\noptions:\n", commands[c].name, commands[c].synopsis, commands[c].about);
    for (size_t i = 0; i < NOPTIONS; i++) {
        if (!(options[i].cmds & CMD(c))) continue;
        char left[32];
        snprintf(left, sizeof left, "%s%s%s", options[i].name, options[i].value ? " " : "",
                 options[i].value ? options[i].value : "");
        fprintf(f, "  %-16s ", left);
        /* the help wrapped at 100 columns, continued under itself */
        const char *h = options[i].help;
        while (strlen(h) > 80) {
            int cut = 80;
            while (cut > 0 && h[cut] != ' ') cut--;
            fprintf(f, "%.*s\n%19s", cut, h, "");
            h += cut + 1;
        }
        fprintf(f, "%s\n", h);
    }
    fprintf(f, "\n%s", exit_text);
}

/* A usage error: the message, then where to read more; exit status 2. */
static int usage_error(tune_cmd c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cutec-tune: error: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (c < TUNE_CMD_COUNT)
        fprintf(stderr, "\nsee 'cutec-tune %s --help'\n", commands[c].name);
    else
        fprintf(stderr, "\nsee 'cutec-tune --help'\n");
    return 2;
}

/* An integer in [lo, hi], all of v (no sign-less junk, no blanks, no overflow). */
static int parse_integer(tune_cmd c, const char *opt, const char *v, long long lo, long long hi, long long *out)
{
    const char *digits = v[0] == '-' || v[0] == '+' ? v + 1 : v;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!isdigit((unsigned char)digits[0]) || *end != '\0')
        return usage_error(c, "option '%s': '%s' is not an integer", opt, v);
    if (errno == ERANGE || x < lo || x > hi)
        return usage_error(c, "option '%s': '%s' is out of range (%lld to %lld)", opt, v, lo, hi);
    *out = x;
    return 0;
}

/* A finite number that a float holds: NaN, infinities and values past
 * FLT_MAX would only surface later, as every candidate failing its check. */
static int parse_scale(tune_cmd c, const char *opt, const char *v, float *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (v[0] == '\0' || isspace((unsigned char)v[0]) || *end != '\0')
        return usage_error(c, "option '%s': '%s' is not a number", opt, v);
    if (!isfinite(x) || fabs(x) > FLT_MAX)
        return usage_error(c, "option '%s': '%s' is not a finite float (|x| <= %g)", opt, v, (double)FLT_MAX);
    *out = (float)x;
    return 0;
}

static int parse_dtype(tune_cmd c, const char *opt, const char *v, int allow_f32, cutec_dtype *t)
{
    static const struct {
        const char *name;
        cutec_dtype t;
    } types[] = {{"bf16", CUTEC_DTYPE_BF16},
                 {"f16", CUTEC_DTYPE_F16},
                 {"f32", CUTEC_DTYPE_F32},
                 {"e4m3", CUTEC_DTYPE_E4M3},
                 {"e5m2", CUTEC_DTYPE_E5M2}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(v, types[i].name) == 0 && (allow_f32 || types[i].t != CUTEC_DTYPE_F32)) {
            *t = types[i].t;
            return 0;
        }
    return usage_error(c, "option '%s': unsupported type '%s' (%s)", opt, v,
                       allow_f32 ? "bf16, f16, f32, e4m3 or e5m2" : "bf16, f16, e4m3 or e5m2");
}

static int parse_scale_mode(tune_cmd c, const char *opt, const char *v, cutec_scale_mode *m)
{
    static const char *const names[] = {"none", "tensor", "row", "block"};
    for (int i = 0; i < 4; i++)
        if (strcmp(v, names[i]) == 0) {
            *m = (cutec_scale_mode)i;
            return 0;
        }
    return usage_error(c, "option '%s': unknown scale mode '%s' (tensor, row or block)", opt, v);
}

static int parse_layouts(tune_cmd c, const char *opt, const char *v, cutec_layout l[3])
{
    if (tune_layouts_parse(v, strlen(v), l) != 0)
        return usage_error(c, "option '%s': '%s' is not three letters r or c (the layouts of A, B and C)", opt, v);
    return 0;
}

/* A finite number in [lo, hi]. */
static int parse_real(tune_cmd c, const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (v[0] == '\0' || isspace((unsigned char)v[0]) || *end != '\0')
        return usage_error(c, "option '%s': '%s' is not a number", opt, v);
    if (!(x >= lo && x <= hi)) return usage_error(c, "option '%s': '%s' is out of range (%g to %g)", opt, v, lo, hi);
    *out = x;
    return 0;
}

/* --clamp LO,HI: two numbers a float holds (an infinity leaves its side
 * open), neither NaN, LO <= HI; the runtime would refuse the rest later,
 * after the buffers are made. */
static int parse_clamp(tune_cmd c, const char *opt, const char *v, float bounds[2])
{
    const char *comma = strchr(v, ',');
    double x[2];
    for (int i = 0; i < 2; i++) {
        const char *s = i == 0 ? v : comma + 1;
        char *end;
        x[i] = comma != NULL ? strtod(s, &end) : 0;
        if (comma == NULL || end == s || isspace((unsigned char)s[0]) || end != (i == 0 ? comma : s + strlen(s)))
            return usage_error(c, "option '%s': '%s' is not two numbers LO,HI", opt, v);
        if (isnan(x[i]) || (isfinite(x[i]) && fabs(x[i]) > FLT_MAX))
            return usage_error(c, "option '%s': '%s': %s is not a float or an infinity", opt, v, i ? "HI" : "LO");
    }
    if (x[0] > x[1]) return usage_error(c, "option '%s': '%s': LO is greater than HI", opt, v);
    bounds[0] = (float)x[0], bounds[1] = (float)x[1];
    return 0;
}

/* Stores one option's value; 0, or 2 after a usage error. */
static int store_option(const struct option *opt, const char *v, tune_opts *o, int *out_set)
{
    tune_cmd c = o->cmd;
    switch (opt->id) {
    case OPT_M: return parse_integer(c, opt->name, v, 1, TUNE_DIM_MAX, &o->m);
    case OPT_N: return parse_integer(c, opt->name, v, 1, TUNE_DIM_MAX, &o->n);
    case OPT_K: return parse_integer(c, opt->name, v, 1, TUNE_DIM_MAX, &o->k);
    case OPT_SHAPES: o->shapes = v; return 0;
    case OPT_PACK:
        if (o->nmore_packs == TUNE_MORE_PACKS) return usage_error(c, "at most %d --pack options", TUNE_MORE_PACKS);
        o->more_packs[o->nmore_packs++] = v;
        return 0;
    case OPT_CALLS: return parse_integer(c, opt->name, v, 1, 1000000000, &o->calls);
    case OPT_DTYPE: return parse_dtype(c, opt->name, v, 0, &o->in);
    case OPT_OUT_DTYPE: *out_set = 1; return parse_dtype(c, opt->name, v, 1, &o->out);
    case OPT_ALPHA: return parse_scale(c, opt->name, v, &o->alpha);
    case OPT_BETA: return parse_scale(c, opt->name, v, &o->beta);
    case OPT_EPILOGUE: {
        const cutec_act_info *a = cutec_act_find(v, strlen(v));
        if (a == NULL || v[0] == '\0') {
            char names[256] = "";
            for (int i = 0, n = 0; cutec_act_at(i) != NULL && n < (int)sizeof names; i++)
                n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", i ? ", " : "", cutec_act_at(i)->name);
            return usage_error(c, "option '%s': unknown activation '%s' (%s)", opt->name, v, names);
        }
        snprintf(o->act, sizeof o->act, "%s", strcmp(a->name, "identity") == 0 ? "" : a->name);
        o->gated = a->gated;
        return 0;
    }
    case OPT_BIAS: o->bias = 1; return 0;
    case OPT_BIAS_ROW: o->bias_row = 1; return 0;
    case OPT_C_SOURCE: o->c_source = 1; return 0;
    case OPT_AUX: o->aux = 1; return 0;
    case OPT_CLAMP: o->clamp = 1; return parse_clamp(c, opt->name, v, o->clamp_bounds);
    case OPT_SCALE: return parse_scale_mode(c, opt->name, v, &o->scale_mode);
    case OPT_LAYOUT: return parse_layouts(c, opt->name, v, o->layout);
    case OPT_RUNS: return parse_integer(c, opt->name, v, 20, 10000, &o->runs);
    case OPT_DEVICE: return parse_integer(c, opt->name, v, 0, INT32_MAX, &o->device);
    case OPT_CACHE_DIR: o->cache_dir = v; return 0;
    case OPT_NO_CACHE: o->no_cache = 1; return 0;
    case OPT_NO_WARMUP: o->no_warmup = 1; return 0;
    case OPT_BATCH: return parse_integer(c, opt->name, v, 1, TUNE_DIM_MAX, &o->batch);
    case OPT_GROUPS: return parse_integer(c, opt->name, v, 1, TUNE_DIM_MAX, &o->groups);
    case OPT_SKEW: o->skew_set = 1; return parse_real(c, opt->name, v, 0, TUNE_SKEW_MAX, &o->skew);
    case OPT_SHORTLIST: o->shortlist_set = 1; return parse_integer(c, opt->name, v, 0, 10000, &o->shortlist);
    case OPT_FINALISTS: o->finalists_set = 1; return parse_integer(c, opt->name, v, 0, 10000, &o->finalists);
    case OPT_LEAD: o->lead_set = 1; return parse_integer(c, opt->name, v, 0, 1000, &o->lead);
    case OPT_HOST_BOUND: return parse_integer(c, opt->name, v, 0, 1000000, &o->host_bound_us);
    case OPT_LIST: o->list = 1; return 0;
    case OPT_LAYOUTS_H2H:
        if (v == NULL) {
            o->layouts_h2h = TUNE_H2H_ROUNDS;
            return 0;
        }
        return parse_integer(c, opt->name, v, TUNE_H2H_ROUNDS_MIN, TUNE_H2H_ROUNDS_MAX, &o->layouts_h2h);
    case OPT_COMPARE_EXHAUSTIVE: o->compare_exhaustive = 1; return 0;
    case OPT_HOST_CHECK: o->host_check = 1; return 0;
    case OPT_VERBOSE: o->verbose = 1; return 0;
    case OPT_JSON: o->json = 1; return 0;
    case OPT_SEED: {
        long long seed;
        int rc = parse_integer(c, opt->name, v, 0, INT64_MAX, &seed);
        o->seed = (unsigned long long)seed;
        return rc;
    }
    case OPT_ROWS: return parse_integer(c, opt->name, v, 1, 4096, &o->rows);
    case OPT_ONLY: o->only = v; return 0;
    case OPT_HELP: return 0; /* handled by the caller */
    }
    return 0;
}

static const struct option *find_option(const char *a)
{
    if (strcmp(a, "-h") == 0) a = "--help";
    for (size_t i = 0; i < NOPTIONS; i++)
        if (strcmp(a, options[i].name) == 0) return &options[i];
    return NULL;
}

static int is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

int tune_args_parse(int argc, char **argv, tune_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = TUNE_CMD_COUNT;
    o->in = CUTEC_DTYPE_BF16;
    o->calls = 20000;
    o->seed = 1;
    o->rows = 64;
    o->alpha = 1.0f;
    o->layout[0] = CUTEC_LAYOUT_ROW;
    o->layout[1] = CUTEC_LAYOUT_COL;
    o->layout[2] = CUTEC_LAYOUT_ROW;
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    if (is_help(argv[1])) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("cutec-tune %s\n", cutec_version_string());
        return 0;
    }
    for (int c = 0; c < TUNE_CMD_COUNT; c++)
        if (strcmp(argv[1], commands[c].name) == 0) o->cmd = (tune_cmd)c;
    if (o->cmd == TUNE_CMD_COUNT)
        return argv[1][0] == '-'
                   ? usage_error(o->cmd, "unknown option '%s'", argv[1])
                   : usage_error(o->cmd, "unknown command '%s' (list, tune, bench, overhead, error)", argv[1]);
    const char *name = commands[o->cmd].name;
    int out_set = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') {
            if (o->pack != NULL) return usage_error(o->cmd, "more than one pack ('%s' and '%s')", o->pack, a);
            o->pack = a;
            continue;
        }
        const struct option *opt = find_option(a);
        if (opt == NULL) return usage_error(o->cmd, "unknown option '%s'", a);
        if (!(opt->cmds & CMD(o->cmd))) return usage_error(o->cmd, "option '%s' does not apply to '%s'", a, name);
        if (opt->id == OPT_HELP) {
            print_command_usage(o->cmd, stdout);
            return 0;
        }
        const char *v = NULL;
        if (opt->value != NULL && opt->value[0] == '[') {
            const char *next = i + 1 < argc ? argv[i + 1] : "";
            const char *d = next[0] == '-' || next[0] == '+' ? next + 1 : next;
            if (isdigit((unsigned char)d[0])) v = argv[++i];
        } else if (opt->value != NULL) {
            if (i + 1 == argc) return usage_error(o->cmd, "option '%s' needs a value (%s)", a, opt->value);
            v = argv[++i];
        }
        if (store_option(opt, v, o, &out_set) != 0) return 2;
    }
    if (o->pack == NULL)
        return usage_error(o->cmd, "'%s' needs a pack file (cutec-tune %s %s)", name, name, commands[o->cmd].synopsis);
    if (o->cmd == TUNE_CMD_BENCH && o->shapes == NULL) return usage_error(o->cmd, "'bench' needs --shapes FILE");
    if ((CMD(o->cmd) & CMDS_ONE) && (o->m == 0 || o->n == 0 || o->k == 0))
        return usage_error(o->cmd, "'%s' needs --m, --n and --k", name);
    if (o->groups > 0 && o->batch > 0)
        return usage_error(o->cmd,
                           "options '--groups' and '--batch' exclude each other (a grouped problem is no batch)");
    /* the exhaustive tuning tunes the mixture-of-experts form, which a list pack does not serve */
    if (o->list && o->compare_exhaustive)
        return usage_error(o->cmd, "options '--list' and '--compare-exhaustive' exclude each other");
    /* a list run frees its buffers inside (tune_list_bench.h), and its
     * lines are grouped shapes, not layouts */
    if (o->list && o->layouts_h2h > 0)
        return usage_error(o->cmd, "options '--list' and '--layouts-h2h' exclude each other");
    /* bench's shapes file may have groups=G columns */
    if (o->skew_set && o->groups == 0 && o->cmd != TUNE_CMD_BENCH)
        return usage_error(o->cmd, "option '--skew' needs --groups");
    if (!out_set) o->out = cutec_ct_is_fp8((cutec_ct)o->in) ? CUTEC_DTYPE_BF16 : o->in;
    /* an fp8 D adds its own rounding (and scale_d) to what is measured */
    if (o->cmd == TUNE_CMD_ERROR && cutec_ct_is_fp8((cutec_ct)o->out))
        return usage_error(o->cmd, "'error' measures a bf16, f16 or f32 output, not %s",
                           cutec_dtype_str((cutec_ct)o->out));
    if (o->cmd == TUNE_CMD_ERROR && o->scale_mode == CUTEC_SCALE_BLOCK && !cutec_ct_is_fp8((cutec_ct)o->in))
        return usage_error(o->cmd, "option '--scale block' needs fp8 inputs (--dtype e4m3 or e5m2)");
    return -1;
}
