// GPU tests of the CUDA backend's planning step and executor: the orientation of the fused kernels by
// their block tiles, fused or multi-pass from a calibrated model, and the stage order of the overlap
// policies, each observed through GemmReport::plan.execution. Compiles to nothing without the CUDA
// backend; skips cleanly when no GPU is present.
#if defined(TCEMU_HAVE_CUDA)
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuda/kernels/fused.hpp"
#include "cuda_test_util.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/metrics.hpp"
#include "tcemu/planning.hpp"

namespace tcemu::test {
namespace {

/// The report and C of one device call C = A B + beta C with `o`.
struct DeviceRun {
  GemmReport report;
  std::vector<float> c;
};

DeviceRun product(DualMatrix<float>& A, DualMatrix<float>& B, DualMatrix<float>& C, float beta, const GemmOptions& o) {
  DeviceRun r;
  r.report = cuda::gemm_device<float>(Op::N, Op::N, 1.f, A.dev().as_const(), B.dev().as_const(), beta, C.dev(), o,
                                      nullptr, nullptr);
  r.c = C.download();
  return r;
}

double error_against_fp64(DualMatrix<float>& A, DualMatrix<float>& B, DualMatrix<float>& C) {
  const std::vector<double> R = reference_gemm_fp64<float>(Op::N, Op::N, A.host().as_const(), B.host().as_const());
  const std::vector<float> c = C.download();
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < C.rows; ++i)
    for (std::int64_t j = 0; j < C.cols; ++j) {
      const double d = double(c[i * C.rs + j * C.cs]) - R[i * C.cols + j];
      num += d * d;
      den += R[i * C.cols + j] * R[i * C.cols + j];
    }
  return std::sqrt(num / den);
}

const CostModel& no_timings() {
  static const CostModel m = CostModel::h200_anchors();
  return m;
}

// A row-major C whose block-tile arithmetic differs by orientation: the plan orients the fused kernel
// by its own tile (fused::block_tile), and the product is right either way.
TEST(CudaPlanning, FusedKernelIsOrientedByItsBlockTiles) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t m = 200, n = 1000, k = 96;
  DualMatrix<float> A(m, k, Layout::row), B(k, n, Layout::col), C(m, n, Layout::row);
  A.fill_and_upload("uniform", 11);
  B.fill_and_upload("uniform", 12);
  GemmOptions o;
  o.scheme = parse_scheme("fp16x2");
  o.cost_model = &no_timings();
  o.execution.orientation = OrientationPolicy::tiles;
  const DeviceRun r = product(A, B, C, 0.f, o);
  const ExecutionPlan& e = r.report.plan.execution;
  if (e.implementation != Implementation::fused) GTEST_SKIP() << "no fused kernel on this device";
  const BlockTile tile = cuda::detail::fused::block_tile(o.scheme, o.execution.fused_mma);
  const Orientation want = orientation_for_tiles(m, n, /*c_row_major=*/true, tile);
  EXPECT_EQ(e.swapped, want.swapped) << e.explain();
  EXPECT_EQ(e.orientation_reason, want.reason);
  EXPECT_LT(error_against_fp64(A, B, C), 1e-6);
  // OrientationPolicy::layout (the default) keeps C's layout (row-major: C^T).
  o.execution.orientation = ExecutionPolicy{}.orientation;
  EXPECT_TRUE(product(A, B, C, 0.f, o).report.plan.execution.swapped);
  EXPECT_LT(error_against_fp64(A, B, C), 1e-6);
  // Native arithmetic keeps the layout's orientation (cuBLAS writes a column-major result).
  o.scheme = parse_scheme("fp32");
  EXPECT_TRUE(product(A, B, C, 0.f, o).report.plan.execution.swapped);
}

// Fused or multi-pass per shape class from the model's ImplementationTiming entries.
TEST(CudaPlanning, AutomaticKernelsFollowTheCalibratedModelPerShapeClass) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t m = 130, n = 120, k = 70;
  DualMatrix<float> A(m, k, Layout::col), B(k, n, Layout::col), C(m, n, Layout::col);
  A.fill_and_upload("uniform", 21);
  B.fill_and_upload("uniform", 22);
  C.fill_and_upload("uniform", 23);
  GemmOptions o;
  o.scheme = parse_scheme("fp16x2");
  if (product(A, B, C, 0.f, o).report.plan.execution.implementation != Implementation::fused)
    GTEST_SKIP() << "no fused kernel on this device";
  CostModel model = CostModel::h200_anchors();
  model.implementation_timings = {{o.scheme.kind, false, ShapeClass::square, 8192, 8192, 1024, 1e-3, 2e-3},  // beta = 0: fused
                                  {o.scheme.kind, true, ShapeClass::square, 8192, 8192, 1024, 2e-3, 1e-3}};  // beta != 0: multi-pass
  o.cost_model = &model;
  EXPECT_EQ(product(A, B, C, 0.f, o).report.plan.execution.implementation, Implementation::fused);
  const DeviceRun read_c = product(A, B, C, 1.f, o);
  EXPECT_EQ(read_c.report.plan.execution.implementation, Implementation::multipass);
  EXPECT_EQ(read_c.report.kernels, "multi-pass (cuBLAS per group)");
  // An explicit policy still forces.
  o.execution.kernels = CudaKernels::fused;
  EXPECT_EQ(product(A, B, C, 1.f, o).report.plan.execution.implementation, Implementation::fused);
}

// The shape class is that of the problem as C's layout orients it, decided before the orientation:
// a 64 x 600 C is tall to the kernel when row-major (computed as C^T, 600 x 64) and wide when
// column-major, whichever orientation policy runs.
TEST(CudaPlanning, AutomaticKernelsFollowTheShapeClassOfTheLayoutOrientation) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t m = 64, n = 600, k = 70;
  ASSERT_EQ(implementation_shape_class(m, n, /*c_row_major=*/true), ShapeClass::tall);
  ASSERT_EQ(implementation_shape_class(m, n, /*c_row_major=*/false), ShapeClass::wide);
  GemmOptions o;
  o.scheme = parse_scheme("fp16x2");
  CostModel model = CostModel::h200_anchors();
  // Multi-pass measured faster on tall products only (knn's case); no timing for wide: fused.
  model.implementation_timings = {{o.scheme.kind, false, ShapeClass::square, 8192, 8192, 1024, 1e-3, 2e-3},
                                  {o.scheme.kind, false, ShapeClass::tall, 65536, 1024, 784, 2e-3, 1e-3}};
  o.cost_model = &model;
  for (const OrientationPolicy orientation : {OrientationPolicy::layout, OrientationPolicy::tiles}) {
    o.execution.orientation = orientation;
    DualMatrix<float> A(m, k, Layout::row), B(k, n, Layout::col);
    A.fill_and_upload("uniform", 41);
    B.fill_and_upload("uniform", 42);
    DualMatrix<float> C_row(m, n, Layout::row), C_col(m, n, Layout::col);
    const DeviceRun wide = product(A, B, C_col, 0.f, o);
    if (wide.report.plan.execution.implementation != Implementation::fused)
      GTEST_SKIP() << "no fused kernel on this device";
    EXPECT_NE(wide.report.plan.execution.implementation_reason.find("no calibrated timing for wide"), std::string::npos)
        << wide.report.plan.explain();
    const DeviceRun tall = product(A, B, C_row, 0.f, o);
    const ExecutionPlan& e = tall.report.plan.execution;
    EXPECT_EQ(e.implementation, Implementation::multipass) << e.explain();
    EXPECT_TRUE(e.swapped) << e.explain();  // multi-pass follows C's layout
    EXPECT_NE(e.implementation_reason.find(shape_class_rule(ShapeClass::tall)), std::string::npos) << e.explain();
    EXPECT_NE(tall.report.plan.explain().find("65536x1024x784"), std::string::npos) << tall.report.plan.explain();
    EXPECT_LT(error_against_fp64(A, B, C_row), 1e-5);
  }
}

// The overlap policies change the order of the stages, not what they compute.
TEST(CudaPlanning, OverlapPolicyOrdersTheStages) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t m = 77, n = 66, k = 55;
  DualMatrix<float> A(m, k, Layout::row), B(k, n, Layout::col), C(m, n, Layout::col);
  A.fill_and_upload("uniform", 31);
  B.fill_and_upload("uniform", 32);
  for (const CudaKernels kernels : {CudaKernels::fused, CudaKernels::multipass}) {
    GemmOptions o;
    o.scheme = parse_scheme("bf16x3");
    o.cost_model = &no_timings();
    o.execution.kernels = kernels;
    o.execution.direct_to_c = false;  // multi-pass into accumulators: a combine stage of its own
    const DeviceRun early = product(A, B, C, 0.f, o);
    o.execution.overlap = Overlap::none;
    const DeviceRun late = product(A, B, C, 0.f, o);
    const ExecutionPlan& e = early.report.plan.execution;
    SCOPED_TRACE(e.explain());
    std::vector<Stage> want_early = {Stage::split, Stage::products, Stage::plan};
    std::vector<Stage> want_late = {Stage::split, Stage::plan, Stage::products};
    if (e.implementation == Implementation::multipass) {
      want_early.push_back(Stage::combine);
      want_late.push_back(Stage::combine);
    }
    EXPECT_EQ(e.overlap, Overlap::products_while_planning);
    EXPECT_EQ(e.stages, want_early);
    EXPECT_EQ(late.report.plan.execution.overlap, Overlap::none);
    EXPECT_EQ(late.report.plan.execution.stages, want_late);
    EXPECT_EQ(early.c, late.c);  // the same launches, in another order
    EXPECT_GT(e.workspace_bytes, 0);
  }
}

// Products that write C wait for the plan when C is read (a fallback could not undo them).
TEST(CudaPlanning, FusedProductsWaitForThePlanWhenCIsRead) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t m = 40, n = 50, k = 60;
  DualMatrix<float> A(m, k, Layout::row), B(k, n, Layout::col), C(m, n, Layout::col);
  A.fill_and_upload("uniform", 41);
  B.fill_and_upload("uniform", 42);
  C.fill_and_upload("uniform", 43);
  GemmOptions o;
  o.scheme = parse_scheme("fp16x2");
  o.cost_model = &no_timings();
  const ExecutionPlan e = product(A, B, C, 1.f, o).report.plan.execution;
  if (e.implementation != Implementation::fused) GTEST_SKIP() << "no fused kernel on this device";
  const std::vector<Stage> want = {Stage::split, Stage::plan, Stage::products};
  EXPECT_EQ(e.stages, want) << e.explain();
}

}  // namespace
}  // namespace tcemu::test
#endif
