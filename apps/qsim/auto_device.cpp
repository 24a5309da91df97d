// The device side of qsim's auto (auto_config.hpp): the cost model and the simulator's in-place rule.
#include "auto_config.hpp"

#include <cstdlib>
#include <string>

#include "app_common/environment.hpp"

#if defined(TCEMU_HAVE_CUDA)
#include "tcemu/cuda/bit_gemm.hpp"
#include "tcemu/cuda/calibrate.hpp"
#endif

namespace qsim {

tcemu::CostModel auto_cost_model(Device device) {
#if defined(TCEMU_HAVE_CUDA)
  if (device == Device::cuda) return *tcemu::cuda::device_cost_model(tcemu::app::execution_policy_from_environment());
#endif
  (void)device;
  return tcemu::CostModel::host();
}

InPlaceSupport auto_in_place_support(Device device) {
#if defined(TCEMU_HAVE_CUDA)
  // TCEMU_QSIM_IN_PLACE=off sends every block through the permuted path (simulate_cuda.cu).
  const char* e = std::getenv("TCEMU_QSIM_IN_PLACE");
  if (device == Device::cuda && !(e && std::string(e) == "off"))
    return [](const tcemu::Scheme& s, int d, int n) { return tcemu::cuda::BitGemm::supports(s, d, n); };
#endif
  (void)device;
  return {};
}

}  // namespace qsim
