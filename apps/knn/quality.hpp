#pragma once
/// \file quality.hpp
/// Quality of a knn result: recall@k against a ground truth, tie-robust and exact, and the relative
/// error of the squared distances a scheme computed.
#include <cstdint>
#include <vector>

#include "dataset.hpp"
#include "search.hpp"

namespace knn {

/// Exact squared distance sum_i (x_i - y_i)^2 of query `query` and train point `train_index`, in
/// double (exact up to double rounding of the sum; exact for integer data such as pixels).
double exact_sq_distance(const Dataset& data, std::int64_t query, std::int64_t train_index);

/// Exact squared distances of every returned neighbour: q x k, same layout as result.index.
std::vector<double> exact_sq_distances(const Dataset& data, const Neighbors& result);

/// Per-query acceptance threshold of recall@k: the exact squared distance of the k-th nearest
/// ground-truth neighbour (the largest exact distance among each query's first k truth indices).
/// `truth` is q x truth_k row-major with truth_k >= k (e.g. /neighbors, or the fp64 run's indices).
/// Throws tcemu::InvalidArgument when truth_k < k or the sizes disagree.
std::vector<double> recall_thresholds(const Dataset& data, const std::vector<std::int32_t>& truth,
                                      std::int64_t truth_k, int k);

/// recall@k = correct / (q k), where a returned neighbour is correct when its exact squared distance
/// is <= the query's threshold * (1 + 1e-12). Ties at the k-th distance therefore never count as
/// misses, whichever of the tied points a scheme returns. `exact` from exact_sq_distances(result).
double recall_at_k(const Neighbors& result, const std::vector<double>& exact,
                   const std::vector<double>& thresholds);

/// max over queries and returned neighbours of |d_scheme - d_exact| / d_exact on squared distances
/// (entries with d_exact == 0 are skipped; 0 when all are). NaN/Inf d_scheme gives +Inf.
double max_relative_distance_error(const Neighbors& result, const std::vector<double>& exact);

}  // namespace knn
