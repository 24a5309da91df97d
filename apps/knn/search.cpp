#include "app_common/environment.hpp"
#include "search.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "search_device.hpp"
#include "tcemu/error.hpp"

namespace knn {
namespace {

/// ||row||^2 of every row of a rows x d row-major matrix, summed in double, rounded to T.
template <class T>
std::vector<T> squared_norms(const T* x, std::int64_t rows, std::int64_t d) {
  std::vector<T> out(static_cast<std::size_t>(rows));
  T* o = out.data();
  Kokkos::parallel_for(
      "knn::squared_norms", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, rows),
      [=](std::int64_t i) {
        double s = 0;
        for (std::int64_t j = 0; j < d; ++j) s += double(x[i * d + j]) * double(x[i * d + j]);
        o[i] = static_cast<T>(s);
      });
  return out;
}

template <class T>
void record(SearchLog* log, std::int64_t batch, const tcemu::GemmReport& report) {
  if (!log) return;
  if (batch == 0) log->first = report;
  log->gemm.add(report);
}

template <class T>
Neighbors search_typed(const T* train, const T* queries, std::int64_t n, std::int64_t q,
                       std::int64_t d, const tcemu::Scheme& scheme, int k,
                       const SearchOptions& options, SearchLog* log) {
  const std::int64_t batch = std::min(options.batch, q);
  const std::int64_t batches = (q + batch - 1) / batch;
  if (log) {
    *log = SearchLog{};
    log->batches = batches;
  }
  const std::vector<T> train_norm = squared_norms(train, n, d);
  const std::vector<T> query_norm = squared_norms(queries, q, d);

  Neighbors out;
  out.q = q;
  out.k = k;
  out.index.resize(static_cast<std::size_t>(q * k));
  out.sq_dist.resize(static_cast<std::size_t>(q * k));
  // The batch x n distance block is the largest buffer of a search (245 MB for 1024 x 60000 floats);
  // it is kept between searches so that every scheme does not pay its page faults again.
  static thread_local std::vector<T> dist;
  if (dist.size() < static_cast<std::size_t>(batch * n)) {
    dist.clear();
    dist.shrink_to_fit();
    dist.resize(static_cast<std::size_t>(batch * n));
  }
  const tcemu::GemmOptions gemm_options = tcemu::app::gemm_options(scheme);

  for (std::int64_t bi = 0; bi < batches; ++bi) {
    const std::int64_t lo = bi * batch;
    const std::int64_t b = std::min(batch, q - lo);
    record<T>(log, bi,
              distance_gemm<T>(options.device, queries + lo * d, b, train, n, d, dist.data(), gemm_options));

    T* dp = dist.data();
    const T* tn = train_norm.data();
    const T* qn = query_norm.data() + lo;
    std::int32_t* idx_out = out.index.data() + lo * k;
    double* d_out = out.sq_dist.data() + lo * k;
    Kokkos::parallel_for(
        "knn::topk", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, b), [=](std::int64_t i) {
          T* row = dp + i * n;
          for (std::int64_t j = 0; j < n; ++j) {
            const T v = qn[i] + tn[j] - T(2) * row[j];
            row[j] = std::isnan(v) ? std::numeric_limits<T>::infinity() : v;  // NaN sorts last
          }
          std::vector<std::int32_t> order(static_cast<std::size_t>(n));
          std::iota(order.begin(), order.end(), 0);
          std::partial_sort(order.begin(), order.begin() + k, order.end(),
                            [row](std::int32_t a, std::int32_t c) {
                              return row[a] < row[c] || (row[a] == row[c] && a < c);
                            });
          for (int j = 0; j < k; ++j) {
            idx_out[i * k + j] = order[j];
            d_out[i * k + j] = static_cast<double>(row[order[j]]);
          }
        });
    if (options.on_batch) options.on_batch(bi + 1, batches);
  }
  return out;
}

}  // namespace

DoubleInputs to_double(const Dataset& data) {
  return DoubleInputs{std::vector<double>(data.train.begin(), data.train.end()),
                      std::vector<double>(data.queries.begin(), data.queries.end())};
}

bool computes_in_double(const tcemu::Scheme& scheme) { return scheme.target == tcemu::Target::fp64; }

Neighbors search(const Dataset& data, const tcemu::Scheme& scheme, int k, const SearchOptions& options,
                 SearchLog* log, const DoubleInputs* dbl) {
  if (k < 1 || k > data.n)
    throw tcemu::InvalidArgument("knn search: k = " + std::to_string(k) + " must be in 1.." +
                                 std::to_string(data.n));
  if (options.batch < 1)
    throw tcemu::InvalidArgument("knn search: --batch " + std::to_string(options.batch) + " must be >= 1");
  const std::int64_t q = options.limit < 0 ? data.q : std::min(options.limit, data.q);
  if (q < 1) throw tcemu::InvalidArgument("knn search: no queries to search");
  const bool gpu = options.device == Device::cuda;
  if (!computes_in_double(scheme))
    return gpu ? search_device<float>(data.train.data(), data.queries.data(), data.n, q, data.d, scheme, k,
                                      options, log)
               : search_typed<float>(data.train.data(), data.queries.data(), data.n, q, data.d, scheme, k,
                               options, log);
  DoubleInputs local;
  if (!dbl) {
    local = to_double(data);
    dbl = &local;
  }
  return gpu ? search_device<double>(dbl->train.data(), dbl->queries.data(), data.n, q, data.d, scheme, k,
                                     options, log)
             : search_typed<double>(dbl->train.data(), dbl->queries.data(), data.n, q, data.d, scheme, k,
                                    options, log);
}

}  // namespace knn
