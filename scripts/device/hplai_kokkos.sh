#!/usr/bin/env bash
# hplai written once over Kokkos (issue 20) on a lent GPU machine, in one call: builds this tree with
# the carried CUDA-enabled Kokkos (.deps/kokkos-cuda), runs the hplai tests, then times the previous
# two-source hplai against this one, interleaved (old, new, old, new), then builds and runs the hplai
# test suites (timings first: a call cut short by its time limit still brings them back).
#   OLD_HPLAI: a copy of the previous apps/hplai (e.g. `git archive main apps/hplai`); it is built
#              as the extra app `hplai_old` against this tree's core and apps/common, which it
#              shares with main (core and apps/common are unchanged by the hplai rewrite), so one
#              core build serves both. The copy is made in this checkout only.
#   HPLAI_N [49152], HPLAI_SCHEMES [bf16] (the fp64 baseline row always runs), BUILD [/tmp/b-hplaikk].
# Usage (repository root): OUT=/dir OLD_HPLAI=../old/apps/hplai scripts/device/hplai_kokkos.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-/tmp/b-hplaikk}
N=${HPLAI_N:-49152}
SCHEMES=${HPLAI_SCHEMES:-bf16}
targets=(hplai)
if [ -n "${OLD_HPLAI:-}" ]; then
  rm -rf apps/hplai_old && cp -r "$OLD_HPLAI" apps/hplai_old
  sed -i 's/tcemu_add_app(hplai /tcemu_add_app(hplai_old /; s/hplai_lib/hplai_old_lib/g' apps/hplai_old/CMakeLists.txt
  grep -q "hplai_old" apps/CMakeLists.txt || echo "add_subdirectory(hplai_old)" >> apps/CMakeLists.txt
  targets+=(hplai_old)
fi
carried_deps_args
stamp "configure + build ${targets[*]} (Kokkos_ROOT=.deps/kokkos-cuda, sm_90a, -j$JOBS)"
cmake -S . -B "$BUILD" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a -DKokkos_ROOT="$ROOT/.deps/kokkos-cuda" \
      "${DEPS_ARGS[@]}" > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
cmake --build "$BUILD" -j"$JOBS" --target "${targets[@]}" -- -k >> "$OUT/build.log" 2>&1 ||
  { grep -E "error" -A3 "$OUT/build.log" | head -60; }
device_info

summary() {  # version round file: one line per row
  python3 - "$@" <<'EOF'
import json, sys
v, rnd, path = sys.argv[1:4]
try:
    j = json.load(open(path))
except Exception as e:
    print(f"{v} round {rnd}: no JSON ({e})"); sys.exit()
for r in j["results"]:
    print(f"{v:3} round {rnd} {r['scheme']:6} time_ms {r['time_ms']:9.1f} factor_ms {r['factor_ms']:9.1f} "
          f"refine_ms {r['refine_ms']:7.1f} it {r['iterations']} scaled_res {r['scaled_residual']:.3g} "
          f"{'PASS' if r['pass'] else 'FAIL'} used {r['used']}")
EOF
}
for round in 1 2; do
  for v in old new; do
    bin="$BUILD/apps/hplai/hplai"
    [ "$v" = old ] && bin="$BUILD/apps/hplai_old/hplai_old"
    [ -x "$bin" ] || { echo "$v: no binary"; continue; }
    stamp "$v round $round: hplai --n $N --nb 1024 --scheme $SCHEMES --device cuda -q --json"
    timeout "${RUN_TIMEOUT:-60}" "$bin" --n "$N" --nb 1024 --scheme "$SCHEMES" --device cuda -q --json \
      > "$OUT/hplai_${v}_$round.json" 2> "$OUT/hplai_${v}_$round.err"
    echo "exit $?"; tail -2 "$OUT/hplai_${v}_$round.err"
    summary "$v" "$round" "$OUT/hplai_${v}_$round.json" | tee -a "$OUT/hplai_summary.txt"
  done
done
stamp "build test_apps"
cmake --build "$BUILD" -j"$JOBS" --target test_apps -- -k >> "$OUT/build.log" 2>&1 ||
  { grep -E "error" -A3 "$OUT/build.log" | head -60; }
stamp "hplai tests (test_apps)"
export TCEMU_BUILD_DIR="$BUILD" TCEMU_SOURCE_DIR="$ROOT"
timeout "${TEST_TIMEOUT:-90}" "$BUILD/tests/test_apps" --gtest_filter='Hplai*:AppReports.*' \
  --gtest_brief=1 > "$OUT/test_apps_hplai.log" 2>&1
echo "test_apps exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/test_apps_hplai.log" | tr '\n' ' ')"
grep -E "FAILED|Failure|Skipped" -A3 "$OUT/test_apps_hplai.log" | head -30

stamp done
