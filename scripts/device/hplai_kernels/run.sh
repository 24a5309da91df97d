#!/usr/bin/env bash
# Builds and runs the variants study (variants.cu) on the GPU machine: OUT=/dir scripts/device/hplai_kernels/run.sh [N]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cmake -S "$HERE" -B /tmp/hkv -DKokkos_ROOT="$ROOT/.deps/kokkos-cuda" -DCMAKE_BUILD_TYPE=Release > "${OUT:-/tmp}/hkv_build.log" 2>&1 &&
  cmake --build /tmp/hkv -j"$(nproc)" >> "${OUT:-/tmp}/hkv_build.log" 2>&1 || { tail -30 "${OUT:-/tmp}/hkv_build.log"; exit 1; }
/tmp/hkv/hplai_kernel_variants "${1:-49152}"
