/*
 * tune_error.c - the host side of `cutec-tune error` (tune_error.h): the
 * inputs, the float64 reference of sampled rows and the error measures.
 */
#include "tune_error.h"

#include "dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *tune_err_dist_name(tune_err_dist d) { return d == TUNE_ERR_MEAN ? "mean" : "normal"; }

double tune_err_dist_mean(tune_err_dist d) { return d == TUNE_ERR_MEAN ? 1.0 : 0.0; }

double tune_err_sigma(cutec_dtype t)
{
    if (!cutec_ct_is_fp8((cutec_ct)t)) return 1.0;
    double top = 0; /* the largest finite value of the 256 */
    for (int v = 0; v < 256; v++) {
        unsigned char bits = (unsigned char)v;
        double x = cutec_dtype_load((cutec_ct)t, &bits);
        if (isfinite(x) && x > top) top = x;
    }
    return top / 8;
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

/* A uniform draw in (0, 1). */
static double uniform(uint64_t *s) { return ((double)(next(s) >> 11) + 0.5) / 9007199254740992.0; }

#define POOL 65536

int tune_err_fill(void *dst, size_t n, cutec_dtype t, tune_err_dist d, uint64_t seed)
{
    size_t es = (size_t)cutec_dtype_bytes((cutec_ct)t);
    unsigned char *pool = malloc(POOL * es);
    if (pool == NULL) return -1;
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    double sigma = tune_err_sigma(t), mean = tune_err_dist_mean(d);
    for (size_t i = 0; i < POOL; i++) {
        do { /* Box-Muller; a value that rounds to zero is drawn again */
            double g = sqrt(-2 * log(uniform(&s))) * cos(6.283185307179586 * uniform(&s));
            cutec_dtype_store((cutec_ct)t, pool + i * es, sigma * (mean + g));
        } while (cutec_dtype_load((cutec_ct)t, pool + i * es) == 0);
    }
    unsigned char *out = dst;
    for (size_t i = 0; i < n; i++) memcpy(out + i * es, pool + (next(&s) >> 48) * es, es);
    free(pool);
    return 0;
}

void tune_err_rows(long long m, int nrows, long long *rows)
{
    for (int i = 0; i < nrows; i++) rows[i] = nrows == 1 ? 0 : (long long)((double)i * (double)(m - 1) / (nrows - 1));
}

/* n elements of type t from src as floats: every value of the operand
 * types is a float, and so is the product of two (at most 2 x 11
 * significant bits), so the sums below are of exact products. */
static void decode(const unsigned char *src, cutec_dtype t, size_t n, const float *table, float *out)
{
    if (t == CUTEC_DTYPE_F32)
        memcpy(out, src, n * sizeof *out);
    else if (cutec_dtype_bytes((cutec_ct)t) == 1)
        for (size_t i = 0; i < n; i++) out[i] = table[src[i]];
    else
        for (size_t i = 0; i < n; i++) out[i] = table[src[2 * i] | src[2 * i + 1] << 8];
}

/* The product of the scales of row r, column c and 128-column block kb of K. */
static double scale_of(const tune_err_problem *p, long long r, long long c, long long kb)
{
    long long kbs = (p->k + 127) / 128;
    switch (p->mode) {
    case CUTEC_SCALE_TENSOR: return (double)p->sa[0] * p->sb[0];
    case CUTEC_SCALE_ROW: return (double)p->sa[r] * p->sb[c];
    case CUTEC_SCALE_BLOCK: return (double)p->sa[r + p->m * kb] * p->sb[c / 128 * kbs + kb];
    case CUTEC_SCALE_NONE: break;
    }
    return 1.0;
}

/* K in blocks of this many columns (a multiple of 128, the scale block):
 * the sampled rows' block of A stays in cache while every column of B
 * passes by. */
#define KBLOCK 4096

int tune_err_reference(const tune_err_problem *p, const long long *rows, int nrows, double *ref, double *mag)
{
    size_t es = (size_t)cutec_dtype_bytes((cutec_ct)p->ab), ntab = es == 1 ? 256 : es == 2 ? 65536 : 0;
    float *table = ntab ? malloc(ntab * sizeof *table) : NULL;
    float *ablk = malloc((size_t)nrows * KBLOCK * sizeof *ablk), *bblk = malloc(KBLOCK * sizeof *bblk);
    if ((ntab && table == NULL) || ablk == NULL || bblk == NULL) {
        free(table), free(ablk), free(bblk);
        return -1;
    }
    for (size_t v = 0; v < ntab; v++) {
        unsigned char bits[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
        table[v] = (float)cutec_dtype_load((cutec_ct)p->ab, bits);
    }
    const unsigned char *a = p->a, *b = p->b;
    memset(ref, 0, sizeof *ref * (size_t)nrows * (size_t)p->n);
    memset(mag, 0, sizeof *mag * (size_t)nrows * (size_t)p->n);
    for (long long k0 = 0; k0 < p->k; k0 += KBLOCK) {
        long long len = p->k - k0 < KBLOCK ? p->k - k0 : KBLOCK;
        for (int i = 0; i < nrows; i++)
            decode(a + ((size_t)rows[i] * (size_t)p->k + (size_t)k0) * es, p->ab, (size_t)len, table,
                   ablk + (size_t)i * KBLOCK);
        for (long long c = 0; c < p->n; c++) {
            decode(b + ((size_t)c * (size_t)p->k + (size_t)k0) * es, p->ab, (size_t)len, table, bblk);
            for (int i = 0; i < nrows; i++) {
                const float *x = ablk + (size_t)i * KBLOCK;
                double v = 0, g = 0;
                for (long long q0 = 0; q0 < len; q0 += 128) {
                    long long q1 = q0 + 128 < len ? q0 + 128 : len;
                    /* four sums, so that the adds overlap (float64: the order is immaterial here) */
                    double s[4] = {0, 0, 0, 0}, u[4] = {0, 0, 0, 0};
                    long long q = q0;
                    for (; q + 4 <= q1; q += 4)
                        for (int j = 0; j < 4; j++) {
                            double xy = (double)(x[q + j] * bblk[q + j]);
                            s[j] += xy;
                            u[j] += fabs(xy);
                        }
                    for (; q < q1; q++) {
                        double xy = (double)(x[q] * bblk[q]);
                        s[0] += xy;
                        u[0] += fabs(xy);
                    }
                    double f = scale_of(p, rows[i], c, (k0 + q0) / 128);
                    v += f * (s[0] + s[1] + s[2] + s[3]);
                    g += fabs(f) * (u[0] + u[1] + u[2] + u[3]);
                }
                ref[(size_t)i * (size_t)p->n + (size_t)c] += v;
                mag[(size_t)i * (size_t)p->n + (size_t)c] += g;
            }
        }
    }
    free(table), free(ablk), free(bblk);
    return 0;
}

void tune_err_measure(const void *drows, cutec_dtype t, int nrows, long long n, const double *ref, const double *mag,
                      tune_err_stats *st)
{
    memset(st, 0, sizeof *st);
    size_t es = (size_t)cutec_dtype_bytes((cutec_ct)t);
    double sum2 = 0;
    for (int i = 0; i < nrows; i++)
        for (long long c = 0; c < n; c++) {
            size_t at = (size_t)i * (size_t)n + (size_t)c;
            double d = cutec_dtype_load((cutec_ct)t, (const unsigned char *)drows + at * es);
            double e = isfinite(d) ? fabs(d - ref[at]) : INFINITY;
            double rel = mag[at] > 0 ? e / mag[at] : e > 0 ? INFINITY : 0;
            st->nonfinite += !isfinite(d);
            st->count++;
            sum2 += e * e;
            if (e > st->max_abs) st->max_abs = e;
            if (rel > st->max_rel || (st->count == 1)) {
                st->max_rel = rel;
                st->worst_row = i;
                st->worst_col = c;
            }
        }
    st->rms = st->count ? sqrt(sum2 / (double)st->count) : 0;
}
