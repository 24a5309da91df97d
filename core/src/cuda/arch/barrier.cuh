#pragma once
// Named barriers (bar.sync / bar.arrive): barrier 0 is __syncthreads; 1-15 sync subsets of a block.

namespace tcemu::cuda::detail::arch {

/// Named barrier ID among N threads (a multiple of 32): wait for all of them.
template <int ID, int N>
__device__ __forceinline__ void bar_sync() {
  asm volatile("bar.sync %0, %1;\n" ::"n"(ID), "n"(N) : "memory");
}

/// Named barrier ID among N threads: count this warp's threads and go on.
template <int ID, int N>
__device__ __forceinline__ void bar_arrive() {
  asm volatile("bar.arrive %0, %1;\n" ::"n"(ID), "n"(N) : "memory");
}

}  // namespace tcemu::cuda::detail::arch
