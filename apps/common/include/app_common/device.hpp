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

/// "host", "cuda", "auto".
const char* to_string(Device device);

/// Parses "host" | "cuda" | "auto"; throws InvalidArgument "--device '<name>' is not one of: host,
/// cuda, auto" otherwise.
Device parse_device(const std::string& name);

/// True when this build has the CUDA backend and the CUDA runtime finds a device (never throws).
bool gpu_available();

/// Loads the GPU cost model that picks fused or multi-pass kernels (the environment's execution
/// policy: its cache file, measured there and then when there is none, a few seconds), so that a
/// first-use calibration happens before any timed work rather than inside an app's first timing.
/// Does nothing in builds without the CUDA backend or under TCEMU_AUTO_CALIBRATE=0.
void prepare_gpu_cost_model();

/// The device a run will use: `automatic` becomes cuda when gpu_available(), else host; `cuda`
/// throws DeviceError "--device cuda: this build has no CUDA backend (...)" in builds without it, or
/// "--device cuda: no CUDA device is available on this machine" without a GPU.
Device resolve_device(Device requested);

}  // namespace tcemu::app
