// kmeans's table and JSON report (report.hpp).
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "agreement.hpp"
#include "app_common/json.hpp"

namespace kmeans {

void print_table(const std::vector<Row>& rows, const Row& fp64, const Row* fp32, const Dataset& data) {
  std::printf("%-16s %-16s %10s %9s %8s %6s %14s %9s %8s %8s %10s %8s  %s\n", "scheme", "used", "time_ms",
              "ms/iter", "speedup", "iters", "inertia", "d_inertia", "agree", "ari", "ari_labels",
              "rechecks", "note");
  for (const auto& r : rows) {
    const auto& res = r.result;
    const double ari_labels = data.labels.empty() ? NAN : adjusted_rand_index(res.assignment, data.labels);
    std::printf("%-16s %-16s %10.1f %9.2f %8.2f %6d %14.6e %9.2e %8.5f %8.5f %10.5f %8lld  %s\n",
                r.scheme.c_str(), r.used.c_str(), res.seconds * 1e3,
                res.seconds * 1e3 / std::max(res.iterations, 1),
                fp32 ? fp32->result.seconds / res.seconds : NAN, res.iterations, res.inertia.back(),
                std::fabs(res.inertia.back() - fp64.result.inertia.back()) / fp64.result.inertia.back(),
                agreement(res.assignment, fp64.result.assignment),
                adjusted_rand_index(res.assignment, fp64.result.assignment), ari_labels,
                static_cast<long long>(res.rechecked), r.note.c_str());
  }
}

std::string format_json(const std::vector<Row>& rows, const Row& fp64, const Row* fp32, const Dataset& data,
                        std::int64_t k) {
  tcemu::app::Json results = tcemu::app::Json::array();
  for (const auto& r : rows) {
    const auto& res = r.result;
    results.push_back({{"scheme", r.scheme},
                       {"used", r.used},
                       {"time_ms", res.seconds * 1e3},
                       {"ms_per_iter", res.seconds * 1e3 / std::max(res.iterations, 1)},
                       {"speedup", fp32 ? fp32->result.seconds / res.seconds : 0.0},
                       {"iterations", res.iterations},
                       {"inertia", res.inertia.back()},
                       {"ari_vs_fp64", adjusted_rand_index(res.assignment, fp64.result.assignment)},
                       {"agreement_vs_fp64", agreement(res.assignment, fp64.result.assignment)},
                       {"rechecked", res.rechecked},
                       {"ari_vs_labels", data.labels.empty() ? tcemu::app::Json(nullptr)
                                                             : tcemu::app::Json(adjusted_rand_index(res.assignment, data.labels))}});
  }
  return tcemu::app::json_text(
      {{"app", "kmeans"}, {"input", data.path}, {"n", data.n}, {"d", data.d}, {"k", k}, {"results", results}});
}

}  // namespace kmeans
