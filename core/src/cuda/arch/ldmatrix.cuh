#pragma once
// ldmatrix (sm_75 and later): shared-memory 8 x 8 b16 matrices into mma.sync fragments.
#include <cstdint>

namespace tcemu::cuda::detail::arch {

/// Four 8 x 8 matrices; lanes 8i..8i+7 give the row addresses (shared space) of matrix i.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

}  // namespace tcemu::cuda::detail::arch
