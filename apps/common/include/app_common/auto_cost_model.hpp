#pragma once
/// \file auto_cost_model.hpp
/// The cost model an app's own `auto` decision ranks its candidates with (qsim's configuration,
/// hplai's factorisation order; issue 20): the one core's `auto` itself uses on that device.
#include "app_common/device.hpp"
#include "tcemu/select.hpp"

namespace tcemu::app {

/// On Device::cuda (builds with the CUDA backend) the current GPU's calibrated model under the
/// environment's execution policy (tcemu::cuda::device_cost_model: the cache file, measured on first
/// use per TCEMU_AUTO_CALIBRATE; docs/cost-model.md); otherwise tcemu::CostModel::host(). Never
/// throws for a failed measurement (core then keeps the H200 anchors); throws tcemu::InvalidArgument
/// for a malformed TCEMU_* variable (execution_policy_from_environment).
tcemu::CostModel auto_cost_model(Device device);

}  // namespace tcemu::app
