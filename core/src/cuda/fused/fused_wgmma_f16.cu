// Instantiations of the wgmma fused split-part kernel for MmaKind::f16 (sm_90a; other
// architectures get a trapping stub that the dispatcher never selects).
#include "cuda/fused/wgmma_kernel.cuh"

namespace tcemu::cuda::detail::fused::wg {
TCEMU_WGMMA_LAUNCH(, f16, hi_cross)
TCEMU_WGMMA_LAUNCH(, f16, all_four)
TCEMU_WGMMA_LAUNCH(, f16, hi_low3)
}  // namespace tcemu::cuda::detail::fused::wg
