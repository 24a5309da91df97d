// Split pass instantiation for FP32 input.
#include "cuda/split_pass.cuh"
TCEMU_INSTANTIATE_SPLIT(float)
