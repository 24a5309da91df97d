#!/usr/bin/env bash
# Issue 21's acceptance in one call on one GPU (docs/benchmarks.md "Issue 21's acceptance"): builds this
# tree (test_core, tcemu-bench, qsim) and, in parallel, the GEMMul8 comparison driver of ../shared/anchors
# (a public GEMMul8 snapshot in .deps/gemmul8, never committed), then runs the jobs in the order given:
#   tests    test_core --gtest_filter=$TESTS (default 'CudaCrt*': the GPU's; the host's run in CI)
#   fp64     tcemu-bench's FP64 table at 8192^3, phi = 0.1, 1, 4: DGEMM, cuBLAS's FP64 emulation and
#            $FP64_SCHEMES (median of --repeat 20; median and largest relative error of 4,096 samples)
#   gemmul8  the GEMMul8 driver's sweep (DGEMM, cuBLAS's emulation, GEMMul8 fast and accurate, 12-18
#            moduli, at phi = 0.1, 1, 4; max and median relative error of 200 samples)
#   complex  tcemu-bench at complex 4096^3: ZGEMM and $COMPLEX_SCHEMES, phi = 0.1, 1, 4
#   fp32     the FP32 target: SGEMM, fp16x2 and $FP32_SCHEMES at 8192^3 on float data
#   qsim     qsim --generate brickwork:n=$QSIM_QUBITS,depth=20,seed=1 --fuse 9 --scheme int8-crt:15
#            --target fp64 --device cuda (native complex128 first in the same process)
#   auto_grid tcemu-bench --auto-grid --grid-targets fp64 (calibrated in the call)
# The timed jobs start after the GPU has idled $COOLDOWN_S seconds (default 20): sustained INT8 and
# FP64 work runs at the H200's 700 W power cap, where the clock depends on the temperature, so each
# method starts from the same idle state instead of inheriting the heat of the one before.
# nvidia-smi samples the SM clock, power, temperature and throttle reasons every 200 ms for the whole
# call (telemetry.csv; marks.txt says which job ran when). Steps that would pass BUDGET_S seconds
# (default 570) are skipped. Everything under $OUT ends in one archive, acceptance.tgz.
# Usage (repository root, on the GPU machine; carry .deps/kokkos-cuda .deps/googletest .deps/cli11
# .deps/nlohmann-json .deps/gemmul8 .deps/anchors):
#   OUT=/dir bash scripts/device/crt_acceptance.sh [jobs...]
set -uo pipefail
source "$(dirname "$0")/common.sh"
JOBS_LIST=("$@")
[ ${#JOBS_LIST[@]} -gt 0 ] || JOBS_LIST=(tests fp64 gemmul8 complex fp32 qsim auto_grid)
for job in "${JOBS_LIST[@]}"; do  # before anything is built: a misspelt job is one line and exit 2
  case $job in tests|fp64|gemmul8|complex|fp32|qsim|auto_grid) ;;
    *) echo "crt_acceptance.sh: unknown job '$job' (want tests fp64 gemmul8 complex fp32 qsim auto_grid)" >&2; exit 2 ;;
  esac
done
BUDGET_S=${BUDGET_S:-570}
COOLDOWN_S=${COOLDOWN_S:-20}
TESTS=${TESTS:-'CudaCrt*'}
FP64_SCHEMES=${FP64_SCHEMES:-fp64,int8-crt:15,int8-crt:14,int8-crt:16,int8-crt:17,int8-crt:18,int8-ozaki,int8-crt,auto}
COMPLEX_SCHEMES=${COMPLEX_SCHEMES:-fp64,int8-crt:15,int8-crt:16,int8-crt:17,int8-crt}
FP32_SCHEMES=${FP32_SCHEMES:-fp32,fp16x2,int8-crt:7,int8-crt:8,int8-crt}
QSIM_QUBITS=${QSIM_QUBITS:-30}
B=/tmp/acc-build G8BIN=/tmp/gemmul8_anchor
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos-cuda/lib:${LD_LIBRARY_PATH:-}"
export XDG_CACHE_HOME="$OUT/cache"  # auto's calibration: measured once in the call, shared by fp64 and auto_grid

q=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active
nvidia-smi --query-gpu=$q --format=csv -c 1 > /dev/null 2>&1 || q=${q/clocks_event_reasons/clocks_throttle_reasons}
nvidia-smi --query-gpu=$q --format=csv -lms 200 > "$OUT/telemetry.csv" 2>&1 &
SMI=$!
mark() { echo "$(date +%H:%M:%S.%N) $*" >> "$OUT/marks.txt"; stamp "$*"; }
cooldown() { mark "idle ${COOLDOWN_S}s before $1"; sleep "$COOLDOWN_S"; device_info | tail -1; }

carried_deps_args
mark "build this tree (test_core, tcemu-bench, qsim) and the GEMMul8 driver in parallel"
JOBS=14 kokkos_cuda_build new "$B" "$ROOT" "$OUT/build.log" "" test_core tcemu-bench qsim &
BUILDS=($!)
if [ -d "$ROOT/.deps/gemmul8" ] && [ -x "$ROOT/.deps/anchors/build_gemmul8_anchor.sh" ]; then
  ( bash "$ROOT/.deps/anchors/build_gemmul8_anchor.sh" "$ROOT/.deps/gemmul8" "$G8BIN" > "$OUT/gemmul8_build.log" 2>&1;
    echo "build GEMMul8 driver: exit $? at $(elapsed)s" ) &
  BUILDS+=($!)
else
  echo "no .deps/gemmul8 or .deps/anchors: the gemmul8 job is skipped"
fi
wait "${BUILDS[@]}"  # not a bare `wait`: that would wait for the telemetry sampler too, forever
device_info

bench() {  # name args...: tcemu-bench into $OUT/name.{txt,csv,err}
  local name=$1; shift
  "$B/core/tcemu-bench" "$@" --csv "$OUT/$name.csv" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  echo "tcemu-bench $name exit $?"
}

for job in "${JOBS_LIST[@]}"; do
  case $job in
    tests)
      fits 90 tests || continue
      mark "test_core --gtest_filter=$TESTS"
      "$B/tests/test_core" --gtest_filter="$TESTS" > "$OUT/tests.log" 2>&1
      echo "test_core exit $?"
      grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|Expected|Which is|SKIPPED" "$OUT/tests.log" | head -30 ;;
    fp64)
      fits 150 fp64 || continue
      cooldown fp64
      mark "fp64: tcemu-bench --shapes 8192 --dists phi=0.1,phi=1,phi=4 --fp64-schemes $FP64_SCHEMES --repeat 20"
      bench fp64 --shapes 8192 --dists phi=0.1,phi=1,phi=4 --schemes '' --fp64-schemes "$FP64_SCHEMES" \
        --warmup 2 --repeat 20 --explain
      grep -E "^8192 " "$OUT/fp64.txt" | cut -c1-175 ;;
    gemmul8)
      [ -x "$G8BIN" ] || { echo "no GEMMul8 driver"; tail -5 "$OUT/gemmul8_build.log" 2>/dev/null; continue; }
      fits 150 gemmul8 || continue
      cooldown gemmul8
      mark "gemmul8: $G8BIN 8192"
      "$G8BIN" 8192 > "$OUT/gemmul8.txt" 2>&1
      echo "GEMMul8 driver exit $?"; cat "$OUT/gemmul8.txt" ;;
    complex)
      fits 90 complex || continue
      cooldown complex
      mark "complex: tcemu-bench --shapes complex:4096 --dists phi=0.1,phi=1,phi=4 --fp64-schemes $COMPLEX_SCHEMES --repeat 20"
      bench complex --shapes complex:4096 --dists phi=0.1,phi=1,phi=4 --schemes '' --fp64-schemes "$COMPLEX_SCHEMES" \
        --warmup 2 --repeat 20
      grep -E "^complex" "$OUT/complex.txt" | cut -c1-175 ;;
    fp32)
      fits 60 fp32 || continue
      cooldown fp32
      mark "fp32: tcemu-bench --shapes 8192 --dists uniform,phi=1 --schemes $FP32_SCHEMES --repeat 20"
      bench fp32 --shapes 8192 --dists uniform,phi=1 --schemes "$FP32_SCHEMES" --fp64-schemes '' \
        --warmup 2 --repeat 20 --explain
      grep -E "^8192 " "$OUT/fp32.txt" | cut -c1-175 ;;
    qsim)
      fits 75 qsim || continue
      cooldown qsim
      mark "qsim: brickwork n=$QSIM_QUBITS --fuse 9 --scheme int8-crt:15 --target fp64"
      "$B/apps/qsim/qsim" --generate "brickwork:n=$QSIM_QUBITS,depth=20,seed=1" --fuse 9 --scheme int8-crt:15 \
        --target fp64 --device cuda > "$OUT/qsim.txt" 2> "$OUT/qsim.err"
      echo "qsim exit $?"; cat "$OUT/qsim.txt"; tail -2 "$OUT/qsim.err" ;;
    auto_grid)
      fits 120 auto_grid || continue
      mark "auto_grid: tcemu-bench --auto-grid --grid-targets fp64"
      "$B/core/tcemu-bench" --auto-grid --grid-targets fp64 --explain --csv "$OUT/auto_grid.csv" \
        > "$OUT/auto_grid.txt" 2> "$OUT/auto_grid.err"
      echo "auto grid exit $?"; grep -E "auto-grid:" "$OUT/auto_grid.txt" ;;
  esac
done
mark "end"
kill "$SMI" 2>/dev/null; wait "$SMI" 2>/dev/null
# per job: the SM clock, power and temperature while it ran
python3 - "$OUT/telemetry.csv" "$OUT/marks.txt" <<'EOF' | tee "$OUT/telemetry_by_job.txt"
import csv, sys
def secs(s): h, m, r = s.strip().split(" ")[-1].split(":"); return int(h) * 3600 + int(m) * 60 + float(r)
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0][:2].isdigit()]
marks = [(secs(l.split(" ", 1)[0]), l.split(" ", 1)[1].strip()) for l in open(sys.argv[2])]
num = lambda r, c: float(r[c].split()[0])
for (a, name), (b, _) in zip(marks, marks[1:]):
    sel = [r for r in rows if a <= secs(r[0]) <= b]
    if not sel: continue
    sm = [num(r, 1) for r in sel]; pw = [num(r, 2) for r in sel]; tc = [num(r, 3) for r in sel]
    print(f"{name[:60]:60s} {b - a:6.1f} s  SM {min(sm):.0f}-{max(sm):.0f} MHz (mean {sum(sm)/len(sm):.0f})"
          f"  power mean {sum(pw)/len(pw):.0f} W max {max(pw):.0f}  temp {min(tc):.0f}-{max(tc):.0f} C"
          f"  reasons {sorted(set(r[4].strip() for r in sel))}")
EOF
(cd "$OUT" && rm -rf cache && tar czf acceptance.tgz --exclude=acceptance.tgz ./* && find . -type f ! -name acceptance.tgz -delete)
