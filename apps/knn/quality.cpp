#include "quality.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <limits>

#include "tcemu/error.hpp"

namespace knn {

double exact_sq_distance(const Dataset& data, std::int64_t query, std::int64_t train_index) {
  const float* x = data.query_row(query);
  const float* y = data.train_row(train_index);
  double s = 0;
  for (std::int64_t i = 0; i < data.d; ++i) {
    const double t = double(x[i]) - double(y[i]);  // exact: difference of two floats fits in double
    s += t * t;
  }
  return s;
}

std::vector<double> exact_sq_distances(const Dataset& data, const Neighbors& result) {
  std::vector<double> out(result.index.size());
  const std::int64_t k = result.k;
  double* o = out.data();
  const std::int32_t* idx = result.index.data();
  const Dataset* dp = &data;
  Kokkos::parallel_for(
      "knn::exact_sq_distances",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, static_cast<std::int64_t>(out.size())),
      [=](std::int64_t e) { o[e] = exact_sq_distance(*dp, e / k, idx[e]); });
  return out;
}

std::vector<double> recall_thresholds(const Dataset& data, const std::vector<std::int32_t>& truth,
                                      std::int64_t truth_k, int k) {
  if (truth_k < k)
    throw tcemu::InvalidArgument("recall@" + std::to_string(k) + ": the ground truth has only " +
                                 std::to_string(truth_k) + " neighbours per query");
  if (static_cast<std::int64_t>(truth.size()) != data.q * truth_k)
    throw tcemu::InvalidArgument("recall: ground truth holds " + std::to_string(truth.size()) +
                                 " indices, expected " + std::to_string(data.q) + " x " +
                                 std::to_string(truth_k));
  std::vector<double> out(static_cast<std::size_t>(data.q), 0.0);
  for (std::int64_t i = 0; i < data.q; ++i)
    for (int j = 0; j < k; ++j)
      out[i] = std::max(out[i], exact_sq_distance(data, i, truth[i * truth_k + j]));
  return out;
}

double recall_at_k(const Neighbors& result, const std::vector<double>& exact,
                   const std::vector<double>& thresholds) {
  std::int64_t correct = 0;
  for (std::int64_t i = 0; i < result.q; ++i)
    for (int j = 0; j < result.k; ++j)
      if (exact[i * result.k + j] <= thresholds[i] * (1.0 + 1e-12)) ++correct;
  return static_cast<double>(correct) / static_cast<double>(result.q * result.k);
}

double max_relative_distance_error(const Neighbors& result, const std::vector<double>& exact) {
  double worst = 0;
  for (std::size_t e = 0; e < exact.size(); ++e) {
    if (exact[e] == 0) continue;
    const double d = result.sq_dist[e];
    if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, std::abs(d - exact[e]) / exact[e]);
  }
  return worst;
}

}  // namespace knn
