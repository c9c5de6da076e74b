/* cli_deps.c: make-style dependency files, `cutec -MD` / `-MF FILE`
 * (cli.h): the output depends on the input and on every module it
 * imports, as the compiler found them, so that a build system recompiles
 * when a stdlib module changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_deps_add(void *ctx, const char *path)
{
    cli_deps *d = ctx;
    if (d->failed) return;
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 8;
        char **p = realloc(d->paths, sizeof *p * (size_t)cap);
        if (!p) {
            d->failed = true;
            return;
        }
        d->paths = p;
        d->cap = cap;
    }
    size_t n = strlen(path);
    char *copy = malloc(n + 1);
    if (!copy) {
        d->failed = true;
        return;
    }
    memcpy(copy, path, n + 1);
    d->paths[d->n++] = copy;
}

/* make's escapes: a space or # with a backslash, $ doubled */
static void put_make_word(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == ' ' || *s == '#' || *s == '\t')
            fputc('\\', f);
        else if (*s == '$')
            fputc('$', f);
        fputc(*s, f);
    }
}

bool cli_deps_write(const char *prog, const char *depfile, const char *target, const cli_deps *d)
{
    if (d->failed) {
        fprintf(stderr, "%s: error: cannot write '%s': out of memory\n", prog, depfile);
        return false;
    }
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        fprintf(stderr, "%s: error: cannot write '%s': out of memory\n", prog, depfile);
        return false;
    }
    put_make_word(f, target);
    fputc(':', f);
    for (int i = 0; i < d->n; i++) {
        fputs(" \\\n  ", f);
        put_make_word(f, d->paths[i]);
    }
    fputc('\n', f);
    fclose(f);
    bool ok = text && cli_write_file(prog, depfile, text, size, NULL);
    free(text);
    return ok;
}

void cli_deps_free(cli_deps *d)
{
    for (int i = 0; i < d->n; i++) free(d->paths[i]);
    free(d->paths);
    memset(d, 0, sizeof *d);
}
