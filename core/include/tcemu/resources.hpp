#pragma once
/// \file resources.hpp
/// tcemu::Resources: what the Kokkos View entry of tcemu::gemm (tcemu/gemm.hpp) may reuse between
/// calls, owned by the caller (in the style of FAISS' GpuResources and CUTLASS' workspace argument)
/// instead of the hidden per-thread default.
///
/// Today it holds the CUDA backend's tcemu::cuda::Workspace (a cuBLAS handle, device buffers that
/// grow on demand, a pinned read-back buffer and timing events; tcemu/cuda/gemm_cuda.hpp), created
/// on the first call on a Kokkos::Cuda instance, and the completion rule of those calls
/// (`synchronous`). The host backend keeps its split arrays in per-thread scratch buffers
/// (core/src/host/workspace.hpp) whether or not a Resources object is passed.
///
/// One Resources object serves one host thread and one CUDA stream (execution space instance) at a
/// time: two calls in flight on different instances must not share one (the second would overwrite
/// the first one's buffers). It does not depend on Kokkos and may outlive Kokkos::finalize() only
/// if release() was called before (its device memory is freed through the CUDA runtime).
#include <cstddef>
#include <memory>

namespace tcemu {

namespace cuda {
class Workspace;
}

/// Reusable resources of tcemu::gemm calls on Kokkos Views (see the file comment). Not copyable;
/// movable. Creating one allocates nothing and makes no CUDA call.
class Resources {
 public:
  Resources();
  ~Resources();
  Resources(Resources&&) noexcept;
  Resources& operator=(Resources&&) noexcept;
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;

  /// Completion rule of tcemu::gemm calls on a Kokkos::Cuda instance made with these resources.
  /// true (default): the call returns when C holds the result, and the report's seconds_split /
  /// seconds_products / seconds_combine are measured with CUDA events. false: the call returns as
  /// soon as its work is queued on the instance's stream (fence the instance, space.fence(), before
  /// reading C on the host or from another instance); the host still waits once mid-call for the
  /// operands' range profile unless the scheme is native, and the report's timings are 0.
  /// Calls on host execution spaces always return with C complete.
  bool synchronous = true;

  /// Device bytes held by the CUDA workspace (0 before the first CUDA call and in builds without
  /// tcemu's CUDA backend).
  std::size_t device_bytes_reserved() const;

  /// Frees the CUDA workspace's device memory (its handles stay; the next call grows the buffers
  /// again). It waits for the device (cudaDeviceSynchronize) before freeing.
  void release();

  /// The CUDA backend's workspace, created on the current CUDA device at the first call. Throws
  /// DeviceError in builds without tcemu's CUDA backend (TCEMU_HAVE_CUDA undefined), and
  /// InvalidArgument when the current device is not the one the workspace was created on (a
  /// Resources object serves one device).
  cuda::Workspace& cuda_workspace();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tcemu
