// Instantiations of the wgmma fused split-part kernel for MmaKind::bf16 (sm_90a; other
// architectures get a trapping stub that the dispatcher never selects).
#include "cuda/fused/wgmma_kernel.cuh"

namespace tcemu::cuda::detail::fused::wg {
template void launch<MmaKind::bf16, ProductSet::three, float>(const Args&, const Epilogue<float>&, cudaStream_t);
template bool available<MmaKind::bf16, ProductSet::three, float>();
template void launch<MmaKind::bf16, ProductSet::three, double>(const Args&, const Epilogue<double>&, cudaStream_t);
template bool available<MmaKind::bf16, ProductSet::three, double>();
template void launch<MmaKind::bf16, ProductSet::nine, float>(const Args&, const Epilogue<float>&, cudaStream_t);
template bool available<MmaKind::bf16, ProductSet::nine, float>();
template void launch<MmaKind::bf16, ProductSet::nine, double>(const Args&, const Epilogue<double>&, cudaStream_t);
template bool available<MmaKind::bf16, ProductSet::nine, double>();
}  // namespace tcemu::cuda::detail::fused::wg
