// Split pass instantiations for FP32 data: profile only, and FP64 panels (fp64 scheme on FP32 data).
#include "cuda/passes/split_pass.cuh"
TCEMU_INSTANTIATE_SPLIT_STORE(float, none)
TCEMU_INSTANTIATE_SPLIT_STORE(float, f64)
