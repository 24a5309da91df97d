// Accuracy metrics and references (docs/accuracy.md, "Metrics and inputs").
#include "tcemu/metrics.hpp"

#include <cblas.h>

#include <cmath>
#include <stdexcept>

#include "tcemu/error.hpp"

namespace tcemu {
namespace {

template <class T>
std::vector<double> to_fp64_rm(MatrixView<const T> x, bool absolute) {
  std::vector<double> out(x.rows * x.cols);
  for (std::int64_t i = 0; i < x.rows; ++i)
    for (std::int64_t j = 0; j < x.cols; ++j) {
      const double v = static_cast<double>(x(i, j));
      out[i * x.cols + j] = absolute ? std::fabs(v) : v;
    }
  return out;
}

template <class T>
std::vector<double> dgemm_of(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, bool absolute) {
  const auto a = A.apply(opA);
  const auto b = B.apply(opB);
  if (a.cols != b.rows)
    throw InvalidArgument("reference gemm: op(A) has " + std::to_string(a.cols) +
                          " columns but op(B) has " + std::to_string(b.rows) + " rows");
  const auto ad = to_fp64_rm(a, absolute);
  const auto bd = to_fp64_rm(b, absolute);
  std::vector<double> r(a.rows * b.cols);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(a.rows), int(b.cols), int(a.cols), 1.0,
              ad.data(), int(a.cols), bd.data(), int(b.cols), 0.0, r.data(), int(b.cols));
  return r;
}

// Error-free transformations for double-double (Dekker/Knuth).
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
inline void two_prod(double a, double b, double& p, double& e) {
  p = a * b;
  e = std::fma(a, b, -p);
}

}  // namespace

template <class T>
std::vector<double> reference_gemm_fp64(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B) {
  return dgemm_of(opA, opB, A, B, false);
}

template <class T>
std::vector<double> abs_product_fp64(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B) {
  return dgemm_of(opA, opB, A, B, true);
}

std::vector<double> reference_gemm_dd(Op opA, Op opB, MatrixView<const double> A,
                                      MatrixView<const double> B) {
  const auto a = A.apply(opA);
  const auto b = B.apply(opB);
  if (a.cols != b.rows)
    throw InvalidArgument("reference_gemm_dd: op(A) has " + std::to_string(a.cols) +
                          " columns but op(B) has " + std::to_string(b.rows) + " rows");
  const auto ad = to_fp64_rm(a, false);
  // B transposed so both walks are contiguous.
  std::vector<double> bt(b.rows * b.cols);
  for (std::int64_t l = 0; l < b.rows; ++l)
    for (std::int64_t j = 0; j < b.cols; ++j) bt[j * b.rows + l] = b(l, j);
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  std::vector<double> r(m * n);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double hi = 0, lo = 0;
      const double* x = &ad[i * k];
      const double* y = &bt[j * k];
      for (std::int64_t l = 0; l < k; ++l) {
        double p, pe, s, se;
        two_prod(x[l], y[l], p, pe);
        two_sum(hi, p, s, se);
        se += lo + pe;
        two_sum(s, se, hi, lo);
      }
      r[i * n + j] = hi + lo;
    }
  return r;
}

template <class T>
double relative_frobenius_error(MatrixView<const T> C, const std::vector<double>& R) {
  if (static_cast<std::int64_t>(R.size()) != C.rows * C.cols)
    throw InvalidArgument("relative_frobenius_error: reference has " + std::to_string(R.size()) +
                          " entries, C has " + std::to_string(C.rows * C.cols));
  long double num = 0, den = 0;
  for (std::int64_t i = 0; i < C.rows; ++i)
    for (std::int64_t j = 0; j < C.cols; ++j) {
      const long double r = R[i * C.cols + j];
      const long double d = static_cast<long double>(static_cast<double>(C(i, j))) - r;
      num += d * d;
      den += r * r;
    }
  if (den == 0) return num == 0 ? 0.0 : INFINITY;
  return static_cast<double>(std::sqrt(num / den));
}

template <class T>
double componentwise_error(MatrixView<const T> C, const std::vector<double>& R,
                           const std::vector<double>& absAB) {
  double worst = 0;
  for (std::int64_t i = 0; i < C.rows; ++i)
    for (std::int64_t j = 0; j < C.cols; ++j) {
      const double den = absAB[i * C.cols + j];
      if (den == 0) continue;
      const double e = std::fabs(static_cast<double>(C(i, j)) - R[i * C.cols + j]) / den;
      if (!(e <= worst)) worst = e;  // NaN propagates
    }
  return worst;
}

#define TCEMU_INSTANTIATE(T)                                                                        \
  template std::vector<double> reference_gemm_fp64<T>(Op, Op, MatrixView<const T>, MatrixView<const T>); \
  template std::vector<double> abs_product_fp64<T>(Op, Op, MatrixView<const T>, MatrixView<const T>);    \
  template double relative_frobenius_error<T>(MatrixView<const T>, const std::vector<double>&);         \
  template double componentwise_error<T>(MatrixView<const T>, const std::vector<double>&,               \
                                         const std::vector<double>&);
TCEMU_INSTANTIATE(float)
TCEMU_INSTANTIATE(double)
#undef TCEMU_INSTANTIATE

}  // namespace tcemu
