import sys, os, time
sys.path.insert(0, "python/bench")
import torch
import cutec.torch as ct
from cutec.torch.scaled import plan_scaled
from common import gpu_times_ms
from cutec.torch.plan import _plans
E4M3 = torch.float8_e4m3fn
def q(t):
    s = (t.float().abs().amax(dim=1, keepdim=True) / 448.0).clamp_min(1e-12)
    return (t.float() / s).to(E4M3), s
dg = ct.device_gemm(0)
for (m, n, k) in [(1, 14336, 4096), (1, 4096, 14336), (1, 4096, 4096), (1, 1024, 4096), (64, 4096, 14336)]:
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02
    x8, sx = q(x); w8, sw = q(w); sw = sw.t()
    f_t = lambda: torch._scaled_mm(x8, w8.t(), scale_a=sx, scale_b=sw, out_dtype=torch.bfloat16)
    f_c = lambda: ct.scaled_mm(x8, w8.t(), sx, sw, out_dtype=torch.bfloat16)
    f_c(); torch.cuda.synchronize()
    plan = [p for k_, p in _plans.items() if k_[0] == "cutec.torch.scaled_mm" and k_[1] == x8.shape and k_[4] == w8.t().shape]
    choice = dg.choice(plan[-1]) if plan else "?"
    copy = plan[-1].copy if plan else "?"
    def host(fn, n=2000):
        for _ in range(64): fn()
        torch.cuda.synchronize(); per = []
        for _ in range(n // 64):
            t = time.perf_counter()
            for _ in range(64): fn()
            per.append((time.perf_counter() - t) / 64); torch.cuda.synchronize()
        per.sort(); return per[len(per)//2] * 1e6
    dev = gpu_times_ms([f_t, f_c], 200)
    print(f"{m}x{n}x{k}: host us torch {host(f_t):.2f} cutec {host(f_c):.2f}; loop ms torch {dev[0]:.4f} cutec {dev[1]:.4f}; copy {copy}; choice {choice}", flush=True)
