// Instantiations of the wgmma fused split-part kernel for MmaKind::f16 (sm_90a; other
// architectures get a trapping stub that the dispatcher never selects).
#include "cuda/kernels/wgmma_kernel.cuh"

namespace tcemu::cuda::detail::fused::wg {
TCEMU_FUSED_TABLES_F16(TCEMU_WGMMA_LAUNCH, )
}  // namespace tcemu::cuda::detail::fused::wg
