#!/usr/bin/env bash
# The apps' GPU end-to-end times of an older tree against this one, in one call on one GPU, runs
# interleaved (old, new, old, new) so that clock drift does not decide the sign.
# Usage (repository root, on the GPU machine): OUT=/dir scripts/device/before_after.sh OLD_SOURCE_DIR
# Needs .deps/kokkos, .deps/cli11 and .deps/fashion-mnist (scripts/device/prepare_deps.sh).
# Sizes and schemes (defaults in brackets): KNN_SCHEMES [fp32,fp16x2,tf32x2,bf16x3], KMEANS_SCHEMES [fp16x2], QSIM_QUBITS [28], QSIM_SCHEMES
# [fp32,fp16x2-aligned], HPLAI_N [32768], HPLAI_SCHEMES [bf16,fp16x2], HPLAI_REPEAT [1: hplai's runs per
# scheme, the median reported; 3 keeps the first emulated scheme's start-up out]; issue 19's acceptance uses
# qsim 30 qubits and hplai n = 49152. The old tree builds with the copy of Debian's Serial Kokkos
# (.deps/kokkos, as it always did); the new one with the CUDA-enabled Kokkos when .deps/kokkos-cuda is
# carried (its apps run on Kokkos::Cuda), else with the same Serial Kokkos.
# Across two calls on a warm machine: SKIP_BUILD=1 reuses /tmp/ba-old and /tmp/ba-new (and their
# cost models); ROUNDS (default 2) and FIRST_ROUND (default 1) number the rounds.
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=$1
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  stamp "build old (Debian Kokkos) and new ($NEW_KOKKOS)"
  tree_build "$OLD" /tmp/ba-old "$SERIAL_KOKKOS" 5 knn kmeans qsim hplai &
  tree_build "$ROOT" /tmp/ba-new "$NEW_KOKKOS" 11 knn kmeans qsim hplai &
  wait
fi
ls /tmp/ba-old/apps/*/knn /tmp/ba-new/apps/*/knn || { tail -20 "$OUT"/ba-*.log; exit 1; }
python3 scripts/prepare_fashion_mnist.py --source-dir .deps/fashion-mnist > "$OUT/prepare.log" 2>&1 || tail -3 "$OUT/prepare.log"
device_info
# Each tree's GPU cost model measured once before the timed rounds (trees that have it), so that no
# first-use calibration falls into an app's timing; both trees use the same cache folder per tree.
for v in old new; do
  [ "${SKIP_BUILD:-0}" = 1 ] && [ -d /tmp/ba-cache-$v ] && continue  # measured in the call that built
  if /tmp/ba-$v/apps/knn/knn --help 2>/dev/null | grep -q -- --recalibrate; then
    stamp "calibrate $v"
    XDG_CACHE_HOME=/tmp/ba-cache-$v /tmp/ba-$v/apps/knn/knn --input data/fashion-mnist-784-euclidean.h5 --scheme fp32 \
        --device cuda --recalibrate > "$OUT/calibrate_$v.txt" 2>&1 || tail -3 "$OUT/calibrate_$v.txt"
  fi
done
first=${FIRST_ROUND:-1}
for round in $(seq "$first" $(( first + ${ROUNDS:-2} - 1 ))); do
  for v in old new; do
    B=/tmp/ba-$v/apps
    export XDG_CACHE_HOME=/tmp/ba-cache-$v
    stamp "round $round: $v"
    "$B/knn/knn" --input data/fashion-mnist-784-euclidean.h5 --k 10 --scheme "${KNN_SCHEMES:-fp32,fp16x2,tf32x2,bf16x3}" --device cuda \
        --repeat 3 2>/dev/null | tee "$OUT/knn_${v}_$round.txt" | tail -5
    "$B/kmeans/kmeans" --input data/fashion-mnist-kmeans.h5 --replicate 10 --noise 1.0 --k 1024 --init random \
        --max-iter 20 --tol 0 --seed 1 --scheme "${KMEANS_SCHEMES:-fp16x2}" --device cuda -q 2>&1 |
        tee "$OUT/kmeans_${v}_$round.txt" | tail -6
    "$B/qsim/qsim" --generate "brickwork:n=${QSIM_QUBITS:-28},depth=20,seed=1" --fuse 6 --device cuda -q \
        --scheme "${QSIM_SCHEMES:-fp32,fp16x2-aligned}" 2>&1 | tee "$OUT/qsim_${v}_$round.txt" | tail -6
    "$B/hplai/hplai" --n "${HPLAI_N:-32768}" --nb 1024 --scheme "${HPLAI_SCHEMES:-bf16,fp16x2}" \
        --repeat "${HPLAI_REPEAT:-1}" --device cuda -q 2>&1 |
        tee "$OUT/hplai_${v}_$round.txt" | tail -6
  done
done
stamp done
