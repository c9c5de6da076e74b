"""PyTorch ops on cutec's autotuned GEMM kernels (docs/python.md).

    import cutec.torch as ct
    y = ct.linear(x, w, b, activation="gelu_tanh")    # cutec::linear
    y = ct.mm(a, b); y = ct.addmm(bias, a, b)
    y = ct.bmm(q, k)                                   # cutec::bmm, a strided batch
    y = ct.grouped_mm(x, w.transpose(-2, -1), offs)    # cutec::grouped_mm, a mixture of experts' GEMM
    y = ct.scaled_mm(x8, w8.t(), sx, sw, out_dtype=torch.bfloat16)  # cutec::scaled_mm, fp8 with scales
    model_names = ct.swap_linear(model, example_inputs=(x,))
"""
from ..errors import CutecError
from .device import DeviceGemm, device_gemm, reset
from .gated import interleave_gate_up, split_gate_up
from .nn import Linear, fusible_activation, swap_linear
from .ops import addmm, bmm, gemm, grouped_mm, linear, matmul, mm
from .scaled import scaled_mm


def activations():
    """{name: gated} of the activations the ops accept (the epilogue table)."""
    from .. import capi

    return dict(capi.activations())


__all__ = ["CutecError", "DeviceGemm", "Linear", "activations", "addmm", "bmm", "device_gemm", "fusible_activation",
           "gemm", "grouped_mm", "interleave_gate_up", "linear", "matmul", "mm", "reset", "scaled_mm",
           "split_gate_up", "swap_linear"]
