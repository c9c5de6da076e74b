/*
 * cublaslt.h - the few cuBLASLt types and entry points the tuner uses,
 * declared here (checked against cublasLt.h, library_types.h and
 * cublas_api.h of CUDA 13.0) so that the runtime builds without the toolkit
 * and loads libcublasLt with dlopen: "libcublasLt.so.13", then ".so.12", then
 * "libcublasLt.so", or the path in $CUTEC_CUBLASLT (used by the tests to load
 * a mock).  A GEMM plan is the matmul descriptor and matrix layouts of one
 * problem, in cuBLASLt's column-major terms.
 */
#ifndef CUTEC_RUNTIME_CUBLASLT_H
#define CUTEC_RUNTIME_CUBLASLT_H

#include <stddef.h>
#include <stdint.h>

#include "cutec/gemm.h"

typedef int cublasStatus_t;
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque *cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque *cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque *cublasLtMatmulPreference_t;
typedef struct cublasLtMatrixTransformDescOpaque *cublasLtMatrixTransformDesc_t;
typedef struct {
    uint64_t data[8];
} cublasLtMatmulAlgo_t;
typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;

enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_OP_N = 0,
    CUBLAS_OP_T = 1,
    CUBLAS_COMPUTE_32F = 68,
    CUDA_R_32F = 0,
    CUDA_R_16F = 2,
    CUDA_R_16BF = 14,
    CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,
    CUBLASLT_MATMUL_DESC_TRANSA = 3,
    CUBLASLT_MATMUL_DESC_TRANSB = 4,
    CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
    CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,
    CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26,
    /* fp8: scales and the output's amax (cublasLt.h, CUDA 13) */
    CUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17,
    CUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18,
    CUBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20,
    CUBLASLT_MATMUL_DESC_AMAX_D_POINTER = 21,
    CUBLASLT_MATMUL_DESC_A_SCALE_MODE = 31,
    CUBLASLT_MATMUL_DESC_B_SCALE_MODE = 32,
    CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F = 0,
    CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F = 3,
    CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F = 4,     /* sm90, cuBLAS >= 12.9 */
    CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F = 5, /* sm90, cuBLAS >= 12.9 */
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLASLT_POINTER_MODE_DEVICE = 1,
    CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,          /* int32_t */
    CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6, /* int64_t, elements */
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8,
    /* cublasLtMatmulAlgoConfigAttributes_t */
    CUBLASLT_ALGO_CONFIG_ID = 0,
    CUBLASLT_ALGO_CONFIG_TILE_ID = 1,
    CUBLASLT_ALGO_CONFIG_SPLITK_NUM = 2,
    CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING = 4,
    CUBLASLT_ALGO_CONFIG_STAGES_ID = 6,
    CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID = 8
};

#define CUTEC_CUBLASLT_FUNCTIONS(X)                                                                                    \
    X(create, "cublasLtCreate", cublasStatus_t, (cublasLtHandle_t * h))                                                \
    X(destroy, "cublasLtDestroy", cublasStatus_t, (cublasLtHandle_t h))                                                \
    X(get_version, "cublasLtGetVersion", size_t, (void))                                                               \
    X(desc_create, "cublasLtMatmulDescCreate", cublasStatus_t, (cublasLtMatmulDesc_t * d, int compute, int scale))     \
    X(desc_destroy, "cublasLtMatmulDescDestroy", cublasStatus_t, (cublasLtMatmulDesc_t d))                             \
    X(desc_set, "cublasLtMatmulDescSetAttribute", cublasStatus_t,                                                      \
      (cublasLtMatmulDesc_t d, int attr, const void *buf, size_t size))                                                \
    X(layout_create, "cublasLtMatrixLayoutCreate", cublasStatus_t,                                                     \
      (cublasLtMatrixLayout_t * l, int type, uint64_t rows, uint64_t cols, int64_t ld))                                \
    X(layout_destroy, "cublasLtMatrixLayoutDestroy", cublasStatus_t, (cublasLtMatrixLayout_t l))                       \
    X(layout_set, "cublasLtMatrixLayoutSetAttribute", cublasStatus_t,                                                  \
      (cublasLtMatrixLayout_t l, int attr, const void *buf, size_t size))                                              \
    X(pref_create, "cublasLtMatmulPreferenceCreate", cublasStatus_t, (cublasLtMatmulPreference_t * p))                 \
    X(pref_destroy, "cublasLtMatmulPreferenceDestroy", cublasStatus_t, (cublasLtMatmulPreference_t p))                 \
    X(pref_set, "cublasLtMatmulPreferenceSetAttribute", cublasStatus_t,                                                \
      (cublasLtMatmulPreference_t p, int attr, const void *buf, size_t size))                                          \
    X(heuristic, "cublasLtMatmulAlgoGetHeuristic", cublasStatus_t,                                                     \
      (cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,                 \
       cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t dd, cublasLtMatmulPreference_t p, int requested,               \
       cublasLtMatmulHeuristicResult_t *results, int *returned))                                                       \
    X(algo_config_get, "cublasLtMatmulAlgoConfigGetAttribute", cublasStatus_t,                                         \
      (const cublasLtMatmulAlgo_t *algo, int attr, void *buf, size_t size, size_t *written))                           \
    X(transform_desc_create, "cublasLtMatrixTransformDescCreate", cublasStatus_t,                                      \
      (cublasLtMatrixTransformDesc_t * d, int scale))                                                                  \
    X(transform_desc_destroy, "cublasLtMatrixTransformDescDestroy", cublasStatus_t, (cublasLtMatrixTransformDesc_t d)) \
    X(transform, "cublasLtMatrixTransform", cublasStatus_t,                                                            \
      (cublasLtHandle_t h, cublasLtMatrixTransformDesc_t d, const void *alpha, const void *A,                          \
       cublasLtMatrixLayout_t la, const void *beta, const void *B, cublasLtMatrixLayout_t lb, void *C,                 \
       cublasLtMatrixLayout_t lc, void *stream))                                                                       \
    X(matmul, "cublasLtMatmul", cublasStatus_t,                                                                        \
      (cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha, const void *A, cublasLtMatrixLayout_t la,        \
       const void *B, cublasLtMatrixLayout_t lb, const void *beta, const void *C, cublasLtMatrixLayout_t lc, void *D,  \
       cublasLtMatrixLayout_t ld, const cublasLtMatmulAlgo_t *algo, void *workspace, size_t workspace_size,            \
       void *stream))

#define CUTEC_CUBLASLT_FIELD(field, symbol, ret, params) ret(*field) params;
typedef struct cutec_cublaslt {
    void *lib;
    cublasLtHandle_t handle;
    size_t version;
    CUTEC_CUBLASLT_FUNCTIONS(CUTEC_CUBLASLT_FIELD)
} cutec_cublaslt;
#undef CUTEC_CUBLASLT_FIELD

#define CUTEC_CUBLASLT_ENV "CUTEC_CUBLASLT"

/* Opens the library and creates a handle.  0 with why filled on failure. */
int cutec_cublaslt_load(cutec_cublaslt *lt, char *why, size_t why_len);
void cutec_cublaslt_unload(cutec_cublaslt *lt);

/* One problem in cuBLASLt terms (row-major problems are computed as the
 * transposed column-major product). */
typedef struct cutec_lt_plan {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatrixLayout_t lsrc;     /* the C source's, out of place (NULL: C is D) */
    int swap;                        /* 1: the library's A is our B (C row-major) */
    int epilogue;                    /* cublasLtEpilogue_t set on desc (0: none set) */
    const void *bias, *aux;          /* the pointers last set on desc */
    const void *sa, *sb, *sd, *amax; /* the scale and amax pointers last set on desc */
    /* Block-wise scales whose ceil(K/128) is not a multiple of 4: cuBLASLt
     * reads BLK128x128 scales with a leading dimension rounded up to 4, so
     * cutec_lt_run copies scale_b there (pad, from scale_b as stored in
     * lscale to lpad), at the workspace's last pad_bytes (pad_at). */
    cublasLtMatrixTransformDesc_t pad;
    cublasLtMatrixLayout_t lscale, lpad;
    size_t pad_bytes;
    void *pad_at;
} cutec_lt_plan;

/* The fused epilogue of p (*epi; 0: p has no epilogue), or why cuBLASLt
 * has none. */
const char *cutec_lt_epilogue_of(const cutec_gemm_problem *p, int *epi);
/* 0 with why filled on failure (the plan is then empty).  A problem with
 * an epilogue gets cuBLASLt's fused form from the epilogue table
 * (contract/epilogue.h), or none (0, why says so): only a bias per column
 * of a row-major D (cuBLASLt's per-row bias of D^T), no bias per row, not
 * gated, an aux leading dimension that is a multiple of 8.  Block-wise
 * scales get VEC128_32F (A's) and BLK128x128_32F (B's), in either layout
 * of D; not for a batch, nor for a shape the cuBLAS guide says block
 * scaling does not take (M or N not a multiple of 4, K or lda or ldb not
 * of 16, D's rows or leading dimension not whole 16 bytes, an fp8 D): why
 * says which. */
int cutec_lt_plan_create(cutec_cublaslt *lt, const cutec_gemm_problem *p, cutec_lt_plan *plan, char *why,
                         size_t why_len);
void cutec_lt_plan_destroy(cutec_cublaslt *lt, cutec_lt_plan *plan);
/* What an algorithm is, for logs: "id 66, tile 23, stages 17, split-K 1,
 * swizzle 0, cluster 2" (cuBLASLt's configuration attributes: its
 * cublasLt.h enum values); "?" for one the library does not report. */
void cutec_lt_algo_describe(cutec_cublaslt *lt, const cublasLtMatmulAlgo_t *algo, char *out, size_t len);
/* Up to max algorithms from the heuristic that fit workspace_bytes (less
 * the padded copy of block-wise scales, where the plan has one); returns
 * their number (0 with why on failure). */
int cutec_lt_heuristics(cutec_cublaslt *lt, cutec_lt_plan *plan, const int align[3], size_t workspace_bytes,
                        cublasLtMatmulHeuristicResult_t *out, int max, char *why, size_t why_len);
/* Sets the epilogue's pointers (bias, aux) on the plan where they changed:
 * cuBLASLt's heuristic reads their alignment, its matmul their values. */
cublasStatus_t cutec_lt_plan_pointers(cutec_cublaslt *lt, cutec_lt_plan *plan, const cutec_gemm_problem *p,
                                      const cutec_gemm_args *io);
/* Runs D = act(alpha A B + beta C + bias) with one algorithm (C is D in
 * place unless the problem has a C source); the epilogue's pointers are
 * set on the plan when they changed.  Where the plan pads block-wise
 * scales, it first copies scale_b to the workspace's end, on the stream
 * (CUBLAS_STATUS_NOT_SUPPORTED without room for it). */
cublasStatus_t cutec_lt_run(cutec_cublaslt *lt, cutec_lt_plan *plan, const cutec_gemm_problem *p,
                            const cublasLtMatmulAlgo_t *algo, const cutec_gemm_args *io, void *workspace,
                            size_t workspace_bytes, void *stream);

#endif /* CUTEC_RUNTIME_CUBLASLT_H */
