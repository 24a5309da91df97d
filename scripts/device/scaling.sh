#!/usr/bin/env bash
# Issue 22's measurements on a lent machine of several GPUs (nvidia-h200-x2 and larger; docs/scaling.md):
# builds qsim, hplai and their MPI tests with the carried CUDA-enabled Kokkos (.deps/kokkos-cuda) into
# $BUILD (default /tmp/b-scale, kept while the machine stays warm), then runs the jobs named on the
# command line, in order:
#   build     configure + build
#   prefill   touch PREFILL_GIB (default 180) GiB of host memory and free it, for machines that grow
#             their memory as it is used (the lending tool's notes say MemAvailable may start near
#             31 GiB there; qsim's one-process memory check reads MemAvailable). The x2 machine of
#             2026-11-24 showed 251 GiB available from the start (MemAvailable 263370028 kB): not needed there
#   tests     test_qsim_mpi and test_hplai_mpi (TEST_APPS="qsim hplai") with TEST_RANKS (default "1 2")
#             ranks, one GPU per rank where there are enough (NCCL), else sharing (MPI through host memory)
#   qsim      the runs of QSIM_RUNS ("GPUS:QUBITS ...", default "1:32 2:32 2:33": 32 qubits on 1 and 2
#             GPUs, 33 on 2); brickwork depth 20, --fuse 6, --scheme QSIM_SCHEMES (default fp32,fp16x2;
#             the fp64 reference in complex128 first)
#   hplai     the runs of HPLAI_RUNS ("WHERE:N:NB ...", WHERE gpu1 = one process on one GPU, or a grid
#             PxQ over P*Q ranks, one GPU each); default: one GPU at n = 32768, grids 1x2 and 2x1 at
#             46341 (= 32768 sqrt 2: weak scaling) and at 32768 (strong scaling), nb 1024;
#             --scheme HPLAI_SCHEMES (default fp16x2,bf16), --repeat HPLAI_REPEAT (default 3)
#   pack      archive $OUT's files into scaling.tgz
# Every run is guarded by `timeout` and skipped once BUDGET_S (default 540) seconds have passed.
# NVLink multicast stays off (the machine's rule): NCCL_NVLS_ENABLE=0 is exported and passed to the ranks.
# Usage (repository root): OUT=/dir scripts/device/scaling.sh build tests qsim hplai pack
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-/tmp/b-scale}
BUDGET_S=${BUDGET_S:-540}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 TCEMU_AUTO_CALIBRATE=0
export LD_LIBRARY_PATH="$BUILD/core:${LD_LIBRARY_PATH:-}"
export TCEMU_BUILD_DIR="$BUILD" TCEMU_SOURCE_DIR="$ROOT"
MPIRUN=(mpirun --bind-to none -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -x OMP_NUM_THREADS -x TCEMU_AUTO_CALIBRATE)
QSIM="$BUILD/apps/qsim/qsim"
HPLAI="$BUILD/apps/hplai/hplai"

machine() {
  nvidia-smi --query-gpu=index,name,memory.total,memory.free,clocks.sm --format=csv || true
  nvidia-smi topo -m || true
  nproc; grep -E "MemTotal|MemAvailable" /proc/meminfo
  mpirun --version | head -1
}

prefill() {
  local gib=${PREFILL_GIB:-180} parts=6
  stamp "prefill: touch $gib GiB of host memory in $parts processes"
  for _ in $(seq $parts); do
    python3 -c "import numpy as np; a = np.ones($gib * 2**30 // 8 // $parts); print(int(a[-1]))" > /dev/null &
  done
  wait
  stamp "prefill done"; grep -E "MemTotal|MemAvailable" /proc/meminfo
}

build() {
  machine | tee "$OUT/machine.txt"
  carried_deps_args
  kokkos_cuda_build scale "$BUILD" "$ROOT" "$OUT/build.log" "" qsim hplai test_qsim_mpi test_hplai_mpi
}

# run NAME SECONDS CMD...: runs CMD under timeout with stdout in $OUT/NAME.out, stderr in NAME.err
run() {
  local name=$1 secs=$2
  shift 2
  fits "$secs" "$name" || return 0
  stamp "$name: $*"
  timeout "$secs" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  echo "$name exit $?"
  tail -12 "$OUT/$name.out"; grep -vE "panel [0-9]+/" "$OUT/$name.err" | tail -6
}

tests() {
  for r in ${TEST_RANKS:-1 2}; do
    for t in ${TEST_APPS:-qsim hplai}; do
      run "test_${t}_mpi_np$r" 240 "${MPIRUN[@]}" -np $r "$BUILD/tests/mpi/test_${t}_mpi" --gtest_brief=1
    done
  done
}

qsim() {
  # QSIM_RUNS: "GPUS:QUBITS ..." (GPUS = 1: one process; 2: two ranks, one GPU each)
  for item in ${QSIM_RUNS:-"1:32 2:32 2:33"}; do
    IFS=: read -r gpus n <<< "$item"
    local args=(--generate brickwork:n=$n,depth=20,seed=1 --fuse 6 --device cuda --scheme "${QSIM_SCHEMES:-fp32,fp16x2}" --json)
    if [ "$gpus" = 1 ]; then
      run "qsim${n}_gpu1" 200 "$QSIM" "${args[@]}"
    else
      run "qsim${n}_gpu$gpus" 300 "${MPIRUN[@]}" -np "$gpus" "$QSIM" "${args[@]}"
    fi
  done
}

hplai() {
  # HPLAI_RUNS: "WHERE:N:NB" items, WHERE = gpu1 (one process, one GPU) or a grid PxQ (P*Q ranks)
  local runs=${HPLAI_RUNS:-"gpu1:32768:1024 1x2:46341:1024 2x1:46341:1024 1x2:32768:1024 2x1:32768:1024"}
  for item in $runs; do
    IFS=: read -r where n nb <<< "$item"
    local args=(--n "$n" --nb "$nb" --device cuda --scheme "${HPLAI_SCHEMES:-fp16x2,bf16}" --repeat "${HPLAI_REPEAT:-3}" --json)
    if [ "$where" = gpu1 ]; then
      run "hplai_n${n}_nb${nb}_gpu1" 200 "$HPLAI" "${args[@]}"
    else
      run "hplai_n${n}_nb${nb}_grid$where" 200 "${MPIRUN[@]}" -np $(( ${where%x*} * ${where#*x} )) "$HPLAI" --grid "$where" "${args[@]}"
    fi
  done
}

pack() {  # one tar over the file list (xargs may split a long list into several tars, each overwriting
          # the last); the files are deleted only when the archive was written
  (cd "$OUT" && find . -maxdepth 1 -type f ! -name '*.tgz' -print0 | tar czf scaling.tgz --null -T - &&
     find . -maxdepth 1 -type f ! -name '*.tgz' ! -name machine.txt -delete)
  ls -la "$OUT"
}

for job in "$@"; do
  "$job"
done
stamp "done"
