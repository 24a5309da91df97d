// kmeans app: blobs recovered, FP64 run equal to a direct (non-GEMM) Lloyd, ARI, CLI errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "kmeans/agreement.hpp"
#include "app_runner.hpp"
#include "kmeans/dataset.hpp"
#include "kmeans/init.hpp"
#include "kmeans/lloyd.hpp"
#include "app_common/io/hdf5.hpp"

using namespace kmeans;

namespace {

// `per` points around each of `centers` well-separated centres in d dimensions; labels = centre.
Dataset blobs(int centers, int per, int d, std::uint64_t seed, double spread = 0.05) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> noise(0.0, spread);
  Dataset ds;
  ds.n = std::int64_t(centers) * per;
  ds.d = d;
  for (int c = 0; c < centers; ++c)
    for (int p = 0; p < per; ++p) {
      for (int j = 0; j < d; ++j) ds.data.push_back(float((j % centers == c ? 10.0 : 0.0) + c + noise(gen)));
      ds.labels.push_back(c);
    }
  return ds;
}

// Lloyd with direct FP64 distances, same init, tie and stopping rules as kmeans::lloyd.
std::vector<std::int32_t> direct_lloyd(const Dataset& ds, std::vector<double> c, std::int64_t k, int iters) {
  std::vector<std::int32_t> a(ds.n, 0);
  for (int it = 0; it < iters; ++it) {
    for (std::int64_t i = 0; i < ds.n; ++i) {
      double best = INFINITY;
      for (std::int64_t j = 0; j < k; ++j) {
        double s = 0;
        for (std::int64_t l = 0; l < ds.d; ++l) {
          const double t = ds.point(i)[l] - c[j * ds.d + l];
          s += t * t;
        }
        if (s < best) {
          best = s;
          a[i] = std::int32_t(j);
        }
      }
    }
    std::vector<double> sums(k * ds.d, 0.0);
    std::vector<std::int64_t> cnt(k, 0);
    for (std::int64_t i = 0; i < ds.n; ++i) {
      ++cnt[a[i]];
      for (std::int64_t l = 0; l < ds.d; ++l) sums[a[i] * ds.d + l] += ds.point(i)[l];
    }
    for (std::int64_t j = 0; j < k; ++j)
      if (cnt[j])
        for (std::int64_t l = 0; l < ds.d; ++l) c[j * ds.d + l] = sums[j * ds.d + l] / double(cnt[j]);
  }
  return a;
}

// kmeans::lloyd<double> with the fp64 scheme, no tolerance stop and at most max_iter steps.
LloydResult fp64_lloyd(const Dataset& ds, const std::vector<double>& init, std::int64_t k, int max_iter) {
  tcemu::GemmOptions g;
  g.scheme = tcemu::parse_scheme("fp64");
  LloydOptions o;
  o.k = k;
  o.tol = 0;
  o.max_iter = max_iter;
  return lloyd<double>(ds, init, g, o);
}

int run(const std::string& args, std::string* err = nullptr) {
  const auto scratch = std::filesystem::temp_directory_path() / "tcemu_kmeans_cli_run";
  std::filesystem::create_directories(scratch);
  const app_test::Ran r = app_test::run_executable(app_test::app_executable("kmeans"), args, scratch);
  if (err) *err = r.err;
  return r.status;
}

}  // namespace

TEST(Kmeans, WellSeparatedBlobsAreRecoveredExactly) {
  const Dataset ds = blobs(5, 60, 12, 3);
  for (const char* name : {"fp32", "fp16x2", "bf16x3", "fp64"}) {
    tcemu::GemmOptions g;
    g.scheme = tcemu::parse_scheme(name);
    LloydOptions o;
    o.k = 5;
    const auto init = initial_centroids(ds, 5, Init::kmeanspp, 11);
    const auto r = name == std::string("fp64") ? lloyd<double>(ds, init, g, o) : lloyd<float>(ds, init, g, o);
    EXPECT_TRUE(r.converged) << name;
    EXPECT_DOUBLE_EQ(adjusted_rand_index(r.assignment, ds.labels), 1.0) << name;
  }
}

TEST(Kmeans, Fp64RunEqualsDirectLloyd) {
  // Overlapping blobs so that assignments move for several iterations.
  const Dataset ds = blobs(4, 50, 6, 5, 3.0);
  const std::int64_t k = 4;
  const auto init = initial_centroids(ds, k, Init::random, 2);
  const auto r = fp64_lloyd(ds, init, k, 6);
  ASSERT_GE(r.iterations, 2);
  // kmeans::lloyd's final assignment is made with the centroids after (iterations - 1) updates.
  const auto direct = direct_lloyd(ds, init, k, r.iterations);
  EXPECT_EQ(r.assignment, direct);
  EXPECT_GT(adjusted_rand_index(r.assignment, ds.labels), 0.0);
}

// The update groups the points by cluster and sums chunks of grouped points: with more points than
// one chunk holds, clusters straddle chunks and chunks hold several clusters. After two steps the
// centroids are the FP64 means of the first step's assignment (the direct one), and the first
// inertia (summed in the same pass over the points) is that assignment's.
TEST(Kmeans, UpdateGivesTheMeansWhenClustersStraddleChunks) {
  const Dataset ds = blobs(5, 700, 7, 21, 2.0);  // 3,500 points: several chunks, overlapping clusters
  const std::int64_t k = 5, d = ds.d;
  const auto init = initial_centroids(ds, k, Init::random, 4);
  const auto r = fp64_lloyd(ds, init, k, 2);
  ASSERT_EQ(r.iterations, 2);
  const auto first = direct_lloyd(ds, init, k, 1);
  std::vector<double> sums(k * d, 0.0);
  std::vector<std::int64_t> count(k, 0);
  double inertia = 0;  // of the first assignment against the initial centroids
  for (std::int64_t i = 0; i < ds.n; ++i) {
    ++count[first[i]];
    for (std::int64_t l = 0; l < d; ++l) {
      sums[first[i] * d + l] += ds.point(i)[l];
      const double diff = ds.point(i)[l] - init[first[i] * d + l];
      inertia += diff * diff;
    }
  }
  EXPECT_NEAR(r.inertia[0], inertia, 1e-12 * inertia);
  for (std::int64_t j = 0; j < k; ++j) {
    ASSERT_GT(count[j], 0) << "cluster " << j << " empty: the test wants every mean";
    for (std::int64_t l = 0; l < d; ++l) {
      const double mean = sums[j * d + l] / double(count[j]);
      EXPECT_NEAR(r.centroids[j * d + l], mean, 1e-12 * (1 + std::fabs(mean))) << "cluster " << j << " dim " << l;
    }
  }
}
TEST(Kmeans, InertiaDecreasesAndEmptyClustersAreReseeded) {
  Dataset ds = blobs(3, 40, 4, 9);
  // Init file with a centroid far from every point: its cluster is empty after the first step.
  ds.init_k = 4;
  ds.init_centroids.assign(4 * 4, 0.0f);
  for (int j = 0; j < 4; ++j) ds.init_centroids[3 * 4 + j] = 1e4f;
  const auto init = initial_centroids(ds, 4, Init::file, 0);
  tcemu::GemmOptions g;
  g.scheme = tcemu::parse_scheme("fp32");
  LloydOptions o;
  o.k = 4;
  const auto r = lloyd<float>(ds, init, g, o);
  EXPECT_GE(r.reseeded, 1);
  for (std::size_t i = 1; i < r.inertia.size(); ++i) EXPECT_LE(r.inertia[i], r.inertia[i - 1] * (1 + 1e-12));
}

TEST(Kmeans, AdjustedRandIndex) {
  EXPECT_DOUBLE_EQ(adjusted_rand_index({0, 0, 1, 1}, {1, 1, 0, 0}), 1.0);  // renumbering
  EXPECT_LT(adjusted_rand_index({0, 0, 1, 1}, {0, 1, 0, 1}), 0.0);         // worse than chance
  EXPECT_DOUBLE_EQ(agreement({0, 1, 2}, {0, 1, 1}), 2.0 / 3.0);
  EXPECT_THROW(adjusted_rand_index({0}, {0, 1}), tcemu::InvalidArgument);
}

TEST(KmeansCli, ErrorsAreOneLineAndLeaveNoOutput) {
  const auto dir = std::filesystem::temp_directory_path() / "tcemu_kmeans_cli";
  std::filesystem::create_directories(dir);
  const std::string good = dir / "good.h5", bad = dir / "bad.h5", out = dir / "out.h5";
  {
    tcemu::app::io::Writer w(good);
    const Dataset ds = blobs(2, 10, 3, 1);
    w.write<float>("/data", ds.data, {ds.n, ds.d});
    w.write<float>("/init_centroids", std::vector<float>(2 * 4, 1.0f), {2, 4});  // d mismatch
    w.commit();
  }
  {
    tcemu::app::io::Writer w(bad);
    std::vector<float> v(6, 1.0f);
    v[4] = NAN;
    w.write<float>("/data", v, {2, 3});
    w.commit();
  }
  std::string err;
  EXPECT_EQ(run("--input " + (dir / "missing.h5").string() + " --k 2", &err), 2);
  EXPECT_NE(err.find("missing.h5"), std::string::npos) << err;
  EXPECT_EQ(run("--input " + good + " --k 2 --output " + out, &err), 2);  // /init_centroids d mismatch
  EXPECT_NE(err.find("/init_centroids"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(run("--input " + bad + " --k 1", &err), 2);
  EXPECT_NE(err.find("/data"), std::string::npos) << err;
  {
    tcemu::app::io::Writer w(good);
    const Dataset ds = blobs(2, 10, 3, 1);
    w.write<float>("/data", ds.data, {ds.n, ds.d});
    w.commit();
  }
  EXPECT_EQ(run("--input " + good + " --k 21", &err), 2);  // k > n
  EXPECT_NE(err.find("exceeds"), std::string::npos) << err;
  EXPECT_EQ(run("--input " + good + " --k 0", &err), 2);
  EXPECT_EQ(run("--input " + good + " --k 2 --scheme nope", &err), 2);
  EXPECT_NE(err.find("nope"), std::string::npos) << err;
  EXPECT_EQ(run("--input " + good + " --k 2 --init file", &err), 2);
  EXPECT_NE(err.find("/init_centroids"), std::string::npos) << err;
  // And a good run writes the output.
  EXPECT_EQ(run("--input " + good + " --k 2 --scheme fp16x2 --output " + out + " -q", &err), 0) << err;
  EXPECT_TRUE(std::filesystem::exists(out));
  tcemu::app::io::Reader r(out);
  EXPECT_TRUE(r.has_dataset("/fp16x2/assignments"));
  EXPECT_EQ(r.info("/fp16x2/centroids").shape, (std::vector<std::int64_t>{2, 3}));
  std::filesystem::remove_all(dir);
}

TEST(Kmeans, NearTieRecheckMakesFp32AssignmentsEqualFp64) {
  // Large offsets make FP32's ||x||^2 + ||c||^2 - 2 x.c lose most of its digits to cancellation, so
  // points near a boundary are assigned by rounding unless the near-tie re-check decides them.
  Dataset ds = blobs(6, 150, 16, 21, 4.0);
  for (auto& v : ds.data) v += 3000.0f;
  const std::int64_t k = 6;
  const auto init = initial_centroids(ds, k, Init::random, 4);
  LloydOptions o;
  o.k = k;
  o.tol = 0;
  o.max_iter = 1;  // one assignment step from identical centroids: only the distances differ
  tcemu::GemmOptions g64, g32;
  g64.scheme = tcemu::parse_scheme("fp64");
  g32.scheme = tcemu::parse_scheme("fp32");
  const auto ref = lloyd<double>(ds, init, g64, o);
  const auto with = lloyd<float>(ds, init, g32, o);
  EXPECT_EQ(with.assignment, ref.assignment);
  EXPECT_GT(with.rechecked, 0);
  o.recheck_margin = 0;
  const auto without = lloyd<float>(ds, init, g32, o);
  EXPECT_EQ(without.rechecked, 0);
  EXPECT_NE(without.assignment, ref.assignment) << "data too easy: FP32 rounding decides no assignment";
}

// The one Lloyd source (lloyd.cpp) on Kokkos::Cuda against the same source on the host: the same
// assignments, iterations and reseeds; inertia and centroids equal up to the order of the FP64 sums.
// Skipped without a GPU or without a CUDA-enabled Kokkos.
TEST(KmeansGpu, OneSourceGivesTheHostResultOnCudaViews) {
  if (!tcemu::app::gpu_available(tcemu::app::GpuPath::kokkos_cuda))
    GTEST_SKIP() << "no GPU, or no CUDA backend in tcemu or Kokkos";
  const Dataset ds = blobs(6, 300, 20, 31, 2.0);  // overlapping: assignments move for several iterations
  // A centroid far from every point: its cluster is empty after the first step and gets reseeded.
  std::vector<double> init = initial_centroids(ds, 6, Init::random, 8);
  init.resize(7 * 20, 1e4);
  for (const char* name : {"fp32", "fp16x2", "bf16x3", "fp64"}) {
    tcemu::GemmOptions g;
    g.scheme = tcemu::parse_scheme(name);
    LloydOptions o;
    o.k = 7;
    o.tol = 0;
    o.max_iter = 8;
    const bool fp64 = name == std::string("fp64");
    const auto host = fp64 ? lloyd<double>(ds, init, g, o) : lloyd<float>(ds, init, g, o);
    o.device = tcemu::app::Device::cuda;
    const auto gpu = fp64 ? lloyd<double>(ds, init, g, o) : lloyd<float>(ds, init, g, o);
    EXPECT_EQ(gpu.assignment, host.assignment) << name;
    EXPECT_EQ(gpu.iterations, host.iterations) << name;
    EXPECT_EQ(gpu.converged, host.converged) << name;
    EXPECT_EQ(gpu.reseeded, host.reseeded) << name;
    EXPECT_GE(host.reseeded, 1) << name;
    ASSERT_EQ(gpu.inertia.size(), host.inertia.size()) << name;
    for (std::size_t i = 0; i < host.inertia.size(); ++i)
      EXPECT_NEAR(gpu.inertia[i], host.inertia[i], 1e-12 * host.inertia[i]) << name << " iteration " << i + 1;
    ASSERT_EQ(gpu.centroids.size(), host.centroids.size());
    for (std::size_t e = 0; e < host.centroids.size(); ++e)
      ASSERT_NEAR(gpu.centroids[e], host.centroids[e], 1e-12 * (1 + std::fabs(host.centroids[e]))) << name;
    EXPECT_GT(gpu.gemm.calls, 0) << name;
  }
}

TEST(KmeansGpu, UnavailableDeviceIsAClearError) {
  if (tcemu::app::gpu_available(tcemu::app::GpuPath::kokkos_cuda)) GTEST_SKIP() << "the GPU path can run here";
  const Dataset ds = blobs(2, 10, 3, 1);
  tcemu::GemmOptions g;
  g.scheme = tcemu::parse_scheme("fp32");
  LloydOptions o;
  o.k = 2;
  o.device = tcemu::app::Device::cuda;
  try {
    (void)lloyd<float>(ds, initial_centroids(ds, 2, Init::random, 1), g, o);
    ADD_FAILURE() << "--device cuda ran";
  } catch (const tcemu::DeviceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--device cuda: ", 0), 0u) << e.what();
  }
}
