// Instantiations of the fused split-part kernel for MmaKind::tf32 (one translation unit per
// instruction kind keeps compile time per unit short).
#include "cuda/fused/fused_kernel.cuh"

namespace tcemu::cuda::detail::fused {
TCEMU_FUSED_LAUNCH(, tf32, hi_cross)
}  // namespace tcemu::cuda::detail::fused
