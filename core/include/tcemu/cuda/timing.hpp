#pragma once
/// \file timing.hpp
/// The timing protocol of the GPU tools and of auto's calibration (docs/benchmarks.md, "Measurement rules"): untimed
/// warm-up runs, then repeated runs each bracketed by CUDA events; median and minimum. Includes no
/// CUDA header.
#include <functional>
#include <vector>

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

/// Times several functions against each other: each runs `warmup` times untimed, then `repeat`
/// rounds call f[0], f[1], ... once each, every call timed by CUDA events as in time_runs. Rounds
/// alternate the functions call by call, so a drift of the GPU's clock (power cap, temperature)
/// during the measurement reaches all of them alike, which back-to-back blocks of calls do not.
/// Returns one RunTimes per function, in order. Throws InvalidArgument when repeat < 1 or `fs` is
/// empty, DeviceError when a CUDA call fails.
std::vector<RunTimes> time_runs_interleaved(const std::vector<std::function<void()>>& fs, int warmup, int repeat);

}  // namespace tcemu::cuda
