#pragma once
// wgmma (sm_90a): warpgroup MMA ordering (fence, commit, wait), register reallocation between
// warpgroups (setmaxnreg), the shared-memory matrix descriptor, and the MMAs themselves
// (wgmma_ops.cuh, generated at build time by gen_wgmma_ops.py). Defined only for sm_90a.
#include <cstdint>

#include "cuda/arch/wgmma_ops.cuh"

namespace tcemu::cuda::detail::arch {

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

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
/// Waits until at most N committed wgmma groups are in flight.
template <int N>
__device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/// Keeps the register's last write before the next wgmma fence (CUTLASS's fence_operand).
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void fence_operand(std::int32_t& r) { asm volatile("" : "+r"(r)::"memory"); }
/// The warpgroup gives registers up to N per thread / takes them up to N.
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N) : "memory");
}
#endif

}  // namespace tcemu::cuda::detail::arch
