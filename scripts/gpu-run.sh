#!/usr/bin/env bash
# gpu-run.sh: run ON THE GPU MACHINE (CUDA driver, cmake, no LLVM), from the
# repository root, after scripts/gpu-prepare.sh filled prebuilt/ here.
# Builds the runtime, its GPU tests and the examples' host program from the
# prebuilt PTX, runs every GPU test, and writes logs to $OUT (or ./gpu-out).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
# prebuilt/ travels as prebuilt.tar.xz (see gpu-prepare.sh) when it is too big to carry as it is
if [ ! -d prebuilt ] && [ -f prebuilt.tar.xz ]; then
  tar xJf prebuilt.tar.xz || { echo "gpu-run: cannot unpack prebuilt.tar.xz"; exit 1; }
fi
mkdir -p "$OUT"
log="$OUT/gpu-run.log"
{
  echo "== date: $(date -u +%FT%TZ)"
  echo "== command: $0 $*"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  nvcc --version | tail -2
} 2>&1 | tee "$log"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCUTEC_BUILD_COMPILER=OFF \
      -DCUTEC_PREBUILT_PTX_DIR="$PWD/prebuilt" -DCUTEC_GEMM_PTX_DIR="$PWD/prebuilt/gemm" \
      -DCUTEC_PREBUILT_PACK_DIR="$PWD/prebuilt" >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
# the GPU programs first, so that a broken CPU-only target cannot stop them
cmake --build build-gpu -j"$(nproc)" --target cutec_rt run_examples gemm_check gemm_bench cutec-tune \
  >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" -- -k >>"$log" 2>&1 || echo "gpu-run: some other targets failed to build (see gpu-run.log)"
# TESTS=none skips the GPU tests (a benchmark-only run); TESTS=REGEX runs the
# GPU tests whose names match; GEMM_CHECK="FILES" checks just those PTX files
if [ "${TESTS:-all}" != none ]; then
  (cd build-gpu && ctest -L gpu ${TESTS:+$( [ "$TESTS" = all ] || echo "-R $TESTS")} --output-on-failure -V \
     --timeout "${TEST_TIMEOUT:-240}") > "$OUT/ctest-gpu.log" 2>&1
  grep -E "FAIL|Test +#|tests passed|Skipped|Not Run" "$OUT/ctest-gpu.log" | tail -40
  grep -c "PASS" "$OUT/ctest-gpu.log" | sed 's/^/PASS lines: /'
fi
if [ -n "${GEMM_CHECK:-}" ]; then
  # shellcheck disable=SC2086
  build-gpu/tests/gpu/gemm_check $GEMM_CHECK > "$OUT/gemm-check.log" 2>&1
  echo "gemm_check $GEMM_CHECK: exit $? ($(grep -c PASS "$OUT/gemm-check.log") PASS, $(grep -c FAIL "$OUT/gemm-check.log") FAIL)"
fi
# compute-sanitizer (SANITIZE=1): memcheck, racecheck and synccheck over
# every GEMM point (SANITIZE_PTX, default prebuilt/gemm/*.ptx and the fp8 ones; SANITIZE_TOOLS
# to choose tools), each on its smallest ragged shape (gemm_check
# --ragged-only); a tool's log ends with its error summary
if [ "${SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 \
      build-gpu/tests/gpu/gemm_check --ragged-only ${SANITIZE_PTX:-prebuilt/gemm/*.ptx prebuilt/gemm_fp8/*.ptx} > "$OUT/sanitize-$tool.log" 2>&1
    rc=$?
    echo "compute-sanitizer --tool $tool: exit $rc in $(($(date +%s) - start)) s;" \
         "$(grep -c '^PASS' "$OUT/sanitize-$tool.log") PASS, $(grep -c '^FAIL' "$OUT/sanitize-$tool.log") FAIL;" \
         "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool.log" | tail -1)"
  done | tee -a "$log"
fi
# benchmark: "$@" are gemm_bench arguments (default: every point on sq4096);
# BENCH_PTX selects the PTX files (default: every GEMM point)
if [ -x build-gpu/tests/bench/gemm_bench ]; then
  bench_args=("$@")
  [ ${#bench_args[@]} -eq 0 ] && bench_args=(--only sq4096)
  # shellcheck disable=SC2086
  timeout "${BENCH_TIMEOUT:-300}" build-gpu/tests/bench/gemm_bench "${bench_args[@]}" --json "$OUT/bench.json" ${BENCH_PTX:-prebuilt/gemm/*.ptx} \
    > "$OUT/bench.log" 2>&1
  tail -25 "$OUT/bench.log"
fi
# optional: SASS opcode histogram of one PTX file (SASS_PTX=path)
if [ -n "${SASS_PTX:-}" ]; then
  ptxas -arch=sm_90a -O3 "$SASS_PTX" -o /tmp/sass.cubin && cuobjdump -sass /tmp/sass.cubin > "$OUT/sass.txt"
  grep -oE '^ +/\*[0-9a-f]{4}\*/ +[A-Z0-9_.]+' "$OUT/sass.txt" | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -25
fi
# optional: Nsight Compute on gemm_bench (NCU_PTX="files", NCU_SHAPES=file):
# one launch of each kernel, cuBLAS's included, at the clocks as found
if [ -n "${NCU_PTX:-}" ] && command -v ncu >/dev/null; then
  # shellcheck disable=SC2086
  timeout "${NCU_TIMEOUT:-300}" ncu --clock-control none --launch-skip "${NCU_SKIP:-3}" --launch-count "${NCU_COUNT:-1}" \
      -k "regex:${NCU_KERNELS:-.}" --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section LaunchStats ${NCU_ARGS:-} \
      build-gpu/tests/bench/gemm_bench --reps 5 --shapes "${NCU_SHAPES:-tests/bench/shapes.txt}" $NCU_PTX > "$OUT/ncu.txt" 2>&1
  echo "ncu: exit $?, $(grep -c 'Section: GPU Speed Of Light' "$OUT/ncu.txt") kernel reports in ncu.txt"
fi
# optional: the autotuner over a pack and the shape suite (TUNE_PACK=path;
# TUNE_ARGS: more options, e.g. "--compare-exhaustive" for fast against
# exhaustive tuning, with TUNE_TIMEOUT=480)
if [ -n "${TUNE_PACK:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  # shellcheck disable=SC2086
  timeout "${TUNE_TIMEOUT:-400}" build-gpu/runtime/cutec-tune bench "$TUNE_PACK" --shapes tests/bench/shapes.txt --no-cache \
    ${TUNE_ARGS:-} > "$OUT/tune-bench.log" 2>&1
  tail -30 "$OUT/tune-bench.log"
fi
# optional: fused epilogues against cuBLASLt's fused forms (or cuBLASLt and
# the elementwise kernel) and against the plain GEMM (EPI_BENCH=1)
if [ -n "${EPI_BENCH:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  # EPI_FAST=1: the packs compiled with --fast-math
  for e in "gelu_bias --epilogue gelu_tanh --bias" "silu_bias --epilogue silu --bias" "swiglu --epilogue swiglu"; do
    set -- $e
    name=$1${EPI_FAST:+_fast}; shift
    timeout "${EPI_TIMEOUT:-200}" build-gpu/runtime/cutec-tune bench "prebuilt/gemm_sm90_${name}.pack" \
      --pack prebuilt/gemm_sm90.pack --pack prebuilt/epilogue_apply.pack \
      --shapes tests/bench/epilogue_shapes.txt --no-cache "$@" > "$OUT/epi-bench-$name.log" 2>&1
    echo "== epilogue bench $name: exit $?"
    tail -12 "$OUT/epi-bench-$name.log"
  done
fi
# optional: host overhead of a cached GEMM call (OVERHEAD_PACK=path)
if [ -n "${OVERHEAD_PACK:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  timeout 300 build-gpu/runtime/cutec-tune overhead "$OVERHEAD_PACK" --m 4096 --n 4096 --k 4096 --no-cache \
    > "$OUT/overhead.log" 2>&1
  tail -8 "$OUT/overhead.log"
fi
