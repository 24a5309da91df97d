#!/usr/bin/env bash
# Builds and installs a CUDA-enabled Kokkos 4.x for tcemu's GPU builds (issue 20; docs/kokkos.md).
#
# Usage: scripts/build_kokkos.sh SRC PREFIX
#   SRC     a Kokkos 4.x source tree you supply (e.g. a kokkos/kokkos release tag, unpacked); it is
#           patched in place for CUDA 13 when that is needed (scripts/kokkos/cuda13.patch)
#   PREFIX  where to install it; then configure tcemu with -DKokkos_ROOT=PREFIX
# Environment (all optional):
#   KOKKOS_ARCH         Kokkos GPU architecture option (default HOPPER90: sm_90, also runs on sm_90a parts)
#   KOKKOS_BUILD_DIR    build folder, kept (default: a temporary folder, removed after the install)
#   JOBS                parallel compile jobs (default: nproc)
#   CUDACXX / CXX       the CUDA compiler (default nvcc from PATH, else /usr/local/cuda/bin/nvcc) and
#                       the host C++ compiler (default g++)
#   KOKKOS_CMAKE_ARGS   extra CMake arguments (e.g. -DKokkos_ENABLE_OPENMP=ON)
#
# What it builds: the CUDA backend and the Serial host backend, C++17, static libraries without debug
# information, compiled in Kokkos' CMake-language mode (Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE=ON):
# nvcc is CMake's CUDA compiler and consumers compile their Kokkos sources as CUDA (no nvcc_wrapper).
# No GPU is needed to build it.
set -euo pipefail

if [ $# -ne 2 ]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$1" && pwd)
mkdir -p "$2"
PREFIX=$(cd "$2" && pwd)
BUILD_DIR=${KOKKOS_BUILD_DIR:-}
if [ -z "$BUILD_DIR" ]; then
  BUILD_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kokkos-build.XXXXXX")
  trap 'rm -rf "$BUILD_DIR"' EXIT
fi
JOBS=${JOBS:-$(nproc)}
ARCH=${KOKKOS_ARCH:-HOPPER90}
CXX=${CXX:-g++}
if [ -z "${CUDACXX:-}" ]; then
  CUDACXX=$(command -v nvcc || true)
  [ -n "$CUDACXX" ] || CUDACXX=/usr/local/cuda/bin/nvcc
fi
[ -x "$CUDACXX" ] || command -v "$CUDACXX" >/dev/null || { echo "build_kokkos: no CUDA compiler ($CUDACXX)" >&2; exit 1; }

[ -f "$SRC/CMakeLists.txt" ] && [ -d "$SRC/core/src/Cuda" ] ||
  { echo "build_kokkos: $SRC is not a Kokkos source tree (no core/src/Cuda)" >&2; exit 1; }
version=$(sed -n 's/^ *set(Kokkos_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)).*/\2/p' "$SRC/CMakeLists.txt" | paste -sd. -)
echo "build_kokkos: Kokkos ${version:-?} from $SRC -> $PREFIX (arch $ARCH, $CUDACXX, -j$JOBS)"
case "$version" in 4.*) ;; *) echo "build_kokkos: warning: tcemu's GPU build expects Kokkos 4.x" >&2 ;; esac

# ---- the CUDA 13 patch: only when the toolkit is CUDA 13 or newer and the source still makes the
# pre-13 calls; a tree that already carries it (the marker) is left alone, so reruns are no-ops.
cuda_major=$("$CUDACXX" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
instance=$SRC/core/src/Cuda/Kokkos_Cuda_Instance.hpp
if grep -q "tcemu local patch" "$instance"; then
  echo "build_kokkos: CUDA 13 patch already applied"
elif [ "${cuda_major:-0}" -lt 13 ]; then
  echo "build_kokkos: CUDA $cuda_major: no patch needed"
elif ! grep -q "cudaGraphAddDependencies(graph, from, to, numDependencies)" "$instance"; then
  echo "build_kokkos: this Kokkos already makes the CUDA 13 calls: no patch needed"
else
  echo "build_kokkos: applying scripts/kokkos/cuda13.patch (CUDA $cuda_major)"
  patch -d "$SRC" -p1 --forward --no-backup-if-mismatch < "$HERE/kokkos/cuda13.patch" ||
    { echo "build_kokkos: the CUDA 13 patch does not apply to this Kokkos; see scripts/kokkos/cuda13.patch" >&2; exit 1; }
fi

# ---- configure, build, install
lambda=()
grep -q "CUDA_LAMBDA" "$SRC/cmake/kokkos_enable_options.cmake" && lambda=(-DKokkos_ENABLE_CUDA_LAMBDA=ON)
# shellcheck disable=SC2206  # word splitting of the user's extra arguments is intended
extra=(${KOKKOS_CMAKE_ARGS:-})
cmake -S "$SRC" -B "$BUILD_DIR" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CUDA_COMPILER="$CUDACXX" \
  -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF -DBUILD_SHARED_LIBS=OFF \
  -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_"$ARCH"=ON \
  -DKokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE=ON "${lambda[@]}" \
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF -DKokkos_ENABLE_BENCHMARKS=OFF \
  "${extra[@]}"
cmake --build "$BUILD_DIR" -j"$JOBS"
cmake --install "$BUILD_DIR"
# Release builds carry no -g; strip what debug sections remain anyway (keeps .deps small to carry).
find "$PREFIX" -name '*.a' -exec strip --strip-debug {} +
du -sh "$PREFIX"
echo "build_kokkos: done; configure tcemu with -DKokkos_ROOT=$PREFIX"
