"""A Llama-3-8B-shaped MLP block and attention projections in bfloat16 at 1,
64 and 4096 tokens: eager PyTorch, torch.compile(mode="max-autotune") and
cutec in one process on one GPU, outputs compared with eager's.  Prints a
markdown table (and writes llama_block.md / .json to $OUT when set).

    MLP:  down(silu(gate(x)) * up(x))   hidden 4096, intermediate 14336
          cutec: one GEMM with the SwiGLU epilogue over the interleaved
          [gate; up] weight (2 x 14336 columns), then down
    attn: q, k, v = x Wq, x Wk, x Wv (4096 -> 4096, 1024, 1024), o = a Wo (4096 -> 4096)

    python python/bench/llama_block.py [--tokens 4096,64,1] [--no-compile] [--budget-s 420] [--blocks bf16,fp8]

--blocks fp8 runs the same blocks with e4m3 GEMMs and row-wise scales (activations
quantized per token row by the same PyTorch code on both sides, weights per
output channel): torch._scaled_mm against cutec.torch.scaled_mm.

max-autotune's GEMM search is bounded (TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS
defaults to ATEN,TRITON here), and compiles stop once --budget-s seconds have
gone (the later rows say "skipped").  cutec tunes each GEMM class on its first
call (its time is reported) and keeps it in its disk cache.  max-autotune
replays CUDA graphs (its mode does); the column "cutec graph" is cutec's
block captured in a CUDA graph after its warm-up, the eager one without.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS", "ATEN,TRITON")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import cutec.torch as ct  # noqa: E402

from common import gpu_times_ms, machine, write_out  # noqa: E402

HIDDEN, INTER, KV = 4096, 14336, 1024


def weights(dev, dt):
    g = torch.Generator(device=dev).manual_seed(0)

    def w(n, k):
        return (torch.randn(n, k, device=dev, generator=g) * 0.02).to(dt)

    W = {"gate": w(INTER, HIDDEN), "up": w(INTER, HIDDEN), "down": w(HIDDEN, INTER), "q": w(HIDDEN, HIDDEN),
         "k": w(KV, HIDDEN), "v": w(KV, HIDDEN), "o": w(HIDDEN, HIDDEN)}
    W["gate_up"] = ct.interleave_gate_up(W["gate"], W["up"])
    return W


def blocks(W):
    """name -> (eager function, cutec function, argument names)."""

    def mlp_eager(x):
        return F.linear(F.silu(F.linear(x, W["gate"])) * F.linear(x, W["up"]), W["down"])

    def mlp_cutec(x):
        return ct.linear(ct.linear(x, W["gate_up"], None, "swiglu"), W["down"])

    def attn_eager(x, a):
        return F.linear(x, W["q"]), F.linear(x, W["k"]), F.linear(x, W["v"]), F.linear(a, W["o"])

    def attn_cutec(x, a):
        return ct.linear(x, W["q"]), ct.linear(x, W["k"]), ct.linear(x, W["v"]), ct.linear(a, W["o"])

    return {"MLP (SwiGLU)": (mlp_eager, mlp_cutec, 1), "attention q,k,v,o": (attn_eager, attn_cutec, 2)}


E4M3 = torch.float8_e4m3fn
E4M3_MAX = 448.0


def quant_rows(t):
    """t (rows x K) as e4m3 with one float32 scale per row (rows x 1):
    the dynamic quantization both sides of the fp8 blocks share."""
    scale = (t.float().abs().amax(dim=1, keepdim=True) / E4M3_MAX).clamp_min(1e-12)
    return (t.float() / scale).to(E4M3), scale


def blocks_fp8(W):
    """The same blocks with e4m3 GEMMs and row-wise scales (one per token
    row of the activation, one per output channel of the weight), bf16
    out: torch._scaled_mm against cutec.torch.scaled_mm; the quantization
    of the activations and the SwiGLU between the GEMMs are the same
    PyTorch code on both sides (cutec's scaled_mm has no fused epilogue
    in the package yet), so only the GEMMs differ."""
    Q = {}
    for name in ("gate", "up", "down", "q", "k", "v", "o"):
        w8, sw = quant_rows(W[name])
        Q[name] = (w8, sw.t())  # scale_b: 1 x N

    def make(mm):
        def lin(x, name):
            x8, sx = quant_rows(x)
            w8, sw = Q[name]
            return mm(x8, w8.t(), sx, sw, out_dtype=torch.bfloat16)

        def mlp(x):
            return lin(F.silu(lin(x, "gate")) * lin(x, "up"), "down")

        def attn(x, a):
            return lin(x, "q"), lin(x, "k"), lin(x, "v"), lin(a, "o")

        return mlp, attn

    def torch_mm(a, b, sa, sb, out_dtype):
        return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=out_dtype)

    mlp_eager, attn_eager = make(torch_mm)
    mlp_cutec, attn_cutec = make(ct.scaled_mm)
    return {"MLP fp8 (row-wise)": (mlp_eager, mlp_cutec, 1), "attention fp8 (row-wise)": (attn_eager, attn_cutec, 2)}


def rel_err(got, want):
    got, want = (got if isinstance(got, tuple) else (got,)), (want if isinstance(want, tuple) else (want,))
    return max(((g.float() - w.float()).abs().max() / w.float().abs().max().clamp_min(1e-30)).item()
               for g, w in zip(got, want))


def flops(name, t):
    if "MLP" in name:
        return 2 * t * HIDDEN * INTER * 3
    return 2 * t * HIDDEN * (HIDDEN + 2 * KV + HIDDEN)


def graphed(fn, xs):
    """fn(*xs) captured in a CUDA graph after a warm-up on a side stream: its replay."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn(*xs)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn(*xs)
    return g.replay


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", default="4096,64,1", help="the goal's size first, while the compile budget lasts")
    ap.add_argument("--no-compile", action="store_true", help="leave out torch.compile(mode='max-autotune')")
    ap.add_argument("--budget-s", type=float, default=420, help="no new max-autotune compile after this many seconds")
    ap.add_argument("--blocks", default="bf16", help="bf16, fp8 or both (bf16,fp8): fp8 is the blocks with e4m3 "
                    "GEMMs, row-wise scales (torch._scaled_mm against cutec.torch.scaled_mm)")
    args = ap.parse_args()
    t0 = time.time()
    dev, dt = "cuda", torch.bfloat16
    W = weights(dev, dt)
    backends = os.environ["TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS"]
    head = machine() + [f"TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS={backends}"]
    rows, data = [], []
    kinds = args.blocks.split(",")
    if not kinds or set(kinds) - {"bf16", "fp8"}:
        ap.error(f"--blocks: {args.blocks!r} is not a list of bf16 and fp8")
    todo = {}
    if "bf16" in kinds:
        todo.update(blocks(W))
    if "fp8" in kinds:
        todo.update(blocks_fp8(W))
    for name, (eager, cutec_fn, nargs) in todo.items():
        for t in [int(s) for s in args.tokens.split(",")]:
            g = torch.Generator(device=dev).manual_seed(t)
            xs = tuple(torch.randn(t, HIDDEN, device=dev, generator=g).to(dt) for _ in range(nargs))
            with torch.no_grad():
                want = eager(*xs)
                s = time.time()
                got = cutec_fn(*xs)  # the first call tunes each GEMM class (or reads the disk cache)
                torch.cuda.synchronize()
                tune_s = time.time() - s
                iters = 200 if t < 4096 else 20
                err_cutec = rel_err(got, want)
                ms_comp = err_comp = comp_s = None
                fns = [lambda: eager(*xs), lambda: cutec_fn(*xs), graphed(cutec_fn, xs)]
                if not args.no_compile and time.time() - t0 < args.budget_s:
                    torch._dynamo.reset()
                    comp = torch.compile(eager, mode="max-autotune", fullgraph=True, dynamic=False)
                    s = time.time()
                    out = comp(*xs)
                    torch.cuda.synchronize()
                    comp_s = time.time() - s
                    err_comp = rel_err(out, want)
                    fns.append(lambda: comp(*xs))
                # all in alternation, so that the power cap's clock drift falls on each alike
                ms = gpu_times_ms(fns, iters)
                ms_eager, ms_cutec, ms_graph = ms[:3]
                if len(ms) > 3:
                    ms_comp = ms[3]
            r = dict(block=name, tokens=t, eager_ms=ms_eager, compile_ms=ms_comp, cutec_ms=ms_cutec,
                     cutec_graph_ms=ms_graph,
                     cutec_vs_eager=ms_eager / ms_cutec, cutec_vs_compile=(ms_comp / ms_cutec) if ms_comp else None,
                     cutec_tflops=flops(name, t) / ms_cutec / 1e9, err_cutec=err_cutec, err_compile=err_comp,
                     cutec_first_call_s=tune_s, compile_s=comp_s)
            data.append(r)
            fmt = lambda v, f: ("skipped" if not args.no_compile else "-") if v is None else format(v, f)  # noqa: E731
            rows.append(f"| {name} | {t} | {ms_eager:.4f} | {fmt(ms_comp, '.4f')} | {ms_cutec:.4f} | {ms_graph:.4f} | "
                        f"{r['cutec_vs_eager']:.3f} | {fmt(r['cutec_vs_compile'], '.3f')} | {r['cutec_tflops']:.1f} | "
                        f"{err_cutec:.1e} | {fmt(err_comp, '.1e')} | {tune_s:.1f} | {fmt(comp_s, '.1f')} |")
            print(rows[-1], flush=True)
    lines = [f"# Llama-3-8B-shaped block ({args.blocks})", ""] + [f"- {h}" for h in head] + [
        f"- total {time.time() - t0:.0f} s", "",
        "| block | tokens | eager ms | max-autotune ms | cutec ms | cutec graph ms | cutec vs eager | "
        "cutec vs max-autotune | cutec TFLOP/s | cutec err vs eager | max-autotune err vs eager | cutec first call s | "
        "compile s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows
    text = "\n".join(lines) + "\n"
    print(text)
    write_out("llama_block", text, {"machine": head, "rows": data})


if __name__ == "__main__":
    main()
