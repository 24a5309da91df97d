# Sourced by the device scripts (apps_gpu.sh, auto_grid.sh, gpu_check.sh): repository root, output
# folder, job count, working directory at the root, and `stamp` (elapsed seconds + a message) and
# `device_info` (the GPU's name, driver, clocks, temperature and power) for their logs.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$ROOT/out}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
cd "$ROOT"
t0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
device_info() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
}
# CMake arguments for what the GPU image lacks, from the carried .deps/ (scripts/device/prepare_deps.sh):
# googletest, built and installed into /tmp/gtest once per machine, and CLI11's headers. Sets the
# array DEPS_ARGS.
carried_deps_args() {
  DEPS_ARGS=()
  local gtest_arg=""
  if [ ! -e /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ]; then
    if [ ! -e /tmp/gtest/lib/cmake/GTest/GTestConfig.cmake ]; then
      stamp "googletest from .deps/googletest"
      cmake -S .deps/googletest -B /tmp/gtest-build -DCMAKE_INSTALL_PREFIX=/tmp/gtest -DBUILD_GMOCK=OFF \
            -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_BUILD_TYPE=Release > "$OUT/gtest_build.log" 2>&1 &&
        cmake --build /tmp/gtest-build -j"$JOBS" >> "$OUT/gtest_build.log" 2>&1 &&
        cmake --install /tmp/gtest-build >> "$OUT/gtest_build.log" 2>&1
    fi
    gtest_arg="-DGTest_ROOT=/tmp/gtest"
  fi
  [ -z "$gtest_arg" ] || DEPS_ARGS+=("$gtest_arg")
  [ -e /usr/include/CLI/CLI.hpp ] || [ ! -d "$ROOT/.deps/cli11" ] || DEPS_ARGS+=("-DCLI11_INCLUDE_DIR=$ROOT/.deps/cli11")
}
# A call's time budget (BUDGET_S seconds from the start): `elapsed` prints the seconds used so far;
# `fits S WHAT` is true when a step of S seconds still ends in time, else says that WHAT is skipped.
elapsed() { echo $(( $(date +%s) - t0 )); }
fits() { [ "$(elapsed)" -le $((BUDGET_S - $1)) ] || { stamp "skipped ($2): $(elapsed)s used of $BUDGET_S"; false; }; }
# The Kokkos arguments of the before/after scripts: SERIAL_KOKKOS (the carried copy of Debian's Serial
# Kokkos, as the older trees always built), and NEW_KOKKOS (this tree: the carried CUDA-enabled Kokkos
# when .deps/kokkos-cuda is there, so that its apps run on Kokkos::Cuda, else the same Serial one).
SERIAL_KOKKOS="-DTCEMU_KOKKOS_ROOT=$ROOT/.deps/kokkos"
NEW_KOKKOS=$SERIAL_KOKKOS
[ -d "$ROOT/.deps/kokkos-cuda" ] && NEW_KOKKOS="-DKokkos_ROOT=$ROOT/.deps/kokkos-cuda"
# tree_build SOURCE-DIR BUILD-DIR KOKKOS-ARG JOBS TARGETS...: configures a tree for sm_90a without its
# tests (CLI11 from .deps/cli11 where the image has none) and builds TARGETS; log in
# $OUT/<basename BUILD-DIR>.log. Returns cmake's status.
tree_build() {
  local src=$1 dir=$2 kokkos=$3 jobs=$4 cli11=""
  shift 4
  [ -e /usr/include/CLI/CLI.hpp ] || cli11="-DCLI11_INCLUDE_DIR=$ROOT/.deps/cli11"
  # shellcheck disable=SC2086
  cmake -S "$src" -B "$dir" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a -DTCEMU_BUILD_TESTS=OFF \
        "$kokkos" $cli11 > "$OUT/$(basename "$dir").log" 2>&1 &&
    cmake --build "$dir" -j"$jobs" --target "$@" >> "$OUT/$(basename "$dir").log" 2>&1
}
# kokkos_cuda_build NAME BUILD-DIR SOURCE-DIR LOG EXTRA-CMAKE-ARGS TARGETS...: configures SOURCE-DIR for
# sm_90a with the carried CUDA-enabled Kokkos (.deps/kokkos-cuda) and DEPS_ARGS, builds TARGETS with
# $JOBS jobs (Ninja where the image has it) into BUILD-DIR, logs into LOG, prints "build NAME: exit RC
# at Ss" and, on failure, the first errors. Returns cmake's status.
kokkos_cuda_build() {
  local name=$1 dir=$2 src=$3 log=$4 extra=$5
  shift 5
  local gen=()
  command -v ninja > /dev/null && gen=(-G Ninja)
  # shellcheck disable=SC2086
  cmake "${gen[@]}" -S "$src" -B "$dir" -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_ARCHITECTURES=90a \
        -DKokkos_ROOT="$ROOT/.deps/kokkos-cuda" "${DEPS_ARGS[@]}" $extra > "$log" 2>&1 &&
    cmake --build "$dir" -j"$JOBS" --target "$@" >> "$log" 2>&1
  local rc=$?
  echo "build $name: exit $rc at $(elapsed)s"
  [ $rc = 0 ] || grep -E "error" -A3 "$log" | head -30
  return $rc
}
# build_versions PREFIX APP OLD-SOURCE: builds APP of OLD-SOURCE (the Serial Kokkos the older trees
# always used) into /tmp/PREFIX-old and of this tree ($NEW_KOKKOS) into /tmp/PREFIX-new in parallel,
# then of $EXTRA, when set, into /tmp/PREFIX-extra; sets VERSIONS to the names built ("old new" or
# "old new extra"). Used by hplai_phases.sh and qsim_phases.sh. Returns 1 when a build failed.
build_versions() {
  local prefix=$1 app=$2 old=$3
  stamp "build $app: old (Debian Kokkos) and new ($NEW_KOKKOS)"
  tree_build "$old" "/tmp/$prefix-old" "$SERIAL_KOKKOS" 6 "$app" &
  tree_build "$ROOT" "/tmp/$prefix-new" "$NEW_KOKKOS" 10 "$app" &
  wait
  VERSIONS="old new"
  if [ -n "${EXTRA:-}" ]; then
    tree_build "$EXTRA" "/tmp/$prefix-extra" "$NEW_KOKKOS" 16 "$app" || { tail -20 "$OUT/$prefix-extra.log"; return 1; }
    VERSIONS="old new extra"
  fi
  ls "/tmp/$prefix-old/apps/$app/$app" "/tmp/$prefix-new/apps/$app/$app" || { tail -20 "$OUT/$prefix"-*.log; return 1; }
}
# json_rows FILE EXPR: prints the Python expression EXPR for every entry r of the app's JSON report
# ("results"), one line each (the phase scripts' and qsim_large.sh's tables); where FILE is not a
# report (a failed run), its last lines instead.
json_rows() {
  python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(eval(sys.argv[2]))
' "$1" "$2" || tail -3 "$1"
}
