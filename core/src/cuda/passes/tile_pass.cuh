#pragma once
// The one pass every operand goes through (split, Ozaki slicing, range profile): read the operand
// once at close to the copy rate and hand it to a Writer in *quads*, 4 consecutive k positions of one
// line, with the range profile accumulated on the way.
//
// Two kernels, chosen per operand from its strides (docs/perf-notes.md, 2.6):
//  - direct (k contiguous, or k less strided than the lines): one warp = one line segment of
//    32 x U quads; each lane issues its U loads (16 bytes each when aligned) before using any of them;
//    no shared memory, no barrier;
//  - transposing (lines contiguous): tiles of TK positions x 64 lines read with 16-byte loads along
//    the lines, transposed through shared memory; the next tile is loaded into registers while the
//    current one is split.
// Both run a persistent grid (as many blocks as are resident at once) of 256-thread blocks, with at
// most 64 registers per thread (4 blocks per SM, 64 KB of loads in flight) for the direct kernel and
// 80 for the transposing one (3 blocks, 48 KB; the prefetched tile needs 16 registers). The split
// code appears once per kernel (quad loops not unrolled): it is the bulk of the compile time.
//
// Writer interface:
//   std::int64_t span;   // output positions per line; a multiple of 4 when the writer stores anything
//   // Positions ko..ko+3 (ko % 4 == 0): bit e of the result is set when position ko + e holds source
//   // element kk0 + e (kk0 is set whenever the result is nonzero).
//   __device__ unsigned quad(std::int64_t ko, std::int64_t& kk0) const;
//   // Source index of one position, or -1.
//   __device__ std::int64_t source(std::int64_t ko) const;
//   // Stores the parts of the quad at positions ko..ko+3 of `line` (x is 0 where quad() has no bit).
//   template <class T> __device__ void write(std::int64_t line, std::int64_t ko, const T (&x)[4]) const;
//   // Whether the quad loops are unrolled (branch-free writers: more independent work per warp;
//   // branchy ones stay rolled so that their code appears once).
//   static constexpr bool kUnrollQuads;
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "tcemu/cuda/check.hpp"
#include "cuda/kernels.hpp"

namespace tcemu::cuda::detail {

inline constexpr int kPassThreads = 256;
inline constexpr int kPassMinBlocks = 4;   // direct kernel: 64 registers per thread
inline constexpr int kPassMinBlocksT = 3;  // transposing kernel: 80 registers (prefetched tile)
inline constexpr int kPassWarps = kPassThreads / 32;

/// True when an operand is read along k (k no more strided than the lines: each line's elements lie
/// close together), so a pass takes its per-line (direct) kernel; false when the lines are contiguous
/// (a column-major op(A)) and it takes its across-lines (transposing) kernel. The split pass's and
/// int8-crt's passes (crt_residue.cu) decide the same way.
inline bool reads_along_k(std::int64_t line_stride, std::int64_t k_stride) {
  const auto mag = [](std::int64_t v) { return v < 0 ? -v : v; };
  return k_stride == 1 || (line_stride != 1 && mag(k_stride) <= mag(line_stride));
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

__device__ __forceinline__ unsigned long long dbits(double d) {
  return static_cast<unsigned long long>(__double_as_longlong(d));
}

/// Per-thread totals of the range profile (the global max comes from the line maxima, see
/// profile_finalize). T: float for float data (exact: max/min/compare of floats), double otherwise.
/// Counts are per thread (32 bits: a thread never sees 2^32 elements, launch_tile_pass checks).
template <class T>
struct ProfileAcc {
  T tmin = std::numeric_limits<T>::infinity();
  unsigned nzero = 0, nsub = 0, nnonfin = 0;
};

/// Range statistics of the valid elements of one quad: their max and FP64 sum (returned) and the
/// thread's totals. Fast path: all four present, normal and finite (only max, min and sum); else each
/// is classified as profile_host does (non-finite, zero, subnormal).
template <class T>
__device__ __forceinline__ void profile_quad(const T (&x)[4], unsigned mask, T& qmax, double& qsum, int& qnnz,
                                             ProfileAcc<T>& acc) {
  constexpr T kMinNormal = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  T a[4];
  bool fast = mask == 0xFu;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    a[e] = fabs(x[e]);
    fast &= (a[e] >= kMinNormal) & (a[e] <= kMax);  // false for 0, subnormals, Inf and NaN
  }
  if (fast) {
    qmax = fmax(fmax(a[0], a[1]), fmax(a[2], a[3]));
    acc.tmin = fmin(acc.tmin, fmin(fmin(a[0], a[1]), fmin(a[2], a[3])));
    qsum = (static_cast<double>(a[0]) + static_cast<double>(a[1])) +
           (static_cast<double>(a[2]) + static_cast<double>(a[3]));
    qnnz = 4;
  } else {
    qmax = T(0);
    qsum = 0;
    qnnz = 0;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      if (!((mask >> e) & 1u)) continue;
      if (!(a[e] <= kMax)) {
        ++acc.nnonfin;
      } else if (a[e] == T(0)) {
        ++acc.nzero;
      } else {
        if (a[e] < kMinNormal) ++acc.nsub;
        qmax = fmax(qmax, a[e]);
        acc.tmin = fmin(acc.tmin, a[e]);
        qsum += static_cast<double>(a[e]);
        ++qnnz;
      }
    }
  }
}

/// One atomic per line for its max, sum and nonzero count.
template <class T>
__device__ __forceinline__ void line_atomics(const ProfileArgs& prof, std::int64_t line, T lmax, double lsum,
                                             int lnnz) {
  const unsigned long long mb = dbits(static_cast<double>(lmax));
  if (mb != 0) atomicMax(prof.line_max_bits + line, mb);
  if (lsum != 0) atomicAdd(prof.line_sum + line, lsum);
  if (lnnz != 0) atomicAdd(prof.line_nnz + line, lnnz);
}

/// Block reduction of the per-thread totals, one atomic per quantity and block. Every thread of the
/// block must call it.
template <class T>
__device__ __forceinline__ void flush_totals(const ProfileAcc<T>& acc, ProfileTotals* totals) {
  __shared__ unsigned long long s[4][kPassWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned long long mn = warp_min_u64(dbits(static_cast<double>(acc.tmin)));
  const unsigned long long z = warp_sum_u64(acc.nzero), sb = warp_sum_u64(acc.nsub),
                           nf = warp_sum_u64(acc.nnonfin);
  if (lane == 0) {
    s[0][warp] = mn;
    s[1][warp] = z;
    s[2][warp] = sb;
    s[3][warp] = nf;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long m = s[0][0], zz = s[1][0], ss = s[2][0], ff = s[3][0];
    for (int w = 1; w < kPassWarps; ++w) {
      m = s[0][w] < m ? s[0][w] : m;
      zz += s[1][w];
      ss += s[2][w];
      ff += s[3][w];
    }
    atomicMin(&totals->min_nonzero_bits, m);
    if (zz) atomicAdd(&totals->zeros, zz);
    if (ss) atomicAdd(&totals->subnormals, ss);
    if (ff) atomicAdd(&totals->nonfinite, ff);
  }
}

/// Elements per 16-byte vector.
template <class T>
inline constexpr int kVec = static_cast<int>(16 / sizeof(T));

/// Loads the quad whose element e (bit e of mask) is src[(kk0 + e) * ks]; absent elements are 0.
/// `vec`: ks == 1 and every full quad starts 16-byte aligned (checked by the launcher).
template <class T>
__device__ __forceinline__ void load_quad(const T* __restrict__ src, std::int64_t kk0, std::int64_t ks,
                                          unsigned mask, bool vec, T (&x)[4]) {
  if (vec && mask == 0xFu) {
    if constexpr (sizeof(T) == 4) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(src + kk0));
      x[0] = v.x;
      x[1] = v.y;
      x[2] = v.z;
      x[3] = v.w;
    } else {
      const double2 v0 = __ldg(reinterpret_cast<const double2*>(src + kk0));
      const double2 v1 = __ldg(reinterpret_cast<const double2*>(src + kk0 + 2));
      x[0] = v0.x;
      x[1] = v0.y;
      x[2] = v1.x;
      x[3] = v1.y;
    }
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e) x[e] = ((mask >> e) & 1u) ? __ldg(src + (kk0 + e) * ks) : T(0);
  }
}

/// Direct kernel: line l's quads are read along k. Work item = (line, segment of 32*U quads), one
/// warp per item; lane i handles quads i, i+32, ... of the segment.
template <class T, class Writer>
__global__ void __launch_bounds__(kPassThreads, kPassMinBlocks)
    pass_direct_kernel(const T* __restrict__ data, std::int64_t lines, std::int64_t line_stride,
                       std::int64_t k_stride, bool vec, Writer w, ProfileArgs prof) {
  constexpr int U = kVec<T>;  // quads in flight per lane: 64 bytes of loads
  const int lane = threadIdx.x & 31;
  const bool profile = prof.totals != nullptr;
  const std::int64_t nq = (w.span + 3) / 4;
  const unsigned segs = static_cast<unsigned>((nq + 32 * U - 1) / (32 * U));
  const unsigned items = static_cast<unsigned>(lines) * segs;  // < 2^31 (launch_tile_pass)
  const unsigned nwarps = gridDim.x * kPassWarps;
  ProfileAcc<T> acc;
  for (unsigned item = blockIdx.x * kPassWarps + (threadIdx.x >> 5); item < items; item += nwarps) {
    const unsigned lu = item / segs;
    const std::int64_t line = lu;
    const std::int64_t qb = std::int64_t{item - lu * segs} * (32 * U) + lane;
    const T* src = data + line * line_stride;
    T x[U][4];
    unsigned mask[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {  // all loads first
      const std::int64_t q = qb + 32 * u;
      std::int64_t kk0 = 0;
      mask[u] = q < nq ? w.quad(4 * q, kk0) : 0u;
      load_quad(src, kk0, k_stride, mask[u], vec, x[u]);
    }
    T lmax = 0;
    double lsum = 0;
    int lnnz = 0;
    // Cheap (branch-free) writers: unrolled, four independent quads for the scheduler. Others: one
    // copy of the split code, the quads taken out of their registers by selects (compile time).
    constexpr int UR = Writer::kUnrollQuads ? U : 1;
#pragma unroll UR
    for (int u = 0; u < U; ++u) {
      const std::int64_t q = qb + 32 * u;
      if (q >= nq) break;
      T xu[4];
      unsigned mu = mask[0];
#pragma unroll
      for (int e = 0; e < 4; ++e) xu[e] = x[0][e];
#pragma unroll
      for (int c = 1; c < U; ++c) {
        mu = u == c ? mask[c] : mu;
#pragma unroll
        for (int e = 0; e < 4; ++e) xu[e] = u == c ? x[c][e] : xu[e];
      }
      if (profile) {
        T qmax;
        double qsum;
        int qnnz;
        profile_quad(xu, mu, qmax, qsum, qnnz, acc);
        lmax = fmax(lmax, qmax);
        lsum += qsum;
        lnnz += qnnz;
      }
      w.write(line, 4 * q, xu);
    }
    if (profile) {
      const unsigned long long mb = warp_max_u64(dbits(static_cast<double>(lmax)));
      for (int o = 16; o > 0; o >>= 1) lsum += __shfl_xor_sync(0xffffffffu, lsum, o);
      lnnz = __reduce_add_sync(0xffffffffu, lnnz);
      if (lane == 0) line_atomics(prof, line, __longlong_as_double(static_cast<long long>(mb)), lsum, lnnz);
    }
  }
  if (profile) flush_totals(acc, prof.totals);
}

/// Tile of the transposing kernel: TK positions x 64 lines (16 KB), 4 vector loads per thread.
template <class T>
struct TileShape {
  static constexpr int TL = 64;                      // lines per tile
  static constexpr int TK = sizeof(T) == 4 ? 64 : 32;  // positions per tile
  static constexpr int VE = kVec<T>;                 // elements per 16-byte load
  static constexpr int VPR = TL / VE;                // vectors per position row
  static constexpr int NLOAD = TK * VPR / kPassThreads;
  static constexpr int NQUAD = TK * TL / 4 / kPassThreads;  // quads split per thread and tile
  static constexpr int G = 256 / TK;                 // tiles per work item (256 positions)
  static_assert(NLOAD * kPassThreads == TK * VPR, "tile loads");
  static_assert(NQUAD == 2 || NQUAD == 4, "quad mapping");
};

/// Transposing kernel: work item = (64 lines, up to 256 positions), one block per item. Quads of a
/// tile are taken by warp w as (line 4*(w + 8*(i%2)) + lane/8, quad 8*(i/2) + lane%8) for i < NQUAD:
/// each thread holds two lines (reduced over 8 lanes at the end of an item), a warp stores 4 runs of
/// 8 quads, and the shared-memory reads hit 32 different banks.
template <class T, class Writer>
__global__ void __launch_bounds__(kPassThreads, kPassMinBlocksT)
    pass_transposed_kernel(const T* __restrict__ data, std::int64_t lines, std::int64_t line_stride,
                           std::int64_t k_stride, bool vec, Writer w, ProfileArgs prof) {
  using S = TileShape<T>;
  __shared__ T tile[S::TK][S::TL + 1];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const bool profile = prof.totals != nullptr;
  const unsigned tiles = static_cast<unsigned>((w.span + S::TK - 1) / S::TK);
  const unsigned groups = (tiles + S::G - 1) / S::G;
  const unsigned items = static_cast<unsigned>((lines + S::TL - 1) / S::TL) * groups;  // < 2^31
  ProfileAcc<T> acc;

  T v[S::NLOAD][S::VE];
  auto load_tile = [&](std::int64_t line0, unsigned t) {
#pragma unroll
    for (int i = 0; i < S::NLOAD; ++i) {
      const int f = tid + kPassThreads * i;
      const int r = f / S::VPR, cv = f % S::VPR;
      const std::int64_t ko = std::int64_t{t} * S::TK + r;
      const std::int64_t kk = ko < w.span ? w.source(ko) : -1;
      const std::int64_t l = line0 + cv * S::VE;
      if (kk < 0) {
#pragma unroll
        for (int e = 0; e < S::VE; ++e) v[i][e] = T(0);
      } else if (vec && l + S::VE <= lines) {
        const T* p = data + kk * k_stride + l;
        if constexpr (sizeof(T) == 4) {
          const float4 q = __ldg(reinterpret_cast<const float4*>(p));
          v[i][0] = q.x;
          v[i][1] = q.y;
          v[i][2] = q.z;
          v[i][3] = q.w;
        } else {
          const double2 q = __ldg(reinterpret_cast<const double2*>(p));
          v[i][0] = q.x;
          v[i][1] = q.y;
        }
      } else {
#pragma unroll
        for (int e = 0; e < S::VE; ++e)
          v[i][e] = l + e < lines ? __ldg(data + (l + e) * line_stride + kk * k_stride) : T(0);
      }
    }
  };

  // This block's tiles in order: items blockIdx.x, blockIdx.x + gridDim.x, ...; tiles t of an item
  // from its group start to the group end (or the last tile).
  unsigned item = blockIdx.x;
  if (item < items) {
    unsigned lb = item / groups, t = (item - lb * groups) * S::G;
    T lmax[2] = {T(0), T(0)};
    double lsum[2] = {0, 0};
    int lnnz[2] = {0, 0};
    load_tile(std::int64_t{lb} * S::TL, t);
    for (;;) {
#pragma unroll
      for (int i = 0; i < S::NLOAD; ++i) {
        const int f = tid + kPassThreads * i;
        const int r = f / S::VPR, cv = f % S::VPR;
#pragma unroll
        for (int e = 0; e < S::VE; ++e) tile[r][cv * S::VE + e] = v[i][e];
      }
      __syncthreads();
      // Next tile of this block (possibly of its next item), loaded while this one is split.
      const bool item_done = (t + 1) % S::G == 0 || t + 1 >= tiles;
      unsigned n_item = item, n_lb = lb, n_t = t + 1;
      if (item_done) {
        n_item = item + gridDim.x;
        n_lb = n_item / groups;
        n_t = (n_item - n_lb * groups) * S::G;
      }
      const bool more = n_item < items;
      if (more) load_tile(std::int64_t{n_lb} * S::TL, n_t);
      const std::int64_t line0 = std::int64_t{lb} * S::TL;
      constexpr int UR = Writer::kUnrollQuads ? S::NQUAD : 1;
#pragma unroll UR
      for (int i = 0; i < S::NQUAD; ++i) {  // one copy of the split code unless the writer is cheap
        const int g = warp + kPassWarps * i;
        const int ll = 4 * (g % 16) + (lane >> 3);
        const int j = 8 * (g / 16) + (lane & 7);
        const std::int64_t line = line0 + ll, ko = std::int64_t{t} * S::TK + 4 * j;
        if (line < lines && ko < w.span) {
          T x[4];
#pragma unroll
          for (int e = 0; e < 4; ++e) x[e] = tile[4 * j + e][ll];
          if (profile) {
            std::int64_t kk0;
            const unsigned mask = w.quad(ko, kk0);
            T qmax;
            double qsum;
            int qnnz;
            profile_quad(x, mask, qmax, qsum, qnnz, acc);
            const bool h = i & 1;
            lnnz[0] = h ? lnnz[0] : lnnz[0] + qnnz;
            lnnz[1] = h ? lnnz[1] + qnnz : lnnz[1];
            lmax[0] = h ? lmax[0] : fmax(lmax[0], qmax);
            lmax[1] = h ? fmax(lmax[1], qmax) : lmax[1];
            lsum[0] = h ? lsum[0] : lsum[0] + qsum;
            lsum[1] = h ? lsum[1] + qsum : lsum[1];
          }
          w.write(line, ko, x);
        }
      }
      if (item_done && profile) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          unsigned long long mb = dbits(static_cast<double>(lmax[h]));
          double sm = lsum[h];
          int nz = lnnz[h];
          for (int o = 1; o < 8; o <<= 1) {
            const unsigned long long ob = __shfl_xor_sync(0xffffffffu, mb, o);
            mb = ob > mb ? ob : mb;
            sm += __shfl_xor_sync(0xffffffffu, sm, o);
            nz += __shfl_xor_sync(0xffffffffu, nz, o);
          }
          const std::int64_t line = line0 + 4 * (warp + kPassWarps * h) + (lane >> 3);
          if ((lane & 7) == 0 && line < lines)
            line_atomics(prof, line, __longlong_as_double(static_cast<long long>(mb)), sm, nz);
          lmax[h] = T(0);
          lsum[h] = 0;
          lnnz[h] = 0;
        }
      }
      __syncthreads();
      if (!more) break;
      item = n_item;
      lb = n_lb;
      t = n_t;
    }
  }
  if (profile) flush_totals(acc, prof.totals);
}

/// Runs the pass over `lines` lines of an operand (element (l, kk) at data[l * line_stride +
/// kk * k_stride]) with `w`. `quads_aligned`: every full quad's source indices start at a multiple of
/// 4 (then 16-byte loads are used where the strides and the pointer allow). The grid is the number of
/// blocks resident at once, or fewer when there is less work.
template <class T, class Writer>
void launch_tile_pass(const T* data, std::int64_t lines, std::int64_t line_stride, std::int64_t k_stride,
                      const Writer& w, const ProfileArgs& prof, bool quads_aligned, cudaStream_t stream) {
  if (lines <= 0 || w.span <= 0) return;
  // 32-bit work-item indices: at least 256 positions per item, so only operands beyond 2^39
  // elements could overflow them.
  if ((lines + 63) / 64 * ((w.span + 255) / 256) >= (std::int64_t{1} << 31) ||
      lines * ((w.span + 128 * kVec<T> - 1) / (128 * kVec<T>)) >= (std::int64_t{1} << 31))
    throw InvalidArgument("tcemu cuda split: operand too large (" + std::to_string(lines) + " x " +
                          std::to_string(w.span) + ")");
  const bool aligned16 = reinterpret_cast<std::uintptr_t>(data) % 16 == 0;
  const bool direct = reads_along_k(line_stride, k_stride);
  if (direct) {
    static int per_sm = 0;
    if (per_sm == 0) {
      TCEMU_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pass_direct_kernel<T, Writer>,
                                                               kPassThreads, 0));
      if (per_sm < 1) per_sm = 1;
    }
    const bool vec = quads_aligned && aligned16 && k_stride == 1 &&
                     (lines == 1 || line_stride % kVec<T> == 0);
    const std::int64_t nq = (w.span + 3) / 4;
    const std::int64_t items = lines * ((nq + 32 * kVec<T> - 1) / (32 * kVec<T>));
    const std::int64_t need = (items + kPassWarps - 1) / kPassWarps;
    const std::int64_t resident = std::int64_t{per_sm} * device_sms();
    const std::int64_t grid = need < resident ? need : resident;
    pass_direct_kernel<T, Writer><<<static_cast<unsigned>(grid), kPassThreads, 0, stream>>>(
        data, lines, line_stride, k_stride, vec, w, prof);
    TCEMU_LAUNCHED("pass_direct_kernel");
  } else {
    using S = TileShape<T>;
    static int per_sm = 0;
    if (per_sm == 0) {
      TCEMU_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pass_transposed_kernel<T, Writer>,
                                                               kPassThreads, 0));
      if (per_sm < 1) per_sm = 1;
    }
    const bool vec = aligned16 && line_stride == 1 && k_stride % S::VE == 0;
    const std::int64_t tiles = (w.span + S::TK - 1) / S::TK;
    const std::int64_t items = (lines + S::TL - 1) / S::TL * ((tiles + S::G - 1) / S::G);
    const std::int64_t resident = std::int64_t{per_sm} * device_sms();
    const std::int64_t grid = items < resident ? items : resident;
    pass_transposed_kernel<T, Writer><<<static_cast<unsigned>(grid), kPassThreads, 0, stream>>>(
        data, lines, line_stride, k_stride, vec, w, prof);
    TCEMU_LAUNCHED("pass_transposed_kernel");
  }
}

}  // namespace tcemu::cuda::detail
