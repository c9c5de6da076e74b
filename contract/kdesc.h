/*
 * kdesc.h - the kernel contract: what a launcher needs to know about one
 * compiled kernel, as a struct, with its one writer and one reader.  The
 * compiler fills a cutec_kdesc for each kernel it emits and writes it as
 * "// cutec." lines before the PTX (and into packs); the runtime, the
 * tools and the tests read it back with cutec_kdesc_read and launch from
 * it alone: no parameter name, layout, element size or grid is assumed
 * anywhere else.  docs/contract.md describes every line.
 *
 * Strings (names, values, expressions) live in the struct's own pool and
 * are referred to by offset, so a description is a plain value: it can be
 * copied with memcpy and needs no freeing.
 */
#ifndef CUTEC_CONTRACT_KDESC_H
#define CUTEC_CONTRACT_KDESC_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

/* Bump when a line changes meaning; a reader refuses other versions. */
#define CUTEC_KDESC_VERSION 1

#define CUTEC_KD_NAME         64 /* kernel, parameter and template names */
#define CUTEC_KD_MAX_ARGS     32
#define CUTEC_KD_MAX_PARAMS   32
#define CUTEC_KD_MAX_RANK     4
#define CUTEC_KD_MAX_TMA_RANK 3
#define CUTEC_KD_MAX_REQUIRES 16
#define CUTEC_KD_POOL         8192

/* Problem classes a kernel can serve (names and the roles each needs:
 * cutec_kd_class_name, cutec_kd_class_needs). */
typedef enum cutec_kd_class {
    CUTEC_KD_PLAIN = 0,    /* launched by the caller's own arguments */
    CUTEC_KD_GEMM = 1,     /* D = A B (and its epilogue), launched by cutec_gemm */
    CUTEC_KD_EPILOGUE = 2, /* D = act(C + bias + bias_row) elementwise over a GEMM's result C (and aux = C +
                            * biases): the second kernel of an unfused GEMM + epilogue, launched by cutec_gemm */
    CUTEC_KD_CLASS_COUNT
} cutec_kd_class;

typedef enum cutec_kd_kind {
    CUTEC_KD_SCALAR = 1, /* by value, its dtype's size */
    CUTEC_KD_TENSOR = 2, /* a 64-bit device pointer */
    CUTEC_KD_TMA = 3     /* a 128-byte TMA descriptor of another (tensor) argument */
} cutec_kd_kind;

/* What value a role takes. */
typedef enum cutec_kd_value {
    CUTEC_KD_VALUE_NONE = 0,
    CUTEC_KD_VALUE_INT = 1,   /* an integer scalar: a size or a leading dimension */
    CUTEC_KD_VALUE_FLOAT = 2, /* a floating-point scalar */
    CUTEC_KD_VALUE_TENSOR = 3 /* a global tensor (a device pointer) */
} cutec_kd_value;

/* Roles: what an argument is to the problem its kernel serves.  One row
 * each: enum suffix, the name written in descriptions and in `serves`
 * clauses, the value it takes, and what it means.  A GEMM's tensors are
 * indexed (m, k) for A, (n, k) for B, (m, n) for C and D, and (m, k, l),
 * (n, k, l), (m, n, l) in a batch of `batch` problems (l the problem; the
 * roles stride_a .. stride_d its steps).  A grouped GEMM (role
 * group_ends present) is a batch whose A and D are one matrix each (third
 * mode of extent 1) split by rows: problem l owns rows group_ends[l-1] ..
 * group_ends[l] - 1 of both and B's matrix l.  A general grouped GEMM
 * (role group_list present) is `batch` problems each with its own sizes,
 * leading dimensions and matrices, row l of the list (the kernel reads it;
 * A, B and D describe any valid matrices of the types, for the launch's
 * tensor maps, which the kernel patches).  Adding a role
 * is a row here and, where the runtime can supply it, a case in
 * runtime/gemm_bind.c. */
#define CUTEC_KD_ROLES(X)                                                                                              \
    X(NONE, "none", CUTEC_KD_VALUE_NONE, "no role")                                                                    \
    X(M, "m", CUTEC_KD_VALUE_INT, "rows of A, C and D")                                                                \
    X(N, "n", CUTEC_KD_VALUE_INT, "columns of B, C and D")                                                             \
    X(K, "k", CUTEC_KD_VALUE_INT, "the reduction length")                                                              \
    X(BATCH, "batch", CUTEC_KD_VALUE_INT, "the number of problems of a batch")                                         \
    X(LDA, "lda", CUTEC_KD_VALUE_INT, "the leading dimension of A")                                                    \
    X(LDB, "ldb", CUTEC_KD_VALUE_INT, "the leading dimension of B")                                                    \
    X(LDC, "ldc", CUTEC_KD_VALUE_INT, "the leading dimension of C")                                                    \
    X(LDD, "ldd", CUTEC_KD_VALUE_INT, "the leading dimension of D")                                                    \
    X(STRIDE_A, "stride_a", CUTEC_KD_VALUE_INT, "elements between consecutive problems of a batch in A")               \
    X(STRIDE_B, "stride_b", CUTEC_KD_VALUE_INT, "elements between consecutive problems of a batch in B")               \
    X(STRIDE_C, "stride_c", CUTEC_KD_VALUE_INT, "elements between consecutive problems of a batch in the source C")    \
    X(STRIDE_D, "stride_d", CUTEC_KD_VALUE_INT, "elements between consecutive problems of a batch in D")               \
    X(A, "a", CUTEC_KD_VALUE_TENSOR, "the left operand, indexed (m, k)")                                               \
    X(B, "b", CUTEC_KD_VALUE_TENSOR, "the right operand, indexed (n, k)")                                              \
    X(C, "c", CUTEC_KD_VALUE_TENSOR, "the source of beta * C, indexed (m, n)")                                         \
    X(D, "d", CUTEC_KD_VALUE_TENSOR, "the output, indexed (m, n)")                                                     \
    X(BIAS, "bias", CUTEC_KD_VALUE_TENSOR, "a bias per column of D, indexed n")                                        \
    X(BIAS_ROW, "bias_row", CUTEC_KD_VALUE_TENSOR, "a bias per row of D, indexed m")                                   \
    X(SCALE_A, "scale_a", CUTEC_KD_VALUE_TENSOR, "scales of A: one (per tensor) or per row")                           \
    X(SCALE_B, "scale_b", CUTEC_KD_VALUE_TENSOR, "scales of B: one (per tensor) or per column of D")                   \
    X(SCALE_D, "scale_d", CUTEC_KD_VALUE_TENSOR, "the scale of an fp8 output")                                         \
    X(AUX, "aux", CUTEC_KD_VALUE_TENSOR, "the pre-activation, an auxiliary output indexed (m, n)")                     \
    X(AMAX, "amax", CUTEC_KD_VALUE_TENSOR, "the absolute maximum of the output")                                       \
    X(WORKSPACE, "workspace", CUTEC_KD_VALUE_TENSOR, "scratch memory from the handle's workspace")                     \
    X(ALPHA, "alpha", CUTEC_KD_VALUE_FLOAT, "the scale of A B")                                                        \
    X(BETA, "beta", CUTEC_KD_VALUE_FLOAT, "the scale of C")                                                            \
    X(GROUP_ENDS, "group_ends", CUTEC_KD_VALUE_TENSOR, "a grouped GEMM's row ends, one int32 per problem")             \
    X(FLAGS, "flags", CUTEC_KD_VALUE_TENSOR, "int32 scratch from the workspace, zeroed before each launch")            \
    X(GROUP_LIST, "group_list", CUTEC_KD_VALUE_TENSOR,                                                                 \
      "a general grouped GEMM's problems, 16 int64 each: m, n, k, lda, ldb, ldd, the addresses of A, B and D")         \
    X(CLAMP_LO, "clamp_lo", CUTEC_KD_VALUE_FLOAT, "the lower bound the activation's value is clamped to")              \
    X(CLAMP_HI, "clamp_hi", CUTEC_KD_VALUE_FLOAT, "the upper bound the activation's value is clamped to")

typedef enum cutec_kd_role {
#define CUTEC_KD_ROLE_ENUM(id, name, value, what) CUTEC_ROLE_##id,
    CUTEC_KD_ROLES(CUTEC_KD_ROLE_ENUM)
#undef CUTEC_KD_ROLE_ENUM
        CUTEC_ROLE_COUNT
} cutec_kd_role;

/* A string in the description's pool (0 is ""). */
typedef uint16_t cutec_kd_str;

typedef struct cutec_kd_arg {
    cutec_kd_str name;
    cutec_kd_kind kind;
    cutec_ct dtype;     /* the scalar's type, the tensor's element, or (TMA) its tensor's element */
    cutec_kd_role role; /* CUTEC_ROLE_NONE for arguments of plain kernels */
    /* CUTEC_KD_TENSOR: the layout as expressions of the scalar arguments */
    int rank;
    cutec_kd_str shape[CUTEC_KD_MAX_RANK], stride[CUTEC_KD_MAX_RANK];
    int align; /* bytes the pointer must be aligned to */
    /* CUTEC_KD_TMA: the map over argument `tensor`; dims[0] is contiguous,
   * stride[i] (elements) is the step of dims[i + 1] */
    int tensor;
    int tma_rank;
    cutec_kd_str dims[CUTEC_KD_MAX_TMA_RANK], tstride[CUTEC_KD_MAX_TMA_RANK - 1];
    unsigned box[CUTEC_KD_MAX_TMA_RANK];
    int swizzle; /* bytes: 0, 32, 64 or 128 */
    int unused;  /* the kernel never reads the map: any 128 bytes will do */
} cutec_kd_arg;

typedef struct cutec_kdesc {
    int version;
    char kernel[128];
    cutec_kd_class cls;
    unsigned threads[3]; /* 0 0 0: the kernel declares no threads() */
    unsigned smem_static, smem_dynamic;
    unsigned cluster[3]; /* 1 1 1 without cluster() */
    int has_grid;
    cutec_kd_str grid[3];
    int nparams; /* template parameters and their values */
    cutec_kd_str pname[CUTEC_KD_MAX_PARAMS], pvalue[CUTEC_KD_MAX_PARAMS];
    int nargs;
    cutec_kd_arg args[CUTEC_KD_MAX_ARGS];
    /* GEMM epilogue: the elementwise function applied last (the name of a
     * .cute fn; 0 = "": none), and whether it is gated (GLU): then D has
     * N / 2 columns, D(m, j) = act(v(m, gate), v(m, up)) with the gate and
     * up columns of B interleaved in blocks of 8 (B's rows 16 q .. 16 q + 7
     * are the gates of D's columns 8 q .. 8 q + 7, the next 8 rows their
     * ups).  docs/contract.md gives the whole epilogue's meaning. */
    cutec_kd_str act;
    int gated;
    int nrequires; /* conditions on the arguments, each must be nonzero */
    cutec_kd_str requires[CUTEC_KD_MAX_REQUIRES];
    unsigned pool_used;
    char pool[CUTEC_KD_POOL];
} cutec_kdesc;

/* ---- building (the compiler) ---- */

/* An empty description of kernel `kernel` (truncated to fit). */
void cutec_kdesc_init(cutec_kdesc *d, const char *kernel);
/* Copies s into the pool: its offset, or -1 when the pool is full or s has
 * whitespace (which the line format cannot carry). */
int cutec_kdesc_intern(cutec_kdesc *d, const char *s, cutec_kd_str *out);
/* Checks a description as the reader does (every limit, index, role and
 * expression): 0, or -1 with a reason.  The writer's caller runs it so
 * that nothing a reader would refuse is ever written. */
int cutec_kdesc_check(const cutec_kdesc *d, char *why, size_t why_len);

/* ---- the line format ---- */

/* Writes the "// cutec." lines of d into buf (NUL-terminated when len > 0);
 * returns the length the whole text needs, as snprintf does. */
size_t cutec_kdesc_write(const cutec_kdesc *d, char *buf, size_t len);
/* Reads the first description in text (lines before the first
 * "// cutec.kernel" and other text are skipped; a second description
 * ends it).  0, or -1 with a reason; every index, size and expression is
 * checked, so a description that reads is safe to launch from. */
int cutec_kdesc_read(const char *text, size_t len, cutec_kdesc *d, char *why, size_t why_len);

/* The same for the description of kernel `kernel` among several (a PTX
 * file of many kernels). */
int cutec_kdesc_read_kernel(const char *text, size_t len, const char *kernel, cutec_kdesc *d, char *why,
                            size_t why_len);

/* ---- queries ---- */

static inline const char *cutec_kd_s(const cutec_kdesc *d, cutec_kd_str s) { return d->pool + s; }
/* "plain", "gemm", "epilogue" ("?" out of range); the class named name,
 * or -1. */
const char *cutec_kd_class_name(cutec_kd_class c);
int cutec_kd_class_from_name(const char *name);
/* The roles a kernel of class c must have: their number, *roles the list. */
int cutec_kd_class_needs(cutec_kd_class c, const cutec_kd_role **roles);
const char *cutec_kd_role_name(cutec_kd_role r);
const char *cutec_kd_role_what(cutec_kd_role r);
cutec_kd_value cutec_kd_role_value(cutec_kd_role r);
/* The role named name, or -1. */
int cutec_kd_role_from_name(const char *name, size_t n);
/* Index of the argument with role r / named name, or -1. */
int cutec_kdesc_role_arg(const cutec_kdesc *d, cutec_kd_role r);
int cutec_kdesc_arg_index(const cutec_kdesc *d, const char *name);
/* Value of template parameter `name`, or NULL. */
const char *cutec_kdesc_param(const cutec_kdesc *d, const char *name);
/* "gemm_sm80 T=bf16 BM=128 ..." into buf (always NUL-terminated). */
void cutec_kdesc_describe(const cutec_kdesc *d, char *buf, size_t len);

/* ---- evaluation ---- */

/* The values expressions are evaluated with: one per argument (integer
 * scalars only are read; set[i] says which are known), and the blocks the
 * device holds at once for resident() (0: unknown). */
typedef struct cutec_kd_values {
    long long v[CUTEC_KD_MAX_ARGS];
    unsigned char set[CUTEC_KD_MAX_ARGS];
    long long resident;
} cutec_kd_values;

/* Evaluates expression s of d: 0 and *v, or -1 with a reason. */
int cutec_kdesc_eval(const cutec_kdesc *d, cutec_kd_str s, const cutec_kd_values *vals, long long *v, char *why,
                     size_t why_len);
/* Reads integer scalar arguments from launch arguments (one pointer per
 * argument, as cuLaunchKernel takes them) into vals. */
void cutec_kdesc_values_from_args(const cutec_kdesc *d, void *const *args, cutec_kd_values *vals);
/* The grid: each component evaluated and checked to lie in 1 .. 2^31 - 1
 * (y and z at most 65535) and to be a multiple of the cluster.  0, or -1
 * with a reason. */
int cutec_kdesc_grid(const cutec_kdesc *d, const cutec_kd_values *vals, unsigned grid[3], char *why, size_t why_len);
/* The bytes tensor argument a's layout spans (its last element's offset
 * plus one, in its element type; 0 for an empty one), as the scratch roles
 * workspace and flags are sized.  0 and *bytes, or -1 with a reason. */
int cutec_kdesc_tensor_bytes(const cutec_kdesc *d, int a, const cutec_kd_values *vals, long long *bytes, char *why,
                             size_t why_len);

#endif /* CUTEC_CONTRACT_KDESC_H */
