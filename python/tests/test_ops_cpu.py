"""The ops without a GPU or a runtime: the plan read off tensors' strides,
registration, fake implementations under torch.compile(fullgraph=True) and
torch.export on meta tensors, the errors found before any call (through the
fake implementation and through the real one, whose handle must not be
reached), the gated weight layout."""
import unittest

import torch

import cutec.torch as ct
from cutec import capi
from cutec.torch import ops
from cutec.torch.plan import matrix_layout, plan_bmm, plan_gemm, plan_grouped

ROW, COL = capi.LAYOUT_ROW, capi.LAYOUT_COL
BF16 = torch.bfloat16
I32 = torch.int32


def meta(*shape, dtype=BF16):
    return torch.empty(*shape, dtype=dtype, device="meta")


class MatrixLayout(unittest.TestCase):
    def test_cases(self):
        cases = [
            ((4, 6), (6, 1), (ROW, 6)),        # contiguous
            ((4, 6), (10, 1), (ROW, 10)),      # a slice of wider rows
            ((4, 6), (1, 4), (COL, 4)),        # a transposed contiguous matrix
            ((4, 6), (1, 8), (COL, 8)),        # transposed, sliced
            ((1, 6), (1, 1), (ROW, 6)),        # one row: its stride does not matter
            ((1, 6), (99, 1), (ROW, 6)),
            ((4, 1), (1, 77), (ROW, 1)),       # one column: row-major with ld 1
            ((4, 1), (3, 5), (ROW, 3)),
            ((1, 1), (5, 7), (ROW, 1)),
            ((4, 6), (0, 1), None),            # broadcast rows
            ((4, 6), (12, 2), None),           # every other column
            ((4, 6), (6, 0), None),
            ((4, 6), (3, 1), None),            # rows overlap
            ((4, 6), (-6, 1), None),
        ]
        for shape, strides, want in cases:
            self.assertEqual(matrix_layout(*shape, strides), want, (shape, strides))

    def test_agrees_with_tensors(self):
        # every layout it names addresses the same elements as the tensor
        base = torch.arange(0, 400, dtype=torch.float32).reshape(20, 20)
        views = [base[:5, :7], base[:5, :7].t(), base.t()[:3, 2:9], base[::2, :4], base[:, 3:4], base[2:3, :]]
        for v in views:
            lay = matrix_layout(v.shape[0], v.shape[1], v.stride())
            if lay is None:
                continue
            layout, ld = lay
            flat = base.reshape(-1)[v.storage_offset():]
            for r in range(v.shape[0]):
                for c in range(v.shape[1]):
                    i = r * ld + c if layout == ROW else c * ld + r
                    self.assertEqual(flat[i].item(), v[r, c].item())


class Plan(unittest.TestCase):
    def test_linear_weight_is_column_major_b(self):
        p = plan_gemm("t", meta(8, 32), meta(48, 32).t())
        f = p.fields
        self.assertEqual((f["m"], f["n"], f["k"]), (8, 48, 32))
        self.assertEqual((f["a_layout"], f["lda"], f["b_layout"], f["ldb"]), (ROW, 32, COL, 32))
        self.assertEqual(p.copy, frozenset())

    def test_sliced_leading_dims_pass_as_they_are(self):
        a = meta(16, 100)[:, 10:74]  # ld 100
        b = meta(80, 64).t()[:, :48]  # column-major, ld 64
        p = plan_gemm("t", a, b)
        self.assertEqual((p.fields["lda"], p.fields["b_layout"], p.fields["ldb"]), (100, COL, 64))
        self.assertEqual(p.copy, frozenset())

    def test_copies_only_what_has_no_leading_dim(self):
        a = meta(16, 128)[:, ::2]
        p = plan_gemm("t", a, meta(64, 32), c=meta(32, 16).t(), beta=1.0)
        self.assertEqual(p.copy, frozenset({"A", "C"}))  # C is read in D's (row-major) layout
        self.assertEqual((p.fields["a_layout"], p.fields["lda"], p.fields["ld_csrc"]), (ROW, 64, 32))
        self.assertEqual(p.operands(a, meta(64, 32), meta(32, 16).t())[0].stride(), (64, 1))

    def test_epilogue_fields(self):
        p = plan_gemm("t", meta(8, 32), meta(32, 64), c=meta(8, 64), bias=meta(64, dtype=torch.float32),
                      bias_row=meta(8), alpha=2.0, beta=0.5, activation="swiglu", aux=True)
        f = p.fields
        self.assertEqual((p.n, p.n_out, f["act"], f["act_gated"], f["ldc"]), (64, 32, b"swiglu", 1, 32))
        self.assertEqual((f["bias"], f["bias_row"], f["bias_type"], f["c_source"], f["ld_csrc"]),
                         (1, 1, capi.DTYPE_BF16, 1, 64))
        self.assertEqual((f["aux"], f["ld_aux"], f["alpha"], f["beta"]), (1, 64, 2.0, 0.5))
        self.assertEqual(p.cast, frozenset({"bias"}))  # a float32 bias is read as the output's type
        prob = p.problem()
        self.assertEqual((prob.m, prob.act, prob.struct_size), (8, b"swiglu", prob.struct_size))

    def test_beta_zero_drops_c_and_identity_is_none(self):
        p = plan_gemm("t", meta(8, 32), meta(32, 64), c=meta(8, 64), beta=0.0, activation="identity")
        self.assertEqual((p.fields["c_source"], p.fields["act"], p.use_c), (0, b"", False))
        plain = plan_gemm("t", meta(8, 32), meta(32, 64))
        self.assertEqual(p.key, plain.key)  # the same problem class as a plain GEMM


class PlanBmm(unittest.TestCase):
    def test_strides_and_layouts(self):
        p = plan_bmm("t", meta(3, 20, 32), meta(3, 24, 32).transpose(1, 2))
        f = p.fields
        self.assertEqual((f["batch"], f["m"], f["n"], f["k"]), (3, 20, 24, 32))
        self.assertEqual((f["a_layout"], f["lda"], f["b_layout"], f["ldb"]), (ROW, 32, COL, 32))
        self.assertEqual((f["stride_a"], f["stride_b"], f["stride_c"], f["stride_d"], f["ldc"]), (640, 768, 0, 480, 24))
        self.assertEqual((p.copy, p.bcast), (frozenset(), frozenset()))

    def test_views_pass_as_they_are(self):
        big = meta(4, 40, 72)
        p = plan_bmm("t", big[1:4, :20, 8:40], meta(20, 3, 32).permute(1, 0, 2).transpose(1, 2))
        f = p.fields
        self.assertEqual((f["lda"], f["stride_a"]), (72, 40 * 72))  # slices of wider rows, problems 40 rows apart
        self.assertEqual((f["b_layout"], f["ldb"], f["stride_b"]), (COL, 96, 32))  # problems interleaved
        self.assertEqual(p.copy, frozenset())

    def test_broadcast_is_stride_zero(self):
        p = plan_bmm("t", meta(20, 32).expand(3, 20, 32), meta(24, 32).t().unsqueeze(0).expand(3, 32, 24))
        self.assertEqual((p.fields["stride_a"], p.fields["stride_b"], p.fields["b_layout"]), (0, 0, COL))
        self.assertEqual((p.copy, p.bcast), (frozenset(), frozenset()))

    def test_copies(self):
        a = meta(3, 20, 64)[:, :, ::2]  # no leading dimension: copied whole, then packed
        b = meta(32, 48)[:, ::2].expand(3, 32, 24)  # broadcast and no leading dimension: one matrix copied
        p = plan_bmm("t", a, b)
        self.assertEqual((p.copy, p.bcast), (frozenset({"A"}), frozenset({"B"})))
        self.assertEqual((p.fields["stride_a"], p.fields["lda"], p.fields["stride_b"], p.fields["ldb"]),
                         (640, 32, 0, 24))
        ca, cb = p.operands(torch.zeros(3, 20, 64)[:, :, ::2], torch.zeros(32, 48)[:, ::2].expand(3, 32, 24))[:2]
        self.assertEqual((ca.stride(), cb.stride()), ((640, 32, 1), (0, 24, 1)))

    def test_batch_of_one_is_one_gemm(self):
        p = plan_bmm("t", meta(1, 20, 32), meta(1, 32, 24))
        self.assertEqual((p.batch, p.key), (0, plan_gemm("t", meta(20, 32), meta(32, 24)).key))
        self.assertNotIn("batch", p.fields)


class PlanGrouped(unittest.TestCase):
    def test_weights_k_major(self):
        # the (G, N, K) weights of a mixture of experts, seen as (G, K, N)
        p = plan_grouped("t", meta(10, 64), meta(4, 32, 64).transpose(-2, -1), meta(4, dtype=I32))
        f = p.fields
        self.assertEqual((f["m"], f["n"], f["k"], f["groups"], f["stride_b"]), (10, 32, 64, 4, 32 * 64))
        self.assertEqual((f["a_layout"], f["lda"], f["b_layout"], f["ldb"], f["c_layout"], f["ldc"]),
                         (ROW, 64, COL, 64, ROW, 32))
        self.assertEqual((f["a_type"], f["b_type"], f["c_type"], f["alpha"], f["beta"]),
                         (capi.DTYPE_BF16, capi.DTYPE_BF16, capi.DTYPE_BF16, 1.0, 0.0))
        self.assertEqual((p.copy, p.bcast, p.groups, p.batch, p.out_dtype), (frozenset(), frozenset(), 4, 0, BF16))
        prob = p.problem()
        self.assertEqual((prob.groups, prob.stride_b, prob.batch), (4, 2048, 0))

    def test_weights_row_major_and_out_dtype(self):
        p = plan_grouped("t", meta(10, 64), meta(4, 64, 32), meta(4, dtype=I32), torch.float32)
        f = p.fields
        self.assertEqual((f["b_layout"], f["ldb"], f["stride_b"], f["c_type"]), (ROW, 32, 2048, capi.DTYPE_F32))
        self.assertEqual(p.out_dtype, torch.float32)
        h = plan_grouped("t", meta(10, 64, dtype=torch.float16), meta(4, 64, 32, dtype=torch.float16),
                         meta(4, dtype=I32))
        self.assertEqual((h.fields["a_type"], h.fields["c_type"], h.out_dtype),
                         (capi.DTYPE_F16, capi.DTYPE_F16, torch.float16))

    def test_views_pass_as_they_are(self):
        a = meta(10, 100)[:, 8:72]  # rows of 100
        b = meta(5, 48, 80)[1:, :32, :64].transpose(-2, -1)  # column-major, ld 80, groups 48 x 80 apart
        p = plan_grouped("t", a, b, meta(4, dtype=I32))
        f = p.fields
        self.assertEqual((f["lda"], f["b_layout"], f["ldb"], f["stride_b"]), (100, COL, 80, 48 * 80))
        self.assertEqual(p.copy, frozenset())
        shared = plan_grouped("t", meta(10, 64), meta(64, 32).expand(4, 64, 32), meta(4, dtype=I32))
        self.assertEqual((shared.fields["stride_b"], shared.fields["b_layout"], shared.copy, shared.bcast),
                         (0, ROW, frozenset(), frozenset()))  # one B for every group

    def test_copies(self):
        a = meta(64, 10).t()  # column-major A: the groups split A's rows, so it is read row-major
        b = meta(4, 64, 64)[:, :, ::2]  # no leading dimension
        offs = meta(8, dtype=I32)[::2]
        p = plan_grouped("t", a, b, offs)
        self.assertEqual(p.copy, frozenset({"A", "B", "offs"}))
        self.assertEqual((p.fields["lda"], p.fields["b_layout"], p.fields["ldb"], p.fields["stride_b"]),
                         (64, ROW, 32, 64 * 32))
        ca, cb = p.operands(torch.zeros(64, 10).t(), torch.zeros(4, 64, 64)[:, :, ::2])[:2]
        self.assertEqual((ca.stride(), cb.stride()), ((64, 1), (2048, 32, 1)))
        bc = plan_grouped("t", meta(10, 64), meta(64, 64)[:, ::2].expand(4, 64, 32), meta(4, dtype=I32))
        self.assertEqual((bc.copy, bc.bcast, bc.fields["stride_b"]), (frozenset(), frozenset({"B"}), 0))
        cb = bc.operands(torch.zeros(10, 64), torch.zeros(64, 64)[:, ::2].expand(4, 64, 32))[1]
        self.assertEqual(cb.stride(), (0, 32, 1))  # one matrix copied, still shared

    def test_one_group_has_the_packed_step(self):
        p = plan_grouped("t", meta(10, 64), meta(1, 32, 64).transpose(-2, -1), meta(1, dtype=I32))
        q = plan_grouped("t", meta(10, 64), meta(3, 32, 64)[1:2].transpose(-2, -1), meta(1, dtype=I32))
        self.assertEqual((p.fields["stride_b"], p.key), (32 * 64, q.key))


class Registration(unittest.TestCase):
    def test_ops_registered(self):
        for name in ("mm", "addmm", "linear", "gemm", "bmm", "grouped_mm"):
            op = getattr(torch.ops.cutec, name).default
            self.assertIn(f"cutec::{name}", str(op._schema))

    def test_fake_shapes(self):
        x, w = meta(3, 5, 64), meta(96, 64)
        self.assertEqual(ct.linear(x, w).shape, (3, 5, 96))
        self.assertEqual(ct.linear(x, w, activation="swiglu").shape, (3, 5, 48))
        self.assertEqual(ct.linear(meta(64), w).shape, (96,))
        self.assertEqual(ct.mm(meta(7, 64), meta(64, 9)).shape, (7, 9))
        self.assertEqual(ct.addmm(meta(9), meta(7, 64), meta(64, 9)).shape, (7, 9))
        d, aux = ct.gemm(meta(7, 64), meta(64, 32), aux=True, activation="geglu")
        self.assertEqual((d.shape, aux.shape), ((7, 16), (7, 32)))
        self.assertEqual(ct.mm(meta(7, 64, dtype=torch.float16), meta(64, 9, dtype=torch.float16)).dtype,
                         torch.float16)
        self.assertEqual(ct.bmm(meta(4, 7, 64), meta(4, 64, 9)).shape, (4, 7, 9))
        self.assertEqual(ct.bmm(meta(0, 7, 64), meta(0, 64, 9)).shape, (0, 7, 9))
        self.assertEqual(ct.bmm(meta(4, 7, 64, dtype=torch.float16), meta(4, 64, 9, dtype=torch.float16)).dtype,
                         torch.float16)
        for a, b in ((meta(4, 7, 64), meta(64, 9)), (meta(7, 64), meta(4, 64, 9)), (meta(4, 7, 64), meta(4, 64, 9))):
            self.assertEqual(ct.matmul(a, b).shape, (4, 7, 9))
        self.assertEqual(ct.matmul(meta(7, 64), meta(64, 9)).shape, (7, 9))
        offs = meta(4, dtype=I32)
        d = ct.grouped_mm(meta(7, 64), meta(4, 9, 64).transpose(-2, -1), offs)
        self.assertEqual((d.shape, d.dtype), ((7, 9), BF16))
        d = ct.grouped_mm(meta(7, 64), meta(4, 64, 9), offs, out_dtype=torch.float32)
        self.assertEqual((d.shape, d.dtype), ((7, 9), torch.float32))
        d = ct.grouped_mm(meta(7, 64, dtype=torch.float16), meta(4, 64, 9, dtype=torch.float16), offs)
        self.assertEqual((d.shape, d.dtype), ((7, 9), torch.float16))
        self.assertEqual(ct.grouped_mm(meta(7, 64), meta(0, 64, 9), meta(0, dtype=I32)).shape, (7, 9))
        self.assertEqual(ct.grouped_mm(meta(0, 64), meta(4, 64, 9), offs).shape, (0, 9))

    def test_compile_fullgraph(self):
        def f(x, w1, b1, w2):
            h = ct.linear(x, w1, b1, activation="gelu_tanh")
            return ct.addmm(b1[:48], h, w2) + ct.mm(h, w2)

        for backend in ("eager", "aot_eager"):
            torch._dynamo.reset()
            g = torch.compile(f, fullgraph=True, backend=backend)
            out = g(meta(10, 64), meta(96, 64), meta(96), meta(96, 48))
            self.assertEqual((out.shape, out.dtype, out.device.type), ((10, 48), BF16, "meta"))

    def test_compile_fullgraph_batched(self):
        def f(q, k, x, w):
            return ct.bmm(q, k.transpose(1, 2)) + ct.matmul(x, w)

        for backend in ("eager", "aot_eager"):
            torch._dynamo.reset()
            g = torch.compile(f, fullgraph=True, backend=backend)
            out = g(meta(4, 10, 64), meta(4, 12, 64), meta(4, 10, 32), meta(32, 12))
            self.assertEqual((out.shape, out.dtype, out.device.type), ((4, 10, 12), BF16, "meta"))

    def test_compile_fullgraph_grouped(self):
        def f(x, w, offs):  # a mixture of experts' up and down projections
            h = ct.grouped_mm(x, w.transpose(-2, -1), offs)
            return ct.grouped_mm(torch.relu(h), w, offs, out_dtype=torch.float32)

        for backend in ("eager", "aot_eager"):
            torch._dynamo.reset()
            g = torch.compile(f, fullgraph=True, backend=backend)
            out = g(meta(10, 64), meta(4, 64, 64), meta(4, dtype=I32))
            self.assertEqual((out.shape, out.dtype, out.device.type), ((10, 64), torch.float32, "meta"))

    def test_compile_and_export_keep_grouped_mm(self):
        seen = []

        def backend(gm, inputs):
            seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
            return gm

        torch._dynamo.reset()
        g = torch.compile(lambda x, w, o: ct.grouped_mm(x, w, o), fullgraph=True, backend=backend)
        g(meta(10, 64), meta(4, 64, 32), meta(4, dtype=I32))
        self.assertEqual(sum("cutec.grouped_mm" in t for t in seen), 1, seen)

        class M(torch.nn.Module):
            def forward(self, x, w, offs):
                return ct.grouped_mm(x, w.transpose(-2, -1), offs)

        ep = torch.export.export(M(), (meta(10, 64), meta(4, 32, 64), meta(4, dtype=I32)))
        self.assertIn("cutec.grouped_mm.default", [str(n.target) for n in ep.graph.nodes if n.op == "call_function"])
        out = [n for n in ep.graph.nodes if n.op == "output"][0].args[0][0]
        self.assertEqual(tuple(out.meta["val"].shape), (10, 32))

    def test_compile_graph_keeps_bmm(self):
        seen = []

        def backend(gm, inputs):
            seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
            return gm

        torch._dynamo.reset()
        # a contiguous x @ w is one GEMM over the batch's rows; a transposed x is a batch with w broadcast
        g = torch.compile(lambda q, k, x, w: (ct.bmm(q, k), ct.matmul(x, w), ct.matmul(x.transpose(0, 1), w)),
                          fullgraph=True, backend=backend)
        g(meta(3, 8, 64), meta(3, 64, 16), meta(3, 8, 64), meta(64, 16))
        self.assertEqual(sum("cutec.bmm" in t for t in seen), 2, seen)
        self.assertEqual(sum("cutec.mm" in t for t in seen), 1, seen)

    def test_compile_graph_keeps_the_ops(self):
        seen = []

        def backend(gm, inputs):
            seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
            return gm

        torch._dynamo.reset()
        g = torch.compile(lambda x, w: ct.linear(x, w, None, "swiglu"), fullgraph=True, backend=backend)
        g(meta(4, 64), meta(32, 64))
        self.assertTrue(any("cutec.linear" in s for s in seen), seen)

    def test_export_keeps_the_ops(self):
        class M(torch.nn.Module):
            def forward(self, x, w, b):
                return ct.linear(x, w, b, activation="silu")

        ep = torch.export.export(M(), (meta(4, 64), meta(32, 64), meta(32)))
        targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
        self.assertIn("cutec.linear.default", targets)
        out = [n for n in ep.graph.nodes if n.op == "output"][0].args[0][0]
        self.assertEqual(tuple(out.meta["val"].shape), (4, 32))


class Errors(unittest.TestCase):
    def check(self, fn, status, text):
        with self.assertRaises(ct.CutecError) as cm:
            fn()
        self.assertEqual(cm.exception.status, status)
        self.assertIn(text, str(cm.exception))

    def test_before_any_call(self):
        a, b = meta(8, 32), meta(32, 64)
        self.check(lambda: ct.mm(a.float(), b.float()), "CUTEC_ERR_INVALID_ARGUMENT",
                   "cutec.torch.mm: A and B must both be bfloat16 or both float16, got torch.float32 and torch.float32")
        self.check(lambda: ct.mm(a, b.half()), "CUTEC_ERR_INVALID_ARGUMENT", "got torch.bfloat16 and torch.float16")
        self.check(lambda: ct.mm(a, meta(31, 64)), "CUTEC_ERR_BAD_SIZE", "A is 8x32 and B is 31x64: K differs")
        self.check(lambda: ct.mm(meta(2, 8, 32), b), "CUTEC_ERR_BAD_SIZE", "must be 2-D")
        self.check(lambda: ct.mm(meta(8, 0), meta(0, 64)), "CUTEC_ERR_BAD_SIZE", "K = 0")
        self.check(lambda: ct.linear(a, meta(64, 31)), "CUTEC_ERR_BAD_SIZE",
                   "cutec.torch.linear: x has 32 features and weight is 64x31 (out x in)")
        self.check(lambda: ct.linear(a, meta(64, 32), activation="gelu"), "CUTEC_ERR_INVALID_ARGUMENT",
                   "unknown activation 'gelu' (one of: identity, relu, relu6, gelu_tanh, gelu_erf, silu, sigmoid, "
                   "swiglu, geglu)")
        self.check(lambda: ct.linear(a, meta(40, 32), activation="swiglu"), "CUTEC_ERR_BAD_SIZE",
                   "N = 40; a gated activation (swiglu) needs a multiple of 16")
        self.check(lambda: ct.linear(a, meta(64, 32), meta(63)), "CUTEC_ERR_BAD_SIZE",
                   "bias must be 1-D of 64 elements, got shape 63")
        self.check(lambda: ct.linear(a, meta(64, 32), meta(64, dtype=torch.float16)), "CUTEC_ERR_INVALID_ARGUMENT",
                   "bias must have the output's dtype torch.bfloat16 (or float32), got torch.float16")
        self.check(lambda: ct.gemm(a, b, meta(8, 64, dtype=torch.float16), beta=1.0), "CUTEC_ERR_INVALID_ARGUMENT",
                   "C must have the output's dtype torch.bfloat16")
        self.check(lambda: ct.gemm(a, b, alpha=float("nan")), "CUTEC_ERR_INVALID_ARGUMENT",
                   "alpha = nan is not a finite float32")
        self.check(lambda: ct.gemm(a, b, meta(8, 64), beta=1e39), "CUTEC_ERR_INVALID_ARGUMENT", "beta = 1e+39")
        self.check(lambda: ct.addmm(meta(3, 5), a, b), "CUTEC_ERR_BAD_SIZE",
                   "input of shape [3, 5] does not broadcast to 8x64")

    def test_bmm_before_any_call(self):
        a, b = meta(3, 8, 32), meta(3, 32, 64)
        self.check(lambda: ct.bmm(a, meta(4, 32, 64)), "CUTEC_ERR_BAD_SIZE",
                   "cutec.torch.bmm: A is a batch of 3 and B of 4: the batch differs")
        self.check(lambda: ct.bmm(meta(8, 32), b), "CUTEC_ERR_BAD_SIZE",
                   "cutec.torch.bmm: A and B must be 3-D (L x M x K and L x K x N), got 8x32 and 3x32x64")
        self.check(lambda: ct.bmm(a, meta(3, 31, 64)), "CUTEC_ERR_BAD_SIZE", "A is 3x8x32 and B is 3x31x64: K differs")
        self.check(lambda: ct.bmm(a.float(), b.float()), "CUTEC_ERR_INVALID_ARGUMENT",
                   "cutec.torch.bmm: A and B must both be bfloat16 or both float16, got torch.float32 and "
                   "torch.float32")
        self.check(lambda: ct.bmm(a, b.half()), "CUTEC_ERR_INVALID_ARGUMENT", "got torch.bfloat16 and torch.float16")
        self.check(lambda: ct.bmm(meta(3, 8, 0), meta(3, 0, 64)), "CUTEC_ERR_BAD_SIZE", "K = 0")
        self.check(lambda: ct.matmul(meta(2, 3, 8, 32), b), "CUTEC_ERR_BAD_SIZE",
                   "cutec.torch.matmul: A and B must be 2-D or 3-D, got 4-D and 3-D")
        self.check(lambda: ct.matmul(a, meta(31, 64)), "CUTEC_ERR_BAD_SIZE", "K differs")

    def test_grouped_before_any_call(self):
        # each error once through the fake implementation (meta tensors) and once through the real one (CPU
        # tensors standing for device ones, with a handle that fails the test if a call reaches it)
        op = "cutec.torch.grouped_mm: "
        cases = [
            (lambda t, o: ((t(8, 32), t(4, 64, 32).transpose(-2, -1), o(4)), {}), None, None),  # valid: no error
            (lambda t, o: ((t(2, 8, 32), t(4, 32, 64), o(4)), {}), "CUTEC_ERR_BAD_SIZE",
             "A must be 2-D (M x K) and B 3-D (G x K x N), got 2x8x32 and 4x32x64"),
            (lambda t, o: ((t(8, 32), t(32, 64), o(4)), {}), "CUTEC_ERR_BAD_SIZE",
             "A must be 2-D (M x K) and B 3-D (G x K x N), got 8x32 and 32x64"),
            (lambda t, o: ((t(8, 32), t(4, 31, 64), o(4)), {}), "CUTEC_ERR_BAD_SIZE",
             "A is 8x32 and B is 4x31x64: K differs"),
            (lambda t, o: ((t(8, 32), t(4, 32, 64), o(3)), {}), "CUTEC_ERR_BAD_SIZE",
             "offs must be 1-D with one row end per group of B (4), got shape 3"),
            (lambda t, o: ((t(8, 32), t(4, 32, 64), o(4, 1)), {}), "CUTEC_ERR_BAD_SIZE",
             "offs must be 1-D with one row end per group of B (4), got shape 4x1"),
            (lambda t, o: ((t(8, 32), t(4, 32, 64), o(4).long()), {}), "CUTEC_ERR_INVALID_ARGUMENT",
             "offs must be int32, got torch.int64"),
            (lambda t, o: ((t(8, 32).float(), t(4, 32, 64).float(), o(4)), {}), "CUTEC_ERR_INVALID_ARGUMENT",
             "A and B must both be bfloat16 or both float16, got torch.float32 and torch.float32"),
            (lambda t, o: ((t(8, 32), t(4, 32, 64).half(), o(4)), {}), "CUTEC_ERR_INVALID_ARGUMENT",
             "A and B must both be bfloat16 or both float16, got torch.bfloat16 and torch.float16"),
            (lambda t, o: ((t(8, 32), t(4, 32, 64), o(4)), {"out_dtype": torch.float16}), "CUTEC_ERR_INVALID_ARGUMENT",
             "out_dtype must be A's dtype torch.bfloat16 or torch.float32, got torch.float16"),
            (lambda t, o: ((t(8, 0), t(4, 0, 64), o(4)), {}), "CUTEC_ERR_BAD_SIZE", "K = 0: cutec needs K >= 1"),
        ]

        class NoCall:
            def run(self, *args):
                raise AssertionError("the handle was reached")

        cpu = (lambda *s: torch.zeros(*s, dtype=BF16), lambda *s: torch.zeros(*s, dtype=I32))
        on_meta = (meta, lambda *s: meta(*s, dtype=I32))
        saved = ops._host_gemm_for_tests
        ops._host_gemm_for_tests = NoCall()
        try:
            for make, status, text in cases:
                for where, (t, o) in (("meta", on_meta), ("cpu", cpu)):
                    args, kw = make(t, o)
                    with self.subTest(where=where, error=text):
                        if status is None:
                            if where == "meta":
                                self.assertEqual(ct.grouped_mm(*args, **kw).shape, (8, 64))
                            else:
                                self.assertRaises(AssertionError, ct.grouped_mm, *args, **kw)  # reaches the call
                        else:
                            self.check(lambda: ct.grouped_mm(*args, **kw), status, op + text)
            a, b = torch.zeros(8, 32, dtype=BF16), torch.zeros(4, 32, 64, dtype=BF16)
            self.check(lambda: ct.grouped_mm(a, b, meta(4, dtype=I32)), "CUTEC_ERR_INVALID_ARGUMENT",
                       op + "offs is on meta and A on cpu: the operands must be on one CUDA device")
            self.check(lambda: ct.grouped_mm(a, b.to("meta"), torch.zeros(4, dtype=I32)),
                       "CUTEC_ERR_INVALID_ARGUMENT", op + "B is on meta and A on cpu")
        finally:
            ops._host_gemm_for_tests = saved
        self.check(lambda: ct.grouped_mm(a, b, torch.zeros(4, dtype=I32)), "CUTEC_ERR_INVALID_ARGUMENT",
                   op + "A is on cpu: cutec runs on CUDA tensors")

    def test_device(self):
        a, b = torch.randn(8, 32, dtype=BF16), torch.randn(32, 64, dtype=BF16)
        self.check(lambda: ct.mm(a, b), "CUTEC_ERR_INVALID_ARGUMENT",
                   "cutec.torch.mm: A is on cpu: cutec runs on CUDA tensors")
        self.check(lambda: ct.bmm(a.unsqueeze(0), b.unsqueeze(0)), "CUTEC_ERR_INVALID_ARGUMENT",
                   "cutec.torch.bmm: A is on cpu: cutec runs on CUDA tensors")


class Recorder:
    """A handle that records each call (plan, pointers) instead of making it."""

    def __init__(self):
        self.calls = []

    def run(self, plan, ptrs, stream, capturing=None, group_ends=0, scales=(0, 0, 0, 0)):
        self.calls.append((plan, ptrs, scales))


class DirectPath(unittest.TestCase):
    """Eager calls skip the dispatcher (ops.op_calls counts the registered
    ops' implementations, which the direct path does not enter); compiled
    code, dispatch modes, inputs that need a gradient and DIRECT = False go
    through the ops; errors raise on either path."""

    def setUp(self):
        self.saved = ops._host_gemm_for_tests
        self.rec = ops._host_gemm_for_tests = Recorder()

    def tearDown(self):
        ops._host_gemm_for_tests = self.saved
        ops.DIRECT = True

    def via_op(self, fn):
        """(how many calls entered the registered ops, how many reached the handle) while fn runs."""
        n, r = ops.op_calls, len(self.rec.calls)
        fn()
        return ops.op_calls - n, len(self.rec.calls) - r

    def test_eager_is_direct(self):
        a, w, bias = torch.zeros(8, 32, dtype=BF16), torch.zeros(16, 32, dtype=BF16), torch.zeros(16, dtype=BF16)
        x3 = torch.zeros(2, 3, 32, dtype=BF16)
        for name, fn in (("mm", lambda: ct.mm(a, w.t())), ("linear", lambda: ct.linear(a, w, bias, "relu")),
                         ("linear 3-D", lambda: ct.linear(x3, w)), ("addmm", lambda: ct.addmm(bias, a, w.t())),
                         ("gemm", lambda: ct.gemm(a, w.t(), bias=bias)), ("bmm", lambda: ct.bmm(x3, x3.mT)),
                         ("parameters", lambda: ct.linear(a, torch.nn.Parameter(w, requires_grad=False)))):
            with self.subTest(name):
                self.assertEqual(self.via_op(fn), (0, 1))
        with torch.no_grad():  # a parameter that needs a gradient, where none is recorded
            self.assertEqual(self.via_op(lambda: ct.linear(a, torch.nn.Parameter(w))), (0, 1))

    def test_the_call_made(self):
        # the direct path's call: the plan of the tensors as given, weight's own pointer (w.t()'s), the
        # output in x's leading shape
        x3, w, bias = torch.zeros(2, 3, 32, dtype=BF16), torch.zeros(16, 32, dtype=BF16), torch.zeros(16, dtype=BF16)
        for _ in range(2):  # the first call plans, the second finds the plan
            y = ct.linear(x3, w, bias, "gelu_tanh")
            plan, ptrs, _ = self.rec.calls[-1]
            self.assertEqual(y.shape, (2, 3, 16))
            self.assertEqual(ptrs, (x3.data_ptr(), w.data_ptr(), y.data_ptr(), 0, bias.data_ptr(), 0, 0))
            f = plan.fields
            self.assertEqual((f["m"], f["n"], f["k"], f["b_layout"], f["ldb"], f["act"]), (6, 16, 32, COL, 32,
                                                                                             b"gelu_tanh"))
        xt = x3.transpose(0, 1)  # its rows are no matrix: flattened by a copy
        y = ct.linear(xt, w)
        plan, ptrs, _ = self.rec.calls[-1]
        self.assertEqual((y.shape, plan.flat_copy, plan.copy), ((3, 2, 16), True, frozenset()))
        self.assertNotEqual(ptrs[0], xt.data_ptr())
        a, b = torch.zeros(8, 64, dtype=BF16)[:, ::2], torch.zeros(32, 16, dtype=BF16)  # A has no layout: copied
        d = ct.mm(a, b)
        plan, ptrs, _ = self.rec.calls[-1]
        self.assertEqual((plan.copy, d.shape), (frozenset({"A"}), (8, 16)))
        self.assertNotEqual(ptrs[0], a.data_ptr())

    def test_not_direct(self):
        a, b = torch.zeros(8, 32, dtype=BF16), torch.zeros(32, 16, dtype=BF16)
        self.assertEqual(self.via_op(lambda: ct.mm(a.requires_grad_(), b)), (1, 1))
        a.requires_grad_(False)
        ops.DIRECT = False
        self.assertEqual(self.via_op(lambda: ct.mm(a, b)), (1, 1))
        ops.DIRECT = True

        class Mode(torch.utils._python_dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        with Mode():
            self.assertEqual(self.via_op(lambda: ct.mm(a, b)), (1, 1))

    def test_compiled_goes_through_the_op(self):
        a, w = torch.zeros(8, 32, dtype=BF16), torch.zeros(16, 32, dtype=BF16)
        f = lambda x, w: ct.linear(ct.mm(x, w.t()), w.t()[:16], None, "relu")  # noqa: E731
        torch._dynamo.reset()
        g = torch.compile(f, fullgraph=True, backend="eager")
        g(a, w)  # traces (the fake implementations), then runs the graph
        self.assertEqual(self.via_op(lambda: g(a, w)), (2, 2))
        self.assertEqual(self.via_op(lambda: f(a, w)), (0, 2))

    def test_errors_on_the_direct_path(self):
        a, b = torch.zeros(8, 32, dtype=BF16), torch.zeros(32, 16, dtype=BF16)
        n = ops.op_calls
        for fn, status, text in (
                (lambda: ct.mm(a.float(), b.float()), "CUTEC_ERR_INVALID_ARGUMENT", "cutec.torch.mm: A and B must both "
                 "be bfloat16 or both float16, got torch.float32 and torch.float32"),
                (lambda: ct.mm(a, b[:31]), "CUTEC_ERR_BAD_SIZE", "cutec.torch.mm: A is 8x32 and B is 31x16: K differs"),
                (lambda: ct.mm(a, b.to("meta")), "CUTEC_ERR_INVALID_ARGUMENT", "cutec.torch.mm: B is on meta and A on "
                 "cpu: the operands must be on one CUDA device"),
                (lambda: ct.linear(a, b), "CUTEC_ERR_BAD_SIZE", "cutec.torch.linear: x has 32 features and weight is "
                 "32x16 (out x in)"),
                (lambda: ct.linear(a, b.t(), torch.zeros(15, dtype=BF16)), "CUTEC_ERR_BAD_SIZE",
                 "bias must be 1-D of 16 elements, got shape 15"),
                (lambda: ct.linear(a, b.t(), activation="gelu"), "CUTEC_ERR_INVALID_ARGUMENT", "unknown activation")):
            for _ in range(2):  # a failed call leaves no plan behind: it fails again
                with self.assertRaises(ct.CutecError) as cm:
                    fn()
                self.assertEqual(cm.exception.status, status)
                self.assertIn(text, str(cm.exception))
        self.assertEqual((ops.op_calls - n, len(self.rec.calls)), (0, 0))


E4, E5, F32 = torch.float8_e4m3fn, torch.float8_e5m2, torch.float32


class ScaledMm(unittest.TestCase):
    """cutec.torch.scaled_mm without a runtime: the plan's fields for each
    scale mode, registration, fake shapes, compile and export, errors on
    both paths, and the call the direct path makes (a Recorder handle)."""

    def check(self, fn, status, text):
        with self.assertRaises(ct.CutecError) as cm:
            fn()
        self.assertEqual(cm.exception.status, status)
        self.assertIn(text, str(cm.exception))

    def test_plans(self):
        from cutec.torch.scaled import plan_scaled

        a, b = meta(33, 384, dtype=E4), meta(200, 384, dtype=E5).t()
        cases = [  # scale_a, scale_b, out_dtype -> scale_mode, c_type, scales copied
            (meta((), dtype=F32), meta(1, 1, dtype=F32), torch.bfloat16, capi.SCALE_TENSOR, capi.DTYPE_BF16, set()),
            (meta(33, 1, dtype=F32), meta(1, 200, dtype=F32), torch.float16, capi.SCALE_ROW, capi.DTYPE_F16, set()),
            (meta(1, 33, dtype=F32).t(), meta(1, 400, dtype=F32)[:, ::2], F32, capi.SCALE_ROW, capi.DTYPE_F32,
             {"scale_b"}),
            (meta(33, 2, dtype=F32)[:, :1], meta(1, 200, dtype=F32), F32, capi.SCALE_ROW, capi.DTYPE_F32,
             {"scale_a"}),
            (meta(3, 33, dtype=F32).t(), meta(2, 3, dtype=F32).t(), E4, capi.SCALE_BLOCK, capi.DTYPE_E4M3, set()),
            (meta(33, 3, dtype=F32), meta(3, 2, dtype=F32), None, capi.SCALE_BLOCK, capi.DTYPE_E4M3,
             {"scale_a", "scale_b"}),
        ]
        for sa, sb, out, mode, c_type, copied in cases:
            with self.subTest(mode=mode, out=out):
                p = plan_scaled("t", a, b, sa, sb, out_dtype=out)
                f = p.fields
                self.assertEqual((f["m"], f["n"], f["k"], f["a_type"], f["b_type"]),
                                 (33, 200, 384, capi.DTYPE_E4M3, capi.DTYPE_E5M2))
                self.assertEqual((f["a_layout"], f["lda"], f["b_layout"], f["ldb"], f["ldc"]),
                                 (ROW, 384, COL, 384, 200))
                self.assertEqual((f["scale_mode"], f["c_type"], f["bias"], f["bias_type"]), (mode, c_type, 0, 0))
                self.assertEqual((p.copy, p.fp8_out), (frozenset(copied), c_type == capi.DTYPE_E4M3))
        sa = meta(33, 3, dtype=F32)
        self.assertEqual(p.scale_copy(sa).stride(), (1, 33))  # block-wise: M x ceil(K/128), M contiguous
        p = plan_scaled("t", meta(8, 64, 64, dtype=E4)[0, :, :32], meta(16, 40, dtype=E4)[:, 8:40].t(),
                        meta((), dtype=F32), meta((), dtype=F32), bias=meta(16), out_dtype=torch.bfloat16)
        f = p.fields
        self.assertEqual((f["lda"], f["ldb"], f["bias"], f["bias_type"]), (64, 40, 1, capi.DTYPE_BF16))

    def test_registration_and_fake_shapes(self):
        self.assertIn("cutec::scaled_mm", str(torch.ops.cutec.scaled_mm.default._schema))
        a, b = meta(7, 256, dtype=E4), meta(24, 256, dtype=E4).t()
        one = meta((), dtype=F32)
        d = ct.scaled_mm(a, b, one, one)
        self.assertEqual((d.shape, d.dtype), ((7, 24), E4))  # torch's default: the inputs' dtype
        d = ct.scaled_mm(a, b, meta(7, 1, dtype=F32), meta(1, 24, dtype=F32), meta(24), out_dtype=torch.bfloat16)
        self.assertEqual((d.shape, d.dtype), ((7, 24), torch.bfloat16))
        d, mx = ct.scaled_mm(a, b, meta(7, 2, dtype=F32), meta(2, 1, dtype=F32), scale_result=one, amax=True)
        self.assertEqual((d.shape, d.dtype, mx.shape, mx.dtype), ((7, 24), E4, (), F32))
        self.assertEqual(ct.scaled_mm(meta(0, 256, dtype=E4), b, one, one, out_dtype=F32).shape, (0, 24))

    def test_compile_and_export(self):
        seen = []

        def backend(gm, inputs):
            seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
            return gm

        def f(x, w, sx, sw):
            return ct.scaled_mm(x, w.t(), sx, sw, out_dtype=torch.bfloat16).float().relu()

        args = (meta(10, 256, dtype=E4), meta(48, 256, dtype=E4), meta(10, 1, dtype=F32), meta(1, 48, dtype=F32))
        for be in ("eager", "aot_eager", backend):
            torch._dynamo.reset()
            out = torch.compile(f, fullgraph=True, backend=be)(*args)
            self.assertEqual((out.shape, out.dtype), ((10, 48), F32))
        self.assertEqual(sum("cutec.scaled_mm" in t for t in seen), 1, seen)

        class M(torch.nn.Module):
            def forward(self, x, w, sx, sw):
                return f(x, w, sx, sw)

        ep = torch.export.export(M(), args)
        self.assertIn("cutec.scaled_mm.default", [str(n.target) for n in ep.graph.nodes if n.op == "call_function"])

    def test_errors_before_any_call(self):
        op = "cutec.torch.scaled_mm: "
        one = lambda t: t((), dtype=F32)  # noqa: E731
        cases = [  # (make the arguments from a tensor maker, kwargs), status, message
            (lambda t: ((t(8, 256, dtype=E4), t(16, 256, dtype=E4).t(), one(t), one(t)), {}), None, None),
            (lambda t: ((t(8, 256, dtype=E4), t(256, 16, dtype=E4), one(t), one(t)), {}), "CUTEC_ERR_UNSUPPORTED",
             "fp8 operands must be K-major, A row-major (M x K, K contiguous) and B column-major (K x N, K contiguous: "
             "the .t() of an N x K tensor); B of shape 256x16 has strides (16, 1): copy it first (A.contiguous(), "
             "B.t().contiguous().t())"),
            (lambda t: ((t(256, 8, dtype=E4).t(), t(16, 256, dtype=E4).t(), one(t), one(t)), {}),
             "CUTEC_ERR_UNSUPPORTED", "fp8 operands must be K-major, A row-major (M x K, K contiguous) and B "
             "column-major (K x N, K contiguous: the .t() of an N x K tensor); A of shape 8x256 has strides (1, 8): "
             "copy it first (A.contiguous(), B.t().contiguous().t())"),
            (lambda t: ((t(8, 256), t(16, 256).t(), one(t), one(t)), {}), "CUTEC_ERR_INVALID_ARGUMENT",
             "A and B must be float8 (float8_e4m3fn or float8_e5m2), got torch.bfloat16 and torch.bfloat16"),
            (lambda t: ((t(8, 256, dtype=E4), t(16, 128, dtype=E4).t(), one(t), one(t)), {}), "CUTEC_ERR_BAD_SIZE",
             "A is 8x256 and B is 128x16: K differs"),
            (lambda t: ((t(2, 8, 256, dtype=E4), t(16, 256, dtype=E4).t(), one(t), one(t)), {}), "CUTEC_ERR_BAD_SIZE",
             "A and B must be 2-D (M x K and K x N), got 2x8x256 and 256x16"),
            (lambda t: ((t(8, 256, dtype=E4), t(16, 256, dtype=E4).t(), t(8, 1), t(1, 16)), {}),
             "CUTEC_ERR_INVALID_ARGUMENT", "scale_a must be float32, got torch.bfloat16"),
            (lambda t: ((t(8, 256, dtype=E4), t(16, 256, dtype=E4).t(), t(8, 1, dtype=F32), t(16, 1, dtype=F32)), {}),
             "CUTEC_ERR_BAD_SIZE", "scale_a of shape 8x1 and scale_b of shape 16x1 name no scale mode: per tensor, one "
             "element each; row-wise, 8x1 and 1x16; block-wise, 8x2 and 2x1"),
            (lambda t: ((t(8, 256, dtype=E4), t(16, 256, dtype=E4).t(), one(t), one(t)), {"out_dtype": torch.int8}),
             "CUTEC_ERR_INVALID_ARGUMENT", "out_dtype must be one of torch.bfloat16, torch.float16, torch.float32, "
             "torch.float8_e4m3fn, torch.float8_e5m2, got torch.int8"),
            (lambda t: ((t(8, 256, dtype=E4), t(16, 256, dtype=E4).t(), one(t), one(t), t(16, dtype=torch.float16)),
                        {"out_dtype": torch.bfloat16}), "CUTEC_ERR_INVALID_ARGUMENT",
             "bias must be torch.bfloat16 for a torch.bfloat16 output, got torch.float16"),
            (lambda t: ((t(8, 256, dtype=E4), t(16, 256, dtype=E4).t(), one(t), one(t), t(8)),
                        {"out_dtype": torch.bfloat16}), "CUTEC_ERR_BAD_SIZE", "bias must be 1-D of 16 elements, got "
             "shape 8"),
            (lambda t: ((t(8, 256, dtype=E4), t(16, 256, dtype=E4).t(), one(t), one(t)),
                        {"out_dtype": torch.bfloat16, "scale_result": one(t)}), "CUTEC_ERR_INVALID_ARGUMENT",
             "scale_result scales an fp8 output, and the output is torch.bfloat16"),
            (lambda t: ((t(8, 256, dtype=E4), t(16, 256, dtype=E4).t(), one(t), one(t)),
                        {"scale_result": t(2, dtype=F32)}), "CUTEC_ERR_INVALID_ARGUMENT",
             "scale_result must be one float32, got torch.float32 of shape 2"),
            (lambda t: ((t(8, 256, dtype=E4), t(16, 256, dtype=E4).t(), one(t), one(t)), {"out_dtype": F32,
                                                                                          "amax": True}),
             "CUTEC_ERR_INVALID_ARGUMENT", "amax comes with an fp8 output, and the output is torch.float32"),
            (lambda t: ((t(8, 0, dtype=E4), t(16, 0, dtype=E4).t(), one(t), one(t)), {}), "CUTEC_ERR_BAD_SIZE",
             "K = 0: cutec needs K >= 1"),
        ]
        cpu = lambda *s, dtype=BF16: torch.zeros(*s, dtype=dtype)  # noqa: E731
        saved = ops._host_gemm_for_tests
        ops._host_gemm_for_tests = rec = Recorder()
        try:
            for make, status, text in cases:
                for where, t in (("meta", meta), ("cpu", cpu)):
                    args, kw = make(t)
                    with self.subTest(where=where, error=text):
                        if status is None:
                            self.assertEqual(ct.scaled_mm(*args, **kw).shape, (8, 16))
                        else:
                            self.check(lambda: ct.scaled_mm(*args, **kw), status, op + text)
            self.assertEqual(len(rec.calls), 1)  # the valid call, on CPU
        finally:
            ops._host_gemm_for_tests = saved

    def test_the_call_made(self):
        # the pointers of each mode: the scales as given (or their copies), scale_d and amax with an fp8 output only
        a, w = torch.zeros(8, 256, dtype=E4), torch.zeros(16, 256, dtype=E4)
        saved = ops._host_gemm_for_tests
        ops._host_gemm_for_tests = rec = Recorder()
        try:
            sa, sb, bias = torch.ones(8, 1), torch.ones(1, 16), torch.zeros(16, dtype=BF16)
            d = ct.scaled_mm(a, w.t(), sa, sb, bias, out_dtype=torch.bfloat16)
            plan, ptrs, scales = rec.calls[-1]
            self.assertEqual(ptrs, (a.data_ptr(), w.data_ptr(), d.data_ptr(), 0, bias.data_ptr(), 0, 0))
            self.assertEqual(scales, (sa.data_ptr(), sb.data_ptr(), 0, 0))
            self.assertEqual((plan.fields["scale_mode"], plan.fields["bias_type"]), (capi.SCALE_ROW, capi.DTYPE_BF16))
            sr = torch.full((1,), 0.5)
            d, mx = ct.scaled_mm(a, w.t(), torch.ones(8, 2), torch.ones(2, 1).t().contiguous().t(), scale_result=sr,
                                 amax=True)
            plan, ptrs, scales = rec.calls[-1]
            self.assertEqual((d.dtype, plan.fields["scale_mode"], plan.copy), (E4, capi.SCALE_BLOCK,
                                                                               frozenset({"scale_a"})))
            self.assertEqual(scales[2:], (sr.data_ptr(), mx.data_ptr()))
            self.assertNotIn(0, scales)
            self.assertEqual(mx.item(), 0.0)  # zeroed for the runtime's atomic maximum
            ct.scaled_mm(a, w.t(), torch.ones(()), torch.ones(()))  # an fp8 output without scale_result: 1
            self.assertNotIn(0, rec.calls[-1][2])
        finally:
            ops._host_gemm_for_tests = saved


class Gated(unittest.TestCase):
    def test_interleave(self):
        gate = torch.arange(16).reshape(16, 1) * 10
        up = -gate
        w = ct.interleave_gate_up(gate, up)
        self.assertEqual(w[:, 0].tolist()[:24], [0, 10, 20, 30, 40, 50, 60, 70, 0, -10, -20, -30, -40, -50, -60, -70,
                                                 80, 90, 100, 110, 120, 130, 140, 150])
        g2, u2 = ct.split_gate_up(w)
        self.assertTrue(torch.equal(g2, gate) and torch.equal(u2, up))
        self.assertTrue(torch.equal(ct.interleave_gate_up(torch.cat([gate, up])), w))
        with self.assertRaises(ValueError):
            ct.interleave_gate_up(torch.zeros(12, 2), torch.zeros(12, 2))

    def test_module_shapes(self):
        lin = ct.Linear(64, 32, activation="swiglu", device="meta", dtype=BF16)
        self.assertEqual((tuple(lin.weight.shape), tuple(lin.bias.shape)), ((64, 64), (64,)))
        self.assertEqual(lin(meta(5, 64)).shape, (5, 32))
        self.assertIn("activation=swiglu", repr(lin))

    def test_fusible(self):
        nn = torch.nn
        self.assertEqual(ct.fusible_activation(nn.GELU(approximate="tanh")), "gelu_tanh")
        self.assertEqual(ct.fusible_activation(nn.GELU()), "gelu_erf")
        self.assertEqual(ct.fusible_activation(nn.SiLU()), "silu")
        self.assertIsNone(ct.fusible_activation(nn.Tanh()))
        for name in ("relu", "relu6", "silu", "sigmoid", "gelu_tanh", "gelu_erf"):
            self.assertIn(name, capi.activations())  # each FUSIBLE name is a row of the table


if __name__ == "__main__":
    unittest.main()
