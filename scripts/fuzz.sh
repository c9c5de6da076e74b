#!/usr/bin/env bash
# fuzz.sh: long libFuzzer runs of the harnesses in tests/fuzz, one after
# another, keeping going after a finding.
#
#   bash scripts/fuzz.sh [SECONDS_PER_HARNESS] [NAME...]
#
# SECONDS defaults to 3600; NAMEs (fuzz_parse, fuzz_ptx_sm80, ...; default
# all, as listed in build-fuzz/tests/fuzz/harnesses.txt) pick harnesses.
# Configures and builds build-fuzz (clang-14, CUTEC_FUZZ=ON).  Per harness,
# under fuzz-out/NAME/: corpus/ (grows across runs: a later run resumes
# from it; the seeds in the tree are read, never written), artifacts/ (the
# findings: crash-*, leak-*, timeout-*, oom-*), log.  To reproduce a finding:
# build-fuzz/tests/fuzz/NAME fuzz-out/NAME/artifacts/crash-...; to keep it
# as a regression test, copy it to tests/fuzz/regressions/NAME/.
# Environment: CC (default clang-14), FUZZ_FORKS (libFuzzer -fork workers
# per harness, default 1), BUILD_JOBS (default 2), FUZZ_OUT (default
# fuzz-out).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3600}
shift || true
out=${FUZZ_OUT:-fuzz-out}
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER="${CC:-clang-14}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUTEC_FUZZ=ON >/dev/null
cmake --build build-fuzz --target fuzz_harnesses -j"${BUILD_JOBS:-2}"
summary=()
while read -r name exe dict seeds; do
  [[ -n "$name" ]] || continue
  if (($# > 0)) && [[ " $* " != *" $name "* ]]; then continue; fi
  dir=$out/$name
  mkdir -p "$dir/corpus" "$dir/artifacts"
  echo "fuzz.sh: $name for $secs s (log: $dir/log)"
  # -fork with -ignore_*: a finding is saved and the run goes on;
  # -use_value_profile: comparisons' operands are coverage too (a count
  # compared with 0, a key with a string), which long runs can afford
  # shellcheck disable=SC2086  # seeds: several directories
  "$exe" -fork="${FUZZ_FORKS:-1}" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -use_value_profile=1 -max_total_time="$secs" -timeout=60 -rss_limit_mb=4096 -dict="$dict" \
    -artifact_prefix="$dir/artifacts/" "$dir/corpus" $seeds >"$dir/log" 2>&1 || true
  n=$(find "$dir/artifacts" -type f | wc -l)
  last=$(grep -E '^#[0-9]+: cov:' "$dir/log" | tail -1 || true)
  summary+=("$name: $n finding(s) in $dir/artifacts; last status: ${last:-none}")
done < build-fuzz/tests/fuzz/harnesses.txt
printf 'fuzz.sh: %s\n' "${summary[@]}"
