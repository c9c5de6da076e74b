"""The ops end to end through the runtime, on a CPU: the mock driver
(tests/runtime/mock_driver.c) keeps device memory in host memory and runs
pack kernels and the mock cuBLASLt on the host, so CPU tensors stand for
device ones (ops._host_gemm_for_tests).  Results against PyTorch in
float32, layouts, epilogues, batches, grouped GEMMs, errors from the
runtime, the capture rule, opcheck, swap_linear, a compiled model."""
import os
import unittest

import torch
import torch.nn.functional as F

import cutec.torch as ct
from cutec import capi
from cutec.torch import device, ops
from cutec.torch.plan import plan_gemm, plan_grouped

BF16, F16 = torch.bfloat16, torch.float16
PACKS = os.environ["CUTEC_TEST_PACKS"].split(":")
ACTS = {
    "identity": lambda v: v,
    "relu": F.relu,
    "relu6": F.relu6,  # not in the mock driver's activations: GPU tests only
    "gelu_tanh": lambda v: F.gelu(v, approximate="tanh"),
    "gelu_erf": F.gelu,
    "silu": F.silu,
    "sigmoid": torch.sigmoid,
}
GATED = {"swiglu": lambda g, u: F.silu(g) * u, "geglu": lambda g, u: F.gelu(g, approximate="tanh") * u}

dg = None


def setUpModule():
    global dg
    dg = ct.DeviceGemm(0, packs=PACKS)
    dg.set_option(capi.OPT_DISK_CACHE, 0)  # every run tunes: no decision left from an earlier one
    ops._host_gemm_for_tests = dg


def tearDownModule():
    ops._host_gemm_for_tests = None
    dg.close()


def rnd(*shape, dtype=BF16):
    return torch.randn(*shape, dtype=torch.float32).to(dtype)


def close(test, got, want, dtype=BF16):
    """got (dtype) against a float32 reference: within a few ulps of the output type at the reference's scale."""
    eps = {BF16: 2.0**-8, F16: 2.0**-11}[dtype]
    scale = want.abs().max().item() + 1e-6
    err = (got.float() - want).abs().max().item()
    test.assertLessEqual(err, 4 * eps * scale, f"max error {err} at scale {scale}")


class Results(unittest.TestCase):
    def test_mm_ragged_both_dtypes(self):
        torch.manual_seed(1)
        for dtype in (BF16, F16):
            for m, n, k in ((1, 40, 24), (67, 33, 45), (130, 72, 96)):
                a, b = rnd(m, k, dtype=dtype), rnd(k, n, dtype=dtype)
                close(self, ct.mm(a, b), a.float() @ b.float(), dtype)

    def test_strided_inputs(self):
        torch.manual_seed(2)
        big_a, big_b = rnd(80, 120), rnd(100, 90)
        cases = [
            (big_a[:50, 8:72], big_b[:64, :40]),          # sliced leading dims, row-major
            (big_a[:64, :50].t(), big_b[:64, :40]),       # A column-major
            (big_a[:50, :64], big_b[:40, :64].t()),       # B column-major (a linear weight)
            (big_a[:50, :64:2], big_b[:32, 10:50]),       # A with no leading dim: copied
        ]
        for a, b in cases:
            close(self, ct.mm(a, b), a.float() @ b.float())

    def test_linear_activations_and_bias(self):
        torch.manual_seed(3)
        x, w = rnd(3, 11, 64), rnd(48, 64)
        for bias_dtype in (BF16, torch.float32):
            b = rnd(48, dtype=bias_dtype)
            for name, fn in ACTS.items():
                if name == "relu6":
                    continue
                with self.subTest(act=name, bias=bias_dtype):
                    y = ct.linear(x, w, b, activation=name)
                    self.assertEqual(y.shape, (3, 11, 48))
                    close(self, y, fn(x.float() @ w.float().t() + b.float()))
        close(self, ct.linear(x, w), x.float() @ w.float().t())

    def test_gated(self):
        torch.manual_seed(4)
        x, gate, up, bg, bu = rnd(37, 64), rnd(40, 64), rnd(40, 64), rnd(40), rnd(40)
        w, b = ct.interleave_gate_up(gate, up), ct.interleave_gate_up(bg, bu)
        for name, fn in GATED.items():
            for bias in (None, b):
                with self.subTest(act=name, bias=bias is not None):
                    g = x.float() @ gate.float().t() + (bg.float() if bias is not None else 0)
                    u = x.float() @ up.float().t() + (bu.float() if bias is not None else 0)
                    y = ct.linear(x, w, bias, activation=name)
                    self.assertEqual(y.shape, (37, 40))
                    close(self, y, fn(g, u))

    def test_addmm_inputs(self):
        torch.manual_seed(5)
        a, b = rnd(20, 48), rnd(48, 32)
        ab = a.float() @ b.float()
        for inp in (rnd(32), rnd(1, 32), rnd(20, 1), rnd(20, 32), rnd(1, 1), rnd(20, 64)[:, ::2]):
            for beta, alpha in ((1.0, 1.0), (0.5, 2.0), (0.0, 1.0)):
                with self.subTest(shape=tuple(inp.shape), beta=beta, alpha=alpha):
                    want = torch.addmm(inp.float(), a.float(), b.float(), beta=beta, alpha=alpha)
                    close(self, ct.addmm(inp, a, b, beta=beta, alpha=alpha), want)
        close(self, ct.addmm(rnd(32), a, b, beta=0.0), ab)

    def test_gemm_whole_epilogue(self):
        torch.manual_seed(6)
        a, b, c = rnd(24, 40), rnd(40, 48), rnd(24, 48)
        bias, bias_row = rnd(48), rnd(24)
        d, aux = ct.gemm(a, b, c, bias=bias, bias_row=bias_row, alpha=0.5, beta=2.0, activation="silu", aux=True)
        v = 0.5 * (a.float() @ b.float()) + 2.0 * c.float() + bias.float() + bias_row.float()[:, None]
        close(self, aux, v)
        close(self, d, F.silu(v))

    def test_empty(self):
        y = ct.linear(rnd(0, 64), rnd(48, 64), rnd(48))
        self.assertEqual(y.shape, (0, 48))

    def test_opcheck(self):
        torch.manual_seed(7)
        x, w, b = rnd(9, 32), rnd(32, 32), rnd(32)
        torch.library.opcheck(torch.ops.cutec.linear.default, (x, w, b, "relu"))
        torch.library.opcheck(torch.ops.cutec.mm.default, (x, w))
        torch.library.opcheck(torch.ops.cutec.addmm.default, (b, x, w, 1.0, 1.0))
        torch.library.opcheck(torch.ops.cutec.gemm.default, (x, w, None, b, None, 1.0, 0.0, "swiglu", True))


class Batched(unittest.TestCase):
    """cutec.torch.bmm and matmul through the runtime: the batched user
    kernel (tests/runtime/user_gemm_batched.cute: A row-major, B column-major)
    and the mock cuBLASLt's strided batch compete for each class."""

    @classmethod
    def setUpClass(cls):
        cls.dg = ct.DeviceGemm(0, packs=PACKS + [os.environ["CUTEC_TEST_BATCH_PACK"]])
        cls.dg.set_option(capi.OPT_DISK_CACHE, 0)
        ops._host_gemm_for_tests = cls.dg

    @classmethod
    def tearDownClass(cls):
        ops._host_gemm_for_tests = dg
        cls.dg.close()

    def test_bmm_ragged_both_dtypes(self):
        torch.manual_seed(11)
        for dtype in (BF16, F16):
            for batch, (m, n, k) in ((1, (17, 24, 40)), (3, (33, 8, 16)), (5, (9, 40, 24))):
                with self.subTest(dtype=dtype, batch=batch, m=m):
                    a, b = rnd(batch, m, k, dtype=dtype), rnd(batch, k, n, dtype=dtype)
                    d = ct.bmm(a, b)
                    self.assertEqual((d.shape, d.dtype), ((batch, m, n), dtype))
                    close(self, d, torch.bmm(a.float(), b.float()), dtype)

    def test_bmm_layouts(self):
        torch.manual_seed(12)
        big = rnd(4, 40, 72)
        cases = [
            ("B transposed (column-major)", rnd(3, 20, 32), rnd(3, 24, 32).transpose(1, 2)),
            ("A transposed", rnd(3, 32, 20).transpose(1, 2), rnd(3, 32, 24)),
            ("sliced leading dims", big[:3, :20, 8:40], big[1:4, :32, 40:64]),
            ("problems interleaved (a permuted tensor)", rnd(20, 3, 32).permute(1, 0, 2), rnd(3, 32, 24)),
            ("A expanded (stride 0)", rnd(20, 32).expand(3, 20, 32), rnd(3, 32, 24)),
            ("B expanded (stride 0)", rnd(3, 20, 32), rnd(32, 24).expand(3, 32, 24)),
            ("A every other column (copied)", rnd(3, 20, 64)[:, :, ::2], rnd(3, 32, 24)),
            ("B expanded, every other column (copied once)", rnd(3, 20, 32), rnd(32, 48)[:, ::2].expand(3, 32, 24)),
        ]
        for name, a, b in cases:
            with self.subTest(name):
                close(self, ct.bmm(a, b), torch.bmm(a.float(), b.float()))

    def test_matmul(self):
        torch.manual_seed(13)
        x, w = rnd(3, 20, 32), rnd(32, 24)
        close(self, ct.matmul(x, w), x.float() @ w.float())  # one GEMM over 60 rows
        xt = rnd(20, 3, 32).transpose(0, 1)  # its rows are no one matrix
        close(self, ct.matmul(xt, w), xt.float() @ w.float())  # a batch, w broadcast
        a, b = rnd(20, 32), rnd(3, 32, 24)
        close(self, ct.matmul(a, b), a.float() @ b.float())
        close(self, ct.matmul(a, w), a.float() @ w.float())

    def test_empty(self):
        self.assertEqual(ct.bmm(rnd(0, 5, 16), rnd(0, 16, 8)).shape, (0, 5, 8))
        self.assertEqual(ct.bmm(rnd(3, 0, 16), rnd(3, 16, 8)).shape, (3, 0, 8))

    def test_runtime_status(self):
        # a stride the runtime refuses reaches Python with its status: problems of D overlapping
        # cannot come from torch tensors, so ask the handle directly with a plan of one
        plan = plan_gemm("t", rnd(8, 16), rnd(16, 8))
        plan.fields.update(batch=3, stride_d=4)
        plan._ref = None
        d = torch.empty(3 * 64, dtype=BF16)
        a, b = rnd(3, 8, 16), rnd(3, 16, 8)
        with self.assertRaises(ct.CutecError) as cm:
            self.dg.run(plan, (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, 0, 0, 0), 0, False)
        self.assertEqual(cm.exception.status, "CUTEC_ERR_OVERLAP")

    def test_opcheck(self):
        torch.manual_seed(14)
        torch.library.opcheck(torch.ops.cutec.bmm.default, (rnd(3, 9, 32), rnd(3, 32, 16)))
        torch.library.opcheck(torch.ops.cutec.bmm.default, (rnd(3, 9, 32), rnd(3, 16, 32).transpose(1, 2)))


def ends(*sizes):
    """offs of groups of these row counts (int32 cumulative row ends)."""
    return torch.tensor(sizes, dtype=torch.int32).cumsum(0, dtype=torch.int32)


def grouped_ref(a, b, offs):
    """Each group's rows of a times its b, in float32 (rows past the last end: zero)."""
    want, start = torch.zeros(a.shape[0], b.shape[2]), 0
    for g, end in enumerate(offs.tolist()):
        want[start:end] = a[start:end].float() @ b[g].float()
        start = end
    return want


class Grouped(unittest.TestCase):
    """cutec.torch.grouped_mm through the runtime: the grouped user kernel
    (tests/runtime/user_gemm_grouped.cute: A row-major, each group's B
    K-contiguous, bf16) is the only candidate (no cuBLASLt one)."""

    @classmethod
    def setUpClass(cls):
        cls.dg = ct.DeviceGemm(0, packs=PACKS + [os.environ["CUTEC_TEST_GROUPED_PACK"]])
        cls.dg.set_option(capi.OPT_DISK_CACHE, 0)
        ops._host_gemm_for_tests = cls.dg

    @classmethod
    def tearDownClass(cls):
        ops._host_gemm_for_tests = dg
        cls.dg.close()

    def test_ragged_groups(self):
        torch.manual_seed(21)
        for sizes, extra in (((0, 1, 7, 13, 0, 9), 0), ((5, 0, 0, 11), 6), ((17,), 0), ((0, 0, 3), 2)):
            with self.subTest(sizes=sizes, rows_past_the_last=extra):
                offs = ends(*sizes)
                m = sum(sizes) + extra
                a, w = rnd(m, 40), rnd(len(sizes), 24, 40)  # w: (G, N, K), the experts' weights
                d = ct.grouped_mm(a, w.transpose(-2, -1), offs)
                self.assertEqual((d.shape, d.dtype), ((m, 24), BF16))
                close(self, d[:sum(sizes)], grouped_ref(a, w.transpose(-2, -1), offs)[:sum(sizes)])

    def test_views(self):
        torch.manual_seed(22)
        offs = ends(3, 0, 9, 4)
        cases = [
            ("A transposed (copied)", rnd(40, 16).t(), rnd(4, 24, 40).transpose(-2, -1), offs),
            ("one B for all (stride 0)", rnd(16, 40), rnd(24, 40).t().expand(4, 40, 24), offs),
            ("offs every other (copied)", rnd(16, 40), rnd(4, 24, 40).transpose(-2, -1),
             torch.stack([offs, offs]).t().reshape(-1)[::2]),
        ]
        for name, a, b, o in cases:
            with self.subTest(name):
                close(self, ct.grouped_mm(a, b, o), grouped_ref(a, b, o))

    def test_rows_past_the_last_end_untouched(self):
        # the plan and its row ends as the op passes them, into a D filled first
        torch.manual_seed(23)
        a, b, offs = rnd(20, 32), rnd(3, 16, 32).transpose(-2, -1), ends(4, 0, 9)
        plan = plan_grouped("t", a, b, offs)
        d = torch.full((20, 16), 7.0, dtype=BF16)
        self.dg.run(plan, (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, 0, 0, 0), 0, False, offs.data_ptr())
        close(self, d[:13], grouped_ref(a, b, offs)[:13])
        self.assertTrue(bool((d[13:] == 7.0).all()))

    def test_nothing_to_compute(self):
        a, b = rnd(6, 32), rnd(2, 16, 32).transpose(-2, -1)
        self.assertEqual(ct.grouped_mm(a, b[:0], torch.zeros(0, dtype=torch.int32)).shape, (6, 16))
        self.assertEqual(ct.grouped_mm(a[:0], b, ends(0, 0)).shape, (0, 16))

    def test_plain_calls_after_grouped(self):
        # the handle's one args struct: a plain call after a grouped one passes no row ends
        torch.manual_seed(24)
        a, b = rnd(12, 32), rnd(32, 16)
        ct.grouped_mm(a, rnd(2, 16, 32).transpose(-2, -1), ends(5, 7))
        close(self, ct.mm(a, b), a.float() @ b.float())
        close(self, ct.bmm(a.unsqueeze(0), b.unsqueeze(0))[0], a.float() @ b.float())

    def test_runtime_status(self):
        # the test kernel reads packed operands, each B K-contiguous: a row-major (G, K, N) B or rows of A
        # wider than K have no candidate here (the GPU tests run them on the stdlib's packs); the status
        # is the runtime's "no candidate", UNSUPPORTED (cuBLASLt never serves groups: its absence is not the reason)
        for name, a, b in (("B row-major", rnd(12, 32), rnd(2, 32, 16)),
                           ("A sliced rows", rnd(12, 48)[:, :32], rnd(2, 16, 32).transpose(-2, -1))):
            with self.subTest(name):
                with self.assertRaises(ct.CutecError) as cm:
                    ct.grouped_mm(a, b, ends(5, 7))
                e = cm.exception
                self.assertEqual(e.status, "CUTEC_ERR_UNSUPPORTED")
                self.assertIn("no candidate for gemm m=12 n=16 k=32", e.message)
                self.assertIn("+groups:2", e.message)

    def test_capture_rule(self):
        a, b, offs = rnd(19, 48), rnd(3, 24, 48).transpose(-2, -1), ends(6, 6, 7)
        plan = plan_grouped("t", a, b, offs)
        d = torch.empty(19, 24, dtype=BF16)
        ptrs = (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, 0, 0, 0)
        with self.assertRaises(ct.CutecError) as cm:
            self.dg.run(plan, ptrs, 0, True, offs.data_ptr())
        self.assertEqual(cm.exception.status, "CUTEC_ERR_KERNEL_NOT_FOUND")
        self.assertIn("no tuned kernel for this GEMM (M=19 N=24 K=48, groups 3, activation 'identity')",
                      cm.exception.message)
        ct.grouped_mm(a, b, offs)  # the warm-up
        self.dg.run(plan, ptrs, 0, True, offs.data_ptr())
        close(self, d, grouped_ref(a, b, offs))

    def test_opcheck(self):
        torch.manual_seed(25)
        offs = ends(3, 0, 6)  # every row covered: the rows past the last end would differ between runs
        torch.library.opcheck(torch.ops.cutec.grouped_mm.default,
                              (rnd(9, 32), rnd(3, 16, 32).transpose(-2, -1), offs, None))


class Paths(unittest.TestCase):
    """The direct eager path, the registered op and a compiled graph give the same results."""

    def test_direct_op_and_compiled_agree(self):
        torch.manual_seed(30)
        a, b, w, bias, x3, per_row = rnd(33, 64), rnd(64, 40), rnd(48, 64), rnd(48), rnd(3, 11, 64), rnd(33)
        cases = {
            "mm": lambda: ct.mm(a, b),
            "linear": lambda: ct.linear(x3, w, bias, "silu"),
            "linear 2-D": lambda: ct.linear(a, w),
            "linear, x's rows copied": lambda: ct.linear(x3.transpose(0, 1), w, bias),
            "addmm": lambda: ct.addmm(bias, a, w.t(), beta=0.5),
            "gemm": lambda: ct.gemm(a, w.t(), bias_row=per_row, alpha=2.0),
        }
        for name, fn in cases.items():
            with self.subTest(name):
                n = ops.op_calls
                direct = fn()
                self.assertEqual(ops.op_calls, n)
                ops.DIRECT = False
                try:
                    via_op = fn()
                finally:
                    ops.DIRECT = True
                self.assertEqual(ops.op_calls, n + 1)
                self.assertTrue(torch.equal(direct, via_op))
        xt = x3.transpose(0, 1)
        close(self, ct.linear(xt, w, bias), xt.float() @ w.float().t() + bias.float())
        f = lambda x: ct.linear(ct.mm(x, w.t()), w[:, :48], bias, "relu")  # noqa: E731
        torch._dynamo.reset()
        g = torch.compile(f, fullgraph=True, backend="aot_eager")
        want = f(a)
        n = ops.op_calls
        self.assertTrue(torch.equal(g(a), want))
        self.assertEqual(ops.op_calls, n + 2)


class FastPath(unittest.TestCase):
    """cutec._fast (python/cutec/_fast.c), where the build made it: a call
    the Python path handed over gives the same result as that path, skips
    DeviceGemm.run, raises the runtime's status and message as it does, and
    everything it does not make (another handle, an unaligned operand, an
    input that needs a gradient) goes back to the Python path."""

    def setUp(self):
        want = os.environ.get("CUTEC_FAST", "")
        if want and want != "0":
            self.assertIsNotNone(device.fast, f"CUTEC_FAST={want} did not load")
        if device.fast is None:
            self.skipTest("cutec._fast not built or turned off (CUTEC_FAST=0)")
        self.runs = 0
        real = dg.run

        def counted(*args, **kw):
            self.runs += 1
            return real(*args, **kw)

        dg.run = counted  # an instance attribute: the Python path's calls counted

    def tearDown(self):
        dg.__dict__.pop("run", None)
        ops._fast_mm, ops._fast_linear = device.fast.mm, device.fast.linear

    def python_path(self, fn):
        saved = ops._fast_mm, ops._fast_linear
        ops._fast_mm = ops._fast_linear = None
        try:
            return fn()
        finally:
            ops._fast_mm, ops._fast_linear = saved

    def test_same_results_and_the_python_path_skipped(self):
        torch.manual_seed(40)
        a, b, w, bias, x3, gate_up = rnd(33, 64), rnd(64, 40), rnd(48, 64), rnd(48), rnd(3, 11, 64), rnd(32, 64)
        cases = {
            "mm": lambda: ct.mm(a, b),
            "mm, B column-major": lambda: ct.mm(a, w.t()),
            "matmul 2-D": lambda: ct.matmul(a, b),
            "linear gelu_tanh with bias": lambda: ct.linear(a, w, bias, "gelu_tanh"),
            "linear 3-D x": lambda: ct.linear(x3, w),
            "linear swiglu": lambda: ct.linear(x3, gate_up, None, "swiglu"),
        }
        for name, fn in cases.items():
            with self.subTest(name):
                want = self.python_path(fn)  # also the call that hands it over
                runs, n = self.runs, ops.op_calls
                got = fn()
                self.assertEqual((self.runs, ops.op_calls), (runs, n))  # not the Python path, not the op
                self.assertEqual((got.shape, got.dtype), (want.shape, want.dtype))
                self.assertTrue(torch.equal(got, want))

    def test_status_and_message_as_the_python_path(self):
        a, b = rnd(24, 32), rnd(32, 16)
        ct.mm(a, b)
        plan = ops._plans[("cutec.torch.mm", a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype)]
        plan.problem_ref()
        size = plan._struct.struct_size
        plan._struct.struct_size = 8  # the runtime refuses the problem: a status from cutec_gemm_ex itself
        try:
            errors = []
            for fn in (lambda: ct.mm(a, b), lambda: self.python_path(lambda: ct.mm(a, b))):
                runs = self.runs
                with self.assertRaises(ct.CutecError) as cm:
                    fn()
                errors.append((cm.exception.status, cm.exception.message, self.runs - runs))
        finally:
            plan._struct.struct_size = size
        self.assertEqual(errors[0][:2], errors[1][:2])
        self.assertEqual(errors[0][0], "CUTEC_ERR_INVALID_ARGUMENT")
        self.assertIn("struct_size is 8", errors[0][1])
        self.assertEqual((errors[0][2], errors[1][2]), (0, 1))  # the first raised by cutec._fast
        close(self, ct.mm(a, b), a.float() @ b.float())

    def test_what_it_does_not_make_goes_back(self):
        torch.manual_seed(41)
        big, b = rnd(40, 72), rnd(64, 24)
        a = big[:, :64]
        ct.mm(a, b)
        for name, fn in {
            "an operand off 16 bytes": lambda: ct.mm(big[:, 1:65], b),
            "an input that needs a gradient": lambda: ct.mm(a.clone().requires_grad_(), b),
            "a mode": lambda: self.in_mode(lambda: ct.mm(a, b)),
        }.items():
            with self.subTest(name):
                runs = self.runs
                fn()
                self.assertEqual(self.runs, runs + 1)  # DeviceGemm.run: the Python path's, or the op's
        other = ct.DeviceGemm(0, packs=PACKS)  # another handle: not the one its calls were made on
        try:
            ops._host_gemm_for_tests = other
            runs = self.runs
            close(self, ct.mm(a, b), a.float() @ b.float())
        finally:
            ops._host_gemm_for_tests = dg
            other.close()  # forgets every call (they hold handles' addresses)
        self.assertEqual(device.fast.size(), 0)
        for _ in range(2):
            runs = self.runs
            close(self, ct.mm(a, b), a.float() @ b.float())
        self.assertEqual(self.runs, runs)  # handed over again by the first of the two

    def test_threads(self):
        """Calls on one handle from several threads, some on each path: the
        handle's lock serialises them (the GIL is released in the call)."""
        import threading

        torch.manual_seed(42)
        a, b, w, bias = rnd(40, 64), rnd(64, 32), rnd(48, 64), rnd(48)
        want_mm, want_lin = ct.mm(a, b), ct.linear(a, w, bias, "gelu_tanh")
        bad = []

        def work(i):
            for j in range(20):
                if (i + j) % 3 == 0:
                    got, want = ops._run_mm("cutec.torch.mm", a, b), want_mm  # the Python path (no global switch)
                elif j % 2:
                    got, want = ct.mm(a, b), want_mm
                else:
                    got, want = ct.linear(a, w, bias, "gelu_tanh"), want_lin
                if not torch.equal(got, want):
                    bad.append((i, j))

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(bad, [])

    def in_mode(self, fn):
        from torch.utils._python_dispatch import TorchDispatchMode

        class Passthrough(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        with Passthrough():
            return fn()


class Scaled(unittest.TestCase):
    """scaled_mm's problems and pointers as the runtime checks them: the
    mock runs no fp8 kernel (its cuBLASLt offers no algorithm for an e4m3
    with an e5m2 operand or an fp8 D, the test packs are bf16), so each call
    passes every argument check and ends in
    tuning's "no candidate", whose message spells the class the runtime
    read: types, layouts, leading dimensions, the scale mode (a pointer the
    problem asks for and lacks, or gets unasked, would stop it before)."""

    def test_each_mode_reaches_tuning(self):
        e4, e5, f32 = torch.float8_e4m3fn, torch.float8_e5m2, torch.float32
        a = torch.randn(33, 384).to(e4)
        w = torch.randn(200, 400).to(e5)[:, :384]  # B column-major with a leading dimension of 400
        modes = {
            "tensor": (torch.ones(()), torch.ones(1, 1)),
            "row": (torch.ones(33, 1), torch.ones(1, 400)[:, ::2]),  # scale_b copied to be contiguous
            "block": (torch.ones(33, 3), torch.ones(2, 3).t()),  # scale_a copied to be M-contiguous
        }
        for mode, (sa, sb) in modes.items():
            for out, c in ((torch.bfloat16, "bf16"), (f32, "f32"), (e4, "e4m3")):
                with self.subTest(mode=mode, out=out):
                    with self.assertRaises(ct.CutecError) as cm:
                        ct.scaled_mm(a, w.t(), sa, sb, out_dtype=out)
                    e = cm.exception
                    self.assertEqual(e.status, "CUTEC_ERR_UNSUPPORTED")
                    self.assertIn(f"no candidate for gemm m=33 n=200 k=384 a=e4m3:row:384 b=e5m2:col:400 c={c}:row:200 "
                                  f"alpha=1 beta=0 epilogue=identity+scale:{mode} align=16:16:16", e.message)
        with self.assertRaises(ct.CutecError) as cm:
            ct.scaled_mm(a, w.t(), torch.ones(()), torch.ones(()), torch.zeros(200, dtype=torch.bfloat16),
                         out_dtype=torch.bfloat16)
        self.assertIn("epilogue=identity+bias:bf16:16+scale:tensor", cm.exception.message)


class Capture(unittest.TestCase):
    def run_captured(self, a, b, alpha=1.0):
        plan = plan_gemm("t", a, b, alpha=alpha)
        d = torch.empty(plan.m, plan.n_out, dtype=a.dtype)
        dg.run(plan, (a.data_ptr(), b.data_ptr(), d.data_ptr(), 0, 0, 0, 0), 0, capturing=True)
        return d

    def test_untuned_class_is_refused_then_runs_after_warm_up(self):
        a, b = rnd(19, 56), rnd(56, 24)
        with self.assertRaises(ct.CutecError) as cm:
            self.run_captured(a, b)
        e = cm.exception
        self.assertEqual(e.status, "CUTEC_ERR_KERNEL_NOT_FOUND")
        self.assertIn("no tuned kernel for this GEMM (M=19 N=24 K=56, activation 'identity') on cuda:0 yet, and "
                      "tuning cannot run during CUDA graph capture", e.message)
        ct.mm(a, b)  # the warm-up
        close(self, self.run_captured(a, b), a.float() @ b.float())
        # another alpha (not 1) is the class of alpha 2: the runtime has its decision
        ct.gemm(a, b, alpha=2.0)
        close(self, self.run_captured(a, b, alpha=3.0), 3 * (a.float() @ b.float()))
        with self.assertRaises(ct.CutecError):
            self.run_captured(a[:, :48], b[:48])  # another K: another class


class RuntimeErrors(unittest.TestCase):
    def test_status_and_message_of_the_runtime(self):
        only_gemm = ct.DeviceGemm(0, packs=[p for p in PACKS if "test_gemm" in p])
        only_gemm.set_option(capi.OPT_DISK_CACHE, 0)
        try:
            ops._host_gemm_for_tests = only_gemm
            with self.assertRaises(ct.CutecError) as cm:
                ct.linear(rnd(8, 32), rnd(16, 32), activation="silu")
            e = cm.exception
            self.assertEqual((e.status, e.code), ("CUTEC_ERR_UNSUPPORTED", 21))
            self.assertIn("silu", e.message)
        finally:
            ops._host_gemm_for_tests = dg
            only_gemm.close()

    def test_missing_pack(self):
        with self.assertRaises(ct.CutecError) as cm:
            ct.DeviceGemm(0, packs=["/nonexistent.pack"])
        self.assertEqual(cm.exception.status, "CUTEC_ERR_IO")
        self.assertIn("loading pack /nonexistent.pack", str(cm.exception))

    def test_host_bound_option(self):
        """$CUTEC_HOST_BOUND_US reaches the handle's option; a bad value is
        an error naming the variable, no handle made."""
        from cutec.torch import device

        old = os.environ.get("CUTEC_HOST_BOUND_US")
        try:
            for env, want in (("", device.HOST_BOUND_US), ("37", 37)):
                os.environ["CUTEC_HOST_BOUND_US"] = env
                h = ct.DeviceGemm(0, packs=[])
                try:
                    self.assertEqual(h.get_option(capi.OPT_HOST_BOUND_US), want)
                finally:
                    h.close()
            for env, status in (("12us", "CUTEC_ERR_INVALID_ARGUMENT"), ("-1", "CUTEC_ERR_INVALID_ARGUMENT")):
                os.environ["CUTEC_HOST_BOUND_US"] = env
                with self.assertRaises(ct.CutecError) as cm:
                    ct.DeviceGemm(0, packs=[])
                self.assertEqual(cm.exception.status, status)
                self.assertIn("CUTEC_HOST_BOUND_US", str(cm.exception))
        finally:
            if old is None:
                os.environ.pop("CUTEC_HOST_BOUND_US", None)
            else:
                os.environ["CUTEC_HOST_BOUND_US"] = old


class Modules(unittest.TestCase):
    def test_swap_linear_fuses_and_warms_up(self):
        torch.manual_seed(8)
        nn = torch.nn
        model = nn.Sequential(nn.Linear(64, 96), nn.GELU(approximate="tanh"), nn.Linear(96, 32), nn.ReLU(),
                              nn.Sequential(nn.Linear(32, 16, bias=False), nn.Tanh())).to(BF16)
        x = rnd(10, 64)
        want = model.float()(x.float())
        model = model.to(BF16)
        names = ct.swap_linear(model, example_inputs=(x,))
        self.assertEqual(names, ["0", "2", "4.0"])
        self.assertIsInstance(model[1], nn.Identity)
        self.assertIsInstance(model[3], nn.Identity)
        self.assertIsInstance(model[4][1], nn.Tanh)  # not fusible: left
        self.assertEqual((model[0].activation, model[2].activation, model[4][0].activation),
                         ("gelu_tanh", "relu", "identity"))
        with torch.no_grad():
            close(self, model(x), want)

    def test_from_gate_up(self):
        torch.manual_seed(9)
        nn = torch.nn
        gate, up = nn.Linear(64, 48, bias=False).to(BF16), nn.Linear(64, 48, bias=False).to(BF16)
        fused = ct.Linear.from_gate_up(gate, up)
        x = rnd(5, 64)
        with torch.no_grad():
            close(self, fused(x), F.silu(gate.float()(x.float())) * up.float()(x.float()))

    def test_compiled_model(self):
        torch.manual_seed(10)
        w1, w2 = rnd(64, 32), rnd(16, 32)

        def f(x):
            return ct.linear(ct.linear(x, w1, None, "swiglu"), w2)

        torch._dynamo.reset()
        g = torch.compile(f, fullgraph=True, backend="aot_eager")
        x = rnd(6, 32)
        close(self, g(x), f(x).float())


if __name__ == "__main__":
    unittest.main()
