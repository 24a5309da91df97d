#!/usr/bin/env bash
# Nsight Compute's full set over one launch of a kernel inside tcemu-bench, with the per-instruction
# (SASS) stall samples: where a kernel's warps wait, not only how long it takes. Builds tcemu-bench of
# TREE (default: this tree) with the carried CUDA-enabled Kokkos, profiles the first launch matching
# KERNEL (a regex, default s8_products_kernel) in `tcemu-bench --shapes $SHAPE --fp64-schemes
# $SCHEMES --repeat 1 --warmup 0`, and writes raw.csv (every metric), details.csv and src.csv (SASS
# with samples per instruction) under $OUT.
# Usage (repository root, on the GPU machine): OUT=/dir [TREE=dir] [SHAPE=qsim:26:9] bash scripts/device/ncu_profile.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
TREE=$(cd "${TREE:-$ROOT}" && pwd)
SHAPE=${SHAPE:-qsim:26:9}
SCHEMES=${SCHEMES:-int8-crt:15}
KERNEL=${KERNEL:-s8_products_kernel}
export LD_LIBRARY_PATH="$ROOT/.deps/kokkos-cuda/lib:${LD_LIBRARY_PATH:-}"
carried_deps_args
[ -e "$TREE/.deps" ] || ln -sfn "$ROOT/.deps" "$TREE/.deps"
JOBS=$JOBS kokkos_cuda_build tree /tmp/ncu-profile-build "$TREE" "$OUT/build.log" "-DTCEMU_BUILD_TESTS=OFF" tcemu-bench || exit 1
stamp "ncu --set full -k regex:$KERNEL -c 1 over tcemu-bench --shapes $SHAPE --fp64-schemes $SCHEMES"
ncu --clock-control none --set full --import-source no -k "regex:$KERNEL" -c 1 -o "$OUT/profile" \
  /tmp/ncu-profile-build/core/tcemu-bench --shapes "$SHAPE" --dists uniform --schemes '' --fp64-schemes "$SCHEMES" \
  --repeat 1 --warmup 0 > "$OUT/profile.txt" 2>&1
echo "ncu exit $?"
ncu -i "$OUT/profile.ncu-rep" --page raw --csv > "$OUT/raw.csv" 2>&1; echo "raw exit $?"
ncu -i "$OUT/profile.ncu-rep" --page details --print-details all --csv > "$OUT/details.csv" 2>&1; echo "details exit $?"
ncu -i "$OUT/profile.ncu-rep" --page source --print-source sass --csv > "$OUT/src.csv" 2>&1; echo "source exit $?"
rm -f "$OUT/profile.ncu-rep"
stamp done
