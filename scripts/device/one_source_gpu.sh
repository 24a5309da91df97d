#!/usr/bin/env bash
# knn and kmeans written once (issue 20, docs/benchmarks.md "knn and kmeans from one source"): on a
# lent GPU, in one call, builds this tree (new) and an older tree (old: the host + CUDA sources) with
# the same CUDA-enabled Kokkos (.deps/kokkos-cuda), runs the new tree's nearest-neighbour, knn and
# kmeans tests, then times kmeans (700,000 x 784, k = 1024, 20 iterations; fp64, fp32 and fp16x2) and
# knn (the 10,000 Fashion-MNIST queries, k = 10; fp32 and fp16x2) interleaved on the same GPU.
# Usage (repository root): OUT=/dir OLD=/older/source/tree scripts/device/one_source_gpu.sh
# Knobs: ORDER ("old new": the order within a round), NEW_TARGETS ("knn kmeans test_apps test_core";
# drop test_core to skip the core tests), PROFILE (1: one more kmeans run of the new tree under
# scripts/device/probes/kokkos_phase_timer.cpp, a per-kernel breakdown, not a timing), BUDGET_S (280:
# steps that would not end in time are skipped and say so).
# Needs .deps/kokkos-cuda, .deps/fashion-mnist, and .deps/googletest, .deps/cli11, .deps/nlohmann-json
# where the image lacks them. `auto` keeps the H200 anchors (TCEMU_AUTO_CALIBRATE=0) in both trees, so
# no calibration runs. Logs: $OUT/one_source.tgz, refreshed after every step.
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=${OLD:?OLD=<older source tree>}
ORDER=${ORDER:-old new}
NEW_TARGETS=${NEW_TARGETS:-knn kmeans test_apps test_core}
PROFILE=${PROFILE:-0}
BUDGET_S=${BUDGET_S:-280}
LOGS=/tmp/one-source-logs
mkdir -p "$LOGS"
export TCEMU_AUTO_CALIBRATE=0
pack() { tar czf "$OUT/one_source.tgz" -C "$LOGS" . 2>/dev/null; }
build() {  # name source-dir extra-cmake-arg targets... (common.sh's kokkos_cuda_build into /tmp/os-name)
  local name=$1 src=$2 extra=$3
  shift 3
  kokkos_cuda_build "$name" "/tmp/os-$name" "$src" "$LOGS/build_$name.log" "$extra" "$@"
}

device_info
ln -sfn "$ROOT/.deps" "$OLD/.deps"  # the old tree finds nlohmann-json and CLI11 there too
DEPS_ARGS=()
[ -e /usr/include/CLI/CLI.hpp ] || DEPS_ARGS+=("-DCLI11_INCLUDE_DIR=$ROOT/.deps/cli11")
stamp "build old (knn, kmeans) and new ($NEW_TARGETS), data"
build old "$OLD" -DTCEMU_BUILD_TESTS=OFF knn kmeans &
( [ -e data/fashion-mnist-784-euclidean.h5 ] && [ -e data/fashion-mnist-kmeans.h5 ] ||
    python3 scripts/prepare_fashion_mnist.py --source-dir .deps/fashion-mnist > "$LOGS/prepare.log" 2>&1 ) &
[ "$PROFILE" = 1 ] && g++ -O2 -shared -fPIC -o /tmp/libkokkos_phase_timer.so scripts/device/probes/kokkos_phase_timer.cpp &
carried_deps_args  # googletest into /tmp/gtest where the image has none
# shellcheck disable=SC2086
build new "$ROOT" "" $NEW_TARGETS
wait
pack

export TCEMU_BUILD_DIR=/tmp/os-new TCEMU_SOURCE_DIR="$ROOT"
run_tests() {  # suite filter log-name
  [ -x "/tmp/os-new/tests/$1" ] || return 0
  "/tmp/os-new/tests/$1" --gtest_filter="$2" --gtest_brief=1 > "$LOGS/$3.log" 2>&1
  echo "$1 $2 exit $? at $(elapsed)s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$LOGS/$3.log" | tr '\n' ' ')"
  grep -E "FAILED|Failure" -A4 "$LOGS/$3.log" | head -20
}
stamp "new tree: the nearest-neighbour tests and knn's and kmeans' in-process tests"
run_tests test_core '*Nearest*' test_core_nearest
run_tests test_apps 'KnnGpu*:KmeansGpu*:Kmeans.*:KnnSearch*:KnnQuality*' test_apps_lib
pack

knn_run() {  # version round
  /tmp/os-$1/apps/knn/knn --input data/fashion-mnist-784-euclidean.h5 --k 10 --scheme fp32,fp16x2 --device cuda \
      --repeat 5 > "$LOGS/knn_$1_$2.txt" 2> "$LOGS/knn_$1_$2.err"
  echo "knn $1 round $2 (exit $?, at $(elapsed)s):"
  grep -vE "^ *$" "$LOGS/knn_$1_$2.txt" | tail -3
}
kmeans_run() {  # version round [environment...]
  local v=$1 round=$2
  shift 2
  env "$@" /tmp/os-$v/apps/kmeans/kmeans --input data/fashion-mnist-kmeans.h5 --replicate 10 --noise 1.0 --k 1024 \
      --init random --max-iter 20 --tol 0 --seed 1 --scheme fp16x2 --device cuda -q \
      > "$LOGS/kmeans700k_${v}_$round.txt" 2>&1
  echo "kmeans700k $v round $round (exit $?, at $(elapsed)s):"
  grep -vE "^kokkos_phase_timer" "$LOGS/kmeans700k_${v}_$round.txt" | tail -4
}
# A kmeans run takes about 26 s (most of it making the 700,000 points), a knn run about 2 s.
timed_round() {  # app round seconds-needed
  fits "$3" "$1 round $2" || return 0
  stamp "$1 round $2: $ORDER"
  for v in $ORDER; do "$1_run" $v "$2"; done
  pack
}
timed_round kmeans 1 60
timed_round knn 1 10
if [ "$PROFILE" = 1 ] && fits 30 "kmeans profile"; then
  stamp "kmeans, new tree, per-kernel breakdown (Kokkos fenced around every kernel: not a timing)"
  kmeans_run new profile KOKKOS_TOOLS_LIBS=/tmp/libkokkos_phase_timer.so
  grep -E "^kokkos_phase_timer" "$LOGS/kmeans700k_new_profile.txt" | head -24
  pack
fi
timed_round kmeans 2 55
timed_round knn 2 10
stamp done
