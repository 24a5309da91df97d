#pragma once
/// \file search.hpp
/// Exact k-nearest-neighbour search by squared Euclidean distance, with the distance GEMM computed by
/// one tcemu scheme: ||x||^2 + ||y||^2 - 2 x.y for a batch of queries x against all train points y,
/// then an exact top-k per query.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app_common/gemm_log.hpp"
#include "dataset.hpp"
#include "device.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/nearest.hpp"
#include "tcemu/scheme.hpp"

namespace knn {

/// The k nearest train points of every query, as found by one scheme.
struct Neighbors {
  std::int64_t q = 0;
  int k = 0;
  std::vector<std::int32_t> index;  ///< q x k train indices, nearest first, ties to the smaller index
  std::vector<double> sq_dist;      ///< q x k squared distances as the scheme computed them
};

/// Double copies of the inputs, made once for the FP64-target schemes (not part of a search's time).
struct DoubleInputs {
  std::vector<double> train;    ///< n x d
  std::vector<double> queries;  ///< q x d
};
/// Converts the Dataset's float train points and queries to double (exact).
DoubleInputs to_double(const Dataset& data);

/// True when `scheme` computes in double: its target is fp64 (fp64; int8-ozaki and auto with
/// --target fp64). Other schemes compute in float.
bool computes_in_double(const tcemu::Scheme& scheme);

struct SearchOptions {
  std::int64_t batch = 1024;    ///< queries per distance GEMM (memory: batch x n values)
  std::int64_t limit = -1;      ///< search only the first `limit` queries (-1: all of data.q)
  Device device = Device::host;
  /// Called after each batch with (batches done, batches in total); may be empty.
  std::function<void(std::int64_t, std::int64_t)> on_batch;
};

/// What the GEMM calls of one search did.
struct SearchLog {
  tcemu::app::GemmLog gemm;       ///< the batches' GEMM reports folded (schemes used, fallbacks, first note)
  std::int64_t batches = 0;
  tcemu::GemmReport first;        ///< report of the first batch (auto's plan for --explain)
};

/// core's nearest-neighbour options for a search: the scheme's GemmOptions, batch and on_batch.
tcemu::NearestOptions nearest_options(const tcemu::Scheme& scheme, const SearchOptions& options);
/// A search's log from the primitive's (first report, folded reports, batch count).
SearchLog search_log(const tcemu::NearestLog& nearest);

/// Exact top-k search of every query of `data` with `scheme` through core's nearest-neighbour
/// primitive on Kokkos Views, tcemu::nearest (tcemu/nearest.hpp), on the execution space
/// options.device names: Kokkos::DefaultHostExecutionSpace for host, Kokkos::Cuda for cuda (the fused
/// distance + top-k kernels; the train points and queries are copied to the GPU once and kept between
/// calls with the same host pointers and shapes, so uploads are not part of a scheme's time after the
/// first call; only the q x k results come back). One source for both (search.cpp). Squared distances
/// (||x||^2 + ||y||^2) - 2 x.y (norms summed in double, rounded to the working type), x.y from the
/// emulated GEMM in float, or in double when computes_in_double(scheme) (then `dbl` supplies the double
/// inputs; nullptr converts them here). Results sorted by (distance, index), nearest first; NaN
/// distances sort last. Throws tcemu::InvalidArgument for k outside 1..n, batch < 1 or, on the GPU,
/// k > tcemu::kNearestMaxDeviceK (128); tcemu::DeviceError for cuda in a build whose Kokkos has no CUDA
/// backend (the message says how to configure one) or without a device; and whatever the GEMM throws.
Neighbors search(const Dataset& data, const tcemu::Scheme& scheme, int k, const SearchOptions& options,
                 SearchLog* log = nullptr, const DoubleInputs* dbl = nullptr);

}  // namespace knn
