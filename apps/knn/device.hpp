#pragma once
/// \file device.hpp
/// Where knn's distance GEMM runs, and the GEMM itself (the one place a device backend plugs in).
#include <cstdint>
#include <string>

#include "tcemu/gemm.hpp"

namespace knn {

/// Device requested on the command line.
enum class Device {
  host,       ///< CPU: tcemu's host backend (Kokkos host loops + CBLAS)
  cuda,       ///< NVIDIA GPU through tcemu's CUDA backend
  automatic,  ///< the GPU when this build and the machine have one, else the host
};

/// "host", "cuda", "auto".
const char* to_string(Device device);
/// Parses "host" | "cuda" | "auto"; throws tcemu::InvalidArgument naming the value otherwise.
Device parse_device(const std::string& name);
/// The device a run will use: `automatic` becomes cuda when this build has the CUDA backend and a
/// GPU is present, else host; `cuda` throws tcemu::DeviceError "--device cuda: CUDA backend not
/// available in this build" without the backend, or "no CUDA device is available" without a GPU.
Device resolve_device(Device requested);

/// The distance GEMM: dots = Q * T^T, i.e. dots(i, j) = x_i . y_j, with
///   Q     b x d, row-major (queries),
///   T     n x d, row-major (train points),
///   dots  b x n, row-major (output, overwritten),
/// computed with options.scheme on the host (`device` must be host: these are host pointers; the
/// GPU search keeps its operands on the device, see search_device.hpp).
/// Returns tcemu's GemmReport (scheme actually used, fallback note, auto's plan).
/// Throws tcemu::InvalidArgument (shapes) or tcemu::DeviceError (device not available).
template <class T>
tcemu::GemmReport distance_gemm(Device device, const T* queries, std::int64_t b, const T* train,
                                std::int64_t n, std::int64_t d, T* dots,
                                const tcemu::GemmOptions& options);

}  // namespace knn
