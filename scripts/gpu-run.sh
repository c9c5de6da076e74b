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
cmake --build build-gpu -j"$(nproc)" --target cutec_rt run_examples user_epilogue gemm_check gemm_bench cutec-tune \
  >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" -- -k >>"$log" 2>&1 || echo "gpu-run: some other targets failed to build (see gpu-run.log)"
# TESTS=none skips the GPU tests (a benchmark-only run); TESTS=REGEX runs the
# GPU tests whose names match; GEMM_CHECK="FILES" checks just those PTX files
if [ "${TESTS:-all}" != none ]; then
  # TESTS_EXCLUDE=REGEX leaves out the GPU tests whose names match
  (cd build-gpu && ctest -L gpu ${TESTS:+$( [ "$TESTS" = all ] || echo "-R $TESTS")} \
     ${TESTS_EXCLUDE:+-E "$TESTS_EXCLUDE"} --output-on-failure -V \
     --timeout "${TEST_TIMEOUT:-240}") > "$OUT/ctest-gpu.log" 2>&1
  grep -E "FAIL|Test +#|tests passed|Skipped|Not Run" "$OUT/ctest-gpu.log" | tail -40
  # each gemm_check's summary: its cases, and its wall time split (module loading, references)
  grep -E "^[0-9]+: gemm_check: [0-9]+/[0-9]+ cases" "$OUT/ctest-gpu.log" | cut -c1-260
  grep -c "PASS" "$OUT/ctest-gpu.log" | sed 's/^/PASS lines: /'
fi
if [ -n "${GEMM_CHECK:-}" ]; then
  # in its own time limit (GEMM_CHECK_TIMEOUT): a kernel that hangs (a
  # barrier waiting for a warpgroup that is not there) must not eat the call
  # shellcheck disable=SC2086
  timeout "${GEMM_CHECK_TIMEOUT:-300}" build-gpu/tests/gpu/gemm_check $GEMM_CHECK > "$OUT/gemm-check.log" 2>&1
  rc=$?
  echo "gemm_check $GEMM_CHECK: exit $rc$( [ $rc = 124 ] && echo ' (timed out: a hang?)') ($(grep -c PASS "$OUT/gemm-check.log") PASS, $(grep -c FAIL "$OUT/gemm-check.log") FAIL)"
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
  # EPI_FAST=1: the packs compiled with --fast-math; EPI_ONLY="swiglu ...": those epilogues alone;
  # residual: D = A B + C out of place, against cuBLASLt's own beta = 1 with C;
  # gelu_bias_aux: the pre-activation written too, against cuBLASLt's GELU_AUX_BIAS;
  # EPI_SHAPES: another shapes file (default the standard suite, tests/bench/shapes.txt, as issue 17
  # asks; tests/bench/epilogue_shapes.txt: three of them, quicker; tests/bench/swiglu_shapes.txt:
  # issue 17's SwiGLU shapes)
  for e in "gelu_bias --epilogue gelu_tanh --bias" "silu_bias --epilogue silu --bias" "swiglu --epilogue swiglu" \
           "gelu_bias_clamp --epilogue gelu_tanh --bias --clamp -4,4" "residual --c-source --beta 1" \
           "gelu_bias_aux --epilogue gelu_tanh --bias --aux"; do
    set -- $e
    case " ${EPI_ONLY:-$1} " in *" $1 "*) ;; *) continue ;; esac
    # (the residual add has no math for --fast-math to change: one pack)
    # (gpu-prepare.sh packs bias + GELU + aux with --fast-math only: each
    # form falls back to the other where it has no pack, and says so)
    name=$1${EPI_FAST:+_fast}; [ -f "prebuilt/gemm_sm90_$name.pack" ] || name=$1
    [ -f "prebuilt/gemm_sm90_$name.pack" ] || name=${1}_fast
    [ "$name" = "$1${EPI_FAST:+_fast}" ] || echo "gpu-run: no prebuilt/gemm_sm90_$1${EPI_FAST:+_fast}.pack, bench of $name"
    shift
    # 300 s: the 12 standard shapes' SwiGLU bench took more than 200
    timeout "${EPI_TIMEOUT:-300}" build-gpu/runtime/cutec-tune bench "prebuilt/gemm_sm90_${name}.pack" \
      --pack prebuilt/gemm_sm90.pack --pack prebuilt/epilogue_apply.pack \
      --shapes "${EPI_SHAPES:-tests/bench/shapes.txt}" --no-cache "$@" > "$OUT/epi-bench-$name.log" 2>&1
    echo "== epilogue bench $name: exit $?"
    tail -12 "$OUT/epi-bench-$name.log"
  done
fi
# fp8 GEMM against cuBLASLt's fp8 matmul (FP8_BENCH=1; FP8_MODES: the scale
# modes, default "tensor row block"; FP8_SHAPES: the shapes file): each mode's
# pack against cuBLASLt with the same scales (block-wise: cuBLASLt's VEC128_32F
# and BLK128x128_32F modes; why, where it offers none, in the INFO log line
# "tuning: no cuBLASLt candidate: ...")
if [ -n "${FP8_BENCH:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  for mode in ${FP8_MODES:-tensor row block}; do
    timeout "${FP8_TIMEOUT:-200}" build-gpu/runtime/cutec-tune bench "prebuilt/gemm_sm90_e4m3_${mode}.pack" \
      --dtype e4m3 --scale "$mode" --shapes "${FP8_SHAPES:-tests/bench/fp8_shapes.txt}" --no-cache \
      > "$OUT/fp8-bench-$mode.log" 2>&1
    echo "== fp8 bench $mode: exit $?"
    tail -14 "$OUT/fp8-bench-$mode.log" | cut -c1-300
  done
fi
# the fp8 accumulation error against float64 and cuBLASLt (FP8_ERR=1; issue
# 18 part 2): cutec-tune error per scale mode (FP8_ERR_MODES, default
# "tensor row"), output (FP8_ERR_OUTS, default "f32 bf16": f32 shows the
# accumulation alone) and K (FP8_ERR_KS, default "16384 65536"), M = N =
# FP8_ERR_MN (default 2048): the tile promoted every 1 and 4 k-tiles (tuned
# between them, exhaustively: each checked) and never (the nopromo pack),
# and cuBLASLt's fp8 algorithms,
# on the same inputs and scales, all into $OUT/fp8-error.log
if [ -n "${FP8_ERR:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  : > "$OUT/fp8-error.log"
  for mode in ${FP8_ERR_MODES:-tensor row}; do
    for out in ${FP8_ERR_OUTS:-f32 bf16}; do
      for k in ${FP8_ERR_KS:-16384 65536}; do
        echo "== cutec-tune error: scale $mode, $out out, M = N = ${FP8_ERR_MN:-2048}, K = $k" >> "$OUT/fp8-error.log"
        start=$(date +%s)
        # shellcheck disable=SC2086
        timeout "${FP8_ERR_TIMEOUT:-240}" build-gpu/runtime/cutec-tune error "prebuilt/gemm_sm90_e4m3_err_${mode}_$out.pack" \
          --pack "prebuilt/gemm_sm90_e4m3_nopromo_${mode}_$out.pack" --dtype e4m3 --out-dtype "$out" --scale "$mode" \
          --m "${FP8_ERR_MN:-2048}" --n "${FP8_ERR_MN:-2048}" --k "$k" --no-cache --shortlist 0 ${FP8_ERR_ARGS:-} \
          >> "$OUT/fp8-error.log" 2>&1
        echo "== exit $? in $(($(date +%s) - start)) s" >> "$OUT/fp8-error.log"
      done
    done
  done
  grep -E "^== |^problem|^  (normal|mean) " "$OUT/fp8-error.log"
fi
# operand layouts against cuBLASLt (LAYOUT_BENCH=1; LAYOUTS: cutec-tune's
# --layout values, default "rcr rrr ccr crr"): each over the suite with the
# pack of its LA / LB (a column-major C is computed as its transpose, whose
# A and B are B's and A's flipped)
if [ -n "${LAYOUT_BENCH:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  for lay in ${LAYOUTS:-rcr rrr ccr crr}; do
    case $lay in
      rcr|rcc) pk=gemm_sm90 ;; ccr|rrc) pk=gemm_sm90_la1 ;; rrr|ccc) pk=gemm_sm90_lb1 ;; crr|crc) pk=gemm_sm90_la1_lb1 ;;
      *) echo "gpu-run: unknown layout $lay"; continue ;;
    esac
    timeout "${LAYOUT_TIMEOUT:-200}" build-gpu/runtime/cutec-tune bench "prebuilt/$pk.pack" --layout "$lay" \
      --shapes "${LAYOUT_SHAPES:-tests/bench/shapes.txt}" --no-cache > "$OUT/layout-bench-$lay.log" 2>&1
    echo "== layout bench $lay ($pk): exit $?"
    tail -16 "$OUT/layout-bench-$lay.log" | cut -c1-300
  done
fi
# the four layouts in one process (LAYOUT_ONE=1): every layout pack a
# candidate, tests/bench/layout_shapes.txt (each shape in each layout), so
# the layouts' times compare without another process's clocks in between;
# LAYOUT_ARGS: more options, e.g. "--layouts-h2h 20" (each shape's four
# kernels timed in the same rounds: a line per shape, a summary)
if [ -n "${LAYOUT_ONE:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  # shellcheck disable=SC2086
  timeout "${LAYOUT_TIMEOUT:-500}" build-gpu/runtime/cutec-tune bench prebuilt/gemm_sm90.pack \
    --pack prebuilt/gemm_sm90_lb1.pack --pack prebuilt/gemm_sm90_la1.pack --pack prebuilt/gemm_sm90_la1_lb1.pack \
    --shapes "${LAYOUT_SHAPES:-tests/bench/layout_shapes.txt}" --no-cache ${LAYOUT_ARGS:-} > "$OUT/layout-one.log" 2>&1
  echo "== layouts in one process: exit $?"
  tail -70 "$OUT/layout-one.log" | cut -c1-300
fi
# strided batches against cuBLASLt's batched matmul (BATCH_BENCH=1): the
# default pack over tests/bench/batched_shapes.txt (its batch=L column)
if [ -n "${BATCH_BENCH:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  timeout "${BATCH_TIMEOUT:-200}" build-gpu/runtime/cutec-tune bench prebuilt/gemm_sm90.pack \
    --shapes tests/bench/batched_shapes.txt --no-cache > "$OUT/batch-bench.log" 2>&1
  echo "== batch bench: exit $?"
  tail -14 "$OUT/batch-bench.log" | cut -c1-300
fi
# the ragged set (RAGGED_BENCH=1, issue 20: very small M and N, just past a
# power of two, small squares, very short K, tile counts just over a round):
# the plain pack (split last rounds included) and the GEMV pack against the
# best of cuBLASLt's algorithms; RAGGED_ARGS for more cutec-tune options
if [ -n "${RAGGED_BENCH:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  # shellcheck disable=SC2086
  timeout "${RAGGED_TIMEOUT:-200}" build-gpu/runtime/cutec-tune bench prebuilt/gemm_sm90.pack --pack prebuilt/gemv.pack \
    --shapes tests/bench/ragged_shapes.txt --no-cache ${RAGGED_ARGS:-} > "$OUT/ragged-bench.log" 2>&1
  echo "== ragged bench: exit $?"
  tail -20 "$OUT/ragged-bench.log" | cut -c1-300
fi
# grouped (mixture-of-experts) GEMMs against a loop of cuBLASLt calls per
# group (GROUPED_BENCH=1): the grouped pack over tests/bench/grouped_shapes.txt
# (its groups=G column), rows split with GROUPED_SKEW (default 0: balanced);
# GROUPED_SHAPES picks another file (the 32768-token rows need about 40 GB)
if [ -n "${GROUPED_BENCH:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  timeout "${GROUPED_TIMEOUT:-500}" build-gpu/runtime/cutec-tune bench prebuilt/gemm_sm90_grouped.pack \
    --shapes "${GROUPED_SHAPES:-tests/bench/grouped_shapes.txt}" --skew "${GROUPED_SKEW:-0}" --no-cache \
    > "$OUT/grouped-bench.log" 2>&1
  echo "== grouped bench: exit $?"
  tail -18 "$OUT/grouped-bench.log" | cut -c1-300
fi
# the same shapes as lists of problems, the general grouped GEMM (LIST_BENCH=1,
# issue 19): the list pack (GRP = 2) over the same rows, Bs and split, against
# the same loop of cuBLASLt calls, each run checked against float64; bench has
# no per-shape selection, so LIST_SHAPES picks another file (the 32768-token
# rows need about 40 GB); LIST_ARGS adds options, e.g. "--skew 1"
if [ -n "${LIST_BENCH:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  # shellcheck disable=SC2086
  timeout "${LIST_TIMEOUT:-400}" build-gpu/runtime/cutec-tune bench prebuilt/gemm_sm90_grouped_list.pack --list \
    --shapes "${LIST_SHAPES:-tests/bench/grouped_shapes.txt}" --no-cache ${LIST_ARGS:-} > "$OUT/list-bench.log" 2>&1
  echo "== list bench: exit $?"
  tail -30 "$OUT/list-bench.log" | cut -c1-300
fi
# the GEMV / decode class, M <= 16 (GEMV_BENCH=1), over tests/bench/gemv_shapes.txt
# (GEMV_SHAPES: another file): first gemm_bench over the GEMV points
# (prebuilt/gemv/, GEMV_PTX: other files) against cublasGemmEx, each point's
# GB/s and its fraction of the device-to-device copy bandwidth (gemv-points.log;
# the Markdown table at its end has the best point per shape); then the
# tuner, cutec-tune bench with the GEMV pack and gemm_sm90.pack as candidates
# against the best of cuBLASLt's algorithms (gemv-tune.log; GEMV_TUNE_ARGS:
# more options, e.g. "--shortlist 0")
if [ -n "${GEMV_BENCH:-}" ]; then
  if [ -x build-gpu/tests/bench/gemm_bench ]; then
    # shellcheck disable=SC2086
    timeout "${GEMV_TIMEOUT:-400}" build-gpu/tests/bench/gemm_bench --shapes "${GEMV_SHAPES:-tests/bench/gemv_shapes.txt}" \
      ${GEMV_PTX:-prebuilt/gemv/gemv_BM*.ptx} > "$OUT/gemv-points.log" 2>&1
    echo "== gemv points (gemm_bench): exit $?"
    grep -E "copy [0-9.]+ GB/s" "$OUT/gemv-points.log" | head -1
    tail -24 "$OUT/gemv-points.log" | cut -c1-240
  fi
  if [ -x build-gpu/runtime/cutec-tune ]; then
    # shellcheck disable=SC2086
    timeout "${GEMV_TIMEOUT:-400}" build-gpu/runtime/cutec-tune bench prebuilt/gemv.pack --pack prebuilt/gemm_sm90.pack \
      --shapes "${GEMV_SHAPES:-tests/bench/gemv_shapes.txt}" --no-cache --json ${GEMV_TUNE_ARGS:-} \
      > "$OUT/gemv-tune.json" 2> "$OUT/gemv-tune.log"
    echo "== gemv tune bench (gemv.pack + gemm_sm90.pack): exit $?"
    # the JSON's TFLOP/s (3 decimals) as GB/s, A and B read and C written
    # once (16-bit elements), and as fractions of gemm_bench's copy bandwidth
    copy=$(grep -oE "copy [0-9.]+ GB/s" "$OUT/gemv-points.log" 2>/dev/null | head -1 | grep -oE "[0-9.]+")
    awk -v copy="${copy:-0}" '/"shape":/ {
        line = $0; gsub(/[{}"]/, "", line); sub(/,$/, "", line); sub(/^[ \t]*/, "", line)
        n = split(line, kv, ", "); delete v
        for (i = 1; i <= n; i++) { split(kv[i], p, ": "); v[p[1]] = p[2] }
        b = 2 * (v["m"] * v["k"] + v["n"] * v["k"] + v["m"] * v["n"]); f = 2 * v["m"] * v["n"] * v["k"]
        lt = v["cublas_tflops"] * 1e3 * b / f; ds = v["dsl_tflops"] * 1e3 * b / f
        printf "%-16s %3d %6d %6d  cuBLASLt %7.1f GB/s", v["shape"], v["m"], v["n"], v["k"], lt
        if (copy > 0) printf " (%.3f)", lt / copy
        printf "  DSL %7.1f GB/s", ds
        if (copy > 0) printf " (%.3f)", ds / copy
        printf "  ratio %s  %s  winner %s\n", v["ratio"], v["tuning_seconds"] "s", v["winner"] }
      END { if (copy > 0) printf "(fractions of the copy bandwidth, %.1f GB/s, gemm_bench)\n", copy }' \
      "$OUT/gemv-tune.json" | tee "$OUT/gemv-gbs.log"
    grep -oE '"geomean_ratio": [0-9.]+|"ok": (true|false)' "$OUT/gemv-tune.json" | tr '\n' ' '; echo
  fi
fi
# optional: host overhead of a cached GEMM call (OVERHEAD_PACK=path)
if [ -n "${OVERHEAD_PACK:-}" ] && [ -x build-gpu/runtime/cutec-tune ]; then
  # shellcheck disable=SC2086
  timeout 300 build-gpu/runtime/cutec-tune overhead "$OVERHEAD_PACK" ${OVERHEAD_ARGS:---m 4096 --n 4096 --k 4096} \
    --no-cache > "$OUT/overhead.log" 2>&1
  tail -8 "$OUT/overhead.log"
fi
# optional: the Python package on PyTorch (TORCH=1): the runtime library and
# cutec-tune staged into python/ with the packs below (TORCH_PACKS), the
# package installed offline into build-gpu/py (PYTHONPATH=python where pip
# fails), then its GPU tests (torch-tests.log) and the host overhead of a
# cached call (overhead.md); TORCH_LLAMA=1: the Llama-3-8B block benchmark
# (llama_block.md; LLAMA_ARGS, e.g. "--tokens 1,64,4096 --budget-s 300");
# TORCH_BMM=1: cutec.torch.bmm against torch.bmm on tests/bench/batched_shapes.txt
# (bmm.md; BMM_ARGS, e.g. "--b-row --only bmm_2048"); TORCH_GROUPED=1:
# cutec.torch.grouped_mm against torch._grouped_mm and a loop of torch.mm on
# DeepSeek-V3- and Mixtral-like MoE layers (grouped.md; GROUPED_ARGS, e.g.
# "--models mixtral --tokens 4096 --budget-s 300"); TORCH_FP8=1:
# cutec.torch.scaled_mm against torch._scaled_mm, each scale mode, on 8192^3
# and the Llama-3-8B projections at 4096 tokens (scaled_mm.md; FP8_ARGS,
# e.g. "--modes row --shapes sq8192"); TORCH_EACH=1: each GEMM of the
# Llama-3-8B block alone, eager F.linear against cutec.torch.linear, with
# cutec's decisions (linear_each.md; EACH_ARGS, e.g. "--tokens 4096");
# TORCH_GELU=1: gelu(x @ w.t() + b) eager, max-autotune and cutec
# (gelu_linear.md; GELU_ARGS, e.g. "--shapes 8192x8192x8192 --no-compile").
# The fp8 packs (gemm_sm90_e4m3_*)
# serve scaled_mm in the tests and the benchmark.
# Each step in its own time limit; PYTHON is the interpreter with torch.
if [ "${TORCH:-0}" = 1 ] || [ "${TORCH_LLAMA:-0}" = 1 ] || [ "${TORCH_BMM:-0}" = 1 ] || [ "${TORCH_GROUPED:-0}" = 1 ] ||
   [ "${TORCH_FP8:-0}" = 1 ] || [ "${TORCH_EACH:-0}" = 1 ] || [ "${TORCH_GELU:-0}" = 1 ]; then
  py=${PYTHON:-python3}
  cmake --build build-gpu -j"$(nproc)" --target cutec_rt_shared cutec-tune >>"$log" 2>&1 ||
    echo "gpu-run: libcutec_rt.so failed to build (see gpu-run.log)"
  packs=()
  for p in ${TORCH_PACKS:-gemm_sm90 gemm_sm90_swiglu_fast gemm_sm90_gelu_bias_fast gemm_sm90_silu_bias_fast gemm_sm90_residual epilogue_apply epilogue_apply_f16 gemm_sm90_grouped gemm_sm90_grouped_f32 gemm_sm90_grouped_lb1 gemm_sm90_grouped_lb1_f32 gemm_sm90_grouped_f16 gemm_sm90_e4m3_tensor gemm_sm90_e4m3_row gemm_sm90_e4m3_block gemm_sm90_e4m3_tensor_e4m3}; do
    # (a prebuilt/ from before a pack was added lacks it: staged without it)
    if [ -f "prebuilt/$p.pack" ]; then packs+=(--pack "prebuilt/$p.pack"); else echo "gpu-run: no prebuilt/$p.pack (not staged)"; fi
  done
  "$py" python/scripts/stage.py --clean --lib build-gpu/runtime/libcutec_rt.so --bin build-gpu/runtime/cutec-tune \
    "${packs[@]}" >>"$log" 2>&1 || echo "gpu-run: staging the Python package failed (see gpu-run.log)"
  rm -rf build-gpu/py
  if "$py" -m pip install --no-index --no-deps --no-cache-dir --target build-gpu/py ./python >>"$log" 2>&1; then
    pypath=$PWD/build-gpu/py
  else
    echo "gpu-run: pip install ./python failed (see gpu-run.log); using PYTHONPATH=python"
    pypath=$PWD/python
  fi
  export CUTEC_CACHE_DIR=$PWD/build-gpu/cutec-cache
  if [ "${TORCH:-0}" = 1 ]; then
    PYTHONPATH=$pypath timeout "${TORCH_TIMEOUT:-420}" "$py" python/tests/run.py --need torch test_gpu \
      > "$OUT/torch-tests.log" 2>&1
    echo "== python GPU tests: exit $? ($(grep -cE '\.\.\. ok$' "$OUT/torch-tests.log") ok," \
         "$(grep -cE '^(FAIL|ERROR):' "$OUT/torch-tests.log") failed)"
    tail -4 "$OUT/torch-tests.log"
    # OVERHEAD_HOST_BOUND="0 30": once per CUTEC_HOST_BOUND_US value (overhead-py-hbV.log)
    for hb in ${OVERHEAD_HOST_BOUND:-default}; do
      sfx=; [ "$hb" = default ] || sfx=-hb$hb
      ( [ "$hb" = default ] || export CUTEC_HOST_BOUND_US=$hb
        PYTHONPATH=$pypath OUT=$OUT timeout 300 "$py" python/bench/overhead.py > "$OUT/overhead-py$sfx.log" 2>&1 )
      echo "== python overhead ($hb): exit $?"
      tail -16 "$OUT/overhead-py$sfx.log"
    done
  fi
  if [ "${TORCH_BMM:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    PYTHONPATH=$pypath OUT=$OUT timeout "${BMM_TIMEOUT:-400}" "$py" python/bench/bmm.py ${BMM_ARGS:-} \
      > "$OUT/bmm-bench.log" 2>&1
    echo "== bmm bench: exit $?"
    tail -14 "$OUT/bmm-bench.log"
  fi
  if [ "${TORCH_GROUPED:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    PYTHONPATH=$pypath OUT=$OUT timeout "${GROUPED_TIMEOUT:-540}" "$py" python/bench/grouped_mm.py ${GROUPED_ARGS:-} \
      > "$OUT/grouped-bench.log" 2>&1
    echo "== grouped bench: exit $?"
    tail -32 "$OUT/grouped-bench.log"
  fi
  if [ "${TORCH_FP8:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    PYTHONPATH=$pypath OUT=$OUT timeout "${TORCH_FP8_TIMEOUT:-540}" "$py" python/bench/scaled_mm.py ${FP8_ARGS:-} \
      > "$OUT/scaled-mm-bench.log" 2>&1
    echo "== scaled_mm bench: exit $?"
    tail -20 "$OUT/scaled-mm-bench.log"
  fi
  if [ "${TORCH_GELU:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    PYTHONPATH=$pypath OUT=$OUT timeout "${GELU_TIMEOUT:-300}" "$py" python/bench/gelu_linear.py ${GELU_ARGS:-} \
      > "$OUT/gelu-linear.log" 2>&1
    echo "== bias + GELU against max-autotune: exit $?"
    tail -12 "$OUT/gelu-linear.log"
  fi
  if [ "${TORCH_EACH:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    PYTHONPATH=$pypath OUT=$OUT timeout "${EACH_TIMEOUT:-300}" "$py" python/bench/linear_each.py ${EACH_ARGS:-} \
      > "$OUT/linear-each.log" 2>&1
    echo "== each GEMM of the block: exit $?"
    tail -26 "$OUT/linear-each.log"
  fi
  if [ "${TORCH_LLAMA:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    PYTHONPATH=$pypath OUT=$OUT timeout "${LLAMA_TIMEOUT:-540}" "$py" python/bench/llama_block.py ${LLAMA_ARGS:-} \
      > "$OUT/llama-block.log" 2>&1
    echo "== llama block: exit $?"
    tail -12 "$OUT/llama-block.log"
  fi
fi
