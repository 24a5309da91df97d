#pragma once
// The fused split-part kernel template (fused.hpp). One template serves every scheme: the Tensor Core
// instruction (MmaKind) and the product table (ProductSet) are template parameters. Its main loop
// (tiling, Args, the cp.async ring, fragment loads): mainloops/mma_sync_pipeline.cuh.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/arch/mma_sync.cuh"
#include "cuda/kernels/fused.hpp"
#include "cuda/mainloops/mma_sync_pipeline.cuh"
#include "tcemu/schemes/all.hpp"
#include "tcemu/cuda/check.hpp"

namespace tcemu::cuda::detail::fused {

/// The Tensor Core instruction: m16n8k16 for FP16/BF16 parts, m16n8k8 for TF32 parts. Either way one
/// step consumes 32 bytes of k per row, so tiles, ldmatrix addressing and fragments are shared.
enum class MmaKind { f16, bf16, tf32 };

/// Which part products a kernel instance computes: the fused table a scheme's descriptor names
/// (tcemu/scheme.hpp's FusedTable; none is never instantiated).
using ProductSet = ::tcemu::FusedTable;

/// The (instruction, product table) pairs that have kernels, one list per instruction kind:
/// X(P, kind, set) for each. The per-kind translation units instantiate their list, the dispatcher
/// declares all of them (P = extern), so a new table is added here once.
#define TCEMU_FUSED_TABLES_F16(X, P) X(P, f16, hi_cross) X(P, f16, all_four) X(P, f16, hi_low3)
#define TCEMU_FUSED_TABLES_BF16(X, P) X(P, bf16, three) X(P, bf16, nine)
#define TCEMU_FUSED_TABLES_TF32(X, P) X(P, tf32, hi_cross) X(P, tf32, hi_low3)
#define TCEMU_FUSED_TABLES(X, P) \
  TCEMU_FUSED_TABLES_F16(X, P) TCEMU_FUSED_TABLES_BF16(X, P) TCEMU_FUSED_TABLES_TF32(X, P)

/// Product table: n0 products into the promoted group-0 accumulator, nl into the low accumulator.
/// The descriptors' own product table (schemes::fused_products, checked at compile time to agree
/// between the descriptors that share a table).
using ProductList = ::tcemu::schemes::FusedProducts;

__host__ __device__ constexpr ProductList products_of(ProductSet s) { return ::tcemu::schemes::fused_products(s); }

/// True when the low products chain apart from group 0 and meet it in FP32 registers (scaled by
/// Args::low_scale): FP16 parts with the hi_cross table (scaled lo) and the line-aligned hi_low3 table
/// (the hi x hi chain stays exact only without the low products).
__host__ __device__ constexpr bool separate_low(MmaKind k, ProductSet s) {
  return s == ProductSet::hi_low3 || (k == MmaKind::f16 && s == ProductSet::hi_cross);
}

/// Dynamic shared memory of one kernel instance.
__host__ __device__ constexpr int smem_bytes(ProductSet s) {
  return kStages * (products_of(s).parts * (kBM + kBN)) * kRowBytes;
}

/// The mma.sync instruction of kind K (arch/mma_sync.cuh): d = A * B + c.
template <MmaKind K>
__device__ __forceinline__ void mma(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                    float c0, float c1, float c2, float c3) {
  if constexpr (K == MmaKind::f16) {
    arch::mma_m16n8k16_f16(d, a, b, c0, c1, c2, c3);
  } else if constexpr (K == MmaKind::bf16) {
    arch::mma_m16n8k16_bf16(d, a, b, c0, c1, c2, c3);
  } else {
    arch::mma_m16n8k8_tf32(d, a, b, c0, c1, c2, c3);
  }
}

/// Epilogue of a warp's 32 x 32 accumulator tile: C = alpha * acc + beta * C in the precision of T
/// (one FMA: fma(alpha, acc, beta * C)).
template <class T>
__device__ __forceinline__ void store_accumulators(const float (&acc)[kMT][kNT][4], const Args& a,
                                                   const Epilogue<T>& e, int m0, int n0, int wm, int wn,
                                                   int lane) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int i = m0 + wm * kWM + mt * 16 + g + (r >> 1) * 8;
        const int jj = n0 + wn * kWN + nt * 8 + 2 * t + (r & 1);
        if (i >= a.m || jj >= a.n) continue;
        const T v = static_cast<T>(acc[mt][nt][r]);
        T* c = e.c + std::int64_t(i) * e.c_rs + std::int64_t(jj) * e.c_cs;
        *c = e.beta == T(0) ? e.alpha * v : fma(e.alpha, v, e.beta * *c);  // explicit: the host reference's order
      }
}

/// Raises the dynamic shared memory limit of `Kernel` once (one static per kernel instance) and
/// launches it on the tile grid of `args`.
template <auto Kernel, class T>
void launch_on_tiles(int smem, int threads, const Args& args, const Epilogue<T>& e, cudaStream_t stream,
                     const char* name) {
  static const bool configured = [smem] {
    TCEMU_CUDA(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return true;
  }();
  (void)configured;
  const std::int64_t blocks = std::int64_t(args.tiles_m) * args.tiles_n;
  Kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(args, e);
  ::tcemu::cuda::detail::check_cuda(cudaGetLastError(), name, __FILE__, __LINE__);
}

template <MmaKind K, ProductSet PS, class T>
__global__ void __launch_bounds__(kThreads, 1) fused_kernel(Args a, Epilogue<T> e) {
  constexpr int P = products_of(PS).parts;
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));

  const int2 tile = block_tile(a);
  const int m0 = tile.x * kBM, n0 = tile.y * kBN;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp / kWarpsN, wn = warp % kWarpsN;

  // Separate chains for the low products and group 0: fp16x2 / LE-GEMM's low parts carry a
  // power-of-two scale; fp16x2-aligned's group 0 must start each step from zero to stay exact.
  constexpr bool kSeparateLow = separate_low(K, PS);
  float acc[kMT][kNT][4];
  mma_sync_pipeline<P, P>(a, sbase, m0, n0, tid, acc, [](int) {}, [&](int, unsigned sx, unsigned sy) {
    constexpr ProductList L = products_of(PS);  // local: a captured table would live on the stack
    // Two 32-byte MMA steps per 64-byte k-tile, not unrolled: unrolling lets the compiler load both
    // steps' fragments at once, which spills with three parts.
#pragma unroll 1
    for (int ks = 0; ks < 2; ++ks) {
      std::uint32_t bf[P][kNT][2];
      load_y_fragments<P>(bf, sy, wn, lane, ks);
      std::uint32_t af[P][kMT][4];
      load_x_fragments<P>(af, sx, wm, lane, ks);
      // Per output fragment and MMA step: the low products chained inside the Tensor Core from a
      // zero accumulator, then (same scale) the group-0 products on top, and the step's sum added to
      // the FP32 accumulator with a round-to-nearest FADD: the Tensor Core's truncating addition
      // only ever sees one step's partial sums, never the running total. With scaled low parts
      // (fp16x2: lo carries 2^12) the two chains stay apart and meet in the FP32 registers, the step's
      // own sum first: one rounding at the running total's magnitude per step, as without them (two
      // such roundings per 8-element TF32 step measured 1.18e-6 against 1e-6 at k = 16384).
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt) {
          float t[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
          for (int q = 0; q < L.nl; ++q)
            mma<K>(t, af[L.al[q]][mt], bf[L.bl[q]][nt], t[0], t[1], t[2], t[3]);
          if constexpr (kSeparateLow) {
            float h[4];
            mma<K>(h, af[0][mt], bf[0][nt], 0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[mt][nt][r] = __fadd_rn(acc[mt][nt][r], __fmaf_rn(t[r], a.low_scale, h[r]));
          } else {
#pragma unroll
            for (int q = 0; q < L.n0; ++q)
              mma<K>(t, af[L.a0[q]][mt], bf[L.b0[q]][nt], t[0], t[1], t[2], t[3]);
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[mt][nt][r] = __fadd_rn(acc[mt][nt][r], t[r]);
          }
        }
    }
  });
  store_accumulators(acc, a, e, m0, n0, wm, wn, lane);
}

/// Launches fused_kernel<K, PS, T> (instantiated in fused_<kind>.cu).
template <MmaKind K, ProductSet PS, class T>
void launch(const Args& args, const Epilogue<T>& e, cudaStream_t stream) {
  Args a = args;
  a.ktiles = static_cast<int>((a.part_bytes + kRowBytes - 1) / kRowBytes);
  launch_on_tiles<fused_kernel<K, PS, T>>(smem_bytes(PS), kThreads, a, e, stream, "launch of the fused split-part kernel");
}

/// Explicit instantiations (PREFIX empty, in fused_<kind>.cu) or their declarations (PREFIX extern,
/// in fused_dispatch.cu) of launch<K, S, float / double>.
#define TCEMU_FUSED_LAUNCH(PREFIX, K, S)                                                                    \
  PREFIX template void launch<MmaKind::K, ProductSet::S, float>(const Args&, const Epilogue<float>&,        \
                                                                cudaStream_t);                              \
  PREFIX template void launch<MmaKind::K, ProductSet::S, double>(const Args&, const Epilogue<double>&,      \
                                                                 cudaStream_t);

}  // namespace tcemu::cuda::detail::fused
