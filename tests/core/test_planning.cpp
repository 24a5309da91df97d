// The planning step's execution decisions (tcemu/planning.hpp) and the execution plan the host backend
// reports (GemmReport::plan.execution): orientation by block tiles, fused or multi-pass from a calibrated
// model, the overlap rule, the host's stage order. Host only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tcemu/error.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/planning.hpp"
#include "tcemu/random.hpp"

using namespace tcemu;

namespace {

std::int64_t tiles(std::int64_t rows, std::int64_t cols, BlockTile t) {
  return ((rows + t.rows - 1) / t.rows) * ((cols + t.cols - 1) / t.cols);
}

// knn's distance GEMM: 1,024 queries x 60,000 train, C row-major. On 128 x 192 tiles the swapped
// problem (60,000 x 1,024) leaves part of a sixth tile column idle; C as is divides better.
TEST(Planning, KnnShapeKeepsCAsIsOnWideTiles) {
  const BlockTile wide{128, 192};
  const std::int64_t m = 1024, n = 60000;
  const Orientation o = orientation_for_tiles(m, n, /*c_row_major=*/true, wide);
  ASSERT_LT(tiles(m, n, wide), tiles(n, m, wide));
  EXPECT_FALSE(o.swapped);
  EXPECT_EQ(o.tiles, tiles(m, n, wide));
  EXPECT_EQ(o.tiles_other, tiles(n, m, wide));
  EXPECT_NE(o.reason.find(std::to_string(o.tiles)), std::string::npos) << o.reason;
  EXPECT_NE(o.reason.find(std::to_string(o.tiles_other)), std::string::npos) << o.reason;
}

TEST(Planning, SquareTilesTieAndFollowCsLayout) {
  const BlockTile square{128, 128};
  for (const bool row_major : {false, true}) {
    const Orientation o = orientation_for_tiles(1024, 60000, row_major, square);
    EXPECT_EQ(tiles(1024, 60000, square), tiles(60000, 1024, square));
    EXPECT_EQ(o.swapped, row_major);
    EXPECT_EQ(o.swapped, orientation_for_layout(row_major).swapped);
  }
}

TEST(Planning, ColumnMajorCSwapsWhenThatWastesFewerTiles) {
  const BlockTile wide{128, 192};
  const std::int64_t m = 60000, n = 1024;  // the swapped knn problem, now with a column-major C
  ASSERT_LT(tiles(n, m, wide), tiles(m, n, wide));
  const Orientation o = orientation_for_tiles(m, n, /*c_row_major=*/false, wide);
  EXPECT_TRUE(o.swapped);
  EXPECT_EQ(o.tiles, tiles(n, m, wide));
}

TEST(Planning, OrientationRejectsEmptyTiles) {
  EXPECT_THROW(orientation_for_tiles(10, 10, false, BlockTile{0, 128}), InvalidArgument);
  EXPECT_THROW(orientation_for_tiles(0, 10, false, BlockTile{128, 128}), InvalidArgument);
}

TEST(Planning, LayoutOrientationSwapsExactlyForRowMajorC) {
  EXPECT_TRUE(orientation_for_layout(true).swapped);
  EXPECT_FALSE(orientation_for_layout(false).swapped);
}

CostModel model_with(const Scheme& s, bool reads_c, double fused, double multipass) {
  CostModel m = CostModel::h200_anchors();
  m.implementation_timings.push_back(ImplementationTiming{s.kind, reads_c, 8192, 8192, 1024, fused, multipass});
  return m;
}

TEST(Planning, AutomaticPicksTheImplementationMeasuredFasterPerShapeClass) {
  const Scheme s = parse_scheme("fp16x2");
  // Multi-pass measured faster with beta != 0, fused with beta = 0 (hplai's trailing updates against
  // a plain product).
  CostModel m = model_with(s, /*reads_c=*/true, 2e-3, 1e-3);
  m.implementation_timings.push_back(ImplementationTiming{s.kind, false, 8192, 8192, 1024, 1e-3, 2e-3});
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::automatic, true, &m).implementation,
            Implementation::multipass);
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::automatic, false, &m).implementation,
            Implementation::fused);
  const ImplementationChoice c = choose_split_implementation(s, true, CudaKernels::automatic, true, &m);
  EXPECT_NE(c.reason.find("calibrated"), std::string::npos) << c.reason;
}

TEST(Planning, ExplicitPolicyForcesAndMissingTimingsMeanFused) {
  const Scheme s = parse_scheme("fp16x2");
  const CostModel m = model_with(s, true, 2e-3, 1e-3);  // multi-pass faster
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::fused, true, &m).implementation, Implementation::fused);
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::multipass, false, &m).implementation,
            Implementation::multipass);
  // No timing for this class, or no model: fused.
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::automatic, false, &m).implementation,
            Implementation::fused);
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::automatic, true, nullptr).implementation,
            Implementation::fused);
  // Another scheme's timing does not apply.
  EXPECT_EQ(choose_split_implementation(parse_scheme("bf16x3"), true, CudaKernels::automatic, true, &m).implementation,
            Implementation::fused);
  // No fused kernel: multi-pass whatever the policy says.
  EXPECT_EQ(choose_split_implementation(s, false, CudaKernels::fused, false, &m).implementation,
            Implementation::multipass);
}

TEST(Planning, OverlapRunsProductsEarlyOnlyWhenAFallbackCanUndoThem) {
  EXPECT_FALSE(products_before_planning(Overlap::none, false, false));
  EXPECT_TRUE(products_before_planning(Overlap::products_while_planning, false, true));   // into accumulators
  EXPECT_TRUE(products_before_planning(Overlap::products_while_planning, true, false));   // C not read
  EXPECT_FALSE(products_before_planning(Overlap::products_while_planning, true, true));   // C read and written
}

TEST(Planning, OverlapNamesParseBothWays) {
  for (const Overlap o : {Overlap::none, Overlap::products_while_planning})
    EXPECT_EQ(parse_overlap(to_string(o)), o);
  EXPECT_EQ(parse_overlap(""), ExecutionPolicy{}.overlap);
  EXPECT_THROW(parse_overlap("sometimes"), InvalidArgument);
}

TEST(Planning, OrientationPolicyNamesParseBothWays) {
  for (const OrientationPolicy o : {OrientationPolicy::tiles, OrientationPolicy::layout})
    EXPECT_EQ(parse_orientation_policy(to_string(o)), o);
  EXPECT_EQ(parse_orientation_policy(""), ExecutionPolicy{}.orientation);
  EXPECT_THROW(parse_orientation_policy("sideways"), InvalidArgument);
}

TEST(CostModelText, ImplementationTimingsRoundTripAndAreChecked) {
  const Scheme s = parse_scheme("tf32x2");
  CostModel m = model_with(s, true, 3e-3, 2.5e-3);
  m.measured.push_back(MeasuredCost{s.kind, Target::fp32, {1e-5, 0, 1e-12, 1e-12, 1e-14}, 5, 0.01});
  const CostModel back = CostModel::from_text(m.to_text(), "t");
  ASSERT_EQ(back.implementation_timings.size(), 1u);
  const ImplementationTiming* t = back.find_implementation_timing(s.kind, true);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->fused_seconds, 3e-3);
  EXPECT_EQ(t->multipass_seconds, 2.5e-3);
  EXPECT_EQ(back.find_implementation_timing(s.kind, false), nullptr);
  std::string bad = m.to_text();
  bad.replace(bad.find("reads-c"), 7, "maybe");
  EXPECT_THROW(CostModel::from_text(bad, "t"), InvalidArgument);
}

// The host executor runs plan -> split -> products -> combine and says so in the report.
TEST(Planning, HostReportCarriesTheExecutionPlanVerbatim) {
  const std::int64_t m = 19, n = 23, k = 31;
  std::vector<float> A(m * k), B(k * n), C(m * n);
  fill_random(row_major(A.data(), m, k), Distribution{}, 1);
  fill_random(row_major(B.data(), k, n), Distribution{}, 2);
  GemmOptions o;
  o.scheme = parse_scheme("fp16x2");
  const GemmReport r = gemm_host<float>(Op::N, Op::N, 1.f, row_major<const float>(A.data(), m, k),
                                        row_major<const float>(B.data(), k, n), 0.f, row_major(C.data(), m, n), o);
  const ExecutionPlan& e = r.plan.execution;
  EXPECT_EQ(e.scheme, "fp16x2");
  EXPECT_EQ(e.implementation, Implementation::multipass);
  EXPECT_FALSE(e.swapped);
  const std::vector<Stage> order = {Stage::plan, Stage::split, Stage::products, Stage::combine};
  EXPECT_EQ(e.stages, order);
  EXPECT_NE(e.explain().find("plan -> split -> products -> combine"), std::string::npos) << e.explain();
  EXPECT_NE(r.plan.explain().find(e.explain()), std::string::npos) << r.plan.explain();

  o.scheme = parse_scheme("int8-ozaki:5");
  const GemmReport z = gemm_host<float>(Op::N, Op::N, 1.f, row_major<const float>(A.data(), m, k),
                                        row_major<const float>(B.data(), k, n), 0.f, row_major(C.data(), m, n), o);
  EXPECT_EQ(z.plan.execution.implementation, Implementation::int_slices);
  EXPECT_EQ(z.plan.execution.slices, 5);
}

}  // namespace
