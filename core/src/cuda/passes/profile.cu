// Range profile bookkeeping on the device: buffer layout, reset, and the per-line finalisation
// (min line max, line spread, Ozaki line exponents), matching profile_host (range_profile.cpp).
#include <cmath>

#include "tcemu/cuda/check.hpp"
#include "cuda/kernels.hpp"
#include "tcemu/split.hpp"

namespace tcemu::cuda::detail {
namespace {

constexpr unsigned long long kInfBits = 0x7ff0000000000000ull;

std::size_t align256(std::size_t n) { return (n + 255) / 256 * 256; }

__global__ void profile_reset_kernel(ProfileArgs p, std::int64_t lines) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i == 0) {
    *p.totals = ProfileTotals{0, kInfBits, kInfBits, 0, 0, 0, 0, 0};
  }
  if (i < lines) {
    p.line_max_bits[i] = 0;
    p.line_sum[i] = 0;
    p.line_nnz[i] = 0;
    p.line_exp[i] = 0;
  }
}

/// Per line: Ozaki exponent; over all lines (block reductions, one atomic per block and quantity):
/// the global max (the largest line max: the split pass keeps no per-element max), the smallest
/// nonzero line max and the largest line spread.
__global__ void __launch_bounds__(256) profile_finalize_kernel(ProfileArgs p, std::int64_t lines, std::int64_t k) {
  __shared__ unsigned long long s[4][8];
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  unsigned long long mx_bits = 0, min_bits = kInfBits, spread_bits = 0, spread_nz_bits = 0;
  if (i < lines) {
    const unsigned long long mb = p.line_max_bits[i];
    const double mx = __longlong_as_double(static_cast<long long>(mb));
    p.line_exp[i] = split::ozaki_line_exponent(mx);
    if (mx > 0) {
      mx_bits = mb;
      min_bits = mb;
      const double mean = p.line_sum[i] / static_cast<double>(k);
      const double spread = log2(mx / mean);
      if (spread > 0) spread_bits = static_cast<unsigned long long>(__double_as_longlong(spread));
      const double spread_nz = log2(mx / (p.line_sum[i] / static_cast<double>(p.line_nnz[i])));
      if (spread_nz > 0) spread_nz_bits = static_cast<unsigned long long>(__double_as_longlong(spread_nz));
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long a = __shfl_xor_sync(0xffffffffu, mx_bits, o);
    const unsigned long long b = __shfl_xor_sync(0xffffffffu, min_bits, o);
    const unsigned long long c = __shfl_xor_sync(0xffffffffu, spread_bits, o);
    const unsigned long long d = __shfl_xor_sync(0xffffffffu, spread_nz_bits, o);
    spread_nz_bits = d > spread_nz_bits ? d : spread_nz_bits;
    mx_bits = a > mx_bits ? a : mx_bits;
    min_bits = b < min_bits ? b : min_bits;
    spread_bits = c > spread_bits ? c : spread_bits;
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    s[0][warp] = mx_bits;
    s[1][warp] = min_bits;
    s[2][warp] = spread_bits;
    s[3][warp] = spread_nz_bits;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < static_cast<int>(blockDim.x) / 32; ++w) {
      mx_bits = s[0][w] > mx_bits ? s[0][w] : mx_bits;
      min_bits = s[1][w] < min_bits ? s[1][w] : min_bits;
      spread_bits = s[2][w] > spread_bits ? s[2][w] : spread_bits;
      spread_nz_bits = s[3][w] > spread_nz_bits ? s[3][w] : spread_nz_bits;
    }
    if (mx_bits != 0) atomicMax(&p.totals->max_bits, mx_bits);
    if (min_bits != kInfBits) atomicMin(&p.totals->min_line_max_bits, min_bits);
    if (spread_bits != 0) atomicMax(&p.totals->max_spread_bits, spread_bits);
    if (spread_nz_bits != 0) atomicMax(&p.totals->max_spread_nz_bits, spread_nz_bits);
  }
}

}  // namespace

std::size_t profile_bytes(std::int64_t lines) {
  return align256(sizeof(ProfileTotals)) + align256(sizeof(unsigned long long) * lines) +
         align256(sizeof(double) * lines) + 2 * align256(sizeof(int) * lines);
}

ProfileArgs profile_layout(void* base, std::int64_t lines) {
  char* p = static_cast<char*>(base);
  ProfileArgs a;
  a.totals = reinterpret_cast<ProfileTotals*>(p);
  p += align256(sizeof(ProfileTotals));
  a.line_max_bits = reinterpret_cast<unsigned long long*>(p);
  p += align256(sizeof(unsigned long long) * lines);
  a.line_sum = reinterpret_cast<double*>(p);
  p += align256(sizeof(double) * lines);
  a.line_nnz = reinterpret_cast<int*>(p);
  p += align256(sizeof(int) * lines);
  a.line_exp = reinterpret_cast<int*>(p);
  return a;
}

void profile_reset(const ProfileArgs& p, std::int64_t lines, cudaStream_t stream) {
  const std::int64_t n = lines > 1 ? lines : 1;
  profile_reset_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(p, lines);
  TCEMU_LAUNCHED("profile_reset_kernel");
}

void profile_finalize(const ProfileArgs& p, std::int64_t lines, std::int64_t k, cudaStream_t stream) {
  if (lines <= 0) return;
  profile_finalize_kernel<<<static_cast<unsigned>((lines + 255) / 256), 256, 0, stream>>>(p, lines, k);
  TCEMU_LAUNCHED("profile_finalize_kernel");
}

}  // namespace tcemu::cuda::detail
