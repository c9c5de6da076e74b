/*
 * gemm_stage.c - operands the pack kernels cannot read where they are.
 * TMA and the 16-byte vector loads need each row of a matrix to start on a
 * 16-byte boundary: a leading dimension of 2049 bf16 elements (4098 bytes)
 * or a pointer off a 16-byte boundary leaves every pack kernel unfit, and
 * cuBLASLt, the only candidate left, runs such shapes at a fraction of its
 * speed (90-120 TFLOP/s at 2049^3 and 4097^3 on the H100).  A staged
 * decision copies each such operand into a buffer of its own with the
 * leading dimension rounded up to 16 bytes (cuMemcpy2DAsync, a pitched
 * device-to-device copy), runs the kernel on the copies and copies a
 * staged D back: two passes over the operand at copy bandwidth, against a
 * GEMM several times faster.  The plan depends only on the problem and
 * its pointers' alignment (both in the class), so each run recomputes it.
 * Not staged: batches and grouped problems, a D that the kernel would read
 * (beta, or a C source in place), other misaligned inputs (C source, aux).
 */
#include "gemm_internal.h"

#include <string.h>

/* One staged operand: its layout in memory (rows of `width` elements,
 * `height` of them, `ld` apart) and its place in the staging buffer. */
typedef struct stage_mat {
    long long height, width, ld, ld_staged;
    size_t esize, off;
} stage_mat;

/* The three matrices' shapes as stored (A M x K, B K x N, D M x D's
 * columns), rows the contiguous runs. */
static stage_mat stage_shape(const cutec_gemm_problem *p, int i)
{
    stage_mat m = {0};
    if (i == 0) {
        int row = p->a_layout == CUTEC_LAYOUT_ROW;
        m.height = row ? p->m : p->k, m.width = row ? p->k : p->m, m.ld = p->lda;
        m.esize = cutec_dtype_size(p->a_type);
    } else if (i == 1) {
        int row = p->b_layout == CUTEC_LAYOUT_ROW;
        m.height = row ? p->k : p->n, m.width = row ? p->n : p->k, m.ld = p->ldb;
        m.esize = cutec_dtype_size(p->b_type);
    } else {
        int row = p->c_layout == CUTEC_LAYOUT_ROW;
        long long cols = cutec_gemm_d_cols(p);
        m.height = row ? p->m : cols, m.width = row ? cols : p->m, m.ld = p->ldc;
        m.esize = cutec_dtype_size(p->c_type);
    }
    long long per = 16 / (long long)m.esize; /* elements per 16 bytes */
    m.ld_staged = (m.width + per - 1) / per * per;
    return m;
}

static const void *stage_ptr(const cutec_gemm_args *io, int i) { return i == 0 ? io->A : i == 1 ? io->B : io->D; }

int cutec_gemm_stage_mask(const cutec_gemm_problem *p, const gemm_class *cls)
{
    if (p->batch > 1 || p->groups > 0) return 0;
    int mask = 0;
    for (int i = 0; i < 3; i++) {
        stage_mat m = stage_shape(p, i);
        if (m.height < 1 || m.width < 1) return 0;
        int rows_off = m.height > 1 && (m.ld * (long long)m.esize) % 16 != 0;
        if (rows_off || cls->align[i] < 16) mask |= 1 << i;
    }
    /* a D the kernel reads (beta, or C in place) would have to be staged in too */
    int reads_d = !p->c_source && (p->beta != 0.0f || p->scalars_on_device);
    if ((mask & 4) && reads_d) return 0;
    return mask;
}

/* The staging buffer's layout: each staged matrix 256-byte aligned. */
static size_t stage_layout(const cutec_gemm_problem *p, int mask, stage_mat mats[3])
{
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        mats[i] = stage_shape(p, i);
        if (!(mask & 1 << i)) continue;
        mats[i].off = at;
        at += ((size_t)mats[i].height * (size_t)mats[i].ld_staged * mats[i].esize + 255) / 256 * 256;
    }
    return at;
}

size_t cutec_gemm_stage_bytes(const cutec_gemm_problem *p, int mask)
{
    stage_mat mats[3];
    return stage_layout(p, mask, mats);
}

void cutec_gemm_stage_problem(const cutec_gemm_problem *p, int mask, cutec_gemm_problem *sp, gemm_class *scls)
{
    stage_mat mats[3];
    (void)stage_layout(p, mask, mats);
    *sp = *p;
    long long *ld[3] = {&sp->lda, &sp->ldb, &sp->ldc};
    for (int i = 0; i < 3; i++)
        if (mask & 1 << i) {
            *ld[i] = mats[i].ld_staged;
            if (scls != NULL) scls->align[i] = 16; /* the buffer is 256-byte aligned */
        }
    if (scls != NULL) scls->lda = sp->lda, scls->ldb = sp->ldb, scls->ldc = sp->ldc;
    /* one problem's step (gemm.c sets a batch of one's to its packed size) */
    long long *step[3] = {&sp->stride_a, &sp->stride_b, &sp->stride_d};
    for (int i = 0; i < 3; i++)
        if (mask & 1 << i) *step[i] = mats[i].ld_staged * mats[i].height;
}

/* One pitched copy of a matrix between the caller's memory and the buffer. */
static cutec_status copy2d(cutec_runtime *rt, const stage_mat *m, CUdeviceptr src, long long src_ld, CUdeviceptr dst,
                           long long dst_ld, void *stream)
{
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = src, c.dstDevice = dst;
    c.srcPitch = (size_t)src_ld * m->esize, c.dstPitch = (size_t)dst_ld * m->esize;
    c.WidthInBytes = (size_t)m->width * m->esize;
    c.Height = (size_t)m->height;
    CUresult r = rt->drv.memcpy_2d_async(&c, (CUstream)stream);
    if (r != CUDA_SUCCESS)
        return cutec_rt_fail_driver(rt, r, CUTEC_RT_PHASE_GENERIC, "cuMemcpy2DAsync (a staged operand, %lld x %lld)",
                                    m->height, m->width);
    return CUTEC_OK;
}

cutec_status cutec_gemm_stage_run(cutec_gemm_handle *g, gemm_decision *d, const cutec_gemm_problem *p,
                                  const cutec_gemm_args *io, void *stream)
{
    cutec_runtime *rt = g->rt;
    if (rt->drv.memcpy_2d_async == NULL)
        return cutec_rt_fail(rt, CUTEC_ERR_NO_DRIVER,
                             "%s: staged operands need cuMemcpy2DAsync_v2, which the driver lacks", d->name);
    stage_mat mats[3];
    size_t bytes = stage_layout(p, d->stage_mask, mats);
    if (d->stage == 0) { /* a decision made without one (a candidate run by name): its own, kept */
        if (rt->drv.mem_alloc(&d->stage, bytes) != CUDA_SUCCESS) {
            d->stage = 0;
            return cutec_rt_fail(rt, CUTEC_ERR_OUT_OF_MEMORY, "%s: no device memory for %zu bytes of staged operands",
                                 d->name, bytes);
        }
        d->stage_owned = 1;
    }
    cutec_gemm_problem sp;
    cutec_gemm_stage_problem(p, d->stage_mask, &sp, NULL);
    cutec_gemm_args sio = *io;
    cutec_status s = CUTEC_OK;
    for (int i = 0; i < 2 && s == CUTEC_OK; i++) {
        if (!(d->stage_mask & 1 << i)) continue;
        CUdeviceptr at = d->stage + mats[i].off;
        s = copy2d(rt, &mats[i], (CUdeviceptr)(uintptr_t)stage_ptr(io, i), mats[i].ld, at, mats[i].ld_staged, stream);
        if (i == 0) sio.A = (const void *)(uintptr_t)at;
        if (i == 1) sio.B = (const void *)(uintptr_t)at;
    }
    if (s != CUTEC_OK) return s;
    if (d->stage_mask & 4) {
        sio.D = (void *)(uintptr_t)(d->stage + mats[2].off);
        if (!p->c_source) sio.C = sio.D;
    }
    s = cutec_gemm_dsl_launch(rt, d, &sp, &sio, g->workspace, stream);
    if (s == CUTEC_OK && (d->stage_mask & 4))
        s = copy2d(rt, &mats[2], d->stage + mats[2].off, mats[2].ld_staged, (CUdeviceptr)(uintptr_t)io->D, mats[2].ld,
                   stream);
    return s;
}
