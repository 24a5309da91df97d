#pragma once
/// \file cblas_trsm.hpp
/// Triangular solves on row-major host blocks through CBLAS, one name for both precisions (the
/// host LU of dense_host.cpp and the distributed LU of distributed.cpp): B = T^-1 B (side left) or
/// B T^-1 (side right), T not transposed, alpha 1. Extents are checked by blas_int.
#include <cblas.h>

#include <cstdint>

#include "blas_int.hpp"

namespace hplai {

inline void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, std::int64_t m, std::int64_t n, const float* T,
                 std::int64_t ldt, float* B, std::int64_t ldb) {
  cblas_strsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, blas_int(m), blas_int(n), 1.0f, T, blas_int(ldt), B,
              blas_int(ldb));
}
inline void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, std::int64_t m, std::int64_t n, const double* T,
                 std::int64_t ldt, double* B, std::int64_t ldb) {
  cblas_dtrsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, blas_int(m), blas_int(n), 1.0, T, blas_int(ldt), B,
              blas_int(ldb));
}

}  // namespace hplai
