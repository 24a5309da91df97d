#!/usr/bin/env bash
# FP64-target comparison in one call on one GPU (issue 21's acceptance table): GEMMul8 (Ozaki scheme
# II, a public snapshot built here, never committed) through the peer driver of ../shared/anchors,
# then tcemu-bench's FP64 table (DGEMM, cuBLAS's FP64 emulation, int8-ozaki, int8-crt, auto) on
# inputs uniform(-0.5,0.5) * exp(phi N(0,1)) at the same phi.
# Usage (repository root, on the GPU machine):
#   OUT=/dir BENCH=build/core/tcemu-bench scripts/device/fp64_peers.sh [N (default 8192)]
# Needs .deps/gemmul8 (a GEMMul8 source snapshot: `git archive HEAD | tar -x -C .deps/gemmul8` of
# UCHINO-Yuki/GEMMul8) and .deps/anchors (a copy of ../shared/anchors); without them the GEMMul8
# part is skipped with a note. FP64_SCHEMES overrides the tcemu schemes timed.
set -uo pipefail
source "$(dirname "$0")/common.sh"
N=${1:-8192}
BENCH=${BENCH:-$ROOT/build/core/tcemu-bench}
if [ -d "$ROOT/.deps/gemmul8" ] && [ -x "$ROOT/.deps/anchors/build_gemmul8_anchor.sh" ]; then
  stamp "build the GEMMul8 anchor (objects it needs only)"
  if bash "$ROOT/.deps/anchors/build_gemmul8_anchor.sh" "$ROOT/.deps/gemmul8" /tmp/gemmul8_anchor \
      > "$OUT/gemmul8_build.log" 2>&1; then
    stamp "GEMMul8 anchor, n = $N"
    /tmp/gemmul8_anchor "$N" 2>&1 | tee "$OUT/gemmul8_anchor.txt"
  else
    echo "GEMMul8 anchor build failed"; tail -5 "$OUT/gemmul8_build.log"
  fi
else
  echo "no .deps/gemmul8 or .deps/anchors: GEMMul8 skipped"
fi
device_info
stamp "tcemu-bench FP64 table, n = $N"
"$BENCH" --shapes "$N" --dists phi=0.1,phi=1,phi=4 --schemes '' \
    --fp64-schemes "${FP64_SCHEMES:-fp64,int8-ozaki,int8-crt,auto}" --repeat 10 --explain \
    --csv "$OUT/fp64_peers.csv" > "$OUT/fp64_peers.txt" 2> "$OUT/fp64_peers.err"
echo "exit $?"; cat "$OUT/fp64_peers.txt"
stamp done
