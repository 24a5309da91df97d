#pragma once
// Launchers of the nearest_device kernels (nearest_kernels.cu); all asynchronous on `stream`.
#include <cstdint>

#include "tcemu/cuda/gemm_cuda.hpp"

namespace tcemu::cuda::detail {

/// out[r] = ||x_r||^2 (FP64, rounded to T) for rows x d at leading dimension ld, one warp per row.
template <class T>
void launch_squared_norms(const T* x, std::int64_t ld, std::int64_t rows, std::int64_t d, T* out, Stream stream);

/// k = 1 selection over b rows of dots (b x n, row-major): index[i] (and distance[i] unless null).
/// With margin > 0 the near-tie re-ranking against exact_db (n x d FP64) using queries (ld qld),
/// counting re-ranked queries into *rechecked.
template <class T>
void launch_argmin(const T* dots, const T* qnorm, const T* dnorm, std::int64_t b, std::int64_t n,
                   const T* queries, std::int64_t qld, const double* exact_db, std::int64_t d, double margin,
                   unsigned long long* rechecked, std::int32_t* index, double* distance, Stream stream);

/// 1 < k <= kNearestMaxK selection over b rows of dots: index/distance b x k row-major.
template <class T>
void launch_topk(const T* dots, const T* qnorm, const T* dnorm, std::int64_t b, std::int64_t n, int k,
                 std::int32_t* index, double* distance, Stream stream);

}  // namespace tcemu::cuda::detail
