#!/usr/bin/env bash
# Configures and builds ./build-sanitize: the CPU-only tree (core, apps, GoogleTest suites) compiled
# with clang, AddressSanitizer and UndefinedBehaviorSanitizer, plus the libFuzzer targets of
# tests/fuzz (TCEMU_FUZZ=ON). Stage 2 of scripts/test.sh; also used by scripts/fuzz_campaign.sh.
# Needs the packages scripts/setup.sh installs (clang, libclang-rt-14-dev, llvm-14). Extra CMake
# arguments can be passed in TCEMU_SANITIZE_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/sanitizers/env.sh
source tests/sanitizers/env.sh

cxx=$(command -v clang++ || command -v clang++-14) cc=$(command -v clang || command -v clang-14)
# -fno-sanitize-recover=undefined: a UBSan report fails the test instead of scrolling by.
# -O2 -gline-tables-only: optimised enough for the test suite's run time, line numbers in reports;
# no -DNDEBUG, so assertions stay on.
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake_args=(-S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo
            -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx"
            "-DCMAKE_C_FLAGS=$san" "-DCMAKE_CXX_FLAGS=$san"
            "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only"
            "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only"
            "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
            "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined"
            -DTCEMU_ENABLE_CUDA=OFF -DTCEMU_FUZZ=ON
            # Without MPI: Open MPI's own allocations read as leaks under LeakSanitizer, and this
            # stage keeps the one-process build (no MPI) compiled and tested; stage 1 runs the
            # `mpi` tests.
            -DTCEMU_WITH_MPI=OFF)
# shellcheck disable=SC2206  # word splitting of the user's extra arguments is intended
cmake_args+=(${TCEMU_SANITIZE_CMAKE_ARGS:-})
cmake "${cmake_args[@]}"
cmake --build build-sanitize -j"$(nproc)"
