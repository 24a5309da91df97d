#pragma once
/// \file lloyd_device.hpp
/// Lloyd's k-means with the data resident on an NVIDIA GPU: the assignment step through
/// tcemu::cuda::nearest_device with k = 1 (distance GEMM + argmin kernel), FP64 inertia and the
/// centroid update as CUDA kernels, so that
/// nothing but k counts and a few scalars cross PCIe per iteration. Same semantics as lloyd().
#include "lloyd.hpp"

namespace kmeans {

/// lloyd() on the GPU (see lloyd.hpp for the meaning of every field). Throws tcemu::DeviceError when
/// the build has no CUDA backend or a CUDA call fails (the message names the call).
template <class T>
LloydResult lloyd_device(const Dataset& data, const std::vector<double>& init,
                         const tcemu::GemmOptions& gemm, const LloydOptions& options,
                         const Progress& progress = {});

}  // namespace kmeans
