#pragma once
// int8-mixpert on the device (tcemu/mixpert.hpp): the pack pass (passes/mixpert_pack.cu) and the fused
// kernel's dispatch (dispatch/mixpert_dispatch.cu); dispatch/mixpert_path.cpp runs them for gemm_device.
#include <cuda_runtime.h>

#include <cstdint>

namespace tcemu::cuda::detail {

/// Packs an operand seen as lines x k (element (l, kk) at data[l * line_stride + kk * k_stride],
/// FP64 data rounded to FP32 first) with `segs` segments: digits[l * segs * kp + q * kp + kk] for
/// kp = kblocks * 32 (zeros from k to kp; kblocks even, >= ceil(k / 32)), exps[tile * kblocks + kb]
/// per 8-line tile and k-block. Adds the tiles breaking the spread rule to counters[0] and the
/// non-finite elements to counters[1] (non-finite elements pack as zero). Async on `stream`.
template <class T>
void mixpert_pack(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride, std::int64_t k_stride,
                  int segs, int kblocks, std::int8_t* digits, std::int16_t* exps, unsigned long long* counters,
                  cudaStream_t stream);

/// The fused kernel for (sx, sy) segments on packed panels: C(i, j) = c[i * c_rs + j * c_cs] =
/// alpha * acc + beta * C (beta == 0: C not read). Throws InvalidArgument for segment counts other
/// than 2 or 3 or m, n beyond the kernel's 32-bit indices.
template <class T>
void mixpert_products(int sx, int sy, const std::int8_t* x, const std::int8_t* y, const std::int16_t* ex,
                      const std::int16_t* ey, std::int64_t m, std::int64_t n, int kblocks, T* c, std::int64_t c_rs,
                      std::int64_t c_cs, T alpha, T beta, cudaStream_t stream);

}  // namespace tcemu::cuda::detail
