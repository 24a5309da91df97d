#pragma once
/// \file device.hpp
/// Where an application runs its work: the `--device host|cuda|auto` option every tcemu app offers.
#include <string>

namespace tcemu::app {

/// Device requested on the command line.
enum class Device {
  host,       ///< CPU: tcemu's host backend (Kokkos host loops + CBLAS)
  cuda,       ///< NVIDIA GPU through tcemu's CUDA backend (builds with TCEMU_ENABLE_CUDA)
  automatic,  ///< cuda when this build has the CUDA backend and the machine a usable GPU, else host
};

/// What an app's GPU path is built on, which decides what a build needs for `--device cuda`.
enum class GpuPath {
  tcemu_cuda,   ///< tcemu's CUDA backend on raw device pointers: a build with TCEMU_ENABLE_CUDA=ON
  kokkos_cuda,  ///< Kokkos::Cuda and CudaSpace Views (knn, kmeans): also a CUDA-enabled Kokkos 4
                ///< (KOKKOS_ENABLE_CUDA; docs/kokkos.md). Debian's Kokkos 3.4 has no CUDA backend.
};

/// "host", "cuda", "auto".
const char* to_string(Device device);

/// Parses "host" | "cuda" | "auto"; throws InvalidArgument "--device '<name>' is not one of: host,
/// cuda, auto" otherwise.
Device parse_device(const std::string& name);

/// Why this build cannot run `path` on a GPU: "this build has no CUDA backend (...)" or "this build's
/// Kokkos has no CUDA backend (...)", each with how to configure one; "" when it can.
std::string gpu_path_missing(GpuPath path = GpuPath::tcemu_cuda);

/// Throws DeviceError "--device cuda: " + gpu_path_missing(path), or "--device cuda: this build of
/// <app> has no GPU path" where that reason is empty (a path the app itself left out).
[[noreturn]] void throw_gpu_path_missing(GpuPath path, const char* app);

/// True when this build can run `path` (gpu_path_missing is "") and the CUDA runtime finds a device
/// (never throws).
bool gpu_available(GpuPath path = GpuPath::tcemu_cuda);

/// Loads the GPU cost model that picks fused or multi-pass kernels (the environment's execution
/// policy: its cache file, measured there and then when there is none, a few seconds), so that a
/// first-use calibration happens before any timed work rather than inside an app's first timing.
/// Does nothing in builds without the CUDA backend or under TCEMU_AUTO_CALIBRATE=0.
void prepare_gpu_cost_model();

/// The device a run of an app whose GPU path is `path` will use: `automatic` becomes cuda when
/// gpu_available(path), else host; `cuda` throws DeviceError "--device cuda: " + gpu_path_missing(path)
/// in builds that cannot run the path ("this build has no CUDA backend (...)", "this build's Kokkos has
/// no CUDA backend (...)"), or "--device cuda: no CUDA device is available on this machine" without a GPU.
Device resolve_device(Device requested, GpuPath path = GpuPath::tcemu_cuda);

}  // namespace tcemu::app
