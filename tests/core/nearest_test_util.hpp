#pragma once
// Helpers of the nearest-neighbour tests (tcemu/nearest.hpp): small-integer data, whose dot products
// and norms every scheme computes exactly, so the expected neighbours (ties included) are known from
// an exact brute force.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace tcemu::test {

/// rows x d row-major values drawn from {-3..3} (few distinct values: many equal distances).
template <class T>
std::vector<T> small_integers(std::int64_t rows, std::int64_t d, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> pick(-3, 3);
  std::vector<T> v(static_cast<std::size_t>(rows * d));
  for (T& x : v) x = T(pick(gen));
  return v;
}

/// Exact k nearest database rows of every query by (squared distance, index): q x k indices and
/// distances, row-major.
template <class T>
void brute_force_nearest(const std::vector<T>& queries, const std::vector<T>& database, std::int64_t d, int k,
                         std::vector<std::int32_t>& index, std::vector<double>& distance) {
  const std::int64_t q = std::int64_t(queries.size()) / d, n = std::int64_t(database.size()) / d;
  index.assign(std::size_t(q * k), 0);
  distance.assign(std::size_t(q * k), 0);
  std::vector<double> dist(static_cast<std::size_t>(n));
  std::vector<std::int32_t> order(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < q; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t l = 0; l < d; ++l) {
        const double t = double(queries[i * d + l]) - double(database[j * d + l]);
        s += t * t;
      }
      dist[j] = s;
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return dist[a] < dist[b]; });
    for (int r = 0; r < k; ++r) {
      index[i * k + r] = order[r];
      distance[i * k + r] = dist[order[r]];
    }
  }
}

}  // namespace tcemu::test
