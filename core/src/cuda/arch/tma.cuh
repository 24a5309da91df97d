#pragma once
// TMA (cp.async.bulk.tensor, sm_90a): tensor-map loads into shared memory that complete on an
// mbarrier (mbarrier.cuh). The maps are built on the host (cuTensorMapEncodeTiled).
#include <cuda.h>

#include <cstdint>

namespace tcemu::cuda::detail::arch {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/// Load of box (c0, c1, c2) of a 3-D tensor map into shared memory at `dst`, completing `bar`'s
/// expected transaction bytes.
__device__ __forceinline__ void tma_load_3d(unsigned dst, const CUtensorMap* map, unsigned bar, int c0, int c1,
                                            int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
/// Load of box (c0, c1, c2, c3) of a 4-D tensor map (as tma_load_3d).
__device__ __forceinline__ void tma_load_4d(unsigned dst, const CUtensorMap* map, unsigned bar, int c0, int c1,
                                            int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
#endif

}  // namespace tcemu::cuda::detail::arch
