#pragma once
// wgmma (sm_90a) variant of the fused split-part kernel (fused.hpp): same panels, same products and
// promotion as fused_kernel.cuh, on Hopper's asynchronous warpgroup MMA. Operands come from 128-byte
// swizzled shared memory (8-row atoms of 1024 bytes, chunk c of row r at chunk c ^ (r % 8)) filled
// by cp.async; two consumer warpgroups of 64 rows each; every k-tile (128 bytes of k per row) ends
// with wgmma.wait_group 0 and the round-to-nearest promotion of its sum into the FP32 accumulator.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/fused/fused_kernel.cuh"

namespace tcemu::cuda::detail::fused::wg {

inline constexpr int kBM = 128, kBN = 128, kRowBytes = 128, kThreads = 256;

__host__ __device__ constexpr int wg_stages(ProductSet s) { return products_of(s).parts == 2 ? 3 : 2; }
__host__ __device__ constexpr int wg_smem_bytes(ProductSet s) {
  return wg_stages(s) * products_of(s).parts * (kBM + kBN) * kRowBytes + 1024;  // + alignment slack
}

/// Shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups 1024 bytes apart.
__device__ __forceinline__ std::uint64_t desc(unsigned saddr) {
  std::uint64_t d = 0;
  d |= std::uint64_t((saddr & 0x3FFFF) >> 4);
  d |= std::uint64_t(1) << 16;             // leading byte offset (unused for swizzled K-major)
  d |= std::uint64_t(1024 >> 4) << 32;     // stride byte offset: next 8-row group
  d |= std::uint64_t(1) << 62;             // 128-byte swizzle
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

__device__ __forceinline__ void wg_fence() {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wg_commit_wait0() {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#endif
}

template <MmaKind K, ProductSet PS, class T>
__global__ void __launch_bounds__(kThreads, 1) wgmma_kernel(Args a, Epilogue<T> e) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr ProductList L = products_of(PS);
  constexpr int P = L.parts, S = wg_stages(PS);
  constexpr int kTile = kBM * kRowBytes;  // bytes of one part tile (kBM == kBN)
  constexpr int kStageBytes = 2 * P * kTile;
  constexpr bool kScaledLow = K == MmaKind::f16 && PS == ProductSet::hi_cross;
  extern __shared__ unsigned char smem_raw[];
  const unsigned sraw = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const unsigned sbase = (sraw + 1023u) & ~1023u;  // swizzle atoms need 1024-byte alignment

  const int2 tile = block_tile(a);
  const int m0 = tile.x * kBM, n0 = tile.y * kBN;
  const int tid = threadIdx.x, wgi = tid >> 7;

  auto load_stage = [&](int stage, int kt) {
    const unsigned s = sbase + stage * kStageBytes;
    const std::int64_t kb = std::int64_t(kt) * kRowBytes;
    constexpr int kChunks = 2 * P * kBM * 8;
#pragma unroll 4
    for (int c = tid; c < kChunks; c += kThreads) {
      const int tile = c / (kBM * 8);  // x parts first, then y parts
      const int row = (c / 8) % kBM, ch = c % 8;
      const bool is_y = tile >= P;
      const int part = is_y ? tile - P : tile;
      const int line = (is_y ? n0 : m0) + row;
      const bool valid = line < (is_y ? a.n : a.m) && kb + ch * 16 < a.part_bytes;
      const char* base = is_y ? a.y : a.x;
      const char* src = valid ? base + std::int64_t(line) * (is_y ? a.y_row_bytes : a.x_row_bytes) +
                                    part * a.part_bytes + kb + ch * 16
                              : base;
      cp_async16(s + tile * kTile + row * kRowBytes + ((ch ^ (row & 7)) << 4), src, valid);
    }
  };

  float acc[64], t[64];
  [[maybe_unused]] float accl[kScaledLow ? 64 : 1];
#pragma unroll
  for (int r = 0; r < 64; ++r) acc[r] = 0.f;
  if constexpr (kScaledLow) {
#pragma unroll
    for (int r = 0; r < 64; ++r) accl[r] = 0.f;
  }

#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < a.ktiles) load_stage(s, s);
    asm volatile("cp.async.commit_group;\n" ::);
  }
  for (int kt = 0; kt < a.ktiles; ++kt) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(S - 2));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // cp.async writes -> wgmma reads
    __syncthreads();
    {
      const int next = kt + S - 1;
      if (next < a.ktiles) load_stage(next % S, next);
      asm volatile("cp.async.commit_group;\n" ::);
    }
    const unsigned s = sbase + (kt % S) * kStageBytes;
    const unsigned sx = s + wgi * 64 * kRowBytes;  // this warpgroup's 64 rows of each x tile
    const unsigned sy = s + P * kTile;
    wg_fence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {  // 32 bytes of k per wgmma
      if constexpr (kScaledLow) {
        wgmma<K>(accl, desc(sx + ks * 32), desc(sy + kTile + ks * 32), kt > 0 || ks > 0);
        wgmma<K>(accl, desc(sx + kTile + ks * 32), desc(sy + ks * 32), 1);
        wgmma<K>(t, desc(sx + ks * 32), desc(sy + ks * 32), ks > 0);
      } else {
#pragma unroll
        for (int q = 0; q < L.nl; ++q)
          wgmma<K>(t, desc(sx + L.al[q] * kTile + ks * 32), desc(sy + L.bl[q] * kTile + ks * 32), ks > 0 || q > 0);
#pragma unroll
        for (int q = 0; q < L.n0; ++q)
          wgmma<K>(t, desc(sx + L.a0[q] * kTile + ks * 32), desc(sy + L.b0[q] * kTile + ks * 32),
                   ks > 0 || q > 0 || L.nl > 0);
      }
    }
    wg_commit_wait0();
#pragma unroll
    for (int r = 0; r < 64; ++r) acc[r] = __fadd_rn(acc[r], t[r]);
  }
  asm volatile("cp.async.wait_group 0;\n" ::);

  const int lane = tid & 31, warp = (tid >> 5) & 3, g = lane >> 2, q4 = lane & 3;
#pragma unroll
  for (int r = 0; r < 64; ++r) {
    const int i = m0 + wgi * 64 + warp * 16 + g + ((r >> 1) & 1) * 8;
    const int j = n0 + (r >> 2) * 8 + 2 * q4 + (r & 1);
    if (i >= a.m || j >= a.n) continue;
    float v = acc[r];
    if constexpr (kScaledLow) v = __fmaf_rn(accl[r], a.low_scale, v);
    T* c = e.c + std::int64_t(i) * e.c_rs + std::int64_t(j) * e.c_cs;
    *c = e.beta == T(0) ? e.alpha * static_cast<T>(v) : e.alpha * static_cast<T>(v) + e.beta * *c;
  }
#else
  __trap();  // compiled for an architecture without wgmma: the host never selects this (see dispatch)
#endif
}

/// True when wgmma_kernel<K, PS, T> was compiled with wgmma for the current device (sm_90a cubin).
template <MmaKind K, ProductSet PS, class T>
bool available() {
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, wgmma_kernel<K, PS, T>) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.binaryVersion == 90;
}

/// Launches wgmma_kernel<K, PS, T> (sm_90a only; instantiated in fused_wgmma_<kind>.cu).
template <MmaKind K, ProductSet PS, class T>
void launch(const Args& args, const Epilogue<T>& e, cudaStream_t stream) {
  launch_on_tiles<wgmma_kernel<K, PS, T>>(wg_smem_bytes(PS), kThreads, args, e, stream,
                                          "launch of the fused split-part kernel (wgmma)");
}

}  // namespace tcemu::cuda::detail::fused::wg
