#pragma once
// The complex combine of one entry, C = alpha (x + i y) + beta C (complex alpha, beta; each operation
// rounded to T, none fused): the operations and order of complex_gemm_host's combine, shared by
// complex_combine_kernel (dispatch/combine.cu) and int8-crt's 3M reconstruction (crt_reconstruct.cu).
#include <cuda_runtime.h>

namespace tcemu::cuda::detail {

template <class T>
__device__ __forceinline__ T combine_mul_rn(T a, T b) {
  if constexpr (sizeof(T) == 8) return __dmul_rn(a, b);
  else return __fmul_rn(a, b);
}
template <class T>
__device__ __forceinline__ T combine_add_rn(T a, T b) {
  if constexpr (sizeof(T) == 8) return __dadd_rn(a, b);
  else return __fadd_rn(a, b);
}

/// cij[0] + i cij[1] = (ar + i ai)(x + i y) + (br + i bi)(cij[0] + i cij[1]); C is read only when
/// br or bi is nonzero.
template <class T>
__device__ __forceinline__ void complex_combine_entry(T x, T y, T ar, T ai, T br, T bi, T* cij) {
  T r = combine_add_rn(combine_mul_rn(ar, x), -combine_mul_rn(ai, y));
  T s = combine_add_rn(combine_mul_rn(ar, y), combine_mul_rn(ai, x));
  if (br != T(0) || bi != T(0)) {
    const T cr = cij[0], ci = cij[1];
    r = combine_add_rn(r, combine_add_rn(combine_mul_rn(br, cr), -combine_mul_rn(bi, ci)));
    s = combine_add_rn(s, combine_add_rn(combine_mul_rn(br, ci), combine_mul_rn(bi, cr)));
  }
  cij[0] = r;
  cij[1] = s;
}

}  // namespace tcemu::cuda::detail
