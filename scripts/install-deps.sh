#!/usr/bin/env bash
# install-deps.sh: install what building and testing cutec needs on Debian 12
# (run as root).  Installs only what is missing.  The CUDA toolkit is not a
# Debian package: where /usr/local/cuda exists, ptxas is used by the tests;
# elsewhere the assembly steps are skipped.
set -euo pipefail
# libstdc++-12-dev: the static LLVM libraries are C++ and link with -lstdc++
# clang-14, libclang-rt-14-dev (libFuzzer, ASan, UBSan runtimes): the fuzz
# harnesses (tests/fuzz, scripts/fuzz.sh); clang-format-14: the format
# check (.clang-format, CTest format_check)
# python3-venv: the venv of the Python package's tests (below); python3-dev:
# Python.h for the optional cutec._fast, so that its tests run (without it
# they run the pure-Python path only)
pkgs=(cmake make gcc flex bison llvm-19-dev libzstd-dev zlib1g-dev libstdc++-12-dev clang-14 libclang-rt-14-dev
      clang-format-14 python3-venv python3-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Python package's CPU tests (python/, CTest label python) need PyTorch:
# the pinned versions of python/requirements-cpu.txt in a venv of their own
# (python/CMakeLists.txt uses its interpreter), without torch's CUDA
# dependencies beyond the few the CUDA toolkit lacks (the file says why).
# CUTEC_NO_TORCH=1 skips it; those tests then report themselves skipped.
venv=/opt/cutec/torch-venv
if [ "${CUTEC_NO_TORCH:-0}" != 1 ] && ! "$venv/bin/python" -c "import torch" 2>/dev/null; then
  echo "install-deps: installing PyTorch (python/requirements-cpu.txt) into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
    -r "$(dirname "$0")/../python/requirements-cpu.txt"
  "$venv/bin/python" -c "import torch" 2>/dev/null ||
    echo "install-deps: warning: torch does not import in $venv (the python tests will be skipped)"
fi
