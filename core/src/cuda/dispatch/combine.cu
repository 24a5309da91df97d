// Combine kernels: product-group accumulators -> C (host backend's order and precision), the fused
// Ozaki FP64 accumulation, and the complex combine. Arithmetic uses explicit round-to-nearest
// intrinsics so that nvcc does not contract a*b + c into an FMA the host reference does not use.
#include <cmath>

#include "tcemu/cuda/check.hpp"
#include "cuda/kernels.hpp"
#include "cuda/passes/complex_combine_entry.cuh"

namespace tcemu::cuda::detail {
namespace {

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

struct Scales {
  double v[8];
};

/// x covers the rows (coalesced), y strides over the columns: about 8 blocks per SM in all, so that
/// each thread handles many elements (a block per element column costs more in block launches than
/// the memory traffic itself: measured 1 ms instead of 0.15 ms at 8192^2 on an H200).
dim3 grid_for(std::int64_t m, std::int64_t n) {
  const std::int64_t gx = (m + 255) / 256;
  std::int64_t gy = (std::int64_t{8} * device_sms() + gx - 1) / gx;
  gy = gy < 1 ? 1 : (gy > n ? n : gy);
  if (gy > 65535) gy = 65535;
  return dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy > 0 ? gy : 1));
}

template <class Acc, class T>
__global__ void combine_groups_kernel(const Acc* __restrict__ acc, std::int64_t group_stride,
                                      std::int64_t ldacc, int ngroups, int n0, Scales scales,
                                      std::int64_t m, std::int64_t n, T alpha, T beta,
                                      T* __restrict__ c, std::int64_t c_rs, std::int64_t c_cs) {
  using W = std::conditional_t<std::is_same_v<Acc, double>, double, T>;
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= m) return;
#pragma unroll 2
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    const Acc* a = acc + j * ldacc + i;
    W v = 0;
    for (int g = ngroups - 1; g >= 1; --g)
      v = add_rn(v, mul_rn(static_cast<W>(a[(n0 + g - 1) * group_stride]), static_cast<W>(scales.v[g])));
    if (ngroups > 0) {
      Acc a0 = a[0];  // group 0: RN sum of its k-chunk accumulators
      for (int ch = 1; ch < n0; ++ch) a0 = add_rn(a0, a[ch * group_stride]);
      v = add_rn(v, mul_rn(static_cast<W>(a0), static_cast<W>(scales.v[0])));
    }
    T& cij = c[i * c_rs + j * c_cs];
    const W bc = beta == T(0) ? W(0) : mul_rn(static_cast<W>(beta), static_cast<W>(cij));
    cij = static_cast<T>(add_rn(mul_rn(static_cast<W>(alpha), v), bc));
  }
}

struct GroupIndex {
  unsigned char g[kMaxOzakiBuffers];
};

template <class T>
__global__ void ozaki_accumulate_kernel(const std::int32_t* __restrict__ acc, std::int64_t buf_stride,
                                        std::int64_t ldacc, int nbuf, GroupIndex gi,
                                        const int* __restrict__ ea, const int* __restrict__ eb,
                                        std::int64_t m, std::int64_t n, T alpha, T beta,
                                        T* __restrict__ c, std::int64_t c_rs, std::int64_t c_cs) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= m) return;
  const int eai = ea[i];
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    // Buffers come ordered by decreasing i+j; the buffers of one group are summed exactly.
    double sum = 0;
    long long part = 0;
    int g = gi.g[0];
    for (int b = 0; b < nbuf; ++b) {
      if (gi.g[b] != g) {
        sum = __dadd_rn(sum, ldexp(static_cast<double>(part), -7 * g));
        part = 0;
        g = gi.g[b];
      }
      part += acc[b * buf_stride + j * ldacc + i];
    }
    sum = __dadd_rn(sum, ldexp(static_cast<double>(part), -7 * g));
    const double v = ldexp(sum, eai + eb[j]);
    T& cij = c[i * c_rs + j * c_cs];
    const double bc = beta == T(0) ? 0.0 : __dmul_rn(static_cast<double>(beta), static_cast<double>(cij));
    cij = static_cast<T>(__dadd_rn(__dmul_rn(static_cast<double>(alpha), v), bc));
  }
}

template <class T>
__global__ void complex_combine_kernel(const T* __restrict__ re, const T* __restrict__ im,
                                       std::int64_t ldacc, std::int64_t m, std::int64_t n, T ar,
                                       T ai, T br, T bi, T* c, std::int64_t c_rs, std::int64_t c_cs) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= m) return;
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    complex_combine_entry(re[j * ldacc + i], im[j * ldacc + i], ar, ai, br, bi, c + 2 * (i * c_rs + j * c_cs));
  }
}

}  // namespace

template <class Acc, class T>
void combine_groups(const Acc* acc, std::int64_t group_stride, std::int64_t ldacc, int ngroups, int n0,
                    const double* scales, std::int64_t m, std::int64_t n, T alpha, T beta, T* c,
                    std::int64_t c_rs, std::int64_t c_cs, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  if (ngroups > 8) throw InvalidArgument("combine_groups: more than 8 product groups");
  Scales s{};
  for (int g = 0; g < ngroups; ++g) s.v[g] = scales[g];
  combine_groups_kernel<Acc, T><<<grid_for(m, n), 256, 0, stream>>>(
      acc, group_stride, ldacc, ngroups, n0 < 1 ? 1 : n0, s, m, n, alpha, beta, c, c_rs, c_cs);
  TCEMU_LAUNCHED("combine_groups_kernel");
}

template <class T>
void ozaki_accumulate(const std::int32_t* acc, std::int64_t buf_stride, std::int64_t ldacc, int nbuf,
                      const unsigned char* g_of, int /*s*/, const int* ea, const int* eb,
                      std::int64_t m, std::int64_t n, T alpha, T beta, T* c, std::int64_t c_rs,
                      std::int64_t c_cs, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  if (nbuf < 1 || nbuf > kMaxOzakiBuffers)
    throw InvalidArgument("ozaki_accumulate: " + std::to_string(nbuf) +
                          " INT32 products per output, outside 1.." + std::to_string(kMaxOzakiBuffers));
  GroupIndex gi{};
  for (int b = 0; b < nbuf; ++b) gi.g[b] = g_of[b];
  ozaki_accumulate_kernel<T><<<grid_for(m, n), 256, 0, stream>>>(acc, buf_stride, ldacc, nbuf, gi, ea,
                                                                  eb, m, n, alpha, beta, c, c_rs, c_cs);
  TCEMU_LAUNCHED("ozaki_accumulate_kernel");
}

template <class T>
void complex_combine(const T* re, const T* im, std::int64_t ldacc, std::int64_t m, std::int64_t n,
                     T alpha_re, T alpha_im, T beta_re, T beta_im, T* c, std::int64_t c_rs,
                     std::int64_t c_cs, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  complex_combine_kernel<T><<<grid_for(m, n), 256, 0, stream>>>(re, im, ldacc, m, n, alpha_re, alpha_im,
                                                                 beta_re, beta_im, c, c_rs, c_cs);
  TCEMU_LAUNCHED("complex_combine_kernel");
}

#define TCEMU_COMBINE(Acc, T)                                                                       \
  template void combine_groups<Acc, T>(const Acc*, std::int64_t, std::int64_t, int, int, const double*, \
                                       std::int64_t, std::int64_t, T, T, T*, std::int64_t,          \
                                       std::int64_t, cudaStream_t);
TCEMU_COMBINE(float, float)
TCEMU_COMBINE(float, double)
TCEMU_COMBINE(double, float)
TCEMU_COMBINE(double, double)
#undef TCEMU_COMBINE

#define TCEMU_OZACC(T)                                                                              \
  template void ozaki_accumulate<T>(const std::int32_t*, std::int64_t, std::int64_t, int,           \
                                    const unsigned char*, int, const int*, const int*, std::int64_t, \
                                    std::int64_t, T, T, T*, std::int64_t, std::int64_t,             \
                                    cudaStream_t);                                                  \
  template void complex_combine<T>(const T*, const T*, std::int64_t, std::int64_t, std::int64_t, T,  \
                                   T, T, T, T*, std::int64_t, std::int64_t, cudaStream_t);
TCEMU_OZACC(float)
TCEMU_OZACC(double)
#undef TCEMU_OZACC

}  // namespace tcemu::cuda::detail
