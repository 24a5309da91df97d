// Instantiations of the fused split-part kernel for MmaKind::tf32 (one translation unit per
// instruction kind keeps compile time per unit short).
#include "cuda/kernels/fused_kernel.cuh"

namespace tcemu::cuda::detail::fused {
TCEMU_FUSED_TABLES_TF32(TCEMU_FUSED_LAUNCH, )
}  // namespace tcemu::cuda::detail::fused
