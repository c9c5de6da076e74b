/* program.c: loading sources and imports, top-level symbols, -D values. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "program.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parse_ctx.h"

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Top-level names are looked up by hash: a generated file can define
 * hundreds of thousands of constants, and a linear search per definition
 * and per use made that quadratic. */
static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of name in the table: its entry, or the empty slot it would take. */
static int *sym_slot(Program *p, const char *name)
{
    unsigned mask = (unsigned)p->capsymtab - 1;
    for (unsigned i = name_hash(name) & mask;; i = (i + 1) & mask) {
        int *slot = &p->symtab[i];
        if (*slot == 0 || strcmp(p->syms[*slot - 1].name, name) == 0) return slot;
    }
}

static void grow_symtab(Program *p)
{
    int cap = p->capsymtab ? p->capsymtab * 2 : 64;
    p->symtab = ARENA_ARRAY(p->arena, int, cap);
    p->capsymtab = cap;
    for (int i = 0; i < p->nsyms; i++) *sym_slot(p, p->syms[i].name) = i + 1;
}

static void add_sym(Program *p, const char *name, Node *n)
{
    TopSym *old = program_lookup(p, name);
    if (old) {
        diag_error(p->diag, n->name_loc, "redefinition of '%s'", name);
        diag_note(p->diag, old->node->name_loc, "'%s' was first defined here", name);
        return;
    }
    if (p->nsyms == p->capsyms) {
        int cap = p->capsyms ? p->capsyms * 2 : 16;
        TopSym *s = ARENA_ARRAY(p->arena, TopSym, cap);
        if (p->nsyms) memcpy(s, p->syms, sizeof(TopSym) * (size_t)p->nsyms);
        p->syms = s;
        p->capsyms = cap;
    }
    p->syms[p->nsyms++] = (TopSym){.name = name, .node = n};
    if (2 * p->nsyms > p->capsymtab)
        grow_symtab(p); /* inserts every symbol, this one too */
    else
        *sym_slot(p, name) = p->nsyms;
}

TopSym *program_lookup(Program *p, const char *name)
{
    if (!p->capsymtab) return NULL;
    int i = *sym_slot(p, name);
    return i ? &p->syms[i - 1] : NULL;
}

Define *program_define(Program *p, const char *name)
{
    for (int i = 0; i < p->ndefines; i++)
        if (strcmp(p->defines[i].name, name) == 0) return &p->defines[i];
    return NULL;
}

/* Files are identified by their canonical path, so that `a.cute` and
 * `./a.cute` (an import cycle back to the main file) are one file. */
static bool already_loaded(Program *p, const char *given)
{
    char buf[PATH_MAX];
    const char *path = realpath(given, buf) ? buf : given;
    for (int i = 0; i < p->nloaded; i++)
        if (strcmp(p->loaded[i], path) == 0) return true;
    if (p->nloaded == p->caploaded) {
        int cap = p->caploaded ? p->caploaded * 2 : 8;
        const char **l = ARENA_ARRAY(p->arena, const char *, cap);
        if (p->nloaded) memcpy(l, p->loaded, sizeof(char *) * (size_t)p->nloaded);
        p->loaded = l;
        p->caploaded = cap;
    }
    p->loaded[p->nloaded++] = arena_strdup(p->arena, path);
    return false;
}

static Node *parse_file(Program *p, const SourceFile *f)
{
    ParseCtx ctx = {.arena = p->arena, .diag = p->diag, .file = f, .mode = PARSE_PROGRAM, .token_dump = p->token_dump};
    parse_source(&ctx);
    return ctx.result;
}

/* The file an import names: `import a.b;` is a/b.cute, `import "x.cute";`
 * is x.cute as written. */
static const char *import_rel(Program *p, const Node *imp)
{
    if (imp->ival) return imp->name;
    char *r = arena_printf(p->arena, "%s.cute", imp->name);
    for (char *c = r; *c; c++)
        if (*c == '.' && strcmp(c, ".cute") != 0) *c = '/';
    return r;
}

/* The directory of the importing file, NULL for the current one. */
static const char *import_dir(Program *p, const Node *imp)
{
    const char *from = imp->loc.file ? imp->loc.file->name : ".";
    const char *slash = strrchr(from, '/');
    return slash ? arena_strndup(p->arena, from, (size_t)(slash - from)) : NULL;
}

/* `import a.b;` looks for a/b.cute beside the importing file, then in each
 * -I directory, then in the standard library directory. */
static const char *resolve_import(Program *p, const Node *imp)
{
    const char *rel = import_rel(p, imp);
    const char *dirs_local = import_dir(p, imp);
    if (rel[0] == '/') return file_exists(rel) ? rel : NULL;
    /* beside the importing file, named as a user would name it (no "./") */
    const char *cand = dirs_local ? arena_printf(p->arena, "%s/%s", dirs_local, rel) : rel;
    if (file_exists(cand)) return cand;
    for (int i = 0; i < p->ninclude; i++) {
        cand = arena_printf(p->arena, "%s/%s", p->include_dirs[i], rel);
        if (file_exists(cand)) return cand;
    }
    if (p->stdlib_dir) {
        cand = arena_printf(p->arena, "%s/%s", p->stdlib_dir, rel);
        if (file_exists(cand)) return cand;
    }
    return NULL;
}

/* A module that is not found names every directory searched, in order, so
 * that a missing or misplaced standard library shows itself. */
static void report_missing(Program *p, const Node *imp)
{
    const char *rel = import_rel(p, imp);
    if (rel[0] == '/') {
        diag_error(p->diag, imp->loc, "cannot find module '%s' (no file %s)", imp->name, rel);
        return;
    }
    const char *dir = import_dir(p, imp);
    char *where = arena_printf(p->arena, "'%s' (beside the importing file)", !dir ? "." : *dir ? dir : "/");
    for (int i = 0; i < p->ninclude; i++) where = arena_printf(p->arena, "%s, '%s' (-I)", where, p->include_dirs[i]);
    if (p->stdlib_dir) where = arena_printf(p->arena, "%s, '%s' (standard library)", where, p->stdlib_dir);
    diag_error(p->diag, imp->loc, "cannot find module '%s': no %s in %s", imp->name, rel, where);
}

static void register_items(Program *p, Node *prog, bool is_main)
{
    for (int i = 0; i < prog->list.n; i++) {
        Node *it = prog->list.items[i];
        switch (it->kind) {
        case N_KERNEL:
            if (!is_main) break; /* imported kernels are not compiled */
            /* fallthrough */
        case N_FUNC:
        case N_CONST:
            /* the grammar shares kernels' template list; a call has no way
             * to pass one (docs/language.md, "Functions") */
            if (it->kind == N_FUNC && it->list2.n)
                diag_error(p->diag, it->list2.items[0]->name_loc,
                           "functions take no template parameters; pass '%s' as an ordinary parameter",
                           it->list2.items[0]->name);
            for (int j = 0; it->kind == N_FUNC && j < it->list.n; j++)
                if (it->list.items[j]->b)
                    diag_error(p->diag, it->list.items[j]->b->loc,
                               "only a kernel's parameters can be conditional ('%s' of function '%s')",
                               it->list.items[j]->name, it->name);
            add_sym(p, it->name, it);
            break;
        default: break;
        }
    }
}

static void told(Program *p, const char *path)
{
    if (p->on_source) p->on_source(p->on_source_ctx, path);
}

/* Parses the main file f and, breadth-first, everything it imports. */
static bool load_main(Program *p, SourceFile *f, const char *path, int before)
{
    const char *err = NULL;
    p->main_file = f;
    already_loaded(p, path);
    p->main = parse_file(p, f);
    if (!p->main) return false;
    register_items(p, p->main, true);
    /* breadth-first over imports; each file once, so cycles terminate */
    int qcap = 64 + p->nimports;
    Node **queue = ARENA_ARRAY(p->arena, Node *, qcap);
    int qn = 0;
    queue[qn++] = p->main;
    /* --import files first, as imports of the main file: their functions
     * are the program's (a stdlib template's ACT may name them) */
    for (int i = 0; i < p->nimports; i++) {
        if (already_loaded(p, p->imports[i])) continue;
        SourceFile *sf = source_load(p->arena, p->imports[i], &err);
        if (!sf) {
            diag_plain(p->diag, DIAG_ERROR, "cannot read '%s' (--import): %s", p->imports[i], err);
            continue;
        }
        told(p, p->imports[i]);
        Node *sub = parse_file(p, sf);
        if (!sub) continue;
        register_items(p, sub, false);
        queue[qn++] = sub;
    }
    for (int qi = 0; qi < qn; qi++) {
        Node *prog = queue[qi];
        for (int i = 0; i < prog->list.n; i++) {
            Node *imp = prog->list.items[i];
            if (imp->kind != N_IMPORT) continue;
            const char *resolved = resolve_import(p, imp);
            if (!resolved) {
                report_missing(p, imp);
                continue;
            }
            if (already_loaded(p, resolved)) continue;
            SourceFile *sf = source_load(p->arena, resolved, &err);
            if (!sf) {
                diag_error(p->diag, imp->loc, "cannot read '%s': %s", resolved, err);
                continue;
            }
            told(p, resolved);
            Node *sub = parse_file(p, sf);
            if (!sub) continue;
            register_items(p, sub, false);
            if (qn == qcap) {
                Node **nq = ARENA_ARRAY(p->arena, Node *, qcap * 2);
                memcpy(nq, queue, sizeof(Node *) * (size_t)qn);
                queue = nq;
                qcap *= 2;
            }
            queue[qn++] = sub;
        }
    }
    return p->diag->errors == before;
}

bool program_load(Program *p, const char *path)
{
    int before = p->diag->errors;
    const char *err = NULL;
    SourceFile *f = source_load(p->arena, path, &err);
    if (!f) {
        diag_plain(p->diag, DIAG_ERROR, "cannot read '%s': %s", path, err);
        return false;
    }
    told(p, path);
    return load_main(p, f, path, before);
}

bool program_load_text(Program *p, const char *name, const char *text, size_t len)
{
    int before = p->diag->errors;
    return load_main(p, source_from_string(p->arena, name, text, len), name, before);
}

Node *parse_expression(Arena *a, Diag *d, const char *name, const char *text)
{
    SourceFile *f = source_from_string(a, name, text, strlen(text));
    ParseCtx ctx = {.arena = a, .diag = d, .file = f, .mode = PARSE_EXPR};
    if (!parse_source(&ctx)) return NULL;
    return ctx.result;
}

bool program_parse_defines(Program *p, const char **defs, int ndefs)
{
    bool ok = true;
    p->defines = ARENA_ARRAY(p->arena, Define, ndefs > 0 ? ndefs : 1);
    for (int i = 0; i < ndefs; i++) {
        const char *eq = strchr(defs[i], '=');
        if (!eq || eq == defs[i]) {
            diag_plain(p->diag, DIAG_ERROR, "-D %s: expected NAME=VALUE", defs[i]);
            ok = false;
            continue;
        }
        Define d = {.name = arena_strndup(p->arena, defs[i], (size_t)(eq - defs[i])),
                    .text = arena_strdup(p->arena, eq + 1)};
        const char *label = arena_printf(p->arena, "<-D %s>", d.name);
        d.expr = parse_expression(p->arena, p->diag, label, d.text);
        if (!d.expr) {
            ok = false;
            continue;
        }
        Define *prev = program_define(p, d.name);
        if (prev)
            *prev = d; /* the last -D for a name wins, as with a C compiler */
        else
            p->defines[p->ndefines++] = d;
    }
    return ok;
}
