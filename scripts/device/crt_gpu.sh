#!/usr/bin/env bash
# int8-crt (Ozaki scheme II, issue 21) on a lent GPU machine; logs under $OUT. Jobs, in order given:
#   build: configure (sm_90a, carried Kokkos / googletest / CLI11 as apps_gpu.sh does) and build
#          test_core and tcemu-bench only, into $BUILD (kept while the machine stays warm)
#   tests: test_core's CudaCrt.* (GPU == host bit for bit) and the host Crt* tests
#   bench: tcemu-bench at 8192^3, FP64 target, phi = 0.1, 1, 4: fp64, int8-ozaki, int8-crt:N for
#          N = 14, 16, 18 and int8-crt (N per call, certificate on the GPU); CSV in $OUT
# Usage (repository root): OUT=/dir scripts/device/crt_gpu.sh build tests bench
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-$ROOT/build-gpu}
export LD_LIBRARY_PATH="$BUILD/core:$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"

build() {
  carried_deps_args  # googletest and CLI11 from .deps/ where the image has none (common.sh)
  stamp "configure + build test_core tcemu-bench (-j$JOBS)"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        -DTCEMU_KOKKOS_ROOT="$ROOT/.deps/kokkos" "${DEPS_ARGS[@]}" > "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; return 1; }
  cmake --build "$BUILD" -j"$JOBS" --target test_core tcemu-bench >> "$OUT/build.log" 2>&1 ||
    { grep -E "error" -A3 "$OUT/build.log" | head -60; return 1; }
  stamp "built"
}

tests() {
  stamp "CudaCrt tests"
  "$BUILD/tests/test_core" --gtest_filter='CudaCrt*:Crt*' > "$OUT/tests_crt.log" 2>&1
  echo "test_core CudaCrt*:Crt* exit $?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|Expected|Which is|GPU:|host:" "$OUT/tests_crt.log" | head -40
}

bench() {
  device_info
  stamp "tcemu-bench int8-crt"
  "$BUILD/core/tcemu-bench" --shapes 8192 --dists phi=0.1,phi=1,phi=4 --schemes '' \
    --fp64-schemes fp64,int8-ozaki,int8-crt:14,int8-crt:16,int8-crt:18,int8-crt --warmup 1 --repeat 5 --explain \
    --csv "$OUT/crt_bench.csv" > "$OUT/crt_bench.txt" 2> "$OUT/crt_bench.err"
  echo "tcemu-bench exit $?"
  cat "$OUT/crt_bench.txt"
  stamp "bench done"
}

device_info
for job in "$@"; do "$job" || echo "job $job failed"; done
