/* driver.c: the library entry points: source -> tokens | AST | LLVM IR |
 * PTX | cubin (with the kernels' descriptions), tune points, ptxas, and
 * `eval`.  One arena per compilation, freed in one call;
 * the LLVM context is owned by the CG and disposed on every path. */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "cubin.h"
#include "debuginfo.h"
#include "cutec/compiler.h"
#include "arch.h"
#include "kernel.h"
#include "program.h"
#include "target.h"
#include "timing.h"

#ifndef CUTEC_STDLIB_DIR
#define CUTEC_STDLIB_DIR "stdlib"
#endif

void cutec_options_init(cutec_options *o)
{
    memset(o, 0, sizeof *o);
    o->arch = "sm_90a";
    o->opt_level = 2;
    o->emit = CUTEC_EMIT_PTX;
}

void cutec_output_free(cutec_output *out)
{
    if (!out) return;
    free(out->data);
    free(out->kernels);
    *out = (cutec_output){0};
}

static char *buffer_from_stream(FILE *f, size_t *len)
{
    long n = ftell(f);
    if (n < 0) return NULL;
    char *b = malloc((size_t)n + 1);
    if (!b) return NULL;
    rewind(f);
    *len = fread(b, 1, (size_t)n, f);
    b[*len] = 0;
    return b;
}

/* The kernels' contracts (contract/kdesc.h) as `// cutec.` comment lines
 * before the PTX: ptxas and the driver ignore comments, and the runtime
 * reads them back with the same module that wrote them. */
static char *with_metadata(char *ptx, size_t len, const cutec_kdesc *k, int n, size_t *outlen)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f) return NULL;
    for (int i = 0; i < n; i++) {
        size_t need = cutec_kdesc_write(&k[i], NULL, 0);
        char *text = malloc(need + 1);
        if (!text) {
            fclose(f);
            free(buf);
            return NULL;
        }
        cutec_kdesc_write(&k[i], text, need + 1);
        fwrite(text, 1, need, f);
        free(text);
    }
    /* LLVM 19 ignores cluster annotations: add .reqnctapercluster to the
     * entry's directives (before its body's opening brace) by hand */
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        if (k[i].cluster[0] * k[i].cluster[1] * k[i].cluster[2] == 1) continue;
        char head[256];
        snprintf(head, sizeof head, ".entry %s(", k[i].kernel);
        char *at = strstr(ptx, head);
        char *brace = at ? strstr(at, "\n{") : NULL;
        if (!brace || (size_t)(brace - ptx) < pos) continue;
        fwrite(ptx + pos, 1, (size_t)(brace - ptx) + 1 - pos, f);
        fprintf(f, ".reqnctapercluster %u, %u, %u\n", k[i].cluster[0], k[i].cluster[1], k[i].cluster[2]);
        pos = (size_t)(brace - ptx) + 1;
    }
    fwrite(ptx + pos, 1, len - pos, f);
    fclose(f);
    *outlen = size;
    return buf;
}

static cutec_result ice(Diag *d, const char *what, const char *path, const char *msg)
{
    diag_plain(d, DIAG_ERROR, "internal compiler error: %s%s%s", what, msg ? ": " : "", msg ? msg : "");
    diag_plain(d, DIAG_NOTE, "please report this with the input '%s' and the command line that produced it", path);
    return CUTEC_COMPILE_INTERNAL;
}

/* What every entry point does first: diagnostics as the options say, the
 * architecture checked, the program's fields set (nothing loaded yet). */
static cutec_result begin(Diag *diag, Arena *arena, Program *prog, const char *path, size_t src_len, bool text,
                          const cutec_options *o)
{
    diag_init(diag, o->diagnostics ? o->diagnostics : stderr);
    diag->json = o->diag_format == CUTEC_DIAG_JSON;
    diag->no_warnings = o->warnings == CUTEC_WARNINGS_OFF;
    diag->werror = o->warnings == CUTEC_WARNINGS_ERROR;
    arena_init(arena);
    *prog = (Program){.arena = arena,
                      .diag = diag,
                      .include_dirs = (const char **)o->include_dirs,
                      .ninclude = o->ninclude_dirs,
                      .imports = o->imports,
                      .nimports = o->nimports,
                      .stdlib_dir = o->stdlib_dir ? o->stdlib_dir : CUTEC_STDLIB_DIR,
                      .arch = cutec_arch_find(o->arch),
                      .fast_math = o->fast_math != 0,
                      .on_source = o->on_source,
                      .on_source_ctx = o->on_source_ctx};
    if (!prog->arch) {
        char known[128];
        cutec_arch_list(known, sizeof known);
        diag_plain(diag, DIAG_ERROR, "unknown architecture '%s' (known: %s)", o->arch, known);
        return CUTEC_COMPILE_USAGE;
    }
    if (text && src_len > CUTEC_SOURCE_MAX) {
        diag_plain(diag, DIAG_ERROR, "cannot read '%s': larger than %zu MiB, the limit for a source", path,
                   CUTEC_SOURCE_MAX >> 20);
        return CUTEC_COMPILE_USER_ERROR;
    }
    return CUTEC_COMPILE_OK;
}

/* The main source (src == NULL: the file at path) and its imports, then
 * the -D values: OK, USER_ERROR or USAGE (a malformed -D). */
static cutec_result load(Program *prog, const char *path, const char *src, size_t src_len, const cutec_options *o)
{
    bool loaded = src ? program_load_text(prog, path, src, src_len) : program_load(prog, path);
    bool defs_ok = program_parse_defines(prog, (const char **)o->defines, o->ndefines);
    return !loaded ? CUTEC_COMPILE_USER_ERROR : !defs_ok ? CUTEC_COMPILE_USAGE : CUTEC_COMPILE_OK;
}

/* Tokens or the AST: what was read, even with errors. */
static cutec_result dump(Program *prog, Diag *diag, const char *path, const char *src, size_t src_len,
                         const cutec_options *o, cutec_output *out)
{
    FILE *mem = tmpfile();
    if (!mem) return ice(diag, "cannot create a temporary file", path, NULL);
    if (o->emit == CUTEC_EMIT_TOKENS) prog->token_dump = mem;
    load(prog, path, src, src_len, o);
    if (o->emit == CUTEC_EMIT_AST && prog->main) ast_dump(mem, prog->main);
    out->data = buffer_from_stream(mem, &out->size);
    fclose(mem);
    return diag->errors ? CUTEC_COMPILE_USER_ERROR : CUTEC_COMPILE_OK;
}

/* The emitted kernels' descriptions, copied out of the arena for the caller. */
static bool keep_kernels(cutec_output *out, const cutec_kdesc *infos, int n)
{
    if (n == 0) return true;
    out->kernels = malloc(sizeof *out->kernels * (size_t)n);
    if (!out->kernels) return false;
    memcpy(out->kernels, infos, sizeof *out->kernels * (size_t)n);
    out->nkernels = n;
    return true;
}

/* LLVM IR, PTX or cubin of every kernel of the loaded program. */
static cutec_result generate(Program *prog, Diag *diag, const char *path, const cutec_options *o, Timing *tim,
                             cutec_output *out)
{
    cutec_result rc = CUTEC_COMPILE_OK;
    Arena *arena = prog->arena;
    CG cg;
    cg_init(&cg, path, CUTEC_TRIPLE);
    if (o->lineinfo) cg_debug_init(&cg, path);
    int nkernels = 0;
    cutec_kdesc *infos = ARENA_ARRAY(arena, cutec_kdesc, prog->main->list.n + 1);
    for (int i = 0; i < prog->main->list.n; i++) {
        Node *it = prog->main->list.items[i];
        if (it->kind != N_KERNEL) continue;
        cg_debug_kernel(&cg, it->name, it->loc);
        kernel_emit(prog, &cg, it, &infos[nkernels++]);
        cg_debug_kernel_end(&cg);
    }
    /* top-level constants and functions that no kernel used still get checked */
    for (int i = 0; i < prog->nsyms; i++) {
        TopSym *s = &prog->syms[i];
        if (s->node->kind == N_CONST && s->state == 0) {
            Eval e = {.arena = arena, .diag = diag, .prog = prog};
            eval_rvalue(&e, s->node->b);
            s->state = 2;
        }
    }
    for (int i = 0; i < prog->ndefines; i++)
        if (!prog->defines[i].used)
            diag_plain(diag, DIAG_WARNING, "-D %s: no kernel in '%s' has a template parameter of that name",
                       prog->defines[i].name, path);
    if (nkernels == 0 && !diag->errors)
        diag_plain(diag, DIAG_WARNING, "'%s' defines no kernel; the output is empty", path);
    timing_lap(tim, TIME_EVAL);
    if (diag->errors) {
        rc = CUTEC_COMPILE_USER_ERROR;
    } else {
        char *text = NULL, *err = NULL;
        size_t len = 0;
        bool want_ptx = o->emit != CUTEC_EMIT_LL;
        cg_debug_finish(&cg);
        if (o->fast_math) cg_fast_math(&cg);
        if (!target_emit(cg.mod, o->arch, cg.ptx83, o->opt_level, want_ptx, &text, &len, &err, tim)) {
            rc = ice(diag, "code generation failed", path, err);
            free(err);
        } else if (o->emit == CUTEC_EMIT_CUBIN) {
            char *log = NULL;
            timing_start(tim);
            bool assembled = cubin_from_ptx(text, len, o->arch, &out->data, &out->size, &log);
            timing_lap(tim, TIME_PTXAS);
            if (!assembled) {
                diag_plain(diag, DIAG_ERROR, "ptxas failed:\n%s", log ? log : "");
                rc = cubin_find_ptxas() ? CUTEC_COMPILE_INTERNAL : CUTEC_COMPILE_USAGE;
            } else if (log) {
                diag_plain(diag, DIAG_WARNING, "ptxas:\n%s", log);
            }
            free(log);
            free(text);
        } else if (o->emit == CUTEC_EMIT_PTX) {
            out->data = with_metadata(text, len, infos, nkernels, &out->size);
            free(text);
            if (!out->data) rc = ice(diag, "out of memory", path, NULL);
        } else {
            out->data = text;
            out->size = len;
        }
        if (rc == CUTEC_COMPILE_OK && !keep_kernels(out, infos, nkernels)) rc = ice(diag, "out of memory", path, NULL);
    }
    cg_dispose(&cg);
    return rc;
}

/* src == NULL: read the file at path; else path names the text src. */
static cutec_result compile(const char *path, const char *src, size_t src_len, const cutec_options *o,
                            cutec_output *out)
{
    *out = (cutec_output){0};
    Diag diag;
    Arena arena;
    Program prog;
    Timing timing = {0};
    Timing *tim = o->time_report ? &timing : NULL;
    timing_start(tim);
    cutec_result rc = begin(&diag, &arena, &prog, path, src_len, src != NULL, o);
    if (rc != CUTEC_COMPILE_OK) {
        arena_free(&arena);
        return rc;
    }
    if (o->emit == CUTEC_EMIT_TOKENS || o->emit == CUTEC_EMIT_AST) {
        rc = dump(&prog, &diag, path, src, src_len, o, out); /* what was read, even with errors */
        timing_lap(tim, TIME_PARSE);
    } else {
        rc = load(&prog, path, src, src_len, o);
        timing_lap(tim, TIME_PARSE);
        if (rc == CUTEC_COMPILE_OK) rc = generate(&prog, &diag, path, o, tim, out);
        if (rc != CUTEC_COMPILE_OK) cutec_output_free(out);
    }
    arena_free(&arena);
    if (tim) timing_print(tim, o->time_report);
    return rc;
}

cutec_result cutec_compile_file(const char *path, const cutec_options *o, cutec_output *out)
{
    return compile(path, NULL, 0, o, out);
}

cutec_result cutec_compile_source(const char *name, const char *text, size_t len, const cutec_options *o,
                                  cutec_output *out)
{
    return compile(name, text ? text : "", len, o, out);
}

static cutec_result tune_points(const char *path, const char *src, size_t src_len, const cutec_options *o,
                                cutec_tune_point_list *out)
{
    *out = (cutec_tune_point_list){0};
    Diag diag;
    Arena arena;
    Program prog;
    Timing timing = {0};
    Timing *tim = o->time_report ? &timing : NULL;
    timing_start(tim);
    cutec_result rc = begin(&diag, &arena, &prog, path, src_len, src != NULL, o);
    if (rc != CUTEC_COMPILE_OK) {
        arena_free(&arena);
        return rc;
    }
    rc = load(&prog, path, src, src_len, o);
    timing_lap(tim, TIME_PARSE);
    Arena *keep = rc == CUTEC_COMPILE_OK ? malloc(sizeof *keep) : NULL;
    if (rc == CUTEC_COMPILE_OK && !keep) rc = ice(&diag, "out of memory", path, NULL);
    if (keep) {
        arena_init(keep);
        TuneList list = {.keep = keep};
        /* every kernel, so that each one's errors are reported (a kernel
         * refused by the points limit adds nothing to the count) */
        for (int i = 0; i < prog.main->list.n; i++)
            if (prog.main->list.items[i]->kind == N_KERNEL) kernel_list_tune(&prog, prog.main->list.items[i], &list);
        if (diag.errors) {
            rc = CUTEC_COMPILE_USER_ERROR;
            arena_free(keep);
            free(keep);
        } else {
            *out = (cutec_tune_point_list){.points = list.points, .npoints = list.n, .storage = keep};
        }
    }
    arena_free(&arena);
    if (tim) timing_print(tim, o->time_report);
    return rc;
}

cutec_result cutec_tune_points(const char *path, const cutec_options *o, cutec_tune_point_list *out)
{
    return tune_points(path, NULL, 0, o, out);
}

cutec_result cutec_tune_points_source(const char *name, const char *text, size_t len, const cutec_options *o,
                                      cutec_tune_point_list *out)
{
    return tune_points(name, text ? text : "", len, o, out);
}

void cutec_tune_point_list_free(cutec_tune_point_list *list)
{
    if (!list) return;
    if (list->storage) {
        arena_free(list->storage);
        free(list->storage);
    }
    *list = (cutec_tune_point_list){0};
}

const char *cutec_ptxas_path(void) { return cubin_find_ptxas(); }

cutec_result cutec_assemble(const char *ptx, size_t len, const char *arch, cutec_output *out, char **log)
{
    *out = (cutec_output){0};
    *log = NULL;
    if (cubin_from_ptx(ptx, len, arch, &out->data, &out->size, log)) return CUTEC_COMPILE_OK;
    return cubin_find_ptxas() ? CUTEC_COMPILE_INTERNAL : CUTEC_COMPILE_USAGE;
}

cutec_result cutec_eval(const char *expr, cutec_eval_render render, cutec_output *out, FILE *diagnostics)
{
    *out = (cutec_output){0}; /* every field: cutec_output_free frees kernels too */
    Diag diag;
    diag_init(&diag, diagnostics ? diagnostics : stderr);
    Arena arena;
    arena_init(&arena);
    cutec_result rc = CUTEC_COMPILE_USER_ERROR;
    Node *n = parse_expression(&arena, &diag, "<eval>", expr);
    if (n) {
        Eval e = {.arena = &arena, .diag = &diag};
        eval_bind_symbols(&e, n);
        Value v = diag.errors ? val_error() : eval_rvalue(&e, n);
        const char *text = NULL;
        if (v.kind != V_ERROR && !diag.errors) {
            if (v.kind == V_ATOM) {
                text = atom_render(&e, &v, render, n->loc);
            } else if (render != CUTEC_EVAL_VALUE) {
                LayValue lv;
                if (val_to_lay(&e, v, &lv, n->loc, "the expression")) {
                    LayError err = {.arg = -1};
                    char *s = NULL;
                    bool ok = render == CUTEC_EVAL_TABLE ? lay_render_table(&arena, &lv, &s, &err)
                                                         : lay_render_svg(&arena, &lv, &s, &err);
                    if (ok)
                        text = s;
                    else
                        diag_error(&diag, n->loc, "%s", err.msg);
                }
            } else if (v.kind == V_INT) {
                text = arena_printf(&arena, "%lld\n", (long long)v.i);
            } else if (v.kind == V_FLOAT) {
                text = arena_printf(&arena, "%.17g\n", v.f);
            } else if (v.kind == V_BOOL) {
                text = v.i ? "true\n" : "false\n";
            } else if (v.kind == V_LAY) {
                text = arena_printf(&arena, "%s\n", lay_print_value(&arena, &v.lay));
            } else if (v.kind == V_TYPE) {
                text = arena_printf(&arena, "%s\n", type_name(v.ty));
            } else {
                diag_error(&diag, n->loc, "%s is not a printable compile-time value", val_describe(&e, &v));
            }
        }
        if (text && !diag.errors) {
            out->size = strlen(text);
            out->data = malloc(out->size + 1);
            if (out->data) memcpy(out->data, text, out->size + 1);
            rc = CUTEC_COMPILE_OK;
        }
    }
    arena_free(&arena);
    return rc;
}
