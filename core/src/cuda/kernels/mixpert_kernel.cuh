#pragma once
// int8-mixpert's fused kernel (tcemu/mixpert.hpp): the mma.sync kernel's tiling, pipeline and
// fragment loads (mainloops/mma_sync_pipeline.cuh) on INT8 segment panels, with MixPert's per-step conversion.
//
// Per MMA step (32 elements of k = one k-block) and 16 x 8 output fragment: every kept segment
// product (i, j) is an m16n8k32 s8 MMA into one of two INT32 chains (exact): hi = 2^7 T_0 + T_1 and
// lo = 2^7 T_2 + T_3, T_d the products with i + j = d (the shift by 7 bits between the groups of a
// chain is an integer multiply of the accumulator); the chains become one FP32 step value
// (mixpert::step_value), which is scaled by 2^(E_x + E_y - 19) of the fragment's tiles (rows 0-7 and 8-15 of the fragment are two 8-line x
// tiles, the 8 columns one y tile) and added to the FP32 accumulator with one FMA. The host
// reference (core/src/host/mixpert.cpp) does the same operations in the same order, so the results
// are bit-identical.
//
// The s8 fragment layouts of m16n8k32 are those of f16 m16n8k16 with pairs of bytes read as one
// 16-bit element, so the ldmatrix addressing of the mma.sync pipeline serves unchanged.
#include "cuda/arch/mma_sync.cuh"
#include "cuda/kernels/fused_kernel.cuh"
#include "tcemu/mixpert.hpp"

namespace tcemu::cuda::detail::fused {

/// Exponent of k-block 2 kt + ks from a 32-bit load of the pair (2 kt, 2 kt + 1).
__device__ __forceinline__ int pair_exp(std::uint32_t pair, int ks) {
  return static_cast<int>(static_cast<std::int16_t>(ks ? pair >> 16 : pair & 0xffffu));
}

/// Tile exponents of k-tile kt (k-blocks 2 kt, 2 kt + 1) of 8-line tile `tile` (zero tile past the end).
__device__ __forceinline__ std::uint32_t load_exp_pair(const std::int16_t* ex, int tile, int tiles, int kblocks,
                                                       int kt) {
  if (tile >= tiles) return 0u;  // lines past m / n: zero digits, so the step adds nothing
  return __ldg(reinterpret_cast<const unsigned*>(ex + std::int64_t(tile) * kblocks + 2 * kt));
}

template <int SX, int SY, class T>
__global__ void __launch_bounds__(kThreads, 1) mixpert_kernel(Args a, Epilogue<T> e) {
  constexpr int NG = (SX + SY - 2 < 3 ? SX + SY - 2 : 3) + 1;  // mixpert::groups(SX, SY)
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));

  const int2 tile = block_tile(a);
  const int m0 = tile.x * kBM, n0 = tile.y * kBN;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp / kWarpsN, wn = warp % kWarpsN;
  const int tx0 = (m0 + wm * kWM) / mixpert::kTileLines;  // x tiles of this warp: tx0 + 2 mt + half
  const int ty0 = (n0 + wn * kWN) / mixpert::kTileLines;  // y tiles: ty0 + nt

  float acc[kMT][kNT][4];
  std::uint32_t exx[2 * kMT], exy[kNT];  // this k-tile's tile exponents, read before the stage wait
  auto prefetch = [&](int kt) {
#pragma unroll
    for (int q = 0; q < 2 * kMT; ++q) exx[q] = load_exp_pair(a.ex_x, tx0 + q, a.tiles8_x, a.kblocks, kt);
#pragma unroll
    for (int q = 0; q < kNT; ++q) exy[q] = load_exp_pair(a.ex_y, ty0 + q, a.tiles8_y, a.kblocks, kt);
  };
  mma_sync_pipeline<SX, SY>(a, sbase, m0, n0, tid, acc, prefetch, [&](int, unsigned sx, unsigned sy) {
#pragma unroll 1
    for (int ks = 0; ks < 2; ++ks) {
      std::uint32_t bf[SY][kNT][2];
      load_y_fragments<SY>(bf, sy, wn, lane, ks);
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        // One m16 tile's A fragments at a time: all of them at once (and the INT32 chains) spill.
        std::uint32_t af[SX][4];
        load_x_fragment<SX>(af, sx, wm, lane, ks, mt);
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt) {
          // Two exact INT32 chains: hi = 2^7 (x0 y0) + (x0 y1 + x1 y0), lo = 2^7 (d = 2) + (d = 3).
          std::int32_t hi[4] = {}, lo[4] = {};
          arch::mma_m16n8k32_s8(hi, af[0], bf[0][nt]);
#pragma unroll
          for (int r = 0; r < 4; ++r) hi[r] *= 128;
          arch::mma_m16n8k32_s8(hi, af[0], bf[1][nt]);
          arch::mma_m16n8k32_s8(hi, af[1], bf[0][nt]);
#pragma unroll
          for (int i = 0; i < SX; ++i)
#pragma unroll
            for (int j = 0; j < SY; ++j)
              if (i + j == 2) arch::mma_m16n8k32_s8(lo, af[i], bf[j][nt]);
          if constexpr (NG > 3) {
#pragma unroll
            for (int r = 0; r < 4; ++r) lo[r] *= 128;
#pragma unroll
            for (int i = 0; i < SX; ++i)
#pragma unroll
              for (int j = 0; j < SY; ++j)
                if (i + j == 3) arch::mma_m16n8k32_s8(lo, af[i], bf[j][nt]);
          }
          const int ey = pair_exp(exy[nt], ks);
          const float scale_top = mixpert::step_scale(pair_exp(exx[2 * mt], ks), ey);
          const float scale_bottom = mixpert::step_scale(pair_exp(exx[2 * mt + 1], ks), ey);
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            // Level I has no d = 3 group: lo = 2^7 T_2 there too (the shift comes after its products).
            const mixpert::Chains c{hi[r], NG > 3 ? lo[r] : lo[r] * 128};
            acc[mt][nt][r] = mixpert::accumulate(acc[mt][nt][r], mixpert::step_value(c),
                                                 r < 2 ? scale_top : scale_bottom);
          }
        }
      }
    }
  });
  store_accumulators(acc, a, e, m0, n0, wm, wn, lane);
}

/// Launches mixpert_kernel<SX, SY, T> on `args` (x_row_bytes = SX * part_bytes, y_row_bytes =
/// SY * part_bytes, part_bytes = kblocks * 32, tile exponents set; instantiated in fused_s8.cu).
template <int SX, int SY, class T>
void launch_mixpert(const Args& args, const Epilogue<T>& e, cudaStream_t stream) {
  Args a = args;
  a.ktiles = static_cast<int>(a.part_bytes / kRowBytes);
  const int smem = kStages * (SX * kBM + SY * kBN) * kRowBytes;
  launch_on_tiles<mixpert_kernel<SX, SY, T>>(smem, kThreads, a, e, stream, "launch of the MixPert kernel");
}

/// The (x, y) segment counts that have kernels (levels I-IV and their swaps).
#define TCEMU_MIXPERT_SEGMENTS(X, P) X(P, 2, 2) X(P, 2, 3) X(P, 3, 2) X(P, 3, 3)
#define TCEMU_MIXPERT_LAUNCH(PREFIX, SX, SY)                                                              \
  PREFIX template void launch_mixpert<SX, SY, float>(const Args&, const Epilogue<float>&, cudaStream_t);  \
  PREFIX template void launch_mixpert<SX, SY, double>(const Args&, const Epilogue<double>&, cudaStream_t);

}  // namespace tcemu::cuda::detail::fused
