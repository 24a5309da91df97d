#!/usr/bin/env bash
# kmeans written once over Kokkos (issue 20 item 3; docs/benchmarks.md "kmeans written once, at the
# old speed"): on a lent GPU, in one call, builds this tree (new) and an older tree (old: main's
# lloyd.cpp + lloyd_cuda.cu) with the same CUDA-enabled Kokkos (.deps/kokkos-cuda), runs the new
# tree's kmeans tests, then times kmeans (700,000 x 784, k = 1024, 20 iterations; fp64, fp32 and
# fp16x2 rows of one run) old and new interleaved on the same GPU, and a per-kernel breakdown of both
# under ncu (kernel durations, 3 iterations of fp64 and fp32 on the 700,000 points without noise).
# Usage (repository root): OUT=/dir OLD=/older/source/tree scripts/device/kmeans_one_source.sh
# Knobs: ROUNDS ("1 2": timed rounds; a round is ORDER's runs), ORDER ("old new"; round 2 runs it
# reversed), NCU (1: the breakdown after round 1; end: after the last round; 0: none), NCU_VERSIONS
# ("old new"), VARIANTS ("": extra runs of the new tree after round 1,
# each NAME=VALUE, an environment setting), BUDGET_S (285: steps that would not end in time are
# skipped and say so).
# Needs .deps/kokkos-cuda, .deps/fashion-mnist, and .deps/googletest, .deps/cli11, .deps/nlohmann-json
# where the image lacks them. Logs: $OUT/kmeans_one_source.tgz, refreshed after every step.
set -uo pipefail
source "$(dirname "$0")/common.sh"
OLD=${OLD:?OLD=<older source tree>}
ROUNDS=${ROUNDS:-1 2}
ORDER=${ORDER:-old new}
NCU=${NCU:-1}
NCU_VERSIONS=${NCU_VERSIONS:-old new}
VARIANTS=${VARIANTS:-}
BUDGET_S=${BUDGET_S:-285}
LOGS=/tmp/kmeans-one-source-logs
mkdir -p "$LOGS"
export TCEMU_AUTO_CALIBRATE=0
pack() { tar czf "$OUT/kmeans_one_source.tgz" -C "$LOGS" . 2>/dev/null; }
build() {  # name source-dir extra-cmake-arg targets... (common.sh's kokkos_cuda_build into /tmp/km-name)
  local name=$1 src=$2 extra=$3
  shift 3
  kokkos_cuda_build "$name" "/tmp/km-$name" "$src" "$LOGS/build_$name.log" "$extra" "$@"
}

device_info
ln -sfn "$ROOT/.deps" "$OLD/.deps"  # the old tree finds nlohmann-json and CLI11 there too
carried_deps_args  # googletest into /tmp/gtest where the image has none; CLI11 from .deps
stamp "build old (kmeans) and new (kmeans, test_apps), data"
build old "$OLD" -DTCEMU_BUILD_TESTS=OFF kmeans &
( [ -e data/fashion-mnist-kmeans.h5 ] ||
    python3 scripts/prepare_fashion_mnist.py --source-dir .deps/fashion-mnist > "$LOGS/prepare.log" 2>&1 ) &
build new "$ROOT" "" kmeans test_apps
wait
pack

export TCEMU_BUILD_DIR=/tmp/km-new TCEMU_SOURCE_DIR="$ROOT"
stamp "new tree: kmeans' library and command-line tests"
/tmp/km-new/tests/test_apps --gtest_filter='Kmeans*:KnnKmeansAuto*' --gtest_brief=1 > "$LOGS/test_apps_kmeans.log" 2>&1
echo "test_apps Kmeans*:KnnKmeansAuto* exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$LOGS/test_apps_kmeans.log" | tr '\n' ' ')"
grep -E "FAILED|Failure" -A4 "$LOGS/test_apps_kmeans.log" | head -20
pack

kmeans_run() {  # version label [environment...]
  local v=$1 label=$2
  shift 2
  env "$@" /tmp/km-$v/apps/kmeans/kmeans --input data/fashion-mnist-kmeans.h5 --replicate 10 --noise 1.0 --k 1024 \
      --init random --max-iter 20 --tol 0 --seed 1 --scheme fp16x2 --device cuda -q \
      > "$LOGS/kmeans700k_${v}_$label.txt" 2>&1
  echo "kmeans700k $v $label (exit $?, at $(elapsed)s):"
  tail -4 "$LOGS/kmeans700k_${v}_$label.txt"
}
# A kmeans run takes about 26 s (most of it making the 700,000 points).
timed_round() {  # round order...
  local round=$1
  shift
  fits $((28 * $#)) "round $round" || return 0
  stamp "round $round: $*"
  for v in "$@"; do kmeans_run "$v" "$round"; done
  pack
}
ncu_breakdown() {
  local ncu_bin
  ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  [ -n "$ncu_bin" ] || { echo "no ncu"; return 0; }
  for v in $NCU_VERSIONS; do
    fits 25 "ncu $v" || return 0
    stamp "ncu $v: kernel durations, 3 iterations of fp64 and fp32, 700,000 points without noise"
    "$ncu_bin" --clock-control none --metrics gpu__time_duration.sum --csv --log-file "$LOGS/ncu_$v.csv" \
      /tmp/km-$v/apps/kmeans/kmeans --input data/fashion-mnist-kmeans.h5 --replicate 10 --noise 0 --k 1024 \
      --init random --max-iter 3 --tol 0 --seed 1 --scheme fp32 --device cuda -q > "$LOGS/ncu_${v}_run.txt" 2>&1 ||
      echo "ncu $v: exit $?"
    # per kernel: total milliseconds and launches over the run (fp64 and fp32 rows together); Kokkos
    # kernels by their lambda's signature and instance number in lloyd_on (numbered per signature)
    python3 - "$LOGS/ncu_$v.csv" <<'EOF' | tee "$LOGS/ncu_${v}_summary.txt"
import csv, sys, re, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head = rows[0]; k = head.index("Kernel Name"); u = head.index("Metric Unit"); val = head.index("Metric Value")
scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0, "second": 1e3}
tot = collections.OrderedDict()
for r in rows[1:]:
    full = r[k]
    tag = re.search(r"lloyd_on<Kokkos::Cuda, (\w+)>.*?\[lambda\((.*?)\) \(instance (\d+)\)\]", full)
    kind = re.search(r"Parallel(For|Reduce|Scan)", full)
    if tag:
        name = f"Kokkos {kind.group(0) if kind else '?'} lloyd_on<{tag.group(1)}> lambda({tag.group(2)[:24]}) #{tag.group(3)}"
    elif "Kokkos" in full:
        name = "Kokkos " + (kind.group(0) if kind else "") + " " + re.sub(r"\s+", " ", full)[:90]
    else:
        name = re.sub(r"\(anonymous namespace\)::|<unnamed>::", "", full)
        name = re.split(r"[(]", name.replace("void ", ""))[0][:100]
    ms = float(r[val].replace(",", "")) * scale.get(r[u], 1e-6)
    t, c = tot.get(name, (0.0, 0)); tot[name] = (t + ms, c + 1)
for n, (t, c) in sorted(tot.items(), key=lambda e: -e[1][0]):
    if t > 0.01: print(f"  {t:9.3f} ms in {c:3d} launches  {n}")
EOF
    pack
  done
}

set -- $ORDER
first=$1 second=${2:-}
for round in $ROUNDS; do
  if [ "$round" = 1 ]; then
    timed_round 1 $first $second
    [ "$NCU" = 1 ] && ncu_breakdown
    for setting in $VARIANTS; do
      fits 28 "variant $setting" && { stamp "new with $setting"; kmeans_run new "${setting%%=*}" "$setting"; pack; }
    done
  else
    timed_round "$round" $second $first
  fi
done
[ "$NCU" = end ] && ncu_breakdown
stamp done
