/* gemm_epilogue.c: see gemm_epilogue.h. */
#include "gemm_epilogue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The steepest slope of every activation in the table (GELU's 1.13, SiLU's
 * 1.10, ReLU's 1): an input error d moves the output by at most LIP d. */
#define LIP 1.2
/* The kernel evaluates the activation in f32 from f32 math builtins (at
 * most 2 ulp, docs/language.md); with the cancellation in 1 + tanh(x) for
 * GELU at large negative x, a few ulp of |v| absolute. */
#define ACT_ERR 2e-6

int gemm_epi_from_point(const gemm_point *p, gemm_epi *e, char *err, size_t errlen)
{
    const cutec_kdesc *m = &p->meta;
    memset(e, 0, sizeof *e);
    e->alpha = cutec_kdesc_role_arg(m, CUTEC_ROLE_ALPHA) >= 0;
    e->src = cutec_kdesc_role_arg(m, CUTEC_ROLE_C) >= 0;
    e->bias = cutec_kdesc_role_arg(m, CUTEC_ROLE_BIAS) >= 0;
    e->bias_row = cutec_kdesc_role_arg(m, CUTEC_ROLE_BIAS_ROW) >= 0;
    e->aux = cutec_kdesc_role_arg(m, CUTEC_ROLE_AUX) >= 0;
    e->gated = m->gated;
    e->clamp = cutec_kdesc_role_arg(m, CUTEC_ROLE_CLAMP_LO) >= 0 && cutec_kdesc_role_arg(m, CUTEC_ROLE_CLAMP_HI) >= 0;
    /* inside the outputs' range at both ends for most activations (GELU's
     * and SiLU's minima are -0.17 and -0.28), so that a kernel that ignores
     * either bound fails; exact in f32 */
    e->clamp_lo_v = -0.125;
    e->clamp_hi_v = 0.25;
    int sa = cutec_kdesc_role_arg(m, CUTEC_ROLE_SCALE_A);
    if (sa >= 0) { /* (1, 1): per tensor, (m, 1): per row, (m, kb): block-wise (docs/contract.md) */
        const cutec_kd_arg *x = &m->args[sa];
        int one0 = strcmp(cutec_kd_s(m, x->shape[0]), "1") == 0;
        int one1 = x->rank < 2 || strcmp(cutec_kd_s(m, x->shape[1]), "1") == 0;
        e->scale = one0 ? 1 : one1 ? 2 : 3;
    }
    e->fp8_out = cutec_kdesc_role_arg(m, CUTEC_ROLE_AMAX) >= 0;
    e->scale_d_v = 1.0;
    e->tc = p->tc;
    /* not 1 and 0: a kernel that ignores them fails */
    e->alpha_v = e->alpha ? 0.75 : 1.0;
    e->beta_v = e->src ? -0.5 : 0.0;
    const char *name = cutec_kd_s(m, m->act);
    e->act = cutec_act_find(name, strlen(name));
    if (e->act == NULL) {
        snprintf(err, errlen, "kernel %s: epilogue function '%s' has no float64 form in contract/epilogue.c", m->kernel,
                 name);
        return -1;
    }
    return 0;
}

int gemm_epi_any(const gemm_epi *e)
{
    return e->scale || e->fp8_out || e->alpha || e->src || e->bias || e->bias_row || e->aux || e->gated || e->clamp ||
           (e->act && strcmp(e->act->name, "identity") != 0);
}

long gemm_epi_out_cols(const gemm_epi *e, long n) { return e->gated ? n / 2 : n; }

void gemm_epi_free(gemm_epi *e)
{
    free(e->s);
    free(e->b);
    free(e->br);
    free(e->sv);
    free(e->bv);
    free(e->brv);
    free(e->sa);
    free(e->sb);
    e->sa = e->sb = NULL;
    e->s = e->b = e->br = NULL;
    e->sv = e->bv = e->brv = NULL;
    e->m = e->n = 0;
}

int gemm_epi_make(gemm_epi *e, long m, long n, long k, uint64_t seed)
{
    gemm_epi_free(e);
    long kb = (k + 127) / 128, nb = (n + 127) / 128;
    size_t nsa = e->scale == 3 ? (size_t)m * (size_t)kb : (size_t)m;
    size_t nsb = e->scale == 3 ? (size_t)nb * (size_t)kb : (size_t)n;
    size_t es = gemm_type_size(e->tc), ns = e->src ? (size_t)m * (size_t)n : 1;
    e->s = malloc(ns * es);
    e->sv = malloc(ns * sizeof *e->sv);
    e->b = malloc((size_t)n * es);
    e->bv = malloc((size_t)n * sizeof *e->bv);
    e->br = malloc((size_t)m * es);
    e->brv = malloc((size_t)m * sizeof *e->brv);
    e->sa = malloc(nsa * sizeof *e->sa);
    e->sb = malloc(nsb * sizeof *e->sb);
    if (!e->s || !e->sv || !e->b || !e->bv || !e->br || !e->brv || !e->sa || !e->sb) {
        gemm_epi_free(e);
        return -1;
    }
    gemm_rng r;
    gemm_rng_seed(&r, seed ^ 0xb5ad4eceda1ce2a9ull);
    gemm_fill_random(&r, e->tc, e->s, e->sv, ns);
    gemm_fill_random(&r, e->tc, e->b, e->bv, (size_t)n);
    gemm_fill_random(&r, e->tc, e->br, e->brv, (size_t)m);
    /* scales in [0.25, 4): far from 1, so a kernel that skips them fails */
    for (size_t i = 0; i < nsa; i++)
        e->sa[i] = (float)ldexp(1.0 + 0.5 * gemm_rng_uniform(&r), (int)(gemm_rng_next(&r) % 4) - 2);
    for (size_t j = 0; j < nsb; j++)
        e->sb[j] = (float)ldexp(1.0 + 0.5 * gemm_rng_uniform(&r), (int)(gemm_rng_next(&r) % 4) - 2);
    e->m = m;
    e->n = n;
    e->k = k;
    e->kb = kb;
    e->nb = nb;
    return 0;
}

void gemm_epi_scale_inputs(const gemm_epi *e, double *av, double *bv)
{
    for (long i = 0; i < e->m; i++)
        for (long p = 0; p < e->k; p++) av[(size_t)i * (size_t)e->k + (size_t)p] *= e->sa[i + e->m * (p / 128)];
    for (long j = 0; j < e->n; j++)
        for (long p = 0; p < e->k; p++) bv[(size_t)j * (size_t)e->k + (size_t)p] *= e->sb[(j / 128) * e->kb + p / 128];
}

void gemm_epi_pre(const gemm_epi *e, long i, long j, double acc, double absacc, double gamma, double *v, double *bound)
{
    double f = e->alpha_v;
    if (e->scale == 1 || e->scale == 2)
        f *= (double)e->sa[e->scale == 2 ? i : 0] * (double)e->sb[e->scale == 2 ? j : 0];
    double x = f * acc, sz = fabs(x);
    if (e->src) {
        double t = e->beta_v * e->sv[(size_t)i * (size_t)e->n + (size_t)j];
        x += t;
        sz += fabs(t);
    }
    if (e->bias) {
        x += e->bv[j];
        sz += fabs(e->bv[j]);
    }
    if (e->bias_row) {
        x += e->brv[i];
        sz += fabs(e->brv[i]);
    }
    *v = x;
    /* the accumulation's error scaled by alpha, and the f32 rounding of the
     * few operations that add the inputs */
    *bound = fabs(f) * (1.0 + ldexp(1.0, -24)) * gamma * absacc + ldexp(1.0, -21) * sz;
}

/* The clamp (PTX max, then min): it moves no two values further apart, so
 * the activation's bound holds for the clamped value too. */
static double clamp_of(const gemm_epi *e, double x)
{
    return e->clamp ? fmin(fmax(x, e->clamp_lo_v), e->clamp_hi_v) : x;
}

void gemm_epi_out(const gemm_epi *e, double g, double bg, double u, double bu, double *out, double *bound)
{
    if (!e->gated) {
        *out = e->act->ref(g, 0);
        *bound = LIP * bg + ACT_ERR * (fabs(g) + fabs(*out));
        *out = clamp_of(e, *out);
        return;
    }
    double f = e->act->ref(g, 1.0); /* act(gate, up) = f(gate) * up */
    *out = e->act->ref(g, u);
    *bound = LIP * bg * fabs(u) + fabs(f) * bu + LIP * bg * bu + ACT_ERR * (fabs(g) + fabs(f)) * fabs(u) +
             ldexp(1.0, -23) * fabs(*out);
    *out = clamp_of(e, *out);
}
