// The bit-indexed fp16x2-aligned kernel (tcemu/cuda/bit_gemm.hpp; plan and tables: bit_gemm_plan.hpp).
//
// Persistent blocks of one or two groups of 8 warps (bit_gemm_plan.hpp) walk the row tiles. Per tile:
//   1. gather: cp.async of the tile's 2^(kTileBits) complex elements, two (16 bytes) per copy, in
//      index order into an FP32 staging tile (rows, or interleaved row pairs), kStages tiles ahead;
//   2. split: a few lanes per row compute the row's max, nonzero mean and finiteness (the range
//      rules) and its scale sigma_row, then write hi / lo FP16 parts (split::AlignedSplitter);
//   3. products: mma.sync m16n8k16 against U's parts (in shared memory for the whole call), chained
//      and promoted as the wgmma fused kernel does for ProductSet::hi_low3 (the default on Hopper);
//   4. epilogue: each thread's accumulator pair is one complex output (the interleaved embedding),
//      scaled by 2^-(sigma_row + sigma_U) and stored at its index position in y.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/arch/barrier.cuh"
#include "cuda/arch/cp_async.cuh"
#include "cuda/arch/ldmatrix.cuh"
#include "cuda/arch/mma_sync.cuh"
#include "cuda/kernels/bit_gemm_plan.hpp"
#include "tcemu/schemes/all.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/split.hpp"

namespace tcemu::cuda::detail::bitgemm {

namespace {

using arch::cp_async16;  // 16 bytes, L2 only: the staging tiles leave little L1 (docs/perf-notes.md 8.3)
using arch::ldmatrix_x4;

__device__ __forceinline__ std::uint32_t tile_base(const Tables& t, std::uint64_t b) {
  return t.base[0][b & 255] | t.base[1][(b >> 8) & 255] | t.base[2][(b >> 16) & 255] | t.base[3][(b >> 24) & 255];
}

/// split::ozaki_line_exponent(mx) from the FP32 bits: the smallest e with mx < 2^e; 0 for 0.
__device__ __forceinline__ int line_exponent(float mx) {
  if (!(mx > 0.f)) return 0;
  if (mx >= 1.17549435e-38f) return int((__float_as_uint(mx) >> 23) & 255u) - 126;
  return ilogbf(mx) + 1;  // subnormal
}

/// split::aligned_scale_exp(mx) given e = line_exponent(mx), but clamped to [-60, s_max]
/// (Params::row_sigma_max: the row's factor 2^-(sigma + sigma_U) only has to stay a normal FP32).
__device__ __forceinline__ int scale_exponent(float mx, int e, int s_max) {
  if (!(mx > 0.f)) return 0;
  const int s = split::kAlignedTopExp - e;
  return s > s_max ? s_max : (s < -split::kAlignedMaxScaleExp ? -split::kAlignedMaxScaleExp : s);
}

template <int D>
__global__ void __launch_bounds__(Geometry<D>::kThreads, D == 6 ? 1 : 2) bit_gemm_kernel(Params p) {
  using G = Geometry<D>;
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = threadIdx.x, lane = tid & 31;
  const int group = tid / G::kGroupThreads, gtid = tid % G::kGroupThreads, warp = gtid >> 5;
  unsigned char* const stage_mem = smem + group * G::kGroupBytes;
  unsigned char* const a_mem = stage_mem + G::kStages * G::kStageBytes;
  unsigned char* const b_mem = smem + G::kGroups * G::kGroupBytes;
  Tables& tab = *reinterpret_cast<Tables*>(b_mem + G::kBBytes);
  float* const row_factor = reinterpret_cast<float*>(&tab + 1) + group * G::kBM;
  const unsigned s_stage = static_cast<unsigned>(__cvta_generic_to_shared(stage_mem));
  const unsigned s_a = static_cast<unsigned>(__cvta_generic_to_shared(a_mem));
  const unsigned s_b = static_cast<unsigned>(__cvta_generic_to_shared(b_mem));
  // The group's own barrier (named barrier 1 + group; 0 is __syncthreads).
  auto group_sync = [&] {
    if constexpr (G::kGroups == 1)
      __syncthreads();
    else if (group == 0)
      arch::bar_sync<1, G::kGroupThreads>();
    else
      arch::bar_sync<2, G::kGroupThreads>();
  };

  {
    const uint4* src = reinterpret_cast<const uint4*>(p.tables);
    uint4* dst = reinterpret_cast<uint4*>(&tab);
    for (int i = tid; i < int(sizeof(Tables) / 16); i += G::kThreads) dst[i] = src[i];
    constexpr int kChunks = G::kK * 2 / 16;  // 16-byte chunks per line of a part
    const uint4* b = reinterpret_cast<const uint4*>(p.b_parts);
    for (int i = tid; i < 2 * G::kK * kChunks; i += G::kThreads)
      *reinterpret_cast<uint4*>(b_mem + (i / kChunks) * G::kPartStride + (i % kChunks) * 16) = b[i];
  }
  __syncthreads();  // tables and U's parts in place for both groups

  const auto* x = static_cast<const float2*>(p.x);
  auto* y = static_cast<float2*>(p.y);
  // Chunk u = i * 256 + gtid holds elements t = 2u, 2u + 1 (t = the tile's index bits, compressed;
  // its bit 0 is index bit 0). The low 6 bits of t are fixed per thread, the high ones are i*8 + gtid/32.
  const std::uint32_t my_index = tab.gather_index[0][(2 * gtid) & 63], my_smem = tab.gather_smem[0][(2 * gtid) & 63];
  auto issue = [&](int stage, std::uint64_t b) {
    const std::uint32_t base = tile_base(tab, b) + my_index;
    const unsigned s = s_stage + stage * G::kStageBytes + my_smem;
#pragma unroll 4
    for (int h = gtid >> 5; h < (1 << (G::kTileBits - 6)); h += 2 * G::kGroupThreads / 64)
      cp_async16(s + tab.gather_smem[1][h], x + (base + tab.gather_index[1][h]));
  };

  // Group g of block k takes tiles k * kGroups + g, then every gridDim.x * kGroups-th.
  const std::uint64_t first = std::uint64_t(blockIdx.x) * G::kGroups + group, stride = std::uint64_t(gridDim.x) * G::kGroups;
#pragma unroll
  for (int s = 0; s < G::kStages; ++s) {
    const std::uint64_t b = first + s * stride;
    if (b < p.tiles) issue(s, b);
    arch::cp_async_commit();
  }

  const int wm = warp / G::kWarpsN, wn = warp % G::kWarpsN;
  int it = 0;
  for (std::uint64_t b = first; b < p.tiles; b += stride, ++it) {
    const int stage = it % G::kStages;
    arch::cp_async_wait<G::kStages - 1>();
    group_sync();

    // Split: kLanes lanes per row (4 complex each), kRowsPerPass rows per warp at a time: the row's
    // scale and range rules, then hi / lo FP16 parts.
    {
      constexpr int kPerLane = 4, kLanes = G::kCols / kPerLane, kRowsPerPass = 32 / kLanes;
      constexpr int kRowsPerWarp = G::kBM / G::kWarps;
      const int sub = lane % kLanes, slot = lane / kLanes;
      const unsigned char* st = stage_mem + stage * G::kStageBytes;
#pragma unroll 1
      for (int rr = 0; rr < kRowsPerWarp; rr += kRowsPerPass) {
        const int row = warp * kRowsPerWarp + rr + slot;
        float2 v[kPerLane];
        float mx = 0.f, sum = 0.f;
        int nnz = 0;
        bool finite = true;
#pragma unroll
        for (int q = 0; q < kPerLane; ++q) {
          v[q] = *reinterpret_cast<const float2*>(st + tab.row_stage[row] + (sub + kLanes * q) * p.stage_col_bytes);
          const float a0 = fabsf(v[q].x), a1 = fabsf(v[q].y);
          finite = finite && isfinite(a0) && isfinite(a1);
          mx = fmaxf(mx, fmaxf(a0, a1));
          sum += a0 + a1;
          nnz += (a0 != 0.f) + (a1 != 0.f);
        }
#pragma unroll
        for (int o = kLanes / 2; o > 0; o >>= 1) {
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
          sum += __shfl_xor_sync(0xffffffffu, sum, o);
          nnz += __shfl_xor_sync(0xffffffffu, nnz, o);
          const int other_finite = __shfl_xor_sync(0xffffffffu, int(finite), o);  // every lane shuffles
          finite = finite && other_finite;
        }
        const int e = line_exponent(mx), sigma = scale_exponent(mx, e, p.row_sigma_max);
        if (sub == 0) {
          unsigned rule = finite ? 0u : kFlagNonFinite;
          if (finite && mx > 0.f && (e + sigma > split::kAlignedTopExp || e + sigma < -1)) rule |= kFlagScale;
          if (finite && nnz > 0 && mx * float(nnz) > float(1 << int(split::kAlignedMaxSpreadBits)) * sum) {
            rule |= kFlagSpread;
            atomicMax(p.flags + 1, __float_as_uint(log2f(mx * float(nnz) / sum)));
          }
          if (rule) atomicOr(p.flags, rule);
          row_factor[row] = split::pow2f(-(sigma + p.b_sigma));
        }
        // The packing rounds to FP16: the same parts as split::split_aligned for every row the range
        // rules accept (rows they reject are declined, their parts unused).
        const split::AlignedSplitter splitter(sigma, e);
#pragma unroll
        for (int q = 0; q < kPerLane; ++q) {
          const int c = sub + kLanes * q;
          float xr, hr, xi, hi;
          splitter.scaled_by_product(v[q].x, xr, hr);  // accepted rows: e + sigma in [-1, 15]
          splitter.scaled_by_product(v[q].y, xi, hi);
          *reinterpret_cast<__half2*>(a_mem + row * G::kPartStride + c * 4) = __floats2half2_rn(hr, hi);
          *reinterpret_cast<__half2*>(a_mem + (G::kBM + row) * G::kPartStride + c * 4) = __floats2half2_rn(xr - hr, xi - hi);
        }
      }
    }
    group_sync();
    {
      const std::uint64_t nb = b + G::kStages * stride;
      if (nb < p.tiles) issue(stage, nb);
      arch::cp_async_commit();
    }

    // Products as the wgmma fused kernel (wgmma_kernel.cuh) runs ProductSet::hi_low3: the three low
    // products chain inside the Tensor Core over the whole k (accl); hi x hi chains from zero over
    // kPromote MMA steps (64 elements of k) and joins the FP32 accumulator by a round-to-nearest FADD.
    constexpr schemes::FusedProducts L = schemes::fused_products(FusedTable::hi_low3);
    constexpr int kSteps = G::kK / 16, kPromote = kSteps < 4 ? kSteps : 4;
    float acc[G::kMT][G::kNT][4], accl[G::kMT][G::kNT][4], h[G::kMT][G::kNT][4];
#pragma unroll
    for (int i = 0; i < G::kMT; ++i)
#pragma unroll
      for (int j = 0; j < G::kNT; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[i][j][r] = accl[i][j][r] = 0.f;
    const int j8 = lane >> 3;
#pragma unroll 1
    for (int k0 = 0; k0 < kSteps; k0 += kPromote) {
#pragma unroll
      for (int ks = k0; ks < k0 + kPromote; ++ks) {
        std::uint32_t bf[2][G::kNT][2];
#pragma unroll
        for (int part = 0; part < 2; ++part)
#pragma unroll
          for (int nj = 0; nj < G::kNT / 2; ++nj) {
            const int line = wn * G::kWN + nj * 16 + (j8 >> 1) * 8 + (lane & 7);
            std::uint32_t r[4];
            ldmatrix_x4(r, s_b + (part * G::kK + line) * G::kPartStride + (ks * 2 + (j8 & 1)) * 16);
            bf[part][2 * nj][0] = r[0];
            bf[part][2 * nj][1] = r[1];
            bf[part][2 * nj + 1][0] = r[2];
            bf[part][2 * nj + 1][1] = r[3];
          }
        std::uint32_t af[2][G::kMT][4];
#pragma unroll
        for (int part = 0; part < 2; ++part)
#pragma unroll
          for (int mt = 0; mt < G::kMT; ++mt) {
            const int row = wm * G::kWM + mt * 16 + (j8 & 1) * 8 + (lane & 7);
            ldmatrix_x4(af[part][mt], s_a + (part * G::kBM + row) * G::kPartStride + (ks * 2 + (j8 >> 1)) * 16);
          }
#pragma unroll
        for (int mt = 0; mt < G::kMT; ++mt)
#pragma unroll
          for (int nt = 0; nt < G::kNT; ++nt) {
            float(&l)[4] = accl[mt][nt];
#pragma unroll
            for (int q = 0; q < L.nl; ++q)
              arch::mma_m16n8k16_f16(l, af[L.al[q]][mt], bf[L.bl[q]][nt], l[0], l[1], l[2], l[3]);
            float(&t)[4] = h[mt][nt];
            if (ks == k0)
              arch::mma_m16n8k16_f16(t, af[0][mt], bf[0][nt], 0.f, 0.f, 0.f, 0.f);
            else
              arch::mma_m16n8k16_f16(t, af[0][mt], bf[0][nt], t[0], t[1], t[2], t[3]);
          }
      }
#pragma unroll
      for (int i = 0; i < G::kMT; ++i)
#pragma unroll
        for (int j = 0; j < G::kNT; ++j)
#pragma unroll
          for (int r = 0; r < 4; ++r) acc[i][j][r] = __fadd_rn(acc[i][j][r], h[i][j][r]);
    }
#pragma unroll
    for (int i = 0; i < G::kMT; ++i)
#pragma unroll
      for (int j = 0; j < G::kNT; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[i][j][r] = __fmaf_rn(accl[i][j][r], 1.f, acc[i][j][r]);

    // Epilogue: accumulator pair (2t, 2t+1) of an n8 tile = (re, im) of complex column nt * 4 + t.
    const std::uint32_t base = tile_base(tab, b);
    const int g = lane >> 2, tq = lane & 3;
#pragma unroll
    for (int mt = 0; mt < G::kMT; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = wm * G::kWM + mt * 16 + g + half * 8;
        const float f = row_factor[row];
        const std::uint32_t row_index = base + tab.row_off[row];
#pragma unroll
        for (int nt = 0; nt < G::kNT; ++nt) {
          const int c = (wn * G::kWN + nt * 8) / 2 + tq;
          y[row_index + tab.col_off[c]] = make_float2(acc[mt][nt][2 * half] * f, acc[mt][nt][2 * half + 1] * f);
        }
      }
  }
  arch::cp_async_wait<0>();
}

template <int D>
constexpr int smem_bytes() {
  using G = Geometry<D>;
  return G::kGroups * (G::kGroupBytes + G::kBM * 4) + G::kBBytes + int(sizeof(Tables));
}

}  // namespace

template <int D>
void launch(const Params& p, void* stream) {
  constexpr int smem = smem_bytes<D>();
  static const int grid_per_sm = [] {
    TCEMU_CUDA(cudaFuncSetAttribute(bit_gemm_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int blocks = 0;
    TCEMU_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bit_gemm_kernel<D>, Geometry<D>::kThreads, smem));
    int dev = 0, sms = 0;
    TCEMU_CUDA(cudaGetDevice(&dev));
    TCEMU_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return (blocks > 0 ? blocks : 1) * sms;
  }();
  const std::uint64_t grid = p.tiles < std::uint64_t(grid_per_sm) ? p.tiles : std::uint64_t(grid_per_sm);
  bit_gemm_kernel<D><<<static_cast<unsigned>(grid), Geometry<D>::kThreads, smem, static_cast<cudaStream_t>(stream)>>>(p);
  ::tcemu::cuda::detail::check_cuda(cudaGetLastError(), "launch of the bit-indexed GEMM kernel", __FILE__, __LINE__);
}

template void launch<4>(const Params&, void*);
template void launch<5>(const Params&, void*);
template void launch<6>(const Params&, void*);

}  // namespace tcemu::cuda::detail::bitgemm
