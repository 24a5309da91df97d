// Instantiations of the fused split-part kernel for MmaKind::bf16 (one translation unit per
// instruction kind keeps compile time per unit short).
#include "cuda/fused/fused_kernel.cuh"

namespace tcemu::cuda::detail::fused {
template void launch<MmaKind::bf16, ProductSet::three, float>(const Args&, const Epilogue<float>&, cudaStream_t);
template void launch<MmaKind::bf16, ProductSet::three, double>(const Args&, const Epilogue<double>&, cudaStream_t);
template void launch<MmaKind::bf16, ProductSet::nine, float>(const Args&, const Epilogue<float>&, cudaStream_t);
template void launch<MmaKind::bf16, ProductSet::nine, double>(const Args&, const Epilogue<double>&, cudaStream_t);
}  // namespace tcemu::cuda::detail::fused
