#include "lu.hpp"

#include "app_common/timing.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <vector>

#include "blas_int.hpp"

namespace hplai {
namespace {

using tcemu::app::Clock;
using tcemu::app::seconds_since;

std::string pivot_message(std::int64_t column, double value, double threshold) {
  char buf[256];
  if (value == 0.0)
    std::snprintf(buf, sizeof buf, "singular pivot at column %lld: u_jj = 0 (LU without pivoting cannot continue)",
                  static_cast<long long>(column));
  else if (!std::isfinite(value))
    std::snprintf(buf, sizeof buf,
                  "singular pivot at column %lld: u_jj = %g is not finite (the factors overflowed)",
                  static_cast<long long>(column), value);
  else
    std::snprintf(buf, sizeof buf,
                  "singular pivot at column %lld: |u_jj| = %.3g <= %.3g (working-precision eps times "
                  "max|a_ij|), numerically zero",
                  static_cast<long long>(column), std::fabs(value), threshold);
  return buf;
}

// Triangular solves on row-major blocks, one name per precision.
void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, std::int64_t m, std::int64_t n,
          const float* T, std::int64_t ldt, float* B, std::int64_t ldb) {
  cblas_strsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, blas_int(m), blas_int(n), 1.0f, T,
              blas_int(ldt), B, blas_int(ldb));
}
void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, std::int64_t m, std::int64_t n,
          const double* T, std::int64_t ldt, double* B, std::int64_t ldb) {
  cblas_dtrsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, blas_int(m), blas_int(n), 1.0, T,
              blas_int(ldt), B, blas_int(ldb));
}

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

/// Largest |x| of a rows x cols row-major block.
template <class T>
double block_max(const T* X, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  double m = 0;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) m = std::max(m, std::fabs(static_cast<double>(X[i * ld + j])));
  return m;
}

/// Multiplies a block by 2^e (exact for the scalings operand_scale chooses).
template <class T>
void scale_block(T* X, std::int64_t rows, std::int64_t cols, std::int64_t ld, int e) {
  if (e == 0) return;
  const T f = static_cast<T>(std::ldexp(1.0, e));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) X[i * ld + j] *= f;
}

/// Exponent e >= 0 with max * 2^e in [1, 2); 0 when max >= 1 or max == 0.
int operand_scale(double max) {
  if (!(max > 0) || max >= 1 || !std::isfinite(max)) return 0;
  return -std::ilogb(max);
}

bool wants_scaling(const tcemu::Scheme& s) {
  return !s.is_native() && s.kind != tcemu::SchemeKind::int8_ozaki;
}

}  // namespace

SingularPivot::SingularPivot(std::int64_t column, double value, double threshold)
    : tcemu::InvalidArgument(pivot_message(column, value, threshold)), column_(column), value_(value) {}

template <class T>
LuStats lu_factor(T* A, std::int64_t n, std::int64_t lda, const LuOptions& options) {
  if (n < 1) throw tcemu::InvalidArgument("lu_factor: n = " + std::to_string(n) + " must be >= 1");
  if (options.nb < 1)
    throw tcemu::InvalidArgument("--nb " + std::to_string(options.nb) + " must be >= 1");
  if (lda < n) throw tcemu::InvalidArgument("lu_factor: lda < n");
  const std::int64_t nb = std::min(options.nb, n);
  const double eps = std::numeric_limits<T>::epsilon() / 2;  // unit roundoff of T
  const double tiny = eps * block_max(A, n, n, lda);
  const bool scale = options.scale_operands && wants_scaling(options.gemm.scheme);
  const std::int64_t panels = (n + nb - 1) / nb;

  LuStats st;
  const auto start = Clock::now();
  for (std::int64_t k0 = 0, p = 1; k0 < n; k0 += nb, ++p) {
    const std::int64_t kb = std::min(nb, n - k0);
    const std::int64_t rest = n - k0 - kb;  // rows/columns of the trailing matrix
    T* A11 = A + k0 * lda + k0;
    T* A21 = A11 + kb * lda;
    T* A12 = A11 + kb;
    T* A22 = A21 + kb;

    auto t0 = Clock::now();
    factor_diagonal_block(A11, kb, lda, tiny, k0);
    if (rest > 0) trsm(CblasRight, CblasUpper, CblasNonUnit, rest, kb, A11, lda, A21, lda);
    st.seconds_panel += seconds_since(t0);

    if (rest > 0) {
      t0 = Clock::now();
      trsm(CblasLeft, CblasLower, CblasUnit, kb, rest, A11, lda, A12, lda);
      st.seconds_solve += seconds_since(t0);

      t0 = Clock::now();
      const int sl = scale ? operand_scale(block_max(A21, rest, kb, lda)) : 0;
      const int su = scale ? operand_scale(block_max(A12, kb, rest, lda)) : 0;
      scale_block(A21, rest, kb, lda, sl);
      scale_block(A12, kb, rest, lda, su);
      const tcemu::MatrixView<const T> L21{A21, rest, kb, lda, 1};
      const tcemu::MatrixView<const T> U12{A12, kb, rest, lda, 1};
      const tcemu::MatrixView<T> C{A22, rest, rest, lda, 1};
      const T alpha = static_cast<T>(-std::ldexp(1.0, -(sl + su)));
      const auto rep = tcemu::gemm_host<T>(tcemu::Op::N, tcemu::Op::N, alpha, L21, U12, T(1), C, options.gemm);
      scale_block(A21, rest, kb, lda, -sl);
      scale_block(A12, kb, rest, lda, -su);
      ++st.updates;
      st.gemm.add(rep);
      st.seconds_update += seconds_since(t0);
    }
    if (options.progress) options.progress({p, panels, k0 + kb, seconds_since(start)});
  }
  st.seconds = seconds_since(start);
  return st;
}

template <class T>
void lu_solve(const T* LU, std::int64_t n, std::int64_t lda, T* v) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_strsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasUnit, blas_int(n), LU, blas_int(lda), v, 1);
    cblas_strsv(CblasRowMajor, CblasUpper, CblasNoTrans, CblasNonUnit, blas_int(n), LU, blas_int(lda), v, 1);
  } else {
    cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasUnit, blas_int(n), LU, blas_int(lda), v, 1);
    cblas_dtrsv(CblasRowMajor, CblasUpper, CblasNoTrans, CblasNonUnit, blas_int(n), LU, blas_int(lda), v, 1);
  }
}

template <class T>
double factor_error(const double* A, const T* LU, std::int64_t n) {
  std::vector<double> L(static_cast<std::size_t>(n * n), 0.0), U(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double v = static_cast<double>(LU[i * n + j]);
      if (j < i) L[i * n + j] = v;
      else U[i * n + j] = v;
      if (i == j) L[i * n + j] = 1.0;
    }
  std::vector<double> R(A, A + n * n);  // R = A - L U
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas_int(n), blas_int(n), blas_int(n), -1.0,
              L.data(), blas_int(n), U.data(), blas_int(n), 1.0, R.data(), blas_int(n));
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < n * n; ++i) {
    num += R[i] * R[i];
    den += A[i] * A[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

template LuStats lu_factor<float>(float*, std::int64_t, std::int64_t, const LuOptions&);
template LuStats lu_factor<double>(double*, std::int64_t, std::int64_t, const LuOptions&);
template void lu_solve<float>(const float*, std::int64_t, std::int64_t, float*);
template void lu_solve<double>(const double*, std::int64_t, std::int64_t, double*);
template double factor_error<float>(const double*, const float*, std::int64_t);
template double factor_error<double>(const double*, const double*, std::int64_t);

}  // namespace hplai
