// Scheme catalogue parsing and `auto`'s decisions on crafted range cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tcemu/gemm.hpp"
#include "tcemu/random.hpp"
#include "tcemu/select.hpp"

using namespace tcemu;

namespace {
RangeProfile profile_of(std::vector<float> v, std::int64_t rows, std::int64_t cols, Side side) {
  return profile_host<float>(row_major<const float>(v.data(), rows, cols), side);
}
std::vector<float> uniform(std::int64_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  fill_random(row_major(v.data(), 1, n), Distribution{}, seed);
  return v;
}
}  // namespace

TEST(Scheme, ParsesEveryCatalogueNameAndRejectsUnknownOnes) {
  for (const auto& s : catalogue(Target::fp32)) EXPECT_EQ(parse_scheme(s.name).name, s.name);
  EXPECT_EQ(parse_scheme("int8-ozaki:9", Target::fp64).products, 45);
  EXPECT_EQ(parse_scheme("int8-ozaki:9", Target::fp64).target, Target::fp64);
  EXPECT_THROW(parse_scheme("int8-ozaki:19"), InvalidArgument);
  EXPECT_THROW(parse_scheme("int8-ozaki:x"), InvalidArgument);
  try {
    parse_scheme("fp17");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("fp17"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("fp16x2-legemm"), std::string::npos);  // lists valid names
  }
  // "all": the catalogue less the schemes that run only when named (int8-crt).
  const auto all = parse_scheme_list("all", Target::fp32);
  EXPECT_EQ(all.size(), catalogue(Target::fp32).size() - 1);
  for (const Scheme& s : all) EXPECT_NE(s.kind, SchemeKind::int8_crt);
  EXPECT_EQ(parse_scheme_list("fp32,bf16x3", Target::fp32).size(), 2u);
  EXPECT_THROW(parse_scheme_list(",", Target::fp32), InvalidArgument);
  EXPECT_THROW(parse_target("fp16"), InvalidArgument);
  const std::string table = catalogue_table(Target::fp32);
  for (const auto& s : catalogue(Target::fp32)) EXPECT_NE(table.find(s.name), std::string::npos);
  // Aligned columns: every row's source starts where the header's "source" does.
  const std::size_t col = table.find("source");
  std::size_t pos = table.find('\n') + 1;
  for (const auto& s : catalogue(Target::fp32)) {
    EXPECT_EQ(table.compare(pos + col, s.source.size(), s.source), 0) << s.name;
    pos = table.find('\n', pos) + 1;
  }
}

TEST(Scheme, AccuracyClasses) {
  EXPECT_TRUE(parse_scheme("fp16x2").meets(Target::fp32));
  EXPECT_TRUE(parse_scheme("bf16x3").meets(Target::fp32));
  EXPECT_FALSE(parse_scheme("fp16x2-markidis").meets(Target::fp32));
  EXPECT_FALSE(parse_scheme("bf16").meets(Target::fp32));
  EXPECT_FALSE(parse_scheme("bf16x9").meets(Target::fp64));
  EXPECT_TRUE(parse_scheme("int8-ozaki:8", Target::fp64).meets(Target::fp64));
  EXPECT_FALSE(parse_scheme("int8-ozaki:7", Target::fp64).meets(Target::fp64));
}

TEST(Select, OzakiSliceCountFollowsTheSpread) {
  const auto a = profile_of(uniform(64 * 64, 1), 64, 64, Side::A);
  const auto b = profile_of(uniform(64 * 64, 2), 64, 64, Side::B);
  EXPECT_EQ(ozaki_slices_for(Target::fp64, a, b), 8);  // 53 + 1 + ~1 bits of spread -> 56
  EXPECT_EQ(ozaki_slices_for(Target::fp32, a, b), 4);
  RangeProfile wide = a;
  wide.max_line_spread_bits = 80;
  EXPECT_EQ(ozaki_slices_for(Target::fp64, wide, b), 0);
  wide.max_line_spread_bits = 12.5;
  EXPECT_EQ(ozaki_slices_for(Target::fp64, wide, b), 10);  // 53 + 1 + 13 = 67 bits -> 10 slices
}

TEST(Select, AutoOnH200PicksFastestInRangeScheme) {
  const auto model = CostModel::h200_anchors();
  const std::int64_t n = 4096;
  auto a = profile_of(uniform(64 * 64, 1), 64, 64, Side::A);
  auto b = profile_of(uniform(64 * 64, 2), 64, 64, Side::B);
  // uniform(-1,1): fp16x2 (3 FP16 products) is the fastest FP32-accurate scheme.
  Plan p = plan(a, b, n, n, n, Target::fp32, model);
  EXPECT_EQ(p.chosen.name, "fp16x2");
  // A value of 1e6 leaves fp16x2's range: a scheme with an 8-bit exponent takes over.
  a.max_abs = 1e6;
  p = plan(a, b, n, n, n, Target::fp32, model);
  EXPECT_TRUE(p.chosen.name == "tf32x2" || p.chosen.name == "bf16x3") << p.chosen.name;
  for (const auto& c : p.candidates)
    if (c.scheme.name == "fp16x2") EXPECT_NE(c.reason.find("overflows"), std::string::npos) << c.reason;
  // A whole row far below the FP16 range: fp16x2 is out for accuracy reasons.
  a.max_abs = 0.9;
  a.min_line_max = 1e-7;
  p = plan(a, b, n, n, n, Target::fp32, model);
  EXPECT_NE(p.chosen.name, "fp16x2");
  // Inf/NaN: only native arithmetic (on an H200 DGEMM is even a little faster than SGEMM).
  a.nonfinite = 3;
  p = plan(a, b, n, n, n, Target::fp32, model);
  EXPECT_TRUE(p.chosen.is_native()) << p.chosen.name;
  EXPECT_NE(p.explain().find("pick: " + p.chosen.name), std::string::npos);
  EXPECT_EQ(plan(a, b, n, n, n, Target::fp32, CostModel::host()).chosen.name, "fp32");
}

TEST(Select, ChosenSchemeIsTheFastestEligibleCandidate) {
  const auto model = CostModel::h200_anchors();
  auto a = profile_of(uniform(32 * 32, 3), 32, 32, Side::A);
  auto b = profile_of(uniform(32 * 32, 4), 32, 32, Side::B);
  for (Target t : {Target::fp32, Target::fp64}) {
    const Plan p = plan(a, b, 8192, 8192, 8192, t, model);
    double best = std::numeric_limits<double>::infinity();
    for (const auto& c : p.candidates)
      if (c.eligible) best = std::min(best, c.predicted_seconds);
    EXPECT_EQ(model.predict_seconds(p.chosen, 8192, 8192, 8192), best);
    EXPECT_TRUE(p.chosen.meets(t));
  }
}

TEST(Select, Fp64TargetDependsOnTheDevicesFp64Rate) {
  auto a = profile_of(uniform(32 * 32, 3), 32, 32, Side::A);
  auto b = profile_of(uniform(32 * 32, 4), 32, 32, Side::B);
  // On an H200 native DGEMM (56 TFLOP/s) beats 36 INT8 products at 1431 TOP/s.
  EXPECT_EQ(plan(a, b, 8192, 8192, 8192, Target::fp64, CostModel::h200_anchors()).chosen.name, "fp64");
  // On a GPU with weak FP64 (a consumer card, ~1 TFLOP/s) the Ozaki scheme wins.
  CostModel weak = CostModel::h200_anchors();
  weak.tflops_fp64 = 1.0;
  EXPECT_EQ(plan(a, b, 8192, 8192, 8192, Target::fp64, weak).chosen.name, "int8-ozaki:8");
  // The host cost model never prefers emulation.
  EXPECT_EQ(plan(a, b, 512, 512, 512, Target::fp32, CostModel::host()).chosen.name, "fp32");
}

TEST(Select, GemmWithAutoReportsThePlan) {
  std::vector<float> A = uniform(20 * 30, 1), B = uniform(30 * 10, 2), C(20 * 10);
  GemmOptions o;
  o.scheme = parse_scheme("auto");
  const CostModel model = CostModel::h200_anchors();
  o.cost_model = &model;
  const auto rep = gemm_host<float>(Op::N, Op::N, 1.0f, row_major<const float>(A.data(), 20, 30),
                                    row_major<const float>(B.data(), 30, 10), 0.0f,
                                    row_major(C.data(), 20, 10), o);
  EXPECT_EQ(rep.requested.name, "auto");
  EXPECT_EQ(rep.used.name, rep.plan.chosen.name);
  ASSERT_FALSE(rep.plan.candidates.empty());
  bool chosen_is_eligible = false;
  for (const auto& c : rep.plan.candidates)
    chosen_is_eligible |= c.eligible && c.scheme.name == rep.used.name;
  EXPECT_TRUE(chosen_is_eligible);
}
