#pragma once
// The wgmma kernel's stage ring (kernels/wgmma_kernel.cuh, sm_90a): the ring's geometry, its
// mbarriers (a "full" and an "empty" barrier per stage) and its producer, one thread that streams
// every part tile of each k-tile into a stage with TMA. The consumers' side (wait for "full", wgmma,
// arrive on "empty") stays in the kernel, between its MMAs and its promotions.
#include <cuda.h>

#include "cuda/arch/mbarrier.cuh"
#include "cuda/arch/tma.cuh"
#include "cuda/mainloops/mma_sync_pipeline.cuh"  // Args, tile_coords (shared by both main loops)

namespace tcemu::cuda::detail::fused::wg {

inline constexpr int kBM = 128;  // block tile rows: two consumers of 64
inline constexpr int kRingBytes = 200 * 1024;  // shared memory for the stage ring

/// Stage geometry of block tiles kBM x BN and k-tiles of RB bytes (128: 128-byte swizzle, 64: 64-byte),
/// for `parts` parts per side.
template <int RB, int BN>
struct Ring {
  static_assert(RB == 64 || RB == 128, "k-tiles of 64 or 128 bytes");
  static constexpr int kTileX = kBM * RB;  // one part tile of x: kBM lines x RB bytes of k
  static constexpr int kTileY = BN * RB;   // one part tile of y
  static constexpr int stage_bytes(int parts) { return parts * (kTileX + kTileY); }
  static constexpr int stages(int parts) { return kRingBytes / stage_bytes(parts); }
  static constexpr int smem_bytes(int parts) { return stages(parts) * stage_bytes(parts) + 16 * stages(parts) + 1024; }
};

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/// One thread initialises the S stages' barriers at full0 + 8 s ("full": one arrival, the producer's,
/// plus the TMA bytes) and empty0 + 8 s ("empty": `consumer_warps` arrivals).
template <int S>
__device__ __forceinline__ void init_ring(unsigned full0, unsigned empty0, unsigned consumer_warps) {
  for (int s = 0; s < S; ++s) {
    arch::mbar_init(full0 + 8 * s, 1);
    arch::mbar_init(empty0 + 8 * s, consumer_warps);  // one arrival per consumer warp
  }
  arch::mbar_fence_init();
}

/// The producer (one thread). Persistent: block b takes tiles b, b + gridDim.x, ...; the stage ring
/// and its phases run on across tiles (`it` counts k-tiles since the start), so the producer loads
/// the next tile while the consumers write the last one. Per k-tile: wait for the stage's "empty"
/// phase, expect its bytes on "full", and load the P part tiles of x (kBM lines) and of y (BN lines),
/// kElemsPerTile elements of k each.
template <int P, int S, int BN, int RB, int kElemsPerTile>
__device__ __forceinline__ void produce_ring(const Args& a, const CUtensorMap* map_x, const CUtensorMap* map_y,
                                             unsigned sbase, unsigned full0, unsigned empty0, int ntiles) {
  using R = Ring<RB, BN>;
  constexpr int kStageBytes = R::stage_bytes(P), kTileX = R::kTileX, kTileY = R::kTileY;
  int it = 0;
  for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const int2 tc = tile_coords(a, tile);
    const int m0 = tc.x * kBM, n0 = tc.y * BN;
    for (int kt = 0; kt < a.ktiles; ++kt, ++it) {
      const int s = it % S;
      arch::mbar_wait(empty0 + 8 * s, ((it / S) & 1) ^ 1);
      const unsigned full = full0 + 8 * s, dst = sbase + s * kStageBytes;
      arch::mbar_expect_tx(full, kStageBytes);
#pragma unroll
      for (int p = 0; p < P; ++p) {
        arch::tma_load_3d(dst + p * kTileX, map_x, full, kt * kElemsPerTile, p, m0);
        arch::tma_load_3d(dst + P * kTileX + p * kTileY, map_y, full, kt * kElemsPerTile, p, n0);
      }
    }
  }
}
#endif

}  // namespace tcemu::cuda::detail::fused::wg
