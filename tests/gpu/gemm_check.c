/*
 * gemm_check.c - GPU correctness test of the sm_80 tensor-core GEMM template
 * (stdlib/sm80/gemm.cute) compiled by cutec.
 *
 * Usage: gemm_check [--dtype T] [--seed N] [--ragged-only] [--batch L] [--groups G]
 *                   [--skinny] [--repeat] FILE.ptx...
 *        gemm_check --self-test          (CPU only: conversions, metadata
 *                                         parser, reference and checker,
 *                                         the batch layout and arguments)
 *
 * A case whose shape the point's `require` conditions refuse (read as the
 * runtime reads them) is skipped and counted.  --skinny runs the skinny
 * (GEMV) shapes instead (skinny_m x skinny_nk below) and implies --repeat:
 * each case runs twice and the two outputs must be the same bits.
 *
 * A kernel whose description has the batch role runs each shape as a
 * strided batch of 3 problems (--batch L: L), each problem with its own
 * random data and checked against its own float64 reference: A, B and D of
 * each problem packed after the previous one's (stride_a .. stride_d, in the
 * argument's type, i32 or i64; rank-3 tensor maps, the problem their third
 * dimension), D's problems 64 elements apart on the smallest ragged shape
 * with those gaps guarded like the zones around D, and one batch of one.
 *
 * Every "// cutec.kernel gemm_sm80*" block of every file is a kernel point
 * (its template parameters come from the "// cutec.param" lines).  The kernel
 * computes C[M,N] = A[M,K] * B[N,K]^T (A, B row-major, K contiguous, element
 * type T; C row-major, type TC; f32 accumulation), parameters (int M, int N,
 * int K, A, B, C), grid (ceil(N/BN), ceil(M/BM), 1), block cutec.threads,
 * dynamic shared memory cutec.smem_dynamic.  For each point and shape:
 *   - A and B are fresh random data uniform in [-1, 1] rounded to T (never 0);
 *     the data of a shape depend only on (M, N, K, T, --seed), so points of the
 *     same T and VEC share the data and the CPU reference of a shape;
 *   - each device buffer sits between two 4 KiB guard zones: NaN (0xFFFF) for
 *     A and B, so a kernel that reads past them and uses what it reads gets
 *     NaN, and 0x5A bytes for C, which must come back unchanged (writes past
 *     C); C itself is poisoned with NaN (0xFFFF / f32 NaN) before the launch;
 *   - the reference is computed in float64 over all M*N elements (no sampling;
 *     about 2e9 multiply-adds for the whole shape list, a few seconds);
 *   - element (i,j) passes when
 *       |c - ref| <= u_out*|ref| + (1 + u_out)*gamma_K*sum_k|a||b| + eta_out
 *     with u_out the unit roundoff of TC (2^-8 bf16, 2^-11 f16, 2^-24 f32),
 *     gamma_K = K*2^-23 (f32 accumulation, allowing for truncating adders) and
 *     eta_out half the smallest subnormal of TC (gradual underflow of the
 *     output); any NaN/Inf fails; and ||C - ref||_F / ||ref||_F must be below
 *     1e-2 (bf16 out), 2e-3 (f16 out), 1e-5 (f32 out).
 * One line per (point, shape): PASS/FAIL, the numbers, the point's params.
 * A kernel fault (sticky) ends that point: the runtime is destroyed and
 * created again (the driver resets the primary context) and the other points
 * go on.  Exit status: 0 all passed, 1 any failure (also: unreadable file,
 * malformed metadata, no GEMM point), 2 usage, 77 no GPU (no driver or no
 * device); metadata is checked before the GPU is touched.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cutec/gemm.h"
#include "cutec/runtime.h"
#include "gemm_common.h"
#include "gemm_epilogue.h"

#define SKIP  77
#define GUARD 4096u /* bytes before and after every device buffer */

/* ---------------------------------------------------------------- shapes */

typedef struct shape {
    long m, n, k;
} shape;

/* (M, N, K) before K is rounded up to a multiple of VEC (and N, for kernels
 * that TMA-store C, to 16-byte rows). */
static const shape fixed_shapes[] = {
    {1, 7, 8},      {7, 1, 16},      {1, 1, 8},         {64, 64, 64},       {128, 128, 32},  {100, 37, 129},
    {129, 257, 72}, {255, 383, 520}, {1000, 999, 1024}, {1024, 1024, 1024}, {333, 517, 200},
};
#define NFIXED  ((int)(sizeof fixed_shapes / sizeof fixed_shapes[0]))
#define NSHAPES (NFIXED + 2)

/* --skinny: the shapes of the skinny (GEMV) class instead, every M of
 * skinny_m with every (N, K) of skinny_nk: M of 1 to 16 (odd, one n8 tile
 * full, one and a half, two), N odd, K a multiple of 8 but not of 64 (nor
 * of 32: a partial k-step of every warp), long enough at 4104 that every
 * warp of a K split runs several loop iterations; at most 2^26
 * multiply-adds each, so that the mock driver computes them too.  Then the
 * same shapes with M and N exchanged (N of 1 to 16: the roles swapped, SW
 * = 1).  A point runs the shapes whose small side (M, or N where its SW is
 * 1) is at most its BM (its `require`); any other shape its conditions
 * refuse is a failure. */
static const long skinny_m[] = {1, 3, 8, 13, 16};
static const long skinny_nk[][2] = {{37, 72}, {1001, 520}, {2053, 1032}, {517, 4104}};
#define NSKINNY_M ((int)(sizeof skinny_m / sizeof skinny_m[0]))
#define NSKINNY1  (NSKINNY_M * (int)(sizeof skinny_nk / sizeof skinny_nk[0]))
#define NSKINNY   (2 * NSKINNY1)

static shape skinny_shape(int s)
{
    int t = s % NSKINNY1;
    shape r = {skinny_m[t % NSKINNY_M], skinny_nk[t / NSKINNY_M][0], skinny_nk[t / NSKINNY_M][1]};
    if (s >= NSKINNY1) { /* N small */
        long m = r.m;
        r.m = r.n;
        r.n = m;
    }
    return r;
}

/* The small side of skinny shape sh for point p: M, or N where the
 * point's roles are swapped (SW = 1) */
static long skinny_side(const gemm_point *p, shape sh)
{
    long sw = 0;
    return gemm_meta_int(&p->meta, "SW", &sw) == 0 && sw == 1 ? sh.n : sh.m;
}

/* --repeat (and --skinny): each case runs a second time on C poisoned
 * again, and the two outputs, guards included, must be the same bits (a
 * deterministic kernel: no atomics, no reduction order that depends on
 * timing) */
static int repeat_check;

/* The multiple a point's N is rounded up to: a TMA-stored C needs 16-byte
 * rows (N stays ragged against BN); a gated epilogue whole 8-column gate/up
 * blocks with D's rows in 16 bytes. */
static long point_n_multiple(const gemm_point *p)
{
    long nm = gemm_point_n_multiple(p);
    if (p->meta.gated) nm = 2 * nm > 16 ? 2 * nm : 16;
    return nm;
}

/* 1 for a stream-K point (the flags role): its first derived shape differs. */
static int point_stream_k(const gemm_point *p) { return cutec_kdesc_role_arg(&p->meta, CUTEC_ROLE_FLAGS) >= 0; }

/* Shape s of point p (s < NSHAPES): the fixed list with K rounded up to a
 * multiple of VEC, then two shapes derived from the tile sizes where neither M
 * nor N is a multiple of its tile and K is no multiple of BK (when VEC < BK):
 * (2.5 BM + 3, 3.25 BN + 5, 3.5 BK + VEC), for a stream-K point (role flags)
 * (17 BM + 5, 16 BN - 3, 2 BK + VEC) instead, and (BM + 1, 2 BN - 1, BK + VEC). */
static shape point_shape(const gemm_point *p, int s)
{
    shape r;
    long bk = p->bk > 0 ? p->bk : 32;
    if (s < NFIXED) {
        r = fixed_shapes[s];
    } else if (s == NFIXED && point_stream_k(p)) {
        /* stream-K: more than two rounds of 132 tiles (or of 66 clusters),
         * so that data-parallel tiles come before the split ones, and a
         * range of k-tiles that ends inside a tile */
        r.m = 17 * p->bm + 5;
        r.n = 16 * p->bn - 3;
        r.k = 2 * bk + p->vec;
    } else if (s == NFIXED) {
        r.m = 2 * p->bm + p->bm / 2 + 3;
        r.n = 3 * p->bn + p->bn / 4 + 5;
        r.k = 3 * bk + bk / 2 + p->vec;
    } else {
        r.m = p->bm + 1;
        r.n = 2 * p->bn - 1;
        r.k = bk + p->vec;
    }
    r.k = gemm_ceil_div(r.k, p->vec) * p->vec;
    long nm = point_n_multiple(p);
    r.n = gemm_ceil_div(r.n, nm) * nm;
    return r;
}

/* ------------------------------------------------------ reference + check */

/* Host data of one shape (one problem of a batch): inputs (their
 * encodings, A of type t and B of type tb) and the float64 reference
 * C = A B^T with sum_k |a||b| for the error bound. */
typedef struct shape_data {
    long m, n, k;
    gemm_type t, tb;
    int prob;  /* the problem of a batch it is (its own data; 0: the unbatched case's) */
    long row0; /* a group of a grouped case: its first row in the one A and D */
    int valid;
    unsigned char *a, *b;
    double *ref, *absref;
} shape_data;

static void shape_data_free(shape_data *d)
{
    free(d->a);
    free(d->b);
    free(d->ref);
    free(d->absref);
    memset(d, 0, sizeof *d);
}

/* Wall-clock seconds (a monotonic clock), and those spent making float64
 * references: the summary line splits a run's time so that a slow run
 * says where it went (module loading, references, the rest). */
static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double ref_wall;

/* ref[i*n+j] = sum_p a[i*k+p] * b[j*k+p], absref the same with |.|. */
/* kept out of interprocedural optimisation: specialised for the
 * self-test's constant k, GCC 12 warns of an impossible trip count in the
 * tail loop (-Waggressive-loop-optimizations) */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noipa))
#endif
static void
reference_gemm(long m, long n, long k, const double *a, const double *b, double *ref, double *absref)
{
    double w0 = wall_s();
    for (long i = 0; i < m; i++) {
        const double *ai = a + (size_t)i * (size_t)k;
        for (long j = 0; j < n; j++) {
            const double *bj = b + (size_t)j * (size_t)k;
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = 0, t1 = 0, t2 = 0, t3 = 0;
            long p = 0;
            for (; p + 4 <= k; p += 4) {
                double x0 = ai[p] * bj[p], x1 = ai[p + 1] * bj[p + 1];
                double x2 = ai[p + 2] * bj[p + 2], x3 = ai[p + 3] * bj[p + 3];
                s0 += x0;
                s1 += x1;
                s2 += x2;
                s3 += x3;
                t0 += fabs(x0);
                t1 += fabs(x1);
                t2 += fabs(x2);
                t3 += fabs(x3);
            }
            for (; p < k; p++) {
                double x = ai[p] * bj[p];
                s0 += x;
                t0 += fabs(x);
            }
            ref[(size_t)i * (size_t)n + (size_t)j] = (s0 + s1) + (s2 + s3);
            absref[(size_t)i * (size_t)n + (size_t)j] = (t0 + t1) + (t2 + t3);
        }
    }
    ref_wall += wall_s() - w0;
}

static uint64_t shape_seed(uint64_t base, long m, long n, long k, gemm_type t, gemm_type tb)
{
    uint64_t h = base ^ 0x6a09e667f3bcc908ull;
    /* tb joins only where it differs from t: the same data as before for
   * the 16-bit types */
    const uint64_t parts[5] = {(uint64_t)m, (uint64_t)n, (uint64_t)k, (uint64_t)t, (uint64_t)tb};
    for (int i = 0; i < (tb == t ? 4 : 5); i++) h = (h ^ parts[i]) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    return h;
}

/* Generates the data and reference of (m, n, k, t, tb), problem prob of a
 * batch (each problem its own data; problem 0 that of the shape alone);
 * 0 on success. */
static int shape_data_make(shape_data *d, long m, long n, long k, gemm_type t, gemm_type tb, uint64_t seed, int prob)
{
    memset(d, 0, sizeof *d);
    size_t na = (size_t)m * (size_t)k, nb = (size_t)n * (size_t)k, nc = (size_t)m * (size_t)n;
    /* an empty group of a grouped case has m = 0: one element at least,
     * so that malloc's answer means what it says */
    size_t ma = na ? na : 1, mc = nc ? nc : 1;
    double *av = malloc(ma * sizeof *av), *bv = malloc(nb * sizeof *bv);
    d->a = malloc(ma * gemm_type_size(t));
    d->b = malloc(nb * gemm_type_size(tb));
    d->ref = malloc(mc * sizeof *d->ref);
    d->absref = malloc(mc * sizeof *d->absref);
    if (av == NULL || bv == NULL || d->a == NULL || d->b == NULL || d->ref == NULL || d->absref == NULL) {
        free(av);
        free(bv);
        shape_data_free(d);
        return -1;
    }
    gemm_rng r;
    uint64_t h = shape_seed(seed, m, n, k, t, tb);
    if (prob > 0) h = (h ^ (uint64_t)prob) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    gemm_rng_seed(&r, h);
    gemm_fill_random(&r, t, d->a, av, na);
    gemm_fill_random(&r, tb, d->b, bv, nb);
    reference_gemm(m, n, k, av, bv, d->ref, d->absref);
    free(av);
    free(bv);
    d->m = m;
    d->n = n;
    d->k = k;
    d->t = t;
    d->tb = tb;
    d->prob = prob;
    d->valid = 1;
    return 0;
}

/* The reference of block-wise scaled inputs (gemm_epilogue.h): A's and
 * B's values times their blocks' scales, multiplied in float64. */
static int block_reference(const shape_data *d, const gemm_epi *e, shape_data *out)
{
    memset(out, 0, sizeof *out);
    size_t na = (size_t)d->m * (size_t)d->k, nb = (size_t)d->n * (size_t)d->k, nc = (size_t)d->m * (size_t)d->n;
    double *av = malloc(na * sizeof *av), *bv = malloc(nb * sizeof *bv);
    out->ref = malloc(nc * sizeof *out->ref);
    out->absref = malloc(nc * sizeof *out->absref);
    if (av == NULL || bv == NULL || out->ref == NULL || out->absref == NULL) {
        free(av);
        free(bv);
        shape_data_free(out);
        return -1;
    }
    for (size_t i = 0; i < na; i++) av[i] = gemm_load(d->a, d->t, i);
    for (size_t i = 0; i < nb; i++) bv[i] = gemm_load(d->b, d->tb, i);
    gemm_epi_scale_inputs(e, av, bv);
    reference_gemm(d->m, d->n, d->k, av, bv, out->ref, out->absref);
    free(av);
    free(bv);
    out->m = d->m;
    out->n = d->n;
    out->k = d->k;
    out->t = d->t;
    out->tb = d->tb;
    out->valid = 1;
    return 0;
}

typedef struct check_result {
    int pass;
    size_t nbad, nnan;
    double max_ratio;   /* max over elements of |c - ref| / bound */
    double max_abs_err; /* max |c - ref| */
    double rel_fro;     /* ||C - ref||_F / ||ref||_F */
    double num, den;    /* ||C - ref||_F^2 and ||ref||_F^2 (finite elements) */
    double fro_limit;
    long bad_i, bad_j; /* first failing element (-1 if none) */
    double bad_c, bad_ref, bad_bound;
} check_result;

/* Half an ulp at 1.0 of the output type (the contract's dtype table). */
static double unit_roundoff(gemm_type tc) { return cutec_dtype_info_of(tc)->eps / 2; }

/* Half the smallest positive subnormal of the output type. */
static double underflow_eta(gemm_type tc)
{
    return tc == GT_BF16   ? ldexp(1.0, -134)
           : tc == GT_F16  ? ldexp(1.0, -25)
           : tc == GT_E4M3 ? ldexp(1.0, -10)
           : tc == GT_E5M2 ? ldexp(1.0, -17)
                           : ldexp(1.0, -150);
}

/* The unit of the accumulation error per addition.  f32 for the 16-bit
 * inputs.  With fp8 inputs Hopper's tensor cores add the products in a
 * narrower accumulator (about 14 bits of mantissa, DeepGEMM's and others'
 * measurements; issue 18's promotion into f32 registers is what bounds the
 * growth over long K); the check allows 2^-13 per addition for them. */
static double accum_unit(gemm_type t) { return t == GT_E4M3 || t == GT_E5M2 ? ldexp(1.0, -13) : ldexp(1.0, -23); }

/* The Frobenius limit: the output's rounding for 16-bit outputs, the
 * accumulation's for f32.  fp8 inputs' narrower accumulator measured
 * rel_fro up to 4.7e-4 with f32 output at K = 1024 on the H100 (the
 * largest K here): their limit is at least 4e-3. */
static double fro_limit(gemm_type t, gemm_type tc)
{
    /* an fp8 output rounds to 3 (e4m3) or 2 (e5m2) mantissa bits */
    double lim = tc == GT_BF16 ? 1e-2 : tc == GT_F16 ? 2e-3 : tc == GT_E4M3 ? 5e-2 : tc == GT_E5M2 ? 1e-1 : 1e-5;
    return (t == GT_E4M3 || t == GT_E5M2) && lim < 4e-3 ? 4e-3 : lim;
}

/* The expected value of output element (i, j) of what (0: D, 1: aux) and
 * its bound: the plain GEMM's, or through the epilogue e (NULL: none). */
static void expect(const shape_data *d, const gemm_epi *e, int what, long i, long j, gemm_type tc, double *ref,
                   double *bound)
{
    const double u = unit_roundoff(tc), eta = underflow_eta(tc);
    const double gamma = (double)d->k * accum_unit(d->t);
    if (e == NULL) {
        size_t idx = (size_t)i * (size_t)d->n + (size_t)j;
        *ref = d->ref[idx];
        *bound = u * fabs(*ref) + (1.0 + u) * gamma * d->absref[idx] + eta;
        return;
    }
    long jg = e->gated && what == 0 ? cutec_act_gate_col(j) : j;
    size_t ig = (size_t)i * (size_t)d->n + (size_t)jg;
    double g, bg, v, bv;
    gemm_epi_pre(e, i, jg, d->ref[ig], d->absref[ig], gamma, &g, &bg);
    if (what == 1) { /* aux: the pre-activation */
        *ref = g;
        *bound = bg + u * fabs(g) + eta;
        return;
    }
    v = bv = 0;
    if (e->gated) {
        long ju = cutec_act_up_col(j);
        size_t iu = (size_t)i * (size_t)d->n + (size_t)ju;
        gemm_epi_pre(e, i, ju, d->ref[iu], d->absref[iu], gamma, &v, &bv);
    }
    gemm_epi_out(e, g, bg, v, bv, ref, bound);
    if (e->fp8_out) { /* D = fp8(scale_d act(v)) */
        *ref *= e->scale_d_v;
        *bound *= e->scale_d_v;
    }
    *bound += u * fabs(*ref) + eta;
}

/* Checks an M x cols result c (type tc) against d (through the epilogue e
 * where it is not NULL; what: 0 the output, 1 the aux output). */
static check_result check_result_of(const shape_data *d, const gemm_epi *e, int what, long cols, const void *c,
                                    gemm_type tc)
{
    check_result r;
    memset(&r, 0, sizeof r);
    r.bad_i = r.bad_j = -1;
    double num = 0, den = 0;
    for (long i = 0; i < d->m; i++) {
        for (long j = 0; j < cols; j++) {
            size_t idx = (size_t)i * (size_t)cols + (size_t)j;
            double v = gemm_load(c, tc, idx), ref, bound;
            expect(d, e, what, i, j, tc, &ref, &bound);
            double err = fabs(v - ref);
            int bad = 0;
            if (!isfinite(v)) {
                r.nnan++;
                bad = 1;
            } else {
                num += err * err;
                if (err > r.max_abs_err) r.max_abs_err = err;
                if (err / bound > r.max_ratio) r.max_ratio = err / bound;
                if (!(err <= bound)) bad = 1;
            }
            den += ref * ref;
            if (bad) {
                if (r.nbad == 0) {
                    r.bad_i = i;
                    r.bad_j = j;
                    r.bad_c = v;
                    r.bad_ref = ref;
                    r.bad_bound = bound;
                }
                r.nbad++;
            }
        }
    }
    r.rel_fro = r.nnan ? INFINITY : den > 0 ? sqrt(num) / sqrt(den) : num > 0 ? INFINITY : 0.0;
    r.num = num, r.den = den;
    r.fro_limit = fro_limit(d->t, tc);
    r.pass = r.nbad == 0 && r.nnan == 0 && r.rel_fro < r.fro_limit;
    return r;
}

/* Checks an M x N result c (type tc) against d. */
static check_result check_output(const shape_data *d, const void *c, gemm_type tc)
{
    return check_result_of(d, NULL, 0, d->n, c, tc);
}

/* ----------------------------------------------------------- batches */

/* A point with the batch role runs each shape as a strided batch of
 * BATCH_DEFAULT problems (--batch L: L), each problem with its own data,
 * and its smallest ragged shape with BATCH_GAP elements between the
 * problems' D, which must come back unchanged; one more case runs a batch
 * of one. */
#define BATCH_DEFAULT 3
#define BATCH_GAP     64

/* Where a case's problems lie in its device buffers: A, B and D of each
 * problem packed after the previous one's (an MN-major operand with its
 * padded leading dimension), D's a gap apart where asked; each buffer
 * between GUARD-byte guard zones.  Grouped, the problems are the groups:
 * rows row0 .. row0 + m - 1 of one A and one D (d[p].row0; A's rows past
 * the last group are the case's tail, d[nprob]), B's matrices GROUP_B_PAD
 * elements apart. */
typedef struct case_layout {
    int nprob;               /* problems (1: one GEMM; grouped: the groups) */
    int grouped;             /* the problems are groups of rows of one A and D */
    long m;                  /* D's rows (grouped: the groups' and the tail's) */
    int amn, bmn;            /* A, B stored MN-major */
    long lda, ldb;           /* their leading dimensions (K where K-major) */
    long cols;               /* D's columns (its leading dimension) */
    size_t esa, esb, esc;    /* element sizes of A, B, D */
    long long sa, sb, sd;    /* elements between consecutive problems */
    size_t nc;               /* elements of one D */
    size_t bytes_a, bytes_b; /* whole buffers, guards included */
    size_t bytes_c;
} case_layout;

static case_layout case_layout_of(const shape_data *d, int amn, int bmn, gemm_type tc, long cols, int nprob, int gap)
{
    case_layout l;
    memset(&l, 0, sizeof l);
    l.nprob = nprob;
    l.amn = amn, l.bmn = bmn;
    /* an MN-major operand is stored K rows of its M (N) elements, each row
     * padded to 16 bytes: leading dimensions that are not the packed ones */
    l.lda = amn ? gemm_ceil_div(d->m, 8) * 8 : d->k;
    l.ldb = bmn ? gemm_ceil_div(d->n, 8) * 8 : d->k;
    l.cols = cols;
    l.esa = gemm_type_size(d->t), l.esb = gemm_type_size(d->tb), l.esc = gemm_type_size(tc);
    l.sa = (long long)(amn ? l.lda : d->m) * d->k;
    l.sb = (long long)(bmn ? l.ldb : d->n) * d->k;
    l.nc = (size_t)d->m * (size_t)cols;
    l.sd = (long long)l.nc + (gap ? BATCH_GAP : 0);
    l.bytes_a = (size_t)nprob * (size_t)l.sa * l.esa + 2 * GUARD;
    l.bytes_b = (size_t)nprob * (size_t)l.sb * l.esb + 2 * GUARD;
    l.bytes_c = ((size_t)(nprob - 1) * (size_t)l.sd + l.nc) * l.esc + 2 * GUARD;
    l.m = d->m;
    return l;
}

/* A grouped case's layout: d[0 .. G - 1] the groups, d[G] the tail (rows
 * past the last group's end), their rows one after another.  A and D are
 * one matrix of M rows (stride_a and stride_d, passed though unused, their
 * spans), B's G matrices GROUP_B_PAD elements apart (NaN between them, as
 * everywhere outside an operand: a kernel that misses B's group step reads
 * them). */
#define GROUP_B_PAD 64 /* elements: 16-byte steps for every element size (TMA) */

static case_layout grouped_layout_of(const shape_data *d, int G, int amn, int bmn, gemm_type tc, long cols)
{
    case_layout l;
    memset(&l, 0, sizeof l);
    l.nprob = G;
    l.grouped = 1;
    l.m = d[G].row0 + d[G].m;
    l.amn = amn, l.bmn = bmn;
    l.lda = amn ? gemm_ceil_div(l.m, 8) * 8 : d->k;
    l.ldb = bmn ? gemm_ceil_div(d->n, 8) * 8 : d->k;
    l.cols = cols;
    l.esa = gemm_type_size(d->t), l.esb = gemm_type_size(d->tb), l.esc = gemm_type_size(tc);
    l.sa = (long long)(amn ? l.lda : l.m) * d->k;
    l.sb = (long long)(bmn ? l.ldb : d->n) * d->k + GROUP_B_PAD;
    l.nc = (size_t)l.m * (size_t)cols;
    l.sd = (long long)l.nc;
    l.bytes_a = (size_t)l.sa * l.esa + 2 * GUARD;
    l.bytes_b = (size_t)G * (size_t)l.sb * l.esb + 2 * GUARD;
    l.bytes_c = l.nc * l.esc + 2 * GUARD;
    return l;
}

/* Where problem p's A (in elements), its D (elements) and how many of D's
 * elements it has: a batch's p steps apart, a group's at its first row. */
static size_t a_at(const case_layout *l, const shape_data *d, int p)
{
    if (!l->grouped) return (size_t)p * (size_t)l->sa;
    return (size_t)d[p].row0 * (l->amn ? 1 : (size_t)l->lda);
}
static size_t d_at(const case_layout *l, const shape_data *d, int p)
{
    return l->grouped ? (size_t)d[p].row0 * (size_t)l->cols : (size_t)p * (size_t)l->sd;
}
static size_t d_len(const case_layout *l, const shape_data *d, int p)
{
    return l->grouped ? (size_t)d[p].m * (size_t)l->cols : l->nc;
}

/* An operand's rows x k elements (row-major in src) at dst: as they are
 * (ld 0), or MN-major, element (r, q) at q * ld + r. */
static void store_operand(unsigned char *dst, const void *src, long rows, long k, long ld, size_t esize)
{
    if (ld == 0) {
        memcpy(dst, src, (size_t)rows * (size_t)k * esize);
        return;
    }
    for (long r = 0; r < rows; r++)
        for (long q = 0; q < k; q++)
            memcpy(dst + ((size_t)q * (size_t)ld + (size_t)r) * esize,
                   (const unsigned char *)src + ((size_t)r * (size_t)k + (size_t)q) * esize, esize);
}

/* The host images of A and B (d: the case's problems): NaN everywhere
 * (all-ones bytes: NaN in every input type), so that a kernel that reads
 * past an operand, into the padding or another problem's gap, and uses
 * what it reads gets NaN; each problem's operand at its place. */
static void case_inputs(const case_layout *l, const shape_data *d, unsigned char *ha, unsigned char *hb)
{
    memset(ha, 0xFF, l->bytes_a);
    memset(hb, 0xFF, l->bytes_b);
    /* grouped, A's tail rows too (random: the kernel may read them) */
    for (int p = 0; p < l->nprob + l->grouped; p++)
        store_operand(ha + GUARD + a_at(l, d, p) * l->esa, d[p].a, d[p].m, d[p].k, l->amn ? l->lda : 0, l->esa);
    for (int p = 0; p < l->nprob; p++)
        store_operand(hb + GUARD + (size_t)p * (size_t)l->sb * l->esb, d[p].b, d[p].n, d[p].k, l->bmn ? l->ldb : 0,
                      l->esb);
}

/* The host image of D: 0x5A guards, gaps between problems included,
 * around NaN-poisoned problems; grouped, the rows past the last group's
 * end are 0x5A bytes too, a sentinel that must come back unchanged. */
static void case_output(const case_layout *l, const shape_data *d, gemm_type tc, unsigned char *hc)
{
    memset(hc, 0x5A, l->bytes_c);
    for (int p = 0; p < l->nprob; p++) {
        unsigned char *body = hc + GUARD + d_at(l, d, p) * l->esc;
        size_t n = d_len(l, d, p);
        if (tc == GT_F32) {
            float nanf_ = NAN;
            for (size_t i = 0; i < n; i++) memcpy(body + i * 4, &nanf_, 4);
        } else {
            memset(body, 0xFF, n * l->esc);
        }
    }
}

/* 1 when every byte of D's image outside the problems (the guards, the
 * gaps, a grouped case's rows past the last end) came back as it went. */
static int case_guards_intact(const case_layout *l, const shape_data *d, const unsigned char *out,
                              const unsigned char *in)
{
    size_t at = 0;
    for (int p = 0; p <= l->nprob; p++) {
        size_t end = p < l->nprob ? GUARD + d_at(l, d, p) * l->esc : l->bytes_c;
        if (memcmp(out + at, in + at, end - at) != 0) return 0;
        if (p < l->nprob) at = end + d_len(l, d, p) * l->esc;
    }
    return 1;
}

/* Checks every problem of D's image against its own reference (through
 * the epilogue e where it is not NULL) and folds the results: the worst
 * measures, the counts summed, the first failing element of the first
 * problem that fails (its problem in *bad_prob, -1 if none; grouped: the
 * first group with an element past its bound). */
static check_result check_case(const case_layout *l, const shape_data *d, const gemm_epi *e, const unsigned char *out,
                               gemm_type tc, int *bad_prob)
{
    check_result all;
    memset(&all, 0, sizeof all);
    all.pass = 1;
    all.bad_i = all.bad_j = -1;
    *bad_prob = -1;
    for (int p = 0; p < l->nprob; p++) {
        check_result r = check_result_of(&d[p], e, 0, l->cols, out + GUARD + d_at(l, d, p) * l->esc, tc);
        if ((l->grouped ? r.nbad > 0 : !r.pass) && *bad_prob < 0) {
            *bad_prob = p;
            all.bad_i = r.bad_i, all.bad_j = r.bad_j;
            all.bad_c = r.bad_c, all.bad_ref = r.bad_ref, all.bad_bound = r.bad_bound;
        }
        all.pass = all.pass && r.pass;
        all.nbad += r.nbad;
        all.nnan += r.nnan;
        all.max_ratio = fmax(all.max_ratio, r.max_ratio);
        all.max_abs_err = fmax(all.max_abs_err, r.max_abs_err);
        all.rel_fro = p == 0 || r.rel_fro > all.rel_fro ? r.rel_fro : all.rel_fro;
        all.fro_limit = r.fro_limit;
        all.num += r.num, all.den += r.den;
    }
    /* grouped, the Frobenius measure is the whole D's, as for one GEMM: a
     * group of one row and one column would otherwise be judged by one
     * element's relative error (each element has its own bound anyway) */
    if (l->grouped) {
        all.rel_fro = all.nnan ? INFINITY : all.den > 0 ? sqrt(all.num) / sqrt(all.den) : all.num > 0 ? INFINITY : 0.0;
        all.pass = all.nbad == 0 && all.nnan == 0 && all.rel_fro < all.fro_limit;
    }
    return all;
}

/* The runs of a point: each shape once, for a point without the batch
 * role; a batched point runs each shape as a batch of nbatch problems, the
 * smallest ragged shape (the last) with gaps between D's problems, and,
 * unless --batch forces L, the larger ragged shape once more as a batch of
 * one. */
typedef struct run_plan {
    int shape, nprob, gap;
    int grouped; /* a grouped case (grouped_make: its run is c) */
} run_plan;

/* A grouped point runs every shape and one more case, the clamped row
 * ends (grouped_make). */
static int point_runs(const gemm_point *p, int forced)
{
    if (gemm_point_grouped(p)) return NSHAPES + 1;
    return NSHAPES + (gemm_point_batched(p) && !forced);
}

static run_plan point_run(const gemm_point *p, int c, int nbatch)
{
    run_plan r = {c, 1, 0, 0};
    if (gemm_point_grouped(p)) { /* its groups: the case's (grouped_make) */
        r.shape = c < NSHAPES ? c : NSHAPES - 1;
        r.grouped = 1;
        return r;
    }
    if (!gemm_point_batched(p)) return r;
    if (c == NSHAPES) { /* the batch of one */
        r.shape = NFIXED;
        return r;
    }
    r.nprob = nbatch;
    r.gap = c == NSHAPES - 1;
    return r;
}

/* ------------------------------------------------------ grouped cases */

/* A point with the group_ends role (a grouped GEMM: docs/runtime.md,
 * "Grouped GEMM") runs each shape's N and K as G groups (--groups G,
 * default GROUPS_DEFAULT) of the rows of one A and D, each group with its
 * own B and its own random data and float64 reference.  The groups' row
 * counts cycle through group_rows (empty groups, groups of one row, groups
 * past one and two tiles of 128 rows), backwards on odd runs; M adds a
 * tail of rows past the last end (none on run 0), which the kernel must
 * leave untouched.  One more run (c = NSHAPES, on the smallest ragged shape's
 * N and K)
 * passes row ends the kernel must clamp (the contract's rule): the middle
 * group's end below the one before it (an empty group) and the last end
 * past M (the last group takes the tail). */
#define GROUPS_DEFAULT 8
static const long group_rows[] = {1, 0, 257, 45, 0, 130, 1, 96};
#define NGROUP_ROWS ((int)(sizeof group_rows / sizeof group_rows[0]))

typedef struct grouped_data {
    int G, run, valid;
    long n, k;
    gemm_type t, tb;
    int *ends;     /* the G row ends passed to the kernel */
    shape_data *d; /* the G groups as the clamped ends make them, then the tail */
} grouped_data;

static void grouped_free(grouped_data *g)
{
    if (g->d != NULL)
        for (int i = 0; i <= g->G; i++) shape_data_free(&g->d[i]);
    free(g->d);
    free(g->ends);
    memset(g, 0, sizeof *g);
}

/* The row ends of run `run` with G groups (ends[G]) and M: ends as the
 * rows add up, or, on the clamped run, with the contract's two defects. */
static long grouped_ends(int G, int run, int *ends)
{
    long at = 0;
    for (int g = 0; g < G; g++) {
        at += group_rows[(run % 2 ? G - 1 - g : g) % NGROUP_ROWS];
        ends[g] = (int)at;
    }
    long m = at + (run == 0 ? 0 : run == NSHAPES ? 21 : 1 + (13 * run) % 40);
    if (run == NSHAPES) {
        if (G >= 3) ends[G / 2] = ends[G / 2 - 1] - 3; /* a decrease: an empty group */
        ends[G - 1] = (int)(m + 100);                  /* past M: M */
    }
    return m;
}

/* The groups of the kernel's clamping: group g owns rows max(previous
 * end) .. min(max(ends[g], previous end), M) - 1. */
static void grouped_clamp(int G, long m, const int *ends, long *lo, long *hi)
{
    long prev = 0;
    for (int g = 0; g < G; g++) {
        long e = ends[g] < prev ? prev : ends[g] > m ? m : ends[g];
        lo[g] = prev, hi[g] = e;
        prev = e;
    }
}

/* The data of grouped run `run` (0 on success): every group's rows of A,
 * its B and its reference (problem g + 1 of the shape's data), the tail's
 * rows of A (problem G + 1). */
static int grouped_make(grouped_data *gd, int G, int run, long n, long k, gemm_type t, gemm_type tb, uint64_t seed)
{
    memset(gd, 0, sizeof *gd);
    gd->G = G, gd->run = run, gd->n = n, gd->k = k, gd->t = t, gd->tb = tb;
    gd->ends = malloc((size_t)G * sizeof *gd->ends);
    gd->d = calloc((size_t)G + 1, sizeof *gd->d);
    long *lo = malloc((size_t)G * sizeof *lo), *hi = malloc((size_t)G * sizeof *hi);
    int ok = gd->ends != NULL && gd->d != NULL && lo != NULL && hi != NULL;
    if (ok) {
        long m = grouped_ends(G, run, gd->ends);
        grouped_clamp(G, m, gd->ends, lo, hi);
        for (int g = 0; g <= G && ok; g++) {
            long r0 = g < G ? lo[g] : hi[G - 1], r1 = g < G ? hi[g] : m;
            ok = shape_data_make(&gd->d[g], r1 - r0, n, k, t, tb, seed, g + 1) == 0;
            gd->d[g].row0 = r0;
        }
    }
    free(lo);
    free(hi);
    if (!ok) {
        grouped_free(gd);
        return -1;
    }
    gd->valid = 1;
    return 0;
}

/* ------------------------------------------------------------- GPU part */

typedef struct point {
    gemm_point gp;
    int file;
    cutec_kernel *k;
    long long resident; /* blocks held at once, for a resident(x) grid (0: x) */
    int dead;           /* not runnable any more (load failure, fault) */
    int seq;            /* position in the files, for a stable order */
    gemm_epi epi;       /* its epilogue (gemm_epilogue.h) */
} point;

typedef struct session {
    cutec_runtime *rt;
    int nfiles;
    char **files;
    cutec_module **mods;
    point *pts;
    int npts;
    int ncubins; /* modules loaded from a cubin beside their PTX (module_image) */
} session;

/* The image to load for a PTX file: X.cubin beside X.ptx where it exists
 * and is no older (scripts/gpu-prepare.sh assembles one with ptxas for
 * every PTX file it writes), else the PTX itself.  The kernel's
 * description is read from the PTX either way.  The driver's JIT at load
 * took, by subtraction, most of a whole-template run's wall time on an
 * H200 (gpu_gemm_epilogue: 242 s, 54.5 s of it CPU time after the loads:
 * 0.1-0.8 s a file). */
static const char *module_image(const char *ptx, char *buf, size_t len)
{
    size_t n = strlen(ptx);
    struct stat sp, sc;
    if (n < 4 || strcmp(ptx + n - 4, ".ptx") != 0 || n + 3 > len) return ptx;
    memcpy(buf, ptx, n - 4);
    memcpy(buf + n - 4, ".cubin", 7);
    if (stat(ptx, &sp) != 0 || stat(buf, &sc) != 0 || sc.st_mtime < sp.st_mtime) return ptx;
    return buf;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void session_close(session *s)
{
    for (int f = 0; f < s->nfiles; f++) {
        cutec_module_unload(s->mods[f]);
        s->mods[f] = NULL;
    }
    for (int i = 0; i < s->npts; i++) s->pts[i].k = NULL;
    cutec_runtime_destroy(s->rt);
    s->rt = NULL;
}

/* Creates the runtime, loads every file with a live point and looks the
 * kernels up.  Returns the creation status; load/lookup failures mark points
 * dead with a FAIL line and count in *failures. */
static cutec_status session_open(session *s, int *failures)
{
    cutec_status st = cutec_runtime_create(&s->rt, 0);
    if (st != CUTEC_OK) return st;
    for (int f = 0; f < s->nfiles; f++) {
        int live = 0;
        for (int i = 0; i < s->npts; i++) live |= s->pts[i].file == f && !s->pts[i].dead;
        if (!live) continue;
        char cubin[4096];
        const char *image = module_image(s->files[f], cubin, sizeof cubin);
        s->ncubins += image == cubin;
        cutec_status ls = cutec_module_load_file(s->rt, image, &s->mods[f]);
        for (int i = 0; i < s->npts; i++) {
            point *p = &s->pts[i];
            if (p->file != f || p->dead) continue;
            cutec_status ks = ls == CUTEC_OK ? cutec_module_get_kernel(s->mods[f], p->gp.meta.kernel, &p->k) : ls;
            if (ks == CUTEC_OK) p->resident = gemm_resident(p->k, &p->gp);
            if (ks != CUTEC_OK) {
                printf("FAIL %s %s [%s]: %s: %s: %s\n", base_name(s->files[f]), p->gp.meta.kernel, p->gp.desc,
                       ls != CUTEC_OK ? "module load" : "kernel lookup", cutec_status_string(ks),
                       cutec_runtime_message(s->rt));
                p->dead = 1;
                (*failures)++;
            }
        }
    }
    return CUTEC_OK;
}

/* RUN_SKIP: the point's conditions refuse the case (nothing launched) */
typedef enum run_status { RUN_DONE, RUN_ERROR, RUN_FAULT, RUN_SKIP } run_status;

/* Runs point p on the problems d[0 .. nprob - 1] of one shape (a batched
 * point: a batch of nprob, D's problems BATCH_GAP elements apart where gap;
 * grouped (ends not NULL: the nprob row ends passed): the groups of rows of
 * one A and D, d[nprob] the tail; else nprob is 1); prints the line.
 * RUN_DONE: ran and checked (pass in *passed); RUN_ERROR: a non-sticky
 * failure (printed); RUN_FAULT: a sticky kernel fault (printed; the
 * context is unusable). */
static run_status run_case(session *s, point *p, const shape_data *d, int nprob, int gap, const int *ends, int *passed)
{
    const gemm_point *gp = &p->gp;
    const char *file = base_name(s->files[p->file]);
    int grouped = ends != NULL, batched = gemm_point_batched(gp) && !grouped;
    gemm_epi *e = gemm_epi_any(&p->epi) ? &p->epi : NULL; /* never with a batch or groups (main) */
    long cols = e ? gemm_epi_out_cols(e, d->n) : d->n;
    int amn = gemm_point_mn_major(gp, CUTEC_ROLE_A), bmn = gemm_point_mn_major(gp, CUTEC_ROLE_B);
    case_layout lay = grouped ? grouped_layout_of(d, nprob, amn, bmn, gp->tc, cols)
                              : case_layout_of(d, amn, bmn, gp->tc, cols, nprob, gap);
    long M = lay.m; /* D's rows: d->m, or a grouped case's all */
    size_t szc = gemm_type_size(gp->tc);
    size_t nmn = (size_t)d->m * (size_t)d->n;
    /* the epilogue's inputs between NaN guards, its aux output between 0x5A
     * guards (checked like C's) */
    size_t bytes_s = nmn * szc + 2 * GUARD, bytes_bias = (size_t)d->n * szc + 2 * GUARD;
    size_t bytes_br = (size_t)d->m * szc + 2 * GUARD, bytes_aux = nmn * szc + 2 * GUARD;
    unsigned long long ds = 0, dbias = 0, dbr = 0, daux = 0, dsa = 0, dsb = 0;
    size_t bytes_sa = (size_t)d->m * 4 + 2 * GUARD, bytes_sb = (size_t)d->n * 4 + 2 * GUARD;
    /* block-wise scales: m x kb and nb x kb; an fp8 output's scale_d and amax */
    if (e && e->scale == 3) {
        size_t kb = (size_t)gemm_ceil_div(d->k, 128), nbk = (size_t)gemm_ceil_div(d->n, 128);
        bytes_sa = (size_t)d->m * kb * 4 + 2 * GUARD;
        bytes_sb = nbk * kb * 4 + 2 * GUARD;
    }
    unsigned long long dsd = 0, damax = 0, dends = 0, dws = 0, dflags = 0;
    unsigned char *hzero = NULL, *hc_out2 = NULL;
    int runs = repeat_check ? 2 : 1;
    size_t ndiff = 0;
    size_t bytes_ends = (size_t)nprob * sizeof(int) + 2 * GUARD;
    double amax_ref = 0, amax_bound = 0;
    shape_data bref = {0};     /* the block-wise scaled reference (no inputs) */
    const shape_data *ref = d; /* the reference the outputs are checked against */
    unsigned char *hx = NULL, *haux = NULL;
    size_t bytes_a = lay.bytes_a, bytes_b = lay.bytes_b, bytes_c = lay.bytes_c;
    unsigned long long da = 0, db = 0, dc = 0;
    unsigned char *ha = malloc(bytes_a), *hb = malloc(bytes_b);
    unsigned char *hc = malloc(bytes_c), *hc_out = malloc(bytes_c);
    run_status rs = RUN_ERROR;
    cutec_status st = CUTEC_OK;
    const char *what = "";
    *passed = 0;
    if (e && gemm_epi_make(e, d->m, d->n, d->k, shape_seed(0x5eed, d->m, d->n, d->k, d->t, d->tb)) != 0) {
        printf("FAIL %s [%s] M=%ld N=%ld K=%ld: host out of memory\n", file, gp->desc, d->m, d->n, d->k);
        goto out;
    }
    if (e && e->scale == 3) {
        if (block_reference(d, e, &bref) != 0) {
            printf("FAIL %s [%s] M=%ld N=%ld K=%ld: host out of memory\n", file, gp->desc, d->m, d->n, d->k);
            goto out;
        }
        ref = &bref;
    }
    if (e && e->fp8_out) {
        /* scale_d: a power of two that puts the largest |D| near 240, inside
         * e4m3's 448 and far from 1; amax is the unscaled largest |D| */
        e->scale_d_v = 1.0;
        for (long i = 0; i < d->m; i++)
            for (long j = 0; j < cols; j++) {
                double v, bound;
                expect(ref, e, 0, i, j, GT_F32, &v, &bound);
                amax_ref = fabs(v) > amax_ref ? fabs(v) : amax_ref;
                amax_bound = bound > amax_bound ? bound : amax_bound;
            }
        e->scale_d_v = amax_ref > 0 ? ldexp(1.0, (int)floor(log2(240.0 / amax_ref))) : 1.0;
    }
    if (e) {
        size_t most = bytes_s;
        const size_t sizes[] = {bytes_bias, bytes_br, bytes_sa, bytes_sb};
        for (int q = 0; q < 4; q++) most = sizes[q] > most ? sizes[q] : most;
        hx = malloc(most);
        haux = malloc(2 * bytes_aux);
    }
    if (ha == NULL || hb == NULL || hc == NULL || hc_out == NULL || (e && (hx == NULL || haux == NULL))) {
        printf("FAIL %s [%s] M=%ld N=%ld K=%ld: host out of memory\n", file, gp->desc, M, d->n, d->k);
        goto out;
    }
    case_inputs(&lay, d, ha, hb);
    case_output(&lay, d, gp->tc, hc);

    if ((st = cutec_malloc(s->rt, bytes_a, &da)) != CUTEC_OK || (st = cutec_malloc(s->rt, bytes_b, &db)) != CUTEC_OK ||
        (st = cutec_malloc(s->rt, bytes_c, &dc)) != CUTEC_OK) {
        what = "cutec_malloc";
        goto fail_rt;
    }
    if ((st = cutec_memcpy_htod(s->rt, da, ha, bytes_a)) != CUTEC_OK ||
        (st = cutec_memcpy_htod(s->rt, db, hb, bytes_b)) != CUTEC_OK ||
        (st = cutec_memcpy_htod(s->rt, dc, hc, bytes_c)) != CUTEC_OK) {
        what = "cutec_memcpy_htod";
        goto fail_rt;
    }
    if (grouped) { /* the row ends between guards of -1 (all-ones bytes) */
        unsigned char *he = malloc(bytes_ends);
        st = CUTEC_ERR_OUT_OF_MEMORY;
        if (he != NULL) {
            memset(he, 0xFF, bytes_ends);
            memcpy(he + GUARD, ends, (size_t)nprob * sizeof(int));
            if ((st = cutec_malloc(s->rt, bytes_ends, &dends)) == CUTEC_OK)
                st = cutec_memcpy_htod(s->rt, dends, he, bytes_ends);
            free(he);
        }
        if (st != CUTEC_OK) {
            what = "group_ends";
            goto fail_rt;
        }
    }
    gemm_args gargs = {.m = (int)M,
                       .n = (int)d->n,
                       .k = (int)d->k,
                       .lda = (int)lay.lda,
                       .ldb = (int)lay.ldb,
                       .ldd = (int)cols,
                       .ldc = (int)d->n,
                       .a = da + GUARD,
                       .b = db + GUARD,
                       .c = dc + GUARD};
    if (batched) {
        gargs.batch = nprob;
        gargs.stride_a = lay.sa, gargs.stride_b = lay.sb, gargs.stride_d = lay.sd;
        gargs.stride_c = (long long)d->m * d->n; /* a C source's, packed (no epilogue with a batch yet) */
    }
    if (grouped) { /* the groups: B's matrices; A and D one matrix each */
        gargs.batch = nprob;
        gargs.stride_a = lay.sa, gargs.stride_b = lay.sb, gargs.stride_c = gargs.stride_d = lay.sd;
        gargs.ends = dends + GUARD;
    }
    {
        char why[240];
        if (!gemm_point_fits(gp, &gargs, why, sizeof why)) {
            printf("SKIP %s [%s] M=%ld N=%ld K=%ld: %s\n", file, gp->desc, M, d->n, d->k, why);
            rs = RUN_SKIP;
            goto out;
        }
    }
    if (e) {
        /* S, bias and bias_row as their encodings between NaN guards */
        const struct {
            unsigned long long *dev;
            size_t bytes;
            const unsigned char *data;
        } in[5] = {{&ds, bytes_s, e->s},
                   {&dbias, bytes_bias, e->b},
                   {&dbr, bytes_br, e->br},
                   {&dsa, bytes_sa, (const unsigned char *)e->sa},
                   {&dsb, bytes_sb, (const unsigned char *)e->sb}};
        for (int q = 0; q < 5; q++) {
            size_t body = in[q].bytes - 2 * GUARD;
            memset(hx, 0xFF, in[q].bytes);
            if (q > 0 || e->src) memcpy(hx + GUARD, in[q].data, body);
            if ((st = cutec_malloc(s->rt, in[q].bytes, in[q].dev)) != CUTEC_OK ||
                (st = cutec_memcpy_htod(s->rt, *in[q].dev, hx, in[q].bytes)) != CUTEC_OK) {
                what = "epilogue inputs";
                goto fail_rt;
            }
        }
        memset(haux, 0x5A, bytes_aux);
        memset(haux + GUARD, 0xFF, nmn * szc);
        if ((st = cutec_malloc(s->rt, bytes_aux, &daux)) != CUTEC_OK ||
            (st = cutec_memcpy_htod(s->rt, daux, haux, bytes_aux)) != CUTEC_OK) {
            what = "aux buffer";
            goto fail_rt;
        }
        gargs.alpha = (float)e->alpha_v;
        gargs.beta = (float)e->beta_v;
        gargs.clamp_lo = (float)e->clamp_lo_v;
        gargs.clamp_hi = (float)e->clamp_hi_v;
        gargs.s = ds + GUARD;
        gargs.bias = dbias + GUARD;
        gargs.bias_row = dbr + GUARD;
        gargs.aux = daux + GUARD;
        gargs.scale_a = dsa + GUARD;
        gargs.scale_b = dsb + GUARD;
        if (e->fp8_out) {
            float sd = (float)e->scale_d_v, zero = 0.0f;
            if ((st = cutec_malloc(s->rt, 4, &dsd)) != CUTEC_OK || (st = cutec_malloc(s->rt, 4, &damax)) != CUTEC_OK ||
                (st = cutec_memcpy_htod(s->rt, dsd, &sd, 4)) != CUTEC_OK ||
                (st = cutec_memcpy_htod(s->rt, damax, &zero, 4)) != CUTEC_OK) {
                what = "scale_d and amax";
                goto fail_rt;
            }
            gargs.scale_d = dsd;
            gargs.amax = damax;
        }
    }
    char aerr[256];
    /* stream-K scratch: the partial sums' slots start as NaN (a slot read
     * before it was written shows), the flags are zeroed before each of
     * two launches, whose outputs must be the same bits */
    long long wsb = gemm_scratch_bytes(&gp->meta, &gargs, CUTEC_ROLE_WORKSPACE, aerr, sizeof aerr);
    long long flb = wsb < 0 ? -1 : gemm_scratch_bytes(&gp->meta, &gargs, CUTEC_ROLE_FLAGS, aerr, sizeof aerr);
    if (wsb < 0 || flb < 0) {
        printf("FAIL %s: %s\n", gp->desc, aerr);
        st = CUTEC_ERR_INVALID_ARGUMENT;
        what = "scratch";
        goto fail_rt;
    }
    if (wsb > 0 || flb > 0) {
        size_t most = (size_t)(wsb > flb ? wsb : flb);
        hzero = malloc(most);
        st = CUTEC_ERR_OUT_OF_MEMORY;
        if (hzero == NULL) {
            what = "scratch (host)";
            goto fail_rt;
        }
        memset(hzero, 0xFF, most);
        if ((wsb > 0 && ((st = cutec_malloc(s->rt, (size_t)wsb, &dws)) != CUTEC_OK ||
                         (st = cutec_memcpy_htod(s->rt, dws, hzero, (size_t)wsb)) != CUTEC_OK)) ||
            (flb > 0 && (st = cutec_malloc(s->rt, (size_t)flb, &dflags)) != CUTEC_OK)) {
            what = "scratch";
            goto fail_rt;
        }
        memset(hzero, 0, most);
        gargs.ws = dws;
        gargs.flags = dflags;
        if (flb > 0) runs = 2;
    }
    if (runs == 2 && (hc_out2 = malloc(bytes_c)) == NULL) {
        st = CUTEC_ERR_OUT_OF_MEMORY;
        what = "host memory for the second run";
        goto fail_rt;
    }
    if (gemm_build_args(s->rt, &gp->meta, &gargs, aerr, sizeof aerr) != 0) {
        printf("FAIL %s: %s\n", gp->desc, aerr);
        st = CUTEC_ERR_INVALID_ARGUMENT;
        what = "gemm_build_args";
        goto fail_rt;
    }
    void **args = gargs.args;
    unsigned grid[3];
    if (gemm_grid(gp, M, d->n, d->k, batched || grouped ? nprob : 0, p->resident, grid, aerr, sizeof aerr) != 0) {
        printf("FAIL %s: %s\n", gp->desc, aerr);
        st = CUTEC_ERR_INVALID_ARGUMENT;
        what = "gemm_grid";
        goto fail_rt;
    }
    for (int run = 0; run < runs; run++) {
        if (run > 0 && (st = cutec_memcpy_htod(s->rt, dc, hc, bytes_c)) != CUTEC_OK) {
            what = "poisoning C again";
            goto fail_rt;
        }
        if (dflags != 0 && (st = cutec_memcpy_htod(s->rt, dflags, hzero, (size_t)flb)) != CUTEC_OK) {
            what = "zeroing the flags";
            goto fail_rt;
        }
        if ((st = cutec_launch_cluster(p->k, grid, gp->meta.threads, gp->meta.cluster, gp->meta.smem_dynamic, NULL,
                                       args)) != CUTEC_OK) {
            what = "cutec_launch";
            goto fail_rt;
        }
        if ((st = cutec_synchronize(s->rt)) != CUTEC_OK) {
            what = "cutec_synchronize";
            goto fail_rt;
        }
        if ((st = cutec_memcpy_dtoh(s->rt, run == 0 ? hc_out : hc_out2, dc, bytes_c)) != CUTEC_OK) {
            what = "cutec_memcpy_dtoh";
            goto fail_rt;
        }
    }
    if (runs == 2) { /* the second run, on C poisoned again: the same bits */
        ndiff = 0;
        for (size_t i = 0; i < bytes_c; i++) ndiff += hc_out2[i] != hc_out[i];
    }
    {
        int guard_ok = case_guards_intact(&lay, d, hc_out, hc), bad_prob = -1;
        check_result r = check_case(&lay, ref, e, hc_out, gp->tc, &bad_prob);
        check_result ra = {.pass = 1};
        int aux_guard_ok = 1;
        if (e && e->aux) {
            unsigned char *ha_out = haux + bytes_aux;
            if ((st = cutec_memcpy_dtoh(s->rt, ha_out, daux, bytes_aux)) != CUTEC_OK) {
                what = "cutec_memcpy_dtoh (aux)";
                goto fail_rt;
            }
            aux_guard_ok = memcmp(ha_out, haux, GUARD) == 0 &&
                           memcmp(ha_out + GUARD + nmn * szc, haux + GUARD + nmn * szc, GUARD) == 0;
            ra = check_result_of(ref, e, 1, d->n, ha_out + GUARD, gp->tc);
        }
        float amax = 0.0f;
        int amax_ok = 1;
        if (e && e->fp8_out) {
            if ((st = cutec_memcpy_dtoh(s->rt, &amax, damax, 4)) != CUTEC_OK) {
                what = "cutec_memcpy_dtoh (amax)";
                goto fail_rt;
            }
            /* |max x - max r| <= max |x - r|: the largest element bound */
            amax_ok = fabs((double)amax - amax_ref) <= amax_bound + ldexp(amax_ref, -23);
        }
        *passed = r.pass && guard_ok && ra.pass && aux_guard_ok && amax_ok && ndiff == 0;
        printf("%s %s [%s] M=%ld N=%ld K=%ld", *passed ? "PASS" : "FAIL", file, gp->desc, M, d->n, d->k);
        if (batched) printf(" L=%d stride_d=%lld%s", nprob, lay.sd, gap && nprob > 1 ? " (gap)" : "");
        if (grouped) {
            printf(" G=%d stride_b=%lld ends=", nprob, lay.sb);
            for (int g = 0; g < nprob && g < 12; g++) printf("%s%d", g ? "," : "", ends[g]);
            printf("%s rows past the last end=%ld", nprob > 12 ? ",..." : "", d[nprob].m);
        }
        printf(" grid=%ux%u", grid[0], grid[1]);
        if (batched || grouped) printf("x%u", grid[2]);
        printf(": max_err/bound=%.3g max_abs_err=%.3g rel_fro=%.3g (limit %.0e)", r.max_ratio, r.max_abs_err, r.rel_fro,
               r.fro_limit);
        if (r.nbad)
            printf(" bad=%zu nan=%zu first_bad=(%ld,%ld) c=%.9g ref=%.9g bound=%.3g", r.nbad, r.nnan, r.bad_i, r.bad_j,
                   r.bad_c, r.bad_ref, r.bad_bound);
        if (r.nbad && batched) printf(" in problem %d", bad_prob);
        if (r.nbad && grouped) printf(" (row %ld of D) in group %d", d[bad_prob].row0 + r.bad_i, bad_prob);
        if (!guard_ok)
            printf(" WRITES OUTSIDE C (guard zone%s changed)", gap       ? " or a gap between problems"
                                                               : grouped ? " or rows past the last end"
                                                                         : "");
        if (e && e->fp8_out)
            printf(" scale_d=%g amax=%.9g ref=%.9g bound=%.3g%s", e->scale_d_v, (double)amax, amax_ref, amax_bound,
                   amax_ok ? "" : " AMAX FAILS");
        if (e && e->aux)
            printf(" aux: max_err/bound=%.3g rel_fro=%.3g%s%s", ra.max_ratio, ra.rel_fro, ra.pass ? "" : " AUX FAILS",
                   aux_guard_ok ? "" : " WRITES OUTSIDE AUX");
        if (runs == 2)
            printf(ndiff ? " SECOND RUN DIFFERS in %zu bytes (not deterministic)" : " second run: same bits", ndiff);
        printf("\n");
        rs = RUN_DONE;
    }
    goto out;
fail_rt:
    printf("FAIL %s [%s] M=%ld N=%ld K=%ld: %s: %s: %s\n", file, gp->desc, M, d->n, d->k, what, cutec_status_string(st),
           cutec_runtime_message(s->rt));
    rs = st == CUTEC_ERR_KERNEL_FAULT ? RUN_FAULT : RUN_ERROR;
out:
    fflush(stdout);
    if (rs != RUN_FAULT) {
        cutec_free(s->rt, da);
        cutec_free(s->rt, db);
        cutec_free(s->rt, dc);
        cutec_free(s->rt, ds);
        cutec_free(s->rt, dbias);
        cutec_free(s->rt, dbr);
        cutec_free(s->rt, daux);
        cutec_free(s->rt, dsa);
        cutec_free(s->rt, dsb);
        cutec_free(s->rt, dsd);
        cutec_free(s->rt, damax);
        cutec_free(s->rt, dends);
        cutec_free(s->rt, dws);
        cutec_free(s->rt, dflags);
    }
    free(hzero);
    free(hc_out2);
    shape_data_free(&bref);
    free(hx);
    free(haux);
    free(ha);
    free(hb);
    free(hc);
    free(hc_out);
    return rs;
}

/* ------------------------------------------------------------ self-test */

static int st_fail;
#define ST_CHECK(c)                                                                                                    \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "self-test: %s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                           \
            st_fail++;                                                                                                 \
        }                                                                                                              \
    } while (0)

static void self_test_conversions(void)
{
    /* Every finite 16-bit value survives the round trip; every midpoint between
   * neighbours rounds to the even one; NaN stays NaN. */
    for (int which = 0; which < 2; which++) {
        float (*to32)(uint16_t) = which ? gemm_f16_to_f32 : gemm_bf16_to_f32;
        uint16_t (*to16)(float) = which ? gemm_f32_to_f16 : gemm_f32_to_bf16;
        int bad = 0;
        for (uint32_t h = 0; h < 0x10000u; h++) {
            float f = to32((uint16_t)h);
            if (isnan(f)) {
                bad += !isnan(to32(to16(f)));
                continue;
            }
            bad += to16(f) != h && !(f == 0.0f && (to16(f) & 0x7fffu) == 0);
            uint16_t nh = (uint16_t)(h + 1);
            float g = to32(nh);
            if ((h & 0x7fffu) == 0x7fffu || isinf(f) || isnan(g) || isinf(g)) continue;
            float mid = (float)(((double)f + (double)g) / 2.0);
            if (((double)f + (double)g) / 2.0 != (double)mid) continue; /* not representable: skip */
            uint16_t want = (h & 1u) ? nh : (uint16_t)h;
            bad += to16(mid) != want;
        }
        ST_CHECK(bad == 0);
    }
    ST_CHECK(gemm_f32_to_f16(65504.0f) == 0x7bffu);
    ST_CHECK(gemm_f32_to_f16(65520.0f) == 0x7c00u);
    ST_CHECK(gemm_f32_to_f16(65519.0f) == 0x7bffu);
    ST_CHECK(gemm_f32_to_f16(-1.0f) == 0xbc00u);
    ST_CHECK(gemm_f32_to_f16(ldexpf(1.0f, -24)) == 0x0001u);
    ST_CHECK(gemm_f32_to_f16(ldexpf(1.0f, -25)) == 0x0000u); /* tie to even: 0 */
    ST_CHECK(gemm_f32_to_f16(ldexpf(1.5f, -25)) == 0x0001u);
    ST_CHECK(gemm_f32_to_f16(ldexpf(1.0f, -14)) == 0x0400u);
    ST_CHECK(gemm_f32_to_bf16(1.0f) == 0x3f80u);
    ST_CHECK(gemm_f32_to_bf16(3.0e38f) == 0x7f62u);
    ST_CHECK(gemm_f32_to_bf16(3.4e38f) == 0x7f80u); /* rounds to inf */
    ST_CHECK(isnan(gemm_bf16_to_f32(0xFFFFu)) && isnan(gemm_f16_to_f32(0xFFFFu)));
    ST_CHECK(gemm_f32_to_bf16(1.0f + ldexpf(1.0f, -8)) == 0x3f80u); /* tie to even */
    ST_CHECK(gemm_f32_to_bf16(1.0f + ldexpf(3.0f, -8)) == 0x3f82u); /* tie to even (up) */
    /* Random data: in [-1, 1], never zero, rounded. */
    gemm_rng r;
    gemm_rng_seed(&r, 42);
    uint16_t buf[4096];
    double vals[4096];
    double mn = 1, mx = -1;
    for (int t = 0; t < 2; t++) {
        gemm_fill_random(&r, t ? GT_F16 : GT_BF16, buf, vals, 4096);
        for (int i = 0; i < 4096; i++) {
            ST_CHECK(vals[i] != 0 && vals[i] >= -1 && vals[i] <= 1);
            ST_CHECK(vals[i] == gemm_load(buf, t ? GT_F16 : GT_BF16, (size_t)i));
            mn = fmin(mn, vals[i]);
            mx = fmax(mx, vals[i]);
        }
    }
    ST_CHECK(mn < -0.99 && mx > 0.99);
}

static void self_test_meta(void)
{
    /* two descriptions as cutec writes them, PTX text between and after */
    static const char ptx[] =
        "// cutec.kernel gemm_sm80\r\n"
        "// cutec.contract 1\n// cutec.class gemm\n// cutec.threads 256 1 1\n"
        "// cutec.smem_static 0\n// cutec.smem_dynamic 65536\n"
        "// cutec.param T bf16\n// cutec.param TC f32\n// cutec.param BM 128\n// cutec.param BN 64\n"
        "// cutec.param BK 32\n// cutec.param STAGES 4\n// cutec.param VEC 8\n"
        "// cutec.arg 0 M scalar i32 role m\n// cutec.arg 1 N scalar i32 role n\n// cutec.arg 2 K scalar i32 role k\n"
        "// cutec.arg 3 A tensor bf16 rank 2 shape M K stride K 1 align 16 role a\n"
        "// cutec.arg 4 B tensor bf16 rank 2 shape N K stride K 1 align 16 role b\n"
        "// cutec.arg 5 C tensor f32 rank 2 shape M N stride N 1 align 16 role d\n"
        "// cutec.grid ceil_div(N,64) ceil_div(M,128) 1\n"
        "// cutec.require ((K%8)==0)\n"
        "// cutec.kernel other\n// cutec.contract 1\n// cutec.class plain\n// cutec.threads 32 2 1\n"
        "// cutec.smem_static 0\n// cutec.smem_dynamic 0\n"
        "//\n// Generated by LLVM NVPTX Back-End\n.version 8.0\n";
    gemm_kernel_meta *m = NULL;
    int n = 0;
    char err[256] = "";
    ST_CHECK(gemm_parse_meta(ptx, sizeof ptx - 1, &m, &n, err, sizeof err) == 0);
    ST_CHECK(n == 2);
    if (n == 2) {
        ST_CHECK(strcmp(m[0].kernel, "gemm_sm80") == 0);
        ST_CHECK(m[0].threads[0] == 256 && m[0].threads[1] == 1);
        ST_CHECK(m[0].smem_dynamic == 65536);
        ST_CHECK(m[0].nparams == 7);
        long v = 0;
        ST_CHECK(gemm_meta_int(&m[0], "STAGES", &v) == 0 && v == 4);
        ST_CHECK(gemm_meta_int(&m[0], "T", &v) != 0);
        ST_CHECK(gemm_meta_param(&m[0], "NOPE") == NULL);
        gemm_point p;
        ST_CHECK(gemm_point_from_meta(&m[0], &p, err, sizeof err) == 0);
        ST_CHECK(p.t == GT_BF16 && p.tc == GT_F32 && p.bm == 128 && p.bn == 64 && p.bk == 32 && p.vec == 8);
        ST_CHECK(strncmp(p.desc, "T=bf16 TC=f32 BM=128 BN=64 BK=32", 32) == 0);
        unsigned g[3];
        ST_CHECK(gemm_grid(&p, 300, 500, 64, 0, 0, g, err, sizeof err) == 0 && g[0] == 8 && g[1] == 3 && g[2] == 1);
        ST_CHECK(gemm_point_n_multiple(&p) == 1);
        /* Shapes of a point: K a multiple of VEC, tails where promised. */
        p.vec = 8;
        for (int s = 0; s < NSHAPES; s++) {
            shape sh = point_shape(&p, s);
            ST_CHECK(sh.k % 8 == 0 && sh.k > 0 && sh.m > 0 && sh.n > 0);
            if (s >= NFIXED) ST_CHECK(sh.m % p.bm != 0 && sh.n % p.bn != 0 && sh.k % p.bk != 0);
        }
        ST_CHECK(point_shape(&p, 5).k == 136);
        p.vec = 1;
        ST_CHECK(point_shape(&p, 5).k == 129);
        p.vec = 4;
        ST_CHECK(point_shape(&p, 5).k == 132);
        ST_CHECK(strcmp(m[1].kernel, "other") == 0 && m[1].threads[1] == 2 && m[1].nparams == 0);
        ST_CHECK(gemm_point_from_meta(&m[1], &p, err, sizeof err) != 0); /* not a GEMM */
    }
    free(m);
    /* a damaged description is refused with a reason, never half read */
    static const char *const bad[] = {
        "// cutec.kernel k\n// cutec.threads 256 1 1\n",                         /* no contract version */
        "// cutec.kernel k\n// cutec.contract 99\n",                             /* another version */
        "// cutec.kernel k\n// cutec.contract 1\n// cutec.threads 256 0 1\n",    /* zero */
        "// cutec.kernel k\n// cutec.contract 1\n// cutec.arg 1 x scalar i32\n", /* out of order */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = NULL;
        err[0] = '\0';
        int rc = gemm_parse_meta(bad[i], strlen(bad[i]), &m, &n, err, sizeof err);
        ST_CHECK(rc != 0 && m == NULL && err[0] != '\0');
        if (rc == 0) {
            fprintf(stderr, "self-test: accepted bad metadata %zu\n", i);
            free(m);
        }
    }
    ST_CHECK(gemm_parse_meta("", 0, &m, &n, err, sizeof err) == 0 && n == 0);
    free(m);
    /* a persistent TMA kernel: resident(x) launches x where the device's
   * capacity is unknown (0), else at most that many blocks; a used map
   * over the output needs 16-byte rows */
    static const char grid_meta[] =
        "// cutec.kernel gemm_sm90\n// cutec.contract 1\n// cutec.class gemm\n// cutec.threads 384 1 1\n"
        "// cutec.smem_static 0\n// cutec.smem_dynamic 0\n"
        "// cutec.arg 0 M scalar i32 role m\n// cutec.arg 1 N scalar i32 role n\n// cutec.arg 2 K scalar i32 role k\n"
        "// cutec.arg 3 A tensor bf16 rank 2 shape M K stride K 1 align 16 role a\n"
        "// cutec.arg 4 B tensor bf16 rank 2 shape N K stride K 1 align 16 role b\n"
        "// cutec.arg 5 C tensor bf16 rank 2 shape M N stride N 1 align 16 role d\n"
        "// cutec.arg 6 tmC tma 5 rank 2 dims N M stride N box 64 64 swizzle 128\n"
        "// cutec.grid resident((min((ceil_div(M,128)*ceil_div(N,256)),(132/(2*1)))*2)) 1 1\n";
    ST_CHECK(gemm_parse_meta(grid_meta, sizeof grid_meta - 1, &m, &n, err, sizeof err) == 0 && n == 1);
    if (n == 1) {
        gemm_point p;
        unsigned g[3];
        ST_CHECK(gemm_point_from_meta(&m[0], &p, err, sizeof err) == 0);
        ST_CHECK(gemm_grid(&p, 4096, 4096, 4096, 0, 0, g, err, sizeof err) == 0 && g[0] == 132);
        ST_CHECK(gemm_grid(&p, 4096, 4096, 4096, 0, 120, g, err, sizeof err) == 0 && g[0] == 120);
        ST_CHECK(gemm_grid(&p, 256, 512, 64, 0, 120, g, err, sizeof err) == 0 && g[0] == 8);
        ST_CHECK(gemm_point_n_multiple(&p) == 8);
        p.meta.args[6].unused = 1;
        ST_CHECK(gemm_point_n_multiple(&p) == 1);
    }
    free(m);
}

/* Simulates a correct kernel (f32 accumulation in k order, RNE to tc) and
 * broken ones; the checker must accept the first and reject the others. */
/* The epilogue's check: an output computed from the float64 reference
 * through bias, alpha, beta S and GELU (or gated SwiGLU), rounded to
 * bf16, passes; the same without the bias, or with one element moved past
 * its bound, fails. */
static void self_test_epilogue(void)
{
    for (int gated = 0; gated < 2; gated++) {
        shape_data d;
        ST_CHECK(shape_data_make(&d, 37, 48, 40, GT_BF16, GT_BF16, 3, 0) == 0);
        gemm_epi e;
        memset(&e, 0, sizeof e);
        e.alpha = e.src = e.bias = e.bias_row = e.aux = 1;
        e.gated = gated;
        e.scale = gated ? 1 : 2;
        e.act = cutec_act_find(gated ? "swiglu" : "gelu_tanh", gated ? 6 : 9);
        e.tc = GT_BF16;
        e.alpha_v = 0.75;
        e.beta_v = -0.5;
        ST_CHECK(e.act != NULL && gemm_epi_any(&e) && gemm_epi_make(&e, d.m, d.n, d.k, 9) == 0);
        long cols = gemm_epi_out_cols(&e, d.n);
        uint16_t *c = malloc((size_t)d.m * (size_t)cols * 2), *aux = malloc((size_t)d.m * (size_t)d.n * 2);
        ST_CHECK(c != NULL && aux != NULL);
        if (c == NULL || aux == NULL || e.act == NULL) {
            free(c);
            free(aux);
            shape_data_free(&d);
            gemm_epi_free(&e);
            continue;
        }
        for (int nobias = 0; nobias < 2; nobias++) {
            e.bias = !nobias;
            for (long i = 0; i < d.m; i++) {
                for (long j = 0; j < cols; j++) {
                    double ref, bound;
                    expect(&d, &e, 0, i, j, GT_BF16, &ref, &bound);
                    c[i * cols + j] = gemm_f32_to_bf16((float)ref);
                }
                for (long j = 0; j < d.n; j++) {
                    double ref, bound;
                    expect(&d, &e, 1, i, j, GT_BF16, &ref, &bound);
                    aux[i * d.n + j] = gemm_f32_to_bf16((float)ref);
                }
            }
            e.bias = 1;
            ST_CHECK(check_result_of(&d, &e, 0, cols, c, GT_BF16).pass == !nobias);
            ST_CHECK(check_result_of(&d, &e, 1, d.n, aux, GT_BF16).pass == !nobias);
        }
        /* a plain check of the epilogue's output fails: the epilogue matters */
        ST_CHECK(!check_result_of(&d, NULL, 0, cols, c, GT_BF16).pass || gated);
        /* a clamp: the unclamped output fails, the clamped one passes (c
         * above is the output without the bias: made afresh here) */
        uint16_t *cu = malloc((size_t)d.m * (size_t)cols * 2), *cc = malloc((size_t)d.m * (size_t)cols * 2);
        ST_CHECK(cu != NULL && cc != NULL);
        for (int clamp = 0; cu != NULL && cc != NULL && clamp < 2; clamp++) {
            e.clamp = clamp, e.clamp_lo_v = -0.125, e.clamp_hi_v = 0.25;
            for (long i = 0; i < d.m; i++)
                for (long j = 0; j < cols; j++) {
                    double ref, bound;
                    expect(&d, &e, 0, i, j, GT_BF16, &ref, &bound);
                    (clamp ? cc : cu)[i * cols + j] = gemm_f32_to_bf16((float)ref);
                }
        }
        if (cu != NULL && cc != NULL) {
            ST_CHECK(check_result_of(&d, &e, 0, cols, cc, GT_BF16).pass);
            ST_CHECK(!check_result_of(&d, &e, 0, cols, cu, GT_BF16).pass);
        }
        free(cu);
        free(cc);
        e.clamp = 0;
        double ref, bound;
        expect(&d, &e, 0, 5, 7, GT_BF16, &ref, &bound);
        c[5 * cols + 7] = gemm_f32_to_bf16((float)(ref + 3 * bound + 0.05));
        ST_CHECK(!check_result_of(&d, &e, 0, cols, c, GT_BF16).pass);
        free(c);
        free(aux);
        shape_data_free(&d);
        gemm_epi_free(&e);
    }
}

static void self_test_checker(void)
{
    static const long dims[][3] = {{7, 5, 8}, {33, 17, 520}, {64, 64, 1024}};
    const gemm_type tcs[] = {GT_BF16, GT_F16, GT_F32};
    for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
        static const gemm_type ins[][2] = {
            {GT_BF16, GT_BF16}, {GT_F16, GT_F16}, {GT_E4M3, GT_E4M3}, {GT_E4M3, GT_E5M2}};
        for (size_t ti = 0; ti < sizeof ins / sizeof ins[0]; ti++) {
            gemm_type t = ins[ti][0], tb = ins[ti][1];
            shape_data d;
            long m = dims[di][0], n = dims[di][1], k = dims[di][2];
            ST_CHECK(shape_data_make(&d, m, n, k, t, tb, 7, 0) == 0);
            if (!d.valid) continue;
            /* Naive reference agrees with the blocked one. */
            for (long i = 0; i < m; i += 3) {
                for (long j = 0; j < n; j += 2) {
                    double s = 0;
                    for (long p = 0; p < k; p++)
                        s += gemm_load(d.a, t, (size_t)(i * k + p)) * gemm_load(d.b, tb, (size_t)(j * k + p));
                    ST_CHECK(fabs(s - d.ref[i * n + j]) <= 1e-12 * d.absref[i * n + j]);
                }
            }
            for (int ci = 0; ci < 3; ci++) {
                gemm_type tc = tcs[ci];
                size_t nc = (size_t)(m * n);
                void *c = malloc(nc * 4);
                for (long i = 0; i < m; i++) {
                    for (long j = 0; j < n; j++) {
                        float acc = 0;
                        for (long p = 0; p < k; p++)
                            acc += (float)gemm_load(d.a, t, (size_t)(i * k + p)) *
                                   (float)gemm_load(d.b, tb, (size_t)(j * k + p));
                        size_t idx = (size_t)(i * n + j);
                        if (tc == GT_F32)
                            ((float *)c)[idx] = acc;
                        else
                            ((uint16_t *)c)[idx] = tc == GT_BF16 ? gemm_f32_to_bf16(acc) : gemm_f32_to_f16(acc);
                    }
                }
                check_result r = check_output(&d, c, tc);
                if (!r.pass)
                    fprintf(stderr,
                            "self-test: correct result rejected: m=%ld n=%ld k=%ld t=%s tc=%s "
                            "ratio=%g fro=%g\n",
                            m, n, k, gemm_type_name(t), gemm_type_name(tc), r.max_ratio, r.rel_fro);
                ST_CHECK(r.pass && r.max_ratio <= 1.0);
                size_t victim = nc / 2;
                /* One element off by 3% of the row's scale, or twice the fp8
         * accumulation's allowance where that is larger. */
                void *c2 = malloc(nc * 4);
                memcpy(c2, c, nc * 4);
                double bump = d.ref[victim] + fmax(0.03, 2.0 * (double)k * accum_unit(t)) * d.absref[victim] + 0.5;
                if (tc == GT_F32)
                    ((float *)c2)[victim] = (float)bump;
                else
                    ((uint16_t *)c2)[victim] =
                        tc == GT_BF16 ? gemm_f32_to_bf16((float)bump) : gemm_f32_to_f16((float)bump);
                r = check_output(&d, c2, tc);
                ST_CHECK(!r.pass && r.nbad >= 1);
                /* One element left unwritten (NaN poison). */
                memcpy(c2, c, nc * 4);
                if (tc == GT_F32)
                    ((float *)c2)[nc - 1] = NAN;
                else
                    ((uint16_t *)c2)[nc - 1] = 0xFFFFu;
                r = check_output(&d, c2, tc);
                ST_CHECK(!r.pass && r.nnan == 1);
                /* Transposed output (a layout bug) fails. */
                if (m == n) {
                    for (long i = 0; i < m; i++)
                        for (long j = 0; j < n; j++)
                            memcpy((char *)c2 + (size_t)(i * n + j) * gemm_type_size(tc),
                                   (char *)c + (size_t)(j * n + i) * gemm_type_size(tc), gemm_type_size(tc));
                    ST_CHECK(!check_output(&d, c2, tc).pass);
                }
                free(c2);
                free(c);
            }
            shape_data_free(&d);
        }
    }
    /* The same (M, N, K, T, seed) gives the same data; another T other data. */
    shape_data d1, d2;
    ST_CHECK(shape_data_make(&d1, 3, 4, 8, GT_BF16, GT_BF16, 1, 0) == 0);
    ST_CHECK(shape_data_make(&d2, 3, 4, 8, GT_BF16, GT_BF16, 1, 0) == 0);
    ST_CHECK(memcmp(d1.a, d2.a, 3 * 8 * 2) == 0);
    shape_data_free(&d2);
    ST_CHECK(shape_data_make(&d2, 3, 4, 8, GT_BF16, GT_BF16, 2, 0) == 0);
    ST_CHECK(memcmp(d1.a, d2.a, 3 * 8 * 2) != 0);
    shape_data_free(&d1);
    shape_data_free(&d2);
}

/* Block-wise scales: the reference of the scaled inputs is, element by
 * element, sum over k of scale_a(i, k/128) scale_b(j/128, k/128) a b
 * (written out here the direct way, K = 300: three blocks, the last
 * partial; N = 150: two column blocks), and differs from the unscaled one. */
static void self_test_block_scales(void)
{
    shape_data d, b;
    ST_CHECK(shape_data_make(&d, 9, 150, 300, GT_E4M3, GT_E4M3, 5, 0) == 0);
    gemm_epi e;
    memset(&e, 0, sizeof e);
    e.scale = 3;
    e.tc = GT_BF16;
    ST_CHECK(gemm_epi_make(&e, d.m, d.n, d.k, 11) == 0 && e.kb == 3 && e.nb == 2);
    ST_CHECK(block_reference(&d, &e, &b) == 0);
    if (b.ref != NULL) {
        const long pts[3][2] = {{0, 0}, {4, 130}, {8, 149}};
        for (int q = 0; q < 3; q++) {
            long i = pts[q][0], j = pts[q][1];
            double want = 0;
            for (long p = 0; p < d.k; p++)
                want += gemm_load(d.a, d.t, (size_t)(i * d.k + p)) * gemm_load(d.b, d.tb, (size_t)(j * d.k + p)) *
                        (double)e.sa[i + d.m * (p / 128)] * (double)e.sb[(j / 128) * 3 + p / 128];
            double got = b.ref[(size_t)(i * d.n + j)];
            ST_CHECK(fabs(got - want) <= 1e-12 * (fabs(want) + 1));
            ST_CHECK(fabs(d.ref[(size_t)(i * d.n + j)] - want) > 1e-6 * (fabs(want) + 1));
        }
    }
    shape_data_free(&b);
    shape_data_free(&d);
    gemm_epi_free(&e);
}

/* A batched kernel on the CPU: each problem's D = A B^T, read from the
 * images ha and hb and written into hc with steps sa, sb and sd
 * (elements), f32 accumulation rounded to tc, as the device would. */
static void simulate_batch(const case_layout *l, const shape_data *d, gemm_type tc, const unsigned char *ha,
                           const unsigned char *hb, unsigned char *hc, long long sa, long long sb, long long sd)
{
    for (int p = 0; p < l->nprob; p++)
        for (long i = 0; i < d->m; i++)
            for (long j = 0; j < d->n; j++) {
                float acc = 0;
                for (long q = 0; q < d->k; q++) {
                    size_t ia = (size_t)(p * sa + (l->amn ? q * l->lda + i : i * l->lda + q));
                    size_t ib = (size_t)(p * sb + (l->bmn ? q * l->ldb + j : j * l->ldb + q));
                    acc += (float)gemm_load(ha + GUARD, d->t, ia) * (float)gemm_load(hb + GUARD, d->tb, ib);
                }
                size_t at = (size_t)(p * sd + i * l->cols + j);
                cutec_dtype_store(tc, hc + GUARD + at * l->esc, (double)acc);
            }
}

/* Batches: each problem has its own data (problem 0 the shape's own); a
 * batched kernel simulated on the CPU through the case's layout passes
 * with its guards and gaps intact, and one that misses B's batch step,
 * writes D packed where the case has gaps, or touches a gap fails.  The
 * runs of a batched point; a batched description's arguments (L as its
 * i32, the strides as their i64), for one problem a batch of one with
 * the packed spans, its rank-3 map's geometry and its grid. */
static void self_test_batch(void)
{
    enum { L = 3 };
    static const struct {
        gemm_type t, tc;
        int amn, bmn, gap;
    } cases[] = {{GT_BF16, GT_BF16, 0, 0, 1},
                 {GT_F16, GT_F32, 1, 1, 1},
                 {GT_BF16, GT_F32, 1, 0, 0},
                 {GT_E4M3, GT_BF16, 0, 0, 1}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        gemm_type t = cases[ci].t, tc = cases[ci].tc;
        shape_data d[L], alone;
        int made = 1;
        for (int p = 0; p < L; p++) made &= shape_data_make(&d[p], 33, 24, 40, t, t, 9, p) == 0;
        ST_CHECK(made && shape_data_make(&alone, 33, 24, 40, t, t, 9, 0) == 0);
        size_t na = 33 * 40 * gemm_type_size(t);
        ST_CHECK(memcmp(d[0].a, alone.a, na) == 0 && memcmp(d[1].a, d[0].a, na) != 0 &&
                 memcmp(d[2].b, d[1].b, 24 * 40 * gemm_type_size(t)) != 0);
        shape_data_free(&alone);
        case_layout l = case_layout_of(d, cases[ci].amn, cases[ci].bmn, tc, 24, L, cases[ci].gap);
        ST_CHECK(l.sd == 33 * 24 + (cases[ci].gap ? BATCH_GAP : 0) && l.sa == (cases[ci].amn ? 40 : 33) * 40);
        unsigned char *ha = malloc(l.bytes_a), *hb = malloc(l.bytes_b), *hc = malloc(l.bytes_c),
                      *out = malloc(l.bytes_c);
        ST_CHECK(ha != NULL && hb != NULL && hc != NULL && out != NULL);
        if (ha == NULL || hb == NULL || hc == NULL || out == NULL) {
            free(ha), free(hb), free(hc), free(out);
            for (int p = 0; p < L; p++) shape_data_free(&d[p]);
            continue;
        }
        case_inputs(&l, d, ha, hb);
        case_output(&l, d, tc, hc);
        int bad_prob = 7;
        /* right */
        memcpy(out, hc, l.bytes_c);
        simulate_batch(&l, d, tc, ha, hb, out, l.sa, l.sb, l.sd);
        check_result r = check_case(&l, d, NULL, out, tc, &bad_prob);
        ST_CHECK(r.pass && bad_prob == -1 && case_guards_intact(&l, d, out, hc));
        /* one byte into the gap after problem 0 (or past the last problem) */
        size_t past0 = GUARD + l.nc * l.esc;
        out[cases[ci].gap ? past0 + 5 : l.bytes_c - GUARD + 5] ^= 1;
        ST_CHECK(!case_guards_intact(&l, d, out, hc) && check_case(&l, d, NULL, out, tc, &bad_prob).pass);
        /* every problem reads problem 0's B: problem 1 is the first wrong */
        memcpy(out, hc, l.bytes_c);
        simulate_batch(&l, d, tc, ha, hb, out, l.sa, 0, l.sd);
        r = check_case(&l, d, NULL, out, tc, &bad_prob);
        ST_CHECK(!r.pass && bad_prob == 1 && r.nbad > 0 && case_guards_intact(&l, d, out, hc));
        /* problems swapped: each is checked against its own data */
        memcpy(out, hc, l.bytes_c);
        simulate_batch(&l, d, tc, ha, hb, out, l.sa, l.sb, l.sd);
        memcpy(out + GUARD, out + GUARD + (size_t)l.sd * l.esc, l.nc * l.esc);
        ST_CHECK(!check_case(&l, d, NULL, out, tc, &bad_prob).pass && bad_prob == 0);
        /* D written packed, ignoring the gaps: caught by the guards and the values */
        if (cases[ci].gap) {
            memcpy(out, hc, l.bytes_c);
            simulate_batch(&l, d, tc, ha, hb, out, l.sa, l.sb, (long long)l.nc);
            ST_CHECK(!case_guards_intact(&l, d, out, hc) && !check_case(&l, d, NULL, out, tc, &bad_prob).pass);
        }
        free(ha), free(hb), free(hc), free(out);
        for (int p = 0; p < L; p++) shape_data_free(&d[p]);
    }
    /* a batch of one is laid out as the single GEMM always was */
    shape_data one;
    ST_CHECK(shape_data_make(&one, 5, 8, 16, GT_BF16, GT_BF16, 1, 0) == 0);
    case_layout l1 = case_layout_of(&one, 0, 0, GT_BF16, 8, 1, 1);
    ST_CHECK(l1.bytes_a == 5 * 16 * 2 + 2 * GUARD && l1.bytes_b == 8 * 16 * 2 + 2 * GUARD &&
             l1.bytes_c == 5 * 8 * 2 + 2 * GUARD);
    shape_data_free(&one);

    /* the runs of a batched point and of a plain one */
    gemm_point bp, pp;
    memset(&bp, 0, sizeof bp);
    memset(&pp, 0, sizeof pp);
    static const char batched_desc[] =
        "// cutec.kernel user_gemm_batched\n// cutec.contract 1\n// cutec.class gemm\n// cutec.threads 16 16 1\n"
        "// cutec.smem_static 0\n// cutec.smem_dynamic 0\n// cutec.param T bf16\n// cutec.param TC bf16\n"
        "// cutec.arg 0 M scalar i32 role m\n// cutec.arg 1 N scalar i32 role n\n// cutec.arg 2 K scalar i32 role k\n"
        "// cutec.arg 3 L scalar i32 role batch\n// cutec.arg 4 sa scalar i64 role stride_a\n"
        "// cutec.arg 5 sb scalar i64 role stride_b\n// cutec.arg 6 sd scalar i64 role stride_d\n"
        "// cutec.arg 7 A tensor bf16 rank 3 shape M K L stride 1 M sa align 2 role a\n"
        "// cutec.arg 8 B tensor bf16 rank 3 shape N K L stride K 1 sb align 2 role b\n"
        "// cutec.arg 9 D tensor bf16 rank 3 shape M N L stride N 1 sd align 2 role d\n"
        "// cutec.arg 10 tmA tma 7 rank 3 dims M K L stride M sa box 64 64 1 swizzle 128\n"
        "// cutec.arg 11 tmD tma 9 rank 3 dims N M L stride N sd box 64 32 1 swizzle 128\n"
        "// cutec.grid ceil_div(N,16) ceil_div(M,16) L\n";
    gemm_kernel_meta *m = NULL;
    int n = 0;
    char err[256] = "";
    ST_CHECK(gemm_parse_meta(batched_desc, sizeof batched_desc - 1, &m, &n, err, sizeof err) == 0 && n == 1);
    if (n == 1 && gemm_point_from_meta(&m[0], &bp, err, sizeof err) == 0) {
        pp = bp;
        pp.meta.args[3].role = CUTEC_ROLE_NONE; /* no batch role: a plain point */
        ST_CHECK(gemm_point_batched(&bp) && !gemm_point_batched(&pp));
        ST_CHECK(gemm_point_mn_major(&bp, CUTEC_ROLE_A) && !gemm_point_mn_major(&bp, CUTEC_ROLE_B));
        ST_CHECK(point_runs(&bp, 0) == NSHAPES + 1 && point_runs(&bp, 1) == NSHAPES && point_runs(&pp, 0) == NSHAPES);
        int gaps = 0;
        for (int c = 0; c < NSHAPES; c++) {
            run_plan rp = point_run(&bp, c, 5), pr = point_run(&pp, c, 5);
            ST_CHECK(rp.shape == c && rp.nprob == 5 && pr.shape == c && pr.nprob == 1 && !pr.gap);
            gaps += rp.gap;
        }
        ST_CHECK(gaps == 1 && point_run(&bp, NSHAPES - 1, 5).gap); /* the smallest ragged shape */
        run_plan one_run = point_run(&bp, NSHAPES, 5);
        ST_CHECK(one_run.shape == NFIXED && one_run.nprob == 1 && !one_run.gap);
        /* the arguments: L as i32, the strides as i64 (past 2^32: all 64 bits) */
        gemm_args ga;
        memset(&ga, 0, sizeof ga);
        ga.m = 100, ga.n = 48, ga.k = 64, ga.lda = 104, ga.ldb = 64, ga.ldd = 48;
        ga.batch = 3, ga.stride_a = 104 * 64, ga.stride_b = 0, ga.stride_d = (1LL << 33) + 48;
        ga.a = 0x10000, ga.b = 0x20000, ga.c = 0x30000;
        ST_CHECK(gemm_build_args(NULL, &bp.meta, &ga, err, sizeof err) != 0); /* maps need a runtime */
        int32_t l32;
        int64_t s64[3];
        memcpy(&l32, ga.args[3], 4);
        for (int q = 0; q < 3; q++) memcpy(&s64[q], ga.args[4 + q], 8);
        ST_CHECK(l32 == 3 && s64[0] == 104 * 64 && s64[1] == 0 && s64[2] == (1LL << 33) + 48);
        ST_CHECK(*(const unsigned long long *)ga.args[8] == 0x20000);
        uint64_t dims[CUTEC_KD_MAX_TMA_RANK], strides[CUTEC_KD_MAX_TMA_RANK];
        ST_CHECK(gemm_map_geometry(&bp.meta, &ga, 10, dims, strides, err, sizeof err) == 0);
        ST_CHECK(dims[0] == 100 && dims[1] == 64 && dims[2] == 3 && strides[0] == 200 && strides[1] == 104 * 64 * 2);
        ST_CHECK(gemm_map_geometry(&bp.meta, &ga, 11, dims, strides, err, sizeof err) == 0);
        ST_CHECK(dims[0] == 48 && dims[1] == 100 && dims[2] == 3 && strides[1] == ((1ULL << 33) + 48) * 2);
        /* one problem: a batch of one, each stride its matrix's span (A M-major: lda x K) */
        ga.batch = 0;
        ST_CHECK(gemm_build_args(NULL, &bp.meta, &ga, err, sizeof err) != 0);
        memcpy(&l32, ga.args[3], 4);
        for (int q = 0; q < 3; q++) memcpy(&s64[q], ga.args[4 + q], 8);
        ST_CHECK(l32 == 1 && s64[0] == 104 * 64 && s64[1] == 48 * 64 && s64[2] == 100 * 48);
        unsigned g[3];
        ST_CHECK(gemm_grid(&bp, 100, 48, 64, 3, 0, g, err, sizeof err) == 0 && g[0] == 3 && g[1] == 7 && g[2] == 3);
        ST_CHECK(gemm_grid(&bp, 100, 48, 64, 0, 0, g, err, sizeof err) == 0 && g[2] == 1);
    } else {
        ST_CHECK(!"the batched description reads");
    }
    free(m);
}

/* A grouped kernel on the CPU: D's rows 0 .. rows - 1, each with its
 * group's B (sb elements apart), a row past the last group's end with the
 * last group's, read from the images and written into hc as the device
 * would (f32 accumulation rounded to tc). */
static void simulate_grouped(const case_layout *l, const shape_data *d, gemm_type tc, const unsigned char *ha,
                             const unsigned char *hb, unsigned char *hc, long long sb, long rows)
{
    for (long i = 0; i < rows; i++) {
        int g = l->nprob - 1;
        for (int q = 0; q < l->nprob; q++)
            if (i >= d[q].row0 && i < d[q].row0 + d[q].m) g = q;
        for (long j = 0; j < d->n; j++) {
            float acc = 0;
            for (long q = 0; q < d->k; q++) {
                size_t ia = (size_t)(l->amn ? q * l->lda + i : i * l->lda + q);
                size_t ib = (size_t)(g * sb + (l->bmn ? q * l->ldb + j : j * l->ldb + q));
                acc += (float)gemm_load(ha + GUARD, d->t, ia) * (float)gemm_load(hb + GUARD, d->tb, ib);
            }
            cutec_dtype_store(tc, hc + GUARD + (size_t)(i * l->cols + j) * l->esc, (double)acc);
        }
    }
}

/* Grouped cases: the runs' row counts have empty groups, groups of one
 * row and groups past one and two tiles of 128, a tail past the last end
 * (but on run 0), and the clamped run an empty group from a decreasing
 * end and a last end past M; a grouped kernel simulated through the
 * layout passes with the tail's sentinel intact, one that misses B's
 * group step or writes the tail fails; a grouped description's runs and
 * arguments; the runtime's statuses for a grouped problem's mistakes,
 * through cutec_gemm_ex (they come before any device work). */
static void self_test_grouped(void)
{
    enum { G = GROUPS_DEFAULT };
    int ends[G];
    long lo[G], hi[G];
    for (int run = 0; run <= NSHAPES; run++) {
        long m = grouped_ends(G, run, ends);
        grouped_clamp(G, m, ends, lo, hi);
        int empty = 0, one = 0, two_tiles = 0;
        for (int g = 0; g < G; g++) {
            empty += hi[g] == lo[g];
            one += hi[g] - lo[g] == 1;
            two_tiles += hi[g] - lo[g] > 256;
        }
        ST_CHECK(empty >= 1 && one >= 1 && two_tiles >= 1);
        ST_CHECK(run == 0 || run == NSHAPES ? hi[G - 1] == m : hi[G - 1] < m);
        if (run == NSHAPES) /* a decrease (an empty group) and an end past M */
            ST_CHECK(ends[G / 2] < ends[G / 2 - 1] && lo[G / 2] == hi[G / 2] && ends[G - 1] > m);
    }
    static const struct {
        int run, amn, bmn;
        gemm_type tc;
    } cases[] = {{1, 0, 0, GT_BF16}, {2, 0, 1, GT_F32}, {NSHAPES, 1, 1, GT_BF16}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        grouped_data gd;
        gemm_type tc = cases[ci].tc;
        ST_CHECK(grouped_make(&gd, G, cases[ci].run, 24, 16, GT_BF16, GT_BF16, 5) == 0);
        if (!gd.valid) continue;
        const shape_data *d = gd.d;
        case_layout l = grouped_layout_of(d, G, cases[ci].amn, cases[ci].bmn, tc, 24);
        ST_CHECK(l.m == d[G].row0 + d[G].m && l.sb % 8 == 0 && d[1].row0 == d[0].m);
        unsigned char *ha = malloc(l.bytes_a), *hb = malloc(l.bytes_b), *hc = malloc(l.bytes_c),
                      *out = malloc(l.bytes_c);
        ST_CHECK(ha != NULL && hb != NULL && hc != NULL && out != NULL);
        if (ha != NULL && hb != NULL && hc != NULL && out != NULL) {
            case_inputs(&l, d, ha, hb);
            case_output(&l, d, tc, hc);
            int bad = 7;
            long rows = d[G].row0; /* the last group's end */
            memcpy(out, hc, l.bytes_c);
            simulate_grouped(&l, d, tc, ha, hb, out, l.sb, rows);
            check_result r = check_case(&l, d, NULL, out, tc, &bad);
            ST_CHECK(r.pass && bad == -1 && case_guards_intact(&l, d, out, hc));
            /* every group with the first B: the first nonempty group after
             * group 0 is the first wrong */
            int want = 1;
            while (want < G && d[want].m == 0) want++;
            memcpy(out, hc, l.bytes_c);
            simulate_grouped(&l, d, tc, ha, hb, out, 0, rows);
            r = check_case(&l, d, NULL, out, tc, &bad);
            ST_CHECK(!r.pass && bad == want && case_guards_intact(&l, d, out, hc));
            /* the rows past the last end written: the sentinel is gone */
            memcpy(out, hc, l.bytes_c);
            simulate_grouped(&l, d, tc, ha, hb, out, l.sb, l.m);
            ST_CHECK(check_case(&l, d, NULL, out, tc, &bad).pass &&
                     case_guards_intact(&l, d, out, hc) == (d[G].m == 0));
        }
        free(ha), free(hb), free(hc), free(out);
        grouped_free(&gd);
    }

    /* a grouped description: its runs, and its arguments (G as i32, B's step as i64, the ends' address) */
    static const char grouped_desc[] =
        "// cutec.kernel user_gemm_grouped\n// cutec.contract 1\n// cutec.class gemm\n// cutec.threads 16 16 1\n"
        "// cutec.smem_static 0\n// cutec.smem_dynamic 0\n// cutec.param T bf16\n// cutec.param TC bf16\n"
        "// cutec.arg 0 M scalar i32 role m\n// cutec.arg 1 N scalar i32 role n\n// cutec.arg 2 K scalar i32 role k\n"
        "// cutec.arg 3 G scalar i32 role batch\n// cutec.arg 4 sb scalar i64 role stride_b\n"
        "// cutec.arg 5 A tensor bf16 rank 2 shape M K stride K 1 align 2 role a\n"
        "// cutec.arg 6 B tensor bf16 rank 3 shape N K G stride K 1 sb align 2 role b\n"
        "// cutec.arg 7 D tensor bf16 rank 2 shape M N stride N 1 align 2 role d\n"
        "// cutec.arg 8 ends tensor i32 rank 1 shape G stride 1 align 4 role group_ends\n"
        "// cutec.grid ceil_div(N,16) ceil_div(M,16) 1\n";
    gemm_kernel_meta *m = NULL;
    int n = 0;
    char err[256] = "";
    gemm_point gp;
    ST_CHECK(gemm_parse_meta(grouped_desc, sizeof grouped_desc - 1, &m, &n, err, sizeof err) == 0 && n == 1);
    if (n == 1 && gemm_point_from_meta(&m[0], &gp, err, sizeof err) == 0) {
        ST_CHECK(gemm_point_grouped(&gp) && point_runs(&gp, 0) == NSHAPES + 1 && point_runs(&gp, 1) == NSHAPES + 1);
        run_plan rp = point_run(&gp, NSHAPES, 5);
        ST_CHECK(rp.grouped && rp.shape == NSHAPES - 1 && point_run(&gp, 3, 5).shape == 3);
        gemm_args ga;
        memset(&ga, 0, sizeof ga);
        ga.m = 600, ga.n = 24, ga.k = 16, ga.batch = 8, ga.stride_b = (1LL << 33) + 64, ga.ends = 0x40000;
        ga.a = 0x10000, ga.b = 0x20000, ga.c = 0x30000;
        ST_CHECK(gemm_build_args(NULL, &gp.meta, &ga, err, sizeof err) == 0);
        int32_t g32;
        int64_t sb;
        memcpy(&g32, ga.args[3], 4);
        memcpy(&sb, ga.args[4], 8);
        ST_CHECK(g32 == 8 && sb == (1LL << 33) + 64 && *(const unsigned long long *)ga.args[8] == 0x40000);
        unsigned g[3];
        ST_CHECK(gemm_grid(&gp, 600, 24, 16, 8, 0, g, err, sizeof err) == 0 && g[0] == 2 && g[1] == 38 && g[2] == 1);
    } else {
        ST_CHECK(!"the grouped description reads");
    }
    free(m);

    /* the runtime's statuses for a grouped problem's mistakes, through the
     * public entry point, before any device work (docs/runtime.md, "Grouped
     * GEMM"); the pointers are never read */
    cutec_runtime *rt = NULL;
    (void)cutec_runtime_create(&rt, 0);
    cutec_gemm_handle *h = NULL;
    ST_CHECK(rt != NULL && cutec_gemm_create(rt, &h) == CUTEC_OK);
    if (h != NULL) {
        static int dev_ends[4] __attribute__((aligned(16)));
        static char buf[4096] __attribute__((aligned(16)));
        cutec_gemm_problem gpb;
        cutec_gemm_problem_init(&gpb, 40, 24, 32, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
        gpb.groups = 4;
        cutec_gemm_args a;
        cutec_gemm_args_init(&a, buf, buf, buf);
        ST_CHECK(cutec_gemm_ex(h, &gpb, &a, NULL) == CUTEC_ERR_NULL_POINTER); /* group_ends NULL */
        a.group_ends = dev_ends;
        gpb.groups = 0;
        ST_CHECK(cutec_gemm_ex(h, &gpb, &a, NULL) == CUTEC_ERR_INVALID_ARGUMENT); /* not grouped */
        gpb.groups = -1; /* (with group_ends given, the one above comes first) */
        a.group_ends = NULL;
        ST_CHECK(cutec_gemm_ex(h, &gpb, &a, NULL) == CUTEC_ERR_BAD_SIZE);
        a.group_ends = dev_ends;
        gpb.groups = 4;
        gpb.batch = 2;
        ST_CHECK(cutec_gemm_ex(h, &gpb, &a, NULL) == CUTEC_ERR_UNSUPPORTED); /* with a batch */
        gpb.batch = 0;
        a.group_ends = (const int *)(const void *)((const char *)dev_ends + 1); /* an odd address */
        ST_CHECK(cutec_gemm_ex(h, &gpb, &a, NULL) == CUTEC_ERR_MISALIGNED);
        ST_CHECK(strstr(cutec_runtime_message(rt), "group_ends") != NULL);
    }
    cutec_gemm_destroy(h);
    cutec_runtime_destroy(rt);
}

/* The skinny shapes keep their promises, and a GEMV description's
 * conditions (stdlib/gemv.cute: M <= BM, 16-byte rows) are read as the
 * runtime reads them: M = 16 fits, 17 does not, nor a K off 8. */
static void self_test_skinny(void)
{
    int ms = 0;
    for (int s = 0; s < NSKINNY; s++) {
        shape sh = skinny_shape(s);
        long small = s < NSKINNY1 ? sh.m : sh.n, wide = s < NSKINNY1 ? sh.n : sh.m;
        ST_CHECK(small >= 1 && small <= 16 && wide % 2 == 1 && sh.k % 8 == 0 && sh.k % 64 != 0 && sh.k % 32 != 0);
        ST_CHECK(sh.m * sh.n * sh.k <= (1L << 26)); /* the mock driver's limit */
        ms |= ((int)(small == 1) | (int)(small == 16) << 1 | (int)(small % 8 != 0 && small > 8) << 2)
              << 3 * (s >= NSKINNY1);
    }
    ST_CHECK(ms == 63);
    /* a GEMV description's lines (stdlib/gemv.cute, BM = 16) up to its
     * template parameters, its arguments, and its 16-byte condition */
#define GEMV_HEAD                                                                                                      \
    "// cutec.kernel gemv\n// cutec.contract 1\n// cutec.class gemm\n// cutec.threads 256 1 1\n"                       \
    "// cutec.smem_static 8192\n// cutec.smem_dynamic 0\n// cutec.param T bf16\n// cutec.param BM 16\n"
#define GEMV_ARGS                                                                                                      \
    "// cutec.arg 0 M scalar i32 role m\n// cutec.arg 1 N scalar i32 role n\n// cutec.arg 2 K scalar i32 role k\n"     \
    "// cutec.arg 3 lda scalar i32 role lda\n// cutec.arg 4 ldb scalar i32 role ldb\n"                                 \
    "// cutec.arg 5 ldd scalar i32 role ldd\n"                                                                         \
    "// cutec.arg 6 A tensor bf16 rank 2 shape M K stride lda 1 align 16 role a\n"                                     \
    "// cutec.arg 7 B tensor bf16 rank 2 shape N K stride ldb 1 align 16 role b\n"                                     \
    "// cutec.arg 8 D tensor bf16 rank 2 shape M N stride ldd 1 align 2 role d\n"
#define GEMV_ROWS16 "// cutec.require ((((K%8)==0)&&((lda%8)==0))&&((ldb%8)==0))\n"
    static const char desc[] =
        GEMV_HEAD GEMV_ARGS "// cutec.grid ceil_div(N,16) 1 1\n// cutec.require (M<=16)\n" GEMV_ROWS16;
    gemm_kernel_meta *m = NULL;
    int n = 0;
    char err[256];
    gemm_point p;
    ST_CHECK(gemm_parse_meta(desc, sizeof desc - 1, &m, &n, err, sizeof err) == 0 && n == 1);
    if (n == 1 && gemm_point_from_meta(&m[0], &p, err, sizeof err) == 0) {
        ST_CHECK(p.bm == 16);
        gemm_args ga;
        memset(&ga, 0, sizeof ga);
        ga.m = 16, ga.n = 37, ga.k = 72;
        ST_CHECK(gemm_point_fits(&p, &ga, err, sizeof err));
        ga.m = 17;
        ST_CHECK(!gemm_point_fits(&p, &ga, err, sizeof err) && strstr(err, "(M<=16) does not hold") != NULL);
        ga.m = 1, ga.k = 76;
        ST_CHECK(!gemm_point_fits(&p, &ga, err, sizeof err));
        ga.k = 80, ga.lda = 84; /* a padded A whose rows are not 16-byte steps */
        ST_CHECK(!gemm_point_fits(&p, &ga, err, sizeof err));
        ga.lda = 88;
        ST_CHECK(gemm_point_fits(&p, &ga, err, sizeof err));
        unsigned g[3];
        ST_CHECK(gemm_grid(&p, 3, 1001, 520, 0, 0, g, err, sizeof err) == 0 && g[0] == 63 && g[1] == 1);
    } else {
        ST_CHECK(!"the GEMV description reads");
    }
    free(m);
    /* the roles swapped (SW = 1): N is the small side, the grid runs over M */
    static const char desc_sw[] = GEMV_HEAD "// cutec.param SW 1\n" GEMV_ARGS
                                            "// cutec.grid ceil_div(M,16) 1 1\n// cutec.require (N<=16)\n" GEMV_ROWS16;
#undef GEMV_HEAD
#undef GEMV_ARGS
#undef GEMV_ROWS16
    m = NULL;
    ST_CHECK(gemm_parse_meta(desc_sw, sizeof desc_sw - 1, &m, &n, err, sizeof err) == 0 && n == 1);
    if (n == 1 && gemm_point_from_meta(&m[0], &p, err, sizeof err) == 0) {
        shape first = skinny_shape(0), swapped = skinny_shape(NSKINNY1);
        ST_CHECK(skinny_side(&p, swapped) == 1 && skinny_side(&p, first) == first.n);
        gemm_args ga;
        memset(&ga, 0, sizeof ga);
        ga.m = 1001, ga.n = 16, ga.k = 72;
        ST_CHECK(gemm_point_fits(&p, &ga, err, sizeof err));
        ga.n = 17;
        ST_CHECK(!gemm_point_fits(&p, &ga, err, sizeof err) && strstr(err, "(N<=16) does not hold") != NULL);
        unsigned g[3];
        ST_CHECK(gemm_grid(&p, 1001, 3, 520, 0, 0, g, err, sizeof err) == 0 && g[0] == 63 && g[1] == 1);
    } else {
        ST_CHECK(!"the swapped GEMV description reads");
    }
    free(m);
}

static int self_test(void)
{
    self_test_skinny();
    self_test_block_scales();
    self_test_conversions();
    self_test_meta();
    self_test_checker();
    self_test_epilogue();
    self_test_batch();
    self_test_grouped();
    printf("gemm_check self-test: %s\n", st_fail ? "FAIL" : "PASS");
    return st_fail ? 1 : 0;
}

/* ----------------------------------------------------------------- main */

/* Order of the runs: by what decides a point's shapes (A's and B's types,
 * VEC, N's multiple, then the tile sizes and stream-K behind the derived
 * shapes), then file order.  The reference of each shape is cached for the
 * next point: ordered by file alone, points whose N rounds differently
 * (EPI = 0 and 1 alternate in a tune listing) recomputed the 1000 x 999 x
 * 1024 reference at every point, most of a run's time. */
static int point_order(const void *a, const void *b)
{
    const point *x = a, *y = b;
    if (x->gp.t != y->gp.t) return x->gp.t < y->gp.t ? -1 : 1;
    if (x->gp.tb != y->gp.tb) return x->gp.tb < y->gp.tb ? -1 : 1;
    if (x->gp.vec != y->gp.vec) return x->gp.vec < y->gp.vec ? -1 : 1;
    long nx = point_n_multiple(&x->gp), ny = point_n_multiple(&y->gp);
    if (nx != ny) return nx < ny ? -1 : 1;
    const long kx[4] = {x->gp.bm, x->gp.bn, x->gp.bk, point_stream_k(&x->gp)};
    const long ky[4] = {y->gp.bm, y->gp.bn, y->gp.bk, point_stream_k(&y->gp)};
    for (int i = 0; i < 4; i++)
        if (kx[i] != ky[i]) return kx[i] < ky[i] ? -1 : 1;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gemm_check [--dtype bf16|f16|e4m3|e5m2] [--seed N] [--ragged-only] [--batch L] [--groups G]\n"
            "                  [--skinny] [--repeat] FILE.ptx...\n"
            "       gemm_check --self-test\n"
            "  --dtype T      only the points whose A has type T\n"
            "  --ragged-only  only the smallest ragged shape of each point (M, N and K no\n"
            "                 multiple of the tile): the shape compute-sanitizer runs\n"
            "  --batch L      batches of L problems (1 to 4096) for the points with a batch\n"
            "                 role (default %d, and one batch of one)\n"
            "  --groups G     groups of rows (1 to 4096) for the points with a group_ends role\n"
            "                 (grouped GEMMs; default %d)\n"
            "  --skinny       the skinny (GEMV) shapes instead: M in 1, 3, 8, 13, 16 (up to each\n"
            "                 point's BM), N odd, K a multiple of 8 and not of 64; implies --repeat\n"
            "  --repeat       run every case twice: the outputs must be the same bits\n",
            BATCH_DEFAULT, GROUPS_DEFAULT);
}

int main(int argc, char **argv)
{
    const char *dtype = NULL;
    uint64_t seed = 0x5eed;
    int first_shape = 0, ragged_only = 0, skinny = 0;
    int forced_batch = 0; /* --batch L */
    int ngroups = GROUPS_DEFAULT;
    int nfiles = 0;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    if (files == NULL) return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--self-test") == 0) {
            free(files);
            return self_test();
        } else if (strcmp(argv[i], "--dtype") == 0 && i + 1 < argc) {
            dtype = argv[++i];
            if (!gemm_type_is_input(gemm_type_parse(dtype))) {
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--skinny") == 0) {
            skinny = repeat_check = 1;
        } else if (strcmp(argv[i], "--repeat") == 0) {
            repeat_check = 1;
        } else if (strcmp(argv[i], "--ragged-only") == 0) {
            first_shape = NSHAPES - 1;
            ragged_only = 1;
        } else if ((strcmp(argv[i], "--batch") == 0 || strcmp(argv[i], "--groups") == 0) && i + 1 < argc) {
            /* a count of problems (--batch) or groups (--groups), 1 to 4096 */
            int *count = strcmp(argv[i], "--batch") == 0 ? &forced_batch : &ngroups;
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end != '\0' || end == argv[i] || v < 1 || v > 4096) {
                usage(stderr);
                free(files);
                return 2;
            }
            *count = (int)v;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            usage(stderr);
            return 2;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (nfiles == 0) {
        usage(stderr);
        return 2;
    }

    /* Metadata first: CPU only. */
    int failures = 0, npts = 0, cap = 0, skipped = 0;
    point *pts = NULL;
    for (int f = 0; f < nfiles; f++) {
        size_t len = 0;
        char *text = gemm_read_file(files[f], &len);
        if (text == NULL) {
            printf("FAIL %s: cannot read file\n", files[f]);
            failures++;
            continue;
        }
        gemm_kernel_meta *metas = NULL;
        int nm = 0;
        char err[256];
        if (gemm_parse_meta(text, len, &metas, &nm, err, sizeof err) != 0) {
            printf("FAIL %s: bad cutec metadata: %s\n", files[f], err);
            failures++;
            free(text);
            continue;
        }
        free(text);
        int found = 0;
        for (int i = 0; i < nm; i++) {
            if (metas[i].cls != CUTEC_KD_GEMM /* no serves gemm clause */) {
                printf("note: %s: ignoring kernel %s\n", base_name(files[f]), metas[i].kernel);
                continue;
            }
            found++;
            gemm_point gp;
            if (gemm_point_from_meta(&metas[i], &gp, err, sizeof err) != 0) {
                printf("FAIL %s: bad cutec metadata: %s\n", files[f], err);
                failures++;
                continue;
            }
            if (!gemm_type_is_input(gp.t) || !gemm_type_is_input(gp.tb) || gp.tc == GT_OTHER) {
                printf("SKIP %s %s [%s]: element types not handled by this test\n", base_name(files[f]), gp.meta.kernel,
                       gp.desc);
                skipped++;
                continue;
            }
            if (dtype != NULL && gp.t != gemm_type_parse(dtype)) continue;
            if (npts == cap) {
                cap = cap ? 2 * cap : 8;
                point *np = realloc(pts, (size_t)cap * sizeof *np);
                if (np == NULL) return 1;
                pts = np;
            }
            gemm_epi epi;
            if (gemm_epi_from_point(&gp, &epi, err, sizeof err) != 0) {
                printf("FAIL %s: %s\n", base_name(files[f]), err);
                failures++;
                continue;
            }
            if (gemm_point_grouped(&gp) && gemm_epi_any(&epi)) {
                /* the runtime refuses groups with epilogues (docs/runtime.md, "Grouped GEMM") */
                printf("SKIP %s %s [%s]: a grouped kernel with an epilogue: not handled by this test\n",
                       base_name(files[f]), gp.meta.kernel, gp.desc);
                gemm_epi_free(&epi);
                skipped++;
                continue;
            }
            if (gemm_point_batched(&gp) && gemm_epi_any(&epi) && forced_batch != 1) {
                /* the runtime refuses batches with epilogues (docs/runtime.md,
                 * "Batches"); as one problem (--batch 1) the epilogue is checked */
                printf("SKIP %s %s [%s]: a batched kernel with an epilogue: not handled by this test\n",
                       base_name(files[f]), gp.meta.kernel, gp.desc);
                gemm_epi_free(&epi);
                skipped++;
                continue;
            }
            memset(&pts[npts], 0, sizeof pts[npts]);
            pts[npts].gp = gp;
            pts[npts].epi = epi;
            pts[npts].file = f;
            pts[npts].seq = npts;
            npts++;
        }
        if (found == 0) {
            printf("FAIL %s: no kernel that serves gemm\n", files[f]);
            failures++;
        }
        free(metas);
    }
    if (npts == 0) {
        printf("gemm_check: no GEMM kernel point to run%s\n", dtype ? " (after --dtype)" : "");
        free(pts);
        free(files);
        return 1;
    }

    /* Points of the same T and VEC share the data and reference of the fixed
   * shapes (cached per shape): run them together. */
    qsort(pts, (size_t)npts, sizeof *pts, point_order);

    session s = {NULL, nfiles, files, calloc((size_t)nfiles, sizeof(cutec_module *)), pts, npts, 0};
    if (s.mods == NULL) return 1;
    double w_open = wall_s();
    cutec_status st = session_open(&s, &failures);
    double load_wall = wall_s() - w_open;
    if (st != CUTEC_OK) {
        int skip = st == CUTEC_ERR_NO_DRIVER || st == CUTEC_ERR_NO_DEVICE;
        printf("gemm_check: %s: %s: %s\n", skip ? "no GPU, skipping" : "cannot create the runtime",
               cutec_status_string(st), cutec_runtime_message(s.rt));
        cutec_runtime_destroy(s.rt);
        free(s.mods);
        free(pts);
        free(files);
        return skip && failures == 0 ? SKIP : 1;
    }
    char dev[256] = "?";
    int ccmaj = 0, ccmin = 0, sms = 0;
    cutec_device_info(s.rt, dev, sizeof dev, &ccmaj, &ccmin, &sms);
    printf("gemm_check: device %s (sm_%d%d, %d SMs), %d kernel point(s), %d %sshapes each (batched points: "
           "batches of %d; grouped points: %d groups)%s, seed 0x%llx\n",
           dev, ccmaj, ccmin, sms, npts, skinny ? NSKINNY : NSHAPES, skinny ? "skinny " : "",
           forced_batch > 0 ? forced_batch : BATCH_DEFAULT, ngroups, repeat_check ? ", each run twice" : "",
           (unsigned long long)seed);
    if (s.ncubins > 0)
        printf("gemm_check: %d of %d file(s) loaded from the cubin beside the PTX (module_image)\n", s.ncubins, nfiles);

    /* the problems of each shape, nbatch of them: problem 0 for every point,
     * the others for batched points */
    int nbatch = forced_batch > 0 ? forced_batch : BATCH_DEFAULT;
    shape_data *cache = calloc((size_t)NSHAPES * (size_t)nbatch, sizeof *cache);
    /* a grouped run's data, per run (the points of the same types share it) */
    grouped_data *gcache = calloc((size_t)NSHAPES + 1, sizeof *gcache);
    if (cache == NULL || gcache == NULL) return 1;
    int passes = 0, runs = 0, skipped_cases = 0;
    clock_t t0 = clock();
    /* --skinny: each point over the skinny shapes (one problem each) */
    shape_data *scache = calloc(NSKINNY, sizeof *scache);
    if (scache == NULL) return 1;
    for (int i = 0; skinny && i < npts && s.rt != NULL; i++) {
        point *p = &pts[i];
        int ran = 0;
        for (int c = 0; c < NSKINNY && !p->dead; c++) {
            if (ragged_only && c != NSKINNY1 - 1 && c != NSKINNY - 1) continue; /* each half's last */
            shape sh = skinny_shape(c);
            if (skinny_side(&p->gp, sh) > p->gp.bm) { /* past the point's class: refused by its require */
                skipped_cases++;
                continue;
            }
            shape_data *d = &scache[c];
            if (!(d->valid && d->t == p->gp.t && d->tb == p->gp.tb)) {
                shape_data_free(d);
                if (shape_data_make(d, sh.m, sh.n, sh.k, p->gp.t, p->gp.tb, seed, 0) != 0) {
                    printf("FAIL M=%ld N=%ld K=%ld: host out of memory\n", sh.m, sh.n, sh.k);
                    failures++;
                    continue;
                }
            }
            int ok = 0;
            run_status rs = run_case(&s, p, d, 1, 0, NULL, &ok);
            runs++;
            ran++;
            /* a skinny shape within the point's M is its class: a refusal is a failure */
            passes += rs == RUN_DONE && ok;
            failures += !(rs == RUN_DONE && ok);
            if (rs == RUN_FAULT) {
                p->dead = 1;
                printf("note: kernel fault: the remaining shapes of this point are not run; recreating the runtime\n");
                session_close(&s);
                if (session_open(&s, &failures) != CUTEC_OK) {
                    printf("FAIL: cannot recreate the runtime after a fault: %s\n", cutec_runtime_message(s.rt));
                    failures++;
                    cutec_runtime_destroy(s.rt);
                    s.rt = NULL;
                }
            }
        }
        if (ran == 0 && !p->dead) {
            printf("FAIL %s [%s]: no skinny shape within its BM=%ld\n", base_name(files[p->file]), p->gp.desc,
                   p->gp.bm);
            failures++;
        }
    }
    for (int i = 0; i < NSKINNY; i++) shape_data_free(&scache[i]);
    free(scache);
    for (int i = 0; !skinny && i < npts && s.rt != NULL; i++) {
        point *p = &pts[i];
        /* ragged only: a grouped point's clamped run too */
        int last = ragged_only ? NSHAPES + gemm_point_grouped(&p->gp) : point_runs(&p->gp, forced_batch > 0);
        for (int c = first_shape; c < last && !p->dead; c++) {
            run_plan rp = point_run(&p->gp, c, nbatch);
            shape sh = point_shape(&p->gp, rp.shape);
            shape_data *d = &cache[(size_t)rp.shape * (size_t)nbatch];
            const int *ends = NULL;
            int made = 1;
            if (rp.grouped) {
                grouped_data *gd = &gcache[c];
                if (!(gd->valid && gd->n == sh.n && gd->k == sh.k && gd->t == p->gp.t && gd->tb == p->gp.tb)) {
                    grouped_free(gd);
                    made = grouped_make(gd, ngroups, c, sh.n, sh.k, p->gp.t, p->gp.tb, seed) == 0;
                }
                d = gd->d;
                ends = gd->ends;
                rp.nprob = ngroups;
            }
            for (int l = 0; l < rp.nprob && made && !rp.grouped; l++) {
                shape_data *dl = &d[l];
                if (dl->valid && dl->m == sh.m && dl->n == sh.n && dl->k == sh.k && dl->t == p->gp.t &&
                    dl->tb == p->gp.tb)
                    continue;
                shape_data_free(dl);
                made = shape_data_make(dl, sh.m, sh.n, sh.k, p->gp.t, p->gp.tb, seed, l) == 0;
            }
            if (!made) {
                printf("FAIL M=%ld N=%ld K=%ld: host out of memory\n", sh.m, sh.n, sh.k);
                failures++;
                continue;
            }
            int ok = 0;
            run_status rs = run_case(&s, p, d, rp.nprob, rp.gap, ends, &ok);
            if (rs == RUN_SKIP) { /* the point's conditions refuse the shape (printed) */
                skipped_cases++;
                continue;
            }
            runs++;
            passes += rs == RUN_DONE && ok;
            failures += !(rs == RUN_DONE && ok);
            if (rs == RUN_FAULT) {
                p->dead = 1;
                printf("note: kernel fault: the remaining shapes of this point are not run; "
                       "recreating the runtime\n");
                session_close(&s);
                cutec_status rst = session_open(&s, &failures);
                if (rst != CUTEC_OK) {
                    printf("FAIL: cannot recreate the runtime after a fault: %s: %s\n", cutec_status_string(rst),
                           cutec_runtime_message(s.rt));
                    failures++;
                    cutec_runtime_destroy(s.rt);
                    s.rt = NULL;
                }
            }
        }
    }
    for (int i = 0; i < NSHAPES * nbatch; i++) shape_data_free(&cache[i]);
    free(cache);
    for (int i = 0; i <= NSHAPES; i++) grouped_free(&gcache[i]);
    free(gcache);
    if (s.rt != NULL) session_close(&s);
    printf("gemm_check: %d/%d cases passed, %d failure(s), %d point(s) skipped, %d case(s) outside a point's "
           "conditions, %.1f s CPU; wall %.1f s: loading the modules %.1f s, the float64 references %.1f s\n",
           passes, runs, failures, skipped, skipped_cases, (double)(clock() - t0) / CLOCKS_PER_SEC, wall_s() - w_open,
           load_wall, ref_wall);
    free(s.mods);
    for (int i = 0; i < npts; i++) gemm_epi_free(&pts[i].epi);
    free(pts);
    free(files);
    return failures ? 1 : 0;
}
