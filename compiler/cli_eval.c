/* cli_eval.c: `cutec eval`, CuTe's layout algebra at the command line. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cutec/compiler.h"

static const char eval_usage[] = "usage: cutec eval [--table | --svg FILE] 'EXPR'\n"
                                 "\n"
                                 "Prints the value of a compile-time expression of the language, e.g.\n"
                                 "  cutec eval 'composition((6,2):(8,2), (4,3):(3,1))'   # ((2,2),3):((24,2),8)\n"
                                 "A name the language does not define is a positive integer unknown at compile\n"
                                 "time, which the layout algebra keeps symbolic:\n"
                                 "  cutec eval 'zipped_divide(make_layout((M,N)), (128,64))'\n"
                                 "      # ((128,64),(ceil_div(M,128),ceil_div(N,64))):((1,M),(128,M*64))\n"
                                 "An MMA or copy atom, tiled MMA or tiled copy prints as CuTe prints one: the\n"
                                 "atom, its shape, the thread layout and the thread-value (TV) layouts, e.g.\n"
                                 "  cutec eval 'make_tiled_mma(mma_atom(16, 8, 16, bf16), (2, 2))'\n"
                                 "  cutec eval 'make_tiled_copy(copy_atom_cp_async(bf16, 8), (16,8):(8,1), (1,8))'\n"
                                 "\n"
                                 "options:\n"
                                 "  --table             print a rank-2 layout as an index table; a tiled MMA's C, A\n"
                                 "                      and B tiles, or a tiled copy's source and destination, with\n"
                                 "                      the thread and value (T0V1) that hold each element\n"
                                 "  --svg FILE          draw the layout as SVG into FILE ('-' for standard output);\n"
                                 "                      a tiled MMA or tiled copy as CuTe's print_svg draws one\n"
                                 "  -h, --help          this text\n";

#define eval_usage_error(...) cli_usage_error("cutec eval", __VA_ARGS__)

/* An option, as opposed to an expression that starts with a minus sign
 * ('-1', '-(2*3)'). */
static int looks_like_option(const char *a)
{
    return a[0] == '-' && (a[1] == '-' || (a[1] >= 'a' && a[1] <= 'z') || (a[1] >= 'A' && a[1] <= 'Z'));
}

int cli_eval(int argc, char **argv)
{
    cutec_eval_render render = CUTEC_EVAL_VALUE;
    const char *svg = NULL, *expr = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        cli_opt_result r;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            return cli_help(eval_usage);
        } else if (strcmp(a, "--table") == 0) {
            render = CUTEC_EVAL_TABLE;
        } else if ((r = cli_opt(argc, argv, &i, "--svg", &v)) != CLI_OPT_NO) {
            if (r == CLI_OPT_MISSING || !*v) return eval_usage_error("%s needs a file name", "--svg");
            render = CUTEC_EVAL_SVG;
            svg = v;
        } else if (looks_like_option(a)) {
            return eval_usage_error("unknown option '%s'", a);
        } else if (expr) {
            return eval_usage_error("takes one expression; quote it: cutec eval '%s ...'", expr);
        } else {
            expr = a;
        }
    }
    if (!expr) return eval_usage_error("%s", "needs an expression, e.g. cutec eval 'size((4,2):(1,4))'");
    cutec_output out;
    cutec_result rc = cutec_eval(expr, render, &out, stderr);
    if (rc == CUTEC_COMPILE_OK && !cli_write_file("cutec", svg ? svg : "-", out.data, out.size, NULL))
        rc = CUTEC_COMPILE_USER_ERROR;
    cutec_output_free(&out);
    return rc;
}
