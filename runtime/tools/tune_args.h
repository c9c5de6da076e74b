/*
 * tune_args.h - cutec-tune's command line: its commands, their options
 * (one table: name, value, the commands that take it, help), strict parsing
 * of every value, and each command's usage, generated from that table.
 */
#ifndef CUTEC_TUNE_ARGS_H
#define CUTEC_TUNE_ARGS_H

#include "cutec/cutec.h"

typedef enum tune_cmd {
    TUNE_CMD_LIST,     /* entries of a pack (no GPU) */
    TUNE_CMD_TUNE,     /* one problem: ranked candidates and the winner */
    TUNE_CMD_BENCH,    /* a shapes file: cuBLASLt against the best pack kernel */
    TUNE_CMD_OVERHEAD, /* host time of a cached cutec_gemm call */
    TUNE_CMD_ERROR,    /* every candidate's error against float64 (tune_error.h) */
    TUNE_CMD_COUNT
} tune_cmd;

/* The runtime's limit on M, N and K (cutec/gemm.h). */
#define TUNE_DIM_MAX 0x7fffffffLL

#define TUNE_MORE_PACKS 8

typedef struct tune_opts {
    tune_cmd cmd;
    const char *pack, *shapes, *cache_dir; /* NULL: not given */
    /* --pack FILE: more packs whose kernels are candidates too (GEMM kernels
     * with other epilogues, the elementwise kernels of the unfused baseline) */
    const char *more_packs[TUNE_MORE_PACKS];
    int nmore_packs;
    long long m, n, k; /* 1 .. 2^31-1 (tune, overhead) */
    long long batch;   /* --batch: 0 (none) or 1 .. 2^31-1 */
    long long groups;  /* --groups: 0 (not grouped) or 1 .. 2^31-1 */
    double skew;       /* --skew: 0 (balanced) .. TUNE_SKEW_MAX (tune_groups.h) */
    int skew_set;
    long long runs; /* 0: the runtime's default */
    long long device, calls;
    float alpha, beta; /* finite */
    cutec_dtype in, out;
    int json, no_cache, verbose, no_warmup;
    long long shortlist;     /* with shortlist_set: CUTEC_OPT_TUNE_SHORTLIST */
    long long finalists;     /* with finalists_set: CUTEC_OPT_TUNE_FINALISTS */
    long long lead;          /* with lead_set: CUTEC_OPT_TUNE_LEAD */
    long long host_bound_us; /* CUTEC_OPT_HOST_BOUND_US (0: not set, the default) */
    int shortlist_set, finalists_set, lead_set, compare_exhaustive, host_check;
    int list; /* bench --list: grouped shapes as lists of problems (tune_list_bench.h) */
    /* bench --layouts-h2h [R]: the rounds in which each group of lines
     * sharing a name is timed head to head (tune_layout_h2h.h); 0: off */
    long long layouts_h2h;
    /* the epilogue (cutec_gemm_problem's fields): an activation of the
     * epilogue table ("": none), and the inputs present */
    char act[32];
    int gated, bias, bias_row, c_source, aux;
    int clamp; /* --clamp LO,HI: the output clamped to clamp_bounds */
    float clamp_bounds[2];
    cutec_scale_mode scale_mode; /* --scale */
    cutec_layout layout[3];      /* --layout: A, B (K x N), C; default row, column, row */
    /* error: the inputs' seed, the rows of D compared with float64, and
     * the pack kernels measured ("NAME=VALUE ..." words; NULL: all) */
    unsigned long long seed;
    long long rows;
    const char *only;
} tune_opts;

/* Parses argv into *o.  Returns -1 when the command is to run; otherwise
 * the exit status: 0 after printing the help or version asked for, 2 after
 * a usage error (printed on stderr with a hint). */
int tune_args_parse(int argc, char **argv, tune_opts *o);

#endif /* CUTEC_TUNE_ARGS_H */
