// The --device option shared by the apps.
#include "app_common/device.hpp"

#include "tcemu/error.hpp"
#include "app_common/environment.hpp"
#if defined(TCEMU_HAVE_CUDA)
#include "tcemu/cuda/calibrate.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#endif

namespace tcemu::app {

const char* to_string(Device device) {
  switch (device) {
    case Device::host: return "host";
    case Device::cuda: return "cuda";
    case Device::automatic: return "auto";
  }
  return "?";
}

Device parse_device(const std::string& name) {
  if (name == "host") return Device::host;
  if (name == "cuda") return Device::cuda;
  if (name == "auto") return Device::automatic;
  throw InvalidArgument("--device '" + name + "' is not one of: host, cuda, auto");
}

bool gpu_available() {
#if defined(TCEMU_HAVE_CUDA)
  return cuda::device_available();
#else
  return false;
#endif
}

void prepare_gpu_cost_model() {
#if defined(TCEMU_HAVE_CUDA)
  (void)cuda::implementation_cost_model(execution_policy_from_environment());
#endif
}

Device resolve_device(Device requested) {
  if (requested == Device::host) return Device::host;
#if defined(TCEMU_HAVE_CUDA)
  const bool gpu = gpu_available();
  if (requested == Device::cuda && !gpu)
    throw DeviceError("--device cuda: no CUDA device is available on this machine");
  return gpu ? Device::cuda : Device::host;
#else
  if (requested == Device::cuda)
    throw DeviceError("--device cuda: this build has no CUDA backend (configure with -DTCEMU_ENABLE_CUDA=ON "
                      "where nvcc is installed)");
  return Device::host;
#endif
}

}  // namespace tcemu::app
