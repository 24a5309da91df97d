// knn's GPU path against the host search and brute force (skipped without a GPU).
#include <gtest/gtest.h>

#include "app_common/device.hpp"
#include "knn_fixtures.hpp"
#include "knn/search.hpp"
#include "knn/search_device.hpp"

namespace {

void expect_same_neighbours(const char* scheme, int k) {
  const knn::Dataset data = knn_test::random_dataset(3000, 70, 48, 12);
  knn::SearchOptions host, gpu;
  gpu.device = knn::Device::cuda;
  gpu.batch = 32;  // several batches, last one partial
  const auto s = tcemu::parse_scheme(scheme);
  const knn::Neighbors h = knn::search(data, s, k, host);
  const knn::Neighbors g = knn::search(data, s, k, gpu);
  ASSERT_EQ(g.index.size(), h.index.size());
  // Distances may differ in the last bits (Tensor Core accumulation order); the neighbour sets of
  // random data with no near-ties agree with brute force.
  const auto truth = knn_test::brute_force(data, k);
  EXPECT_EQ(g.index, truth) << scheme;
  for (std::size_t e = 0; e < g.sq_dist.size(); ++e)
    ASSERT_NEAR(g.sq_dist[e], h.sq_dist[e], 1e-4 * (1 + std::fabs(h.sq_dist[e]))) << scheme;
}

}  // namespace

TEST(KnnGpu, SearchMatchesHostAndBruteForce) {
  if (!tcemu::app::gpu_available()) GTEST_SKIP() << "no GPU (or built without the CUDA backend)";
  for (const char* s : {"fp32", "fp16x2", "bf16x3", "tf32x2", "fp64"}) expect_same_neighbours(s, 10);
  // The K = 128 top-k variant; FP64 distances, so that no near-tie at rank 100 can swap neighbours.
  expect_same_neighbours("fp64", 100);
}

TEST(KnnGpu, UnavailableDeviceIsAClearError) {
  if (tcemu::app::gpu_available()) GTEST_SKIP() << "a GPU is present";
  knn::SearchOptions gpu;
  gpu.device = knn::Device::cuda;
  const knn::Dataset data = knn_test::random_dataset(100, 5, 8, 1);
  EXPECT_THROW(knn::search(data, tcemu::parse_scheme("fp32"), 3, gpu), tcemu::DeviceError);
  EXPECT_THROW(tcemu::app::resolve_device(knn::Device::cuda), tcemu::DeviceError);
  EXPECT_EQ(tcemu::app::resolve_device(knn::Device::automatic), knn::Device::host);
}
