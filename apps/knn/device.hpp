#pragma once
/// \file device.hpp
/// Where knn's distance GEMM runs, and the GEMM itself (the one place a device backend plugs in).
#include <cstdint>
#include <string>

#include "app_common/device.hpp"
#include "tcemu/gemm.hpp"

namespace knn {

/// The --device option is tcemu's (app_common/device.hpp).
using Device = tcemu::app::Device;

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
