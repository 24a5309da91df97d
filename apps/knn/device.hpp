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
/// The device a run will use: `automatic` becomes host (knn's GPU path is not written yet);
/// `cuda` throws tcemu::DeviceError "--device cuda: CUDA backend not available in this build" when
/// tcemu was built without CUDA (TCEMU_HAVE_CUDA undefined), or a DeviceError saying that knn has no
/// GPU path yet when it was.
Device resolve_device(Device requested);

/// The distance GEMM: dots = Q * T^T, i.e. dots(i, j) = x_i . y_j, with
///   Q     b x d, row-major (queries),
///   T     n x d, row-major (train points),
///   dots  b x n, row-major (output, overwritten),
/// computed with options.scheme on `device` (host only in this build: T in host memory).
/// Returns tcemu's GemmReport (scheme actually used, fallback note, auto's plan).
/// Throws tcemu::InvalidArgument (shapes) or tcemu::DeviceError (device not available).
template <class T>
tcemu::GemmReport distance_gemm(Device device, const T* queries, std::int64_t b, const T* train,
                                std::int64_t n, std::int64_t d, T* dots,
                                const tcemu::GemmOptions& options);

}  // namespace knn
