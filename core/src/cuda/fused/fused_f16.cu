// Instantiations of the fused split-part kernel for MmaKind::f16 (one translation unit per
// instruction kind keeps compile time per unit short).
#include "cuda/fused/fused_kernel.cuh"

namespace tcemu::cuda::detail::fused {
TCEMU_FUSED_LAUNCH(, f16, hi_cross)
TCEMU_FUSED_LAUNCH(, f16, all_four)
TCEMU_FUSED_LAUNCH(, f16, hi_low3)
}  // namespace tcemu::cuda::detail::fused
