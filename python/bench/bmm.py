"""cutec.torch.bmm against torch.bmm in the same process, on the strided-batch
suite (tests/bench/batched_shapes.txt: name M N K batch=L note).  A is
L x M x K row-major and B is given as L x N x K (a transposed view, as the
suite's "B given as N x K"; --b-row: L x K x N row-major).  Each class is
tuned on its first call (not timed); then CUDA-event timing of back-to-back
calls, TFLOP/s over the whole batch, and cutec's output against torch.bmm's
(max |difference| / max |torch|).

    python python/bench/bmm.py [--shapes FILE] [--only NAME,...] [--dtype bf16|f16] [--b-row] [--iters 20]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import cutec.torch as ct  # noqa: E402

from common import gpu_times_ms, machine, write_out  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_shapes(path):
    """[(name, M, N, K, L)] of a shapes file (lines 'name M N K batch=L ...';
    '#' starts a comment; a shape without batch= is a batch of one)."""
    shapes = []
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            batch = 1
            for w in words[4:]:
                if w.startswith("batch="):
                    batch = int(w[len("batch="):])
            shapes.append((words[0], int(words[1]), int(words[2]), int(words[3]), batch))
    return shapes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=os.path.join(ROOT, "tests", "bench", "batched_shapes.txt"))
    ap.add_argument("--only", default="", help="comma-separated shape names")
    ap.add_argument("--dtype", choices=("bf16", "f16"), default="bf16")
    ap.add_argument("--b-row", action="store_true", help="B as L x K x N row-major")
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    only = set(filter(None, args.only.split(",")))
    rows, data = [], []
    for name, m, n, k, batch in read_shapes(args.shapes):
        if only and name not in only:
            continue
        a = torch.randn(batch, m, k, device="cuda", dtype=dt)
        b = torch.randn(batch, k, n, device="cuda", dtype=dt) if args.b_row else \
            torch.randn(batch, n, k, device="cuda", dtype=dt).transpose(1, 2)
        want = torch.bmm(a, b)
        got = ct.bmm(a, b)  # tunes the class
        err = ((got.float() - want.float()).abs().max() / (want.float().abs().max() + 1e-30)).item()
        t_torch, t_cutec = gpu_times_ms([lambda: torch.bmm(a, b), lambda: ct.bmm(a, b)], args.iters)
        flop = 2.0 * batch * m * n * k
        r = dict(name=name, m=m, n=n, k=k, batch=batch, torch_ms=t_torch, cutec_ms=t_cutec,
                 torch_tflops=flop / t_torch / 1e9, cutec_tflops=flop / t_cutec / 1e9, speedup=t_torch / t_cutec,
                 max_rel_diff=err)
        data.append(r)
        rows.append(f"| {name} | {batch} x {m}x{n}x{k} | {t_torch:.3f} | {r['torch_tflops']:.0f} | {t_cutec:.3f} | "
                    f"{r['cutec_tflops']:.0f} | {r['speedup']:.2f} | {err:.1e} |")
        print(rows[-1], flush=True)
        del a, b, want, got
    head = machine() + [f"{args.dtype}, B {'L x K x N row-major' if args.b_row else 'given as L x N x K (transposed)'}"
                        f", {args.iters} calls per timing, median of 5"]
    lines = ["# cutec.torch.bmm against torch.bmm", ""] + [f"- {h}" for h in head]
    lines += ["", "| shape | batch x MxNxK | torch.bmm ms | TFLOP/s | cutec ms | TFLOP/s | speedup | max rel diff |",
              "|---|---|---|---|---|---|---|---|"] + rows
    text = "\n".join(lines) + "\n"
    print(text)
    write_out("bmm", text, {"machine": head, "shapes": data})


if __name__ == "__main__":
    main()
