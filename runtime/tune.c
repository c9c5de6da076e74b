/*
 * tune.c - the GEMM autotuner, as named steps over one tuning (struct
 * tuning): candidates (pack kernels that can serve the problem, decided
 * from their contracts by gemm_bind.c, and up to N algorithms of
 * cuBLASLt's heuristic); the reference; every candidate checked (or, with
 * many, screened and the finalists checked); all checked candidates timed
 * in the same rounds; the best pack kernel and the best cuBLASLt algorithm
 * timed again head to head; the winner checked once more before it is
 * trusted; the decision and the report.  The harness (runs, checks, timed
 * rounds) is tune_harness.c.  A kernel fault cannot be survived (CUDA
 * poisons the context), so it ends tuning with CUTEC_ERR_KERNEL_FAULT; a
 * pack kernel that faulted goes into the quarantine file beside the cache,
 * which later tunings skip.
 */
#include "tune_harness.h"
#include "tune_model.h"

#include "kexpr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One tuning in progress. */
typedef struct tuning {
    cutec_runtime *rt;
    cutec_gemm_handle *g;
    const cutec_gemm_problem *p;
    const gemm_class *cls;
    const cutec_gemm_args *io;
    double t0;
    candidate *cands; /* pack kernels first (ndsl), then cuBLASLt algorithms */
    int n, ndsl, cap;
    char pruned[300]; /* why the first pack kernel was skipped, for the error */
    int lt;           /* cuBLASLt usable */
    cutec_lt_plan ref_plan;
    int have_plan, nalgo;
    cublasLtMatmulHeuristicResult_t *heur;
    char ltwhy[256];
    harness h;
    int step, total;   /* progress */
    CUdeviceptr x;     /* the unfused baseline's intermediate, shared by its candidates (0: none) */
    CUdeviceptr stage; /* staged candidates' buffer, shared by them (0: none) */
    /* fast tuning's budget: the time of one run (the reference's, then the
     * best screened one; 0: not known) and the screening's runs */
    double run_ms;
    int screen_runs;
} tuning;

/* Fast tuning spends about this much GPU time on each of its timed steps
 * (screening, the rounds, the head to head), in fewer runs for longer
 * kernels: a kernel of 11 ms (the Llama-70B gate+up projection) varies by
 * well under 1% from run to run, so 2 runs tell it from one 8% slower and
 * 10 rounds settle a ranking, where 25 runs of 30 candidates took 10 s.
 * The run counts stay between the bounds given with each budget.  (The
 * rounds' 900 ms and the head to head's 400 ms kept 3 finalists of each
 * kind and 19 head-to-head runs of such a kernel: its SwiGLU tuning took
 * 3.3 s on an H200, issue 20 asks for 3; now 2 and 11.) */
#define SCREEN_BUDGET_MS 600.0
#define RACE_BUDGET_MS   600.0
#define H2H_BUDGET_MS    250.0

/* Fast tuning's rounds go in batches of RACE_BATCH (race_rounds); a
 * candidate within RACE_TIE of the best of its kind is settled. */
#define RACE_BATCH 5
#define RACE_TIE   0.005

static int budget_runs(const tuning *t, double budget_ms, int ncand, int lo, int hi)
{
    if (t->g->shortlist <= 0 || !(t->run_ms > 0) || ncand < 1) return hi;
    double n = floor(budget_ms / (t->run_ms * (1 + t->h.lead) * ncand));
    return n < lo ? lo : n > hi ? hi : (int)n;
}

/* Warm-ups before a candidate's timed runs: one for a kernel that runs a
 * millisecond or more in fast tuning (it is the clocks' warm-up too). */
static int warmups(const tuning *t) { return t->g->shortlist > 0 && t->run_ms >= 1.0 ? 1 : t->g->warmup; }

static void progress(tuning *t, const char *name)
{
    cutec_gemm_handle *g = t->g;
    t->step++;
    if (g->progress == NULL) return;
    g->progress(g->progress_user, t->step, t->total, name);
    /* as after a log callback (errors.c): the launches that follow do not enter */
    if (g->rt->ctx_retained) (void)g->rt->drv.ctx_set_current(g->rt->ctx);
}

/* Step 1: the pack kernels that can serve the problem; the others are
 * skipped with the reason at the info level. */
static void pack_candidates(tuning *t)
{
    cutec_runtime *rt = t->rt;
    cutec_gemm_handle *g = t->g;
    char why[300];
    int quarantined = 0;
    char *quarantine = cutec_gemm_quarantine_load(g);
    /* a kernel that cannot be checked never runs */
    char noref[160] = "";
    if (cutec_gemm_act_ref(g, t->p) == NULL)
        snprintf(noref, sizeof noref,
                 "no float64 reference for activation '%s' (register one with cutec_gemm_set_activation_ref)",
                 t->p->act);
    /* operands a kernel could read only from staged copies (gemm_stage.c):
     * a kernel unfit for the problem as it is may fit the staged one */
    int stage = cutec_gemm_stage_mask(t->p, t->cls), staged = 0, nsub = 0, subs[7];
    /* the subsets of the operands that may need it, fewest bytes first: a
     * kernel may write a D whose rows are off 16 bytes (register stores)
     * but not read such an A */
    for (int m = 1; m <= 7; m++)
        if ((m & stage) == m) {
            int at = nsub++;
            size_t bytes = cutec_gemm_stage_bytes(t->p, m);
            while (at > 0 && cutec_gemm_stage_bytes(t->p, subs[at - 1]) > bytes) subs[at] = subs[at - 1], at--;
            subs[at] = m;
        }
    for (int pi = 0; pi < g->npacks; pi++)
        for (int i = 0; i < g->packs[pi]->count; i++) {
            gemm_decision *d = &t->cands[t->ndsl].d;
            const char *unfit = cutec_gemm_dsl_unfit(g, g->packs[pi], i, t->p, t->cls, d, why, sizeof why);
            char swhy[300] = "";
            int mask = 0;
            for (int q = 0; unfit != NULL && q < nsub && mask == 0 && strncmp(unfit, "not a GEMM", 10) != 0; q++) {
                cutec_gemm_problem sp;
                gemm_class scls = *t->cls;
                cutec_gemm_stage_problem(t->p, subs[q], &sp, &scls);
                char tmp[300];
                if (cutec_gemm_dsl_unfit(g, g->packs[pi], i, &sp, &scls, d, q == 0 ? swhy : tmp, sizeof tmp) == NULL)
                    mask = subs[q];
            }
            if (mask != 0) {
                /* the class is the problem's (the decision's key); the run stages */
                d->cls = *t->cls;
                d->stage_mask = mask;
                char desc[CUTEC_CANDIDATE_NAME_LEN];
                snprintf(desc, sizeof desc, "%s", d->name);
                snprintf(d->name, sizeof d->name, "staged %.300s", desc);
                unfit = NULL;
                staged++;
            }
            if (unfit == NULL && noref[0] != '\0') {
                unfit = noref;
                snprintf(t->pruned, sizeof t->pruned, "%s", noref); /* the reason to report */
            }
            if (unfit == NULL && cutec_gemm_quarantined(quarantine, &t->cands[t->ndsl].d)) {
                quarantined++; /* faulted in an earlier tuning: its slot is reused */
            } else if (unfit == NULL) {
                t->ndsl++;
            } else {
                char name[CUTEC_CANDIDATE_NAME_LEN];
                cutec_pack_entry_describe(g->packs[pi], i, name, sizeof name);
                /* staged copies' reason too, where it is another */
                int other = swhy[0] != '\0' && strcmp(swhy, unfit) != 0;
                cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: skipping %s: %s%s%s%s", name, unfit,
                             other ? " (and staged: " : "", other ? swhy : "", other ? ")" : "");
                if (t->pruned[0] == '\0' && strncmp(unfit, "not a GEMM", 10) != 0)
                    snprintf(t->pruned, sizeof t->pruned, "%s", unfit);
            }
        }
    free(quarantine);
    if (staged > 0)
        cutec_rt_log(rt, CUTEC_LOG_INFO,
                     "tuning: %d pack kernel%s fit once operands are staged (%s%s%s%scopied with 16-byte aligned "
                     "rows: at most %zu bytes)",
                     staged, staged == 1 ? "" : "s", stage & 1 ? "A " : "", stage & 2 ? "B " : "",
                     stage & 4 ? "D " : "", stage == 1 || stage == 2 || stage == 4 ? "" : "or some of them, ",
                     cutec_gemm_stage_bytes(t->p, stage));
    if (quarantined > 0)
        cutec_rt_log(
            rt, CUTEC_LOG_WARNING,
            "tuning: skipping %d pack kernel%s that faulted in an earlier tuning (listed in %s/quarantine.txt)",
            quarantined, quarantined == 1 ? "" : "s", cutec_gemm_cache_dir_of(g));
    t->n = t->ndsl;
}

/* The cost model's view of a pack candidate (tune_model.h): its tile and
 * ring from its tune parameters, its launch from the binding. */
static double model_cost(cutec_gemm_handle *g, const gemm_decision *d, const cutec_gemm_problem *p)
{
    const cutec_kdesc *kd = &d->pack->entries[d->entry].desc;
    const char *v;
    char params[CUTEC_CANDIDATE_NAME_LEN];
    cutec_kdesc_describe(kd, params, sizeof params);
    tune_point pt = {.params = params};
    pt.bm = (v = cutec_kdesc_param(kd, "BM")) != NULL ? atoll(v) : 0;
    pt.bn = (v = cutec_kdesc_param(kd, "BN")) != NULL ? atoll(v) : 0;
    pt.stages = (v = cutec_kdesc_param(kd, "STAGES")) != NULL ? atoi(v) : 0;
    pt.cm = (v = cutec_kdesc_param(kd, "CM")) != NULL ? atoi(v) : 1;
    pt.cn = (v = cutec_kdesc_param(kd, "CN")) != NULL ? atoi(v) : 1;
    pt.cluster = (int)(d->launch.cluster[0] * d->launch.cluster[1] * d->launch.cluster[2]);
    pt.threads = (int)(d->launch.block[0] * d->launch.block[1] * d->launch.block[2]);
    pt.smem = (long long)kd->smem_static + d->launch.smem;
    pt.persistent = kd->has_grid && cutec_kexpr_uses_resident(cutec_kd_s(kd, kd->grid[0]));
    tune_device dev = {.sms = g->sms, .smem_per_sm = g->smem_per_sm, .threads_per_sm = g->threads_per_sm};
    /* grouped: each group's last tile row is partial, half a tile on average;
     * a list: its problems as a batch of the upper bounds (their sizes are
     * on the device) */
    int list = d->cls.list;
    tune_gemm gm = {.m = p->m + (p->groups > 0 && !list ? p->groups * pt.bm / 2 : 0),
                    .n = p->n,
                    .k = p->k,
                    .batch = list ? p->groups : p->batch,
                    .a_once = p->batch > 1 && p->stride_a == 0,
                    .b_once = p->batch > 1 && p->stride_b == 0,
                    .ab_bytes = (int)cutec_dtype_size(p->a_type),
                    .c_bytes = (int)cutec_dtype_size(p->c_type)};
    /* staged operands: copied in (and D out) at copy bandwidth, read and written */
    double stage_us = d->stage_mask ? tune_model_copy_us(2.0 * (double)cutec_gemm_stage_bytes(p, d->stage_mask)) : 0;
    return tune_model_cost(&pt, &gm, &dev) + stage_us;
}

/* The shortlist's size: CUTEC_OPT_TUNE_SHORTLIST, grown (where
 * CUTEC_OPT_TUNE_SHORTLIST_FILL asks) to as many pack kernels as the
 * screening's budget affords, each run SCREEN_RUNS times (a warm-up and
 * at most 5 timed runs) at the model's time of the best point, beside
 * cuBLASLt's algorithms.  A short kernel's whole pack then costs less
 * screening than the shortlist of a long one: on the H100 the exhaustive
 * tuning of sq1024 took 0.17 s, and its fast tuning had missed a point
 * the model ranked 50th that won by 5% (docs/performance.md).  *best_us
 * receives that time.  (The modules' loading is bounded as they load:
 * check_all.) */
#define SCREEN_RUNS 6
static int shortlist_size(const tuning *t, const double *cost, int n, double *best_us)
{
    double best = INFINITY;
    for (int i = 0; i < n; i++)
        if (cost[i] < best) best = cost[i];
    *best_us = best;
    int keep = t->g->shortlist;
    if (!t->g->shortlist_fill || !(best > 0) || !isfinite(best)) return keep;
    double afford = floor(SCREEN_BUDGET_MS * 1e3 / (best * SCREEN_RUNS)) - (double)(t->n - t->ndsl);
    return afford >= n ? n : afford > keep ? (int)afford : keep;
}

/* Step 1b (fast tuning): the cost model ranks the pack candidates and only
 * the shortlist's are run; the others stay in the report, never run. */
static cutec_status model_shortlist(tuning *t)
{
    cutec_gemm_handle *g = t->g;
    int n = t->ndsl, keep = g->shortlist;
    if (keep <= 0 || n <= keep) return CUTEC_OK;
    double *cost = malloc(sizeof *cost * (size_t)n);
    long long *tile = malloc(sizeof *tile * (size_t)n), *family = malloc(sizeof *family * (size_t)n);
    int *order = malloc(sizeof *order * (size_t)n), *rank = malloc(sizeof *rank * (size_t)n);
    candidate *sorted = malloc(sizeof *sorted * (size_t)n);
    if (cost == NULL || tile == NULL || family == NULL || order == NULL || rank == NULL || sorted == NULL) {
        free(cost);
        free(tile);
        free(family);
        free(order);
        free(rank);
        free(sorted);
        return cutec_rt_fail(t->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    }
    for (int i = 0; i < n; i++) {
        const cutec_kdesc *kd = &t->cands[i].d.pack->entries[t->cands[i].d.entry].desc;
        const char *bm = cutec_kdesc_param(kd, "BM"), *bn = cutec_kdesc_param(kd, "BN");
        cost[i] = model_cost(g, &t->cands[i].d, t->p);
        tile[i] = (bm != NULL ? atoll(bm) : 0) << 20 | (bn != NULL ? atoll(bn) : 0);
        /* the kernel, by its entry name (FNV-1a): each one's best point is timed */
        unsigned long long h = 0xcbf29ce484222325ull;
        for (const char *c = kd->kernel; *c != '\0'; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
        family[i] = (long long)(h >> 1);
    }
    double best_us;
    keep = shortlist_size(t, cost, n, &best_us);
    if (keep > g->shortlist)
        cutec_rt_log(t->rt, CUTEC_LOG_INFO,
                     "tuning: the shortlist grows from %d to %d of %d pack kernels: what %.1f s of screening affords "
                     "at the cost model's %.3f ms a run",
                     g->shortlist, keep, n, SCREEN_BUDGET_MS * 1e-3, best_us * 1e-3);
    if (keep >= n) keep = n;
    tune_model_shortlist(cost, tile, family, n, keep, order, rank);
    for (int at = 0; at < n; at++) {
        int i = order[at];
        sorted[at] = t->cands[i];
        if (at < keep) continue;
        sorted[at].pruned = sorted[at].screened = 1;
        sorted[at].ms = INFINITY;
        snprintf(sorted[at].note, sizeof sorted[at].note, "not timed: the cost model ranks it %d of %d (shortlist %d)",
                 rank[i] + 1, n, keep);
    }
    memcpy(t->cands, sorted, sizeof *sorted * (size_t)n);
    cutec_rt_log(t->rt, CUTEC_LOG_INFO, "tuning: the cost model shortlists %d of %d pack kernels (first: %s)", keep, n,
                 t->cands[0].d.name);
    free(cost);
    free(tile);
    free(family);
    free(order);
    free(rank);
    free(sorted);
    return CUTEC_OK;
}

/* Step 2: cuBLASLt's plan for the problem and its heuristic's first
 * algorithms, each a candidate (the workspace allocated on first use). */
static cutec_status cublas_candidates(tuning *t)
{
    cutec_runtime *rt = t->rt;
    cutec_gemm_handle *g = t->g;
    if (t->p->groups > 0) { /* its grouped GEMM takes the groups' sizes on the host */
        snprintf(t->ltwhy, sizeof t->ltwhy, "cuBLASLt has no grouped GEMM with the %s in device memory",
                 t->cls->list ? "problems' sizes and matrices" : "row ends");
        return CUTEC_OK;
    }
    t->lt = cutec_gemm_lt(g);
    if (t->lt) {
        cutec_status s = cutec_gemm_workspace(g);
        if (s != CUTEC_OK) return s;
    }
    if (t->lt && cutec_lt_plan_create(&g->lt, t->p, &t->ref_plan, t->ltwhy, sizeof t->ltwhy) &&
        cutec_lt_plan_pointers(&g->lt, &t->ref_plan, t->p, t->io) != CUBLAS_STATUS_SUCCESS) {
        snprintf(t->ltwhy, sizeof t->ltwhy, "cuBLASLt refused the epilogue's pointers");
        cutec_lt_plan_destroy(&g->lt, &t->ref_plan);
    } else if (t->lt && t->ref_plan.desc != NULL) {
        t->have_plan = 1;
        int want = g->cublas_algos > 0 ? g->cublas_algos : 1;
        t->heur = calloc((size_t)want, sizeof *t->heur);
        if (t->heur != NULL)
            t->nalgo = cutec_lt_heuristics(&g->lt, &t->ref_plan, t->cls->align, g->workspace_bytes, t->heur, want,
                                           t->ltwhy, sizeof t->ltwhy);
        for (int a = 0; a < t->nalgo && a < g->cublas_algos; a++) {
            candidate *c = &t->cands[t->n++];
            c->d.kind = DECISION_CUBLAS;
            c->d.cls = *t->cls;
            c->d.algo = t->heur[a].algo;
            c->algo_rank = a;
            snprintf(c->d.name, sizeof c->d.name, "cublasLt algo #%d", a);
            char what[160];
            cutec_lt_algo_describe(&g->lt, &c->d.algo, what, sizeof what);
            cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: %s is %s (cublasLt.h's values)", c->d.name, what);
        }
    }
    if (!t->lt) snprintf(t->ltwhy, sizeof t->ltwhy, "%s", g->lt_why);
    if (t->lt && t->nalgo == 0 && t->ltwhy[0] != '\0')
        cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: no cuBLASLt candidate: %s", t->ltwhy);
    return CUTEC_OK;
}

/* The first pack kernel that can be the elementwise half of p's unfused
 * baseline (1 and *ew), else 0; with log, the others' reasons logged. */
static int find_ew(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls, gemm_decision *ew, int log)
{
    char why[300];
    for (int pi = 0; pi < g->npacks; pi++)
        for (int i = 0; i < g->packs[pi]->count; i++) {
            if (g->packs[pi]->entries[i].desc.cls != CUTEC_KD_EPILOGUE) continue;
            const char *unfit = cutec_gemm_ew_unfit(g, g->packs[pi], i, p, cls, ew, why, sizeof why);
            if (unfit == NULL) return 1;
            if (!log) continue;
            char name[CUTEC_CANDIDATE_NAME_LEN];
            cutec_pack_entry_describe(g->packs[pi], i, name, sizeof name);
            cutec_rt_log(g->rt, CUTEC_LOG_INFO, "tuning: skipping %s for the unfused baseline: %s", name, unfit);
        }
    return 0;
}

/* Step 2b: where cuBLASLt has no fused form of the problem's epilogue,
 * its baseline is unfused: its plain GEMM into an intermediate x, then an
 * elementwise epilogue kernel of a pack (class epilogue) over x; a
 * candidate per cuBLASLt algorithm, with the first elementwise kernel that
 * fits. */
static cutec_status unfused_candidates(tuning *t)
{
    cutec_runtime *rt = t->rt;
    cutec_gemm_handle *g = t->g;
    int epi;
    if (!t->lt || t->nalgo > 0 || !gemm_class_has_epilogue(t->cls) || cutec_lt_epilogue_of(t->p, &epi) == NULL ||
        g->cublas_algos == 0)
        return CUTEC_OK;
    gemm_decision ew;
    char why[300];
    if (!find_ew(g, t->p, t->cls, &ew, 1)) {
        cutec_rt_log(rt, CUTEC_LOG_INFO,
                     "tuning: no unfused cuBLASLt baseline: no elementwise epilogue kernel in the packs serves it");
        return CUTEC_OK;
    }
    cutec_gemm_problem gp, ep;
    gemm_class ec;
    cutec_gemm_ew_split(t->p, t->cls, &gp, &ep, &ec);
    cutec_lt_plan plan;
    if (!cutec_lt_plan_create(&g->lt, &gp, &plan, why, sizeof why)) return CUTEC_OK;
    int want = g->cublas_algos;
    cublasLtMatmulHeuristicResult_t *heur = calloc((size_t)want, sizeof *heur);
    const int xalign[3] = {t->cls->align[0], t->cls->align[1], 16}; /* X: from cuMemAlloc */
    int n =
        heur != NULL ? cutec_lt_heuristics(&g->lt, &plan, xalign, g->workspace_bytes, heur, want, why, sizeof why) : 0;
    cutec_lt_plan_destroy(&g->lt, &plan);
    CUresult r = n > 0 ? rt->drv.mem_alloc(&t->x, cutec_gemm_ew_x_bytes(t->p)) : CUDA_SUCCESS;
    if (r != CUDA_SUCCESS) {
        t->x = 0;
        free(heur);
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "tuning: cuMemAlloc_v2(%zu bytes of intermediate)",
                                    cutec_gemm_ew_x_bytes(t->p));
    }
    for (int a = 0; a < n && t->n < t->cap; a++) {
        candidate *c = &t->cands[t->n];
        memset(c, 0, sizeof *c);
        c->d.ew = malloc(sizeof *c->d.ew);
        if (c->d.ew == NULL) break;
        *c->d.ew = ew;
        c->d.kind = DECISION_CUBLAS;
        c->d.cls = *t->cls;
        c->d.algo = heur[a].algo;
        c->d.x = t->x;
        c->algo_rank = a;
        snprintf(c->d.name, sizeof c->d.name, "cublasLt algo #%d + %.150s", a, ew.name);
        t->n++;
    }
    cutec_rt_log(rt, CUTEC_LOG_INFO, "tuning: the unfused baseline: %d cuBLASLt algorithm%s, then %s", n,
                 n == 1 ? "" : "s", ew.name);
    free(heur);
    return CUTEC_OK;
}

/* The error when there is no candidate at all. */
static cutec_status no_candidate(tuning *t)
{
    char key[CUTEC_KEY_MAX];
    cutec_gemm_class_key(t->cls, key, sizeof key);
    /* cuBLASLt would not do either: it has no fused form of the epilogue,
     * and no elementwise kernel makes an unfused one */
    int epi;
    gemm_decision ew;
    int lt_useless = cutec_lt_epilogue_of(t->p, &epi) != NULL && !find_ew(t->g, t->p, t->cls, &ew, 0);
    /* a grouped problem never has cuBLASLt: its absence is not the reason */
    int lt_never = t->p->groups > 0;
    return cutec_rt_fail(t->rt,
                         t->lt || t->ndsl > 0 || lt_useless || lt_never ? CUTEC_ERR_UNSUPPORTED : CUTEC_ERR_NO_CUBLAS,
                         "no candidate for %s: pack kernels: %s; cuBLASLt: %s", key,
                         t->g->npacks == 0 ? "no pack in use (cutec_gemm_use_pack)"
                         : t->pruned[0]    ? t->pruned
                                           : "none is a GEMM kernel",
                         t->ltwhy[0] ? t->ltwhy : "no algorithm");
}

/* Fast tuning's first estimate of a run's time with an epilogue, whose
 * reference (tune_epi_reference) times nothing: a warm-up and one timed
 * run of the first cuBLASLt candidate (its fused epilogue, or the unfused
 * baseline).  Without it the screening ran its most runs (5) however long
 * a run: the SwiGLU tuning of the Llama-70B gate+up (a run 10.8 ms)
 * screened 24 candidates 6 times, 1.9 of its 4.4 s on an H200.  No
 * cuBLASLt candidate: no estimate (the screening's bounds as before). */
static cutec_status budget_probe(tuning *t)
{
    for (int i = 0; i < t->n; i++) {
        if (t->cands[i].pruned || t->cands[i].d.kind != DECISION_CUBLAS) continue;
        /* the candidate itself (its first run makes the plan its decision
         * keeps and frees), everything but that decision restored after */
        candidate *one = &t->cands[i], keep = *one;
        int fault = -1;
        cutec_status s = tune_time_candidates(&t->h, &one, 1, 1, 1, &fault);
        double ms = one->ms;
        gemm_decision d = one->d;
        *one = keep;
        one->d = d;
        if (s == CUTEC_OK && isfinite(ms) && ms > 0) {
            t->run_ms = ms;
            cutec_rt_log(t->rt, CUTEC_LOG_INFO, "tuning: the budget's first estimate of a run: %.3f ms (%s)", ms,
                         one->d.name);
        }
        return s;
    }
    return CUTEC_OK;
}

/* Step 3: the reference the candidates are judged against: cuBLASLt's
 * first algorithm, itself checked against the float64 samples (else the
 * samples alone). */
static cutec_status reference(tuning *t)
{
    cutec_runtime *rt = t->rt;
    harness *h = &t->h;
    cutec_status s = CUTEC_OK;
    if (h->epi) {
        s = tune_epi_reference(h);
        if (s == CUTEC_OK && t->g->shortlist > 0) s = budget_probe(t);
        return s;
    }
    if (t->nalgo > 0) {
        candidate ref = {.d = {.kind = DECISION_CUBLAS, .algo = t->heur[0].algo, .plan = t->ref_plan, .has_plan = 1}};
        snprintf(ref.d.name, sizeof ref.d.name, "cublasLt reference");
        int on_device = tune_check_prepare(h);
        /* one timed run first (before the run whose C is kept: with beta,
         * a run reads C), the budget's first estimate of a run's time */
        int fault = -1;
        candidate *one = &ref;
        if (t->g->shortlist > 0) s = tune_time_candidates(h, &one, 1, 0, 1, &fault);
        t->run_ms = s == CUTEC_OK && isfinite(ref.ms) ? ref.ms : 0;
        if (s == CUTEC_OK) s = tune_run_once(h, &ref);
        char why[160] = "";
        int ok = 0;
        if (s == CUTEC_OK && !tune_has_samples(h))
            ok = 1;
        else if (s == CUTEC_OK && on_device)
            ok = tune_compare_samples_at(h, h->cs, why, sizeof why, &s) == 0;
        else if (s == CUTEC_OK)
            ok = tune_compare_samples(h, h->host_c, why, sizeof why) == 0;
        if (s == CUTEC_OK && ok && on_device) {
            /* the reference validated: candidates are compared with it on the device */
            s = tune_check_adopt(h);
        } else if (s == CUTEC_OK && ok) {
            h->ref = h->host_c;
            h->host_c = malloc(h->c_bytes);
            h->have_ref = h->host_c != NULL;
            if (h->host_c == NULL) s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
            if (s == CUTEC_OK) tune_ref_rms(h);
        } else {
            tune_check_drop(h);
            if (s == CUTEC_OK)
                cutec_rt_log(rt, CUTEC_LOG_WARNING,
                             "tuning: cuBLASLt's result disagrees with float64 samples (%s); checking "
                             "against the samples instead",
                             why);
            else if (s != CUTEC_ERR_KERNEL_FAULT) {
                cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: the cuBLASLt reference failed: %s",
                             cutec_runtime_message(rt));
                s = CUTEC_OK;
            }
        }
    }
    if (s == CUTEC_OK && !h->have_ref && !tune_has_samples(h))
        s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY,
                          "tuning: no reference to check candidates against (cuBLASLt unavailable "
                          "and no host memory for A and B)");
    return s;
}

/* How far behind the best of its kind a screened candidate may be and
 * still be a finalist in fast tuning: the spread of 5-run medians seen on
 * the H100 is a few percent (docs/runtime.md, "Fast tuning"). */
#define SCREEN_MARGIN 0.08

/* Fast tuning's finalists: per kind, the screened candidates within
 * SCREEN_MARGIN of the best of that kind (at most `finalists` each), and
 * cuBLASLt's first algorithm (what an untuned caller gets: the report's
 * "vs #0").  The candidates come sorted by their screened time. */
static int fast_finalist(const tuning *t, const candidate *c, const double best[2], int taken[2])
{
    int kind = c->d.kind == DECISION_CUBLAS;
    if (isinf(c->ms) || c->pruned) return 0;
    /* per kind at most `finalists`, and fewer for long kernels: as many as
     * two batches of the rounds can time within their budget */
    int most = budget_runs(t, RACE_BUDGET_MS / (2 * RACE_BATCH + 1), 2, 2, t->g->finalists);
    int yes = (c->ms <= best[kind] * (1 + SCREEN_MARGIN) && taken[kind] < most) || (kind && c->algo_rank == 0);
    if (yes) taken[kind]++;
    return yes;
}

/* Step 4: every candidate loaded and checked, or (with many pack
 * candidates) the pack kernels screened with a few unchecked runs and only
 * the fastest `finalists` checked.  The check compares every element with
 * the reference (on the device where it can: tune_harness.c), which for a
 * large C on the host costs far more than the runs: checking 8 points
 * instead of 160 is most of the saving.  A point far behind in 5 runs does
 * not win in 25; one that is not checked cannot win.  Fast tuning
 * (CUTEC_OPT_TUNE_SHORTLIST) screens cuBLASLt's algorithms in the same
 * rounds and keeps only the finalists within noise of the best. */
static cutec_status check_all(tuning *t, candidate **timed)
{
    cutec_runtime *rt = t->rt;
    cutec_gemm_handle *g = t->g;
    int fast = g->shortlist > 0, nrun = 0;
    for (int i = 0; i < t->n; i++) nrun += !t->cands[i].pruned;
    int screen = g->finalists > 0 && g->runs > 5 && (fast ? nrun > g->finalists : t->ndsl > g->finalists);
    t->total = nrun + (screen ? 1 + g->finalists : 0) + 1;
    cutec_status s = CUTEC_OK;
    /* A kernel run the first time loads its module: a cubin costs little,
     * but PTX (a pack without cubins for the device) goes through the
     * driver's JIT, 100-130 ms a GEMM point where the driver has not cached
     * it, a few ms where it has, which no model can tell beforehand: an fp8
     * tuning of 4096^3 over a PTX-only pack, its shortlist grown to all 255
     * points at the model's 0.17 ms a run, took 34.7 s, nearly all of it
     * JIT (H200, 2026-11-29).  So past the shortlist's own size, the
     * pack kernels (in the model's order) load only while the loading has
     * taken less than the screening's budget; the rest are not run. */
    double load_t0 = tune_now();
    int loaded = 0, unloaded = 0;
    for (int i = 0; i < t->n && s == CUTEC_OK; i++) {
        candidate *c = &t->cands[i];
        if (c->pruned) continue;
        if (fast && c->d.kind != DECISION_CUBLAS && loaded >= g->shortlist &&
            tune_now() - load_t0 > SCREEN_BUDGET_MS * 1e-3) {
            c->pruned = c->screened = 1;
            c->ms = INFINITY;
            snprintf(c->note, sizeof c->note,
                     "not timed: its module did not load within the screening's budget (%d loaded in %.1f s)", loaded,
                     tune_now() - load_t0);
            unloaded++;
            t->total--;
            continue;
        }
        loaded += c->d.kind != DECISION_CUBLAS;
        c->screened = screen && (fast || c->d.kind != DECISION_CUBLAS);
        s = tune_fault_quarantine(g, c->screened ? tune_load_candidate(c) : tune_check_candidate(&t->h, c), c);
        if (s == CUTEC_OK && isinf(c->ms))
            cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: candidate %s scores +inf: %s", c->d.name, c->note);
        progress(t, c->d.name);
        if (s == CUTEC_OK && g->cancel != NULL && atomic_load(g->cancel))
            s = cutec_rt_fail(rt, CUTEC_ERR_NO_CANDIDATE, "tuning: cancelled");
    }
    if (unloaded > 0)
        cutec_rt_log(rt, CUTEC_LOG_INFO,
                     "tuning: %d pack kernels loaded in %.1f s, past the screening's budget: %d more of the shortlist "
                     "not run (modules the driver compiles from PTX)",
                     loaded, tune_now() - load_t0, unloaded);
    if (!screen || s != CUTEC_OK) return s;
    int nt = 0, nscreen = fast ? t->n : t->ndsl;
    for (int i = 0; i < nscreen; i++)
        if (!isinf(t->cands[i].ms) && !t->cands[i].pruned) timed[nt++] = &t->cands[i];
    t->screen_runs = budget_runs(t, SCREEN_BUDGET_MS, nt, 2, 5);
    char suffix[64];
    snprintf(suffix, sizeof suffix, " (screening: %d runs, not checked)", t->screen_runs);
    s = tune_timing_rounds(&t->h, timed, nt, 1, t->screen_runs, suffix);
    progress(t, "screening rounds");
    /* rank the screened candidates (pack kernels first in cands, or all of
     * them in fast tuning), then check the finalists, which the timed
     * rounds time in full */
    if (s == CUTEC_OK) qsort(t->cands, (size_t)nscreen, sizeof *t->cands, tune_cmp_candidate);
    double best[2] = {INFINITY, INFINITY};
    int taken[2] = {0, 0};
    for (int i = 0; i < nscreen; i++) {
        int kind = t->cands[i].d.kind == DECISION_CUBLAS;
        if (!t->cands[i].pruned && t->cands[i].ms < best[kind]) best[kind] = t->cands[i].ms;
    }
    /* the rounds' budget from here on: the time of the fastest screened run */
    double fastest = fmin(best[0], best[1]);
    if (isfinite(fastest) && fastest > 0) t->run_ms = fastest;
    for (int i = 0; i < nscreen && s == CUTEC_OK && !isinf(t->cands[i].ms); i++) {
        candidate *c = &t->cands[i];
        if (fast ? !fast_finalist(t, c, best, taken) : i >= g->finalists) continue;
        c->ms = 0;
        c->screened = 0;
        s = tune_fault_quarantine(g, tune_check_candidate(&t->h, c), c);
        if (s == CUTEC_OK && isinf(c->ms))
            cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: finalist %s scores +inf: %s", c->d.name, c->note);
        progress(t, c->d.name);
    }
    for (int i = 0; i < nscreen; i++)
        if (t->cands[i].screened && !t->cands[i].pruned && t->cands[i].note[0] == '\0')
            snprintf(t->cands[i].note, sizeof t->cands[i].note,
                     fast ? "screened (%d runs), not within %d%% of the best of its kind"
                          : "screened (%d runs), not among the %d finalists",
                     t->screen_runs, fast ? (int)(SCREEN_MARGIN * 100) : g->finalists);
    return s;
}

/* Fast tuning's timed rounds: in batches of RACE_BATCH rounds; after each
 * batch from the second on, a candidate whose every batch median is slower
 * than every batch median of the best of its kind is settled and drops out
 * (the best pack kernel and the best cuBLASLt algorithm stay for the head
 * to head, cuBLASLt's first algorithm for "vs #0"), and so does one whose
 * median of batch medians is within RACE_TIE of the best's (a tie within
 * the noise is settled too: either would do); the rounds end when
 * only those are left, or after `runs` rounds (fewer for long kernels:
 * RACE_BUDGET_MS, at least two batches).  A candidate's time is the
 * median of its batch medians. */

static double median_of(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static cutec_status race_rounds(tuning *t, candidate **timed, int nt)
{
    int batches = budget_runs(t, RACE_BUDGET_MS / RACE_BATCH, nt, 2, (t->g->runs + RACE_BATCH - 1) / RACE_BATCH);
    double *med = calloc((size_t)(nt * batches), sizeof *med);
    int *nb = calloc((size_t)nt, sizeof *nb), *alive = calloc((size_t)nt, sizeof *alive);
    candidate **run = malloc(sizeof *run * (size_t)nt);
    int *idx = malloc(sizeof *idx * (size_t)nt);
    cutec_status s = CUTEC_OK;
    if (med == NULL || nb == NULL || alive == NULL || run == NULL || idx == NULL)
        s = cutec_rt_fail(t->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    for (int j = 0; j < nt && s == CUTEC_OK; j++) alive[j] = 1;
    int b = 0;
    for (; b < batches && s == CUTEC_OK; b++) {
        int nr = 0;
        for (int j = 0; j < nt; j++)
            if (alive[j]) {
                idx[nr] = j;
                run[nr++] = timed[j];
            }
        s = tune_timing_rounds(&t->h, run, nr, b == 0 ? warmups(t) : 0, RACE_BATCH, "");
        for (int r = 0; r < nr && s == CUTEC_OK; r++) {
            int j = idx[r];
            if (isinf(timed[j]->ms)) { /* its launch failed: +inf it stays */
                alive[j] = 0;
                nb[j] = 0;
                continue;
            }
            med[j * batches + nb[j]++] = timed[j]->ms;
        }
        if (s != CUTEC_OK || b == 0) continue;
        /* the best of each kind by the median of its batches so far */
        int best[2] = {-1, -1};
        double score[2] = {INFINITY, INFINITY};
        for (int j = 0; j < nt; j++) {
            if (!alive[j]) continue;
            double tmp[64];
            int n = nb[j] < 64 ? nb[j] : 64;
            memcpy(tmp, &med[j * batches], sizeof tmp[0] * (size_t)n);
            double m = median_of(tmp, n);
            int kind = timed[j]->d.kind == DECISION_CUBLAS;
            if (m < score[kind]) score[kind] = m, best[kind] = j;
        }
        int left = 0;
        for (int j = 0; j < nt; j++) {
            if (!alive[j]) continue;
            int kind = timed[j]->d.kind == DECISION_CUBLAS, bj = best[kind];
            if (j == bj || (kind && timed[j]->algo_rank == 0)) continue; /* they stay; nothing to settle */
            double lo = INFINITY, hi = 0, tj[64], tb[64];
            for (int q = 0; q < nb[j]; q++) lo = fmin(lo, med[j * batches + q]);
            for (int q = 0; q < nb[bj]; q++) hi = fmax(hi, med[bj * batches + q]);
            int nj = nb[j] < 64 ? nb[j] : 64, nbj = nb[bj] < 64 ? nb[bj] : 64;
            memcpy(tj, &med[j * batches], sizeof tj[0] * (size_t)nj);
            memcpy(tb, &med[bj * batches], sizeof tb[0] * (size_t)nbj);
            double mj = median_of(tj, nj), mb = median_of(tb, nbj);
            /* slower in every batch, or as fast within RACE_TIE: either way
             * the choice between the two is made */
            const char *why = lo > hi                          ? "slower in every batch than the best of its kind"
                              : fabs(mj - mb) <= RACE_TIE * mb ? "within 0.5% of the best of its kind"
                                                               : NULL;
            if (why != NULL) {
                alive[j] = 0;
                timed[j]->settled = 1;
                snprintf(timed[j]->note, sizeof timed[j]->note, "settled after %d rounds: %s", (b + 1) * RACE_BATCH,
                         why);
            } else {
                left++;
            }
        }
        if (left == 0) {
            b++;
            break;
        }
    }
    for (int j = 0; j < nt && s == CUTEC_OK; j++)
        if (nb[j] > 0) timed[j]->ms = median_of(&med[j * batches], nb[j]);
    if (s == CUTEC_OK)
        cutec_rt_log(t->rt, CUTEC_LOG_INFO, "tuning: the ranking settled after %d of %d rounds", b * RACE_BATCH,
                     batches * RACE_BATCH);
    free(med);
    free(nb);
    free(alive);
    free(run);
    free(idx);
    return s;
}

/* Step 5: every checked candidate, pack kernels and cuBLASLt algorithms,
 * timed in the same rounds (in fast tuning, until the ranking settles);
 * then ranked. */
static cutec_status common_rounds(tuning *t, candidate **timed)
{
    int nt = 0;
    /* from here on (the rounds, the head to head) each timed run follows
     * CUTEC_OPT_TUNE_LEAD untimed runs of its own candidate; the budgets
     * count them */
    t->h.lead = t->g->lead;
    for (int i = 0; i < t->n; i++) t->cands[i].round_ms = INFINITY;
    for (int i = 0; i < t->n; i++)
        if (!t->cands[i].screened && !isinf(t->cands[i].ms)) timed[nt++] = &t->cands[i];
    cutec_status s = t->g->shortlist > 0 && nt > 2 ? race_rounds(t, timed, nt)
                                                   : tune_timing_rounds(&t->h, timed, nt, t->g->warmup, t->g->runs, "");
    progress(t, "timed rounds");
    for (int j = 0; j < nt; j++) timed[j]->round_ms = timed[j]->ms;
    qsort(t->cands, (size_t)t->n, sizeof *t->cands, tune_cmp_candidate);
    return s;
}

/* Step 6: the best pack kernel and the best cuBLASLt algorithm, the
 * fastest of each kind in the rounds above, timed once more, the two alone
 * in alternation: this decides between them and gives the report's two
 * times, free of the bias of picking the best of several noisy medians.
 * They go first, the faster one leading; the rest keep the order of the
 * rounds, whose times may be lower than the pair's (taken a moment
 * earlier), but never against a time of the same round. */
static cutec_status head_to_head(tuning *t)
{
    candidate *cands = t->cands;
    int n = t->n, bd = -1, bc = -1;
    for (int i = 0; i < n && !isinf(cands[i].ms); i++) {
        if (cands[i].d.kind == DECISION_CUBLAS && bc < 0)
            bc = i;
        else if (cands[i].d.kind != DECISION_CUBLAS && !cands[i].screened && bd < 0)
            bd = i;
    }
    if (bd < 0 || bc < 0) return CUTEC_OK;
    candidate *pair[2] = {&cands[bd], &cands[bc]};
    int fault = -1;
    cutec_status s =
        tune_time_candidates(&t->h, pair, 2, warmups(t), budget_runs(t, H2H_BUDGET_MS, 2, 10, t->g->runs), &fault);
    if (fault >= 0) s = tune_fault_quarantine(t->g, s, pair[fault]);
    if (s != CUTEC_OK) return s;
    cutec_rt_log(t->rt, CUTEC_LOG_INFO, "tuning: head to head, in alternation: %s %.4f ms, %s %.4f ms",
                 cands[bd].d.name, cands[bd].ms, cands[bc].d.name, cands[bc].ms);
    candidate x = cands[bd], y = cands[bc];
    /* host-bound (CUTEC_OPT_HOST_BOUND_US): calls this short back to back
     * take the longer of their device and host times; cuBLASLt's host work
     * per call measured twice a pack kernel's on the H100 at 64^3
     * (docs/performance.md, the PyTorch section) */
    double ex = x.ms, ey = y.ms, bound = (double)t->g->host_bound_us * 1e-3;
    if (bound > 0 && x.ms < bound && y.ms < bound) {
        double hx = 0, hy = 0;
        s = tune_host_ms(&t->h, &cands[bd], &hx);
        if (s == CUTEC_OK) s = tune_host_ms(&t->h, &cands[bc], &hy);
        if (s != CUTEC_OK) return s;
        ex = fmax(x.ms, hx), ey = fmax(y.ms, hy);
        cutec_rt_log(t->rt, CUTEC_LOG_INFO,
                     "tuning: host-bound (under %d us of device time): host time per call %s %.4f ms, %s %.4f ms",
                     t->g->host_bound_us, x.d.name, hx, y.d.name, hy);
    }
    int lo = bd < bc ? bd : bc, hi = bd < bc ? bc : bd;
    /* remove both (hi first), then put them in front */
    memmove(&cands[hi], &cands[hi + 1], sizeof *cands * (size_t)(n - hi - 1));
    memmove(&cands[lo], &cands[lo + 1], sizeof *cands * (size_t)(n - lo - 2));
    memmove(&cands[2], &cands[0], sizeof *cands * (size_t)(n - 2));
    int dsl_first = ex < ey; /* a tie goes to cuBLASLt, the reference */
    cands[0] = dsl_first ? x : y;
    cands[1] = dsl_first ? y : x;
    return CUTEC_OK;
}

/* Step 7: the fastest candidate that passes its check once more wins and
 * moves to the front (a screened-only candidate may have a smaller,
 * unchecked time); -1 when none passes. */
static cutec_status final_check(tuning *t, int *win)
{
    candidate *cands = t->cands;
    cutec_status s = CUTEC_OK;
    *win = -1;
    for (int i = 0; i < t->n && s == CUTEC_OK && *win < 0 && !isinf(cands[i].ms); i++) {
        if (cands[i].screened) continue;
        double ms = cands[i].ms;
        cands[i].ms = 0;
        s = tune_fault_quarantine(t->g, tune_check_candidate(&t->h, &cands[i]), &cands[i]);
        if (s == CUTEC_OK && cands[i].ms == 0) {
            cands[i].ms = ms;
            *win = i;
        } else if (s == CUTEC_OK) {
            cutec_rt_log(t->rt, CUTEC_LOG_WARNING, "tuning: %s failed its final check: %s", cands[i].d.name,
                         cands[i].note);
        }
    }
    if (s == CUTEC_OK && *win < 0)
        return cutec_rt_fail(t->rt, CUTEC_ERR_NO_CANDIDATE, "tuning: all %d candidates failed (first: %s: %s)", t->n,
                             cands[0].d.name, cands[0].note);
    if (s == CUTEC_OK && *win > 0) {
        candidate tmp = cands[*win];
        memmove(&cands[1], &cands[0], sizeof *cands * (size_t)*win);
        cands[0] = tmp;
    }
    *win = 0;
    return s;
}

/* Step 8: the winner as a decision (on disk too, with the cache on). */
static cutec_status decide(tuning *t, gemm_decision **out)
{
    gemm_decision *d = malloc(sizeof *d);
    if (d == NULL) return cutec_rt_fail(t->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    *d = t->cands[0].d;
    d->ms = t->cands[0].ms;
    t->cands[0].d.has_plan = 0; /* the plan moved to d */
    t->cands[0].d.ew = NULL;    /* and the elementwise kernel, and x */
    if (d->ew != NULL) {
        d->x_owned = 1;
        t->x = 0;
    }
    if (d->stage != 0 && d->stage == t->stage) { /* the staging buffer too */
        d->stage_owned = 1;
        t->stage = 0;
    }
    if (d->modelled)
        cutec_rt_log(t->rt, CUTEC_LOG_INFO, "tuning: modelled choice %s (nothing timed)", d->name);
    else
        cutec_rt_log(t->rt, CUTEC_LOG_INFO, "tuning: chose %s (%.4f ms)", d->name, d->ms);
    if (t->g->disk_cache) cutec_gemm_cache_store(t->g, d);
    *out = d;
    return CUTEC_OK;
}

/* Step 9: the report, every candidate in the final order. */
static void make_report(tuning *t, cutec_tune_report **report)
{
    cutec_tune_report *rep = calloc(1, sizeof *rep);
    cutec_tune_candidate *rc = rep != NULL ? calloc((size_t)t->n, sizeof *rc) : NULL;
    if (rc == NULL) {
        free(rep);
        return;
    }
    const cutec_gemm_problem *p = t->p;
    double flop = 2.0 * (double)p->batch * (double)p->m * (double)p->n * (double)p->k;
    rep->count = t->n;
    rep->candidates = rc;
    rep->winner = 0;
    rep->cublas_ms = INFINITY;
    for (int i = 0; i < t->n; i++) {
        const candidate *c = &t->cands[i];
        snprintf(rc[i].name, sizeof rc[i].name, "%s", c->d.name);
        rc[i].is_cublas = c->d.kind == DECISION_CUBLAS;
        rc[i].screened = c->screened;
        rc[i].round_ms = c->round_ms;
        rc[i].algo_rank = rc[i].is_cublas ? c->algo_rank : -1;
        rc[i].pack = -1;
        for (int j = 0; !rc[i].is_cublas && j < t->g->npacks; j++)
            if (t->g->packs[j] == c->d.pack) rc[i].pack = j;
        rc[i].ms = c->ms;
        rc[i].tflops = isinf(c->ms) ? 0 : flop / (c->ms * 1e9);
        snprintf(rc[i].note, sizeof rc[i].note, "%s", c->note);
        /* the first: where both kinds ran, timed head to head */
        if (rc[i].is_cublas && isinf(rep->cublas_ms)) rep->cublas_ms = c->ms;
    }
    rep->seconds = tune_now() - t->t0;
    *report = rep;
}

static void tuning_free(tuning *t)
{
    if (t->have_plan) cutec_lt_plan_destroy(&t->g->lt, &t->ref_plan);
    free(t->heur);
    for (int i = 0; i < t->n; i++) {
        if (t->cands[i].d.has_plan) cutec_lt_plan_destroy(&t->g->lt, &t->cands[i].d.plan);
        free(t->cands[i].d.ew);
    }
    free(t->cands);
    if (t->x != 0) (void)t->rt->drv.mem_free(t->x);
    if (t->stage != 0) (void)t->rt->drv.mem_free(t->stage);
}

/* The staged candidates' one buffer (their staging layout is the
 * problem's, whichever kernel runs); without the memory they score +inf. */
static void stage_buffer(tuning *t)
{
    int mask = 0;
    for (int i = 0; i < t->ndsl; i++)
        if (!t->cands[i].pruned) mask |= t->cands[i].d.stage_mask;
    if (mask == 0) return;
    size_t bytes = cutec_gemm_stage_bytes(t->p, mask);
    if (t->rt->drv.mem_alloc(&t->stage, bytes) != CUDA_SUCCESS) t->stage = 0;
    for (int i = 0; i < t->ndsl; i++) {
        candidate *c = &t->cands[i];
        if (c->d.stage_mask == 0 || c->pruned) continue;
        c->d.stage = t->stage;
        if (t->stage == 0) {
            c->ms = INFINITY;
            snprintf(c->note, sizeof c->note, "no device memory for %zu bytes of staged operands", bytes);
        }
    }
}

/* Steps 1 and 2: every candidate (none is an error). */
static cutec_status tuning_setup(tuning *t)
{
    cutec_gemm_handle *g = t->g;
    t->cap = 8 + g->cublas_algos + 1;
    for (int i = 0; i < g->npacks; i++) t->cap += g->packs[i]->count;
    t->cands = calloc((size_t)t->cap, sizeof *t->cands);
    if (t->cands == NULL) return cutec_rt_fail(t->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    cutec_gemm_device_facts(g);
    pack_candidates(t);
    cutec_status s = cublas_candidates(t);
    if (s == CUTEC_OK) s = unfused_candidates(t);
    if (s == CUTEC_OK && t->n == 0) s = no_candidate(t);
    return s;
}

cutec_status cutec_gemm_model_decision(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls,
                                       const cutec_gemm_args *io, gemm_decision **out)
{
    cutec_runtime *rt = g->rt;
    *out = NULL;
    tuning t = {.rt = rt, .g = g, .p = p, .cls = cls, .io = io, .t0 = tune_now()};
    cutec_status s = tuning_setup(&t);
    /* cuBLASLt's heuristic first (its first algorithm, the untuned
     * caller's choice: it comes after the pack kernels in cands), else the
     * cost model's first pack kernel */
    int pick = -1;
    if (s == CUTEC_OK && t.n > t.ndsl) pick = t.ndsl;
    double best = INFINITY;
    for (int i = 0; s == CUTEC_OK && pick < 0 && i < t.ndsl; i++) {
        double c = model_cost(g, &t.cands[i].d, p);
        if (c < best) best = c, pick = i;
    }
    if (s == CUTEC_OK && pick >= 0) {
        candidate tmp = t.cands[0];
        t.cands[0] = t.cands[pick];
        t.cands[pick] = tmp;
        s = tune_load_candidate(&t.cands[0]);
        if (s == CUTEC_OK && isinf(t.cands[0].ms))
            s = cutec_rt_fail(rt, CUTEC_ERR_NO_CANDIDATE, "tuning: the modelled choice %s: %s", t.cands[0].d.name,
                              t.cands[0].note);
        t.cands[0].ms = 0;
        t.cands[0].d.modelled = 1;
    }
    if (s == CUTEC_OK) s = decide(&t, out);
    tuning_free(&t);
    return s;
}

cutec_status cutec_gemm_named_decision(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls,
                                       const cutec_gemm_args *io, const char *name, gemm_decision **out)
{
    cutec_runtime *rt = g->rt;
    *out = NULL;
    tuning t = {.rt = rt, .g = g, .p = p, .cls = cls, .io = io, .t0 = tune_now()};
    cutec_status s = tuning_setup(&t);
    int pick = -1;
    for (int i = 0; s == CUTEC_OK && pick < 0 && i < t.n; i++)
        if (strcmp(t.cands[i].d.name, name) == 0) pick = i;
    if (s == CUTEC_OK && pick < 0)
        s = cutec_rt_fail(rt, CUTEC_ERR_KERNEL_NOT_FOUND,
                          "cutec_gemm_run_candidate: no candidate '%s' serves this problem (%d pack kernel%s and %d "
                          "cuBLASLt algorithm%s do)",
                          name, t.ndsl, t.ndsl == 1 ? "" : "s", t.n - t.ndsl, t.n - t.ndsl == 1 ? "" : "s");
    gemm_decision *d = NULL;
    if (s == CUTEC_OK && (d = malloc(sizeof *d)) == NULL)
        s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "cutec_gemm_run_candidate: out of host memory");
    candidate *c = pick >= 0 ? &t.cands[pick] : NULL;
    if (s == CUTEC_OK && c->d.kind == DECISION_DSL) s = cutec_rt_pack_kernel(c->d.pack, c->d.entry, &c->d.kernel);
    if (s == CUTEC_OK) {
        *d = c->d;
        c->d.has_plan = 0; /* the plan, the elementwise kernel and x move to d */
        c->d.ew = NULL;
        if (d->ew != NULL) {
            d->x_owned = 1;
            t.x = 0;
        }
        *out = d;
    } else {
        free(d);
    }
    tuning_free(&t);
    return s;
}

cutec_status cutec_gemm_tune_class(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls,
                                   const cutec_gemm_args *io, void *stream, cutec_tune_report **report,
                                   gemm_decision **out)
{
    cutec_runtime *rt = g->rt;
    *out = NULL;
    if (rt->drv.missing_optional != NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_NO_DRIVER, "tuning needs the driver entry point %s, which the driver lacks",
                             rt->drv.missing_optional);
    tuning t = {.rt = rt, .g = g, .p = p, .cls = cls, .io = io, .t0 = tune_now()};
    cutec_status s = tuning_setup(&t);
    if (s == CUTEC_OK) s = model_shortlist(&t);
    if (s != CUTEC_OK) {
        tuning_free(&t);
        return s;
    }
    /* each step's seconds, for the log's phase line (where tuning time goes) */
    double ph[7];
    ph[0] = tune_now();
    t.h = (harness){
        .rt = rt, .g = g, .p = p, .io = *io, .stream = stream, .ref_rms = -1, .epi = gemm_class_has_epilogue(cls)};
    s = tune_harness_init(&t.h);
    if (s == CUTEC_OK) stage_buffer(&t);
    if (s == CUTEC_OK) s = reference(&t);
    ph[1] = tune_now();
    /* the reference's plan belongs to the tuning, not to a candidate */
    if (t.have_plan) cutec_lt_plan_destroy(&g->lt, &t.ref_plan);
    t.have_plan = 0;
    candidate **timed = malloc(sizeof *timed * (size_t)(t.n > 0 ? t.n : 1));
    if (s == CUTEC_OK && timed == NULL) s = cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    if (s == CUTEC_OK) s = check_all(&t, timed);
    ph[2] = tune_now();
    if (s == CUTEC_OK)
        s = common_rounds(&t, timed);
    else
        qsort(t.cands, (size_t)t.n, sizeof *t.cands, tune_cmp_candidate);
    free(timed);
    ph[3] = tune_now();
    if (s == CUTEC_OK) s = head_to_head(&t);
    ph[4] = tune_now();
    int win = -1;
    if (s == CUTEC_OK) s = final_check(&t, &win);
    ph[5] = tune_now();
    long long launches = t.h.launches;
    tune_harness_free(&t.h);
    ph[6] = tune_now();
    if (s == CUTEC_OK)
        cutec_rt_log(rt, CUTEC_LOG_INFO,
                     "tuning: %.3f s: candidates %.3f, buffers and reference %.3f, checks and screening %.3f, rounds "
                     "%.3f, head to head %.3f, final check %.3f, freeing %.3f; %lld runs (one run %.3f ms)",
                     ph[6] - t.t0, ph[0] - t.t0, ph[1] - ph[0], ph[2] - ph[1], ph[3] - ph[2], ph[4] - ph[3],
                     ph[5] - ph[4], ph[6] - ph[5], launches, t.run_ms);
    if (s == CUTEC_OK) s = decide(&t, out);
    if (s == CUTEC_OK && report != NULL) make_report(&t, report);
    tuning_free(&t);
    return s;
}
