"""Host time of one cached call on a machine without a GPU: the Python
direct path of cutec.torch.mm and linear, DeviceGemm.run alone and the
raw ctypes call alone, over the runtime on the mock driver
(tests/runtime/mock_driver.c), whose device memory is host memory (CPU
tensors go through ops._host_gemm_for_tests, as in python/tests/test_mock.py).
The classes are tuned with the mock computing; then its launches are made
to return without running the kernel (cutec_mock_set_compute(0), and the
mock cuBLASLt's cutec_mock_lt_set_compute(0)), so what
is timed is the Python side, the runtime's cached call and a launch whose
cost is the mock's argument checks.  torch.matmul and torch.empty on CPU
tensors are printed for scale (torch.matmul computes its GEMM).  Where
cutec._fast is loaded (CUTEC_FAST names the build's, as for the tests)
the ops' rows are timed again on the pure-Python path.

The CPU path differs from the CUDA one only in where the handle and stream
come from (ops._where's CPU branch against is_cuda, get_device() and the
current stream's query): the rest is the same code.

    CUTEC_FAST=build/python/_fast.cpython-311-x86_64-linux-gnu.so \
        python python/bench/overhead_cpu.py [--build build] [--m 64 --n 64 --k 64] [--calls 20000]
"""
import argparse
import ctypes
import os
import sys
import time


def host_us(fn, calls, batch=64, repeats=5):
    """Median over batches of the microseconds per call, the best of
    repeats such medians (the machine is shared: noise only adds)."""
    for _ in range(batch):
        fn()
    best = None
    for _ in range(repeats):
        per = []
        for _ in range(max(1, calls // batch // repeats)):
            t = time.perf_counter()
            for _ in range(batch):
                fn()
            per.append((time.perf_counter() - t) / batch)
        per.sort()
        med = per[len(per) // 2] * 1e6
        best = med if best is None else min(best, med)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build", help="the cutec build tree (runtime and tests/runtime)")
    ap.add_argument("--m", type=int, default=64)
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--only", default="", help="rows whose name contains this (for profilers)")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    mock = os.path.join(build, "tests/runtime/libcutec_mock_driver.so")
    os.environ.setdefault("CUTEC_LIB", os.path.join(build, "runtime/libcutec_rt.so"))
    os.environ["CUTEC_CUDA_DRIVER"] = mock
    os.environ["CUTEC_CUBLASLT"] = os.path.join(build, "tests/runtime/libcutec_mock_cublaslt.so")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

    import torch

    import cutec.torch as ct
    from cutec import capi
    from cutec.torch import ops
    from cutec.torch.plan import plan_cached

    packs = [os.path.join(build, "tests/runtime", p) for p in ("test_gemm.pack", "epilogue_apply.pack")]
    dg = ct.DeviceGemm(0, packs=packs)
    dg.set_option(capi.OPT_DISK_CACHE, 0)
    ops._host_gemm_for_tests = dg
    torch.manual_seed(0)
    dt = torch.bfloat16
    a = torch.randn(args.m, args.k, dtype=dt)
    w = torch.randn(args.n, args.k, dtype=dt)
    b, bias = w.t(), torch.randn(args.n, dtype=dt)
    x3 = torch.randn(2, args.m, args.k, dtype=dt)
    # tuned (and checked) with the mock computing, then checked once more here
    for got, want in ((ct.mm(a, b), a.float() @ b.float()),
                      (ct.linear(a, w, bias, "gelu_tanh"),
                       torch.nn.functional.gelu(a.float() @ w.float().t() + bias.float(), approximate="tanh")),
                      (ct.linear(x3, w), x3.float() @ w.float().t())):
        err = (got.float() - want).abs().max().item()
        assert err <= 0.05 * (want.abs().max().item() + 1), err
    ctypes.CDLL(mock).cutec_mock_set_compute(0)
    ctypes.CDLL(os.environ["CUTEC_CUBLASLT"]).cutec_mock_lt_set_compute(0)

    plan = plan_cached("cutec.torch.mm", a, b)
    d = torch.empty(args.m, args.n, dtype=dt)
    ptrs = (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, 0, 0, 0)
    pat = plan.problem_at()
    rows = [
        ("torch.empty((m, n), dtype=bf16) (CPU)", lambda: torch.empty((args.m, args.n), dtype=dt)),
        ("torch.matmul(a, b) (CPU, computes)", lambda: torch.matmul(a, b)),
        ("cutec.torch.mm(a, b)", lambda: ct.mm(a, b)),
        ("cutec.torch.linear(a, w, bias, 'gelu_tanh')", lambda: ct.linear(a, w, bias, "gelu_tanh")),
        ("cutec.torch.linear(x, w), x 3-D", lambda: ct.linear(x3, w)),
        ("DeviceGemm.run (planned: the C call and its Python)", lambda: dg.run(plan, ptrs, 0, False)),
        ("cutec_gemm_ex through ctypes alone", lambda: dg._gemm_ex_raw(dg._hv, pat, dg._args_at, 0)),
    ]
    head = [f"torch {torch.__version__}, CPU tensors, the mock driver without compute",
            f"problem: {args.m}x{args.n}x{args.k} bf16, batches of 64 calls, median (best of 5)"]
    fast = ops._fast_mm, ops._fast_linear
    head.append(f"cutec._fast: {'loaded' if fast[0] is not None else 'absent (the Python path)'}")
    print("\n".join(head))
    print("| call | us per call |\n|---|---|")
    for name, fn in rows:
        if args.only in name:
            print(f"| {name} | {host_us(fn, args.calls):.2f} |", flush=True)
    if fast[0] is not None:  # the pure-Python path, as where cutec._fast is not built (CUTEC_FAST=0)
        ops._fast_mm = ops._fast_linear = None
        for name, fn in rows[2:5]:
            name += ", Python path"
            if args.only in name:
                print(f"| {name} | {host_us(fn, args.calls):.2f} |", flush=True)
        ops._fast_mm, ops._fast_linear = fast
    ops._host_gemm_for_tests = None
    dg.close()


if __name__ == "__main__":
    main()
