/* timing.c: the per-stage clock behind `cutec --time`. */
#include "timing.h"

#include <time.h>

double timing_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void timing_start(Timing *t)
{
    if (t) t->mark = timing_now();
}

void timing_lap(Timing *t, TimeStage stage)
{
    if (!t) return;
    double now = timing_now();
    t->t[stage] += now - t->mark;
    t->mark = now;
}

void timing_print(const Timing *t, FILE *out)
{
    static const char *const names[TIME_NSTAGES] = {
        [TIME_PARSE] = "parse (input and imports)",
        [TIME_EVAL] = "evaluation and IR construction",
        [TIME_INIT] = "target set-up",
        [TIME_VERIFY] = "IR verification",
        [TIME_PASSES] = "LLVM passes",
        [TIME_CODEGEN] = "NVPTX code generation",
        [TIME_PTXAS] = "ptxas",
    };
    double total = 0;
    for (int i = 0; i < TIME_NSTAGES; i++) total += t->t[i];
    for (int i = 0; i < TIME_NSTAGES; i++)
        if (t->t[i] > 0) fprintf(out, "cutec: time: %-32s %8.2f ms\n", names[i], t->t[i] * 1e3);
    fprintf(out, "cutec: time: %-32s %8.2f ms\n", "total (in the compiler)", total * 1e3);
}
