/* pack.c: `cutec pack`.  Lists the tune points of the file (as --list-tune
 * does), compiles each point to PTX and, where ptxas is found, to cubin, in
 * fork()ed worker processes (-j of them; each has its own LLVM state, so the
 * compiler's global target initialisation needs no locking), and writes one
 * pack file atomically (temporary file + rename).  Entries keep tune-list
 * order whatever the scheduling, so the same input gives the same pack.
 * Progress goes to stderr only when it is a terminal. */
#include "pack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cubin.h"
#include "cutec/compiler.h"
#include "kdesc.h"
#include "pack_format.h"
#include "program.h"

#ifndef CUTEC_STDLIB_DIR
#define CUTEC_STDLIB_DIR "stdlib"
#endif

static const char pack_usage[] =
    "usage: cutec pack FILE.cute [-o FILE.pack] [--arch=sm_90a|sm_80] [-j N] [-D NAME=VALUE]...\n"
    "                  [-I DIR]... [--stdlib=DIR] [--no-cubin]\n"
    "\n"
    "Compiles every tune point of every kernel of FILE (a kernel without a tune clause\n"
    "once) into one kernel pack for the runtime: manifest, PTX and cubin per point.\n"
    "  -o OUT       output file (default: FILE.pack beside the input)\n"
    "  -j N         parallel workers (default: the number of cores)\n"
    "  -D N=V       set a template parameter; for a tune variable, keep only the points\n"
    "               with that value\n"
    "  --no-cubin   PTX only (the runtime JIT-compiles it); cubins need ptxas\n";

/* One point to compile: kernel name and its -D strings (tune values). */
typedef struct point {
    char *kernel;
    char **defs;
    int ndefs;
    int failed;
} point;

typedef struct pack_job {
    const char *input;
    const char *arch;
    const char **user_defs;
    int nuser;
    const char **incs;
    int nincs;
    const char *stdlib_dir;
    int want_cubin;
    char tmpdir[64];
} pack_job;

static int pack_error(const char *fmt, const char *arg)
{
    fputs("cutec pack: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 1;
}

static char *xstrndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p) {
        fputs("cutec pack: out of memory\n", stderr);
        exit(3);
    }
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static size_t name_len(const char *def)
{
    const char *eq = strchr(def, '=');
    return eq ? (size_t)(eq - def) : strlen(def);
}

/* Splits the --list-tune output into points; drops those that contradict a
 * user -D of a tune variable. */
static point *parse_points(const char *text, size_t len, const pack_job *job, int *count)
{
    int cap = 16, n = 0;
    point *pts = malloc(sizeof *pts * (size_t)cap);
    const char *p = text, *end = text + len;
    while (pts && p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        point pt = {0};
        char *line = xstrndup(p, (size_t)(eol - p));
        p = eol + 1;
        char *save = NULL;
        int keep = 1;
        for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            if (!pt.kernel) {
                pt.kernel = xstrndup(tok, strlen(tok));
                continue;
            }
            if (strcmp(tok, "-D") == 0) continue;
            for (int u = 0; u < job->nuser; u++) {
                size_t nl = name_len(job->user_defs[u]);
                if (nl == name_len(tok) && strncmp(tok, job->user_defs[u], nl) == 0 &&
                    strcmp(tok, job->user_defs[u]) != 0)
                    keep = 0;
            }
            char **nd = realloc(pt.defs, sizeof(char *) * (size_t)(pt.ndefs + 1));
            if (!nd) exit(3);
            pt.defs = nd;
            pt.defs[pt.ndefs++] = xstrndup(tok, strlen(tok));
        }
        free(line);
        if (!pt.kernel || !keep) {
            free(pt.kernel);
            for (int i = 0; i < pt.ndefs; i++) free(pt.defs[i]);
            free(pt.defs);
            continue;
        }
        if (n == cap) {
            point *np = realloc(pts, sizeof *pts * (size_t)(cap *= 2));
            if (!np) exit(3);
            pts = np;
        }
        pts[n++] = pt;
    }
    *count = n;
    return pts;
}

static void points_free(point *pts, int n)
{
    for (int i = 0; i < n; i++) {
        free(pts[i].kernel);
        for (int j = 0; j < pts[i].ndefs; j++) free(pts[i].defs[j]);
        free(pts[i].defs);
    }
    free(pts);
}

static void job_options(const pack_job *job, cutec_options *o, cutec_emit emit, const char **defs, int ndefs)
{
    cutec_options_init(o);
    o->arch = job->arch;
    o->emit = emit;
    o->defines = defs;
    o->ndefines = ndefs;
    o->include_dirs = job->incs;
    o->ninclude_dirs = job->nincs;
    o->stdlib_dir = job->stdlib_dir;
}

static int write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = len ? fwrite(data, 1, len, f) : 0;
    int rc = fclose(f);
    return n == len && rc == 0 ? 0 : -1;
}

/* Runs in the worker process: compile one point, write i.ptx (+ i.cubin),
 * diagnostics to i.log.  Exit status: 0 ok, 1..3 the compiler's, 10 ptxas. */
static int compile_point(const pack_job *job, const point *pt, int idx)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%d.log", job->tmpdir, idx);
    FILE *log = fopen(path, "w");
    if (!log) return 3;
    /* The point's values win over a user -D of the same name. */
    const char **defs = calloc((size_t)(job->nuser + pt->ndefs + 1), sizeof *defs);
    if (!defs) return 3;
    int nd = 0;
    for (int u = 0; u < job->nuser; u++) {
        int shadowed = 0;
        for (int j = 0; j < pt->ndefs; j++)
            if (name_len(pt->defs[j]) == name_len(job->user_defs[u]) &&
                strncmp(pt->defs[j], job->user_defs[u], name_len(pt->defs[j])) == 0)
                shadowed = 1;
        if (!shadowed) defs[nd++] = job->user_defs[u];
    }
    for (int j = 0; j < pt->ndefs; j++) defs[nd++] = pt->defs[j];
    cutec_options o;
    job_options(job, &o, CUTEC_EMIT_PTX, defs, nd);
    o.diagnostics = log;
    cutec_output out;
    cutec_result rc = cutec_compile_file(job->input, &o, &out);
    int status = (int)rc;
    if (rc == CUTEC_COMPILE_OK) {
        snprintf(path, sizeof path, "%s/%d.ptx", job->tmpdir, idx);
        if (write_file(path, out.data, out.size) != 0) status = 3;
        if (status == 0 && job->want_cubin) {
            char *cubin = NULL, *clog = NULL;
            size_t clen = 0;
            if (!cubin_from_ptx(out.data, out.size, job->arch, &cubin, &clen, &clog)) {
                fprintf(log, "ptxas failed:\n%s\n", clog ? clog : "");
                status = 10;
            } else {
                snprintf(path, sizeof path, "%s/%d.cubin", job->tmpdir, idx);
                if (write_file(path, cubin, clen) != 0) status = 3;
            }
            free(cubin);
            free(clog);
        }
    }
    cutec_output_free(&out);
    free(defs);
    fclose(log);
    return status;
}

static void progress(int done, int total, int tty)
{
    if (!tty) return;
    fprintf(stderr, "\rcutec pack: %d/%d points compiled", done, total);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

static int run_workers(const pack_job *job, point *pts, int n, int jobs)
{
    int tty = isatty(STDERR_FILENO);
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    if (!pids) return 3;
    int next = 0, running = 0, done = 0, failures = 0;
    progress(0, n, tty);
    while (done < n) {
        while (running < jobs && next < n && !failures) {
            fflush(NULL);
            pid_t pid = fork();
            if (pid < 0) {
                if (running == 0) {
                    free(pids);
                    return pack_error("cannot start a worker: %s", strerror(errno)) ? 3 : 3;
                }
                break;
            }
            if (pid == 0) _exit(compile_point(job, &pts[next], next));
            pids[next++] = pid;
            running++;
        }
        if (running == 0) break; /* a failure stopped the scheduling */
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
        running--;
        done++;
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 3;
        if (code != 0) {
            pts[idx].failed = code;
            failures++;
        }
        progress(done, n, tty && !failures);
    }
    free(pids);
    if (tty && failures) fputc('\n', stderr);
    return failures;
}

/* The contract of `kernel` among the descriptions at the top of a PTX
 * text, read and written back by the contract module (the pack's
 * manifest), or NULL with why. */
static char *manifest_of(const char *ptx, size_t len, const char *kernel, size_t *mlen, char *why, size_t why_len)
{
    cutec_kdesc *d = malloc(sizeof *d);
    if (!d) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    char *text = NULL;
    if (cutec_kdesc_read_kernel(ptx, len, kernel, d, why, why_len) == 0) {
        *mlen = cutec_kdesc_write(d, NULL, 0);
        text = malloc(*mlen + 1);
        if (text) cutec_kdesc_write(d, text, *mlen + 1);
        else snprintf(why, why_len, "out of memory");
    }
    free(d);
    return text;
}

/* FNV-1a over the main source and every file it imports (as the compiler
 * resolves them), the -D values and the architecture. */
static int source_hash(const pack_job *job, uint64_t *out)
{
    FILE *sink = tmpfile();
    if (!sink) return -1;
    Diag diag;
    diag_init(&diag, sink);
    Arena arena;
    arena_init(&arena);
    Program prog = {.arena = &arena, .diag = &diag, .include_dirs = job->incs, .ninclude = job->nincs,
                    .stdlib_dir = job->stdlib_dir};
    int rc = program_load(&prog, job->input) ? 0 : -1;
    uint64_t h = CUTEC_FNV_OFFSET;
    for (int i = 0; rc == 0 && i < prog.nloaded; i++) {
        size_t len = 0;
        char *text = file_read_all(prog.loaded[i], &len);
        if (!text) {
            rc = -1;
            break;
        }
        h = cutec_fnv1a(h, text, len);
        h = cutec_fnv1a(h, "\0", 1);
        free(text);
    }
    for (int i = 0; i < job->nuser; i++) h = cutec_fnv1a(h, job->user_defs[i], strlen(job->user_defs[i]) + 1);
    h = cutec_fnv1a(h, job->arch, strlen(job->arch));
    arena_free(&arena);
    fclose(sink);
    *out = h;
    return rc;
}

static uint32_t version_number(const char *v)
{
    unsigned a = 0, b = 0, c = 0;
    sscanf(v, "%u.%u.%u", &a, &b, &c);
    return a * 10000u + b * 100u + c;
}

static int assemble(const pack_job *job, point *pts, int n, const char *outpath)
{
    uint64_t hash = 0;
    if (source_hash(job, &hash) != 0) return pack_error("cannot hash the sources of '%s'", job->input);
    cutec_packfmt_entry *ents = calloc((size_t)n + 1, sizeof *ents);
    char **bufs = calloc((size_t)n * 3 + 1, sizeof *bufs);
    if (!ents || !bufs) return 3;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        char path[128];
        size_t plen = 0, clen = 0, mlen = 0;
        snprintf(path, sizeof path, "%s/%d.ptx", job->tmpdir, i);
        char *ptx = file_read_all(path, &plen);
        if (!ptx) {
            rc = pack_error("lost the PTX of point %s", pts[i].kernel);
            break;
        }
        char why[300];
        char *man = manifest_of(ptx, plen, pts[i].kernel, &mlen, why, sizeof why);
        bufs[3 * i] = ptx;
        bufs[3 * i + 1] = man;
        if (!man) {
            rc = pack_error("the PTX of a point has no readable description: %s", why);
            break;
        }
        char *cubin = NULL;
        if (job->want_cubin) {
            snprintf(path, sizeof path, "%s/%d.cubin", job->tmpdir, i);
            cubin = file_read_all(path, &clen);
            bufs[3 * i + 2] = cubin;
        }
        ents[i] = (cutec_packfmt_entry){.manifest = man, .manifest_size = mlen, .ptx = ptx, .ptx_size = plen,
                                        .cubin = (const unsigned char *)cubin, .cubin_size = cubin ? clen : 0};
    }
    unsigned char *data = NULL;
    size_t size = 0;
    if (!rc && cutec_packfmt_write(job->arch, version_number(CUTEC_COMPILER_VERSION), hash, ents, (uint32_t)n,
                                   &data, &size) != 0)
        rc = pack_error("%s", "cannot serialise the pack (out of memory)");
    if (!rc) {
        char *tmp = malloc(strlen(outpath) + 32);
        if (!tmp) return 3;
        sprintf(tmp, "%s.tmp.%ld", outpath, (long)getpid());
        if (write_file(tmp, data, size) != 0 || rename(tmp, outpath) != 0) {
            remove(tmp);
            rc = pack_error("cannot write '%s'", outpath);
        }
        free(tmp);
    }
    free(data);
    for (int i = 0; i < 3 * n; i++) free(bufs[i]);
    free(bufs);
    free(ents);
    return rc;
}

static void remove_tmpdir(const pack_job *job, int n)
{
    static const char *const ext[] = {"ptx", "cubin", "log"};
    char path[128];
    for (int i = 0; i < n; i++)
        for (int e = 0; e < 3; e++) {
            snprintf(path, sizeof path, "%s/%d.%s", job->tmpdir, i, ext[e]);
            remove(path);
        }
    rmdir(job->tmpdir);
}

int cmd_pack(int argc, char **argv)
{
    pack_job job = {.arch = "sm_90a", .stdlib_dir = CUTEC_STDLIB_DIR, .want_cubin = 1};
    const char **defs = calloc((size_t)argc + 1, sizeof *defs), **incs = calloc((size_t)argc + 1, sizeof *incs);
    const char *output = NULL;
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    int rc = 0;
    if (!defs || !incs) return 3;
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(pack_usage, stdout);
            goto done;
        } else if (strcmp(a, "-o") == 0) {
            if (++i >= argc) rc = 2;
            else output = argv[i];
        } else if (strncmp(a, "--arch=", 7) == 0) {
            job.arch = a + 7;
            if (strcmp(job.arch, "sm_90a") != 0 && strcmp(job.arch, "sm_80") != 0) {
                pack_error("unknown architecture '%s' (expected sm_90a or sm_80)", job.arch);
                rc = 2;
            }
        } else if (strncmp(a, "-j", 2) == 0) {
            const char *v = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
            char *e = NULL;
            jobs = v ? strtol(v, &e, 10) : 0;
            if (!v || *e || jobs < 1 || jobs > 1024) {
                pack_error("-j needs a number of workers from 1 to 1024, not '%s'", v ? v : "");
                rc = 2;
            }
        } else if (strncmp(a, "-D", 2) == 0 || strncmp(a, "-I", 2) == 0) {
            const char *v = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
            if (!v) rc = 2;
            else if (a[1] == 'D') defs[job.nuser++] = v;
            else incs[job.nincs++] = v;
        } else if (strncmp(a, "--stdlib=", 9) == 0) {
            job.stdlib_dir = a + 9;
        } else if (strcmp(a, "--no-cubin") == 0) {
            job.want_cubin = 0;
        } else if (a[0] == '-' && a[1]) {
            pack_error("unknown option '%s' for pack", a);
            rc = 2;
        } else if (job.input) {
            pack_error("more than one input file ('%s')", a);
            rc = 2;
        } else {
            job.input = a;
        }
    }
    if (!rc && !job.input) {
        pack_error("%s", "no input file");
        rc = 2;
    }
    if (rc) {
        if (rc == 2) fputs("see 'cutec pack --help'\n", stderr);
        goto done;
    }
    if (jobs < 1) jobs = 1;
    job.user_defs = defs;
    job.incs = incs;
    char *outbuf = NULL;
    if (!output) {
        size_t n = strlen(job.input);
        if (n > 5 && strcmp(job.input + n - 5, ".cute") == 0) n -= 5;
        outbuf = malloc(n + 6);
        if (!outbuf) return 3;
        memcpy(outbuf, job.input, n);
        strcpy(outbuf + n, ".pack");
        output = outbuf;
    }
    if (job.want_cubin && !cubin_find_ptxas()) {
        fprintf(stderr, "cutec pack: warning: ptxas not found; the pack holds PTX only (the driver compiles it)\n");
        job.want_cubin = 0;
    }

    cutec_options o;
    job_options(&job, &o, CUTEC_EMIT_TUNE, defs, job.nuser);
    o.diagnostics = stderr;
    cutec_output list;
    rc = cutec_compile_file(job.input, &o, &list);
    if (rc != CUTEC_COMPILE_OK) {
        cutec_output_free(&list);
        free(outbuf);
        goto done;
    }
    int n = 0;
    point *pts = parse_points(list.data ? list.data : "", list.size, &job, &n);
    cutec_output_free(&list);
    if (!pts || n == 0) {
        pack_error("'%s' has no kernel point to pack (check the -D values against the tune clauses)", job.input);
        points_free(pts, n);
        free(outbuf);
        rc = 1;
        goto done;
    }
    strcpy(job.tmpdir, "/tmp/cutec-pack-XXXXXX");
    if (!mkdtemp(job.tmpdir)) {
        pack_error("cannot create a temporary directory: %s", strerror(errno));
        points_free(pts, n);
        free(outbuf);
        rc = 3;
        goto done;
    }
    int failures = run_workers(&job, pts, n, (int)(jobs < n ? jobs : n));
    if (failures) {
        for (int i = 0; i < n; i++) {
            if (!pts[i].failed) continue;
            fprintf(stderr, "cutec pack: error: point %d (%s", i, pts[i].kernel);
            for (int j = 0; j < pts[i].ndefs; j++) fprintf(stderr, " -D %s", pts[i].defs[j]);
            fprintf(stderr, ") failed%s:\n", pts[i].failed == 10 ? " in ptxas" : "");
            char path[128];
            size_t len = 0;
            snprintf(path, sizeof path, "%s/%d.log", job.tmpdir, i);
            char *log = file_read_all(path, &len);
            if (log) fputs(log, stderr);
            free(log);
            rc = pts[i].failed == 10 ? 3 : pts[i].failed;
        }
        if (!rc) rc = 3;
    } else {
        rc = assemble(&job, pts, n, output);
    }
    remove_tmpdir(&job, n);
    points_free(pts, n);
    free(outbuf);
done:
    free(defs);
    free(incs);
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
    fprintf(stderr, "cutec: error: cannot run cutec-tune (the runtime's tool for '%s'): %s\n", argv[1], strerror(errno));
    return 2;
}
