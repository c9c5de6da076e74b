/*
 * tune_model.h - the tuner's cost model (tune_model.c): an estimate of a
 * pack kernel's time for a problem from its tile, its launch and the
 * device, used to rank the fitting points so that only a shortlist is
 * timed (CUTEC_OPT_TUNE_SHORTLIST), and to answer a first call without
 * timing (CUTEC_OPT_TUNE_MODE).  Plain data in, a number out, so that it
 * is tested without a device.  Not part of the public API.
 */
#ifndef CUTEC_RUNTIME_TUNE_MODEL_H
#define CUTEC_RUNTIME_TUNE_MODEL_H

/* What the model knows of a point (0: unknown, read as a neutral value). */
typedef struct tune_point {
    long long bm, bn;   /* the output tile (tune parameters BM, BN) */
    int stages;         /* the A/B ring's depth (STAGES) */
    int cluster;        /* blocks per cluster (1: none) */
    int cm, cn;         /* the cluster's shape in tiles along M and N (CM, CN) */
    int threads;        /* per block */
    long long smem;     /* static + dynamic shared memory per block, bytes */
    int persistent;     /* a resident() grid: blocks loop over the tiles */
    const char *params; /* the entry's "NAME=VALUE ..." description, for the priors */
} tune_point;

/* What the model knows of the device. */
typedef struct tune_device {
    int sms;               /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT (0: 132) */
    long long smem_per_sm; /* bytes (0: 228 KiB) */
    int threads_per_sm;    /* (0: 2048) */
} tune_device;

/* What the model knows of the problem. */
typedef struct tune_gemm {
    long long m, n, k;
    long long batch;       /* problems of a strided batch (0 or 1: one) */
    int a_once, b_once;    /* 1: A (B) is one matrix for every problem (a stride-0 broadcast) */
    int ab_bytes, c_bytes; /* element sizes of A and B, and of C (0: 2) */
} tune_gemm;

/* The estimated time of pt for the GEMM g, in the model's units
 * (microseconds of an H100-like device; only the order matters).  A
 * batch's tiles are one pool over the device (the persistent loop walks
 * every problem's), so a batch of many small problems favours the tiles
 * that a single one of them would leave SMs idle with. */
double tune_model_cost(const tune_point *pt, const tune_gemm *g, const tune_device *dev);

/* The order of n points by cost, cheapest first (stable: ties keep the
 * given order): order[0 .. n-1] receives their indices. */
void tune_model_rank(const double *cost, int n, int *order);

/* The shortlist of keep of n points: the cheapest point of each kernel
 * (family[i] tells kernels apart; NULL: one kernel), then, up to half of
 * it, the cheapest point of each of the cheapest tile shapes (tile[i]
 * tells shapes apart), the rest the next points by cost; order[0 ..
 * keep-1] receives the shortlist, by cost,
 * then the others, by cost; rank[i] is point i's place by cost alone.
 * (The model ranks tile shapes better than the variants of one tile, which
 * the timing decides between: sixteen variants of one tile must not crowd
 * the other shapes out.) */
/* Microseconds to move `bytes` through DRAM (the model's bandwidth). */
double tune_model_copy_us(double bytes);

void tune_model_shortlist(const double *cost, const long long *tile, const long long *family, int n, int keep,
                          int *order, int *rank);

#endif /* CUTEC_RUNTIME_TUNE_MODEL_H */
