// Host backend GEMM: product error against FP64 / double-double per scheme and input distribution,
// layouts and transposes, alpha/beta semantics, range fallback, shape errors, the Kokkos-View API.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "tcemu/gemm.hpp"
#include "tcemu/metrics.hpp"
#include "tcemu/mixpert.hpp"
#include "tcemu/random.hpp"

using namespace tcemu;

namespace {

struct Product {
  std::vector<float> A, B, C;
  std::int64_t m, n, k;
};

Product make(std::int64_t m, std::int64_t n, std::int64_t k, const Distribution& d, std::uint64_t seed) {
  Product p{std::vector<float>(m * k), std::vector<float>(k * n), std::vector<float>(m * n), m, n, k};
  fill_random(row_major(p.A.data(), m, k), d, seed);
  fill_random(row_major(p.B.data(), k, n), d, seed + 1);
  return p;
}

double frob_error(Product& p, const Scheme& s, GemmReport* rep = nullptr) {
  GemmOptions o;
  o.scheme = s;
  auto r = gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), p.m, p.k),
                            row_major<const float>(p.B.data(), p.k, p.n), 0.0f,
                            row_major(p.C.data(), p.m, p.n), o);
  if (rep) *rep = r;
  const auto R = reference_gemm_fp64<float>(Op::N, Op::N, row_major<const float>(p.A.data(), p.m, p.k),
                                            row_major<const float>(p.B.data(), p.k, p.n));
  return relative_frobenius_error<float>(row_major<const float>(p.C.data(), p.m, p.n), R);
}

}  // namespace

class SchemeAccuracy : public ::testing::TestWithParam<std::string> {};

TEST_P(SchemeAccuracy, ProductErrorWithinDocumentedBoundOnEveryDistribution) {
  const Scheme s = parse_scheme(GetParam(), Target::fp32);
  for (const char* dist : {"uniform", "phi=0.1", "phi=1", "phi=2", "phi=4"}) {
    Product p = make(96, 80, 200, Distribution::parse(dist), 17);
    const double sgemm = frob_error(p, parse_scheme("fp32"));
    GemmReport rep;
    const double err = frob_error(p, s, &rep);
    // FP32-accurate schemes: within 4x native SGEMM's error. Others: within their split's bound
    // (the product of two elements carries about twice the representation error) and 4x SGEMM's.
    // int8-mixpert's bits count at the tile's maximum; a line up to 2^5 below it keeps 5 fewer.
    const int bits = s.precision_bits - (s.kind == SchemeKind::int8_mixpert ? mixpert::kMaxTileSpreadBits : 0);
    const double bound = s.meets(Target::fp32) ? 4 * sgemm : std::max(4 * sgemm, 4 * std::ldexp(1.0, -bits));
    EXPECT_LE(err, bound) << s.name << " on " << dist << " (used " << rep.used.name << ")";
    EXPECT_TRUE(std::isfinite(err)) << s.name << " on " << dist;
    if (rep.fell_back) EXPECT_FALSE(rep.note.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, SchemeAccuracy,
                         ::testing::Values("fp32", "fp64", "tf32", "bf16", "fp16", "fp16x2",
                                           "fp16x2-markidis", "fp16x2-egemm", "fp16x2-legemm", "fp16x2-aligned",
                                           "tf32x2", "tf32x2-aligned", "bf16x3", "bf16x3-aligned", "bf16x9",
                                           "int8-ozaki", "int8-mixpert",
                                           "int8-mixpert:1", "auto"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n)
                             if (c == '-' || c == ':') c = '_';
                           return n;
                         });

TEST(GemmHost, OnePassSchemesReallyLoseAccuracy) {
  // Guards against a split that silently returns the FP32 input: 1-pass BF16 must be far worse.
  Product p = make(64, 64, 128, Distribution{}, 3);
  const double sgemm = frob_error(p, parse_scheme("fp32"));
  EXPECT_GT(frob_error(p, parse_scheme("bf16")), 100 * sgemm);
  EXPECT_GT(frob_error(p, parse_scheme("fp16")), 10 * sgemm);
}

TEST(GemmHost, OzakiFp64TargetBeatsNativeDgemmAtModerateSpread) {
  for (const char* dist : {"uniform", "phi=0.1", "phi=1"}) {
    const std::int64_t n = 128;
    std::vector<double> A(n * n), B(n * n), C(n * n), D(n * n);
    fill_random(row_major(A.data(), n, n), Distribution::parse(dist), 5);
    fill_random(row_major(B.data(), n, n), Distribution::parse(dist), 6);
    const auto R = reference_gemm_dd(Op::N, Op::N, row_major<const double>(A.data(), n, n),
                                     row_major<const double>(B.data(), n, n));
    GemmOptions o;
    o.scheme = parse_scheme("int8-ozaki", Target::fp64);
    const auto rep = gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(A.data(), n, n),
                                       row_major<const double>(B.data(), n, n), 0.0,
                                       row_major(C.data(), n, n), o);
    o.scheme = parse_scheme("fp64");
    gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(A.data(), n, n),
                      row_major<const double>(B.data(), n, n), 0.0, row_major(D.data(), n, n), o);
    const double e_oz = relative_frobenius_error<double>(row_major<const double>(C.data(), n, n), R);
    const double e_64 = relative_frobenius_error<double>(row_major<const double>(D.data(), n, n), R);
    EXPECT_LE(e_oz, e_64) << dist << " with " << rep.used.name;
    EXPECT_GT(e_oz, 0.0) << dist;
    // Too few slices must be visibly worse: guards against a scheme that ignores s.
    o.scheme = parse_scheme("int8-ozaki:3", Target::fp64);
    gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(A.data(), n, n),
                      row_major<const double>(B.data(), n, n), 0.0, row_major(C.data(), n, n), o);
    EXPECT_GT(relative_frobenius_error<double>(row_major<const double>(C.data(), n, n), R), 1e-9);
  }
}

TEST(GemmHost, LayoutsAndTransposesGiveBitIdenticalResults) {
  const std::int64_t m = 37, n = 29, k = 53;
  Product p = make(m, n, k, Distribution{}, 9);
  // Column-major copies of A^T (k x m) and B^T (n x k) hold the same numbers.
  std::vector<float> At(m * k), Bt(k * n);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t l = 0; l < k; ++l) At[i * k + l] = p.A[i * k + l];  // row-major A == col-major A^T
  for (std::int64_t l = 0; l < k; ++l)
    for (std::int64_t j = 0; j < n; ++j) Bt[l * n + j] = p.B[l * n + j];
  for (const char* name : {"fp16x2", "bf16x3", "int8-ozaki", "fp32"}) {
    GemmOptions o;
    o.scheme = parse_scheme(name);
    std::vector<float> C1(m * n), C2(m * n), C3(m * n);
    gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), m, k),
                     row_major<const float>(p.B.data(), k, n), 0.0f, row_major(C1.data(), m, n), o);
    // op(A) = (A^T)^T with A^T stored column-major; op(B) likewise; C column-major.
    gemm_host<float>(Op::T, Op::T, 1.0f, col_major<const float>(At.data(), k, m),
                     col_major<const float>(Bt.data(), n, k), 0.0f, col_major(C2.data(), m, n), o);
    // Strided view: C with a leading dimension larger than n.
    std::vector<float> Cpad(m * (n + 5), -7.0f);
    gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), m, k),
                     row_major<const float>(p.B.data(), k, n), 0.0f, MatrixView<float>{Cpad.data(), m, n, n + 5, 1}, o);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        ASSERT_EQ(C1[i * n + j], C2[j * m + i]) << name;
        ASSERT_EQ(C1[i * n + j], Cpad[i * (n + 5) + j]) << name;
      }
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = n; j < n + 5; ++j) ASSERT_EQ(Cpad[i * (n + 5) + j], -7.0f);  // padding untouched
  }
}

TEST(GemmHost, AlphaBetaSemantics) {
  const std::int64_t m = 8, n = 6, k = 5;
  Product p = make(m, n, k, Distribution{}, 21);
  for (const char* name : {"fp16x2", "tf32x2", "fp64", "int8-ozaki"}) {
    GemmOptions o;
    o.scheme = parse_scheme(name);
    std::vector<float> ab(m * n), c(m * n, std::numeric_limits<float>::quiet_NaN());
    gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), m, k),
                     row_major<const float>(p.B.data(), k, n), 0.0f, row_major(ab.data(), m, n), o);
    // beta = 0 must not read C (it holds NaN).
    gemm_host<float>(Op::N, Op::N, 2.0f, row_major<const float>(p.A.data(), m, k),
                     row_major<const float>(p.B.data(), k, n), 0.0f, row_major(c.data(), m, n), o);
    for (std::int64_t e = 0; e < m * n; ++e) ASSERT_NEAR(c[e], 2 * ab[e], 1e-6) << name;
    // beta = 0.5: C = 2AB + 0.5 * 2AB = 3AB.
    gemm_host<float>(Op::N, Op::N, 2.0f, row_major<const float>(p.A.data(), m, k),
                     row_major<const float>(p.B.data(), k, n), 0.5f, row_major(c.data(), m, n), o);
    for (std::int64_t e = 0; e < m * n; ++e) ASSERT_NEAR(c[e], 3 * ab[e], 1e-5) << name;
  }
}

TEST(GemmHost, ReportNamesTheHostKernels) {
  const std::int64_t m = 8, n = 6, k = 5;
  Product p = make(m, n, k, Distribution{}, 23);
  std::vector<float> c(m * n);
  GemmOptions o;
  o.scheme = parse_scheme("fp16x2");
  EXPECT_EQ(gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), m, k),
                             row_major<const float>(p.B.data(), k, n), 0.0f, row_major(c.data(), m, n), o)
                .kernels,
            "host (CBLAS)");
  // Nothing computed for an empty C: nothing named.
  EXPECT_EQ(gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), 0, k),
                             row_major<const float>(p.B.data(), k, n), 0.0f, row_major(c.data(), 0, n), o)
                .kernels,
            "");
}

TEST(GemmHost, OutOfRangeOperandFallsBackWithANoteOrThrows) {
  const std::int64_t m = 16, n = 16, k = 16;
  Product p = make(m, n, k, Distribution{}, 4);
  p.A[5] = 1e6f;  // above fp16x2's max_abs (2^15)
  GemmOptions o;
  o.scheme = parse_scheme("fp16x2");
  GemmReport rep;
  const double err = frob_error(p, o.scheme, &rep);
  EXPECT_TRUE(rep.fell_back);
  EXPECT_EQ(rep.used.name, "fp32");
  EXPECT_NE(rep.note.find("operand A"), std::string::npos) << rep.note;
  EXPECT_LT(err, 1e-6);
  o.range_policy = RangePolicy::error;
  EXPECT_THROW(gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), m, k),
                                row_major<const float>(p.B.data(), k, n), 0.0f,
                                row_major(p.C.data(), m, n), o),
               InvalidArgument);
  // Ignoring the range really computes with fp16x2 and overflows: the fallback is what saves us.
  o.range_policy = RangePolicy::ignore;
  p.A[5] = 32784.0f;  // the lo part overflows at exponent 15 with the 2^12 scale
  gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), m, k),
                   row_major<const float>(p.B.data(), k, n), 0.0f, row_major(p.C.data(), m, n), o);
  bool nonfinite = false;
  for (float c : p.C) nonfinite |= !std::isfinite(c);
  EXPECT_TRUE(nonfinite);
}

TEST(GemmHost, NonFiniteInputsGoToNativeArithmetic) {
  const std::int64_t m = 4, n = 4, k = 4;
  Product p = make(m, n, k, Distribution{}, 8);
  p.A[0] = std::numeric_limits<float>::infinity();
  GemmReport rep;
  frob_error(p, parse_scheme("bf16x3"), &rep);
  EXPECT_EQ(rep.used.name, "fp32");
  EXPECT_NE(rep.note.find("non-finite"), std::string::npos);
  EXPECT_TRUE(std::isinf(p.C[0]) || std::isnan(p.C[0]));  // IEEE semantics preserved in row 0
  EXPECT_TRUE(std::isfinite(p.C[n]));                     // other rows unaffected
}

TEST(GemmHost, ShapeMismatchNamesTheShapes) {
  std::vector<float> A(6), B(6), C(4);
  try {
    gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(A.data(), 2, 3),
                     row_major<const float>(B.data(), 2, 3), 0.0f, row_major(C.data(), 2, 2));
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("op(A) is 2 x 3, op(B) is 2 x 3"), std::string::npos) << e.what();
  }
}

TEST(GemmHost, KokkosViewsDispatchToTheHostBackend) {
  const int m = 12, n = 10, k = 7;
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> A("A", m, k);
  Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::HostSpace> B("B", k, n);
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> C("C", m, n);
  for (int i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l) A(i, l) = float(i + 1) / float(l + 2);
  for (int l = 0; l < k; ++l)
    for (int j = 0; j < n; ++j) B(l, j) = float(l - j) / 3.0f;
  GemmOptions o;
  o.scheme = parse_scheme("tf32x2");
  const auto rep = gemm(Op::N, Op::N, 1.0f, A, B, 0.0f, C, o);
  EXPECT_EQ(rep.used.name, "tf32x2");
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int l = 0; l < k; ++l) ref += double(A(i, l)) * double(B(l, j));
      EXPECT_NEAR(C(i, j), ref, 1e-5 * (1 + std::fabs(ref)));
    }
}

// fp16x2-aligned really runs (no fallback) on flat lines at any magnitude, thanks to the operand
// scaling, and falls back with a note on lines whose spread would cost it accuracy.
TEST(GemmHost, AlignedSplitRunsAtEveryMagnitudeAndRejectsWideSpreads) {
  const Scheme s = parse_scheme("fp16x2-aligned");
  for (int scale : {-40, 0, 40}) {
    Product p = make(64, 48, 300, Distribution::parse("uniform"), 31);
    for (float& v : p.A) v = std::ldexp(v, scale);
    const double sgemm = frob_error(p, parse_scheme("fp32"));
    GemmReport rep;
    const double err = frob_error(p, s, &rep);
    EXPECT_FALSE(rep.fell_back) << rep.note;
    EXPECT_EQ(rep.used.name, "fp16x2-aligned");
    EXPECT_LE(err, 4 * sgemm) << "scale 2^" << scale;
    EXPECT_GT(err, 0.0);
  }
  Product wide = make(64, 48, 300, Distribution::parse("phi=4"), 32);
  GemmReport rep;
  frob_error(wide, s, &rep);
  EXPECT_TRUE(rep.fell_back);
  EXPECT_NE(rep.note.find("nonzero |x|"), std::string::npos) << rep.note;
  // Sparse flat lines (a state early in a circuit): zeros do not count, the scheme runs.
  Product sparse = make(64, 48, 300, Distribution::parse("uniform"), 33);
  for (std::size_t i = 0; i < sparse.A.size(); ++i)
    if (i % 16 != 0) sparse.A[i] = 0.f;
  const double sgemm = frob_error(sparse, parse_scheme("fp32"));
  const double err = frob_error(sparse, s, &rep);
  EXPECT_FALSE(rep.fell_back) << rep.note;
  EXPECT_LE(err, 4 * sgemm);
}

namespace {
// "uniform(a,b)" (tcemu-bench --dists) parses to its bounds; trailing text and a >= b are refused.
TEST(Distribution, UniformWithBoundsParses) {
  const tcemu::Distribution d = tcemu::Distribution::parse("uniform(0,1)");
  EXPECT_EQ(d.lo, 0.0);
  EXPECT_EQ(d.hi, 1.0);
  const tcemu::Distribution e = tcemu::Distribution::parse("uniform(-2.5,4)");
  EXPECT_EQ(e.lo, -2.5);
  EXPECT_EQ(e.hi, 4.0);
  for (const char* bad : {"uniform(1,0)", "uniform(0,1)x", "uniform(0,1", "uniform(0;1)"})
    EXPECT_THROW(tcemu::Distribution::parse(bad), tcemu::InvalidArgument) << bad;
}
}  // namespace
