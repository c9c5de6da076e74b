#!/usr/bin/env bash
# gpu-prepare.sh: run HERE (where LLVM is) before a GPU run.  Builds cutec,
# compiles the kernels the GPU tests need into prebuilt/ (ignored by git,
# carried to the GPU machine, which has no LLVM).
set -euo pipefail
cd "$(dirname "$0")/.."
# BUILD: the build directory (default build)
B=${BUILD:-build}
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$B" -j"$(nproc)" --target cutec >/dev/null
mkdir -p prebuilt
for ex in transpose sgemm; do
  "$B"/compiler/cutec "examples/$ex.cute" -o "prebuilt/$ex.ptx"
done
# blocks handing partial sums to the last of them (tests/gpu/handoff.c)
"$B"/compiler/cutec tests/gpu/kernels/handoff.cute --arch=sm_90a -o prebuilt/handoff.ptx
# the general grouped GEMM (GRP = 2; tests/gpu/grouped_list.c)
mkdir -p prebuilt/gemm_list
for pt in "-D BM=128 -D BN=256 -D EPI=1 -D STAGES=3" "-D BM=128 -D BN=128 -D EPI=1 -D STAGES=5" \
          "-D BM=64 -D BN=128 -D EPI=1 -D STAGES=6" "-D BM=128 -D BN=256 -D EPI=2 -D STAGES=4" \
          "-D BM=128 -D BN=256 -D EPI=1 -D STAGES=3 -D WGN=2" "-D BM=256 -D BN=128 -D EPI=1 -D STAGES=3" \
          "-D BM=128 -D BN=128 -D EPI=1 -D STAGES=5 -D T=f16 -D TC=f16"; do
  name=$(echo "$pt" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/sm90/gemm.cute --arch=sm_90a -D GRP=2 $pt -o "prebuilt/gemm_list/gemm_sm90_list_$name.ptx"
done
# the same points as one pack for the runtime (cutec_gemm_ex with a list,
# args.group_list): bf16 in and out, the tune points with GRP = 2
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D GRP=2 -o prebuilt/gemm_sm90_grouped_list.pack
# the one point of pack_gpu_grouped_list (tests/runtime/pack.cmake compiles it where the compiler is built)
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a --no-cubin -D GRP=2 -D BM=128 -D BN=128 -D STAGES=5 \
  -D EPI=1 -D CM=1 -D CN=1 -D PP=0 -D SK=0 -D RASTER=0 -D PROMO=0 -o prebuilt/sm90_list.pack
# the gated epilogue with a bias and aux through the runtime (pack_gpu_epilogue_gated_sm80
# and _sm90, test_epilogue gated): the points tests/runtime/pack.cmake packs where the compiler is built
"$B"/compiler/cutec pack stdlib/sm80/gemm.cute --arch=sm_90a --no-cubin -D ACT=swiglu -D BM=64 -D BK=32 -D STAGES=3 \
  -D FRAGS=2 -D GLU=1 -D BIAS=1 -D AUX=1 -o prebuilt/sm80_glu_aux.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a --no-cubin -D ACT=geglu -D BM=128 -D BN=128 -D STAGES=4 \
  -D CM=1 -D CN=1 -D PP=0 -D SK=0 -D RASTER=0 -D PROMO=0 -D GLU=1 -D BIAS=1 -D AUX=1 -o prebuilt/sm90_glu_aux.pack
# tensor maps patched on the device (tests/gpu/tmap_patch.c)
for mode in 0 1 2; do
  "$B"/compiler/cutec tests/gpu/kernels/tmap_patch.cute --arch=sm_90a -D MODE=$mode -o "prebuilt/tmap_patch_$mode.ptx"
done
# offsets past 2^31 elements: i32 sizes, an i64 stride and coordinate (tests/gpu/big_offset.c)
"$B"/compiler/cutec tests/gpu/kernels/big_offset.cute --arch=sm_90a -o prebuilt/big_offset.ptx
# every tune point of the sm80 GEMM template, named by its parameters
rm -rf prebuilt/gemm && mkdir -p prebuilt/gemm
"$B"/compiler/cutec stdlib/sm80/gemm.cute --list-tune | while read -r kernel args; do
  name=$(echo "$args" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/sm80/gemm.cute $args -o "prebuilt/gemm/${kernel}_${name}.ptx"
done
# every tune point of the sm90 (TMA + wgmma) template
"$B"/compiler/cutec stdlib/sm90/gemm.cute --list-tune | while read -r kernel args; do
  name=$(echo "$args" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/sm90/gemm.cute $args -o "prebuilt/gemm/${kernel}_${name}.ptx"
done
# the template's other (non-tune) parameters: input and output types, narrower copies
for extra in "-D T=f16" "-D TC=f32" "-D T=f16 -D TC=f16" "-D VEC=4" "-D VEC=2"; do
  name=$(echo "$extra" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/sm80/gemm.cute $extra -o "prebuilt/gemm/gemm_sm80_default_${name}.ptx"
done
# the sm90 template's other types: f32 output (register epilogue, 8-byte
# pairs) and f16 in and out
for extra in "-D TC=f32" "-D TC=f32 -D BM=64 -D BN=128 -D STAGES=6" "-D T=f16 -D TC=f16" "-D T=f16 -D TC=f16 -D EPI=1 -D STAGES=3"; do
  name=$(echo "$extra" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/sm90/gemm.cute $extra -o "prebuilt/gemm/gemm_sm90_default_${name}.ptx"
done
# the sm90 template's fp8 instances (tests/gpu gpu_gemm_sm90_fp8): every
# tune point with e4m3 A and B (promoted every PROMO k-tiles), then e5m2,
# the mixed pair, f32 output, the scale modes (per tensor, row-wise,
# block-wise) and fp8 outputs with their amax
rm -rf prebuilt/gemm_fp8 && mkdir -p prebuilt/gemm_fp8
"$B"/compiler/cutec stdlib/sm90/gemm.cute -D T=e4m3 --list-tune | while read -r kernel args; do
  name=$(echo "$args" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/sm90/gemm.cute -D T=e4m3 $args -o "prebuilt/gemm_fp8/${kernel}_e4m3_${name}.ptx"
done
for extra in "-D T=e5m2" "-D T=e4m3 -D TB=e5m2" "-D T=e5m2 -D TB=e4m3 -D EPI=1 -D STAGES=3" \
             "-D T=e4m3 -D TC=f32" "-D T=e4m3 -D TC=f16 -D BM=64 -D BN=128 -D STAGES=6" \
             "-D T=e4m3 -D TB=e5m2 -D BM=128 -D BN=192 -D CN=2 -D EPI=1 -D STAGES=4 -D RASTER=1" \
             "-D T=e4m3 -D SCALE=3 -D BM=128 -D BN=128" "-D T=e4m3 -D SCALE=3 -D BM=64 -D BN=64 -D STAGES=6" \
             "-D T=e4m3 -D TB=e5m2 -D SCALE=3 -D BM=128 -D BN=64 -D EPI=1" \
             "-D T=e4m3 -D TC=e4m3 -D BM=128 -D BN=128" "-D T=e4m3 -D TC=e5m2 -D SCALE=2 -D PROMO=4 -D BM=128 -D BN=192" \
             "-D T=e4m3 -D TC=e4m3 -D SCALE=3 -D ACT=gelu_tanh -D BIAS=1 -D BM=64 -D BN=128" \
             "-D T=e4m3 -D SCALE=1 -D PROMO=4 -D BM=192 -D BN=64 -D EPI=1" "-D T=e4m3 -D SCALE=2 -D PROMO=1 -D PP=1 -D BM=64 -D BN=128 -D EPI=1" \
             "-D T=e4m3 -D SCALE=3 -D BM=128 -D BN=192 -D STAGES=4 -D EPI=1" \
             "-D T=e4m3 -D SCALE=3 -D BM=128 -D BN=192 -D STAGES=4 -D EPI=0 -D CN=2 -D SK=1" \
             "-D T=e4m3 -D SCALE=3 -D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D CM=2 -D RASTER=1" \
             "-D T=e4m3 -D SCALE=3 -D BM=192 -D BN=64 -D STAGES=4 -D EPI=1" \
             "-D T=e4m3 -D SCALE=3 -D BM=64 -D BN=128 -D STAGES=6 -D EPI=1 -D PP=1" \
             "-D T=e4m3 -D SCALE=3 -D BM=128 -D BN=128 -D STAGES=4 -D EPI=0 -D SK=1" \
             "-D T=e4m3 -D SCALE=3 -D BM=128 -D BN=128 -D STAGES=4 -D EPI=1 -D CM=2 -D CN=2" \
             "-D T=e4m3 -D TC=f32 -D SCALE=3 -D BM=64 -D BN=128 -D STAGES=6 -D EPI=0" \
             "-D T=e4m3 -D TC=e4m3 -D SCALE=1 -D ACT=gelu_tanh -D CLAMP=1 -D BM=128 -D BN=128"; do
  name=$(echo "$extra" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/sm90/gemm.cute $extra -o "prebuilt/gemm_fp8/gemm_sm90_${name}.ptx"
done
# fused epilogues (tests/gpu gpu_gemm_epilogue): every store path of the
# sm90 template (registers, whole-tile and boxed TMA, ping-pong of 64- and 128-row tiles (128 x 192
# with one C tile the two consumers share), three
# consumers, a cluster, 256-row tiles) with each kind of input and
# activation; the gated forms on the register path and the whole-tile TMA
# store (cooperative, a cluster, two consumers along N, ping-pong); the sm80 template
rm -rf prebuilt/gemm_epi && mkdir -p prebuilt/gemm_epi
epi_points() { # $1: template, $2: bases (';'-separated), $3: epilogues (';'-separated)
  local IFS=';'
  for base in $2; do
    for epi in $3; do
      name=$(echo "$base $epi" | sed 's/-D //g; s/  */_/g; s/=//g; s/^_//')
      IFS=' ' read -r -a args <<< "$base $epi"
      "$B"/compiler/cutec "stdlib/$1/gemm.cute" --arch=sm_90a "${args[@]}" -o "prebuilt/gemm_epi/gemm_$1_${name}.ptx"
    done
  done
}
EPIS="-D ACT=gelu_tanh -D BIAS=1;-D ACT=relu -D BIAS=2 -D ALPHA=1;-D ACT=silu -D SRC=1 -D AUX=1;\
-D ACT=gelu_erf -D BIAS=3 -D SRC=1 -D ALPHA=1 -D AUX=1;-D ACT=sigmoid;-D ACT=silu -D BIAS=3 -D AUX=1"
epi_points sm90 "-D BM=128 -D BN=128 -D STAGES=5 -D EPI=0;-D BM=128 -D BN=256 -D STAGES=3 -D EPI=1;\
-D BM=128 -D BN=256 -D STAGES=4 -D EPI=2;-D BM=64 -D BN=128 -D STAGES=6 -D EPI=1 -D PP=1;\
-D BM=192 -D BN=192 -D STAGES=4 -D EPI=2;-D BM=128 -D BN=128 -D STAGES=4 -D EPI=1 -D CM=2;\
-D BM=64 -D BN=64 -D STAGES=4 -D EPI=0;-D BM=256 -D BN=128 -D STAGES=4 -D EPI=2 -D RASTER=1;\
-D BM=128 -D BN=128 -D STAGES=5 -D EPI=1 -D PP=1;-D BM=128 -D BN=128 -D STAGES=4 -D EPI=1 -D PP=1 -D CN=2;\
-D BM=128 -D BN=256 -D STAGES=4 -D EPI=2 -D SK=1;-D BM=128 -D BN=256 -D STAGES=3 -D EPI=1 -D WGN=2;\
-D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D PP=1 -D PPC=1" "$EPIS"
epi_points sm90 "-D BM=128 -D BN=128 -D STAGES=5 -D EPI=0;-D BM=64 -D BN=64 -D STAGES=4 -D EPI=0;\
-D BM=128 -D BN=256 -D STAGES=4 -D EPI=0;-D BM=128 -D BN=256 -D STAGES=4 -D EPI=1;\
-D BM=256 -D BN=128 -D STAGES=4 -D EPI=1 -D CN=2;-D BM=128 -D BN=256 -D STAGES=3 -D EPI=1 -D WGN=2;\
-D BM=64 -D BN=256 -D STAGES=4 -D EPI=1 -D PP=1;-D BM=128 -D BN=128 -D STAGES=5 -D EPI=1 -D PP=1" \
  "-D ACT=swiglu -D GLU=1;-D ACT=geglu -D GLU=1 -D BIAS=1 -D ALPHA=1;-D ACT=swiglu -D GLU=1 -D AUX=1;\
-D ACT=geglu -D GLU=1 -D BIAS=1 -D AUX=1"
# the residual add's source C staged by TMA and read with ldmatrix (EPI =
# 1, SRC = 1 without alpha): two and three consumers, one, a cluster,
# stream-K, f16, ping-pong (a C tile each, and the shared one with and
# without a cluster); alone, with an aux output, with a bias and GELU
epi_points sm90 "-D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D CM=2;-D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D CM=2 -D SK=1;\
-D BM=192 -D BN=192 -D STAGES=3 -D EPI=1;-D BM=64 -D BN=128 -D STAGES=5 -D EPI=1;-D BM=256 -D BN=128 -D STAGES=3 -D EPI=1 -D SK=1;\
-D T=f16 -D TC=f16 -D BM=128 -D BN=256 -D STAGES=3 -D EPI=1;-D BM=64 -D BN=256 -D STAGES=4 -D EPI=1 -D PP=1;\
-D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D PP=1 -D PPC=1 -D CN=2;-D BM=128 -D BN=192 -D STAGES=3 -D EPI=1 -D PP=1 -D PPC=1 -D RASTER=1" "-D SRC=1;-D SRC=1 -D ACT=silu -D AUX=1;-D SRC=1 -D BIAS=1 -D ACT=gelu_tanh"
# the aux output through the C tile and TMA (EPI = 1, AUX = 1): with the
# staged bias, the staged source C, a row bias, alpha, a clamp; stream-K,
# one and three consumers, f16
epi_points sm90 "-D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D CM=2" \
  "-D ACT=gelu_tanh -D BIAS=1 -D AUX=1;-D ACT=silu -D SRC=1 -D AUX=1;-D ACT=gelu_erf -D BIAS=3 -D AUX=1 -D CLAMP=1"
epi_points sm90 "-D BM=128 -D BN=256 -D STAGES=3 -D EPI=1 -D SK=1;-D BM=64 -D BN=128 -D STAGES=5 -D EPI=1;\
-D BM=192 -D BN=192 -D STAGES=3 -D EPI=1;-D T=f16 -D TC=f16 -D BM=128 -D BN=256 -D STAGES=3 -D EPI=1" \
  "-D ACT=gelu_tanh -D BIAS=1 -D AUX=1;-D ACT=relu -D BIAS=2 -D ALPHA=1 -D AUX=1;-D ACT=silu -D SRC=1 -D AUX=1"
epi_points sm90 "-D T=e4m3 -D BM=128 -D BN=192 -D STAGES=4 -D EPI=1" \
  "-D ACT=gelu_tanh -D BIAS=1;-D SCALE=2;-D SCALE=1 -D ACT=silu -D BIAS=1 -D ALPHA=1;\
-D SCALE=2 -D ACT=gelu_tanh -D BIAS=1;-D SCALE=1 -D BIAS=1"
# scales with a bias on three consumers, stream-K and the boxed store
epi_points sm90 "-D T=e4m3 -D BM=192 -D BN=128 -D STAGES=4 -D EPI=1;-D T=e4m3 -D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D SK=1;\
-D T=e4m3 -D BM=128 -D BN=128 -D STAGES=4 -D EPI=0 -D SK=1" "-D SCALE=2 -D BIAS=1;-D SCALE=1 -D ACT=gelu_tanh -D BIAS=1"
epi_points sm90 "-D T=e4m3 -D TC=f32 -D BM=128 -D BN=128 -D EPI=0;-D BM=128 -D BN=256 -D STAGES=3 -D EPI=1" "-D SCALE=2"
epi_points sm90 "-D T=e4m3 -D BM=128 -D BN=128 -D EPI=0" "-D ACT=gelu_tanh -D BIAS=1;-D ACT=swiglu -D GLU=1"
epi_points sm80 ";-D BM=64 -D BN=64 -D WM=2 -D WN=2;-D TC=f32" "$EPIS;-D SCALE=2 -D BIAS=1"
# the sm80 template's gated forms (B's rows permuted into shared memory):
# 2 and 4 warps along N, 64- to 256-column tiles, an f32 output, with and
# without a bias, alpha and aux
epi_points sm80 ";-D BM=64 -D BN=64 -D WM=2 -D WN=2;-D BM=128 -D BN=256 -D WM=2 -D WN=4 -D STAGES=3;\
-D BM=256 -D BN=64 -D BK=64 -D WM=4 -D WN=2 -D STAGES=3;-D BM=64 -D BN=128 -D WM=2 -D WN=4 -D FRAGS=1;-D TC=f32" \
  "-D ACT=swiglu -D GLU=1;-D ACT=geglu -D GLU=1 -D BIAS=1 -D ALPHA=1;-D ACT=swiglu -D GLU=1 -D AUX=1;\
-D ACT=geglu -D GLU=1 -D BIAS=1 -D AUX=1"
# clamp and cast (CLAMP = 1: the activation's value clamped to gemm_check's
# bounds, -0.125 and 0.25): every store path of the sm90 template (the
# staged bias of the TMA stores with gelu + bias), the gated forms, and sm80
CLAMPS="-D CLAMP=1;-D ACT=gelu_tanh -D BIAS=1 -D CLAMP=1;-D ACT=silu -D BIAS=3 -D SRC=1 -D ALPHA=1 -D AUX=1 -D CLAMP=1"
epi_points sm90 "-D BM=128 -D BN=128 -D STAGES=5 -D EPI=0;-D BM=128 -D BN=256 -D STAGES=3 -D EPI=1;\
-D BM=128 -D BN=256 -D STAGES=4 -D EPI=2;-D BM=64 -D BN=128 -D STAGES=6 -D EPI=1 -D PP=1;-D BM=192 -D BN=192 -D STAGES=4 -D EPI=2" \
  "$CLAMPS"
epi_points sm90 "-D BM=128 -D BN=128 -D STAGES=5 -D EPI=0;-D BM=128 -D BN=256 -D STAGES=4 -D EPI=1" \
  "-D ACT=swiglu -D GLU=1 -D CLAMP=1;-D ACT=geglu -D GLU=1 -D BIAS=1 -D CLAMP=1"
epi_points sm80 ";-D BM=64 -D BN=64 -D WM=2 -D WN=2" "$CLAMPS;-D ACT=swiglu -D GLU=1 -D AUX=1 -D CLAMP=1"
# the GEMM written with atoms only (examples/atom_gemm.cute), two instances
for extra in "" "-D T=f16 -D TC=bf16 -D VEC=4 -D BK=64"; do
  name=$(echo "$extra" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec examples/atom_gemm.cute $extra -o "prebuilt/gemm/atom_gemm_${name:-default}.ptx"
done
# operand layouts (tests/gpu gpu_gemm_layouts): B stored K x N (LB = 1), A
# column-major (LA = 1) and both, each over the store paths, tile shapes,
# ping-pong, clusters and an epilogue (MN-major operands are 16-bit only)
rm -rf prebuilt/gemm_layout && mkdir -p prebuilt/gemm_layout
for lay in "-D LB=1" "-D LA=1" "-D LA=1 -D LB=1"; do
  while read -r base; do
    name=$(echo "$lay $base" | sed 's/-D //g; s/  */_/g; s/=//g; s/^_//; s/_$//')
    # shellcheck disable=SC2086
    "$B"/compiler/cutec stdlib/sm90/gemm.cute --arch=sm_90a $lay $base -o "prebuilt/gemm_layout/gemm_sm90_${name}.ptx"
  done <<'BASES'
-D BM=128 -D BN=256 -D STAGES=4
-D BM=128 -D BN=256 -D STAGES=3 -D EPI=1
-D BM=128 -D BN=256 -D STAGES=4 -D EPI=2 -D CM=2
-D BM=192 -D BN=192 -D STAGES=4 -D EPI=2
-D BM=256 -D BN=128 -D STAGES=3 -D EPI=1 -D RASTER=1
-D BM=64 -D BN=128 -D STAGES=6
-D BM=64 -D BN=256 -D STAGES=4 -D EPI=1 -D PP=1
-D BM=64 -D BN=64 -D STAGES=8
-D BM=128 -D BN=128 -D STAGES=6 -D EPI=1 -D CM=2 -D CN=2
-D BM=128 -D BN=128 -D STAGES=5 -D TC=f32
-D T=f16 -D TC=f16 -D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D CN=2
-D BM=128 -D BN=128 -D STAGES=4 -D EPI=1 -D ACT=gelu_tanh -D BIAS=3 -D SRC=1 -D ALPHA=1
-D BM=192 -D BN=192 -D STAGES=4 -D EPI=2 -D CN=2
-D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D CM=2 -D RASTER=1
BASES
done
# strided batches (tests/gpu gpu_gemm_batch, gemm_check's batched cases:
# 3 problems per shape, gaps between D's, and a batch of one): the batched
# user kernel (one thread per element of D, i64 strides) and sm90 template
# points over the store paths, tile shapes, clusters and layouts (every
# sm90 kernel serves batches); SM90_BATCH_POINTS adds ';'-separated -D lists
rm -rf prebuilt/gemm_batch && mkdir -p prebuilt/gemm_batch
for t in bf16 f16; do
  "$B"/compiler/cutec tests/runtime/user_gemm_batched.cute -D T=$t -D TC=$t -o "prebuilt/gemm_batch/user_gemm_batched_$t.ptx"
done
IFS=';' read -r -a batch_points <<< "-D BM=128 -D BN=256 -D STAGES=4;-D BM=128 -D BN=256 -D STAGES=4 -D EPI=2 -D CM=2;\
-D BM=128 -D BN=128 -D STAGES=6 -D EPI=1 -D CM=2 -D CN=2;-D BM=64 -D BN=256 -D STAGES=4 -D EPI=1 -D PP=1;\
-D BM=192 -D BN=192 -D STAGES=4 -D EPI=2;-D BM=64 -D BN=64 -D STAGES=8;-D LB=1 -D BM=128 -D BN=256 -D STAGES=3 -D EPI=1;\
-D LA=1 -D LB=1 -D BM=128 -D BN=192 -D STAGES=4 -D EPI=1 -D CN=2;-D T=e4m3 -D BM=128 -D BN=192 -D STAGES=4 -D EPI=1;\
-D TC=f32 -D BM=128 -D BN=128 -D STAGES=5;${SM90_BATCH_POINTS:-}"
for pt in "${batch_points[@]}"; do
  [ -n "${pt// /}" ] || continue
  name=$(echo "$pt" | sed 's/-D //g; s/  */_/g; s/=//g; s/^_//; s/_$//')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/sm90/gemm.cute --arch=sm_90a $pt -o "prebuilt/gemm_batch/gemm_sm90_${name}.ptx"
done
# grouped (mixture-of-experts) GEMMs (tests/gpu gpu_gemm_grouped, gemm_check's
# grouped cases: 8 ragged groups per shape, clamped row ends): the grouped
# user kernel and sm90 template points with GRP = 1 (the grouped pack's tile
# shapes and clusters along N, f32 out, B stored K x N, the TMA-store
# epilogues, whose tiles past their group's end are staged and copied out
# by the threads: one to three consumers, two along N, a cluster, f16);
# SM90_GROUPED_POINTS adds ';'-separated -D lists
rm -rf prebuilt/gemm_grouped && mkdir -p prebuilt/gemm_grouped
"$B"/compiler/cutec tests/runtime/user_gemm_grouped.cute -o prebuilt/gemm_grouped/user_gemm_grouped_bf16.ptx
IFS=';' read -r -a grouped_points <<< "-D BM=128 -D BN=256 -D STAGES=4;-D BM=128 -D BN=128 -D STAGES=6 -D CN=2;\
-D BM=64 -D BN=128 -D STAGES=6;-D BM=64 -D BN=64 -D STAGES=8 -D CN=2;-D BM=128 -D BN=192 -D STAGES=4;\
-D TC=f32 -D BM=128 -D BN=128 -D STAGES=5;-D LB=1 -D BM=128 -D BN=256 -D STAGES=3;-D LB=1 -D BM=64 -D BN=128 -D STAGES=4 -D CN=2;\
-D EPI=1 -D BM=128 -D BN=256 -D STAGES=3;-D EPI=2 -D BM=256 -D BN=128 -D STAGES=4;-D EPI=2 -D BM=192 -D BN=192 -D STAGES=4;\
-D EPI=2 -D LB=1 -D BM=128 -D BN=256 -D STAGES=4 -D CN=2;-D EPI=1 -D WGN=2 -D BM=128 -D BN=256 -D STAGES=3;\
-D EPI=1 -D BM=64 -D BN=128 -D STAGES=6;-D EPI=1 -D BM=128 -D BN=128 -D STAGES=4 -D CN=2;-D EPI=1 -D BM=64 -D BN=64 -D STAGES=8;\
-D EPI=2 -D T=f16 -D TC=f16 -D BM=128 -D BN=256 -D STAGES=4;${SM90_GROUPED_POINTS:-}"
for pt in "${grouped_points[@]}"; do
  [ -n "${pt// /}" ] || continue
  name=$(echo "$pt" | sed 's/-D //g; s/  */_/g; s/=//g; s/^_//; s/_$//')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/sm90/gemm.cute --arch=sm_90a -D GRP=1 $pt -o "prebuilt/gemm_grouped/gemm_sm90_grp_${name}.ptx"
done
# the GEMV (skinny M) kernel (tests/gpu gpu_gemm_gemv, gemm_check --skinny):
# every tune point (bf16 in and out), and f16 in and out, f32 out, f16 in
# with f32 out on a few points; GEMV_POINTS adds ';'-separated -D lists
rm -rf prebuilt/gemv && mkdir -p prebuilt/gemv
"$B"/compiler/cutec stdlib/gemv.cute --list-tune | while read -r kernel args; do
  name=$(echo "$args" | sed 's/-D //g; s/ /_/g; s/=//g')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/gemv.cute --arch=sm_90a $args -o "prebuilt/gemv/${kernel}_${name}.ptx"
done
IFS=';' read -r -a gemv_points <<< "-D T=f16 -D TC=f16;-D T=f16 -D TC=f16 -D BM=8 -D BN=32 -D RW=2 -D KW=1;\
-D TC=f32;-D TC=f32 -D BM=8 -D BN=64 -D RW=2 -D KW=8 -D STAGES=8;-D T=f16 -D TC=f32 -D BN=32 -D RW=2 -D KW=4;\
-D TC=f16 -D BN=64 -D RW=4 -D KW=2;${GEMV_POINTS:-}"
for pt in "${gemv_points[@]}"; do
  [ -n "${pt// /}" ] || continue
  name=$(echo "$pt" | sed 's/-D //g; s/  */_/g; s/=//g; s/^_//; s/_$//')
  # shellcheck disable=SC2086
  "$B"/compiler/cutec stdlib/gemv.cute --arch=sm_90a $pt -o "prebuilt/gemv/gemv_${name}.ptx"
done
# single-tile wgmma forms for tests/gpu/wgmma_forms.c: NAME and the -D options
rm -rf prebuilt/wgmma && mkdir -p prebuilt/wgmma
while read -r name args; do
  # shellcheck disable=SC2086
  "$B"/compiler/cutec tests/gpu/kernels/wgmma_forms.cute $args -o "prebuilt/wgmma/$name.ptx"
done <<'POINTS'
ss_bf16
ss_f16 -D TA=f16
ss_bf16_sw32_ord1 -D SWA=1 -D SWB=1 -D ORD=1
rs_bf16 -D RS=1
rs_bf16_n256_k128 -D RS=1 -D N=256 -D K=128
rs_f16_n8 -D RS=1 -D TA=f16 -D N=8
ss_e4m3 -D TA=e4m3 -D KSTEP=32 -D K=128
ss_e5m2 -D TA=e5m2 -D KSTEP=32 -D K=128
ss_e4m3_e5m2_k256 -D TA=e4m3 -D TB=e5m2 -D KSTEP=32 -D K=256
ss_e4m3_sw64_sw32_ord1 -D TA=e4m3 -D KSTEP=32 -D K=128 -D SWA=2 -D SWB=1 -D ORD=1
rs_e4m3 -D TA=e4m3 -D KSTEP=32 -D K=128 -D RS=1
rs_e5m2_e4m3_n64_sw64 -D TA=e5m2 -D TB=e4m3 -D KSTEP=32 -D K=64 -D N=64 -D RS=1 -D SWA=2 -D SWB=2
ss_bf16_mnB_sw128 -D BMN=1
ss_bf16_mnB_sw64_ord1 -D BMN=1 -D SWB=2 -D ORD=1
ss_f16_mnB_sw32_n64 -D TA=f16 -D BMN=1 -D SWB=1 -D N=64
ss_bf16_mnB_n256_k32 -D BMN=1 -D N=256 -D K=32 -D SWA=1
ss_bf16_mnA_mnB_sw64_ord1 -D AMN=1 -D BMN=1 -D SWA=2 -D ORD=1
ss_bf16_mnA_sw32 -D AMN=1 -D SWA=1
ss_bf16_fresh -D FRESH=1
rs_e4m3_fresh -D TA=e4m3 -D KSTEP=32 -D K=128 -D RS=1 -D FRESH=1
ss_e4m3_e5m2_fresh -D TA=e4m3 -D TB=e5m2 -D KSTEP=32 -D K=128 -D FRESH=1
rs_f16_mnB_sw128 -D RS=1 -D TA=f16 -D BMN=1
tiled_bf16 -D TILED=1
tiled_f16_n256_k128 -D TILED=1 -D TA=f16 -D N=256 -D K=128
tiled_bf16_n64_sw64_sw32_ord1 -D TILED=1 -D N=64 -D SWA=2 -D SWB=1 -D ORD=1
tiled_bf16_n8 -D TILED=1 -D N=8
tiled_e4m3_n8 -D TILED=1 -D TA=e4m3 -D KSTEP=32 -D K=128 -D N=8
tiled_e4m3 -D TILED=1 -D TA=e4m3 -D KSTEP=32 -D K=128
tiled_e5m2_n64_k256 -D TILED=1 -D TA=e5m2 -D KSTEP=32 -D K=256 -D N=64
tiled_e4m3_e5m2_sw64_sw32_ord1 -D TILED=1 -D TA=e4m3 -D TB=e5m2 -D KSTEP=32 -D K=128 -D SWA=2 -D SWB=1 -D ORD=1
tiled_rs_bf16 -D TILED=1 -D RS=1
tiled_rs_f16_n256_k128 -D TILED=1 -D RS=1 -D TA=f16 -D N=256 -D K=128
tiled_rs_bf16_n64_mnB_sw64 -D TILED=1 -D RS=1 -D N=64 -D BMN=1 -D SWB=2
tiled_rs_f16_n8 -D TILED=1 -D RS=1 -D TA=f16 -D N=8
tiled_rs_e4m3 -D TILED=1 -D RS=1 -D TA=e4m3 -D KSTEP=32 -D K=128
tiled_rs_e5m2_e4m3_n64_sw64 -D TILED=1 -D RS=1 -D TA=e5m2 -D TB=e4m3 -D KSTEP=32 -D K=64 -D N=64 -D SWA=2 -D SWB=2
POINTS
# kernel packs for the runtime's GEMM entry point and its tests
"$B"/compiler/cutec pack stdlib/sm80/gemm.cute --arch=sm_90a -o prebuilt/gemm_sm80.pack
# and its gated form (SwiGLU, the fast math builtins), for the runtime's sm80 path
"$B"/compiler/cutec pack stdlib/sm80/gemm.cute --arch=sm_90a --fast-math -D ACT=swiglu -D GLU=1 \
  -o prebuilt/gemm_sm80_swiglu_fast.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -o prebuilt/gemm_sm90.pack
"$B"/compiler/cutec pack stdlib/sm80/gemm.cute --arch=sm_80 --no-cubin -D BK=32 -D STAGES=3 -D WM=2 -D WN=2 \
  -o prebuilt/test_gemm.pack
# the same template for the other operand layouts (gpu-run.sh LAYOUT_BENCH=1):
# B stored K x N (LB = 1), A column-major (LA = 1), both
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D LB=1 -o prebuilt/gemm_sm90_lb1.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D LA=1 -o prebuilt/gemm_sm90_la1.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D LA=1 -D LB=1 -o prebuilt/gemm_sm90_la1_lb1.pack
# the GEMV (skinny M <= 16) kernel's points for the runtime (gpu-run.sh
# GEMV_BENCH=1: beside gemm_sm90.pack, which serves M > 16 too)
"$B"/compiler/cutec pack stdlib/gemv.cute --arch=sm_90a -o prebuilt/gemv.pack
# the grouped (mixture-of-experts) GEMM's points (GRP = 1): bf16 in, bf16
# and f32 out
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D GRP=1 -o prebuilt/gemm_sm90_grouped.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D GRP=1 -D TC=f32 -o prebuilt/gemm_sm90_grouped_f32.pack
# and for the Python package's grouped_mm (gpu-run.sh TORCH=1, TORCH_GROUPED=1):
# each expert's B row-major ((G, K, N) contiguous, LB = 1), and f16
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D GRP=1 -D LB=1 -o prebuilt/gemm_sm90_grouped_lb1.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D GRP=1 -D LB=1 -D TC=f32 \
  -o prebuilt/gemm_sm90_grouped_lb1_f32.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D GRP=1 -D T=f16 -D TC=f16 -o prebuilt/gemm_sm90_grouped_f16.pack
# fused-epilogue packs for the epilogue benchmark (gpu-run.sh EPI_BENCH=1):
# bias + GELU (tanh) over every tune point, SwiGLU (its register-store and
# whole-tile TMA-store points), bias + SiLU, and the elementwise kernels of the unfused baseline
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D ACT=gelu_tanh -D BIAS=1 -o prebuilt/gemm_sm90_gelu_bias.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D ACT=silu -D BIAS=1 -o prebuilt/gemm_sm90_silu_bias.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D ACT=swiglu -D GLU=1 -o prebuilt/gemm_sm90_swiglu.pack
# bias + GELU clamped (CLAMP = 1; gpu-run.sh EPI_BENCH's gelu_bias_clamp,
# against cuBLASLt's GEMM and epilogue_apply's clamping kernel)
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D ACT=gelu_tanh -D BIAS=1 -D CLAMP=1 \
  -o prebuilt/gemm_sm90_gelu_bias_clamp.pack
# the residual add (D = A B + beta C out of place; gpu-run.sh EPI_BENCH's
# residual, against cuBLASLt's own beta C)
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D SRC=1 -o prebuilt/gemm_sm90_residual.pack
"$B"/compiler/cutec pack stdlib/epilogue_apply.cute --arch=sm_90a -o prebuilt/epilogue_apply.pack
# and for f16 (the Python package's f16 epilogues without a fused pack kernel)
"$B"/compiler/cutec pack stdlib/epilogue_apply.cute --arch=sm_90a -D T=f16 -o prebuilt/epilogue_apply_f16.pack
# the same with the math builtins' fast forms (tanh.approx, ex2.approx): the
# exact polynomials cost the epilogue issue slots the MMAs need
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a --fast-math -D ACT=gelu_tanh -D BIAS=1 \
  -o prebuilt/gemm_sm90_gelu_bias_fast.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a --fast-math -D ACT=silu -D BIAS=1 \
  -o prebuilt/gemm_sm90_silu_bias_fast.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a --fast-math -D ACT=swiglu -D GLU=1 \
  -o prebuilt/gemm_sm90_swiglu_fast.pack
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a --fast-math -D ACT=gelu_tanh -D BIAS=1 -D CLAMP=1 \
  -o prebuilt/gemm_sm90_gelu_bias_clamp_fast.pack
# and with the pre-activation as an aux output (EPI_BENCH's gelu_bias_aux)
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a --fast-math -D ACT=gelu_tanh -D BIAS=1 -D AUX=1 \
  -o prebuilt/gemm_sm90_gelu_bias_aux_fast.pack
# fp8 packs for the fp8 benchmark (gpu-run.sh FP8_BENCH=1), one per scale
# mode, with cubins as a user's packs have them (35 s a pack here): PTX
# alone left each tuning's first kernels to the driver's JIT, 100-130 ms a
# point, which the tuning times then counted (dec_m64's 3.10 s per tensor,
# H200, 2026-11-29)
for m in "tensor 1" "row 2" "block 3"; do
  set -- $m
  "$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D T=e4m3 -D SCALE="$2" \
    -o "prebuilt/gemm_sm90_e4m3_$1.pack"
done
# an fp8 output (e4m3, scaled by scale_d, with its amax; per-tensor scales):
# the packs above write 16-bit outputs only, and cuBLASLt refused this
# combination on the H100 (cutec.torch.scaled_mm's test_fp8_output_and_amax,
# status 7)
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a -D T=e4m3 -D TC=e4m3 -D SCALE=1 \
  -o prebuilt/gemm_sm90_e4m3_tensor_e4m3.pack
# the fp8 accumulation-error study (gpu-run.sh FP8_ERR=1, cutec-tune error):
# per scale mode (tensor, row) and output (bf16, f32) one tile (128 x 128,
# 4 stages, register stores), promoted every k-tile (PROMO = 1, the tuned
# value) and, for comparison, every 4 (no longer tuned: 14x cuBLASLt's
# error at K = 65536, docs/performance.md) and never before the end (PROMO =
# 2^20 k-tiles, more than any K has), packed from copies of the template
# whose tune clause lists those values (cutec pack keeps only the listed
# values of a tune variable); the tile does not change a sum's order along
# K, PROMO does
ERR_TILE="-D BM=128 -D BN=128 -D STAGES=4 -D EPI=0 -D CM=1 -D CN=1"
err_dir=$(mktemp -d)
sed 's/^\( *PROMO in \)\[0, 1\];/\1[1, 4];/' stdlib/sm90/gemm.cute > "$err_dir/gemm.cute"
sed 's/^\( *PROMO in \)\[0, 1\];/\1[1048576];/' stdlib/sm90/gemm.cute > "$err_dir/nopromo.cute"
grep -q 'PROMO in \[1, 4\];' "$err_dir/gemm.cute" && grep -q 'PROMO in \[1048576\];' "$err_dir/nopromo.cute" ||
  { echo "gpu-prepare: stdlib/sm90/gemm.cute's 'PROMO in [0, 1];' line changed"; exit 1; }
for m in "tensor 1" "row 2"; do
  set -- $m
  for out in bf16 f32; do
    # shellcheck disable=SC2086
    "$B"/compiler/cutec pack "$err_dir/gemm.cute" --arch=sm_90a -D T=e4m3 -D TC=$out -D SCALE="$2" $ERR_TILE \
      --no-cubin -o "prebuilt/gemm_sm90_e4m3_err_$1_$out.pack"
    # shellcheck disable=SC2086
    "$B"/compiler/cutec pack "$err_dir/nopromo.cute" --arch=sm_90a -D T=e4m3 -D TC=$out -D SCALE="$2" $ERR_TILE \
      --no-cubin -o "prebuilt/gemm_sm90_e4m3_nopromo_$1_$out.pack"
  done
done
rm -rf "$err_dir"
# the user-epilogue example (examples/user_epilogue.c, example_user_epilogue):
# examples/my_epilogue.cute's squared_relu with a bias over every sm90 tune
# point, and epilogue_apply.cute's elementwise kernels with it for the
# unfused baseline, from a copy whose tune clause lists squared_relu (a -D
# of a tune variable only picks among the listed values)
"$B"/compiler/cutec pack stdlib/sm90/gemm.cute --arch=sm_90a --import examples/my_epilogue.cute \
  -D ACT=squared_relu -D BIAS=1 -o prebuilt/gemm_sm90_squared_relu_bias.pack
ue_dir=$(mktemp -d)
sed 's/^\( *ACT in \)\[identity, relu, relu6, gelu_tanh, gelu_erf, silu, sigmoid, swiglu, geglu\];/\1[squared_relu];/' \
  stdlib/epilogue_apply.cute > "$ue_dir/epilogue_apply_squared_relu.cute"
grep -q 'ACT in \[squared_relu\];' "$ue_dir/epilogue_apply_squared_relu.cute" ||
  { echo "gpu-prepare: stdlib/epilogue_apply.cute's ACT list changed"; exit 1; }
"$B"/compiler/cutec pack "$ue_dir/epilogue_apply_squared_relu.cute" --arch=sm_90a --import examples/my_epilogue.cute \
  -D GLU=0 -o prebuilt/epilogue_apply_squared_relu.pack
rm -rf "$ue_dir"
# user kernels with roles (B row-major; a bias epilogue): served or skipped by the tuner
"$B"/compiler/cutec pack tests/runtime/user_gemm.cute --arch=sm_80 --no-cubin -o prebuilt/user_gemm.pack
"$B"/compiler/cutec pack tests/runtime/user_gemm_grouped.cute --arch=sm_80 --no-cubin -o prebuilt/user_gemm_grouped.pack
# the tuner's check kernel, embedded in the runtime (runtime/CMakeLists.txt
# takes it from here where the compiler is not built)
"$B"/compiler/cutec pack stdlib/check_close.cute --arch=sm_80 --no-cubin -o prebuilt/check_close.pack
# a pack whose BM = 128 kernel faults: the tuner's quarantine on the GPU
"$B"/compiler/cutec pack tests/runtime/fault_gemm.cute --arch=sm_80 --no-cubin -o prebuilt/fault_gemm.pack
# a cubin beside each GEMM point's PTX, assembled here by ptxas for the
# GPU's sm_90a: gemm_check loads X.cubin for X.ptx where it is no older
# (module_image), since the driver's JIT of these 1150 files (by
# subtraction 0.1-0.8 s each on an H200) was most of the GPU suite's wall time; a file ptxas
# refuses keeps its PTX alone (gemm_check then JIT-compiles it and reports)
if command -v ptxas >/dev/null; then
  # shellcheck disable=SC2016 # $1 is the inner shell's
  find prebuilt/gemm prebuilt/gemm_fp8 prebuilt/gemm_epi -name '*.ptx' -print0 |
    xargs -0 -P"$(nproc)" -I{} sh -c 'ptxas -arch=sm_90a -O3 "$1" -o "${1%.ptx}.cubin" 2>/dev/null || rm -f "${1%.ptx}.cubin"' _ {}
fi
# one compressed copy to carry to the GPU machine (the carry limit is 64 MiB;
# PTX compresses about 14:1); gpu-run.sh unpacks it there
tar cf - prebuilt | xz -T0 -3 > prebuilt.tar.xz
echo "gpu-prepare: $(ls prebuilt/wgmma | wc -l) wgmma forms in prebuilt/wgmma"
echo "gpu-prepare: $(ls prebuilt/gemm_fp8/*.ptx | wc -l) fp8 GEMM points in prebuilt/gemm_fp8"
echo "gpu-prepare: $(ls prebuilt/gemm_epi/*.ptx | wc -l) fused-epilogue GEMM points in prebuilt/gemm_epi"
echo "gpu-prepare: $(ls prebuilt/gemm_layout | wc -l) operand-layout GEMM points in prebuilt/gemm_layout"
echo "gpu-prepare: $(ls prebuilt/gemm_batch | wc -l) batched GEMM points in prebuilt/gemm_batch"
echo "gpu-prepare: $(ls prebuilt/gemm_grouped | wc -l) grouped GEMM points in prebuilt/gemm_grouped"
echo "gpu-prepare: $(ls prebuilt/gemv | wc -l) GEMV points in prebuilt/gemv"
echo "gpu-prepare: $(ls prebuilt/gemm/*.ptx | wc -l) GEMM points in prebuilt/gemm, $(find prebuilt -name '*.cubin' | wc -l) cubins beside PTX files ($(du -sh prebuilt | cut -f1) in prebuilt/, $(du -sh prebuilt.tar.xz | cut -f1) in prebuilt.tar.xz)"
