/*
 * gemm_candidate.c - a named candidate resolved once and launched many
 * times (gemm_candidate.h), and cutec_gemm_run_candidate, its one-shot
 * form: open, launch, wait, close.
 */
#include "gemm_candidate.h"
#include "gemm_internal.h"

#include <stdlib.h>

struct cutec_gemm_candidate {
    cutec_gemm_handle *g;
    /* the problem and pointers as checked (a column-major D already
     * rewritten as its transpose): what the decision is run on */
    cutec_gemm_problem p;
    cutec_gemm_args io;
    gemm_decision *d;
};

cutec_status cutec_gemm_candidate_open(cutec_gemm_handle *g, const cutec_gemm_problem *p, const cutec_gemm_args *args,
                                       const char *name, cutec_gemm_candidate **out)
{
    if (g == NULL || g->rt == NULL || out == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    /* the messages name the public entry point, the one a caller knows */
    if (args == NULL) return cutec_rt_fail(g->rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_run_candidate: args is NULL");
    if (name == NULL) return cutec_rt_fail(g->rt, CUTEC_ERR_INVALID_ARGUMENT, "cutec_gemm_run_candidate: name is NULL");
    cutec_gemm_candidate *c = calloc(1, sizeof *c);
    if (c == NULL) return cutec_rt_fail(g->rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_gemm_run_candidate: out of host memory");
    c->g = g;
    gemm_class cls;
    cutec_status s = cutec_gemm_check(g->rt, "cutec_gemm_run_candidate", p, args, &c->p, &c->io, &cls);
    if (s == CUTEC_OK) s = cutec_rt_enter(g->rt);
    if (s == CUTEC_OK) s = cutec_gemm_named_decision(g, &c->p, &cls, &c->io, name, &c->d);
    if (s != CUTEC_OK) {
        free(c);
        return s;
    }
    *out = c;
    return CUTEC_OK;
}

cutec_status cutec_gemm_candidate_launch(cutec_gemm_candidate *c, void *stream)
{
    if (c == NULL) return CUTEC_ERR_INVALID_ARGUMENT;
    /* the context follows the caller across threads, as cutec_gemm_ex's does */
    cutec_status s = cutec_rt_enter(c->g->rt);
    if (s != CUTEC_OK) return s;
    return cutec_gemm_run_decision(c->g, c->d, &c->p, &c->io, stream);
}

void cutec_gemm_candidate_close(cutec_gemm_candidate *c)
{
    if (c == NULL) return;
    cutec_gemm_decision_free(c->g, c->d);
    free(c);
}

cutec_status cutec_gemm_run_candidate(cutec_gemm_handle *g, const cutec_gemm_problem *p, const cutec_gemm_args *args,
                                      const char *name, void *stream)
{
    cutec_gemm_candidate *c = NULL;
    cutec_status s = cutec_gemm_candidate_open(g, p, args, name, &c);
    if (s == CUTEC_OK) s = cutec_gemm_candidate_launch(c, stream);
    /* the decision (its plan, an unfused baseline's intermediate) lives until the run is done */
    if (s == CUTEC_OK) s = cutec_stream_synchronize(g->rt, stream);
    cutec_gemm_candidate_close(c);
    return s;
}
