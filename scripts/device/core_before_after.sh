#!/usr/bin/env bash
# tcemu-bench of an older tree against a newer one in one call on one GPU: the same command on both
# builds, runs interleaved (old, new, old, new) so that clock drift does not decide the sign, then
# --auto-grid on both (auto judged by its own call time). CSVs and logs under $OUT.
# Usage (repository root, on the GPU machine):
#   OUT=/dir scripts/device/core_before_after.sh OLD_SOURCE_DIR [NEW_SOURCE_DIR (default: this tree)]
# Make OLD_SOURCE_DIR with `git archive REV | tar -x -C .deps/old` and carry it. Needs .deps/kokkos and
# .deps/cli11 (scripts/device/prepare_deps.sh). ROUNDS (default 2), GRID=0 skips the auto grid, SHAPES
# (default 8192,knn,kmeans) and DISTS (default uniform) pass to tcemu-bench. TESTS=FILTER also builds
# the new tree's test_core (googletest from the carried .deps/googletest) and runs
# `test_core --gtest_filter=FILTER` before the timed rounds (log tests.log).
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=$1
NEW=${2:-$ROOT}
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
stamp "build tcemu-bench, old and new"
tree_build "$OLD" /tmp/cba-old "$SERIAL_KOKKOS" 8 tcemu-bench &
tree_build "$NEW" /tmp/cba-new "$SERIAL_KOKKOS" 8 tcemu-bench &
wait
ls /tmp/cba-old/core/tcemu-bench /tmp/cba-new/core/tcemu-bench || { tail -20 "$OUT"/cba-*.log; exit 1; }
if [ -n "${TESTS:-}" ]; then
  carried_deps_args
  stamp "test_core of the new tree, then --gtest_filter=$TESTS"
  cmake -S "$NEW" -B /tmp/cba-new -DTCEMU_BUILD_TESTS=ON "${DEPS_ARGS[@]}" >> "$OUT/cba-new.log" 2>&1 &&
    cmake --build /tmp/cba-new -j"$JOBS" --target test_core >> "$OUT/cba-new.log" 2>&1 ||
    { grep -E "error" -A3 "$OUT/cba-new.log" | head -30; }
  /tmp/cba-new/tests/test_core --gtest_filter="$TESTS" > "$OUT/tests.log" 2>&1
  echo "test_core exit $?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|Expected|Which is" "$OUT/tests.log" | head -30
fi
device_info
# Both trees' auto use the anchors here (no calibration inside a timed comparison); the grid below
# measures each tree's own model.
export TCEMU_AUTO_CALIBRATE=0
SCHEMES=${SCHEMES:-fp32,fp16x2,fp16x2-markidis,fp16x2-egemm,fp16x2-legemm,fp16x2-aligned,tf32x2,tf32x2-aligned,bf16x3,bf16x3-aligned,bf16x9,int8-mixpert,int8-ozaki,auto}
FP64_SCHEMES=${FP64_SCHEMES:-fp64,int8-ozaki,auto}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in old new; do
    stamp "round $round: $v"
    /tmp/cba-$v/core/tcemu-bench --shapes "${SHAPES:-8192,knn,kmeans}" --dists "${DISTS:-uniform}" --schemes "$SCHEMES" \
        --fp64-schemes "$FP64_SCHEMES" --repeat 10 --csv "$OUT/bench_${v}_$round.csv" \
        > "$OUT/bench_${v}_$round.txt" 2>&1
    echo "exit $?"
  done
done
if [ "${GRID:-1}" != 0 ]; then
  unset TCEMU_AUTO_CALIBRATE
  for v in old new; do
    stamp "auto grid: $v (its own measured cost model)"
    XDG_CACHE_HOME="/tmp/cba-cache-$v" /tmp/cba-$v/core/tcemu-bench --auto-grid --repeat 5 \
        --csv "$OUT/auto_grid_$v.csv" > "$OUT/auto_grid_$v.txt" 2> "$OUT/auto_grid_$v.err"
    echo "exit $?"; grep "auto-grid:" "$OUT/auto_grid_$v.txt"
  done
fi
stamp done
