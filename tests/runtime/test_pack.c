/*
 * test_pack.c - kernel packs, launch from manifests and the autotuned GEMM.
 * One case per process (`test_pack CASE ARGS...`):
 *   format VECTOR_ADD_PTX       every pack defect gets its own status (no GPU needed)
 *   manifest                    manifest parsing and the grid rule evaluator
 *   gemm_args                   every bad GEMM argument gets its own status (no GPU)
 *   arch VECTOR_ADD_PTX         pack architecture against the device   (mock or GPU)
 *   launch VECTOR_ADD_PTX       launch of a pack entry from its manifest (mock or GPU)
 *   gemm PACK                   tuning, correctness, cache, +inf candidates (mock or GPU)
 *   gemm_errors PACK            out of memory, unsupported, no cuBLASLt  (mock or GPU)
 *   layouts PACK                row/column-major A, B, C and ld > packed through cuBLASLt
 *   user PACK                   user kernels with roles (user_gemm.cute): served or skipped with the reason
 *   files                       only regular files up to 1 GiB are read (no GPU)
 *   gemm_nonfinite [PACK]       NaN or infinite alpha/beta: an argument error (no GPU; mock with PACK)
 *   gemm_problem_size           the problem's struct_size: older and newer callers, bad sizes (no GPU)
 *   cache_keys                  the disk cache's key and value API, its format, its lists (no GPU)
 *   gemm_handles PACK           handles: independent, pack unload, old problems, runtime destroyed first
 * The mock cases run with CUTEC_CUDA_DRIVER / CUTEC_CUBLASLT pointing at the
 * mocks; the same cases on a GPU exit 77 when there is none.
 */
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "check.h"
#include "cutec/cutec.h"
#include "kdesc.h"
#include "kexpr.h"
#include "pack_format.h"

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    CHECK(b != NULL && fread(b, 1, (size_t)n, f) == (size_t)n);
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

static const char va_manifest[] = "// cutec.kernel vector_add\n"
                                  "// cutec.contract 1\n"
                                  "// cutec.class plain\n"
                                  "// cutec.threads 128 1 1\n"
                                  "// cutec.smem_static 0\n"
                                  "// cutec.smem_dynamic 0\n"
                                  "// cutec.param BLOCK 128\n"
                                  "// cutec.arg 0 a tensor f32 rank 1 shape n stride 1 align 4\n"
                                  "// cutec.arg 1 b tensor f32 rank 1 shape n stride 1 align 4\n"
                                  "// cutec.arg 2 c tensor f32 rank 1 shape n stride 1 align 4\n"
                                  "// cutec.arg 3 n scalar i32\n"
                                  "// cutec.grid ceil_div(n,BLOCK) 1 1\n";

/* A pack with one vector_add entry (manifest above, PTX from the fixture). */
static unsigned char *make_pack(const char *ptx_path, const char *arch, uint32_t version, const char *manifest,
                                size_t *size)
{
    size_t plen;
    char *ptx = read_text(ptx_path, &plen);
    cutec_packfmt_entry e = {.manifest = manifest, .manifest_size = strlen(manifest), .ptx = ptx, .ptx_size = plen};
    unsigned char *out = NULL;
    CHECK(cutec_packfmt_write(arch, version, 0x1234, &e, 1, &out, size) == 0);
    free(ptx);
    return out;
}

static cutec_runtime *no_driver_runtime(void)
{
    CHECK(setenv("CUTEC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1) == 0);
    cutec_runtime *rt = NULL;
    CHECK_STATUS(rt, cutec_runtime_create(&rt, 0), CUTEC_ERR_NO_DRIVER);
    return rt;
}

/* The GEMM handle of the case's runtime (gemm_runtime, gemm_handle);
 * gemm_done destroys both, the handle first. */
static cutec_gemm_handle *gh;

static void gemm_handle(cutec_runtime *rt) { CHECK_OK(rt, cutec_gemm_create(rt, &gh)); }

static void gemm_done(cutec_runtime *rt)
{
    cutec_gemm_destroy(gh);
    gh = NULL;
    cutec_runtime_destroy(rt);
}

/* A runtime on the device, or exit 77. */
static cutec_runtime *gpu_runtime(void) { return check_gpu_runtime(); }

static int test_format(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_runtime *rt = no_driver_runtime();
    size_t size;
    unsigned char *good = make_pack(argv[0], "sm_80", CUTEC_VERSION_NUMBER, va_manifest, &size);
    unsigned char *bad = malloc(size);
    CHECK(bad != NULL);
    cutec_pack *p = (cutec_pack *)1;

    /* well-formed: the format passes, then the missing driver is reported */
    CHECK_STATUS(rt, cutec_pack_load_data(rt, good, size, &p), CUTEC_ERR_NO_DRIVER);
    CHECK(p == NULL);
    memcpy(bad, good, size);
    bad[0] = 'X';
    CHECK_STATUS(rt, cutec_pack_load_data(rt, bad, size, &p), CUTEC_ERR_PACK_FORMAT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "not a cutec kernel pack");
    CHECK_STATUS(rt, cutec_pack_load_data(rt, "hello", 5, &p), CUTEC_ERR_PACK_FORMAT);
    memcpy(bad, good, size);
    bad[8] = 9; /* format version */
    CHECK_STATUS(rt, cutec_pack_load_data(rt, bad, size, &p), CUTEC_ERR_PACK_VERSION);
    CHECK_CONTAINS(cutec_runtime_message(rt), "format version 9");
    size_t cuts[] = {size - 1, size / 2, CUTEC_PACK_HEADER_SIZE, 40, 10};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        CHECK_STATUS(rt, cutec_pack_load_data(rt, good, cuts[i], &p), CUTEC_ERR_PACK_TRUNCATED);
        CHECK_CONTAINS(cutec_runtime_message(rt), "truncated");
    }
    size_t flips[] = {size / 2, size - 1, 30, CUTEC_PACK_HEADER_SIZE + 3};
    for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
        memcpy(bad, good, size);
        bad[flips[i]] ^= 0x20;
        CHECK_STATUS(rt, cutec_pack_load_data(rt, bad, size, &p), CUTEC_ERR_PACK_CORRUPT);
        CHECK_CONTAINS(cutec_runtime_message(rt), "corrupt");
    }
    free(good);
    good = make_pack(argv[0], "sm_80", 200, va_manifest, &size); /* cutec 0.2.0 */
    CHECK_STATUS(rt, cutec_pack_load_data(rt, good, size, &p), CUTEC_ERR_PACK_CUTEC_VERSION);
    CHECK_CONTAINS(cutec_runtime_message(rt), "built by cutec 0.2.0");
    free(good);
    good = make_pack(argv[0], "sm_80", CUTEC_VERSION_NUMBER, "// nothing here\n", &size);
    CHECK_STATUS(rt, cutec_pack_load_data(rt, good, size, &p), CUTEC_ERR_PACK_CORRUPT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "bad manifest");
    free(good);
    good = make_pack(argv[0], "gfx90a", CUTEC_VERSION_NUMBER, va_manifest, &size);
    CHECK_STATUS(rt, cutec_pack_load_data(rt, good, size, &p), CUTEC_ERR_PACK_CORRUPT);
    /* files */
    CHECK_STATUS(rt, cutec_pack_load_file(rt, "/nonexistent/x.pack", &p), CUTEC_ERR_IO);
    CHECK_STATUS(rt, cutec_pack_load_file(rt, argv[0], &p), CUTEC_ERR_PACK_FORMAT); /* a PTX file */
    CHECK_STATUS(rt, cutec_pack_load_file(rt, NULL, &p), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_pack_load_data(rt, good, 0, &p), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_pack_load_data(NULL, good, size, &p), CUTEC_ERR_INVALID_ARGUMENT);
    cutec_pack_unload(NULL);
    CHECK(cutec_pack_entry_count(NULL) == 0 && cutec_pack_entry_kernel(NULL, 0) == NULL);
    free(good);
    free(bad);
    cutec_runtime_destroy(rt);
    return 0;
}

static int lookup_mnk(void *user, const char *name, size_t len, long long *v)
{
    (void)user;
    if (len == 1 && (name[0] == 'M' || name[0] == 'N' || name[0] == 'K')) {
        *v = name[0] == 'M' ? 1000 : name[0] == 'N' ? 333 : 64;
        return 0;
    }
    return -1;
}

/* the same, and a device that holds 120 blocks at once */
static int lookup_resident(void *user, const char *name, size_t len, long long *v)
{
    if (len == 9 && memcmp(name, "@resident", 9) == 0) {
        *v = 120;
        return 0;
    }
    return lookup_mnk(user, name, len, v);
}

static long long eval(const char *e)
{
    long long v = -999;
    char why[128];
    CHECK(cutec_kexpr_eval(e, lookup_mnk, NULL, &v, why, sizeof why) == 0);
    return v;
}

static void eval_fails(const char *e, const char *msg)
{
    long long v;
    char why[256];
    CHECK(cutec_kexpr_eval(e, lookup_mnk, NULL, &v, why, sizeof why) != 0);
    CHECK_CONTAINS(why, msg);
}

static int test_manifest(int argc, char **argv)
{
    (void)argc, (void)argv;
    CHECK(eval("ceil_div(N,128)") == 3);
    CHECK(eval("ceil_div(M,128)") == 8);
    CHECK(eval("1") == 1);
    CHECK(eval("(M+N)*2-K/4%3") == 2666 - 16 % 3);
    CHECK(eval("min(M,N)+max(K,7)") == 397);
    CHECK(eval("-3+M") == 997);
    CHECK(eval("ceil_div(128,128)") == 1 && eval("ceil_div(129,128)") == 2);
    eval_fails("ceil_div(N,0)", "division by zero");
    eval_fails("Q+1", "unknown name");
    eval_fails("M+", "expected");
    eval_fails("M)", "unexpected character");
    eval_fails("foo(M,N)", "unknown function");
    /* resident(x): x where the device's capacity is unknown, else capped by it */
    CHECK(eval("resident(min(M,132))") == 132);
    CHECK(eval("resident(4)") == 4);
    long long rv = 0;
    char rwhy[128];
    CHECK(cutec_kexpr_eval("resident(min(M,132))", lookup_resident, NULL, &rv, rwhy, sizeof rwhy) == 0 && rv == 120);
    CHECK(cutec_kexpr_eval("resident(ceil_div(N,128))", lookup_resident, NULL, &rv, rwhy, sizeof rwhy) == 0 && rv == 3);
    eval_fails("resident(M", "expected ')'");
    eval_fails("99999999999*99999999999", "overflow");
    static cutec_kdesc m;
    char why[256];
    CHECK(cutec_kdesc_read(va_manifest, strlen(va_manifest), &m, why, sizeof why) == 0);
    CHECK(strcmp(m.kernel, "vector_add") == 0 && m.threads[0] == 128);
    CHECK(m.nargs == 4 && m.args[0].kind == CUTEC_KD_TENSOR && m.args[3].kind == CUTEC_KD_SCALAR &&
          m.args[3].dtype == CUTEC_CT_I32);
    CHECK(m.has_grid && strcmp(cutec_kd_s(&m, m.grid[0]), "ceil_div(n,BLOCK)") == 0);
    CHECK(strcmp(cutec_kdesc_param(&m, "BLOCK"), "128") == 0);
    float a = 0, b = 0, c = 0;
    int n = 1000;
    void *args[4] = {&a, &b, &c, &n};
    unsigned grid[3];
    cutec_kd_values vals;
    cutec_kdesc_values_from_args(&m, args, &vals);
    CHECK(cutec_kdesc_grid(&m, &vals, grid, why, sizeof why) == 0);
    CHECK(grid[0] == 8 && grid[1] == 1 && grid[2] == 1);
    n = 0;
    cutec_kdesc_values_from_args(&m, args, &vals);
    CHECK(cutec_kdesc_grid(&m, &vals, grid, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "gives 0");
    return 0;
}

static int test_gemm_args(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = no_driver_runtime();
    gemm_handle(rt); /* on a runtime whose creation failed: its calls give that status */
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 256, 128, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    void *A = (void *)(uintptr_t)0x10000, *B = (void *)(uintptr_t)0x20000, *C = (void *)(uintptr_t)0x30000;
    CHECK_STATUS(NULL, cutec_gemm(NULL, &p, A, B, C, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_gemm(gh, NULL, A, B, C, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_gemm(gh, &p, NULL, B, C, NULL), CUTEC_ERR_NULL_POINTER);
    CHECK_CONTAINS(cutec_runtime_message(rt), "matrix A is a NULL pointer");
    CHECK_STATUS(rt, cutec_gemm(gh, &p, A, B, NULL, NULL), CUTEC_ERR_NULL_POINTER);
    cutec_gemm_problem q = p;
    q.m = 0;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_BAD_SIZE);
    CHECK_CONTAINS(cutec_runtime_message(rt), "M = 0");
    q = p;
    q.k = -5;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_BAD_SIZE);
    q = p;
    q.n = 1LL << 31;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_BAD_SIZE);
    q = p;
    q.lda = 63; /* A row-major: rows of K = 64 */
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_BAD_LEADING_DIM);
    CHECK_CONTAINS(cutec_runtime_message(rt), "lda = 63 is smaller than 64");
    q = p;
    q.c_layout = CUTEC_LAYOUT_COL;
    q.ldc = 200; /* C column-major: columns of M = 256 */
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_BAD_LEADING_DIM);
    q = p;
    q.ldb = -1;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_BAD_LEADING_DIM);
    q = p;
    q.lda = 1LL << 40;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_BAD_SIZE);
    q = p; /* the largest dimensions: (2^31-1)^2 elements, found too large without overflowing */
    q.m = q.n = q.k = 0x7fffffffLL;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_BAD_SIZE);
    CHECK_CONTAINS(cutec_runtime_message(rt), "matrix A spans more than 2^40 elements");
    CHECK_STATUS(rt, cutec_gemm(gh, &p, (char *)A + 1, B, C, NULL), CUTEC_ERR_MISALIGNED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "not aligned to its 2-byte bf16 elements");
    q = p;
    q.c_type = CUTEC_DTYPE_F32;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, (char *)C + 2, NULL), CUTEC_ERR_MISALIGNED);
    q = p;
    q.a_type = (cutec_dtype)9;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    q = p;
    q.b_layout = (cutec_layout)5;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    q = p;
    q.epilogue = (cutec_epilogue)3;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    /* a valid call on a machine without a GPU */
    CHECK_STATUS(rt, cutec_gemm(gh, &p, A, B, C, NULL), CUTEC_ERR_NO_DRIVER);
    CHECK_STATUS(rt, cutec_gemm_tune(gh, &p, A, B, C, NULL, NULL), CUTEC_ERR_NO_DRIVER);
    /* options */
    CHECK_STATUS(rt, cutec_gemm_set_option(gh, CUTEC_OPT_TUNE_RUNS, 5), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_OK(rt, cutec_gemm_set_option(gh, CUTEC_OPT_TUNE_RUNS, 30));
    CHECK_STATUS(rt, cutec_gemm_set_option(gh, CUTEC_OPT_TUNE_FINALISTS, -1), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_OK(rt, cutec_gemm_set_option(gh, CUTEC_OPT_TUNE_FINALISTS, 0));
    CHECK_OK(rt, cutec_gemm_set_option(gh, CUTEC_OPT_TUNE_FINALISTS, 4));
    CHECK_STATUS(rt, cutec_gemm_set_option(gh, (cutec_option)99, 1), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_OK(rt, cutec_gemm_set_cache_dir(gh, "/tmp/x/y"));
    CHECK(strcmp(cutec_gemm_cache_dir(gh), "/tmp/x/y") == 0);
    CHECK_OK(rt, cutec_gemm_set_cache_dir(gh, NULL));
    CHECK(setenv("CUTEC_CACHE_DIR", "/tmp/cc", 1) == 0);
    CHECK(strcmp(cutec_gemm_cache_dir(gh), "/tmp/cc") == 0);
    CHECK(unsetenv("CUTEC_CACHE_DIR") == 0 && setenv("XDG_CACHE_HOME", "/tmp/xdg", 1) == 0);
    CHECK(strcmp(cutec_gemm_cache_dir(gh), "/tmp/xdg/cutec") == 0);
    CHECK_STATUS(rt, cutec_gemm_set_cache_dir(gh, ""), CUTEC_ERR_INVALID_ARGUMENT);
    char name[64];
    CHECK_STATUS(rt, cutec_gemm_choice(gh, &p, name, sizeof name), CUTEC_ERR_KERNEL_NOT_FOUND);
    gemm_done(rt);
    return 0;
}

static int test_arch(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_runtime *rt = gpu_runtime();
    int maj = 0, min = 0;
    CHECK_OK(rt, cutec_device_info(rt, NULL, 0, &maj, &min, NULL));
    char own[16], newer[16];
    snprintf(own, sizeof own, "sm_%d%da", maj, min);
    snprintf(newer, sizeof newer, "sm_%da", maj * 10 + min + 10);
    size_t size;
    cutec_pack *p = NULL;
    unsigned char *d = make_pack(argv[0], newer, CUTEC_VERSION_NUMBER, va_manifest, &size);
    CHECK_STATUS(rt, cutec_pack_load_data(rt, d, size, &p), CUTEC_ERR_PACK_ARCH);
    CHECK_CONTAINS(cutec_runtime_message(rt), newer);
    free(d);
    d = make_pack(argv[0], own, CUTEC_VERSION_NUMBER, va_manifest, &size);
    CHECK_OK(rt, cutec_pack_load_data(rt, d, size, &p));
    CHECK(strcmp(cutec_pack_arch(p), own) == 0);
    cutec_pack_unload(p);
    free(d);
    if (maj * 10 + min > 80) { /* an sm_80a pack does not run on a later device */
        d = make_pack(argv[0], "sm_80a", CUTEC_VERSION_NUMBER, va_manifest, &size);
        CHECK_STATUS(rt, cutec_pack_load_data(rt, d, size, &p), CUTEC_ERR_PACK_ARCH);
        free(d);
    }
    d = make_pack(argv[0], "sm_80", CUTEC_VERSION_NUMBER, va_manifest, &size);
    CHECK_OK(rt, cutec_pack_load_data(rt, d, size, &p)); /* unloaded by destroy */
    free(d);
    cutec_runtime_destroy(rt);
    return 0;
}

static int test_launch(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_runtime *rt = gpu_runtime();
    size_t size;
    unsigned char *d = make_pack(argv[0], "sm_80", CUTEC_VERSION_NUMBER, va_manifest, &size);
    cutec_pack *p = NULL;
    CHECK_OK(rt, cutec_pack_load_data(rt, d, size, &p));
    free(d);
    CHECK(cutec_pack_entry_count(p) == 1);
    CHECK(strcmp(cutec_pack_entry_kernel(p, 0), "vector_add") == 0);
    CHECK(strcmp(cutec_pack_entry_param(p, 0, "BLOCK"), "128") == 0);
    CHECK(cutec_pack_entry_param(p, 0, "NOPE") == NULL);
    CHECK(cutec_pack_find(p, "vector_add", "BLOCK=128") == 0);
    CHECK(cutec_pack_find(p, "vector_add", "BLOCK=64") == -1);
    CHECK(cutec_pack_find(p, "other", NULL) == -1);
    char desc[128];
    cutec_pack_entry_describe(p, 0, desc, sizeof desc);
    CHECK(strcmp(desc, "vector_add BLOCK=128") == 0);
    CHECK_CONTAINS(cutec_pack_entry_manifest(p, 0), "cutec.grid");
    int n = 1000;
    size_t bytes = (size_t)n * sizeof(float);
    float *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(bytes);
    CHECK(ha && hb && hc);
    for (int i = 0; i < n; i++) {
        ha[i] = (float)i;
        hb[i] = 0.5f * (float)i;
    }
    unsigned long long a, b, c;
    CHECK_OK(rt, cutec_malloc(rt, bytes, &a));
    CHECK_OK(rt, cutec_malloc(rt, bytes, &b));
    CHECK_OK(rt, cutec_malloc(rt, bytes, &c));
    CHECK_OK(rt, cutec_memcpy_htod(rt, a, ha, bytes));
    CHECK_OK(rt, cutec_memcpy_htod(rt, b, hb, bytes));
    void *args[4] = {&a, &b, &c, &n};
    CHECK_OK(rt, cutec_pack_launch(p, 0, NULL, NULL, args)); /* grid from the manifest */
    CHECK_OK(rt, cutec_synchronize(rt));
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, hc, c, bytes));
    for (int i = 0; i < n; i++) CHECK(hc[i] == 1.5f * (float)i);
    int zero = 0;
    void *args0[4] = {&a, &b, &c, &zero};
    CHECK_STATUS(rt, cutec_pack_launch(p, 0, NULL, NULL, args0), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "gives 0");
    CHECK_STATUS(rt, cutec_pack_launch(p, 3, NULL, NULL, args), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_pack_launch(p, 0, NULL, NULL, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    cutec_free(rt, a);
    cutec_free(rt, b);
    cutec_free(rt, c);
    free(ha);
    free(hb);
    free(hc);
    cutec_pack_unload(p);
    cutec_runtime_destroy(rt);
    return 0;
}

/* ---- GEMM helpers ---- */

/* bf16 through the one conversion of the project (contract/dtype.c) */
static uint16_t to_bf16(float f) { return cutec_float_to_bf16(f); }
static double from_bf16(uint16_t h) { return cutec_bf16_to_float(h); }

typedef struct mats {
    unsigned long long a, b, c;
    uint16_t *ha, *hb, *hc;
    size_t na, nb, nc;
} mats;

static uint64_t rng = 88172645463325252ull;
static float urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    float f = (float)((double)(rng >> 11) / 9007199254740992.0) * 2.0f - 1.0f;
    return fabsf(f) < 1e-3f ? 0.25f : f;
}

/* bf16 matrices for p (sizes from the layouts and leading dimensions). */
static void mats_init(cutec_runtime *rt, const cutec_gemm_problem *p, mats *x)
{
    long long lda = p->lda ? p->lda : (p->a_layout == CUTEC_LAYOUT_ROW ? p->k : p->m);
    long long ldb = p->ldb ? p->ldb : (p->b_layout == CUTEC_LAYOUT_ROW ? p->n : p->k);
    long long ldc = p->ldc ? p->ldc : (p->c_layout == CUTEC_LAYOUT_ROW ? p->n : p->m);
    x->na = (size_t)(lda * (p->a_layout == CUTEC_LAYOUT_ROW ? p->m : p->k));
    x->nb = (size_t)(ldb * (p->b_layout == CUTEC_LAYOUT_ROW ? p->k : p->n));
    x->nc = (size_t)(ldc * (p->c_layout == CUTEC_LAYOUT_ROW ? p->m : p->n));
    x->ha = malloc(2 * x->na);
    x->hb = malloc(2 * x->nb);
    x->hc = malloc(2 * x->nc);
    CHECK(x->ha && x->hb && x->hc);
    for (size_t i = 0; i < x->na; i++) x->ha[i] = to_bf16(urand());
    for (size_t i = 0; i < x->nb; i++) x->hb[i] = to_bf16(urand());
    for (size_t i = 0; i < x->nc; i++) x->hc[i] = to_bf16(urand());
    CHECK_OK(rt, cutec_malloc(rt, 2 * x->na, &x->a));
    CHECK_OK(rt, cutec_malloc(rt, 2 * x->nb, &x->b));
    CHECK_OK(rt, cutec_malloc(rt, 2 * x->nc, &x->c));
    CHECK_OK(rt, cutec_memcpy_htod(rt, x->a, x->ha, 2 * x->na));
    CHECK_OK(rt, cutec_memcpy_htod(rt, x->b, x->hb, 2 * x->nb));
    CHECK_OK(rt, cutec_memcpy_htod(rt, x->c, x->hc, 2 * x->nc));
}

static void mats_free(cutec_runtime *rt, mats *x)
{
    cutec_free(rt, x->a);
    cutec_free(rt, x->b);
    cutec_free(rt, x->c);
    free(x->ha);
    free(x->hb);
    free(x->hc);
}

static size_t at(cutec_layout l, long long r, long long c, long long ld)
{
    return (size_t)(l == CUTEC_LAYOUT_ROW ? r * ld + c : c * ld + r);
}

/* Runs cutec_gemm and checks C (bf16) against a float64 reference computed
 * from the host copies (including beta * old C). */
static void gemm_and_check(cutec_runtime *rt, const cutec_gemm_problem *p, mats *x)
{
    CHECK_OK(rt, cutec_gemm(gh, p, (void *)(uintptr_t)x->a, (void *)(uintptr_t)x->b, (void *)(uintptr_t)x->c, NULL));
    CHECK_OK(rt, cutec_synchronize(rt));
    uint16_t *got = malloc(2 * x->nc);
    CHECK(got != NULL);
    CHECK_OK(rt, cutec_memcpy_dtoh(rt, got, x->c, 2 * x->nc));
    long long lda = p->lda ? p->lda : (p->a_layout == CUTEC_LAYOUT_ROW ? p->k : p->m);
    long long ldb = p->ldb ? p->ldb : (p->b_layout == CUTEC_LAYOUT_ROW ? p->n : p->k);
    long long ldc = p->ldc ? p->ldc : (p->c_layout == CUTEC_LAYOUT_ROW ? p->n : p->m);
    int bad = 0;
    for (long long i = 0; i < p->m; i++)
        for (long long j = 0; j < p->n; j++) {
            double dot = 0, mag = 0;
            for (long long q = 0; q < p->k; q++) {
                double v = from_bf16(x->ha[at(p->a_layout, i, q, lda)]) * from_bf16(x->hb[at(p->b_layout, q, j, ldb)]);
                dot += v;
                mag += fabs(v);
            }
            size_t ci = at(p->c_layout, i, j, ldc);
            double want = p->alpha * dot + p->beta * from_bf16(x->hc[ci]);
            double g = from_bf16(got[ci]);
            double tol =
                2 * 0x1p-7 * fabs(want) + 4 * 0x1p-7 * (fabs(p->alpha) * mag / sqrt((double)p->k) + fabs(p->beta));
            if (!(fabs(g - want) <= tol) && bad++ < 5)
                fprintf(stderr, "C[%lld,%lld] = %g, expected %g\n", i, j, g, want);
        }
    CHECK(bad == 0);
    /* the output becomes the next call's C */
    memcpy(x->hc, got, 2 * x->nc);
    free(got);
}

static int logged_ignoring, logged_plus_inf, logged_head_to_head, logged_quarantine, logged_algo, logged_mock_algo;
static void count_log(void *user, int level, const char *msg)
{
    (void)user;
    if (strstr(msg, "tuning cache: ignoring") != NULL) logged_ignoring++;
    if (strstr(msg, "scores +inf") != NULL) logged_plus_inf++;
    if (strstr(msg, "head to head, in alternation") != NULL) logged_head_to_head++;
    if (strstr(msg, "that faulted in an earlier tuning") != NULL) logged_quarantine++;
    if (strstr(msg, "tuning: cublasLt algo #0 is id ") != NULL && strchr(msg, '?') == NULL)
        logged_algo++; /* every attribute read */
    /* the mock's first algorithm (mock_cublaslt.c) */
    if (strstr(msg, "tuning: cublasLt algo #0 is id 100, tile 1, stages 0, split-K 0, swizzle 0, cluster 0 "
                    "(cublasLt.h's values)") != NULL)
        logged_mock_algo++;
    if (getenv("TEST_PACK_VERBOSE") != NULL) fprintf(stderr, "[log %d] %s\n", level, msg);
}

static cutec_runtime *gemm_runtime(const char *pack_path, cutec_pack **pack)
{
    cutec_runtime *rt = gpu_runtime();
    cutec_runtime_set_log(rt, count_log, NULL);
    gemm_handle(rt);
    CHECK_OK(rt, cutec_pack_load_file(rt, pack_path, pack));
    CHECK_OK(rt, cutec_gemm_use_pack(gh, *pack));
    return rt;
}

static int count_cache_files(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -c '^gemm-.*\\.txt$'", dir);
    FILE *f = popen(cmd, "r");
    CHECK(f != NULL);
    int n = 0;
    if (fscanf(f, "%d", &n) != 1) n = 0;
    pclose(f);
    return n;
}

static int test_gemm(int argc, char **argv)
{
    CHECK(argc >= 1);
    char dir[] = "/tmp/cutec-test-cache-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(setenv("CUTEC_CACHE_DIR", dir, 1) == 0);
    cutec_pack *pack;
    cutec_runtime *rt = gemm_runtime(argv[0], &pack);
    CHECK(strcmp(cutec_gemm_cache_dir(gh), dir) == 0);
    CHECK(cutec_pack_entry_count(pack) > 0);
    /* ragged shapes; K a multiple of 8 so that the pack's kernels fit */
    static const long long shapes[][3] = {{64, 48, 64}, {100, 72, 40}, {128, 128, 128}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        cutec_gemm_problem p;
        cutec_gemm_problem_init(&p, shapes[s][0], shapes[s][1], shapes[s][2], CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
        mats x;
        mats_init(rt, &p, &x);
        gemm_and_check(rt, &p, &x); /* tunes */
        char choice[192];
        CHECK_OK(rt, cutec_gemm_choice(gh, &p, choice, sizeof choice));
        printf("%lld x %lld x %lld: %s\n", p.m, p.n, p.k, choice);
        gemm_and_check(rt, &p, &x); /* cached in memory */
        mats_free(rt, &x);
    }
    int files = count_cache_files(dir);
    CHECK(files == 3);
    /* each tuning timed its best pack kernel and best cuBLASLt algorithm
   * again in alternation (with the mock cuBLASLt; none without it) */
    CHECK(getenv("CUTEC_CUBLASLT") == NULL || logged_head_to_head == 3);
    /* each tuning named the configuration of the cuBLASLt algorithms it tried */
    CHECK(logged_algo == 3);
    CHECK(getenv("CUTEC_CUBLASLT") == NULL || logged_mock_algo == 3);

    /* A second runtime reads the disk cache; a corrupted file is re-tuned. */
    cutec_pack_unload(pack);
    gemm_done(rt);
    rt = gemm_runtime(argv[0], &pack);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 64, 48, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, &p, &x);
    logged_ignoring = 0;
    gemm_and_check(rt, &p, &x);
    CHECK(logged_ignoring == 0);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "for f in '%s'/gemm-*.txt; do sed -i 's/ms /ms 9/' \"$f\"; done", dir);
    CHECK(system(cmd) == 0);
    cutec_pack_unload(pack); /* forgets the in-memory decisions */
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[0], &pack));
    CHECK_OK(rt, cutec_gemm_use_pack(gh, pack));
    gemm_and_check(rt, &p, &x);
    CHECK(logged_ignoring == 1);
    CHECK(count_cache_files(dir) == 3);

    /* A tuning report: the winner first.  With cuBLASLt the first two are
   * the fastest pack kernel and the fastest cuBLASLt algorithm, timed head
   * to head (the faster first; cublas_ms is the cuBLASLt one's time); the
   * rest follow ranked, failures last. */
    cutec_tune_report *rep = NULL;
    int h2h_before = logged_head_to_head;
    CHECK_OK(rt, cutec_gemm_tune(gh, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c, NULL,
                                 &rep));
    CHECK(rep != NULL && rep->count > 1 && rep->winner == 0 && !isinf(rep->candidates[0].ms));
    /* the mock or the real cuBLASLt: a head-to-head whenever it ran */
    int pair = logged_head_to_head > h2h_before ? 2 : 0;
    CHECK(getenv("CUTEC_CUBLASLT") == NULL || pair == 2);
    if (pair) {
        const cutec_tune_candidate *c0 = &rep->candidates[0], *c1 = &rep->candidates[1];
        CHECK(c0->is_cublas != c1->is_cublas && c0->ms <= c1->ms);
        CHECK(rep->cublas_ms == (c0->is_cublas ? c0->ms : c1->ms));
    }
    int dsl = 0, lt = 0, ranks = 0;
    for (int i = 0; i < rep->count; i++) {
        const cutec_tune_candidate *c = &rep->candidates[i];
        dsl += !c->is_cublas;
        lt += c->is_cublas;
        /* fast tuning's settled candidates (timed in fewer, earlier rounds) follow the others, ranked alike */
        int settled = strncmp(c->note, "settled", 7) == 0,
            prev_settled = i > 0 && strncmp(rep->candidates[i - 1].note, "settled", 7) == 0;
        if (i > pair && settled == prev_settled) CHECK(c->ms >= rep->candidates[i - 1].ms);
        if (i > pair) CHECK(settled >= prev_settled || isinf(c->ms));
        /* round_ms: every candidate checked and timed has one; outside the
     * head-to-head pair it is the report's ms (the rounds' median) */
        if (!c->screened && !isinf(c->ms))
            CHECK(!isinf(c->round_ms) && c->round_ms > 0 && (i < pair || c->round_ms == c->ms));
        if (c->screened) CHECK(isinf(c->round_ms));
        /* cuBLASLt's heuristic ranks 0 .. lt - 1, each once; pack kernels -1 */
        CHECK(c->is_cublas ? c->algo_rank >= 0 && c->algo_rank < 32 : c->algo_rank == -1);
        if (c->is_cublas) ranks |= 1 << c->algo_rank;
        /* the handle's one pack: index 0; cuBLASLt -1 */
        CHECK(c->pack == (c->is_cublas ? -1 : 0));
    }
    CHECK(ranks == (1 << lt) - 1);
    printf("report: %d DSL candidates, %d cuBLASLt algorithms, winner %s, %.3f s\n", dsl, lt, rep->candidates[0].name,
           rep->seconds);
    CHECK(dsl > 0);
    cutec_tune_report_free(rep);

    /* Candidates that compute wrong results score +inf and are logged. */
    if (getenv("CUTEC_MOCK_WRONG") != NULL) {
        logged_plus_inf = 0;
        CHECK_OK(rt, cutec_gemm_tune(gh, &p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c,
                                     NULL, &rep));
        int inf = 0;
        for (int i = 0; i < rep->count; i++)
            if (isinf(rep->candidates[i].ms)) {
                CHECK_CONTAINS(rep->candidates[i].note, "wrong result");
                inf++;
            }
        CHECK(inf > 0 && logged_plus_inf == inf);
        CHECK(strstr(rep->candidates[0].name, getenv("CUTEC_MOCK_WRONG")) == NULL);
        cutec_tune_report_free(rep);
    }
    mats_free(rt, &x);
    gemm_done(rt);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return 0;
}

/* The quarantine tests' steps.  Each `want` is a list of substrings (NULL
 * ends it) that name the faulting kernel.  quarantine_fault: a tuning of p
 * in a new runtime ends with CUTEC_ERR_KERNEL_FAULT and a message naming
 * the kernel and the quarantine. */
static void quarantine_fault(const char *pack_path, const cutec_gemm_problem *p, const char *const *want)
{
    cutec_pack *pack;
    cutec_runtime *rt = gemm_runtime(pack_path, &pack);
    mats x;
    mats_init(rt, p, &x);
    CHECK_STATUS(rt, cutec_gemm(gh, p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c, NULL),
                 CUTEC_ERR_KERNEL_FAULT);
    const char *msg = cutec_runtime_message(rt);
    printf("fault: %s\n", msg);
    CHECK(strstr(msg, "quarantined in") != NULL);
    for (int i = 0; want[i]; i++) CHECK(strstr(msg, want[i]) != NULL);
    free(x.ha);
    free(x.hb);
    free(x.hc);
    cutec_pack_unload(pack);
    gemm_done(rt);
}

/* dir/quarantine.txt holds one line, naming the kernel */
static void quarantine_file(const char *dir, const char *const *want)
{
    char path[200], line[512];
    snprintf(path, sizeof path, "%s/quarantine.txt", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int lines = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        lines++;
        for (int i = 0; want[i]; i++) CHECK(strstr(line, want[i]) != NULL);
    }
    fclose(f);
    CHECK(lines == 1);
}

/* a new runtime's tuning skips the quarantined kernel (one warning), and
 * its choice is right and is not that kernel; then dir goes */
static void quarantine_retune(const char *pack_path, const cutec_gemm_problem *p, const char *const *want,
                              const char *dir)
{
    logged_quarantine = 0;
    cutec_pack *pack;
    cutec_runtime *rt = gemm_runtime(pack_path, &pack);
    mats x;
    mats_init(rt, p, &x);
    gemm_and_check(rt, p, &x);
    CHECK(logged_quarantine == 1);
    char choice[192];
    CHECK_OK(rt, cutec_gemm_choice(gh, p, choice, sizeof choice));
    printf("after the quarantine: %s\n", choice);
    int all = 1;
    for (int i = 0; want[i]; i++) all = all && strstr(choice, want[i]) != NULL;
    CHECK(!all);
    mats_free(rt, &x);
    cutec_pack_unload(pack);
    gemm_done(rt);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* A pack kernel that faults while tuned (the mock faults on request) ends
 * that tuning with CUTEC_ERR_KERNEL_FAULT and goes into the quarantine
 * file; a new runtime's tuning skips it and succeeds. */
static int test_gemm_quarantine(int argc, char **argv)
{
    CHECK(argc >= 1);
    if (getenv("CUTEC_CUDA_DRIVER") == NULL) {
        fprintf(stderr, "skipped: needs the mock driver, which faults on request\n");
        return TEST_SKIP;
    }
    char dir[] = "/tmp/cutec-test-quarantine-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(setenv("CUTEC_CACHE_DIR", dir, 1) == 0);
    CHECK(setenv("CUTEC_MOCK_FAULT_IF", "cutec.param BM 128;cutec.param BN 128;cutec.param FRAGS 1", 1) == 0);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 128, 128, 128, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    static const char *const kernel[] = {"BM=128 BN=128", "FRAGS=1", NULL};
    static const char *const line[] = {" 8 gemm_sm80 ", "BM=128 BN=128", "FRAGS=1", NULL};
    quarantine_fault(argv[0], &p, kernel);
    quarantine_file(dir, line);
    quarantine_retune(argv[0], &p, kernel, dir);
    unsetenv("CUTEC_MOCK_FAULT_IF");
    return 0;
}

/* The same on the GPU, with a kernel that really faults (fault_gemm.cute:
 * its BM = 128 point stores far outside C).  A fault leaves the process's
 * CUDA context unusable, so the first tuning runs in a child process; the
 * parent, which has not touched CUDA before, then tunes again. */
static int test_gemm_quarantine_gpu(int argc, char **argv)
{
    CHECK(argc >= 1);
    if (getenv("CUTEC_CUDA_DRIVER") != NULL) {
        fprintf(stderr, "skipped: needs a GPU (the mock case is pack_mock_gemm_quarantine)\n");
        return TEST_SKIP;
    }
    char dir[] = "/tmp/cutec-test-quarantine-gpu-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(setenv("CUTEC_CACHE_DIR", dir, 1) == 0);
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 128, 128, 128, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    static const char *const kernel[] = {"gemm_fault", "BM=128", NULL};
    static const char *const line[] = {" gemm_fault ", "BM=128", NULL};
    fflush(stdout);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        quarantine_fault(argv[0], &p, kernel); /* exits 77 without a GPU */
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status));
    if (WEXITSTATUS(status) == TEST_SKIP) return TEST_SKIP;
    CHECK(WEXITSTATUS(status) == 0);
    quarantine_file(dir, line);
    quarantine_retune(argv[0], &p, kernel, dir);
    return 0;
}

static int test_gemm_errors(int argc, char **argv)
{
    CHECK(argc >= 1);
    CHECK(setenv("CUTEC_CACHE_DIR", "/nonexistent-dir/cannot/be/made", 1) == 0);
    cutec_pack *pack;
    cutec_runtime *rt = gemm_runtime(argv[0], &pack);
    CHECK_OK(rt, cutec_gemm_set_option(gh, CUTEC_OPT_DISK_CACHE, 0));
    void *A = (void *)(uintptr_t)0x1000000, *B = A, *C = A; /* never touched */
    /* out of memory: the scratch C of a 2^20 x 2^20 problem (2 TiB) */
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 1 << 20, 1 << 20, 8, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    CHECK_STATUS(rt, cutec_gemm(gh, &p, A, B, C, NULL), CUTEC_ERR_OUT_OF_MEMORY);
    /* mixed input types: no pack kernel, and cuBLASLt offers nothing */
    cutec_gemm_problem_init(&p, 64, 64, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p.b_type = CUTEC_DTYPE_F16;
    CHECK_STATUS(rt, cutec_gemm(gh, &p, A, B, C, NULL), CUTEC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(cutec_runtime_message(rt), "no candidate for gemm m=64");
    gemm_done(rt);

    /* without cuBLASLt: alpha = 2 has no candidate at all; alpha = 1 tunes the
   * pack's kernels against float64 samples */
    CHECK(setenv("CUTEC_CUBLASLT", "/nonexistent/libcublasLt.so", 1) == 0);
    rt = gemm_runtime(argv[0], &pack);
    CHECK_OK(rt, cutec_gemm_set_option(gh, CUTEC_OPT_DISK_CACHE, 0));
    CHECK(cutec_gemm_cublas_version(gh) == 0);
    cutec_gemm_problem_init(&p, 64, 64, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    p.alpha = 2.0f;
    CHECK_STATUS(rt, cutec_gemm(gh, &p, A, B, C, NULL), CUTEC_ERR_NO_CUBLAS);
    cutec_gemm_problem_init(&p, 96, 80, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, &p, &x);
    gemm_and_check(rt, &p, &x);
    mats_free(rt, &x);
    gemm_done(rt);
    return 0;
}

static int test_layouts(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_pack *pack;
    cutec_runtime *rt = gemm_runtime(argv[0], &pack);
    CHECK_OK(rt, cutec_gemm_set_option(gh, CUTEC_OPT_DISK_CACHE, 0));
    for (int combo = 0; combo < 8; combo++) {
        cutec_gemm_problem p;
        cutec_gemm_problem_init(&p, 72, 40, 56, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
        p.a_layout = combo & 1 ? CUTEC_LAYOUT_COL : CUTEC_LAYOUT_ROW;
        p.b_layout = combo & 2 ? CUTEC_LAYOUT_ROW : CUTEC_LAYOUT_COL;
        p.c_layout = combo & 4 ? CUTEC_LAYOUT_COL : CUTEC_LAYOUT_ROW;
        if (combo == 5) { /* padded leading dimensions */
            p.lda = 80;
            p.ldb = 64;
            p.ldc = 96;
        }
        if (combo == 6) { /* alpha and beta through cuBLASLt */
            p.alpha = 0.5f;
            p.beta = -1.0f;
        }
        mats x;
        mats_init(rt, &p, &x);
        gemm_and_check(rt, &p, &x);
        char choice[192];
        CHECK_OK(rt, cutec_gemm_choice(gh, &p, choice, sizeof choice));
        printf("layouts A %s B %s C %s: %s\n", p.a_layout ? "col" : "row", p.b_layout ? "col" : "row",
               p.c_layout ? "col" : "row", choice);
        mats_free(rt, &x);
    }
    gemm_done(rt);
    return 0;
}

/* Log lines of the user-kernel case, kept to search. */
static char user_log[1 << 16];
static void keep_log(void *user, int level, const char *msg)
{
    (void)user, (void)level;
    size_t n = strlen(user_log);
    snprintf(user_log + n, sizeof user_log - n, "%s\n", msg);
}

/* Tunes p with user_gemm.cute's kernels and cuBLASLt; whether the report
 * names `kernel` among its candidates. */
static int user_tune(cutec_runtime *rt, const cutec_gemm_problem *p, const char *kernel)
{
    mats x;
    mats_init(rt, p, &x);
    user_log[0] = '\0';
    cutec_tune_report *rep = NULL;
    CHECK_OK(
        rt, cutec_gemm_tune(gh, p, (void *)(uintptr_t)x.a, (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c, NULL, &rep));
    int found = 0;
    for (int i = 0; rep != NULL && i < rep->count; i++)
        if (strncmp(rep->candidates[i].name, kernel, strlen(kernel)) == 0 && isfinite(rep->candidates[i].ms)) found = 1;
    cutec_tune_report_free(rep);
    gemm_and_check(rt, p, &x); /* whichever won computes the right thing */
    mats_free(rt, &x);
    return found;
}

/* User kernels declare their roles; the tuner serves each where its
 * description fits and says why it skips it elsewhere (info log). */
static int test_user(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_runtime *rt = gpu_runtime();
    cutec_runtime_set_log(rt, keep_log, NULL);
    gemm_handle(rt);
    cutec_pack *pack;
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[0], &pack));
    CHECK_OK(rt, cutec_gemm_use_pack(gh, pack));
    CHECK_OK(rt, cutec_gemm_set_option(gh, CUTEC_OPT_DISK_CACHE, 0));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 40, 24, 32, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    /* B K-contiguous: the row-major-B kernel reads it wrongly, so it is skipped */
    CHECK(!user_tune(rt, &p, "user_gemm_brow"));
    CHECK_CONTAINS(user_log, "tuning: skipping user_gemm_brow T=bf16 TC=bf16: 'B' (role b) is read as "
                             "(N,K):(1,N) = (24,32):(1,24); the problem's B (column-major K x N), ld 32, is "
                             "(24,32):(32,1)");
    CHECK_CONTAINS(user_log, "tuning: skipping user_gemm_bias T=bf16 TC=bf16: argument 'bias' has role bias (a bias "
                             "per column of D, indexed n), which cutec_gemm's problem does not supply");
    /* B stored K x N: served */
    p.b_layout = CUTEC_LAYOUT_ROW;
    CHECK(user_tune(rt, &p, "user_gemm_brow"));
    CHECK(strstr(user_log, "skipping user_gemm_brow") == NULL);
    CHECK_CONTAINS(user_log, "skipping user_gemm_bias");
    gemm_done(rt);
    return 0;
}

/* Only regular files are read, and at most 1 GiB: a directory, /dev/zero
 * (which never ends), a FIFO (whose open blocks without a writer) and a
 * larger file are refused with CUTEC_ERR_IO and the reason, by the pack
 * and the module loaders alike. */
static int test_files(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = no_driver_runtime();
    char dir[] = "files-XXXXXX", fifo[64], big[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(big, sizeof big, "%s/big.pack", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    /* sparse: 1 GiB + 1 byte that take no disk space */
    CHECK(fd >= 0 && ftruncate(fd, ((off_t)1 << 30) + 1) == 0 && close(fd) == 0);
    const struct {
        const char *path, *why;
    } refused[] = {
        {dir, "is a directory, not a regular file"},
        {"/dev/zero", "'/dev/zero' is a character device, not a regular file"},
        {fifo, "is a FIFO, not a regular file"},
        {big, "is larger than 1 GiB (the limit)"},
        {"/nonexistent/x.pack", "cannot open '/nonexistent/x.pack': No such file or directory"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        cutec_pack *p = (cutec_pack *)1;
        CHECK_STATUS(rt, cutec_pack_load_file(rt, refused[i].path, &p), CUTEC_ERR_IO);
        CHECK(p == NULL);
        CHECK_CONTAINS(cutec_runtime_message(rt), refused[i].why);
        cutec_module *m = (cutec_module *)1;
        CHECK_STATUS(rt, cutec_module_load_file(rt, refused[i].path, &m), CUTEC_ERR_IO);
        CHECK(m == NULL);
        CHECK_CONTAINS(cutec_runtime_message(rt), refused[i].why);
    }
    /* a regular file whose size says 0 is read to its end: then, being no
   * PTX for a missing driver, it gets the runtime's status, not an I/O one */
    cutec_module *m;
    CHECK_STATUS(rt, cutec_module_load_file(rt, "/proc/self/status", &m), CUTEC_ERR_NO_DRIVER);
    CHECK(unlink(fifo) == 0 && unlink(big) == 0 && rmdir(dir) == 0);
    cutec_runtime_destroy(rt);
    return 0;
}

/* NaN or infinite alpha/beta are argument errors, found before anything is
 * tuned (they used to make every candidate fail: CUTEC_ERR_NO_CANDIDATE).
 * Without PACK on a runtime without a driver, with PACK on the mock. */
static int test_gemm_nonfinite(int argc, char **argv)
{
    cutec_pack *pack = NULL;
    cutec_runtime *rt = argc >= 1 ? gemm_runtime(argv[0], &pack) : no_driver_runtime();
    if (argc < 1) gemm_handle(rt);
    if (argc >= 1) CHECK_OK(rt, cutec_gemm_set_option(gh, CUTEC_OPT_DISK_CACHE, 0));
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 64, 64, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x = {0};
    if (argc >= 1) mats_init(rt, &p, &x);
    void *A = argc >= 1 ? (void *)(uintptr_t)x.a : (void *)(uintptr_t)0x10000;
    void *B = argc >= 1 ? (void *)(uintptr_t)x.b : (void *)(uintptr_t)0x20000;
    void *C = argc >= 1 ? (void *)(uintptr_t)x.c : (void *)(uintptr_t)0x30000;
    const float bad[] = {NAN, INFINITY, -INFINITY};
    const char *const text[] = {"nan", "inf", "-inf"};
    for (int i = 0; i < 3; i++)
        for (int which = 0; which < 2; which++) {
            cutec_gemm_problem q = p;
            *(which ? &q.beta : &q.alpha) = bad[i];
            char want[64];
            snprintf(want, sizeof want, "%s = %s is not a finite number", which ? "beta" : "alpha", text[i]);
            cutec_tune_report *rep = NULL;
            CHECK_STATUS(rt, cutec_gemm_tune(gh, &q, A, B, C, NULL, &rep), CUTEC_ERR_INVALID_ARGUMENT);
            CHECK_CONTAINS(cutec_runtime_message(rt), want);
            CHECK(rep == NULL);
            CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_INVALID_ARGUMENT);
            CHECK_CONTAINS(cutec_runtime_message(rt), want);
            char name[64];
            CHECK_STATUS(rt, cutec_gemm_choice(gh, &q, name, sizeof name), CUTEC_ERR_INVALID_ARGUMENT);
        }
    /* finite values other than 1 and 0 stay valid (cuBLASLt computes them) */
    p.alpha = 2.0f;
    p.beta = -0.5f;
    if (argc >= 1) {
        gemm_and_check(rt, &p, &x);
        mats_free(rt, &x);
    } else {
        CHECK_STATUS(rt, cutec_gemm(gh, &p, A, B, C, NULL), CUTEC_ERR_NO_DRIVER);
    }
    gemm_done(rt);
    return 0;
}

/* A caller built against an older header: the problem without the
 * optional fields (everything before `epilogue`). */
typedef struct old_problem {
    size_t struct_size;
    long long m, n, k;
    cutec_dtype a_type, b_type, c_type;
    cutec_layout a_layout, b_layout, c_layout;
    long long lda, ldb, ldc;
    float alpha, beta;
} old_problem;

static old_problem old_problem_of(const cutec_gemm_problem *p)
{
    old_problem o;
    memset(&o, 0, sizeof o);
    memcpy(&o, p, sizeof o);
    o.struct_size = sizeof o;
    return o;
}

/* struct_size: the library reads only the fields inside it; 0 or less than
 * the mandatory fields is refused, and so is a larger struct that sets a
 * field this library does not know (no GPU needed: a valid problem gets
 * the runtime's creation status). */
static int test_gemm_problem_size(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = no_driver_runtime();
    gemm_handle(rt);
    void *A = (void *)(uintptr_t)0x10000, *B = (void *)(uintptr_t)0x20000, *C = (void *)(uintptr_t)0x30000;
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 64, 48, 32, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    CHECK(p.struct_size == sizeof p);
    CHECK_STATUS(rt, cutec_gemm(gh, &p, A, B, C, NULL), CUTEC_ERR_NO_DRIVER);
    /* never initialised */
    cutec_gemm_problem q = p;
    q.struct_size = 0;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm: the problem's struct_size is 0, less than its mandatory");
    q.struct_size = offsetof(cutec_gemm_problem, beta); /* beta is mandatory */
    CHECK_STATUS(rt, cutec_gemm_tune(gh, &q, A, B, C, NULL, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    char name[64];
    CHECK_STATUS(rt, cutec_gemm_choice(gh, &q, name, sizeof name), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "cutec_gemm_choice: the problem's struct_size");
    /* an older caller: its fields are read (a bad M is seen), the rest is zero */
    old_problem o = old_problem_of(&p);
    CHECK(o.struct_size == offsetof(cutec_gemm_problem, epilogue));
    CHECK_STATUS(rt, cutec_gemm(gh, (const cutec_gemm_problem *)(const void *)&o, A, B, C, NULL), CUTEC_ERR_NO_DRIVER);
    o.m = 0;
    CHECK_STATUS(rt, cutec_gemm(gh, (const cutec_gemm_problem *)(const void *)&o, A, B, C, NULL), CUTEC_ERR_BAD_SIZE);
    /* a newer caller: what this library does not know must be zero */
    struct {
        cutec_gemm_problem p;
        long long next_field;
    } newer;
    memset(&newer, 0, sizeof newer);
    newer.p = p;
    newer.p.struct_size = sizeof newer;
    CHECK_STATUS(rt, cutec_gemm(gh, &newer.p, A, B, C, NULL), CUTEC_ERR_NO_DRIVER);
    newer.next_field = 1;
    CHECK_STATUS(rt, cutec_gemm(gh, &newer.p, A, B, C, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "past the");
    q = p;
    q.struct_size = CUTEC_GEMM_PROBLEM_MAX_SIZE + 1;
    CHECK_STATUS(rt, cutec_gemm(gh, &q, A, B, C, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    gemm_done(rt);
    return 0;
}

static char cache_log[4096];
static void keep_cache_log(void *user, int level, const char *msg)
{
    (void)user, (void)level;
    size_t n = strlen(cache_log);
    snprintf(cache_log + n, sizeof cache_log - n, "%s\n", msg);
}

/* The cache takes keys and a value record, knowing nothing of GEMM: a
 * round trip, an absent key, a corrupt file, a file of the format before
 * keys (the same format, version 1), a key that is not one line, the
 * refusal of a layer, and the lists beside the decisions. */
static int test_cache_keys(int argc, char **argv)
{
    (void)argc, (void)argv;
    cutec_runtime *rt = no_driver_runtime(); /* the cache needs no device */
    cutec_runtime_set_log(rt, keep_cache_log, NULL);
    char dir[] = "/tmp/cutec-test-cache-keys-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char sub[128], path[1200];
    snprintf(sub, sizeof sub, "%s/made/by/store", dir);
    cutec_cache_key k = {.dir = sub, .kind = "test", .env = "device=X v=1", .problem = "op m=1 n=2"};
    cutec_cache_value v = {.ms = 1.25}, got;
    snprintf(v.choice, sizeof v.choice, "anything the layer writes 42");
    CHECK(cutec_cache_load(rt, &k, &got, path, sizeof path) == 0); /* absent */
    CHECK(cutec_cache_store(rt, &k, &v) == 0);
    CHECK(cutec_cache_load(rt, &k, &got, path, sizeof path) == 1);
    CHECK(strcmp(got.choice, v.choice) == 0 && got.ms == 1.25);
    CHECK(strstr(path, "/made/by/store/test-") != NULL);
    /* another environment or problem is another file */
    cutec_cache_key k2 = k;
    k2.env = "device=X v=2";
    CHECK(cutec_cache_load(rt, &k2, &got, path, sizeof path) == 0);
    k2 = k;
    k2.problem = "op m=1 n=3";
    CHECK(cutec_cache_load(rt, &k2, &got, path, sizeof path) == 0);
    /* a line break would make the key two lines */
    k2.problem = "op\nm=1";
    CHECK(cutec_cache_store(rt, &k2, &v) == -1);
    CHECK_CONTAINS(cache_log, "cannot form a key");
    /* corrupt: refused with the reason */
    CHECK(cutec_cache_load(rt, &k, &got, path, sizeof path) == 1);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "sed -i 's/ms 1/ms 7/' '%s'", path);
    CHECK(system(cmd) == 0);
    CHECK(cutec_cache_load(rt, &k, &got, path, sizeof path) == -1);
    CHECK_CONTAINS(cache_log, "tuning cache: ignoring");
    CHECK_CONTAINS(cache_log, "checksum mismatch (corrupt)");
    /* a file as the GEMM tuner wrote it before the cache took keys */
    const char *body =
        "cutec-tune-cache 1\nenv device=X v=1\nproblem op m=1 n=2\nchoice dsl 00000000000000ab 3 k BM=64\n"
        "ms 0.500000\n";
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    fprintf(f, "%schecksum %016llx\n", body, (unsigned long long)cutec_fnv1a(CUTEC_FNV_OFFSET, body, strlen(body)));
    CHECK(fclose(f) == 0);
    CHECK(cutec_cache_load(rt, &k, &got, path, sizeof path) == 1);
    CHECK(strcmp(got.choice, "dsl 00000000000000ab 3 k BM=64") == 0 && got.ms == 0.5);
    /* the layer's own refusal reads like the cache's */
    cache_log[0] = '\0';
    cutec_cache_reject(rt, path, "its pack entry is gone");
    CHECK_CONTAINS(cache_log, "tuning cache: ignoring '");
    CHECK_CONTAINS(cache_log, "': its pack entry is gone; tuning again");
    /* a list beside the decisions */
    CHECK(cutec_cache_list_load(rt, sub, "list.txt") == NULL);
    CHECK(cutec_cache_list_add(rt, sub, "list.txt", "00ab 3 first", path, sizeof path) == 0);
    CHECK(cutec_cache_list_add(rt, sub, "list.txt", "00cd 1 second", path, sizeof path) == 0);
    char *list = cutec_cache_list_load(rt, sub, "list.txt");
    CHECK(cutec_cache_list_has(list, "00cd 1 ") && cutec_cache_list_has(list, "00ab 3 ") &&
          !cutec_cache_list_has(list, "00ab 1 "));
    free(list);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    cutec_runtime_destroy(rt);
    return 0;
}

static long long option_of(cutec_gemm_handle *h, cutec_option opt)
{
    long long v = -1;
    CHECK_OK(cutec_gemm_runtime(h), cutec_gemm_get_option(h, opt, &v));
    return v;
}

/* Handles on one runtime are independent (options, packs, decisions); a
 * pack's unload withdraws it from every handle that uses it; a handle
 * works with an older caller's problem; a runtime destroyed before its
 * handles detaches them. */
static int test_gemm_handles(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_pack *pack;
    cutec_runtime *rt = gemm_runtime(argv[0], &pack); /* gh uses the pack */
    cutec_gemm_handle *h1 = gh, *h2 = NULL;
    CHECK_OK(rt, cutec_gemm_create(rt, &h2));
    CHECK(h2 != h1 && cutec_gemm_runtime(h2) == rt);
    /* options */
    CHECK_OK(rt, cutec_gemm_set_option(h1, CUTEC_OPT_TUNE_RUNS, 30));
    CHECK_OK(rt, cutec_gemm_set_option(h1, CUTEC_OPT_DISK_CACHE, 0));
    CHECK_OK(rt, cutec_gemm_set_option(h2, CUTEC_OPT_DISK_CACHE, 0));
    CHECK(option_of(h1, CUTEC_OPT_TUNE_RUNS) == 30 && option_of(h2, CUTEC_OPT_TUNE_RUNS) == 25);
    CHECK(option_of(h2, CUTEC_OPT_TUNE_WARMUP) == 3 && option_of(h2, CUTEC_OPT_CUBLAS_ALGOS) == 8 &&
          option_of(h2, CUTEC_OPT_FLUSH_L2) == 1 && option_of(h2, CUTEC_OPT_TUNE_FINALISTS) == 8);
    CHECK_OK(rt, cutec_gemm_set_cache_dir(h1, "/tmp/one"));
    CHECK(strcmp(cutec_gemm_cache_dir(h1), "/tmp/one") == 0 && strcmp(cutec_gemm_cache_dir(h2), "/tmp/one") != 0);
    CHECK_STATUS(rt, cutec_gemm_set_option(h2, CUTEC_OPT_CUBLAS_ALGOS, 33), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "out of range for option 3 (0 to 32)");
    /* packs and decisions: h2 has no pack, so cuBLASLt serves it */
    cutec_gemm_problem p;
    cutec_gemm_problem_init(&p, 64, 48, 64, CUTEC_DTYPE_BF16, CUTEC_DTYPE_BF16);
    mats x;
    mats_init(rt, &p, &x);
    char c1[192], c2[192];
    gemm_and_check(rt, &p, &x); /* gh = h1 */
    CHECK_OK(rt, cutec_gemm_choice(h1, &p, c1, sizeof c1));
    CHECK_STATUS(rt, cutec_gemm_choice(h2, &p, c2, sizeof c2), CUTEC_ERR_KERNEL_NOT_FOUND);
    CHECK_CONTAINS(cutec_runtime_message(rt), "not been tuned by this handle");
    gh = h2;
    gemm_and_check(rt, &p, &x);
    CHECK_OK(rt, cutec_gemm_choice(h2, &p, c2, sizeof c2));
    CHECK(strncmp(c2, "cublasLt", 8) == 0);
    /* an older caller's problem is the same class */
    old_problem o = old_problem_of(&p);
    gh = h1;
    CHECK_OK(rt, cutec_gemm(h1, (const cutec_gemm_problem *)(const void *)&o, (void *)(uintptr_t)x.a,
                            (void *)(uintptr_t)x.b, (void *)(uintptr_t)x.c, NULL));
    CHECK_OK(rt, cutec_synchronize(rt));
    CHECK_OK(rt, cutec_gemm_choice(h1, (const cutec_gemm_problem *)(const void *)&o, c2, sizeof c2));
    CHECK(strcmp(c1, c2) == 0);
    /* both use the pack; unloading it withdraws it from both and forgets
   * h1's decision; h1 then tunes with cuBLASLt alone */
    CHECK_OK(rt, cutec_gemm_use_pack(h2, pack));
    cutec_pack_unload(pack);
    CHECK_STATUS(rt, cutec_gemm_choice(h1, &p, c1, sizeof c1), CUTEC_ERR_KERNEL_NOT_FOUND);
    CHECK_STATUS(rt, cutec_gemm_choice(h2, &p, c2, sizeof c2), CUTEC_ERR_KERNEL_NOT_FOUND);
    gemm_and_check(rt, &p, &x);
    CHECK_OK(rt, cutec_gemm_choice(h1, &p, c1, sizeof c1));
    CHECK(strncmp(c1, "cublasLt", 8) == 0);
    /* destroying one handle leaves the other working */
    cutec_gemm_destroy(h1);
    gh = h2;
    gemm_and_check(rt, &p, &x);
    /* the runtime destroyed first: h2 (with its workspace, cuBLASLt and a
   * decision) is detached and accepts only cutec_gemm_destroy */
    mats_free(rt, &x);
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[0], &pack));
    CHECK_OK(rt, cutec_gemm_use_pack(h2, pack));
    cutec_runtime_destroy(rt);
    CHECK(cutec_gemm_runtime(h2) == NULL);
    CHECK(cutec_gemm(h2, &p, (void *)16, (void *)16, (void *)16, NULL) == CUTEC_ERR_INVALID_ARGUMENT);
    CHECK(cutec_gemm_choice(h2, &p, c2, sizeof c2) == CUTEC_ERR_INVALID_ARGUMENT);
    CHECK(cutec_gemm_set_option(h2, CUTEC_OPT_TUNE_RUNS, 30) == CUTEC_ERR_INVALID_ARGUMENT);
    CHECK(cutec_gemm_cublas_version(h2) == 0 && strcmp(cutec_gemm_cache_dir(h2), "") == 0);
    cutec_gemm_destroy(h2);
    gh = NULL;
    return 0;
}

/* A candidate's name (the tuner's, the cache's, cutec_gemm_choice's) holds
 * every template parameter of the sm90 template, the longest: argv[0] is a
 * one-point pack of it, whose described entry ends with its last parameter
 * (the manifest's last "cutec.param" line, whichever the template added
 * last) whole, within CUTEC_CANDIDATE_NAME_LEN. */
static int test_entry_names(int argc, char **argv)
{
    CHECK(argc >= 1);
    cutec_runtime *rt = NULL; /* the mock driver's 9.0 device loads an sm_90a pack */
    CHECK_OK(rt, cutec_runtime_create(&rt, 0));
    cutec_pack *p = NULL;
    CHECK_OK(rt, cutec_pack_load_file(rt, argv[0], &p));
    CHECK(cutec_pack_entry_count(p) == 1 && cutec_pack_entry_param(p, 0, "PPC") != NULL);
    char name[CUTEC_CANDIDATE_NAME_LEN], last[64], pname[32] = "", pval[32] = "";
    cutec_pack_entry_describe(p, 0, name, sizeof name);
    const char *man = cutec_pack_entry_manifest(p, 0), *at = man, *hit = NULL;
    CHECK(man != NULL);
    while ((at = strstr(at, "cutec.param ")) != NULL) hit = at++;
    CHECK(hit != NULL && sscanf(hit, "cutec.param %31s %31s", pname, pval) == 2);
    snprintf(last, sizeof last, " %s=%s", pname, pval);
    size_t n = strlen(name), nl = strlen(last);
    printf("%s (%zu characters)\n", name, n);
    CHECK(strncmp(name, "gemm_sm90 T=bf16 ", 17) == 0);
    CHECK(n + 1 < sizeof name && n > nl && strcmp(name + n - nl, last) == 0);
    cutec_pack_unload(p);
    cutec_runtime_destroy(rt);
    return 0;
}

static const check_case cases[] = {
    {"user", test_user},
    {"format", test_format},
    {"manifest", test_manifest},
    {"gemm_args", test_gemm_args},
    {"arch", test_arch},
    {"launch", test_launch},
    {"gemm", test_gemm},
    {"gemm_quarantine", test_gemm_quarantine},
    {"gemm_quarantine_gpu", test_gemm_quarantine_gpu},
    {"gemm_errors", test_gemm_errors},
    {"layouts", test_layouts},
    {"files", test_files},
    {"gemm_nonfinite", test_gemm_nonfinite},
    {"gemm_problem_size", test_gemm_problem_size},
    {"cache_keys", test_cache_keys},
    {"entry_names", test_entry_names},
    {"gemm_handles", test_gemm_handles},
};

int main(int argc, char **argv) { return check_run_cases(cases, sizeof cases / sizeof cases[0], argc, argv); }
