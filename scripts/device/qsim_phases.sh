#!/usr/bin/env bash
# qsim's GPU time split into GEMMs and permutations, an older tree against this one (and optionally a
# third) in one call on one GPU, runs interleaved per round: `qsim --generate
# brickwork:n=QUBITS,depth=20,seed=1 --fuse 6 --scheme SCHEMES --device cuda -q --json`, printed per
# scheme as time, gemm and permute ms (and the permutation count) from each tree's JSON report.
# Usage (repository root, on the GPU machine): OUT=/dir scripts/device/qsim_phases.sh OLD_SOURCE_DIR
# Knobs: QUBITS [30], SCHEMES [fp64,fp32], ROUNDS [2], EXTRA [a third source tree, run as "extra"].
# Needs .deps/kokkos, .deps/cli11, .deps/nlohmann-json (and .deps/kokkos-cuda for this tree's GPU path).
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=$1
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
build_versions qs qsim "$OLD" || exit 1
device_info
phases() {  # JSON report -> one line per scheme
  json_rows "$1" '"  %-16s time %8.1f  gemm %8.1f  permute %7.1f  (%d permutations)" % (r["scheme"], r["time_ms"], r["gemm_ms"], r["permute_ms"], r["permutations"])'
}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in $VERSIONS; do
    stamp "round $round: $v"
    timeout 120 /tmp/qs-$v/apps/qsim/qsim --generate "brickwork:n=${QUBITS:-30},depth=20,seed=1" --fuse 6 \
        --scheme "${SCHEMES:-fp64,fp32}" --device cuda -q --json > "$OUT/qsim_${v}_$round.json" 2> "$OUT/qsim_${v}_$round.err"
    phases "$OUT/qsim_${v}_$round.json"
  done
done
rm -f "$OUT"/qs-*.log
stamp done
