/*
 * arch.h - the one list of target architectures: what the compiler can
 * target (LLVM CPU name, PTX feature), what each offers to kernels (the
 * builtin table checks a builtin's features against it), and how the
 * runtime matches a pack's architecture against a device.
 */
#ifndef CUTEC_CONTRACT_ARCH_H
#define CUTEC_CONTRACT_ARCH_H

/* Hardware features a builtin may need. */
enum {
    CUTEC_FEAT_SM80 = 1 << 0,        /* cp.async, ldmatrix, mma.sync m16n8k16 */
    CUTEC_FEAT_WGMMA = 1 << 1,       /* wgmma.mma_async (sm_90a only) */
    CUTEC_FEAT_TMA = 1 << 2,         /* cp.async.bulk.tensor, mbarrier expect_tx */
    CUTEC_FEAT_CLUSTER = 1 << 3,     /* thread-block clusters, multicast */
    CUTEC_FEAT_SETMAXNREG = 1 << 4,  /* setmaxnreg (sm_90a only) */
    CUTEC_FEAT_SM90 = 1 << 5,        /* stmatrix, elect.sync, fence.proxy.async */
    CUTEC_FEAT_TMAP_REPLACE = 1 << 6 /* tensormap.replace (sm_90a only; PTX 8.3) */
};

typedef struct cutec_arch_info {
    const char *name;        /* "sm_90a" */
    int major, minor;        /* compute capability */
    int specific;            /* an "a" target: runs on exactly major.minor */
    const char *ptx_feature; /* LLVM's feature string, "+ptx80" */
    unsigned features;       /* CUTEC_FEAT_* */
} cutec_arch_info;

/* The names of the table's rows, for messages built at compile time
 * (arch.c checks that it matches the table). */
#define CUTEC_ARCH_NAMES "sm_90a, sm_90, sm_89, sm_86, sm_80"

/* The row named name, or NULL. */
const cutec_arch_info *cutec_arch_find(const char *name);
/* Row i (0-based) or NULL past the end: to list them. */
const cutec_arch_info *cutec_arch_at(int i);
/* "sm_90a, sm_90, sm_89, sm_86, sm_80" into buf, for messages. */
void cutec_arch_list(char *buf, unsigned long len);
/* Parses any "sm_XY" or "sm_XYa" name (also ones this cutec cannot
 * target, such as a newer compiler's): 1 and its compute capability, or 0. */
int cutec_arch_parse(const char *name, int *major, int *minor, int *specific);
/* Whether code for arch runs on a device of compute capability major.minor:
 * an sm_XYa target exactly on X.Y, an sm_XY target on X.Y or later. */
int cutec_arch_runs_on(const cutec_arch_info *arch, int major, int minor);
/* The name of one feature bit ("wgmma"). */
const char *cutec_feature_name(unsigned feature);

#endif /* CUTEC_CONTRACT_ARCH_H */
