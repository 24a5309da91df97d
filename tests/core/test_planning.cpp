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

// The shape classes at and around their boundaries (n <= 2048 and m >= 8 n: tall; the transpose: wide).
TEST(Planning, ShapeClassBoundaries) {
  const std::int64_t narrow = kShapeClassNarrow, ratio = kShapeClassRatio;
  EXPECT_EQ(shape_class(60000, 1024), ShapeClass::tall);  // knn's distance GEMM as the kernel sees it
  EXPECT_EQ(shape_class(1024, 60000), ShapeClass::wide);
  EXPECT_EQ(shape_class(8192, 8192), ShapeClass::square);
  // Ratio boundary: exactly ratio x the narrow side is tall / wide, one less is square.
  EXPECT_EQ(shape_class(ratio * 1024, 1024), ShapeClass::tall);
  EXPECT_EQ(shape_class(ratio * 1024 - 1, 1024), ShapeClass::square);
  EXPECT_EQ(shape_class(1024, ratio * 1024), ShapeClass::wide);
  EXPECT_EQ(shape_class(1024, ratio * 1024 - 1), ShapeClass::square);
  // Narrow boundary: a narrow side of exactly `narrow` qualifies, one more does not, whatever the ratio.
  EXPECT_EQ(shape_class(ratio * narrow, narrow), ShapeClass::tall);
  EXPECT_EQ(shape_class(1000 * narrow, narrow + 1), ShapeClass::square);
  EXPECT_EQ(shape_class(narrow, ratio * narrow), ShapeClass::wide);
  EXPECT_EQ(shape_class(narrow + 1, 1000 * narrow), ShapeClass::square);
  // Degenerate sides: a single column or row is tall / wide once the other side is long enough.
  EXPECT_EQ(shape_class(ratio, 1), ShapeClass::tall);
  EXPECT_EQ(shape_class(1, ratio), ShapeClass::wide);
  EXPECT_EQ(shape_class(1, 1), ShapeClass::square);
  EXPECT_EQ(shape_class(0, 5000), ShapeClass::square);
  EXPECT_EQ(shape_class(5000, -1), ShapeClass::square);
}

TEST(Planning, ShapeClassNamesParseBothWays) {
  for (const ShapeClass c : {ShapeClass::square, ShapeClass::tall, ShapeClass::wide}) {
    EXPECT_EQ(parse_shape_class(to_string(c)), c);
    EXPECT_NE(shape_class_rule(c).find(to_string(c)), std::string::npos);
  }
  EXPECT_THROW(parse_shape_class("skinny"), InvalidArgument);
  EXPECT_THROW(parse_shape_class(""), InvalidArgument);
}

// The class is that of the problem as C's layout orients it: a row-major C is computed as C^T.
TEST(Planning, ImplementationShapeClassFollowsTheLayoutOrientation) {
  // knn: 1,024 queries x 60,000 train, C row-major -> the kernel sees 60,000 x 1,024.
  EXPECT_EQ(implementation_shape_class(1024, 60000, /*c_row_major=*/true), ShapeClass::tall);
  EXPECT_EQ(implementation_shape_class(1024, 60000, /*c_row_major=*/false), ShapeClass::wide);
  EXPECT_EQ(implementation_shape_class(70000, 1024, /*c_row_major=*/false), ShapeClass::tall);
  EXPECT_EQ(implementation_shape_class(70000, 1024, /*c_row_major=*/true), ShapeClass::wide);
  for (const bool row_major : {false, true})
    EXPECT_EQ(implementation_shape_class(4096, 4096, row_major), ShapeClass::square);
}

ImplementationTiming timing(const Scheme& s, bool reads_c, ShapeClass shape, double fused, double multipass) {
  const std::int64_t m = shape == ShapeClass::wide ? 1024 : shape == ShapeClass::tall ? 65536 : 8192;
  const std::int64_t n = shape == ShapeClass::wide ? 65536 : shape == ShapeClass::tall ? 1024 : 8192;
  return ImplementationTiming{s.kind, reads_c, shape, m, n, shape == ShapeClass::square ? 1024 : 784, fused, multipass};
}

CostModel model_with(const Scheme& s, bool reads_c, double fused, double multipass) {
  CostModel m = CostModel::h200_anchors();
  m.implementation_timings.push_back(timing(s, reads_c, ShapeClass::square, fused, multipass));
  return m;
}

TEST(Planning, AutomaticPicksTheImplementationMeasuredFasterPerBetaClass) {
  const Scheme s = parse_scheme("fp16x2");
  // Multi-pass measured faster with beta != 0, fused with beta = 0 (hplai's trailing updates against
  // a plain product).
  CostModel m = model_with(s, /*reads_c=*/true, 2e-3, 1e-3);
  m.implementation_timings.push_back(timing(s, false, ShapeClass::square, 1e-3, 2e-3));
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::automatic, true, ShapeClass::square, &m).implementation,
            Implementation::multipass);
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::automatic, false, ShapeClass::square, &m).implementation,
            Implementation::fused);
  const ImplementationChoice c = choose_split_implementation(s, true, CudaKernels::automatic, true, ShapeClass::square, &m);
  EXPECT_NE(c.reason.find("calibrated"), std::string::npos) << c.reason;
}

// knn's case: fp16x2 multi-pass measured faster on tall products only; square and wide stay fused,
// and a class without a timing is fused.
TEST(Planning, AutomaticPicksPerShapeClassAndNamesTheClassAndTimes) {
  const Scheme s = parse_scheme("fp16x2");
  CostModel m = CostModel::h200_anchors();
  m.implementation_timings = {timing(s, false, ShapeClass::square, 5.0e-3, 5.2e-3),
                              timing(s, false, ShapeClass::tall, 0.971e-3, 0.938e-3),
                              timing(s, false, ShapeClass::wide, 0.758e-3, 0.794e-3)};
  auto pick = [&](ShapeClass shape, bool reads_c) {
    return choose_split_implementation(s, true, CudaKernels::automatic, reads_c, shape, &m);
  };
  EXPECT_EQ(pick(ShapeClass::tall, false).implementation, Implementation::multipass);
  EXPECT_EQ(pick(ShapeClass::square, false).implementation, Implementation::fused);
  EXPECT_EQ(pick(ShapeClass::wide, false).implementation, Implementation::fused);
  EXPECT_EQ(pick(ShapeClass::tall, true).implementation, Implementation::fused);  // no beta != 0 timing
  const std::string tall = pick(ShapeClass::tall, false).reason;
  EXPECT_NE(tall.find(shape_class_rule(ShapeClass::tall)), std::string::npos) << tall;
  EXPECT_NE(tall.find("65536x1024x784"), std::string::npos) << tall;
  EXPECT_NE(tall.find("0.971"), std::string::npos) << tall;
  EXPECT_NE(tall.find("0.938"), std::string::npos) << tall;
  const std::string missing = pick(ShapeClass::tall, true).reason;
  EXPECT_NE(missing.find("no calibrated timing"), std::string::npos) << missing;
  EXPECT_NE(missing.find(shape_class_rule(ShapeClass::tall)), std::string::npos) << missing;
  // Another scheme's tall timing does not apply.
  EXPECT_EQ(choose_split_implementation(parse_scheme("tf32x2"), true, CudaKernels::automatic, false, ShapeClass::tall, &m)
                .implementation,
            Implementation::fused);
  // A tie goes to fused.
  m.implementation_timings[1].multipass_seconds = m.implementation_timings[1].fused_seconds;
  EXPECT_EQ(pick(ShapeClass::tall, false).implementation, Implementation::fused);
}

TEST(Planning, ExplicitPolicyForcesAndMissingTimingsMeanFused) {
  const Scheme s = parse_scheme("fp16x2");
  const CostModel m = model_with(s, true, 2e-3, 1e-3);  // multi-pass faster
  const ShapeClass sq = ShapeClass::square;
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::fused, true, sq, &m).implementation, Implementation::fused);
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::multipass, false, sq, &m).implementation,
            Implementation::multipass);
  // No timing for this class, or no model: fused.
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::automatic, false, sq, &m).implementation,
            Implementation::fused);
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::automatic, true, ShapeClass::wide, &m).implementation,
            Implementation::fused);
  EXPECT_EQ(choose_split_implementation(s, true, CudaKernels::automatic, true, sq, nullptr).implementation,
            Implementation::fused);
  // Another scheme's timing does not apply.
  EXPECT_EQ(choose_split_implementation(parse_scheme("bf16x3"), true, CudaKernels::automatic, true, sq, &m).implementation,
            Implementation::fused);
  // No fused kernel: multi-pass whatever the policy says.
  EXPECT_EQ(choose_split_implementation(s, false, CudaKernels::fused, false, sq, &m).implementation,
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
  m.implementation_timings.push_back(timing(s, false, ShapeClass::tall, 1.367e-3, 1.538e-3));
  m.implementation_timings.push_back(timing(s, true, ShapeClass::wide, 1.068e-3, 1.446e-3));
  m.measured.push_back(MeasuredCost{s.kind, Target::fp32, {1e-5, 0, 1e-12, 1e-12, 1e-14}, 5, 0.01});
  const std::string text = m.to_text();
  const CostModel back = CostModel::from_text(text, "t");
  ASSERT_EQ(back.implementation_timings.size(), m.implementation_timings.size());
  for (const ImplementationTiming& want : m.implementation_timings) {
    const ImplementationTiming* t = back.find_implementation_timing(s.kind, want.reads_c, want.shape);
    ASSERT_NE(t, nullptr) << to_string(want.shape);
    EXPECT_EQ(t->shape, want.shape);
    EXPECT_EQ(t->m, want.m);
    EXPECT_EQ(t->n, want.n);
    EXPECT_EQ(t->k, want.k);
    EXPECT_EQ(t->fused_seconds, want.fused_seconds);  // %.17g round-trips exactly
    EXPECT_EQ(t->multipass_seconds, want.multipass_seconds);
  }
  EXPECT_EQ(back.find_implementation_timing(s.kind, false, ShapeClass::square), nullptr);
  EXPECT_EQ(back.find_implementation_timing(s.kind, true, ShapeClass::tall), nullptr);

  // Malformed `impl` lines, each rejected with its line number.
  const std::string tall_line = text.substr(text.find("impl tf32x2 beta0 tall"));
  const std::string line = tall_line.substr(0, tall_line.find('\n'));
  auto with_line = [&](const std::string& replacement) {
    std::string bad = text;
    bad.replace(bad.find(line), line.size(), replacement);
    return bad;
  };
  auto rejected = [](const std::string& t) {
    try {
      CostModel::from_text(t, "t");
    } catch (const InvalidArgument& e) {
      return std::string(e.what()).find("t: line ") != std::string::npos;
    }
    return false;
  };
  ASSERT_FALSE(rejected(with_line(line)));
  EXPECT_TRUE(rejected(with_line("impl tf32x2 maybe tall 65536 1024 784 1e-3 2e-3")));         // beta class
  EXPECT_TRUE(rejected(with_line("impl tf32x2 beta0 skinny 65536 1024 784 1e-3 2e-3")));       // shape class
  EXPECT_TRUE(rejected(with_line("impl tf32x2 beta0 65536 1024 784 1e-3 2e-3")));              // version-2 line
  EXPECT_TRUE(rejected(with_line("impl tf32x2 beta0 tall 8192 8192 1024 1e-3 2e-3")));         // square shape
  EXPECT_TRUE(rejected(with_line("impl tf32x2 beta0 wide 65536 1024 784 1e-3 2e-3")));         // tall shape
  EXPECT_TRUE(rejected(with_line("impl tf32x2 beta0 tall 65536 1024 784 -1e-3 2e-3")));        // time
  EXPECT_TRUE(rejected(with_line("impl tf32x2 beta0 tall 65536 1024 0 1e-3 2e-3")));           // k
  EXPECT_TRUE(rejected(with_line("impl tf32x2 beta0 tall 65536 1024 784 1e-3 2e-3 7")));       // trailing field
  EXPECT_TRUE(rejected(with_line("impl tf32x2 reads-c wide 1024 65536 784 1e-3 2e-3")));       // duplicate class
  EXPECT_TRUE(rejected(with_line("impl fp17x2 beta0 tall 65536 1024 784 1e-3 2e-3")));         // scheme
  // Another text version (e.g. a cache of version 2) is refused, which makes the caller measure again.
  std::string old_version = text;
  old_version.replace(0, old_version.find('\n'), "tcemu-cost-model 2");
  EXPECT_TRUE(rejected(old_version));
}
}  // namespace

// Multi-pass accumulation chunks: about 24 sqrt(k) (12 sqrt(k) for TF32 parts), rounded up to 16 and
// clamped, none when k is at most 1.25 chunks; the policy's override wins; fused and native never chunk.
TEST(Planning, AccumulationChunksFollowSqrtKAndTheOverride) {
  const Scheme fp16x2 = parse_scheme("fp16x2"), tf32x2 = parse_scheme("tf32x2"), fp32 = parse_scheme("fp32");
  EXPECT_EQ(plan_chunking(fp16x2, Implementation::multipass, 8192, -1).accumulation_chunk, 2048);  // 24*90.5 -> 2048
  EXPECT_EQ(plan_chunking(fp16x2, Implementation::multipass, 4096, -1).accumulation_chunk, 1536);  // 24*64
  EXPECT_EQ(plan_chunking(fp16x2, Implementation::multipass, 784, -1).accumulation_chunk, 0);      // k <= 1.25 * 672
  EXPECT_EQ(plan_chunking(tf32x2, Implementation::multipass, 4096, -1).accumulation_chunk, 768);   // 12*64
  EXPECT_EQ(plan_chunking(tf32x2, Implementation::multipass, 1 << 20, -1).accumulation_chunk, 1024);  // clamped
  EXPECT_EQ(plan_chunking(fp16x2, Implementation::multipass, 8192, 1000).accumulation_chunk, 1008);  // override, to 16
  EXPECT_EQ(plan_chunking(fp16x2, Implementation::multipass, 8192, 0).accumulation_chunk, 0);
  EXPECT_EQ(plan_chunking(fp16x2, Implementation::fused, 8192, -1).accumulation_chunk, 0);
  EXPECT_EQ(plan_chunking(fp32, Implementation::native, 8192, -1).accumulation_chunk, 0);
  const ChunkPlan plain = plan_chunking(fp16x2, Implementation::multipass, 8192, -1);
  EXPECT_EQ(plain.k_chunks, 1);
  EXPECT_EQ(plain.k_chunk_length, 8192);
  EXPECT_THROW(plan_chunking(fp16x2, Implementation::multipass, -1, -1), InvalidArgument);
}

// INT8 families: the fewest equal chunks that keep INT32 sums exact (2^17 for Ozaki slices, 2^16 for
// int8-crt on the GPU).
TEST(Planning, Int8ChunksKeepInt32SumsExact) {
  const Scheme ozaki = parse_scheme("int8-ozaki:8"), crt = parse_scheme("int8-crt");
  const std::int64_t two17 = std::int64_t{1} << 17;
  ChunkPlan c = plan_chunking(ozaki, Implementation::int_slices, two17, -1);
  EXPECT_EQ(c.k_chunks, 1);
  EXPECT_EQ(c.k_chunk_length, two17);
  c = plan_chunking(ozaki, Implementation::int_slices, two17 + 1, -1);
  EXPECT_EQ(c.k_chunks, 2);
  EXPECT_EQ(c.k_chunk_length, two17 / 2 + 1);
  c = plan_chunking(crt, Implementation::crt, two17, -1);
  EXPECT_EQ(c.k_chunks, 2);
  EXPECT_EQ(c.k_chunk_length, two17 / 2);
  c = plan_chunking(crt, Implementation::crt, 5 * two17 + 3, -1);
  EXPECT_EQ(c.k_chunks, 11);
  EXPECT_LE(c.k_chunk_length, std::int64_t{1} << 16);
  EXPECT_GE(c.k_chunks * c.k_chunk_length, 5 * two17 + 3);
  EXPECT_EQ(c.accumulation_chunk, 0);
}
