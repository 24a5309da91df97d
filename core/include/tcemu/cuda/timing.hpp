#pragma once
/// \file timing.hpp
/// The timing protocol of the GPU tools and of auto's calibration (DESIGN.md section 7): untimed
/// warm-up runs, then repeated runs each bracketed by CUDA events; median and minimum. Includes no
/// CUDA header.
#include <functional>

namespace tcemu::cuda {

/// Median and fastest of the timed runs, in milliseconds.
struct RunTimes {
  double median_ms = 0;
  double min_ms = 0;
};

/// Runs `f` `warmup` times untimed, synchronises the device, then `repeat` times, each timed by CUDA
/// events recorded on the legacy default stream before and after it (`f` must queue its work on that
/// stream or synchronise with it). Throws InvalidArgument when repeat < 1, DeviceError when a CUDA
/// call fails.
RunTimes time_runs(const std::function<void()>& f, int warmup, int repeat);

}  // namespace tcemu::cuda
