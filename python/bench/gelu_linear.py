"""A linear layer with its bias and GELU (tanh), y = gelu(x @ w.t() + b), three
ways on the same inputs: eager PyTorch (F.linear, then F.gelu), Inductor's
torch.compile(mode="max-autotune") of the same function (its GEMM templates
with the bias and GELU fused) and cutec.torch.linear(x, w, b,
activation="gelu_tanh") (the tuned choice of cutec's handle: a pack kernel
with the epilogue fused, or cuBLASLt's GELU_BIAS).  Issue 17's comparison
with Inductor.  Each shape's three calls are timed in alternation
(common.gpu_times_ms); each result is compared with eager's (max |diff| over
max |eager|); max-autotune's compile and cutec's first call (its tuning)
are timed too.  Prints a markdown table (and writes gelu_linear.md / .json
to $OUT when set).

    python python/bench/gelu_linear.py [--shapes MxNxK,...] [--no-compile]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import cutec.torch as ct  # noqa: E402

from common import gpu_times_ms, machine, write_out  # noqa: E402

# tests/bench/epilogue_shapes.txt's shapes: tokens x output features x input features
SHAPES = "4096x6144x4096,8192x8192x8192,4096x28672x4096"


def eager(x, w, b):
    return F.gelu(F.linear(x, w, b), approximate="tanh")


def rel_err(y, ref):
    return ((y.float() - ref.float()).abs().max() / ref.float().abs().max()).item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=SHAPES, help="comma-separated MxNxK (tokens x out x in)")
    ap.add_argument("--no-compile", action="store_true", help="leave out torch.compile(mode='max-autotune')")
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()
    dev, dt = "cuda", torch.bfloat16
    rows, data = [], []
    for spec in args.shapes.split(","):
        m, n, k = (int(v) for v in spec.lower().split("x"))
        g = torch.Generator(device=dev).manual_seed(m * 31 + n * 17 + k)
        x = torch.randn(m, k, device=dev, generator=g).to(dt)
        w = (torch.randn(n, k, device=dev, generator=g) / k**0.5).to(dt)
        b = torch.randn(n, device=dev, generator=g).to(dt)
        with torch.no_grad():
            ref = eager(x, w, b)
            t0 = time.perf_counter()
            y = ct.linear(x, w, b, "gelu_tanh")  # the first call tunes the class
            torch.cuda.synchronize()
            first_s = time.perf_counter() - t0
            err_c = rel_err(y, ref)
            fns = [lambda: eager(x, w, b), lambda: ct.linear(x, w, b, "gelu_tanh")]
            compile_s, err_i = float("nan"), float("nan")
            if not args.no_compile:
                comp = torch.compile(eager, mode="max-autotune", fullgraph=True, dynamic=False)
                t0 = time.perf_counter()
                yi = comp(x, w, b)
                torch.cuda.synchronize()
                compile_s = time.perf_counter() - t0
                err_i = rel_err(yi, ref)
                fns.append(lambda: comp(x, w, b))
            ms = gpu_times_ms(fns, args.iters)
        ms_i = ms[2] if len(ms) > 2 else float("nan")
        tf = 2.0 * m * n * k / ms[1] / 1e9
        r = dict(m=m, n=n, k=k, eager_ms=ms[0], cutec_ms=ms[1], max_autotune_ms=ms_i, cutec_vs_eager=ms[0] / ms[1],
                 cutec_vs_max_autotune=ms_i / ms[1], cutec_tflops=tf, cutec_err=err_c, max_autotune_err=err_i,
                 cutec_first_call_s=first_s, max_autotune_compile_s=compile_s)
        data.append(r)
        rows.append(f"| {m} x {n} x {k} | {ms[0]:.4f} | {ms_i:.4f} | {ms[1]:.4f} | {r['cutec_vs_eager']:.3f} | "
                    f"{r['cutec_vs_max_autotune']:.3f} | {tf:.1f} | {err_c:.1e} | {err_i:.1e} | {first_s:.2f} | "
                    f"{compile_s:.1f} |")
        print(rows[-1], flush=True)
    head = "\n".join(machine()) + "\n\n" + (
        "| M x N x K | eager ms | max-autotune ms | cutec ms | cutec vs eager | cutec vs max-autotune | "
        "cutec TFLOP/s | cutec err vs eager | max-autotune err vs eager | cutec first call s | "
        "max-autotune compile s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    text = head + "\n".join(rows) + "\n"
    print(text)
    write_out("gelu_linear", text, data)


if __name__ == "__main__":
    main()
