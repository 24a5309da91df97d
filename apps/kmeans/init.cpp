#include "init.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "tcemu/error.hpp"

namespace kmeans {

Init parse_init(const std::string& name) {
  if (name == "kmeans++") return Init::kmeanspp;
  if (name == "random") return Init::random;
  if (name == "file") return Init::file;
  throw tcemu::InvalidArgument("--init '" + name + "' is not one of: kmeans++, random, file");
}

std::vector<double> initial_centroids(const Dataset& data, std::int64_t k, Init init, std::uint64_t seed) {
  const std::int64_t n = data.n, d = data.d;
  std::vector<double> c(k * d);
  auto take = [&](std::int64_t row, std::int64_t point) {
    for (std::int64_t j = 0; j < d; ++j) c[row * d + j] = data.point(point)[j];
  };
  std::mt19937_64 gen(seed);
  switch (init) {
    case Init::file:
      for (std::int64_t e = 0; e < k * d; ++e) c[e] = data.init_centroids[e];
      return c;
    case Init::random: {
      // Partial Fisher-Yates over indices: k distinct points.
      std::vector<std::int64_t> idx(n);
      std::iota(idx.begin(), idx.end(), 0);
      for (std::int64_t i = 0; i < k; ++i) {
        std::uniform_int_distribution<std::int64_t> pick(i, n - 1);
        std::swap(idx[i], idx[pick(gen)]);
        take(i, idx[i]);
      }
      return c;
    }
    case Init::kmeanspp: {
      std::uniform_int_distribution<std::int64_t> first(0, n - 1);
      take(0, first(gen));
      std::vector<double> d2(n);
      for (std::int64_t i = 0; i < n; ++i) d2[i] = sq_distance(data.point(i), &c[0], d);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      for (std::int64_t r = 1; r < k; ++r) {
        const double total = std::accumulate(d2.begin(), d2.end(), 0.0);
        std::int64_t chosen = 0;
        if (total > 0) {
          double target = u(gen) * total, acc = 0;
          chosen = n - 1;
          for (std::int64_t i = 0; i < n; ++i) {
            acc += d2[i];
            if (acc > target && d2[i] > 0) {
              chosen = i;
              break;
            }
          }
        } else {  // fewer distinct points than k: any point (duplicates become empty clusters)
          chosen = first(gen);
        }
        take(r, chosen);
        for (std::int64_t i = 0; i < n; ++i) d2[i] = std::min(d2[i], sq_distance(data.point(i), &c[r * d], d));
      }
      return c;
    }
  }
  return c;
}

}  // namespace kmeans
