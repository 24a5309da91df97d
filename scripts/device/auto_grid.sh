#!/usr/bin/env bash
# Issue 4 (auto's measured cost model) on a lent GPU machine, in one call of a few minutes:
#  1. tcemu-bench --recalibrate --explain: measures the cost model (tcemu/cuda/calibrate.hpp), prints
#     its fits and the plans of auto at a few shapes;
#  2. the cache: a second run must load it (no measuring line), a corrupt cache must be reported in one
#     line and measured again;
#  3. tcemu-bench --auto-grid: the acceptance grid (28 cases), table + CSV.
# Logs, the CSV and the cache file end up under $OUT (the cache directory is $OUT/cache).
#
# Binaries: $PREBUILT/core/tcemu-bench when it runs here (every library resolves; carry the build
# directory's core/tcemu-bench and .deps/kokkos), else a build of the library and the bench only, from
# a private copy (needs .deps/kokkos as scripts/device/gpu_check.sh does).
# Usage (repository root): OUT=/some/dir [PREBUILT=build-helper-auto] scripts/device/auto_grid.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-/tmp/tcemu-build-auto}
PREBUILT=${PREBUILT:-$ROOT/build-helper-auto}

stamp "device"
device_info
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"

B="$PREBUILT/core/tcemu-bench"
if [ -x "$B" ] && ! ldd "$B" | grep -q "not found"; then
  stamp "using prebuilt $B"
else
  [ -x "$B" ] && { echo "prebuilt $B does not run here:"; ldd "$B" | grep "not found"; }
  SRC=/tmp/tcemu-src-auto
  rm -rf "$SRC"; mkdir -p "$SRC/apps"
  cp -a CMakeLists.txt cmake core "$SRC/"
  echo "# apps are not built by scripts/device/auto_grid.sh" > "$SRC/apps/CMakeLists.txt"
  stamp "configure + build tcemu_core, tcemu-bench (sm_90a, -j$JOBS)"
  cmake -S "$SRC" -B "$BUILD" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a -DTCEMU_BUILD_TESTS=OFF \
        -DTCEMU_KOKKOS_ROOT="$ROOT/.deps/kokkos" > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  cmake --build "$BUILD" -j"$JOBS" --target tcemu-bench >> "$OUT/build.log" 2>&1 ||
    { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
  B="$BUILD/core/tcemu-bench"
fi

export XDG_CACHE_HOME="$OUT/cache"
unset TCEMU_AUTO_CALIBRATE
rm -rf "$XDG_CACHE_HOME"

stamp "1. calibration + explain"
"$B" --recalibrate --explain --shapes 1024,4096,knn,1048576x128x128 --dists uniform,phi=1 \
     --schemes fp32,fp16x2,tf32x2,bf16x3,auto --fp64-schemes fp64,int8-ozaki,auto --repeat 5 \
     > "$OUT/calibrate_explain.log" 2> "$OUT/calibrate_explain.err"
echo "exit code $?"
cat "$OUT/calibrate_explain.log"
grep -E "^tcemu:" "$OUT/calibrate_explain.err"
ls -la "$XDG_CACHE_HOME/tcemu" 2>&1

stamp "2a. cached model is loaded (expect no 'measuring' line)"
"$B" --explain --shapes 2048 --dists uniform --schemes auto --fp64-schemes '' --repeat 3 --no-errors \
     > "$OUT/cache_load.log" 2> "$OUT/cache_load.err"
echo "exit code $?; measuring lines: $(grep -c 'measuring' "$OUT/cache_load.err")"
stamp "2b. corrupt cache is reported in one line and measured again"
for f in "$XDG_CACHE_HOME"/tcemu/cost-model-*.txt; do [ -e "$f" ] && head -c 200 "$f" > "$f.cut" && mv "$f.cut" "$f"; done
"$B" --explain --shapes 2048 --dists uniform --schemes auto --fp64-schemes '' --repeat 3 --no-errors \
     > "$OUT/cache_corrupt.log" 2> "$OUT/cache_corrupt.err"
echo "exit code $?"
grep -E "^tcemu:" "$OUT/cache_corrupt.err"

stamp "3. auto grid"
"$B" --auto-grid --explain --csv "$OUT/auto_grid.csv" > "$OUT/auto_grid.log" 2> "$OUT/auto_grid.err"
echo "exit code $?"
cat "$OUT/auto_grid.log"
grep -E "error|tcemu-bench:" "$OUT/auto_grid.err" | head -20
stamp "done"
