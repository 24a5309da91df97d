#pragma once
// int8-crt (Ozaki scheme II) on complex operands, shared by both backends: the complex GEMM runs as
// ONE real int8-crt GEMM on the real embedding (docs/crt.md, "Complex operands"):
//   X (m x 2k):  X(i, 2l) = Re op(A)(i, l),  X(i, 2l+1) = Im op(A)(i, l)
//   Y (2k x 2n): Y(2l, 2j) = Re op(B)(l, j),  Y(2l+1, 2j) = -Im op(B)(l, j),
//                Y(2l, 2j+1) = Im op(B)(l, j), Y(2l+1, 2j+1) = Re op(B)(l, j)
// so that (X Y)(i, 2j) = Re (op(A) op(B))(i, j) and (X Y)(i, 2j+1) = Im. One scaling per row of X and
// column of Y, one certificate for the whole product, one reconstruction per output component: the
// 4M form, certified as the real scheme is (entrywise error <= u (|X||Y|) + 2u |XY|). The GPU
// (cuda/dispatch/complex_crt.cpp) builds the same X and Y and runs the same real int8-crt problem, or
// (N given, or certified on the embedding's lines) computes the same residues by 3M in the residue
// domain; either way the bits agree.
#include <complex>

#include "tcemu/gemm.hpp"

namespace tcemu::detail {

/// True when the complex int8-crt GEMM writes C through the real GEMM's own alpha / beta
/// (C = T(alpha v + beta C) per real component, in double): alpha and beta real and C's real and
/// imaginary parts one real row (column stride 1). Otherwise the real product goes to a temporary
/// (alpha = 1, beta = 0, rounded to T) and the complex combine of complex_gemm.hpp writes C. Both
/// backends take the same branch, so they round the same way.
template <class T>
bool complex_crt_writes_c(std::complex<T> alpha, std::complex<T> beta, const MatrixView<std::complex<T>>& C) {
  return alpha.imag() == T(0) && beta.imag() == T(0) && (C.col_stride == 1 || C.cols <= 1);
}

/// Complex C = alpha a b + beta C on the host by int8-crt through the real embedding above
/// (a = op(A) m x k, b = op(B) k x n, shapes checked by the caller; options.scheme an int8-crt
/// scheme). The report is the real embedded GEMM's (its certificate names the embedding's N).
template <class T>
GemmReport complex_crt_host(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                            std::complex<T> alpha, std::complex<T> beta, MatrixView<std::complex<T>> C,
                            const GemmOptions& options);

}  // namespace tcemu::detail
