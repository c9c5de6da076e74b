/* target.c: NVPTX target machine, the new pass manager through
 * LLVMRunPasses, and PTX emission to a memory buffer. */
#include "target.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool target_arch_valid(const char *arch)
{
    return strcmp(arch, "sm_90a") == 0 || strcmp(arch, "sm_80") == 0 || strcmp(arch, "sm_90") == 0 ||
           strcmp(arch, "sm_86") == 0 || strcmp(arch, "sm_89") == 0;
}

static char *dup_err(const char *what, const char *msg)
{
    size_t n = strlen(what) + strlen(msg ? msg : "") + 4;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s: %s", what, msg ? msg : "");
    return s;
}

bool target_emit(LLVMModuleRef m, const char *arch, int opt, bool want_ptx, char **out, size_t *len, char **err)
{
    static bool initialised;
    if (!initialised) {
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
        /* 32-bit shared-memory pointers: shared addresses fit in 32 bits, and
         * 64-bit ones cost a conversion at every ldmatrix/cp.async operand */
        const char *argv[] = {"cutec", "-nvptx-short-ptr"};
        LLVMParseCommandLineOptions(2, argv, NULL);
        initialised = true;
    }
    *out = NULL;
    *err = NULL;
    char *msg = NULL;
    LLVMTargetRef t;
    if (LLVMGetTargetFromTriple(CUTEC_TRIPLE, &t, &msg)) {
        *err = dup_err("NVPTX target unavailable", msg);
        LLVMDisposeMessage(msg);
        return false;
    }
    LLVMCodeGenOptLevel lvl = opt <= 0 ? LLVMCodeGenLevelNone : opt == 1 ? LLVMCodeGenLevelLess
                            : opt == 2 ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelAggressive;
    /* PTX 8.0 is the newest ISA every supported driver (r525+) accepts and
     * the minimum for sm_90a */
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(t, CUTEC_TRIPLE, arch, "+ptx80", lvl, LLVMRelocDefault,
                                                      LLVMCodeModelDefault);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, td);
    LLVMDisposeTargetData(td);
    bool ok = false;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
        *err = dup_err("generated IR failed verification", msg);
        LLVMDisposeMessage(msg);
        goto done;
    }
    LLVMDisposeMessage(msg);
    msg = NULL;
    /* -O2 is a short pipeline for kernels the evaluator has already unrolled
     * and inlined: scalar replacement (register fragments), CSE, hoisting,
     * cleanup.  It compiles the Hopper GEMM 2.5x faster than default<O3> at
     * the same measured speed, but leaves the sm_80 GEMM 5% slower, so -O3
     * (LLVM's full pipeline) stays the default (docs/performance.md).
     * CUTEC_PIPELINE overrides both, for experiments. */
    char pipeline[512];
    const char *custom = getenv("CUTEC_PIPELINE");
    if (custom)
        snprintf(pipeline, sizeof pipeline, "%s", custom);
    else if (opt == 2)
        snprintf(pipeline, sizeof pipeline, "function(sroa,early-cse<memssa>,instcombine,simplifycfg,"
                                            "loop-mssa(licm),gvn,instcombine,adce,simplifycfg)");
    else
        snprintf(pipeline, sizeof pipeline, "default<O%d>", opt < 0 ? 0 : opt > 3 ? 3 : opt);
    LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
    LLVMErrorRef perr = LLVMRunPasses(m, pipeline, tm, pbo);
    LLVMDisposePassBuilderOptions(pbo);
    if (perr) {
        char *em = LLVMGetErrorMessage(perr);
        *err = dup_err("optimisation failed", em);
        LLVMDisposeErrorMessage(em);
        goto done;
    }
    if (!want_ptx) {
        char *ir = LLVMPrintModuleToString(m);
        *len = strlen(ir);
        *out = malloc(*len + 1);
        if (*out) memcpy(*out, ir, *len + 1);
        LLVMDisposeMessage(ir);
        ok = *out != NULL;
        goto done;
    }
    LLVMMemoryBufferRef buf;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg, &buf)) {
        *err = dup_err("PTX emission failed", msg);
        LLVMDisposeMessage(msg);
        goto done;
    }
    *len = LLVMGetBufferSize(buf);
    *out = malloc(*len + 1);
    if (*out) {
        memcpy(*out, LLVMGetBufferStart(buf), *len);
        (*out)[*len] = 0;
        ok = true;
    }
    LLVMDisposeMemoryBuffer(buf);
done:
    LLVMDisposeTargetMachine(tm);
    return ok;
}
