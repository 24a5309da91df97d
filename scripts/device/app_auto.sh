#!/usr/bin/env bash
# Issue 20, scope 6 on one GPU in one call: each app's `auto` against the schemes that meet the app's
# target, on the acceptance runs (docs/benchmarks.md "Each app's auto"). Builds only the apps and
# test_apps (CUDA Kokkos from .deps/kokkos-cuda when carried), runs the auto tests, then per app the
# candidates and auto, each log under $OUT. Jobs start only while $BUDGET_S seconds (default 280) of
# the call are left for them, so that what finished comes back.
# Usage (repository root): OUT=/dir BUILD=/tmp/b scripts/device/app_auto.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-/tmp/b-appauto}
BUDGET_S=${BUDGET_S:-280}
export LD_LIBRARY_PATH="$BUILD/core:$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
left() { echo $(( BUDGET_S - ($(date +%s) - t0) )); }
job() {  # job NAME SECONDS CMD...: runs CMD under timeout when enough time is left, output to $OUT/NAME.txt
  local name=$1 need=$2; shift 2
  if [ "$(left)" -lt "$need" ]; then stamp "skip $name: $(left) s left, needs $need"; return; fi
  stamp "$name: $*"
  timeout "$(left)" "$@" > "$OUT/$name.txt" 2> "$OUT/$name.err"; echo "exit $?"
  cat "$OUT/$name.txt"; grep -vE "block [0-9]+/[0-9]+|panel [0-9]+/|batch [0-9]+/" "$OUT/$name.err" | head -60
}

device_info
carried_deps_args
kokkos_arg="-DTCEMU_KOKKOS_ROOT=$ROOT/.deps/kokkos"
[ -d "$ROOT/.deps/kokkos-cuda" ] && kokkos_arg="-DKokkos_ROOT=$ROOT/.deps/kokkos-cuda"
# SKIP_BUILD=1 with the binaries already in $BUILD (a warm machine, the same commit): no configure,
# no make (a carried tree has new timestamps, which would rebuild everything), no tests.
if [ "${SKIP_BUILD:-0}" = 1 ] && [ -x "$BUILD/apps/qsim/qsim" ]; then
  stamp "SKIP_BUILD=1: the binaries of $BUILD"
else
  stamp "configure + build qsim hplai knn kmeans test_apps ($kokkos_arg)"
  cmake -S . -B "$BUILD" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
        "$kokkos_arg" "${DEPS_ARGS[@]}" > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  cmake --build "$BUILD" -j"$JOBS" --target qsim hplai knn kmeans test_apps -- -k >> "$OUT/build.log" 2>&1 ||
    { grep -E "error" -A3 "$OUT/build.log" | head -60; }
  stamp "tests: *Auto* (CPU and GPU build of the decision functions)"
  TCEMU_BUILD_DIR="$BUILD" TCEMU_SOURCE_DIR="$ROOT" TCEMU_AUTO_CALIBRATE=0 \
    "$BUILD/tests/test_apps" --gtest_brief=1 --gtest_filter='*Auto*' > "$OUT/test_auto.log" 2>&1
  echo "test_apps *Auto* exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/test_auto.log" | tr '\n' ' ')"
fi

# qsim: 30 qubits, --fuse 6; auto's explanation goes to stderr (no -q).
job qsim30_d6 60 "$BUILD/apps/qsim/qsim" --generate brickwork:n=30,depth=20,seed=1 --fuse 6 --device cuda \
    --scheme fp32,fp16x2-aligned,auto
# hplai: n = 49152, nb = 1024, the FP32-storage candidates auto orders first, and auto.
job hplai49152 70 "$BUILD/apps/hplai/hplai" --n 49152 --nb 1024 --device cuda --scheme bf16,fp16,tf32,fp16x2,auto
# knn: the 10,000 Fashion-MNIST test queries.
if [ ! -e data/fashion-mnist-784-euclidean.h5 ] || [ ! -e data/fashion-mnist-kmeans.h5 ]; then
  stamp "Fashion-MNIST -> HDF5"
  python3 scripts/prepare_fashion_mnist.py --source-dir .deps/fashion-mnist > "$OUT/prepare.log" 2>&1 || tail -5 "$OUT/prepare.log"
fi
job knn 30 "$BUILD/apps/knn/knn" --input data/fashion-mnist-784-euclidean.h5 --k 10 --device cuda --repeat 5 \
    --scheme fp32,fp16x2,tf32x2,bf16x3,auto --explain
# kmeans: 700,000 x 784, k = 1024, 20 iterations.
job kmeans700k 40 "$BUILD/apps/kmeans/kmeans" --input data/fashion-mnist-kmeans.h5 --replicate 10 --noise 1.0 --k 1024 \
    --init random --seed 1 --max-iter 20 --tol 0 --scheme fp32,fp16x2,tf32x2,bf16x3,auto --device cuda
# Second rounds, when time is left: auto and the fastest candidate again, in the other order.
job qsim30_d6_round2 40 "$BUILD/apps/qsim/qsim" --generate brickwork:n=30,depth=20,seed=1 --fuse 6 --device cuda -q \
    --scheme auto,fp16x2-aligned
job knn_round2 20 "$BUILD/apps/knn/knn" --input data/fashion-mnist-784-euclidean.h5 --k 10 --device cuda --repeat 5 \
    --scheme auto,fp16x2
stamp "done"
# One archive: a call returns a limited number of files from $OUT.
cd "$OUT" && tar czf app_auto.tgz ./*.txt ./*.err ./*.log 2>/dev/null && rm -f ./*.txt ./*.err ./*.log
