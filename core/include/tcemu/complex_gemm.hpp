#pragma once
/// \file complex_gemm.hpp
/// Complex GEMM (FP32 and FP64 targets) as real emulated GEMMs, for qsim and other complex codes.
///
/// 4M method: with op(A) = Ar + i Ai and op(B) = Br + i Bi (op = N or T, no conjugation),
///   Re = Ar Br - Ai Bi,   Im = Ar Bi + Ai Br,   C = alpha (Re + i Im) + beta C,
/// each real product being one tcemu GEMM with `options` (so every scheme, auto and the range policy
/// apply to each of the four products; Ozaki uses separate exponents for real and imaginary parts).
/// The second product of each pair accumulates into the first through the real GEMM's beta = 1, so
/// the partial sums are rounded to T once per product, exactly as a native complex GEMM built from
/// real GEMMs would. The error is that of the real scheme on max(|Ar||Br| + |Ai||Bi|, ...) per entry.
///
/// int8-crt (schemes/crt.hpp) is the exception: on both backends it runs as ONE real int8-crt GEMM
/// on the real embedding [Re A, Im A] x [[Re B, Im B], [-Im B, Re B]] (one certificate for the whole
/// complex product, bit for bit the same on host and GPU; docs/crt.md, "Complex operands").
///
/// 3M (Gauss: three real products with (Ar + Ai)(Br + Bi)) is not offered: with emulated products its
/// cancellation error grows with |A||B| / |Re| and breaks the FP32/FP64 accuracy the schemes promise
/// when the real and imaginary parts differ in magnitude (see docs/perf-notes.md).
///
/// On Kokkos Views, tcemu::gemm (tcemu/gemm.hpp) takes Kokkos::complex<float|double> (or std::complex)
/// Views and runs these complex GEMMs: complex_gemm_host on a host instance, complex_gemm_device on a
/// Kokkos::Cuda instance.
///
/// Complex storage is read through real views: a std::complex<T> matrix with element strides
/// (rs, cs) is the real matrix at (T*)data with strides (2 rs, 2 cs), and the imaginary one at
/// (T*)data + 1 with the same strides (std::complex<T> is layout-compatible with T[2]).
#include <complex>

#include "tcemu/gemm.hpp"

namespace tcemu {

/// Real parts of a complex view, as a strided real view (no copy).
template <class T>
MatrixView<T> real_view(MatrixView<std::complex<T>> z) {
  return {reinterpret_cast<T*>(z.data), z.rows, z.cols, 2 * z.row_stride, 2 * z.col_stride};
}
template <class T>
MatrixView<const T> real_view(MatrixView<const std::complex<T>> z) {
  return {reinterpret_cast<const T*>(z.data), z.rows, z.cols, 2 * z.row_stride, 2 * z.col_stride};
}
/// Imaginary parts of a complex view, as a strided real view (no copy).
template <class T>
MatrixView<T> imag_view(MatrixView<std::complex<T>> z) {
  return {reinterpret_cast<T*>(z.data) + 1, z.rows, z.cols, 2 * z.row_stride, 2 * z.col_stride};
}
template <class T>
MatrixView<const T> imag_view(MatrixView<const std::complex<T>> z) {
  return {reinterpret_cast<const T*>(z.data) + 1, z.rows, z.cols, 2 * z.row_stride, 2 * z.col_stride};
}

/// Folds the reports of the four real products: `used`, `plan` and `requested` of the first, any
/// fallback (with the first note), seconds summed over the four products plus the complex combine.
GemmReport merge_reports(const GemmReport* r, int count);

/// Complex C = alpha * op(A) * op(B) + beta * C on the host (4M, see the file comment).
/// T = float or double; op(A) m x k, op(B) k x n, C m x n, any strides; C is not read when
/// beta == 0. Throws InvalidArgument on shape mismatch (and under RangePolicy::error for an operand
/// part out of the scheme's range, naming it as the real or imaginary part's product).
template <class T>
GemmReport complex_gemm_host(Op opA, Op opB, std::complex<T> alpha, MatrixView<const std::complex<T>> A,
                             MatrixView<const std::complex<T>> B, std::complex<T> beta,
                             MatrixView<std::complex<T>> C, const GemmOptions& options = {});

}  // namespace tcemu
