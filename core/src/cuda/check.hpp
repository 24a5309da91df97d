#pragma once
// Error checking for CUDA runtime and cuBLAS calls: every failure becomes a tcemu::DeviceError whose
// message names the call, the error and the source line.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "tcemu/error.hpp"

namespace tcemu::cuda::detail {

[[noreturn]] void throw_cuda(cudaError_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas(cublasStatus_t s, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda(e, call, file, line);
}
inline void check_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) throw_cublas(s, call, file, line);
}

}  // namespace tcemu::cuda::detail

/// Checks a CUDA runtime call.
#define TCEMU_CUDA(call) ::tcemu::cuda::detail::check_cuda((call), #call, __FILE__, __LINE__)
/// Checks a cuBLAS call.
#define TCEMU_CUBLAS(call) ::tcemu::cuda::detail::check_cublas((call), #call, __FILE__, __LINE__)
/// Checks the launch of the kernel `name` just issued (configuration errors, earlier async faults).
#define TCEMU_LAUNCHED(name) \
  ::tcemu::cuda::detail::check_cuda(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)
