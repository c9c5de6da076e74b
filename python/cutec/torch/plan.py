"""A GEMM call planned from its operands' metadata: the problem's fields read
off shapes, strides and dtypes (no device memory touched, so it also runs
on fake and meta tensors), and which operands must be copied: only those
that are neither row- nor column-major with a leading dimension.

    D[M, N'] = act(alpha * A[M, K] @ B[K, N] + beta * C[M, N] + bias[N] + bias_row[M])
    D[l] = A[l] @ B[l]  for l < L, a strided batch (plan_bmm)
    D[e(g-1):e(g)] = A[e(g-1):e(g)] @ B[g]  for g < G, grouped (plan_grouped; e: offs)

N' is N, or N / 2 for a gated activation (B's columns are the gates and
ups interleaved in blocks of 8: cutec.torch.gated).
"""
import ctypes
import math

import torch

from .. import capi
from ..errors import CutecError

# torch dtype -> cutec_dtype (contract/dtype.h's rows as cutec/gemm.h numbers them)
DTYPES = {torch.bfloat16: capi.DTYPE_BF16, torch.float16: capi.DTYPE_F16, torch.float32: capi.DTYPE_F32,
          torch.float8_e4m3fn: capi.DTYPE_E4M3, torch.float8_e5m2: capi.DTYPE_E5M2}
AB_DTYPES = (torch.bfloat16, torch.float16)


def matrix_layout(rows, cols, strides):
    """(layout, ld) of a rows x cols matrix whose elements are strides
    (s_row, s_col) apart: LAYOUT_ROW puts (r, c) at r * ld + c, LAYOUT_COL
    at c * ld + r.  None when it is neither (a copy is needed): a stride of
    0 (broadcast), negative or both strides other than 1.  A dimension of
    extent 1 has no stride that matters."""
    s_row, s_col = strides
    if (s_col == 1 or cols == 1) and (rows == 1 or s_row >= max(cols, 1)):
        return capi.LAYOUT_ROW, (s_row if rows > 1 else cols)
    if (s_row == 1 or rows == 1) and (cols == 1 or s_col >= max(rows, 1)):
        return capi.LAYOUT_COL, (s_col if cols > 1 else rows)
    return None


def fail(status, op, message):
    raise CutecError(status, f"{op}: {message}")


def _shape(t):
    return "x".join(str(d) for d in t.shape) if t.dim() else "scalar"


class Plan:
    """What a call needs besides its pointers: key (every field of the
    problem, the key of its cached cutec_gemm_problem), fields (the same by
    name), the output's shape and dtype, whether aux is written, copy (the
    operands to copy: "A", "B", "C", "bias", "bias_row"), use_c (False when
    beta = 0 drops C) and cast (the biases to convert to the output's
    dtype: float32 ones)."""

    __slots__ = ("key", "fields", "m", "n", "n_out", "out_dtype", "aux", "copy", "use_c", "cast", "_ref", "_struct",
                 "_at", "ready", "batch", "bcast", "groups", "prep", "out_shape", "fp8_out", "scale_copy",
                 "flat_copy", "fast")

    def __init__(self):
        self._ref = self._struct = None
        self._at = 0
        self.ready = set()  # (handle, alignments) this plan's class has run on outside a capture
        self.batch, self.bcast, self.groups = 0, frozenset(), 0
        self.fp8_out, self.scale_copy = False, None  # an fp8 output; how scales are copied (cutec.torch.scaled)
        self.flat_copy = False  # linear: x's rows are a copy (reshape cannot view them as a matrix)
        self.fast = {}  # handle -> cutec._fast's generation when this plan's call was handed to it (ops._hand_over)

    def problem(self):
        return capi.GemmProblem(**self.fields)

    def problem_ref(self):
        """A pointer to this plan's cutec_gemm_problem (made once)."""
        if self._ref is None:
            self._struct = self.problem()
            self._ref = ctypes.byref(self._struct)
        return self._ref

    def problem_at(self):
        """The address of this plan's cutec_gemm_problem (made once, kept by the plan)."""
        if not self._at:
            self.problem_ref()
            self._at = ctypes.addressof(self._struct)
        return self._at

    def operands(self, a, b, c=None, bias=None, bias_row=None):
        """The tensors to pass (copies where planned; None where absent)."""
        if self.bcast:  # a broadcast operand's one matrix copied, still broadcast
            a = _copy_broadcast(a) if "A" in self.bcast else a
            b = _copy_broadcast(b) if "B" in self.bcast else b
        if self.copy:
            cp = self.copy
            a = a.contiguous() if "A" in cp else a
            b = b.contiguous() if "B" in cp else b
            c = c.contiguous() if c is not None and "C" in cp else c
            bias = bias.contiguous() if "bias" in cp else bias
            bias_row = bias_row.contiguous() if "bias_row" in cp else bias_row
        if self.cast:
            bias = bias.to(self.out_dtype) if "bias" in self.cast else bias
            bias_row = bias_row.to(self.out_dtype) if "bias_row" in self.cast else bias_row
        return a, b, (c if self.use_c else None), bias, bias_row


def _finish(p):
    """The key of a plan whose fields are set, whether operands() has work,
    the output's shape."""
    p.key = tuple(p.fields.values())
    p.prep = bool(p.copy or p.cast or p.bcast)
    p.out_shape = (p.m, p.n_out)


def _copy_broadcast(t):
    return t[0].contiguous().unsqueeze(0).expand(t.shape)


def _vector(t, length, what, op, out_dtype, copy, cast):
    if t.dim() != 1 or t.shape[0] != length:
        fail("CUTEC_ERR_BAD_SIZE", op, f"{what} must be 1-D of {length} elements, got shape {_shape(t)}")
    if t.dtype not in (out_dtype, torch.float32):
        fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"{what} must have the output's dtype {out_dtype} (or float32), "
             f"got {t.dtype}")
    if t.dtype != out_dtype:
        cast.append(what)  # the kernels read biases of the output's type
    elif t.stride(0) != 1 and length != 1:
        copy.append(what)


def plan_gemm(op, a, b, c=None, bias=None, bias_row=None, alpha=1.0, beta=0.0, activation="identity", aux=False):
    """The plan of op's GEMM (op names the caller in messages); CutecError
    for what can be checked here: ranks, shapes, dtypes, the activation,
    non-finite scales, a gated N that is not a multiple of 16."""
    if a.dim() != 2 or b.dim() != 2:
        fail("CUTEC_ERR_BAD_SIZE", op, f"A and B must be 2-D (M x K and K x N), got {_shape(a)} and {_shape(b)}")
    (m, k), (kb, n) = a.shape, b.shape
    if k != kb:
        fail("CUTEC_ERR_BAD_SIZE", op, f"A is {m}x{k} and B is {kb}x{n}: K differs")
    if a.dtype not in AB_DTYPES or b.dtype != a.dtype:
        fail("CUTEC_ERR_INVALID_ARGUMENT", op,
             f"A and B must both be bfloat16 or both float16, got {a.dtype} and {b.dtype}")
    if k == 0:
        fail("CUTEC_ERR_BAD_SIZE", op, "K = 0: cutec needs K >= 1")
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not math.isfinite(ctypes.c_float(v).value):  # as the float32 the runtime gets
            fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"{name} = {v} is not a finite float32")
    act = "" if activation in ("", "identity", None) else activation
    acts = capi.activations()
    if act and act not in acts:
        fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"unknown activation '{activation}' (one of: {', '.join(acts)})")
    gated = bool(act) and acts[act]
    if gated and n % 16 != 0:
        fail("CUTEC_ERR_BAD_SIZE", op, f"N = {n}; a gated activation ({act}) needs a multiple of 16 (gates and "
             "ups interleaved in blocks of 8: cutec.torch.interleave_gate_up)")
    p = Plan()
    p.m, p.n, p.n_out, p.out_dtype, p.aux = m, n, n // 2 if gated else n, a.dtype, bool(aux)
    copy = []

    def layout(t, rows, cols, name, row_only=False):
        lay = matrix_layout(rows, cols, t.stride())
        if lay is None or (row_only and lay[0] != capi.LAYOUT_ROW):
            copy.append(name)
            lay = (capi.LAYOUT_ROW, cols)
        return lay

    a_layout, lda = layout(a, m, k, "A")
    b_layout, ldb = layout(b, k, n, "B")
    p.use_c = c is not None and beta != 0.0  # as torch.addmm: beta = 0 ignores the input
    ld_csrc = 0
    if p.use_c:
        if c.dim() != 2 or tuple(c.shape) != (m, n):
            fail("CUTEC_ERR_BAD_SIZE", op, f"C must be {m}x{n}, got shape {_shape(c)}")
        if c.dtype != a.dtype:
            fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"C must have the output's dtype {a.dtype}, got {c.dtype}")
        ld_csrc = layout(c, m, n, "C", row_only=True)[1]  # read in D's layout
    else:
        beta = 0.0
    cast = []
    if bias is not None:
        _vector(bias, n, "bias", op, a.dtype, copy, cast)
    if bias_row is not None:
        _vector(bias_row, m, "bias_row", op, a.dtype, copy, cast)
    dt = DTYPES[a.dtype]
    p.copy, p.cast = frozenset(copy), frozenset(cast)
    p.fields = dict(
        m=m, n=n, k=k, a_type=dt, b_type=dt, c_type=dt, a_layout=a_layout, b_layout=b_layout,
        c_layout=capi.LAYOUT_ROW, lda=lda, ldb=ldb, ldc=p.n_out, alpha=float(alpha), beta=float(beta),
        act=act.encode(), act_gated=int(gated), bias=int(bias is not None), bias_row=int(bias_row is not None),
        bias_type=dt if bias is not None or bias_row is not None else 0, c_source=int(p.use_c), ld_csrc=ld_csrc,
        aux=int(p.aux), ld_aux=n if p.aux else 0)
    _finish(p)
    return p


def plan_bmm(op, a, b):
    """The plan of a strided batch D[l] = A[l] @ B[l] (torch.bmm: A of
    L x M x K, B of L x K x N, D of L x M x N).  Each operand's matrices are
    read in their layout (matrix_layout of the last two strides) and its
    batch stride is its first: 0 broadcasts one matrix to every problem (an
    expanded tensor).  An operand whose matrices have no layout is copied
    (a broadcast one as one matrix, still broadcast).  A batch of one is
    planned as the single GEMM it is."""
    if a.dim() != 3 or b.dim() != 3:
        fail("CUTEC_ERR_BAD_SIZE", op, f"A and B must be 3-D (L x M x K and L x K x N), got {_shape(a)} and "
             f"{_shape(b)}")
    (la, m, k), (lb, kb, n) = a.shape, b.shape
    if la != lb:
        fail("CUTEC_ERR_BAD_SIZE", op, f"A is a batch of {la} and B of {lb}: the batch differs")
    if k != kb:
        fail("CUTEC_ERR_BAD_SIZE", op, f"A is {la}x{m}x{k} and B is {lb}x{kb}x{n}: K differs")
    if la <= 1:
        return plan_gemm(op, a[0] if la else a.new_empty((m, k)), b[0] if lb else b.new_empty((k, n)))
    p = plan_gemm(op, a[0], b[0])
    bcast, copy = [], set(p.copy)
    steps = {}
    for name, t, rows, cols in (("A", a, m, k), ("B", b, k, n)):
        step = t.stride(0)
        if step == 0 and name in copy:
            copy.discard(name)
            bcast.append(name)
        elif name in copy:
            step = rows * cols  # the copy is contiguous
        steps[name] = step
    p.batch, p.copy, p.bcast = la, frozenset(copy), frozenset(bcast)
    p.fields.update(batch=la, stride_a=steps["A"], stride_b=steps["B"], stride_c=0, stride_d=m * n)
    _finish(p)
    return p


def plan_grouped(op, a, b, offs, out_dtype=None):
    """The plan of a grouped GEMM in the mixture-of-experts form (as
    torch._grouped_mm's 2-D A and 3-D B): A of M x K, B of G x K x N (one
    matrix per group), offs G int32 cumulative row ends; group g computes
    rows offs[g-1] .. offs[g] - 1 of D (M x N, out_dtype or A's dtype) from
    the same rows of A and its B.  B is read in its matrices' layout (a
    (G, N, K) weight seen through .transpose(-2, -1) is column-major, a
    contiguous (G, K, N) row-major) with its first stride as the step
    between groups (0: one B for all); A is read row-major (the groups split
    its rows).  Other strides are copied.  The row ends stay on the device:
    nothing here reads their values."""
    if a.dim() != 2 or b.dim() != 3:
        fail("CUTEC_ERR_BAD_SIZE", op, f"A must be 2-D (M x K) and B 3-D (G x K x N), got {_shape(a)} and {_shape(b)}")
    (m, k), (g, kb, n) = a.shape, b.shape
    if k != kb:
        fail("CUTEC_ERR_BAD_SIZE", op, f"A is {m}x{k} and B is {g}x{kb}x{n}: K differs")
    if offs.dim() != 1 or offs.shape[0] != g:
        fail("CUTEC_ERR_BAD_SIZE", op, f"offs must be 1-D with one row end per group of B ({g}), got shape "
             f"{_shape(offs)}")
    if offs.dtype != torch.int32:
        fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"offs must be int32, got {offs.dtype}")
    if a.dtype not in AB_DTYPES or b.dtype != a.dtype:
        fail("CUTEC_ERR_INVALID_ARGUMENT", op,
             f"A and B must both be bfloat16 or both float16, got {a.dtype} and {b.dtype}")
    out_dtype = a.dtype if out_dtype is None else out_dtype
    if out_dtype not in (a.dtype, torch.float32):
        fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"out_dtype must be A's dtype {a.dtype} or torch.float32, got "
             f"{out_dtype}")
    if k == 0:
        fail("CUTEC_ERR_BAD_SIZE", op, "K = 0: cutec needs K >= 1")
    p = Plan()
    p.groups = g
    p.m, p.n, p.n_out, p.out_dtype, p.aux, p.use_c, p.cast = m, n, n, out_dtype, False, False, frozenset()
    copy, bcast = [], []
    lay = matrix_layout(m, k, a.stride())
    if lay is None or lay[0] != capi.LAYOUT_ROW:
        copy.append("A")
        lay = (capi.LAYOUT_ROW, k)
    lda = lay[1]
    step = b.stride(0)
    lay = matrix_layout(k, n, b.stride()[1:])
    if lay is None:
        if step == 0 and g > 1:
            bcast.append("B")  # one matrix copied, still shared by every group
        else:
            copy.append("B")
        lay = (capi.LAYOUT_ROW, n)
    b_layout, ldb = lay
    if g <= 1 or "B" in copy:  # one group's step is never used: the packed one keeps its class plain
        step = (k if b_layout == capi.LAYOUT_ROW else n) * ldb
    if offs.stride(0) != 1 and g > 1:
        copy.append("offs")
    p.copy, p.bcast = frozenset(copy), frozenset(bcast)
    ab, dt = DTYPES[a.dtype], DTYPES[out_dtype]
    p.fields = dict(
        m=m, n=n, k=k, a_type=ab, b_type=ab, c_type=dt, a_layout=capi.LAYOUT_ROW, b_layout=b_layout,
        c_layout=capi.LAYOUT_ROW, lda=lda, ldb=ldb, ldc=n, alpha=1.0, beta=0.0, groups=g, stride_b=step)
    _finish(p)
    return p


def _meta(t):
    return None if t is None else (t.shape, t.stride(), t.dtype)


_plans = {}


def remember(sig, make, *args):
    """The plan remembered under sig, else make(*args) remembered (a call on
    a hit costs a dict lookup: no closure is made)."""
    p = _plans.get(sig)
    if p is None:
        p = make(*args)
        if len(_plans) > 4096:  # a bound for programs with ever new shapes
            _plans.clear()
        _plans[sig] = p
    return p


def plan_cached(op, a, b, c=None, bias=None, bias_row=None, alpha=1.0, beta=0.0, activation="identity", aux=False):
    """plan_gemm, remembered by the operands' shapes, strides and dtypes and
    the scalars (real tensors only: symbolic sizes do not hash)."""
    sig = (op, a.shape, a.stride(), a.dtype, b.shape, b.stride(), b.dtype, _meta(c), _meta(bias), _meta(bias_row),
           alpha, beta, activation, aux)
    p = _plans.get(sig)
    return p if p is not None else remember(sig, plan_gemm, op, a, b, c, bias, bias_row, alpha, beta, activation, aux)


def plan_grouped_cached(op, a, b, offs, out_dtype=None):
    """plan_grouped, remembered by the operands' metadata."""
    sig = (op, "grouped", a.shape, a.stride(), a.dtype, b.shape, b.stride(), b.dtype, offs.shape, offs.stride(),
           offs.dtype, out_dtype)
    return remember(sig, plan_grouped, op, a, b, offs, out_dtype)


def plan_bmm_cached(op, a, b):
    """plan_bmm, remembered by the operands' metadata."""
    sig = (op, "bmm", a.shape, a.stride(), a.dtype, b.shape, b.stride(), b.dtype)
    return remember(sig, plan_bmm, op, a, b)
