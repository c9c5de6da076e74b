/*
 * gemm_internal.h - the GEMM layer's state, the handle, shared by gemm.c
 * (the handle, options, validation, the decision table, dispatch),
 * gemm_bind.c (a problem bound to a kernel's contract), tune.c and
 * tune_harness.c (the tuner) and gemm_cache.c (its decisions on disk).  The
 * core runtime (internal.h) does not see any of it.  Not part of the public
 * API.
 */
#ifndef CUTEC_RUNTIME_GEMM_INTERNAL_H
#define CUTEC_RUNTIME_GEMM_INTERNAL_H

#include "cublaslt.h"
#include "cutec/gemm.h"
#include "internal.h"
#include "cutec/cluster.h"
#include "cutec/tensor_map.h"

#include <stdatomic.h>

#define CUTEC_GEMM_MAX_PACKS    16
#define CUTEC_DEFAULT_WORKSPACE (32u << 20)
#define CUTEC_KEY_MAX           512
/* Tensor maps kept per decision: for its first MAP_ARGS TMA arguments
 * (later ones are encoded at every launch), the maps of the last MAP_WAYS
 * pointers each, so that the few buffers a caching allocator hands out in
 * turn (PyTorch's outputs) are encoded once each, not at every call. */
#define CUTEC_GEMM_MAP_ARGS 6
#define CUTEC_GEMM_MAP_WAYS 4

/* A problem class: everything that decides which candidate may run and how
 * fast it is.  Zero-initialised before filling, so it can be hashed as bytes. */
typedef struct gemm_class {
    long long m, n, k, lda, ldb, ldc;
    int a_type, b_type, c_type;
    int a_layout, b_layout, c_layout;
    int alpha_one, beta_zero; /* alpha == 1, beta == 0 */
    int epilogue;
    int align[3]; /* of A, B and C: the largest power of two dividing the pointer, <= 16 */
    /* a batch (all zero for one problem: its key is as before); before the
     * epilogue's fields, which a plain class does not hash */
    long long batch, stride_a, stride_b, stride_c, stride_d;
    /* grouped (docs/runtime.md, "Grouped GEMM"): the groups, and stride_b
     * above B's step between them (0 for a problem that is not grouped) */
    long long groups;
    int list; /* the groups are a list of problems (args' group_list): a kernel with role group_list */
    /* the epilogue (all zero without one: the key of a plain GEMM is as before) */
    char act[32]; /* "" for identity */
    int gated, bias, bias_row, bias_type, c_source, aux, scalars_on_device;
    long long ld_csrc, ld_aux;
    int align_epi[4]; /* of the C source, bias, bias_row and aux (0: absent) */
    int scale_mode;   /* cutec_scale_mode */
    int clamp;        /* D clamped to the call's bounds (their values are the call's, not the class's) */
} gemm_class;

/* Whether a class has an epilogue beyond D = alpha A B + beta D. */
static inline int gemm_class_has_epilogue(const gemm_class *c)
{
    return c->act[0] != '\0' || c->gated || c->bias || c->bias_row || c->c_source || c->aux || c->scalars_on_device ||
           c->scale_mode || c->clamp || cutec_ct_is_fp8((cutec_ct)c->c_type);
}

/* A user's activation reference (cutec_gemm_set_activation_ref). */
typedef struct gemm_act_ref {
    char name[32];
    cutec_gemm_act_fn fn;
    int gated;
} gemm_act_ref;
#define CUTEC_GEMM_MAX_ACT_REFS 16

typedef enum { DECISION_DSL = 1, DECISION_CUBLAS = 2 } decision_kind;

typedef struct gemm_decision {
    uint64_t hash;
    gemm_class cls;
    decision_kind kind;
    cutec_pack *pack; /* DSL */
    int entry;
    cutec_kernel *kernel;
    cutec_launch_plan launch;  /* grid, block, cluster, shared memory (gemm_bind.c) */
    int grid_resident;         /* the grid capped by the device's resident blocks (a resident() rule), once */
    cublasLtMatmulAlgo_t algo; /* cuBLASLt */
    cutec_lt_plan plan;
    int has_plan;
    /* the unfused baseline: cuBLASLt's plain GEMM into x (the problem's v
     * before bias and activation, M x n, D's type and layout, packed), then
     * the elementwise epilogue kernel ew (a DSL decision of class epilogue;
     * malloc'd, owned) over it; x owned when x_owned */
    struct gemm_decision *ew;
    CUdeviceptr x;
    int x_owned;
    double ms;
    int modelled; /* chosen without timing (CUTEC_TUNE_DEFERRED / _BACKGROUND) until tuned */
    char name[CUTEC_CANDIDATE_NAME_LEN];
    /* the kernel's arguments (gemm_bind.c): scalars' and pointers' bytes, and
   * the tensor maps by TMA argument (in argument order) and pointer (n ways
   * filled; next: the one to replace when all are), all kept while the sizes
   * (map_key: m, n, k, lda, ldb, ldc, batch, strides and groups) stay the same */
    unsigned long long argv[CUTEC_KD_MAX_ARGS];
    struct gemm_maps {
        unsigned long long ptr[CUTEC_GEMM_MAP_WAYS];
        cutec_tensor_map map[CUTEC_GEMM_MAP_WAYS];
        int n, next;
    } maps[CUTEC_GEMM_MAP_ARGS];
    long long map_key[12];
    /* scratch from the handle's workspace (gemm_bind.c): the flags (role
     * flags, zeroed before each launch) at offset 0, then the partial sums
     * (role workspace) at scratch_off; scratch_bytes in all (0: none) */
    size_t flags_bytes, scratch_off, scratch_bytes;
    /* staged operands (gemm_stage.c): bit i set for A, B, D (0: none), and
     * their buffer (owned: freed with the decision; else a tuning's, shared
     * by its candidates) */
    int stage_mask;
    CUdeviceptr stage;
    int stage_owned;
} gemm_decision;

struct cutec_gemm_handle {
    cutec_rt_layer layer; /* first: the runtime tells it of pack unloads and of its destruction */
    cutec_runtime *rt;    /* NULL once the runtime was destroyed (the handle is detached) */
    cutec_pack *packs[CUTEC_GEMM_MAX_PACKS];
    int npacks;
    /* options (gemm.c's table) */
    int runs, warmup, cublas_algos, disk_cache, flush_l2, finalists, shortlist, tune_mode, device_check, host_bound_us,
        shortlist_fill, lead;
    char cache_dir[1024];     /* "" : the default */
    char cache_dir_buf[1024]; /* what cutec_gemm_cache_dir returns */
    CUdeviceptr workspace;
    size_t workspace_bytes;
    int workspace_owned;
    cutec_cublaslt lt;
    int lt_tried, lt_ok;
    char lt_why[256];
    cutec_progress_fn progress;
    void *progress_user;
    gemm_decision **table; /* open addressing, power-of-two capacity */
    size_t cap, used;
    char env_key[CUTEC_KEY_MAX];
    int env_ready;
    int facts_read;                       /* the two device facts below were asked for */
    int smem_optin;                       /* device's opt-in shared memory per block; 0 unknown */
    int cc_major;                         /* device's compute capability major; 0 unknown */
    int sms, smem_per_sm, threads_per_sm; /* for the cost model; 0 unknown */
    gemm_act_ref act_refs[CUTEC_GEMM_MAX_ACT_REFS];
    int nact_refs;
    atomic_int *cancel;         /* a background worker's handle: set when its owner goes (tuning stops early) */
    struct gemm_worker *worker; /* CUTEC_TUNE_BACKGROUND's worker (gemm_worker.c), started on first use */
    /* the device check (tune_check.c): the embedded pack, loaded on first
     * use, its count buffer, and per element type (bf16, f16, f32) whether
     * its self-test passed (1), failed (-1, why) or has not run (0) */
    cutec_pack *check_pack;
    CUdeviceptr check_count;
    int check_state[3];
    char check_why[300];
    /* its fp8 kernels (abs_blocks, check_close_rank1: cutec_gemm_fp8_ready),
     * as check_state */
    int check_fp8_state;
};

/* gemm.c */
/* Checks p and args (through their struct_size) and fills *out with the
 * normalised problem (every field this library knows; packed leading
 * dimensions filled in), *io with the normalised pointers (C is D for an
 * in-place problem) and *cls with its class.  args NULL: 16-byte aligned
 * placeholders for every pointer p asks for (cutec_gemm_choice). */
cutec_status cutec_gemm_check(cutec_runtime *rt, const char *fn, const cutec_gemm_problem *p,
                              const cutec_gemm_args *args, cutec_gemm_problem *out, cutec_gemm_args *io,
                              gemm_class *cls);
/* D's columns: n, or n / 2 with a gated activation. */
/* A column-major D rewritten as the row-major D^T = B^T A^T (operands,
 * sizes, biases and row-wise scales trade places); 1 if it was, 0 where
 * the problem has no such form (row-major D, gated, block-wise scales).
 * gemm_transpose.c. */
int cutec_gemm_transpose_output(cutec_gemm_problem *p, cutec_gemm_args *io);
static inline long long cutec_gemm_d_cols(const cutec_gemm_problem *p) { return p->act_gated ? p->n / 2 : p->n; }
/* The float64 reference of the problem's activation: the epilogue table's
 * row or the handle's registration; NULL when there is none. */
cutec_gemm_act_fn cutec_gemm_act_ref(cutec_gemm_handle *g, const cutec_gemm_problem *p);
uint64_t cutec_gemm_class_hash(const gemm_class *c);
void cutec_gemm_class_key(const gemm_class *c, char *buf, size_t len);
gemm_decision *cutec_gemm_table_find(cutec_gemm_handle *g, const gemm_class *c, uint64_t h);
/* Takes ownership of d (replacing an older decision of the same class). */
int cutec_gemm_table_put(cutec_gemm_handle *g, gemm_decision *d);
void cutec_gemm_decision_free(cutec_gemm_handle *g, gemm_decision *d);
/* Loads cuBLASLt once; 1 when usable. */
int cutec_gemm_lt(cutec_gemm_handle *g);
/* Reads the device facts candidates' fit depends on, once. */
void cutec_gemm_device_facts(cutec_gemm_handle *g);
/* Runs a decision once (no checks). */
cutec_status cutec_gemm_run_decision(cutec_gemm_handle *g, gemm_decision *d, const cutec_gemm_problem *p,
                                     const cutec_gemm_args *io, void *stream);
/* Bytes of a matrix of r x c elements of type t stored with layout l and ld. */
size_t cutec_gemm_matrix_bytes(cutec_dtype t, cutec_layout l, long long r, long long c, long long ld);
/* The same for a batch of `batch` such matrices, stride elements apart. */
size_t cutec_gemm_batch_bytes(cutec_dtype t, cutec_layout l, long long r, long long c, long long ld, long long batch,
                              long long stride);
/* The problems of a batch the tuner checks: the first, a middle one and the
 * last (one for a single problem); their number, in out[0..2]. */
static inline int cutec_gemm_checked_entries(const cutec_gemm_problem *p, long long out[3])
{
    int n = 0;
    out[n++] = 0;
    if (p->batch > 2) out[n++] = p->batch / 2;
    if (p->batch > 1) out[n++] = p->batch - 1;
    return n;
}
size_t cutec_dtype_size(cutec_dtype t);
const char *cutec_dtype_name(cutec_dtype t);
int cutec_dtype_is_fp8(cutec_dtype t);
/* Elements of a scale role's tensor (scale_a, scale_b, scale_d, amax) for p's
 * scale mode and output (gemm_bind.c, the layouts kernels are bound by); 0: none. */
long long cutec_gemm_scale_count(const cutec_gemm_problem *p, cutec_kd_role r);

/* gemm_bind.c: the problem bound to a kernel's contract */
/* Why DSL entry i of pack cannot compute p (written to why and returned;
 * NULL when it can); fills the decision's launch fields when it can and
 * d != NULL. */
/* gemm_stage.c: which operands of p a pack kernel could read only from a
 * staged copy (bit 0 A, 1 B, 2 D; 0: none, or a problem that is not
 * staged); the staging buffer's size; the problem (and class, when not
 * NULL) the kernel sees; a staged decision's run (copies in, the kernel,
 * D copied out; its buffer allocated and owned if it has none). */
int cutec_gemm_stage_mask(const cutec_gemm_problem *p, const gemm_class *cls);
size_t cutec_gemm_stage_bytes(const cutec_gemm_problem *p, int mask);
void cutec_gemm_stage_problem(const cutec_gemm_problem *p, int mask, cutec_gemm_problem *sp, gemm_class *scls);
cutec_status cutec_gemm_stage_run(cutec_gemm_handle *g, gemm_decision *d, const cutec_gemm_problem *p,
                                  const cutec_gemm_args *io, void *stream);
const char *cutec_gemm_dsl_unfit(cutec_gemm_handle *g, cutec_pack *pack, int i, const cutec_gemm_problem *p,
                                 const gemm_class *cls, gemm_decision *d, char *why, size_t len);
/* The unfused baseline's two halves of problem p: the plain GEMM writing
 * x (gemm: no activation, bias or aux; C read from the C source or, in
 * place, from D), and the elementwise kernel's problem (ew: x as its C
 * source) with its class (from p's). */
void cutec_gemm_ew_split(const cutec_gemm_problem *p, const gemm_class *cls, cutec_gemm_problem *gemm,
                         cutec_gemm_problem *ew, gemm_class *ew_cls);
/* Bytes of x for p. */
size_t cutec_gemm_ew_x_bytes(const cutec_gemm_problem *p);
/* Why entry i of pack cannot be the elementwise kernel of p's unfused
 * baseline (NULL when it can; then dec is filled as for a DSL decision). */
const char *cutec_gemm_ew_unfit(cutec_gemm_handle *g, cutec_pack *pack, int i, const cutec_gemm_problem *p,
                                const gemm_class *cls, gemm_decision *d, char *why, size_t len);
/* Launches a DSL decision: arguments by role (scratch roles from the
 * workspace, its flags zeroed first), tensor maps, grid. */
cutec_status cutec_gemm_dsl_launch(cutec_runtime *rt, gemm_decision *d, const cutec_gemm_problem *p,
                                   const cutec_gemm_args *io, CUdeviceptr workspace, void *stream);
/* The handle's workspace, allocated (CUTEC_DEFAULT_WORKSPACE bytes) if the
 * caller set none. */
cutec_status cutec_gemm_workspace(cutec_gemm_handle *g);
/* The values of d's integer arguments for problem p. */
void cutec_gemm_kd_values(const cutec_kdesc *d, const cutec_gemm_problem *p, cutec_kd_values *vals);
/* The largest power of two dividing ptr, at most 16. */
int cutec_gemm_ptr_align(const void *ptr);

/* tune.c */
cutec_status cutec_gemm_tune_class(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls,
                                   const cutec_gemm_args *io, void *stream, cutec_tune_report **report,
                                   gemm_decision **out);

/* The candidate of a class named `name` as a tuning report names it (a
 * pack entry's description, "cublasLt algo #R"), loaded, not run; the
 * same candidates the tuner would take (cutec_gemm_run_candidate).
 * CUTEC_ERR_KERNEL_NOT_FOUND when none has that name. */
cutec_status cutec_gemm_named_decision(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls,
                                       const cutec_gemm_args *io, const char *name, gemm_decision **out);

/* The modelled decision of a class (deferred and background modes): the
 * first algorithm of cuBLASLt's heuristic (fused, or the unfused
 * baseline), else the pack kernel the cost model ranks first; nothing
 * runs.  Stored on disk (marked modelled) with the cache on. */
cutec_status cutec_gemm_model_decision(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls,
                                       const cutec_gemm_args *io, gemm_decision **out);

/* tune_check.c: the device check (stdlib/check_close.cute's kernel,
 * embedded).  Counts into *bad the elements of x (rows x cols, leading
 * dimension ld, type t) with !(|x - y| <= rel |y| + abs_tol), on stream;
 * CUTEC_ERR_UNSUPPORTED (the reason in the message) where the kernel is
 * not embedded, does not load, fails its self-test (the tests' mock
 * driver does not run it) or the matrix spans 2^31 elements or more. */
cutec_status cutec_gemm_check_close(cutec_gemm_handle *g, cutec_dtype t, long long rows, long long cols, long long ld,
                                    CUdeviceptr x, CUdeviceptr y, double rel, double abs_tol, void *stream,
                                    long long *bad);
/* The same with ts ta[r] tb[c] (f32 vectors of rows and cols on the
 * device) added to row r, column c's bound: fp8 inputs
 * (check_close_rank1); after cutec_gemm_fp8_ready. */
cutec_status cutec_gemm_check_close_rank1(cutec_gemm_handle *g, cutec_dtype t, long long rows, long long cols,
                                          long long ld, CUdeviceptr x, CUdeviceptr y, double rel, double abs_tol,
                                          CUdeviceptr ta, CUdeviceptr tb, double ts, void *stream, long long *bad);
/* Whether the check pack's check_close for output type t and its fp8
 * kernels (abs_blocks, and check_close_rank1, self-tested in its f32
 * entry: the others differ in the element type alone, which check_close's
 * own self-test covers) load and pass their self-tests: CUTEC_OK, or
 * CUTEC_ERR_UNSUPPORTED with why in the message (logged as information). */
cutec_status cutec_gemm_fp8_ready(cutec_gemm_handle *g, cutec_dtype t, void *stream);
/* out[r ceil(k/128) + kb] (f32 on the device) = the sum of |x[r][q]| over
 * the 128 bytes q of block kb of row r, or with maxed their largest, for
 * the rows x k fp8 matrix of type t at x (leading dimension ld; k and ld
 * multiples of 16 bytes, else CUTEC_ERR_UNSUPPORTED): abs_blocks, after
 * cutec_gemm_fp8_ready. */
cutec_status cutec_gemm_fp8_abs_blocks(cutec_gemm_handle *g, cutec_dtype t, long long rows, long long k, long long ld,
                                       CUdeviceptr x, int maxed, CUdeviceptr out, void *stream);
/* Its pack and buffer, released with the handle's device state. */
void cutec_gemm_check_release(cutec_gemm_handle *g);

/* gemm_worker.c: CUTEC_TUNE_BACKGROUND's worker thread, with its own
 * runtime, GEMM handle (copies of the packs and options), stream of the
 * lowest priority and buffers; it tunes queued classes and hands back
 * each decision as its cache choice line, which the handle's thread
 * resolves (cutec_gemm_resolve_choice) at its next call.  Only the queue
 * and the finished lines are shared, under the worker's mutex. */
/* Queues a class (started on first use); a class already queued or
 * running is not queued twice.  Failures are logged, never fatal. */
void cutec_gemm_worker_submit(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls, uint64_t h);
/* Takes the finished decisions into the table (an atomic load when there
 * are none). */
void cutec_gemm_worker_collect(cutec_gemm_handle *g);
/* 1 while the class is queued or being tuned. */
int cutec_gemm_worker_busy(cutec_gemm_handle *g, const gemm_class *cls, uint64_t h);
/* Stops the tuning in progress at its next step, joins the thread and
 * releases its runtime (packs or options changing, destroy). */
void cutec_gemm_worker_stop(cutec_gemm_handle *g);

/* gemm_cache.c: the decisions on disk (through cache.h) */
/* A decision's choice line ("dsl ...", "cublas ...", "cublas+ew ..."). */
void cutec_gemm_choice_line(const gemm_decision *d, char *buf, size_t len);
/* Why a choice line cannot be used for p now (NULL: it can; d, zeroed by
 * the caller, is the decision it resolves to). */
const char *cutec_gemm_resolve_choice(cutec_gemm_handle *g, const char *choice, const cutec_gemm_problem *p,
                                      const gemm_class *cls, gemm_decision *d);
/* The directory in use (resolving the default). */
const char *cutec_gemm_cache_dir_of(cutec_gemm_handle *g);
/* The environment part of cache keys (device, versions, packs). */
cutec_status cutec_gemm_env_key(cutec_gemm_handle *g, const char **key);
/* Reads the decision of a class; NULL when absent, stale or corrupt (the
 * reason is logged). */
gemm_decision *cutec_gemm_cache_load(cutec_gemm_handle *g, const cutec_gemm_problem *p, const gemm_class *cls);
/* Writes it atomically; failures are logged as warnings, never fatal. */
void cutec_gemm_cache_store(cutec_gemm_handle *g, const gemm_decision *d);
/* The quarantine of pack kernels that faulted while tuned (with the disk
 * cache on): its lines, read once per tuning (malloc'd; NULL when there
 * are none); whether d's kernel is among them; adding d's kernel (0 and
 * the file's path in path, or -1 when it could not be written, which is
 * logged). */
char *cutec_gemm_quarantine_load(cutec_gemm_handle *g);
int cutec_gemm_quarantined(const char *list, const gemm_decision *d);
int cutec_gemm_quarantine(cutec_gemm_handle *g, const gemm_decision *d, char *path, size_t len);

#endif /* CUTEC_RUNTIME_GEMM_INTERNAL_H */
