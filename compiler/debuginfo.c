/* debuginfo.c: -lineinfo through LLVM's DIBuilder (debuginfo.h).
 *
 * The compile unit's emission kind is DebugDirectivesOnly, what clang's
 * -gline-directives-only gives and what nvcc -lineinfo writes: `.file` and
 * `.loc` directives and no DWARF sections.  LineTablesOnly would add
 * `.target ..., debug` and .debug_* sections, which ask ptxas for device
 * debug information.  The C API's enum stops at LineTablesOnly; the value
 * is DICompileUnit::DebugDirectivesOnly, which it passes through. */
#include "debuginfo.h"

#include <limits.h>
#include <stdbool.h>
#include <llvm-c/DebugInfo.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen.h"

enum { EMISSION_DEBUG_DIRECTIVES_ONLY = 3 };

typedef struct CGDebug CGDebug;

typedef struct DbgFile {
    const SourceFile *src;
    LLVMMetadataRef file;
    LLVMMetadataRef block; /* the current kernel's lexical block in this file, or NULL */
} DbgFile;

struct CGDebug {
    LLVMDIBuilderRef dib;
    LLVMMetadataRef cu_file;
    const char *kernel; /* the kernel cg_debug_kernel announced */
    SrcLoc kernel_loc;
    LLVMValueRef fn; /* the function the subprogram below belongs to */
    LLVMMetadataRef sp;
    const SourceFile *sp_src;
    DbgFile *files;
    int nfiles, capfiles;
    bool finished;
    char cwd[PATH_MAX];
};

static LLVMMetadataRef make_file(CGDebug *d, const char *path)
{
    const char *dir = path[0] == '/' ? "" : d->cwd;
    return LLVMDIBuilderCreateFile(d->dib, path, strlen(path), dir, strlen(dir));
}

void cg_debug_init(CG *cg, const char *main_path)
{
    CGDebug *d = calloc(1, sizeof *d);
    if (!d) return; /* no line information rather than no PTX */
    if (!getcwd(d->cwd, sizeof d->cwd)) d->cwd[0] = 0;
    d->dib = LLVMCreateDIBuilder(cg->mod);
    d->cu_file = make_file(d, main_path);
    static const char producer[] = "cutec";
    LLVMDIBuilderCreateCompileUnit(d->dib, LLVMDWARFSourceLanguageC, d->cu_file, producer, sizeof producer - 1, 1, "",
                                   0, 0, "", 0, (LLVMDWARFEmissionKind)EMISSION_DEBUG_DIRECTIVES_ONLY, 0, 0, 0, "", 0,
                                   "", 0);
    static const char key[] = "Debug Info Version";
    LLVMAddModuleFlag(cg->mod, LLVMModuleFlagBehaviorWarning, key, sizeof key - 1,
                      LLVMValueAsMetadata(LLVMConstInt(cg->t_i32, LLVMDebugMetadataVersion(), 0)));
    cg->dbg = d;
}

void cg_debug_kernel(CG *cg, const char *name, SrcLoc loc)
{
    if (!cg->dbg) return;
    cg->dbg->kernel = name;
    cg->dbg->kernel_loc = loc;
}

void cg_debug_kernel_end(CG *cg)
{
    if (!cg->dbg) return;
    LLVMSetCurrentDebugLocation2(cg->b, NULL);
    cg->dbg->fn = NULL;
    cg->dbg->kernel = NULL;
}

static DbgFile *file_of(CGDebug *d, const SourceFile *src)
{
    for (int i = 0; i < d->nfiles; i++)
        if (d->files[i].src == src) return &d->files[i];
    if (d->nfiles == d->capfiles) {
        int cap = d->capfiles ? 2 * d->capfiles : 8;
        DbgFile *f = realloc(d->files, sizeof *f * (size_t)cap);
        if (!f) return NULL;
        d->files = f;
        d->capfiles = cap;
    }
    DbgFile *f = &d->files[d->nfiles++];
    *f = (DbgFile){.src = src, .file = make_file(d, src->name)};
    return f;
}

/* The kernel's subprogram, made for cg->fn when it first needs one. */
static bool ensure_subprogram(CG *cg, CGDebug *d)
{
    if (d->fn == cg->fn) return d->sp != NULL;
    d->fn = cg->fn;
    d->sp = NULL;
    for (int i = 0; i < d->nfiles; i++) d->files[i].block = NULL;
    const SourceFile *src = d->kernel_loc.file;
    DbgFile *f = src ? file_of(d, src) : NULL;
    if (!f) return false;
    size_t len = 0;
    const char *name = LLVMGetValueName2(cg->fn, &len);
    LLVMMetadataRef ty = LLVMDIBuilderCreateSubroutineType(d->dib, f->file, NULL, 0, LLVMDIFlagZero);
    unsigned line = (unsigned)(d->kernel_loc.first_line > 0 ? d->kernel_loc.first_line : 0);
    d->sp = LLVMDIBuilderCreateFunction(d->dib, f->file, name, len, name, len, f->file, line, ty, 0, 1, line,
                                        LLVMDIFlagZero, 1);
    d->sp_src = src;
    LLVMSetSubprogram(cg->fn, d->sp);
    return true;
}

void cg_debug_loc(CG *cg, SrcLoc loc)
{
    CGDebug *d = cg ? cg->dbg : NULL;
    if (!d) return;
    if (!cg->fn || !loc.file || !ensure_subprogram(cg, d)) {
        LLVMSetCurrentDebugLocation2(cg->b, NULL);
        return;
    }
    LLVMMetadataRef scope = d->sp;
    if (loc.file != d->sp_src) {
        /* an inlined function of another file: the kernel's scope, that file */
        DbgFile *f = file_of(d, loc.file);
        if (!f) return;
        if (!f->block) f->block = LLVMDIBuilderCreateLexicalBlockFile(d->dib, d->sp, f->file, 0);
        scope = f->block;
    }
    unsigned line = (unsigned)(loc.first_line > 0 ? loc.first_line : 0);
    unsigned col = (unsigned)(loc.first_column > 0 ? loc.first_column : 0);
    LLVMSetCurrentDebugLocation2(cg->b, LLVMDIBuilderCreateDebugLocation(cg->ctx, line, col, scope, NULL));
}

LLVMMetadataRef cg_debug_save(CG *cg) { return cg && cg->dbg ? LLVMGetCurrentDebugLocation2(cg->b) : NULL; }

void cg_debug_restore(CG *cg, LLVMMetadataRef loc)
{
    if (cg && cg->dbg && cg->fn) LLVMSetCurrentDebugLocation2(cg->b, loc);
}

void cg_debug_finish(CG *cg)
{
    if (!cg->dbg || cg->dbg->finished) return;
    LLVMDIBuilderFinalize(cg->dbg->dib);
    cg->dbg->finished = true;
}

void cg_debug_dispose(CG *cg)
{
    CGDebug *d = cg->dbg;
    if (!d) return;
    cg_debug_finish(cg); /* DIBuilder wants it before disposal, also on error paths */
    LLVMDisposeDIBuilder(d->dib);
    free(d->files);
    free(d);
    cg->dbg = NULL;
}
