/*
 * tune_epi_device.c - an epilogue's reference made on the device: the
 * check pack's epilogue_ref kernel (stdlib/check_close.cute) applies the
 * epilogue to cuBLASLt's f32 sums where they lie and writes the reference
 * D (and aux) straight into the buffers the device check compares
 * candidates with (tune_check_epi_begin).  The host made it in float64,
 * a block of rows at a time (tune_epilogue.c): for the Llama-70B gate+up
 * with bias + GELU that was 1.1 s of a 3.6 s tuning on an H200's 16 host
 * threads (2026-11-29), the per-element work of 470 million outputs.
 *
 * The kernel's activation is std.epilogue's, the candidates' own function,
 * so a fault in it would pass them all: before the reference is trusted,
 * sampled rows of it (every column) are compared with the float64 table
 * (contract/epilogue.c) applied on the host to the same sums; a
 * disagreement leaves the host's float64 reference in charge, with a
 * warning.  The same rows give the RMS of v and of D that the device
 * check's tolerance reads.  Row-major D only (the reference's rows are
 * then whole lines of memory); an activation the pack has no kernel for
 * (a user's) is made on the host as before.
 */
#include "epilogue.h"
#include "tune_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of the reference checked against float64: evenly spaced, the
 * first and the last among them (every row of a smaller problem). */
#define VERIFY_ROWS 32

/* The kernel's input switches (its FL parameter) */
enum { FL_SCALES = 1, FL_SRC = 2, FL_BIAS = 4, FL_BIAS_ROW = 8, FL_AUX = 16, FL_CLAMP = 32 };

/* The f32 vectors the kernel reads, in one buffer: row scales (M), column
 * scales (N), the bias (N), the row bias (M). */
static cutec_status upload_vectors(harness *h, CUdeviceptr *buf, CUdeviceptr at[4])
{
    const cutec_gemm_problem *p = h->p;
    size_t m = (size_t)p->m, n = (size_t)p->n, total = 2 * (m + n);
    const double *src[4] = {p->scale_mode == CUTEC_SCALE_ROW ? h->hsa : NULL,
                            p->scale_mode == CUTEC_SCALE_ROW ? h->hsb : NULL, h->hbias, h->hbias_row};
    const size_t len[4] = {m, n, n, m};
    float *v = malloc(sizeof *v * total);
    if (v == NULL) return cutec_rt_fail(h->rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory");
    size_t off = 0;
    for (int i = 0; i < 4; i++) {
        for (size_t q = 0; q < len[i]; q++) v[off + q] = src[i] != NULL ? (float)src[i][q] : 0.0f;
        off += len[i];
    }
    cutec_status s = tune_alloc_device(h, buf, sizeof *v * total, "the epilogue's vectors");
    if (s == CUTEC_OK) s = cutec_memcpy_htod(h->rt, *buf, v, sizeof *v * total);
    free(v);
    off = 0;
    for (int i = 0; i < 4; i++) {
        at[i] = src[i] != NULL ? *buf + off * sizeof(float) : 0;
        off += len[i];
    }
    return s;
}

/* The kernel over the whole problem: 1 launched (and finished), 0 when
 * the pack has no kernel for it (why set), or -1 (*st: a failure). */
static int launch_ref(harness *h, const cutec_act_info *a, char *why, size_t len, cutec_status *st)
{
    const cutec_gemm_problem *p = h->p;
    cutec_gemm_handle *g = h->g;
    char params[96];
    snprintf(params, sizeof params, "T=%s ACT=%s GLU=%d", cutec_dtype_name(p->c_type), a->name, a->gated);
    int e = cutec_pack_find(g->check_pack, "epilogue_ref", params);
    if (e < 0) {
        snprintf(why, len, "the check pack has no epilogue_ref %s", params);
        return 0;
    }
    CUdeviceptr vec = 0, at[4];
    *st = upload_vectors(h, &vec, at);
    if (*st != CUTEC_OK) {
        if (vec != 0) (void)h->rt->drv.mem_free(vec);
        return -1;
    }
    int fl = (at[0] != 0 ? FL_SCALES : 0) | (p->c_source ? FL_SRC : 0) | (at[2] != 0 ? FL_BIAS : 0) |
             (at[3] != 0 ? FL_BIAS_ROW : 0) | (p->aux ? FL_AUX : 0) | (p->clamp ? FL_CLAMP : 0);
    /* per-tensor scales fold into alpha (rounded once to f32, far inside
     * the check's tolerance) */
    double alpha = h->alpha * (p->scale_mode == CUTEC_SCALE_TENSOR ? h->hsa[0] * h->hsb[0] : 1.0);
    int m = (int)p->m, n = (int)p->n, dn = (int)cutec_gemm_d_cols(p), lds = (int)p->ld_csrc, ldd = (int)p->ldc,
        lda = (int)p->ld_aux;
    float fa = (float)alpha, fb = (float)h->beta, lo = p->clamp ? h->io.clamp_lo : 0.0f,
          hi = p->clamp ? h->io.clamp_hi : 0.0f;
    unsigned long long acc = h->dacc, src = p->c_source ? (unsigned long long)(uintptr_t)h->io.C : 0, d = h->ref_dev,
                       aux = p->aux ? h->ref_aux_dev : 0;
    void *args[] = {&m,     &n,  &dn, &fl, &acc, &src, &lds, &at[0], &at[1], &at[2],
                    &at[3], &fa, &fb, &lo, &hi,  &d,   &ldd, &aux,   &lda};
    *st = cutec_pack_launch(g->check_pack, e, NULL, h->stream, args);
    if (*st == CUTEC_OK) *st = cutec_stream_synchronize(h->rt, h->stream);
    (void)h->rt->drv.mem_free(vec);
    return *st == CUTEC_OK ? 1 : -1;
}

/* The sampled rows' buffers */
typedef struct rows_buf {
    float *acc;
    unsigned char *c, *d, *aux;
    double *v;
} rows_buf;

/* Row r's reference (D and aux, as the device made it) against float64
 * from the same sums; 0, or -1 with why.  Adds the row's squares of v and
 * D and its largest |act(v)|. */
static int verify_row(harness *h, const rows_buf *b, long long r, char *why, size_t len, double *sv, double *sd,
                      double *amax)
{
    const cutec_gemm_problem *p = h->p;
    cutec_ct ct = (cutec_ct)p->c_type;
    size_t es = cutec_dtype_size(p->c_type);
    double eps = cutec_dtype_info_of(ct)->tol;
    long long dn = cutec_gemm_d_cols(p);
    /* the device sums v in f64 from the same f32 inputs (alpha rounded to
     * f32), applies the activation to f32(v) with the exact builtins (at
     * most 1 ulp each, and the formula's few f32 operations): 2^-18 of the
     * magnitudes involved, against a wrong function or input's whole size */
    const double unit = 0x1p-18;
    for (long long c = 0; c < p->n; c++) {
        double cv = p->c_source ? cutec_dtype_load(ct, b->c + (size_t)c * es) : 0.0;
        double v = tune_epi_v(h, r, c, b->acc[c], cv);
        b->v[c] = v;
        *sv += v * v;
        if (p->aux) {
            double got = cutec_dtype_load(ct, b->aux + (size_t)c * es);
            if (!(fabs(got - v) <= 2 * eps * fabs(v) + unit * (fabs(v) + fabs(h->alpha * b->acc[c])) + 0x1p-24)) {
                snprintf(why, len, "aux[%lld,%lld] = %.6g, float64 %.6g", r, c, got, v);
                return -1;
            }
        }
    }
    for (long long k = 0; k < dn; k++) {
        long long cg = p->act_gated ? cutec_act_gate_col(k) : k, cu = p->act_gated ? cutec_act_up_col(k) : 0;
        double vg = b->v[cg], vu = p->act_gated ? b->v[cu] : 0.0;
        double y = tune_epi_clamp(h, h->act(vg, vu));
        double got = cutec_dtype_load(ct, b->d + (size_t)k * es);
        double ag = fabs(vg) + fabs(h->alpha * b->acc[cg]) + 1, au = fabs(vu) + fabs(h->alpha * b->acc[cu]) + 1;
        double spread = p->act_gated ? 1.2 * ag * au + ag * au : 1.2 * ag;
        if (!(fabs(got - y) <= 2 * eps * fabs(y) + unit * (fabs(y) + spread) + 0x1p-24)) {
            snprintf(why, len, "D[%lld,%lld] = %.6g, float64 %.6g", r, k, got, y);
            return -1;
        }
        if (fabs(y) > *amax) *amax = fabs(y);
        *sd += y * y;
    }
    return 0;
}

/* Sampled rows of the device's reference against float64, and from them
 * the RMS of v and D: 1 agreed, 0 disagreed (why), -1 (*st: a copy
 * failed). */
static int verify(harness *h, long long *rows_checked, char *why, size_t len, cutec_status *st)
{
    const cutec_gemm_problem *p = h->p;
    cutec_runtime *rt = h->rt;
    size_t es = cutec_dtype_size(p->c_type), n = (size_t)p->n, dn = (size_t)cutec_gemm_d_cols(p);
    rows_buf b = {.acc = malloc(n * sizeof(float)),
                  .c = malloc(n * es),
                  .d = malloc(dn * es),
                  .aux = malloc(n * es),
                  .v = malloc(n * sizeof(double))};
    *st = b.acc == NULL || b.c == NULL || b.d == NULL || b.aux == NULL || b.v == NULL
              ? cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "tuning: out of host memory")
              : CUTEC_OK;
    long long nr = p->m < VERIFY_ROWS ? p->m : VERIFY_ROWS;
    double sv = 0, sd = 0, amax = 0;
    int ok = 1;
    for (long long i = 0; i < nr && *st == CUTEC_OK && ok; i++) {
        long long r = tune_spaced_row(i, nr, p->m);
        *st = cutec_memcpy_dtoh(rt, b.acc, h->dacc + (size_t)r * n * sizeof(float), n * sizeof(float));
        if (*st == CUTEC_OK && p->c_source)
            *st = cutec_memcpy_dtoh(rt, b.c, (unsigned long long)(uintptr_t)h->io.C + (size_t)(r * p->ld_csrc) * es,
                                    n * es);
        if (*st == CUTEC_OK) *st = cutec_memcpy_dtoh(rt, b.d, h->ref_dev + (size_t)(r * p->ldc) * es, dn * es);
        if (*st == CUTEC_OK && p->aux)
            *st = cutec_memcpy_dtoh(rt, b.aux, h->ref_aux_dev + (size_t)(r * p->ld_aux) * es, n * es);
        if (*st == CUTEC_OK) ok = verify_row(h, &b, r, why, len, &sv, &sd, &amax) == 0;
    }
    free(b.acc), free(b.c), free(b.d), free(b.aux), free(b.v);
    if (*st != CUTEC_OK) return -1;
    if (!ok) return 0;
    *rows_checked = nr;
    h->rms_v = sqrt(sv / ((double)nr * (double)n));
    h->rms_d = sqrt(sd / ((double)nr * (double)dn));
    h->ref_amax = amax;
    return 1;
}

int tune_epi_device_reference(harness *h, cutec_status *st)
{
    const cutec_gemm_problem *p = h->p;
    cutec_runtime *rt = h->rt;
    *st = CUTEC_OK;
    const cutec_act_info *a = cutec_act_find(p->act, strlen(p->act));
    char why[200] = "";
    /* the kernel's offsets are i32 (tune_check_epi_begin bounds D's and aux's) */
    if (a == NULL)
        snprintf(why, sizeof why, "activation '%s' is not one of std.epilogue's", p->act);
    else if (p->m > 0x7fffffffLL / p->n || (p->c_source && p->m > 0x7fffffffLL / p->ld_csrc))
        snprintf(why, sizeof why, "the kernel takes at most 2^31 elements");
    /* where the candidates go without it: fp8 inputs to the float64
     * samples (tune_epilogue.c), others to the host's reference */
    const char *instead = cutec_dtype_is_fp8(p->a_type) ? "the candidates are checked at float64 samples instead"
                                                        : "the epilogue's reference is made on the host";
    double t0 = tune_now();
    int made = why[0] == '\0' ? launch_ref(h, a, why, sizeof why, st) : 0;
    if (made < 0 && *st == CUTEC_ERR_KERNEL_FAULT) return -1;
    if (made < 0) { /* the host can still make it */
        cutec_rt_log(rt, CUTEC_LOG_WARNING, "tuning: %s: epilogue_ref: %s", instead, cutec_runtime_message(rt));
        *st = CUTEC_OK;
        return 0;
    }
    double t1 = tune_now();
    long long nr = 0;
    int agreed = made ? verify(h, &nr, why, sizeof why, st) : 0;
    if (agreed < 0) return -1;
    if (!agreed) {
        cutec_rt_log(rt, made ? CUTEC_LOG_WARNING : CUTEC_LOG_INFO, "tuning: %s: %s%s", instead,
                     made ? "the device's disagrees: " : "", why);
        return 0;
    }
    h->ref_on_device = 1;
    cutec_rt_log(rt, CUTEC_LOG_INFO,
                 "tuning: the epilogue's reference made on the device (stdlib/check_close.cute's epilogue_ref) %.3f s, "
                 "checked against float64 at %lld rows %.3f s",
                 t1 - t0, nr, tune_now() - t1);
    return 1;
}
