/*
 * cutec/gemm.h - the GEMM entry point with autotuning, a layer on top of the
 * core runtime (cutec/runtime.h), which does not know GEMM exists.
 *
 *   C[M,N] = alpha * A[M,K] * B[K,N] + beta * C[M,N]      (f32 accumulation)
 *
 * and, through cutec_gemm_ex, a fused epilogue (bias per column or row, a
 * C source with D out of place, an activation, gated or not, the
 * pre-activation as an aux output; docs/runtime.md, "Epilogues").
 *
 * Everything GEMM lives on a handle (cutec_gemm_create): the packs in use,
 * options, cache directory, cuBLASLt workspace, progress callback and the
 * decisions.  Several handles on one runtime are independent.  Failures are
 * reported as everywhere in the runtime: a status, the detail in
 * cutec_runtime_message of the handle's runtime and its log callback.
 *
 * Candidates are the GEMM kernels of the packs given to cutec_gemm_use_pack
 * (every tune point that fits the problem) and the algorithms cuBLASLt's
 * heuristic proposes (loaded with dlopen; several, not only the first).  The
 * first call for a problem class times the candidates with one harness (a
 * cost model's shortlist of the pack kernels: CUTEC_OPT_TUNE_SHORTLIST) and
 * remembers the fastest correct one, in memory and in an on-disk cache;
 * later calls are a lookup and a launch.  CUTEC_OPT_TUNE_MODE lets the
 * first call answer at once with a modelled choice instead, tuning later
 * (on request, or in a background thread).  Tuning reports progress only
 * through the log and progress callbacks: the library never prints.
 */
#ifndef CUTEC_GEMM_H
#define CUTEC_GEMM_H

#include "cutec/pack.h"
#include "cutec/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types (the contract's numbering, contract/dtype.h).  The fp8
 * types (e4m3: 4 exponent and 3 mantissa bits, largest 448; e5m2: 5 and 2,
 * largest 57344) are inputs of K-major operands only (A row-major, B
 * column-major: Hopper's fp8 MMA reads nothing else) and outputs with
 * scale_d and amax (cutec_gemm_args). */
typedef enum cutec_dtype {
    CUTEC_DTYPE_BF16 = 1,
    CUTEC_DTYPE_F16 = 2,
    CUTEC_DTYPE_F32 = 3,
    CUTEC_DTYPE_E4M3 = 4,
    CUTEC_DTYPE_E5M2 = 5
} cutec_dtype;

/* How A B is scaled (docs/contract.md, "What a GEMM kernel computes"): the
 * scales are f32 in device memory (cutec_gemm_args scale_a, scale_b).
 * TENSOR: one each.  ROW: scale_a[m] per row of A, scale_b[n] per column
 * of D (row-wise).  BLOCK (fp8 inputs): DeepSeek-V3's block-wise scales,
 * scale_a[m + M kb] per row of A and 128-column block kb of K (M x
 * ceil(K/128), M contiguous), scale_b[nb ceil(K/128) + kb] per 128 x 128
 * block of B (ceil(N/128) x ceil(K/128), K contiguous): v = sum over k of
 * scale_a(m, k/128) scale_b(n/128, k/128) A(m, k) B(k, n). */
typedef enum cutec_scale_mode {
    CUTEC_SCALE_NONE = 0,
    CUTEC_SCALE_TENSOR = 1,
    CUTEC_SCALE_ROW = 2,
    CUTEC_SCALE_BLOCK = 3
} cutec_scale_mode;

/* Storage order of a matrix as the problem names it (A is M x K, B is K x N,
 * C is M x N): ROW puts element (r, c) at r * ld + c, COL at c * ld + r. */
typedef enum cutec_layout { CUTEC_LAYOUT_ROW = 0, CUTEC_LAYOUT_COL = 1 } cutec_layout;

typedef enum cutec_epilogue { CUTEC_EPILOGUE_NONE = 0 } cutec_epilogue;

/*
 * The problem.  ABI rule: fields are only ever appended, and a field's zero
 * value always means what the library did before the field existed (scales,
 * batches).  struct_size is the size of
 * the struct the caller was compiled with (cutec_gemm_problem_init sets it);
 * the library reads only the fields inside it, so a caller built against an
 * older header keeps working, and reads the fields it does not have as zero.
 * The mandatory fields (m through beta) must all be inside: a struct_size
 * below offsetof(cutec_gemm_problem, epilogue) (0 included: a problem never
 * initialised) is CUTEC_ERR_INVALID_ARGUMENT.  A larger struct_size than
 * this library's (a caller built against a newer header) is accepted when
 * every byte the library does not know is zero, else refused the same way:
 * it asks for something this library cannot do.
 */
typedef struct cutec_gemm_problem {
    size_t struct_size; /* sizeof(cutec_gemm_problem) of the caller */
    long long m, n, k;  /* each >= 1 (and <= 2^31 - 1) */
    cutec_dtype a_type, b_type, c_type;
    cutec_layout a_layout, b_layout, c_layout;
    long long lda, ldb, ldc; /* 0: packed (the row or column length) */
    float alpha, beta;       /* finite (NaN, inf: CUTEC_ERR_INVALID_ARGUMENT) */
    /* optional fields: zero is the default */
    cutec_epilogue epilogue; /* CUTEC_EPILOGUE_NONE; the fields below say what the epilogue does */
    /* The epilogue (docs/contract.md, "What a GEMM kernel computes"):
     *   v = alpha A B + beta C + bias(n) + bias_row(m);  aux = v;  D = act(v)
     * Pointers come with the call (cutec_gemm_args): the problem stays a
     * description of shapes, types and what is present, the tuning class. */
    char act[32];                /* the activation applied last: the name of a row of the
                        epilogue table ("relu", "gelu_tanh", "gelu_erf", "silu",
                        "sigmoid", "swiglu", "geglu") or of a user pack's .cute
                        function (its float64 reference registered with
                        cutec_gemm_set_activation_ref); "" or "identity": none */
    int act_gated;               /* 1: a gated (GLU) activation: n is the GEMM's width (B's
                        rows, the biases' and C's and aux's columns), a multiple
                        of 16, and D is M x n/2 (ldc D's leading dimension) */
    int bias;                    /* 1: a bias per column of v (indexed n, n elements), args->bias */
    int bias_row;                /* 1: a bias per row (indexed m, m elements), args->bias_row */
    cutec_dtype bias_type;       /* the biases' element type; 0: c_type */
    int c_source;                /* 1: beta * C is read from args->C, M x n of c_type and
                        c_layout with leading dimension ld_csrc, and D is
                        written out of place; 0: C is D (in place, as cutec_gemm) */
    long long ld_csrc;           /* 0: packed */
    int aux;                     /* 1: v, before the activation, is written to args->aux
                        (M x n, c_type, c_layout, leading dimension ld_aux) */
    long long ld_aux;            /* 0: packed */
    int scalars_on_device;       /* 1: alpha and beta are f32 values in device memory
                        (args->alpha, args->beta), read when the GEMM runs;
                        the fields alpha and beta are then ignored */
    cutec_scale_mode scale_mode; /* scales of A B (args->scale_a, scale_b); an fp8
                        output (c_type e4m3 or e5m2) always takes args->scale_d
                        and writes args->amax, whatever the mode */
    /* A strided batch (docs/runtime.md, "Batches"): `batch` problems of the
     * same shapes and layouts, problem l's A at A + l stride_a elements (B,
     * the C source and D alike).  0 or 1: one problem (the strides unused). */
    long long batch;
    long long stride_a, stride_b; /* >= 0; 0 broadcasts the operand to every problem */
    long long stride_c;           /* the C source's (with c_source; 0 broadcasts it); in place, C is D */
    long long stride_d;           /* D's: the problems' outputs must not overlap */
    /* A grouped GEMM in the mixture-of-experts form (docs/runtime.md,
     * "Grouped GEMM"; torch._grouped_mm's 2-D A x 3-D B): `groups` problems
     * sharing one A (m x k) and one D (m x n), split by rows: group g owns
     * rows ends[g-1] .. ends[g] - 1 (ends[-1] = 0) of A and D, where ends is
     * args->group_ends, `groups` int32 values in device memory (read when
     * the GEMM runs: no copy, no synchronisation; nondecreasing and at most
     * m, else clamped: a decrease is an empty group, a value past m is m),
     * and multiplies them by its own B, B + g stride_b elements (0 shares
     * one B).  Rows past ends[groups-1] of D are not written.  0: not
     * grouped.  Not with a batch (batch > 1) or an epilogue (UNSUPPORTED).
     * The general (list) form takes args->group_list instead of group_ends:
     * `groups` problems, each its own sizes and matrices (cutec_gemm_list_row
     * below); m, n and k are then upper bounds over them. */
    long long groups;
    /* 1: the epilogue's value clamped, D = min(max(act(v), args->clamp_lo),
     * args->clamp_hi), in f32 before the conversion to c_type (and, for an
     * fp8 output, before its amax and scale_d): torch.clamp after the
     * activation, or an f16 or fp8 output's finite range, so that the
     * conversion never overflows to inf.  The bounds come with the call,
     * as the pointers do (cutec_gemm_ex: cutec_gemm and cutec_gemm_tune
     * refuse a clamp).  0: not clamped. */
    int clamp;
} cutec_gemm_problem;

/* The largest struct_size accepted (the bytes past this library's fields are read, to check they are zero). */
#define CUTEC_GEMM_PROBLEM_MAX_SIZE 4096

/*
 * Fills *p for the common case: A row-major M x K, B column-major K x N (that
 * is, stored as N rows of K, "K-contiguous", as the weights of a linear
 * layer), C row-major; A and B of type ab, C of type c; packed leading
 * dimensions; alpha 1, beta 0; no epilogue; struct_size this header's
 * sizeof.  Inline, so that it writes exactly the struct the caller has.
 */
static inline void cutec_gemm_problem_init(cutec_gemm_problem *p, long long m, long long n, long long k, cutec_dtype ab,
                                           cutec_dtype c)
{
    if (p == 0) return;
    cutec_gemm_problem z = {0};
    *p = z;
    p->struct_size = sizeof *p;
    p->m = m;
    p->n = n;
    p->k = k;
    p->a_type = p->b_type = ab;
    p->c_type = c;
    p->a_layout = CUTEC_LAYOUT_ROW;
    p->b_layout = CUTEC_LAYOUT_COL;
    p->c_layout = CUTEC_LAYOUT_ROW;
    p->alpha = 1.0f;
    p->beta = 0.0f;
    p->epilogue = CUTEC_EPILOGUE_NONE;
}

/* The activation's float64 value: act(x) for a plain activation, act(gate,
 * up) for a gated one (x is then the gate). */
typedef double (*cutec_gemm_act_fn)(double x, double up);

/*
 * The pointers of one call (cutec_gemm_ex), versioned like the problem:
 * struct_size first, fields appended, a field's zero the old behaviour.
 * A, B, D, C, bias, bias_row, aux, alpha and beta are device pointers; a
 * pointer the problem does not ask for must be NULL.
 */
typedef struct cutec_gemm_args {
    size_t struct_size; /* sizeof(cutec_gemm_args) of the caller */
    const void *A, *B;
    void *D;                        /* the output (M x n, or M x n/2 gated) */
    const void *C;                  /* with c_source: the source of beta * C */
    const void *bias;               /* with bias: n elements of bias_type */
    const void *bias_row;           /* with bias_row: m elements of bias_type */
    void *aux;                      /* with aux: M x n, the pre-activation */
    const float *alpha, *beta;      /* with scalars_on_device */
    const float *scale_a, *scale_b; /* with scale_mode (f32; the sizes its comment says) */
    const float *scale_d;           /* an fp8 output: D = fp8(scale_d[0] act(v)), saturated */
    float *amax;                    /* an fp8 output: max |act(v)| over D, combined with an
                                       atomic maximum with what it holds (zero it first) */
    const int *group_ends;          /* a grouped problem's row ends (problem.groups int32 values) */
    /* The general grouped GEMM (docs/runtime.md, "Grouped GEMM"):
     * problem.groups rows of CUTEC_GEMM_LIST_ROW int64 in device memory,
     * 16-byte aligned, laid out as cutec_gemm_list_row; read by the kernel
     * as it runs (no copy, no synchronisation).  With it, A, B and D above
     * are not read (NULL allowed): each problem's are in its row. */
    const void *group_list;
    /* With the problem's clamp: the bounds, host values passed to the
     * kernel by value (neither NaN, clamp_lo <= clamp_hi; an infinite one
     * leaves its side open).  A caller whose args end before them (an older
     * header) cannot ask for a clamp; without one they must be 0. */
    float clamp_lo, clamp_hi;
} cutec_gemm_args;

/* One row of args->group_list: exactly what the kernel reads (the sm90
 * template's GRP = 2).  Problem g computes D_g (m x n, row-major, ldd) =
 * A_g (m x k, row-major, lda) times B_g^T (B_g stored n x k, K-contiguous,
 * ldb), all of the problem's types.  A problem whose addresses are not
 * 16-byte aligned or whose leading dimensions are not whole 16 bytes is
 * skipped (its D untouched); m or n of 0 is an empty problem; k = 0 makes
 * D zeros. */
typedef struct cutec_gemm_list_row {
    long long m, n, k, lda, ldb, ldd;
    unsigned long long a, b, d; /* device addresses */
    long long zero[7];          /* reserved: zeros */
} cutec_gemm_list_row;
#define CUTEC_GEMM_LIST_ROW 16 /* int64 values a row: sizeof(cutec_gemm_list_row) / 8 */

/* The mandatory fields: A through D. */
static inline void cutec_gemm_args_init(cutec_gemm_args *a, const void *A, const void *B, void *D)
{
    if (a == 0) return;
    cutec_gemm_args z = {0};
    *a = z;
    a->struct_size = sizeof *a;
    a->A = A;
    a->B = B;
    a->D = D;
}

/* The GEMM handle. */
typedef struct cutec_gemm_handle cutec_gemm_handle;

/*
 * Creates a GEMM handle on rt (default options, no pack, nothing tuned).
 * Fails only for rt or out NULL (CUTEC_ERR_INVALID_ARGUMENT) or host memory
 * (CUTEC_ERR_OUT_OF_MEMORY; *out NULL).  A runtime whose creation failed
 * still gets a handle: its GEMM calls then return the creation status.
 *
 * Lifetime: destroy handles before their runtime.  A runtime destroyed first
 * detaches its handles (their device memory, cuBLASLt state and decisions are
 * released with it); such a handle then accepts only cutec_gemm_destroy, and
 * every other call returns CUTEC_ERR_INVALID_ARGUMENT (without a message:
 * the runtime that held it is gone).
 */
cutec_status cutec_gemm_create(cutec_runtime *rt, cutec_gemm_handle **out);
/* Frees the handle (NULL ok): its decisions, its own workspace, cuBLASLt. */
void cutec_gemm_destroy(cutec_gemm_handle *h);
/* The handle's runtime (for cutec_runtime_message); NULL once detached. */
cutec_runtime *cutec_gemm_runtime(const cutec_gemm_handle *h);

/* Makes the GEMM kernels of a loaded pack of the handle's runtime candidates
 * (at most 16 packs per handle).  The pack must stay loaded while it is in
 * use; cutec_pack_unload withdraws it from every handle that uses it (and
 * they forget the decisions that used it). */
cutec_status cutec_gemm_use_pack(cutec_gemm_handle *h, cutec_pack *pack);

/*
 * Checks the problem and pointers, then runs the best candidate for the
 * problem's class on `stream` (NULL: default stream), tuning first if the
 * class has no decision yet (in memory or in the disk cache).  A, B and C are
 * device pointers.  Statuses, in the order they are checked:
 * CUTEC_ERR_INVALID_ARGUMENT (h or p NULL, a detached handle, struct_size
 * out of range, an enum out of range),
 * CUTEC_ERR_NULL_POINTER, CUTEC_ERR_BAD_SIZE, CUTEC_ERR_BAD_LEADING_DIM,
 * for a batch: CUTEC_ERR_BAD_SIZE (batch < 0, or the batch's span over
 * 2^40 elements), CUTEC_ERR_BAD_STRIDE (a negative stride),
 * CUTEC_ERR_OVERLAP (D's problems overlap), CUTEC_ERR_UNSUPPORTED (aux,
 * gated activations, bias_row, row-wise or block-wise scales with a batch),
 * for groups: CUTEC_ERR_BAD_SIZE (groups < 0 or past 2^31 - 1),
 * CUTEC_ERR_UNSUPPORTED (groups with a batch, an epilogue or a column-major
 * D), CUTEC_ERR_NULL_POINTER (group_ends NULL; cutec_gemm, which has no
 * args, cannot run a grouped problem), CUTEC_ERR_MISALIGNED (group_ends
 * not 4-byte aligned); for a list (args->group_list):
 * CUTEC_ERR_INVALID_ARGUMENT (both group_ends and group_list, or a list
 * without groups), CUTEC_ERR_UNSUPPORTED (an epilogue, a batch, alpha != 1,
 * beta != 0, types other than 16-bit in and out, A not row-major, B not
 * K-contiguous, D not row-major), CUTEC_ERR_MISALIGNED (group_list not
 * 16-byte aligned),
 * CUTEC_ERR_MISALIGNED (not aligned to the element size), the runtime's
 * creation status (CUTEC_ERR_NO_DRIVER, CUTEC_ERR_NO_DEVICE),
 * CUTEC_ERR_UNSUPPORTED (no candidate can compute it), and while tuning
 * CUTEC_ERR_OUT_OF_MEMORY (scratch buffers), CUTEC_ERR_NO_CANDIDATE (all
 * failed) or CUTEC_ERR_KERNEL_FAULT (a candidate faulted: CUDA cannot recover
 * the context; destroy the handle and the runtime).  Tuning synchronises
 * the device.
 */
cutec_status cutec_gemm(cutec_gemm_handle *h, const cutec_gemm_problem *p, const void *A, const void *B, void *C,
                        void *stream);

/*
 * cutec_gemm with the whole epilogue: the problem's epilogue fields say
 * what is present, args the pointers.  cutec_gemm(h, p, A, B, C, s) is
 * cutec_gemm_ex with args {A, B, D = C} and no epilogue.  Statuses as
 * cutec_gemm's, and: CUTEC_ERR_INVALID_ARGUMENT for args NULL or its
 * struct_size out of range, an activation name that is not a name, a
 * table activation with the wrong act_gated, a gated problem whose n is
 * not a multiple of 16 (CUTEC_ERR_BAD_SIZE) or that reads C in place, a
 * bias_type out of range, or a pointer the problem does not ask for;
 * CUTEC_ERR_NULL_POINTER for a pointer it asks for that is NULL (the
 * message names it); CUTEC_ERR_BAD_LEADING_DIM for ld_csrc or ld_aux;
 * CUTEC_ERR_MISALIGNED for a pointer not aligned to its element;
 * CUTEC_ERR_UNSUPPORTED when no pack kernel has this epilogue and cuBLASLt
 * has no fused form of it (the message says which).  A clamp
 * (problem.clamp): CUTEC_ERR_INVALID_ARGUMENT for a NaN bound, clamp_lo >
 * clamp_hi, args too short to hold the bounds, or bounds given (nonzero)
 * without the clamp; cuBLASLt has no clamp in any fused epilogue, so its
 * candidates are its plain GEMM then a pack's elementwise kernel with the
 * clamp (the unfused baseline).
 */
cutec_status cutec_gemm_ex(cutec_gemm_handle *h, const cutec_gemm_problem *p, const cutec_gemm_args *args,
                           void *stream);

/*
 * Registers the float64 reference of a user's activation (a .cute function
 * of a user pack, named in the problem's act): the tuner checks pack
 * kernels with that activation against it; without one they are skipped
 * (never run unchecked), with the reason logged.  fn NULL removes it.  A
 * name of the epilogue table cannot be redefined (CUTEC_ERR_INVALID_ARGUMENT);
 * at most 16 per handle.  Registering clears the handle's decisions.
 */
cutec_status cutec_gemm_set_activation_ref(cutec_gemm_handle *h, const char *name, cutec_gemm_act_fn fn, int gated);

/* The longest candidate name with its terminating zero: a pack kernel's
 * name and every template parameter (the sm90 template's 30 fit). */
#define CUTEC_CANDIDATE_NAME_LEN 320

/* One timed candidate of a tuning run. */
typedef struct cutec_tune_candidate {
    /* "gemm_sm80 T=bf16 ... BM=128 ..." or "cublasLt algo #3" */
    char name[CUTEC_CANDIDATE_NAME_LEN];
    int is_cublas;   /* 1 for a cuBLASLt algorithm */
    double ms;       /* median time per call; +inf when it failed */
    double tflops;   /* 2*M*N*K / time; 0 when it failed */
    char note[160];  /* why it failed, or "" */
    int screened;    /* 1: timed in the screening round only (5 runs, output
                       not checked; see CUTEC_OPT_TUNE_FINALISTS) */
    double round_ms; /* median in the rounds that timed every checked candidate
                       together; differs from ms for the head-to-head pair,
                       whose ms is from their own alternation; +inf if the
                       candidate was not in those rounds */
    int algo_rank;   /* rank in cuBLASLt's heuristic for this problem and the
                       tuner's workspace (0: its first choice, what an
                       untuned caller gets), -1 for a pack kernel */
    int pack;        /* a pack kernel's pack, by the order in which
                       cutec_gemm_use_pack took the handle's packs (0: the
                       first), telling apart the same kernel of two packs
                       (two builds of one template); -1 for cuBLASLt */
} cutec_tune_candidate;

typedef struct cutec_tune_report {
    int count; /* candidates, the winner first, failures last; where
                                        pack kernels and cuBLASLt both ran, the first two
                                        are the fastest of each, timed head to head, and
                                        the rest follow in the order of the common rounds */
    cutec_tune_candidate *candidates;
    int winner;       /* index into candidates (0), -1 if none */
    double cublas_ms; /* the best cuBLASLt algorithm's time (its head-to-head
                                        time where there was one); +inf without cuBLASLt */
    double seconds;   /* wall time of the whole tuning */
    int from_cache;   /* 1: decision read from cache, nothing timed */
} cutec_tune_report;

/*
 * Tunes the problem's class now, whatever is cached, and stores the decision
 * (memory and disk).  A, B, C as for cutec_gemm; C is not written (tuning
 * uses scratch output buffers).  With report != NULL, *report receives the
 * ranked candidates (free it with cutec_tune_report_free).
 */
cutec_status cutec_gemm_tune(cutec_gemm_handle *h, const cutec_gemm_problem *p, const void *A, const void *B,
                             const void *C, void *stream, cutec_tune_report **report);
/* cutec_gemm_tune with the whole epilogue (args as for cutec_gemm_ex; D and
 * aux are not written: tuning uses scratch outputs). */
cutec_status cutec_gemm_tune_ex(cutec_gemm_handle *h, const cutec_gemm_problem *p, const cutec_gemm_args *args,
                                void *stream, cutec_tune_report **report);
void cutec_tune_report_free(cutec_tune_report *report);

/*
 * Runs one candidate of the problem once on `stream` and waits for it,
 * whatever the handle decided: `name` as a tuning report names it
 * (cutec_tune_candidate.name: a pack kernel's description, or "cublasLt
 * algo #R", the R-th algorithm of cuBLASLt's heuristic for the problem
 * and the handle's workspace, R below CUTEC_OPT_CUBLAS_ALGOS).  Nothing is
 * timed, checked or remembered: for studies of one kernel's results (its
 * error, cutec-tune error) and for reproducing a report's line.  Statuses
 * as cutec_gemm_ex's argument checks, CUTEC_ERR_INVALID_ARGUMENT for name
 * NULL, CUTEC_ERR_KERNEL_NOT_FOUND where no candidate of that name serves
 * the problem (a kernel that does not fit, an algorithm past the
 * heuristic's), CUTEC_ERR_UNSUPPORTED where nothing does, and the run's.
 */
cutec_status cutec_gemm_run_candidate(cutec_gemm_handle *h, const cutec_gemm_problem *p, const cutec_gemm_args *args,
                                      const char *name, void *stream);

/* The name of the candidate chosen for the problem's class ("" and
 * CUTEC_ERR_KERNEL_NOT_FOUND when it has not been tuned by this handle);
 * name_len CUTEC_CANDIDATE_NAME_LEN holds any name whole. */
cutec_status cutec_gemm_choice(cutec_gemm_handle *h, const cutec_gemm_problem *p, char *name, size_t name_len);

/* Options of a handle, set through one setter (values in brackets are the
 * defaults; out of range or unknown: CUTEC_ERR_INVALID_ARGUMENT). */
typedef enum cutec_option {
    CUTEC_OPT_TUNE_RUNS = 1,      /* timed runs per candidate, >= 20 [25] */
    CUTEC_OPT_TUNE_WARMUP = 2,    /* untimed runs before them, >= 1 [3] */
    CUTEC_OPT_CUBLAS_ALGOS = 3,   /* cuBLASLt heuristic algorithms timed, 0..32 [8]
                                   (0: cuBLASLt only as the reference) */
    CUTEC_OPT_DISK_CACHE = 4,     /* 1: read and write the disk cache [1] */
    CUTEC_OPT_FLUSH_L2 = 5,       /* 1: flush L2 before each timed run [1] */
    CUTEC_OPT_TUNE_FINALISTS = 6, /* with more pack candidates than this, all are
                                   first screened with 5 timed runs and only this
                                   many of the fastest (and every cuBLASLt
                                   algorithm) get the full count; 0: no
                                   screening, every candidate in full [8] */
    CUTEC_OPT_TUNE_SHORTLIST = 7, /* fast tuning: the cost model ranks the fitting
                                   pack kernels and only this many are timed; the
                                   screening takes cuBLASLt's algorithms too, only
                                   candidates within noise of the best become
                                   finalists, and the timed rounds stop once the
                                   ranking is settled (docs/runtime.md, "Fast
                                   tuning"); 0: exhaustive, as before [16] */
    CUTEC_OPT_TUNE_MODE = 8,      /* what a call of an untuned class does (CUTEC_TUNE_*) [BLOCKING] */
    CUTEC_OPT_DEVICE_CHECK = 9,   /* 1: candidates are compared with the reference on
                                   the device where the check kernel works (a
                                   self-test decides), 0: on the host [1] */
    CUTEC_OPT_HOST_BOUND_US = 10, /* where the best pack kernel and the best cuBLASLt
                                   algorithm both take less device time than this
                                   (microseconds), the head to head ranks them by
                                   the larger of their device time and their host
                                   time per call: back-to-back calls that short
                                   are host-bound (docs/runtime.md); 0: device
                                   time alone [0] */
    /* 1: fast tuning's shortlist grows past CUTEC_OPT_TUNE_SHORTLIST to as
     * many of the cost model's best pack kernels as its screening's time
     * budget affords at the model's time of a run (all of them for short
     * kernels: docs/runtime.md, "Fast tuning"); 0: exactly the shortlist [1] */
    CUTEC_OPT_TUNE_SHORTLIST_FILL = 11,
    /* untimed runs of a candidate right before each of its timed runs in
     * the rounds and the head to head (cutec_timing's lead), so that each
     * is timed at the clock its own power draw sets under the power cap
     * rather than the previous candidate's (docs/runtime.md, "Timing under
     * the power cap"); each timed run then costs 1 + this many [0] */
    CUTEC_OPT_TUNE_LEAD = 12
} cutec_option;

/* CUTEC_OPT_TUNE_MODE's values (docs/runtime.md, "Tuning modes"). */
enum {
    CUTEC_TUNE_BLOCKING = 0,  /* tune before answering (the first call waits) */
    CUTEC_TUNE_DEFERRED = 1,  /* answer at once with a modelled choice (cuBLASLt's
                                 heuristic, else the cost model's pack kernel);
                                 tune only on an explicit cutec_gemm_tune */
    CUTEC_TUNE_BACKGROUND = 2 /* answer at once as DEFERRED, and tune in a worker
                                 thread (its own runtime, stream of low priority
                                 and buffers); later calls take the measured
                                 decision once it is there */
};

/* Where the decision of the problem's class comes from
 * (cutec_gemm_decision_state). */
enum {
    CUTEC_DECISION_NONE = 0,     /* not decided by this handle */
    CUTEC_DECISION_MODELLED = 1, /* chosen without timing (deferred or background mode) */
    CUTEC_DECISION_MEASURED = 2  /* tuned: timed and checked */
};
/* The state of the problem's class in the handle (a background tuning's
 * finished decision is taken up first); *tuning 1 while a background
 * tuning of it is queued or running (tuning may be NULL). */
cutec_status cutec_gemm_decision_state(cutec_gemm_handle *h, const cutec_gemm_problem *p, int *state, int *tuning);
cutec_status cutec_gemm_set_option(cutec_gemm_handle *h, cutec_option opt, long long value);
/* The option's value now. */
cutec_status cutec_gemm_get_option(const cutec_gemm_handle *h, cutec_option opt, long long *value);

/* Directory of the tuning cache; NULL restores the default:
 * $CUTEC_CACHE_DIR, else $XDG_CACHE_HOME/cutec, else $HOME/.cache/cutec. */
cutec_status cutec_gemm_set_cache_dir(cutec_gemm_handle *h, const char *dir);
/* The directory in use (never NULL; "" for a NULL or detached handle). */
const char *cutec_gemm_cache_dir(cutec_gemm_handle *h);

/* cuBLASLt workspace: a device buffer of `bytes` owned by the caller (kept
 * until replaced), or NULL to go back to the handle's own 32 MiB buffer
 * (allocated on first use). */
cutec_status cutec_gemm_set_workspace(cutec_gemm_handle *h, void *workspace, size_t bytes);

/* Progress of a tuning run: `done` of `total` steps (each candidate loaded
 * or checked, the screening rounds, each finalist checked, the timed
 * rounds), the candidate or the rounds just finished named.  NULL removes
 * the callback. */
typedef void (*cutec_progress_fn)(void *user, int done, int total, const char *candidate);
void cutec_gemm_set_progress(cutec_gemm_handle *h, cutec_progress_fn fn, void *user);

/* The cuBLASLt version (cublasLtGetVersion, e.g. 130100), 0 when it cannot be
 * loaded. */
int cutec_gemm_cublas_version(cutec_gemm_handle *h);

#ifdef __cplusplus
}
#endif

#endif /* CUTEC_GEMM_H */
