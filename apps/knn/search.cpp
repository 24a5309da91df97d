// knn's search, one source for every execution space: the data as Kokkos Views in the space's memory
// (the host arrays themselves on the host; copies kept between calls on the GPU), then core's
// tcemu::nearest (norms, per batch the emulated distance GEMM and the exact top-k); only the q x k
// results come back to the host.
#include "search.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>

#include "app_common/environment.hpp"
#include "app_common/execution_space.hpp"
#include "tcemu/error.hpp"
#include "tcemu/nearest.hpp"

namespace knn {
namespace {

template <class T, class Mem>
using Rows = Kokkos::View<T**, Kokkos::LayoutRight, Mem>;
template <class T>
using HostRows = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

/// What a search keeps in memory space Mem between calls: the copies of train points and queries
/// (re-made only when the host pointer or the shape changes, so uploads are not part of a scheme's
/// time after the first call) and the result Views. One per thread and element type; emptied at
/// Kokkos::finalize, which no View may outlive.
template <class T, class Mem>
struct Resident {
  Rows<T, Mem> train, queries;
  const T* train_host = nullptr;
  const T* queries_host = nullptr;
  Rows<std::int32_t, Mem> index;
  Rows<double, Mem> distance;
};

template <class T, class Mem>
Resident<T, Mem>& resident() {
  static thread_local Resident<T, Mem>* state = nullptr;
  if (!state) {
    state = new Resident<T, Mem>();
    // The hook runs on the thread that finalizes Kokkos: it deletes this thread's state by pointer
    // (a thread_local named inside it would be the finalizing thread's own).
    Resident<T, Mem>* mine = state;
    Kokkos::push_finalize_hook([mine] { delete mine; });
  }
  return *state;
}

/// `host` (rows x d) as a View in Mem: the host array itself where Mem is host memory, else the copy
/// in `slot`, made again when `host` or the shape changed.
template <class T, class Mem>
Rows<const T, Mem> in_space(Rows<T, Mem>& slot, const T*& slot_host, const T* host, std::int64_t rows,
                            std::int64_t d) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    (void)slot, (void)slot_host;
    return HostRows<const T>(host, rows, d);
  } else {
    if (slot_host != host || std::int64_t(slot.extent(0)) != rows || std::int64_t(slot.extent(1)) != d) {
      slot = Rows<T, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "knn::rows"), rows, d);
      Kokkos::deep_copy(slot, HostRows<const T>(host, rows, d));
      slot_host = host;
    }
    return slot;
  }
}

/// A q x k result View in Mem: `host` itself where Mem is host memory, else `slot` (reallocated when
/// the shape changed), copied to `host` by the caller.
template <class V, class Mem>
Rows<V, Mem> result_in_space(Rows<V, Mem>& slot, const HostRows<V>& host) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    (void)slot;
    return host;
  } else {
    if (slot.extent(0) != host.extent(0) || slot.extent(1) != host.extent(1))
      slot = Rows<V, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "knn::result"), host.extent(0),
                          host.extent(1));
    return slot;
  }
}

/// search() on the execution space Space.
template <class Space, class T>
Neighbors search_on(const T* train, const T* queries, std::int64_t n, std::int64_t q, std::int64_t d,
                    const tcemu::Scheme& scheme, int k, const SearchOptions& options, SearchLog* log,
                    bool inputs_persist = true) {
  using Mem = typename Space::memory_space;
  if (tcemu::detail::is_cuda_execution_space<Space>() && k > tcemu::kNearestMaxDeviceK)
    throw tcemu::InvalidArgument("--k " + std::to_string(k) + ": the GPU top-k supports k <= " +
                                 std::to_string(tcemu::kNearestMaxDeviceK) + "; use --device host");
  Neighbors out;
  out.q = q;
  out.k = k;
  out.index.resize(static_cast<std::size_t>(q * k));
  out.sq_dist.resize(static_cast<std::size_t>(q * k));
  const HostRows<std::int32_t> host_index(out.index.data(), q, k);
  const HostRows<double> host_distance(out.sq_dist.data(), q, k);
  Resident<T, Mem>& r = resident<T, Mem>();
  const auto train_view = in_space(r.train, r.train_host, train, n, d);
  const auto query_view = in_space(r.queries, r.queries_host, queries, q, d);
  const auto index = result_in_space(r.index, host_index);
  const auto distance = result_in_space(r.distance, host_distance);
  tcemu::NearestLog nearest_log;
  tcemu::nearest(Space(), query_view, train_view, k, index, distance, nearest_options(scheme, options),
                 log ? &nearest_log : nullptr);
  Kokkos::deep_copy(host_index, index);  // nothing to copy where Mem is host memory (same View)
  Kokkos::deep_copy(host_distance, distance);
  // Inputs freed after this call (a temporary FP64 copy) may come back at the same address with
  // other data: the copies in Mem must not be matched to them by pointer again.
  if (!inputs_persist) r.train_host = r.queries_host = nullptr;
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
  return tcemu::app::with_execution_space(options.device, [&](auto space) {
    using Space = decltype(space);
    if (!computes_in_double(scheme))
      return search_on<Space, float>(data.train.data(), data.queries.data(), data.n, q, data.d, scheme, k, options,
                                     log);
    DoubleInputs local;
    const DoubleInputs* inputs = dbl;
    if (!inputs) {
      local = to_double(data);
      inputs = &local;
    }
    return search_on<Space, double>(inputs->train.data(), inputs->queries.data(), data.n, q, data.d, scheme, k,
                                    options, log, /*inputs_persist=*/inputs != &local);
  });
}

}  // namespace knn
