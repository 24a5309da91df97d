// int8-mixpert (MixPert, tcemu/mixpert.hpp) on the host: packing exactness, the levels' accuracy
// against FP64 and against each other, level II / III symmetry, layout independence, the tile
// spread rule (fallback note, error, ignore) and the catalogue names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tcemu/gemm.hpp"
#include "tcemu/metrics.hpp"
#include "tcemu/mixpert.hpp"
#include "tcemu/random.hpp"

using namespace tcemu;

namespace {

struct Problem {
  std::int64_t m, n, k;
  std::vector<float> A, B, C;
};

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, const char* dist, std::uint64_t seed) {
  Problem p{m, n, k, std::vector<float>(m * k), std::vector<float>(k * n), std::vector<float>(m * n)};
  fill_random(row_major(p.A.data(), m, k), Distribution::parse(dist), seed);
  fill_random(row_major(p.B.data(), k, n), Distribution::parse(dist), seed + 1);
  return p;
}

GemmReport run(Problem& p, const std::string& scheme, RangePolicy policy = RangePolicy::fallback) {
  GemmOptions o;
  o.scheme = parse_scheme(scheme);
  o.range_policy = policy;
  return gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), p.m, p.k),
                          row_major<const float>(p.B.data(), p.k, p.n), 0.0f, row_major(p.C.data(), p.m, p.n), o);
}

double error_vs_fp64(const Problem& p) {
  const auto R = reference_gemm_fp64<float>(Op::N, Op::N, row_major<const float>(p.A.data(), p.m, p.k),
                                            row_major<const float>(p.B.data(), p.k, p.n));
  return relative_frobenius_error<float>(row_major<const float>(p.C.data(), p.m, p.n), R);
}

}  // namespace

TEST(Mixpert, DigitsReconstructTheElementToHalfAnUlpOfTheTileGrid) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> ex(-150, 127);
  for (int segs : {2, 3}) {
    for (int trial = 0; trial < 20000; ++trial) {
      const int e_max = ex(rng);
      // The tile's maximum and an element up to 2^12 below it, both in FP32 (subnormals included).
      const float mx = static_cast<float>(std::ldexp(0.5 + std::fabs(u(rng)) * 0.5, e_max + 1));
      const float x = static_cast<float>(mx * u(rng) * std::ldexp(1.0, -static_cast<int>(trial % 13)));
      if (!(std::fabs(mx) > 0) || !std::isfinite(mx)) continue;
      const int e = mixpert::tile_exponent(std::fabs(double(mx)), segs);
      for (float v : {mx, x, -mx}) {
        std::int8_t d[3] = {0, 0, 0};
        mixpert::digits(v, e, segs, d, 1);
        double back = 0;
        for (int i = 0; i < segs; ++i) {
          ASSERT_LE(std::abs(int(d[i])), 127);
          ASSERT_TRUE(d[i] == 0 || (d[i] < 0) == (v < 0)) << "digits carry the sign of x";
          back += d[i] * std::ldexp(1.0, e - 6 - 7 * i);
        }
        ASSERT_LE(std::fabs(back - double(v)), std::ldexp(1.0, e - 7 * segs) * (1 + 1e-12))
            << "segs " << segs << " v " << v << " e " << e;
      }
    }
  }
  // A maximum that rounds up to 2^(7S) raises the exponent instead of overflowing digit 0.
  const float just_below = std::nextafter(2.0f, 0.0f);  // 2 - 2^-23
  const int e = mixpert::tile_exponent(just_below, 3);
  EXPECT_EQ(e, 1);
  std::int8_t d[3];
  mixpert::digits(just_below, e, 3, d, 1);
  EXPECT_EQ(d[0], 64);
  EXPECT_EQ(d[1], 0);
  EXPECT_EQ(mixpert::tile_exponent(0.0, 3), mixpert::kZeroTileExp);
}

TEST(Mixpert, LevelsTradeAccuracyAsDocumented) {
  Problem p = make(70, 45, 300, "uniform", 11);
  run(p, "fp32");
  const double sgemm = error_vs_fp64(p);
  double err[5] = {};
  for (int level = 1; level <= 4; ++level) {
    const GemmReport r = run(p, "int8-mixpert:" + std::to_string(level));
    EXPECT_FALSE(r.fell_back) << r.note;
    EXPECT_EQ(r.used.kind, SchemeKind::int8_mixpert);
    err[level] = error_vs_fp64(p);
  }
  // Level IV: 21 bits at each tile's maximum, FP32 accumulation per 32-element step: about SGEMM.
  EXPECT_LE(err[4], 2 * sgemm);
  EXPECT_GT(err[4], 0.0);
  // Level I keeps 14 bits: visibly worse (guards against a level that is silently ignored), but
  // within its representation bound.
  EXPECT_GT(err[1], 30 * err[4]);
  EXPECT_LT(err[1], 4 * std::ldexp(1.0, -14));
  // II and III keep 14 bits on one side: between I and IV.
  for (int level : {2, 3}) {
    EXPECT_LT(err[level], err[1]) << level;
    EXPECT_GT(err[level], err[4]) << level;
  }
}

TEST(Mixpert, LevelTwoOfABIsLevelThreeOfBtAtTransposed) {
  // (A B)^T = B^T A^T: level II (A 2 segments, B 3) must give the transpose of level III on the
  // swapped product bit for bit, which checks that each operand gets its own segment count.
  Problem p = make(41, 23, 97, "phi=0.5", 3);
  ASSERT_FALSE(run(p, "int8-mixpert:2").fell_back);
  std::vector<float> Ct(p.n * p.m);
  GemmOptions o;
  o.scheme = parse_scheme("int8-mixpert:3");
  gemm_host<float>(Op::T, Op::T, 1.0f, row_major<const float>(p.B.data(), p.k, p.n),
                   row_major<const float>(p.A.data(), p.m, p.k), 0.0f, row_major(Ct.data(), p.n, p.m), o);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) ASSERT_EQ(p.C[i * p.n + j], Ct[j * p.m + i]) << i << "," << j;
}

TEST(Mixpert, LayoutsGiveBitIdenticalResults) {
  Problem p = make(19, 33, 70, "uniform", 7);
  run(p, "int8-mixpert");
  std::vector<float> C2(p.m * p.n);
  GemmOptions o;
  o.scheme = parse_scheme("int8-mixpert");
  gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(p.A.data(), p.m, p.k),
                   row_major<const float>(p.B.data(), p.k, p.n), 0.0f, col_major(C2.data(), p.m, p.n), o);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) ASSERT_EQ(p.C[i * p.n + j], C2[j * p.m + i]);
}

TEST(Mixpert, TileSpreadRuleFallsBackToBf16x3WithANote) {
  Problem p = make(16, 16, 64, "uniform", 2);
  // Row 3 scaled to 2^-5 of the others: its line maximum sits 5 or 6 binades below theirs. Make it
  // exactly 5 (allowed) by pinning the maxima, then 6 (refused).
  auto set_rows = [&](float row3_scale) {
    p = make(16, 16, 64, "uniform", 2);
    for (std::int64_t i = 0; i < 8; ++i) p.A[i * p.k] = 1.5f;  // every line max in binade 0
    for (std::int64_t l = 0; l < p.k; ++l) p.A[3 * p.k + l] *= row3_scale;
  };
  set_rows(std::ldexp(1.0f, -5));
  GemmReport r = run(p, "int8-mixpert");
  EXPECT_FALSE(r.fell_back) << r.note;
  const double kept = error_vs_fp64(p);
  EXPECT_LT(kept, 1e-5);

  set_rows(std::ldexp(1.0f, -6));
  r = run(p, "int8-mixpert");
  EXPECT_TRUE(r.fell_back);
  EXPECT_EQ(r.requested.name, "int8-mixpert");
  EXPECT_EQ(r.used.name, "bf16x3");
  EXPECT_NE(r.note.find("operand A (16 x 64)"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("2 of 4 tiles"), std::string::npos) << r.note;  // tile rows 0-7, both k-blocks
  EXPECT_LT(error_vs_fp64(p), 1e-6);

  EXPECT_THROW(run(p, "int8-mixpert", RangePolicy::error), InvalidArgument);
  r = run(p, "int8-mixpert", RangePolicy::ignore);
  EXPECT_FALSE(r.fell_back);
  EXPECT_EQ(r.used.name, "int8-mixpert");
}

TEST(Mixpert, NonFiniteInputEndsInNativeFp32) {
  Problem p = make(8, 8, 40, "uniform", 4);
  p.B[5] = std::numeric_limits<float>::quiet_NaN();
  const GemmReport r = run(p, "int8-mixpert");
  EXPECT_TRUE(r.fell_back);
  EXPECT_EQ(r.used.name, "fp32");  // bf16x3 refuses NaN too: the note says both steps
  EXPECT_NE(r.note.find("operand B"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("non-finite"), std::string::npos) << r.note;
}

TEST(Mixpert, CatalogueNamesAndLevels) {
  EXPECT_EQ(parse_scheme("int8-mixpert").level, 4);
  EXPECT_EQ(parse_scheme("int8-mixpert").products, 8);
  EXPECT_EQ(parse_scheme("int8-mixpert:1").products, 4);
  EXPECT_EQ(parse_scheme("int8-mixpert:2").products, 6);
  EXPECT_EQ(parse_scheme("int8-mixpert:4").name, "int8-mixpert");
  EXPECT_FALSE(parse_scheme("int8-mixpert").meets(Target::fp32));  // 21 bits < 22: a paper baseline
  EXPECT_THROW(parse_scheme("int8-mixpert:5"), InvalidArgument);
  EXPECT_THROW(parse_scheme("int8-mixpert:x"), InvalidArgument);
  const auto s2 = mixpert::segments(2), s2t = mixpert::segments(2, true);
  EXPECT_EQ(s2.x, 2);
  EXPECT_EQ(s2.y, 3);
  EXPECT_EQ(s2t.x, 3);
  EXPECT_EQ(s2t.y, 2);
}
