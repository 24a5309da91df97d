// GemmReports folded into a report row (app_common/gemm_log.hpp).
#include "app_common/gemm_log.hpp"

#include <algorithm>

namespace tcemu::app {

void GemmLog::add(const tcemu::GemmReport& report) {
  ++calls;
  const std::string& name = report.used.name;
  const auto it = std::find_if(used.begin(), used.end(), [&](const auto& u) { return u.first == name; });
  if (it == used.end()) used.emplace_back(name, 1);
  else ++it->second;
  if (report.fell_back) {
    ++fallbacks;
    if (first_note.empty()) first_note = report.note;
  }
}

std::string GemmLog::used_names(const std::string& separator) const {
  std::string s;
  for (const auto& u : used) s += (s.empty() ? "" : separator) + u.first;
  return s;
}

std::string GemmLog::used_counts() const {
  if (used.size() == 1) return used.front().first;
  std::string s;
  for (const auto& [name, count] : used) s += (s.empty() ? "" : ", ") + name + " x" + std::to_string(count);
  return s.empty() ? "-" : s;
}

}  // namespace tcemu::app
