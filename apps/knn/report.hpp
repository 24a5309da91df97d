#pragma once
/// \file report.hpp
/// Presentation of a knn run: the text table, the --json object, and the --output HDF5 file.
#include <string>

#include "dataset.hpp"
#include "device.hpp"
#include "run.hpp"
#include "app_common/io/hdf5.hpp"
#include "tcemu/scheme.hpp"

namespace knn {

/// Context printed with the results.
struct RunInfo {
  std::string input;                      ///< input file
  tcemu::Target target = tcemu::Target::fp32;
  Device device = Device::host;
  int repeat = 1;
};

/// Text table, one row per scheme: scheme, used, time_ms, speedup_vs_fp32, recall@k, max_dist_err,
/// note; preceded by one line describing the job.
std::string format_table(const Dataset& data, const RunResult& result, const RunInfo& info);

/// One JSON object: {"app":"knn","input":...,"queries":q,"k":k,"n":n,"d":d,"target":...,
/// "device":...,"repeat":...,"ground_truth":...,"results":[{"scheme":...,"used":...,"requested":...,
/// "role":...,"time_ms":...,"speedup":...,"recall":...,"max_dist_err":...,"note":...}, ...]}.
/// Non-finite numbers are written as null.
std::string format_json(const Dataset& data, const RunResult& result, const RunInfo& info);

/// Writes /<scheme>/neighbors (q x k int32) and /<scheme>/distances (q x k float32 Euclidean
/// distances, sqrt of the computed squared distance clamped at 0) for every row, with attributes
/// used/note on each group and input/k/queries/ground_truth on the root. Does not commit.
void write_results(tcemu::app::io::Writer& out, const Dataset& data, const RunResult& result,
                   const RunInfo& info);


}  // namespace knn
