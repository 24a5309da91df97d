#!/usr/bin/env bash
# qsim past two state buffers (issue 20, docs/qsim.md "Limits"): on a lent 141 GB GPU (H200), builds
# this tree with the carried CUDA-enabled Kokkos (.deps/kokkos-cuda), runs the single-buffer and
# in-place tests, then
#   1. 32 qubits: the fp64 reference in complex128 (192 GiB with two buffers: runs single-buffer,
#      70 GiB) and fp16x2-aligned (complex64, two buffers, 96 GiB) with its fidelity against it; the
#      host keeps the 64 GiB reference and the 32 GiB state;
#   2. 33 qubits in complex64 without the reference (--no-reference; single-buffer, 67 GiB), fp16x2-aligned:
#      its norm drift;
#   3. (budget left) 30 qubits with --buffers single against two buffers (fp32 and fp16x2-aligned), and
#      33 qubits native fp32 (cuBLAS CGEMM on row chunks).
# Every step is guarded (a failure is logged, the next step runs); a step is skipped once BUDGET
# seconds (default 480) have passed, so that a lent call's 540 s never cuts a run in half. Logs and
# JSON under $OUT. Estimate on an H200 from the 30-qubit times in docs/qsim.md (fp64 2.3 s, fp16x2-
# aligned 0.64 s): build ~150 s, tests ~40 s, step 1 ~60 s (fp64 ~25 s single-buffer, the 64 GiB
# reference down and up again ~20 s; the metrics are Kokkos reductions on the GPU), step 2 ~20 s (the
# state stays on the GPU), step 3 ~60 s.
# Usage (repository root): OUT=/dir scripts/device/qsim_large.sh      (BUILD=/tmp/b-qsim33 by default;
# QSIM=/path/to/qsim and TEST_APPS=/path/to/test_apps skip the build)
# Needs .deps/kokkos-cuda, .deps/googletest, .deps/cli11, .deps/nlohmann-json (.deps/circuits for the
# QASMBench test).
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-/tmp/b-qsim33}
BUDGET=${BUDGET:-480}
QSIM=${QSIM:-$BUILD/apps/qsim/qsim}
TEST_APPS=${TEST_APPS:-$BUILD/tests/test_apps}
TEST_CORE=${TEST_CORE:-$BUILD/tests/test_core}
export LD_LIBRARY_PATH="$BUILD/core:${LD_LIBRARY_PATH:-}"
# QASMBench circuits for the qsim tests: ../shared beside the checkout, or the copy carried in .deps/circuits.
if [ ! -d "$ROOT/../shared/circuits" ] && [ -d "$ROOT/.deps/circuits" ]; then
  mkdir -p "$ROOT/../shared" && ln -sfn "$ROOT/.deps/circuits" "$ROOT/../shared/circuits"
fi

over_budget() { [ $(( $(date +%s) - t0 )) -gt "$BUDGET" ]; }

if [ ! -x "$QSIM" ]; then
  carried_deps_args
  stamp "configure (Kokkos_ROOT=.deps/kokkos-cuda)"
  if cmake -S . -B "$BUILD" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a -DKokkos_ROOT="$ROOT/.deps/kokkos-cuda" \
        "${DEPS_ARGS[@]}" > "$OUT/build.log" 2>&1; then
    stamp "build qsim test_apps test_core (-j$JOBS)"
    cmake --build "$BUILD" -j"$JOBS" --target qsim test_apps test_core -- -k >> "$OUT/build.log" 2>&1 ||
      grep -E "error" -A3 "$OUT/build.log" | head -60
  else
    tail -30 "$OUT/build.log"
  fi
fi
[ -x "$QSIM" ] || { stamp "no qsim binary: stop"; exit 1; }
device_info
nvidia-smi --query-gpu=memory.total,memory.free --format=csv || true
grep -E "MemTotal|MemAvailable" /proc/meminfo || true

export TCEMU_BUILD_DIR="$BUILD" TCEMU_SOURCE_DIR="$ROOT"
if [ -x "$TEST_CORE" ]; then
  stamp "test_core --gtest_filter=CudaBitGemm*"
  "$TEST_CORE" --gtest_filter='CudaBitGemm*' > "$OUT/test_core_bitgemm.log" 2>&1
  echo "test_core exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/test_core_bitgemm.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED|Failure" -A4 "$OUT/test_core_bitgemm.log" | head -20
fi
if [ -x "$TEST_APPS" ]; then
  stamp "test_apps --gtest_filter=Qsim*"
  timeout 200 "$TEST_APPS" --gtest_filter='Qsim*' > "$OUT/test_apps_qsim.log" 2>&1
  echo "test_apps exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/test_apps_qsim.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED|Failure" -A4 "$OUT/test_apps_qsim.log" | head -30
  grep -E "^\[       OK \] QsimEngine" "$OUT/test_apps_qsim.log"
fi

# One JSON run -> one line per scheme.
summary() {  # JSON report -> one line per scheme
  json_rows "$1" '"  %-16s %-10s buffers %-6s time_ms %10.1f  permute_ms %9.1f  perms %3d  swaps %3d  in_place %3d (declined %d)  1-F %s  norm_drift %.3e" % (r["scheme"], r["precision"], r["buffers"], r["time_ms"], r["permute_ms"], r["permutations"], r["position_swaps"], r["in_place_blocks"], r["in_place_declined"], "%.3e" % r["infidelity"] if r["infidelity"] is not None else "n/a", r["norm_drift"])'
}

# tag, timeout seconds, qsim arguments...
run_qsim() {
  local tag=$1 limit=$2
  shift 2
  if over_budget; then stamp "budget reached: $tag skipped"; return; fi
  stamp "$tag: qsim $*"
  local timer=()
  [ -x /usr/bin/time ] && timer=(/usr/bin/time -v)  # peak host memory, where the image has GNU time
  "${timer[@]}" timeout "$limit" "$QSIM" "$@" --device cuda --json > "$OUT/$tag.json" 2> "$OUT/$tag.err"
  local rc=$?
  grep -E "^qsim: error|Maximum resident|Elapsed \(wall" "$OUT/$tag.err"
  echo "  exit $rc"
  [ $rc -eq 0 ] && summary "$OUT/$tag.json"
}

stamp "warm-up: 24 qubits"
timeout 60 "$QSIM" --generate brickwork:n=24,depth=20,seed=1 --fuse 6 --device cuda -q --scheme fp16x2-aligned > /dev/null 2>&1
run_qsim q32_fp64_fp16x2-aligned 250 --generate brickwork:n=32,depth=20,seed=1 --fuse 6 --scheme fp16x2-aligned
run_qsim q33_fp16x2-aligned_noref 150 --generate brickwork:n=33,depth=20,seed=1 --fuse 6 --scheme fp16x2-aligned --no-reference
for b in single two; do
  run_qsim "q30_buffers_$b" 60 --generate brickwork:n=30,depth=20,seed=1 --fuse 6 --scheme fp32,fp16x2-aligned --buffers $b
done
run_qsim q33_fp32_noref 120 --generate brickwork:n=33,depth=20,seed=1 --fuse 6 --scheme fp32 --no-reference
stamp "done"
