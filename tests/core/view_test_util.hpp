#pragma once
// Helpers of the tests of tcemu::gemm on Kokkos Views (test_gemm_views.cpp on host spaces,
// test_gemm_views_cuda.cpp on CUDA spaces): layouts, random fill of real and complex Views, the FP64
// reference, the scheme's tolerance, and the check that the padding of a strided C is not written.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tcemu/complex_gemm.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/random.hpp"

namespace tcemu::test::views {

/// The core's element type of a View element type (float, double, std::complex<float|double>).
template <class V>
using CoreT = typename ::tcemu::detail::core_scalar<std::remove_const_t<V>>::type;

template <class T>
struct is_complex : std::false_type {};
template <class R>
struct is_complex<std::complex<R>> : std::true_type {};
template <class R>
struct is_complex<Kokkos::complex<R>> : std::true_type {};

/// The real type of an element type (float for Kokkos::complex<float>, ...).
template <class T>
struct real_of {
  using type = T;
};
template <class R>
struct real_of<std::complex<R>> {
  using type = R;
};
template <class V>
using RealT = typename real_of<CoreT<V>>::type;

/// The layout object of an r x c View. LayoutStride: variant 0 is row-major with 5 elements of
/// padding per row, variant 1 column-major with 3 per column (sub-views of wider matrices).
template <class L>
L make_layout(std::int64_t r, std::int64_t c, int variant) {
  if constexpr (std::is_same_v<L, Kokkos::LayoutStride>) {
    const auto R = static_cast<std::size_t>(r), C = static_cast<std::size_t>(c);
    return variant == 0 ? Kokkos::LayoutStride(R, C + 5, C, 1) : Kokkos::LayoutStride(R, 1, C, R + 3);
  } else {
    (void)variant;
    return L(static_cast<std::size_t>(r), static_cast<std::size_t>(c));
  }
}

template <class L>
std::string layout_name() {
  if constexpr (std::is_same_v<L, Kokkos::LayoutLeft>) return "LayoutLeft";
  if constexpr (std::is_same_v<L, Kokkos::LayoutRight>) return "LayoutRight";
  return "LayoutStride";
}

/// Fills a host-accessible View with random entries of `dist` (complex: real and imaginary parts
/// drawn independently).
template <class View>
void fill(const View& v, const char* dist, std::uint64_t seed) {
  const auto mv = ::tcemu::detail::to_matrix_view(v);
  if constexpr (is_complex<typename View::non_const_value_type>::value) {
    fill_random(real_view(mv), Distribution::parse(dist), seed);
    fill_random(imag_view(mv), Distribution::parse(dist), seed + 101);
  } else {
    fill_random(mv, Distribution::parse(dist), seed);
  }
}

/// Every element of the View's allocation (padding included) set to NaN: C must not be read when
/// beta == 0, and every entry must be written.
template <class View>
void poison(const View& v) {
  using V = typename View::non_const_value_type;
  const auto nan = std::numeric_limits<RealT<V>>::quiet_NaN();
  for (std::size_t e = 0; e < v.span(); ++e) {
    if constexpr (is_complex<V>::value) {
      v.data()[e] = V(nan, nan);
    } else {
      v.data()[e] = nan;
    }
  }
}

inline std::complex<double> to_z(float x) { return {double(x), 0.0}; }
inline std::complex<double> to_z(double x) { return {x, 0.0}; }
template <class R>
std::complex<double> to_z(const std::complex<R>& x) {
  return {double(x.real()), double(x.imag())};
}
template <class R>
std::complex<double> to_z(const Kokkos::complex<R>& x) {
  return {double(x.real()), double(x.imag())};
}

/// R = alpha op(A) op(B) + beta C0 in FP64 (complex), m x n row-major; C0 read through `c0` (the
/// allocation of C before the call, element (i, j) at i * c_rs + j * c_cs).
template <class T>
std::vector<std::complex<double>> reference(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B,
                                            T beta, const std::vector<T>& c0, std::int64_t c_rs, std::int64_t c_cs) {
  const auto a = A.apply(opA), b = B.apply(opB);
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  std::vector<std::complex<double>> R(static_cast<std::size_t>(m * n));
  const bool read_c = to_z(beta) != std::complex<double>(0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      std::complex<double> s = 0;
      for (std::int64_t l = 0; l < k; ++l) s += to_z(a(i, l)) * to_z(b(l, j));
      R[i * n + j] = to_z(alpha) * s + (read_c ? to_z(beta) * to_z(c0[i * c_rs + j * c_cs]) : 0.0);
    }
  return R;
}

/// Tolerance of ||C - R||_F / ||R||_F for the scheme that ran on data with `data_bits` significant
/// bits (24 for float, 53 for double): 64 times the scheme's relative representation error
/// 2^-precision_bits (tcemu/scheme.hpp), or of the data's own rounding, whichever is larger. A loose
/// bound of the scheme's documented accuracy at these small k, far below the error of a wrong
/// product (order 1).
inline double tolerance(const Scheme& used, int data_bits) {
  const int bits = used.precision_bits < data_bits ? used.precision_bits : data_bits;
  return 64.0 * std::ldexp(1.0, -bits);
}

/// Significant bits of the element type's real part.
template <class V>
constexpr int data_bits() {
  return std::is_same_v<RealT<V>, float> ? 24 : 53;
}

/// Counts the elements of C's allocation outside its m x n entries (padding of strided layouts)
/// whose value differs from `before` (NaN compares equal to NaN).
template <class T>
std::int64_t padding_changed(const T* after, const std::vector<T>& before, std::int64_t m, std::int64_t n,
                             std::int64_t rs, std::int64_t cs) {
  std::int64_t changed = 0;
  for (std::size_t e = 0; e < before.size(); ++e) {
    const std::int64_t i = rs == 1 ? std::int64_t(e) % cs : std::int64_t(e) / rs;
    const std::int64_t j = rs == 1 ? std::int64_t(e) / cs : std::int64_t(e) % rs;
    if (i < m && j < n) continue;
    const std::complex<double> x = to_z(after[e]), y = to_z(before[e]);
    const bool nan_x = std::isnan(x.real()) || std::isnan(x.imag()), nan_y = std::isnan(y.real()) || std::isnan(y.imag());
    changed += nan_x != nan_y || (!nan_x && x != y);
  }
  return changed;
}

}  // namespace tcemu::test::views
