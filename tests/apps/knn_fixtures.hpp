#pragma once
// Shared fixtures of the knn tests: seeded random data sets, brute-force FP64 neighbours, HDF5 files
// in the ann-benchmarks layout, running the knn executable, and a small JSON parser.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "app_runner.hpp"
#include "knn/dataset.hpp"
#include "app_common/io/hdf5.hpp"

namespace knn_test {

/// n train points and q queries of d dimensions, uniform in [0, 1), seeded.
inline knn::Dataset random_dataset(std::int64_t n, std::int64_t q, std::int64_t d, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  knn::Dataset data;
  data.n = n;
  data.q = q;
  data.d = d;
  data.train.resize(static_cast<std::size_t>(n * d));
  data.queries.resize(static_cast<std::size_t>(q * d));
  for (auto& v : data.train) v = u(gen);
  for (auto& v : data.queries) v = u(gen);
  return data;
}

/// Brute-force k nearest neighbours in FP64 (direct sum of (x_i - y_i)^2): q x k indices, nearest
/// first, ties to the smaller index. `sq` receives the squared distances when not null.
inline std::vector<std::int32_t> brute_force(const knn::Dataset& data, int k, std::vector<double>* sq = nullptr,
                                             double* min_gap = nullptr) {
  std::vector<std::int32_t> out;
  if (sq) sq->clear();
  double gap = 1e300;
  for (std::int64_t i = 0; i < data.q; ++i) {
    std::vector<double> d2(static_cast<std::size_t>(data.n));
    for (std::int64_t j = 0; j < data.n; ++j) {
      double s = 0;
      for (std::int64_t c = 0; c < data.d; ++c) {
        const double t = double(data.query_row(i)[c]) - double(data.train_row(j)[c]);
        s += t * t;
      }
      d2[j] = s;
    }
    std::vector<std::int32_t> idx(static_cast<std::size_t>(data.n));
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](std::int32_t a, std::int32_t b) {
      return d2[a] < d2[b] || (d2[a] == d2[b] && a < b);
    });
    for (int j = 0; j < k; ++j) {
      out.push_back(idx[j]);
      if (sq) sq->push_back(d2[idx[j]]);
    }
    for (int j = 0; j < k && j + 1 < data.n; ++j)
      gap = std::min(gap, (d2[idx[j + 1]] - d2[idx[j]]) / d2[idx[j + 1]]);
  }
  if (min_gap) *min_gap = gap;
  return out;
}

/// What to put into a test HDF5 file.
struct FileSpec {
  bool train = true, test = true, neighbors = true;
  std::int64_t truth_k = 10;      ///< columns of /neighbors
  std::int64_t test_d_delta = 0;  ///< /test gets d + delta columns (d mismatch when != 0)
  bool nan_in_train = false;
  bool inf_in_test = false;
  std::string distance = "euclidean";  ///< "" = no attribute
};

/// Writes `data` as an ann-benchmarks file (with brute-force /neighbors and /distances).
inline void write_ann_file(const std::string& path, const knn::Dataset& data, const FileSpec& spec = {}) {
  tcemu::app::io::Writer w(path);
  if (spec.train) {
    std::vector<float> train = data.train;
    if (spec.nan_in_train) train[train.size() / 2] = std::numeric_limits<float>::quiet_NaN();
    w.write("/train", train, {data.n, data.d});
  }
  if (spec.test) {
    const std::int64_t d = data.d + spec.test_d_delta;
    std::vector<float> test(static_cast<std::size_t>(data.q * d), 0.5f);
    for (std::int64_t i = 0; i < data.q; ++i)
      for (std::int64_t c = 0; c < std::min(d, data.d); ++c) test[i * d + c] = data.query_row(i)[c];
    if (spec.inf_in_test) test[1] = std::numeric_limits<float>::infinity();
    w.write("/test", test, {data.q, d});
  }
  if (spec.neighbors) {
    std::vector<double> sq;
    const auto nb = brute_force(data, static_cast<int>(spec.truth_k), &sq);
    std::vector<float> dist(sq.size());
    for (std::size_t i = 0; i < sq.size(); ++i) dist[i] = static_cast<float>(std::sqrt(sq[i]));
    w.write("/neighbors", nb, {data.q, spec.truth_k});
    w.write("/distances", dist, {data.q, spec.truth_k});
  }
  if (!spec.distance.empty()) w.write_string_attribute("/", "distance", spec.distance);
  w.commit();
}

using app_test::Ran;
using app_test::slurp;

/// Path of the built knn executable.
inline std::string knn_executable() { return app_test::app_executable("knn"); }

/// Runs the knn executable with `args` (already shell-quoted where needed), capturing stdout/stderr
/// into files of `scratch`.
inline Ran run_knn(const std::string& args, const std::filesystem::path& scratch) {
  return app_test::run_executable(knn_executable(), args, scratch);
}

}  // namespace knn_test
