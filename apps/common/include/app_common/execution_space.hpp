#pragma once
/// \file execution_space.hpp
/// From an app's resolved `--device` to the Kokkos execution space its one-source code runs on
/// (apps whose GPU path is GpuPath::kokkos_cuda: knn, kmeans).
#include <Kokkos_Core.hpp>
#include <utility>

#include "app_common/device.hpp"
#include "tcemu/error.hpp"

namespace tcemu::app {

/// Returns body(space) with a default instance of the execution space `device` names:
/// Kokkos::DefaultHostExecutionSpace for host (and an unresolved auto), Kokkos::Cuda for cuda.
/// Throws DeviceError for cuda in a build that cannot run GpuPath::kokkos_cuda ("--device cuda: " +
/// gpu_path_missing(GpuPath::kokkos_cuda): Kokkos or tcemu without its CUDA backend) or on a machine
/// without a GPU ("--device cuda: no CUDA device is available on this machine"). `body` is a generic
/// callable (`[&](auto space) {...}`); both instantiations must return the same type.
template <class Body>
decltype(auto) with_execution_space(Device device, Body&& body) {
  if (device != Device::cuda) return std::forward<Body>(body)(Kokkos::DefaultHostExecutionSpace());
#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
  if (!gpu_available(GpuPath::kokkos_cuda))
    throw DeviceError("--device cuda: no CUDA device is available on this machine");
  return std::forward<Body>(body)(Kokkos::Cuda());
#else
  throw_gpu_path_missing(GpuPath::kokkos_cuda, "this app");
#endif
}

}  // namespace tcemu::app
