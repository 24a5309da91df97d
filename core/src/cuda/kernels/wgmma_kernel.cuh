#pragma once
// wgmma (sm_90a) variant of the fused split-part kernel (fused.hpp): same panels and products as
// fused_kernel.cuh, promotion once per 128 bytes of k (4 MMA steps), on Hopper's asynchronous
// warpgroup MMA, persistent (one block per SM walks the block tiles) and warp-specialised:
//  - warpgroup 0 is the producer: one thread issues TMA loads (cp.async.bulk.tensor, swizzled) of
//    every part tile of a k-tile into one pipeline stage and arms the stage's "full" mbarrier;
//  - warpgroups 1 and 2 are consumers of 64 accumulator rows each: wait for "full", issue the
//    promotion group's wgmmas, wait for them, promote the Tensor Core sum into the FP32 accumulator
//    with a round-to-nearest FADD, and release the stages through their "empty" mbarriers.
// The two consumers share each stage but are kept out of step (consumer 1 starts a tile's first group
// when consumer 0's has completed; no CTA barrier in the main loop), so while one waits for its wgmma
// group and promotes, the other's group keeps the Tensor Cores busy.
// Registers: the producer gives its registers up (setmaxnreg.dec 40), the consumers take 232 each.
// Block tiles (tile_shape): 128 x 192 for the two-part per-element tables, whose 128 x 128 tiles
// asked more of shared memory than it delivers (docs/perf-notes.md section 12), else 128 x 128.
// The stage ring (geometry, mbarriers, the TMA producer): mainloops/wgmma_ring.cuh; the PTX: arch/.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/arch/barrier.cuh"
#include "cuda/arch/wgmma.cuh"
#include "cuda/kernels.hpp"
#include "cuda/kernels/fused_kernel.cuh"
#include "cuda/mainloops/wgmma_ring.cuh"
#include "tcemu/error.hpp"

namespace tcemu::cuda::detail::fused::wg {

inline constexpr int kConsumers = 2, kThreads = 128 * (kConsumers + 1);
inline constexpr int kGroupBytes = 128;        // bytes of k per line between two promotions

/// Block tile columns (bn) and k-tile bytes per line (rb) of the kernel of a product table.
struct TileShape {
  int bn, rb;
};
/// 128 x 192 with 64-byte k-tiles (two per promotion, five stages) for the two-part per-element
/// tables: an m64n192 wgmma reads 85 bytes of shared memory per clock against m64n128's 96
/// (perf-notes section 12). The line-aligned hi_low3 tables need a third accumulator set (their
/// separate low chain), which leaves no registers for N = 192; the three-part tables would keep only
/// three 60 KB stages.
__host__ __device__ constexpr TileShape tile_shape(ProductSet s) {
  return products_of(s).parts == 2 && s != ProductSet::hi_low3 ? TileShape{192, 64} : TileShape{128, 128};
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/// One warpgroup MMA of kind K into the N / 2 accumulators per thread of an m64nN tile
/// (N = 128 or 192; arch/wgmma_ops.cuh); da, db: shared-memory matrix descriptors (arch::desc);
/// scale_d = 0 overwrites d.
template <MmaKind K, int N>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], std::uint64_t da, std::uint64_t db, int scale_d) {
  static_assert(N == 128 || N == 192, "wgmma tiles of m64n128 or m64n192");
  if constexpr (N == 128 && K == MmaKind::f16) {
    arch::wgmma_m64n128k16_f16(d, da, db, scale_d);
  } else if constexpr (N == 128 && K == MmaKind::bf16) {
    arch::wgmma_m64n128k16_bf16(d, da, db, scale_d);
  } else if constexpr (N == 128 && K == MmaKind::tf32) {
    arch::wgmma_m64n128k8_tf32(d, da, db, scale_d);
  } else if constexpr (N == 192 && K == MmaKind::f16) {
    arch::wgmma_m64n192k16_f16(d, da, db, scale_d);
  } else if constexpr (N == 192 && K == MmaKind::bf16) {
    arch::wgmma_m64n192k16_bf16(d, da, db, scale_d);
  } else if constexpr (N == 192 && K == MmaKind::tf32) {
    arch::wgmma_m64n192k8_tf32(d, da, db, scale_d);
  }
}
#endif

template <MmaKind K, ProductSet PS, class T>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_y, Args a, Epilogue<T> e) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr ProductList L = products_of(PS);
  constexpr int BN = tile_shape(PS).bn, RB = tile_shape(PS).rb, NR = BN / 2;  // NR: accumulators per thread
  using R = Ring<RB, BN>;
  constexpr int P = L.parts, S = R::stages(P), kStageBytes = R::stage_bytes(P);
  constexpr int kTileX = R::kTileX, kTileY = R::kTileY, kSteps = RB / 32, kTPG = kGroupBytes / RB;
  constexpr int kElemsPerTile = K == MmaKind::tf32 ? RB / 4 : RB / 2;
  // hi_low3 (line-aligned): the low products in their own accumulator over all of k, so that the
  // hi x hi chain stays exact. fp16x2's scaled low products (2^low_scale_exp): chained into the group's
  // sum after it is scaled (below). Every other table chains all products into one sum.
  constexpr bool kSeparateLow = PS == ProductSet::hi_low3;
  constexpr bool kScaledLow = !kSeparateLow && separate_low(K, PS);
  static_assert(S >= 2 * kTPG, "the ring must hold two promotion groups");
  extern __shared__ unsigned char smem_raw[];
  const unsigned sraw = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const unsigned sbase = (sraw + 1023u) & ~1023u;  // swizzle atoms need 1024-byte alignment
  const unsigned full0 = sbase + S * kStageBytes, empty0 = full0 + 8 * S;

  const int tid = threadIdx.x, wgi = tid >> 7;
  const int ntiles = a.tiles_m * a.tiles_n;

  if (tid == 0) init_ring<S>(full0, empty0, kConsumers * 4);
  __syncthreads();

  // Persistent (produce_ring): the producer loads the next tile while the consumers write the last one.
  if (wgi == 0) {  // producer
    arch::setmaxnreg_dec<40>();
    if (tid == 0) produce_ring<P, S, BN, RB, kElemsPerTile>(a, &map_x, &map_y, sbase, full0, empty0, ntiles);
    return;
  }
  arch::setmaxnreg_inc<232>();

  const int cw = wgi - 1;  // consumer: accumulator rows cw * 64 .. cw * 64 + 63 of the block tile
  float acc[NR];
  [[maybe_unused]] float accl[kSeparateLow ? NR : 1];
  // The wgmmas of one part product (x part pa, y part pb) over the kTPG k-tiles of the promotion
  // group that starts at k-tile `it`, into d; `scale_first` = 0 makes the first one overwrite d.
  // (No branch between the wgmmas: ptxas would put a warpgroup.arrive before each, C7519.)
  auto product = [&](float(&d)[NR], int it, int pa, int pb, int scale_first) {
#pragma unroll
    for (int j = 0; j < kTPG; ++j) {
      const unsigned st = sbase + ((it + j) % S) * kStageBytes;
      const unsigned sx = st + pa * kTileX + cw * 64 * RB;  // this consumer's 64 rows
      const unsigned sy = st + P * kTileX + pb * kTileY;
#pragma unroll
      for (int ks = 0; ks < kSteps; ++ks)  // 32 bytes of k per wgmma
        wgmma<K, BN>(d, arch::desc<RB>(sx + ks * 32), arch::desc<RB>(sy + ks * 32), j == 0 && ks == 0 ? scale_first : 1);
    }
  };
  const int lane = tid & 31, warp = (tid >> 5) & 3, g = lane >> 2, q4 = lane & 3;
  // Offset: consumer 1 starts a tile's first group when consumer 0's has completed (named barrier 1).
  // The two then stay half a period apart, so one promotes while the other's group runs (started
  // together, both would promote at once and leave the Tensor Cores idle: perf-notes 12.4-12.5).
  // Consumer 1 answers on barrier 2, and consumer 0 waits for that answer before it signals the next
  // tile, so that with few k-tiles per tile it cannot signal twice before consumer 1 has waited once.
  constexpr int kFirstDone = 1, kSeen = 2, kPair = 2 * 128;
  int signalled = 0;  // consumer 0: tiles whose first group it has signalled
  int it = 0;
  for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const int2 tc = tile_coords(a, tile);
    const int m0 = tc.x * kBM, n0 = tc.y * BN;
#pragma unroll
    for (int r = 0; r < NR; ++r) acc[r] = 0.f;
    if constexpr (kSeparateLow) {
#pragma unroll
      for (int r = 0; r < NR; ++r) accl[r] = 0.f;
    }
    // Each group's wgmmas are waited for before its promotion (as DeepGEMM does for FP8): a second
    // temporary to overlap them would be read while the other's group is in flight, which makes
    // ptxas serialise every wgmma (C7514). The other consumer's group keeps the Tensor Cores busy.
    float t[NR];
    for (int kt = 0; kt < a.ktiles; kt += kTPG) {  // a.ktiles is a multiple of kTPG (launch)
#pragma unroll
      for (int j = 0; j < kTPG; ++j) arch::mbar_wait(full0 + 8 * ((it + j) % S), ((it + j) / S) & 1);
      if (cw == 1 && kt == 0) {
        arch::bar_sync<kFirstDone, kPair>();
        arch::bar_arrive<kSeen, kPair>();
      }
      arch::wg_fence();
      if constexpr (kSeparateLow) {
#pragma unroll
        for (int q = 0; q < L.nl; ++q) product(accl, it, L.al[q], L.bl[q], 1);
#pragma unroll
        for (int q = 0; q < L.n0; ++q) product(t, it, L.a0[q], L.b0[q], q > 0);
      } else if constexpr (kScaledLow) {
        // Low products first (their parts carry 2^-low_scale_exp), scaled exactly, then hi x hi.
#pragma unroll
        for (int q = 0; q < L.nl; ++q) product(t, it, L.al[q], L.bl[q], q > 0);
        arch::wg_commit();
        arch::wg_wait<0>();
#pragma unroll
        for (int r = 0; r < NR; ++r) {
          t[r] *= a.low_scale;
          arch::fence_operand(t[r]);  // keeps the multiply before the fence
        }
        arch::wg_fence();
#pragma unroll
        for (int q = 0; q < L.n0; ++q) product(t, it, L.a0[q], L.b0[q], 1);
      } else {
#pragma unroll
        for (int q = 0; q < L.nl; ++q) product(t, it, L.al[q], L.bl[q], q > 0);
#pragma unroll
        for (int q = 0; q < L.n0; ++q) product(t, it, L.a0[q], L.b0[q], q > 0 || L.nl > 0);
      }
      arch::wg_commit();
      arch::wg_wait<0>();
      if (cw == 0 && kt == 0) {
        if (signalled++ > 0) arch::bar_sync<kSeen, kPair>();  // consumer 1 has seen the previous signal
        arch::bar_arrive<kFirstDone, kPair>();
      }
      if (lane == 0)
#pragma unroll
        for (int j = 0; j < kTPG; ++j) arch::mbar_arrive(empty0 + 8 * ((it + j) % S));
      it += kTPG;
#pragma unroll
      for (int r = 0; r < NR; ++r) acc[r] = __fadd_rn(acc[r], t[r]);
    }
#pragma unroll
    for (int r = 0; r < NR; ++r) {
      const int i = m0 + cw * 64 + warp * 16 + g + ((r >> 1) & 1) * 8;
      const int j = n0 + (r >> 2) * 8 + 2 * q4 + (r & 1);
      if (i >= a.m || j >= a.n) continue;
      float v = acc[r];
      if constexpr (kSeparateLow) v = __fmaf_rn(accl[r], a.low_scale, v);
      T* c = e.c + std::int64_t(i) * e.c_rs + std::int64_t(j) * e.c_cs;
      *c = e.beta == T(0) ? e.alpha * static_cast<T>(v) : e.alpha * static_cast<T>(v) + e.beta * *c;
    }
  }
  if (cw == 0 && signalled > 0) arch::bar_sync<kSeen, kPair>();  // consumer 1's answer to the last signal
#else
  __trap();  // compiled for an architecture without wgmma: the host never selects this (see dispatch)
#endif
}

/// True when the wgmma kernels of <K, PS, T> were compiled with wgmma for the current device (sm_90a).
template <MmaKind K, ProductSet PS, class T>
bool available() {
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, wgmma_kernel<K, PS, T>) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.binaryVersion == 90;
}

/// TMA descriptor of one split panel (fused.hpp: line l, part q, element kk at
/// base[(l * parts + q) * kp + kk]) as a 3-D tensor (kk, q, l), box = `row_bytes` of k x 1 part x
/// `box_lines` lines, swizzled by `row_bytes` (64 or 128); k past the padded part and lines past the
/// end read as zeros. Throws DeviceError when the driver rejects it (e.g. a base address that is not
/// 16-byte aligned).
CUtensorMap panel_map(const void* base, std::int64_t lines, int parts, std::int64_t part_bytes, int elem_bytes,
                      int row_bytes, int box_lines);

/// Launches the wgmma kernel of <K, PS, T> (sm_90a only; instantiated in fused_wgmma_<kind>.cu) with
/// one block per SM, block tiles and k-tiles of tile_shape(PS). (128 x 128 tiles with 64-byte k-tiles
/// promoted each measured 34-39 % slower for fp16x2 than with 128-byte ones: perf-notes 5.3; promoted
/// in pairs, as the 128 x 192 tiles are, they ran as fast: perf-notes 11.3.)
template <MmaKind K, ProductSet PS, class T>
void launch(const Args& args, const Epilogue<T>& e, cudaStream_t stream) {
  constexpr int RB = tile_shape(PS).rb, BN = tile_shape(PS).bn;
  constexpr int eb = K == MmaKind::tf32 ? 4 : 2, P = products_of(PS).parts;
  using R = Ring<RB, BN>;
  Args a = args;
  // Whole promotion groups: a k-tile past the padded part reads as zeros (TMA fill) and adds nothing.
  a.ktiles = static_cast<int>((a.part_bytes + kGroupBytes - 1) / kGroupBytes) * (kGroupBytes / RB);
  a.tiles_n = static_cast<int>((std::int64_t(a.n) + BN - 1) / BN);
  const CUtensorMap mx = panel_map(a.x, a.m, P, a.part_bytes, eb, RB, kBM);
  const CUtensorMap my = panel_map(a.y, a.n, P, a.part_bytes, eb, RB, BN);
  static const bool configured = [] {
    TCEMU_CUDA(cudaFuncSetAttribute(wgmma_kernel<K, PS, T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    R::smem_bytes(P)));
    return true;
  }();
  (void)configured;
  const std::int64_t tiles = std::int64_t(a.tiles_m) * a.tiles_n;
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, device_sms()));
  wgmma_kernel<K, PS, T><<<blocks, kThreads, R::smem_bytes(P), stream>>>(mx, my, a, e);
  ::tcemu::cuda::detail::check_cuda(cudaGetLastError(), "launch of the fused split-part kernel (wgmma)", __FILE__,
                                    __LINE__);
}

/// Explicit instantiations (PREFIX empty, in fused_wgmma_<kind>.cu) or their declarations (PREFIX
/// extern, in fused_dispatch.cu) of launch and available for <K, S, float / double>.
#define TCEMU_WGMMA_LAUNCH(PREFIX, K, S)                                                                       \
  PREFIX template void launch<MmaKind::K, ProductSet::S, float>(const Args&, const Epilogue<float>&,           \
                                                                cudaStream_t);                                 \
  PREFIX template bool available<MmaKind::K, ProductSet::S, float>();                                          \
  PREFIX template void launch<MmaKind::K, ProductSet::S, double>(const Args&, const Epilogue<double>&,         \
                                                                 cudaStream_t);                                \
  PREFIX template bool available<MmaKind::K, ProductSet::S, double>();

}  // namespace tcemu::cuda::detail::fused::wg
