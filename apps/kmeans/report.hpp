#pragma once
/// \file report.hpp
/// Presentation of a kmeans job: the text table and the --json object, one row per scheme, each
/// compared with the fp64 run (the reference) and timed against the fp32 run (the baseline).
#include <cstdint>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "lloyd.hpp"

namespace kmeans {

/// One scheme's run as the report shows it.
struct Row {
  std::string scheme;  ///< requested scheme name
  std::string used;    ///< scheme(s) the GEMMs really ran
  std::string note;    ///< first fallback note, or ""
  LloydResult result;
};

/// Prints the table on stdout: scheme, used, time_ms, ms/iter, speedup over `fp32` (NaN without
/// it), iters, inertia, d_inertia, agree, ari (against `fp64`), ari_labels (against /labels), rechecks,
/// note.
void print_table(const std::vector<Row>& rows, const Row& fp64, const Row* fp32, const Dataset& data);

/// The --json object: {"app":"kmeans","input","n","d","k","results":[{"scheme","used","time_ms",
/// "ms_per_iter","speedup","iterations","inertia","ari_vs_fp64","agreement_vs_fp64","rechecked",
/// "ari_vs_labels"}]} on one line (ari_vs_labels null without /labels; speedup 0 without `fp32`).
std::string format_json(const std::vector<Row>& rows, const Row& fp64, const Row* fp32, const Dataset& data,
                        std::int64_t k);

}  // namespace kmeans
