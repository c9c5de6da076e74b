"""What the benchmarks share: timing with CUDA events, the machine's
description, and where results go ($OUT when set)."""
import json
import os
import statistics
import subprocess

import torch


def gpu_time_ms(fn, iters, repeats=5, warmup=3):
    """Median over repeats of the mean time per call of fn, each repeat
    iters back-to-back calls between two CUDA events (host time included
    where the host is slower than the GPU, as in a model)."""
    return gpu_times_ms([fn], iters, repeats, warmup)[0]


def gpu_times_ms(fns, iters, repeats=5, warmup=3):
    """gpu_time_ms of each of fns, their repeats in alternation (fn 0, fn 1,
    ..., fn 0, ...): under the power cap the clocks drift within seconds,
    and timing one function's repeats after the other's would bill the
    drift to the later one.  Returns each one's median."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, t in zip(fns, times):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(iters):
                fn()
            end.record()
            end.synchronize()
            t.append(start.elapsed_time(end) / iters)
    return [statistics.median(t) for t in times]


def machine():
    """Lines describing the GPU, its clocks, torch and cuBLASLt."""
    import cutec.torch as ct

    dg = ct.device_gemm(torch.cuda.current_device())
    lines = [f"device: {torch.cuda.get_device_name()}", f"torch {torch.__version__} (CUDA {torch.version.cuda})",
             f"cuBLASLt {dg.cublas_version()} (as loaded in this process)",
             f"cutec packs: {dg.pack_count} used, {len(dg.skipped_packs)} for other GPUs skipped"]
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,power.limit", "--format=csv"],
                           capture_output=True, text=True, timeout=20).stdout.strip().splitlines()
        lines.append("nvidia-smi: " + " | ".join(q))
    except (OSError, subprocess.SubprocessError):
        lines.append("nvidia-smi: not available")
    return lines


def write_out(name, text, data):
    """Writes NAME.md and NAME.json to $OUT when it is set."""
    out = os.environ.get("OUT")
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name + ".md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(data, f, indent=1)
