// tcemu::gemm on Kokkos Views on a host execution space instance (tcemu/gemm.hpp; docs/kokkos.md):
// real (float, double) and complex (Kokkos::complex<float|double>, std::complex) Views in
// LayoutLeft, LayoutRight and LayoutStride, every scheme of the catalogue, against the core's own
// host entries on the same data (gemm_host / complex_gemm_host: bit for bit) and an FP64 reference
// (within the scheme's accuracy); the caller-owned tcemu::Resources; the default-instance entry;
// error cases. Builds with any Kokkos (Debian's 3.4 Serial in CI).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tcemu/complex_gemm.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/resources.hpp"
#include "view_test_util.hpp"

namespace tcemu::test {
namespace {

using namespace views;
using HostExec = Kokkos::DefaultHostExecutionSpace;

/// The core's host entry on the same data (the reference the View entry must reproduce exactly).
template <class T>
GemmReport direct_host(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta, MatrixView<T> C,
                       const GemmOptions& o) {
  if constexpr (views::is_complex<T>::value) {
    return complex_gemm_host<typename T::value_type>(opA, opB, alpha, A, B, beta, C, o);
  } else {
    return gemm_host<T>(opA, opB, alpha, A, B, beta, C, o);
  }
}

/// How check() calls the View entry.
enum class Entry { instance, instance_resources, default_instance };

/// One call of the View entry on host Views of element type V in layouts LA, LB, LC, against
/// direct_host on copies of the same data (same result bit for bit, same scheme used) and the FP64
/// reference (within tolerance()); the padding of a strided C stays as it was.
template <class V, class LA, class LB, class LC>
void check(const Scheme& scheme, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, int variant,
           const char* dist, std::uint64_t seed, V alpha, V beta, Entry entry = Entry::instance,
           Resources* resources = nullptr, bool const_operands = false) {
  using T = CoreT<V>;
  SCOPED_TRACE(scheme.name + " " + layout_name<LA>() + "/" + layout_name<LB>() + "/" + layout_name<LC>() +
               (views::is_complex<V>::value ? " complex" : " real") + " m=" + std::to_string(m) +
               " n=" + std::to_string(n) + " k=" + std::to_string(k) + (opA == Op::T ? " A^T" : "") +
               (opB == Op::T ? " B^T" : "") + " variant " + std::to_string(variant) + " " + dist);
  const bool ta = opA == Op::T, tb = opB == Op::T;
  Kokkos::View<V**, LA, Kokkos::HostSpace> A("A", make_layout<LA>(ta ? k : m, ta ? m : k, variant));
  Kokkos::View<V**, LB, Kokkos::HostSpace> B("B", make_layout<LB>(tb ? n : k, tb ? k : n, 1 - variant));
  Kokkos::View<V**, LC, Kokkos::HostSpace> C("C", make_layout<LC>(m, n, variant));
  Kokkos::View<V**, LC, Kokkos::HostSpace> Cd("Cd", make_layout<LC>(m, n, variant));
  fill(A, dist, seed);
  fill(B, dist, seed + 1);
  fill(C, "uniform", seed + 2);
  if (to_z(beta) == std::complex<double>(0.0)) poison(C);
  const auto cv = ::tcemu::detail::to_matrix_view(C);
  std::vector<T> c0(cv.data, cv.data + C.span());
  std::copy(c0.begin(), c0.end(), ::tcemu::detail::to_matrix_view(Cd).data);

  GemmOptions opt;
  opt.scheme = scheme;
  GemmReport rv;
  if (const_operands) {
    const Kokkos::View<const V**, LA, Kokkos::HostSpace> cA = A;
    const Kokkos::View<const V**, LB, Kokkos::HostSpace> cB = B;
    rv = gemm(HostExec(), opA, opB, alpha, cA, cB, beta, C, opt);
  } else if (entry == Entry::instance_resources) {
    rv = gemm(HostExec(), opA, opB, alpha, A, B, beta, C, opt, *resources);
  } else if (entry == Entry::default_instance) {
    rv = gemm(opA, opB, alpha, A, B, beta, C, opt);
  } else {
    rv = gemm(HostExec(), opA, opB, alpha, A, B, beta, C, opt);
  }
  const auto a = ::tcemu::detail::to_matrix_view(A).as_const(), b = ::tcemu::detail::to_matrix_view(B).as_const();
  const GemmReport rd = direct_host<T>(opA, opB, ::tcemu::detail::to_core_scalar(alpha), a, b, ::tcemu::detail::to_core_scalar(beta),
                                       ::tcemu::detail::to_matrix_view(Cd), opt);
  EXPECT_EQ(rv.used.name, rd.used.name) << rv.note << " | " << rd.note;
  EXPECT_EQ(rv.fell_back, rd.fell_back);
  EXPECT_EQ(rv.kernels, rd.kernels);  // the same host path as the direct call
  EXPECT_EQ(rv.kernels.rfind("host (", 0), 0u) << rv.kernels;

  const auto R = reference<T>(opA, opB, ::tcemu::detail::to_core_scalar(alpha), a, b, ::tcemu::detail::to_core_scalar(beta), c0, cv.row_stride,
                              cv.col_stride);
  const auto cdv = ::tcemu::detail::to_matrix_view(Cd);
  double d2 = 0, r2 = 0;
  std::int64_t differ = 0, nonfinite = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::complex<double> x = to_z(cv(i, j)), r = R[i * n + j];
      differ += !(x == to_z(cdv(i, j)));
      nonfinite += !std::isfinite(x.real()) || !std::isfinite(x.imag());
      d2 += std::norm(x - r);
      r2 += std::norm(r);
    }
  EXPECT_EQ(differ, 0) << "View entry vs the core's host entry on the same data";
  EXPECT_EQ(nonfinite, 0);
  EXPECT_LE(std::sqrt(d2 / r2), tolerance(rv.used, data_bits<V>())) << "used " << rv.used.name;
  EXPECT_EQ(padding_changed(cv.data, c0, m, n, cv.row_stride, cv.col_stride), 0);
}

constexpr std::int64_t kM = 37, kN = 29, kK = 53;  // not multiples of 8
constexpr std::int64_t kZm = 23, kZn = 17, kZk = 41;

/// Every scheme of `target`'s catalogue on real V and complex Z Views in the three layouts.
template <class V, class Z>
void every_scheme(Target target, std::uint64_t seed) {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  using S = Kokkos::LayoutStride;
  for (const Scheme& s : catalogue(target)) {
    check<V, L, L, L>(s, Op::N, Op::N, kM, kN, kK, 0, "uniform", seed++, V(1), V(0));
    check<V, R, R, R>(s, Op::N, Op::T, kM, kN, kK, 0, "phi=0.1", seed++, V(1), V(0));
    check<V, S, S, S>(s, Op::T, Op::N, kM, kN, kK, 0, "uniform", seed++, V(0.75), V(-0.5));
    check<V, S, S, S>(s, Op::T, Op::T, kM, kN, kK, 1, "phi=1", seed++, V(1), V(0));
    check<Z, L, L, L>(s, Op::N, Op::N, kZm, kZn, kZk, 0, "uniform", seed++, Z(1), Z(0));
    check<Z, R, R, R>(s, Op::T, Op::N, kZm, kZn, kZk, 0, "phi=0.1", seed++, Z(0.5, -1.25), Z(0));
    check<Z, S, S, S>(s, Op::N, Op::T, kZm, kZn, kZk, 0, "uniform", seed++, Z(1), Z(-0.75, 0.5));
    check<Z, S, S, S>(s, Op::T, Op::T, kZm, kZn, kZk, 1, "phi=1", seed++, Z(1), Z(0));
  }
}

TEST(GemmViewsHost, EveryFp32SchemeRealAndComplexInEveryLayout) {
  every_scheme<float, Kokkos::complex<float>>(Target::fp32, 100);
}

TEST(GemmViewsHost, EveryFp64SchemeRealAndComplexInEveryLayout) {
  every_scheme<double, Kokkos::complex<double>>(Target::fp64, 500);
}

// A, B and C in different layouts in one call, const operand Views, std::complex Views, complex
// alpha and beta with C read.
TEST(GemmViewsHost, MixedLayoutsConstOperandsStdComplex) {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  using S = Kokkos::LayoutStride;
  std::uint64_t seed = 900;
  for (const char* name : {"fp32", "fp16x2", "bf16x9", "int8-ozaki", "auto"}) {
    const Scheme s = parse_scheme(name);
    check<float, R, L, S>(s, Op::N, Op::T, kM, kN, kK, 0, "uniform", seed++, 0.75f, -0.5f, Entry::instance, nullptr, true);
    check<Kokkos::complex<float>, S, R, L>(s, Op::T, Op::N, kZm, kZn, kZk, 1, "uniform", seed++,
                                           Kokkos::complex<float>(0.5f, 2.f), Kokkos::complex<float>(-1.f, 0.25f),
                                           Entry::instance, nullptr, true);
    check<std::complex<float>, L, S, R>(s, Op::N, Op::N, kZm, kZn, kZk, 0, "phi=0.1", seed++,
                                        std::complex<float>(1.f, -1.f), std::complex<float>(0.f, 1.f));
  }
  check<std::complex<double>, R, S, L>(parse_scheme("int8-ozaki", Target::fp64), Op::T, Op::T, kZm, kZn, kZk, 1,
                                       "uniform", seed++, std::complex<double>(-1.25, 0.5), std::complex<double>(2.0, 0.0));
}

// The default-instance entry on host Views runs the host backend (checked by check()'s kernels
// assertion) with the same result as the instance entry.
TEST(GemmViewsHost, DefaultInstanceEntryOnHostViews) {
  std::uint64_t seed = 1000;
  for (const char* name : {"fp16x2", "int8-ozaki:5", "auto"}) {
    const Scheme s = parse_scheme(name);
    check<float, Kokkos::LayoutRight, Kokkos::LayoutLeft, Kokkos::LayoutStride>(
        s, Op::N, Op::N, kM, kN, kK, 0, "uniform", seed++, 1.f, 0.f, Entry::default_instance);
    check<Kokkos::complex<double>, Kokkos::LayoutStride, Kokkos::LayoutRight, Kokkos::LayoutLeft>(
        parse_scheme(name, Target::fp64), Op::T, Op::N, kZm, kZn, kZk, 1, "uniform", seed++,
        Kokkos::complex<double>(1.0, 0.5), Kokkos::complex<double>(0.0), Entry::default_instance);
  }
}

// One caller-owned Resources object reused across real and complex calls of different shapes,
// types and schemes, also after a move: every call as without it.
TEST(GemmViewsHost, ResourcesReusedAcrossCalls) {
  Resources res;
  std::uint64_t seed = 1100;
  for (const char* name : {"fp32", "fp16x2", "tf32x2", "int8-ozaki", "auto"}) {
    const Scheme s = parse_scheme(name);
    check<float, Kokkos::LayoutLeft, Kokkos::LayoutRight, Kokkos::LayoutStride>(
        s, Op::N, Op::T, kM, kN, kK, 0, "uniform", seed++, 1.f, 0.5f, Entry::instance_resources, &res);
    check<Kokkos::complex<float>, Kokkos::LayoutRight, Kokkos::LayoutRight, Kokkos::LayoutRight>(
        s, Op::N, Op::N, 64, 48, 80, 0, "uniform", seed++, Kokkos::complex<float>(1.f), Kokkos::complex<float>(0.f),
        Entry::instance_resources, &res);
  }
  Resources moved = std::move(res);
  check<double, Kokkos::LayoutStride, Kokkos::LayoutStride, Kokkos::LayoutStride>(
      parse_scheme("fp64", Target::fp64), Op::T, Op::N, 19, 31, 7, 1, "uniform", seed++, 1.0, 0.0,
      Entry::instance_resources, &moved);
  moved.release();
  check<float, Kokkos::LayoutLeft, Kokkos::LayoutLeft, Kokkos::LayoutLeft>(
      parse_scheme("bf16x3"), Op::N, Op::N, kM, kN, kK, 0, "uniform", seed++, 1.f, 0.f, Entry::instance_resources,
      &moved);
#if !defined(TCEMU_HAVE_CUDA)
  // Host calls never create a device workspace; without the CUDA backend there is none to get.
  EXPECT_EQ(moved.device_bytes_reserved(), 0u);
  EXPECT_THROW(moved.cuda_workspace(), DeviceError);
#endif
}

template <class Fn>
std::string message_of(Fn fn) {
  try {
    fn();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no InvalidArgument)";
}

TEST(GemmViewsHost, ShapeMismatchThrowsInvalidArgumentNamingTheShapes) {
  Kokkos::View<float**, Kokkos::HostSpace> A("A", 8, 5), B("B", 6, 4), C("C", 8, 4);
  const std::string msg = message_of([&] { gemm(HostExec(), Op::N, Op::N, 1.f, A, B, 0.f, C); });
  EXPECT_NE(msg.find("op(A) is 8 x 5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("op(B) is 6 x 4"), std::string::npos) << msg;
  using Z = Kokkos::complex<double>;
  Kokkos::View<Z**, Kokkos::LayoutLeft, Kokkos::HostSpace> ZA("ZA", 8, 5), ZB("ZB", 5, 4), ZC("ZC", 7, 4);
  const std::string zmsg = message_of([&] { gemm(HostExec(), Op::N, Op::N, Z(1), ZA, ZB, Z(0), ZC); });
  EXPECT_NE(zmsg.find("C is 7 x 4"), std::string::npos) << zmsg;
  Resources res;
  EXPECT_THROW(gemm(Op::T, Op::N, Z(1), ZA, ZB, Z(0), ZC, GemmOptions{}), InvalidArgument);
  EXPECT_THROW(gemm(HostExec(), Op::N, Op::T, Z(1), ZA, ZB, Z(0), ZC, GemmOptions{}, res), InvalidArgument);
}

// Out-of-range complex operands: RangePolicy::error throws InvalidArgument naming the scheme's
// rule; fallback computes natively and says so.
TEST(GemmViewsHost, RangePolicyOnComplexViews) {
  using Z = Kokkos::complex<float>;
  Kokkos::View<Z**, Kokkos::LayoutRight, Kokkos::HostSpace> A("A", 16, 24), B("B", 24, 8), C("C", 16, 8);
  fill(A, "uniform", 1);
  fill(B, "uniform", 2);
  A(3, 5) = Z(1e30f, 0.f);  // above fp16x2's range
  GemmOptions opt;
  opt.scheme = parse_scheme("fp16x2");
  opt.range_policy = RangePolicy::error;
  const std::string msg = message_of([&] { gemm(HostExec(), Op::N, Op::N, Z(1), A, B, Z(0), C, opt); });
  EXPECT_NE(msg.find("fp16x2"), std::string::npos) << msg;
  opt.range_policy = RangePolicy::fallback;
  const GemmReport r = gemm(HostExec(), Op::N, Op::N, Z(1), A, B, Z(0), C, opt);
  EXPECT_TRUE(r.fell_back);
  EXPECT_TRUE(r.used.is_native()) << r.used.name;
  EXPECT_NE(r.note, "");
}

}  // namespace
}  // namespace tcemu::test
