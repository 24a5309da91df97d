// Split rules of every FP scheme: representation error per binade across the documented range,
// degradation just outside it, and zeros / subnormals / Inf / NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "tcemu/range_profile.hpp"
#include "tcemu/float_bits.hpp"
#include "tcemu/split.hpp"

using namespace tcemu;

namespace {

const SchemeKind kSplitSchemes[] = {
    SchemeKind::tf32,         SchemeKind::bf16,          SchemeKind::fp16,
    SchemeKind::fp16x2,       SchemeKind::fp16x2_markidis, SchemeKind::fp16x2_egemm,
    SchemeKind::fp16x2_legemm, SchemeKind::tf32x2,        SchemeKind::bf16x3,
    SchemeKind::bf16x9};

Scheme scheme_of(SchemeKind k) {
  for (const auto& s : catalogue(Target::fp32))
    if (s.kind == k) return s;
  throw std::logic_error("missing scheme");
}

// Largest relative representation error over random values in binade [2^e, 2^(e+1)).
double max_rel_error(SchemeKind kind, int e, int samples = 20000,
                     double max_abs = std::numeric_limits<double>::infinity()) {
  std::mt19937 gen(1000 + e);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  double worst = 0;
  for (int i = 0; i < samples; ++i) {
    const float x = float(std::ldexp(u(gen), e)) * (i % 2 ? -1.0f : 1.0f);
    if (!std::isfinite(x) || std::fabs(x) >= std::ldexp(1.0, e + 1) || std::fabs(x) >= max_abs) continue;
    const double r = split::recombine(kind, split::split_element(kind, x));
    worst = std::max(worst, std::fabs(r - double(x)) / std::fabs(double(x)));
  }
  return worst;
}

}  // namespace

class SplitScheme : public ::testing::TestWithParam<SchemeKind> {};

TEST_P(SplitScheme, RepresentationErrorWithinBoundInEveryBinadeOfTheRange) {
  const Scheme s = scheme_of(GetParam());
  const double bound = std::ldexp(1.0, -s.precision_bits);
  const int top = s.max_abs >= 1e38 ? 127 : int(std::floor(std::log2(s.max_abs))) - 1;
  for (int e = s.min_exp; e <= top; ++e) {
    const double err = max_rel_error(s.kind, e, 4000, s.max_abs);
    ASSERT_LE(err, bound) << s.name << " binade 2^" << e;
  }
  if (top == 127) return;
  // The top binade up to max_abs (exclusive).
  std::mt19937 gen(3);
  const double lo = std::ldexp(1.0, top + 1);
  std::uniform_real_distribution<double> u(lo, std::min(s.max_abs, 2 * lo));
  for (int i = 0; i < 20000; ++i) {
    const float x = float(u(gen));
    if (double(x) >= s.max_abs) continue;
    const double r = split::recombine(s.kind, split::split_element(s.kind, x));
    ASSERT_LE(std::fabs(r - x) / x, bound) << s.name << " x = " << x;
  }
}

TEST_P(SplitScheme, RangeIsTightBelowMinExponent) {
  // Four binades below the full-precision range the representation error must exceed the bound:
  // otherwise the documented range would be too narrow (and auto too conservative).
  const Scheme s = scheme_of(GetParam());
  if (s.min_exp <= -126) GTEST_SKIP() << s.name << " has FP32's own range";
  const double bound = std::ldexp(1.0, -s.precision_bits);
  EXPECT_GT(max_rel_error(s.kind, s.min_exp - 4), bound) << s.name;
}

TEST_P(SplitScheme, AtOrAboveMaxAbsAPartOverflowsOrTheRangeCheckRejects) {
  const Scheme s = scheme_of(GetParam());
  if (!std::isfinite(s.max_abs) || s.max_abs > std::numeric_limits<float>::max()) {
    // 8-bit-exponent schemes: the largest floats round to Inf in the high part.
    const float x = std::numeric_limits<float>::max();
    const auto p = split::split_element(s.kind, x);
    EXPECT_TRUE(std::isinf(p.p[0])) << s.name;
    return;
  }
  RangeProfile prof;
  prof.max_abs = s.max_abs;
  prof.min_line_max = 1.0;
  EXPECT_FALSE(range_violation(s, prof).empty()) << s.name;
  prof.max_abs = std::nextafter(s.max_abs, 0.0);
  EXPECT_TRUE(range_violation(s, prof).empty()) << s.name;
  // And the split really breaks somewhere in [max_abs, 2 max_abs) for the RN schemes.
  bool broke = false;
  for (double x = s.max_abs; x < 2 * s.max_abs && !broke; x += s.max_abs / 4096) {
    const auto p = split::split_element(s.kind, float(x));
    const double r = split::recombine(s.kind, p);
    broke = !std::isfinite(r) || std::fabs(r - x) / x > std::ldexp(1.0, -s.precision_bits);
  }
  if (s.split == SplitRule::rn || s.split == SplitRule::round_split) EXPECT_TRUE(broke) << s.name;
}

TEST_P(SplitScheme, ZerosSubnormalsInfNaN) {
  const Scheme s = scheme_of(GetParam());
  for (float z : {0.0f, -0.0f}) {
    const auto p = split::split_element(s.kind, z);
    EXPECT_EQ(split::recombine(s.kind, p), 0.0) << s.name;
  }
  // FP32 subnormals: tiny absolute error (they sit far below every scheme's range).
  const float sub = std::numeric_limits<float>::denorm_min() * 12345;
  const double r = split::recombine(s.kind, split::split_element(s.kind, sub));
  EXPECT_LE(std::fabs(r - sub), std::ldexp(1.0, -24)) << s.name;
  // Non-finite values are kept away from every split scheme by the range check.
  RangeProfile prof;
  prof.nonfinite = 1;
  EXPECT_NE(range_violation(s, prof).find("non-finite"), std::string::npos) << s.name;
  EXPECT_TRUE(std::isnan(split::split_element(s.kind, std::nanf("")).p[0]));
}

INSTANTIATE_TEST_SUITE_P(AllSplitSchemes, SplitScheme, ::testing::ValuesIn(kSplitSchemes),
                         [](const auto& info) {
                           std::string n = scheme_of(info.param).name;
                           for (auto& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(Split, ApeLoOverflowsAtExponent15WithScale4096) {
  // The pitfall from the APE notes: 32784 rounds to hi = 32768 (tie), residual 16 * 2^12 = 65536.
  const auto p = split::split_element(SchemeKind::fp16x2, 32784.0f);
  EXPECT_TRUE(std::isinf(p.p[1]));
  EXPECT_EQ(scheme_of(SchemeKind::fp16x2).max_abs, 32768.0);
}

TEST(Split, ResidualComesFromTheRoundedHighPart) {
  // x just above a TF32 tie: hi rounds up, so lo must be negative.
  const float x = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20);
  const auto p = split::split_element(SchemeKind::tf32x2, x);
  EXPECT_EQ(p.p[0], 1.0f + std::ldexp(1.0f, -10));
  EXPECT_LT(p.p[1], 0.0f);
  EXPECT_EQ(double(p.p[0]) + double(p.p[1]), double(x));
}

TEST(Split, OzakiSlicesAreExactAndNeverMinus128) {
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < 20000; ++i) {
    const double line_max = 3.7;
    const double x = (i == 0 ? -line_max : u(gen) * line_max);
    const int e = split::ozaki_line_exponent(line_max);
    std::int8_t sl[9];
    split::ozaki_slices(x, e, 7, 9, sl, 1);
    double r = 0;
    for (int p = 0; p < 9; ++p) {
      ASSERT_GT(int(sl[p]), -128);
      r += std::ldexp(double(sl[p]), -7 * (p + 1));
    }
    r = std::ldexp(r, e);
    ASSERT_LE(std::fabs(r - x), std::ldexp(1.0, e - 63));  // truncation below the 63rd bit
    ASSERT_LE(std::fabs(r), std::fabs(x));                  // truncation toward zero
  }
  EXPECT_EQ(split::ozaki_bits_per_slice(1 << 17), 7);
  EXPECT_EQ(split::ozaki_bits_per_slice((1 << 17) + 1), 6);
  EXPECT_EQ(split::ozaki_line_exponent(0.0), 0);
  EXPECT_EQ(split::ozaki_line_exponent(1.0), 1);  // 1 < 2^1: a power of two needs the next exponent
}

// fp16x2-aligned: hi sits on its line's grid 2^(e + sigma - 10) with at most 11 significant bits, so
// any 16 hi x hi products of a row and a column sum exactly in FP32 (the Tensor Core step cannot
// truncate them); hi + lo is within 2^-22 of the line maximum; the operand maximum lands in
// [2^14, 2^15) after scaling, for operands from 2^-40 to 2^40.
TEST(SplitAligned, PartsSitOnTheLineGridAndRecombineWithin2ToMinus22OfTheLineMax) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int scale : {-40, -3, 0, 12, 40}) {
    const int lines = 16, len = 64;
    std::vector<float> x(lines * len);
    for (int l = 0; l < lines; ++l)
      for (int j = 0; j < len; ++j)  // lines 0..15 binades below the first
        x[l * len + j] = float(std::ldexp(u(gen), scale - l));
    double op_max = 0;
    for (float v : x) op_max = std::max(op_max, double(std::fabs(v)));
    const int sigma = split::aligned_scale_exp(op_max);
    EXPECT_GE(std::ldexp(op_max, sigma), std::ldexp(1.0, 14)) << scale;
    EXPECT_LT(std::ldexp(op_max, sigma), std::ldexp(1.0, 15)) << scale;
    std::vector<double> hi_units(lines * len);
    for (int l = 0; l < lines; ++l) {
      double lmax = 0;
      for (int j = 0; j < len; ++j) lmax = std::max(lmax, double(std::fabs(x[l * len + j])));
      const int e = split::ozaki_line_exponent(lmax);
      const double unit = std::ldexp(1.0, e + sigma - split::kAlignedGridBits);
      for (int j = 0; j < len; ++j) {
        const float v = x[l * len + j];
        const split::Parts p = split::split_aligned(v, sigma, e);
        ASSERT_EQ(bits::to_fp16_rn(p.p[0]), p.p[0]) << "hi not an FP16 value";
        ASSERT_EQ(bits::to_fp16_rn(p.p[1]), p.p[1]) << "lo not an FP16 value";
        const double h = double(p.p[0]) / unit;
        ASSERT_EQ(h, std::nearbyint(h)) << "hi off the grid, scale " << scale << " line " << l;
        ASSERT_LE(std::fabs(h), 1024.0);
        hi_units[l * len + j] = h;
        const double err = std::fabs(double(p.p[0]) + double(p.p[1]) - std::ldexp(double(v), sigma));
        ASSERT_LE(err, std::ldexp(lmax, sigma - 22)) << "scale " << scale << " line " << l << " x " << v;
      }
    }
    // 16 hi x hi products of line 0 and line 1 (in grid units): the sum is an integer below 2^24.
    for (int j0 = 0; j0 < len; j0 += 16) {
      double s = 0;
      for (int j = j0; j < j0 + 16; ++j) s += hi_units[j] * hi_units[len + j];
      EXPECT_LT(std::fabs(s), std::ldexp(1.0, 24));
      EXPECT_EQ(double(float(s)), s);
    }
  }
}

TEST(SplitAligned, RangeCheckRejectsLowLinesHugeOperandsAndWideSpreads) {
  const Scheme s = scheme_of(SchemeKind::fp16x2_aligned);
  RangeProfile p;
  p.max_abs = 3.0;
  p.min_line_max = std::ldexp(3.0, -16);
  p.max_line_spread_bits = 9.0;  // sparse lines: zeros split exactly, only the nonzero spread counts
  p.max_line_spread_nonzero_bits = 2.0;
  EXPECT_EQ(range_violation(s, p), "");
  p.min_line_max = std::ldexp(3.0, -18);
  EXPECT_NE(range_violation(s, p).find("below the operand's max"), std::string::npos) << range_violation(s, p);
  p.min_line_max = 1.0;
  p.max_line_spread_nonzero_bits = 6.0;
  EXPECT_NE(range_violation(s, p).find("nonzero |x|"), std::string::npos) << range_violation(s, p);
  p.max_line_spread_nonzero_bits = 1.0;
  p.max_abs = std::ldexp(1.0, 80);
  p.min_line_max = p.max_abs;
  EXPECT_NE(range_violation(s, p).find("scaling range"), std::string::npos) << range_violation(s, p);
  p.max_abs = p.min_line_max = std::ldexp(1.0, -50);  // tiny but flat: scaled by 2^60, in range
  EXPECT_EQ(range_violation(s, p), "");
  p.max_abs = p.min_line_max = std::ldexp(1.0, -80);  // beyond the scaling bound 2^60
  EXPECT_NE(range_violation(s, p).find("after the operand's scaling by 2^60"), std::string::npos)
      << range_violation(s, p);
}

// tf32x2-aligned / bf16x3-aligned: unscaled (sigma = 0), hi on the line grid 2^(e - b) (b = 10 / 7)
// with |hi / u| <= 2^b, every part a TF32 / BF16 value, hi + lo (+ mi) within 2^-22 / 2^-24 of the
// line maximum, and a Tensor Core step of hi x hi products (8 TF32, 16 BF16) an exact FP32 integer
// of grid units. Lines from 2^-100 to 2^120 and 24 binades below a line's maximum.
TEST(SplitAligned, Tf32AndBf16PartsSitOnTheLineGridAndRecombineWithinTheirBound) {
  struct Case {
    SchemeKind kind;
    int grid_bits, err_bits, step;
    float (*round)(float);
  };
  const Case cases[] = {{SchemeKind::tf32x2_aligned, split::kAlignedGridBitsTf32, 22, 8, bits::to_tf32_rn},
                        {SchemeKind::bf16x3_aligned, split::kAlignedGridBitsBf16, 24, 16, bits::to_bf16_rn}};
  for (const Case& c : cases) {
    SCOPED_TRACE(scheme_of(c.kind).name);
    EXPECT_EQ(split::aligned_scale_exp(c.kind, 1e10), 0);
    std::mt19937 gen(11);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int scale : {-100, -7, 0, 30, 120}) {
      const int len = 64;
      for (int below : {0, 1, 5, 12, 24}) {  // the line's elements lie `below` binades under its max
        std::vector<float> x(len);
        for (int j = 0; j < len; ++j) x[j] = float(std::ldexp(u(gen), scale - (j == 0 ? 0 : below)));
        x[0] = float(std::ldexp(0.999, scale));  // the line's maximum
        const int e = split::ozaki_line_exponent(std::fabs(double(x[0])));
        const double unit = std::ldexp(1.0, e - c.grid_bits);
        std::vector<double> h(len);
        for (int j = 0; j < len; ++j) {
          const split::Parts p = split::split_aligned(c.kind, x[j], 0, e);
          for (float v : p.p) ASSERT_EQ(c.round(v), v) << "a part is not a value of the part format";
          h[j] = double(p.p[0]) / unit;
          ASSERT_EQ(h[j], std::nearbyint(h[j])) << "hi off the grid, scale " << scale;
          ASSERT_LE(std::fabs(h[j]), std::ldexp(1.0, c.grid_bits));
          const double err = std::fabs(double(p.p[0]) + double(p.p[1]) + double(p.p[2]) - double(x[j]));
          ASSERT_LE(err, std::ldexp(1.0, e - c.err_bits)) << "scale " << scale << " x " << x[j];
          if (below == 0 && j == 0) EXPECT_LE(err, std::ldexp(std::fabs(double(x[j])), -c.err_bits));
        }
        for (int j0 = 0; j0 < len; j0 += c.step) {
          double s = 0;
          for (int j = j0; j < j0 + c.step; ++j) s += h[j] * h[(j + 7) % len];
          EXPECT_LT(std::fabs(s), std::ldexp(1.0, 24));
          EXPECT_EQ(double(float(s)), s);
        }
      }
    }
  }
}

// Their range rule: the standard scheme's bounds on the operand maximum and on every line maximum,
// then the spread rule (5 bits, as fp16x2-aligned), which the standard schemes do not have.
TEST(SplitAligned, Tf32AndBf16RangeCheckKeepsTheStandardBoundsAndAddsTheSpreadRule) {
  for (auto [kind, plain, spread] : {std::tuple{SchemeKind::tf32x2_aligned, SchemeKind::tf32x2, 5.0},
                                     std::tuple{SchemeKind::bf16x3_aligned, SchemeKind::bf16x3, 5.0}}) {
    const Scheme s = scheme_of(kind), std_scheme = scheme_of(plain);
    SCOPED_TRACE(s.name);
    EXPECT_TRUE(s.is_line_aligned());
    EXPECT_TRUE(s.meets(Target::fp32));
    EXPECT_EQ(s.groups[0].products.size(), 1u);  // hi x hi alone: its chains stay exact
    RangeProfile p;
    p.max_abs = 3.0;
    p.min_line_max = 1e-20;
    p.max_line_spread_nonzero_bits = spread - 0.5;
    EXPECT_EQ(range_violation(s, p), "");
    p.max_line_spread_nonzero_bits = spread + 0.5;
    EXPECT_NE(range_violation(s, p).find("nonzero |x|"), std::string::npos) << range_violation(s, p);
    EXPECT_EQ(range_violation(std_scheme, p), "");
    p.max_line_spread_nonzero_bits = 1.0;
    p.min_line_max = std::ldexp(1.0, s.min_exp - 1);
    EXPECT_NE(range_violation(s, p).find("full-precision range"), std::string::npos) << range_violation(s, p);
    p.min_line_max = 1.0;
    p.max_abs = 3.402e38;
    EXPECT_NE(range_violation(s, p).find("overflows"), std::string::npos) << range_violation(s, p);
  }
}
