/*
 * test_scratch.c - kernels with scratch roles (workspace and flags, docs/
 * contract.md): their bytes carved from the handle's workspace, the flags
 * zeroed before every launch.  One case per process
 * (`test_scratch CASE ARGS...`):
 *   gemm SPLITK_PACK      the user's split-K kernel (user_gemm_splitk.cute)
 *                         tuned alone (no cuBLASLt) and run three times,
 *                         each result right against a float64 reference
 *                         (its second launch would write nothing if the
 *                         flags were left as the first left them; the mock
 *                         driver faults then); a workspace smaller than the
 *                         kernel's scratch leaves no candidate, with the
 *                         bytes it needs in the reason (mock or GPU)
 */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "cutec/cutec.h"

enum { M = 40, N = 24, K = 36 };

static void check_d(cutec_runtime *rt, unsigned long long d, const uint16_t *ha, const uint16_t *hb)
{
    uint16_t got[M * N];
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, got, d, sizeof got));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double want = 0;
            for (int k = 0; k < K; k++) want += check_from_bf16(ha[i * K + k]) * check_from_bf16(hb[j * K + k]);
            double v = check_from_bf16(got[i * N + j]);
            if (fabs(v - want) > 0.01 * fabs(want) + 1e-3) {
                fprintf(stderr, "D[%d,%d] = %g, want %g\n", i, j, v, want);
                exit(1);
            }
        }
}

static int test_gemm(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_runtime *rt = check_gpu_runtime();
    cutec_runtime_set_log(rt, check_keep_log, NULL);
    cutec_gemm_handle *g;
    CHECK_OK(rt, cutec_gemm_create(rt, &g));
    CHECK_OK(rt, cutec_gemm_set_option(g, CUTEC_OPT_DISK_CACHE, 0));
    CHECK_OK(rt, cutec_gemm_set_option(g, CUTEC_OPT_CUBLAS_ALGOS, 0));
    cutec_pack *pack;
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[0], &pack));
    CHECK_OK(rt, cutec_gemm_use_pack(g, pack));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, M, N, K, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    uint16_t ha[M * K], hb[N * K], hd[M * N];
    for (int i = 0; i < M * K; i++) ha[i] = check_to_bf16((float)((i * 7) % 9 - 4) / 4);
    for (int i = 0; i < N * K; i++) hb[i] = check_to_bf16((float)((i * 5) % 7 - 3) / 2);
    for (int i = 0; i < M * N; i++) hd[i] = check_to_bf16(-77.0f);
    unsigned long long a, b, d;
    CHECK_OK(rt, cutec_malloc(rt, sizeof ha, &a));
    CHECK_OK(rt, cutec_malloc(rt, sizeof hb, &b));
    CHECK_OK(rt, cutec_malloc(rt, sizeof hd, &d));
    CHECK_OK(rt, cutec_memcpy_htod(rt, a, ha, sizeof ha));
    CHECK_OK(rt, cutec_memcpy_htod(rt, b, hb, sizeof hb));
    cutec_gemm_args args;
    cutec_gemm_args_init(&args, (void *)(uintptr_t)a, (void *)(uintptr_t)b, (void *)(uintptr_t)d);
    cutec_tune_report *rep = NULL;
    CHECK_OK(rt, cutec_gemm_tune_ex(g, &p, &args, NULL, &rep));
    CHECK(rep->count >= 1 && strncmp(rep->candidates[0].name, "user_gemm_splitk", 16) == 0);
    cutec_tune_report_free(rep);
    for (int run = 0; run < 3; run++) {
        CHECK_OK(rt, cutec_memcpy_htod(rt, d, hd, sizeof hd));
        CHECK_OK(rt, cutec_gemm_ex(g, &p, &args, NULL));
        CHECK_OK(rt, cutec_synchronize(rt));
        check_d(rt, d, ha, hb);
    }
    /* 2 x 3 x 2 slots of 256 floats and 6 flags: 256 + 12288 bytes */
    unsigned long long small;
    CHECK_OK(rt, cutec_malloc(rt, 4096, &small));
    CHECK_OK(rt, cutec_gemm_set_workspace(g, (void *)(uintptr_t)small, 4096));
    check_log[0] = '\0';
    CHECK_STATUS(rt, cutec_gemm_ex(g, &p, &args, NULL), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(check_log, "needs 12544 bytes of workspace; the handle's is 4096 (cutec_gemm_set_workspace)");
    CHECK_OK(rt, cutec_gemm_set_workspace(g, NULL, 0));
    CHECK_OK(rt, cutec_free(rt, small));
    CHECK_OK(rt, cutec_free(rt, a));
    CHECK_OK(rt, cutec_free(rt, b));
    CHECK_OK(rt, cutec_free(rt, d));
    cutec_gemm_destroy(g);
    cutec_runtime_destroy(rt);
    return 0;
}

static const check_case cases[] = {
    {"gemm", test_gemm},
};

int main(int argc, char **argv) { return check_run_cases(cases, sizeof cases / sizeof cases[0], argc, argv); }
