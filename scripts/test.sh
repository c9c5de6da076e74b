#!/usr/bin/env bash
# test.sh: install dependencies, build, and run the whole test suite; then
# the same suite again under AddressSanitizer and UndefinedBehaviorSanitizer.
# GPU tests skip cleanly where no GPU is present.  .ci/run calls this.
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
echo "test.sh: all tests passed (normal and sanitizer builds)"
