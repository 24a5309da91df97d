#!/usr/bin/env bash
# qsim and hplai on one process, an older tree against this one in one call (a refactor must not slow
# them down): builds qsim and hplai of both trees with CUDA, then runs each job ROUNDS times,
# old and new interleaved, and leaves the outputs under $OUT.
#   OLD: the older tree's source (e.g. `git archive <rev> | tar x -C .deps/before`, carried)
#   QSIM_QUBITS (default 30), HPLAI_N (default 16384), ROUNDS (default 2)
# Usage (repository root): OUT=/dir OLD=.deps/before scripts/device/apps_before_after.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=${OLD:?set OLD to the older tree}
carried_deps_args
for side in old new; do
  src=$ROOT; [ $side = old ] && src=$(cd "$OLD" && pwd)
  stamp "build $side ($src)"
  cmake -S "$src" -B /tmp/ba_$side -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        -DKokkos_ROOT=$ROOT/.deps/kokkos-cuda "${DEPS_ARGS[@]}" > "$OUT/build_$side.log" 2>&1 &&
    cmake --build /tmp/ba_$side -j"$JOBS" --target qsim hplai >> "$OUT/build_$side.log" 2>&1 ||
    { grep -E "error" "$OUT/build_$side.log" | head -20; exit 1; }
done
n=${QSIM_QUBITS:-30}
for round in $(seq ${ROUNDS:-2}); do
  for side in old new; do
    stamp "round $round, $side: qsim $n qubits, hplai n = ${HPLAI_N:-16384}"
    /tmp/ba_$side/apps/qsim/qsim --generate brickwork:n=$n,depth=20,seed=1 --fuse 6 --device cuda -q \
        --scheme fp32,fp16x2 > "$OUT/qsim_${side}_$round.txt" 2>&1
    /tmp/ba_$side/apps/hplai/hplai --n ${HPLAI_N:-16384} --nb 512 --device cuda -q --scheme fp16x2,bf16 \
        > "$OUT/hplai_${side}_$round.txt" 2>&1
    grep -hE "^(fp64|fp32|fp16x2|bf16) " "$OUT/qsim_${side}_$round.txt" "$OUT/hplai_${side}_$round.txt"
  done
done
