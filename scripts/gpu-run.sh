#!/usr/bin/env bash
# gpu-run.sh: run ON THE GPU MACHINE (CUDA driver, cmake, no LLVM), from the
# repository root, after scripts/gpu-prepare.sh filled prebuilt/ here.
# Builds the runtime, its GPU tests and the examples' host program from the
# prebuilt PTX, runs every GPU test, and writes logs to $OUT (or ./gpu-out).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
log="$OUT/gpu-run.log"
{
  echo "== date: $(date -u +%FT%TZ)"
  echo "== command: $0 $*"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  nvcc --version | tail -2
} 2>&1 | tee "$log"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCUTEC_BUILD_COMPILER=OFF \
      -DCUTEC_PREBUILT_PTX_DIR="$PWD/prebuilt" >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
(cd build-gpu && ctest -L gpu --output-on-failure -V) 2>&1 | tee "$OUT/ctest-gpu.log" | \
  grep -E "PASS|FAIL|GFLOP|Test +#|tests passed|device|Skipped|Not Run" | tail -80
