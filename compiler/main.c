/* main.c: the `cutec` command line, a thin layer over libcutec: options
 * (in clang's and nvcc's conventions: `--opt=value` or `--opt value`, `-`
 * for standard input and output), then one compilation, its output and
 * its dependency file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cli.h"
#include "cutec/compiler.h"
#include "json.h"
#include "pack.h"

static const char usage[] =
    "usage: cutec FILE.cute [options]        ('-' reads the source from standard input)\n"
    "       cutec eval [--table | --svg FILE] 'EXPR'   (see cutec eval --help)\n"
    "       cutec pack FILE.cute [-o FILE.pack] [--arch ARCH] [-j N] [-D NAME=VALUE]...  (see cutec pack --help)\n"
    "       cutec tune|bench PACK ...   (runs cutec-tune, the runtime's tool; see cutec-tune --help)\n"
    "       cutec --version | --help\n"
    "\n"
    "Compiles the kernels of a .cute file to PTX (by default FILE.ptx beside the input,\n"
    "standard output for standard input).  An option's value may follow '=' or come as\n"
    "the next word: --arch=sm_80 or --arch sm_80.\n"
    "\n"
    "options:\n"
    "  -o OUT              write the output to OUT ('-' for standard output)\n"
    "  --emit=KIND         tokens | ast | ll | ptx (default) | cubin\n"
    "  --arch=ARCH         sm_90a (default) | sm_80\n"
    "  -O0 .. -O3          optimisation level (default -O2)\n"
    "  -D NAME=VALUE       set a kernel template parameter (repeatable)\n"
    "  -I DIR              add DIR to the import search path (repeatable)\n"
    "  --import FILE       load FILE as if the input imported it (repeatable): e.g. your own\n"
    "                      epilogue functions for a stdlib template's -D ACT=NAME\n"
    "  --list-tune         print the tune points of every kernel, one per line as -D options\n"
    "  --stdlib=DIR        use DIR as the standard library (default: $CUTEC_STDLIB, else\n"
    "                      share/cutec/stdlib of the installation, else the source tree's)\n"
    "  -lineinfo           PTX .loc/.file line information, for profilers' source views\n"
    "  --fast-math         approximate math builtins (ex2.approx, tanh.approx, ...), fast-math\n"
    "                      flags, approximate division and square root, f32 subnormals flushed\n"
    "  -MD                 also write a make dependency file (OUT with .d for its extension)\n"
    "  -MF FILE            write the dependency file to FILE (implies -MD)\n"
    "  -Werror             treat warnings as errors\n"
    "  -w                  report no warnings\n"
    "  --diagnostics-format=text|json\n"
    "                      json: one object per diagnostic and line on standard error\n"
    "                      (file, line, column, severity, message)\n"
    "  --json              JSON diagnostics, and --list-tune as a JSON array\n"
    "  --time              print the time each compilation stage took to standard error\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status: 0 success, 1 error in the source, 2 bad usage, 3 internal compiler error\n";

#define usage_error(...) cli_usage_error("cutec", __VA_ARGS__)

/* What the command line asked for beyond the library's options. */
typedef struct cli_job {
    const char *input, *output;
    const char **imports; /* --import FILE (argc entries of room) */
    int nimports;
    const char *depfile; /* -MF */
    int want_deps;       /* -MD or -MF */
    int json;            /* --json: --list-tune as JSON too */
    int list_tune;       /* --list-tune: the tune points, not a compilation */
} cli_job;

/* FILE.cute -> FILE + ext, malloc'ed; NULL when out of memory */
static char *with_extension(const char *path, const char *ext)
{
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot && (!slash || dot > slash + 1)) n = (size_t)(dot - path);
    char *p = malloc(n + strlen(ext) + 1);
    if (!p) return NULL;
    memcpy(p, path, n);
    strcpy(p + n, ext);
    return p;
}

/* FILE.cute -> FILE.ptx (.ll, .cubin), malloc'ed; NULL for standard output
 * (tokens, AST, or a source read from standard input) */
static char *default_output(const char *input, cutec_emit emit)
{
    if (emit == CUTEC_EMIT_TOKENS || emit == CUTEC_EMIT_AST) return NULL;
    if (strcmp(input, "-") == 0) return NULL;
    const char *ext = emit == CUTEC_EMIT_LL ? ".ll" : emit == CUTEC_EMIT_CUBIN ? ".cubin" : ".ptx";
    size_t n = strlen(input);
    if (n > 5 && strcmp(input + n - 5, ".cute") == 0) n -= 5;
    char *p = malloc(n + strlen(ext) + 1);
    if (!p) return NULL;
    memcpy(p, input, n);
    strcpy(p + n, ext);
    return p;
}

/* --list-tune: a line per point, "NAME -D A=1 -D T=bf16", or with --json
 * an array of {"kernel": NAME, "defines": {"A": 1, "T": "bf16"}}
 * (integers as JSON numbers); malloc'ed, NULL when out of memory. */
static char *render_tune_points(const cutec_tune_point_list *l, int json, size_t *outlen)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, outlen);
    if (!f) return NULL;
    if (json) fputc('[', f);
    for (size_t i = 0; i < l->npoints; i++) {
        const cutec_tune_point *pt = &l->points[i];
        if (!json) {
            fputs(pt->kernel, f);
            for (int j = 0; j < pt->ndefines; j++) fprintf(f, " -D %s=%s", pt->defines[j].name, pt->defines[j].value);
            fputc('\n', f);
            continue;
        }
        fputs(i ? ",\n  {\"kernel\": " : "\n  {\"kernel\": ", f);
        json_string(f, pt->kernel);
        fputs(", \"defines\": {", f);
        for (int j = 0; j < pt->ndefines; j++) {
            const char *v = pt->defines[j].value, *d = v + (*v == '-');
            fputs(j ? ", " : "", f);
            json_string(f, pt->defines[j].name);
            fputs(": ", f);
            if (*d && strspn(d, "0123456789") == strlen(d))
                fputs(v, f); /* an integer; else a type's name */
            else
                json_string(f, v);
        }
        fputs("}}", f);
    }
    if (json) fputs(l->npoints ? "\n]\n" : "]\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* --list-tune: the points as text or JSON in *out. */
static int list_tune(const cli_job *job, const cutec_options *o, const char *text, size_t len, cutec_output *out)
{
    cutec_tune_point_list l;
    int rc =
        text ? (int)cutec_tune_points_source("<stdin>", text, len, o, &l) : (int)cutec_tune_points(job->input, o, &l);
    if (rc == CUTEC_COMPILE_OK) {
        out->data = render_tune_points(&l, job->json, &out->size);
        if (!out->data) {
            fputs("cutec: error: out of memory\n", stderr);
            rc = CUTEC_COMPILE_INTERNAL;
        }
    }
    cutec_tune_point_list_free(&l);
    return rc;
}

static int parse_emit(const char *k, cutec_emit *emit)
{
    static const struct {
        const char *name;
        cutec_emit emit;
    } kinds[] = {
        {"tokens", CUTEC_EMIT_TOKENS}, {"ast", CUTEC_EMIT_AST},     {"ll", CUTEC_EMIT_LL},
        {"ptx", CUTEC_EMIT_PTX},       {"cubin", CUTEC_EMIT_CUBIN},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(k, kinds[i].name) == 0) {
            *emit = kinds[i].emit;
            return 0;
        }
    return usage_error("unknown --emit kind '%s' (expected tokens, ast, ll, ptx or cubin)", k);
}

/* One option at argv[*i] into o and job; 0, or the usage error's status. */
static int parse_option(int argc, char **argv, int *i, cutec_options *o, cli_job *job, const char **defs,
                        const char **incs)
{
    const char *a = argv[*i], *v = NULL;
    cli_opt_result r;
    if ((r = cli_opt(argc, argv, i, "--emit", &v)) != CLI_OPT_NO) {
        job->list_tune = 0; /* the last of --emit and --list-tune wins */
        return r == CLI_OPT_MISSING ? usage_error("%s needs a kind", a) : parse_emit(v, &o->emit);
    } else if ((r = cli_opt(argc, argv, i, "--arch", &v)) != CLI_OPT_NO) {
        if (r == CLI_OPT_MISSING) return usage_error("%s needs an architecture", a);
        o->arch = v;
        if (!cutec_arch_find(v)) return usage_error("unknown architecture '%s' (known: " CUTEC_ARCH_NAMES ")", v);
    } else if ((r = cli_opt(argc, argv, i, "--stdlib", &v)) != CLI_OPT_NO) {
        if (r == CLI_OPT_MISSING) return usage_error("%s needs a directory", a);
        o->stdlib_dir = v;
    } else if ((r = cli_opt(argc, argv, i, "--diagnostics-format", &v)) != CLI_OPT_NO) {
        if (r == CLI_OPT_MISSING) return usage_error("%s needs text or json", a);
        if (strcmp(v, "json") == 0)
            o->diag_format = CUTEC_DIAG_JSON;
        else if (strcmp(v, "text") == 0)
            o->diag_format = CUTEC_DIAG_TEXT;
        else
            return usage_error("unknown diagnostics format '%s' (expected text or json)", v);
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "-MF") == 0) {
        if (*i + 1 >= argc) return usage_error("%s needs an argument", a);
        if (a[1] == 'o') {
            job->output = argv[++*i];
        } else {
            job->depfile = argv[++*i];
            job->want_deps = 1;
        }
    } else if (strcmp(a, "--list-tune") == 0) {
        job->list_tune = 1;
    } else if (strcmp(a, "--time") == 0) {
        o->time_report = stderr;
    } else if (strcmp(a, "-lineinfo") == 0) {
        o->lineinfo = 1;
    } else if (strcmp(a, "--fast-math") == 0) {
        o->fast_math = 1;
    } else if (strcmp(a, "-MD") == 0) {
        job->want_deps = 1;
    } else if (strcmp(a, "-Werror") == 0) {
        o->warnings = CUTEC_WARNINGS_ERROR;
    } else if (strcmp(a, "-w") == 0) {
        o->warnings = CUTEC_WARNINGS_OFF;
    } else if (strcmp(a, "--json") == 0) {
        o->diag_format = CUTEC_DIAG_JSON;
        job->json = 1;
    } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
        o->opt_level = a[2] - '0';
    } else if ((r = cli_opt(argc, argv, i, "--import", &v)) != CLI_OPT_NO) {
        if (r == CLI_OPT_MISSING) return usage_error("%s needs a file", a);
        job->imports[job->nimports++] = v;
    } else if (strncmp(a, "-D", 2) == 0 || strncmp(a, "-I", 2) == 0) {
        const char *d = a[2] ? a + 2 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!d) return usage_error(a[1] == 'D' ? "%s needs NAME=VALUE" : "%s needs a directory", a);
        if (a[1] == 'D')
            defs[o->ndefines++] = d;
        else
            incs[o->ninclude_dirs++] = d;
    } else if (a[0] == '-' && a[1]) {
        return usage_error("unknown option '%s'", a);
    } else if (job->input) {
        return usage_error("more than one input file ('%s')", a);
    } else {
        job->input = a; /* "-": standard input */
    }
    return 0;
}

/* The dependency file's name and target: -MF, else the output with .d for
 * its extension (the input's default output when writing to standard
 * output).  Both malloc'ed. */
static int deps_names(const cli_job *job, char **depfile, char **target)
{
    const char *out = job->output && strcmp(job->output, "-") != 0 ? job->output : NULL;
    *target = out ? strdup(out) : strcmp(job->input, "-") != 0 ? default_output(job->input, CUTEC_EMIT_PTX) : NULL;
    if (!*target && !job->depfile) return usage_error("%s", "-MD with standard input and output needs -MF FILE");
    if (!*target) *target = strdup("-");
    *depfile = job->depfile ? strdup(job->depfile) : with_extension(*target, ".d");
    return *depfile && *target ? 0 : CUTEC_COMPILE_INTERNAL;
}

/* Compiles, writes the output and the dependency file; the exit status. */
static int run(const cli_job *job, cutec_options *o)
{
    cli_deps deps = {0};
    char *depfile = NULL, *target = NULL, *text = NULL;
    int rc = 0;
    if (job->want_deps) {
        rc = deps_names(job, &depfile, &target);
        o->on_source = cli_deps_add;
        o->on_source_ctx = &deps;
    }
    cutec_output out = {0};
    size_t len = 0;
    if (!rc && strcmp(job->input, "-") == 0) {
        text = cli_read_stdin("cutec", &len);
        if (!text) rc = CUTEC_COMPILE_USER_ERROR;
    }
    if (!rc && job->list_tune)
        rc = list_tune(job, o, text, len, &out);
    else if (!rc)
        rc = text ? (int)cutec_compile_source("<stdin>", text, len, o, &out)
                  : (int)cutec_compile_file(job->input, o, &out);
    int partial = (o->emit == CUTEC_EMIT_TOKENS || o->emit == CUTEC_EMIT_AST) && out.data;
    if (rc == CUTEC_COMPILE_OK || partial) {
        char *def = job->output || job->list_tune ? NULL : default_output(job->input, o->emit);
        if (!cli_write_file("cutec", job->output ? job->output : def ? def : "-", out.data, out.size, NULL) && !rc)
            rc = CUTEC_COMPILE_USER_ERROR;
        free(def);
    }
    if (rc == CUTEC_COMPILE_OK && job->want_deps && !cli_deps_write("cutec", depfile, target, &deps))
        rc = CUTEC_COMPILE_USER_ERROR;
    cutec_output_free(&out);
    cli_deps_free(&deps);
    free(text);
    free(depfile);
    free(target);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "eval") == 0) return cli_eval(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "pack") == 0) return cmd_pack(argc, argv);
    if (argc >= 2 && (strcmp(argv[1], "tune") == 0 || strcmp(argv[1], "bench") == 0)) return cmd_tune_exec(argc, argv);
    cutec_options o;
    cutec_options_init(&o);
    const char **defs = calloc((size_t)argc, sizeof(char *));
    const char **incs = calloc((size_t)argc, sizeof(char *));
    cli_job job = {.imports = calloc((size_t)argc, sizeof(char *))};
    int rc = 0;
    if (!defs || !incs || !job.imports) {
        free(defs);
        free(incs);
        free(job.imports);
        return CUTEC_COMPILE_INTERNAL;
    }
    for (int i = 1; i < argc && !rc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            rc = cli_help(usage);
            goto done;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("cutec %s\n", CUTEC_COMPILER_VERSION);
            rc = fflush(stdout) == 0 ? 0 : CUTEC_COMPILE_USER_ERROR;
            goto done;
        }
        rc = parse_option(argc, argv, &i, &o, &job, defs, incs);
    }
    if (rc) goto done;
    if (!job.input) {
        rc = usage_error("%s", "no input file");
        goto done;
    }
    o.defines = defs;
    o.include_dirs = incs;
    o.imports = job.imports;
    o.nimports = job.nimports;
    o.stdlib_dir = cli_stdlib_dir(o.stdlib_dir);
    o.diagnostics = stderr;
    rc = run(&job, &o);
done:
    free(defs);
    free(incs);
    free(job.imports);
    return rc;
}
