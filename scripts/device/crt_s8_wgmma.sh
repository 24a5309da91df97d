#!/usr/bin/env bash
# int8-crt's INT8 wgmma products (core/src/cuda/kernels/crt_wgmma_s8.hpp; issue 21 item 3) in one call
# on one GPU: builds this tree (tcemu-crt-s8-selftest, test_core, tcemu-bench; Debian's Serial Kokkos
# copy in .deps/kokkos), runs the kernel's self-test (bit for bit against a host reference and cuBLAS)
# and its timing against cuBLAS INT8 (interleaved, median of REPEAT runs: 8192^3, 4096 x 4096 x 8192,
# 15 moduli at 8192^3), then the CUDA CRT tests (which now run the kernel) and tcemu-bench's
# int8-crt:15 end to end with the products from cuBLAS, from the kernel writing INT32 and from the
# kernel reducing mod p in its epilogue (TCEMU_CUDA_CRT_PRODUCTS=cublas / wgmma-int32 / wgmma),
# interleaved, one round per `bench` job. Logs and CSVs under $OUT
# (one archive at the end).
# Usage (repository root, on the GPU machine):
#   OUT=/dir scripts/device/crt_s8_wgmma.sh [jobs...]
# jobs (default: build selftest bench tests bench sass), in the order given. Knobs: REPEAT [15],
# DISTS [uniform], SCHEMES [fp64,int8-crt:15], DEADLINE [270] (seconds after which the remaining
# timed jobs are skipped, so that the call ends with its logs).
set -uo pipefail
source "$(dirname "$0")/common.sh"
JOBS_LIST=("$@"); [ ${#JOBS_LIST[@]} -gt 0 ] || JOBS_LIST=(build selftest bench tests bench sass)
REPEAT=${REPEAT:-15}
DISTS=${DISTS:-uniform}
SCHEMES=${SCHEMES:-fp64,int8-crt:15}
DEADLINE=${DEADLINE:-270}
B=/tmp/crt-s8-wgmma
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
late() { [ $(( $(date +%s) - t0 )) -ge "$DEADLINE" ] && { echo "skipped (past ${DEADLINE}s): $*"; return 0; }; return 1; }

build() {
  carried_deps_args
  stamp "build (tcemu-crt-s8-selftest, test_core, tcemu-bench), -j$JOBS"
  cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        -DTCEMU_KOKKOS_ROOT="$ROOT/.deps/kokkos" "${DEPS_ARGS[@]}" > "$OUT/build.log" 2>&1 &&
    cmake --build "$B" -j"$JOBS" --target tcemu-crt-s8-selftest test_core tcemu-bench >> "$OUT/build.log" 2>&1
  ls "$B/core/tcemu-crt-s8-selftest" "$B/core/tcemu-bench" "$B/tests/test_core" ||
    { grep -E "error" -A3 "$OUT/build.log" | head -40; return 1; }
  stamp "built"
}

selftest() {
  stamp "tcemu-crt-s8-selftest --repeat $REPEAT"
  "$B/core/tcemu-crt-s8-selftest" --repeat "$REPEAT" > "$OUT/selftest.log" 2>&1
  echo "selftest exit $?"
  grep -E "FAIL|SELFTEST|TIMING|rejected" "$OUT/selftest.log" | head -40
}

tests() {
  late "tests" && return 0
  stamp "test_core CudaCrt*:Crt* (products from the wgmma kernel)"
  "$B/tests/test_core" --gtest_filter='CudaCrt*:Crt*' > "$OUT/tests_crt.log" 2>&1
  echo "test_core CudaCrt*:Crt* exit $?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|Expected|Which is" "$OUT/tests_crt.log" | head -30
}

ROUND=0
bench() {  # one round (cublas, wgmma-int32, wgmma) per call
  ROUND=$((ROUND + 1))
  local r=$ROUND
  for v in cublas wgmma-int32 wgmma; do
    late "bench $v round $r" && return 0
    stamp "bench products=$v round $r"
    TCEMU_CUDA_CRT_PRODUCTS=$v "$B/core/tcemu-bench" --shapes 8192 --dists "$DISTS" --schemes '' \
      --fp64-schemes "$SCHEMES" --warmup 1 --repeat 5 --csv "$OUT/bench_${v}_$r.csv" \
      > "$OUT/bench_${v}_$r.txt" 2> "$OUT/bench_${v}_$r.err"
    echo "exit $?"
    grep -E "int8-crt|fp64 |kernels" "$OUT/bench_${v}_$r.txt" | cut -c1-170 | head -12
  done
}

sass() {
  local tool; tool=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
  local obj; obj=$(find "$B/core" -name "crt_wgmma_s8.cu.o" | head -1)
  [ -n "$tool" ] && [ -n "$obj" ] && "$tool" -sass "$obj" > "$OUT/sass_crt_wgmma_s8.txt" 2>&1
  echo "sass: $(wc -l < "$OUT/sass_crt_wgmma_s8.txt" 2>/dev/null) lines; per instruction:"
  grep -oE "(IGMMA|HGMMA)[.A-Z0-9x]*|STG[.A-Z0-9]*|LDL|STL|WARPGROUP[.A-Z]*" "$OUT/sass_crt_wgmma_s8.txt" | sort | uniq -c
}

device_info
for job in "${JOBS_LIST[@]}"; do "$job" || echo "job $job failed"; done
stamp "end"
# at most 8 files come back from the machine: everything in one archive
(cd "$OUT" && tar czf crt_s8_wgmma_out.tgz --exclude=crt_s8_wgmma_out.tgz * && find . -type f ! -name crt_s8_wgmma_out.tgz -delete)
