#!/usr/bin/env bash
# README command 1, the main job: set up and build, convert Fashion-MNIST into data/ if it is not
# there yet, and run knn with every scheme on 1000 queries (k = 10), printing the table.
# Extra arguments go to knn (e.g. --json, --repeat 3).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
/usr/bin/python3 scripts/prepare_fashion_mnist.py
build/apps/knn/knn --input data/fashion-mnist-784-euclidean.h5 --queries 1000 --k 10 --scheme all \
  --device auto "$@"
