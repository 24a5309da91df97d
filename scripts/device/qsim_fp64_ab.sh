#!/usr/bin/env bash
# qsim --target fp64, an older tree against this one in one call on one GPU (issue 21's qsim line,
# docs/qsim.md "The FP64 target on the GPU"): builds qsim and tcemu-bench of both trees with the
# carried CUDA-enabled Kokkos (.deps/kokkos-cuda) in parallel, this tree's test_core too, then runs the
# jobs in the order given:
#   tests    this tree's test_core --gtest_filter=$TESTS (default 'CudaCrt*:Crt*:CudaComplex*')
#   app_tests this tree's test_apps --gtest_filter=$APP_TESTS (default 'QsimEngine*:QsimGpu*')
#   selftest this tree's tcemu-crt-s8-selftest --no-timing (the INT8 wgmma products bit for bit)
#   selftest_timing both trees' tcemu-crt-s8-selftest --repeat 5, old then new (checks, then the
#            8192^3 timings of cuBLAS INT8 and the kernel's INT32 and residue epilogues)
#   bench    tcemu-bench --shapes $BENCH_SHAPES --dists uniform --schemes '' --fp64-schemes $BENCH_SCHEMES, old then new
#   qsim     for each case of CASES ("n:fuse", default "28:9 30:9"), each tree of QSIM_TREES in turn
#            (default "old new"; new-nogather: this tree with TCEMU_QSIM_GATHER=off):
#            qsim --generate brickwork:n=N,depth=20,seed=1 --fuse D --scheme $SCHEMES --target fp64 --device cuda
#   ncu      Nsight Compute's kernel times (gpu__time_duration) over one new qsim run of NCU_CASE
#   ncu_detail Nsight Compute's full set (--page details CSV) over the first products launch of each
#            shape of NCU_DETAIL_SHAPES (default qsim:26:9,qsim:26:8), old then new
#   ncu_bench the same over tcemu-bench --shapes $NCU_SHAPES (default qsim:28:2,qsim:26:9) --fp64-schemes
#            int8-crt:15 --repeat 1 --warmup 0, old then new, and ncu_kernel_sums.py's per-kernel table
# Logs and tables under $OUT; steps that would pass BUDGET_S seconds (default 540) are skipped.
# NEW_ONLY=1 builds only this tree (for jobs and QSIM_TREES that run no old binary).
# Usage (repository root, on the GPU machine): OUT=/dir bash scripts/device/qsim_fp64_ab.sh OLD_SOURCE_DIR [jobs...]
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=$(cd "$1" && pwd); shift
JOBS_LIST=("$@"); [ ${#JOBS_LIST[@]} -gt 0 ] || JOBS_LIST=(tests bench qsim)
BUDGET_S=${BUDGET_S:-540}
TESTS=${TESTS:-'CudaCrt*:Crt*:CudaComplex*'}
APP_TESTS=${APP_TESTS:-'QsimEngine*:QsimGpu*'}
QSIM_TREES=${QSIM_TREES:-"old new"}
CASES=${CASES:-"28:9 30:9"}
SCHEMES=${SCHEMES:-int8-crt:15}
BENCH_SHAPES=${BENCH_SHAPES:-qsim:28:2,qsim:28:9}
BENCH_SCHEMES=${BENCH_SCHEMES:-fp64,int8-crt:15}
NCU_CASE=${NCU_CASE:-26:9}
NCU_SHAPES=${NCU_SHAPES:-qsim:28:2,qsim:26:9}
NCU_DETAIL_SHAPES=${NCU_DETAIL_SHAPES:-qsim:26:9,qsim:26:8}
NEW_B=/tmp/qab-new OLD_B=/tmp/qab-old
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos-cuda/lib:${LD_LIBRARY_PATH:-}"

carried_deps_args
[ -e "$OLD/.deps" ] || ln -sfn "$ROOT/.deps" "$OLD/.deps"
stamp "build old (qsim, tcemu-bench, tcemu-crt-s8-selftest) and new (qsim, tcemu-bench, test_core, test_apps, tcemu-crt-s8-selftest) in parallel"
if [ "${NEW_ONLY:-0}" = 1 ]; then  # only this tree's jobs (QSIM_TREES of new and new-nogather): all cores to its build
  JOBS=16 kokkos_cuda_build new "$NEW_B" "$ROOT" "$OUT/build_new.log" "" qsim tcemu-bench test_core test_apps tcemu-crt-s8-selftest &
else
JOBS=6 kokkos_cuda_build old "$OLD_B" "$OLD" "$OUT/build_old.log" "-DTCEMU_BUILD_TESTS=OFF" qsim tcemu-bench tcemu-crt-s8-selftest &
JOBS=10 kokkos_cuda_build new "$NEW_B" "$ROOT" "$OUT/build_new.log" "" qsim tcemu-bench test_core test_apps tcemu-crt-s8-selftest &
fi
wait
device_info
build_of() { if [ "${1%%-*}" = new ]; then echo "$NEW_B"; else echo "$OLD_B"; fi; }  # old | new[-x] -> its build dir
run_qsim() {  # tree n fuse
  local b=$1 n=$2 d=$3 log="$OUT/qsim_n$2_d$3_$1"
  local dir; dir=$(build_of "$b")
  local gather=on; [ "$b" = new-nogather ] && gather=off
  fits 60 "qsim $b n=$n" || return 0
  stamp "qsim ($b) n=$n --fuse $d --scheme $SCHEMES --target fp64"
  TCEMU_QSIM_GATHER=$gather "$dir/apps/qsim/qsim" --generate "brickwork:n=$n,depth=20,seed=1" --fuse "$d" \
    --scheme "$SCHEMES" --target fp64 --device cuda > "$log.txt" 2> "$log.err"
  echo "exit $?"; cat "$log.txt"; tail -2 "$log.err"
}
run_gtest() {  # binary filter log-name: this tree's GoogleTest binary, its summary and failures
  fits 120 "$3" || return 0
  stamp "$1 --gtest_filter=$2 (new)"
  "$NEW_B/tests/$1" --gtest_filter="$2" > "$OUT/$3.log" 2>&1
  echo "$1 exit $?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|Expected|Which is|SKIPPED" "$OUT/$3.log" | head -30
}
for job in "${JOBS_LIST[@]}"; do
  case $job in
    tests) run_gtest test_core "$TESTS" tests ;;
    app_tests) run_gtest test_apps "$APP_TESTS" app_tests ;;
    selftest)
      fits 60 selftest || continue
      stamp "tcemu-crt-s8-selftest --no-timing (new)"
      "$NEW_B/core/tcemu-crt-s8-selftest" --no-timing > "$OUT/selftest.log" 2>&1
      echo "selftest exit $?"; tail -3 "$OUT/selftest.log" ;;
    selftest_timing)
      for b in old new; do
        fits 90 "selftest_timing $b" || continue
        stamp "tcemu-crt-s8-selftest --repeat 5 ($b)"
        "$(build_of "$b")/core/tcemu-crt-s8-selftest" --repeat 5 > "$OUT/selftest_timing_$b.log" 2>&1
        echo "selftest exit $?"; grep -E "^TIMING|^SELFTEST" "$OUT/selftest_timing_$b.log"
      done ;;
    bench)
      for b in old new; do
        fits 60 "bench $b" || continue
        stamp "tcemu-bench ($b) --shapes $BENCH_SHAPES --dists uniform --schemes '' --fp64-schemes $BENCH_SCHEMES"
        "$(build_of "$b")/core/tcemu-bench" --shapes "$BENCH_SHAPES" --dists uniform --schemes '' --fp64-schemes "$BENCH_SCHEMES" \
          --csv "$OUT/bench_$b.csv" > "$OUT/bench_$b.txt" 2> "$OUT/bench_$b.err"
        echo "exit $?"; cat "$OUT/bench_$b.txt"
      done ;;
    qsim)
      for c in $CASES; do
        for b in $QSIM_TREES; do run_qsim "$b" "${c%%:*}" "${c##*:}"; done
      done ;;
    ncu)
      fits 120 ncu || continue
      n=${NCU_CASE%%:*} d=${NCU_CASE##*:}
      stamp "ncu over qsim (new) n=$n --fuse $d"
      ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file "$OUT/ncu_n${n}_d${d}.csv" \
        "$NEW_B/apps/qsim/qsim" --generate "brickwork:n=$n,depth=20,seed=1" --fuse "$d" --scheme "$SCHEMES" \
        --target fp64 --device cuda --no-reference > "$OUT/ncu_qsim_n${n}_d${d}.txt" 2>&1
      echo "exit $?"
      python3 scripts/device/ncu_kernel_sums.py "$OUT/ncu_n${n}_d${d}.csv" "$OUT/ncu_n${n}_d${d}.csv" 2>/dev/null | head -20 ;;
    ncu_bench)
      for b in old new; do
        fits 90 "ncu_bench $b" || continue
        stamp "ncu over tcemu-bench ($b) --shapes $NCU_SHAPES --fp64-schemes int8-crt:15"
        ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file "$OUT/ncu_bench_$b.csv" \
          "$(build_of "$b")/core/tcemu-bench" --shapes "$NCU_SHAPES" --dists uniform --schemes '' --fp64-schemes int8-crt:15 \
          --repeat 1 --warmup 0 > "$OUT/ncu_bench_$b.txt" 2>&1
        echo "exit $?"
      done
      python3 scripts/device/ncu_kernel_sums.py "$OUT/ncu_bench_old.csv" "$OUT/ncu_bench_new.csv" 30 ;;
    ncu_detail)
      for sh in ${NCU_DETAIL_SHAPES//,/ }; do
        for b in old new; do
          fits 60 "ncu_detail $b $sh" || continue
          stamp "ncu --set full over the first products launch of tcemu-bench ($b) --shapes $sh --fp64-schemes int8-crt:15"
          ncu --clock-control none --set full -k regex:s8_products_kernel -c 1 --csv --page details \
            --log-file "$OUT/ncu_detail_${sh//:/_}_$b.csv" "$(build_of "$b")/core/tcemu-bench" --shapes "$sh" \
            --dists uniform --schemes '' --fp64-schemes int8-crt:15 --repeat 1 --warmup 0 > /dev/null 2>&1
          echo "exit $?"
        done
      done ;;
    *) echo "unknown job $job" ;;
  esac
done
device_info
stamp "done"
