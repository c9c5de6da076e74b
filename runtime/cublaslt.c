/*
 * cublaslt.c - cuBLASLt through dlopen (see cublaslt.h), and the mapping of
 * a cutec_gemm_problem onto cublasLtMatmul.  cuBLASLt is column-major; a
 * matrix X (r x c) stored row-major with leading dimension ld is, to it, the
 * column-major X^T (c x r, ld).  So with C column-major we ask for
 * C = op(A) op(B), and with C row-major for C^T = op(B^T) op(A^T), where each
 * op is N or T depending on how the operand is stored.
 */
#include "cublaslt.h"

#include "dtype.h"
#include "epilogue.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int resolve(void *lib, const char *symbol, void *slot, size_t slot_size)
{
    void *p = dlsym(lib, symbol);
    if (p == NULL) return 0;
    memcpy(slot, &p, slot_size);
    return 1;
}

int cutec_cublaslt_load(cutec_cublaslt *lt, char *why, size_t why_len)
{
    memset(lt, 0, sizeof *lt);
    const char *env = getenv(CUTEC_CUBLASLT_ENV);
    const char *names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};
    void *lib = NULL;
    char tried[512] = "";
    if (env != NULL && env[0] != '\0') {
        lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) {
            const char *e = dlerror();
            snprintf(why, why_len, "cannot load cuBLASLt from '%s' (" CUTEC_CUBLASLT_ENV "): %s", env,
                     e != NULL ? e : "unknown error");
            return 0;
        }
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && lib == NULL; i++) {
            lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
            size_t n = strlen(tried);
            snprintf(tried + n, sizeof tried - n, "%s%s", n ? ", " : "", names[i]);
        }
        if (lib == NULL) {
            snprintf(why, why_len, "cuBLASLt not found (tried %s)", tried);
            return 0;
        }
    }
#define CUTEC_CUBLASLT_RESOLVE(field, symbol, ret, params)                                                             \
    if (!resolve(lib, symbol, &lt->field, sizeof lt->field)) {                                                         \
        snprintf(why, why_len, "the cuBLASLt library lacks %s", symbol);                                               \
        dlclose(lib);                                                                                                  \
        memset(lt, 0, sizeof *lt);                                                                                     \
        return 0;                                                                                                      \
    }
    CUTEC_CUBLASLT_FUNCTIONS(CUTEC_CUBLASLT_RESOLVE)
#undef CUTEC_CUBLASLT_RESOLVE
    lt->lib = lib;
    cublasStatus_t st = lt->create(&lt->handle);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, why_len, "cublasLtCreate failed with status %d", st);
        dlclose(lib);
        memset(lt, 0, sizeof *lt);
        return 0;
    }
    lt->version = lt->get_version();
    return 1;
}

void cutec_cublaslt_unload(cutec_cublaslt *lt)
{
    if (lt->lib == NULL) return;
    if (lt->handle != NULL) (void)lt->destroy(lt->handle);
    dlclose(lt->lib);
    memset(lt, 0, sizeof *lt);
}

static int lt_type(cutec_dtype t) { return cutec_dtype_info_of((cutec_ct)t)->cuda; /* the contract's table */ }

/* The column-major view of an r x c matrix stored with layout l; in a
 * batch of p->batch problems, stride elements apart (0: the same matrix
 * for every problem). */
static cublasStatus_t make_layout(cutec_cublaslt *lt, cublasLtMatrixLayout_t *out, cutec_dtype t, cutec_layout l,
                                  long long r, long long c, long long ld, const cutec_gemm_problem *p, long long stride)
{
    uint64_t rows = (uint64_t)(l == CUTEC_LAYOUT_COL ? r : c);
    uint64_t cols = (uint64_t)(l == CUTEC_LAYOUT_COL ? c : r);
    cublasStatus_t st = lt->layout_create(out, lt_type(t), rows, cols, (int64_t)ld);
    if (st != CUBLAS_STATUS_SUCCESS || p->batch <= 1) return st;
    int32_t count = (int32_t)p->batch;
    int64_t step = stride;
    st = lt->layout_set(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = lt->layout_set(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &step, sizeof step);
    return st;
}

void cutec_lt_plan_destroy(cutec_cublaslt *lt, cutec_lt_plan *plan)
{
    if (plan->la != NULL) lt->layout_destroy(plan->la);
    if (plan->lb != NULL) lt->layout_destroy(plan->lb);
    if (plan->lc != NULL) lt->layout_destroy(plan->lc);
    if (plan->lsrc != NULL) lt->layout_destroy(plan->lsrc);
    if (plan->lscale != NULL) lt->layout_destroy(plan->lscale);
    if (plan->lpad != NULL) lt->layout_destroy(plan->lpad);
    if (plan->pad != NULL) lt->transform_desc_destroy(plan->pad);
    if (plan->desc != NULL) lt->desc_destroy(plan->desc);
    memset(plan, 0, sizeof *plan);
}

const char *cutec_lt_epilogue_of(const cutec_gemm_problem *p, int *epi)
{
    *epi = 0;
    if (p->act[0] == '\0' && !p->bias && !p->bias_row && !p->aux && !p->act_gated && !p->clamp) return NULL;
    if (p->clamp) return "a clamp (none of its epilogues clamps)";
    if (p->act_gated) return "a gated activation";
    if (p->bias_row) return "a bias per row";
    const cutec_act_info *a = cutec_act_find(p->act, strlen(p->act));
    if (a == NULL) return "a user's activation";
    *epi = cutec_act_lt_epilogue(a, p->bias, p->aux);
    if (*epi == CUTEC_LT_EPILOGUE_NONE) return p->aux ? "this activation with an aux output" : "this activation";
    if (p->bias && p->c_layout != CUTEC_LAYOUT_ROW)
        return "a bias per column of a column-major D (cuBLASLt adds a bias per row of its D)";
    if (p->aux && (p->c_layout != CUTEC_LAYOUT_ROW || p->ld_aux % 8 != 0))
        return "an aux output that is not row-major with a leading dimension a multiple of 8";
    return NULL;
}

/* Block-wise scales as cuBLASLt's VEC128_32F (our A's 1x128 ones) and
 * BLK128x128_32F (our B's), each on the library's operand that is ours
 * (its A is our B where it swaps).  Both read the operand as stored,
 * K-major (fp8's rule), blocks along K; the layouts the cuBLAS guide gives
 * ("128-element 1D and 128x128 2D Block Scaling For FP8 Data Types",
 * "Scaling factors layouts") are ours: VEC128 M-major for A (N-major for
 * B), shape M x ceil(K/128), which is scale_a (stride (1, M)) as it is;
 * BLK128x128 K-major with a stride between columns that is a multiple of
 * 4, shape L4 x ceil(N/128) with L4 = ceil(K/128) rounded up to 4, which
 * is scale_b (stride (1, ceil(K/128))) only where ceil(K/128) is a
 * multiple of 4.  Otherwise the plan keeps a transform that copies scale_b
 * to the stride L4 (cutec_lt_run): on the H100 (cuBLASLt 13.1), scale_b
 * passed at its own stride (K = 640) gave a D wrong by up to 37% of its
 * largest value, the padded copy one right to fp8's precision. */
static cublasStatus_t block_scales(cutec_cublaslt *lt, const cutec_gemm_problem *p, cutec_lt_plan *plan)
{
    int32_t ours_a = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F, ours_b = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    int32_t lib_a = plan->swap ? ours_b : ours_a, lib_b = plan->swap ? ours_a : ours_b;
    cublasStatus_t st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &lib_a, sizeof lib_a);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &lib_b, sizeof lib_b);
    uint64_t kb = (uint64_t)(p->k + 127) / 128, nb = (uint64_t)(p->n + 127) / 128, kb4 = (kb + 3) / 4 * 4;
    if (st != CUBLAS_STATUS_SUCCESS || kb4 == kb) return st;
    plan->pad_bytes = (size_t)(kb4 * nb * sizeof(float));
    st = lt->transform_desc_create(&plan->pad, CUDA_R_32F);
    if (st == CUBLAS_STATUS_SUCCESS) st = lt->layout_create(&plan->lscale, CUDA_R_32F, kb, nb, (int64_t)kb);
    if (st == CUBLAS_STATUS_SUCCESS) st = lt->layout_create(&plan->lpad, CUDA_R_32F, kb, nb, (int64_t)kb4);
    return st;
}

/* Why cuBLASLt cannot serve p's block-wise scales (NULL: it can), from
 * what the cuBLAS guide documents, so that such a problem has no candidate
 * rather than one that fails when it runs: the block modes give no fp8 D
 * ("128-element 1D and 128x128 2D Block Scaling For FP8 Data Types"); M
 * and N multiples of 4 ("Scaling factors layouts"); fp8 kernels want every
 * matrix dimension 16-byte aligned (cublasLtMatmul()'s requirements for
 * block-scaled FP8 kernels): K and the leading dimensions of the fp8
 * operands multiples of 16, D's contiguous dimension and leading dimension
 * (C's too, where C is a separate source) whole 16 bytes.  The H100's
 * cuBLASLt 13.1 agreed: its heuristic answered NOT_SUPPORTED for M = 1002
 * or 2050, N = 1540 (a bf16 row-major D) and K = 600 or 648, and served
 * M = 1000, N = 3000 and K = 656. */
static const char *block_unfit(const cutec_gemm_problem *p, char *why, size_t why_len)
{
    if (cutec_ct_is_fp8((cutec_ct)p->c_type)) {
        snprintf(why, why_len, "cuBLASLt's block-wise scales take a D of f16, bf16 or f32, not fp8");
        return why;
    }
    if (p->m % 4 != 0 || p->n % 4 != 0) {
        snprintf(why, why_len,
                 "cuBLASLt's block-wise scales need M and N multiples of 4 (this problem is %lld x %lld), as the "
                 "cuBLAS guide's \"Scaling factors layouts\" says",
                 p->m, p->n);
        return why;
    }
    if (p->k % 16 != 0 || p->lda % 16 != 0 || p->ldb % 16 != 0) {
        snprintf(why, why_len,
                 "cuBLASLt's block-scaled fp8 matmul needs K and the leading dimensions of A and B multiples of 16 "
                 "(K %lld, lda %lld, ldb %lld)",
                 p->k, p->lda, p->ldb);
        return why;
    }
    long long es = cutec_dtype_bytes((cutec_ct)p->c_type), rows = p->c_layout == CUTEC_LAYOUT_ROW ? p->n : p->m;
    if (rows * es % 16 != 0 || p->ldc * es % 16 != 0 || (p->c_source && p->ld_csrc * es % 16 != 0)) {
        snprintf(why, why_len,
                 "cuBLASLt's block-scaled fp8 matmul needs D's rows and leading dimension whole 16 bytes (%lld and "
                 "%lld elements of %lld bytes)",
                 rows, p->ldc, es);
        return why;
    }
    return NULL;
}

int cutec_lt_plan_create(cutec_cublaslt *lt, const cutec_gemm_problem *p, cutec_lt_plan *plan, char *why,
                         size_t why_len)
{
    memset(plan, 0, sizeof *plan);
    plan->swap = p->c_layout == CUTEC_LAYOUT_ROW;
    const char *none = cutec_lt_epilogue_of(p, &plan->epilogue);
    if (none != NULL) {
        snprintf(why, why_len, "cuBLASLt has no fused form of this epilogue: %s", none);
        return 0;
    }
    if (p->scale_mode == CUTEC_SCALE_BLOCK && p->batch > 1) {
        snprintf(why, why_len, "block-wise scales of a batch are not offered to cuBLASLt");
        return 0;
    }
    if (p->scale_mode == CUTEC_SCALE_BLOCK && block_unfit(p, why, why_len) != NULL) return 0;
    if (p->scale_mode == CUTEC_SCALE_ROW && !plan->swap) {
        snprintf(why, why_len, "row-wise scales with a column-major D are not offered to cuBLASLt");
        return 0;
    }
    int32_t ta, tb;
    if (plan->swap) {
        ta = p->b_layout == CUTEC_LAYOUT_COL ? CUBLAS_OP_T : CUBLAS_OP_N;
        tb = p->a_layout == CUTEC_LAYOUT_COL ? CUBLAS_OP_T : CUBLAS_OP_N;
    } else {
        ta = p->a_layout == CUTEC_LAYOUT_ROW ? CUBLAS_OP_T : CUBLAS_OP_N;
        tb = p->b_layout == CUTEC_LAYOUT_ROW ? CUBLAS_OP_T : CUBLAS_OP_N;
    }
    cublasStatus_t st = lt->desc_create(&plan->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (st == CUBLAS_STATUS_SUCCESS) st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    if (st == CUBLAS_STATUS_SUCCESS) st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    /* The library's first operand: B with swap, else A. */
    if (st == CUBLAS_STATUS_SUCCESS)
        st = plan->swap ? make_layout(lt, &plan->la, p->b_type, p->b_layout, p->k, p->n, p->ldb, p, p->stride_b)
                        : make_layout(lt, &plan->la, p->a_type, p->a_layout, p->m, p->k, p->lda, p, p->stride_a);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = plan->swap ? make_layout(lt, &plan->lb, p->a_type, p->a_layout, p->m, p->k, p->lda, p, p->stride_a)
                        : make_layout(lt, &plan->lb, p->b_type, p->b_layout, p->k, p->n, p->ldb, p, p->stride_b);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = make_layout(lt, &plan->lc, p->c_type, p->c_layout, p->m, p->n, p->ldc, p, p->stride_d);
    /* an fp8 D takes a 16-bit C (cuBLASLt's rule); in place, C is D's memory, never read (beta = 0) */
    cutec_dtype ct = cutec_ct_is_fp8((cutec_ct)p->c_type) ? CUTEC_DTYPE_BF16 : p->c_type;
    if (st == CUBLAS_STATUS_SUCCESS && (p->c_source || ct != p->c_type))
        st = make_layout(lt, &plan->lsrc, ct, p->c_layout, p->m, p->n, p->c_source ? p->ld_csrc : p->ldc, p,
                         p->c_source ? p->stride_c : p->stride_d);
    if (st == CUBLAS_STATUS_SUCCESS && p->scale_mode == CUTEC_SCALE_ROW) {
        int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
        st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode);
        if (st == CUBLAS_STATUS_SUCCESS)
            st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode);
    }
    if (st == CUBLAS_STATUS_SUCCESS && p->scale_mode == CUTEC_SCALE_BLOCK) st = block_scales(lt, p, plan);
    if (st == CUBLAS_STATUS_SUCCESS && p->scalars_on_device) {
        int32_t mode = CUBLASLT_POINTER_MODE_DEVICE;
        st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, sizeof mode);
    }
    if (st == CUBLAS_STATUS_SUCCESS && plan->epilogue != 0) {
        int32_t epi = plan->epilogue, bt = cutec_dtype_info_of((cutec_ct)p->bias_type)->cuda;
        int64_t ld_aux = p->ld_aux;
        st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
        if (st == CUBLAS_STATUS_SUCCESS && p->bias)
            st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt);
        if (st == CUBLAS_STATUS_SUCCESS && p->aux)
            st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld_aux, sizeof ld_aux);
    }
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, why_len, "cuBLASLt rejected the problem's descriptors (status %d)", st);
        cutec_lt_plan_destroy(lt, plan);
        return 0;
    }
    return 1;
}

/* The workspace cuBLASLt may use (*left): all of it, less a padded copy
 * of block-wise scales at its end (from a 256-byte boundary, as cuMemAlloc
 * aligns); 0 where that copy does not fit. */
static int workspace_left(const cutec_lt_plan *plan, size_t bytes, size_t *left)
{
    *left = bytes;
    if (plan->pad_bytes == 0) return 1;
    if (bytes < plan->pad_bytes) return 0;
    *left = (bytes - plan->pad_bytes) / 256 * 256;
    return 1;
}

int cutec_lt_heuristics(cutec_cublaslt *lt, cutec_lt_plan *plan, const int align[3], size_t workspace_bytes,
                        cublasLtMatmulHeuristicResult_t *out, int max, char *why, size_t why_len)
{
    cublasLtMatmulPreference_t pref = NULL;
    size_t left;
    if (!workspace_left(plan, workspace_bytes, &left)) {
        snprintf(why, why_len,
                 "block-wise scales whose ceil(K/128) is not a multiple of 4 need a padded copy of scale_b "
                 "(%zu bytes) in the cuBLASLt workspace, which has %zu bytes",
                 plan->pad_bytes, workspace_bytes);
        return 0;
    }
    uint64_t ws = left;
    int n = 0;
    cublasStatus_t st = lt->pref_create(&pref);
    if (st == CUBLAS_STATUS_SUCCESS) st = lt->pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    /* the pointers' alignment: without it the heuristic assumes 16 bytes and
     * offers algorithms that refuse (NOT_SUPPORTED) an operand that starts
     * 2 bytes into a row, as a view sliced at an odd column does */
    if (align != NULL) {
        const uint32_t a[4] = {(uint32_t)(plan->swap ? align[1] : align[0]),
                               (uint32_t)(plan->swap ? align[0] : align[1]), (uint32_t)align[2], (uint32_t)align[2]};
        static const int attrs[4] = {
            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
        for (int i = 0; i < 4 && st == CUBLAS_STATUS_SUCCESS; i++)
            if (a[i] > 0) st = lt->pref_set(pref, attrs[i], &a[i], sizeof a[i]);
    }
    if (st == CUBLAS_STATUS_SUCCESS)
        st = lt->heuristic(lt->handle, plan->desc, plan->la, plan->lb, plan->lsrc != NULL ? plan->lsrc : plan->lc,
                           plan->lc, pref, max, out, &n);
    if (pref != NULL) lt->pref_destroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, why_len, "cublasLtMatmulAlgoGetHeuristic failed with status %d", st);
        return 0;
    }
    /* keep the ones the heuristic marked usable */
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (out[i].state == CUBLAS_STATUS_SUCCESS && out[i].workspaceSize <= left) out[kept++] = out[i];
    if (kept == 0) snprintf(why, why_len, "cuBLASLt's heuristic offers no algorithm for this problem");
    return kept;
}

cublasStatus_t cutec_lt_run(cutec_cublaslt *lt, cutec_lt_plan *plan, const cutec_gemm_problem *p,
                            const cublasLtMatmulAlgo_t *algo, const cutec_gemm_args *io, void *workspace,
                            size_t workspace_bytes, void *stream)
{
    float alpha = p->alpha, beta = p->beta;
    const void *pa = &alpha, *pb = &beta;
    if (p->scalars_on_device) pa = io->alpha, pb = io->beta;
    size_t left;
    if (plan->pad_bytes > 0) {
        if (workspace == NULL || !workspace_left(plan, workspace_bytes, &left)) return CUBLAS_STATUS_NOT_SUPPORTED;
        plan->pad_at = (char *)workspace + left;
    } else {
        left = workspace_bytes;
    }
    cublasStatus_t st = cutec_lt_plan_pointers(lt, plan, p, io);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    if (plan->pad_bytes > 0) {
        /* an exact copy (1 x) to the padded stride, on the stream, so that
         * it is part of what a tuner times; no B: given one (scale_b again,
         * beta 0) the H100's cuBLASLt 13.1 answered INVALID_VALUE, which
         * was the status 7 of issue 18's ragged shapes */
        const float one = 1.0f, zero = 0.0f;
        st = lt->transform(lt->handle, plan->pad, &one, io->scale_b, plan->lscale, &zero, NULL, NULL, plan->pad_at,
                           plan->lpad, stream);
        if (st != CUBLAS_STATUS_SUCCESS) return st;
    }
    const void *first = plan->swap ? io->B : io->A, *second = plan->swap ? io->A : io->B;
    return lt->matmul(lt->handle, plan->desc, pa, first, plan->la, second, plan->lb, pb, io->C,
                      plan->lsrc != NULL ? plan->lsrc : plan->lc, io->D, plan->lc, algo, workspace, left, stream);
}

cublasStatus_t cutec_lt_plan_pointers(cutec_cublaslt *lt, cutec_lt_plan *plan, const cutec_gemm_problem *p,
                                      const cutec_gemm_args *io)
{
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    if (plan->epilogue != 0 && p->bias && plan->bias != io->bias) {
        st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &io->bias, sizeof io->bias);
        plan->bias = st == CUBLAS_STATUS_SUCCESS ? io->bias : NULL;
    }
    if (st == CUBLAS_STATUS_SUCCESS && plan->epilogue != 0 && p->aux && plan->aux != io->aux) {
        st = lt->desc_set(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &io->aux, sizeof io->aux);
        plan->aux = st == CUBLAS_STATUS_SUCCESS ? io->aux : NULL;
    }
    /* scales: the library's A is our B where it swaps (row-major D); B's
     * block-wise ones from their padded copy once cutec_lt_run placed it
     * (until then, for the heuristic, scale_b itself) */
    const void *sb = plan->pad_bytes > 0 && plan->pad_at != NULL ? plan->pad_at : io->scale_b;
    const void *const ptrs[4] = {plan->swap ? sb : io->scale_a, plan->swap ? io->scale_a : sb, io->scale_d, io->amax};
    const void **last[4] = {&plan->sa, &plan->sb, &plan->sd, &plan->amax};
    static const int attrs[4] = {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                 CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER};
    for (int i = 0; i < 4 && st == CUBLAS_STATUS_SUCCESS; i++) {
        if (ptrs[i] == NULL || ptrs[i] == *last[i]) continue;
        st = lt->desc_set(plan->desc, attrs[i], &ptrs[i], sizeof ptrs[i]);
        *last[i] = st == CUBLAS_STATUS_SUCCESS ? ptrs[i] : NULL;
    }
    return st;
}

void cutec_lt_algo_describe(cutec_cublaslt *lt, const cublasLtMatmulAlgo_t *algo, char *out, size_t len)
{
    static const struct {
        int attr;
        const char *name;
    } attrs[] = {{CUBLASLT_ALGO_CONFIG_ID, "id"},
                 {CUBLASLT_ALGO_CONFIG_TILE_ID, "tile"},
                 {CUBLASLT_ALGO_CONFIG_STAGES_ID, "stages"},
                 {CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "split-K"},
                 {CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, "swizzle"},
                 {CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, "cluster"}};
    size_t n = 0;
    if (len > 0) out[0] = '\0';
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0] && n < len; i++) {
        /* cuBLASLt wants the attribute's exact size: ask for it first (size 0),
     * then read it into a zeroed 8-byte buffer (little-endian) */
        uint64_t v = 0;
        size_t need = 0, got = 0;
        int ok = lt->algo_config_get(algo, attrs[i].attr, NULL, 0, &need) == CUBLAS_STATUS_SUCCESS && need > 0 &&
                 need <= sizeof v &&
                 lt->algo_config_get(algo, attrs[i].attr, &v, need, &got) == CUBLAS_STATUS_SUCCESS && got == need;
        int w = ok ? snprintf(out + n, len - n, "%s%s %llu", i ? ", " : "", attrs[i].name, (unsigned long long)v)
                   : snprintf(out + n, len - n, "%s%s ?", i ? ", " : "", attrs[i].name);
        if (w < 0) break;
        n += (size_t)w;
    }
}
