// int8-mixpert's pack pass (one warp per 8-line x 32-k tile); the dispatch to its fused kernel is
// dispatch/mixpert_dispatch.cu.
#include "cuda/mixpert.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/mixpert.hpp"

namespace tcemu::cuda::detail {

namespace {

constexpr int kPackWarps = 8;

/// Lane = k offset in the block; the 8 lines of the tile are walked in turn (for k-contiguous data a
/// warp reads 128 contiguous bytes per line; for line-contiguous data each lane reads the 8 lines'
/// adjacent values, one 32-byte sector, through L1).
template <class T>
__global__ void __launch_bounds__(32 * kPackWarps) pack_kernel(const T* data, std::int64_t lines, std::int64_t k,
                                                               std::int64_t line_stride, std::int64_t k_stride,
                                                               int segs, int kblocks, std::int8_t* digits,
                                                               std::int16_t* exps,
                                                               unsigned long long* counters) {
  using namespace mixpert;
  const std::int64_t warp_id = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  const std::int64_t tiles = (lines + kTileLines - 1) / kTileLines;
  if (warp_id >= tiles * kblocks) return;  // whole warps only
  const std::int64_t tl = warp_id / kblocks;
  const int kb = static_cast<int>(warp_id % kblocks);
  const std::int64_t kk = std::int64_t(kb) * kTileK + lane;
  const std::int64_t kp = std::int64_t(kblocks) * kTileK;

  float x[kTileLines];
  float tile_max = 0.f;
  int emin = INT_MAX, emax = INT_MIN, nonfinite = 0;
#pragma unroll
  for (int l = 0; l < kTileLines; ++l) {
    const std::int64_t line = tl * kTileLines + l;
    float v = 0.f;
    if (line < lines && kk < k) v = static_cast<float>(data[line * line_stride + kk * k_stride]);
    if (!isfinite(v)) {
      ++nonfinite;
      v = 0.f;
    }
    x[l] = v;
    float line_max = fabsf(v);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) line_max = fmaxf(line_max, __shfl_xor_sync(0xffffffffu, line_max, o));
    if (line_max > 0.f) {
      const int e = ilogbf(line_max);
      emin = min(emin, e);
      emax = max(emax, e);
    }
    tile_max = fmaxf(tile_max, line_max);
  }
  const int e = tile_exponent(static_cast<double>(tile_max), segs);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) nonfinite += __shfl_xor_sync(0xffffffffu, nonfinite, o);
  if (lane == 0) {
    exps[tl * kblocks + kb] = static_cast<std::int16_t>(e);
    const bool full = std::int64_t(kb + 1) * kTileK <= k;  // the rule reads full k-blocks only
    if (full && emax - emin > kMaxTileSpreadBits && emax >= emin) atomicAdd(&counters[0], 1ull);
    if (nonfinite) atomicAdd(&counters[1], static_cast<unsigned long long>(nonfinite));
  }
#pragma unroll
  for (int l = 0; l < kTileLines; ++l) {
    const std::int64_t line = tl * kTileLines + l;
    if (line < lines) mixpert::digits(x[l], e, segs, digits + line * segs * kp + kk, kp);
  }
}

}  // namespace

template <class T>
void mixpert_pack(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride, std::int64_t k_stride,
                  int segs, int kblocks, std::int8_t* digits, std::int16_t* exps, unsigned long long* counters,
                  cudaStream_t stream) {
  const std::int64_t warps = (lines + mixpert::kTileLines - 1) / mixpert::kTileLines * kblocks;
  const std::int64_t blocks = (warps + kPackWarps - 1) / kPackWarps;
  if (blocks == 0) return;
  pack_kernel<T><<<static_cast<unsigned>(blocks), 32 * kPackWarps, 0, stream>>>(
      data, lines, k, line_stride, k_stride, segs, kblocks, digits, exps, counters);
  check_cuda(cudaGetLastError(), "launch of the MixPert pack pass", __FILE__, __LINE__);
}

#define TCEMU_MIXPERT_TYPES(T)                                                                               \
  template void mixpert_pack<T>(const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int, int,  \
                                std::int8_t*, std::int16_t*, unsigned long long*, cudaStream_t);
TCEMU_MIXPERT_TYPES(float)
TCEMU_MIXPERT_TYPES(double)
#undef TCEMU_MIXPERT_TYPES

}  // namespace tcemu::cuda::detail
