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

/// The device a run will use: `automatic` becomes cuda when gpu_available(), else host; `cuda`
/// throws DeviceError "--device cuda: this build has no CUDA backend (...)" in builds without it, or
/// "--device cuda: no CUDA device is available on this machine" without a GPU.
Device resolve_device(Device requested);

}  // namespace tcemu::app
