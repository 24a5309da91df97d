#!/usr/bin/env bash
# Copies what the GPU image lacks into the git-ignored .deps/ of the checkout, to be carried with a
# device call (carry: [".deps"]): Debian's Trilinos Kokkos (headers + 3 shared libraries, Serial
# backend; cmake/TcemuKokkos.cmake finds it through TCEMU_KOKKOS_ROOT), the googletest source, and
# nlohmann-json's headers with its CMake package (apps/common/CMakeLists.txt looks in
# .deps/nlohmann-json when the machine has no nlohmann-json3-dev).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$ROOT/.deps/kokkos/include" "$ROOT/.deps/kokkos/lib"
cp -a /usr/include/trilinos "$ROOT/.deps/kokkos/include/"
cp -a /usr/lib/x86_64-linux-gnu/libtrilinos_kokkos*.so* "$ROOT/.deps/kokkos/lib/"
[ -d "$ROOT/.deps/googletest" ] || cp -a /usr/src/googletest "$ROOT/.deps/googletest"
# The package file finds its headers three levels up (<prefix>/share/cmake/nlohmann_json -> <prefix>/include).
mkdir -p "$ROOT/.deps/nlohmann-json/include" "$ROOT/.deps/nlohmann-json/share/cmake"
cp -a /usr/include/nlohmann "$ROOT/.deps/nlohmann-json/include/"
cp -a /usr/share/cmake/nlohmann_json "$ROOT/.deps/nlohmann-json/share/cmake/"
du -sh "$ROOT/.deps"
