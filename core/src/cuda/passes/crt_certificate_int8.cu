// int8-crt: the per-entry test of crt::certify_int8 on the GPU (crt_certificate_int8,
// crt_certificate_int8_search, crt_passes.hpp) from the two INT32 magnitude products. The operations
// per entry and N are host/crt.cpp's (crt_arith::int8_certificate_rhs, scale_exponent, entry_bound),
// so the fail mask, the candidate N and the worst ratio are the host's bits. Layout for speed
// (docs/perf-notes.md, "Session 19"): a block takes 256 rows and kCertCols columns, the columns' line
// data staged in shared memory; one atomic per block, not per warp (2 million same-address atomics
// cost more than the test itself). The mask test stops testing an N in a warp once one of its
// entries failed it; the search (session 25) tests one N per entry, the warp's candidate, and raises
// it while some lane fails there.
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "cuda/passes/crt_passes.hpp"
#include "cuda/passes/tile_pass.cuh"  // dbits
#include "tcemu/crt_arith.hpp"
#include "tcemu/schemes/crt.hpp"

namespace tcemu::cuda::detail {
namespace {

constexpr int kCertThreads = 256;  // rows per block, one per thread
constexpr int kCertCols = 64;      // columns per block and step
constexpr int kCertBatch = 8;      // products loaded before any is tested (loads in flight)

/// OR of v over the warp (every lane must call it): one REDUX from compute 8.0, shuffles before.
__device__ __forceinline__ unsigned warp_or(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_or_sync(0xffffffffu, v);
#else
  for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(0xffffffffu, v, o);
  return v;
#endif
}

/// kSearch = false: the fail mask of every N in [n_lo, n_hi] (atomicOr on *out), with ratio_bits
/// the worst ratio too. kSearch = true: each warp's candidate c starts at n_lo and goes up by one
/// while some lane's entry fails at c (to n_hi + 1 at most); *out = the largest c (atomicMax). c only
/// rises past an N that some entry fails, so every N below the result fails somewhere.
template <bool kSearch>
__global__ void __launch_bounds__(kCertThreads)
    certificate_int8_kernel(const std::int32_t* __restrict__ hh, const std::int32_t* __restrict__ cross,
                            std::int64_t ld, std::int64_t m, std::int64_t n, CrtLines lx, CrtLines ly, double tol,
                            int n_lo, int n_hi, CrtBoundConstants K, unsigned* out,
                            unsigned long long* ratio_bits) {
  __shared__ int col_active[kCertCols], col_c[kCertCols], col_base[kCertCols];
  __shared__ double col_norm1[kCertCols];
  __shared__ unsigned block_mask;
  __shared__ unsigned long long block_worst;
  if (threadIdx.x == 0) {
    block_mask = 0;
    block_worst = 0;
  }
  __syncthreads();
  const std::int64_t i = blockIdx.x * std::int64_t{kCertThreads} + threadIdx.x;
  const bool row = i < m && lx.active[i] != 0;
  const int Ex = row ? 16 - lx.base[i] : 0;
  const double wx = row ? crt::arith::norm1_bound(lx.s1[i], Ex) : 0;
  const int cx = row ? lx.c[i] : 0, bx = row ? lx.base[i] : 0;
  // Bits of the N to test; with a ratio wanted (n_lo == n_hi) every entry is evaluated.
  const unsigned wanted = ((2u << n_hi) - 1) & ~((1u << n_lo) - 1);
  unsigned mask = 0;
  double worst = 0;
  int candidate = n_lo;  // kSearch: the warp's candidate N (every lane holds the same value)
  for (std::int64_t j0 = blockIdx.y * std::int64_t{kCertCols}; j0 < n; j0 += std::int64_t{gridDim.y} * kCertCols) {
    const int cols = static_cast<int>(n - j0 < kCertCols ? n - j0 : kCertCols);
    __syncthreads();  // the previous step's column data is no longer read
    if (threadIdx.x < cols) {
      const std::int64_t j = j0 + threadIdx.x;
      const int act = ly.active[j] != 0;
      col_active[threadIdx.x] = act;
      col_c[threadIdx.x] = ly.c[j];
      col_base[threadIdx.x] = ly.base[j];
      col_norm1[threadIdx.x] = act ? crt::arith::norm1_bound(ly.s1[j], 16 - ly.base[j]) : 0;
    }
    __syncthreads();
    for (int b = 0; b < cols; b += kCertBatch) {
      std::int32_t vh[kCertBatch], vc[kCertBatch];
#pragma unroll
      for (int t = 0; t < kCertBatch; ++t) {
        const bool load = row && b + t < cols;
        vh[t] = load ? hh[(j0 + b + t) * ld + i] : 0;
        vc[t] = load ? cross[(j0 + b + t) * ld + i] : 0;
      }
#pragma unroll
      for (int t = 0; t < kCertBatch; ++t) {
        const int jj = b + t;
        if constexpr (kSearch) {
          // Warp-uniform: every lane runs the loop until no lane fails at the candidate.
          const bool live = row && jj < cols && col_active[jj];
          const int Ey = live ? 16 - col_base[jj] : 0;
          const double rhs = live ? crt::arith::int8_certificate_rhs(vh[t], vc[t], Ex + Ey, tol) : 0;
          const int cy = live ? col_c[jj] : 0, by = live ? col_base[jj] : 0;
          const double zy = live ? col_norm1[jj] : 0;
          while (candidate <= n_hi) {
            bool fails = false;
            if (live) {
              const int ea = crt::arith::scale_exponent(K.Lb_x[candidate], cx, bx);
              const int eb = crt::arith::scale_exponent(K.Lb_y[candidate], cy, by);
              fails = !(crt::arith::entry_bound(zy, wx, ea, eb, K.fixed[candidate]) <= rhs);
            }
            if (!__any_sync(0xffffffffu, fails)) break;
            ++candidate;
          }
          continue;
        }
        // The N some entry of this warp already failed need no more tests (warp-uniform skip).
        const unsigned todo = ratio_bits != nullptr ? wanted : wanted & ~warp_or(mask);
        if (!row || jj >= cols || !col_active[jj] || todo == 0) continue;
        const int Ey = 16 - col_base[jj];
        const double zy = col_norm1[jj];
        const double rhs = crt::arith::int8_certificate_rhs(vh[t], vc[t], Ex + Ey, tol);
        // Only the set bits of todo (a loop over all 19 N with a bit test cost more than the tests).
#pragma unroll 1  // one copy of the test: the batch loop around it is unrolled already
        for (unsigned bits = todo; bits != 0; bits &= bits - 1) {
          const int N = __ffs(static_cast<int>(bits)) - 1;
          const int ea = crt::arith::scale_exponent(K.Lb_x[N], cx, bx);
          const int eb = crt::arith::scale_exponent(K.Lb_y[N], col_c[jj], col_base[jj]);
          const double bound = crt::arith::entry_bound(zy, wx, ea, eb, K.fixed[N]);
          if (!(bound <= rhs)) mask |= 1u << N;
          if (ratio_bits != nullptr) {
            const double r = rhs > 0 ? bound / rhs : HUGE_VAL;
            worst = r > worst ? r : worst;
          }
        }
      }
    }
  }
  if constexpr (kSearch) {
    if ((threadIdx.x & 31) == 0) atomicMax(&block_mask, static_cast<unsigned>(candidate));
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(out, block_mask);
    return;
  }
  mask = warp_or(mask);
  const unsigned long long worst_bits = warp_max_u64(dbits(worst));  // worst >= 0: bits order as values
  if ((threadIdx.x & 31) == 0) {
    if (mask) atomicOr(&block_mask, mask);
    if (worst_bits) atomicMax(&block_worst, worst_bits);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (block_mask) atomicOr(out, block_mask);
    if (ratio_bits != nullptr && block_worst) atomicMax(ratio_bits, block_worst);
  }
}

dim3 cert_grid(std::int64_t m, std::int64_t n) {
  const std::int64_t col_steps = (n + kCertCols - 1) / kCertCols;
  return dim3(static_cast<unsigned>((m + kCertThreads - 1) / kCertThreads),
              static_cast<unsigned>(col_steps < 65535 ? col_steps : 65535));
}

}  // namespace

void crt_certificate_int8(const std::int32_t* hh, const std::int32_t* cross, std::int64_t ld, std::int64_t m,
                          std::int64_t n, std::int64_t k, const CrtSplit& split, const CrtLines& lx,
                          const CrtLines& ly, double tol, int n_lo, int n_hi,
                          unsigned* fail_mask, unsigned long long* ratio_bits, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  certificate_int8_kernel<false><<<cert_grid(m, n), kCertThreads, 0, stream>>>(
      hh, cross, ld, m, n, lx, ly, tol, n_lo, n_hi, crt_bound_constants(k, split), fail_mask, ratio_bits);
  TCEMU_LAUNCHED("crt certificate_int8_kernel");
}

void crt_certificate_int8_search(const std::int32_t* hh, const std::int32_t* cross, std::int64_t ld, std::int64_t m,
                                 std::int64_t n, std::int64_t k, const CrtSplit& split, const CrtLines& lx,
                                 const CrtLines& ly, double tol, int n_lo,
                                 int n_hi, unsigned* candidate, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  certificate_int8_kernel<true><<<cert_grid(m, n), kCertThreads, 0, stream>>>(
      hh, cross, ld, m, n, lx, ly, tol, n_lo, n_hi, crt_bound_constants(k, split), candidate, nullptr);
  TCEMU_LAUNCHED("crt certificate_int8_kernel (search)");
}

}  // namespace tcemu::cuda::detail
