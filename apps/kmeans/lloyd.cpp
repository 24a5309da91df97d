#include "lloyd.hpp"

#include "app_common/timing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tcemu/nearest.hpp"

namespace kmeans {
namespace {

using tcemu::app::Clock;
using tcemu::app::seconds_since;

}  // namespace

template <class T>
LloydResult lloyd(const Dataset& data, const std::vector<double>& init, const tcemu::GemmOptions& gemm,
                  const LloydOptions& opt, const Progress& progress) {
  using namespace tcemu;
  const std::int64_t n = data.n, d = data.d, k = opt.k;
  LloydResult r;
  r.centroids = init;
  r.assignment.assign(n, 0);
  const auto t_start = Clock::now();

  // Points in the working precision and their squared norms (computed in FP64, then rounded to T).
  std::vector<T> x_own;
  const T* x = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    x = data.data.data();
  } else {
    x_own.assign(data.data.begin(), data.data.end());
    x = x_own.data();
  }
  std::vector<T> xnorm(n);
  tcemu::squared_norms_host(row_major<const T>(x, n, d), xnorm.data());

  // Assignment: core's nearest-neighbour primitive with k = 1 (argmin of ||x||^2 + ||c||^2 - 2 x.c,
  // ties to the lower index) and its FP64 near-tie re-ranking against the FP64 centroids.
  NearestOptions nearest;
  nearest.gemm = gemm;
  nearest.batch = std::max<std::int64_t>(opt.batch, 1);
  nearest.near_tie_margin = opt.recheck_margin;
  nearest.exact_database = r.centroids.data();
  std::vector<T> c(k * d);
  std::vector<std::int32_t> next(n);
  std::vector<double> sums(k * d);
  std::vector<std::int64_t> counts(k);
  for (int iter = 1; iter <= opt.max_iter; ++iter) {
    // Centroids in the working precision.
    for (std::int64_t e = 0; e < k * d; ++e) c[e] = static_cast<T>(r.centroids[e]);
    NearestLog log;
    nearest_host<T>(row_major<const T>(x, n, d), row_major<const T>(c.data(), k, d), 1, next.data(), nullptr,
                    nearest, &log, xnorm.data());
    r.gemm_seconds += log.gemm_seconds;
    for (const GemmReport& rep : log.reports) r.gemm.add(rep);
    r.rechecked += log.rechecked;
    const bool changed = iter == 1 || next != r.assignment;
    r.assignment.swap(next);
    // Inertia of this assignment against the centroids it was made with, in FP64.
    std::vector<double> dist_to_own(n);
    double inertia = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      dist_to_own[i] = sq_distance(data.point(i), &r.centroids[r.assignment[i] * d], d);
      inertia += dist_to_own[i];
    }
    const double prev = r.inertia.empty() ? std::numeric_limits<double>::infinity() : r.inertia.back();
    r.inertia.push_back(inertia);
    r.iterations = iter;
    const double rel = std::isfinite(prev) ? std::fabs(prev - inertia) / std::max(inertia, 1e-300) : 1.0;
    if (progress) progress(iter, inertia, rel);
    if (!changed || rel <= opt.tol) {
      r.converged = true;
      break;
    }
    if (iter == opt.max_iter) break;
    // Update: means of the assigned points; empty clusters take the farthest points.
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(counts.begin(), counts.end(), 0);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t a = r.assignment[i];
      ++counts[a];
      for (std::int64_t j = 0; j < d; ++j) sums[a * d + j] += data.point(i)[j];
    }
    std::vector<std::int64_t> order;
    for (std::int64_t j = 0; j < k; ++j) {
      if (counts[j] > 0) {
        for (std::int64_t l = 0; l < d; ++l) r.centroids[j * d + l] = sums[j * d + l] / double(counts[j]);
        continue;
      }
      if (order.empty()) {  // points by decreasing distance to their centroid (ties: lower index)
        order.resize(n);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::int64_t p, std::int64_t q) { return dist_to_own[p] > dist_to_own[q]; });
      }
      const std::int64_t p = order[r.reseeded % n];
      for (std::int64_t l = 0; l < d; ++l) r.centroids[j * d + l] = data.point(p)[l];
      ++r.reseeded;
    }
  }
  r.seconds = seconds_since(t_start);
  return r;
}

template LloydResult lloyd<float>(const Dataset&, const std::vector<double>&, const tcemu::GemmOptions&,
                                  const LloydOptions&, const Progress&);
template LloydResult lloyd<double>(const Dataset&, const std::vector<double>&, const tcemu::GemmOptions&,
                                   const LloydOptions&, const Progress&);

}  // namespace kmeans
