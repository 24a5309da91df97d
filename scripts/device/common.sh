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
