// Instantiations of the wgmma fused split-part kernel for MmaKind::tf32 (sm_90a; other
// architectures get a trapping stub that the dispatcher never selects).
#include "cuda/fused/wgmma_kernel.cuh"

namespace tcemu::cuda::detail::fused::wg {
template void launch<MmaKind::tf32, ProductSet::hi_cross, float>(const Args&, const Epilogue<float>&, cudaStream_t);
template bool available<MmaKind::tf32, ProductSet::hi_cross, float>();
template void launch<MmaKind::tf32, ProductSet::hi_cross, double>(const Args&, const Epilogue<double>&, cudaStream_t);
template bool available<MmaKind::tf32, ProductSet::hi_cross, double>();
}  // namespace tcemu::cuda::detail::fused::wg
