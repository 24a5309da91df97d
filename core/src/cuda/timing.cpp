// Event timing shared by tcemu-bench and the cost-model calibration (tcemu/cuda/timing.hpp).
#include "tcemu/cuda/timing.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tcemu/cuda/check.hpp"
#include "tcemu/error.hpp"

namespace tcemu::cuda {

namespace {

/// A pair of CUDA events, destroyed with the object.
struct EventPair {
  cudaEvent_t a = nullptr, b = nullptr;
  EventPair() {
    TCEMU_CUDA(cudaEventCreate(&a));
    TCEMU_CUDA(cudaEventCreate(&b));
  }
  ~EventPair() {
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  /// Milliseconds of one call of f between the two events.
  double time(const std::function<void()>& f) {
    TCEMU_CUDA(cudaEventRecord(a, nullptr));
    f();
    TCEMU_CUDA(cudaEventRecord(b, nullptr));
    TCEMU_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    TCEMU_CUDA(cudaEventElapsedTime(&ms, a, b));
    return ms;
  }
};

RunTimes summarise(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front()};
}

}  // namespace

RunTimes time_runs(const std::function<void()>& f, int warmup, int repeat) {
  if (repeat < 1) throw InvalidArgument("time_runs: repeat must be >= 1, got " + std::to_string(repeat));
  return time_runs_interleaved({f}, warmup, repeat).front();  // one function: the rounds are its calls
}

std::vector<RunTimes> time_runs_interleaved(const std::vector<std::function<void()>>& fs, int warmup, int repeat) {
  if (repeat < 1) throw InvalidArgument("time_runs_interleaved: repeat must be >= 1, got " + std::to_string(repeat));
  if (fs.empty()) throw InvalidArgument("time_runs_interleaved: no functions to time");
  EventPair ev;
  for (const auto& f : fs)
    for (int i = 0; i < warmup; ++i) f();
  TCEMU_CUDA(cudaDeviceSynchronize());
  std::vector<std::vector<double>> t(fs.size());
  for (int i = 0; i < repeat; ++i)
    for (std::size_t j = 0; j < fs.size(); ++j) t[j].push_back(ev.time(fs[j]));
  std::vector<RunTimes> out;
  for (auto& tj : t) out.push_back(summarise(std::move(tj)));
  return out;
}

}  // namespace tcemu::cuda
