/*
 * capi_layout.c - prints the sizes, field offsets and enum values of the C
 * API that the Python package mirrors with ctypes (python/cutec/capi.py),
 * one "NAME VALUE" line each; test_capi.py compares them with the mirror.
 */
#include <stddef.h>
#include <stdio.h>

#include "cutec/gemm.h"
#include "epilogue.h"

#define SIZE(T, py)     printf("%s.size %zu\n", py, sizeof(T))
#define FIELD(T, py, f) printf("%s.%s %zu\n", py, #f, offsetof(T, f))
#define VALUE(py, v)    printf("%s %lld\n", py, (long long)(v))

int main(void)
{
    SIZE(cutec_gemm_problem, "GemmProblem");
    FIELD(cutec_gemm_problem, "GemmProblem", struct_size);
    FIELD(cutec_gemm_problem, "GemmProblem", m);
    FIELD(cutec_gemm_problem, "GemmProblem", n);
    FIELD(cutec_gemm_problem, "GemmProblem", k);
    FIELD(cutec_gemm_problem, "GemmProblem", a_type);
    FIELD(cutec_gemm_problem, "GemmProblem", b_type);
    FIELD(cutec_gemm_problem, "GemmProblem", c_type);
    FIELD(cutec_gemm_problem, "GemmProblem", a_layout);
    FIELD(cutec_gemm_problem, "GemmProblem", b_layout);
    FIELD(cutec_gemm_problem, "GemmProblem", c_layout);
    FIELD(cutec_gemm_problem, "GemmProblem", lda);
    FIELD(cutec_gemm_problem, "GemmProblem", ldb);
    FIELD(cutec_gemm_problem, "GemmProblem", ldc);
    FIELD(cutec_gemm_problem, "GemmProblem", alpha);
    FIELD(cutec_gemm_problem, "GemmProblem", beta);
    FIELD(cutec_gemm_problem, "GemmProblem", epilogue);
    FIELD(cutec_gemm_problem, "GemmProblem", act);
    FIELD(cutec_gemm_problem, "GemmProblem", act_gated);
    FIELD(cutec_gemm_problem, "GemmProblem", bias);
    FIELD(cutec_gemm_problem, "GemmProblem", bias_row);
    FIELD(cutec_gemm_problem, "GemmProblem", bias_type);
    FIELD(cutec_gemm_problem, "GemmProblem", c_source);
    FIELD(cutec_gemm_problem, "GemmProblem", ld_csrc);
    FIELD(cutec_gemm_problem, "GemmProblem", aux);
    FIELD(cutec_gemm_problem, "GemmProblem", ld_aux);
    FIELD(cutec_gemm_problem, "GemmProblem", scalars_on_device);
    FIELD(cutec_gemm_problem, "GemmProblem", scale_mode);
    FIELD(cutec_gemm_problem, "GemmProblem", batch);
    FIELD(cutec_gemm_problem, "GemmProblem", stride_a);
    FIELD(cutec_gemm_problem, "GemmProblem", stride_b);
    FIELD(cutec_gemm_problem, "GemmProblem", stride_c);
    FIELD(cutec_gemm_problem, "GemmProblem", stride_d);
    FIELD(cutec_gemm_problem, "GemmProblem", groups);
    FIELD(cutec_gemm_problem, "GemmProblem", clamp);

    SIZE(cutec_gemm_args, "GemmArgs");
    FIELD(cutec_gemm_args, "GemmArgs", struct_size);
    FIELD(cutec_gemm_args, "GemmArgs", A);
    FIELD(cutec_gemm_args, "GemmArgs", B);
    FIELD(cutec_gemm_args, "GemmArgs", D);
    FIELD(cutec_gemm_args, "GemmArgs", C);
    FIELD(cutec_gemm_args, "GemmArgs", bias);
    FIELD(cutec_gemm_args, "GemmArgs", bias_row);
    FIELD(cutec_gemm_args, "GemmArgs", aux);
    FIELD(cutec_gemm_args, "GemmArgs", alpha);
    FIELD(cutec_gemm_args, "GemmArgs", beta);
    FIELD(cutec_gemm_args, "GemmArgs", scale_a);
    FIELD(cutec_gemm_args, "GemmArgs", scale_b);
    FIELD(cutec_gemm_args, "GemmArgs", scale_d);
    FIELD(cutec_gemm_args, "GemmArgs", amax);
    FIELD(cutec_gemm_args, "GemmArgs", group_ends);
    FIELD(cutec_gemm_args, "GemmArgs", group_list);
    FIELD(cutec_gemm_args, "GemmArgs", clamp_lo);
    FIELD(cutec_gemm_args, "GemmArgs", clamp_hi);

    SIZE(cutec_tune_candidate, "TuneCandidate");
    FIELD(cutec_tune_candidate, "TuneCandidate", name);
    FIELD(cutec_tune_candidate, "TuneCandidate", is_cublas);
    FIELD(cutec_tune_candidate, "TuneCandidate", ms);
    FIELD(cutec_tune_candidate, "TuneCandidate", tflops);
    FIELD(cutec_tune_candidate, "TuneCandidate", note);
    FIELD(cutec_tune_candidate, "TuneCandidate", screened);
    FIELD(cutec_tune_candidate, "TuneCandidate", round_ms);
    FIELD(cutec_tune_candidate, "TuneCandidate", algo_rank);
    FIELD(cutec_tune_candidate, "TuneCandidate", pack);

    SIZE(cutec_tune_report, "TuneReport");
    FIELD(cutec_tune_report, "TuneReport", count);
    FIELD(cutec_tune_report, "TuneReport", candidates);
    FIELD(cutec_tune_report, "TuneReport", winner);
    FIELD(cutec_tune_report, "TuneReport", cublas_ms);
    FIELD(cutec_tune_report, "TuneReport", seconds);
    FIELD(cutec_tune_report, "TuneReport", from_cache);

    /* the leading fields the mirror reads of an epilogue-table row */
    FIELD(cutec_act_info, "ActInfo", name);
    FIELD(cutec_act_info, "ActInfo", gated);

    VALUE("DTYPE_BF16", CUTEC_DTYPE_BF16);
    VALUE("DTYPE_F16", CUTEC_DTYPE_F16);
    VALUE("DTYPE_F32", CUTEC_DTYPE_F32);
    VALUE("DTYPE_E4M3", CUTEC_DTYPE_E4M3);
    VALUE("DTYPE_E5M2", CUTEC_DTYPE_E5M2);
    VALUE("SCALE_NONE", CUTEC_SCALE_NONE);
    VALUE("SCALE_TENSOR", CUTEC_SCALE_TENSOR);
    VALUE("SCALE_ROW", CUTEC_SCALE_ROW);
    VALUE("SCALE_BLOCK", CUTEC_SCALE_BLOCK);
    VALUE("LAYOUT_ROW", CUTEC_LAYOUT_ROW);
    VALUE("LAYOUT_COL", CUTEC_LAYOUT_COL);
    VALUE("OPT_TUNE_RUNS", CUTEC_OPT_TUNE_RUNS);
    VALUE("OPT_TUNE_WARMUP", CUTEC_OPT_TUNE_WARMUP);
    VALUE("OPT_CUBLAS_ALGOS", CUTEC_OPT_CUBLAS_ALGOS);
    VALUE("OPT_DISK_CACHE", CUTEC_OPT_DISK_CACHE);
    VALUE("OPT_FLUSH_L2", CUTEC_OPT_FLUSH_L2);
    VALUE("OPT_TUNE_FINALISTS", CUTEC_OPT_TUNE_FINALISTS);
    VALUE("OPT_TUNE_SHORTLIST", CUTEC_OPT_TUNE_SHORTLIST);
    VALUE("OPT_TUNE_MODE", CUTEC_OPT_TUNE_MODE);
    VALUE("OPT_DEVICE_CHECK", CUTEC_OPT_DEVICE_CHECK);
    VALUE("OPT_HOST_BOUND_US", CUTEC_OPT_HOST_BOUND_US);
    VALUE("OPT_TUNE_SHORTLIST_FILL", CUTEC_OPT_TUNE_SHORTLIST_FILL);
    VALUE("OK", CUTEC_OK);
    /* enums are passed as int: their size must be int's */
    VALUE("enum.size", sizeof(cutec_dtype));
    return 0;
}
