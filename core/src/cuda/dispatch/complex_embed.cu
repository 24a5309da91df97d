// Real embedding of a complex operand op(B) for complex_gemm_device (complex_gemm_cuda.cpp): the
// 2k x 2n real matrix Br with  Br[2j, 2c] = Re B(j, c),  Br[2j+1, 2c] = -Im B(j, c),
//                              Br[2j, 2c+1] = Im B(j, c), Br[2j+1, 2c+1] = Re B(j, c),
// so that [Re A(i, :), Im A(i, :) interleaved] . Br = [Re C(i, :), Im C(i, :) interleaved].
#include "tcemu/cuda/check.hpp"
#include "cuda/kernels.hpp"

namespace tcemu::cuda::detail {
namespace {

/// One thread per complex element (j, c), j fastest: it writes the 2 x 2 block of Br at rows 2j, 2j+1
/// of columns 2c and 2c+1 (two adjacent pairs, coalesced along j within each column).
template <class T>
__global__ void embed_complex_kernel(const T* __restrict__ b, std::int64_t k, std::int64_t n,
                                     std::int64_t b_rs, std::int64_t b_cs, T* __restrict__ br,
                                     std::int64_t ldbr) {
  const std::int64_t total = k * n;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t j = e % k, c = e / k;
    const T* z = b + 2 * (j * b_rs + c * b_cs);
    const T re = z[0], im = z[1];
    T* col0 = br + (2 * c) * ldbr + 2 * j;
    T* col1 = col0 + ldbr;
    col0[0] = re;
    col0[1] = -im;
    col1[0] = im;
    col1[1] = re;
  }
}

/// One thread per complex element (l, i), l fastest: writes x[i ldx + 2l .. 2l + 1] (coalesced along l).
template <class T>
__global__ void embed_rows_kernel(const T* __restrict__ a, std::int64_t m, std::int64_t k, std::int64_t a_rs,
                                  std::int64_t a_cs, T* __restrict__ x, std::int64_t ldx) {
  const std::int64_t total = m * k;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t l = e % k, i = e / k;
    const T* z = a + 2 * (i * a_rs + l * a_cs);
    T* o = x + i * ldx + 2 * l;
    o[0] = z[0];
    o[1] = z[1];
  }
}

}  // namespace

template <class T>
void embed_complex_rows(const T* a, std::int64_t m, std::int64_t k, std::int64_t a_rs, std::int64_t a_cs, T* x,
                        std::int64_t ldx, cudaStream_t stream) {
  if (m <= 0 || k <= 0) return;
  std::int64_t blocks = (m * k + 255) / 256;
  const std::int64_t cap = std::int64_t{16} * device_sms();
  if (blocks > cap) blocks = cap;
  embed_rows_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(a, m, k, a_rs, a_cs, x, ldx);
  TCEMU_LAUNCHED("embed_rows_kernel");
}

template void embed_complex_rows<float>(const float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, float*,
                                        std::int64_t, cudaStream_t);
template void embed_complex_rows<double>(const double*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                         double*, std::int64_t, cudaStream_t);

template <class T>
void embed_complex_operand(const T* b, std::int64_t k, std::int64_t n, std::int64_t b_rs,
                           std::int64_t b_cs, T* br, std::int64_t ldbr, cudaStream_t stream) {
  if (k <= 0 || n <= 0) return;
  const std::int64_t total = k * n;
  std::int64_t blocks = (total + 255) / 256;
  const std::int64_t cap = std::int64_t{16} * device_sms();
  if (blocks > cap) blocks = cap;
  embed_complex_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(b, k, n, b_rs, b_cs, br, ldbr);
  TCEMU_LAUNCHED("embed_complex_kernel");
}

template void embed_complex_operand<float>(const float*, std::int64_t, std::int64_t, std::int64_t,
                                           std::int64_t, float*, std::int64_t, cudaStream_t);
template void embed_complex_operand<double>(const double*, std::int64_t, std::int64_t, std::int64_t,
                                            std::int64_t, double*, std::int64_t, cudaStream_t);

}  // namespace tcemu::cuda::detail
