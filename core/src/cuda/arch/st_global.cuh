#pragma once
// Plain (weak, write-back) vector stores to global memory: a struct assignment is split into 4-byte
// stores by the front end, and the __stwb intrinsics become strong stores.

namespace tcemu::cuda::detail::arch {

__device__ __forceinline__ void st_v2(void* p, unsigned a, unsigned b) {
  asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(a), "r"(b) : "memory");
}
__device__ __forceinline__ void st_v4(void* p, unsigned a, unsigned b, unsigned c, unsigned d) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}
__device__ __forceinline__ void st_v2(void* p, double a, double b) {
  asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(a), "d"(b) : "memory");
}

}  // namespace tcemu::cuda::detail::arch
