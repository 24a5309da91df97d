// DenseSolvers on the host: LAPACK and CBLAS (dense.hpp).
#include <cblas.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "app_common/timing.hpp"
#include "blas_int.hpp"
#include "cblas_trsm.hpp"
#include "dense.hpp"
#include "lu.hpp"
#include "tcemu/error.hpp"

// LAPACK (Fortran interface, shipped inside OpenBLAS; no LAPACKE needed).
extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, std::size_t trans_len);
}

namespace hplai {
namespace {

using Host = DenseSolvers<Kokkos::DefaultHostExecutionSpace>;


/// Unblocked right-looking LU of the kb x kb block D (row-major, leading dimension ld), pivots
/// checked against `tiny`; `col0` is D's first column in the whole matrix (for the message).
template <class T>
void factor_diagonal_block(T* D, std::int64_t kb, std::int64_t ld, double tiny, std::int64_t col0) {
  for (std::int64_t c = 0; c < kb; ++c) {
    const T p = D[c * ld + c];
    if (!std::isfinite(static_cast<double>(p)) || std::fabs(static_cast<double>(p)) <= tiny)
      throw SingularPivot(col0 + c, static_cast<double>(p), tiny);
    const T* urow = D + c * ld;
    for (std::int64_t i = c + 1; i < kb; ++i) {
      T* row = D + i * ld;
      const T l = row[c] / p;
      row[c] = l;
      for (std::int64_t j = c + 1; j < kb; ++j) row[j] -= l * urow[j];
    }
  }
}

template <class T>
void factor_panel_impl(T* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld, double tiny, std::int64_t col0) {
  factor_diagonal_block(A11, kb, ld, tiny, col0);
  if (rows > kb) trsm(CblasRight, CblasUpper, CblasNonUnit, rows - kb, kb, A11, ld, A11 + kb * ld, ld);  // L21
}

}  // namespace

void Host::factor_panel(float* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld, double tiny,
                        std::int64_t col0) {
  factor_panel_impl(A11, rows, kb, ld, tiny, col0);
}
void Host::factor_panel(double* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld, double tiny,
                        std::int64_t col0) {
  factor_panel_impl(A11, rows, kb, ld, tiny, col0);
}

void Host::solve_block_row(const float* A11, float* A12, std::int64_t kb, std::int64_t cols, std::int64_t ld) {
  trsm(CblasLeft, CblasLower, CblasUnit, kb, cols, A11, ld, A12, ld);
}
void Host::solve_block_row(const double* A11, double* A12, std::int64_t kb, std::int64_t cols, std::int64_t ld) {
  trsm(CblasLeft, CblasLower, CblasUnit, kb, cols, A11, ld, A12, ld);
}

void Host::apply_inverse(const float* LU, std::int64_t n, std::int64_t ld, float* v) {
  cblas_strsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasUnit, blas_int(n), LU, blas_int(ld), v, 1);
  cblas_strsv(CblasRowMajor, CblasUpper, CblasNoTrans, CblasNonUnit, blas_int(n), LU, blas_int(ld), v, 1);
}
void Host::apply_inverse(const double* LU, std::int64_t n, std::int64_t ld, double* v) {
  cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasUnit, blas_int(n), LU, blas_int(ld), v, 1);
  cblas_dtrsv(CblasRowMajor, CblasUpper, CblasNoTrans, CblasNonUnit, blas_int(n), LU, blas_int(ld), v, 1);
}

void Host::gemv(const double* A, std::int64_t n, double alpha, const double* x, double beta, double* y) {
  const int m = blas_int(n);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, m, m, alpha, A, m, x, 1, beta, y, 1);
}

BaselineTimes Host::baseline(double* A, std::int64_t n64, double* x) {
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  const int n = blas_int(n64);
  (void)blas_int(n64 * n64);
  BaselineTimes t;
  auto t0 = Clock::now();
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  int info = 0;
  dgetrf_(&n, &n, A, &n, ipiv.data(), &info);  // row-major A = column-major A^T: P A^T = L U
  if (info < 0) throw tcemu::InvalidArgument("fp64 baseline: dgetrf: argument " + std::to_string(-info) + " invalid");
  if (info > 0)
    throw tcemu::InvalidArgument("fp64 baseline: dgetrf: U(j,j) is exactly zero at column " +
                                 std::to_string(info - 1) + " (the matrix is singular)");
  t.factor = seconds_since(t0);
  t0 = Clock::now();
  const char trans = 'T';
  const int nrhs = 1;
  dgetrs_(&trans, &n, &nrhs, A, &n, ipiv.data(), x, &n, &info, 1);
  if (info != 0) throw tcemu::InvalidArgument("fp64 baseline: dgetrs failed (info " + std::to_string(info) + ")");
  t.solve = seconds_since(t0);
  return t;
}

}  // namespace hplai
