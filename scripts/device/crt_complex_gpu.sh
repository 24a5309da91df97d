#!/usr/bin/env bash
# int8-crt on complex operands (issue 21, complex and qsim --target fp64) on a lent GPU machine; logs
# under $OUT. Jobs, in order given:
#   build: configure (sm_90a, the carried Serial Kokkos copy, googletest / CLI11 as crt_gpu.sh) and
#          build test_core, tcemu-bench and qsim only, into $BUILD
#   tests: test_core's CudaCrt* (GPU == host bit for bit, complex included) and the host Crt* tests
#   bench: tcemu-bench complex:4096 (m = n = k = 4096 complex): cuBLAS ZGEMM against int8-crt:14,
#          int8-crt:16 and int8-crt (N per call), errors over 4,096 sampled entries of Re and Im
#          against double-double; complex<float>: CGEMM against int8-crt (FP32 target)
#   qsim:  qsim brickwork n = QSIM_QUBITS (28), depth 20, --target fp64 --scheme int8-crt against
#          the native complex128 run (cuBLAS ZGEMM)
# Usage (repository root): OUT=/dir scripts/device/crt_complex_gpu.sh build tests bench qsim
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-$ROOT/build-gpu}
export LD_LIBRARY_PATH="$BUILD/core:$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"

build() {
  carried_deps_args
  stamp "configure + build test_core tcemu-bench qsim (-j$JOBS)"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        -DTCEMU_KOKKOS_ROOT="$ROOT/.deps/kokkos" "${DEPS_ARGS[@]}" > "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; return 1; }
  cmake --build "$BUILD" -j"$JOBS" --target test_core tcemu-bench qsim >> "$OUT/build.log" 2>&1 ||
    { grep -E "error" -A3 "$OUT/build.log" | head -60; return 1; }
  stamp "built"
}

tests() {
  stamp "CudaCrt* and Crt* tests"
  timeout 60 "$BUILD/tests/test_core" --gtest_filter='CudaCrt*:Crt*' > "$OUT/tests_crt.log" 2>&1
  echo "test_core CudaCrt*:Crt* exit $?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|^\[       OK \] CudaCrtComplex|Failure|Expected|Which is|GPU:|host:" \
    "$OUT/tests_crt.log" | head -40
  stamp "tests done"
}

bench() {
  device_info
  stamp "tcemu-bench complex:4096"
  timeout 70 "$BUILD/core/tcemu-bench" --shapes complex:4096 --dists uniform,phi=1 --schemes int8-crt \
    --fp64-schemes int8-crt:14,int8-crt:16,int8-crt --warmup 1 --repeat 5 --explain \
    --csv "$OUT/crt_complex_bench.csv" > "$OUT/crt_complex_bench.txt" 2> "$OUT/crt_complex_bench.err"
  echo "tcemu-bench exit $?"
  cat "$OUT/crt_complex_bench.txt"
  grep -E "certified|given" "$OUT/crt_complex_bench.err" | head -8
  stamp "bench done"
}

qsim() {
  local n=${QSIM_QUBITS:-28}
  stamp "qsim brickwork n=$n --target fp64 --scheme int8-crt"
  timeout 70 "$BUILD/apps/qsim/qsim" --generate brickwork:n=$n,depth=20,seed=1 --scheme int8-crt --target fp64 \
    --device cuda > "$OUT/qsim_crt.txt" 2> "$OUT/qsim_crt.err"
  echo "qsim exit $?"
  cat "$OUT/qsim_crt.txt"
  tail -5 "$OUT/qsim_crt.err"
  stamp "qsim done"
}

device_info
for job in "$@"; do "$job" || echo "job $job failed"; done
