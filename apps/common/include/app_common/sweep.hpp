#pragma once
/// \file sweep.hpp
/// The order of an app's "run every scheme" job: the reference runs an app always makes (the fp64
/// reference or ground truth, the native baseline of the speedup column) and the requested schemes,
/// each name once, and the speedup of a row over the baseline.
#include <string>
#include <vector>

#include "tcemu/scheme.hpp"

namespace tcemu::app {

/// A run the app makes whether it was asked for or not, and its role in the report.
struct SweepReference {
  tcemu::Scheme scheme;
  std::string role;  ///< e.g. "baseline", "ground truth", "reference"
};

/// One run of the sweep.
struct SweepEntry {
  tcemu::Scheme scheme;
  bool requested = true;  ///< false for a reference the scheme list did not name
  std::string role;       ///< the reference's role, "" for the other schemes
};

/// Where a reference the list also names runs.
enum class ReferencePlace {
  first,         ///< always before the requested schemes (the reference run opens the job)
  as_requested,  ///< at its place in the list (references the list does not name still open the job)
};

/// The runs of a job: the references in their order, then the requested schemes in theirs, each scheme
/// name once (a repeated name runs once, at its first place). A reference the list names is marked
/// requested and placed by `place`.
std::vector<SweepEntry> sweep_order(const std::vector<tcemu::Scheme>& requested,
                                    const std::vector<SweepReference>& references,
                                    ReferencePlace place = ReferencePlace::first);

/// The speedup of a run over the baseline: baseline_time / time, or 0 when time is not positive.
double speedup(double baseline_time, double time);

}  // namespace tcemu::app
