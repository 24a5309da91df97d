# Sourced by the device scripts (apps_gpu.sh, auto_grid.sh, gpu_check.sh): repository root, output
# folder, job count, working directory at the root, and `stamp` (elapsed seconds + a message) and
# `device_info` (the GPU's name, driver, clocks, temperature and power) for their logs.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$ROOT/out}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
cd "$ROOT"
t0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
device_info() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
}
# CMake arguments for what the GPU image lacks, from the carried .deps/ (scripts/device/prepare_deps.sh):
# googletest, built and installed into /tmp/gtest once per machine, and CLI11's headers. Sets the
# array DEPS_ARGS.
carried_deps_args() {
  DEPS_ARGS=()
  local gtest_arg=""
  if [ ! -e /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ]; then
    if [ ! -e /tmp/gtest/lib/cmake/GTest/GTestConfig.cmake ]; then
      stamp "googletest from .deps/googletest"
      cmake -S .deps/googletest -B /tmp/gtest-build -DCMAKE_INSTALL_PREFIX=/tmp/gtest -DBUILD_GMOCK=OFF \
            -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_BUILD_TYPE=Release > "$OUT/gtest_build.log" 2>&1 &&
        cmake --build /tmp/gtest-build -j"$JOBS" >> "$OUT/gtest_build.log" 2>&1 &&
        cmake --install /tmp/gtest-build >> "$OUT/gtest_build.log" 2>&1
    fi
    gtest_arg="-DGTest_ROOT=/tmp/gtest"
  fi
  [ -z "$gtest_arg" ] || DEPS_ARGS+=("$gtest_arg")
  [ -e /usr/include/CLI/CLI.hpp ] || [ ! -d "$ROOT/.deps/cli11" ] || DEPS_ARGS+=("-DCLI11_INCLUDE_DIR=$ROOT/.deps/cli11")
}
