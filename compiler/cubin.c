/* cubin.c: runs ptxas on a temporary file.  A subprocess keeps the
 * compiler free of a link dependency on the CUDA toolkit. */
#include "cubin.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool is_exec(const char *p) { return access(p, X_OK) == 0; }

const char *cubin_find_ptxas(void)
{
    static char buf[4096];
    const char *env = getenv("CUTEC_PTXAS");
    if (env && *env) return is_exec(env) ? env : NULL;
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        snprintf(buf, sizeof buf, "%s/bin/ptxas", home);
        if (is_exec(buf)) return buf;
    }
    if (is_exec("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n && n < sizeof buf - 8) {
            snprintf(buf, sizeof buf, "%.*s/ptxas", (int)n, path);
            if (is_exec(buf)) return buf;
        }
        path = colon ? colon + 1 : NULL;
    }
    return NULL;
}

/* A whole file, NUL-terminated, malloc'ed (*len without the NUL); NULL if it
 * cannot be read. */
static char *file_read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return NULL;
    }
    char *b = malloc((size_t)st.st_size + 1);
    size_t n = b ? fread(b, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    if (b) b[n] = 0;
    *len = n;
    return b;
}

bool cubin_from_ptx(const char *ptx, size_t len, const char *arch, char **out, size_t *out_len, char **log)
{
    *out = NULL;
    *log = NULL;
    const char *ptxas = cubin_find_ptxas();
    if (!ptxas) {
        *log = strdup("ptxas not found; install the CUDA toolkit or set CUTEC_PTXAS or CUDA_HOME");
        return false;
    }
    /* under $TMPDIR: cutec pack points it into its own work directory,
     * which it removes whole when interrupted */
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    if (!tmp || !*tmp || strlen(tmp) > sizeof dir - 32) tmp = "/tmp";
    snprintf(dir, sizeof dir, "%s/cutec-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        char msg[PATH_MAX + 128];
        snprintf(msg, sizeof msg, "cannot create a temporary directory in '%s': %s", tmp, strerror(errno));
        *log = strdup(msg);
        return false;
    }
    char in[PATH_MAX + 16], obj[PATH_MAX + 16], errf[PATH_MAX + 16], archopt[64];
    snprintf(in, sizeof in, "%s/k.ptx", dir);
    snprintf(obj, sizeof obj, "%s/k.cubin", dir);
    snprintf(errf, sizeof errf, "%s/log", dir);
    snprintf(archopt, sizeof archopt, "-arch=%s", arch);
    bool ok = false;
    FILE *f = fopen(in, "wb");
    if (f) {
        ok = fwrite(ptx, 1, len, f) == len;
        ok = fclose(f) == 0 && ok;
    }
    if (ok) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
        /* -warn-spills: a spill is worth a word even where it assembles
         * (cutec pack reports the point's messages) */
        char *argv[] = {(char *)ptxas, archopt, "-O3", "-warn-spills", in, "-o", obj, NULL};
        pid_t pid;
        int st = 0;
        ok = posix_spawn(&pid, ptxas, &fa, NULL, argv, environ) == 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
             WEXITSTATUS(st) == 0;
        posix_spawn_file_actions_destroy(&fa);
        if (ok) *out = file_read_all(obj, out_len);
        ok = ok && *out;
        size_t n = 0;
        *log = file_read_all(errf, &n);
        if (!ok && !*log) *log = strdup("ptxas failed");
        if (ok && *log && n == 0) { /* assembled without a word */
            free(*log);
            *log = NULL;
        }
    } else {
        char msg[PATH_MAX + 128];
        snprintf(msg, sizeof msg, "cannot write '%s': %s", in, strerror(errno));
        *log = strdup(msg);
    }
    unlink(in);
    unlink(obj);
    unlink(errf);
    rmdir(dir);
    return ok;
}
