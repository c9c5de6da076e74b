/*
 * test_layout_h2h.c - `cutec-tune bench --layouts-h2h`'s seam
 * (runtime/tools/tune_layout_h2h.c) under the mock driver, whose virtual
 * clock gives a kernel launch a time from its tile and the problem's size
 * (mock_gemm: 1 + M N K 1e-6 (1 + 64/BM + 64/BN) microseconds), so that
 * medians are known exactly.  One shape in three layouts (A, B as K x N,
 * C): rcr served by the stdlib test pack, rrr by user_gemm.cute's
 * user_gemm_brow (B stored K x N), ccr by no pack kernel.
 *
 *   test_layout_h2h TEST_PACK USER_PACK
 *
 * Each line's fastest pack kernel is found in its tuning's report; timed
 * head to head, every named kernel runs its warm-ups and R timed runs
 * (the mock's launch count), each timed run between two events after one
 * L2 flush (its event and memset counts), on its own line's buffers (D
 * written from that line's A and B); the medians are the mock's times of
 * those kernels, not of the handle's decisions (a slower kernel named is
 * timed as itself); a line without a kernel or with a name no candidate
 * has is noted and the others still timed; no flush, no memset.
 */
#include <dlfcn.h>
#include <math.h>

#include "check.h"
#include "cutec/cutec.h"
#include "dtype.h"
#include "tune_layout_h2h.h"

enum { M = 64, N = 64, K = 64, R = 5, LINES = 3 };

typedef long long (*calls_fn)(const char *);
typedef void (*counts_fn)(long long *, long long *);

/* The mock driver's launches, events and cuMemsetD8Async calls so far. */
static void mock_counts(long long out[3])
{
    void *lib = dlopen(getenv("CUTEC_CUDA_DRIVER"), RTLD_NOW);
    CHECK(lib != NULL);
    counts_fn counts = (counts_fn)(uintptr_t)dlsym(lib, "cutec_mock_counts");
    calls_fn calls = (calls_fn)(uintptr_t)dlsym(lib, "cutec_mock_calls");
    CHECK(counts != NULL && calls != NULL);
    counts(&out[0], &out[1]);
    out[2] = calls("cuMemsetD8Async");
    dlclose(lib);
}

/* The mock's time of a stdlib GEMM kernel (user_gemm_brow: BM = BN =
 * 128, its defaults) on the problem, in milliseconds. */
static double mock_ms(const char *kernel)
{
    int bm = 128, bn = 128;
    const char *at = strstr(kernel, " BM=");
    if (at != NULL) CHECK(sscanf(at, " BM=%d BN=%d", &bm, &bn) == 2);
    return (1.0 + (double)M * N * K * 1e-6 * (1.0 + 64.0 / bm + 64.0 / bn)) / 1000.0;
}

static int near(double got, double want) { return fabs(got - want) <= 1e-5 * want; }

/* Input values exact in bf16, different in A and B. */
static float a_value(size_t i) { return (float)(i % 4) * 0.25f; }
static float b_value(size_t i) { return (float)(i % 3) * 0.5f - 0.5f; }

/* D[r][c] of a line from the stored A (row- or column-major M x K) and B
 * (the K x N matrix, row- or column-major), in float64. */
static double d_want(const cutec_gemm_problem *p, long long r, long long c)
{
    double sum = 0;
    for (long long k = 0; k < K; k++) {
        size_t ai = (size_t)(p->a_layout == CUTEC_LAYOUT_ROW ? r * K + k : k * M + r);
        size_t bi = (size_t)(p->b_layout == CUTEC_LAYOUT_ROW ? k * N + c : c * K + k);
        sum += (double)a_value(ai) * (double)b_value(bi);
    }
    return sum;
}

int main(int argc, char **argv)
{
    CHECK(argc == 3);
    cutec_runtime *rt = check_gpu_runtime();
    cutec_gemm_handle *h;
    cutec_pack *pk[2];
    CHECK_OK(rt, cutec_gemm_create(rt, &h));
    CHECK_OK(rt, cutec_gemm_set_option(h, CUTEC_OPT_DISK_CACHE, 0));
    for (int i = 0; i < 2; i++) {
        CHECK_OK(rt, cutec_pack_load_file(rt, argv[1 + i], &pk[i]));
        CHECK_OK(rt, cutec_gemm_use_pack(h, pk[i]));
    }
    static const char *const layouts[LINES] = {"rcr", "rrr", "ccr"};
    tune_h2h_line lines[LINES];
    unsigned long long buf[LINES][3]; /* A, B, D */
    uint16_t host[M * K];
    char fastest_rcr_64[CUTEC_CANDIDATE_NAME_LEN] = ""; /* a slower kernel of the rcr line: BM = BN = 64 */
    for (int l = 0; l < LINES; l++) {
        tune_h2h_line *x = &lines[l];
        memset(x, 0, sizeof *x);
        cutec_gemm_problem_init(&x->p, M, N, K, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
        x->p.a_layout = layouts[l][0] == 'r' ? CUTEC_LAYOUT_ROW : CUTEC_LAYOUT_COL;
        x->p.b_layout = layouts[l][1] == 'r' ? CUTEC_LAYOUT_ROW : CUTEC_LAYOUT_COL;
        snprintf(x->label, sizeof x->label, "%s", layouts[l]);
        x->line = l + 1;
        x->flop = 2.0 * M * N * K;
        for (int m = 0; m < 3; m++) {
            for (size_t i = 0; i < (size_t)M * K; i++)
                host[i] = check_to_bf16(m == 0 ? a_value(i) : m == 1 ? b_value(i) : 0.0f);
            CHECK_OK(rt, cutec_malloc(rt, sizeof host, &buf[l][m]));
            CHECK_OK(rt, cutec_memcpy_htod(rt, buf[l][m], host, sizeof host));
        }
        cutec_gemm_args_init(&x->args, (void *)(uintptr_t)buf[l][0], (void *)(uintptr_t)buf[l][1],
                             (void *)(uintptr_t)buf[l][2]);
        cutec_tune_report *rep = NULL;
        CHECK_OK(rt, cutec_gemm_tune_ex(h, &x->p, &x->args, NULL, &rep));
        int found = tune_h2h_best_pack(rep, x->kernel, sizeof x->kernel);
        CHECK(found == (l < 2) && (found || x->kernel[0] == '\0'));
        for (int i = 0; l == 0 && i < rep->count; i++)
            if (strstr(rep->candidates[i].name, " BM=64 BN=64 ") != NULL && fastest_rcr_64[0] == '\0')
                snprintf(fastest_rcr_64, sizeof fastest_rcr_64, "%s", rep->candidates[i].name);
        cutec_tune_report_free(rep);
    }
    CHECK_CONTAINS(lines[0].kernel, "gemm_sm80 T=bf16 TC=bf16 ");
    CHECK(strcmp(lines[1].kernel, "user_gemm_brow T=bf16 TC=bf16") == 0);
    CHECK(fastest_rcr_64[0] != '\0');

    cutec_timer *t;
    CHECK_OK(rt, cutec_timer_create(rt, CUTEC_TIMER_FLUSH_L2, &t));
    long long c0[3], c1[3];
    int fault = 0;
    mock_counts(c0);
    CHECK_OK(rt, tune_h2h_time(h, rt, t, 1, R, lines, LINES, &fault));
    mock_counts(c1);
    CHECK(fault == -1);
    /* two kernels: warm-ups and rounds each; two events and a flush per timed run */
    CHECK(c1[0] - c0[0] == 2 * (TUNE_H2H_WARMUP + R));
    CHECK(c1[1] - c0[1] == 2 * 2 * R);
    CHECK(c1[2] - c0[2] == 2 * R);
    CHECK(near(lines[0].ms, mock_ms(lines[0].kernel)));
    CHECK(near(lines[1].ms, mock_ms(lines[1].kernel)));
    CHECK(isinf(lines[2].ms) && strcmp(lines[2].note, "no pack kernel") == 0);
    /* each kernel wrote its own line's D */
    for (int l = 0; l < 2; l++) {
        uint16_t d[M * N];
        CHECK_OK(rt, cutec_memcpy_dtoh(rt, d, buf[l][2], sizeof d));
        for (long long r = 0; r < M; r += 21)
            for (long long c = 0; c < N; c += 13) {
                double want = d_want(&lines[l].p, r, c);
                float got = cutec_bf16_to_float(d[r * N + c]);
                CHECK(fabs(got - want) <= 0x1p-7 * fabs(want) + 1e-6);
            }
    }
    double ratio[LINES];
    CHECK(tune_h2h_ratios(lines, LINES, ratio) == 0);
    CHECK(ratio[0] == 1.0 && near(ratio[1], lines[0].ms / lines[1].ms) && ratio[2] == 0);
    printf("timed: %s %.6f ms, %s %.6f ms (%.4f), %s %s\n", lines[0].kernel, lines[0].ms, lines[1].kernel, lines[1].ms,
           ratio[1], lines[2].label, lines[2].note);

    /* a slower kernel named is timed as itself (the reference now slower:
     * a ratio above 1); a name that is no candidate is noted; without the
     * flush, no memset */
    snprintf(lines[0].kernel, sizeof lines[0].kernel, "%s", fastest_rcr_64);
    snprintf(lines[2].kernel, sizeof lines[2].kernel, "user_gemm_brow T=f16");
    mock_counts(c0);
    CHECK_OK(rt, tune_h2h_time(h, rt, t, 0, R, lines, LINES, &fault));
    mock_counts(c1);
    CHECK(c1[0] - c0[0] == 2 * (TUNE_H2H_WARMUP + R) && c1[1] - c0[1] == 2 * 2 * R && c1[2] == c0[2]);
    CHECK(near(lines[0].ms, mock_ms(fastest_rcr_64)) && near(lines[1].ms, mock_ms(lines[1].kernel)));
    CHECK(isinf(lines[2].ms));
    CHECK_CONTAINS(lines[2].note, "no candidate 'user_gemm_brow T=f16' serves this problem");
    CHECK(tune_h2h_ratios(lines, LINES, ratio) == 0 && ratio[2] == 0);
    CHECK(near(ratio[1], mock_ms(fastest_rcr_64) / mock_ms(lines[1].kernel)) && ratio[1] > 1.1);
    printf("named: %s %.6f ms, %s %.6f ms (%.4f); %s: %s\n", lines[0].kernel, lines[0].ms, lines[1].kernel, lines[1].ms,
           ratio[1], lines[2].label, lines[2].note);

    cutec_timer_destroy(t);
    for (int l = 0; l < LINES; l++)
        for (int m = 0; m < 3; m++) CHECK_OK(rt, cutec_free(rt, buf[l][m]));
    cutec_gemm_destroy(h);
    for (int i = 0; i < 2; i++) cutec_pack_unload(pk[i]);
    cutec_runtime_destroy(rt);
    return 0;
}
