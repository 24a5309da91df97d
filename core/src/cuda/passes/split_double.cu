// Split pass instantiations for FP64 data: profile only, FP64 panels, and the FP32-target schemes
// (one kernel per storage type, rule chosen at run time).
#include "cuda/passes/split_pass.cuh"
TCEMU_INSTANTIATE_SPLIT_STORE(double, none)
TCEMU_INSTANTIATE_SPLIT_STORE(double, f64)
TCEMU_INSTANTIATE_SPLIT_STORE(double, f16)
TCEMU_INSTANTIATE_SPLIT_STORE(double, bf16)
TCEMU_INSTANTIATE_SPLIT_STORE(double, f32)
