// Range profile bookkeeping on the device: buffer layout, reset, and the per-line finalisation
// (min line max, line spread, Ozaki line exponents), matching profile_host (range_profile.cpp).
#include <cmath>

#include "cuda/check.hpp"
#include "cuda/kernels.hpp"
#include "tcemu/split.hpp"

namespace tcemu::cuda::detail {
namespace {

constexpr unsigned long long kInfBits = 0x7ff0000000000000ull;

std::size_t align256(std::size_t n) { return (n + 255) / 256 * 256; }

__global__ void profile_reset_kernel(ProfileArgs p, std::int64_t lines) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i == 0) {
    *p.totals = ProfileTotals{0, kInfBits, kInfBits, 0, 0, 0, 0};
  }
  if (i < lines) {
    p.line_max_bits[i] = 0;
    p.line_sum[i] = 0;
    p.line_exp[i] = 0;
  }
}

__global__ void profile_finalize_kernel(ProfileArgs p, std::int64_t lines, std::int64_t k) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= lines) return;
  const unsigned long long mb = p.line_max_bits[i];
  const double mx = __longlong_as_double(static_cast<long long>(mb));
  p.line_exp[i] = split::ozaki_line_exponent(mx);
  if (mx > 0) {
    atomicMin(&p.totals->min_line_max_bits, mb);
    const double mean = p.line_sum[i] / static_cast<double>(k);
    const double spread = log2(mx / mean);
    if (spread > 0) atomicMax(&p.totals->max_spread_bits, static_cast<unsigned long long>(__double_as_longlong(spread)));
  }
}

}  // namespace

std::size_t profile_bytes(std::int64_t lines) {
  return align256(sizeof(ProfileTotals)) + align256(sizeof(unsigned long long) * lines) +
         align256(sizeof(double) * lines) + align256(sizeof(int) * lines);
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
