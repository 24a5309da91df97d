#!/usr/bin/env bash
# Idempotent set-up of tcemu: installs the Debian packages that are missing (and only those), then
# configures and builds into ./build. A machine without a GPU (no nvidia-smi) gets a CPU-only build
# that needs no CUDA. Extra CMake arguments can be passed in TCEMU_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libtrilinos-kokkos-dev libhdf5-dev libcli11-dev libopenblas-dev libgtest-dev
          dataset-fashion-mnist python3-numpy python3-h5py)
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
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "setup: GPU found; the CUDA backend is built if a CUDA compiler is available"
else
  echo "setup: no GPU found; CPU-only build"
  cmake_args+=(-DTCEMU_ENABLE_CUDA=OFF)
fi
# shellcheck disable=SC2206  # word splitting of the user's extra arguments is intended
cmake_args+=(${TCEMU_CMAKE_ARGS:-})
cmake "${cmake_args[@]}"
cmake --build build -j"$(nproc)"
