// Builds without the CUDA backend (TCEMU_ENABLE_CUDA=OFF): the GPU path reports that it is not there.
#include "simulate.hpp"
#include "tcemu/error.hpp"

namespace qsim {

template <class T>
SimResult<T> simulate_cuda(const std::vector<Block>&, int, const SimOptions&) {
  throw tcemu::DeviceError("--device cuda: this build of qsim has no CUDA backend (TCEMU_ENABLE_CUDA=OFF)");
}

template SimResult<float> simulate_cuda<float>(const std::vector<Block>&, int, const SimOptions&);
template SimResult<double> simulate_cuda<double>(const std::vector<Block>&, int, const SimOptions&);

}  // namespace qsim
