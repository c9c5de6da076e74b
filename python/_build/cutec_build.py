"""PEP 517 build backend of the cutec package: the standard library only.

A wheel holds the cutec/ tree as it is, with whatever scripts/stage.py put
in cutec/_bundle/ (libcutec_rt.so, packs, binaries); with a bundled shared
library the wheel is tagged for this platform, else it is pure Python.
Where a C compiler and this interpreter's Python.h are present, the wheel
also holds cutec._fast (cutec/_fast.c, the cached eager call of mm and
linear) and is tagged for this interpreter; where not, or with
CUTEC_NO_FAST=1, it is left out and the package runs its Python path.
"""
import base64
import hashlib
import io
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

NAME = "cutec"
VERSION = "0.1.0"
SUMMARY = "PyTorch ops on cutec's autotuned GEMM kernels (runtime loaded with ctypes)"
REQUIRES_PYTHON = ">=3.9"
# torch is optional: the runtime bindings (cutec.capi) work without it
EXTRAS = {"torch": ["torch>=2.4"]}
SCRIPTS = {"cutec": "cutec.cli:cutec_main", "cutec-tune": "cutec.cli:tune_main"}

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_INFO = f"{NAME}-{VERSION}.dist-info"


def _package_files():
    """(path in the archive, path on disk) of every file of the package."""
    out = []
    root = os.path.join(HERE, NAME)
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith((".pyc", ".pyo")):
                continue
            full = os.path.join(d, f)
            out.append((os.path.relpath(full, HERE).replace(os.sep, "/"), full))
    return out


def _platform():
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _platform_tag(fast=False):
    if fast:  # an extension module: this interpreter's ABI
        v = f"cp{sys.version_info[0]}{sys.version_info[1]}"
        return f"{v}-{v}-{_platform()}"
    bundle_lib = os.path.join(HERE, NAME, "_bundle", "lib")
    if any(f.endswith(".so") for _, _, files in os.walk(bundle_lib) for f in files):
        return "py3-none-" + _platform()
    return "py3-none-any"


def _build_fast():
    """(archive name, bytes) of cutec._fast compiled here, or None where it
    cannot be (no compiler, no Python.h, not CPython, CUTEC_NO_FAST=1) or
    should not: a free-threaded CPython (the module's table relies on the
    GIL, and importing a module without Py_mod_gil would turn it back on)."""
    if os.environ.get("CUTEC_NO_FAST") == "1" or sys.implementation.name != "cpython" or \
            sysconfig.get_config_var("Py_GIL_DISABLED"):
        return None
    src = os.path.join(HERE, NAME, "_fast.c")
    include = sysconfig.get_paths().get("include", "")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not (cc and suffix and os.path.isfile(src) and os.path.isfile(os.path.join(include, "Python.h"))):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "_fast" + suffix)
        cmd = [cc, "-std=c17", "-O2", "-fPIC", "-shared", "-isystem", include, src, "-o", out]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            return None
        if r.returncode != 0 or not os.path.isfile(out):
            return None
        with open(out, "rb") as f:
            return f"{NAME}/_fast{suffix}", f.read()


def _metadata():
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {VERSION}",
        f"Summary: {SUMMARY}",
        f"Requires-Python: {REQUIRES_PYTHON}",
    ]
    for extra, reqs in EXTRAS.items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
    return "\n".join(lines) + "\n"


def _entry_points():
    return "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in SCRIPTS.items())


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory, contents, fast=False):
    """contents: (arcname, bytes, executable) of the package part; fast: it
    holds the extension module."""
    tag = _platform_tag(fast)
    name = f"{NAME}-{VERSION}-{tag}.whl"
    meta = [
        (f"{DIST_INFO}/METADATA", _metadata().encode(), False),
        (f"{DIST_INFO}/WHEEL",
         f"Wheel-Version: 1.0\nGenerator: cutec_build\nRoot-Is-Purelib: {'true' if tag.endswith('any') else 'false'}\n"
         f"Tag: {tag}\n".encode(), False),
        (f"{DIST_INFO}/entry_points.txt", _entry_points().encode(), False),
    ]
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data, executable in list(contents) + meta:
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            records.append(_record_line(arcname, data))
        records.append(f"{DIST_INFO}/RECORD,,")
        z.writestr(zipfile.ZipInfo(f"{DIST_INFO}/RECORD", date_time=(2020, 1, 1, 0, 0, 0)),
                   "\n".join(records) + "\n")
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    contents = []
    for arcname, full in _package_files():
        if arcname.startswith(f"{NAME}/_fast.") and arcname.endswith(".so"):
            continue  # one built in the tree by hand: the wheel's own is built below
        with open(full, "rb") as f:
            contents.append((arcname, f.read(), os.access(full, os.X_OK)))
    fast = _build_fast()
    if fast is not None:
        contents.append((fast[0], fast[1], True))
    return _write_wheel(wheel_directory, contents, fast is not None)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # a .pth file puts this directory on sys.path: the tree is used in place
    return _write_wheel(wheel_directory, [(f"_{NAME}_editable.pth", (HERE + "\n").encode(), False)])


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{VERSION}"
    name = base + ".tar.gz"
    skip = {"__pycache__", "_bundle"}
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for d, dirs, files in os.walk(HERE):
            dirs[:] = sorted(x for x in dirs if x not in skip)
            for f in sorted(files):
                if f.endswith((".pyc", ".pyo")):
                    continue
                full = os.path.join(d, f)
                t.add(full, arcname=os.path.join(base, os.path.relpath(full, HERE)))
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(os.path.join(base, "PKG-INFO"))
        info.size = len(pkg_info)
        t.addfile(info, io.BytesIO(pkg_info))
    return name
