#!/usr/bin/env bash
# quickstart.sh: the main job on the bundled examples.  Installs what is
# missing, builds cutec, compiles examples/transpose.cute and sgemm.cute to
# PTX, and runs and checks them on the GPU, or says that no GPU was found.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target cutec run_examples >/dev/null
for ex in transpose sgemm; do
  build/compiler/cutec "examples/$ex.cute" -o "build/$ex.ptx"
  echo "compiled examples/$ex.cute -> build/$ex.ptx ($(grep -c '' "build/$ex.ptx") lines of PTX)"
done
set +e
build/examples/run_examples build/transpose.ptx build/sgemm.ptx
rc=$?
set -e
if [ "$rc" -eq 77 ]; then
  echo "quickstart: compiled both examples; no GPU found, so they were not run"
  exit 0
fi
exit "$rc"
