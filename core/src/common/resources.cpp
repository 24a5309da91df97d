// tcemu::Resources (tcemu/resources.hpp): the caller-owned workspace of the Kokkos View entry.
#include "tcemu/resources.hpp"

#include <string>

#include "tcemu/error.hpp"

#if defined(TCEMU_HAVE_CUDA)
#include <cuda_runtime.h>

#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#endif

namespace tcemu {

struct Resources::Impl {
#if defined(TCEMU_HAVE_CUDA)
  std::unique_ptr<cuda::Workspace> workspace;  // created at the first CUDA call
  int device = -1;                             // the device it was created on
#endif
};

Resources::Resources() : impl_(std::make_unique<Impl>()) {}
Resources::~Resources() = default;
Resources::Resources(Resources&&) noexcept = default;
Resources& Resources::operator=(Resources&&) noexcept = default;

std::size_t Resources::device_bytes_reserved() const {
#if defined(TCEMU_HAVE_CUDA)
  if (impl_ && impl_->workspace) return impl_->workspace->bytes_reserved();
#endif
  return 0;
}

void Resources::release() {
#if defined(TCEMU_HAVE_CUDA)
  if (impl_ && impl_->workspace) impl_->workspace->release();
#endif
}

cuda::Workspace& Resources::cuda_workspace() {
#if defined(TCEMU_HAVE_CUDA)
  if (!impl_) impl_ = std::make_unique<Impl>();  // a moved-from object is usable again
  int device = 0;
  TCEMU_CUDA(cudaGetDevice(&device));
  if (!impl_->workspace) {
    impl_->workspace = std::make_unique<cuda::Workspace>();
    impl_->device = device;
  } else if (device != impl_->device) {
    throw InvalidArgument("tcemu::Resources: its CUDA workspace was created on device " +
                          std::to_string(impl_->device) + ", but the call runs on device " +
                          std::to_string(device) + " (one Resources object serves one device)");
  }
  return *impl_->workspace;
#else
  throw DeviceError("tcemu::Resources::cuda_workspace: this tcemu was built without its CUDA backend "
                    "(TCEMU_ENABLE_CUDA=OFF)");
#endif
}

}  // namespace tcemu
