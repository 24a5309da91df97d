#pragma once
// Thin CBLAS wrappers for the host backend: row-major, no transposes (the split already laid the
// parts out as op(A) m x k and op(B) k x n), extents checked against CBLAS's 32-bit integers.
#include <cblas.h>

#include <cstdint>
#include <limits>
#include <string>

#include "tcemu/error.hpp"

namespace tcemu::host {

inline int blas_int(std::int64_t v, const char* what) {
  if (v > std::numeric_limits<int>::max())
    throw InvalidArgument(std::string("host gemm: ") + what + " = " + std::to_string(v) +
                          " exceeds CBLAS's 32-bit integer range");
  return static_cast<int>(v);
}

/// C (m x n) = A (m x k) * B (k x n) + beta * C, all row-major contiguous, FP32.
inline void sgemm_rm(std::int64_t m, std::int64_t n, std::int64_t k, const float* A, const float* B,
                     float beta, float* C) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas_int(m, "m"), blas_int(n, "n"),
              blas_int(k, "k"), 1.0f, A, blas_int(k, "k"), B, blas_int(n, "n"), beta, C,
              blas_int(n, "n"));
}

/// Same in FP64.
inline void dgemm_rm(std::int64_t m, std::int64_t n, std::int64_t k, const double* A, const double* B,
                     double beta, double* C) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas_int(m, "m"), blas_int(n, "n"),
              blas_int(k, "k"), 1.0, A, blas_int(k, "k"), B, blas_int(n, "n"), beta, C,
              blas_int(n, "n"));
}

}  // namespace tcemu::host
