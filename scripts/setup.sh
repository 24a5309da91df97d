#!/usr/bin/env bash
# Idempotent set-up of tcemu: installs the Debian packages that are missing (and only those), then
# configures and builds into ./build. With nvcc the CUDA backend is compiled too (it runs only where a
# GPU is present); without nvcc the build is CPU-only and needs no CUDA. Extra CMake arguments can be
# passed in TCEMU_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libtrilinos-kokkos-dev libhdf5-dev libcli11-dev nlohmann-json3-dev libopenblas-dev libgtest-dev
          dataset-fashion-mnist python3-numpy python3-h5py
          # qsim over MPI ranks (optional at build time; docs/scaling.md)
          libopenmpi-dev openmpi-bin
          # the sanitizer + fuzzing build of scripts/test.sh's stage 2 (scripts/build_sanitize.sh):
          # clang, its ASan/UBSan/libFuzzer run-time libraries, llvm-symbolizer for the reports
          clang libclang-rt-14-dev llvm-14)
command -v cmake >/dev/null 2>&1 || packages+=(cmake)
command -v g++ >/dev/null 2>&1 || packages+=(g++)
command -v make >/dev/null 2>&1 || packages+=(make)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

cmake_args=(-S . -B build -DCMAKE_BUILD_TYPE=Release)
# The CUDA backend is compiled whenever nvcc is there (so CI on a GPU-less machine still compiles and
# links it; its tests skip without a device); without nvcc the build is CPU-only.
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: nvcc found; building the CUDA backend (GPU tests skip when no device is present)"
  cmake_args+=(-DTCEMU_ENABLE_CUDA=ON)
  command -v nvcc >/dev/null 2>&1 || cmake_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  # NCCL (qsim's swaps GPU to GPU over MPI ranks, docs/scaling.md): the CUDA toolkit's or the system's
  # when present, else the PyPI wheel nvidia-nccl-cu13 in .deps/nccl (ignored by git).
  if [ ! -e /usr/local/cuda/include/nccl.h ] && [ ! -e /usr/include/nccl.h ] && [ ! -e /usr/local/include/nccl.h ] &&
     [ ! -e .deps/nccl/nvidia/nccl/include/nccl.h ]; then
    echo "setup: no NCCL found; installing the nvidia-nccl-cu13 wheel into .deps/nccl"
    python3 -m pip install --quiet --no-deps --target .deps/nccl nvidia-nccl-cu13 ||
      echo "setup: NCCL not installed; GPU runs over MPI ranks will exchange through host memory"
  fi
  [ -e .deps/nccl/nvidia/nccl/include/nccl.h ] && cmake_args+=(-DNCCL_ROOT="$PWD/.deps/nccl/nvidia/nccl")
else
  echo "setup: no nvcc; CPU-only build"
  cmake_args+=(-DTCEMU_ENABLE_CUDA=OFF)
fi
# shellcheck disable=SC2206  # word splitting of the user's extra arguments is intended
cmake_args+=(${TCEMU_CMAKE_ARGS:-})
cmake "${cmake_args[@]}"
cmake --build build -j"$(nproc)"
