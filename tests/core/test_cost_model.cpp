// Measured cost models (select.hpp): the fit, the text form of the calibration cache, and `auto`
// deciding by measured costs. Host only: nothing here measures or needs a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tcemu/error.hpp"
#include "tcemu/random.hpp"
#include "tcemu/range_profile.hpp"
#include "tcemu/select.hpp"

using namespace tcemu;

namespace {

struct Shape {
  std::int64_t m, n, k;
};
const std::vector<Shape> kShapes = {{256, 256, 256},   {1024, 1024, 1024}, {4096, 4096, 4096},
                                    {8192, 8192, 64},  {32768, 64, 2048},  {16384, 1024, 784}};

/// Samples of `s` whose times follow `coef` exactly.
std::vector<CostSample> exact_samples(const Scheme& s, const std::array<double, kCostFeatures>& coef) {
  std::vector<CostSample> out;
  for (const Shape& sh : kShapes) {
    const auto f = cost_features(s, sh.m, sh.n, sh.k);
    double t = 0;
    for (int i = 0; i < kCostFeatures; ++i) t += coef[i] * f[i];
    out.push_back({s, sh.m, sh.n, sh.k, t, s.target});
  }
  return out;
}

RangeProfile uniform_profile(std::int64_t rows, std::int64_t cols, Side side, std::uint64_t seed) {
  std::vector<float> v(rows * cols);
  fill_random(row_major(v.data(), rows, cols), Distribution{}, seed);
  return profile_host<float>(row_major<const float>(v.data(), rows, cols), side);
}

/// A measured model in which fp16x2 is slow at small k and fast at large k (fixed and split costs
/// high, products cheap), native fp32 the opposite.
CostModel toy_model() {
  CostModel m = CostModel::h200_anchors();
  m.device = "toy GPU (measured)";
  auto add = [&](const Scheme& s, std::array<double, kCostFeatures> c) {
    auto smp = exact_samples(s, c);
    m.measured.push_back(fit_measured_cost(smp));
    m.samples.insert(m.samples.end(), smp.begin(), smp.end());
  };
  add(parse_scheme("fp32"), {10e-6, 0, 0, 2e-12, 1.0 / 25e12});
  add(parse_scheme("fp16x2"), {40e-6, 0, 4e-12, 6e-12, 1.0 / 120e12});
  // Every other scheme auto may pick is measured too (slower than both), as in a calibration.
  add(parse_scheme("fp64"), {10e-6, 0, 0, 4e-12, 1.0 / 20e12});
  for (const char* n : {"tf32x2", "bf16x3", "bf16x9"}) add(parse_scheme(n), {50e-6, 0, 8e-12, 8e-12, 1.0 / 60e12});
  std::vector<CostSample> oz;
  for (int s : {4, 7}) {
    const auto v = exact_samples(ozaki_scheme(s, Target::fp32), {50e-6, 5e-6, 4e-12, 4e-12, 1.0 / 200e12});
    oz.insert(oz.end(), v.begin(), v.end());
  }
  m.measured.push_back(fit_measured_cost(oz));
  m.samples.insert(m.samples.end(), oz.begin(), oz.end());
  return m;
}

}  // namespace

TEST(CostModel, FeaturesScaleWithOzakiSlices) {
  const auto f1 = cost_features(ozaki_scheme(4, Target::fp64), 10, 20, 30);
  const auto f2 = cost_features(ozaki_scheme(8, Target::fp64), 10, 20, 30);
  EXPECT_EQ(f1[0], 1.0);
  EXPECT_EQ(f1[1], 4.0);
  EXPECT_EQ(f2[2], 2 * f1[2]);                // operand elements x s
  EXPECT_EQ(f2[4], f1[4] * 36.0 / 10.0);      // mnk x s(s+1)/2
  const auto g = cost_features(parse_scheme("fp16x2"), 10, 20, 30);
  EXPECT_EQ(g[1], 0.0);
  EXPECT_EQ(g[2], 10.0 * 30 + 30.0 * 20);
  EXPECT_EQ(g[3], 200.0);
  EXPECT_EQ(g[4], 6000.0);
  // Symmetric in m and n: C's orientation does not change a prediction.
  EXPECT_EQ(cost_features(parse_scheme("tf32x2"), 7, 9, 11), cost_features(parse_scheme("tf32x2"), 9, 7, 11));
}

TEST(CostModel, FitRecoversExactCoefficients) {
  const std::array<double, kCostFeatures> c = {20e-6, 0, 3e-12, 5e-12, 1.0 / 200e12};
  const MeasuredCost m = fit_measured_cost(exact_samples(parse_scheme("bf16x3"), c));
  EXPECT_EQ(m.kind, SchemeKind::bf16x3);
  EXPECT_EQ(m.points, 6);
  EXPECT_LT(m.fit_error, 1e-9);
  for (int i = 0; i < kCostFeatures; ++i) EXPECT_NEAR(m.coef[i], c[i], 1e-6 * std::fabs(c[i]) + 1e-20) << i;
  // Ozaki: the per-slice term is fitted too when several slice counts are measured.
  std::vector<CostSample> oz;
  const std::array<double, kCostFeatures> co = {15e-6, 4e-6, 2e-12, 3e-12, 1.0 / 600e12};
  for (int s : {6, 8, 11}) {
    const auto v = exact_samples(ozaki_scheme(s, Target::fp64), co);
    oz.insert(oz.end(), v.begin(), v.end());
  }
  const MeasuredCost mo = fit_measured_cost(oz);
  EXPECT_LT(mo.fit_error, 1e-9);
  EXPECT_NEAR(mo.coef[1], co[1], 1e-6 * co[1]);
}

TEST(CostModel, FitNeverReturnsNegativeCoefficients) {
  // Times that a free least-squares fit would explain with a negative fixed cost.
  std::vector<CostSample> v = exact_samples(parse_scheme("tf32x2"), {0, 0, 0, 0, 1.0 / 100e12});
  v[0].seconds *= 0.3;  // the smallest shape "faster" than its flops allow
  const MeasuredCost m = fit_measured_cost(v);
  for (double c : m.coef) EXPECT_GE(c, 0.0);
  EXPECT_GT(m.fit_error, 0.1);
  EXPECT_THROW(fit_measured_cost({}), InvalidArgument);
  std::vector<CostSample> mixed = v;
  mixed.push_back({parse_scheme("fp32"), 64, 64, 64, 1e-5});
  EXPECT_THROW(fit_measured_cost(mixed), InvalidArgument);
}

TEST(CostModel, TextRoundTripAndCorruptFiles) {
  const CostModel m = toy_model();
  const std::string text = m.to_text();
  const CostModel r = CostModel::from_text(text, "cache.txt");
  EXPECT_EQ(r.device, m.device);
  ASSERT_EQ(r.measured.size(), m.measured.size());
  ASSERT_EQ(r.samples.size(), m.samples.size());
  for (std::size_t i = 0; i < m.measured.size(); ++i) {
    EXPECT_EQ(r.measured[i].kind, m.measured[i].kind);
    EXPECT_EQ(r.measured[i].coef, m.measured[i].coef);  // %.17g round-trips exactly
  }
  EXPECT_EQ(r.predict_seconds(parse_scheme("fp16x2"), 1000, 2000, 300),
            m.predict_seconds(parse_scheme("fp16x2"), 1000, 2000, 300));

  auto error_of = [](const std::string& t) -> std::string {
    try {
      CostModel::from_text(t, "cache.txt");
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "";
  };
  const std::string truncated = text.substr(0, text.find("end"));
  EXPECT_NE(error_of(truncated).find("cache.txt: truncated"), std::string::npos) << error_of(truncated);
  EXPECT_NE(error_of("").find("cache.txt"), std::string::npos);
  EXPECT_NE(error_of("garbage\n").find("cache.txt: line 1"), std::string::npos);
  std::string bad = text;
  bad.replace(bad.find("fit fp16x2"), 10, "fit fp17x2");
  EXPECT_NE(error_of(bad).find("fp17x2"), std::string::npos) << error_of(bad);
  // A negative coefficient (the first one after "fit fp32 fp32 <points> <fit error>").
  std::string negative = text;
  std::size_t pos = negative.find("fit fp32 fp32 ");
  ASSERT_NE(pos, std::string::npos);
  for (int spaces = 0; spaces < 5; ++pos)
    if (negative[pos] == ' ') ++spaces;
  negative.insert(pos, "-");
  EXPECT_NE(error_of(negative).find("line"), std::string::npos) << error_of(negative);
}

TEST(CostModel, AutoFollowsMeasuredCostsAndExplainsThem) {
  const CostModel m = toy_model();
  const auto a = uniform_profile(64, 64, Side::A, 1), b = uniform_profile(64, 64, Side::B, 2);
  // Large square: fp16x2's cheap products win.
  Plan big = plan(a, b, 8192, 8192, 8192, Target::fp32, m);
  EXPECT_EQ(big.chosen.name, "fp16x2");
  // Tiny k: fp16x2's fixed and split costs dominate, native fp32 wins.
  Plan small = plan(a, b, 256, 256, 64, Target::fp32, m);
  EXPECT_EQ(small.chosen.name, "fp32");
  const std::string text = big.explain();
  EXPECT_NE(text.find("toy GPU (measured)"), std::string::npos);
  EXPECT_NE(text.find("fit +-0%"), std::string::npos) << text;  // measured schemes
  EXPECT_NE(text.find("rates"), std::string::npos) << text;     // unmeasured ones (e.g. bf16)
  EXPECT_NE(text.find("pick: fp16x2 (predicted"), std::string::npos) << text;
  for (const Candidate& c : big.candidates) EXPECT_FALSE(c.cost_source.empty()) << c.scheme.name;
  // fp64 target: no fp64-target fit of int8-ozaki, so the fp32-target (float data) one serves.
  const Plan p64 = plan(a, b, 4096, 4096, 4096, Target::fp64, m);
  for (const Candidate& c : p64.candidates)
    if (c.scheme.kind == SchemeKind::int8_ozaki) EXPECT_NE(c.cost_source.find("other target"), std::string::npos) << p64.explain();
  // Models without measurements are unchanged.
  EXPECT_TRUE(CostModel::host().measured.empty());
  EXPECT_TRUE(CostModel::h200_anchors().measured.empty());
}

TEST(CostModel, OneFitPerTargetOfTheCall) {
  // Native fp64 is measured on float data for FP32-target calls and on double data for FP64-target
  // calls; each call target finds its own fit, and the text form keeps them apart.
  CostModel m = CostModel::h200_anchors();
  const Scheme fp64 = parse_scheme("fp64");
  auto on_float = exact_samples(fp64, {10e-6, 0, 1e-12, 1e-12, 1.0 / 50e12});
  for (auto& c : on_float) c.target = Target::fp32;
  const auto on_double = exact_samples(fp64, {10e-6, 0, 2e-12, 2e-12, 1.0 / 50e12});
  m.measured = {fit_measured_cost(on_float), fit_measured_cost(on_double)};
  EXPECT_EQ(m.measured[0].target, Target::fp32);
  EXPECT_EQ(m.measured[1].target, Target::fp64);
  const CostModel r = CostModel::from_text(m.to_text(), "x");
  const CostModel* models[] = {&m, &r};
  for (const CostModel* x : models) {
    EXPECT_EQ(x->find_measured(fp64, Target::fp32)->target, Target::fp32);
    EXPECT_EQ(x->find_measured(fp64, Target::fp64)->target, Target::fp64);
    EXPECT_LT(x->predict_seconds(fp64, 4096, 4096, 64, Target::fp32),
              x->predict_seconds(fp64, 4096, 4096, 64, Target::fp64));
  }
}

namespace {
// The GPU calibration times what the descriptors name (calibrate_fp32 / calibrate_fp64): native and
// the four FP32-accurate split schemes `auto` picks from, and two / three Ozaki slice counts for the
// per-slice cost term (int8-ozaki:6 is below FP64 accuracy and timed only for that fit).
TEST(CostModel, CalibrationSetComesFromTheDescriptors) {
  auto names = [](tcemu::Target t) {
    std::vector<std::string> out;
    for (const tcemu::Scheme& s : tcemu::calibration_schemes(t)) {
      EXPECT_FALSE(s.is_automatic());
      out.push_back(s.name);
    }
    return out;
  };
  EXPECT_EQ(names(tcemu::Target::fp32),
            (std::vector<std::string>{"fp64", "fp32", "fp16x2", "tf32x2", "bf16x3", "bf16x9", "int8-ozaki:4",
                                      "int8-ozaki:7"}));
  EXPECT_EQ(names(tcemu::Target::fp64),
            (std::vector<std::string>{"fp64", "int8-ozaki:6", "int8-ozaki:8", "int8-ozaki:11", "int8-crt:14",
                                      "int8-crt:20"}));
  for (const tcemu::Scheme& s : tcemu::calibration_schemes(tcemu::Target::fp64)) EXPECT_EQ(s.target, tcemu::Target::fp64) << s.name;
}
}  // namespace
