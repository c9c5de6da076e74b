"""`pip install` of the package, offline (--no-index: the in-tree backend
needs nothing from an index), plain and with a staged runtime: the wheel's
tag, the bundled library found without CUTEC_LIB, the console scripts."""
import glob
import os
import shutil
import subprocess
import sys
import sysconfig
import unittest

SRC = os.environ["CUTEC_PYTHON_SRC"]
TMP = os.environ["CUTEC_TEST_TMP"]


def pip_install(src, target, fast=False):
    """fast: the backend may build cutec._fast (else CUTEC_NO_FAST=1)."""
    env = dict(os.environ, CUTEC_NO_FAST="0" if fast else "1")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--no-cache-dir",
                        "--disable-pip-version-check", "--target", target, src], capture_output=True, text=True,
                       env=env)
    if r.returncode != 0:
        raise AssertionError(f"pip install failed:\n{r.stdout}\n{r.stderr}")


def clean_env(target):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUTEC_")}
    env["PYTHONPATH"] = target
    return env


def wheel_tag(target):
    (wheel,) = glob.glob(os.path.join(target, "cutec-*.dist-info", "WHEEL"))
    with open(wheel) as f:
        return [line.split(": ", 1)[1].strip() for line in f if line.startswith("Tag: ")][0]


class Install(unittest.TestCase):
    def setUp(self):
        shutil.rmtree(TMP, ignore_errors=True)
        self.src = os.path.join(TMP, "src")
        shutil.copytree(SRC, self.src, ignore=shutil.ignore_patterns("__pycache__", "_bundle", "*.pyc"))

    def test_plain(self):
        target = os.path.join(TMP, "plain")
        pip_install(self.src, target)
        self.assertEqual(wheel_tag(target), "py3-none-any")
        env = clean_env(target)
        r = subprocess.run([sys.executable, "-c", "import cutec; print(cutec.__file__, cutec.library_path())"],
                           capture_output=True, text=True, env=env, cwd=TMP)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith(os.path.join(target, "cutec")), r.stdout)
        self.assertTrue(r.stdout.strip().endswith("None"), r.stdout)  # nothing bundled
        r = subprocess.run([os.path.join(target, "bin", "cutec-tune"), "list"], capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not bundled with this cutec package", r.stderr)

    def test_fast(self):
        """Where a compiler and Python.h are present the wheel holds cutec._fast
        and is tagged for this interpreter; where not, it is the plain one."""
        target = os.path.join(TMP, "fast")
        pip_install(self.src, target, fast=True)
        include = sysconfig.get_paths().get("include", "")
        can = bool(shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")) and \
            os.path.isfile(os.path.join(include, "Python.h")) and not sysconfig.get_config_var("Py_GIL_DISABLED")
        v = f"cp{sys.version_info[0]}{sys.version_info[1]}"
        self.assertEqual(wheel_tag(target).startswith(f"{v}-{v}"), can, wheel_tag(target))
        if not can:
            self.assertEqual(wheel_tag(target), "py3-none-any")
            return
        code = "import cutec._fast as f; print(f.__file__, f.size())"
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(target),
                           cwd=TMP)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith(os.path.join(target, "cutec", "_fast")), r.stdout)
        self.assertTrue(r.stdout.strip().endswith(" 0"), r.stdout)

    def test_staged(self):
        pack = os.path.join(TMP, "x.pack")
        with open(pack, "wb") as f:
            f.write(b"CUTECPAK")
        r = subprocess.run([sys.executable, os.path.join(self.src, "scripts", "stage.py"), "--lib",
                            os.environ["CUTEC_LIB"], "--bin", os.environ["CUTEC_TUNE_BIN"], "--pack", pack],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        target = os.path.join(TMP, "staged")
        pip_install(self.src, target)
        self.assertNotEqual(wheel_tag(target), "py3-none-any")  # a platform wheel: it holds a .so
        env = clean_env(target)
        code = ("import cutec, cutec.capi as c; print(cutec.library_path()); print(cutec.pack_paths()); "
                "print(c.version())")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=TMP)
        self.assertEqual(r.returncode, 0, r.stderr)
        lib, packs, version = r.stdout.splitlines()
        self.assertEqual(lib, os.path.join(target, "cutec", "_bundle", "lib", "cutec", "libcutec_rt.so"))
        self.assertIn("x.pack", packs)
        self.assertRegex(version, r"^\d+\.\d+\.\d+$")
        # the console script runs the bundled binary
        r = subprocess.run([os.path.join(target, "bin", "cutec-tune"), "--help"], capture_output=True, text=True,
                           env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("cutec-tune", r.stdout)


if __name__ == "__main__":
    unittest.main()
