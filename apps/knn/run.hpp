#pragma once
/// \file run.hpp
/// One knn job: the same search with every requested scheme, timed, and scored against the ground
/// truth (recall@k) and the exact distances (max_dist_err).
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "device.hpp"
#include "search.hpp"
#include "tcemu/scheme.hpp"

namespace knn {

struct RunOptions {
  std::vector<tcemu::Scheme> schemes;  ///< in order; duplicates (same name) are run once
  int k = 10;                          ///< neighbours per query
  int repeat = 1;                      ///< timed runs per scheme; the median is reported
  std::int64_t batch = 1024;           ///< queries per distance GEMM
  Device device = Device::host;        ///< already resolved (resolve_device)
  std::ostream* progress = nullptr;    ///< progress lines ("knn: [i/N] scheme ..."), or nullptr
  std::ostream* explain = nullptr;     ///< auto's plan for the first batch (--explain), or nullptr
};

/// One row of the result table.
struct SchemeResult {
  tcemu::Scheme scheme;
  bool requested = true;     ///< false for rows knn adds: the fp32 baseline, the fp64 ground truth
  std::string role;          ///< "baseline" (fp32 row), "ground truth" (fp64 row without /neighbors), ""
  std::string used;          ///< scheme(s) the GEMM actually used (GemmReport.used.name, '+'-joined)
  std::string note;          ///< fallback note of the GEMM, or ""
  double time_ms = 0;        ///< wall clock of the whole search (norms, GEMMs, top-k), median of repeats
  double speedup = 0;        ///< fp32 baseline time / time_ms
  double recall = 0;         ///< recall@k (quality.hpp)
  double max_dist_err = 0;   ///< max relative error of the squared distances (quality.hpp)
  Neighbors neighbors;       ///< what the search returned
};

struct RunResult {
  std::string ground_truth;  ///< "/neighbors" or "fp64 run"
  int k = 0;
  std::vector<SchemeResult> rows;  ///< in the order they ran
};

/// Runs the job. Adds native fp32 (the speedup baseline) when not requested, and native fp64 (run
/// first) when the dataset has no ground truth with >= k columns. Throws what search() throws.
RunResult run(const Dataset& data, const RunOptions& options);

}  // namespace knn
