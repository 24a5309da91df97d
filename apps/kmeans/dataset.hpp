#pragma once
/// \file dataset.hpp
/// Input of the kmeans app (docs/architecture.md, "Data formats"): /data (n x d float32), optional /labels (n int32),
/// optional /init_centroids (k x d float32), read and validated.
#include <cstdint>
#include <string>
#include <vector>

namespace kmeans {

/// Points to cluster, and what the file optionally carries with them. Row-major.
struct Dataset {
  std::string path;
  std::int64_t n = 0;                       ///< points
  std::int64_t d = 0;                       ///< dimensions
  std::vector<float> data;                  ///< n x d
  std::vector<std::int32_t> labels;         ///< n reference labels, or empty
  std::int64_t init_k = 0;                  ///< rows of /init_centroids (0 when absent)
  std::vector<float> init_centroids;        ///< init_k x d, or empty

  const float* point(std::int64_t i) const { return data.data() + i * d; }
};

/// ||x - c||^2 summed in FP64 (x: d floats, c: d doubles).
inline double sq_distance(const float* x, const double* c, std::int64_t d) {
  double s = 0;
  for (std::int64_t j = 0; j < d; ++j) {
    const double t = double(x[j]) - c[j];
    s += t * t;
  }
  return s;
}

/// Reads the file. Throws tcemu::IoError (missing file/dataset, wrong rank or dtype, empty, NaN/Inf)
/// or tcemu::InvalidArgument (labels length != n, /init_centroids with a d other than /data's),
/// each message starting with the path and naming the dataset.
Dataset load_dataset(const std::string& path);

/// The data replicated `times` times (labels too), every copy after the first perturbed by seeded
/// Gaussian noise of standard deviation `noise` (in the data's units): the scaled-up study of issue 5
/// (Fashion-MNIST x 10 = 700,000 points). /init_centroids are kept. Throws InvalidArgument for
/// times < 1 or noise < 0.
Dataset replicate(const Dataset& data, int times, double noise, std::uint64_t seed);

/// Checks k against the data: 1 <= k <= n, and k == init_k when `need_init` (--init file).
/// Throws tcemu::InvalidArgument naming `what` (the file) and the rule.
void validate_k(const Dataset& data, std::int64_t k, bool need_init, const std::string& what);

}  // namespace kmeans
