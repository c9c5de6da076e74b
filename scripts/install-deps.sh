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
pkgs=(cmake make gcc flex bison llvm-19-dev libzstd-dev zlib1g-dev libstdc++-12-dev clang-14 libclang-rt-14-dev
      clang-format-14)
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
