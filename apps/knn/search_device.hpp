#pragma once
/// \file search_device.hpp
/// knn's GPU path: train points and queries resident in device memory, then core's
/// tcemu::cuda::nearest_device (distance GEMM per batch, distances + exact top-k in one kernel), so
/// only the q x k results cross PCIe.
#include <cstdint>

#include "search.hpp"

namespace knn {

/// Largest k the GPU top-k kernel supports.
inline constexpr int kMaxDeviceK = 128;  // tcemu::cuda::kNearestMaxK

/// search_typed() on the GPU: same inputs, outputs and tie rules (distance, then smaller index;
/// NaN sorts last) as the host search, squared distances evaluated as (||x||^2 + ||y||^2) - 2 x.y
/// without FMA contraction, exactly like the host (tcemu/cuda/nearest_cuda.hpp). Device copies of `train`/`queries` are cached
/// between calls with the same host pointers and sizes (uploads are not part of a scheme's time
/// after the first call). Throws tcemu::DeviceError (no GPU, CUDA failure naming the call) or
/// tcemu::InvalidArgument for k > kMaxDeviceK.
template <class T>
Neighbors search_device(const T* train, const T* queries, std::int64_t n, std::int64_t q, std::int64_t d,
                        const tcemu::Scheme& scheme, int k, const SearchOptions& options, SearchLog* log);

}  // namespace knn
