/*
 * gemm_candidate.h - one candidate of a problem, named as a tuning report
 * names it, resolved once and then launched any number of times without
 * waiting.  cutec_gemm_run_candidate (cutec/gemm.h) resolves the candidate
 * (pack and cuBLASLt candidates listed, cuBLASLt's heuristic asked, the
 * kernel loaded) and waits for its run on every call: fine for a study of
 * one run's result, but that host time would fall between a timing's
 * events.  `cutec-tune bench --layouts-h2h` times named candidates in
 * rounds through cutec/timing.h with these.  Not part of the public API
 * (the tool links the static library).
 */
#ifndef CUTEC_RUNTIME_GEMM_CANDIDATE_H
#define CUTEC_RUNTIME_GEMM_CANDIDATE_H

#include "cutec/gemm.h"

typedef struct cutec_gemm_candidate cutec_gemm_candidate;

/* The candidate `name` of the problem over args' pointers (which must
 * stay valid while it is open), checked and loaded as
 * cutec_gemm_run_candidate does, with its statuses; nothing is run. */
cutec_status cutec_gemm_candidate_open(cutec_gemm_handle *h, const cutec_gemm_problem *p, const cutec_gemm_args *args,
                                       const char *name, cutec_gemm_candidate **out);
/* Launches it once on stream and returns without waiting. */
cutec_status cutec_gemm_candidate_launch(cutec_gemm_candidate *c, void *stream);
/* Frees it (NULL: nothing); its launches must have finished (its plan and
 * an unfused baseline's intermediate live until then). */
void cutec_gemm_candidate_close(cutec_gemm_candidate *c);

#endif /* CUTEC_RUNTIME_GEMM_CANDIDATE_H */
