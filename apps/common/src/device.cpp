// The --device option shared by the apps.
#include "app_common/device.hpp"

#include <Kokkos_Core.hpp>  // KOKKOS_ENABLE_CUDA

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

std::string gpu_path_missing(GpuPath path) {
#if !defined(TCEMU_HAVE_CUDA)
  (void)path;
  return "this build has no CUDA backend (configure with -DTCEMU_ENABLE_CUDA=ON where nvcc is installed)";
#else
#if !defined(KOKKOS_ENABLE_CUDA)
  if (path == GpuPath::kokkos_cuda)
    return "this build's Kokkos has no CUDA backend (configure with -DKokkos_ROOT=<a CUDA-enabled Kokkos 4>, "
           "docs/kokkos.md)";
#endif
  (void)path;
  return "";
#endif
}

bool gpu_available(GpuPath path) {
#if defined(TCEMU_HAVE_CUDA)
  return gpu_path_missing(path).empty() && cuda::device_available();
#else
  (void)path;
  return false;
#endif
}

void prepare_gpu_cost_model() {
#if defined(TCEMU_HAVE_CUDA)
  (void)cuda::implementation_cost_model(execution_policy_from_environment());
#endif
}

void throw_gpu_path_missing(GpuPath path, const char* app) {
  const std::string why = gpu_path_missing(path);
  throw DeviceError("--device cuda: " + (why.empty() ? "this build of " + std::string(app) + " has no GPU path" : why));
}

Device resolve_device(Device requested, GpuPath path) {
  if (requested == Device::host) return Device::host;
  const std::string missing = gpu_path_missing(path);
  if (!missing.empty()) {
    if (requested == Device::cuda) throw_gpu_path_missing(path, "this app");
    return Device::host;
  }
  const bool gpu = gpu_available(path);
  if (requested == Device::cuda && !gpu)
    throw DeviceError("--device cuda: no CUDA device is available on this machine");
  return gpu ? Device::cuda : Device::host;
}

}  // namespace tcemu::app
