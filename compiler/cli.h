/* cli.h: what the files of the `cutec` command line share (main.c,
 * cli_*.c, pack.c): writing outputs, reading standard input, option
 * values, the standard library's directory, signals, dependency files.
 * The library never prints or exits; these print errors (`PROG: error:
 * ...`, with the reason for every I/O failure) and leave exiting to main. */
#ifndef CUTEC_CLI_H
#define CUTEC_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "cutec/compiler.h"

/* cli_io.c */

/* Writes size bytes to path as a compiler should: "-" is standard output;
 * a regular file or a new name is replaced atomically (a temporary file in
 * the same directory, then rename; through a symlink, its target is
 * replaced); any other existing file (FIFO, device such as /dev/null) is
 * written through, never replaced.  A non-NULL cancel is checked before
 * the rename: once set (a signal arrived), the temporary file is removed
 * and nothing is replaced.  False after printing
 * "PROG: error: cannot write 'PATH': REASON". */
bool cli_write_file(const char *prog, const char *path, const void *data, size_t size, volatile sig_atomic_t *cancel);

/* Standard input, whole, malloc'ed and NUL terminated; NULL after
 * printing the error (unreadable, or more than CUTEC_SOURCE_MAX bytes,
 * the library's limit on a source). */
char *cli_read_stdin(const char *prog, size_t *len);
/* A whole file, malloc'ed and NUL terminated; NULL with errno set, for
 * the caller to say which file it was. */
char *cli_read_file(const char *path, size_t *len);

/* Removes dir and everything under it, following no symlink; best effort. */
void cli_remove_tree(const char *dir);

/* cli_args.c */

typedef enum cli_opt_result { CLI_OPT_NO, CLI_OPT_VALUE, CLI_OPT_MISSING } cli_opt_result;
/* `NAME=VALUE` or `NAME VALUE` (clang and nvcc accept both) at argv[*i]:
 * sets *value, advancing *i past a separate value.  MISSING: NAME is the
 * last word. */
cli_opt_result cli_opt(int argc, char **argv, int *i, const char *name, const char **value);
/* `PROG: error: MESSAGE` and `see 'PROG --help'` on standard error, for a
 * bad command line; returns the usage exit status (2). */
int cli_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* --help: text on standard output; 0, or 1 when it cannot be written. */
int cli_help(const char *text);
/* The standard library's directory: flag (--stdlib) when non-NULL, else
 * $CUTEC_STDLIB, else share/cutec/stdlib beside an installed binary
 * (/proc/self/exe/../share/cutec/stdlib), else the source tree's stdlib/. */
const char *cli_stdlib_dir(const char *flag);

/* cli_signal.c: SIGINT and SIGTERM while temporary files exist */

extern volatile sig_atomic_t cli_signal; /* the signal received, 0 for none */
/* Handlers that only record the signal, without SA_RESTART, so that a
 * blocking wait or open returns EINTR and the caller cleans up. */
void cli_signals_catch(void);
/* In a fork()ed child: the default actions again. */
void cli_signals_default(void);
/* After the cleanup: die of the recorded signal, as the shell expects. */
void cli_signal_reraise(void);

/* cli_deps.c: -MD / -MF, make-style dependency files */

typedef struct cli_deps {
    char **paths;
    int n, cap;
    bool failed; /* out of memory: no dependency file */
} cli_deps;
/* cutec_options.on_source: records one file read (ctx is a cli_deps). */
void cli_deps_add(void *ctx, const char *path);
/* `TARGET: DEP...` to depfile; false after printing the error. */
bool cli_deps_write(const char *prog, const char *depfile, const char *target, const cli_deps *d);
void cli_deps_free(cli_deps *d);

/* cli_eval.c */

/* `cutec eval ...` (argv[1] is "eval"): returns the exit status. */
int cli_eval(int argc, char **argv);

#endif
