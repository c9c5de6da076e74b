"""scaled_mm: the fp8 GEMM with scales, as torch._scaled_mm calls it, on
the runtime's fp8 problems (docs/runtime.md, "fp8 and scales"):

    D = out(scale_result * ((A * scale_a) @ (B * scale_b) + bias))

A (M x K) and B (K x N) are float8 (e4m3fn or e5m2) and K-major: A
row-major, B column-major (the .t() of an N x K weight), which is all the
fp8 MMA reads.  The scales' shapes say the mode (a row of SCALE_MODES):
one each (per tensor), M x 1 and 1 x N (row-wise), or M x ceil(K/128) and
ceil(K/128) x ceil(N/128) (block-wise: 1 x 128 blocks of A, 128 x 128
blocks of B).  An fp8 output takes scale_result (else 1) and gives the
largest |value| before the output's scaling (amax=True returns it).
"""
from typing import List, Optional

import torch

from .. import capi
from .ops import _count_op_call, _direct, _ptr, _where
from .plan import DTYPES, Plan, _finish, _plans, _shape, fail, remember

FP8 = (torch.float8_e4m3fn, torch.float8_e5m2)
OUT_DTYPES = (torch.bfloat16, torch.float16, torch.float32) + FP8
# the bias's dtypes by the output's (torch._scaled_mm's rule; cutec also
# takes a float32 bias with a float32 output)
BIAS_DTYPES = {torch.bfloat16: (torch.bfloat16,), torch.float16: (torch.float16,), torch.float32: (torch.float32,),
               **{t: (torch.bfloat16, torch.float16) for t in FP8}}
BLOCK = 128  # the block-wise scales' block (1 x 128 of A, 128 x 128 of B)


def _k_blocks(k):
    return -(-k // BLOCK)


def _strides_are(t, want):
    """Whether t's elements sit at the given strides (an extent of 1 has no stride that matters)."""
    return all(size == 1 or st == w for size, st, w in zip(t.shape, t.stride(), want))


def _outer_major(t):
    return t.t().contiguous().t()


# The scale modes, in the order their shapes are tried (torch._scaled_mm's):
# (name, cutec_scale_mode, the shapes of scale_a and scale_b for M, N, K or
# None for "one element each", the strides the runtime reads them at, the
# copy that gives those strides).
SCALE_MODES = (
    ("per tensor", capi.SCALE_TENSOR, None, None, None),
    ("row-wise", capi.SCALE_ROW, lambda m, n, k: ((m, 1), (1, n)),
     lambda m, n, k: ((1, 1), (1, 1)), torch.Tensor.contiguous),
    ("block-wise", capi.SCALE_BLOCK, lambda m, n, k: ((m, _k_blocks(k)), (_k_blocks(k), _k_blocks(n))),
     lambda m, n, k: ((1, m), (1, _k_blocks(k))), _outer_major),
)


def _scale_mode(op, m, n, k, scale_a, scale_b):
    """The row of SCALE_MODES the scales' shapes name; CutecError for any other."""
    for row in SCALE_MODES:
        shapes = row[2]
        if shapes is None:
            if scale_a.numel() == 1 and scale_b.numel() == 1:
                return row
        elif (tuple(scale_a.shape), tuple(scale_b.shape)) == shapes(m, n, k):
            return row
    fail("CUTEC_ERR_BAD_SIZE", op, f"scale_a of shape {_shape(scale_a)} and scale_b of shape {_shape(scale_b)} name no "
         f"scale mode: per tensor, one element each; row-wise, {m}x1 and 1x{n}; block-wise, {m}x{_k_blocks(k)} and "
         f"{_k_blocks(k)}x{_k_blocks(n)}")


def _k_major_ld(rows, cols, strides, k_dim):
    """The leading dimension of a matrix whose K (dimension k_dim) is contiguous, or None."""
    other = 1 - k_dim
    extent = (rows, cols)
    k, outer = extent[k_dim], extent[other]
    if strides[k_dim] != 1 and k != 1:
        return None
    if outer == 1:
        return k
    return strides[other] if strides[other] >= k else None


def plan_scaled(op, a, b, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None, amax=False):
    """The plan of an fp8 GEMM with scales (torch._scaled_mm's arguments);
    CutecError for what can be checked here: ranks, shapes, dtypes, the
    layouts fp8 cannot read, the scales' shapes and dtypes."""
    if a.dim() != 2 or b.dim() != 2:
        fail("CUTEC_ERR_BAD_SIZE", op, f"A and B must be 2-D (M x K and K x N), got {_shape(a)} and {_shape(b)}")
    (m, k), (kb, n) = a.shape, b.shape
    if k != kb:
        fail("CUTEC_ERR_BAD_SIZE", op, f"A is {m}x{k} and B is {kb}x{n}: K differs")
    if a.dtype not in FP8 or b.dtype not in FP8:
        fail("CUTEC_ERR_INVALID_ARGUMENT", op,
             f"A and B must be float8 (float8_e4m3fn or float8_e5m2), got {a.dtype} and {b.dtype}")
    out_dtype = a.dtype if out_dtype is None else out_dtype
    if out_dtype not in OUT_DTYPES:
        fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"out_dtype must be one of {', '.join(map(str, OUT_DTYPES))}, got "
             f"{out_dtype}")
    if k == 0:
        fail("CUTEC_ERR_BAD_SIZE", op, "K = 0: cutec needs K >= 1")
    lda, ldb = _k_major_ld(m, k, a.stride(), 1), _k_major_ld(k, n, b.stride(), 0)
    if lda is None or ldb is None:
        what, t = ("A", a) if lda is None else ("B", b)
        fail("CUTEC_ERR_UNSUPPORTED", op, "fp8 operands must be K-major, A row-major (M x K, K contiguous) and B "
             "column-major (K x N, K contiguous: the .t() of an N x K tensor); "
             f"{what} of shape {_shape(t)} has strides {tuple(t.stride())}: copy it first (A.contiguous(), "
             "B.t().contiguous().t())")
    for name, t in (("scale_a", scale_a), ("scale_b", scale_b)):
        if t.dtype != torch.float32:
            fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"{name} must be float32, got {t.dtype}")
    _, mode, _, strides, _ = _scale_mode(op, m, n, k, scale_a, scale_b)
    copy = []
    if strides is not None:
        for name, t, want in zip(("scale_a", "scale_b"), (scale_a, scale_b), strides(m, n, k)):
            if not _strides_are(t, want):
                copy.append(name)
    fp8_out = out_dtype in FP8
    if bias is not None:
        if bias.dim() != 1 or bias.shape[0] != n:
            fail("CUTEC_ERR_BAD_SIZE", op, f"bias must be 1-D of {n} elements, got shape {_shape(bias)}")
        if bias.dtype not in BIAS_DTYPES[out_dtype]:
            fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"bias must be {' or '.join(map(str, BIAS_DTYPES[out_dtype]))} for "
                 f"a {out_dtype} output, got {bias.dtype}")
        if bias.stride(0) != 1 and n != 1:
            copy.append("bias")
    if scale_result is not None:
        if not fp8_out:
            fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"scale_result scales an fp8 output, and the output is {out_dtype}")
        if scale_result.dtype != torch.float32 or scale_result.numel() != 1:
            fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"scale_result must be one float32, got {scale_result.dtype} of "
                 f"shape {_shape(scale_result)}")
    if amax and not fp8_out:
        fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"amax comes with an fp8 output, and the output is {out_dtype}")
    p = Plan()
    p.m, p.n, p.n_out, p.out_dtype, p.aux, p.use_c, p.cast = m, n, n, out_dtype, bool(amax), False, frozenset()
    p.copy, p.fp8_out = frozenset(copy), fp8_out
    p.scale_copy = next(row[4] for row in SCALE_MODES if row[1] == mode)
    ab, out = DTYPES[a.dtype], DTYPES[out_dtype]
    p.fields = dict(
        m=m, n=n, k=k, a_type=ab, b_type=DTYPES[b.dtype], c_type=out, a_layout=capi.LAYOUT_ROW,
        b_layout=capi.LAYOUT_COL, c_layout=capi.LAYOUT_ROW, lda=lda, ldb=ldb, ldc=n, alpha=1.0, beta=0.0,
        bias=int(bias is not None), bias_type=DTYPES[bias.dtype] if bias is not None else 0, scale_mode=mode)
    _finish(p)
    return p


def _meta(t):
    return None if t is None else (t.shape, t.stride(), t.dtype)


def _run_scaled(op, a, b, scale_a, scale_b, bias, scale_result, out_dtype, amax):
    """[D] or [D, amax], computed by cutec (scale_result 1 where an fp8
    output has none)."""
    dg, stream, capturing = _where(op, a, (("B", b), ("scale_a", scale_a), ("scale_b", scale_b), ("bias", bias),
                                           ("scale_result", scale_result)))
    sig = (op, a.shape, a.stride(), a.dtype, b.shape, b.stride(), b.dtype, _meta(scale_a), _meta(scale_b),
           _meta(bias), _meta(scale_result), out_dtype, amax)
    plan = _plans.get(sig)
    if plan is None:
        plan = remember(sig, plan_scaled, op, a, b, scale_a, scale_b, bias, scale_result, out_dtype, amax)
    if plan.copy:
        cp = plan.copy
        scale_a = plan.scale_copy(scale_a) if "scale_a" in cp else scale_a
        scale_b = plan.scale_copy(scale_b) if "scale_b" in cp else scale_b
        bias = bias.contiguous() if "bias" in cp else bias
    d = a.new_empty(*plan.out_shape, dtype=plan.out_dtype)  # sizes as arguments: faster to parse than a tuple
    mx = sd = None
    if plan.fp8_out:  # the runtime combines amax with what it holds: zero it
        mx = a.new_zeros((), dtype=torch.float32)
        sd = scale_result if scale_result is not None else a.new_ones((), dtype=torch.float32)
    if plan.m and plan.n:
        dg.run(plan, (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, _ptr(bias), 0, 0), stream, capturing,
               scales=(scale_a.data_ptr(), scale_b.data_ptr(), _ptr(sd), _ptr(mx)))
    return [d, mx] if amax else [d]


@torch.library.custom_op("cutec::scaled_mm", mutates_args=())
def _scaled_mm(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
               bias: Optional[torch.Tensor], scale_result: Optional[torch.Tensor], out_dtype: Optional[torch.dtype],
               amax: bool) -> List[torch.Tensor]:
    _count_op_call()
    return _run_scaled("cutec.torch.scaled_mm", a, b, scale_a, scale_b, bias, scale_result, out_dtype, amax)


@_scaled_mm.register_fake
def _scaled_mm_fake(a, b, scale_a, scale_b, bias, scale_result, out_dtype, amax):
    plan = plan_scaled("cutec.torch.scaled_mm", a, b, scale_a, scale_b, bias, scale_result, out_dtype, amax)
    d = a.new_empty((plan.m, plan.n), dtype=plan.out_dtype)
    return [d, a.new_empty((), dtype=torch.float32)] if amax else [d]


def scaled_mm(a, b, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None, use_fast_accum=False, *,
              amax=False):
    """torch._scaled_mm(a, b, scale_a, scale_b, bias, scale_result,
    out_dtype, use_fast_accum) on cutec's fp8 kernels: a (M x K, row-major)
    and b (K x N, column-major) float8_e4m3fn or float8_e5m2; scale_a and
    scale_b float32, per tensor (one element each), row-wise (M x 1, 1 x N)
    or block-wise (M x ceil(K/128) and ceil(K/128) x ceil(N/128)); bias of
    N elements; out_dtype bfloat16, float16, float32 or an fp8 type (None:
    a's), an fp8 output scaled by scale_result (one float32; None: 1).
    Returns D, or (D, amax) with amax=True (an fp8 output's largest |value|
    before scale_result, a float32 scalar tensor).  use_fast_accum is
    accepted for torch's signature and has no effect: the tuned kernel
    decides how it accumulates (the tuner checks its results)."""
    out = _run_scaled("cutec.torch.scaled_mm", a, b, scale_a, scale_b, bias, scale_result, out_dtype, bool(amax)) \
        if _direct(a, b, scale_a, scale_b, bias, scale_result) else \
        _scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype, bool(amax))
    return (out[0], out[1]) if amax else out[0]
