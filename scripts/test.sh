#!/usr/bin/env bash
# test.sh: install dependencies, build, and run the whole test suite; then
# the same suite again under AddressSanitizer and UndefinedBehaviorSanitizer;
# then a short deterministic run of each libFuzzer harness (tests/fuzz,
# clang-14) and its regression inputs.  GPU tests skip cleanly where no GPU
# is present.  .ci/run calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUTEC_WERROR=ON
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCUTEC_SANITIZE=ON
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j"$jobs" -LE gpu)
# only the harnesses, the mocks and the seeds are built here; -R: the fuzz
# label also marks lang.fuzz_smoke, which belongs to the builds above
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUTEC_FUZZ=ON
cmake --build build-fuzz --target fuzz_harnesses -j"$jobs"
(cd build-fuzz && ctest --output-on-failure -j"$jobs" -L fuzz -R '^fuzz\.')
echo "test.sh: all tests passed (normal, sanitizer and fuzz builds)"
