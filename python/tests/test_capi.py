"""The ctypes mirror (cutec.capi) against the C header, through capi_layout
(built by CMake, $CUTEC_CAPI_LAYOUT): every size, field offset and enum
value; and the parts of the package that need no PyTorch."""
import ctypes
import os
import re
import subprocess
import sys
import unittest

from cutec import capi, locate
from cutec.errors import CutecError

PKG = os.path.dirname(os.path.abspath(capi.__file__))


def c_layout():
    out = subprocess.run([os.environ["CUTEC_CAPI_LAYOUT"]], check=True, capture_output=True, text=True).stdout
    return {name: int(v) for name, v in (line.split() for line in out.splitlines())}


class Layout(unittest.TestCase):
    def test_structs(self):
        c = c_layout()
        checked = 0
        for cls in (capi.GemmProblem, capi.GemmArgs, capi.TuneCandidate, capi.TuneReport, capi.ActInfo):
            name = cls.__name__
            if f"{name}.size" in c:
                self.assertEqual(ctypes.sizeof(cls), c[f"{name}.size"], f"sizeof {name}")
            c_fields = [k.split(".", 1)[1] for k in c if k.startswith(name + ".") and k != f"{name}.size"]
            py_fields = [f[0] for f in cls._fields_]
            self.assertEqual(py_fields, c_fields, f"{name}: the mirror's fields are the header's, in order")
            for f in py_fields:
                self.assertEqual(getattr(cls, f).offset, c[f"{name}.{f}"], f"offsetof {name}.{f}")
                checked += 1
        self.assertGreater(checked, 40)

    def test_args_pointer_runs(self):
        # DeviceGemm.run writes A .. aux and scale_a .. amax through arrays of 8-byte words: each run is
        # consecutive in the header (test_structs ties the mirror's offsets to it)
        c = c_layout()
        for run in (("A", "B", "D", "C", "bias", "bias_row", "aux"), ("scale_a", "scale_b", "scale_d", "amax")):
            start = c[f"GemmArgs.{run[0]}"]
            self.assertEqual([c[f"GemmArgs.{f}"] for f in run], [start + 8 * i for i in range(len(run))], run)

    def test_struct_size_set(self):
        self.assertEqual(capi.GemmProblem().struct_size, ctypes.sizeof(capi.GemmProblem))
        self.assertEqual(capi.GemmArgs().struct_size, ctypes.sizeof(capi.GemmArgs))

    def test_enums(self):
        c = c_layout()
        self.assertEqual(c["enum.size"], ctypes.sizeof(ctypes.c_int))
        for k, v in c.items():
            if "." not in k:
                self.assertEqual(getattr(capi, k), v, k)


class Library(unittest.TestCase):
    def test_status_names(self):
        names = capi.status_names()
        self.assertEqual(names[0], "CUTEC_OK")
        self.assertEqual(names[20], "CUTEC_ERR_BAD_LEADING_DIM")
        # every status the Python code raises by name is one of the runtime's
        used = set()
        for d, _, files in os.walk(PKG):
            for f in files:
                if f.endswith(".py"):
                    with open(os.path.join(d, f)) as fh:
                        used |= set(re.findall(r'"(CUTEC_ERR_[A-Z_]+)"', fh.read()))
        self.assertIn("CUTEC_ERR_KERNEL_NOT_FOUND", used)
        self.assertEqual(used - set(names.values()), set())

    def test_activations_from_the_table(self):
        acts = capi.activations()
        self.assertEqual(acts["swiglu"], True)
        self.assertEqual(acts["geglu"], True)
        self.assertEqual(acts["gelu_tanh"], False)
        self.assertIn("identity", acts)

    def test_check_raises_named_status(self):
        with self.assertRaises(CutecError) as cm:
            capi.check(20, None, "what")
        e = cm.exception
        self.assertEqual((e.status, e.code), ("CUTEC_ERR_BAD_LEADING_DIM", 20))
        self.assertTrue(str(e).startswith("CUTEC_ERR_BAD_LEADING_DIM: what: "), str(e))
        capi.check(0)

    def test_runtime_without_driver(self):
        # a runtime whose driver cannot load: the status and the runtime's message
        lib = capi.load()
        env = os.environ.get("CUTEC_CUDA_DRIVER")
        os.environ["CUTEC_CUDA_DRIVER"] = "/nonexistent/libcuda.so.1"
        try:
            rt = ctypes.c_void_p()
            st = lib.cutec_runtime_create(ctypes.byref(rt), 0)
            with self.assertRaises(CutecError) as cm:
                capi.check(st, rt, "create")
            self.assertEqual(cm.exception.status, "CUTEC_ERR_NO_DRIVER")
            self.assertIn("/nonexistent/libcuda.so.1", cm.exception.message)
            lib.cutec_runtime_destroy(rt)
        finally:
            if env is None:
                del os.environ["CUTEC_CUDA_DRIVER"]
            else:
                os.environ["CUTEC_CUDA_DRIVER"] = env


class Locate(unittest.TestCase):
    def setUp(self):
        self.saved = {k: os.environ.get(k) for k in ("CUTEC_LIB", "CUTEC_PACKS", "CUTEC_BIN_DIR")}

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def test_env_wins(self):
        os.environ["CUTEC_LIB"] = "/x/libcutec_rt.so"
        self.assertEqual(locate.library_path(), "/x/libcutec_rt.so")

    def test_packs_files_and_directories(self):
        d = os.path.join(os.environ.get("CUTEC_CACHE_DIR", "/tmp"), "packs-dir")
        os.makedirs(d, exist_ok=True)
        for f in ("b.pack", "a.pack", "notes.txt"):
            open(os.path.join(d, f), "w").close()
        os.environ["CUTEC_PACKS"] = os.pathsep.join(["/y/one.pack", d])
        self.assertEqual(locate.pack_paths(), ["/y/one.pack", os.path.join(d, "a.pack"), os.path.join(d, "b.pack")])
        os.environ["CUTEC_PACKS"] = ""
        self.assertEqual(locate.pack_paths(), [])

    def test_console_script_without_binary(self):
        os.environ["CUTEC_BIN_DIR"] = "/nonexistent"
        r = subprocess.run([sys.executable, "-c", "import cutec.cli; cutec.cli.tune_main()", "--help"],
                           capture_output=True, text=True, env=dict(os.environ))
        if locate.binary_path("cutec-tune") is None:  # not bundled in this tree
            self.assertEqual(r.returncode, 2)
            self.assertIn("cutec-tune: not bundled with this cutec package", r.stderr)


if __name__ == "__main__":
    unittest.main()
