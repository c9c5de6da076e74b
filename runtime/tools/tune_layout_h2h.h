/*
 * tune_layout_h2h.h - `cutec-tune bench --layouts-h2h R` (issue 19): the
 * lines of a shapes file that share a name (one shape in several operand
 * layouts, tests/bench/layout_shapes.txt) compared head to head.  Each
 * line is tuned on its own, seconds apart, and on the H100 the power cap
 * moves the clocks between tunings by up to 20%: their times do not
 * compare.  Here each line's fastest pack kernel (from its tuning's
 * report) runs on that line's own problem and buffers, every line's in
 * the same R rounds (cutec/timing.h: A B C ... A B C ..., each run after
 * an L2 flush where the handle flushes), so that they see the same clocks.
 */
#ifndef CUTEC_TUNE_LAYOUT_H2H_H
#define CUTEC_TUNE_LAYOUT_H2H_H

#include <stddef.h>

#include "cutec/cutec.h"

/* --layouts-h2h's rounds: the default, and the range (fewer than 5 make no
 * median against a power cap's swings) */
#define TUNE_H2H_ROUNDS     20
#define TUNE_H2H_ROUNDS_MIN 5
#define TUNE_H2H_ROUNDS_MAX 10000
/* untimed runs of each kernel before the rounds (bench's other head to
 * head, with the plain GEMM, has as many) */
#define TUNE_H2H_WARMUP 3

/* One line of a group: what the caller gives, then what timing gave. */
typedef struct tune_h2h_line {
    cutec_gemm_problem p; /* the line's problem, over args' buffers */
    cutec_gemm_args args;
    char label[8]; /* its layouts ("rcr": A, B as K x N, C) */
    /* its tuning's fastest pack kernel; "": none */
    char kernel[CUTEC_CANDIDATE_NAME_LEN];
    int line;       /* in the shapes file */
    double flop;    /* per run */
    double ms;      /* the median of its timed runs; +inf: not timed */
    char note[160]; /* why not timed */
} tune_h2h_line;

/* The fastest pack kernel of a tuning report: its first candidate that is
 * no cuBLASLt algorithm, was checked (not only screened) and did not fail
 * (the report ranks them so, cutec/gemm.h).  1 and its name, or 0. */
int tune_h2h_best_pack(const cutec_tune_report *rep, char *name, size_t len);

/* A timing job (cutec/timing.h) that launches the named candidate `user`
 * (a cutec_gemm_candidate, gemm_candidate.h) once; `cutec-tune bench`'s
 * "same kernel" pair is timed with it too. */
cutec_status tune_h2h_launch(void *user, int run, void *stream);

/*
 * Times lines[0 .. n-1] head to head: each with a kernel is opened by
 * name, then all run in `rounds` rounds on the default stream after
 * TUNE_H2H_WARMUP warm-ups each, flushing L2 before each timed run when
 * `flush` (t must have a flush buffer).  Sets each line's ms, or its note:
 * "no pack kernel" (none named), why its kernel could not be opened or
 * its run failed (the others go on).  Returns CUTEC_OK, or what ended the
 * timing for all (a driver failure, a kernel fault: *fault the line whose
 * warm-ups faulted, else -1), the runtime's message saying more.
 */
cutec_status tune_h2h_time(cutec_gemm_handle *h, cutec_runtime *rt, cutec_timer *t, int flush, int rounds,
                           tune_h2h_line *lines, int n, int *fault);

/* Each line's ratio, the reference's median over its own (> 1: faster
 * than the reference), the reference the first line timed; 0 for a line
 * not timed (and for all without a reference).  The reference's index
 * (-1: none). */
int tune_h2h_ratios(const tune_h2h_line *lines, int n, double *ratio);

/* The groups timed so far, for the summary and the JSON output (which
 * follows the shapes' array): copies of their lines. */
typedef struct tune_h2h_log {
    tune_h2h_line *lines;
    int nlines, cap;
    struct tune_h2h_group {
        char shape[64];
        int first, n; /* lines[first .. first + n - 1] */
    } * groups;
    int ngroups, gcap;
} tune_h2h_log;

/* Adds a timed group; 0, or -1 out of host memory. */
int tune_h2h_log_add(tune_h2h_log *gl, const char *shape, const tune_h2h_line *lines, int n);
void tune_h2h_log_free(tune_h2h_log *gl);

/* Text on stdout: a group's line (indented, after its shape's lines:
 * each line's median, TFLOP/s and ratio, or why it was skipped), and the
 * summary: per layout, its ratios' geometric mean and worst (the
 * smallest) over the groups, each group's reference line left out. */
void tune_h2h_print_group(const tune_h2h_line *lines, int n, int rounds);
void tune_h2h_print_summary(const tune_h2h_log *gl);
/* JSON on stdout: the member "layouts_head_to_head" (rounds, groups,
 * summary), without a separator before it. */
void tune_h2h_json(const tune_h2h_log *gl, int rounds);

#endif /* CUTEC_TUNE_LAYOUT_H2H_H */
