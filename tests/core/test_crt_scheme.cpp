// int8-crt as a catalogue scheme through the host backend (tcemu::gemm_host): parsing and the
// catalogue row, the certified N per call against a double-double reference and a plain FP64 / FP32
// GEMM on several distributions (phi = 4 included), the explicit N, the fallback when no N is
// certified (native, error, ignore), NaN/Inf, zero rows and columns, alpha / beta, transposes, and
// complex data through the real embedding (test_crt_complex.cpp has the rest).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "crt_test_util.hpp"
#include "tcemu/complex_gemm.hpp"
#include "tcemu/crt.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/select.hpp"

using namespace tcemu;
using namespace tcemu::crt_test;

namespace {

template <class T>
GemmReport run(const Operands<T>& p, const Scheme& s, std::vector<T>& c, T alpha = T(1), T beta = T(0),
               RangePolicy policy = RangePolicy::fallback) {
  GemmOptions o;
  o.scheme = s;
  o.range_policy = policy;
  c.resize(p.m * p.n, T(0));
  return gemm_host<T>(Op::N, Op::N, alpha, row_major<const T>(p.a.data(), p.m, p.k),
                      row_major<const T>(p.b.data(), p.k, p.n), beta, row_major(c.data(), p.m, p.n), o);
}

template <class T>
std::vector<T> reference_crt(const Operands<T>& p, int moduli) {
  std::vector<T> c(p.m * p.n, T(0));
  crt::crt_gemm_host<T>(Op::N, Op::N, T(1), row_major<const T>(p.a.data(), p.m, p.k),
                        row_major<const T>(p.b.data(), p.k, p.n), T(0), row_major(c.data(), p.m, p.n), moduli,
                        crt::Scaling::cauchy_schwarz);
  return c;
}

template <class T>
int certified(const Operands<T>& p, crt::Target t) {
  return crt::choose_moduli<T>(Op::N, Op::N, row_major<const T>(p.a.data(), p.m, p.k),
                               row_major<const T>(p.b.data(), p.k, p.n), t, crt::Scaling::cauchy_schwarz);
}

}  // namespace

TEST(CrtScheme, ParsesAndIsInTheCatalogue) {
  const Scheme s = parse_scheme("int8-crt", Target::fp64);
  EXPECT_EQ(s.kind, SchemeKind::int8_crt);
  EXPECT_EQ(s.family(), ImplFamily::crt);
  EXPECT_EQ(s.parts, 0);
  EXPECT_TRUE(s.meets(Target::fp64));
  EXPECT_TRUE(parse_scheme("int8-crt", Target::fp32).meets(Target::fp32));
  const Scheme s16 = parse_scheme("int8-crt:16", Target::fp64);
  EXPECT_EQ(s16.name, "int8-crt:16");
  EXPECT_EQ(s16.parts, 16);
  EXPECT_EQ(s16.products, 16);
  EXPECT_LT(parse_scheme("int8-crt:8").precision_bits, s16.precision_bits);
  EXPECT_THROW(parse_scheme("int8-crt:1"), InvalidArgument);
  EXPECT_THROW(parse_scheme("int8-crt:21"), InvalidArgument);
  EXPECT_THROW(parse_scheme("int8-crt:x"), InvalidArgument);
  bool listed = false;
  for (const Scheme& c : catalogue(Target::fp64)) listed = listed || c.kind == SchemeKind::int8_crt;
  EXPECT_TRUE(listed);
  EXPECT_NE(catalogue_markdown().find("`int8-crt[:N]`"), std::string::npos);
}

// The certified N per call: the bound holds on every entry and the errors are no worse than a plain
// FP64 GEMM's; the result is the host reference's at that N, bit for bit.
TEST(CrtScheme, Fp64TargetThroughGemmMeetsFp64) {
  const double u = 0x1p-53;
  for (const char* dist : {"uniform(-1,1)", "uniform(0,1)", "phi=0.1", "phi=1", "phi=2"}) {
    SCOPED_TRACE(dist);
    const auto p = make_operands<double>(40, 36, 192, dist, 7);
    std::vector<double> c;
    const GemmReport r = run(p, parse_scheme("int8-crt", Target::fp64), c);
    ASSERT_FALSE(r.fell_back) << r.note;
    EXPECT_EQ(r.used.kind, SchemeKind::int8_crt);
    const int N = certified(p, crt::Target::fp64);
    ASSERT_GT(N, 0);
    EXPECT_NE(r.certificate.find("N = " + std::to_string(N) + " moduli"), std::string::npos) << r.certificate;
    EXPECT_EQ(c, reference_crt(p, N));
    const Errors emu = errors(p, c, u, 2 * u), nat = errors(p, plain_gemm(p), 0, 0);
    std::printf("[crt-scheme] fp64 %-14s N = %2d  median %.3g (fp64 %.3g)  max %.3g (fp64 %.3g)  %s\n", dist, N,
                emu.median, nat.median, emu.max, nat.max, r.certificate.c_str());
    EXPECT_LE(emu.worst_bound_ratio, 1.0);
    EXPECT_LE(emu.median, nat.median);
    EXPECT_LE(emu.max, nat.max);
  }
}

TEST(CrtScheme, Fp32TargetOnFloatDataMeetsFp32) {
  const double uf = 0x1p-24;
  for (const char* dist : {"uniform(-1,1)", "phi=1"}) {
    SCOPED_TRACE(dist);
    const auto p = make_operands<float>(36, 30, 160, dist, 11);
    std::vector<float> c;
    const GemmReport r = run(p, parse_scheme("int8-crt", Target::fp32), c);
    ASSERT_FALSE(r.fell_back) << r.note;
    const int N = certified(p, crt::Target::fp32);
    ASSERT_GT(N, 0);
    EXPECT_LT(N, certified(p, crt::Target::fp64));
    EXPECT_EQ(c, reference_crt(p, N));
    const Errors emu = errors(p, c, uf, uf + 2 * 0x1p-53), nat = errors(p, plain_gemm(p), 0, 0);
    EXPECT_LE(emu.worst_bound_ratio, 1.0);
    EXPECT_LE(emu.median, nat.median);
    EXPECT_LE(emu.max, nat.max);
  }
}

// int8-crt:N runs exactly N moduli: the reference at N, and too few moduli give errors far above
// FP64's (so the parameter is not ignored).
TEST(CrtScheme, ExplicitModulusCountOverridesTheCertificate) {
  const auto p = make_operands<double>(24, 20, 128, "uniform(-1,1)", 3);
  std::vector<double> c6, c;
  const GemmReport r6 = run(p, parse_scheme("int8-crt:6", Target::fp64), c6);
  EXPECT_EQ(r6.used.name, "int8-crt:6");
  EXPECT_NE(r6.certificate.find("given"), std::string::npos);
  EXPECT_EQ(c6, reference_crt(p, 6));
  run(p, parse_scheme("int8-crt", Target::fp64), c);
  EXPECT_GT(errors(p, c6, 0, 0).max, 1e3 * errors(p, c, 0, 0).max);
}

// phi = 4 at this size needs more than 20 moduli (docs/crt.md): native FP64 with a note, an error
// under RangePolicy::error, N = 20 under ignore.
TEST(CrtScheme, WideSpreadFallsBackToNative) {
  const auto p = make_operands<double>(48, 40, 256, "phi=4", 2026);
  ASSERT_EQ(certified(p, crt::Target::fp64), 0) << "the test needs inputs beyond the table";
  std::vector<double> c, native;
  const GemmReport r = run(p, parse_scheme("int8-crt", Target::fp64), c);
  EXPECT_TRUE(r.fell_back);
  EXPECT_EQ(r.requested.kind, SchemeKind::int8_crt);
  EXPECT_EQ(r.used.kind, SchemeKind::fp64);
  EXPECT_NE(r.note.find("more than 20 moduli"), std::string::npos) << r.note;
  run(p, parse_scheme("fp64"), native);
  EXPECT_EQ(c, native);
  EXPECT_THROW(run(p, parse_scheme("int8-crt", Target::fp64), c, 1.0, 0.0, RangePolicy::error), InvalidArgument);
  const GemmReport ri = run(p, parse_scheme("int8-crt", Target::fp64), c, 1.0, 0.0, RangePolicy::ignore);
  EXPECT_FALSE(ri.fell_back);
  EXPECT_NE(ri.certificate.find("N = 20"), std::string::npos) << ri.certificate;
  EXPECT_EQ(c, reference_crt(p, 20));
}

TEST(CrtScheme, NonfiniteTakesTheNativePath) {
  auto p = make_operands<double>(8, 6, 20, "uniform(-1,1)", 5);
  p.a[2 * p.k + 3] = std::numeric_limits<double>::quiet_NaN();
  p.b[4 * p.n + 1] = std::numeric_limits<double>::infinity();
  std::vector<double> c;
  const GemmReport r = run(p, parse_scheme("int8-crt", Target::fp64), c);
  EXPECT_TRUE(r.fell_back);
  EXPECT_EQ(r.used.kind, SchemeKind::fp64);
  EXPECT_TRUE(std::isnan(c[2 * p.n + 0]));
  EXPECT_TRUE(std::isinf(c[0 * p.n + 1]) || std::isnan(c[0 * p.n + 1]));
  EXPECT_TRUE(std::isfinite(c[0 * p.n + 0]));
}

// Zero rows of A and columns of B give exact zeros (times alpha, plus beta C); transposed operands
// give the same bits as row-major ones.
TEST(CrtScheme, ZeroLinesAlphaBetaAndTransposes) {
  auto p = make_operands<double>(10, 9, 40, "phi=1", 21);
  for (std::int64_t l = 0; l < p.k; ++l) p.a[3 * p.k + l] = 0;
  for (std::int64_t l = 0; l < p.k; ++l) p.b[l * p.n + 5] = 0;
  const Scheme s = parse_scheme("int8-crt", Target::fp64);
  std::vector<double> c0(p.m * p.n, 0.5), c = c0;
  run(p, s, c, 2.0, 3.0);
  const auto ref = reference_crt(p, certified(p, crt::Target::fp64));
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      if (i == 3 || j == 5) EXPECT_EQ(c[i * p.n + j], 1.5);
      else EXPECT_EQ(c[i * p.n + j], 2.0 * ref[i * p.n + j] + 1.5);
    }
  // op(A) = A^T with A stored k x m, op(B) = B^T with B stored n x k.
  std::vector<double> at(p.k * p.m), bt(p.n * p.k), ct(p.m * p.n, 0.0);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t l = 0; l < p.k; ++l) at[l * p.m + i] = p.a[i * p.k + l];
  for (std::int64_t l = 0; l < p.k; ++l)
    for (std::int64_t j = 0; j < p.n; ++j) bt[j * p.k + l] = p.b[l * p.n + j];
  GemmOptions o;
  o.scheme = s;
  gemm_host<double>(Op::T, Op::T, 1.0, row_major<const double>(at.data(), p.k, p.m),
                    row_major<const double>(bt.data(), p.n, p.k), 0.0, row_major(ct.data(), p.m, p.n), o);
  EXPECT_EQ(ct, ref);
}

// auto lists int8-crt with a predicted time that includes the certificate; on the host model it
// costs more than native FP64 (N INT8 products at the FP64 rate), so auto does not pick it there.
TEST(CrtScheme, AutoCostsItAndExplainsIt) {
  const auto p = make_operands<double>(16, 16, 64, "uniform(-1,1)", 2);
  std::vector<double> c;
  const GemmReport r = run(p, parse_scheme("auto", Target::fp64), c);
  bool seen = false;
  for (const Candidate& cand : r.plan.candidates)
    if (cand.scheme.kind == SchemeKind::int8_crt) {
      seen = true;
      EXPECT_GT(cand.predicted_seconds, 0);
    }
  EXPECT_TRUE(seen);
  EXPECT_NE(r.plan.explain().find("int8-crt"), std::string::npos);
  const CostModel host = CostModel::host();
  const Scheme fixed = parse_scheme("int8-crt:16", Target::fp64), chosen = parse_scheme("int8-crt", Target::fp64);
  EXPECT_LT(host.predict_seconds(fixed, 512, 512, 512, Target::fp64),
            host.predict_seconds(chosen, 512, 512, 512, Target::fp64));
}

// Complex data (complex_gemm_host: one real int8-crt product on the real embedding, the 4M form
// under one certificate): the normwise error against a double-double reference is no worse than a
// plain complex<double> GEMM's.
TEST(CrtScheme, ComplexThroughTheRealEmbedding) {
  const std::int64_t m = 20, n = 18, k = 96;
  const auto re = make_operands<double>(m, n, k, "uniform(-1,1)", 31);
  const auto im = make_operands<double>(m, n, k, "phi=1", 41);
  std::vector<std::complex<double>> a(m * k), b(k * n), c(m * n);
  for (std::int64_t e = 0; e < m * k; ++e) a[e] = {re.a[e], im.a[e]};
  for (std::int64_t e = 0; e < k * n; ++e) b[e] = {re.b[e], im.b[e]};
  GemmOptions o;
  o.scheme = parse_scheme("int8-crt", Target::fp64);
  const GemmReport r = complex_gemm_host<double>(Op::N, Op::N, {1.0, 0.0}, row_major<const std::complex<double>>(a.data(), m, k),
                                                 row_major<const std::complex<double>>(b.data(), k, n), {0.0, 0.0},
                                                 row_major(c.data(), m, n), o);
  EXPECT_FALSE(r.fell_back) << r.note;
  EXPECT_EQ(r.used.kind, SchemeKind::int8_crt);
  double emu2 = 0, nat2 = 0, ref2 = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      DD sr, si;
      std::complex<double> plain = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        const std::complex<double> x = a[i * k + l], y = b[l * n + j];
        sr.add_prod(x.real(), y.real());
        sr.add_prod(-x.imag(), y.imag());
        si.add_prod(x.real(), y.imag());
        si.add_prod(x.imag(), y.real());
        plain += x * y;
      }
      auto err2 = [&](std::complex<double> z) {
        const double dr = (z.real() - sr.hi) - sr.lo, di = (z.imag() - si.hi) - si.lo;
        return dr * dr + di * di;
      };
      emu2 += err2(c[i * n + j]);
      nat2 += err2(plain);
      ref2 += sr.hi * sr.hi + si.hi * si.hi;
    }
  std::printf("[crt-scheme] complex (embedding): normwise error %.3g (plain complex<double> %.3g)\n", std::sqrt(emu2 / ref2),
              std::sqrt(nat2 / ref2));
  EXPECT_LE(emu2, nat2);
}

// The public entry point on host Kokkos Views (LayoutRight A and C, LayoutLeft B) reaches the same
// path: the result is the reference's at the certified N, bit for bit.
TEST(CrtScheme, KokkosViewsThroughTcemuGemm) {
  const auto p = make_operands<double>(14, 11, 37, "phi=1", 61);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> A("A", p.m, p.k), C("C", p.m, p.n);
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> B("B", p.k, p.n);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t l = 0; l < p.k; ++l) A(i, l) = p.a[i * p.k + l];
  for (std::int64_t l = 0; l < p.k; ++l)
    for (std::int64_t j = 0; j < p.n; ++j) B(l, j) = p.b[l * p.n + j];
  GemmOptions o;
  o.scheme = parse_scheme("int8-crt", Target::fp64);
  const GemmReport r = gemm(Op::N, Op::N, 1.0, A, B, 0.0, C, o);
  EXPECT_EQ(r.used.kind, SchemeKind::int8_crt);
  EXPECT_FALSE(r.fell_back) << r.note;
  const auto ref = reference_crt(p, certified(p, crt::Target::fp64));
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) differ += !(C(i, j) == ref[i * p.n + j]);
  EXPECT_EQ(differ, 0);
}
