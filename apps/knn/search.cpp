#include "app_common/environment.hpp"
#include "search.hpp"

#include <algorithm>

#include "search_device.hpp"
#include "tcemu/error.hpp"
#include "tcemu/nearest.hpp"

namespace knn {
namespace {

/// search() on the host: tcemu::nearest_host over the whole query set.
template <class T>
Neighbors search_typed(const T* train, const T* queries, std::int64_t n, std::int64_t q,
                       std::int64_t d, const tcemu::Scheme& scheme, int k,
                       const SearchOptions& options, SearchLog* log) {
  Neighbors out;
  out.q = q;
  out.k = k;
  out.index.resize(static_cast<std::size_t>(q * k));
  out.sq_dist.resize(static_cast<std::size_t>(q * k));
  tcemu::NearestLog nearest_log;
  tcemu::nearest_host<T>(tcemu::row_major(queries, q, d), tcemu::row_major(train, n, d), k, out.index.data(),
                         out.sq_dist.data(), nearest_options(scheme, options), log ? &nearest_log : nullptr);
  if (log) *log = search_log(nearest_log);
  return out;
}

}  // namespace

tcemu::NearestOptions nearest_options(const tcemu::Scheme& scheme, const SearchOptions& options) {
  tcemu::NearestOptions o;
  o.gemm = tcemu::app::gemm_options(scheme);
  o.batch = options.batch;
  o.on_batch = options.on_batch;
  return o;
}

SearchLog search_log(const tcemu::NearestLog& nearest) {
  SearchLog log;
  log.batches = static_cast<std::int64_t>(nearest.reports.size());
  if (!nearest.reports.empty()) log.first = nearest.reports.front();
  for (const tcemu::GemmReport& r : nearest.reports) log.gemm.add(r);
  return log;
}

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
