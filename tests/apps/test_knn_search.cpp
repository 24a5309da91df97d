// knn_lib against brute-force FP64: the search, recall@k, the distance error and the job runner.
#include <gtest/gtest.h>

#include <cmath>

#include "knn_fixtures.hpp"
#include "knn/quality.hpp"
#include "knn/run.hpp"
#include "knn/search.hpp"
#include "tcemu/error.hpp"
#include "tcemu/scheme.hpp"

namespace {

constexpr std::int64_t kTrain = 500, kQueries = 50, kDims = 32;
constexpr int kK = 5;

class KnnSearch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    data_ = new knn::Dataset(knn_test::random_dataset(kTrain, kQueries, kDims, 20240601u));
    double gap = 0;
    truth_ = new std::vector<std::int32_t>(knn_test::brute_force(*data_, kK, nullptr, &gap));
    ASSERT_GT(gap, 1e-5) << "the fixture must have no near-ties among the first k+1 neighbours";
  }
  static void TearDownTestSuite() {
    delete data_;
    delete truth_;
  }
  static knn::Dataset* data_;
  static std::vector<std::int32_t>* truth_;
};
knn::Dataset* KnnSearch::data_ = nullptr;
std::vector<std::int32_t>* KnnSearch::truth_ = nullptr;

TEST_F(KnnSearch, Fp32Fp16x2Fp64FindTheExactNeighbours) {
  const auto thresholds = knn::recall_thresholds(*data_, *truth_, kK, kK);
  for (const char* name : {"fp32", "fp16x2", "fp64"}) {
    SCOPED_TRACE(name);
    const tcemu::Scheme scheme = tcemu::parse_scheme(name);
    knn::SearchLog log;
    const knn::Neighbors nb = knn::search(*data_, scheme, kK, knn::SearchOptions{}, &log);
    ASSERT_EQ(nb.q, kQueries);
    ASSERT_EQ(nb.k, kK);
    EXPECT_EQ(nb.index, *truth_);  // no ties in the fixture: the very same indices, same order
    const auto exact = knn::exact_sq_distances(*data_, nb);
    EXPECT_EQ(knn::recall_at_k(nb, exact, thresholds), 1.0);
    EXPECT_LT(knn::max_relative_distance_error(nb, exact), scheme.kind == tcemu::SchemeKind::fp64 ? 1e-12 : 1e-4);
    EXPECT_EQ(log.gemm.used_names(), name);
    EXPECT_TRUE(log.gemm.first_note.empty()) << log.gemm.first_note;
    EXPECT_EQ(log.batches, 1);
  }
}

TEST_F(KnnSearch, RecallAndErrorSeeALowPrecisionScheme) {
  // bf16 keeps 8 significant bits: on uniform data the distances are visibly wrong and some
  // neighbours are missed, so the metrics are not blind.
  const auto thresholds = knn::recall_thresholds(*data_, *truth_, kK, kK);
  const knn::Neighbors nb = knn::search(*data_, tcemu::parse_scheme("bf16"), kK, knn::SearchOptions{});
  const auto exact = knn::exact_sq_distances(*data_, nb);
  EXPECT_LT(knn::recall_at_k(nb, exact, thresholds), 1.0);
  EXPECT_GT(knn::max_relative_distance_error(nb, exact), 1e-4);
}

TEST_F(KnnSearch, BatchingDoesNotChangeTheResult) {
  const tcemu::Scheme scheme = tcemu::parse_scheme("fp16x2");
  const knn::Neighbors whole = knn::search(*data_, scheme, kK, knn::SearchOptions{});
  knn::SearchOptions small;
  small.batch = 7;  // 50 queries -> 8 batches, the last one short
  std::vector<std::int64_t> seen;
  small.on_batch = [&](std::int64_t done, std::int64_t total) {
    seen.push_back(done);
    EXPECT_EQ(total, 8);
  };
  knn::SearchLog log;
  const knn::Neighbors batched = knn::search(*data_, scheme, kK, small, &log);
  EXPECT_EQ(batched.index, whole.index);
  // BLAS may block a 7-row product differently from a 50-row one, so the float sums may differ in
  // the last bits; the neighbours may not.
  ASSERT_EQ(batched.sq_dist.size(), whole.sq_dist.size());
  for (std::size_t i = 0; i < whole.sq_dist.size(); ++i)
    EXPECT_NEAR(batched.sq_dist[i], whole.sq_dist[i], 1e-5 * whole.sq_dist[i]) << i;
  EXPECT_EQ(seen, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(log.batches, 8);
}

TEST_F(KnnSearch, Fp64TargetOzakiComputesInDouble) {
  const tcemu::Scheme oz = tcemu::parse_scheme("int8-ozaki", tcemu::Target::fp64);
  ASSERT_TRUE(knn::computes_in_double(oz));
  EXPECT_FALSE(knn::computes_in_double(tcemu::parse_scheme("int8-ozaki", tcemu::Target::fp32)));
  EXPECT_FALSE(knn::computes_in_double(tcemu::parse_scheme("fp16x2", tcemu::Target::fp64)));
  const knn::Neighbors nb = knn::search(*data_, oz, kK, knn::SearchOptions{});
  EXPECT_EQ(nb.index, *truth_);
  EXPECT_LT(knn::max_relative_distance_error(nb, knn::exact_sq_distances(*data_, nb)), 1e-12);
}

TEST_F(KnnSearch, KAtTheLimitsAndBadArguments) {
  const tcemu::Scheme fp32 = tcemu::parse_scheme("fp32");
  const knn::Neighbors all = knn::search(*data_, fp32, static_cast<int>(kTrain), knn::SearchOptions{});
  std::vector<std::int32_t> row0(all.index.begin(), all.index.begin() + kTrain);
  std::sort(row0.begin(), row0.end());
  for (std::int32_t j = 0; j < kTrain; ++j) ASSERT_EQ(row0[j], j);  // k = n returns a permutation
  EXPECT_THROW(knn::search(*data_, fp32, 0, knn::SearchOptions{}), tcemu::InvalidArgument);
  EXPECT_THROW(knn::search(*data_, fp32, kTrain + 1, knn::SearchOptions{}), tcemu::InvalidArgument);
  knn::SearchOptions bad;
  bad.batch = 0;
  EXPECT_THROW(knn::search(*data_, fp32, kK, bad), tcemu::InvalidArgument);
}

TEST(KnnQuality, TiesAtTheKthDistanceAreNotMisses) {
  // Train points 1 and 2 are the same point: either one is a correct 2nd neighbour of the query.
  knn::Dataset data;
  data.n = 4;
  data.d = 2;
  data.q = 1;
  data.train = {0.f, 0.f, 1.f, 0.f, 1.f, 0.f, 5.f, 5.f};
  data.queries = {0.f, 0.f};
  const std::vector<std::int32_t> truth = {0, 1};
  const auto thr = knn::recall_thresholds(data, truth, 2, 2);
  ASSERT_EQ(thr, std::vector<double>{1.0});

  knn::Neighbors other_tie{1, 2, {0, 2}, {0.0, 1.0}};
  EXPECT_EQ(knn::recall_at_k(other_tie, knn::exact_sq_distances(data, other_tie), thr), 1.0);
  knn::Neighbors wrong{1, 2, {0, 3}, {0.0, 50.0}};
  EXPECT_EQ(knn::recall_at_k(wrong, knn::exact_sq_distances(data, wrong), thr), 0.5);
  // The search itself breaks the tie by the smaller index.
  const knn::Neighbors found = knn::search(data, tcemu::parse_scheme("fp32"), 2, knn::SearchOptions{});
  EXPECT_EQ(found.index, (std::vector<std::int32_t>{0, 1}));
  EXPECT_THROW(knn::recall_thresholds(data, truth, 2, 3), tcemu::InvalidArgument);
}

TEST(KnnQuality, MaxRelativeDistanceError) {
  knn::Neighbors nb{1, 3, {0, 1, 2}, {0.0, 1.1, 3.0}};
  const std::vector<double> exact = {0.0, 1.0, 4.0};  // the zero is skipped
  EXPECT_DOUBLE_EQ(knn::max_relative_distance_error(nb, exact), 0.25);
  nb.sq_dist[1] = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isinf(knn::max_relative_distance_error(nb, exact)));
}

TEST_F(KnnSearch, RunAddsBaselineAndGroundTruth) {
  knn::Dataset no_truth = *data_;  // no /neighbors: the fp64 run is the ground truth
  knn::RunOptions options;
  options.schemes = tcemu::parse_scheme_list("fp16x2,auto", tcemu::Target::fp32);
  options.k = kK;
  options.repeat = 2;
  const knn::RunResult r = knn::run(no_truth, options);
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_EQ(r.ground_truth, "fp64 run");
  EXPECT_EQ(r.rows[0].scheme.name, "fp64");
  EXPECT_EQ(r.rows[0].role, "ground truth");
  EXPECT_FALSE(r.rows[0].requested);
  EXPECT_EQ(r.rows[1].scheme.name, "fp32");
  EXPECT_EQ(r.rows[1].role, "baseline");
  EXPECT_FALSE(r.rows[1].requested);
  EXPECT_DOUBLE_EQ(r.rows[1].speedup, 1.0);
  EXPECT_EQ(r.rows[2].scheme.name, "fp16x2");
  EXPECT_TRUE(r.rows[2].requested);
  EXPECT_EQ(r.rows[3].scheme.name, "auto");
  EXPECT_FALSE(r.rows[3].used.empty());
  for (const auto& row : r.rows) {
    SCOPED_TRACE(row.scheme.name);
    EXPECT_EQ(row.recall, 1.0);
    EXPECT_GT(row.time_ms, 0.0);
    EXPECT_NEAR(row.speedup, r.rows[1].time_ms / row.time_ms, 1e-12);
    EXPECT_EQ(row.neighbors.index, *truth_);
  }

  knn::Dataset with_truth = *data_;  // with ground truth: no fp64 row is added, fp32 listed once
  with_truth.truth_k = kK;
  with_truth.truth = *truth_;
  options.schemes = tcemu::parse_scheme_list("fp32,fp16x2,fp32", tcemu::Target::fp32);
  const knn::RunResult t = knn::run(with_truth, options);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.ground_truth, "/neighbors");
  EXPECT_TRUE(t.rows[0].requested);
  EXPECT_EQ(t.rows[0].role, "baseline");
}

}  // namespace
