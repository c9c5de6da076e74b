"""The console scripts `cutec` and `cutec-tune`: the binaries of a cutec
build, run in place of this process where the package has them."""
import os
import sys

from .locate import binary_path

_HOW = {
    "cutec": "the compiler needs LLVM: build it with CMake (docs/compiler.md) and stage an install "
    "that has it (python/scripts/stage.py), or set CUTEC_BIN_DIR",
    "cutec-tune": "stage a cutec install into the package (python/scripts/stage.py), or set CUTEC_BIN_DIR",
}


def _run(name):
    path = binary_path(name)
    if path is None:
        sys.stderr.write(f"{name}: not bundled with this cutec package; {_HOW[name]}\n")
        return 2
    os.execv(path, [name] + sys.argv[1:])
    return 1  # not reached


def cutec_main():
    sys.exit(_run("cutec"))


def tune_main():
    sys.exit(_run("cutec-tune"))
