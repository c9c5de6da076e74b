/*
 * tune_layout_h2h.c - the lines of one shape in several layouts timed head
 * to head (tune_layout_h2h.h).
 */
#include "tune_layout_h2h.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_candidate.h"
#include "tune_json.h"

int tune_h2h_best_pack(const cutec_tune_report *rep, char *name, size_t len)
{
    for (int i = 0; rep != NULL && i < rep->count; i++) {
        const cutec_tune_candidate *c = &rep->candidates[i];
        if (!c->is_cublas && !c->screened && !isinf(c->ms)) {
            snprintf(name, len, "%s", c->name);
            return 1;
        }
    }
    return 0;
}

cutec_status tune_h2h_launch(void *user, int run, void *stream)
{
    (void)run;
    return cutec_gemm_candidate_launch(user, stream);
}

cutec_status tune_h2h_time(cutec_gemm_handle *h, cutec_runtime *rt, cutec_timer *t, int flush, int rounds,
                           tune_h2h_line *lines, int n, int *fault)
{
    *fault = -1;
    cutec_gemm_candidate **cand = calloc((size_t)n + 1, sizeof *cand);
    cutec_timing_job *jobs = calloc((size_t)n + 1, sizeof *jobs);
    cutec_timing_result *res = calloc((size_t)n + 1, sizeof *res);
    int *of = calloc((size_t)n + 1, sizeof *of); /* a job's line */
    cutec_status s = cand && jobs && res && of ? CUTEC_OK : CUTEC_ERR_OUT_OF_MEMORY;
    int njobs = 0;
    for (int i = 0; i < n && s == CUTEC_OK; i++) {
        tune_h2h_line *l = &lines[i];
        l->ms = INFINITY;
        l->note[0] = '\0';
        if (l->kernel[0] == '\0') {
            snprintf(l->note, sizeof l->note, "no pack kernel");
            continue;
        }
        /* the tuning just ran this kernel on this problem: a failure here
         * is worth its note, not the other lines' timing */
        cutec_status os = cutec_gemm_candidate_open(h, &l->p, &l->args, l->kernel, &cand[i]);
        if (os != CUTEC_OK) {
            snprintf(l->note, sizeof l->note, "%s: %s", cutec_status_string(os), cutec_runtime_message(rt));
            continue;
        }
        jobs[njobs] = (cutec_timing_job){tune_h2h_launch, cand[i]};
        of[njobs++] = i;
    }
    if (s == CUTEC_OK && njobs > 0) {
        cutec_timing how;
        cutec_timing_init(&how, TUNE_H2H_WARMUP, rounds);
        how.flush_l2 = flush;
        how.sync_warmup = 1; /* a fault in the warm-ups names its line */
        int fj = -1;
        s = cutec_timer_run(t, &how, jobs, njobs, res, &fj);
        if (fj >= 0) *fault = of[fj];
        for (int j = 0; j < njobs && s == CUTEC_OK; j++) {
            tune_h2h_line *l = &lines[of[j]];
            if (!isinf(res[j].ms))
                l->ms = res[j].ms;
            else
                snprintf(l->note, sizeof l->note, "its run %d failed: %s", res[j].failed_run,
                         cutec_status_string(res[j].status));
        }
        /* a decision's plan and staging buffer outlive its runs (the
         * timing waits for them only when it succeeds) */
        if (s != CUTEC_OK) (void)cutec_synchronize(rt);
    }
    for (int i = 0; cand != NULL && i < n; i++) cutec_gemm_candidate_close(cand[i]);
    free(cand), free(jobs), free(res), free(of);
    return s;
}

int tune_h2h_ratios(const tune_h2h_line *lines, int n, double *ratio)
{
    int ref = -1;
    for (int i = 0; i < n && ref < 0; i++)
        if (!isinf(lines[i].ms) && lines[i].ms > 0) ref = i;
    for (int i = 0; i < n; i++)
        ratio[i] = ref >= 0 && !isinf(lines[i].ms) && lines[i].ms > 0 ? lines[ref].ms / lines[i].ms : 0;
    return ref;
}

int tune_h2h_log_add(tune_h2h_log *gl, const char *shape, const tune_h2h_line *lines, int n)
{
    if (gl->nlines + n > gl->cap) {
        int cap = 2 * gl->cap + n;
        tune_h2h_line *l = realloc(gl->lines, sizeof *l * (size_t)cap);
        if (l == NULL) return -1;
        gl->lines = l, gl->cap = cap;
    }
    if (gl->ngroups == gl->gcap) {
        int cap = 2 * gl->gcap + 4;
        struct tune_h2h_group *g = realloc(gl->groups, sizeof *g * (size_t)cap);
        if (g == NULL) return -1;
        gl->groups = g, gl->gcap = cap;
    }
    struct tune_h2h_group *g = &gl->groups[gl->ngroups++];
    snprintf(g->shape, sizeof g->shape, "%s", shape);
    g->first = gl->nlines;
    g->n = n;
    memcpy(gl->lines + gl->nlines, lines, sizeof *lines * (size_t)n);
    gl->nlines += n;
    return 0;
}

void tune_h2h_log_free(tune_h2h_log *gl)
{
    free(gl->lines);
    free(gl->groups);
    memset(gl, 0, sizeof *gl);
}

static double tflops(const tune_h2h_line *l) { return l->flop / (l->ms * 1e9); }

void tune_h2h_print_group(const tune_h2h_line *lines, int n, int rounds)
{
    double *ratio = malloc(sizeof *ratio * (size_t)n);
    if (ratio == NULL) return;
    int ref = tune_h2h_ratios(lines, n, ratio);
    /* under the bench's columns, as its other head to head */
    printf("%-20s layouts head to head (%d rounds):", "", rounds);
    for (int i = 0; i < n; i++) {
        const tune_h2h_line *l = &lines[i];
        printf("%s %s", i ? "," : "", l->label);
        if (isinf(l->ms))
            printf(" skipped (%s)", l->note);
        else if (i == ref)
            printf(" %.4f ms %.1f TF/s", l->ms, tflops(l));
        else
            printf(" %.4f ms %.1f TF/s (%.3f)", l->ms, tflops(l), ratio[i]);
    }
    printf("\n");
    free(ratio);
}

/* Per layout over the groups: the sum of the logs of its ratios, their
 * count, the worst; a group's reference is left out (its ratio is 1). */
typedef struct h2h_layout {
    char label[8];
    double log_sum, worst;
    int n;
} h2h_layout;

/* The layouts of the log, in their first appearance's order; their count
 * (at most 8: a letter r or c for each of 3 matrices), and the groups with
 * a reference in *groups. */
static int summarize(const tune_h2h_log *gl, h2h_layout lay[8], int *groups)
{
    int nlay = 0;
    *groups = 0;
    for (int g = 0; g < gl->ngroups; g++) {
        const tune_h2h_line *lines = gl->lines + gl->groups[g].first;
        int n = gl->groups[g].n;
        double *ratio = malloc(sizeof *ratio * (size_t)n);
        if (ratio == NULL) continue;
        int ref = tune_h2h_ratios(lines, n, ratio);
        *groups += ref >= 0;
        for (int i = 0; i < n; i++) {
            if (i == ref || ratio[i] <= 0) continue;
            int k = 0;
            while (k < nlay && strcmp(lay[k].label, lines[i].label) != 0) k++;
            if (k == nlay) {
                if (nlay == 8) continue;
                memset(&lay[nlay], 0, sizeof lay[nlay]);
                snprintf(lay[nlay].label, sizeof lay[nlay].label, "%s", lines[i].label);
                lay[nlay++].worst = INFINITY;
            }
            lay[k].log_sum += log(ratio[i]);
            lay[k].n++;
            if (ratio[i] < lay[k].worst) lay[k].worst = ratio[i];
        }
        free(ratio);
    }
    return nlay;
}

void tune_h2h_print_summary(const tune_h2h_log *gl)
{
    h2h_layout lay[8];
    int groups, nlay = summarize(gl, lay, &groups);
    if (groups == 0) return;
    printf("layouts head to head over %d groups (each line's median over its group's first timed line's, > 1 "
           "faster):",
           groups);
    for (int k = 0; k < nlay; k++)
        printf("%s %s %.3f (geometric mean), %.3f (worst) of %d", k ? ";" : "", lay[k].label,
               exp(lay[k].log_sum / lay[k].n), lay[k].worst, lay[k].n);
    printf("\n");
}

void tune_h2h_json(const tune_h2h_log *gl, int rounds)
{
    printf("\"layouts_head_to_head\": {\"rounds\": %d, \"groups\": [", rounds);
    for (int g = 0; g < gl->ngroups; g++) {
        const tune_h2h_line *lines = gl->lines + gl->groups[g].first;
        int n = gl->groups[g].n;
        double *ratio = malloc(sizeof *ratio * (size_t)n);
        int ref = ratio != NULL ? tune_h2h_ratios(lines, n, ratio) : -1;
        printf("%s\n  {\"shape\": ", g ? "," : "");
        tune_json_string(gl->groups[g].shape);
        printf(", \"reference\": ");
        if (ref >= 0)
            tune_json_string(lines[ref].label);
        else
            printf("null");
        printf(", \"lines\": [");
        for (int i = 0; i < n; i++) {
            const tune_h2h_line *l = &lines[i];
            printf("%s{\"line\": %d, \"layout\": ", i ? ", " : "", l->line);
            tune_json_string(l->label);
            printf(", \"kernel\": ");
            if (l->kernel[0] != '\0')
                tune_json_string(l->kernel);
            else
                printf("null");
            if (isinf(l->ms) || ratio == NULL) {
                printf(", \"ms\": null, \"skipped\": ");
                tune_json_string(l->note);
            } else {
                printf(", \"ms\": %.6f, \"tflops\": %.3f, \"ratio\": %.4f", l->ms, tflops(l), ratio[i]);
            }
            printf("}");
        }
        printf("]}");
        free(ratio);
    }
    h2h_layout lay[8];
    int groups, nlay = summarize(gl, lay, &groups);
    printf("\n], \"summary\": [");
    for (int k = 0; k < nlay; k++) {
        printf("%s{\"layout\": ", k ? ", " : "");
        tune_json_string(lay[k].label);
        printf(", \"groups\": %d, \"geomean_ratio\": %.4f, \"worst_ratio\": %.4f}", lay[k].n,
               exp(lay[k].log_sum / lay[k].n), lay[k].worst);
    }
    printf("], \"timed_groups\": %d}", groups);
}
