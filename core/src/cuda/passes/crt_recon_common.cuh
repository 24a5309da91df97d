#pragma once
// What int8-crt's reconstruction kernels share (crt_reconstruct.cu, crt_narrow_complex.cu): the
// one-chunk constants, the kernels' modulus bound, and complex 3M's fold of one modulus and write of
// one entry, so that every path reconstructs in crt_arith's fixed order with the same operations
// (the host's bits; docs/crt.md, "3M in the residue domain").
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/passes/complex_combine_entry.cuh"
#include "cuda/passes/crt_passes.hpp"
#include "tcemu/crt.hpp"
#include "tcemu/crt_arith.hpp"

namespace tcemu::cuda::detail {

/// Constants of the one-chunk kernels: the integer reduction's (crt_arith::modulus_u32) and, per
/// modulus, 2^52 + half (the exact int -> double conversion of a residue r - half as
/// (2^52 + r) - (2^52 + half), one FP64 add instead of a conversion).
struct ReconConstants4 {
  std::uint32_t p[crt::kMaxModuli], magic[crt::kMaxModuli], off30[crt::kMaxModuli];
  crt::arith::Lanes3m lanes[crt::kMaxModuli];  ///< complex 3M's two-entry reduction (crt_arith::shifted_3m_lanes)
  double bias[crt::kMaxModuli];
  double w_hi[crt::kMaxModuli], w_lo[crt::kMaxModuli];
  double P_hi, P_lo, inv_P;
};

/// ReconConstants4 for N = K.n moduli (the integer constants, the bias, the reconstruction's); every
/// entry past K.n is 0 (reconstruct_fragments_kernel's padding moduli rely on zero weights).
inline ReconConstants4 recon_constants4(const crt::Constants& K) {
  ReconConstants4 R4{};
  for (int l = 0; l < K.n; ++l) {
    const crt::arith::ModulusU32 m = crt::arith::modulus_u32(crt::kModuli[l]);
    R4.p[l] = m.p;
    R4.magic[l] = m.magic;
    R4.off30[l] = m.off30;
    R4.lanes[l] = crt::arith::lanes_3m(m);
    R4.bias[l] = 0x1p52 + m.half;
    R4.w_hi[l] = K.w_hi[l];
    R4.w_lo[l] = K.w_lo[l];
  }
  R4.P_hi = K.P_hi;
  R4.P_lo = K.P_lo;
  R4.inv_P = K.inv_P;
  return R4;
}

/// Calls f(std::integral_constant<int, NMAX>{}) with the kernels' modulus bound for n moduli: the
/// smallest of 8, 12, 16 and crt::kMaxModuli that holds n (the residue loads are unrolled to NMAX).
template <class F>
void with_nmax(int n, F&& f) {
  if (n <= 8) f(std::integral_constant<int, 8>{});
  else if (n <= 12) f(std::integral_constant<int, 12>{});
  else if (n <= 16) f(std::integral_constant<int, 16>{});
  else f(std::integral_constant<int, crt::kMaxModuli>{});
}

/// The two FP64 chains of one complex entry (crt_arith::reconstruct's sx and sy, for Re and Im).
struct Complex3mSums {
  double xr = 0, yr = 0, xi = 0, yi = 0;
};

/// Folds the shifted residues of Re and Im (r + half, in [0, p)) of one modulus into an entry's
/// chains: r = (2^52 + u) - (2^52 + half) exactly (bias = 2^52 + half), then one fma per chain.
__device__ __forceinline__ void fold_3m_shifted(Complex3mSums& s, std::uint32_t ure, std::uint32_t uim, double bias,
                                                double w_hi, double w_lo) {
  const double re = __hiloint2double(0x43300000, static_cast<int>(ure)) - bias;
  const double im = __hiloint2double(0x43300000, static_cast<int>(uim)) - bias;
  s.xr = fma(w_hi, re, s.xr);
  s.yr = fma(w_lo, re, s.yr);
  s.xi = fma(w_hi, im, s.xi);
  s.yi = fma(w_lo, im, s.yi);
}

/// Folds modulus l of complex 3M into an entry's chains: fold_3m_shifted of Re = P1 - P2 and Im = P3 -
/// P1 - P2 (crt_arith::shifted_re_3m / shifted_im_3m, as the real embedding's columns 2j and 2j + 1
/// would enter) from the shifted residues u1, u2, u3 (r + half, in [0, p)) of P1 = xr.yr, P2 =
/// xi.yi, P3 = xs.ys; `m` needs p, magic, half and neg_p (crt_arith::modulus_u32).
__device__ __forceinline__ void fold_3m(Complex3mSums& s, std::uint32_t u1, std::uint32_t u2, std::uint32_t u3,
                                        const crt::arith::ModulusU32& m, double bias, double w_hi, double w_lo) {
  fold_3m_shifted(s, crt::arith::shifted_re_3m(u1, u2, m), crt::arith::shifted_im_3m(u1, u2, u3, m), bias, w_hi, w_lo);
}

/// Reconstructs one complex entry from its chains (crt_arith::reconstruct_from_sums, then 2^-e with
/// e = ex[i] + ey[j]) and writes it at cij as `out` says: the real GEMM's write of each part (direct)
/// or the parts rounded to T and complex_combine_entry.
template <class T>
__device__ __forceinline__ void write_complex3m_entry(const Complex3mSums& s, int e, double P_hi, double P_lo,
                                                      double inv_P, const ComplexOutput<T>& out, T* cij) {
  double v[2];
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    const double cv = crt::arith::reconstruct_from_sums(c == 0 ? s.xr : s.xi, c == 0 ? s.yr : s.yi, P_hi, P_lo, inv_P);
    v[c] = crt::arith::ldexp_fast(cv, -e);
  }
  if (out.direct) {  // the real GEMM's write of each part (alpha, beta real)
    const double alpha = static_cast<double>(out.ar), beta = static_cast<double>(out.br);
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const double old = beta == 0 ? 0.0 : __dmul_rn(beta, static_cast<double>(cij[c]));
      cij[c] = static_cast<T>(__dadd_rn(__dmul_rn(alpha, v[c]), old));
    }
  } else {  // the real GEMM into the temporary (alpha 1, beta 0), then the complex combine
    const T x = static_cast<T>(__dadd_rn(__dmul_rn(1.0, v[0]), 0.0));
    const T y = static_cast<T>(__dadd_rn(__dmul_rn(1.0, v[1]), 0.0));
    complex_combine_entry(x, y, out.ar, out.ai, out.br, out.bi, cij);
  }
}

}  // namespace tcemu::cuda::detail
