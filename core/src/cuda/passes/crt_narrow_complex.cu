// int8-crt's complex 3M for narrow products (n <= 8 columns, k <= 16) in one pass on the CUDA cores:
// per row of X its scaled integers, their residues, the 3N residue products against y's residues
// (shared memory), their reduction mod p and the reconstruction, without residue panels in memory.
// On the wgmma path such a product pads its n columns to the kernel's 256 and its k to 16, so its
// residue panels are up to 64 times the state's bytes (qsim's 2-qubit block: docs/perf-notes.md,
// "Session 30"). The same integers, the same residues and the same chains as that path, so the
// host's bits (the GPU tests compare them).
#include "cuda/kernels.hpp"
#include "cuda/passes/crt_passes.hpp"
#include "cuda/passes/crt_recon_common.cuh"
#include "tcemu/cuda/check.hpp"
#include "tcemu/crt_arith.hpp"
#include "tcemu/schemes/crt.hpp"

#include <cstdint>
#include <string>

namespace tcemu::cuda::detail {
namespace {

/// The residue moduli's full constants (the limbs' and Barrett's) with the reconstruction's.
struct NarrowConstants {
  crt::arith::ModulusU32 mod[crt::kMaxModuli];
  ReconConstants4 R;
};

/// Symmetric residue of one scaled integer v mod p by whichever exact route its size allows (every
/// route gives the canonical residue, as the residue pass's do): limbs below 2^63 (a: its limbs),
/// wide limbs below 2^84, crt_arith::residue beyond.
__device__ __forceinline__ int scaled_residue(double v, const crt::arith::Limbs23& a, bool below63,
                                              const crt::arith::ModulusU32& m) {
  if (below63) return crt::arith::residue_limbs(a, m);
  if (fabs(v) < 0x1p84) return crt::arith::residue_wide(crt::arith::wide_limbs(v), m);
  return crt::arith::residue(v, static_cast<int>(m.p));
}

/// A thread per row i of X (grid-stride): the KMAX >= k complex elements of the row scaled by
/// 2^ex[i] and rounded to nearest (crt_arith::scaled_integer, the residue pass's integers); per modulus l the
/// residues of Re, Im and Re + Im (sym_add_residues), their dot products with y's residue lines of
/// the three parts (k <= 16 terms of |r| <= 128: exact in INT32), each reduced to its shifted residue
/// (shifted_residue_i32: the value the wgmma kernel's fused reduction stores, plus half), folded into
/// the entry's chains (fold_3m) in l order; then each of the NCOL >= n entries written
/// (write_complex3m_entry). y's residues (3 x N x n x kcp bytes, crt_residues_complex3m's layout)
/// are staged in shared memory as 3 x kMaxModuli x NCOL lines of KMAX bytes, read as words: the dot
/// products take four terms per __dp4a (the row's residues packed four to a word; the same INT32
/// sums as term by term in about a third of the instructions: docs/perf-notes.md, "Session 31").
template <class T, int KMAX, int NCOL>
__global__ void __launch_bounds__(256)
    narrow_complex3m_kernel(const T* __restrict__ x, std::int64_t rows, int k, std::int64_t x_ld,
                            const int* __restrict__ ex, const std::int8_t* __restrict__ ry, std::int64_t panel_y,
                            std::int64_t kcp, const int* __restrict__ ey, int n_moduli, int n,
                            NarrowConstants K, ComplexOutput<T> out) {
  static_assert(KMAX % 4 == 0, "lines of whole words");
  constexpr int W = KMAX / 4;  // words per line
  __shared__ __align__(16) std::int8_t ys[3][crt::kMaxModuli][NCOL][KMAX];
  for (int t = static_cast<int>(threadIdx.x); t < 3 * crt::kMaxModuli * NCOL * KMAX; t += static_cast<int>(blockDim.x)) {
    const int kk = t % KMAX, j = (t / KMAX) % NCOL, l = (t / (KMAX * NCOL)) % crt::kMaxModuli,
              part = t / (KMAX * NCOL * crt::kMaxModuli);
    ys[part][l][j][kk] = l < n_moduli && j < n && kk < k ? ry[(part * n_moduli + l) * panel_y + j * kcp + kk] : 0;
  }
  __syncthreads();
  int eyj[NCOL];
#pragma unroll
  for (int j = 0; j < NCOL; ++j) eyj[j] = j < n ? ey[j] : 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < rows;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const int s = ex[i];
    double v[2 * KMAX];
    double amax = 0;
#pragma unroll
    for (int q = 0; q < 2 * KMAX; ++q) {
      v[q] = q < 2 * k ? crt::arith::scaled_integer(static_cast<double>(__ldg(x + i * x_ld + q)), s) : 0.0;
      amax = fmax(amax, fabs(v[q]));
    }
    const bool below63 = amax < 0x1p63;
    crt::arith::Limbs23 a[2 * KMAX];
#pragma unroll
    for (int q = 0; q < 2 * KMAX; ++q) a[q] = crt::arith::limbs23(below63 ? static_cast<long long>(v[q]) : 0);
    Complex3mSums sums[NCOL];
#pragma unroll
    for (int l = 0; l < crt::kMaxModuli; ++l) {
      if (l < n_moduli) {
        const crt::arith::ModulusU32& m = K.mod[l];
        std::uint32_t wr[W], wi[W], ws[W];  // the residues of Re, Im and Re + Im, four signed bytes per word
#pragma unroll
        for (int w = 0; w < W; ++w) {
          wr[w] = wi[w] = ws[w] = 0;
#pragma unroll
          for (int b = 0; b < 4; ++b) {
            const int kk = 4 * w + b;
            const int rr = scaled_residue(v[2 * kk], a[2 * kk], below63, m);
            const int ri = scaled_residue(v[2 * kk + 1], a[2 * kk + 1], below63, m);
            const int rs = crt::arith::sym_add_residues(rr, ri, m);
            wr[w] |= (static_cast<std::uint32_t>(rr) & 0xFFu) << (8 * b);
            wi[w] |= (static_cast<std::uint32_t>(ri) & 0xFFu) << (8 * b);
            ws[w] |= (static_cast<std::uint32_t>(rs) & 0xFFu) << (8 * b);
          }
        }
#pragma unroll
        for (int j = 0; j < NCOL; ++j) {
          if (j < n) {
            const int* y1 = reinterpret_cast<const int*>(ys[0][l][j]);
            const int* y2 = reinterpret_cast<const int*>(ys[1][l][j]);
            const int* y3 = reinterpret_cast<const int*>(ys[2][l][j]);
            int p1 = 0, p2 = 0, p3 = 0;
#pragma unroll
            for (int w = 0; w < W; ++w) {  // zeros past k on both sides; signed bytes (the int overload)
              p1 = __dp4a(static_cast<int>(wr[w]), y1[w], p1);
              p2 = __dp4a(static_cast<int>(wi[w]), y2[w], p2);
              p3 = __dp4a(static_cast<int>(ws[w]), y3[w], p3);
            }
            fold_3m(sums[j], crt::arith::shifted_residue_i32(p1, m), crt::arith::shifted_residue_i32(p2, m),
                    crt::arith::shifted_residue_i32(p3, m), m, K.R.bias[l], K.R.w_hi[l], K.R.w_lo[l]);
          }
        }
      }
    }
#pragma unroll
    for (int j = 0; j < NCOL; ++j)
      if (j < n)
        write_complex3m_entry(sums[j], s + eyj[j], K.R.P_hi, K.R.P_lo, K.R.inv_P, out,
                              out.c + 2 * (i * out.c_rs + j * out.c_cs));
  }
}

template <class T, int KMAX, int NCOL>
void launch_narrow(const T* x, std::int64_t rows, std::int64_t k, std::int64_t x_ld, const int* ex,
                   const std::int8_t* ry, std::int64_t panel_y, std::int64_t kcp, const int* ey, int n_moduli,
                   std::int64_t n, const NarrowConstants& K, const ComplexOutput<T>& out, cudaStream_t stream) {
  const std::int64_t want = (rows + 255) / 256, cap = std::int64_t{device_sms()} * 8 * 16;  // at most 16 waves
  narrow_complex3m_kernel<T, KMAX, NCOL><<<static_cast<unsigned>(want < cap ? want : cap), 256, 0, stream>>>(
      x, rows, static_cast<int>(k), x_ld, ex, ry, panel_y, kcp, ey, n_moduli, static_cast<int>(n), K, out);
  TCEMU_LAUNCHED("crt narrow_complex3m_kernel");
}

}  // namespace

template <class T>
void crt_narrow_complex3m(const T* x, std::int64_t rows, std::int64_t k, std::int64_t x_ld, const int* ex,
                          const std::int8_t* ry, std::int64_t kcp, const int* ey, std::int64_t n,
                          const crt::Constants& K, const ComplexOutput<T>& out, cudaStream_t stream) {
  if (rows <= 0 || n <= 0) return;
  if (!crt_narrow_complex3m_runs(n, k) || kcp % 16 != 0 || kcp < k || K.n < 1 || K.n > crt::kMaxModuli)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name +
                          ": the narrow 3M pass takes n <= " + std::to_string(kCrtNarrowMaxN) + " and k <= " +
                          std::to_string(kCrtNarrowMaxK) + " with kcp >= k a multiple of 16 and 1 to " +
                          std::to_string(crt::kMaxModuli) + " moduli, got n = " + std::to_string(n) + ", k = " +
                          std::to_string(k) + ", kcp = " + std::to_string(kcp) + ", " + std::to_string(K.n) + " moduli");
  NarrowConstants C{};
  for (int l = 0; l < K.n; ++l) C.mod[l] = crt::arith::modulus_u32(crt::kModuli[l]);
  C.R = recon_constants4(K);
  const std::int64_t panel_y = n * kcp;
  if (k <= 4 && n <= 4) launch_narrow<T, 4, 4>(x, rows, k, x_ld, ex, ry, panel_y, kcp, ey, K.n, n, C, out, stream);
  else if (k <= 8) launch_narrow<T, 8, 8>(x, rows, k, x_ld, ex, ry, panel_y, kcp, ey, K.n, n, C, out, stream);
  else launch_narrow<T, 16, 8>(x, rows, k, x_ld, ex, ry, panel_y, kcp, ey, K.n, n, C, out, stream);
}

template void crt_narrow_complex3m<float>(const float*, std::int64_t, std::int64_t, std::int64_t, const int*,
                                          const std::int8_t*, std::int64_t, const int*, std::int64_t,
                                          const crt::Constants&, const ComplexOutput<float>&, cudaStream_t);
template void crt_narrow_complex3m<double>(const double*, std::int64_t, std::int64_t, std::int64_t, const int*,
                                           const std::int8_t*, std::int64_t, const int*, std::int64_t,
                                           const crt::Constants&, const ComplexOutput<double>&, cudaStream_t);

}  // namespace tcemu::cuda::detail
