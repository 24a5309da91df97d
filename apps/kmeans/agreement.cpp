#include "agreement.hpp"

#include <map>
#include <string>
#include <utility>

#include "tcemu/error.hpp"

namespace kmeans {

double adjusted_rand_index(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  if (a.size() != b.size() || a.empty())
    throw tcemu::InvalidArgument("adjusted_rand_index: clusterings have " + std::to_string(a.size()) +
                                 " and " + std::to_string(b.size()) + " points");
  std::map<std::pair<std::int32_t, std::int32_t>, std::int64_t> table;
  std::map<std::int32_t, std::int64_t> ra, rb;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ++table[{a[i], b[i]}];
    ++ra[a[i]];
    ++rb[b[i]];
  }
  auto c2 = [](long double x) { return x * (x - 1) / 2; };
  long double index = 0, sa = 0, sb = 0;
  for (const auto& [key, v] : table) index += c2(v);
  for (const auto& [key, v] : ra) sa += c2(v);
  for (const auto& [key, v] : rb) sb += c2(v);
  const long double total = c2(static_cast<long double>(a.size()));
  const long double expected = sa * sb / total;
  const long double max_index = (sa + sb) / 2;
  if (max_index == expected) return 1.0;  // both partitions trivial (one cluster or all singletons)
  return static_cast<double>((index - expected) / (max_index - expected));
}

double agreement(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  if (a.size() != b.size() || a.empty())
    throw tcemu::InvalidArgument("agreement: clusterings have " + std::to_string(a.size()) + " and " +
                                 std::to_string(b.size()) + " points");
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return double(same) / double(a.size());
}

}  // namespace kmeans
