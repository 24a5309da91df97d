// Medians of repeated runs (app_common/timing.hpp).
#include "app_common/timing.hpp"

namespace tcemu::app {

double median(std::vector<double> values) {
  if (values.empty()) throw tcemu::InvalidArgument("median of an empty list");
  std::sort(values.begin(), values.end());
  const std::size_t h = values.size() / 2;
  return values.size() % 2 ? values[h] : 0.5 * (values[h - 1] + values[h]);
}

}  // namespace tcemu::app
