#!/usr/bin/env bash
# README command 2: set up, build and run every test, in two stages.
#  1. ./build (gcc; the CUDA backend too when nvcc is present, its tests skip without a GPU):
#     every GoogleTest suite through CTest.
#  2. ./build-sanitize (clang, AddressSanitizer + UndefinedBehaviorSanitizer, CPU-only): the same
#     host suites, the apps they run, and the libFuzzer targets of tests/fuzz (a bounded run of each
#     with a fixed seed and a replay of the saved reproducers; CTest label `fuzz`).
#     Run-time options and suppressions: tests/sanitizers/. TCEMU_SKIP_SANITIZE=1 skips this stage.
# Each stage prints its wall time.
set -euo pipefail
cd "$(dirname "$0")/.."

# A failing stage 1 does not skip stage 2 (CI shows both); the exit status is non-zero if either failed.
t0=$SECONDS status=0
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j2 || status=1
t1=$SECONDS
echo "test.sh: stage 1 (set-up, build, tests) took $((t1 - t0)) s"

if [ "${TCEMU_SKIP_SANITIZE:-0}" = 1 ]; then
  echo "test.sh: TCEMU_SKIP_SANITIZE=1: sanitizer stage skipped"
  exit "$status"
fi
bash scripts/build_sanitize.sh
# shellcheck source=tests/sanitizers/env.sh
source tests/sanitizers/env.sh
# -LE install: the installed-package test builds an uninstrumented example program; stage 1 runs it.
ctest --test-dir build-sanitize --output-on-failure -j2 -LE install || status=1
t2=$SECONDS
echo "test.sh: stage 2 (ASan + UBSan build, tests, bounded fuzzing) took $((t2 - t1)) s; total $((t2 - t0)) s"
exit "$status"
