#!/usr/bin/env bash
# Build tcemu with the CUDA backend on a lent GPU machine, run the GPU tests and tcemu-bench at the
# acceptance shapes (issue 3), and leave logs and CSV under $OUT.
#
# Needs, beside the checkout: .deps/kokkos (a copy of Debian's Trilinos Kokkos: include/trilinos and
# lib/libtrilinos_kokkos*.so*) and .deps/googletest (Debian's /usr/src/googletest), carried with the
# call because the GPU image has no Kokkos; scripts/device/prepare_deps.sh makes them.
# Usage (repository root): OUT=/some/dir scripts/device/gpu_check.sh [full|quick|split]
#   split: the split-pass check (tests, core/src/cuda/passes/split_selftest.cuh, 8192 / knn / kmeans benches);
#          uses binaries prebuilt here in build-split-bin/ (tests/test_core, core/tcemu-bench,
#          split_selftest) when they run on the device machine, else builds as the other modes do.
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-/tmp/tcemu-build}
MODE=${1:-full}

stamp "device"
device_info
nvcc --version | tail -1; cmake --version | head -1; g++ --version | head -1

# Mode "split" (docs/history/2026-11-22-split-pass.md, 2.6): prebuilt binaries may be carried in $PREBUILT (same CUDA and
# compiler here: saves the build's device time); used only when every library they need resolves.
PREBUILT=${PREBUILT:-$ROOT/build-split-bin}
SELFTEST=""
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
prebuilt_ok() {
  [ "$MODE" = split ] || return 1
  for b in tests/test_core core/tcemu-bench split_selftest; do
    [ -x "$PREBUILT/$b" ] || return 1
    if ldd "$PREBUILT/$b" | grep -q "not found"; then ldd "$PREBUILT/$b" | grep "not found"; return 1; fi
  done
}
if prebuilt_ok; then
  stamp "using prebuilt binaries from $PREBUILT"
  BUILD=$PREBUILT
  SELFTEST=$PREBUILT/split_selftest
else

GTEST_ARG=""
if [ ! -e /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ] && [ ! -e /usr/lib/cmake/GTest/GTestConfig.cmake ]; then
  stamp "building googletest from .deps/googletest"
  cmake -S .deps/googletest -B /tmp/gtest-build -DCMAKE_INSTALL_PREFIX=/tmp/gtest -DBUILD_GMOCK=OFF \
        -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_BUILD_TYPE=Release > "$OUT/gtest_build.log" 2>&1 &&
    cmake --build /tmp/gtest-build -j"$JOBS" >> "$OUT/gtest_build.log" 2>&1 &&
    cmake --install /tmp/gtest-build >> "$OUT/gtest_build.log" 2>&1 || { echo "googletest build failed"; tail -20 "$OUT/gtest_build.log"; }
  GTEST_ARG="-DGTest_ROOT=/tmp/gtest"
fi

# Build from a private copy of the library, apps/common (tcemu-bench links it for the TCEMU_*
# environment) and the tests only: other people's work in progress in the apps (or a test that does
# not compile yet) must not stop the GPU check.
SRC=/tmp/tcemu-src
rm -rf "$SRC"; mkdir -p "$SRC/apps"
cp -a CMakeLists.txt cmake core tests "$SRC/"
cp -a apps/common "$SRC/apps/"
printf '%s\n' "# only apps/common is built by scripts/device/gpu_check.sh" "add_subdirectory(common)" > "$SRC/apps/CMakeLists.txt"
stamp "configure + build (sm_90a, -j$JOBS)"
cmake -S "$SRC" -B "$BUILD" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
      -DTCEMU_KOKKOS_ROOT="$ROOT/.deps/kokkos" $GTEST_ARG > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
cmake --build "$BUILD" -j"$JOBS" --target tcemu_core tcemu-bench >> "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
if ! cmake --build "$BUILD" -j"$JOBS" --target test_core >> "$OUT/build.log" 2>&1; then
  echo "test_core failed to build; retrying with the CUDA backend's tests only"
  grep -E "error" "$OUT/build.log" | head -10
  find "$SRC/tests/core" -name 'test_*.cpp' ! -name 'test_cuda_*' ! -name 'test_complex_gemm.cpp' -delete
  cmake "$BUILD" >> "$OUT/build.log" 2>&1
  cmake --build "$BUILD" -j"$JOBS" --target test_core >> "$OUT/build.log" 2>&1 || echo "test_core still fails"
fi
if [ "$MODE" = split ]; then  # the split pass self-test (core/src/cuda/passes/split_selftest.cuh)
  nvcc -x cu -std=c++17 -O2 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I core/include \
       -I core/src -c core/src/cuda/passes/split_selftest.cuh -o /tmp/split_selftest.o >> "$OUT/build.log" 2>&1 &&
    nvcc /tmp/split_selftest.o "$BUILD/core/libtcemu_core.a" -lcublas -o "$BUILD/split_selftest" >> "$OUT/build.log" 2>&1 &&
    SELFTEST=$BUILD/split_selftest || echo "split_selftest failed to build"
fi
fi

if [ -x "$BUILD/tests/test_core" ]; then
  stamp "GPU tests"
  "$BUILD/tests/test_core" --gtest_filter='Cuda*:ComplexGemm*' > "$OUT/tests.log" 2>&1
  echo "test exit code $?"
  grep -E "^\[  (PASSED|FAILED) |^\[  SKIPPED|Failure|ozaki|error|Expected|Which is|actual" "$OUT/tests.log" | head -60
fi
if [ -n "$SELFTEST" ]; then
  stamp "split self-test and pass timings"
  "$SELFTEST" > "$OUT/split_selftest.log" 2>&1
  echo "split_selftest exit code $?"
  grep -E "^FAIL|^  |^SELFTEST|^TIMING|error" "$OUT/split_selftest.log" | head -60
fi

B="$BUILD/core/tcemu-bench"
ALL32=fp32,tf32,bf16,fp16,fp16x2,fp16x2-markidis,fp16x2-egemm,fp16x2-legemm,fp16x2-aligned,tf32x2,tf32x2-aligned,bf16x3,bf16x3-aligned,bf16x9,int8-ozaki,auto
run_bench() {  # name, args...
  local name=$1; shift
  stamp "bench $name: $*"
  "$B" "$@" --csv "$OUT/bench_$name.csv" > "$OUT/bench_$name.log" 2>&1 || { echo "bench $name failed"; tail -5 "$OUT/bench_$name.log"; }
}
if [ "$MODE" = split ]; then  # acceptance shapes of the split-pass work (docs/history/2026-11-22-split-pass.md)
  run_bench accept32 --shapes 8192 --dists uniform --schemes fp16x2,tf32x2,bf16x3 --fp64-schemes ''
  run_bench apps --shapes knn,kmeans --dists uniform --schemes fp16x2,tf32x2,bf16x3 --fp64-schemes ''
  run_bench accept64 --shapes 8192 --dists phi=0.1 --schemes '' --fp64-schemes int8-ozaki
elif [ "$MODE" = quick ]; then
  run_bench accept32 --shapes 8192 --dists uniform --schemes fp16x2,tf32x2,bf16x3 --fp64-schemes ''
  run_bench accept64 --shapes 8192 --dists phi=0.1,phi=1 --schemes '' --fp64-schemes int8-ozaki
else
  run_bench accept32 --shapes 8192 --dists uniform --schemes "$ALL32" --fp64-schemes fp64,int8-ozaki,auto
  run_bench accept64 --shapes 8192 --dists phi=0.1,phi=1 --schemes fp16x2,tf32x2,bf16x3 \
            --fp64-schemes int8-ozaki,int8-ozaki:7,int8-ozaki:8,auto
  run_bench square --shapes 1024,2048,4096,16384 --dists uniform --schemes fp16x2,tf32x2,bf16x3,bf16x9,auto \
            --fp64-schemes int8-ozaki
  run_bench spread --shapes 4096 --dists phi=2,phi=4 --schemes fp16x2,bf16x3,auto --fp64-schemes int8-ozaki,auto
  run_bench apps --shapes knn,kmeans,qsim:26:7,qsim:24:10 --dists uniform \
            --schemes fp16x2,tf32x2,bf16x3,auto --fp64-schemes int8-ozaki
fi
# Optional: accumulation-chunk sweep (TCEMU_CUDA_ACC_CHUNK, see core/src/cuda/dispatch/paths_cuda.cpp).
for c in ${CHUNK_SWEEP:-}; do
  TCEMU_CUDA_ACC_CHUNK=$c run_bench "chunk$c" --shapes 8192 --dists uniform \
      --schemes fp16x2,tf32x2,bf16x3,bf16x9,fp16x2-markidis --fp64-schemes ''
  sed -i "s/,tcemu,fp32,/,tcemu-chunk$c,fp32,/" "$OUT/bench_chunk$c.csv"
done
# One CSV (header once) and one log for the table.
first=1
for f in "$OUT"/bench_*.csv; do
  [ -e "$f" ] || continue
  if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi
done > "$OUT/bench.csv"
cat "$OUT"/bench_*.log > "$OUT/bench.log" 2>/dev/null
rm -f "$OUT"/bench_*.csv "$OUT"/bench_*.log
stamp "done"
grep -E "^(8192|knn|kmeans) " "$OUT/bench.log" | head -90
