/* main.c: the `cutec` command line, a thin layer over libcutec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/compiler.h"
#include "pack.h"

static const char usage[] =
    "usage: cutec FILE.cute [options]\n"
    "       cutec eval [--table | --svg FILE] 'EXPR'\n"
    "       cutec pack FILE.cute [-o FILE.pack] [--arch=ARCH] [-j N] [-D NAME=VALUE]...  (see cutec pack --help)\n"
    "       cutec tune|bench PACK ...   (runs cutec-tune, the runtime's tool; see cutec-tune --help)\n"
    "       cutec --version | --help\n"
    "\n"
    "Compiles the kernels of a .cute file to PTX (by default FILE.ptx beside the input).\n"
    "\n"
    "options:\n"
    "  -o OUT              write the output to OUT ('-' for standard output)\n"
    "  --emit=KIND         tokens | ast | ll | ptx (default) | cubin\n"
    "  --arch=ARCH         sm_90a (default) | sm_80\n"
    "  -O0 .. -O3          optimisation level (default -O2)\n"
    "  -D NAME=VALUE       set a kernel template parameter (repeatable)\n"
    "  -I DIR              add DIR to the import search path (repeatable)\n"
    "  --list-tune         print the tune points of every kernel, one per line as -D options\n"
    "  --stdlib=DIR        use DIR as the standard library\n"
    "  --time              print the time each compilation stage took to standard error\n"
    "\n"
    "eval:\n"
    "  prints the value of a compile-time expression, e.g.\n"
    "    cutec eval 'composition((6,2):(8,2), (4,3):(3,1))'\n"
    "  --table             print a rank-2 layout as an index table\n"
    "  --svg FILE          draw the layout as SVG into FILE\n"
    "\n"
    "exit status: 0 success, 1 error in the source, 2 bad usage, 3 internal compiler error\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("cutec: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nsee 'cutec --help'\n", stderr);
    return CUTEC_COMPILE_USAGE;
}

static int write_output(const char *path, const cutec_output *out)
{
    if (strcmp(path, "-") == 0) {
        fwrite(out->data, 1, out->size, stdout);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cutec: error: cannot write '%s'\n", path);
        return 1;
    }
    size_t n = fwrite(out->data, 1, out->size, f);
    if (fclose(f) != 0 || n != out->size) {
        fprintf(stderr, "cutec: error: cannot write '%s'\n", path);
        return 1;
    }
    return 0;
}

static int cmd_eval(int argc, char **argv)
{
    cutec_eval_render render = CUTEC_EVAL_VALUE;
    const char *svg = NULL, *expr = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--table") == 0) render = CUTEC_EVAL_TABLE;
        else if (strcmp(argv[i], "--svg") == 0) {
            if (++i >= argc) return usage_error("%s needs a file name", "--svg");
            render = CUTEC_EVAL_SVG;
            svg = argv[i];
        } else if (strncmp(argv[i], "--svg=", 6) == 0) {
            render = CUTEC_EVAL_SVG;
            svg = argv[i] + 6;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return usage_error("unknown option '%s' for eval", argv[i]);
        } else if (expr) {
            return usage_error("eval takes one expression; quote it: cutec eval '%s ...'", expr);
        } else {
            expr = argv[i];
        }
    }
    if (!expr) return usage_error("%s", "eval needs an expression, e.g. cutec eval 'size((4,2):(1,4))'");
    cutec_output out;
    cutec_result rc = cutec_eval(expr, render, &out, stderr);
    if (rc == CUTEC_COMPILE_OK) {
        int w = write_output(svg ? svg : "-", &out);
        if (w) rc = CUTEC_COMPILE_USER_ERROR;
    }
    cutec_output_free(&out);
    return rc;
}

/* FILE.cute -> FILE.ptx (.ll, .cubin), malloc'ed; NULL for standard output
 * (tokens, AST, tune points) */
static char *default_output(const char *input, cutec_emit emit)
{
    const char *ext = emit == CUTEC_EMIT_LL ? ".ll" : emit == CUTEC_EMIT_CUBIN ? ".cubin" : ".ptx";
    if (emit == CUTEC_EMIT_TOKENS || emit == CUTEC_EMIT_AST || emit == CUTEC_EMIT_TUNE) return NULL;
    size_t n = strlen(input);
    if (n > 5 && strcmp(input + n - 5, ".cute") == 0) n -= 5;
    char *p = malloc(n + strlen(ext) + 1);
    if (!p) return NULL;
    memcpy(p, input, n);
    strcpy(p + n, ext);
    return p;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "eval") == 0) return cmd_eval(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "pack") == 0) return cmd_pack(argc, argv);
    if (argc >= 2 && (strcmp(argv[1], "tune") == 0 || strcmp(argv[1], "bench") == 0)) return cmd_tune_exec(argc, argv);
    cutec_options o;
    cutec_options_init(&o);
    const char **defs = calloc((size_t)argc, sizeof(char *));
    const char **incs = calloc((size_t)argc, sizeof(char *));
    const char *input = NULL, *output = NULL;
    int rc = 0;
    if (!defs || !incs) return CUTEC_COMPILE_INTERNAL;
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            goto done;
        } else if (strcmp(a, "--version") == 0) {
            printf("cutec %s\n", CUTEC_COMPILER_VERSION);
            goto done;
        } else if (strcmp(a, "-o") == 0) {
            if (++i >= argc) rc = usage_error("%s needs an argument", a);
            else output = argv[i];
        } else if (strncmp(a, "--emit=", 7) == 0) {
            const char *k = a + 7;
            if (strcmp(k, "tokens") == 0) o.emit = CUTEC_EMIT_TOKENS;
            else if (strcmp(k, "ast") == 0) o.emit = CUTEC_EMIT_AST;
            else if (strcmp(k, "ll") == 0) o.emit = CUTEC_EMIT_LL;
            else if (strcmp(k, "ptx") == 0) o.emit = CUTEC_EMIT_PTX;
            else if (strcmp(k, "cubin") == 0) o.emit = CUTEC_EMIT_CUBIN;
            else rc = usage_error("unknown --emit kind '%s' (expected tokens, ast, ll, ptx or cubin)", k);
        } else if (strcmp(a, "--list-tune") == 0) {
            o.emit = CUTEC_EMIT_TUNE;
        } else if (strncmp(a, "--arch=", 7) == 0) {
            o.arch = a + 7;
            if (strcmp(o.arch, "sm_90a") != 0 && strcmp(o.arch, "sm_80") != 0)
                rc = usage_error("unknown architecture '%s' (expected sm_90a or sm_80)", o.arch);
        } else if (strcmp(a, "--time") == 0) {
            o.time_report = stderr;
        } else if (strncmp(a, "--stdlib=", 9) == 0) {
            o.stdlib_dir = a + 9;
        } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
            o.opt_level = a[2] - '0';
        } else if (strncmp(a, "-D", 2) == 0) {
            const char *d = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
            if (!d) rc = usage_error("%s needs NAME=VALUE", "-D");
            else defs[o.ndefines++] = d;
        } else if (strncmp(a, "-I", 2) == 0) {
            const char *d = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
            if (!d) rc = usage_error("%s needs a directory", "-I");
            else incs[o.ninclude_dirs++] = d;
        } else if (a[0] == '-' && a[1]) {
            rc = usage_error("unknown option '%s'", a);
        } else if (input) {
            rc = usage_error("more than one input file ('%s')", a);
        } else {
            input = a;
        }
    }
    if (rc) goto done;
    if (!input) {
        rc = usage_error("%s", "no input file");
        goto done;
    }
    o.defines = defs;
    o.include_dirs = incs;
    o.diagnostics = stderr;
    cutec_output out;
    rc = cutec_compile_file(input, &o, &out);
    if (rc == CUTEC_COMPILE_OK || ((o.emit == CUTEC_EMIT_TOKENS || o.emit == CUTEC_EMIT_AST) && out.data)) {
        char *def = output ? NULL : default_output(input, o.emit);
        int w = write_output(output ? output : def ? def : "-", &out);
        free(def);
        if (w && !rc) rc = CUTEC_COMPILE_USER_ERROR;
    }
    cutec_output_free(&out);
done:
    free(defs);
    free(incs);
    return rc;
}
