// Instantiations of int8-mixpert's fused kernel (mixpert_kernel.cuh), one per (x, y) segment count.
#include "cuda/kernels/mixpert_kernel.cuh"

namespace tcemu::cuda::detail::fused {
TCEMU_MIXPERT_SEGMENTS(TCEMU_MIXPERT_LAUNCH, )
}  // namespace tcemu::cuda::detail::fused
