#pragma once
/// \file nearest.hpp
/// Exact squared-L2 nearest neighbours through the emulated GEMM (the shape of FAISS's runDistance):
/// for every query x_i, the k database points y_j with the smallest
///   dist(i, j) = (||x_i||^2 + ||y_j||^2) - 2 x_i.y_j
/// where x.y comes from one emulated GEMM per batch of queries (options.gemm) and the norms are summed
/// in FP64 and rounded to T. knn uses it with k, kmeans' assignment step with k = 1. The CUDA version
/// of the same contract is tcemu::cuda::nearest_device (tcemu/cuda/nearest_cuda.hpp); the Kokkos View
/// entry tcemu::nearest(space, ...) (tcemu/nearest_views.hpp, included here) dispatches to either.
///
/// Ordering and ties: results of a query are sorted by (distance, database index), nearest first, so
/// equal distances go to the smaller index; NaN distances count as +infinity (and are reported so).
/// Distances are evaluated in T as written above (the sum of the norms first, no FMA contraction),
/// then widened to double; after a k = 1 near-tie re-ranking the reported distance is the T distance
/// of the point the re-ranking chose.
#include <cstdint>
#include <functional>
#include <vector>

#include "tcemu/gemm.hpp"
#include "tcemu/matrix.hpp"

namespace tcemu {

/// How nearest_host / cuda::nearest_device compute.
struct NearestOptions {
  GemmOptions gemm;             ///< scheme and policies of the distance GEMMs
  std::int64_t batch = 1024;    ///< queries per distance GEMM: the distance block is batch x n values of T
  /// k = 1 only: near-tie re-ranking. Database points whose computed distance lies within
  /// near_tie_margin * (||x||^2 + ||y_best||^2) of the best one are compared again with exact FP64
  /// distances sum_l (x_l - exact_database(j, l))^2 (ties: smaller index), so that ties the T
  /// evaluation cannot separate are not decided by rounding. 0 disables it.
  double near_tie_margin = 0;
  /// The database in FP64 (n x d row-major, same memory space as the database) for the re-ranking;
  /// required when near_tie_margin > 0 (e.g. kmeans' FP64 centroids whose rounding is `database`).
  const double* exact_database = nullptr;
  /// Called after each batch with (batches done, batches in total); may be empty.
  std::function<void(std::int64_t, std::int64_t)> on_batch;
};

/// What the distance GEMMs of one call did.
struct NearestLog {
  std::vector<GemmReport> reports;  ///< one per batch, in query order
  double gemm_seconds = 0;          ///< wall time of the distance GEMMs (device: synchronised)
  std::int64_t rechecked = 0;       ///< queries whose k = 1 answer the near-tie re-ranking decided
};

/// ||row||^2 of every row of `x` (rows x d, unit column stride), summed in FP64 in column order and
/// rounded to T, into out[rows] (host memory). Throws InvalidArgument for a non-unit column stride.
template <class T>
void squared_norms_host(MatrixView<const T> x, T* out);

/// The k nearest database points of every query, on the host.
///   queries   q x d view of host memory, unit column stride (row_stride >= d)
///   database  n x d view of host memory, unit column stride
///   index     q x k row-major host output: database row indices, nearest first
///   distance  q x k row-major host output: the T distances as computed, widened; nullptr: not written
///   query_norms / database_norms: precomputed squared_norms_host of the inputs (q / n values), or
///             nullptr to compute them here
/// Memory: a batch x n block of T (kept per thread between calls). `log` (may be nullptr) is reset.
/// Throws InvalidArgument (one line naming the argument) for k outside 1..n, batch < 1, d mismatch,
/// n >= 2^31, non-unit column strides, near_tie_margin < 0, or a margin with k > 1 or without
/// exact_database; and whatever the GEMM throws.
template <class T>
void nearest_host(MatrixView<const T> queries, MatrixView<const T> database, int k, std::int32_t* index,
                  double* distance, const NearestOptions& options, NearestLog* log = nullptr,
                  const T* query_norms = nullptr, const T* database_norms = nullptr);

namespace detail {
/// Argument checks shared by the host and CUDA entries (throws InvalidArgument naming `who`).
void check_nearest_args(const char* who, std::int64_t q, std::int64_t qd, std::int64_t q_col_stride,
                        std::int64_t n, std::int64_t nd, std::int64_t n_col_stride, int k,
                        const NearestOptions& options, bool has_index);
}  // namespace detail

}  // namespace tcemu

#include "tcemu/nearest_views.hpp"  // tcemu::nearest and tcemu::squared_norms on Kokkos Views
