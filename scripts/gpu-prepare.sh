#!/usr/bin/env bash
# gpu-prepare.sh: run HERE (where LLVM is) before a GPU run.  Builds cutec,
# compiles the kernels the GPU tests need into prebuilt/ (ignored by git,
# carried to the GPU machine, which has no LLVM).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target cutec >/dev/null
mkdir -p prebuilt
for ex in transpose sgemm; do
  build/compiler/cutec "examples/$ex.cute" -o "prebuilt/$ex.ptx"
done
ls -la prebuilt
