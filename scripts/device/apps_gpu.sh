#!/usr/bin/env bash
# Runs the apps' GPU acceptance jobs on a lent GPU machine and leaves logs/JSON under $OUT.
# Builds everything with CUDA into $BUILD (kept between calls while the machine stays warm), makes
# the Fashion-MNIST HDF5 files from the carried IDX files (.deps/fashion-mnist, see
# scripts/device/prepare_deps.sh) and runs the jobs named on the command line:
#   build | knn | kmeans | kmeans700k | qsim | hplai
#   tests: the GPU test suites (test_core, test_apps; CPU tests run too)
#   sanitize: compute-sanitizer memcheck (leak check on) and racecheck over the GPU tests
#   selftest: the GPU-labelled CTest self-tests (tcemu-split-selftest: split pass, exhaustive FP16
#             conversion check; tcemu-tcprobe's checks), then the split pass timings
#   probe: tcemu-tcprobe (the Tensor Cores' own accumulation, docs/accuracy.md)
#   fused: tcemu-bench, fused kernel vs multi-pass vs cuBLAS (docs/benchmarks.md, docs/perf-notes.md section 5)
#   install_test: the installed-package test (cmake --install, then examples/ built against it and run)
#   mpi: qsim and hplai over MPI ranks on this one GPU (docs/scaling.md): `ctest -L mpi` (1, 2 and 4
#        ranks; qsim's GPU cases run on the GPU), then qsim on MPI_QUBITS (default 28) qubits over 1, 2
#        and 4 ranks on the GPU (ranks sharing the GPU exchange through MPI and host memory), and hplai
#        on MPI_HPLAI_N (default 16384) on the GPU: one process, --grid 1x2, 2x1, 2x2
#   grid: tcemu-bench calibration into $OUT/cache, then the auto grid judged by auto's own call
#         (`--auto-grid --repeat 10`, docs/cost-model.md), table and CSV under $OUT
#   pack: archive $OUT's files into $PACK_NAME.tgz (last)
# Binaries built elsewhere (same CUDA 13, sm_90a) can be carried in $BUILD; then skip `build`.
# Usage (repository root): OUT=/dir scripts/device/apps_gpu.sh build knn kmeans
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-$ROOT/build-gpu}
export LD_LIBRARY_PATH="$BUILD/core:$ROOT/.deps/kokkos/lib:${LD_LIBRARY_PATH:-}"
# QASMBench circuits: ../shared beside the checkout, or the copy carried in .deps/circuits.
if [ ! -d "$ROOT/../shared/circuits" ] && [ -d "$ROOT/.deps/circuits" ]; then
  mkdir -p "$ROOT/../shared" && ln -sfn "$ROOT/.deps/circuits" "$ROOT/../shared/circuits"
fi

build() {
  carried_deps_args  # googletest and CLI11 from .deps/ where the image has none (common.sh)
  # Kokkos: the CUDA-enabled Kokkos 4 of scripts/build_kokkos.sh when .deps/kokkos-cuda is carried
  # (tcemu::gemm on CudaSpace Views; docs/kokkos.md), else the copy of Debian's Serial Kokkos.
  local kokkos_arg="-DTCEMU_KOKKOS_ROOT=$ROOT/.deps/kokkos"
  [ -d "$ROOT/.deps/kokkos-cuda" ] && kokkos_arg="-DKokkos_ROOT=$ROOT/.deps/kokkos-cuda"
  stamp "configure + build all (sm_90a, -j$JOBS, $kokkos_arg)"
  cmake -S . -B "$BUILD" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        "$kokkos_arg" "${DEPS_ARGS[@]}" > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; return 1; }
  # "-- -k" goes to the native tool (make or ninja): cmake 4 rejects a bare -k of its own.
  cmake --build "$BUILD" -j"$JOBS" -- -k >> "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; }
  ls "$BUILD"/apps/*/ | head -40
}

data() {
  if [ ! -e data/fashion-mnist-784-euclidean.h5 ] || [ ! -e data/fashion-mnist-kmeans.h5 ]; then
    stamp "Fashion-MNIST -> HDF5"
    python3 scripts/prepare_fashion_mnist.py --source-dir .deps/fashion-mnist > "$OUT/prepare.log" 2>&1 || tail -5 "$OUT/prepare.log"
  fi
}

tests() {
  stamp "test suites on the GPU"
  export TCEMU_BUILD_DIR="$BUILD" TCEMU_SOURCE_DIR="$ROOT"
  for t in test_core test_io test_apps; do
    "$BUILD/tests/$t" --gtest_brief=1 > "$OUT/$t.log" 2>&1
    echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$t.log" | tr '\n' ' ')"
    grep -E "FAILED|Failure" "$OUT/$t.log" | head -10
  done
}

sanitize() {  # compute-sanitizer memcheck and racecheck over the GPU tests (docs/reliability.md)
  export TCEMU_BUILD_DIR="$BUILD" TCEMU_SOURCE_DIR="$ROOT"
  local filter_core=${SANITIZE_CORE_FILTER:-'Cuda*'} filter_apps=${SANITIZE_APPS_FILTER:-'*Gpu*:*Cuda*:*Device*'}
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
    local extra=""
    [ "$tool" = memcheck ] && extra="--leak-check full"
    # SANITIZE_RACECHECK_ARGS, e.g. "--racecheck-memcpy-async no": with the default (yes) racecheck
    # reports hazards inside cuBLAS's own nvjet_* kernels (docs/reliability.md). Kernel-name filters
    # (--kernel-name, --kernel-name-exclude) make compute-sanitizer 2025.3.1 fail on this machine.
    [ "$tool" = racecheck ] && extra="${SANITIZE_RACECHECK_ARGS:-}"
    for t in core apps; do
      local filter=$filter_core
      [ $t = apps ] && filter=$filter_apps
      stamp "compute-sanitizer --tool $tool test_$t --gtest_filter=$filter"
      # --target-processes all: the app tests start the app executables, whose kernels are checked too.
      timeout ${SANITIZE_TIMEOUT:-900} compute-sanitizer --tool $tool $extra --target-processes all --error-exitcode 99 \
        "$BUILD/tests/test_$t" --gtest_filter="$filter" --gtest_brief=1 > "$OUT/sanitize_${tool}_$t.log" 2>&1
      echo "$tool test_$t exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/sanitize_${tool}_$t.log" | tr '\n' ' ')"
      grep -E "ERROR SUMMARY|LEAK SUMMARY" "$OUT/sanitize_${tool}_$t.log" | sort | uniq -c
    done
  done
}

knn() {
  data
  stamp "knn: full Fashion-MNIST test set on the GPU"
  "$BUILD/apps/knn/knn" --input data/fashion-mnist-784-euclidean.h5 --k 10 --scheme all --device cuda \
      --repeat 3 > "$OUT/knn_gpu.txt" 2> "$OUT/knn_gpu.err"; echo "exit $?"; cat "$OUT/knn_gpu.txt"; tail -3 "$OUT/knn_gpu.err"
}

kmeans() {
  data
  for k in 10 256; do
    stamp "kmeans: Fashion-MNIST k=$k on the GPU"
    "$BUILD/apps/kmeans/kmeans" --input data/fashion-mnist-kmeans.h5 --k $k --seed 1 --scheme all \
        --device cuda -q --json > "$OUT/kmeans_k$k.json" 2> "$OUT/kmeans_k$k.err"; echo "exit $?"
    "$BUILD/apps/kmeans/kmeans" --input data/fashion-mnist-kmeans.h5 --k $k --seed 1 --scheme all \
        --device cuda -q 2>&1 | tee "$OUT/kmeans_k$k.txt"
  done
}

kmeans700k() {
  data
  stamp "kmeans: 700,000 x 784 (Fashion-MNIST x 10, noise 1.0), k = 1024, GPU"
  "$BUILD/apps/kmeans/kmeans" --input data/fashion-mnist-kmeans.h5 --replicate 10 --noise 1.0 --k 1024 --init random \
      --seed 1 --max-iter 20 --tol 0 --scheme fp32,fp64,tf32,bf16,fp16,fp16x2,tf32x2,bf16x3,auto --device cuda \
      2> "$OUT/kmeans700k.err" | tee "$OUT/kmeans700k.txt"; tail -3 "$OUT/kmeans700k.err"
}

qsim() {
  local Q="$BUILD/apps/qsim/qsim"
  stamp "qsim: 28-qubit brickwork, depth 20, fuse 6"
  "$Q" --generate brickwork:n=28,depth=20,seed=1 --fuse 6 --device cuda -q \
      --scheme fp32,tf32,bf16,fp16,fp16x2,tf32x2,bf16x3,bf16x9,auto 2>&1 | tee "$OUT/qsim28.txt"
  stamp "qsim: QASMBench circuits (all that parse), FP32-accurate schemes"
  for f in ../shared/circuits/qasmbench/*.qasm; do
    echo "## $(basename "$f")"
    timeout 120 "$Q" --qasm "$f" --fuse 6 --device cuda -q --scheme fp32,fp16x2,tf32x2,bf16x3 2>&1 | tail -6
  done > "$OUT/qsim_qasmbench.txt" 2>&1
  grep -cE "^## " "$OUT/qsim_qasmbench.txt"
  for d in 5 6 7 8; do
    stamp "qsim: 30-qubit brickwork, depth 20, fuse $d (fp32 target, then fp64 target)"
    "$Q" --generate brickwork:n=30,depth=20,seed=1 --fuse $d --device cuda -q \
        --scheme fp32,fp16x2,tf32x2,bf16x3,auto 2>&1 | tee "$OUT/qsim30_d$d.txt"
    "$Q" --generate brickwork:n=30,depth=20,seed=1 --fuse $d --device cuda -q --target fp64 \
        --scheme int8-ozaki,auto 2>&1 | tee "$OUT/qsim30_d${d}_fp64.txt"
  done
}

mpi() {
  export TCEMU_BUILD_DIR="$BUILD" TCEMU_SOURCE_DIR="$ROOT"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  stamp "ctest -L mpi (1, 2, 4 ranks on one GPU)"
  ctest --test-dir "$BUILD" -L mpi --output-on-failure > "$OUT/mpi_ctest.log" 2>&1; echo "ctest -L mpi exit $?"
  grep -E "Test +#|tests passed|SKIPPED|Failure" "$OUT/mpi_ctest.log" | head -30
  local n=${MPI_QUBITS:-28}
  for r in 1 2 4; do
    stamp "qsim: $n-qubit brickwork over $r MPI rank(s) on the GPU"
    mpirun --oversubscribe -np $r "$BUILD/apps/qsim/qsim" --generate brickwork:n=$n,depth=20,seed=1 --fuse 6 \
        --device cuda --scheme fp32,fp16x2 > "$OUT/qsim_mpi_r$r.txt" 2>&1; echo "exit $?"
    tail -6 "$OUT/qsim_mpi_r$r.txt"
  done
  local hn=${MPI_HPLAI_N:-16384}
  stamp "hplai: n = $hn on the GPU, one process"
  "$BUILD/apps/hplai/hplai" --n $hn --nb 512 --device cuda --scheme fp16x2,bf16 > "$OUT/hplai_mpi_1x1.txt" 2>&1; echo "exit $?"
  tail -5 "$OUT/hplai_mpi_1x1.txt"
  for grid in 1x2 2x1 2x2; do
    local r=$(( ${grid%x*} * ${grid#*x} ))
    stamp "hplai: n = $hn, --grid $grid on the GPU ($r ranks)"
    mpirun --oversubscribe -np $r "$BUILD/apps/hplai/hplai" --n $hn --nb 512 --grid $grid --device cuda \
        --scheme fp16x2,bf16 > "$OUT/hplai_mpi_$grid.txt" 2>&1; echo "exit $?"
    tail -6 "$OUT/hplai_mpi_$grid.txt"
  done
}

selftest() {  # split pass self-test incl. the exhaustive FP16 conversion check (core/src/cuda/passes/split_selftest.cuh)
  stamp "GPU self-tests (ctest -L GPU)"
  ctest --test-dir "$BUILD" -L GPU --output-on-failure > "$OUT/selftest_ctest.log" 2>&1; echo "ctest -L GPU exit $?"
  grep -E "tests passed|Passed|Failed|Skipped" "$OUT/selftest_ctest.log" | tail -5
  "$BUILD/core/tcemu-split-selftest" > "$OUT/split_selftest.log" 2>&1; echo "tcemu-split-selftest exit $?"
  grep -E "SELFTEST|FAIL" "$OUT/split_selftest.log" | head -10
}

probe() {
  stamp "tcemu-tcprobe: Tensor Core accumulation"
  "$BUILD/core/tcemu-tcprobe" --csv "$OUT/tcprobe.csv" > "$OUT/tcprobe.md" 2>&1; echo "exit $?"; cat "$OUT/tcprobe.md"
}

fused() {
  local B="$BUILD/core/tcemu-bench"
  stamp "bench: fused vs multi-pass, 8192 / knn / kmeans shapes"
  "$B" --shapes 8192,knn,kmeans --dists uniform --fp64-schemes '' --kernels fused,multipass \
      --schemes fp32,fp16x2,fp16x2-markidis,fp16x2-egemm,fp16x2-legemm,fp16x2-aligned,tf32x2,tf32x2-aligned,bf16x3,bf16x3-aligned,bf16x9 \
      --csv "$OUT/bench_fused.csv" 2> "$OUT/bench_fused.err" | tee "$OUT/bench_fused.txt"
  stamp "bench: complex qsim shapes"
  "$B" --shapes qsim:28:6,qsim:28:8 --dists uniform --fp64-schemes '' --kernels fused,multipass \
      --schemes fp32,fp16x2,tf32x2,bf16x3 --csv "$OUT/bench_fused_qsim.csv" 2> "$OUT/bench_fused_qsim.err" |
      tee "$OUT/bench_fused_qsim.txt"
}

hplai() {
  stamp "hplai: n = 65536, nb = 1024, every scheme, GPU"
  "$BUILD/apps/hplai/hplai" --n 65536 --nb 1024 --scheme all --device cuda -q 2>&1 | tee "$OUT/hplai65536.txt"
}

install_test() {
  stamp "installed package: install, build examples/ against it, run them"
  ctest --test-dir "$BUILD" -R InstalledPackage --output-on-failure > "$OUT/install_test.log" 2>&1
  echo "install test exit $?"; tail -3 "$OUT/install_test.log"
}

grid() {
  local B="$BUILD/core/tcemu-bench"
  export XDG_CACHE_HOME="$OUT/cache"
  unset TCEMU_AUTO_CALIBRATE
  stamp "calibration (cost model into $XDG_CACHE_HOME)"
  "$B" --recalibrate --explain --shapes 8192 --dists uniform --schemes auto --fp64-schemes auto --repeat 3 \
      > "$OUT/calibrate.log" 2>&1; echo "exit $?"
  stamp "auto grid, auto judged by its own call"
  "$B" --auto-grid --repeat 10 --csv "$OUT/auto_grid.csv" > "$OUT/auto_grid.txt" 2> "$OUT/auto_grid.err"
  echo "exit $?"; grep -E "auto-grid:| no " "$OUT/auto_grid.txt"
}

pack() {  # the device tool brings back at most 8 files: one archive of everything else
  local name=${PACK_NAME:-results}
  (cd "$OUT" && find . -maxdepth 1 -type f ! -name '*.tgz' -print0 | xargs -0 tar czf "$name.tgz" && \
     find . -maxdepth 1 -type f ! -name '*.tgz' -delete)
  ls -la "$OUT"
}

for job in "$@"; do
  "$job"
done
stamp "done"
