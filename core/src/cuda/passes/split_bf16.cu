// Split pass instantiations for FP32 data with BF16 parts (bf16, bf16x3, bf16x9).
#include "cuda/passes/split_pass.cuh"
TCEMU_INSTANTIATE_SPLIT_STORE(float, bf16)
