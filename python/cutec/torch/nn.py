"""Drop-in modules: cutec.torch.Linear and swap_linear, which puts it in
place of a model's nn.Linear layers (fusing an activation that follows one
in an nn.Sequential) and warms the model up, so that every GEMM class is
tuned before the model is timed or captured in a CUDA graph.

Inference only: the ops have no backward."""
import torch
from torch import nn

from . import ops
from .gated import interleave_gate_up
from .ops import linear
from .plan import AB_DTYPES

# activation modules that can be fused into the linear layer before them:
# (module type, test of its settings, the epilogue table's name)
FUSIBLE = (
    (nn.ReLU, lambda m: True, "relu"),
    (nn.ReLU6, lambda m: True, "relu6"),
    (nn.SiLU, lambda m: True, "silu"),
    (nn.Sigmoid, lambda m: True, "sigmoid"),
    (nn.GELU, lambda m: m.approximate == "tanh", "gelu_tanh"),
    (nn.GELU, lambda m: m.approximate == "none", "gelu_erf"),
)


def fusible_activation(module):
    """The epilogue name of an activation module, or None."""
    for cls, test, name in FUSIBLE:
        if type(module) is cls and test(module):
            return name
    return None


class Linear(nn.Module):
    """nn.Linear on cutec: y = activation(x @ weight.T + bias).

    With a gated activation (swiglu, geglu) out_features is the output's
    width and weight has 2 * out_features rows, gates and ups interleaved
    in blocks of 8 (from_gate_up builds it from two layers)."""

    def __init__(self, in_features, out_features, bias=True, activation="identity", device=None, dtype=None):
        super().__init__()
        from .. import capi

        self.in_features, self.out_features, self.activation = in_features, out_features, activation
        rows = 2 * out_features if capi.activations().get(activation, False) else out_features
        kw = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.empty(rows, in_features, **kw), requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(rows, **kw), requires_grad=False) if bias else None
        nn.init.kaiming_uniform_(self.weight, a=5**0.5)  # nn.Linear's

    @classmethod
    def from_linear(cls, lin, activation="identity"):
        """A Linear sharing lin's weight and bias, with an activation after it."""
        new = cls.__new__(cls)
        nn.Module.__init__(new)
        new.in_features, new.out_features, new.activation = lin.in_features, lin.out_features, activation
        new.weight, new.bias = lin.weight, lin.bias
        return new

    @classmethod
    def from_gate_up(cls, gate, up, activation="swiglu"):
        """The fused gated layer of two nn.Linear layers (gate and up
        projections, e.g. a Llama MLP's): one GEMM whose epilogue computes
        activation(gate) * up; copies the weights, interleaved."""
        new = cls.__new__(cls)
        nn.Module.__init__(new)
        new.in_features, new.out_features, new.activation = gate.in_features, gate.out_features, activation
        new.weight = nn.Parameter(interleave_gate_up(gate.weight.detach(), up.weight.detach()), requires_grad=False)
        have_bias = gate.bias is not None or up.bias is not None
        if have_bias:
            zeros = torch.zeros_like(gate.weight[:, 0])
            gb = gate.bias.detach() if gate.bias is not None else zeros
            ub = up.bias.detach() if up.bias is not None else zeros
            new.bias = nn.Parameter(interleave_gate_up(gb, ub), requires_grad=False)
        else:
            new.bias = None
        return new

    def forward(self, x):
        return linear(x, self.weight, self.bias, self.activation)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"activation={self.activation}")


def _eligible(lin):
    w = lin.weight
    on_device = w.is_cuda or (w.device.type == "cpu" and ops._host_gemm_for_tests is not None)
    return on_device and w.dtype in AB_DTYPES and (lin.bias is None or lin.bias.dtype in AB_DTYPES + (torch.float32,))


def swap_linear(model, *, fuse_activation=True, example_inputs=None, filter=None):
    """Replaces the nn.Linear modules of model (in place) with cutec Linear
    modules sharing their parameters; returns the names of the replaced
    modules.

    Eligible: CUDA weights of bfloat16 or float16 (others are left alone),
    and filter(name, module) where given.  fuse_activation: in an
    nn.Sequential, an activation module right after a swapped layer
    (ReLU, ReLU6, SiLU, Sigmoid, GELU with either approximation) becomes
    the layer's epilogue and is replaced by nn.Identity.  example_inputs (a
    tuple of model's arguments): one forward pass under torch.no_grad()
    after the swap, which tunes every GEMM the model runs at those shapes
    (do it before capturing CUDA graphs)."""
    swapped = []
    for parent_name, parent in list(model.named_modules()):
        children = list(parent.named_children())
        for i, (name, child) in enumerate(children):
            if type(child) is not nn.Linear or not _eligible(child):
                continue
            full = f"{parent_name}.{name}" if parent_name else name
            if filter is not None and not filter(full, child):
                continue
            act = "identity"
            if fuse_activation and isinstance(parent, nn.Sequential) and i + 1 < len(children):
                nxt_name, nxt = children[i + 1]
                fused = fusible_activation(nxt)
                if fused is not None:
                    act = fused
                    setattr(parent, nxt_name, nn.Identity())
            setattr(parent, name, Linear.from_linear(child, act))
            swapped.append(full)
    if example_inputs is not None:
        with torch.no_grad():
            model(*example_inputs)
    return swapped
