#!/usr/bin/env bash
# int8-crt's passes, an older tree against this one in one call on one GPU (issue 21, scope 3):
# builds both (this tree: test_core, tcemu-bench and tcemu-crt-s8-selftest; the old one: tcemu-bench), runs this tree's
# CUDA CRT tests, times every kernel of one int8-crt call of each tree under Nsight Compute (one
# metric, gpu__time_duration: the per-pass breakdown), then tcemu-bench's FP64 table of both trees
# interleaved (old, new, old, new) at 8192^3. Logs and CSVs under $OUT.
# Usage (repository root, on the GPU machine):
#   OUT=/dir scripts/device/crt_passes.sh OLD_SOURCE_DIR [jobs...]
# jobs (default: build tests ncu_breakdown bench bench), in the order given: build tests selftest (the
# INT8 wgmma kernel's self-test and timings, --repeat 10) ncu_breakdown bench (one interleaved round per mention) peers (GEMMul8 beside this tree's tcemu-bench, through
# fp64_peers.sh) fp32 (this tree's FP32-target table: SGEMM, fp16x2, int8-crt at FP32_SCHEMES) sass (the
# residue and reconstruction objects' SASS) ncu_detail (Nsight Compute's full set on the residue,
# product and reconstruction kernels of one int8-crt:15 call at phi = 1, old and new: ncud_*.csv) telemetry
# (the new tree's timed runs with nvidia-smi's SM clock, power and throttle reasons every 50 ms)
# auto_grid (the new tree's `tcemu-bench --auto-grid --grid-targets fp64`, calibrated in the call). Knobs: DISTS
# [phi=0.1,phi=1,phi=4], SHAPES [8192], SCHEMES [fp64,int8-crt:15,int8-crt:16,int8-crt:18], PEER_SCHEMES,
# NCU_CASES ["phi=1:int8-crt:15 phi=4:int8-crt:18"; an entry DIST:SCHEME@SHAPE times SHAPE instead of
# 8192, e.g. uniform:int8-crt:15@complex:4096], FP32_DISTS, FP32_SCHEMES, DEADLINE [280] (seconds after which the
# remaining timed jobs are skipped, so that the call ends with its logs).
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=$(cd "$1" && pwd); shift
JOBS_LIST=("$@"); [ ${#JOBS_LIST[@]} -gt 0 ] || JOBS_LIST=(build tests ncu_breakdown bench bench)
DISTS=${DISTS:-phi=0.1,phi=1,phi=4}
SHAPES=${SHAPES:-8192}
SCHEMES=${SCHEMES:-fp64,int8-crt:15,int8-crt:16,int8-crt:18}
NCU_CASES=${NCU_CASES:-"phi=1:int8-crt:15 phi=4:int8-crt:18"}
DEADLINE=${DEADLINE:-280}
NEW_B=/tmp/crtp-new OLD_B=/tmp/crtp-old
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
late() { [ $(( $(date +%s) - t0 )) -ge "$DEADLINE" ] && { echo "skipped (past ${DEADLINE}s): $*"; return 0; }; return 1; }

build() {
  carried_deps_args
  [ -e "$OLD/.deps" ] || ln -sfn "$ROOT/.deps" "$OLD/.deps"
  stamp "build new (test_core, tcemu-bench) and old (tcemu-bench) in parallel"
  local half=$(( JOBS / 2 > 1 ? JOBS / 2 : 1 ))
  ( cmake -S "$ROOT" -B "$NEW_B" -DCMAKE_BUILD_TYPE=Release -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        -DTCEMU_KOKKOS_ROOT="$ROOT/.deps/kokkos" "${DEPS_ARGS[@]}" > "$OUT/build_new.log" 2>&1 &&
      cmake --build "$NEW_B" -j"$half" --target test_core tcemu-bench tcemu-crt-s8-selftest >> "$OUT/build_new.log" 2>&1 ) &
  ( cmake -S "$OLD" -B "$OLD_B" -DCMAKE_BUILD_TYPE=Release -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        -DTCEMU_BUILD_TESTS=OFF -DTCEMU_KOKKOS_ROOT="$ROOT/.deps/kokkos" "${DEPS_ARGS[@]}" > "$OUT/build_old.log" 2>&1 &&
      cmake --build "$OLD_B" -j"$half" --target tcemu-bench >> "$OUT/build_old.log" 2>&1 ) &
  wait
  ls "$NEW_B/core/tcemu-bench" "$OLD_B/core/tcemu-bench" "$NEW_B/tests/test_core" ||
    { grep -E "error" -A3 "$OUT/build_new.log" "$OUT/build_old.log" | head -40; return 1; }
  stamp "built"
}

tests() {
  stamp "CudaCrt*:Crt* (new)"
  "$NEW_B/tests/test_core" --gtest_filter='CudaCrt*:Crt*' > "$OUT/tests_crt.log" 2>&1
  echo "test_core CudaCrt*:Crt* exit $?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|Expected|Which is" "$OUT/tests_crt.log" | head -30
}

selftest() {
  stamp "tcemu-crt-s8-selftest --repeat 10 (new)"
  "$NEW_B/core/tcemu-crt-s8-selftest" --repeat 10 > "$OUT/selftest.log" 2>&1
  echo "selftest exit $?"
  grep -E "SELFTEST|FAIL|ms|TOPS" "$OUT/selftest.log" | head -30
  return 0
}

ncu_breakdown() {
  local ncu_bin
  ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  [ -n "$ncu_bin" ] || { echo "no ncu"; return 1; }
  for c in $NCU_CASES; do
    local shape=8192
    case $c in *@*) shape=${c#*@}; c=${c%@*};; esac
    local dist=${c%%:*} scheme=${c#*:}
    local tag="${dist#phi=}_${scheme#int8-crt:}"
    [ "$shape" = 8192 ] || tag="${tag}_${shape//:/}"
    for v in old new; do
      late "ncu $v $c $shape" && return 0
      local B=$OLD_B; [ $v = new ] && B=$NEW_B
      stamp "ncu $v $dist $scheme $shape"
      "$ncu_bin" --clock-control none --metrics gpu__time_duration.sum --csv \
        --log-file "$OUT/ncu_${v}_${tag}.csv" \
        "$B/core/tcemu-bench" --shapes "$shape" --dists "$dist" --schemes '' --fp64-schemes "$scheme" \
        --warmup 0 --repeat 1 --no-errors > /dev/null 2>&1 || echo "ncu $v failed"
      # per kernel name: total milliseconds and launches over the bench run
      python3 - "$OUT/ncu_${v}_${tag}.csv" <<'EOF'
import csv, sys, re, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head = rows[0]; k = head.index("Kernel Name"); u = head.index("Metric Unit"); val = head.index("Metric Value")
scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0, "second": 1e3}
tot = collections.OrderedDict()
for r in rows[1:]:
    name = re.sub(r"\(anonymous namespace\)::|<unnamed>::", "", r[k])
    # drop namespace qualifiers everywhere (template arguments too: residue_lines_kernel<double, MagnitudeSink>)
    name = re.sub(r"\b[A-Za-z_][A-Za-z_0-9]*::", "", re.split(r"[(]", name.replace("void ", ""))[0])[:70]
    ms = float(r[val].replace(",", "")) * scale.get(r[u], 1e-6)
    t, c = tot.get(name, (0.0, 0)); tot[name] = (t + ms, c + 1)
for n, (t, c) in tot.items():
    if t > 0.02: print(f"  {t:9.3f} ms in {c:3d} launches  {n}")
EOF
    done
  done
}

ncu_detail() {  # the full set's metrics for the residue, product and reconstruction kernels (old, new)
  local ncu_bin
  ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  [ -n "$ncu_bin" ] || { echo "no ncu"; return 1; }
  for v in old new; do
    late "ncu_detail $v" && return 0
    local B=$OLD_B; [ $v = new ] && B=$NEW_B
    stamp "ncu full set $v phi=1 int8-crt:15"
    "$ncu_bin" --clock-control none --set full --page raw --csv --launch-count 4 \
      --kernel-name regex:'residue_lines|residue_transpose|s8_products|reconstruct_fragments' \
      --log-file "$OUT/ncud_${v}.csv" \
      "$B/core/tcemu-bench" --shapes 8192 --dists phi=1 --schemes '' --fp64-schemes int8-crt:15 \
      --warmup 0 --repeat 1 --no-errors > /dev/null 2>&1 || echo "ncu_detail $v failed"
    python3 "$ROOT/scripts/device/ncu_digest.py" "$OUT/ncud_${v}.csv" | tee "$OUT/ncud_${v}_digest.txt"
  done
}

ROUND=0
bench() {  # one round (old, then new) per call: list `bench` twice for two rounds
  ROUND=$((ROUND + 1))
  local r=$ROUND
  for v in old new; do
    late "bench $v round $r" && return 0
    local B=$OLD_B; [ $v = new ] && B=$NEW_B
    stamp "bench $v round $r"
    "$B/core/tcemu-bench" --shapes "$SHAPES" --dists "$DISTS" --schemes '' --fp64-schemes "$SCHEMES" \
      --warmup 1 --repeat 5 --csv "$OUT/bench_${v}_$r.csv" > "$OUT/bench_${v}_$r.txt" 2> "$OUT/bench_${v}_$r.err"
    echo "exit $?"
    grep -E "int8-crt|fp64 " "$OUT/bench_${v}_$r.txt" | cut -c1-150 | head -20
  done
}

peers() {
  late "GEMMul8" && return 0
  OUT="$OUT" BENCH="$NEW_B/core/tcemu-bench" FP64_SCHEMES="${PEER_SCHEMES:-fp64,int8-crt:15,int8-crt:18}" \
    bash "$ROOT/scripts/device/fp64_peers.sh" 8192 2>&1 | grep -E "GEMMul8|native|int8-crt|exit|==" | head -60
  return 0  # the grep / head pipeline's status is not the job's
}

fp32() {  # the FP32 target beside fp16x2 (issue 21's FP32 row): float data, relative error against DGEMM
  late "fp32" && return 0
  stamp "FP32 target (new)"
  "$NEW_B/core/tcemu-bench" --shapes 8192 --dists "${FP32_DISTS:-uniform,phi=1}" \
    --schemes "${FP32_SCHEMES:-fp32,fp16x2,int8-crt:7,int8-crt:8,int8-crt:9,int8-crt}" --fp64-schemes '' \
    --warmup 1 --repeat 5 --explain --csv "$OUT/fp32.csv" > "$OUT/fp32.txt" 2> "$OUT/fp32.err"
  echo "exit $?"; grep -E "^8192 .*(fp32|fp16x2|int8-crt)" "$OUT/fp32.txt" | cut -c1-150 | head -20
  return 0
}

telemetry() {  # clocks, power and throttle reasons sampled every 50 ms around timed runs (new tree)
  late "telemetry" && return 0
  stamp "telemetry: nvidia-smi every 50 ms; int8-crt:15, fp64, int8-crt:15 at phi = 1 (--repeat 30), 3 s idle between"
  local q=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active
  nvidia-smi --query-gpu=$q --format=csv -c 1 > /dev/null 2>&1 || q=${q/clocks_event_reasons/clocks_throttle_reasons}
  nvidia-smi --query-gpu=$q --format=csv -lms 50 > "$OUT/telemetry.csv" 2>&1 &
  local smi=$!
  sleep 3
  for s in int8-crt:15 fp64 int8-crt:15; do
    echo "$(date +%H:%M:%S.%N) start $s" >> "$OUT/telemetry_marks.txt"
    "$NEW_B/core/tcemu-bench" --shapes 8192 --dists phi=1 --schemes '' --fp64-schemes "$s" \
      --warmup 1 --repeat 30 --no-errors >> "$OUT/telemetry_bench.txt" 2>&1
    echo "$(date +%H:%M:%S.%N) end $s" >> "$OUT/telemetry_marks.txt"
    sleep 3
  done
  kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
  cat "$OUT/telemetry_marks.txt"; grep -E "int8-crt|fp64 " "$OUT/telemetry_bench.txt" | cut -c1-150
  python3 - "$OUT/telemetry.csv" "$OUT/telemetry_marks.txt" <<'EOF'
import sys, csv, datetime as dt
def t(s): h, m, r = s.strip().split(" ")[-1].split(":"); return int(h) * 3600 + int(m) * 60 + float(r)
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0][:2].isdigit()]
marks = [l.split() for l in open(sys.argv[2])]
for i in range(0, len(marks), 2):
    a, b, name = t(marks[i][0]), t(marks[i + 1][0]), marks[i][2]
    sel = [r for r in rows if a + 1.0 <= t(r[0]) <= b]  # past the inputs' set-up
    if not sel: continue
    num = lambda r, c: float(r[c].split()[0])
    sm = [num(r, 1) for r in sel]; pw = [num(r, 3) for r in sel]
    print(f"{name}: {len(sel)} samples, SM clock {min(sm):.0f}-{max(sm):.0f} MHz (mean {sum(sm)/len(sm):.0f}), "
          f"power {min(pw):.0f}-{max(pw):.0f} W (mean {sum(pw)/len(pw):.0f}), limit {sel[0][4].strip()}, "
          f"reasons {sorted(set(r[6].strip() for r in sel))}")
EOF
  return 0
}

auto_grid() {  # auto's FP64 acceptance grid on this GPU (new tree; its own calibration in $OUT/cache)
  late "auto_grid" && return 0
  stamp "auto grid, FP64 target (calibration first)"
  XDG_CACHE_HOME="$OUT/cache" "$NEW_B/core/tcemu-bench" --auto-grid --grid-targets fp64 --explain \
    --csv "$OUT/auto_grid.csv" > "$OUT/auto_grid.txt" 2> "$OUT/auto_grid.err"
  echo "exit $?"; grep -E "auto-grid:" "$OUT/auto_grid.txt"; tail -20 "$OUT/auto_grid.txt" | cut -c1-160
  return 0
}

sass() {
  local tool; tool=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
  local obj; obj=$(find "$NEW_B/core" -name "crt_residue.cu.o" | head -1)
  [ -n "$tool" ] && [ -n "$obj" ] && "$tool" -sass "$obj" > "$OUT/sass_crt_residue.txt" 2>&1
  obj=$(find "$NEW_B/core" -name "crt_reconstruct.cu.o" | head -1)
  [ -n "$tool" ] && [ -n "$obj" ] && "$tool" -sass "$obj" > "$OUT/sass_crt_reconstruct.txt" 2>&1
  echo "sass: $(wc -l < "$OUT/sass_crt_residue.txt" 2>/dev/null) lines"
}

device_info
for job in "${JOBS_LIST[@]}"; do "$job" || echo "job $job failed"; done
stamp "end"
# at most 8 files come back from the machine: everything in one archive
(cd "$OUT" && tar czf crt_passes_out.tgz --exclude=crt_passes_out.tgz * && find . -type f ! -name crt_passes_out.tgz -delete)
