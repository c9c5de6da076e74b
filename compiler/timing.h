/* timing.h: per-stage wall-clock times of one compilation (`cutec --time`).
 * A fixed set of stages, so that the report reads the same for every input
 * and a stage that did not run prints nothing. */
#ifndef CUTEC_TIMING_H
#define CUTEC_TIMING_H

#include <stdio.h>

typedef enum TimeStage {
    TIME_PARSE,   /* reading, scanning and parsing the input and its imports */
    TIME_EVAL,    /* evaluation = LLVM IR construction, every kernel */
    TIME_INIT,    /* NVPTX target set-up (once per process) and the target machine */
    TIME_VERIFY,  /* the IR verifier */
    TIME_PASSES,  /* LLVMRunPasses */
    TIME_CODEGEN, /* NVPTX instruction selection, register allocation, PTX printing */
    TIME_PTXAS,   /* ptxas (--emit=cubin) */
    TIME_NSTAGES
} TimeStage;

typedef struct Timing {
    double t[TIME_NSTAGES]; /* seconds spent in each stage */
    double mark;            /* when the current stage began */
} Timing;

double timing_now(void);
/* The time since the last mark (or timing_start) goes to `stage`; t may be NULL. */
void timing_start(Timing *t);
void timing_lap(Timing *t, TimeStage stage);
void timing_print(const Timing *t, FILE *out);

#endif
