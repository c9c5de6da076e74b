/*
 * test_lt_scales.c - block-wise fp8 scales on the cuBLASLt plan
 * (runtime/cublaslt.c) against the mock cuBLASLt ($CUTEC_CUBLASLT), which
 * reads scales in the layouts cuBLASLt documents.  Host memory stands for
 * device memory, as in the mock.  Each case builds a block-wise problem,
 * runs the plan and compares D with a float64 sum over our layouts
 * (scale_a[r + M kb], scale_b[nb ceil(K/128) + kb], tune_epilogue.c's),
 * and checks the modes and pointers the mock was given: a plan that swaps
 * the modes or the pointers, or that passes scale_b unpadded where
 * ceil(K/128) is not a multiple of 4, fails.
 */
#include "check.h"
#include "cublaslt.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* CHECK with the failure's why */
#define CHECK_MSG(cond, msg)                                                                                           \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #cond, (msg));                       \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

typedef void (*last_scales_fn)(int mode[2], const void *ptr[4], int *transform_calls);

static last_scales_fn mock_last_scales(void)
{
    void *lib = dlopen(getenv(CUTEC_CUBLASLT_ENV), RTLD_NOW | RTLD_NOLOAD);
    CHECK(lib != NULL);
    void *sym = dlsym(lib, "cutec_mock_lt_last_scales");
    CHECK(sym != NULL);
    last_scales_fn fn;
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

/* A finite e4m3 byte of magnitude in [2^-3, 2^3) and random sign. */
static uint8_t rand_e4m3(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    unsigned r = *seed >> 8;
    return (uint8_t)(((r & 1u) << 7) | ((4u + (r >> 1) % 6u) << 3) | ((r >> 4) & 7u));
}

static double e4m3(uint8_t x)
{
    int e = (x & 0x7f) >> 3, m = x & 7;
    double v = e == 0 ? ldexp(m, -9) : ldexp(8 + m, e - 10);
    return (x & 0x80) ? -v : v;
}

/* One block-wise problem, m x n x k, D f32 in layout d_layout: 0 when D
 * matches, the modes and pointers are cuBLASLt's and the padded copy
 * happened exactly where ceil(K/128) is not a multiple of 4. */
static int run_case(cutec_cublaslt *lt, long long m, long long n, long long k, cutec_layout d_layout)
{
    long long kb = (k + 127) / 128, nb = (n + 127) / 128;
    int padded = kb % 4 != 0;
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, m, n, k, CUTEC_DTYPE_E4M3, CUTEC_DTYPE_F32);
    p.b_type = CUTEC_DTYPE_E4M3;
    p.a_layout = CUTEC_LAYOUT_ROW, p.b_layout = CUTEC_LAYOUT_COL, p.c_layout = d_layout;
    p.lda = k, p.ldb = k, p.ldc = d_layout == CUTEC_LAYOUT_ROW ? n : m;
    p.scale_mode = CUTEC_SCALE_BLOCK;
    uint8_t *a = malloc((size_t)(m * k)), *b = malloc((size_t)(n * k));
    float *sa = malloc(sizeof *sa * (size_t)(m * kb)), *sb = malloc(sizeof *sb * (size_t)(nb * kb));
    float *d = calloc((size_t)(m * n), sizeof *d);
    size_t ws_bytes = 1 << 20;
    char *ws = malloc(ws_bytes);
    CHECK(a && b && sa && sb && d && ws);
    unsigned seed = (unsigned)(m * 7 + n * 3 + k);
    for (long long i = 0; i < m * k; i++) a[i] = rand_e4m3(&seed);
    for (long long i = 0; i < n * k; i++) b[i] = rand_e4m3(&seed);
    /* distinct powers of two: any scale read from the wrong place shows */
    for (long long i = 0; i < m * kb; i++) sa[i] = ldexpf(1.0f, (int)(i % 7) - 3);
    for (long long i = 0; i < nb * kb; i++) sb[i] = ldexpf(1.0f, (int)(i % 5) - 2) * 1.5f;

    cutec_lt_plan plan;
    char why[256] = "";
    CHECK_MSG(cutec_lt_plan_create(lt, &p, &plan, why, sizeof why), why);
    CHECK(plan.swap == (d_layout == CUTEC_LAYOUT_ROW));
    CHECK(padded ? plan.pad_bytes == (size_t)((kb + 3) / 4 * 4 * nb) * sizeof(float) : plan.pad_bytes == 0);
    cutec_gemm_args io = {0};
    io.A = a, io.B = b, io.C = d, io.D = d, io.scale_a = sa, io.scale_b = sb;
    CHECK(cutec_lt_plan_pointers(lt, &plan, &p, &io) == CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t heur[2];
    const int align[3] = {16, 16, 16};
    int got = cutec_lt_heuristics(lt, &plan, align, ws_bytes, heur, 2, why, sizeof why);
    CHECK_MSG(got > 0, why);
    int mode[2], calls0, calls1;
    const void *ptr[4];
    last_scales_fn last = mock_last_scales();
    last(mode, ptr, &calls0);
    CHECK(cutec_lt_run(lt, &plan, &p, &heur[0].algo, &io, ws, ws_bytes, NULL) == CUBLAS_STATUS_SUCCESS);
    last(mode, ptr, &calls1);

    /* the library's A is our B where D is row-major: BLK128x128 (5) on it */
    const void *b_at = padded ? (const void *)plan.pad_at : (const void *)sb;
    if (plan.swap) {
        CHECK(mode[0] == CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F);
        CHECK(mode[1] == CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F);
        CHECK(ptr[0] == b_at && ptr[1] == sa);
    } else {
        CHECK(mode[0] == CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F);
        CHECK(mode[1] == CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F);
        CHECK(ptr[0] == sa && ptr[1] == b_at);
    }
    CHECK(calls1 - calls0 == padded);
    if (padded) /* at the workspace's end, out of what cuBLASLt may use */
        CHECK((char *)plan.pad_at >= ws && (char *)plan.pad_at + plan.pad_bytes <= ws + ws_bytes &&
              (char *)plan.pad_at - ws >= (ptrdiff_t)heur[0].workspaceSize);

    double worst = 0;
    for (long long r = 0; r < m; r++)
        for (long long c = 0; c < n; c++) {
            double ref = 0;
            for (long long q = 0; q < k; q++)
                ref += e4m3(a[r * k + q]) * e4m3(b[c * k + q]) * sa[r + m * (q / 128)] * sb[(c / 128) * kb + q / 128];
            double v = d[d_layout == CUTEC_LAYOUT_ROW ? r * n + c : c * m + r];
            worst = fmax(worst, fabs(v - ref) / fmax(1.0, fabs(ref)));
        }
    CHECK_MSG(worst < 1e-5, "D differs from the block-scaled reference");
    cutec_lt_plan_destroy(lt, &plan);
    free(a), free(b), free(sa), free(sb), free(d), free(ws);
    return 0;
}

/* Row- and column-major D, ceil(K/128) a multiple of 4 (scale_b as it is)
 * and not (its padded copy), partial last blocks of K and N. */
static int test_block(void)
{
    cutec_cublaslt lt;
    char why[256];
    CHECK_MSG(cutec_cublaslt_load(&lt, why, sizeof why), why);
    static const long long shapes[][3] = {{40, 300, 512}, {40, 300, 640}, {17, 130, 200}, {8, 129, 1100}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int row = 0; row < 2; row++)
            CHECK(run_case(&lt, shapes[i][0], shapes[i][1], shapes[i][2], row ? CUTEC_LAYOUT_ROW : CUTEC_LAYOUT_COL) ==
                  0);
    cutec_cublaslt_unload(&lt);
    return 0;
}

/* A cuBLASLt without the block modes (the mock's $CUTEC_MOCK_LT_BLOCK=0),
 * a workspace without room for the padded copy, a batch: no algorithm,
 * and why. */
static int test_block_refused(void)
{
    cutec_cublaslt lt;
    char why[256] = "";
    CHECK_MSG(cutec_cublaslt_load(&lt, why, sizeof why), why);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 64, 256, 640, CUTEC_DTYPE_E4M3, CUTEC_DTYPE_BF16);
    p.b_type = CUTEC_DTYPE_E4M3, p.a_layout = CUTEC_LAYOUT_ROW, p.b_layout = CUTEC_LAYOUT_COL;
    p.lda = p.ldb = 640, p.ldc = 256, p.scale_mode = CUTEC_SCALE_BLOCK;
    static float scales[1024];
    cutec_gemm_args io = {0};
    io.scale_a = io.scale_b = scales;
    cutec_lt_plan plan;
    CHECK_MSG(cutec_lt_plan_create(&lt, &p, &plan, why, sizeof why), why);
    CHECK(cutec_lt_plan_pointers(&lt, &plan, &p, &io) == CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t heur;
    CHECK(setenv("CUTEC_MOCK_LT_BLOCK", "0", 1) == 0);
    CHECK(cutec_lt_heuristics(&lt, &plan, NULL, 1 << 20, &heur, 1, why, sizeof why) == 0);
    CHECK_CONTAINS(why, "cublasLtMatmulAlgoGetHeuristic failed with status 15");
    CHECK(unsetenv("CUTEC_MOCK_LT_BLOCK") == 0);
    CHECK(cutec_lt_heuristics(&lt, &plan, NULL, 1 << 20, &heur, 1, why, sizeof why) == 1);
    /* 2 N blocks of 8 (ceil(640/128) = 5, padded): 64 bytes */
    CHECK(cutec_lt_heuristics(&lt, &plan, NULL, 63, &heur, 1, why, sizeof why) == 0);
    CHECK_CONTAINS(why, "need a padded copy of scale_b (64 bytes) in the cuBLASLt workspace, which has 63 bytes");
    CHECK(cutec_lt_run(&lt, &plan, &p, &heur.algo, &io, NULL, 0, NULL) == CUBLAS_STATUS_NOT_SUPPORTED);
    cutec_lt_plan_destroy(&lt, &plan);
    p.batch = 2;
    CHECK(!cutec_lt_plan_create(&lt, &p, &plan, why, sizeof why));
    CHECK_CONTAINS(why, "block-wise scales of a batch are not offered to cuBLASLt");
    cutec_cublaslt_unload(&lt);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "block") == 0) return test_block();
    if (argc == 2 && strcmp(argv[1], "block_refused") == 0) return test_block_refused();
    return 2;
}
