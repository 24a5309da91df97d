// int8-crt: one pass over the N INT32 residue products: reduce mod p_l (chunk sums added mod p_l),
// reconstruct C' in crt_arith's fixed order, undo the scaling, alpha / beta, write C: the host
// reference's operations one for one (crt_gemm_host's `write`: alpha v + (beta == 0 ? 0 : beta C) in
// double, with __dmul_rn / __dadd_rn so that nothing is fused).
#include "cuda/passes/crt_passes.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/crt_arith.hpp"

namespace tcemu::cuda::detail {
namespace {

struct ReconConstants {
  int n;
  crt::arith::ModulusF64 mod[crt::kMaxModuli];
  double w_hi[crt::kMaxModuli], w_lo[crt::kMaxModuli];
  double P_hi, P_lo, inv_P;
};

template <class T>
__global__ void __launch_bounds__(256)
    reconstruct_kernel(const std::int32_t* __restrict__ acc, std::int64_t bstride, std::int64_t ldacc,
                       std::int64_t nchunks, ReconConstants K, const int* __restrict__ ex,
                       const int* __restrict__ ey, std::int64_t rows, std::int64_t n, double alpha, double beta,
                       T* c, std::int64_t c_rs, std::int64_t c_cs) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;  // row: coalesced INT32 reads
  if (i >= rows) return;
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    // crt_arith::reconstruct's two fma chains (sx over l ascending, then sy over l ascending) run
    // interleaved here: the same operations in the same order per chain, so the same bits, and no
    // run-time-indexed residue array in local memory.
    const std::int64_t at = j * ldacc + i;
    double sx = 0, sy = 0;
    for (int l = 0; l < K.n; ++l) {
      // The chunk sums (each |v| < 2^30: GPU chunks of 2^16) add exactly in FP64; one reduction
      // gives the unique symmetric residue, the one the host reaches chunk by chunk.
      double sum = 0;
      for (std::int64_t ch = 0; ch < nchunks; ++ch) sum += static_cast<double>(__ldg(acc + (l * nchunks + ch) * bstride + at));
      const double r = crt::arith::sym_mod_small(sum, K.mod[l]);
      sx = fma(K.w_hi[l], r, sx);
      sy = fma(K.w_lo[l], r, sy);
    }
    const double q = rint(sx * K.inv_P);
    const double cp = fma(-K.P_lo, q, fma(-K.P_hi, q, sx)) + sy;
    const double v = ldexp(cp, -(ex[i] + ey[j]));
    T& out = c[i * c_rs + j * c_cs];
    const double old = beta == 0 ? 0.0 : __dmul_rn(beta, static_cast<double>(out));
    out = static_cast<T>(__dadd_rn(__dmul_rn(alpha, v), old));
  }
}

}  // namespace

template <class T>
void crt_reconstruct(const std::int32_t* acc, std::int64_t bstride, std::int64_t ldacc, std::int64_t nchunks,
                     const crt::Constants& K, const int* ex, const int* ey, std::int64_t rows, std::int64_t n,
                     T alpha, T beta, T* c, std::int64_t c_rs, std::int64_t c_cs, cudaStream_t stream) {
  if (rows <= 0 || n <= 0) return;
  if (nchunks >= (std::int64_t{1} << 22))
    throw InvalidArgument("tcemu cuda int8-crt: " + std::to_string(nchunks) + " k chunks (k >= 2^38)");
  ReconConstants R{};
  R.n = K.n;
  for (int l = 0; l < K.n; ++l) {
    R.mod[l] = crt::arith::modulus_f64(crt::kModuli[l]);
    R.w_hi[l] = K.w_hi[l];
    R.w_lo[l] = K.w_lo[l];
  }
  R.P_hi = K.P_hi;
  R.P_lo = K.P_lo;
  R.inv_P = K.inv_P;
  const dim3 grid(static_cast<unsigned>((rows + 255) / 256), static_cast<unsigned>(n < 65535 ? n : 65535));
  reconstruct_kernel<T><<<grid, 256, 0, stream>>>(acc, bstride, ldacc, nchunks, R, ex, ey, rows, n,
                                                  static_cast<double>(alpha), static_cast<double>(beta), c, c_rs,
                                                  c_cs);
  TCEMU_LAUNCHED("crt reconstruct_kernel");
}

#define TCEMU_CRT_RECON(T)                                                                                    \
  template void crt_reconstruct<T>(const std::int32_t*, std::int64_t, std::int64_t, std::int64_t,             \
                                   const crt::Constants&, const int*, const int*, std::int64_t, std::int64_t, \
                                   T, T, T*, std::int64_t, std::int64_t, cudaStream_t);
TCEMU_CRT_RECON(float)
TCEMU_CRT_RECON(double)
#undef TCEMU_CRT_RECON

}  // namespace tcemu::cuda::detail
