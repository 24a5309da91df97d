// Split pass instantiations for FP32 data with FP16 parts (fp16, fp16x2 and its variants).
#include "cuda/passes/split_pass.cuh"
TCEMU_INSTANTIATE_SPLIT_STORE(float, f16)
