#!/usr/bin/env bash
# knn and kmeans written once (issue 20, docs/benchmarks.md "knn and kmeans from one source"): on a
# lent GPU, in one call, builds this tree (new) and an older tree (old: the host + CUDA sources) with
# the same CUDA-enabled Kokkos (.deps/kokkos-cuda), runs the new tree's knn / kmeans and
# nearest-neighbour tests, then times knn (the 10,000 Fashion-MNIST queries, k = 10) and kmeans
# (700,000 x 784, k = 1024, 20 iterations) interleaved old / new on the same GPU.
# Usage (repository root): OUT=/dir OLD=/older/source/tree scripts/device/one_source_gpu.sh
# Needs .deps/kokkos-cuda, .deps/fashion-mnist, and .deps/googletest, .deps/cli11, .deps/nlohmann-json
# where the image lacks them. `auto` keeps the H200 anchors (TCEMU_AUTO_CALIBRATE=0) in both trees, so
# no calibration runs. Steps that would not end within BUDGET_S seconds (default 280) are skipped and
# say so. Logs: $OUT/one_source.tgz, refreshed after every step.
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=${OLD:?OLD=<older source tree>}
BUDGET_S=${BUDGET_S:-280}
LOGS=/tmp/one-source-logs
mkdir -p "$LOGS"
export TCEMU_AUTO_CALIBRATE=0
elapsed() { echo $(( $(date +%s) - t0 )); }
pack() { tar czf "$OUT/one_source.tgz" -C "$LOGS" . 2>/dev/null; }
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
build() {  # name source-dir extra-cmake-arg targets...
  local name=$1 src=$2 extra=$3
  shift 3
  cmake "${gen[@]}" -S "$src" -B "/tmp/os-$name" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        -DKokkos_ROOT="$ROOT/.deps/kokkos-cuda" "${DEPS_ARGS[@]}" $extra > "$LOGS/build_$name.log" 2>&1 &&
    cmake --build "/tmp/os-$name" -j"$JOBS" --target "$@" >> "$LOGS/build_$name.log" 2>&1
  local rc=$?
  echo "build $name: exit $rc at $(elapsed)s"
  [ $rc = 0 ] || grep -E "error" -A3 "$LOGS/build_$name.log" | head -30
}

device_info
ln -sfn "$ROOT/.deps" "$OLD/.deps"  # the old tree finds nlohmann-json and CLI11 there too
DEPS_ARGS=()
[ -e /usr/include/CLI/CLI.hpp ] || DEPS_ARGS+=("-DCLI11_INCLUDE_DIR=$ROOT/.deps/cli11")
stamp "build old (knn, kmeans) and new (knn, kmeans, test_apps, test_core), data"
build old "$OLD" -DTCEMU_BUILD_TESTS=OFF knn kmeans &
( [ -e data/fashion-mnist-784-euclidean.h5 ] && [ -e data/fashion-mnist-kmeans.h5 ] ||
    python3 scripts/prepare_fashion_mnist.py --source-dir .deps/fashion-mnist > "$LOGS/prepare.log" 2>&1 ) &
carried_deps_args  # googletest into /tmp/gtest where the image has none
build new "$ROOT" "" knn kmeans test_apps test_core
wait
pack

export TCEMU_BUILD_DIR=/tmp/os-new TCEMU_SOURCE_DIR="$ROOT"
run_tests() {  # suite filter log-name
  "/tmp/os-new/tests/$1" --gtest_filter="$2" --gtest_brief=1 > "$LOGS/$3.log" 2>&1
  echo "$1 $2 exit $? at $(elapsed)s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$LOGS/$3.log" | tr '\n' ' ')"
  grep -E "FAILED|Failure" -A4 "$LOGS/$3.log" | head -20
}
stamp "new tree: the nearest-neighbour tests and knn's and kmeans' in-process tests"
run_tests test_core '*Nearest*' test_core_nearest
run_tests test_apps 'KnnGpu*:KmeansGpu*:Kmeans.*:KnnSearch*:KnnQuality*' test_apps_lib
pack

knn_round() {  # version round
  /tmp/os-$1/apps/knn/knn --input data/fashion-mnist-784-euclidean.h5 --k 10 --scheme fp32,fp16x2 --device cuda \
      --repeat 5 > "$LOGS/knn_$1_$2.txt" 2> "$LOGS/knn_$1_$2.err"
  echo "knn $1 round $2 (exit $?, at $(elapsed)s):"
  grep -vE "^ *$" "$LOGS/knn_$1_$2.txt" | tail -4
}
kmeans_round() {  # version round
  /tmp/os-$1/apps/kmeans/kmeans --input data/fashion-mnist-kmeans.h5 --replicate 10 --noise 1.0 --k 1024 \
      --init random --max-iter 20 --tol 0 --seed 1 --scheme fp16x2 --device cuda -q \
      > "$LOGS/kmeans700k_$1_$2.txt" 2>&1
  echo "kmeans700k $1 round $2 (exit $?, at $(elapsed)s):"
  tail -6 "$LOGS/kmeans700k_$1_$2.txt"
}
stamp "knn, 10,000 queries: old, new, old, new"
for round in 1 2; do
  for v in old new; do knn_round $v $round; done
done
pack
# One kmeans round (old and new) takes about 30-40 s with the data generation; the CLI tests (each
# starts the app) after it, then a second round when it fits.
kmeans_if_time() {  # round
  if [ "$(elapsed)" -gt $((BUDGET_S - 80)) ]; then
    stamp "kmeans round $1 skipped: $(elapsed)s used of $BUDGET_S"
    return 1
  fi
  stamp "kmeans 700,000 x 784, k = 1024: old, new (round $1)"
  for v in old new; do kmeans_round $v "$1"; done
  pack
}
kmeans_if_time 1
if [ "$(elapsed)" -lt $((BUDGET_S - 40)) ]; then
  stamp "new tree: knn's and kmeans' command-line tests"
  run_tests test_apps 'KnnCli*:KmeansCli*' test_apps_cli
  pack
fi
kmeans_if_time 2
stamp done
