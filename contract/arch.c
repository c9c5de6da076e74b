/* arch.c - the architecture table (arch.h).  Adding a target is one row. */
#include "arch.h"

#include <stdio.h>
#include <string.h>

#define SM80_FEATS CUTEC_FEAT_SM80
#define SM90_FEATS (SM80_FEATS | CUTEC_FEAT_TMA | CUTEC_FEAT_CLUSTER | CUTEC_FEAT_SM90)

static const cutec_arch_info archs[] = {
    {"sm_90a", 9, 0, 1, "+ptx80", SM90_FEATS | CUTEC_FEAT_WGMMA | CUTEC_FEAT_SETMAXNREG | CUTEC_FEAT_TMAP_REPLACE},
    {"sm_90", 9, 0, 0, "+ptx80", SM90_FEATS},
    {"sm_89", 8, 9, 0, "+ptx80", SM80_FEATS},
    {"sm_86", 8, 6, 0, "+ptx80", SM80_FEATS},
    {"sm_80", 8, 0, 0, "+ptx80", SM80_FEATS},
};
#define NARCHS (int)(sizeof archs / sizeof archs[0])

const cutec_arch_info *cutec_arch_find(const char *name)
{
    for (int i = 0; name != NULL && i < NARCHS; i++)
        if (strcmp(archs[i].name, name) == 0) return &archs[i];
    return NULL;
}

const cutec_arch_info *cutec_arch_at(int i) { return i >= 0 && i < NARCHS ? &archs[i] : NULL; }

/* CUTEC_ARCH_NAMES is what cutec_arch_list writes (tests/contract checks it) */
void cutec_arch_list(char *buf, unsigned long len)
{
    size_t n = 0;
    if (len > 0) buf[0] = '\0';
    for (int i = 0; i < NARCHS && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", archs[i].name);
}

int cutec_arch_parse(const char *name, int *major, int *minor, int *specific)
{
    unsigned v = 0;
    int n = 0;
    if (strncmp(name, "sm_", 3) != 0 || sscanf(name + 3, "%u%n", &v, &n) != 1 || v < 10 || v > 999) return 0;
    const char *rest = name + 3 + n;
    if (strcmp(rest, "") != 0 && strcmp(rest, "a") != 0) return 0;
    *major = (int)(v / 10);
    *minor = (int)(v % 10);
    *specific = rest[0] == 'a';
    return 1;
}

int cutec_arch_runs_on(const cutec_arch_info *arch, int major, int minor)
{
    if (arch->specific) return major == arch->major && minor == arch->minor;
    return major * 10 + minor >= arch->major * 10 + arch->minor;
}

const char *cutec_feature_name(unsigned feature)
{
    switch (feature) {
    case CUTEC_FEAT_SM80: return "cp.async, ldmatrix and mma.sync (sm_80)";
    case CUTEC_FEAT_WGMMA: return "wgmma (sm_90a)";
    case CUTEC_FEAT_TMA: return "TMA (sm_90)";
    case CUTEC_FEAT_CLUSTER: return "clusters (sm_90)";
    case CUTEC_FEAT_SETMAXNREG: return "setmaxnreg (sm_90a)";
    case CUTEC_FEAT_SM90: return "sm_90 instructions";
    case CUTEC_FEAT_TMAP_REPLACE: return "tensormap.replace (sm_90a)";
    default: return "?";
    }
}
