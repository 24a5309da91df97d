#pragma once
/// \file timing.hpp
/// Wall-clock timing and medians of repeated runs, as every app's report uses them.
#include <algorithm>
#include <chrono>
#include <vector>

#include "tcemu/error.hpp"

namespace tcemu::app {

/// The clock of every app timing (monotonic).
using Clock = std::chrono::steady_clock;

/// Seconds from `start` to now.
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Median of a non-empty list (the mean of the two middle values for an even count); throws
/// tcemu::InvalidArgument for an empty list.
double median(std::vector<double> values);

/// The element of a non-empty list whose `key` is the median (the upper middle one for an even
/// count): the run a report shows out of repeated runs, with all its fields.
template <class T, class Key>
T median_element(std::vector<T> items, Key key) {
  if (items.empty()) throw tcemu::InvalidArgument("median of an empty list");
  std::sort(items.begin(), items.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
  return items[items.size() / 2];
}

}  // namespace tcemu::app
