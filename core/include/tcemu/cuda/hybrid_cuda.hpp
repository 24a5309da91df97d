#pragma once
/// \file hybrid_cuda.hpp
/// Device adapter of tcemu::gemm_hybrid (APE hybrid execution, hybrid.hpp): labels from
/// profile_device, sub-GEMMs through gemm_device on views of device memory. Like gemm_cuda.hpp it
/// includes no CUDA header.
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/hybrid.hpp"

namespace tcemu::cuda {

/// Backend for gemm_hybrid on the GPU; `stream` and `ws` as for gemm_device (nullptr: defaults).
template <class T>
struct DeviceBackend {
  Stream stream = nullptr;
  Workspace* ws = nullptr;
  RangeProfile profile(MatrixView<const T> x, Side side) const { return profile_device<T>(x, side, stream, ws); }
  GemmReport gemm(MatrixView<const T> a, MatrixView<const T> b, T alpha, T beta, MatrixView<T> c,
                  const GemmOptions& o) const {
    return gemm_device<T>(Op::N, Op::N, alpha, a, b, beta, c, o, stream, ws);
  }
};

}  // namespace tcemu::cuda
