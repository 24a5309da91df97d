#!/usr/bin/env bash
# Issue 21 scope 4 (auto choosing among DGEMM, Ozaki I and int8-crt for an FP64 target) on a lent GPU
# machine, in one call; logs, CSVs and the cost model cache under $OUT. Jobs, in the order given:
#   build:     configure (sm_90a, the carried Debian Kokkos as crt_gpu.sh) and build tcemu-bench
#   calibrate: tcemu-bench --recalibrate --explain (cache in $OUT/cache): the fits, int8-crt's per
#              modulus fit and its certificate's, and auto's plan at 8192^3 FP64, phi = 1; then a second
#              process must load the cache (no 'measuring' line)
#   grid:      tcemu-bench --auto-grid --grid-targets fp64 --explain (14 FP64 cases, CSV)
#   fp32row:   tcemu-bench at 8192^3, float data: fp32, fp16x2 and int8-crt with an FP32 target
#   tests:     build test_core, run CudaAutoCrt* AutoCrt* CudaCrt* CostModel*
# Usage (repository root): OUT=/dir scripts/device/crt_auto.sh build calibrate grid fp32row tests
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-$ROOT/build-gpu}
export LD_LIBRARY_PATH="$BUILD/core:$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
export XDG_CACHE_HOME="$OUT/cache"
unset TCEMU_AUTO_CALIBRATE
B="$BUILD/core/tcemu-bench"

configure() {
  carried_deps_args  # googletest and CLI11 from .deps/ where the image has none (common.sh)
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        -DTCEMU_KOKKOS_ROOT="$ROOT/.deps/kokkos" "${DEPS_ARGS[@]}" >> "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; return 1; }
}

build() {
  stamp "configure + build tcemu-bench (-j$JOBS)"
  configure || return 1
  cmake --build "$BUILD" -j"$JOBS" --target tcemu-bench >> "$OUT/build.log" 2>&1 ||
    { grep -E "error" -A3 "$OUT/build.log" | head -60; return 1; }
  stamp "built"
}

calibrate() {
  stamp "calibration + auto's plan at 8192^3 FP64"
  rm -rf "$XDG_CACHE_HOME"
  "$B" --recalibrate --explain --shapes 8192 --dists phi=1 --schemes '' --fp64-schemes int8-crt,auto \
       --warmup 1 --repeat 3 > "$OUT/calibrate.log" 2> "$OUT/calibrate.err"
  echo "exit $?"
  grep -E "^tcemu:" "$OUT/calibrate.err"
  grep -E "int8-crt|fit |fp64 " "$OUT/calibrate.log" | head -40
  grep -E -A30 "^8192 phi=1 auto:" "$OUT/calibrate.err" | grep -E "int8|fp64|pick|certificate" | head -12
  stamp "cache reload (expect no 'measuring' line)"
  "$B" --explain --shapes 1024 --dists uniform --schemes '' --fp64-schemes auto --repeat 2 --no-errors \
       > "$OUT/cache_load.log" 2> "$OUT/cache_load.err"
  echo "exit $?; measuring lines: $(grep -c 'measuring' "$OUT/cache_load.err"); $(ls "$XDG_CACHE_HOME"/tcemu)"
}

grid() {
  stamp "auto grid, FP64 target"
  "$B" --auto-grid --grid-targets fp64 --explain --csv "$OUT/auto_grid_fp64.csv" \
       > "$OUT/auto_grid_fp64.log" 2> "$OUT/auto_grid_fp64.err"
  echo "exit $?"
  tail -17 "$OUT/auto_grid_fp64.log"
  grep -E "certificate:|tcemu-bench:" "$OUT/auto_grid_fp64.err" | head -20
}

fp32row() {
  stamp "FP32-target row at 8192^3"
  "$B" --shapes 8192 --dists uniform,phi=1 --schemes fp32,fp16x2,int8-crt --fp64-schemes '' --warmup 2 --repeat 10 \
       --csv "$OUT/fp32_row.csv" > "$OUT/fp32_row.log" 2> "$OUT/fp32_row.err"
  echo "exit $?"
  cat "$OUT/fp32_row.log"
}

tests() {
  stamp "build test_core"
  configure || return 1
  cmake --build "$BUILD" -j"$JOBS" --target test_core >> "$OUT/build.log" 2>&1 ||
    { grep -E "error" -A3 "$OUT/build.log" | head -60; return 1; }
  stamp "tests"
  TCEMU_AUTO_CALIBRATE=0 "$BUILD/tests/test_core" --gtest_filter='CudaAutoCrt*:AutoCrt*:CudaCrt*:CostModel*' \
    > "$OUT/tests.log" 2>&1
  echo "test_core exit $?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|Failure" "$OUT/tests.log" | head -30
}

device_info
for job in "$@"; do "$job" || echo "job $job failed"; done
stamp "done"
