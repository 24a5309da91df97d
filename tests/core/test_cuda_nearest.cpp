// tcemu::cuda::nearest_device (tcemu/cuda/nearest_cuda.hpp) against nearest_host: the same indices
// and distances (small-integer data: every GEMM is exact, so any difference is the selection's), for
// float and double, k = 1 (argmin kernel), k > 1 (top-k kernel), uneven batches, the near-tie
// re-ranking and the errors. Skips without a GPU.
#if defined(TCEMU_HAVE_CUDA)
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_util.hpp"
#include "nearest_test_util.hpp"
#include "tcemu/cuda/nearest_cuda.hpp"

namespace tcemu::test {
namespace {

template <class T>
cuda::DeviceBuffer<T> to_device(const std::vector<T>& h) {
  cuda::DeviceBuffer<T> d(h.size());
  TCEMU_CUDA(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
std::vector<T> to_host(const cuda::DeviceBuffer<T>& d, std::size_t size) {
  std::vector<T> h(size);
  TCEMU_CUDA(cudaMemcpy(h.data(), d.get(), size * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <class T>
class NearestDevice : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NearestDevice, Types);

TYPED_TEST(NearestDevice, MatchesTheHost) {
  TCEMU_REQUIRE_GPU();
  using T = TypeParam;
  const std::int64_t q = 300, n = 700, d = 9;
  const auto queries = small_integers<T>(q, d, 5), database = small_integers<T>(n, d, 6);
  const auto dq = to_device(queries);
  const auto ddb = to_device(database);
  for (int k : {1, 2, 17, 128}) {
    NearestOptions o;
    o.gemm.scheme = parse_scheme("auto", std::is_same_v<T, double> ? Target::fp64 : Target::fp32);
    o.batch = 128;  // 300 = 2 x 128 + 44
    std::vector<std::int32_t> hi(std::size_t(q * k));
    std::vector<double> hd(std::size_t(q * k));
    nearest_host<T>(row_major(queries.data(), q, d), row_major(database.data(), n, d), k, hi.data(), hd.data(), o);
    cuda::DeviceBuffer<std::int32_t> di(std::size_t(q * k));
    cuda::DeviceBuffer<double> dd(std::size_t(q * k));
    NearestLog log;
    cuda::nearest_device<T>(row_major<const T>(dq.get(), q, d), row_major<const T>(ddb.get(), n, d), k, di.get(),
                            dd.get(), o, &log);
    EXPECT_EQ(to_host(di, std::size_t(q * k)), hi) << "k = " << k;
    EXPECT_EQ(to_host(dd, std::size_t(q * k)), hd) << "k = " << k;
    EXPECT_EQ(log.reports.size(), 3u);
  }
}

TYPED_TEST(NearestDevice, NearTiesAreReRankedLikeTheHost) {
  TCEMU_REQUIRE_GPU();
  using T = TypeParam;
  const std::int64_t d = 2;
  const std::vector<T> database = {1, 1, 1, 1, 1, 1};
  const std::vector<double> exact = {1 + 1e-6, 1, 1, 1, 1, 1 + 2e-6};
  const std::vector<T> queries = {0, 0, 2, 2};
  NearestOptions o;
  o.near_tie_margin = 1.0 / 65536;
  std::vector<std::int32_t> hi(2);
  NearestLog hlog, dlog;
  o.exact_database = exact.data();
  nearest_host<T>(row_major(queries.data(), 2, d), row_major(database.data(), 3, d), 1, hi.data(), nullptr, o,
                  &hlog);
  const auto dq = to_device(queries);
  const auto ddb = to_device(database);
  const auto dexact = to_device(exact);
  o.exact_database = dexact.get();
  cuda::DeviceBuffer<std::int32_t> di(2);
  cuda::nearest_device<T>(row_major<const T>(dq.get(), 2, d), row_major<const T>(ddb.get(), 3, d), 1, di.get(),
                          nullptr, o, &dlog);
  EXPECT_EQ(to_host(di, 2), hi);
  EXPECT_EQ(dlog.rechecked, hlog.rechecked);
  EXPECT_EQ(dlog.rechecked, 2);
}

TEST(NearestDeviceErrors, KAboveTheKernelLimitThrows) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t n = cuda::kNearestMaxK + 1, d = 2;
  const auto database = to_device(std::vector<float>(std::size_t(n * d), 1.f));
  const auto queries = to_device(std::vector<float>(std::size_t(d), 0.f));
  cuda::DeviceBuffer<std::int32_t> idx(static_cast<std::size_t>(n));
  EXPECT_THROW(cuda::nearest_device<float>(row_major<const float>(queries.get(), 1, d),
                                           row_major<const float>(database.get(), n, d), int(n), idx.get(),
                                           nullptr, NearestOptions{}),
               InvalidArgument);
}

}  // namespace
}  // namespace tcemu::test
#endif
