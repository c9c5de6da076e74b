/* api.c: the compiler's public API returns data (cutec/compiler.h).
 *
 *   api CUTEC STDLIB_DIR
 *
 * Tune points: cutec_tune_points on the sm90 GEMM template equals, point
 * by point, what `cutec --list-tune` prints for it; its names follow the
 * tune clause; a -D of a tune variable leaves its values alone; the files
 * read are reported (input first).  Kernel descriptions: one point
 * compiled to PTX returns one description, the same (kernel, class,
 * template values, argument roles, whole text) as the contract's reader
 * reads from the `// cutec.` lines of the PTX it returned; LLVM IR returns
 * it too; a failed compilation returns none.  Errors: a missing file
 * gives a user error and an empty list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/compiler.h"
#include "kdesc.h"

static int failures;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "api: FAIL line %d: %s: ", __LINE__, #cond);                                               \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static const char *stdlib_dir;

static void options(cutec_options *o, const char *const *defs, int ndefs, FILE *diag)
{
    cutec_options_init(o);
    o->arch = "sm_90a";
    o->stdlib_dir = stdlib_dir;
    o->defines = defs;
    o->ndefines = ndefs;
    o->diagnostics = diag;
}

/* `cutec FILE --list-tune`, whole; NULL on failure. */
static char *list_tune_text(const char *cutec, const char *file)
{
    char cmd[3 * 4096 + 64];
    if ((size_t)snprintf(cmd, sizeof cmd, "'%s' '%s' --list-tune --stdlib '%s'", cutec, file, stdlib_dir) >= sizeof cmd)
        return NULL;
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    if (pclose(p) != 0) {
        free(buf);
        return NULL;
    }
    if (buf) buf[n] = 0;
    return buf;
}

typedef struct paths {
    char first[4096];
    int n;
} paths;

static void on_source(void *ctx, const char *path)
{
    paths *p = ctx;
    if (p->n++ == 0) snprintf(p->first, sizeof p->first, "%s", path);
}

static void check_points(const char *cutec, const char *file, cutec_tune_point_list *l)
{
    cutec_options o;
    options(&o, NULL, 0, stderr);
    paths read = {0};
    o.on_source = on_source;
    o.on_source_ctx = &read;
    CHECK(cutec_tune_points(file, &o, l) == CUTEC_COMPILE_OK, "listing the points of %s", file);
    CHECK(l->npoints > 0, "no points");
    CHECK(read.n >= 1 && strcmp(read.first, file) == 0, "sources read: %d, first '%s'", read.n, read.first);

    /* the CLI's text, line by line */
    char *text = list_tune_text(cutec, file);
    CHECK(text != NULL, "cutec --list-tune failed");
    if (!text) return;
    size_t i = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
        if (i >= l->npoints) break;
        const cutec_tune_point *pt = &l->points[i];
        char mine[1024];
        int len = snprintf(mine, sizeof mine, "%s", pt->kernel);
        for (int j = 0; j < pt->ndefines; j++)
            len +=
                snprintf(mine + len, sizeof mine - (size_t)len, " -D %s=%s", pt->defines[j].name, pt->defines[j].value);
        CHECK(strcmp(line, mine) == 0, "point %zu: cutec prints '%s', the API gives '%s'", i, line, mine);
    }
    CHECK(i == l->npoints, "cutec prints %zu points, the API gives %zu", i, l->npoints);
    free(text);

    /* every point: the kernel, the tune clause's variables in its order
     * (BM first), the same names for every point */
    CHECK(l->points[0].ndefines > 0 && strcmp(l->points[0].defines[0].name, "BM") == 0, "the first variable");
    for (i = 0; i < l->npoints; i++) {
        const cutec_tune_point *pt = &l->points[i];
        CHECK(strcmp(pt->kernel, "gemm_sm90") == 0, "point %zu is of kernel '%s'", i, pt->kernel);
        CHECK(pt->ndefines == l->points[0].ndefines, "point %zu has %d values", i, pt->ndefines);
        for (int j = 0; j < pt->ndefines && j < l->points[0].ndefines; j++)
            CHECK(strcmp(pt->defines[j].name, l->points[0].defines[j].name) == 0, "point %zu value %d is of '%s'", i, j,
                  pt->defines[j].name);
    }

    /* a -D of a tune variable leaves its values alone (cutec pack filters) */
    const char *bm[] = {"BM=128"};
    cutec_tune_point_list l2;
    options(&o, bm, 1, stderr);
    CHECK(cutec_tune_points(file, &o, &l2) == CUTEC_COMPILE_OK && l2.npoints == l->npoints,
          "with -D BM=128: %zu points, without %zu", l2.npoints, l->npoints);
    cutec_tune_point_list_free(&l2);
}

/* One point compiled: the description returned against the one the
 * contract reads from the PTX returned. */
static void check_description(const char *file, const cutec_tune_point *pt)
{
    const char *defs[64];
    char storage[64][128];
    int n = 0;
    for (int j = 0; j < pt->ndefines && n < 64; j++, n++) {
        snprintf(storage[n], sizeof storage[n], "%s=%s", pt->defines[j].name, pt->defines[j].value);
        defs[n] = storage[n];
    }
    cutec_options o;
    options(&o, defs, n, stderr);
    cutec_output out;
    CHECK(cutec_compile_file(file, &o, &out) == CUTEC_COMPILE_OK, "compiling the first point");
    CHECK(out.nkernels == 1 && out.kernels != NULL, "%d descriptions", out.nkernels);
    if (out.nkernels != 1 || !out.kernels) return;
    const cutec_kdesc *got = &out.kernels[0];
    cutec_kdesc *read = malloc(sizeof *read);
    char why[256] = "";
    CHECK(read && cutec_kdesc_read_kernel(out.data, out.size, pt->kernel, read, why, sizeof why) == 0,
          "the PTX's description: %s", why);
    CHECK(strcmp(got->kernel, pt->kernel) == 0, "kernel '%s'", got->kernel);
    CHECK(got->cls == CUTEC_KD_GEMM && got->cls == read->cls, "class %d, the PTX's %d", (int)got->cls, (int)read->cls);
    CHECK(got->nargs == read->nargs, "%d arguments, the PTX's %d", got->nargs, read->nargs);
    int roles = 0;
    for (int a = 0; a < got->nargs && a < read->nargs; a++) {
        CHECK(got->args[a].role == read->args[a].role, "argument %d: role %s, the PTX's %s", a,
              cutec_kd_role_name(got->args[a].role), cutec_kd_role_name(read->args[a].role));
        CHECK(strcmp(cutec_kd_s(got, got->args[a].name), cutec_kd_s(read, read->args[a].name)) == 0,
              "argument %d: name", a);
        roles |= 1 << got->args[a].role;
    }
    int needed = 1 << CUTEC_ROLE_A | 1 << CUTEC_ROLE_B | 1 << CUTEC_ROLE_D | 1 << CUTEC_ROLE_M | 1 << CUTEC_ROLE_N |
                 1 << CUTEC_ROLE_K;
    CHECK((roles & needed) == needed, "roles a, b, d, m, n, k among the arguments");
    for (int j = 0; j < pt->ndefines; j++) {
        const char *v = cutec_kdesc_param(got, pt->defines[j].name);
        CHECK(v && strcmp(v, pt->defines[j].value) == 0, "template value %s: '%s', the point's '%s'",
              pt->defines[j].name, v ? v : "(none)", pt->defines[j].value);
    }
    /* the whole contract, as its writer puts it */
    size_t la = cutec_kdesc_write(got, NULL, 0), lb = cutec_kdesc_write(read, NULL, 0);
    char *ta = malloc(la + 1), *tb = malloc(lb + 1);
    if (ta && tb) {
        cutec_kdesc_write(got, ta, la + 1);
        cutec_kdesc_write(read, tb, lb + 1);
        CHECK(la == lb && strcmp(ta, tb) == 0, "the written descriptions differ:\n%s\n---\n%s", ta, tb);
        CHECK(strncmp(out.data, ta, la) == 0, "the PTX does not begin with the description");
    }
    free(ta);
    free(tb);
    free(read);
    cutec_output_free(&out);
    CHECK(out.kernels == NULL && out.nkernels == 0 && out.data == NULL, "cutec_output_free leaves nothing");

    /* LLVM IR: the descriptions too */
    o.emit = CUTEC_EMIT_LL;
    CHECK(cutec_compile_file(file, &o, &out) == CUTEC_COMPILE_OK && out.nkernels == 1 &&
              strcmp(out.kernels[0].kernel, pt->kernel) == 0,
          "--emit=ll: %d descriptions", out.nkernels);
    cutec_output_free(&out);
}

static void check_errors(void)
{
    FILE *sink = tmpfile();
    cutec_options o;
    options(&o, NULL, 0, sink);
    cutec_tune_point_list l;
    CHECK(cutec_tune_points("/nonexistent/x.cute", &o, &l) == CUTEC_COMPILE_USER_ERROR, "a missing file");
    CHECK(l.npoints == 0 && l.points == NULL, "a failed listing returns no points");
    cutec_tune_point_list_free(&l);
    static const char bad[] = "kernel k(o: tensor<i32, gmem, (1):(1)>) threads(32) { o(0) = nope; }\n";
    cutec_output out;
    CHECK(cutec_compile_source("bad.cute", bad, sizeof bad - 1, &o, &out) == CUTEC_COMPILE_USER_ERROR, "a user error");
    CHECK(out.nkernels == 0 && out.kernels == NULL && out.data == NULL, "a failed compilation returns nothing");
    static const char ok[] =
        "kernel k<N: int>(o: tensor<i32, gmem, (1):(1)>) threads(32) tune { N in [1, 2]; } { o(0) = N; }\n";
    CHECK(cutec_tune_points_source("ok.cute", ok, sizeof ok - 1, &o, &l) == CUTEC_COMPILE_OK && l.npoints == 2 &&
              strcmp(l.points[1].defines[0].value, "2") == 0,
          "points of a source in memory");
    cutec_tune_point_list_free(&l);
    if (sink) fclose(sink);
}

/* cutec_eval fills every field of its output, whatever the caller's
 * struct held before, so that cutec_output_free may free it (a fuzz
 * finding: kernels was left as found) */
static void check_eval_output(void)
{
    cutec_output out;
    memset(&out, 0xAB, sizeof out);
    FILE *diag = tmpfile();
    CHECK(cutec_eval("(4,2):(1,4)", CUTEC_EVAL_VALUE, &out, diag) == CUTEC_COMPILE_OK, "cutec_eval of a layout");
    CHECK(out.kernels == NULL && out.nkernels == 0, "cutec_eval left kernels %p, nkernels %d", (void *)out.kernels,
          out.nkernels);
    cutec_output_free(&out);
    memset(&out, 0xAB, sizeof out);
    CHECK(cutec_eval("(4,2", CUTEC_EVAL_VALUE, &out, diag) != CUTEC_COMPILE_OK, "cutec_eval of a bad expression");
    CHECK(out.data == NULL && out.kernels == NULL && out.nkernels == 0, "a failed cutec_eval left its output set");
    cutec_output_free(&out);
    if (diag) fclose(diag);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: api CUTEC STDLIB_DIR\n", stderr);
        return 2;
    }
    stdlib_dir = argv[2];
    char file[4096];
    snprintf(file, sizeof file, "%s/sm90/gemm.cute", stdlib_dir);
    cutec_tune_point_list l;
    check_points(argv[1], file, &l);
    if (l.npoints) check_description(file, &l.points[0]);
    cutec_tune_point_list_free(&l);
    check_errors();
    check_eval_output();
    if (failures)
        fprintf(stderr, "api: %d checks failed\n", failures);
    else
        puts("api: all checks passed");
    return failures ? 1 : 0;
}
