"""Host time of one cached GEMM call from PyTorch: cutec's op (directly,
through cutec._fast where it is built and on the pure-Python path, and
through the dispatcher as torch.compile'd code or a dispatch mode would
call it), the C call alone, and torch.matmul / F.linear; the fp8
scaled_mm against torch._scaled_mm; then the same ops replayed from a
CUDA graph.  Calls are issued in batches of 64 with a
synchronisation between batches (not timed), so that the launch queue never
fills and blocks: what is timed is the host's work.

    python python/bench/overhead.py [--m 64 --n 64 --k 64] [--calls 20000]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import cutec.torch as ct  # noqa: E402
from cutec.torch.plan import plan_cached  # noqa: E402

from common import machine, write_out  # noqa: E402

BATCH = 64


def host_us(fn, calls):
    """Median microseconds per call over batches of BATCH calls."""
    for _ in range(BATCH):
        fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(max(1, calls // BATCH)):
        t = time.perf_counter()
        for _ in range(BATCH):
            fn()
        per.append((time.perf_counter() - t) / BATCH)
        torch.cuda.synchronize()
    per.sort()
    return per[len(per) // 2] * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=64)
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    dev, dt = "cuda", torch.bfloat16
    a = torch.randn(args.m, args.k, device=dev, dtype=dt)
    w = torch.randn(args.n, args.k, device=dev, dtype=dt)
    b, bias = w.t(), torch.randn(args.n, device=dev, dtype=dt)
    ct.mm(a, b), ct.linear(a, w, bias, "gelu_tanh")  # tune both classes first
    dg = ct.device_gemm(torch.cuda.current_device())
    plan = plan_cached("cutec.torch.mm", a, b)
    d = torch.empty(args.m, args.n, device=dev, dtype=dt)
    ptrs = (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, 0, 0, 0)
    stream = torch.cuda.current_stream().cuda_stream

    x3 = torch.randn(2, args.m, args.k, device=dev, dtype=dt)
    ct.linear(x3, w)
    rows = [
        ("torch.matmul(a, b)", lambda: torch.matmul(a, b)),
        ("F.linear(a, w, bias) then F.gelu(tanh)", lambda: F.gelu(F.linear(a, w, bias), approximate="tanh")),
        ("cutec.torch.mm(a, b)", lambda: ct.mm(a, b)),
        ("cutec.torch.linear(a, w, bias, 'gelu_tanh')", lambda: ct.linear(a, w, bias, "gelu_tanh")),
        ("cutec.torch.linear(x, w), x 3-D", lambda: ct.linear(x3, w)),
        ("torch.ops.cutec.mm (the dispatcher's way)", lambda: torch.ops.cutec.mm(a, b)),
        ("DeviceGemm.run (planned: the C call and its Python)", lambda: dg.run(plan, ptrs, stream, False)),
        ("cutec_gemm_ex through ctypes alone",
         lambda: dg._gemm_ex_raw(dg._hv, plan.problem_at(), dg._args_at, stream)),
    ]
    # fp8 (per-tensor scales, a bf16 output) where a pack or cuBLASLt serves it
    a8, w8, one = a.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn), torch.ones((), device=dev)
    try:
        ct.scaled_mm(a8, w8.t(), one, one, out_dtype=dt)
        torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one, out_dtype=dt)
        rows += [("torch._scaled_mm (fp8, per-tensor scales)",
                  lambda: torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one, out_dtype=dt)),
                 ("cutec.torch.scaled_mm (fp8, per-tensor scales)",
                  lambda: ct.scaled_mm(a8, w8.t(), one, one, out_dtype=dt))]
    except (RuntimeError, ct.CutecError) as e:
        print(f"scaled_mm rows left out: {e}")
    results = {name: host_us(fn, args.calls) for name, fn in rows}
    # the pure-Python path, as where cutec._fast is not built (CUTEC_FAST=0)
    from cutec.torch import ops

    fast = ops._fast_mm, ops._fast_linear
    ops._fast_mm = ops._fast_linear = None
    try:
        results["cutec.torch.mm(a, b), Python path (no cutec._fast)"] = host_us(lambda: ct.mm(a, b), args.calls)
        results["cutec.torch.linear(a, w, bias, 'gelu_tanh'), Python path"] = host_us(
            lambda: ct.linear(a, w, bias, "gelu_tanh"), args.calls)
    finally:
        ops._fast_mm, ops._fast_linear = fast

    # graphs: 64 calls captured once, the replay's host time per call
    graphs = {}
    for name, fn in (("torch.matmul", lambda: torch.matmul(a, b)), ("cutec.torch.mm", lambda: ct.mm(a, b))):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(BATCH):
                fn()
        per_call = host_us(g.replay, args.calls // BATCH * BATCH) / BATCH
        graphs[f"{name}, {BATCH} calls in a CUDA graph, per call"] = per_call
    results.update(graphs)

    from cutec.torch.device import host_bound_us

    head = machine() + [f"problem: {args.m}x{args.n}x{args.k} bf16, batches of {BATCH} calls, median",
                        f"CUTEC_HOST_BOUND_US: {host_bound_us()}; mm's decision: {dg.choice(plan)}",
                        f"cutec._fast: {'loaded' if fast[0] is not None else 'absent (the Python path)'}"]
    lines = ["# Host time per cached call", ""] + [f"- {h}" for h in head] + ["", "| call | us per call |", "|---|---|"]
    lines += [f"| {name} | {us:.2f} |" for name, us in results.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    hb = os.environ.get("CUTEC_HOST_BOUND_US")
    write_out("overhead" + (f"-hb{hb}" if hb else ""), text, {"machine": head, "us_per_call": results})


if __name__ == "__main__":
    main()
