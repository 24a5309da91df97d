#pragma once
/// \file cuda/check.hpp
/// For CUDA code (includes the CUDA runtime and cuBLAS headers): error checking of CUDA runtime and
/// cuBLAS calls, where every failure becomes a tcemu::DeviceError whose message names the call, the
/// error and the source line, and an owning device buffer. Used by the CUDA backend and the apps' GPU
/// paths.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

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

namespace tcemu::cuda {

/// Owning buffer of device memory for `size()` elements of T (contents uninitialised). resize() only
/// grows (discarding the contents); the memory is freed by reset() or the destructor. Movable, not
/// copyable. Throws DeviceError when cudaMalloc fails.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  /// Makes room for at least n elements (n = 0 allocates one, so get() is never null after a resize).
  void resize(std::size_t n) {
    if (n <= n_ && p_) return;
    reset();
    const std::size_t count = n > 0 ? n : 1;
    TCEMU_CUDA(cudaMalloc(reinterpret_cast<void**>(&p_), count * sizeof(T)));
    n_ = count;
  }
  void reset() {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace tcemu::cuda
