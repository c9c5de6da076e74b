/* target.c: NVPTX target machine, the new pass manager through
 * LLVMRunPasses, and PTX emission to a memory buffer. */
#include "target.h"

#include "arch.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool target_arch_valid(const char *arch) { return cutec_arch_find(arch) != NULL; }

static char *dup_err(const char *what, const char *msg)
{
    size_t n = strlen(what) + strlen(msg ? msg : "") + 4;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s: %s", what, msg ? msg : "");
    return s;
}

bool target_emit(LLVMModuleRef m, const char *arch, bool ptx83, int opt, bool want_ptx, char **out, size_t *len,
                 char **err, Timing *tim)
{
    timing_start(tim);
    static bool initialised;
    if (!initialised) {
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
        /* 32-bit shared-memory pointers: shared addresses fit in 32 bits, and
         * 64-bit ones cost a conversion at every ldmatrix/cp.async operand */
        const char *argv[64] = {"cutec", "-nvptx-short-ptr"};
        int argc = 2;
        /* CUTEC_LLVM_ARGS: more LLVM options (e.g. -time-passes), for experiments */
        static char extra[1024];
        const char *env = getenv("CUTEC_LLVM_ARGS");
        if (env) {
            snprintf(extra, sizeof extra, "%s", env);
            for (char *tok = strtok(extra, " "); tok && argc < 64; tok = strtok(NULL, " ")) argv[argc++] = tok;
        }
        LLVMParseCommandLineOptions(argc, argv, NULL);
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
    /* The back end's -O3 differs from its -O2 only in running GVN instead of
     * early CSE after its straight-line and strength-reduction passes; for
     * IR that LLVM's middle end has already optimised the PTX is the same
     * (ptxas output compared for every sm90 and sampled sm80 GEMM point,
     * docs/performance.md), so -O2 and -O3 both use the cheaper one.
     * CUTEC_CODEGEN_OPT=0..3 overrides it, for experiments. */
    LLVMCodeGenOptLevel lvl = opt <= 0   ? LLVMCodeGenLevelNone
                              : opt == 1 ? LLVMCodeGenLevelLess
                                         : LLVMCodeGenLevelDefault;
    const char *cgenv = getenv("CUTEC_CODEGEN_OPT");
    if (cgenv && cgenv[0] >= '0' && cgenv[0] <= '3')
        lvl = cgenv[0] == '0'   ? LLVMCodeGenLevelNone
              : cgenv[0] == '1' ? LLVMCodeGenLevelLess
              : cgenv[0] == '2' ? LLVMCodeGenLevelDefault
                                : LLVMCodeGenLevelAggressive;
    /* PTX 8.0 is the newest ISA every supported driver (r525+) accepts and
     * the minimum for sm_90a; 8.3 (r545+) only for the modules that patch
     * tensor maps on the device (eval_tmap.c) */
    LLVMTargetMachineRef tm =
        LLVMCreateTargetMachine(t, CUTEC_TRIPLE, arch, ptx83 ? "+ptx83" : cutec_arch_find(arch)->ptx_feature, lvl,
                                LLVMRelocDefault, LLVMCodeModelDefault);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, td);
    LLVMDisposeTargetData(td);
    bool ok = false;
    timing_lap(tim, TIME_INIT);
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
        *err = dup_err("generated IR failed verification", msg);
        LLVMDisposeMessage(msg);
        goto done;
    }
    LLVMDisposeMessage(msg);
    msg = NULL;
    timing_lap(tim, TIME_VERIFY);
    /* -O2 is a short pipeline for kernels the evaluator has already unrolled
     * and inlined: range facts for the special registers (thread and block
     * indices: they let LLVM prove index math non-negative and in range,
     * which the sm_80 GEMM's main loop needs most), scalar replacement
     * (register fragments), CSE, hoisting, cleanup.  It takes a third of
     * default<O3>'s pass time; its main loops are within a few instructions
     * of -O3's, and the kernels ran at -O3's speed on the H100, so it is the
     * default (docs/compiler.md).  CUTEC_PIPELINE overrides both, for
     * experiments. */
    char pbuf[512];
    const char *pipeline = getenv("CUTEC_PIPELINE"), *custom = pipeline;
    if (!custom) pipeline = pbuf;
    if (custom)
        ;
    else if (opt == 2)
        snprintf(pbuf, sizeof pbuf,
                 "function(nvvm-intr-range,sroa,early-cse<memssa>,instcombine,simplifycfg,"
                 "loop-mssa(loop-rotate,licm),gvn,instcombine,adce,simplifycfg)");
    else
        snprintf(pbuf, sizeof pbuf, "default<O%d>", opt < 0 ? 0 : opt > 3 ? 3 : opt);
    LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
    LLVMErrorRef perr = LLVMRunPasses(m, pipeline, tm, pbo);
    LLVMDisposePassBuilderOptions(pbo);
    timing_lap(tim, TIME_PASSES);
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
    timing_lap(tim, TIME_CODEGEN);
done:
    LLVMDisposeTargetMachine(tm);
    return ok;
}
