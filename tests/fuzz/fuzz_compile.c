/*
 * fuzz_compile.c - libFuzzer harnesses for the compiler, through its public
 * API (cutec/compiler.h).  One source, one executable per stage, chosen at
 * build time (tests/fuzz/CMakeLists.txt):
 *
 *   FUZZ_STAGE_PARSE  tokens and AST of the input (scanner, parser, imports)
 *   FUZZ_STAGE_IR     tune points and LLVM IR at -O0 for FUZZ_ARCH (semantic
 *                     analysis, evaluation, IR construction, the verifier)
 *   FUZZ_STAGE_PTX    PTX for FUZZ_ARCH at the default -O2 (LLVM's passes and
 *                     the NVPTX back end on what cutec built)
 *   FUZZ_STAGE_EVAL   the input as a `cutec eval` expression, in each of the
 *                     three renderings (the layout algebra)
 *
 * The input is a .cute source.  cutec_compile_file reads a path, so the
 * bytes go to a memfd opened as /proc/self/fd/N: nothing is written to disk
 * and nothing is left behind by a crash.  Diagnostics go to a memory stream,
 * never to the terminal; they are printed only when the compiler reports an
 * internal error, which is a bug: the harness then aborts, so that libFuzzer
 * keeps the input.  Every call owns its state (one arena, one LLVM context
 * per compilation), so nothing needs resetting between inputs; LLVM's
 * one-time initialisation happens in LLVMFuzzerInitialize, before the leak
 * checker starts counting.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cutec/compiler.h"

#define FUZZ_STAGE_PARSE 1
#define FUZZ_STAGE_IR    2
#define FUZZ_STAGE_PTX   3
#define FUZZ_STAGE_EVAL  4
#ifndef FUZZ_STAGE
#error "define FUZZ_STAGE (tests/fuzz/CMakeLists.txt)"
#endif
#ifndef FUZZ_ARCH
#define FUZZ_ARCH "sm_90a"
#endif

/* Sources above this size add time, not new paths (the seeds are < 4 KiB). */
enum { MAX_INPUT = 64 * 1024 };

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int src_fd = -1;
static char src_path[64];

static void set_source(const uint8_t *data, size_t size)
{
    if (ftruncate(src_fd, 0) != 0 || pwrite(src_fd, data, size, 0) != (ssize_t)size) {
        perror("fuzz_compile: writing the memfd");
        abort();
    }
}

/* Runs one compilation; an internal compiler error is a crash. */
static void compile(cutec_emit emit, int opt_level)
{
    char *diag_text = NULL;
    size_t diag_len = 0;
    FILE *diag = open_memstream(&diag_text, &diag_len);
    if (diag == NULL) abort();
    cutec_options o;
    cutec_options_init(&o);
    o.arch = FUZZ_ARCH;
    o.emit = emit;
    o.opt_level = opt_level;
    o.diagnostics = diag;
    cutec_output out;
    cutec_result rc = cutec_compile_file(src_path, &o, &out);
    cutec_output_free(&out);
    fclose(diag);
    if (rc != CUTEC_COMPILE_OK && rc != CUTEC_COMPILE_USER_ERROR) {
        fprintf(stderr, "fuzz_compile: result %d (emit %d, %s, -O%d); diagnostics:\n%s", (int)rc, (int)emit, FUZZ_ARCH,
                opt_level, diag_text ? diag_text : "");
        abort();
    }
    free(diag_text);
}

/* The tune points, as --list-tune lists them; an internal error is a crash. */
static void tune_points(void)
{
    char *diag_text = NULL;
    size_t diag_len = 0;
    FILE *diag = open_memstream(&diag_text, &diag_len);
    if (diag == NULL) abort();
    cutec_options o;
    cutec_options_init(&o);
    o.arch = FUZZ_ARCH;
    o.diagnostics = diag;
    cutec_tune_point_list l;
    cutec_result rc = cutec_tune_points(src_path, &o, &l);
    cutec_tune_point_list_free(&l);
    fclose(diag);
    if (rc != CUTEC_COMPILE_OK && rc != CUTEC_COMPILE_USER_ERROR) {
        fprintf(stderr, "fuzz_compile: result %d (tune points, %s); diagnostics:\n%s", (int)rc, FUZZ_ARCH,
                diag_text ? diag_text : "");
        abort();
    }
    free(diag_text);
}

static void eval(const uint8_t *data, size_t size)
{
    char *expr = malloc(size + 1);
    if (expr == NULL) abort();
    memcpy(expr, data, size);
    expr[size] = '\0';
    static const cutec_eval_render renders[] = {CUTEC_EVAL_VALUE, CUTEC_EVAL_TABLE, CUTEC_EVAL_SVG};
    for (size_t i = 0; i < sizeof renders / sizeof renders[0]; i++) {
        char *diag_text = NULL;
        size_t diag_len = 0;
        FILE *diag = open_memstream(&diag_text, &diag_len);
        if (diag == NULL) abort();
        cutec_output out;
        (void)cutec_eval(expr, renders[i], &out, diag);
        cutec_output_free(&out);
        fclose(diag);
        free(diag_text);
    }
    free(expr);
}

static void run(const uint8_t *data, size_t size)
{
#if FUZZ_STAGE == FUZZ_STAGE_EVAL
    eval(data, size);
    (void)tune_points;
#else
    set_source(data, size);
#if FUZZ_STAGE == FUZZ_STAGE_PARSE
    compile(CUTEC_EMIT_TOKENS, 0);
    compile(CUTEC_EMIT_AST, 0);
#elif FUZZ_STAGE == FUZZ_STAGE_IR
    tune_points();
    compile(CUTEC_EMIT_LL, 0);
#elif FUZZ_STAGE == FUZZ_STAGE_PTX
    compile(CUTEC_EMIT_PTX, 2);
#else
#error "unknown FUZZ_STAGE"
#endif
    (void)eval;
    (void)tune_points;
#endif
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    src_fd = memfd_create("cutec-fuzz.cute", 0);
    if (src_fd < 0) {
        perror("fuzz_compile: memfd_create");
        abort();
    }
    snprintf(src_path, sizeof src_path, "/proc/self/fd/%d", src_fd);
    /* LLVM's targets and options are set up on the first compilation and
     * kept: do it here, not inside the first input */
    static const char warm[] = "kernel k(n: i32, x: tensor<f32, gmem, (n):(1)>) threads(32)\n"
                               "{ if threadIdx.x < n { x(threadIdx.x) = 1.0; } }\n";
    set_source((const uint8_t *)warm, sizeof warm - 1);
    compile(CUTEC_EMIT_PTX, 2);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size <= MAX_INPUT) run(data, size);
    return 0;
}
