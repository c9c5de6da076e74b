"""The weight layout of a gated (GLU) activation: the GEMM's output columns,
the rows of an nn.Linear weight, hold gates and ups interleaved in blocks
of 8 (rows 16q .. 16q+7 the gates of outputs 8q .. 8q+7, the next 8 rows
their ups; docs/contract.md), so that the kernel's accumulator holds both
halves of each output."""
import torch

BLOCK = 8


def interleave_gate_up(gate, up=None):
    """The interleaved weight (or bias) of a gated linear layer.

    gate, up: [N, ...] each (the gate and up projections' weights, or
    biases); with up=None, gate is their concatenation [gate; up] of 2N
    rows, as many models store it.  N must be a multiple of 8.  Returns
    [2N, ...], a new contiguous tensor."""
    if up is None:
        if gate.shape[0] % 2:
            raise ValueError(f"a concatenated [gate; up] needs an even number of rows, got {gate.shape[0]}")
        gate, up = gate.chunk(2, dim=0)
    if gate.shape != up.shape:
        raise ValueError(f"gate and up differ in shape: {list(gate.shape)} and {list(up.shape)}")
    n = gate.shape[0]
    if n % BLOCK:
        raise ValueError(f"gate and up need a multiple of {BLOCK} rows, got {n}")
    rest = gate.shape[1:]
    both = torch.stack((gate.reshape(n // BLOCK, BLOCK, *rest), up.reshape(n // BLOCK, BLOCK, *rest)), dim=1)
    return both.reshape(2 * n, *rest).contiguous()


def split_gate_up(w):
    """The inverse: (gate, up) of an interleaved weight or bias."""
    n2 = w.shape[0]
    if n2 % (2 * BLOCK):
        raise ValueError(f"an interleaved weight has a multiple of {2 * BLOCK} rows, got {n2}")
    v = w.reshape(n2 // (2 * BLOCK), 2, BLOCK, *w.shape[1:])
    return v[:, 0].reshape(n2 // 2, *w.shape[1:]), v[:, 1].reshape(n2 // 2, *w.shape[1:])
