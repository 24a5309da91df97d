// tcemu::nearest_host (tcemu/nearest.hpp) against an exact brute force: float and double, k = 1 and
// k > 1, ties to the smaller index, batches that do not divide the query count, NaN last, the FP64
// near-tie re-ranking, precomputed norms and the argument errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nearest_test_util.hpp"
#include "tcemu/error.hpp"
#include "tcemu/nearest.hpp"

namespace tcemu::test {
namespace {

template <class T>
class NearestHost : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NearestHost, Types);

template <class T>
NearestOptions options_for(const char* scheme, std::int64_t batch) {
  NearestOptions o;
  o.gemm.scheme = parse_scheme(scheme, std::is_same_v<T, double> ? Target::fp64 : Target::fp32);
  o.batch = batch;
  return o;
}

TYPED_TEST(NearestHost, MatchesBruteForceWithTiesAndUnevenBatches) {
  using T = TypeParam;
  const std::int64_t q = 37, n = 90, d = 5;  // {-3..3}^5 in 90 points: many equal distances
  const auto queries = small_integers<T>(q, d, 1), database = small_integers<T>(n, d, 2);
  for (const char* scheme : {"auto", std::is_same_v<T, double> ? "fp64" : "bf16x3"}) {
    for (int k : {1, 7, int(n)}) {
      std::vector<std::int32_t> want_i;
      std::vector<double> want_d;
      brute_force_nearest(queries, database, d, k, want_i, want_d);
      std::vector<std::int32_t> idx(std::size_t(q * k), -1);
      std::vector<double> dist(std::size_t(q * k), -1);
      NearestLog log;
      nearest_host<T>(row_major(queries.data(), q, d), row_major(database.data(), n, d), k, idx.data(),
                      dist.data(), options_for<T>(scheme, 8), &log);  // 37 = 4 x 8 + 5
      EXPECT_EQ(idx, want_i) << scheme << " k = " << k;
      EXPECT_EQ(dist, want_d) << scheme << " k = " << k;
      EXPECT_EQ(log.reports.size(), 5u);
    }
  }
}

TYPED_TEST(NearestHost, DuplicateRowsGoToTheSmallerIndexFirst) {
  using T = TypeParam;
  const std::int64_t d = 3;
  const std::vector<T> database = {5, 5, 5, 1, 2, 3, 9, 9, 9, 1, 2, 3, 1, 2, 3};
  const std::vector<T> queries = {1, 2, 3};
  std::vector<std::int32_t> idx(3);
  nearest_host<T>(row_major(queries.data(), 1, d), row_major(database.data(), 5, d), 3, idx.data(), nullptr,
                  options_for<T>("auto", 1024));
  EXPECT_EQ(idx, (std::vector<std::int32_t>{1, 3, 4}));
}

TYPED_TEST(NearestHost, NanDistancesSortLast) {
  using T = TypeParam;
  const std::int64_t d = 2;
  const std::vector<T> database = {0, 0, std::numeric_limits<T>::quiet_NaN(), 0, 1, 1};
  const std::vector<T> queries = {0, 0};
  std::vector<std::int32_t> idx(3);
  std::vector<double> dist(3);
  nearest_host<T>(row_major(queries.data(), 1, d), row_major(database.data(), 3, d), 3, idx.data(), dist.data(),
                  options_for<T>(std::is_same_v<T, double> ? "fp64" : "fp32", 1024));
  EXPECT_EQ(idx, (std::vector<std::int32_t>{0, 2, 1}));
  EXPECT_TRUE(std::isinf(dist[2]));
}

TYPED_TEST(NearestHost, PrecomputedNormsGiveTheSameResult) {
  using T = TypeParam;
  const std::int64_t q = 20, n = 30, d = 4;
  const auto queries = small_integers<T>(q, d, 3), database = small_integers<T>(n, d, 4);
  std::vector<T> qn(q), dn(n);
  squared_norms_host(row_major<const T>(queries.data(), q, d), qn.data());
  squared_norms_host(row_major<const T>(database.data(), n, d), dn.data());
  for (std::int64_t i = 0; i < q; ++i) {
    double s = 0;
    for (std::int64_t l = 0; l < d; ++l) s += double(queries[i * d + l]) * double(queries[i * d + l]);
    EXPECT_EQ(double(qn[i]), s);
  }
  std::vector<std::int32_t> a(q * 4), b(q * 4);
  nearest_host<T>(row_major(queries.data(), q, d), row_major(database.data(), n, d), 4, a.data(), nullptr,
                  options_for<T>("auto", 6));
  nearest_host<T>(row_major(queries.data(), q, d), row_major(database.data(), n, d), 4, b.data(), nullptr,
                  options_for<T>("auto", 6), nullptr, qn.data(), dn.data());
  EXPECT_EQ(a, b);
}

TYPED_TEST(NearestHost, NearTiesAreReRankedWithTheExactDatabase) {
  using T = TypeParam;
  const std::int64_t d = 2;
  // Both rows are (1, 1) in T; the exact database puts row 1 nearer to the query (0, 0).
  const std::vector<T> database = {1, 1, 1, 1};
  const std::vector<double> exact = {1 + 1e-6, 1, 1, 1};
  const std::vector<T> queries = {0, 0, 0, 0, 0, 0};
  NearestOptions o = options_for<T>("auto", 2);
  std::vector<std::int32_t> idx(3, -1);
  NearestLog log;
  nearest_host<T>(row_major(queries.data(), 3, d), row_major(database.data(), 2, d), 1, idx.data(), nullptr, o,
                  &log);
  EXPECT_EQ(idx, (std::vector<std::int32_t>{0, 0, 0}));
  EXPECT_EQ(log.rechecked, 0);
  o.near_tie_margin = 1.0 / 65536;
  o.exact_database = exact.data();
  nearest_host<T>(row_major(queries.data(), 3, d), row_major(database.data(), 2, d), 1, idx.data(), nullptr, o,
                  &log);
  EXPECT_EQ(idx, (std::vector<std::int32_t>{1, 1, 1}));
  EXPECT_EQ(log.rechecked, 3);
}

TYPED_TEST(NearestHost, BadArgumentsThrowInvalidArgument) {
  using T = TypeParam;
  const std::int64_t d = 2;
  const std::vector<T> database = {0, 0, 1, 1}, queries = {0, 0};
  const double exact[4] = {0, 0, 1, 1};
  std::vector<std::int32_t> idx(3);
  const auto q = row_major(queries.data(), 1, d);
  const auto db = row_major(database.data(), 2, d);
  const NearestOptions o = options_for<T>("auto", 4);
  EXPECT_THROW(nearest_host<T>(q, db, 3, idx.data(), nullptr, o), InvalidArgument);  // k > n
  EXPECT_THROW(nearest_host<T>(q, db, 0, idx.data(), nullptr, o), InvalidArgument);
  EXPECT_THROW(nearest_host<T>(q, db, 1, nullptr, nullptr, o), InvalidArgument);
  EXPECT_THROW(nearest_host<T>(row_major(queries.data(), 1, 1), db, 1, idx.data(), nullptr, o), InvalidArgument);
  EXPECT_THROW(nearest_host<T>(q, col_major(database.data(), 2, d), 1, idx.data(), nullptr, o), InvalidArgument);
  NearestOptions bad = o;
  bad.batch = 0;
  EXPECT_THROW(nearest_host<T>(q, db, 1, idx.data(), nullptr, bad), InvalidArgument);
  bad = o;
  bad.near_tie_margin = 1e-3;  // without exact_database
  EXPECT_THROW(nearest_host<T>(q, db, 1, idx.data(), nullptr, bad), InvalidArgument);
  bad.exact_database = exact;
  EXPECT_THROW(nearest_host<T>(q, db, 2, idx.data(), nullptr, bad), InvalidArgument);  // margin needs k = 1
}

}  // namespace
}  // namespace tcemu::test
