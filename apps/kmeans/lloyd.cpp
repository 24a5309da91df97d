#include "lloyd.hpp"

#include "app_common/timing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

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

  // Points in the working precision and their squared norms (computed in FP64, then rounded).
  std::vector<T> x_own;
  const T* x = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    x = data.data.data();
  } else {
    x_own.assign(data.data.begin(), data.data.end());
    x = x_own.data();
  }
  std::vector<T> xnorm(n);
  for (std::int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::int64_t j = 0; j < d; ++j) s += double(x[i * d + j]) * double(x[i * d + j]);
    xnorm[i] = static_cast<T>(s);
  }

  const std::int64_t batch = std::min<std::int64_t>(std::max<std::int64_t>(opt.batch, 1), n);
  std::vector<T> c(k * d), cnorm(k), dots(batch * k);
  std::vector<double> sums(k * d);
  std::vector<std::int64_t> counts(k);
  for (int iter = 1; iter <= opt.max_iter; ++iter) {
    // Centroids in the working precision.
    for (std::int64_t e = 0; e < k * d; ++e) c[e] = static_cast<T>(r.centroids[e]);
    for (std::int64_t j = 0; j < k; ++j) {
      double s = 0;
      for (std::int64_t l = 0; l < d; ++l) s += double(c[j * d + l]) * double(c[j * d + l]);
      cnorm[j] = static_cast<T>(s);
    }
    // Assignment: argmin_j ||x||^2 + ||c_j||^2 - 2 x.c_j, with x.c from the GEMM.
    bool changed = iter == 1;
    for (std::int64_t i0 = 0; i0 < n; i0 += batch) {
      const std::int64_t b = std::min(batch, n - i0);
      const auto tg = Clock::now();
      const GemmReport rep = gemm_host<T>(Op::N, Op::T, T(1), row_major<const T>(x + i0 * d, b, d),
                                          row_major<const T>(c.data(), k, d), T(0),
                                          row_major(dots.data(), b, k), gemm);
      r.gemm_seconds += seconds_since(tg);
      r.gemm.add(rep);
      for (std::int64_t i = 0; i < b; ++i) {
        std::int32_t best = 0;
        T best_d = std::numeric_limits<T>::infinity();
        for (std::int64_t j = 0; j < k; ++j) {
          const T dist = xnorm[i0 + i] + cnorm[j] - T(2) * dots[i * k + j];
          if (dist < best_d) {
            best_d = dist;
            best = static_cast<std::int32_t>(j);
          }
        }
        if (opt.recheck_margin > 0) {  // near-ties: decide with exact FP64 distances
          const double limit = double(best_d) + opt.recheck_margin * (double(xnorm[i0 + i]) + double(cnorm[best]));
          int within = 0;
          for (std::int64_t j = 0; j < k && within < 2; ++j)
            within += double(xnorm[i0 + i] + cnorm[j] - T(2) * dots[i * k + j]) <= limit;
          if (within > 1) {
            double best_exact = std::numeric_limits<double>::infinity();
            for (std::int64_t j = 0; j < k; ++j) {
              if (double(xnorm[i0 + i] + cnorm[j] - T(2) * dots[i * k + j]) > limit) continue;
              const double e = sq_distance(data.point(i0 + i), &r.centroids[j * d], d);
              if (e < best_exact) {
                best_exact = e;
                best = static_cast<std::int32_t>(j);
              }
            }
            ++r.rechecked;
          }
        }
        changed |= r.assignment[i0 + i] != best;
        r.assignment[i0 + i] = best;
      }
    }
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
