// Event timing shared by tcemu-bench and the cost-model calibration (tcemu/cuda/timing.hpp).
#include "tcemu/cuda/timing.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tcemu/cuda/check.hpp"
#include "tcemu/error.hpp"

namespace tcemu::cuda {

RunTimes time_runs(const std::function<void()>& f, int warmup, int repeat) {
  if (repeat < 1) throw InvalidArgument("time_runs: repeat must be >= 1, got " + std::to_string(repeat));
  cudaEvent_t a = nullptr, b = nullptr;
  TCEMU_CUDA(cudaEventCreate(&a));
  struct Events {
    cudaEvent_t& a;
    cudaEvent_t& b;
    ~Events() {
      if (a) cudaEventDestroy(a);
      if (b) cudaEventDestroy(b);
    }
  } guard{a, b};
  TCEMU_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < warmup; ++i) f();
  TCEMU_CUDA(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    TCEMU_CUDA(cudaEventRecord(a, nullptr));
    f();
    TCEMU_CUDA(cudaEventRecord(b, nullptr));
    TCEMU_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    TCEMU_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front()};
}

}  // namespace tcemu::cuda
