/*
 * test_contract.c - the kernel contract (contract/): the writer and reader
 * round-trip every field; the reader refuses every kind of damage with a
 * reason (out-of-range indices above all, which a launcher would follow);
 * the expression evaluator's arithmetic, comparisons and limits; the dtype
 * table's conversions; the activation table's float64 references and
 * cuBLASLt mappings.  Pure CPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "dtype.h"
#include "epilogue.h"
#include "kdesc.h"
#include "kexpr.h"

static int failures;
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c);                                      \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static cutec_kd_str S(cutec_kdesc *d, const char *s)
{
    cutec_kd_str o = 0;
    CHECK(cutec_kdesc_intern(d, s, &o) == 0);
    return o;
}

/* A description that uses every field. */
static void full_desc(cutec_kdesc *d)
{
    cutec_kdesc_init(d, "gemm_every_field");
    d->cls = CUTEC_KD_GEMM;
    d->threads[0] = 384, d->threads[1] = 1, d->threads[2] = 1;
    d->smem_static = 1024;
    d->smem_dynamic = 200000;
    d->cluster[0] = 2;
    d->nparams = 3;
    d->pname[0] = S(d, "T"), d->pvalue[0] = S(d, "bf16");
    d->pname[1] = S(d, "BM"), d->pvalue[1] = S(d, "128");
    d->pname[2] = S(d, "ACT"), d->pvalue[2] = S(d, "relu"); /* an `fn` parameter: the function's name */
    static const char *const names[] = {"M", "N", "K", "lda", "A", "B", "C", "bias", "alpha", "tmA", "tmC"};
    static const cutec_kd_role roles[] = {CUTEC_ROLE_M,     CUTEC_ROLE_N,    CUTEC_ROLE_K,   CUTEC_ROLE_LDA,
                                          CUTEC_ROLE_A,     CUTEC_ROLE_B,    CUTEC_ROLE_D,   CUTEC_ROLE_BIAS,
                                          CUTEC_ROLE_ALPHA, CUTEC_ROLE_NONE, CUTEC_ROLE_NONE};
    d->nargs = 11;
    for (int i = 0; i < d->nargs; i++) {
        cutec_kd_arg *a = &d->args[i];
        a->name = S(d, names[i]);
        a->role = roles[i];
        a->kind = i < 4 ? CUTEC_KD_SCALAR : i < 8 ? CUTEC_KD_TENSOR : i == 8 ? CUTEC_KD_SCALAR : CUTEC_KD_TMA;
        a->dtype = i < 3    ? CUTEC_CT_I32
                   : i == 3 ? CUTEC_CT_I64
                   : i == 8 ? CUTEC_CT_F32
                   : i == 6 ? CUTEC_CT_F16
                            : CUTEC_CT_BF16;
    }
    cutec_kd_arg *A = &d->args[4], *B = &d->args[5], *C = &d->args[6], *bias = &d->args[7];
    A->rank = 2, A->shape[0] = S(d, "M"), A->shape[1] = S(d, "K"), A->stride[0] = S(d, "lda"), A->stride[1] = S(d, "1");
    A->align = 16;
    B->rank = 2, B->shape[0] = S(d, "N"), B->shape[1] = S(d, "K"), B->stride[0] = S(d, "1"), B->stride[1] = S(d, "N");
    B->align = 8;
    C->rank = 2, C->shape[0] = S(d, "M"), C->shape[1] = S(d, "N"), C->stride[0] = S(d, "N"), C->stride[1] = S(d, "1");
    C->align = 16;
    bias->rank = 1, bias->shape[0] = S(d, "N"), bias->stride[0] = S(d, "1"), bias->align = 2;
    for (int t = 9; t < 11; t++) {
        cutec_kd_arg *m = &d->args[t];
        m->tensor = t == 9 ? 4 : 6;
        m->dtype = d->args[m->tensor].dtype;
        m->tma_rank = t == 9 ? 2 : 3; /* C's map of rank 3: a batch of 4 matrices M * N apart */
        m->dims[0] = S(d, t == 9 ? "K" : "N"), m->dims[1] = S(d, "M");
        m->tstride[0] = S(d, t == 9 ? "lda" : "N");
        m->box[0] = 64, m->box[1] = t == 9 ? 128 : 64;
        if (t == 10) m->dims[2] = S(d, "4"), m->tstride[1] = S(d, "(M*N)"), m->box[2] = 1;
        m->swizzle = 128;
        m->unused = t == 10;
    }
    d->has_grid = 1;
    d->grid[0] = S(d, "resident((min((ceil_div(M,128)*ceil_div(N,256)),66)*2))");
    d->grid[1] = S(d, "1"), d->grid[2] = S(d, "1");
    d->nrequires = 2;
    d->requires[0] = S(d, "((K%8)==0)");
    d->requires[1] = S(d, "((M*K)<2147483648)&&!(N<1)");
    d->act = S(d, "swiglu");
    d->gated = 1;
}

static int same_str(const cutec_kdesc *a, cutec_kd_str x, const cutec_kdesc *b, cutec_kd_str y)
{
    return strcmp(cutec_kd_s(a, x), cutec_kd_s(b, y)) == 0;
}

/* Field by field, strings by value (pool offsets may differ). */
static void check_same(const cutec_kdesc *a, const cutec_kdesc *b)
{
    CHECK(a->version == b->version && strcmp(a->kernel, b->kernel) == 0 && a->cls == b->cls);
    CHECK(memcmp(a->threads, b->threads, sizeof a->threads) == 0 &&
          memcmp(a->cluster, b->cluster, sizeof a->cluster) == 0);
    CHECK(a->smem_static == b->smem_static && a->smem_dynamic == b->smem_dynamic);
    CHECK(a->nparams == b->nparams && a->nargs == b->nargs && a->nrequires == b->nrequires &&
          a->has_grid == b->has_grid);
    for (int i = 0; i < a->nparams && i < b->nparams; i++)
        CHECK(same_str(a, a->pname[i], b, b->pname[i]) && same_str(a, a->pvalue[i], b, b->pvalue[i]));
    for (int i = 0; i < a->nargs && i < b->nargs; i++) {
        const cutec_kd_arg *x = &a->args[i], *y = &b->args[i];
        CHECK(same_str(a, x->name, b, y->name) && x->kind == y->kind && x->dtype == y->dtype && x->role == y->role);
        CHECK(x->rank == y->rank && x->align == y->align);
        for (int m = 0; m < x->rank && m < y->rank; m++)
            CHECK(same_str(a, x->shape[m], b, y->shape[m]) && same_str(a, x->stride[m], b, y->stride[m]));
        CHECK(x->tensor == y->tensor && x->tma_rank == y->tma_rank && x->swizzle == y->swizzle &&
              x->unused == y->unused);
        for (int m = 0; m < x->tma_rank && m < y->tma_rank; m++)
            CHECK(same_str(a, x->dims[m], b, y->dims[m]) && x->box[m] == y->box[m] &&
                  (m == 0 || same_str(a, x->tstride[m - 1], b, y->tstride[m - 1])));
    }
    for (int i = 0; a->has_grid && i < 3; i++) CHECK(same_str(a, a->grid[i], b, b->grid[i]));
    CHECK(same_str(a, a->act, b, b->act) && a->gated == b->gated && (a->act == 0) == (b->act == 0));
    for (int i = 0; i < a->nrequires && i < b->nrequires; i++) CHECK(same_str(a, a->requires[i], b, b -> requires[i]));
}

static char *write_all(const cutec_kdesc *d)
{
    size_t n = cutec_kdesc_write(d, NULL, 0);
    char *t = malloc(n + 1);
    CHECK(t != NULL && cutec_kdesc_write(d, t, n + 1) == n && strlen(t) == n);
    return t;
}

static cutec_kdesc d1, d2, d3;

static void test_round_trip(void)
{
    char why[300] = "";
    full_desc(&d1);
    CHECK(cutec_kdesc_check(&d1, why, sizeof why) == 0);
    if (why[0]) fprintf(stderr, "check: %s\n", why);
    char *t1 = write_all(&d1);
    CHECK(cutec_kdesc_read(t1, strlen(t1), &d2, why, sizeof why) == 0);
    if (why[0]) fprintf(stderr, "read: %s\n%s", why, t1);
    check_same(&d1, &d2);
    char *t2 = write_all(&d2);
    CHECK(strcmp(t1, t2) == 0); /* the format is a fixed point */
    /* PTX around it, CRLF line ends, a second description after it */
    char *wrapped = malloc(2 * strlen(t1) + 200);
    sprintf(wrapped, "// header\n%s//\n// Generated\n.version 8.0\n%s", t1, t1);
    CHECK(cutec_kdesc_read(wrapped, strlen(wrapped), &d3, why, sizeof why) == 0);
    check_same(&d1, &d3);
    CHECK(cutec_kdesc_read_kernel(wrapped, strlen(wrapped), "gemm_every_field", &d3, why, sizeof why) == 0);
    CHECK(cutec_kdesc_read_kernel(wrapped, strlen(wrapped), "gemm_every", &d3, why, sizeof why) != 0);
    /* queries */
    CHECK(cutec_kdesc_role_arg(&d2, CUTEC_ROLE_BIAS) == 7 && cutec_kdesc_role_arg(&d2, CUTEC_ROLE_C) == -1);
    CHECK(cutec_kdesc_arg_index(&d2, "tmC") == 10 && strcmp(cutec_kdesc_param(&d2, "BM"), "128") == 0);
    char desc[100];
    cutec_kdesc_describe(&d2, desc, sizeof desc);
    CHECK(strcmp(desc, "gemm_every_field T=bf16 BM=128 ACT=relu") == 0);
    CHECK(strcmp(cutec_kdesc_param(&d2, "ACT"), "relu") == 0);
    /* evaluation with argument values, the grid with and without resident() */
    cutec_kd_values v = {0};
    int32_t m = 4096, n = 4096, k = 4096;
    int64_t lda = 4096;
    void *args[11] = {&m, &n, &k, &lda};
    cutec_kdesc_values_from_args(&d2, args, &v);
    unsigned grid[3];
    CHECK(cutec_kdesc_grid(&d2, &v, grid, why, sizeof why) == 0 && grid[0] == 132 && grid[1] == 1);
    v.resident = 120;
    CHECK(cutec_kdesc_grid(&d2, &v, grid, why, sizeof why) == 0 && grid[0] == 120);
    long long r;
    CHECK(cutec_kdesc_eval(&d2, d2.requires[1], &v, &r, why, sizeof why) == 0 && r == 1); /* 2^24 elements */
    m = 1 << 20;                                                                          /* 2^32 elements */
    cutec_kdesc_values_from_args(&d2, args, &v);
    CHECK(cutec_kdesc_eval(&d2, d2.requires[1], &v, &r, why, sizeof why) == 0 && r == 0);
    m = 100;
    cutec_kdesc_values_from_args(&d2, args, &v);
    CHECK(cutec_kdesc_eval(&d2, d2.requires[1], &v, &r, why, sizeof why) == 0 && r == 1);
    free(t1);
    free(t2);
    free(wrapped);
    /* an elementwise epilogue kernel (class epilogue) round-trips, with its
     * activation; the class table names and needs */
    static const char epi[] = "// cutec.kernel epi_apply\n// cutec.contract 1\n// cutec.class epilogue\n"
                              "// cutec.threads 256 1 1\n// cutec.smem_static 0\n// cutec.smem_dynamic 0\n"
                              "// cutec.arg 0 M scalar i32 role m\n// cutec.arg 1 N scalar i32 role n\n"
                              "// cutec.arg 2 X tensor bf16 rank 2 shape M N stride N 1 align 16 role c\n"
                              "// cutec.arg 3 D tensor bf16 rank 2 shape M (N/2) stride (N/2) 1 align 16 role d\n"
                              "// cutec.grid ceil_div((M*N),256) 1 1\n// cutec.act swiglu gated\n";
    CHECK(cutec_kdesc_read(epi, strlen(epi), &d2, why, sizeof why) == 0);
    CHECK(d2.cls == CUTEC_KD_EPILOGUE && d2.gated && strcmp(cutec_kd_s(&d2, d2.act), "swiglu") == 0);
    char *t3 = write_all(&d2);
    CHECK(strcmp(t3, epi) == 0);
    free(t3);
    CHECK(strcmp(cutec_kd_class_name(CUTEC_KD_EPILOGUE), "epilogue") == 0 && cutec_kd_class_from_name("conv") == -1);
    const cutec_kd_role *need;
    CHECK(cutec_kd_class_needs(CUTEC_KD_EPILOGUE, &need) == 4 && need[2] == CUTEC_ROLE_C);
}

/* Replaces the first line starting with `key` in a written description. */
static char *edit(const char *text, const char *key, const char *line)
{
    char *out = malloc(strlen(text) + strlen(line) + 2);
    const char *at = strstr(text, key);
    CHECK(at != NULL);
    const char *eol = strchr(at, '\n');
    sprintf(out, "%.*s%s%s", (int)(at - text), text, line, eol);
    return out;
}

static void test_damage(void)
{
    full_desc(&d1);
    char *t = write_all(&d1);
    static const struct {
        const char *key, *line, *why;
    } cases[] = {
        {"// cutec.contract", "// cutec.contract 2", "contract version 2"},
        {"// cutec.contract", "// cutec.version 1", "no cutec.contract line"},
        {"// cutec.class", "// cutec.class conv", "want gemm, epilogue or plain"},
        {"// cutec.class", "// cutec.class epilogue", "an epilogue kernel without an argument of role c"},
        {"// cutec.threads", "// cutec.threads 384 0 1", "malformed cutec.threads"},
        {"// cutec.threads", "// cutec.threads 1024 2 1", "more than 1024 threads"},
        {"// cutec.cluster", "// cutec.cluster 17 1 1", "cluster 17 1 1"},
        {"// cutec.arg 0", "// cutec.arg 1 M scalar i32 role m", "out of order"},
        {"// cutec.arg 0", "// cutec.arg 0 M scalar q7 role m", "unknown element type"},
        {"// cutec.arg 0", "// cutec.arg 0 M scalar i32 role size", "unknown role"},
        {"// cutec.arg 0", "// cutec.arg 0 M scalar f32 role m", "role m needs an integer scalar"},
        {"// cutec.arg 0", "// cutec.arg 0 M scalar i32 role n", "role n is given twice"},
        {"// cutec.arg 0", "// cutec.arg 0 M scalar i32", "without an argument of role m"},
        {"// cutec.arg 3", "// cutec.arg 3 lda scalar i64", "'lda' has no role"},
        {"// cutec.arg 0", "// cutec.arg 0 M scalar i32 role m extra", "unknown flag 'extra'"},
        {"// cutec.arg 4", "// cutec.arg 4 A tensor bf16 rank 2 shape M Q stride lda 1 align 16 role a",
         "unknown name"},
        {"// cutec.arg 4", "// cutec.arg 4 A tensor bf16 rank 2 shape M K stride lda 1 align 3 role a", "alignment 3"},
        {"// cutec.arg 4", "// cutec.arg 4 A tensor bf16 rank 9 shape M K", "want 'rank R shape"},
        {"// cutec.arg 4", "// cutec.arg 4 A tensor bf16 rank 2 shape M K stride lda 1 align 16 role m",
         "role m needs an integer"},
        /* the launch-overflow bug's shape: a map over an argument that does not exist */
        {"// cutec.arg 9", "// cutec.arg 9 tmA tma 31 rank 2 dims K M stride lda box 64 128 swizzle 128",
         "not a tensor argument"},
        {"// cutec.arg 9", "// cutec.arg 9 tmA tma 40 rank 2 dims K M stride lda box 64 128 swizzle 128",
         "want 'tma TENSOR_INDEX'"},
        {"// cutec.arg 9", "// cutec.arg 9 tmA tma 0 rank 2 dims K M stride lda box 64 128 swizzle 128",
         "not a tensor argument"},
        {"// cutec.arg 9", "// cutec.arg 9 tmA tma 4 rank 2 dims K M stride lda box 64 300 swizzle 128", "box"},
        {"// cutec.arg 9", "// cutec.arg 9 tmA tma 4 rank 2 dims K M stride lda box 64 128 swizzle 96", "swizzle 96"},
        {"// cutec.arg 10", "// cutec.arg 10 tmC tma 6 rank 4 dims N M 4 4 stride N N N box 64 64 1 1 swizzle 128",
         "R 1 .. 3"},
        {"// cutec.arg 10", "// cutec.arg 10 tmC tma 6 rank 3 dims N M 4 stride N (M*N) box 64 64 0 swizzle 128",
         "box 0"},
        {"// cutec.grid", "// cutec.grid 1 1", "want three expressions"},
        {"// cutec.grid", "// cutec.grid ceil_div(M,0 1 1", "grid rule"},
        {"// cutec.grid", "// cutec.grid alpha 1 1", "unknown name"}, /* a float argument */
        {"// cutec.require", "// cutec.require K%", "condition"},
        {"// cutec.smem_dynamic", "// cutec.smem_dynamic -1", "malformed cutec.smem_dynamic"},
        {"// cutec.param T", "// cutec.param T", "malformed cutec.param"},
        {"// cutec.kernel", "// cutec.kernel a b", "malformed cutec.kernel"},
        {"// cutec.require", "// cutec.future_line 1", "unknown line cutec.future_line"},
        {"// cutec.act", "// cutec.act swiglu gate", "unknown flag 'gate'"},
        {"// cutec.act", "// cutec.act", "malformed cutec.act"},
        {"// cutec.act", "// cutec.act a-b", "not a name"},
        {"// cutec.class", "// cutec.class plain", "epilogue function on a plain kernel"},
    };
    char why[300];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *bad = edit(t, cases[i].key, cases[i].line);
        why[0] = '\0';
        int rc = cutec_kdesc_read(bad, strlen(bad), &d2, why, sizeof why);
        if (rc == 0 || strstr(why, cases[i].why) == NULL) {
            fprintf(stderr, "damage case %zu (%s): rc %d, why '%s', want '%s'\n", i, cases[i].line, rc, why,
                    cases[i].why);
            failures++;
        }
        free(bad);
    }
    /* 33 arguments */
    char *many = malloc(strlen(t) + 33 * 64);
    sprintf(many, "// cutec.kernel k\n// cutec.contract 1\n// cutec.class plain\n");
    for (int i = 0; i < 33; i++) sprintf(many + strlen(many), "// cutec.arg %d x%d scalar i32\n", i, i);
    CHECK(cutec_kdesc_read(many, strlen(many), &d2, why, sizeof why) != 0);
    CHECK(strstr(why, "out of order") != NULL || strstr(why, "more than 32") != NULL);
    /* nothing at all, and lines before any kernel */
    CHECK(cutec_kdesc_read("", 0, &d2, why, sizeof why) != 0 && strstr(why, "no cutec.kernel") != NULL);
    CHECK(cutec_kdesc_read("// cutec.threads 1 1 1\n", 23, &d2, why, sizeof why) != 0 &&
          strstr(why, "before cutec.kernel") != NULL);
    /* every prefix of a good description reads or fails cleanly */
    for (size_t n = 0; n <= strlen(t); n++) (void)cutec_kdesc_read(t, n, &d2, why, sizeof why);
    free(many);
    free(t);
}

static long long ev(const char *e)
{
    long long v = -999;
    char why[200];
    CHECK(cutec_kexpr_eval(e, NULL, NULL, &v, why, sizeof why) == 0);
    return v;
}

static void ev_fails(const char *e, const char *msg)
{
    long long v;
    char why[200] = "";
    CHECK(cutec_kexpr_eval(e, NULL, NULL, &v, why, sizeof why) != 0 && strstr(why, msg) != NULL);
}

static void test_expressions(void)
{
    CHECK(ev("ceil_div(-4,2)") == -2 && ev("ceil_div(-5,2)") == -2 && ev("ceil_div(5,2)") == 3);
    CHECK(ev("ceil_div(5,-2)") == -2 && ev("ceil_div(-5,-2)") == 3 && ev("-7/2") == -3 && ev("-7%2") == -1);
    CHECK(ev("3<4") == 1 && ev("3<=3") == 1 && ev("3>4") == 0 && ev("4>=5") == 0 && ev("2==2") == 1 && ev("2!=2") == 0);
    CHECK(ev("1&&0||1") == 1 && ev("!(1)") == 0 && ev("!0") == 1 && ev("(1+2)*3==9&&10%4==2") == 1);
    CHECK(ev("min(3,-4)") == -4 && ev("max(3,-4)") == 3 && ev("resident(7)") == 7);
    ev_fails("9223372036854775807+1", "overflow");
    ev_fails("-9223372036854775807-2", "overflow");
    ev_fails("(0-9223372036854775807-1)/-1", "overflow");
    ev_fails("1/0", "division by zero");
    ev_fails("1%0", "division by zero");
    ev_fails("99999999999999999999", "integer too large");
    ev_fails("x+1", "unknown name");
    ev_fails("sqrt(4)", "unknown function");
    ev_fails("1 + 2", "unexpected character"); /* descriptions carry no spaces */
    char deep[400] = "";
    for (int i = 0; i < 100; i++) strcat(deep, "(");
    strcat(deep, "1");
    for (int i = 0; i < 100; i++) strcat(deep, ")");
    ev_fails(deep, "nested too deeply");
}

static void test_dtypes(void)
{
    CHECK(cutec_dtype_bytes(CUTEC_CT_BF16) == 2 && cutec_dtype_bytes(CUTEC_CT_E4M3) == 1 &&
          cutec_dtype_bytes(CUTEC_CT_NONE) == 0);
    CHECK(cutec_dtype_from_name("f16", 3) == CUTEC_CT_F16 && cutec_dtype_from_name("f1", 2) == CUTEC_CT_NONE);
    for (int t = 1; t < CUTEC_CT_COUNT; t++)
        CHECK(cutec_dtype_from_name(cutec_dtype_str((cutec_ct)t), strlen(cutec_dtype_str((cutec_ct)t))) == (cutec_ct)t);
    unsigned char b[8];
    static const struct {
        cutec_ct t;
        double in, out;
    } vals[] = {
        {CUTEC_CT_BF16, 1.0, 1.0},         {CUTEC_CT_BF16, 1.00390625, 1.0}, /* tie to even */
        {CUTEC_CT_F16, 65504.0, 65504.0},  {CUTEC_CT_F16, 65520.0, INFINITY},
        {CUTEC_CT_F16, 0x1p-24, 0x1p-24},  {CUTEC_CT_F16, 0x1p-26, 0.0},
        {CUTEC_CT_E4M3, 448.0, 448.0},     {CUTEC_CT_E4M3, 1000.0, 448.0}, /* saturates */
        {CUTEC_CT_E4M3, 0x1p-9, 0x1p-9},   {CUTEC_CT_E4M3, 1.0625, 1.0},   /* tie to even */
        {CUTEC_CT_E4M3, -3.25, -3.25},     {CUTEC_CT_E5M2, 57344.0, 57344.0},
        {CUTEC_CT_E5M2, 1e6, INFINITY},    {CUTEC_CT_E5M2, 0x1p-16, 0x1p-16},
        {CUTEC_CT_F32, 0.1, (double)0.1f},
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        cutec_dtype_store(vals[i].t, b, vals[i].in);
        double got = cutec_dtype_load(vals[i].t, b);
        if (!(got == vals[i].out)) {
            fprintf(stderr, "dtype %s: %g -> %g, want %g\n", cutec_dtype_str(vals[i].t), vals[i].in, got, vals[i].out);
            failures++;
        }
    }
    cutec_dtype_store(CUTEC_CT_E4M3, b, NAN);
    CHECK(b[0] == 0x7f && isnan(cutec_dtype_load(CUTEC_CT_E4M3, b)));
    /* every e4m3, e5m2 and f16 pattern decodes and re-encodes to itself (NaN aside) */
    for (unsigned x = 0; x < 65536; x++) {
        uint16_t h = (uint16_t)x;
        double v = cutec_f16_to_float(h);
        if (!isnan(v)) CHECK(cutec_float_to_f16((float)v) == h);
        if (x < 256) {
            unsigned char c = (unsigned char)x, o;
            for (int t = CUTEC_CT_E4M3; t <= CUTEC_CT_E5M2; t++) {
                double f = cutec_dtype_load((cutec_ct)t, &c);
                cutec_dtype_store((cutec_ct)t, &o, f);
                if (!isnan(f)) CHECK(o == c);
            }
        }
    }
}

static void test_archs(void)
{
    char list[200];
    cutec_arch_list(list, sizeof list);
    CHECK(strcmp(list, CUTEC_ARCH_NAMES) == 0);
    const cutec_arch_info *a = cutec_arch_find("sm_90a"), *b = cutec_arch_find("sm_80");
    CHECK(a && b && cutec_arch_find("sm_70") == NULL);
    CHECK((a->features & CUTEC_FEAT_WGMMA) && !(b->features & CUTEC_FEAT_WGMMA));
    CHECK(cutec_arch_runs_on(a, 9, 0) && !cutec_arch_runs_on(a, 10, 0) && cutec_arch_runs_on(b, 9, 0));
    int ma, mi, sp;
    CHECK(cutec_arch_parse("sm_100a", &ma, &mi, &sp) && ma == 10 && mi == 0 && sp);
    CHECK(!cutec_arch_parse("sm_9", &ma, &mi, &sp) && !cutec_arch_parse("sm_90b", &ma, &mi, &sp));
}

/* Each activation's float64 reference against values computed
 * independently (Python's math module), its cuBLASLt mapping, lookups. */
static void test_activations(void)
{
    static const struct {
        const char *name;
        int gated;
        double x, up, want;
    } cases[] = {
        {"identity", 0, -1.5, 0, -1.5},
        {"relu", 0, -1, 0, 0},
        {"relu", 0, 2, 0, 2},
        {"relu6", 0, 7.5, 0, 6},
        {"relu6", 0, -0.5, 0, 0},
        {"relu6", 0, 2.5, 0, 2.5},
        {"gelu_tanh", 0, 1, 0, 0.8411919906082768},
        {"gelu_tanh", 0, -1, 0, -0.15880800939172324},
        {"gelu_erf", 0, 1, 0, 0.8413447460685429},
        {"gelu_erf", 0, -2, 0, -0.04550026389635842},
        {"silu", 0, 1, 0, 0.7310585786300049},
        {"sigmoid", 0, -3, 0, 0.04742587317756678},
        {"sigmoid", 0, 0, 0, 0.5},
        {"swiglu", 1, 1, 2, 1.4621171572600098},
        {"geglu", 1, 1, -2, -1.6823839812165535},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cutec_act_info *a = cutec_act_find(cases[i].name, strlen(cases[i].name));
        CHECK(a != NULL);
        if (a == NULL) continue;
        CHECK(a->gated == cases[i].gated);
        double got = a->ref(cases[i].x, cases[i].up);
        if (!(fabs(got - cases[i].want) <= 1e-15 * (1 + fabs(cases[i].want)))) {
            fprintf(stderr, "activation %s(%g, %g) = %.17g, want %.17g\n", cases[i].name, cases[i].x, cases[i].up, got,
                    cases[i].want);
            failures++;
        }
    }
    /* every row is covered above, and names are unique */
    for (int i = 0; i < cutec_act_count(); i++) {
        const cutec_act_info *a = cutec_act_at(i);
        int seen = 0;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) seen |= strcmp(cases[c].name, a->name) == 0;
        CHECK(seen);
        CHECK(cutec_act_find(a->name, strlen(a->name)) == a);
    }
    CHECK(cutec_act_at(cutec_act_count()) == NULL && cutec_act_at(-1) == NULL);
    CHECK(cutec_act_find("", 0) == cutec_act_at(0) && strcmp(cutec_act_at(0)->name, "identity") == 0);
    CHECK(cutec_act_find("relu7", 5) == NULL && cutec_act_find("relux", 4) != NULL);
    /* cuBLASLt's fused forms (cublasLt.h): GELU is the tanh form; RELU_AUX
     * writes a bit mask, not the pre-activation, so relu has no aux form */
    const cutec_act_info *relu = cutec_act_find("relu", 4), *gelu = cutec_act_find("gelu_tanh", 9);
    const cutec_act_info *id = cutec_act_find("identity", 8), *silu = cutec_act_find("silu", 4);
    CHECK(cutec_act_lt_epilogue(id, 0, 0) == 1 && cutec_act_lt_epilogue(id, 1, 0) == 4);
    CHECK(cutec_act_lt_epilogue(relu, 0, 0) == 2 && cutec_act_lt_epilogue(relu, 1, 0) == 6);
    CHECK(cutec_act_lt_epilogue(relu, 1, 1) == CUTEC_LT_EPILOGUE_NONE);
    CHECK(cutec_act_lt_epilogue(gelu, 1, 0) == 36 && cutec_act_lt_epilogue(gelu, 1, 1) == 164);
    CHECK(cutec_act_lt_epilogue(gelu, 0, 1) == 160);
    CHECK(cutec_act_lt_epilogue(silu, 1, 0) == CUTEC_LT_EPILOGUE_NONE);
    CHECK(cutec_act_lt_epilogue(NULL, 0, 0) == CUTEC_LT_EPILOGUE_NONE);
    /* the gated interleave: blocks of 8 gates, then their 8 ups */
    CHECK(cutec_act_gate_col(0) == 0 && cutec_act_up_col(0) == 8);
    CHECK(cutec_act_gate_col(7) == 7 && cutec_act_up_col(7) == 15);
    CHECK(cutec_act_gate_col(8) == 16 && cutec_act_up_col(13) == 29);
}

int main(void)
{
    test_archs();
    test_round_trip();
    test_damage();
    test_expressions();
    test_dtypes();
    test_activations();
    if (failures) {
        fprintf(stderr, "test_contract: %d failures\n", failures);
        return 1;
    }
    printf("test_contract: all passed\n");
    return 0;
}
