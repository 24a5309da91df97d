// int8-crt on complex operands through the host backend (complex_gemm_host -> the real embedding of
// common/complex_crt.hpp): the certified entrywise bound on five distributions (FP64 target) and two
// (FP32 target on complex<float>) against a double-double reference, errors no worse than a plain
// complex GEMM; exact integer products (residues, products and the embedding's signs); layouts,
// transposes and complex alpha / beta; NaN falling back to native arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "crt_test_util.hpp"
#include "tcemu/complex_gemm.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/random.hpp"

using namespace tcemu;
using tcemu::crt_test::DD;

namespace {

/// Row-major op(A) = a (m x k) and op(B) = b (k x n), real and imaginary parts drawn separately.
template <class T>
struct Complex {
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<std::complex<T>> a, b;
};

template <class T>
Complex<T> make(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dist_re, const std::string& dist_im,
                std::uint64_t seed, double im_scale = 1) {
  Complex<T> p{m, n, k, std::vector<std::complex<T>>(m * k), std::vector<std::complex<T>>(k * n)};
  for (auto* v : {&p.a, &p.b}) {
    const MatrixView<std::complex<T>> z{v->data(), static_cast<std::int64_t>(v->size()), 1, 1, 1};
    fill_random(real_view(z), Distribution::parse(dist_re), seed++);
    fill_random(imag_view(z), Distribution::parse(dist_im), seed++);
    for (auto& e : *v) e = {e.real(), static_cast<T>(e.imag() * im_scale)};
  }
  return p;
}

template <class T>
GemmReport run(const Complex<T>& p, const std::string& scheme, Target target, std::vector<std::complex<T>>& c) {
  GemmOptions o;
  o.scheme = parse_scheme(scheme, target);
  c.assign(p.m * p.n, std::complex<T>(0));
  return complex_gemm_host<T>(Op::N, Op::N, {1, 0}, row_major<const std::complex<T>>(p.a.data(), p.m, p.k),
                              row_major<const std::complex<T>>(p.b.data(), p.k, p.n), {0, 0},
                              row_major(c.data(), p.m, p.n), o);
}

struct Errors {
  double median = 0, max = 0, worst_bound_ratio = 0;
};

/// Relative errors of the real and imaginary parts of c against double-double, and the largest
/// |error| / (tol (|Ar||Br| + |Ai||Bi|) + rnd |Re|) (likewise for Im with |Ar||Bi| + |Ai||Br|).
template <class T>
Errors errors(const Complex<T>& p, const std::vector<std::complex<T>>& c, double tol, double rnd) {
  std::vector<double> rel;
  Errors e;
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      DD sr, si;
      double abs_r = 0, abs_i = 0;
      for (std::int64_t l = 0; l < p.k; ++l) {
        const double ar = p.a[i * p.k + l].real(), ai = p.a[i * p.k + l].imag();
        const double br = p.b[l * p.n + j].real(), bi = p.b[l * p.n + j].imag();
        sr.add_prod(ar, br);
        sr.add_prod(-ai, bi);
        si.add_prod(ar, bi);
        si.add_prod(ai, br);
        abs_r += std::fabs(ar * br) + std::fabs(ai * bi);
        abs_i += std::fabs(ar * bi) + std::fabs(ai * br);
      }
      const std::complex<double> z(c[i * p.n + j]);
      const double er = std::fabs((z.real() - sr.hi) - sr.lo), ei = std::fabs((z.imag() - si.hi) - si.lo);
      if (sr.hi != 0) rel.push_back(er / std::fabs(sr.hi));
      if (si.hi != 0) rel.push_back(ei / std::fabs(si.hi));
      e.worst_bound_ratio = std::max(e.worst_bound_ratio, er / ((tol * abs_r + rnd * std::fabs(sr.hi)) * (1 + 1e-6) + 1e-300));
      e.worst_bound_ratio = std::max(e.worst_bound_ratio, ei / ((tol * abs_i + rnd * std::fabs(si.hi)) * (1 + 1e-6) + 1e-300));
    }
  std::sort(rel.begin(), rel.end());
  e.median = rel.empty() ? 0 : rel[rel.size() / 2];
  e.max = rel.empty() ? 0 : rel.back();
  return e;
}

/// Plain complex GEMM in T (naive dot products, l ascending, std::complex<T> arithmetic).
template <class T>
std::vector<std::complex<T>> plain(const Complex<T>& p) {
  std::vector<std::complex<T>> c(p.m * p.n);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      std::complex<T> s = 0;
      for (std::int64_t l = 0; l < p.k; ++l) s += p.a[i * p.k + l] * p.b[l * p.n + j];
      c[i * p.n + j] = s;
    }
  return c;
}

int moduli_of(const GemmReport& r) {
  const auto at = r.certificate.find("N = ");
  return at == std::string::npos ? -1 : std::atoi(r.certificate.c_str() + at + 4);
}

template <class T>
void expect_certified_and_no_worse(const Complex<T>& p, Target target, const char* what) {
  SCOPED_TRACE(what);
  std::vector<std::complex<T>> c;
  const GemmReport r = run(p, "int8-crt", target, c);
  ASSERT_FALSE(r.fell_back) << r.note;
  EXPECT_EQ(r.used.kind, SchemeKind::int8_crt);
  EXPECT_GT(moduli_of(r), 1) << r.certificate;
  const double u = target == Target::fp64 ? 0x1p-53 : 0x1p-24;
  const Errors emu = errors(p, c, u, 2 * u), nat = errors(p, plain(p), u, 2 * u);
  std::printf("[crt-complex] %-28s %s N = %2d  median %.3g (plain %.3g)  max %.3g (plain %.3g)  err / bound %.3f\n",
              what, target == Target::fp64 ? "fp64" : "fp32", moduli_of(r), emu.median, nat.median, emu.max, nat.max,
              emu.worst_bound_ratio);
  EXPECT_LE(emu.worst_bound_ratio, 1.0);  // the certified bound, entrywise, both components
  EXPECT_LE(emu.median, nat.median);
  EXPECT_LE(emu.max, nat.max);
}

}  // namespace

TEST(CrtComplex, CertifiedBoundHoldsOnFiveDistributions) {
  expect_certified_and_no_worse(make<double>(24, 20, 128, "uniform(-1,1)", "uniform(-1,1)", 11), Target::fp64,
                                "uniform(-1,1)");
  expect_certified_and_no_worse(make<double>(24, 20, 128, "uniform(0,1)", "uniform(0,1)", 21), Target::fp64,
                                "uniform(0,1)");
  expect_certified_and_no_worse(make<double>(24, 20, 128, "phi=0.5", "phi=0.5", 31), Target::fp64, "phi=0.5");
  expect_certified_and_no_worse(make<double>(24, 20, 128, "phi=1", "phi=1", 41), Target::fp64, "phi=1");
  // Imaginary parts 2^-6 of the real ones: Im C is about 2^-6 of |X||Y|'s line norms, so the
  // certificate asks for more moduli (a floating-point 3M would lose those bits of Im C).
  expect_certified_and_no_worse(make<double>(24, 20, 128, "uniform(-1,1)", "uniform(-1,1)", 51, 0x1p-6),
                                Target::fp64, "re uniform, im 2^-6 re");
}

// Imaginary parts 2^-20 of the real ones: the shared scaling of each row [Re, Im] cannot certify Im C
// to u (|Ar||Bi| + |Ai||Br|) within 20 moduli, so the call runs native FP64 with a note (the rule of
// the real scheme) and its result is still FP64-accurate.
TEST(CrtComplex, DisparateRealAndImaginaryMagnitudesFallBack) {
  const auto p = make<double>(24, 20, 128, "uniform(-1,1)", "uniform(-1,1)", 51, 0x1p-20);
  std::vector<std::complex<double>> c;
  const GemmReport r = run(p, "int8-crt", Target::fp64, c);
  EXPECT_TRUE(r.fell_back);
  EXPECT_NE(r.note.find("more than 20 moduli"), std::string::npos) << r.note;
  const Errors emu = errors(p, c, 0x1p-53, 0x1p-52);
  std::printf("[crt-complex] im 2^-20 re: fell back (%s), median %.3g max %.3g\n", r.used.name.c_str(), emu.median, emu.max);
  EXPECT_LE(emu.median, 1e-15);
}

TEST(CrtComplex, Fp32TargetOnComplexFloat) {
  expect_certified_and_no_worse(make<float>(20, 18, 100, "uniform(-1,1)", "uniform(-1,1)", 61), Target::fp32,
                                "uniform(-1,1)");
  expect_certified_and_no_worse(make<float>(20, 18, 100, "phi=1", "phi=1", 71), Target::fp32, "phi=1");
}

// Integer entries in [-63, 63], k = 16, N = 5 moduli: every scaling exponent is >= 0 (no rounding)
// and the reconstruction is exact (g = 0), so each component must equal the exact integer product:
// the residues, the INT8 products and the embedding's signs are all checked at once.
template <class T>
void integer_products_are_exact() {
  const std::int64_t m = 9, n = 7, k = 16;
  Complex<T> p{m, n, k, std::vector<std::complex<T>>(m * k), std::vector<std::complex<T>>(k * n)};
  std::uint64_t s = 12345;
  auto next = [&s]() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((s >> 33) % 127) - 63;
  };
  for (auto* v : {&p.a, &p.b})
    for (auto& e : *v) e = {T(next()), T(next())};
  std::vector<std::complex<T>> c;
  const GemmReport r = run(p, "int8-crt:5", Target::fp64, c);
  ASSERT_FALSE(r.fell_back) << r.note;
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      long long re = 0, im = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        const auto x = p.a[i * k + l], y = p.b[l * n + j];
        re += static_cast<long long>(x.real()) * static_cast<long long>(y.real()) -
              static_cast<long long>(x.imag()) * static_cast<long long>(y.imag());
        im += static_cast<long long>(x.real()) * static_cast<long long>(y.imag()) +
              static_cast<long long>(x.imag()) * static_cast<long long>(y.real());
      }
      wrong += c[i * n + j].real() != T(re) || c[i * n + j].imag() != T(im);
    }
  EXPECT_EQ(wrong, 0) << "of " << m * n;
}
TEST(CrtComplex, IntegerProductsAreExact) {
  integer_products_are_exact<double>();
  integer_products_are_exact<float>();
}

// The same problem through row- and column-major C (the real GEMM writing C itself, then the
// temporary and the complex combine), transposed operands and complex alpha / beta: in double the
// two routes round alike, so every result equals the row-major one bit for bit; complex alpha /
// beta equal the complex combine of that result.
TEST(CrtComplex, LayoutsTransposesAndComplexAlphaBeta) {
  using Z = std::complex<double>;
  const auto p = make<double>(17, 13, 40, "phi=0.5", "phi=0.5", 81);
  const std::int64_t m = p.m, n = p.n, k = p.k;
  GemmOptions o;
  o.scheme = parse_scheme("int8-crt", Target::fp64);
  std::vector<Z> c0;
  const GemmReport r0 = run(p, "int8-crt", Target::fp64, c0);
  ASSERT_FALSE(r0.fell_back) << r0.note;
  // Column-major C (NaN: beta = 0 must not read it).
  std::vector<Z> cc(m * n, Z(std::numeric_limits<double>::quiet_NaN(), 0));
  complex_gemm_host<double>(Op::N, Op::N, {1, 0}, row_major<const Z>(p.a.data(), m, k), row_major<const Z>(p.b.data(), k, n),
                            {0, 0}, MatrixView<Z>{cc.data(), m, n, 1, m}, o);
  // op(A) = A^T with A stored k x m row-major, op(B) = B^T with B stored n x k row-major.
  std::vector<Z> at(k * m), bt(n * k), ct(m * n);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t l = 0; l < k; ++l) at[l * m + i] = p.a[i * k + l];
  for (std::int64_t l = 0; l < k; ++l)
    for (std::int64_t j = 0; j < n; ++j) bt[j * k + l] = p.b[l * n + j];
  complex_gemm_host<double>(Op::T, Op::T, {1, 0}, row_major<const Z>(at.data(), k, m), row_major<const Z>(bt.data(), n, k),
                            {0, 0}, row_major(ct.data(), m, n), o);
  // Complex alpha and beta on a row-major C.
  const Z alpha(0.75, -0.5), beta(0.25, 2.0);
  std::vector<Z> old(m * n), ca;
  fill_random(real_view(MatrixView<Z>{old.data(), m * n, 1, 1, 1}), Distribution::parse("uniform(-1,1)"), 91);
  fill_random(imag_view(MatrixView<Z>{old.data(), m * n, 1, 1, 1}), Distribution::parse("uniform(-1,1)"), 92);
  ca = old;
  complex_gemm_host<double>(Op::N, Op::N, alpha, row_major<const Z>(p.a.data(), m, k), row_major<const Z>(p.b.data(), k, n),
                            beta, row_major(ca.data(), m, n), o);
  std::int64_t differ_col = 0, differ_t = 0, differ_ab = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const Z z = c0[i * n + j], w = old[i * n + j];
      differ_col += !(cc[j * m + i] == z);
      differ_t += !(ct[i * n + j] == z);
      // complex_gemm.hpp's combine, operation by operation.
      double rr = alpha.real() * z.real() - alpha.imag() * z.imag(), ss = alpha.real() * z.imag() + alpha.imag() * z.real();
      rr += beta.real() * w.real() - beta.imag() * w.imag();
      ss += beta.real() * w.imag() + beta.imag() * w.real();
      differ_ab += !(ca[i * n + j] == Z(rr, ss));
    }
  EXPECT_EQ(differ_col, 0);
  EXPECT_EQ(differ_t, 0);
  EXPECT_EQ(differ_ab, 0);
}

// NaN in op(A): the embedded real GEMM falls back to native FP64 with a note; the other rows stay finite.
TEST(CrtComplex, NonfiniteFallsBackToNative) {
  auto p = make<double>(8, 6, 20, "uniform(-1,1)", "uniform(-1,1)", 101);
  p.a[3 * p.k + 5] = {std::numeric_limits<double>::quiet_NaN(), 0.0};
  std::vector<std::complex<double>> c;
  const GemmReport r = run(p, "int8-crt", Target::fp64, c);
  EXPECT_TRUE(r.fell_back);
  EXPECT_FALSE(r.note.empty());
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j)
      if (i != 3) EXPECT_TRUE(std::isfinite(c[i * p.n + j].real()) && std::isfinite(c[i * p.n + j].imag()));
}
