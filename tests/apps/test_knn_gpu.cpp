// knn's one search source (search.cpp) on Kokkos::Cuda against the same source on the host and brute
// force (skipped without a GPU or without a CUDA-enabled Kokkos), and the errors of --device cuda
// where it cannot run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app_common/device.hpp"
#include "knn/search.hpp"
#include "knn_fixtures.hpp"

namespace {

constexpr auto kKokkosCuda = tcemu::app::GpuPath::kokkos_cuda;

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
  EXPECT_EQ(h.index, truth) << scheme;
  for (std::size_t e = 0; e < g.sq_dist.size(); ++e)
    ASSERT_NEAR(g.sq_dist[e], h.sq_dist[e], 1e-4 * (1 + std::fabs(h.sq_dist[e]))) << scheme;
}

}  // namespace

TEST(KnnGpu, SearchMatchesHostAndBruteForce) {
  if (!tcemu::app::gpu_available(kKokkosCuda)) GTEST_SKIP() << "no GPU, or no CUDA backend in tcemu or Kokkos";
  for (const char* s : {"fp32", "fp16x2", "bf16x3", "tf32x2", "fp64"}) expect_same_neighbours(s, 10);
  // The K = 128 top-k variant; FP64 distances, so that no near-tie at rank 100 can swap neighbours.
  expect_same_neighbours("fp64", 100);
}

TEST(KnnGpu, NewDataOfTheSameShapeIsUploadedAgainAndKAboveTheGpuLimitIsAnError) {
  if (!tcemu::app::gpu_available(kKokkosCuda)) GTEST_SKIP() << "no GPU, or no CUDA backend in tcemu or Kokkos";
  knn::SearchOptions gpu;
  gpu.device = knn::Device::cuda;
  const auto fp32 = tcemu::parse_scheme("fp32");
  knn::Dataset data = knn_test::random_dataset(500, 20, 16, 3);
  (void)knn::search(data, fp32, 5, gpu);
  data = knn_test::random_dataset(500, 20, 16, 4);  // same shapes, new values and new arrays
  EXPECT_EQ(knn::search(data, fp32, 5, gpu).index, knn_test::brute_force(data, 5));
  // FP64 without caller-held FP64 inputs: each call converts into a temporary that the next call's
  // temporary may reuse by address; the GPU copy of the first dataset must not be searched again.
  const auto fp64 = tcemu::parse_scheme("fp64", tcemu::Target::fp64);
  for (std::uint64_t seed : {5, 6, 7}) {
    const knn::Dataset other = knn_test::random_dataset(500, 20, 16, seed);
    EXPECT_EQ(knn::search(other, fp64, 5, gpu).index, knn_test::brute_force(other, 5)) << "seed " << seed;
  }
  try {
    (void)knn::search(data, fp32, 129, gpu);
    ADD_FAILURE() << "k = 129 ran on the GPU";
  } catch (const tcemu::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("--k 129"), std::string::npos) << e.what();
  }
}

TEST(KnnGpu, UnavailableDeviceIsAClearError) {
  if (tcemu::app::gpu_available(kKokkosCuda)) GTEST_SKIP() << "the GPU path can run here";
  knn::SearchOptions gpu;
  gpu.device = knn::Device::cuda;
  const knn::Dataset data = knn_test::random_dataset(100, 5, 8, 1);
  try {
    (void)knn::search(data, tcemu::parse_scheme("fp32"), 3, gpu);
    ADD_FAILURE() << "--device cuda ran";
  } catch (const tcemu::DeviceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--device cuda: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(tcemu::app::resolve_device(knn::Device::cuda, kKokkosCuda), tcemu::DeviceError);
  EXPECT_EQ(tcemu::app::resolve_device(knn::Device::automatic, kKokkosCuda), knn::Device::host);
}
