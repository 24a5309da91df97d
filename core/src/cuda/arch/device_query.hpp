#pragma once
// What the current CUDA device is, asked once per call site: compute capability and the alignment
// the vector and TMA paths need. Host code only.
#include <cuda_runtime.h>

#include <cstdint>

#include "tcemu/cuda/check.hpp"

namespace tcemu::cuda::detail::arch {

/// Compute capability of the current device as 10 * major + minor (80, 90, ...); 0 when there is no
/// device or the runtime cannot say (the error is cleared, so later calls see no sticky state).
inline int compute_capability() {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return 10 * major + minor;
}

/// As compute_capability(), for callers that already hold a device: throws tcemu::DeviceError (through
/// TCEMU_CUDA) on any CUDA error instead of clearing it, so that an error left by an earlier launch is
/// reported rather than read as "no device".
inline int compute_capability_checked() {
  int dev = 0, major = 0, minor = 0;
  TCEMU_CUDA(cudaGetDevice(&dev));
  TCEMU_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  TCEMU_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return 10 * major + minor;
}

/// True when `p` is 16-byte aligned (128-bit vector loads, TMA base addresses).
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace tcemu::cuda::detail::arch
