#!/usr/bin/env bash
# qsim's simulation step on Kokkos (issue 20, docs/qsim.md "One source on Kokkos"): on a lent GPU,
# builds this tree with the carried CUDA-enabled Kokkos (.deps/kokkos-cuda), runs the qsim suites of
# test_apps, then times the 30-qubit brickwork (depth 20, --fuse 6; fp32 and fp16x2-aligned) of an
# older qsim binary ($OLD_QSIM, built with the same Kokkos) and of this tree interleaved (old, new,
# old: run_one below), and this tree's fp32 with the Kokkos tiled permutation (TCEMU_QSIM_PERMUTE=kokkos)
# against the default hand-written one. (The measurement of docs/qsim.md "One source on Kokkos" ran
# this script at commit 6ac6832, when the Kokkos kernel was the default and the runs named "newhand"
# set TCEMU_QSIM_PERMUTE=cuda.)
# Usage (repository root): OUT=/dir OLD_QSIM=/path/to/old/qsim scripts/device/qsim_kokkos.sh
# (NEW_QSIM=/path/to/new/qsim: time that binary of this tree instead of building; no tests then)
# Needs .deps/kokkos-cuda, .deps/googletest, .deps/cli11, .deps/nlohmann-json, .deps/circuits.
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-/tmp/b-qsim-kokkos}
OLD_QSIM=${OLD_QSIM:?OLD_QSIM: the older qsim binary}
QUBITS=${QUBITS:-30}
if [ ! -d "$ROOT/../shared/circuits" ] && [ -d "$ROOT/.deps/circuits" ]; then
  mkdir -p "$ROOT/../shared" && ln -sfn "$ROOT/.deps/circuits" "$ROOT/../shared/circuits"
fi
NEW="${NEW_QSIM:-$BUILD/apps/qsim/qsim}"
if [ -z "${NEW_QSIM:-}" ]; then  # NEW_QSIM: a binary of this tree built elsewhere; then no build, no tests
carried_deps_args
stamp "configure (Kokkos_ROOT=.deps/kokkos-cuda)"
cmake -S . -B "$BUILD" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a -DKokkos_ROOT="$ROOT/.deps/kokkos-cuda" \
      "${DEPS_ARGS[@]}" > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
stamp "build qsim test_apps (-j$JOBS)"
cmake --build "$BUILD" -j"$JOBS" --target qsim test_apps >> "$OUT/build.log" 2>&1 ||
  { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
stamp "test_apps --gtest_filter=Qsim*"
export TCEMU_BUILD_DIR="$BUILD" TCEMU_SOURCE_DIR="$ROOT"
"$BUILD/tests/test_apps" --gtest_filter='Qsim*' > "$OUT/test_apps_qsim.log" 2>&1
echo "test_apps exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/test_apps_qsim.log" | tr '\n' ' ')"
grep -E "^\[  FAILED|Failure" -A4 "$OUT/test_apps_qsim.log" | head -30
grep -E "^\[       OK \] Qsim(Engine|Gpu)" "$OUT/test_apps_qsim.log"
fi
device_info

# One JSON run -> "scheme time_ms permute_ms perms in_place 1-F" lines.
summary() {
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
for r in j["results"]:
    print("  %-16s time_ms %9.1f  permute_ms %8.1f  perms %3d  in_place %3d  1-F %.2e" % (r["scheme"], r["time_ms"],
          r["permute_ms"], r["permutations"], r["in_place_blocks"], r["infidelity"]))
' "$1" || tail -3 "$1"
}
export XDG_CACHE_HOME=/tmp/qsim-kokkos-cache  # one GPU cost model for both binaries (the same core)
CIRCUIT="brickwork:n=$QUBITS,depth=20,seed=1"
stamp "warm-up (cost model, clocks): 24 qubits"
"$NEW" --generate brickwork:n=24,depth=20,seed=1 --fuse 6 --device cuda -q --scheme fp32 > /dev/null 2>&1
# Interleaved: old, new, newkokkos (round 1), then new, old, newkokkos (round 2); each run is skipped once the call has
# used BUDGET seconds (default 240), so that a lent call's time limit never cuts a run in half.
run_one() {  # tag, binary, schemes, [env assignment]
  if [ $(( $(date +%s) - t0 )) -gt "${BUDGET:-240}" ]; then stamp "budget reached: $1 skipped"; return; fi
  stamp "$1: qsim --generate $CIRCUIT --fuse 6 --device cuda --scheme $3 ${4:-}"
  env ${4:-} timeout 100 "$2" --generate "$CIRCUIT" --fuse 6 --device cuda -q --json --scheme "$3" \
      > "$OUT/qsim${QUBITS}_$1.json" 2> "$OUT/qsim${QUBITS}_$1.err"
  summary "$OUT/qsim${QUBITS}_$1.json"
}
run_one old_1 "$OLD_QSIM" fp32,fp16x2-aligned
run_one new_1 "$NEW" fp32,fp16x2-aligned
run_one newkokkos_1 "$NEW" fp32 TCEMU_QSIM_PERMUTE=kokkos
run_one new_2 "$NEW" fp32,fp16x2-aligned
run_one old_2 "$OLD_QSIM" fp32,fp16x2-aligned
run_one newkokkos_2 "$NEW" fp32 TCEMU_QSIM_PERMUTE=kokkos
stamp "memory limit: 31 qubits on this GPU"
"$NEW" --generate brickwork:n=31,depth=20,seed=1 --fuse 6 --device cuda -q --scheme fp32 2>&1 | tail -2; echo "exit ${PIPESTATUS[0]}"
stamp done
