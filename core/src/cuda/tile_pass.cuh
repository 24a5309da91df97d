#pragma once
// The one tiled pass every operand goes through: read a 32-line x 32-k tile of the operand in
// whichever order is coalesced for its strides, transpose it through shared memory, and hand each
// element to a Writer with k contiguous across the warp (so the TN panels are written coalesced),
// optionally accumulating the range profile (per-line max / sum with one atomic per warp and line,
// totals with one atomic per block).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "cuda/check.hpp"
#include "cuda/kernels.hpp"

namespace tcemu::cuda::detail {

inline constexpr int kTile = 32;
inline constexpr int kTileRows = 8;  // blockDim = (32, 8)

template <class T>
__device__ __forceinline__ double min_normal() {
  return static_cast<double>(std::numeric_limits<T>::min());
}

__device__ __forceinline__ unsigned long long warp_max_u64(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long w = __shfl_xor_sync(0xffffffffu, v, o);
    v = w > v ? w : v;
  }
  return v;
}
__device__ __forceinline__ unsigned long long warp_min_u64(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long w = __shfl_xor_sync(0xffffffffu, v, o);
    v = w < v ? w : v;
  }
  return v;
}
__device__ __forceinline__ unsigned long long warp_sum_u64(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// Tile kernel. The Writer provides:
///   std::int64_t span;                       // output positions per line (kp, or chunks * kcp)
///   __device__ std::int64_t source(std::int64_t ko) const;  // source k index of position ko, or -1
///   __device__ void operator()(std::int64_t line, std::int64_t ko, double x, bool valid) const;
/// Work items are (32-line tile, group of kTilesPerItem 32-position tiles); a grid of exactly the
/// resident blocks walks them (no partial last wave), and the next tile is loaded into registers
/// while the current one is split (loads in flight during the compute).
inline constexpr int kTilesPerItem = 8;

template <class T, class Writer>
__global__ void __launch_bounds__(kTile* kTileRows)
    tile_pass_kernel(const T* __restrict__ data, std::int64_t lines, std::int64_t line_stride,
                     std::int64_t k_stride, Writer w, ProfileArgs prof) {
  __shared__ T tile[kTile][kTile + 1];
  constexpr int R = kTile / kTileRows;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool lines_contiguous = line_stride == 1 && k_stride != 1;
  const bool profile = prof.totals != nullptr;
  const std::int64_t tiles = (w.span + kTile - 1) / kTile;
  const std::int64_t kgroups = (tiles + kTilesPerItem - 1) / kTilesPerItem;
  const std::int64_t items = (lines + kTile - 1) / kTile * kgroups;

  double tmax = 0, tmin = INFINITY;
  unsigned long long nzero = 0, nsub = 0, nnonfin = 0;

  auto load = [&](std::int64_t line0, std::int64_t t, T (&v)[R]) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int a = ty + r * kTileRows;
      const int li = lines_contiguous ? tx : a;
      const int ki = lines_contiguous ? a : tx;
      const std::int64_t line = line0 + li, ko = t * kTile + ki;
      T x = T(0);
      if (line < lines && ko < w.span) {
        const std::int64_t kk = w.source(ko);
        if (kk >= 0) x = data[line * line_stride + kk * k_stride];
      }
      v[r] = x;
    }
  };

  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const std::int64_t line0 = item / kgroups * kTile;
    const std::int64_t t0 = item % kgroups * kTilesPerItem;
    const std::int64_t t1 = t0 + kTilesPerItem < tiles ? t0 + kTilesPerItem : tiles;
    double lmax[R] = {}, lsum[R] = {};
    T v[R];
    load(line0, t0, v);
    for (std::int64_t t = t0; t < t1; ++t) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int a = ty + r * kTileRows;
        tile[lines_contiguous ? tx : a][lines_contiguous ? a : tx] = v[r];
      }
      __syncthreads();
      if (t + 1 < t1) load(line0, t + 1, v);  // in flight while this tile is split
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int li = ty + r * kTileRows;
        const std::int64_t line = line0 + li, ko = t * kTile + tx;
        if (line < lines && ko < w.span) {
          const bool valid = w.source(ko) >= 0;
          const double x = static_cast<double>(tile[li][tx]);
          w(line, ko, x, valid);
          if (profile && valid) {
            const double a = fabs(x);
            if (!isfinite(a)) {
              ++nnonfin;
            } else if (a == 0) {
              ++nzero;
            } else {
              if (a < min_normal<T>()) ++nsub;
              lmax[r] = fmax(lmax[r], a);
              lsum[r] += a;
              tmax = fmax(tmax, a);
              tmin = fmin(tmin, a);
            }
          }
        }
      }
      __syncthreads();
    }
    if (profile) {  // one warp = one ty: reduce each of its lines over the 32 lanes
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const std::int64_t line = line0 + ty + r * kTileRows;
        const unsigned long long mx = warp_max_u64(__double_as_longlong(lmax[r]));
        const double sm = warp_sum(lsum[r]);
        if (tx == 0 && line < lines) {
          if (mx != 0) atomicMax(prof.line_max_bits + line, mx);
          if (sm != 0) atomicAdd(prof.line_sum + line, sm);
        }
      }
    }
  }
  if (!profile) return;
  const unsigned long long bmax = warp_max_u64(__double_as_longlong(tmax));
  const unsigned long long bmin = warp_min_u64(__double_as_longlong(tmin));
  nzero = warp_sum_u64(nzero);
  nsub = warp_sum_u64(nsub);
  nnonfin = warp_sum_u64(nnonfin);
  if (tx == 0) {
    if (bmax != 0) atomicMax(&prof.totals->max_bits, bmax);
    atomicMin(&prof.totals->min_nonzero_bits, bmin);
    if (nzero) atomicAdd(&prof.totals->zeros, nzero);
    if (nsub) atomicAdd(&prof.totals->subnormals, nsub);
    if (nnonfin) atomicAdd(&prof.totals->nonfinite, nnonfin);
  }
}

/// Launches tile_pass_kernel with as many blocks as fit on the GPU at once (or fewer when there are
/// fewer work items) and checks the launch.
template <class T, class Writer>
void launch_tile_pass(const T* data, std::int64_t lines, std::int64_t line_stride,
                      std::int64_t k_stride, const Writer& w, const ProfileArgs& prof,
                      cudaStream_t stream) {
  if (lines <= 0 || w.span <= 0) return;
  static int per_sm = 0;
  if (per_sm == 0) {
    TCEMU_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tile_pass_kernel<T, Writer>,
                                                             kTile * kTileRows, 0));
    if (per_sm < 1) per_sm = 1;
  }
  const std::int64_t tiles = (w.span + kTile - 1) / kTile;
  const std::int64_t items = (lines + kTile - 1) / kTile * ((tiles + kTilesPerItem - 1) / kTilesPerItem);
  const std::int64_t resident = std::int64_t{per_sm} * device_sms();
  const std::int64_t grid = items < resident ? items : resident;
  tile_pass_kernel<T, Writer><<<static_cast<unsigned>(grid), dim3(kTile, kTileRows), 0, stream>>>(
      data, lines, line_stride, k_stride, w, prof);
  TCEMU_LAUNCHED("tile_pass_kernel");
}

}  // namespace tcemu::cuda::detail
