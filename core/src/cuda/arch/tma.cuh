#pragma once
// TMA (cp.async.bulk.tensor, sm_90a): tensor-map loads into shared memory that complete on an
// mbarrier (mbarrier.cuh). The maps are built on the host (cuTensorMapEncodeTiled).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstdint>

#include "tcemu/cuda/check.hpp"
#include "tcemu/error.hpp"

namespace tcemu::cuda::detail::arch {

/// The driver's cuTensorMapEncodeTiled (looked up once per process: the runtime does not export it).
/// Throws DeviceError when the driver has none (TMA needs CUDA 12 or newer).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    TCEMU_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !fn)
      throw DeviceError("tcemu cuda: the driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12 or newer)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encode;
}

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
