#pragma once
/// \file cuda/nearest_cuda.hpp
/// tcemu::nearest_host (tcemu/nearest.hpp) on the GPU: the same contract (distances, ordering, ties,
/// near-tie re-ranking, errors) with every array in device memory. Per batch: one gemm_device for the
/// dot products, then one selection kernel that evaluates the distances on the fly, so only the
/// q x k results are written: k = 1 one warp per query (argmin plus the optional FP64 re-ranking),
/// k > 1 one block per query (per-thread sorted top-K in registers, then k block-wide min rounds).
#include <cstdint>

#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/nearest.hpp"

namespace tcemu::cuda {

/// Largest k nearest_device supports.
inline constexpr int kNearestMaxK = 128;

/// Device memory of nearest_device calls, grown on demand and kept until destroyed: the batch x n
/// dot-product block, norms computed here and the re-ranking counter. One per host thread at a time.
template <class T>
struct NearestWorkspace {
  DeviceBuffer<T> dots;
  DeviceBuffer<T> query_norms;
  DeviceBuffer<T> database_norms;
  DeviceBuffer<unsigned long long> rechecked;
};

/// A per-thread workspace used when nearest_device is given none.
template <class T>
NearestWorkspace<T>& default_nearest_workspace();

/// squared_norms_host on the GPU: x (rows x d, unit column stride) and out[rows] in device memory,
/// one warp per row (FP64 sum in another order than the host's, rounded to T). Asynchronous on
/// `stream`. Throws InvalidArgument for a non-unit column stride, DeviceError for a failed launch.
template <class T>
void squared_norms_device(MatrixView<const T> x, T* out, Stream stream = nullptr);

/// nearest_host on the GPU. queries, database, index, distance, query_norms, database_norms and
/// options.exact_database are *device* pointers, with the shapes and layouts of nearest_host;
/// distance may be nullptr. Returns when the results are written (the stream is synchronised).
/// `stream` may be nullptr (legacy default stream), `ws` nullptr (default_nearest_workspace()).
/// Throws DeviceError without a device or when a CUDA call fails (the message names the call),
/// InvalidArgument as nearest_host and for k > kNearestMaxK.
template <class T>
void nearest_device(MatrixView<const T> queries, MatrixView<const T> database, int k, std::int32_t* index,
                    double* distance, const NearestOptions& options, NearestLog* log = nullptr,
                    const T* query_norms = nullptr, const T* database_norms = nullptr, Stream stream = nullptr,
                    NearestWorkspace<T>* ws = nullptr);

}  // namespace tcemu::cuda
