// Instantiations of the fused split-part kernel for MmaKind::tf32 (one translation unit per
// instruction kind keeps compile time per unit short).
#include "cuda/fused/fused_kernel.cuh"

namespace tcemu::cuda::detail::fused {
template void launch<MmaKind::tf32, ProductSet::hi_cross, float>(const Args&, const Epilogue<float>&, cudaStream_t);
template void launch<MmaKind::tf32, ProductSet::hi_cross, double>(const Args&, const Epilogue<double>&, cudaStream_t);
}  // namespace tcemu::cuda::detail::fused
