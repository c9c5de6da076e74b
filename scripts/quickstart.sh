#!/usr/bin/env bash
# quickstart.sh: the main job on the bundled examples.  Installs what is
# missing, builds cutec and cutec-tune, compiles examples/transpose.cute and
# sgemm.cute to PTX, and runs and checks them on the GPU, or says that no
# GPU was found.  Ends by saying where cutec and cutec-tune are (they are
# not put on PATH) and how to install them with the standard library.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target cutec cutec-tune run_examples >/dev/null
for ex in transpose sgemm; do
  build/compiler/cutec "examples/$ex.cute" -o "build/$ex.ptx"
  echo "compiled examples/$ex.cute -> build/$ex.ptx ($(grep -c '' "build/$ex.ptx") lines of PTX)"
done
where() {
  echo "quickstart: cutec is $PWD/build/compiler/cutec and cutec-tune is $PWD/build/runtime/cutec-tune"
  echo "  (not on PATH); to use them from here:"
  echo "    export PATH=\"$PWD/build/compiler:$PWD/build/runtime:\$PATH\""
  echo "  or install them, with the standard library, into a prefix (e.g. \$HOME/.local):"
  echo "    cmake --build build && cmake --install build --prefix \"\$HOME/.local\""
}
set +e
build/examples/run_examples build/transpose.ptx build/sgemm.ptx
rc=$?
set -e
where
if [ "$rc" -eq 77 ]; then
  echo "quickstart: compiled both examples; no GPU found, so they were not run"
  exit 0
fi
exit "$rc"
