/*
 * test_lt_scales.c - block-wise fp8 scales on the cuBLASLt plan
 * (runtime/cublaslt.c) against the mock cuBLASLt ($CUTEC_CUBLASLT), which
 * reads scales in the layouts cuBLASLt documents and refuses what it
 * refuses (mock_cublaslt.c's block_unfit, its transform's B).  Host memory
 * stands for device memory, as in the mock.  Each served case builds a
 * block-wise problem, runs the plan and compares D with a float64 sum over
 * our layouts (scale_a[r + M kb], scale_b[nb ceil(K/128) + kb],
 * tune_epilogue.c's), and checks the modes and pointers the mock was
 * given: a plan that swaps the modes or the pointers, or that passes
 * scale_b unpadded where ceil(K/128) is not a multiple of 4, fails, as does
 * one whose padded copy cuBLASLt would refuse.  The refused cases are
 * shapes cuBLASLt documents it cannot serve: no plan, and why.
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
typedef void (*set_compute_fn)(int on);

/* A function the mock exports for tests (dlsym). */
static void *mock_sym(const char *name)
{
    void *lib = dlopen(getenv(CUTEC_CUBLASLT_ENV), RTLD_NOW | RTLD_NOLOAD);
    CHECK(lib != NULL);
    void *sym = dlsym(lib, name);
    CHECK(sym != NULL);
    return sym;
}

static last_scales_fn mock_last_scales(void)
{
    void *sym = mock_sym("cutec_mock_lt_last_scales");
    last_scales_fn fn;
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

static set_compute_fn mock_set_compute(void)
{
    void *sym = mock_sym("cutec_mock_lt_set_compute");
    set_compute_fn fn;
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

/* One of tests/bench/fp8_ragged_shapes.txt's shapes that cuBLASLt serves,
 * m x n x k with a bf16 row-major D, as the bench runs it, through the
 * mock without computing (too big to): the plan pads scale_b, the
 * heuristic answers, the run copies scale_b to the padded stride in the
 * workspace (a copy cuBLASLt accepts) and hands that copy to cuBLASLt's A
 * (our B) as BLK128x128, scale_a to its B as VEC128. */
static int bench_case(cutec_cublaslt *lt, long long m, long long n, long long k)
{
    long long kb = (k + 127) / 128, nb = (n + 127) / 128, kb4 = (kb + 3) / 4 * 4;
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, m, n, k, CUTEC_DTYPE_E4M3, CUTEC_DTYPE_BF16);
    p.b_type = CUTEC_DTYPE_E4M3, p.a_layout = CUTEC_LAYOUT_ROW, p.b_layout = CUTEC_LAYOUT_COL;
    p.lda = p.ldb = k, p.ldc = n, p.scale_mode = CUTEC_SCALE_BLOCK;
    float *sa = malloc(sizeof *sa * (size_t)(m * kb)), *sb = malloc(sizeof *sb * (size_t)(nb * kb));
    size_t ws_bytes = 1 << 20;
    char *ws = malloc(ws_bytes), *ops = malloc(16);
    CHECK(sa && sb && ws && ops);
    for (long long i = 0; i < m * kb; i++) sa[i] = (float)i;
    for (long long i = 0; i < nb * kb; i++) sb[i] = (float)(i + 1);
    cutec_lt_plan plan;
    char why[256] = "";
    CHECK_MSG(cutec_lt_plan_create(lt, &p, &plan, why, sizeof why), why);
    CHECK(plan.swap && plan.pad_bytes == (size_t)(nb * kb4) * sizeof(float));
    cutec_gemm_args io = {0};
    io.A = io.B = io.C = io.D = ops, io.scale_a = sa, io.scale_b = sb; /* not read: nothing computed */
    CHECK(cutec_lt_plan_pointers(lt, &plan, &p, &io) == CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t heur;
    const int align[3] = {16, 16, 16};
    CHECK_MSG(cutec_lt_heuristics(lt, &plan, align, ws_bytes, &heur, 1, why, sizeof why) == 1, why);
    int mode[2], calls0, calls1;
    const void *ptr[4];
    last_scales_fn last = mock_last_scales();
    set_compute_fn compute = mock_set_compute();
    last(mode, ptr, &calls0);
    compute(0);
    cublasStatus_t st = cutec_lt_run(lt, &plan, &p, &heur.algo, &io, ws, ws_bytes, NULL);
    compute(1);
    CHECK_MSG(st == CUBLAS_STATUS_SUCCESS, "cutec_lt_run failed (the padded copy refused?)");
    last(mode, ptr, &calls1);
    CHECK(calls1 - calls0 == 1);
    CHECK(mode[0] == CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F && mode[1] == CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F);
    CHECK(ptr[0] == plan.pad_at && ptr[1] == sa && (uintptr_t)plan.pad_at % 16 == 0);
    /* the copy: N block c's ceil(K/128) scales from c L4 on (L4 is
     * ceil(K/128) rounded up to 4) */
    const float *pad = plan.pad_at;
    for (long long c = 0; c < nb; c++)
        for (long long q = 0; q < kb; q++) CHECK(pad[c * kb4 + q] == sb[c * kb + q]);
    cutec_lt_plan_destroy(lt, &plan);
    free(sa), free(sb), free(ws), free(ops);
    return 0;
}

/* Row- and column-major D, ceil(K/128) a multiple of 4 (scale_b as it
 * is) and not (its padded copy): K of 4, 5 (K = 640, the bench's
 * 1000x1536x640), 6 (a partial last block) and 9 blocks (K = 1152, the
 * bench's 4096^2 x 1152), partial last blocks of N; then the bench's two
 * served shapes themselves. */
static int test_block(void)
{
    cutec_cublaslt lt;
    char why[256];
    CHECK_MSG(cutec_cublaslt_load(&lt, why, sizeof why), why);
    static const long long shapes[][3] = {{40, 300, 512}, {40, 300, 640}, {8, 260, 656}, {16, 132, 1152}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int row = 0; row < 2; row++)
            CHECK(run_case(&lt, shapes[i][0], shapes[i][1], shapes[i][2], row ? CUTEC_LAYOUT_ROW : CUTEC_LAYOUT_COL) ==
                  0);
    CHECK(bench_case(&lt, 1000, 1536, 640) == 0);
    CHECK(bench_case(&lt, 4096, 4096, 1152) == 0);
    cutec_cublaslt_unload(&lt);
    return 0;
}

/* A block-wise problem cuBLASLt documents it cannot serve: no plan, and
 * why (the tuner logs it: "tuning: no cuBLASLt candidate: ..."). */
static void expect_refused(cutec_cublaslt *lt, long long m, long long n, long long k, cutec_dtype d_type,
                           const char *reason)
{
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, m, n, k, CUTEC_DTYPE_E4M3, d_type);
    p.b_type = CUTEC_DTYPE_E4M3, p.a_layout = CUTEC_LAYOUT_ROW, p.b_layout = CUTEC_LAYOUT_COL;
    p.lda = p.ldb = k, p.ldc = n, p.scale_mode = CUTEC_SCALE_BLOCK;
    cutec_lt_plan plan;
    char why[256] = "";
    CHECK_MSG(!cutec_lt_plan_create(lt, &p, &plan, why, sizeof why), reason);
    CHECK(plan.desc == NULL);
    CHECK_CONTAINS(why, reason);
}

/* A cuBLASLt without the block modes (the mock's $CUTEC_MOCK_LT_BLOCK=0),
 * a workspace without room for the padded copy, a batch, and the shapes
 * and outputs cuBLASLt's block scaling does not take (the cuBLAS guide's
 * "Scaling factors layouts" and cublasLtMatmul()'s fp8 requirements): M
 * or N not a multiple of 4 (the bench's 2050 x 3000 x 3200), K not a
 * multiple of 16, D's rows not whole 16 bytes, an fp8 D: no algorithm or
 * no plan, and why. */
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
    expect_refused(&lt, 2050, 3000, 3200, CUTEC_DTYPE_BF16, "M and N multiples of 4 (this problem is 2050 x 3000)");
    expect_refused(&lt, 64, 258, 640, CUTEC_DTYPE_F32, "M and N multiples of 4 (this problem is 64 x 258)");
    expect_refused(&lt, 64, 256, 600, CUTEC_DTYPE_BF16, "K and the leading dimensions of A and B multiples of 16");
    expect_refused(&lt, 64, 1540, 640, CUTEC_DTYPE_BF16, "D's rows and leading dimension whole 16 bytes");
    expect_refused(&lt, 64, 256, 640, CUTEC_DTYPE_E4M3, "a D of f16, bf16 or f32");
    cutec_cublaslt_unload(&lt);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "block") == 0) return test_block();
    if (argc == 2 && strcmp(argv[1], "block_refused") == 0) return test_block_refused();
    return 2;
}
