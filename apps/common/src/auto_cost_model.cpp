// The cost model of the apps' own auto decisions (auto_cost_model.hpp).
#include "app_common/auto_cost_model.hpp"

#include "app_common/environment.hpp"

#if defined(TCEMU_HAVE_CUDA)
#include "tcemu/cuda/calibrate.hpp"
#endif

namespace tcemu::app {

tcemu::CostModel auto_cost_model(Device device) {
#if defined(TCEMU_HAVE_CUDA)
  if (device == Device::cuda) return *tcemu::cuda::device_cost_model(execution_policy_from_environment());
#endif
  (void)device;
  return tcemu::CostModel::host();
}

}  // namespace tcemu::app
