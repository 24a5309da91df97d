// The order of a "run every scheme" job (app_common/sweep.hpp).
#include "app_common/sweep.hpp"

#include <algorithm>

namespace tcemu::app {

std::vector<SweepEntry> sweep_order(const std::vector<tcemu::Scheme>& requested,
                                    const std::vector<SweepReference>& references, ReferencePlace place) {
  auto named = [](const std::vector<tcemu::Scheme>& list, const std::string& name) {
    return std::any_of(list.begin(), list.end(), [&](const tcemu::Scheme& s) { return s.name == name; });
  };
  std::vector<SweepEntry> order;
  auto add = [&](const tcemu::Scheme& scheme, bool asked, const std::string& role) {
    for (const auto& e : order)
      if (e.scheme.name == scheme.name) return;
    order.push_back({scheme, asked, role});
  };
  for (const auto& ref : references)
    if (place == ReferencePlace::first || !named(requested, ref.scheme.name))
      add(ref.scheme, named(requested, ref.scheme.name), ref.role);
  for (const auto& s : requested) {
    const auto ref = std::find_if(references.begin(), references.end(),
                                  [&](const SweepReference& r) { return r.scheme.name == s.name; });
    add(s, true, ref == references.end() ? "" : ref->role);
  }
  return order;
}

double speedup(double baseline_time, double time) { return time > 0 ? baseline_time / time : 0.0; }

}  // namespace tcemu::app
