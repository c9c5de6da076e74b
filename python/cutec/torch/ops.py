"""The ops, registered with torch.library.custom_op (namespace `cutec`) with
fake implementations, so that torch.compile traces through them and
torch.export keeps them:

    cutec::mm(a, b)                                  a @ b
    cutec::addmm(input, a, b, beta, alpha)           beta * input + alpha * (a @ b)
    cutec::linear(x, weight, bias, activation)       act(x @ weight.T + bias)
    cutec::gemm(a, b, c, bias, bias_row, alpha, beta, activation, aux)
                                                     the whole epilogue: [D] or [D, aux]
    cutec::bmm(a, b)                                 a[l] @ b[l] for each l (torch.bmm)
    cutec::grouped_mm(a, b, offs, out_dtype)         rows offs[g-1]:offs[g] of a @ b[g] for each g
                                                     (torch._grouped_mm's 2-D a, 3-D b)

matmul (a @ b of 2-D and 3-D operands) is no op of its own: it calls mm or
bmm (a 2-D operand broadcast to the batch, or flattened into one GEMM).

Each builds the same GEMM description (cutec.torch.plan) and runs it on
PyTorch's current stream through the device's handle (cutec.torch.device).

The Python functions below call the registered ops, except in plain eager
code (no tracing, no dispatch mode or functorch transform, no input that
needs a gradient, plain tensors or parameters), where they call the
implementation directly: the dispatcher's way into a Python op costs more
host time than the GEMM call itself (python/bench/overhead.py measures
both).  DIRECT = False always goes through the dispatcher.  Where the C
module cutec._fast is built, mm and linear ask it first: it makes the
cached eager calls the direct path has handed it (_hand_over) and returns
None for everything else (docs/python.md, "Host overhead").
"""
import ctypes
from typing import List, Optional

import torch

from .. import capi
from .device import _devices, device_gemm
from .device import fast as _fast
from .plan import (_plans, fail, plan_bmm, plan_bmm_cached, plan_cached, plan_gemm, plan_grouped, plan_grouped_cached,
                   remember)

DIRECT = True

# The handle CPU tensors go to in tests that run the runtime over a mock
# driver whose device memory is host memory (python/tests/test_mock.py);
# None: CPU tensors are refused.
_host_gemm_for_tests = None

# Calls that went through the registered ops' implementations (not the
# direct path): the tests read it to tell which path a call took.  Counted
# there only, so the direct path pays nothing for it.
op_calls = 0

_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_is_compiling = torch.compiler.is_compiling
_dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", lambda: 1)
_functorch_active = getattr(torch._C, "_are_functorch_transforms_active", lambda: True)
_grad_enabled = torch.is_grad_enabled
_PLAIN = (torch.Tensor, torch.nn.Parameter)


# cutec._fast (python/cutec/_fast.c), where it was built: the cached eager
# call of mm and linear in C, handed each call once the Python path below
# has made it (_hand_over); None where it is absent or turned off.
_fast_mm = _fast.mm if _fast is not None else None
_fast_linear = _fast.linear if _fast is not None else None
_fast_ready = False


def _fast_slow(dg, plan, a, b, d, bias, stream):
    """cutec._fast's way back for a call it does not make itself (an output
    pointer off 16 bytes, which PyTorch's allocators never give)."""
    dg.run(plan, (a, b, d, 0, bias, 0, 0), stream, None)


def _fast_fail(dg, status):
    """cutec._fast's failed call, raised as DeviceGemm.run raises it."""
    capi.check(status, dg._rt)


def _hand_over(code, a, b, bias, act, dg, plan):
    """After a call the Python path made (its plan copies nothing): the C
    module makes the next ones with the same metadata on this handle, once
    the plan's class has run here outside a capture with aligned operands
    (the calls the capture rule lets through without asking)."""
    global _fast_ready
    if (dg, None) not in plan.ready:
        return
    if not _fast_ready:  # here, not at import: the runtime library is loaded by now
        f = capi.GemmArgs
        _fast.setup(torch.Tensor, torch.nn.Parameter, _dispatch_modes, _functorch_active, _grad_enabled,
                    _raw_stream if _raw_stream is not None else _stream, _devices, globals(), _fast_slow, _fast_fail,
                    ctypes.cast(capi.load().cutec_gemm_ex, ctypes.c_void_p).value, ctypes.sizeof(f), f.A.offset,
                    f.B.offset, f.D.offset, f.bias.offset)
        _fast_ready = True
    if _fast.remember(code, a, b, bias, act, dg, plan, dg._lock, plan.out_shape, dg._hv, plan.problem_at()):
        plan.fast[dg] = _fast.generation()


def _direct(a, b, *more):
    """Whether an eager call may skip the dispatcher (see the module's doc):
    a and b are tensors, more tensors or None."""
    if not DIRECT or _is_compiling() or _dispatch_modes() or _functorch_active():
        return False
    if not a.is_cuda and (_host_gemm_for_tests is None or a.device.type != "cpu"):
        return False  # meta tensors get the fake implementation, other devices the op's error
    if type(a) not in _PLAIN or type(b) not in _PLAIN:
        return False
    if _grad_enabled():
        if a.requires_grad or b.requires_grad:
            return False
        for t in more:
            if t is not None and (type(t) not in _PLAIN or t.requires_grad):
                return False
        return True
    for t in more:
        if t is not None and type(t) not in _PLAIN:
            return False
    return True


def _stream(index):
    if _raw_stream is not None:
        return _raw_stream(index)
    return torch.cuda.current_stream(index).cuda_stream


def _ptr(t):
    return 0 if t is None else t.data_ptr()


def _where(op, a, others):
    """(handle, stream, capturing) of the operands' device (capturing None:
    DeviceGemm.run asks when it needs to); others: (name, tensor or None)
    pairs.  CutecError where they are on several devices or not on a CUDA
    device."""
    if a.is_cuda:  # the usual case, told by integers (a torch.device is an object made per read)
        index = a.get_device()
        for name, t in others:
            if t is not None and (not t.is_cuda or t.get_device() != index):
                fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"{name} is on {t.device} and A on {a.device}: the operands "
                     "must be on one CUDA device")
        dg = _devices.get(index)
        return (dg if dg is not None else device_gemm(index)), _stream(index), None
    dev = a.device
    for name, t in others:
        if t is not None and t.device != dev:
            fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"{name} is on {t.device} and A on {dev}: the operands must be on "
                 "one CUDA device")
    if dev.type == "cpu" and _host_gemm_for_tests is not None:
        return _host_gemm_for_tests, 0, False
    fail("CUTEC_ERR_INVALID_ARGUMENT", op, f"A is on {dev}: cutec runs on CUDA tensors")


def _run(op, a, b, c=None, bias=None, bias_row=None, alpha=1.0, beta=0.0, activation="identity", aux=False):
    """(D, aux or None), computed by cutec."""
    dg, stream, capturing = _where(op, a, (("B", b), ("C", c), ("bias", bias), ("bias_row", bias_row)))
    plan = plan_cached(op, a, b, c, bias, bias_row, alpha, beta, activation, aux)
    if plan.prep or c is not None:
        a, b, c, bias, bias_row = plan.operands(a, b, c, bias, bias_row)
    d = a.new_empty(*plan.out_shape, dtype=plan.out_dtype)  # sizes as arguments: faster to parse than a tuple
    x = a.new_empty(plan.m, plan.n, dtype=plan.out_dtype) if plan.aux else None
    if plan.m and plan.n:  # an empty product is complete as it is
        dg.run(plan, (a.data_ptr(), b.data_ptr(), d.data_ptr(), _ptr(c), _ptr(bias), _ptr(bias_row), _ptr(x)),
               stream, capturing)
    return d, x


def _run_mm(op, a, b):
    """a @ b: _run without an epilogue, on the shortest path (one metadata
    read each, the device told by integers)."""
    if a.is_cuda:
        index = a.get_device()
        if not b.is_cuda or b.get_device() != index:
            _where(op, a, (("B", b),))  # raises
        dg = _devices.get(index)
        if dg is None:
            dg = device_gemm(index)
        stream, capturing = _stream(index), None
    else:
        dg, stream, capturing = _where(op, a, (("B", b),))
    sig = (op, a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype)
    plan = _plans.get(sig)
    if plan is None:
        plan = remember(sig, plan_gemm, op, a, b)
    if plan.prep:
        a, b = plan.operands(a, b)[:2]
    d = a.new_empty(*plan.out_shape)  # a's dtype; sizes as arguments parse faster than a tuple
    if plan.m and plan.n:
        dg.run(plan, (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, 0, 0, 0), stream, capturing)
        if _fast is not None and not plan.prep and plan.fast.get(dg) != _fast.generation():
            _hand_over(1, a, b, None, None, dg, plan)
    return d


def _linear_plan(op, x, weight, bias, activation):
    a, b = _linear_operands(op, x, weight)
    plan = plan_gemm(op, a, b, bias=bias, activation=activation)
    plan.out_shape = (*x.shape[:-1], plan.n_out)  # written in x's leading shape: no view of the output to make
    plan.flat_copy = x.dim() != 2 and a.data_ptr() != x.data_ptr()  # else x's pointer is the matrix's
    return plan


def _run_linear(op, x, weight, bias, activation):
    """act(x @ weight.T + bias): _run keyed by x and weight as given (the
    flattened x and weight.t() are made only where a copy or a miss needs
    them: their pointers are x's and weight's)."""
    dg, stream, capturing = _where(op, x, (("B", weight), ("bias", bias)))
    sig = (op, x.shape, x.stride(), weight.shape, weight.stride(), x.dtype, weight.dtype,
           None if bias is None else (bias.shape, bias.stride(), bias.dtype), activation)
    plan = _plans.get(sig)
    if plan is None:
        plan = remember(sig, _linear_plan, op, x, weight, bias, activation)
    a, b = x, weight
    if plan.prep or plan.flat_copy:
        a = x if x.dim() == 2 else x.reshape(-1, x.shape[-1])
        if plan.prep:
            a, b, _, bias, _ = plan.operands(a, weight.t(), None, bias)
    d = x.new_empty(*plan.out_shape)  # x's dtype; sizes as arguments parse faster than a tuple
    if plan.m and plan.n:
        dg.run(plan, (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, _ptr(bias), 0, 0), stream, capturing)
        if _fast is not None and not (plan.prep or plan.flat_copy) and plan.fast.get(dg) != _fast.generation():
            _hand_over(2, x, weight, bias, activation, dg, plan)
    return d


def _run_bmm(op, a, b):
    """D[l] = A[l] @ B[l], computed by cutec as one strided-batched GEMM."""
    dg, stream, capturing = _where(op, a, (("B", b),))
    plan = plan_bmm_cached(op, a, b)
    a, b = plan.operands(a, b)[:2]
    d = a.new_empty(a.shape[0], plan.m, plan.n, dtype=plan.out_dtype)
    if d.numel():  # an empty batch or product is complete as it is
        dg.run(plan, (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, 0, 0, 0), stream, capturing)
    return d


def _run_grouped(op, a, b, offs, out_dtype):
    """D[offs[g-1]:offs[g]] = A[offs[g-1]:offs[g]] @ B[g], computed by cutec
    as one grouped GEMM; rows past offs[-1] are left as torch.empty made
    them (uninitialised)."""
    dg, stream, capturing = _where(op, a, (("B", b), ("offs", offs)))
    plan = plan_grouped_cached(op, a, b, offs, out_dtype)
    a, b = plan.operands(a, b)[:2]
    if "offs" in plan.copy:
        offs = offs.contiguous()
    d = a.new_empty(plan.m, plan.n, dtype=plan.out_dtype)
    if d.numel() and plan.groups:  # no rows, columns or groups: nothing to compute
        dg.run(plan, (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, 0, 0, 0), stream, capturing, offs.data_ptr())
    return d


def _count_op_call():
    global op_calls
    op_calls += 1


def _fake(op, a, b, c=None, bias=None, bias_row=None, alpha=1.0, beta=0.0, activation="identity", aux=False):
    """The outputs' metadata, after the same checks as _run's."""
    plan = plan_gemm(op, a, b, c, bias, bias_row, alpha, beta, activation, aux)
    d = a.new_empty((plan.m, plan.n_out), dtype=plan.out_dtype)
    return d, (a.new_empty((plan.m, plan.n), dtype=plan.out_dtype) if plan.aux else None)


def _addmm_operands(op, inp, a, b, beta):
    """torch.addmm's input as the GEMM's epilogue: (c, bias, bias_row, beta).
    A vector over N is a bias and a column over M a bias per row (scaled by
    beta where beta is not 1); an M x N input is C; anything else that
    broadcasts to M x N is expanded and copied as C."""
    m, n = a.shape[0], b.shape[1]
    if beta == 0.0:
        return None, None, None, 0.0
    scale = (lambda t: t) if beta == 1.0 else (lambda t: t * beta)
    shape = tuple(inp.shape)
    if shape in ((n,), (1, n)):
        return None, scale(inp if len(shape) == 1 else inp.reshape(n)), None, 0.0
    if inp.dim() == 2 and shape == (m, n):
        return inp, None, None, beta
    if shape == (m, 1):
        return None, None, scale(inp.reshape(m)), 0.0
    try:
        return inp.expand(m, n), None, None, beta
    except RuntimeError:
        fail("CUTEC_ERR_BAD_SIZE", op, f"input of shape {list(shape)} does not broadcast to {m}x{n}")


def _linear_operands(op, x, weight):
    if x.dim() < 1 or weight.dim() != 2:
        fail("CUTEC_ERR_BAD_SIZE", op, f"x must have at least 1 dimension and weight 2, got {list(x.shape)} and "
             f"{list(weight.shape)}")
    if x.shape[-1] != weight.shape[1]:
        fail("CUTEC_ERR_BAD_SIZE", op, f"x has {x.shape[-1]} features and weight is {weight.shape[0]}x"
             f"{weight.shape[1]} (out x in)")
    return x.reshape(-1, x.shape[-1]), weight.t()  # weight [N, K] is B (K x N) column-major


def _mm_impl(a, b):
    return _run_mm("cutec.torch.mm", a, b)


def _bmm_impl(a, b):
    return _run_bmm("cutec.torch.bmm", a, b)


def _addmm_impl(input, a, b, beta, alpha):
    op = "cutec.torch.addmm"
    c, bias, bias_row, beta_c = _addmm_operands(op, input, a, b, beta)
    return _run(op, a, b, c, bias, bias_row, alpha, beta_c)[0]


def _linear_impl(x, weight, bias, activation):
    return _run_linear("cutec.torch.linear", x, weight, bias, activation)


def _gemm_impl(a, b, c, bias, bias_row, alpha, beta, activation, aux):
    d, x = _run("cutec.torch.gemm", a, b, c, bias, bias_row, alpha, beta, activation, aux)
    return [d, x] if aux else [d]


@torch.library.custom_op("cutec::mm", mutates_args=())
def _mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    _count_op_call()
    return _mm_impl(a, b)


@_mm.register_fake
def _mm_fake(a, b):
    return _fake("cutec.torch.mm", a, b)[0]


@torch.library.custom_op("cutec::bmm", mutates_args=())
def _bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    _count_op_call()
    return _bmm_impl(a, b)


@_bmm.register_fake
def _bmm_fake(a, b):
    plan = plan_bmm("cutec.torch.bmm", a, b)
    return a.new_empty((a.shape[0], plan.m, plan.n), dtype=plan.out_dtype)


@torch.library.custom_op("cutec::grouped_mm", mutates_args=())
def _grouped_mm(a: torch.Tensor, b: torch.Tensor, offs: torch.Tensor, out_dtype: Optional[torch.dtype]) -> torch.Tensor:
    _count_op_call()
    return _run_grouped("cutec.torch.grouped_mm", a, b, offs, out_dtype)


@_grouped_mm.register_fake
def _grouped_mm_fake(a, b, offs, out_dtype):
    plan = plan_grouped("cutec.torch.grouped_mm", a, b, offs, out_dtype)
    return a.new_empty((plan.m, plan.n), dtype=plan.out_dtype)


@torch.library.custom_op("cutec::addmm", mutates_args=())
def _addmm(input: torch.Tensor, a: torch.Tensor, b: torch.Tensor, beta: float, alpha: float) -> torch.Tensor:
    _count_op_call()
    return _addmm_impl(input, a, b, beta, alpha)


@_addmm.register_fake
def _addmm_fake(input, a, b, beta, alpha):
    op = "cutec.torch.addmm"
    c, bias, bias_row, beta_c = _addmm_operands(op, input, a, b, beta)
    return _fake(op, a, b, c, bias, bias_row, alpha, beta_c)[0]


@torch.library.custom_op("cutec::linear", mutates_args=())
def _linear(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor], activation: str) -> torch.Tensor:
    _count_op_call()
    return _linear_impl(x, weight, bias, activation)


@_linear.register_fake
def _linear_fake(x, weight, bias, activation):
    op = "cutec.torch.linear"
    a, b = _linear_operands(op, x, weight)
    d = _fake(op, a, b, bias=bias, activation=activation)[0]
    return d.view(*x.shape[:-1], d.shape[1])


@torch.library.custom_op("cutec::gemm", mutates_args=())
def _gemm(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], bias: Optional[torch.Tensor],
          bias_row: Optional[torch.Tensor], alpha: float, beta: float, activation: str,
          aux: bool) -> List[torch.Tensor]:
    _count_op_call()
    return _gemm_impl(a, b, c, bias, bias_row, alpha, beta, activation, aux)


@_gemm.register_fake
def _gemm_fake(a, b, c, bias, bias_row, alpha, beta, activation, aux):
    d, x = _fake("cutec.torch.gemm", a, b, c, bias, bias_row, alpha, beta, activation, aux)
    return [d, x] if aux else [d]


def mm(a, b):
    """a @ b for 2-D bfloat16 or float16 matrices (out: a's dtype)."""
    # torch.compile folds is_compiling() to True: it never traces into the C module
    if _fast_mm is not None and DIRECT and not _is_compiling():
        d = _fast_mm(a, b)
        if d is not None:
            return d
    return _run_mm("cutec.torch.mm", a, b) if _direct(a, b) else _mm(a, b)


def bmm(a, b):
    """a[l] @ b[l] for 3-D bfloat16 or float16 batches, as torch.bmm: a of
    L x M x K, b of L x K x N, out L x M x N (a's dtype): one strided-batched
    GEMM over the tensors' own strides (an expanded, stride-0 operand is one
    matrix for every problem)."""
    return _bmm_impl(a, b) if _direct(a, b) else _bmm(a, b)


def grouped_mm(a, b, offs, out_dtype=None):
    """The grouped GEMM of a mixture of experts, as torch._grouped_mm(a, b,
    offs=offs, out_dtype=out_dtype) for a 2-D a and a 3-D b: a of M x K
    (the tokens' rows sorted by expert), b of G x K x N (one matrix per
    expert: a (G, N, K) weight through .transpose(-2, -1), or a contiguous
    (G, K, N)), offs G int32 cumulative row ends on a's device; returns
    D of M x N (out_dtype: a's dtype or torch.float32) whose rows offs[g-1]
    .. offs[g] - 1 are those rows of a times b[g].  Rows past offs[-1] are
    uninitialised (torch.empty), as torch leaves them unspecified.  offs is
    read on the device (no synchronisation): it should be nondecreasing and
    at most M (the kernels clamp it)."""
    return _run_grouped("cutec.torch.grouped_mm", a, b, offs, out_dtype) if _direct(a, b, offs) else \
        _grouped_mm(a, b, offs, out_dtype)


def matmul(a, b):
    """a @ b for 2-D and 3-D operands, as torch.matmul: 2-D x 2-D is mm,
    3-D x 3-D bmm; a 3-D a times a 2-D b (x @ W) is one GEMM over a's rows
    where they form a matrix (a contiguous batch), else a batch with b's
    one matrix for every problem; a 2-D a times a 3-D b broadcasts a."""
    if a.dim() == 2 and b.dim() == 2:
        return mm(a, b)
    if a.dim() == 3 and b.dim() == 3:
        return bmm(a, b)
    if a.dim() == 3 and b.dim() == 2:
        lb, m, k = a.shape
        # the batch is rows of one matrix where each problem starts where the previous one's rows end
        if m == 0 or lb <= 1 or a.stride(0) == m * a.stride(1) and (a.stride(2) == 1 or k == 1):
            d = mm(a.reshape(lb * m, k), b)
            return d.view(lb, m, d.shape[1])
        return bmm(a, b.unsqueeze(0).expand(lb, *b.shape))
    if a.dim() == 2 and b.dim() == 3:
        return bmm(a.unsqueeze(0).expand(b.shape[0], *a.shape), b)
    fail("CUTEC_ERR_BAD_SIZE", "cutec.torch.matmul", f"A and B must be 2-D or 3-D, got {a.dim()}-D and {b.dim()}-D")


def addmm(input, a, b, *, beta=1.0, alpha=1.0):
    """beta * input + alpha * (a @ b), as torch.addmm: input of N elements is a
    fused bias, a column of M a bias per row, M x N the C source."""
    beta, alpha = float(beta), float(alpha)
    return _addmm_impl(input, a, b, beta, alpha) if _direct(input, a, b) else _addmm(input, a, b, beta, alpha)


def linear(x, weight, bias=None, activation="identity"):
    """activation(x @ weight.T + bias), weight [N, K] as nn.Linear's.  A gated
    activation (swiglu, geglu) takes weight's rows as gates and ups
    interleaved in blocks of 8 (interleave_gate_up) and gives N / 2 outputs."""
    if _fast_linear is not None and DIRECT and not _is_compiling():  # as mm's
        d = _fast_linear(x, weight, bias, activation)
        if d is not None:
            return d
    if _direct(x, weight, bias):
        return _run_linear("cutec.torch.linear", x, weight, bias, activation)
    return _linear(x, weight, bias, activation)


def gemm(a, b, c=None, *, bias=None, bias_row=None, alpha=1.0, beta=0.0, activation="identity", aux=False):
    """The whole epilogue: act(alpha * a @ b + beta * c + bias + bias_row);
    with aux=True returns (D, the pre-activation), else D."""
    args = (a, b, c, bias, bias_row, float(alpha), float(beta), activation, bool(aux))
    out = _gemm_impl(*args) if _direct(a, b, c, bias, bias_row) else _gemm(*args)
    return (out[0], out[1]) if aux else out[0]
