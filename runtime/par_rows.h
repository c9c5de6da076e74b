/*
 * par_rows.h - a loop over rows split among threads, for the tuner's
 * host-side work over every element of an output (the float64 reference
 * of an epilogue: 67 million elements at 8192^3, seconds on one core).
 * Each part takes a contiguous block of rows; part 0 runs in the caller.
 * A part whose thread cannot start runs in the caller too, so the loop
 * always completes.  The parts' split depends only on rows and parts, so
 * per-part partial results combined in part order are the same on every
 * run with the same parts.
 */
#ifndef CUTEC_PAR_ROWS_H
#define CUTEC_PAR_ROWS_H

#define CUTEC_PAR_MAX 16

/* How many parts for rows rows: the online CPUs, at most CUTEC_PAR_MAX,
 * and at most one per 16 rows (at least 1). */
int cutec_par_parts(long long rows);

/* fn(ctx, part, r0, r1) for each part of [0, rows), parts of them
 * (1..CUTEC_PAR_MAX) at once; returns once all are done. */
void cutec_par_rows(long long rows, int parts, void (*fn)(void *ctx, int part, long long r0, long long r1), void *ctx);

/* The same with every part on a thread of its own while the caller runs
 * side(sctx) (the next block's copy from the device, say), then waits for
 * them; a part whose thread cannot start runs in the caller after side.
 * The parts' split is cutec_par_rows's. */
void cutec_par_rows_beside(long long rows, int parts, void (*fn)(void *ctx, int part, long long r0, long long r1),
                           void *ctx, void (*side)(void *sctx), void *sctx);

#endif
