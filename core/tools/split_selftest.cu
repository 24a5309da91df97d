// tcemu-split-selftest: the device self-test of the split pass (all of it lives in the header, which
// scripts/device/gpu_check.sh also compiles on its own).
#include "cuda/passes/split_selftest.cuh"
