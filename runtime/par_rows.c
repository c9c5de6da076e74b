/* par_rows.c: see par_rows.h. */
#include "par_rows.h"

#include <pthread.h>
#include <unistd.h>

int cutec_par_parts(long long rows)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long long n = cpus < 1 ? 1 : cpus > CUTEC_PAR_MAX ? CUTEC_PAR_MAX : cpus;
    if (n > rows / 16) n = rows / 16;
    return n < 1 ? 1 : (int)n;
}

typedef struct part_job {
    void (*fn)(void *ctx, int part, long long r0, long long r1);
    void *ctx;
    int part;
    long long r0, r1;
} part_job;

static void *run_part(void *arg)
{
    part_job *j = arg;
    j->fn(j->ctx, j->part, j->r0, j->r1);
    return NULL;
}

/* The parts from `first` on each on a thread; the caller runs side (if
 * any), then part 0 where first is 1, then waits. */
static void par_rows(long long rows, int parts, void (*fn)(void *ctx, int part, long long r0, long long r1), void *ctx,
                     int first, void (*side)(void *sctx), void *sctx)
{
    if (parts < 1) parts = 1;
    if (parts > CUTEC_PAR_MAX) parts = CUTEC_PAR_MAX;
    part_job job[CUTEC_PAR_MAX];
    pthread_t tid[CUTEC_PAR_MAX];
    int started[CUTEC_PAR_MAX] = {0};
    for (int p = 0; p < parts; p++)
        job[p] = (part_job){.fn = fn, .ctx = ctx, .part = p, .r0 = rows * p / parts, .r1 = rows * (p + 1) / parts};
    for (int p = first; p < parts; p++) started[p] = pthread_create(&tid[p], NULL, run_part, &job[p]) == 0;
    if (side != NULL) side(sctx);
    if (first == 1) run_part(&job[0]);
    for (int p = first; p < parts; p++) {
        if (started[p])
            pthread_join(tid[p], NULL);
        else
            run_part(&job[p]);
    }
}

void cutec_par_rows(long long rows, int parts, void (*fn)(void *ctx, int part, long long r0, long long r1), void *ctx)
{
    par_rows(rows, parts, fn, ctx, 1, NULL, NULL);
}

void cutec_par_rows_beside(long long rows, int parts, void (*fn)(void *ctx, int part, long long r0, long long r1),
                           void *ctx, void (*side)(void *sctx), void *sctx)
{
    par_rows(rows, parts, fn, ctx, 0, side, sctx);
}
