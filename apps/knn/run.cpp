#include "run.hpp"

#include <algorithm>

#include "app_common/sweep.hpp"
#include "app_common/timing.hpp"
#include "quality.hpp"
#include "tcemu/error.hpp"

namespace knn {

namespace {

bool has_kind(const std::vector<tcemu::Scheme>& list, tcemu::SchemeKind kind) {
  return std::any_of(list.begin(), list.end(), [&](const tcemu::Scheme& s) { return s.kind == kind; });
}

/// Untimed warm-up: a search of the first batch of queries (the full GEMM shape) in float, and in
/// double when a scheme computes in double, so that BLAS thread start-up and the first touch of the
/// batch-sized buffers (knn's distance block, the backend's cached scratch) are not billed to the
/// first timed scheme, which is the fp32 baseline or the fp64 ground truth.
void warm_up(const Dataset& data, int k, const RunOptions& options, bool with_double,
             const DoubleInputs& dbl) {
  SearchOptions so;
  so.batch = options.batch;
  so.device = options.device;
  so.limit = std::min(options.batch, data.q);
  (void)search(data, tcemu::parse_scheme("fp32"), k, so);
  if (with_double) (void)search(data, tcemu::parse_scheme("fp64"), k, so, nullptr, &dbl);
}

}  // namespace

RunResult run(const Dataset& data, const RunOptions& options) {
  // The list to run: [fp64 ground truth] [fp32 baseline] requested..., each name once.
  const bool have_truth = data.truth_k >= options.k;
  std::vector<tcemu::app::SweepReference> references;
  if (!have_truth) references.push_back({tcemu::parse_scheme("fp64"), "ground truth"});
  references.push_back({tcemu::parse_scheme("fp32"), "baseline"});
  std::vector<SchemeResult> rows;
  for (const auto& entry : tcemu::app::sweep_order(options.schemes, references, tcemu::app::ReferencePlace::as_requested)) {
    SchemeResult r;
    r.scheme = entry.scheme;
    r.requested = entry.requested;
    r.role = entry.role;
    rows.push_back(std::move(r));
  }

  const bool any_double = std::any_of(rows.begin(), rows.end(), [](const SchemeResult& r) {
    return computes_in_double(r.scheme);
  });
  const DoubleInputs dbl = any_double ? to_double(data) : DoubleInputs{};
  warm_up(data, options.k, options, any_double, dbl);

  if (options.explain && !has_kind(options.schemes, tcemu::SchemeKind::automatic))
    *options.explain << "knn: --explain: no auto in the scheme list, nothing to explain" << std::endl;

  const std::size_t total = rows.size();
  for (std::size_t i = 0; i < total; ++i) {
    SchemeResult& r = rows[i];
    const std::string tag = "knn: [" + std::to_string(i + 1) + "/" + std::to_string(total) + "] " + r.scheme.name;
    SearchOptions so;
    so.batch = options.batch;
    so.device = options.device;
    if (options.progress)
      so.on_batch = [&](std::int64_t done, std::int64_t batches) {
        if (batches > 1) *options.progress << tag << ": batch " << done << "/" << batches << std::endl;
      };
    std::vector<double> times;
    SearchLog log;
    for (int rep = 0; rep < std::max(1, options.repeat); ++rep) {
      const auto t0 = tcemu::app::Clock::now();
      r.neighbors = search(data, r.scheme, options.k, so, &log, &dbl);
      times.push_back(tcemu::app::seconds_since(t0) * 1e3);
      if (rep == 0 && options.explain && r.scheme.kind == tcemu::SchemeKind::automatic)
        *options.explain << "knn: " << r.scheme.name << ": plan of the first batch ("
                         << std::min(options.batch, data.q) << " queries x " << data.n << " train x "
                         << data.d << " dims):\n"
                         << log.first.plan.explain() << std::endl;
    }
    r.time_ms = tcemu::app::median(times);
    r.used = log.gemm.used_names();
    r.note = log.gemm.first_note;
    if (log.gemm.fallbacks > 1)
      r.note += " (" + std::to_string(log.gemm.fallbacks) + " of " + std::to_string(log.batches) + " batches)";
    if (options.progress)
      *options.progress << tag << ": " << r.time_ms << " ms (used " << r.used << ")" << std::endl;
  }

  RunResult result;
  result.k = options.k;
  std::vector<double> thresholds;
  if (have_truth) {
    result.ground_truth = "/neighbors";
    thresholds = recall_thresholds(data, data.truth, data.truth_k, options.k);
  } else {
    result.ground_truth = "fp64 run";
    if (data.truth_k > 0)
      result.ground_truth += " (/neighbors has only " + std::to_string(data.truth_k) + " columns)";
    const auto it = std::find_if(rows.begin(), rows.end(), [](const SchemeResult& r) {
      return r.scheme.kind == tcemu::SchemeKind::fp64;
    });
    thresholds = recall_thresholds(data, it->neighbors.index, options.k, options.k);
  }
  const auto base = std::find_if(rows.begin(), rows.end(), [](const SchemeResult& r) {
    return r.scheme.kind == tcemu::SchemeKind::fp32;
  });
  for (auto& r : rows) {
    const std::vector<double> exact = exact_sq_distances(data, r.neighbors);
    r.recall = recall_at_k(r.neighbors, exact, thresholds);
    r.max_dist_err = max_relative_distance_error(r.neighbors, exact);
    r.speedup = tcemu::app::speedup(base->time_ms, r.time_ms);
  }
  result.rows = std::move(rows);
  return result;
}

}  // namespace knn
