// tcemu::nearest_host (tcemu/nearest.hpp): per batch of queries one gemm_host for the dot products,
// then per query (Kokkos host threads) the distances and either a linear argmin (k = 1, with the
// optional FP64 near-tie re-ranking) or std::partial_sort on (distance, index).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "tcemu/error.hpp"
#include "tcemu/nearest.hpp"

namespace tcemu {
namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

/// Index of the nearest point of one distance row (NaN as +inf, ties to the smaller index).
template <class T>
std::int64_t argmin_row(const T* dist, std::int64_t n) {
  std::int64_t best = 0;
  T best_d = std::numeric_limits<T>::infinity();
  for (std::int64_t j = 0; j < n; ++j)
    if (dist[j] < best_d) {  // NaN is never smaller; an all-inf/NaN row keeps index 0
      best_d = dist[j];
      best = j;
    }
  return best;
}

/// The near-tie re-ranking of NearestOptions::near_tie_margin for one query; true when it ran.
template <class T>
bool rerank_near_ties(const T* dist, std::int64_t n, const T* query, const double* exact_db, std::int64_t d,
                      T query_norm, const T* db_norm, double margin, std::int64_t& best) {
  const double limit = double(dist[best]) + margin * (double(query_norm) + double(db_norm[best]));
  int within = 0;
  for (std::int64_t j = 0; j < n && within < 2; ++j) within += double(dist[j]) <= limit;
  if (within < 2) return false;
  double best_exact = std::numeric_limits<double>::infinity();
  for (std::int64_t j = 0; j < n; ++j) {
    if (!(double(dist[j]) <= limit)) continue;
    double e = 0;
    for (std::int64_t l = 0; l < d; ++l) {
      const double t = double(query[l]) - exact_db[j * d + l];
      e += t * t;
    }
    if (e < best_exact) {  // candidates in increasing j: ties keep the smaller index
      best_exact = e;
      best = j;
    }
  }
  return true;
}

}  // namespace

template <class T>
void squared_norms_host(MatrixView<const T> x, T* out) {
  if (x.col_stride != 1 && x.rows > 0) throw InvalidArgument("squared_norms_host: x must have a unit column stride");
  const T* p = x.data;
  const std::int64_t d = x.cols, ld = x.row_stride;
  Kokkos::parallel_for(
      "tcemu::squared_norms_host", Kokkos::RangePolicy<Host>(0, x.rows), [=](std::int64_t i) {
        double s = 0;
        for (std::int64_t j = 0; j < d; ++j) s += double(p[i * ld + j]) * double(p[i * ld + j]);
        out[i] = static_cast<T>(s);
      });
}

template <class T>
void nearest_host(MatrixView<const T> queries, MatrixView<const T> database, int k, std::int32_t* index,
                  double* distance, const NearestOptions& options, NearestLog* log, const T* query_norms,
                  const T* database_norms) {
  detail::check_nearest_args("nearest_host", queries.rows, queries.cols, queries.col_stride, database.rows,
                             database.cols, database.col_stride, k, options, index != nullptr);
  const std::int64_t q = queries.rows, n = database.rows, d = queries.cols;
  if (log) *log = NearestLog{};
  std::vector<T> own_qn, own_dn;
  if (!query_norms) {
    own_qn.resize(std::size_t(q));
    squared_norms_host(queries, own_qn.data());
    query_norms = own_qn.data();
  }
  if (!database_norms) {
    own_dn.resize(std::size_t(n));
    squared_norms_host(database, own_dn.data());
    database_norms = own_dn.data();
  }
  if (q == 0) return;
  const std::int64_t batch = std::min(options.batch, q);
  const std::int64_t batches = (q + batch - 1) / batch;
  // The batch x n distance block is the largest buffer (245 MB for 1024 x 60000 floats); it is kept
  // between calls so that repeated searches do not pay its page faults again.
  static thread_local std::vector<T> block;
  if (block.size() < std::size_t(batch * n)) {
    block.clear();
    block.shrink_to_fit();
    block.resize(std::size_t(batch * n));
  }
  std::vector<char> rechecked(static_cast<std::size_t>(batch));
  const double margin = options.near_tie_margin;
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    const std::int64_t lo = bi * batch, b = std::min(batch, q - lo);
    const MatrixView<const T> qb{queries.data + lo * queries.row_stride, b, d, queries.row_stride, 1};
    const auto t0 = std::chrono::steady_clock::now();
    const GemmReport rep = gemm_host<T>(Op::N, Op::T, T(1), qb, database, T(0), row_major(block.data(), b, n),
                                        options.gemm);
    if (log) {
      log->gemm_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      log->reports.push_back(rep);
    }
    T* rows = block.data();
    const T* qn = query_norms + lo;
    const T* dn = database_norms;
    const T* qdata = qb.data;
    const std::int64_t qld = queries.row_stride;
    const double* exact = options.exact_database;
    char* flags = rechecked.data();
    std::int32_t* idx_out = index + lo * k;
    double* dist_out = distance ? distance + lo * k : nullptr;
    Kokkos::parallel_for(
        "tcemu::nearest_host", Kokkos::RangePolicy<Host>(0, b), [=](std::int64_t i) {
          T* row = rows + i * n;
          for (std::int64_t j = 0; j < n; ++j) row[j] = qn[i] + dn[j] - T(2) * row[j];
          if (k == 1) {
            std::int64_t best = argmin_row(row, n);
            flags[i] = margin > 0 && rerank_near_ties(row, n, qdata + i * qld, exact, d, qn[i], dn, margin, best);
            idx_out[i] = std::int32_t(best);
            if (dist_out) dist_out[i] = std::isnan(row[best]) ? INFINITY : double(row[best]);
            return;
          }
          for (std::int64_t j = 0; j < n; ++j)
            if (std::isnan(row[j])) row[j] = std::numeric_limits<T>::infinity();  // NaN sorts last
          std::vector<std::int32_t> order(static_cast<std::size_t>(n));
          std::iota(order.begin(), order.end(), 0);
          std::partial_sort(order.begin(), order.begin() + k, order.end(), [row](std::int32_t a, std::int32_t c) {
            return row[a] < row[c] || (row[a] == row[c] && a < c);
          });
          for (int j = 0; j < k; ++j) {
            idx_out[i * k + j] = order[j];
            if (dist_out) dist_out[i * k + j] = double(row[order[j]]);
          }
        });
    if (log && margin > 0) log->rechecked += std::count(rechecked.begin(), rechecked.begin() + b, char(1));
    if (options.on_batch) options.on_batch(bi + 1, batches);
  }
}

template void squared_norms_host<float>(MatrixView<const float>, float*);
template void squared_norms_host<double>(MatrixView<const double>, double*);
template void nearest_host<float>(MatrixView<const float>, MatrixView<const float>, int, std::int32_t*, double*,
                                  const NearestOptions&, NearestLog*, const float*, const float*);
template void nearest_host<double>(MatrixView<const double>, MatrixView<const double>, int, std::int32_t*,
                                   double*, const NearestOptions&, NearestLog*, const double*, const double*);

}  // namespace tcemu
