#!/usr/bin/env bash
# hplai in steady state, an older tree against this one in one call on one GPU, with the factorisation
# split into its phases (docs/benchmarks.md, "The final tree of session 14": the emulated
# factorisations 3-5 % slower than 46106cb's, cause open). Builds only hplai of both trees (the old
# with the copy of Debian's Serial Kokkos as it always was, this tree with the CUDA-enabled Kokkos
# when .deps/kokkos-cuda is carried), then runs them interleaved (old, new, old, new), each run
# `hplai --n N --nb 1024 --scheme SCHEMES --repeat 3 --device cuda --json` (the median of three
# factorisations per scheme, so that the first emulated scheme's start-up is not in it), and prints
# per scheme: time, factor, panel, update (the trailing-update GEMMs), other (factor - panel - update:
# the conversion of A, the block-row solves, the pivot check) and refine ms. With NCU_N set, both
# trees then run `hplai --n NCU_N --nb 1024 --scheme bf16` once under Nsight Compute (one metric,
# gpu__time_duration) and the GPU time of every kernel name is summed and printed old against new
# (scripts/device/ncu_kernel_sums.py), largest difference first.
# Usage (repository root, on the GPU machine): OUT=/dir scripts/device/hplai_phases.sh OLD_SOURCE_DIR
# Knobs: N [49152], SCHEMES [bf16,fp16x2], ROUNDS [2], NCU_N [unset: no Nsight Compute runs], EXTRA [a
# third source tree, built like this one and run after it in every round as "extra"]. Needs .deps/kokkos, .deps/cli11,
# .deps/nlohmann-json (and .deps/kokkos-cuda for this tree's GPU path).
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=$1
N=${N:-49152}
SCHEMES=${SCHEMES:-bf16,fp16x2}
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
build_versions hp hplai "$OLD" || exit 1
device_info
phases() {  # JSON report -> one line per scheme
  json_rows "$1" '"  %-8s time %8.1f  factor %8.1f  panel %7.1f  update %8.1f  other %6.1f  refine %6.1f  %s" % (r["scheme"], r["time_ms"], r["factor_ms"], r["panel_ms"], r["update_ms"], r["factor_ms"] - r["panel_ms"] - r["update_ms"], r["refine_ms"], "PASS" if r["pass"] else "FAIL")'
}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in $VERSIONS; do
    stamp "round $round: $v"
    timeout 120 /tmp/hp-$v/apps/hplai/hplai --n "$N" --nb 1024 --scheme "$SCHEMES" --repeat 3 --device cuda --json \
        > "$OUT/hplai_${v}_$round.json" 2> "$OUT/hplai_${v}_$round.err"
    phases "$OUT/hplai_${v}_$round.json"
  done
done
if [ -n "${NCU_N:-}" ]; then
  for v in old new; do
    stamp "ncu: $v, n = $NCU_N"
    timeout 240 ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
        --log-file "$OUT/ncu_$v.csv" /tmp/hp-$v/apps/hplai/hplai --n "$NCU_N" --nb 1024 --scheme bf16 \
        --device cuda -q > "$OUT/ncu_${v}_stdout.txt" 2>&1 || tail -5 "$OUT/ncu_${v}_stdout.txt"
  done
  python3 "$(dirname "$0")/ncu_kernel_sums.py" "$OUT/ncu_old.csv" "$OUT/ncu_new.csv"
fi
rm -f "$OUT"/hp-*.log
stamp done
