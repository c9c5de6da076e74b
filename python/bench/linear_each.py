"""Each GEMM of the Llama-3-8B-shaped block alone (python/bench/llama_block.py's
weights): eager F.linear against cutec.torch.linear on the same inputs, each
timed in its own loop of back-to-back calls (so L2 holds what the loop leaves
there, for both alike), with the decision cutec's handle made for the GEMM's
class (a pack kernel or a cuBLASLt algorithm).  Tells which GEMM a block's
row of llama_block.py loses or gains its time on.  Prints a markdown table
(and writes linear_each.md / .json to $OUT when set).

    python python/bench/linear_each.py [--tokens 4096,64,1]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import cutec.torch as ct  # noqa: E402
from cutec.torch.plan import plan_cached  # noqa: E402

from common import gpu_times_ms, machine, write_out  # noqa: E402
from llama_block import HIDDEN, INTER, weights  # noqa: E402

# name, weight, input width; the MLP's gate+up runs fused (SwiGLU) in cutec
GEMMS = [("q", "q", HIDDEN), ("k", "k", HIDDEN), ("v", "v", HIDDEN), ("o", "o", HIDDEN), ("gate", "gate", HIDDEN),
         ("up", "up", HIDDEN), ("down", "down", INTER)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", default="4096,64,1")
    args = ap.parse_args()
    dev, dt = "cuda", torch.bfloat16
    W = weights(dev, dt)
    dg = ct.device_gemm(torch.cuda.current_device())
    rows, data = [], []
    for t in [int(s) for s in args.tokens.split(",")]:
        iters = 50 if t >= 4096 else 200
        g = torch.Generator(device=dev).manual_seed(t)
        xs = {k: torch.randn(t, k, device=dev, generator=g).to(dt) for k in (HIDDEN, INTER)}
        cases = [(name, W[w], xs[k], None) for name, w, k in GEMMS]
        cases.append(("gate+up, SwiGLU", W["gate_up"], xs[HIDDEN], "swiglu"))
        with torch.no_grad():
            for name, w, x, act in cases:
                if act is None:
                    eager = (lambda x=x, w=w: F.linear(x, w))
                    fused = (lambda x=x, w=w: ct.linear(x, w))
                else:  # eager's unfused MLP half: gate, up, silu, multiply
                    eager = (lambda x=x: F.silu(F.linear(x, W["gate"])) * F.linear(x, W["up"]))
                    fused = (lambda x=x, w=w: ct.linear(x, w, None, act))
                fused()  # the first call tunes the class (or reads the disk cache)
                torch.cuda.synchronize()
                ms_e, ms_c = gpu_times_ms([eager, fused], iters)
                choice = dg.choice(plan_cached("cutec.torch.mm", x, w.t())) if act is None else "(SwiGLU class)"
                n = w.shape[0]
                tf = 2.0 * t * n * x.shape[1] / ms_c / 1e9
                r = dict(tokens=t, gemm=name, m=t, n=n, k=x.shape[1], eager_ms=ms_e, cutec_ms=ms_c,
                         cutec_vs_eager=ms_e / ms_c, cutec_tflops=tf, choice=choice)
                data.append(r)
                rows.append(f"| {t} | {name} | {t} x {n} x {x.shape[1]} | {ms_e:.4f} | {ms_c:.4f} | "
                            f"{ms_e / ms_c:.3f} | {tf:.1f} | {choice} |")
                print(rows[-1], flush=True)
    lines = ["# Each GEMM of the Llama-3-8B-shaped block, bf16", ""] + [f"- {h}" for h in machine()] + [
        "", "| tokens | GEMM | M x N x K | eager ms | cutec ms | cutec vs eager | cutec TFLOP/s | cutec's decision |",
        "|---|---|---|---|---|---|---|---|"] + rows
    text = "\n".join(lines) + "\n"
    print(text)
    write_out("linear_each", text, {"machine": machine(), "rows": data})


if __name__ == "__main__":
    main()
