#!/usr/bin/env bash
# qsim with --target fp64 against native complex128 (issue 21's qsim line, docs/qsim.md "The FP64
# target on the GPU"): on a lent GPU, builds qsim (and EXTRA_TARGETS) with the carried CUDA-enabled
# Kokkos (.deps/kokkos-cuda), then runs each case of CASES ("n:fuse" pairs, default "28:8 28:9") as
#   qsim --generate brickwork:n=N,depth=20,seed=1 --fuse D --scheme $SCHEMES --target fp64 --device cuda
# (the native fp64 run comes first in every qsim run and is the reference), tables and logs under $OUT.
# CASES set and empty builds only. A case is skipped once BUDGET_S seconds (default 500) would be passed by its estimate (EST_S, 90).
# COMPLEX_METHODS (e.g. "3m embed auto") runs every case once per TCEMU_CUDA_COMPLEX value (int8-crt's 3M
# or real embedding; default: the variable as set), logs qsim_n<N>_d<D>_<method>.txt.
# Usage (repository root): OUT=/dir CASES="28:9 30:9" SCHEMES=int8-crt:15,int8-crt,auto bash scripts/device/qsim_fp64.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${BUILD:-/tmp/b-qsimfp64}
BUDGET_S=${BUDGET_S:-500}
EST_S=${EST_S:-90}
CASES=${CASES-"28:8 28:9"}  # set and empty: build only
SCHEMES=${SCHEMES:-int8-crt:15,int8-crt,auto}
QSIM=$BUILD/apps/qsim/qsim
export LD_LIBRARY_PATH="$BUILD/core:${LD_LIBRARY_PATH:-}"
if [ ! -x "$QSIM" ]; then
  carried_deps_args
  stamp "configure (Kokkos_ROOT=.deps/kokkos-cuda)"
  cmake -S . -B "$BUILD" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a -DKokkos_ROOT="$ROOT/.deps/kokkos-cuda" \
    "${DEPS_ARGS[@]}" > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  stamp "build qsim ${EXTRA_TARGETS:-} (-j$JOBS)"
  cmake --build "$BUILD" -j"$JOBS" --target qsim ${EXTRA_TARGETS:-} -- -k >> "$OUT/build.log" 2>&1 ||
    grep -E "error" -A3 "$OUT/build.log" | head -60
fi
[ -x "$QSIM" ] || { stamp "no qsim binary: stop"; exit 1; }
device_info
nvidia-smi --query-gpu=memory.total,memory.free --format=csv || true
for c in $CASES; do
  n=${c%%:*}; d=${c##*:}
  for method in ${COMPLEX_METHODS:-"-"}; do
    fits "$EST_S" "n=$n fuse $d" || continue
    log="$OUT/qsim_n${n}_d${d}"
    if [ "$method" != "-" ]; then export TCEMU_CUDA_COMPLEX=$method; log="${log}_$method"; fi
    stamp "qsim n=$n --fuse $d --scheme $SCHEMES --target fp64 (TCEMU_CUDA_COMPLEX=${TCEMU_CUDA_COMPLEX:-})"
    "$QSIM" --generate "brickwork:n=$n,depth=20,seed=1" --fuse "$d" --scheme "$SCHEMES" --target fp64 --device cuda \
      > "$log.txt" 2> "$log.err"
    echo "exit $?"; cat "$log.txt"; tail -3 "$log.err"
    device_info
  done
done
stamp done
