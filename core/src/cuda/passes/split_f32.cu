// Split pass instantiations for FP32 data with FP32-word parts (tf32, tf32x2, packed fp32).
#include "cuda/passes/split_pass.cuh"
TCEMU_INSTANTIATE_SPLIT_STORE(float, f32)
