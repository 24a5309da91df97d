// Split pass instantiation for FP64 input.
#include "cuda/split_pass.cuh"
TCEMU_INSTANTIATE_SPLIT(double)
