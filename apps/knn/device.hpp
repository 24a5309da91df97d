#pragma once
/// \file device.hpp
/// Where knn's search runs (--device).
#include "app_common/device.hpp"

namespace knn {

/// The --device option is tcemu's (app_common/device.hpp).
using Device = tcemu::app::Device;

}  // namespace knn
