/* cli_args.c: option values and the standard library's directory (cli.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cutec/compiler.h"

#ifndef CUTEC_STDLIB_DIR
#define CUTEC_STDLIB_DIR "stdlib"
#endif
#ifndef CUTEC_STDLIB_REL
#define CUTEC_STDLIB_REL "../share/cutec/stdlib"
#endif

cli_opt_result cli_opt(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return CLI_OPT_NO;
    if (a[n] == '=') {
        *value = a + n + 1;
        return CLI_OPT_VALUE;
    }
    if (a[n]) return CLI_OPT_NO;
    if (*i + 1 >= argc) return CLI_OPT_MISSING;
    *value = argv[++*i];
    return CLI_OPT_VALUE;
}

int cli_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nsee '%s --help'\n", prog);
    va_end(ap);
    return CUTEC_COMPILE_USAGE;
}

int cli_help(const char *text)
{
    fputs(text, stdout);
    return fflush(stdout) == 0 ? 0 : CUTEC_COMPILE_USER_ERROR;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *cli_stdlib_dir(const char *flag)
{
    if (flag) return flag;
    const char *env = getenv("CUTEC_STDLIB");
    if (env && *env) return env;
    /* an installed cutec: bin/cutec beside share/cutec/stdlib, wherever the
     * prefix was moved; /proc/self/exe is the binary, not a symlink to it */
    static char buf[PATH_MAX + sizeof CUTEC_STDLIB_REL + 1];
    ssize_t n = readlink("/proc/self/exe", buf, PATH_MAX);
    if (n > 0) {
        buf[n] = 0;
        char *slash = strrchr(buf, '/');
        if (slash) {
            strcpy(slash + 1, CUTEC_STDLIB_REL);
            static char canon[PATH_MAX]; /* prefix/share/cutec/stdlib, not prefix/bin/../share/... */
            if (is_dir(buf)) return realpath(buf, canon) ? canon : buf;
        }
    }
    return CUTEC_STDLIB_DIR;
}
