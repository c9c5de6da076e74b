/* pack.c: `cutec pack`.  Lists the tune points of the file
 * (cutec_tune_points, as --list-tune does), compiles each point to PTX
 * and, where ptxas is found, to cubin, in fork()ed worker processes (-j
 * of them; each has its own LLVM state, so the compiler's global target
 * initialisation needs no locking), and writes one pack file as cutec
 * writes every output (cli_write_file: a regular file atomically, a FIFO
 * or device through, '-' to standard output).  A worker hands its point's
 * kernel description (cutec_kdesc, returned by the compile call) to the
 * parent as the contract's own text, written and read by contract/kdesc.h
 * (N.kdesc beside N.ptx), which becomes the entry's manifest.  Only the
 * library's public API and the contract are used: the source hash covers
 * the files the listing call reported reading (on_source).  Entries keep
 * tune-list order whatever the scheduling, so the same input gives the
 * same pack.  Progress goes to stderr: a running count on a terminal,
 * else a line per 10% (logs of CI and make); then a summary line, or with
 * --json a summary object on stdout.  SIGINT and SIGTERM stop the workers
 * and remove the work directory (everything the workers and ptxas wrote
 * lives under it) before cutec dies of the signal. */
#include "pack.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "arch.h"
#include "cli.h"
#include "cutec/compiler.h"
#include "json.h"
#include "kdesc.h"
#include "pack_format.h"

enum { PACK_PATH_MAX = PATH_MAX + 64 }; /* the work directory and a file name in it */

static const char pack_usage[] =
    "usage: cutec pack FILE.cute [-o FILE.pack] [--arch sm_90a|sm_80] [-j N] [-D NAME=VALUE]...\n"
    "                  [-I DIR]... [--import FILE]... [--stdlib DIR] [--fast-math] [--no-cubin] [--json]\n"
    "\n"
    "Compiles every tune point of every kernel of FILE (a kernel without a tune clause\n"
    "once) into one kernel pack for the runtime: manifest, PTX and cubin per point.\n"
    "An option's value may follow '=' or come as the next word.\n"
    "  -o OUT       output file (default: FILE.pack beside the input; '-' for standard\n"
    "               output); a FIFO or device is written through, a file replaced atomically\n"
    "  --arch ARCH  sm_90a (default) or sm_80\n"
    "  -j N         parallel workers (default: the number of cores)\n"
    "  -D N=V       set a template parameter; for a tune variable, keep only the points\n"
    "               with that value\n"
    "  -I DIR       add DIR to the import search path\n"
    "  --import F   load F as if FILE imported it (e.g. your epilogue functions)\n"
    "  --stdlib DIR the standard library (as for cutec)\n"
    "  --fast-math  approximate math builtins (as for cutec), e.g. tanh.approx in a GELU epilogue\n"
    "  --no-cubin   PTX only (the runtime JIT-compiles it); cubins need ptxas\n"
    "  --json       a summary object on standard output: input, output, arch, points,\n"
    "               failed, warned (points ptxas assembled with warnings: a serialized\n"
    "               wgmma, a spill; each printed on stderr), seconds\n"
    "  -h, --help   this text\n"
    "Work files go to a directory under $TMPDIR (default /tmp), removed at the end and\n"
    "on SIGINT or SIGTERM.\n";

/* One point to compile: the kernel and its tune values (owned by the
 * listing), and how its worker ended. */
typedef struct point {
    const cutec_tune_point *tp;
    int failed;
    int warned; /* assembled, with ptxas's messages in its log */
} point;

typedef struct pack_job {
    const char *input;
    const char *arch;
    const char **user_defs;
    int nuser;
    const char **incs;
    int nincs;
    const char **imports; /* --import FILE */
    int nimports;
    const char *stdlib_dir;
    int want_cubin;
    int fast_math; /* --fast-math, as for cutec */
    int json;
    char tmpdir[PATH_MAX];
} pack_job;

static int pack_error(const char *fmt, const char *arg)
{
    fputs("cutec pack: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t name_len(const char *def)
{
    const char *eq = strchr(def, '=');
    return eq ? (size_t)(eq - def) : strlen(def);
}

/* VALUE of "NAME=VALUE" ("" without one: the listing refuses such a -D) */
static const char *def_value(const char *def)
{
    const char *eq = strchr(def, '=');
    return eq ? eq + 1 : "";
}

/* Whether user -D `def` names template parameter `name`. */
static int names(const char *def, const char *name)
{
    size_t n = name_len(def);
    return strlen(name) == n && strncmp(def, name, n) == 0;
}

/* The listed points that agree with every user -D of a tune variable
 * (the listing gives each variable all its values); NULL when out of
 * memory. */
static point *select_points(const cutec_tune_point_list *l, const pack_job *job, int *count)
{
    point *pts = calloc(l->npoints + 1, sizeof *pts);
    int n = 0;
    for (size_t i = 0; pts && i < l->npoints; i++) {
        const cutec_tune_point *tp = &l->points[i];
        int keep = 1;
        for (int j = 0; j < tp->ndefines; j++)
            for (int u = 0; u < job->nuser; u++)
                if (names(job->user_defs[u], tp->defines[j].name) &&
                    strcmp(def_value(job->user_defs[u]), tp->defines[j].value) != 0)
                    keep = 0;
        if (keep) pts[n++] = (point){.tp = tp};
    }
    *count = n;
    return pts;
}

static void job_options(const pack_job *job, cutec_options *o, const char **defs, int ndefs)
{
    cutec_options_init(o);
    o->arch = job->arch;
    o->defines = defs;
    o->ndefines = ndefs;
    o->include_dirs = job->incs;
    o->ninclude_dirs = job->nincs;
    o->imports = job->imports;
    o->nimports = job->nimports;
    o->stdlib_dir = job->stdlib_dir;
    o->fast_math = job->fast_math;
}

static int write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = len ? fwrite(data, 1, len, f) : 0;
    int rc = fclose(f);
    return n == len && rc == 0 ? 0 : -1;
}

/* The description of the point's kernel, as the contract writes it, to
 * path; 0, or -1 (I/O, memory, or no such kernel: the compiler's bug). */
static int write_kdesc(const char *path, const cutec_output *out, const char *kernel)
{
    for (int k = 0; k < out->nkernels; k++) {
        const cutec_kdesc *d = &out->kernels[k];
        if (strcmp(d->kernel, kernel) != 0) continue;
        size_t need = cutec_kdesc_write(d, NULL, 0);
        char *text = malloc(need + 1);
        if (!text) return -1;
        cutec_kdesc_write(d, text, need + 1);
        int rc = write_file(path, text, need);
        free(text);
        return rc;
    }
    return -1;
}

/* Runs in the worker process: compile one point, write i.ptx, i.kdesc
 * (+ i.cubin), diagnostics to i.log.  Exit status: 0 ok, 1..3 the
 * compiler's, 10 ptxas; PACK_WARNED: assembled, and what ptxas said of it
 * (a serialized wgmma, a spill) is in i.log. */
#define PACK_WARNED 20

static int compile_point(const pack_job *job, const cutec_tune_point *pt, int idx)
{
    char path[PACK_PATH_MAX];
    snprintf(path, sizeof path, "%s/%d.log", job->tmpdir, idx);
    FILE *log = fopen(path, "w");
    if (!log) {
        fprintf(stderr, "cutec pack: error: cannot write '%s': %s\n", path, strerror(errno));
        return 3;
    }
    /* The point's values win over a user -D of the same name. */
    const char **defs = calloc((size_t)(job->nuser + pt->ndefines + 1), sizeof *defs);
    char **own = calloc((size_t)pt->ndefines + 1, sizeof *own);
    int nd = 0, status = defs && own ? 0 : 3;
    for (int u = 0; !status && u < job->nuser; u++) {
        int shadowed = 0;
        for (int j = 0; j < pt->ndefines; j++) shadowed |= names(job->user_defs[u], pt->defines[j].name);
        if (!shadowed) defs[nd++] = job->user_defs[u];
    }
    for (int j = 0; !status && j < pt->ndefines; j++) {
        size_t n = strlen(pt->defines[j].name) + strlen(pt->defines[j].value) + 2;
        own[j] = malloc(n);
        if (!own[j]) {
            status = 3;
            break;
        }
        snprintf(own[j], n, "%s=%s", pt->defines[j].name, pt->defines[j].value);
        defs[nd++] = own[j];
    }
    cutec_output out = {0};
    if (!status) {
        cutec_options o;
        job_options(job, &o, defs, nd);
        o.diagnostics = log;
        status = (int)cutec_compile_file(job->input, &o, &out);
    }
    if (status == 0) {
        snprintf(path, sizeof path, "%s/%d.ptx", job->tmpdir, idx);
        if (write_file(path, out.data, out.size) != 0) status = 3;
        snprintf(path, sizeof path, "%s/%d.kdesc", job->tmpdir, idx);
        if (status == 0 && write_kdesc(path, &out, pt->kernel) != 0) status = 3;
    }
    if (status == 0 && job->want_cubin) {
        char *clog = NULL;
        cutec_output cubin;
        if (cutec_assemble(out.data, out.size, job->arch, &cubin, &clog) != CUTEC_COMPILE_OK) {
            fprintf(log, "ptxas failed:\n%s\n", clog ? clog : "");
            status = 10;
        } else {
            snprintf(path, sizeof path, "%s/%d.cubin", job->tmpdir, idx);
            if (write_file(path, cubin.data, cubin.size) != 0) status = 3;
            if (status == 0 && clog) {
                fputs(clog, log);
                status = PACK_WARNED;
            }
        }
        cutec_output_free(&cubin);
        free(clog);
    }
    cutec_output_free(&out);
    for (int j = 0; own && j < pt->ndefines; j++) free(own[j]);
    free(own);
    free(defs);
    fclose(log);
    return status;
}

/* Progress on stderr: on a terminal a count rewritten in place; else
 * (a log) one line each time another tenth of the points is done. */
typedef struct progress {
    int total, tty, tenths;
} progress;

static void progress_update(progress *pr, int done)
{
    if (pr->tty) {
        fprintf(stderr, "\rcutec pack: %d/%d points compiled", done, pr->total);
        if (done == pr->total) fputc('\n', stderr);
    } else {
        int tenths = (int)((long long)done * 10 / pr->total);
        if (tenths <= pr->tenths) return;
        pr->tenths = tenths;
        fprintf(stderr, "cutec pack: %d%% (%d/%d points)\n", tenths * 10, done, pr->total);
    }
    fflush(stderr);
}

/* A worker: its own process group, so that stopping it also stops its
 * ptxas; killed with cutec if cutec is killed outright; its temporary
 * files (ptxas's too) under the work directory. */
static pid_t start_worker(const pack_job *job, const point *pt, int idx)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old); /* no signal between fork and the child's set-up */
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        cli_signals_default();
        setpgid(0, 0);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        if (getppid() != parent) _exit(3); /* cutec died before the line above */
        setenv("TMPDIR", job->tmpdir, 1);
        sigprocmask(SIG_SETMASK, &old, NULL);
        _exit(compile_point(job, pt->tp, idx));
    }
    if (pid > 0) setpgid(pid, pid); /* also here: whichever runs first */
    sigprocmask(SIG_SETMASK, &old, NULL);
    return pid;
}

/* After SIGINT or SIGTERM: every running worker (and its ptxas) killed and
 * reaped before the work directory is removed. */
static void stop_workers(pid_t *pids, const int *running, int n)
{
    for (int i = 0; i < n; i++)
        if (running[i] && kill(-pids[i], SIGKILL) != 0) kill(pids[i], SIGKILL); /* no group yet */
    for (int i = 0; i < n; i++)
        if (running[i]) {
            while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR) {}
        }
}

/* Compiles the points in at most `jobs` workers; the number that failed,
 * or -1 when a signal stopped them. */
static int run_workers(const pack_job *job, point *pts, int n, int jobs)
{
    progress pr = {.total = n, .tty = isatty(STDERR_FILENO), .tenths = 0};
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    int *live = calloc((size_t)n, sizeof *live);
    if (!pids || !live) {
        free(pids);
        free(live);
        pack_error("%s", "out of memory");
        return n;
    }
    int next = 0, running = 0, done = 0, failures = 0;
    if (pr.tty) progress_update(&pr, 0);
    while (done < n && !cli_signal) {
        while (running < jobs && next < n && !failures && !cli_signal) {
            pid_t pid = start_worker(job, &pts[next], next);
            if (pid < 0) {
                if (running == 0) {
                    pack_error("cannot start a worker: %s", strerror(errno));
                    pts[next].failed = 3;
                    failures++;
                }
                break;
            }
            live[next] = 1;
            pids[next++] = pid;
            running++;
        }
        if (running == 0 || cli_signal) break; /* a failure stopped the scheduling, or a signal */
        int st = 0;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        int idx = -1;
        for (int i = 0; i < next; i++)
            if (pids[i] == pid) idx = i;
        if (idx < 0) continue;
        live[idx] = 0;
        running--;
        done++;
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 3;
        if (code == PACK_WARNED) {
            pts[idx].warned = 1;
            code = 0;
        }
        if (code != 0) {
            pts[idx].failed = code;
            failures++;
        }
        if (!failures) progress_update(&pr, done);
    }
    if (cli_signal) stop_workers(pids, live, next);
    free(pids);
    free(live);
    if (pr.tty && (failures || cli_signal) && done > 0) fputc('\n', stderr);
    return cli_signal ? -1 : failures;
}

/* Point i's description from its worker (i.kdesc), read and written
 * back by the contract module: the pack's manifest, or NULL with why. */
static char *manifest_of(const pack_job *job, int i, size_t *mlen, char *why, size_t why_len)
{
    char path[PACK_PATH_MAX];
    snprintf(path, sizeof path, "%s/%d.kdesc", job->tmpdir, i);
    size_t len = 0;
    char *text = cli_read_file(path, &len);
    if (!text) {
        snprintf(why, why_len, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    cutec_kdesc *d = malloc(sizeof *d);
    char *man = NULL;
    if (!d)
        snprintf(why, why_len, "out of memory");
    else if (cutec_kdesc_read(text, len, d, why, why_len) == 0) {
        *mlen = cutec_kdesc_write(d, NULL, 0);
        man = malloc(*mlen + 1);
        if (man)
            cutec_kdesc_write(d, man, *mlen + 1);
        else
            snprintf(why, why_len, "out of memory");
    }
    free(d);
    free(text);
    return man;
}

/* FNV-1a over the main source and every file it imports (as the compiler
 * reported reading them, in that order), the -D values and the
 * architecture. */
static int source_hash(const pack_job *job, const cli_deps *sources, uint64_t *out)
{
    if (sources->failed || sources->n == 0) return -1;
    uint64_t h = CUTEC_FNV_OFFSET;
    for (int i = 0; i < sources->n; i++) {
        size_t len = 0;
        char *text = cli_read_file(sources->paths[i], &len);
        if (!text) return -1;
        h = cutec_fnv1a(h, text, len);
        h = cutec_fnv1a(h, "\0", 1);
        free(text);
    }
    for (int i = 0; i < job->nuser; i++) h = cutec_fnv1a(h, job->user_defs[i], strlen(job->user_defs[i]) + 1);
    h = cutec_fnv1a(h, job->arch, strlen(job->arch));
    *out = h;
    return 0;
}

static uint32_t version_number(const char *v)
{
    unsigned a = 0, b = 0, c = 0;
    sscanf(v, "%u.%u.%u", &a, &b, &c);
    return a * 10000u + b * 100u + c;
}

static int assemble(const pack_job *job, const cli_deps *sources, point *pts, int n, const char *outpath)
{
    uint64_t hash = 0;
    if (source_hash(job, sources, &hash) != 0) return pack_error("cannot hash the sources of '%s'", job->input);
    cutec_packfmt_entry *ents = calloc((size_t)n + 1, sizeof *ents);
    char **bufs = calloc((size_t)n * 3 + 1, sizeof *bufs);
    if (!ents || !bufs) return 3;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        char path[PACK_PATH_MAX];
        size_t plen = 0, clen = 0, mlen = 0;
        snprintf(path, sizeof path, "%s/%d.ptx", job->tmpdir, i);
        char *ptx = cli_read_file(path, &plen);
        if (!ptx) {
            fprintf(stderr, "cutec pack: error: cannot read '%s' (the PTX of point %d, %s): %s\n", path, i,
                    pts[i].tp->kernel, strerror(errno));
            rc = 1;
            break;
        }
        char why[PACK_PATH_MAX + 64];
        char *man = manifest_of(job, i, &mlen, why, sizeof why);
        bufs[3 * i] = ptx;
        bufs[3 * i + 1] = man;
        if (!man) {
            rc = pack_error("a point's description cannot be read: %s", why);
            break;
        }
        char *cubin = NULL;
        if (job->want_cubin) {
            snprintf(path, sizeof path, "%s/%d.cubin", job->tmpdir, i);
            cubin = cli_read_file(path, &clen);
            bufs[3 * i + 2] = cubin;
        }
        ents[i] = (cutec_packfmt_entry){.manifest = man,
                                        .manifest_size = mlen,
                                        .ptx = ptx,
                                        .ptx_size = plen,
                                        .cubin = (const unsigned char *)cubin,
                                        .cubin_size = cubin ? clen : 0};
    }
    unsigned char *data = NULL;
    size_t size = 0;
    if (!rc && cutec_packfmt_write(job->arch, version_number(CUTEC_COMPILER_VERSION), hash, ents, (uint32_t)n, &data,
                                   &size) != 0)
        rc = pack_error("%s", "cannot serialise the pack (out of memory)");
    if (!rc && !cli_write_file("cutec pack", outpath, data, size, &cli_signal)) rc = 1;
    free(data);
    for (int i = 0; i < 3 * n; i++) free(bufs[i]);
    free(bufs);
    free(ents);
    return rc;
}

static int pack_usage_error(const char *fmt, const char *arg)
{
    pack_error(fmt, arg);
    fputs("see 'cutec pack --help'\n", stderr);
    return 2;
}

/* Options into job (defs and incs have room for argc strings); 0, -1
 * after --help, or the usage error's status. */
static int parse_args(int argc, char **argv, pack_job *job, const char **defs, const char **incs, const char **output,
                      long *jobs)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        cli_opt_result r;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(pack_usage, stdout);
            return fflush(stdout) == 0 ? -1 : 1;
        } else if ((r = cli_opt(argc, argv, &i, "--arch", &v)) != CLI_OPT_NO) {
            if (r == CLI_OPT_MISSING) return pack_usage_error("%s needs an architecture", a);
            job->arch = v;
            if (!cutec_arch_find(v))
                return pack_usage_error("unknown architecture '%s' (known: " CUTEC_ARCH_NAMES ")", v);
        } else if ((r = cli_opt(argc, argv, &i, "--import", &v)) != CLI_OPT_NO) {
            if (r == CLI_OPT_MISSING) return pack_usage_error("%s needs a file", a);
            job->imports[job->nimports++] = v;
        } else if ((r = cli_opt(argc, argv, &i, "--stdlib", &v)) != CLI_OPT_NO) {
            if (r == CLI_OPT_MISSING) return pack_usage_error("%s needs a directory", a);
            job->stdlib_dir = v;
        } else if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) return pack_usage_error("%s needs an argument", a);
            *output = argv[++i];
        } else if (strncmp(a, "-j", 2) == 0) {
            v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            char *e = NULL;
            *jobs = v ? strtol(v, &e, 10) : 0;
            if (!v || *e || *jobs < 1 || *jobs > 1024)
                return pack_usage_error("-j needs a number of workers from 1 to 1024, not '%s'", v ? v : "");
        } else if (strncmp(a, "-D", 2) == 0 || strncmp(a, "-I", 2) == 0) {
            v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v) return pack_usage_error(a[1] == 'D' ? "%s needs NAME=VALUE" : "%s needs a directory", a);
            if (a[1] == 'D')
                defs[job->nuser++] = v;
            else
                incs[job->nincs++] = v;
        } else if (strcmp(a, "--fast-math") == 0) {
            job->fast_math = 1;
        } else if (strcmp(a, "--no-cubin") == 0) {
            job->want_cubin = 0;
        } else if (strcmp(a, "--json") == 0) {
            job->json = 1;
        } else if (strcmp(a, "-") == 0) {
            return pack_usage_error("%s", "pack reads FILE.cute by name (its workers and the source hash reopen it); "
                                          "standard input ('-') is not supported");
        } else if (a[0] == '-' && a[1]) {
            return pack_usage_error("unknown option '%s'", a);
        } else if (job->input) {
            return pack_usage_error("more than one input file ('%s')", a);
        } else {
            job->input = a;
        }
    }
    if (!job->input) return pack_usage_error("%s", "no input file");
    if (job->json && *output && strcmp(*output, "-") == 0)
        return pack_usage_error("%s", "--json prints to standard output, where -o - puts the pack");
    return 0;
}

/* The end of a run: a line on stderr, or with --json an object on stdout
 * ("output": null when no pack was written). */
static void summary(const pack_job *job, const char *output, int n, int failed, int warned, double seconds)
{
    if (!job->json) {
        if (warned && !failed) fprintf(stderr, "cutec pack: %d of %d points with ptxas warnings (above)\n", warned, n);
        if (failed)
            fprintf(stderr, "cutec pack: %d of %d points failed (%.1f s); no pack written\n", failed, n, seconds);
        else if (!output)
            fprintf(stderr, "cutec pack: %d points compiled in %.1f s; no pack written\n", n, seconds);
        else
            fprintf(stderr, "cutec pack: %d points compiled in %.1f s -> %s\n", n, seconds,
                    strcmp(output, "-") == 0 ? "standard output" : output);
        return;
    }
    fputs("{\"input\": ", stdout);
    json_string(stdout, job->input);
    fputs(", \"output\": ", stdout);
    json_string(stdout, output);
    fputs(", \"arch\": ", stdout);
    json_string(stdout, job->arch);
    printf(", \"points\": %d, \"failed\": %d, \"warned\": %d, \"seconds\": %.3f}\n", n, failed, warned, seconds);
    fflush(stdout);
}

/* The work directory, under $TMPDIR as a C compiler's temporary files are. */
static int make_workdir(pack_job *job)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    if (strlen(tmp) > sizeof job->tmpdir - 32) {
        pack_error("$TMPDIR is too long: '%s'", tmp);
        return 3;
    }
    snprintf(job->tmpdir, sizeof job->tmpdir, "%s/cutec-pack-XXXXXX", tmp);
    if (mkdtemp(job->tmpdir)) return 0;
    fprintf(stderr, "cutec pack: error: cannot create a work directory in '%s': %s\n", tmp, strerror(errno));
    return 3;
}

/* "cutec pack: LEVEL: point i (kernel -D N=V ...)" on stderr, and point i's
 * log after what (its worker's diagnostics, or ptxas's messages). */
static void report_point(const pack_job *job, const point *pts, int i, const char *level, const char *what)
{
    const cutec_tune_point *tp = pts[i].tp;
    fprintf(stderr, "cutec pack: %s: point %d (%s", level, i, tp->kernel);
    for (int j = 0; j < tp->ndefines; j++) fprintf(stderr, " -D %s=%s", tp->defines[j].name, tp->defines[j].value);
    fprintf(stderr, ")%s:\n", what);
    char path[PACK_PATH_MAX];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%d.log", job->tmpdir, i);
    char *log = cli_read_file(path, &len);
    if (log) fputs(log, stderr);
    free(log);
}

/* What ptxas said of the points it assembled with a word (a serialized
 * wgmma costs a kernel a large part of its speed, a spill some): each
 * point and its log, on stderr; the number of such points. */
static int report_warnings(const pack_job *job, const point *pts, int n)
{
    int warned = 0;
    for (int i = 0; i < n; i++) {
        if (!pts[i].warned) continue;
        warned++;
        report_point(job, pts, i, "warning", ": ptxas");
    }
    return warned;
}

/* Why each failed point failed, from its log; the exit status. */
static int report_failures(const pack_job *job, const point *pts, int n)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (!pts[i].failed) continue;
        report_point(job, pts, i, "error", pts[i].failed == 10 ? " failed in ptxas" : " failed");
        rc = pts[i].failed == 10 ? 3 : pts[i].failed;
    }
    return rc ? rc : 3;
}

int cmd_pack(int argc, char **argv)
{
    pack_job job = {.arch = "sm_90a", .want_cubin = 1, .imports = calloc((size_t)argc + 1, sizeof(char *))};
    const char **defs = calloc((size_t)argc + 1, sizeof *defs), **incs = calloc((size_t)argc + 1, sizeof *incs);
    const char *output = NULL;
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    char *outbuf = NULL;
    point *pts = NULL;
    cutec_tune_point_list list = {0};
    cli_deps sources = {0};
    int n = 0, rc = 0;
    if (!defs || !incs || !job.imports) {
        free(defs);
        free(incs);
        free(job.imports);
        return 3;
    }
    rc = parse_args(argc, argv, &job, defs, incs, &output, &jobs);
    if (rc) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
    if (jobs < 1) jobs = 1;
    job.user_defs = defs;
    job.incs = incs;
    job.stdlib_dir = cli_stdlib_dir(job.stdlib_dir);
    if (!output) {
        size_t len = strlen(job.input);
        if (len > 5 && strcmp(job.input + len - 5, ".cute") == 0) len -= 5;
        outbuf = malloc(len + 6);
        if (!outbuf) {
            rc = 3;
            goto done;
        }
        memcpy(outbuf, job.input, len);
        strcpy(outbuf + len, ".pack");
        output = outbuf;
    }
    if (job.want_cubin && !cutec_ptxas_path()) {
        fprintf(stderr, "cutec pack: warning: ptxas not found; the pack holds PTX only (the driver compiles it)\n");
        job.want_cubin = 0;
    }

    double t0 = now();
    cutec_options o;
    job_options(&job, &o, defs, job.nuser);
    o.diagnostics = stderr;
    o.on_source = cli_deps_add; /* the files read, for the source hash */
    o.on_source_ctx = &sources;
    rc = cutec_tune_points(job.input, &o, &list);
    if (rc != CUTEC_COMPILE_OK) goto done;
    pts = select_points(&list, &job, &n);
    if (!pts) {
        pack_error("%s", "out of memory");
        rc = 3;
        goto done;
    }
    if (n == 0) {
        pack_error("'%s' has no kernel point to pack (check the -D values against the tune clauses)", job.input);
        rc = 1;
        goto done;
    }
    /* from here to the removal of the work directory, a signal is
     * recorded and acted on, not fatal */
    cli_signals_catch();
    rc = make_workdir(&job);
    if (rc) {
        cli_signals_default();
        goto done;
    }
    int failures = run_workers(&job, pts, n, (int)(jobs < n ? jobs : n));
    int warned = failures == 0 ? report_warnings(&job, pts, n) : 0;
    if (failures > 0)
        rc = report_failures(&job, pts, n);
    else if (failures == 0)
        rc = assemble(&job, &sources, pts, n, output);
    cli_remove_tree(job.tmpdir);
    if (cli_signal && (failures != 0 || rc != 0)) { /* one after the pack was written changes nothing */
        fprintf(stderr, "cutec pack: interrupted (%s); work directory removed, no pack written\n",
                cli_signal == SIGINT ? "SIGINT" : "SIGTERM");
        cli_signal_reraise();
    }
    cli_signals_default();
    summary(&job, rc ? NULL : output, n, failures > 0 ? failures : 0, warned, now() - t0);
done:
    free(pts);
    cutec_tune_point_list_free(&list);
    cli_deps_free(&sources);
    free(outbuf);
    free(defs);
    free(incs);
    free(job.imports);
    return rc;
}

int cmd_tune_exec(int argc, char **argv)
{
    (void)argc;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) *slash = 0;
        static const char *const rel[] = {"/cutec-tune", "/../runtime/cutec-tune"};
        for (int i = 0; i < 2; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s%s", self, rel[i]);
            if (access(path, X_OK) == 0) {
                argv[0] = path;
                execv(path, argv);
            }
        }
    }
    argv[0] = "cutec-tune";
    execvp("cutec-tune", argv);
    fprintf(stderr, "cutec: error: cannot run cutec-tune (the runtime's tool for '%s'): %s\n", argv[1],
            strerror(errno));
    return 2;
}
