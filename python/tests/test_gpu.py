"""The ops on a GPU (scripts/gpu-run.sh, TORCH=1): every op against PyTorch in
float32 on random and ragged shapes in bfloat16 and float16, every
activation, strided inputs, another stream, CUDA graph capture and replay
after a warm-up, the refusal to tune during capture, torch.compile
(fullgraph, and mode="reduce-overhead"), swap_linear, bad inputs; bmm and
matmul against torch.bmm (batches of 1, 3 and 16, odd M and N, transposed,
interleaved and expanded operands), captured and compiled; grouped_mm
against a float64 reference per group (ragged groups, empty ones
included, both storages of B, bf16 and f32 outputs, f16), captured with
new row ends at each replay, compiled; cutec._fast's calls against the
Python path's; scaled_mm against a float64
reference from the fp8 values and scales (each scale mode on ragged M and
N, a bias, 16-bit, float32 and fp8 outputs with amax, e5m2), captured and
compiled.

    python python/tests/run.py --need torch test_gpu      # CUTEC_PACKS: the packs to use
"""
import unittest

import torch
import torch.nn.functional as F

import cutec.torch as ct
from cutec import capi

BF16, F16 = torch.bfloat16, torch.float16
ACTS = {
    "identity": lambda v: v,
    "relu": F.relu,
    "relu6": F.relu6,
    "gelu_tanh": lambda v: F.gelu(v, approximate="tanh"),
    "gelu_erf": F.gelu,
    "silu": F.silu,
    "sigmoid": torch.sigmoid,
}
GATED = {"swiglu": lambda g, u: F.silu(g) * u, "geglu": lambda g, u: F.gelu(g, approximate="tanh") * u}
SHAPES = [(1, 256, 512), (64, 1024, 512), (127, 333, 191), (1000, 1536, 512), (4096, 4096, 4096)]
DEV = "cuda"


def setUpModule():
    if not torch.cuda.is_available():
        raise unittest.SkipTest("no CUDA device")
    torch.manual_seed(0)
    dg = ct.device_gemm(torch.cuda.current_device())
    # these tests check results, not speed: a shorter tuning per class
    # (every class is checked against the tuner's reference all the same)
    for opt, value in ((capi.OPT_TUNE_RUNS, 20), (capi.OPT_TUNE_FINALISTS, 3), (capi.OPT_CUBLAS_ALGOS, 2)):
        dg.set_option(opt, value)
    print(f"\ncutec on {torch.cuda.get_device_name()}: {dg.pack_count} packs, skipped {dg.skipped_packs}")


def rnd(*shape, dtype=BF16):
    return torch.randn(*shape, device=DEV, dtype=torch.float32).to(dtype)


def close(test, got, want, dtype=BF16, ulps=4):
    eps = {BF16: 2.0**-8, F16: 2.0**-11}[dtype]
    scale = want.abs().max().item() + 1e-6
    err = (got.float() - want).abs().max().item()
    test.assertLessEqual(err, ulps * eps * scale, f"max error {err} at scale {scale}")


class Ops(unittest.TestCase):
    def test_mm_shapes_dtypes(self):
        for dtype in (BF16, F16):
            for m, n, k in SHAPES:
                with self.subTest(m=m, n=n, k=k, dtype=dtype):
                    a, b = rnd(m, k, dtype=dtype), rnd(k, n, dtype=dtype)
                    close(self, ct.mm(a, b), a.float() @ b.float(), dtype)

    def test_linear_activations(self):
        for dtype, (m, n, k) in ((BF16, (77, 384, 256)), (BF16, (512, 1024, 768)), (F16, (77, 384, 256))):
            x, w, b = rnd(m, k, dtype=dtype), rnd(n, k, dtype=dtype), rnd(n, dtype=dtype)
            v = x.float() @ w.float().t()
            for name, fn in ACTS.items():
                for bias in (None, b) if name in ("identity", "gelu_tanh", "silu") else (b,):
                    with self.subTest(dtype=dtype, m=m, act=name, bias=bias is not None):
                        want = fn(v + (b.float() if bias is not None else 0))
                        close(self, ct.linear(x, w, bias, activation=name), want, dtype)

    def test_gated(self):
        for dtype, m in ((BF16, 1), (BF16, 300), (F16, 64)):
            x, gate, up, bg, bu = rnd(m, 512, dtype=dtype), rnd(768, 512, dtype=dtype), rnd(768, 512, dtype=dtype), \
                rnd(768, dtype=dtype), rnd(768, dtype=dtype)
            w, b = ct.interleave_gate_up(gate, up), ct.interleave_gate_up(bg, bu)
            for name, fn in GATED.items():
                for bias in (None, b):
                    with self.subTest(dtype=dtype, m=m, act=name, bias=bias is not None):
                        add = bias is not None
                        g = x.float() @ gate.float().t() + (bg.float() if add else 0)
                        u = x.float() @ up.float().t() + (bu.float() if add else 0)
                        close(self, ct.linear(x, w, bias, activation=name), fn(g, u), dtype, ulps=8)

    def test_addmm_and_gemm(self):
        a, b = rnd(200, 384), rnd(384, 640)
        ab = a.float() @ b.float()
        for inp in (rnd(640), rnd(200, 1), rnd(200, 640), rnd(1, 1)):
            for beta, alpha in ((1.0, 1.0), (0.5, 2.0)):
                with self.subTest(shape=tuple(inp.shape), beta=beta):
                    want = torch.addmm(inp.float(), a.float(), b.float(), beta=beta, alpha=alpha)
                    close(self, ct.addmm(inp, a, b, beta=beta, alpha=alpha), want)
        c, bias, bias_row = rnd(200, 640), rnd(640), rnd(200)
        d, aux = ct.gemm(a, b, c, bias=bias, bias_row=bias_row, alpha=0.5, beta=2.0, activation="gelu_tanh", aux=True)
        v = 0.5 * ab + 2.0 * c.float() + bias.float() + bias_row.float()[:, None]
        close(self, aux, v)
        close(self, d, F.gelu(v, approximate="tanh"))

    def test_strided_inputs(self):
        big_a, big_b = rnd(600, 1100), rnd(1000, 900)
        cases = [
            ("sliced leading dims", big_a[:500, 64:576], big_b[:512, :384]),
            ("A transposed", big_a[:512, :500].t(), big_b[:512, :384]),
            ("B a weight (column-major)", big_a[:500, :512], big_b[:384, :512].t()),
            ("A and B transposed, sliced", big_a[8:520, 16:516].t(), big_b[100:484, :512].t()),
            ("A every other column (copied)", big_a[:500, :1024:2], big_b[:512, 3:387]),
            ("odd leading dim", big_a[:333, :191], rnd(191, 257)),
        ]
        for name, a, b in cases:
            with self.subTest(name):
                close(self, ct.mm(a, b), a.float() @ b.float())
        x = rnd(4, 9, 512).transpose(0, 1)  # a 3-D input that is not contiguous
        w = rnd(256, 512)
        close(self, ct.linear(x, w), x.float() @ w.float().t())

    def test_other_stream(self):
        a, b = rnd(512, 512), rnd(512, 512)
        ct.mm(a, b)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            d = ct.mm(a, b)
        s.synchronize()
        close(self, d, a.float() @ b.float())

    def test_empty(self):
        self.assertEqual(ct.linear(rnd(0, 64), rnd(48, 64)).shape, (0, 48))

    def test_fast_path(self):
        """cutec._fast (where the wheel was built with it): a repeated call is
        made without DeviceGemm.run and equals the Python path's result."""
        from cutec.torch import device, ops

        if device.fast is None:
            self.skipTest("cutec._fast not built")
        dg = ct.device_gemm(torch.cuda.current_device())
        a, w, bias = rnd(96, 512), rnd(384, 512), rnd(384)
        calls = {"mm": lambda: ct.mm(a, w.t()), "linear": lambda: ct.linear(a, w, bias, "gelu_tanh")}
        runs = []
        real = dg.run
        dg.run = lambda *args, **kw: (runs.append(1), real(*args, **kw))[1]
        try:
            for name, fn in calls.items():
                with self.subTest(name):
                    saved = ops._fast_mm, ops._fast_linear
                    ops._fast_mm = ops._fast_linear = None
                    try:
                        want = fn()  # the Python path, which hands the call over
                    finally:
                        ops._fast_mm, ops._fast_linear = saved
                    n = len(runs)
                    got = fn()
                    self.assertEqual(len(runs), n)
                    self.assertTrue(torch.equal(got, want))
        finally:
            del dg.run


class Batched(unittest.TestCase):
    def test_bmm_ragged(self):
        for dtype in (BF16, F16):
            for batch, (m, n, k) in ((1, (129, 257, 72)), (3, (100, 37, 136)), (3, (333, 517, 200)),
                                     (16, (255, 383, 520)), (16, (64, 64, 64)), (3, (1, 7, 8))):
                with self.subTest(dtype=dtype, batch=batch, m=m, n=n, k=k):
                    a, b = rnd(batch, m, k, dtype=dtype), rnd(batch, k, n, dtype=dtype)
                    d = ct.bmm(a, b)
                    self.assertEqual((d.shape, d.dtype), ((batch, m, n), dtype))
                    close(self, d, torch.bmm(a.float(), b.float()), dtype)

    def test_bmm_layouts(self):
        big = rnd(17, 300, 600)
        cases = [
            ("B transposed (column-major)", rnd(3, 257, 512), rnd(3, 129, 512).transpose(1, 2)),
            ("A transposed", rnd(16, 512, 257).transpose(1, 2), rnd(16, 512, 129)),
            ("both transposed", rnd(3, 384, 100).transpose(1, 2), rnd(3, 136, 384).transpose(1, 2)),
            ("sliced leading dims", big[:16, :255, 64:320], big[1:, 8:264, 300:583]),
            ("problems interleaved (heads)", rnd(257, 16, 128).permute(1, 0, 2), rnd(16, 128, 200)),
            ("A expanded (stride 0)", rnd(333, 256).expand(16, 333, 256), rnd(16, 256, 129)),
            ("B expanded (stride 0, a shared weight)", rnd(16, 77, 512), rnd(512, 384).expand(16, 512, 384)),
            ("A every other column (copied)", rnd(3, 100, 512)[:, :, ::2], rnd(3, 256, 96)),
        ]
        for name, a, b in cases:
            with self.subTest(name):
                close(self, ct.bmm(a, b), torch.bmm(a.float(), b.float()))

    def test_matmul(self):
        x, w = rnd(16, 77, 512), rnd(512, 384)
        close(self, ct.matmul(x, w), x.float() @ w.float())  # one GEMM over the batch's rows
        xt = rnd(77, 16, 512).transpose(0, 1)
        close(self, ct.matmul(xt, w), xt.float() @ w.float())  # a batch, w broadcast
        a, b = rnd(77, 512), rnd(3, 512, 129)
        close(self, ct.matmul(a, b), a.float() @ b.float())

    def test_capture_and_compile(self):
        q, k = rnd(16, 128, 64), rnd(16, 64, 256)
        f = lambda t: ct.bmm(t, k) * 2  # noqa: E731
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            f(q)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = f(q)
        for _ in range(2):
            q.copy_(rnd(16, 128, 64))
            g.replay()
            torch.cuda.synchronize()
            close(self, out, 2 * torch.bmm(q.float(), k.float()))
        w = rnd(256, 32)
        torch._dynamo.reset()
        c = torch.compile(lambda t: ct.matmul(ct.bmm(t, k), w), fullgraph=True)
        close(self, c(q), torch.bmm(q.float(), k.float()) @ w.float(), ulps=8)

    def test_bad_inputs(self):
        a, b = rnd(3, 64, 128), rnd(3, 128, 96)
        for fn, status, text in ((lambda: ct.bmm(a, rnd(4, 128, 96)), "CUTEC_ERR_BAD_SIZE", "the batch differs"),
                                 (lambda: ct.bmm(a[0], b), "CUTEC_ERR_BAD_SIZE", "must be 3-D"),
                                 (lambda: ct.bmm(a.float(), b.float()), "CUTEC_ERR_INVALID_ARGUMENT", "bfloat16"),
                                 (lambda: ct.bmm(a, b.cpu()), "CUTEC_ERR_INVALID_ARGUMENT", "B is on cpu")):
            with self.assertRaises(ct.CutecError) as cm:
                fn()
            self.assertEqual(cm.exception.status, status)
            self.assertIn(text, str(cm.exception))


def grouped_ref(a, b, offs):
    """Each group's rows of a times its b in float64 (rows past the last end: zero)."""
    want, start = torch.zeros(a.shape[0], b.shape[2], dtype=torch.float64, device=DEV), 0
    for g, end in enumerate(offs.tolist()):
        want[start:end] = a[start:end].double() @ b[g].double()
        start = end
    return want


def ends(*sizes):
    return torch.tensor(sizes, dtype=torch.int32, device=DEV).cumsum(0, dtype=torch.int32)


class Grouped(unittest.TestCase):
    """grouped_mm on the stdlib's grouped packs (sm_90a: bf16 in, bf16 or
    f32 out, B K-major or row-major; f16 in and out, B K-major)."""

    SIZES = (0, 1, 7, 130, 0, 64, 255, 3)  # rows per group, 460 in all

    @classmethod
    def setUpClass(cls):
        if torch.cuda.get_device_capability() < (9, 0):
            raise unittest.SkipTest("the stdlib's grouped GEMM packs are sm_90a")

    def check(self, d, want, out_dtype, rows):
        self.assertEqual(d.dtype, out_dtype)
        if out_dtype == torch.float32:  # f32 accumulation of exact products
            scale = want[:rows].abs().max().item() + 1e-6
            err = (d[:rows].double() - want[:rows]).abs().max().item()
            self.assertLessEqual(err, 1e-5 * scale, f"max error {err} at scale {scale}")
        else:
            close(self, d[:rows], want[:rows].float(), out_dtype)

    def test_ragged_groups(self):
        offs, rows = ends(*self.SIZES), sum(self.SIZES)
        g, n, k = len(self.SIZES), 384, 512
        for dtype, out_dtypes in ((BF16, (None, torch.float32)), (F16, (None,))):
            a, w = rnd(rows + 20, k, dtype=dtype), rnd(g, n, k, dtype=dtype)  # 20 rows past the last end
            storages = (("K-major (G, N, K) weights", w.transpose(-2, -1)), ("row-major (G, K, N)", rnd(g, k, n)))
            for name, b in storages if dtype == BF16 else storages[:1]:
                want = grouped_ref(a, b, offs)
                for out_dtype in out_dtypes:
                    with self.subTest(dtype=dtype, b=name, out_dtype=out_dtype):
                        d = ct.grouped_mm(a, b, offs, out_dtype=out_dtype)
                        self.assertEqual(d.shape, (rows + 20, n))
                        self.check(d, want, out_dtype or dtype, rows)

    def test_one_group_and_empty_ones(self):
        a, b = rnd(300, 256), rnd(4, 256, 256).transpose(-2, -1)
        for sizes in ((300, 0, 0, 0), (0, 0, 0, 300), (0, 150, 150, 0)):
            with self.subTest(sizes=sizes):
                offs = ends(*sizes)
                self.check(ct.grouped_mm(a, b, offs), grouped_ref(a, b, offs), BF16, 300)

    def test_capture_with_new_row_ends(self):
        # the row ends are read on the device as the kernel runs: a captured graph follows new values
        a, b = rnd(512, 256), rnd(4, 128, 256).transpose(-2, -1)
        offs = ends(100, 200, 12, 200)
        f = lambda: ct.grouped_mm(a, b, offs)  # noqa: E731
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            f()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = f()
        for sizes in ((128, 128, 128, 128), (0, 500, 0, 12), (512, 0, 0, 0)):
            offs.copy_(ends(*sizes))
            g.replay()
            torch.cuda.synchronize()
            self.check(out, grouped_ref(a, b, offs), BF16, 512)

    def test_compiled(self):
        x, w_up, w_down = rnd(333, 256), rnd(4, 512, 256), rnd(4, 256, 512)
        offs = ends(33, 100, 0, 200)

        def moe(t, o):
            h = torch.relu(ct.grouped_mm(t, w_up.transpose(-2, -1), o))
            return ct.grouped_mm(h, w_down.transpose(-2, -1), o, out_dtype=torch.float32)

        torch._dynamo.reset()
        c = torch.compile(moe, fullgraph=True)
        h = torch.relu(grouped_ref(x, w_up.transpose(-2, -1), offs)).to(BF16)
        close(self, c(x, offs), grouped_ref(h, w_down.transpose(-2, -1), offs).float(), ulps=16)

    def test_bad_inputs(self):
        a, b, offs = rnd(64, 128), rnd(4, 128, 96), ends(16, 16, 16, 16)
        for fn, status, text in (
                (lambda: ct.grouped_mm(a, b, offs.cpu()), "CUTEC_ERR_INVALID_ARGUMENT", "offs is on cpu and A on cuda"),
                (lambda: ct.grouped_mm(a, b, offs[:3]), "CUTEC_ERR_BAD_SIZE", "one row end per group of B (4)"),
                (lambda: ct.grouped_mm(a, b, offs.long()), "CUTEC_ERR_INVALID_ARGUMENT", "offs must be int32"),
                (lambda: ct.grouped_mm(a, b[0], offs), "CUTEC_ERR_BAD_SIZE", "B 3-D (G x K x N)")):
            with self.assertRaises(ct.CutecError) as cm:
                fn()
            self.assertEqual(cm.exception.status, status)
            self.assertIn(text, str(cm.exception))


E4, E5 = torch.float8_e4m3fn, torch.float8_e5m2


def fp8(*shape, dtype=E4):
    """Random fp8 values (randn, saturating at the type's largest)."""
    return (torch.randn(*shape, device=DEV) * 2).to(dtype)


def scales(*shape):
    """Positive float32 scales in [0.25, 4)."""
    return torch.rand(*shape, device=DEV) * 3.75 + 0.25


def spread(s, rows, cols):
    """A scale per element from one per 128-block (block-wise scales), float64."""
    s = s.double()
    s = s.repeat_interleave(128, dim=0)[:rows] if s.shape[0] != rows else s
    return s.repeat_interleave(128, dim=1)[:, :cols] if s.shape[1] != cols else s


def scaled_ref(a, b, sa, sb, bias=None):
    """(a * scale_a) @ (b * scale_b) + bias in float64, from the fp8 values and the scales of any mode."""
    m, k = a.shape
    n = b.shape[1]
    if sa.numel() == 1 and sb.numel() == 1:
        v = (a.double() @ b.double()) * (sa.double().item() * sb.double().item())
    elif tuple(sa.shape) == (m, 1):
        v = (a.double() * sa.double()) @ (b.double() * sb.double())
    else:  # block-wise: 1 x 128 blocks of A (M x ceil(K/128)), 128 x 128 of B (ceil(K/128) x ceil(N/128))
        v = (a.double() * spread(sa, m, k)) @ (b.double() * spread(sb, k, n))
    return v if bias is None else v + bias.double()


def scaled_close(test, got, want, rel):
    err = (got.double() - want).abs().max().item()
    scale = want.abs().max().item() + 1e-6
    test.assertLessEqual(err, rel * scale, f"max error {err} at scale {scale}")


class Scaled(unittest.TestCase):
    """scaled_mm against a float64 reference from the fp8 values and the
    scales: each scale mode on ragged M and N (the stdlib's fp8 packs,
    prebuilt/gemm_sm90_e4m3_{tensor,row,block}.pack, and cuBLASLt's fp8
    matmul for per-tensor and row-wise scales), a bias, 16-bit, float32
    and fp8 outputs, e5m2, captured, compiled, bad inputs."""

    SHAPES = [(1, 256, 512), (77, 208, 336), (1000, 1040, 1024)]  # K a multiple of 16, N of 16 (16-byte rows)
    REL = {BF16: 2.0**-6, F16: 2.0**-8, torch.float32: 2.0**-9}  # a few output ulps, and fp8 MMA's accumulation

    def setUp(self):
        if torch.cuda.get_device_capability() < (8, 9):
            self.skipTest("fp8 needs sm_89 or later")

    def modes(self, m, n, k):
        kb, nb = -(-k // 128), -(-n // 128)
        yield "tensor", scales(()), scales(1)
        yield "row", scales(m, 1), scales(1, n)
        yield "block", scales(kb, m).t(), scales(nb, kb).t()  # torch's layouts: outer-dim-major

    def test_modes_ragged(self):
        torch.manual_seed(11)
        for m, n, k in self.SHAPES:
            a, w = fp8(m, k), fp8(n, k)
            for mode, sa, sb in self.modes(m, n, k):
                with self.subTest(mode=mode, m=m, n=n, k=k):
                    d = ct.scaled_mm(a, w.t(), sa, sb, out_dtype=BF16)
                    self.assertEqual((d.shape, d.dtype), ((m, n), BF16))
                    scaled_close(self, d, scaled_ref(a, w.t(), sa, sb), self.REL[BF16])

    def test_scales_in_other_strides_are_copied(self):
        m, n, k = 77, 208, 336
        a, w = fp8(m, k), fp8(n, k)
        sa, sb = scales(m, 3), scales(3, 2)  # block-wise, contiguous (not outer-dim-major): copied
        scaled_close(self, ct.scaled_mm(a, w.t(), sa, sb, out_dtype=BF16), scaled_ref(a, w.t(), sa, sb),
                     self.REL[BF16])

    def test_outputs_bias_and_e5m2(self):
        torch.manual_seed(12)
        m, n, k = 77, 208, 336
        a, w, sa, sb = fp8(m, k), fp8(n, k), scales(()), scales(())
        want = scaled_ref(a, w.t(), sa, sb)
        for out in (F16, torch.float32):
            with self.subTest(out=out):
                d = ct.scaled_mm(a, w.t(), sa, sb, out_dtype=out)
                self.assertEqual(d.dtype, out)
                scaled_close(self, d, want, self.REL[out])
        bias = rnd(n)
        scaled_close(self, ct.scaled_mm(a, w.t(), sa, sb, bias, out_dtype=BF16), want + bias.double(),
                     self.REL[BF16])
        w5 = fp8(n, k, dtype=E5)
        scaled_close(self, ct.scaled_mm(a, w5.t(), sa, sb, out_dtype=BF16), scaled_ref(a, w5.t(), sa, sb),
                     self.REL[BF16])

    def test_fp8_output_and_amax(self):
        torch.manual_seed(13)
        m, n, k = 77, 208, 336
        a, w, sa, sb = fp8(m, k), fp8(n, k), scales(()), scales(())
        want = scaled_ref(a, w.t(), sa, sb)
        sr = torch.tensor([200.0], device=DEV) / want.abs().max().float()  # the output's largest near 200 of 448
        d, mx = ct.scaled_mm(a, w.t(), sa, sb, scale_result=sr, out_dtype=E4, amax=True)
        self.assertEqual((d.dtype, mx.shape), (E4, ()))
        target = want * sr.double().item()
        err = (d.double() - target).abs()
        # e4m3 rounds to 3 mantissa bits (half an ulp: 2^-4 relative); the sum's own error beside it
        self.assertTrue(bool((err <= target.abs() * 2.0**-3 + 2e-3 * target.abs().max()).all()),
                        f"max error {err.max().item()}")
        self.assertLessEqual(abs(mx.item() - want.abs().max().item()), 1e-2 * want.abs().max().item())

    def test_capture_and_compile(self):
        m, n, k = 64, 256, 512
        a, w, sa, sb = fp8(m, k), fp8(n, k), scales(m, 1), scales(1, n)
        f = lambda t: ct.scaled_mm(t, w.t(), sa, sb, out_dtype=BF16)  # noqa: E731
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            f(a)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = f(a)
        for _ in range(2):
            a.copy_(fp8(m, k))
            g.replay()
            torch.cuda.synchronize()
            scaled_close(self, out, scaled_ref(a, w.t(), sa, sb), self.REL[BF16])
        torch._dynamo.reset()
        c = torch.compile(lambda t: torch.relu(f(t)) * 2, fullgraph=True)
        scaled_close(self, c(a), torch.relu(scaled_ref(a, w.t(), sa, sb)) * 2, 2 * self.REL[BF16])

    def test_bad_inputs(self):
        a, w, one = fp8(64, 256), fp8(96, 256), scales(())
        for fn, status, text in (
                (lambda: ct.scaled_mm(a, w.t().contiguous(), one, one), "CUTEC_ERR_UNSUPPORTED",
                 "fp8 operands must be K-major"),
                (lambda: ct.scaled_mm(a.float(), w.t(), one, one), "CUTEC_ERR_INVALID_ARGUMENT", "must be float8"),
                (lambda: ct.scaled_mm(a, w.t(), one.cpu(), one), "CUTEC_ERR_INVALID_ARGUMENT", "scale_a is on cpu"),
                (lambda: ct.scaled_mm(a, w.t(), scales(64, 2), one), "CUTEC_ERR_BAD_SIZE", "name no scale mode")):
            with self.assertRaises(ct.CutecError) as cm:
                fn()
            self.assertEqual(cm.exception.status, status)
            self.assertIn(text, str(cm.exception))


class Graphs(unittest.TestCase):
    def test_capture_and_replay_after_warm_up(self):
        x, w, b = rnd(96, 1024), rnd(2048, 1024), rnd(2048)
        w2 = ct.interleave_gate_up(rnd(512, 1024), rnd(512, 1024))
        f = lambda t: ct.linear(t, w, b, "gelu_tanh") + ct.linear(t, w2, None, "swiglu").repeat(1, 4)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # the warm-up, as torch.cuda.graph's documentation does it
            f(x)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = f(x)
        for _ in range(3):
            x.copy_(rnd(96, 1024))
            g.replay()
            torch.cuda.synchronize()
            close(self, out, f(x).float(), ulps=8)

    def test_capture_before_tuning_is_refused(self):
        x, w = rnd(77, 640), rnd(1344, 640)  # a shape no other test runs
        g = torch.cuda.CUDAGraph()
        with self.assertRaises(ct.CutecError) as cm:
            with torch.cuda.graph(g):
                ct.linear(x, w)
        self.assertEqual(cm.exception.status, "CUTEC_ERR_KERNEL_NOT_FOUND")
        self.assertIn("tuning cannot run during CUDA graph capture", cm.exception.message)
        close(self, ct.linear(x, w), x.float() @ w.float().t())  # the context is still usable


class Compiled(unittest.TestCase):
    def model(self):
        w1 = ct.interleave_gate_up(rnd(512, 256), rnd(512, 256))
        w2, b2 = rnd(256, 512), rnd(256)
        return lambda x: ct.linear(torch.relu(ct.linear(x, w1, None, "swiglu")), w2, b2, "silu") * 2

    def test_fullgraph(self):
        f = self.model()
        x = rnd(33, 256)
        torch._dynamo.reset()
        g = torch.compile(f, fullgraph=True)
        close(self, g(x), f(x).float())

    def test_reduce_overhead(self):
        f = self.model()
        x = rnd(64, 256)
        torch._dynamo.reset()
        g = torch.compile(f, fullgraph=True, mode="reduce-overhead")
        for _ in range(4):  # cudagraph trees run eagerly first (the warm-up), then record, then replay
            out = g(x)
        close(self, out, f(x).float())


class Modules(unittest.TestCase):
    def test_swap_linear(self):
        nn = torch.nn
        model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(approximate="tanh"), nn.Linear(1024, 512), nn.SiLU(),
                              nn.Linear(512, 256)).to(DEV, BF16)
        x = rnd(50, 512)
        with torch.no_grad():
            want = model.float()(x.float())
            model.to(BF16)
            names = ct.swap_linear(model, example_inputs=(x,))
            self.assertEqual(names, ["0", "2", "4"])
            close(self, model(x), want, ulps=16)


class BadInputs(unittest.TestCase):
    def check(self, fn, status, text):
        with self.assertRaises(ct.CutecError) as cm:
            fn()
        self.assertEqual(cm.exception.status, status)
        self.assertIn(text, str(cm.exception))

    def test_errors(self):
        a, b = rnd(64, 128), rnd(128, 96)
        self.check(lambda: ct.mm(a, b.cpu()), "CUTEC_ERR_INVALID_ARGUMENT", "B is on cpu and A on cuda:0")
        self.check(lambda: ct.mm(a.cpu(), b.cpu()), "CUTEC_ERR_INVALID_ARGUMENT", "A is on cpu: cutec runs on CUDA")
        self.check(lambda: ct.mm(a.float(), b.float()), "CUTEC_ERR_INVALID_ARGUMENT", "must both be bfloat16 or both float16")
        self.check(lambda: ct.mm(a, b[:100]), "CUTEC_ERR_BAD_SIZE", "K differs")
        self.check(lambda: ct.linear(a, rnd(40, 128), activation="swiglu"), "CUTEC_ERR_BAD_SIZE", "multiple of 16")


if __name__ == "__main__":
    unittest.main()
