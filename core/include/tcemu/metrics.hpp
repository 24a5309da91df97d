#pragma once
/// \file metrics.hpp
/// Accuracy metrics of docs/accuracy.md ("Metrics and inputs") and the references they compare against (host only).
#include <cstdint>
#include <vector>

#include "tcemu/matrix.hpp"

namespace tcemu {

/// R = op(A) * op(B) in FP64 through CBLAS dgemm (the reference for FP32-target schemes).
/// Returns R row-major, m x n.
template <class T>
std::vector<double> reference_gemm_fp64(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B);

/// R = op(A) * op(B) in double-double arithmetic (about 106 bits; the reference for FP64 targets),
/// rounded to double. Row-major m x n. O(mnk) scalar work: meant for test/accuracy sizes (<= 1024^3).
std::vector<double> reference_gemm_dd(Op opA, Op opB, MatrixView<const double> A,
                                      MatrixView<const double> B);

/// |op(A)| * |op(B)| in FP64, row-major m x n (denominator of the componentwise error).
template <class T>
std::vector<double> abs_product_fp64(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B);

/// Relative Frobenius error ||C - R||_F / ||R||_F; C is any view, R row-major with C's shape.
template <class T>
double relative_frobenius_error(MatrixView<const T> C, const std::vector<double>& R);

/// Componentwise error max_ij |C - R|_ij / (|A||B|)_ij, with absAB from abs_product_fp64()
/// (entries where (|A||B|)_ij = 0 are skipped).
template <class T>
double componentwise_error(MatrixView<const T> C, const std::vector<double>& R,
                           const std::vector<double>& absAB);

}  // namespace tcemu
