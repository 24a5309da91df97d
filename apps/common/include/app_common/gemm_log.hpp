#pragma once
/// \file gemm_log.hpp
/// The GemmReports of many GEMM calls (a search's batches, a factorisation's trailing updates, a
/// simulation's blocks, k-means' iterations) folded into what a report row shows: the schemes that
/// really ran, how many calls the range check sent to native arithmetic, and the first such note.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tcemu/gemm.hpp"

namespace tcemu::app {

/// What the GEMM calls of one run did.
struct GemmLog {
  /// Distinct GemmReport::used names with their number of calls, in order of first use.
  std::vector<std::pair<std::string, std::int64_t>> used;
  std::int64_t calls = 0;      ///< GEMM calls folded in
  std::int64_t fallbacks = 0;  ///< of those, calls whose range check fell back to native arithmetic
  std::string first_note;      ///< the note of the first fallback ("" when none fell back)

  /// Folds one call's report in.
  void add(const tcemu::GemmReport& report);
  /// The used names joined by `separator` ("fp16x2", "int8-ozaki:7+int8-ozaki:8"); "" before any call.
  std::string used_names(const std::string& separator = "+") const;
  /// The used name when there is one, else "name xN" per name joined by ", "
  /// ("int8-ozaki:7 x40, int8-ozaki:8 x2"); "-" before any call.
  std::string used_counts() const;
};

}  // namespace tcemu::app
