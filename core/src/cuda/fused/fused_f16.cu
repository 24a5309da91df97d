// Instantiations of the fused split-part kernel for MmaKind::f16 (one translation unit per
// instruction kind keeps compile time per unit short).
#include "cuda/fused/fused_kernel.cuh"

namespace tcemu::cuda::detail::fused {
template void launch<MmaKind::f16, ProductSet::hi_cross, float>(const Args&, const Epilogue<float>&, cudaStream_t);
template void launch<MmaKind::f16, ProductSet::hi_cross, double>(const Args&, const Epilogue<double>&, cudaStream_t);
template void launch<MmaKind::f16, ProductSet::all_four, float>(const Args&, const Epilogue<float>&, cudaStream_t);
template void launch<MmaKind::f16, ProductSet::all_four, double>(const Args&, const Epilogue<double>&, cudaStream_t);
}  // namespace tcemu::cuda::detail::fused
