#pragma once
// wgmma (sm_90a) variant of the fused split-part kernel (fused.hpp): same panels and products as
// fused_kernel.cuh, promotion once per 128-byte k-tile (4 MMA steps), on Hopper's asynchronous
// warpgroup MMA, persistent (one block per SM walks the 128 x 128 tiles) and warp-specialised:
//  - warpgroup 0 is the producer: one thread issues TMA loads (cp.async.bulk.tensor, 128-byte swizzle)
//    of every part tile of a k-tile into one pipeline stage and arms the stage's "full" mbarrier;
//  - warpgroups 1 and 2 are consumers of 64 accumulator rows each: wait for "full", issue the k-tile's
//    wgmma groups, wait for them, promote the Tensor Core sum into the FP32 accumulator with a
//    round-to-nearest FADD, and release the stage through its "empty" mbarrier.
// The two consumers share each stage but are not kept in lockstep (no CTA barrier in the main loop),
// so while one waits for its wgmma group and promotes, the other's group keeps the Tensor Cores busy.
// Registers: the producer gives its registers up (setmaxnreg.dec 40), the consumers take 232 each.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/fused/fused_kernel.cuh"
#include "cuda/kernels.hpp"
#include "tcemu/error.hpp"

namespace tcemu::cuda::detail::fused::wg {

inline constexpr int kBM = 128, kBN = 128;
inline constexpr int kConsumers = 2, kThreads = 128 * (kConsumers + 1);
inline constexpr int kRingBytes = 192 * 1024;  // shared memory for the stage ring

/// Stage geometry for k-tiles of RB bytes of k per line (128: 128-byte swizzle, 64: 64-byte swizzle).
template <int RB>
struct Ring {
  static_assert(RB == 64 || RB == 128, "k-tiles of 64 or 128 bytes");
  static constexpr int kTileBytes = kBM * RB;  // one part tile: 128 lines x RB bytes of k (kBM == kBN)
  static constexpr int stage_bytes(ProductSet s) { return 2 * products_of(s).parts * kTileBytes; }
  static constexpr int stages(ProductSet s) { return kRingBytes / stage_bytes(s); }
  static constexpr int smem_bytes(ProductSet s) { return stages(s) * stage_bytes(s) + 16 * stages(s) + 1024; }
};

/// Shared-memory matrix descriptor: K-major, RB-byte swizzle, 8-row groups 8 * RB bytes apart.
template <int RB>
__device__ __forceinline__ std::uint64_t desc(unsigned saddr) {
  std::uint64_t d = 0;
  d |= std::uint64_t((saddr & 0x3FFFF) >> 4);
  d |= std::uint64_t(1) << 16;                      // leading byte offset (unused for swizzled K-major)
  d |= std::uint64_t((8 * RB) >> 4) << 32;          // stride byte offset: next 8-row group
  d |= std::uint64_t(RB == 128 ? 1 : 2) << 62;      // 1: 128-byte swizzle, 2: 64-byte swizzle
  return d;
}

template <MmaKind K>
__device__ __forceinline__ void wgmma(float (&d)[64], std::uint64_t da, std::uint64_t db, int scale_d) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (K == MmaKind::f16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(scale_d));
  } else if constexpr (K == MmaKind::bf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(scale_d));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(scale_d));
  }
#endif
}


#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\nWAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
/// TMA load of box (c0 = k element, c1 = part, c2 = first line) of a 3-D panel map into shared memory.
__device__ __forceinline__ void tma_load(unsigned dst, const CUtensorMap* map, unsigned bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
#endif

template <MmaKind K, ProductSet PS, class T, int RB>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_y, Args a, Epilogue<T> e) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr ProductList L = products_of(PS);
  constexpr int P = L.parts, S = Ring<RB>::stages(PS), kStageBytes = Ring<RB>::stage_bytes(PS);
  constexpr int kTileBytes = Ring<RB>::kTileBytes, kSteps = RB / 32;
  constexpr int kElemsPerTile = K == MmaKind::tf32 ? RB / 4 : RB / 2;
  constexpr bool kSeparateLow = separate_low(K, PS);
  extern __shared__ unsigned char smem_raw[];
  const unsigned sraw = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const unsigned sbase = (sraw + 1023u) & ~1023u;  // swizzle atoms need 1024-byte alignment
  const unsigned full0 = sbase + S * kStageBytes, empty0 = full0 + 8 * S;

  const int tid = threadIdx.x, wgi = tid >> 7;
  const int ntiles = a.tiles_m * a.tiles_n;

  if (tid == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(full0 + 8 * s, 1);
      mbar_init(empty0 + 8 * s, kConsumers * 4);  // one arrival per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  // Persistent: block b takes tiles b, b + gridDim.x, ...; the stage ring and its phases run on
  // across tiles (`it` counts k-tiles since the start), so the producer loads the next tile while
  // the consumers write the last one.
  if (wgi == 0) {  // producer
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    if (tid == 0) {
      int it = 0;
      for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const int2 tc = tile_coords(a, tile);
        const int m0 = tc.x * kBM, n0 = tc.y * kBN;
        for (int kt = 0; kt < a.ktiles; ++kt, ++it) {
          const int s = it % S;
          mbar_wait(empty0 + 8 * s, ((it / S) & 1) ^ 1);
          const unsigned full = full0 + 8 * s, dst = sbase + s * kStageBytes;
          mbar_expect_tx(full, kStageBytes);
#pragma unroll
          for (int p = 0; p < P; ++p) {
            tma_load(dst + p * kTileBytes, &map_x, full, kt * kElemsPerTile, p, m0);
            tma_load(dst + (P + p) * kTileBytes, &map_y, full, kt * kElemsPerTile, p, n0);
          }
        }
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");

  const int cw = wgi - 1;  // consumer: accumulator rows cw * 64 .. cw * 64 + 63 of the block tile
  float acc[64];
  [[maybe_unused]] float accl[kSeparateLow ? 64 : 1];
  // One k-tile's wgmma group into `tt` (which starts from zero), committed, not waited for.
  auto issue = [&](float(&tt)[64], int it) {
    constexpr ProductList L = products_of(PS);  // local: a captured table would live on the stack
    const int s = it % S;
    mbar_wait(full0 + 8 * s, (it / S) & 1);
    const unsigned st = sbase + s * kStageBytes;
    const unsigned sx = st + cw * 64 * RB;  // this consumer's 64 rows of each x tile
    const unsigned sy = st + P * kTileBytes;
    wg_fence();
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {  // 32 bytes of k per wgmma
      if constexpr (kSeparateLow) {
#pragma unroll
        for (int q = 0; q < L.nl; ++q)
          wgmma<K>(accl, desc<RB>(sx + L.al[q] * kTileBytes + ks * 32), desc<RB>(sy + L.bl[q] * kTileBytes + ks * 32), 1);
        wgmma<K>(tt, desc<RB>(sx + ks * 32), desc<RB>(sy + ks * 32), ks > 0);
      } else {
#pragma unroll
        for (int q = 0; q < L.nl; ++q)
          wgmma<K>(tt, desc<RB>(sx + L.al[q] * kTileBytes + ks * 32), desc<RB>(sy + L.bl[q] * kTileBytes + ks * 32),
                   ks > 0 || q > 0);
#pragma unroll
        for (int q = 0; q < L.n0; ++q)
          wgmma<K>(tt, desc<RB>(sx + L.a0[q] * kTileBytes + ks * 32), desc<RB>(sy + L.b0[q] * kTileBytes + ks * 32),
                   ks > 0 || q > 0 || L.nl > 0);
      }
    }
    wg_commit();
  };
  // After the group of k-tile number `it` completed: release its stage, promote its sum (RN).
  auto retire = [&](const float(&tt)[64], int it) {
    if ((tid & 31) == 0) mbar_arrive(empty0 + 8 * (it % S));
#pragma unroll
    for (int r = 0; r < 64; ++r) acc[r] = __fadd_rn(acc[r], tt[r]);
  };
  const int lane = tid & 31, warp = (tid >> 5) & 3, g = lane >> 2, q4 = lane & 3;
  int it = 0;
  for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const int2 tc = tile_coords(a, tile);
    const int m0 = tc.x * kBM, n0 = tc.y * kBN;
#pragma unroll
    for (int r = 0; r < 64; ++r) acc[r] = 0.f;
    if constexpr (kSeparateLow) {
#pragma unroll
      for (int r = 0; r < 64; ++r) accl[r] = 0.f;
    }
    // Each k-tile's group is waited for before its promotion (as DeepGEMM does for FP8): a second
    // temporary to overlap them would be read while the other's group is in flight, which makes
    // ptxas serialise every wgmma (C7514). The other consumer's group keeps the Tensor Cores busy.
    float t[64];
    for (int kt = 0; kt < a.ktiles; ++kt, ++it) {
      issue(t, it);
      wg_wait<0>();
      retire(t, it);
    }
#pragma unroll
    for (int r = 0; r < 64; ++r) {
      const int i = m0 + cw * 64 + warp * 16 + g + ((r >> 1) & 1) * 8;
      const int j = n0 + (r >> 2) * 8 + 2 * q4 + (r & 1);
      if (i >= a.m || j >= a.n) continue;
      float v = acc[r];
      if constexpr (kSeparateLow) v = __fmaf_rn(accl[r], a.low_scale, v);
      T* c = e.c + std::int64_t(i) * e.c_rs + std::int64_t(j) * e.c_cs;
      *c = e.beta == T(0) ? e.alpha * static_cast<T>(v) : e.alpha * static_cast<T>(v) + e.beta * *c;
    }
  }
#else
  __trap();  // compiled for an architecture without wgmma: the host never selects this (see dispatch)
#endif
}

/// True when the wgmma kernels of <K, PS, T> were compiled with wgmma for the current device (sm_90a).
template <MmaKind K, ProductSet PS, class T>
bool available() {
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, wgmma_kernel<K, PS, T, 128>) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.binaryVersion == 90;
}

/// TMA descriptor of one split panel (fused.hpp: line l, part q, element kk at
/// base[(l * parts + q) * kp + kk]) as a 3-D tensor (kk, q, l), box = `row_bytes` of k x 1 part x 128
/// lines, swizzled by `row_bytes` (64 or 128); k past the padded part and lines past the end read as
/// zeros. Throws DeviceError when the driver rejects it (e.g. a base address that is not 16-byte aligned).
CUtensorMap panel_map(const void* base, std::int64_t lines, int parts, std::int64_t part_bytes, int elem_bytes,
                      int row_bytes);

/// Launches the wgmma kernel of <K, PS, T> (sm_90a only; instantiated in fused_wgmma_<kind>.cu) with
/// one block per SM. 128-byte k-tiles: 64-byte ones (twice the promotions, a 6-stage ring) measured
/// 34-39 % slower for fp16x2 and 18-21 % for tf32x2 at 8192 (docs/perf-notes.md section 5.3).
template <MmaKind K, ProductSet PS, class T>
void launch(const Args& args, const Epilogue<T>& e, cudaStream_t stream) {
  constexpr int RB = 128, eb = K == MmaKind::tf32 ? 4 : 2, P = products_of(PS).parts;
  Args a = args;
  a.ktiles = static_cast<int>((a.part_bytes + RB - 1) / RB);
  const CUtensorMap mx = panel_map(a.x, a.m, P, a.part_bytes, eb, RB);
  const CUtensorMap my = panel_map(a.y, a.n, P, a.part_bytes, eb, RB);
  static const bool configured = [] {
    TCEMU_CUDA(cudaFuncSetAttribute(wgmma_kernel<K, PS, T, RB>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    Ring<RB>::smem_bytes(PS)));
    return true;
  }();
  (void)configured;
  const std::int64_t tiles = std::int64_t(a.tiles_m) * a.tiles_n;
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, device_sms()));
  wgmma_kernel<K, PS, T, RB><<<blocks, kThreads, Ring<RB>::smem_bytes(PS), stream>>>(mx, my, a, e);
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
