"""cutec.torch.grouped_mm, the grouped GEMM of a mixture of experts (MoE),
against torch._grouped_mm and a loop of torch.mm over the groups (cuBLAS),
in bfloat16 in one process on one GPU.

    models (experts, active per token, hidden, expert width; the GEMMs):
      deepseek  DeepSeek-V3-like: 256, 8, 7168, 2048; gate+up N=4096 K=7168, down N=7168 K=2048
      mixtral   Mixtral-like:       8, 2, 4096, 14336; gate+up N=28672 K=4096, down N=4096 K=14336
    rows M = tokens x active (the tokens' rows sorted by expert), at 256, 4096 and 32768 tokens
    loads: balanced (every row's expert uniform at random) and skewed (half the rows to 10% of
           the experts, the rest uniform over the others); seeded; experts without rows happen

    python python/bench/grouped_mm.py [--models deepseek,mixtral] [--tokens 256,4096,32768]
        [--loads balanced,skewed] [--iters 10] [--budget-s 480] [-o FILE]

A is M x K row-major, each expert's weight (N, K) as an nn.Linear's, so B is
the (E, N, K) tensor seen through .transpose(-2, -1) (K-major), offs the
int32 row ends on the device.  cutec tunes a class (M, N, K, experts) on its
first call, not timed (the warm-up); a class is tuned on the row ends of
that call, so the skewed rows of a shape reuse the decision tuned on its
balanced rows, as a model's later batches would.  torch._grouped_mm is
timed where it exists and runs here (else "n/a" and the reason); the loop
knows the row counts on the host (no synchronisation counted) and writes
each group's rows into one output (torch.mm(out=)).  TFLOP/s count the real
rows only: 2 x sum(rows) x N x K.  "cutec / best" is cutec's TFLOP/s over
the best of the others.  Errors: max |difference| / max |reference| over
up to 128 rows of each of three groups (the first, largest and last with
rows) against float64.  No row passes start after --budget-s seconds.
Writes the markdown table to stdout, to -o FILE, and grouped.md / .json to
$OUT when set.
"""
import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import cutec.torch as ct  # noqa: E402
from cutec.torch.plan import plan_grouped_cached  # noqa: E402

from common import gpu_time_ms, machine, write_out  # noqa: E402

# name: (experts, active per token, [(GEMM, N, K)])
MODELS = {
    "deepseek": (256, 8, [("gate+up", 4096, 7168), ("down", 7168, 2048)]),
    "mixtral": (8, 2, [("gate+up", 28672, 4096), ("down", 4096, 14336)]),
}
OP = "cutec.torch.grouped_mm"
DEV = "cuda"


def row_counts(load, rows, experts, seed):
    """Rows per expert (a list summing to rows): each row's expert drawn at
    random, uniform (balanced), or half the probability on a random 10% of
    the experts and the other half on the rest (skewed)."""
    g = torch.Generator().manual_seed(seed)
    p = torch.full((experts,), 1.0 / experts, dtype=torch.float64)
    if load == "skewed":
        hot = torch.randperm(experts, generator=g)[:max(1, math.ceil(experts / 10))]
        cold = experts - len(hot)
        p = torch.full((experts,), 0.5 / cold if cold else 0.0, dtype=torch.float64)
        p[hot] = 0.5 / len(hot) if cold else 1.0 / len(hot)
    picks = torch.multinomial(p, rows, replacement=True, generator=g)
    return torch.bincount(picks, minlength=experts).tolist()


def timed(fn, iters):
    """(ms per call, None) or (None, the reason it failed)."""
    try:
        fn()  # cutec tunes its class here; the others warm up
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        once = time.perf_counter() - t0
        n = max(1, min(iters, int(0.2 / max(once, 1e-6))))  # about 0.2 s per repeat
        return gpu_time_ms(fn, n), None
    except Exception as e:  # noqa: BLE001 - a method that cannot run is reported, not fatal
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"


def max_rel_err(d, a, b, counts):
    """max |d - ref| / max |ref| over up to 128 rows of the first, largest
    and last groups with rows, ref in float64."""
    starts = [0]
    for c in counts:
        starts.append(starts[-1] + c)
    nonzero = [g for g, c in enumerate(counts) if c]
    err, scale = 0.0, 0.0
    for g in sorted({nonzero[0], max(nonzero, key=lambda e: counts[e]), nonzero[-1]}):
        s = starts[g]
        e = min(starts[g + 1], s + 128)
        ref = a[s:e].double() @ b[g].double()
        err = max(err, (d[s:e].double() - ref).abs().max().item())
        scale = max(scale, ref.abs().max().item())
    return err / (scale + 1e-30)


def fmt(ms, flop):
    return ("n/a", "n/a") if ms is None else (f"{ms:.3f}", f"{flop / ms / 1e9:.0f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="deepseek,mixtral")
    ap.add_argument("--tokens", default="256,4096,32768")
    ap.add_argument("--loads", default="balanced,skewed")
    ap.add_argument("--iters", type=int, default=10, help="calls per timing at most (fewer for long calls)")
    ap.add_argument("--budget-s", type=float, default=480.0, help="no row starts after this many seconds")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", default="", help="also write the markdown to this file")
    args = ap.parse_args()
    dev, dt = DEV, torch.bfloat16
    start = time.perf_counter()
    tokens = [int(t) for t in args.tokens.split(",") if t]
    loads = [x for x in args.loads.split(",") if x]
    has_grouped = hasattr(torch, "_grouped_mm")
    dg = ct.device_gemm(torch.cuda.current_device())
    rows_md, data, notes = [], [], {}
    gen = torch.Generator(device=dev).manual_seed(args.seed)
    for model in [m for m in args.models.split(",") if m]:
        experts, active, gemms = MODELS[model]
        for gemm, n, k in gemms:
            w = None  # one weight tensor at a time: DeepSeek's gate+up is 15 GB
            for t in tokens:
                m = t * active
                for load in loads:
                    label = f"| {model} | {gemm} | {t} | {m} | {load} |"
                    if time.perf_counter() - start > args.budget_s:
                        rows_md.append(f"{label} skipped (--budget-s) |" + " |" * 8)
                        print(rows_md[-1], flush=True)
                        continue
                    if w is None:
                        w = torch.randn(experts, n, k, device=dev, dtype=dt, generator=gen)
                    b = w.transpose(-2, -1)
                    counts = row_counts(load, m, experts, args.seed + 1000 * t + (load == "skewed"))
                    offs = torch.tensor(counts, device=dev).cumsum(0).to(torch.int32)
                    a = torch.randn(m, k, device=dev, dtype=dt, generator=gen)
                    flop = 2.0 * m * n * k
                    out = torch.empty(m, n, device=dev, dtype=dt)
                    starts = [0]
                    for c in counts:
                        starts.append(starts[-1] + c)

                    def loop():
                        for g, c in enumerate(counts):
                            if c:
                                torch.mm(a[starts[g]:starts[g + 1]], b[g], out=out[starts[g]:starts[g + 1]])
                        return out

                    methods = {"cutec": lambda: ct.grouped_mm(a, b, offs),
                               "torch._grouped_mm": (lambda: torch._grouped_mm(a, b, offs=offs)) if has_grouped
                               else None,
                               "mm loop": loop}
                    r = dict(model=model, gemm=gemm, tokens=t, m=m, n=n, k=k, experts=experts, load=load,
                             nonzero=sum(1 for c in counts if c), max_rows=max(counts), flop=flop)
                    cells = []
                    for name, fn in methods.items():
                        if fn is None:
                            ms, why = None, "torch has no _grouped_mm"
                        else:
                            ms, why = timed(fn, args.iters)
                        err = max_rel_err(fn(), a, b, counts) if ms is not None else None
                        if why:
                            notes.setdefault(f"{name}: {why}", []).append(f"{model} {gemm} {t} {load}")
                        r[name] = dict(ms=ms, tflops=flop / ms / 1e9 if ms else None, max_rel_err=err, why=why)
                        cells += list(fmt(ms, flop))
                    if r["cutec"]["ms"] is not None:
                        r["cutec_choice"] = dg.choice(plan_grouped_cached(OP, a, b, offs))
                    best = min((r[x]["ms"] for x in ("torch._grouped_mm", "mm loop") if r[x]["ms"]), default=None)
                    ratio = f"{best / r['cutec']['ms']:.2f}" if best and r["cutec"]["ms"] else "n/a"
                    errs = " / ".join("n/a" if r[x]["max_rel_err"] is None else f"{r[x]['max_rel_err']:.1e}"
                                      for x in methods)
                    rows_md.append(f"{label} {r['nonzero']}/{experts}, {r['max_rows']} | " + " | ".join(cells) +
                                   f" | {ratio} | {errs} |")
                    print(rows_md[-1], flush=True)
                    data.append(r)
                    del a, offs, out
            del w
            torch.cuda.empty_cache()
    head = machine() + [
        f"bfloat16 in and out; B the experts' (E, N, K) weights through .transpose(-2, -1); seed {args.seed}",
        "cutec: the first call of each (M, N, K, experts) class tunes it (the warm-up, not timed); the skewed "
        "loads reuse the decision tuned on the balanced ones",
        "TFLOP/s over the real rows (2 sum(rows) N K); cutec / best: cutec's TFLOP/s over the best other's",
        f"at most {args.iters} calls per timing (fewer where a call is long), median of 5"]
    lines = ["# cutec.torch.grouped_mm against torch._grouped_mm and a loop of torch.mm", ""]
    lines += [f"- {h}" for h in head]
    lines += ["", "| model | GEMM | tokens | rows M | load | experts with rows, most rows | cutec ms | TFLOP/s | "
              "torch._grouped_mm ms | TFLOP/s | mm loop ms | TFLOP/s | cutec / best | max rel err (cutec / "
              "grouped / loop) |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows_md
    if notes:
        lines += ["", "n/a:"] + [f"- {why} ({len(where)} rows, first: {where[0]})" for why, where in notes.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    write_out("grouped", text, {"machine": head, "rows": data, "notes": notes})


if __name__ == "__main__":
    main()
