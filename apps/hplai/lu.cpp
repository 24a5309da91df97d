#include "lu.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <vector>

#include "blas_int.hpp"
#include "dense.hpp"
#include "factor.hpp"
#include "kernels.hpp"

namespace hplai {
namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

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

}  // namespace

SingularPivot::SingularPivot(std::int64_t column, double value, double threshold)
    : tcemu::InvalidArgument(pivot_message(column, value, threshold)), column_(column), value_(value) {}

template <class T>
LuStats lu_factor(T* A, std::int64_t n, std::int64_t lda, const LuOptions& options) {
  if (n < 1) throw tcemu::InvalidArgument("lu_factor: n = " + std::to_string(n) + " must be >= 1");
  if (options.nb < 1)
    throw tcemu::InvalidArgument("--nb " + std::to_string(options.nb) + " must be >= 1");
  if (lda < n) throw tcemu::InvalidArgument("lu_factor: lda < n");
  // The one source of the factorisation (factor.hpp) on the host, on a View of the caller's array.
  const Kokkos::View<T**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> lu(
      A, Kokkos::LayoutStride(static_cast<std::size_t>(n), static_cast<std::size_t>(lda), static_cast<std::size_t>(n), 1));
  const Host space;
  DenseSolvers<Host> solvers(space);
  const double tiny = std::numeric_limits<T>::epsilon() / 2 * kernels::absmax(space, lu);  // eps_T max|a_ij|
  return factor_blocked(space, solvers, lu, options, nullptr, tiny);
}

template <class T>
void lu_solve(const T* LU, std::int64_t n, std::int64_t lda, T* v) {
  DenseSolvers<Host>().apply_inverse(LU, n, lda, v);
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
