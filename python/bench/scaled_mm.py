"""cutec.torch.scaled_mm against torch._scaled_mm in the same process: fp8
e4m3 A (M x K row-major) and B (the .t() of an N x K weight), a bf16
output, each scale mode (per tensor, row-wise, block-wise 1x128 / 128x128
in torch's layouts), on 8192^3 and the Llama-3-8B projections at 4096
tokens.  cutec's first call of a class tunes it (not timed); then
CUDA-event timing of back-to-back calls, TFLOP/s, and the outputs' max
|difference| / max |torch| (and against a float64 reference on 64 rows,
each).  A mode torch cannot run here is "n/a" with its reason.  No class
is tuned after --budget-s seconds.

    python python/bench/scaled_mm.py [--shapes sq8192,qkv,o,gate_up,down] [--modes tensor,row,block]
                                     [--iters 20] [--budget-s 420]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import cutec.torch as ct  # noqa: E402

from common import gpu_time_ms, machine, write_out  # noqa: E402

E4 = torch.float8_e4m3fn
# name: (M, N, K); Llama-3-8B at 4096 tokens: hidden 4096, 32 query and 8 key/value heads of 128, MLP 14336
SHAPES = {
    "sq8192": (8192, 8192, 8192),
    "qkv": (4096, 6144, 4096),
    "o": (4096, 4096, 4096),
    "gate_up": (4096, 28672, 4096),
    "down": (4096, 4096, 14336),
}


def make_scales(mode, m, n, k):
    """(scale_a, scale_b) of a mode in torch._scaled_mm's layouts, positive in [0.25, 4)."""
    r = lambda *s: torch.rand(*s, device="cuda") * 3.75 + 0.25  # noqa: E731
    kb, nb = -(-k // 128), -(-n // 128)
    if mode == "tensor":
        return r(()), r(())
    if mode == "row":
        return r(m, 1), r(1, n)
    return r(kb, m).t(), r(nb, kb).t()  # block-wise: M x K/128 and K/128 x N/128, outer-dim-major


def reference_rows(a, b, sa, sb, rows):
    """The first rows of (A * scale_a) @ (B * scale_b) in float64."""
    k, n = b.shape
    sa, a = sa.double(), a[:rows].double()
    if sa.numel() == 1 and sb.numel() == 1:
        return (a @ b.double()) * (sa.item() * sb.double().item())
    if sa.shape[1] == 1 and sb.shape[0] == 1:
        return (a * sa[:rows]) @ (b.double() * sb.double())
    sa = sa[:rows].repeat_interleave(128, dim=1)[:, :k]
    sb = sb.double().repeat_interleave(128, dim=0)[:k].repeat_interleave(128, dim=1)[:, :n]
    return (a * sa) @ (b.double() * sb)


def rel(got, want):
    return ((got.double() - want.double()).abs().max() / (want.double().abs().max() + 1e-30)).item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--modes", default="tensor,row,block")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--budget-s", type=float, default=420.0)
    args = ap.parse_args()
    start = time.time()
    rows, data = [], []
    for name in args.shapes.split(","):
        m, n, k = SHAPES[name]
        a = (torch.randn(m, k, device="cuda") * 2).to(E4)
        b = (torch.randn(n, k, device="cuda") * 2).to(E4).t()
        for mode in args.modes.split(","):
            sa, sb = make_scales(mode, m, n, k)
            flop = 2.0 * m * n * k
            r = dict(shape=name, m=m, n=n, k=k, mode=mode)
            want = reference_rows(a, b, sa, sb, 64)
            try:
                ref = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
                r["torch_ms"] = gpu_time_ms(
                    lambda: torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16), args.iters)
                r["torch_vs_f64"] = rel(ref[:64], want)
            except (RuntimeError, NotImplementedError, ValueError) as e:
                ref, r["torch_na"] = None, str(e).splitlines()[0][:120]
            if time.time() - start > args.budget_s:
                r["cutec_na"] = f"not tuned: past --budget-s {args.budget_s:.0f}"
            else:
                try:
                    got = ct.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)  # tunes the class
                    r["cutec_ms"] = gpu_time_ms(lambda: ct.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
                                                args.iters)
                    r["cutec_vs_f64"] = rel(got[:64], want)
                    if ref is not None:
                        r["max_rel_diff"] = rel(got, ref)
                except ct.CutecError as e:
                    r["cutec_na"] = f"{e.status}: {e.message[:120]}"
            data.append(r)
            cell = lambda key: f"{r[key]:.3f} | {flop / r[key] / 1e9:.0f}" if key in r else "n/a | n/a"  # noqa: E731
            speed = f"{r['torch_ms'] / r['cutec_ms']:.2f}" if "torch_ms" in r and "cutec_ms" in r else "n/a"
            diff = f"{r['max_rel_diff']:.1e}" if "max_rel_diff" in r else "n/a"
            f64 = " / ".join(f"{r[key]:.1e}" if key in r else "n/a" for key in ("torch_vs_f64", "cutec_vs_f64"))
            notes = "; ".join(f"{who}: {r[key]}" for who, key in (("torch", "torch_na"), ("cutec", "cutec_na"))
                              if key in r)
            rows.append(f"| {name} | {m}x{n}x{k} | {mode} | {cell('torch_ms')} | {cell('cutec_ms')} | {speed} | "
                        f"{diff} | {f64} | {notes} |")
            print(rows[-1], flush=True)
        del a, b
    head = machine() + [f"e4m3 A and B (B the .t() of N x K), bf16 output, {args.iters} calls per timing, median of "
                        "5; cutec's first call of a class tunes it (not timed)"]
    lines = ["# cutec.torch.scaled_mm against torch._scaled_mm", ""] + [f"- {h}" for h in head]
    lines += ["", "| shape | MxNxK | scales | torch ms | TFLOP/s | cutec ms | TFLOP/s | speedup | max rel diff | "
              "vs float64 (torch / cutec, 64 rows) | notes |", "|---|---|---|---|---|---|---|---|---|---|---|"] + rows
    text = "\n".join(lines) + "\n"
    print(text)
    write_out("scaled_mm", text, {"machine": head, "rows": data})


if __name__ == "__main__":
    main()
