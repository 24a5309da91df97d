#!/usr/bin/env bash
# README command 2: set up and build, then run every GoogleTest suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j2
