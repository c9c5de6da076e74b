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
# every tune point of the sm80 GEMM template, named by its parameters
rm -rf prebuilt/gemm && mkdir -p prebuilt/gemm
build/compiler/cutec stdlib/sm80/gemm.cute --list-tune | while read -r kernel args; do
  name=$(echo "$args" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  build/compiler/cutec stdlib/sm80/gemm.cute $args -o "prebuilt/gemm/${kernel}_${name}.ptx"
done
# every tune point of the sm90 (TMA + wgmma) template
build/compiler/cutec stdlib/sm90/gemm.cute --list-tune | while read -r kernel args; do
  name=$(echo "$args" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  build/compiler/cutec stdlib/sm90/gemm.cute $args -o "prebuilt/gemm/${kernel}_${name}.ptx"
done
# the template's other (non-tune) parameters: input and output types, narrower copies
for extra in "-D T=f16" "-D TC=f32" "-D T=f16 -D TC=f16" "-D VEC=4" "-D VEC=2"; do
  name=$(echo "$extra" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  build/compiler/cutec stdlib/sm80/gemm.cute $extra -o "prebuilt/gemm/gemm_sm80_default_${name}.ptx"
done
# the GEMM written with atoms only (examples/atom_gemm.cute), two instances
for extra in "" "-D T=f16 -D TC=bf16 -D VEC=4 -D BK=64"; do
  name=$(echo "$extra" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  build/compiler/cutec examples/atom_gemm.cute $extra -o "prebuilt/gemm/atom_gemm_${name:-default}.ptx"
done
# kernel packs for the runtime's GEMM entry point and its tests
build/compiler/cutec pack stdlib/sm80/gemm.cute --arch=sm_90a -o prebuilt/gemm_sm80.pack
build/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -o prebuilt/gemm_sm90.pack
build/compiler/cutec pack stdlib/sm80/gemm.cute --arch=sm_80 --no-cubin -D BK=32 -D STAGES=3 -D WM=2 -D WN=2 \
  -o prebuilt/test_gemm.pack
echo "gpu-prepare: $(ls prebuilt/gemm | wc -l) GEMM points in prebuilt/gemm ($(du -sh prebuilt | cut -f1) in prebuilt/)"
