// APE hybrid execution: the parts that do not depend on the element type (hybrid.hpp).
#include "tcemu/hybrid.hpp"

namespace tcemu::detail {

std::vector<std::pair<std::int64_t, std::int64_t>> label_runs(const std::vector<bool>& labels) {
  std::vector<std::pair<std::int64_t, std::int64_t>> runs;
  const auto n = static_cast<std::int64_t>(labels.size());
  for (std::int64_t i = 0; i < n;) {
    std::int64_t j = i + 1;
    while (j < n && labels[j] == labels[i]) ++j;
    runs.emplace_back(i, j);
    i = j;
  }
  return runs;
}

}  // namespace tcemu::detail
