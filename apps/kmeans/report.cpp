// kmeans's table and JSON report (report.hpp).
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "agreement.hpp"
#include "app_common/json.hpp"
#include "app_common/table.hpp"

namespace kmeans {

void print_table(const std::vector<Row>& rows, const Row& fp64, const Row* fp32, const Dataset& data) {
  using tcemu::app::cell;
  using Align = tcemu::app::Table::Align;
  tcemu::app::Table table({{"scheme", Align::left}, {"used", Align::left}, {"time_ms"}, {"ms/iter"}, {"speedup"},
                           {"iters"}, {"inertia"}, {"d_inertia"}, {"agree"}, {"ari"}, {"ari_labels"}, {"rechecks"},
                           {"note", Align::left}});
  for (const auto& r : rows) {
    const auto& res = r.result;
    const double ari_labels = data.labels.empty() ? NAN : adjusted_rand_index(res.assignment, data.labels);
    table.add_row({r.scheme, r.used, cell("%.1f", res.seconds * 1e3),
                   cell("%.2f", res.seconds * 1e3 / std::max(res.iterations, 1)),
                   cell("%.2f", fp32 ? fp32->result.seconds / res.seconds : NAN), std::to_string(res.iterations),
                   cell("%.6e", res.inertia.back()),
                   cell("%.2e", std::fabs(res.inertia.back() - fp64.result.inertia.back()) / fp64.result.inertia.back()),
                   cell("%.5f", agreement(res.assignment, fp64.result.assignment)),
                   cell("%.5f", adjusted_rand_index(res.assignment, fp64.result.assignment)), cell("%.5f", ari_labels),
                   std::to_string(res.rechecked), r.note});
  }
  std::fputs(table.str().c_str(), stdout);
}

std::string format_json(const std::vector<Row>& rows, const Row& fp64, const Row* fp32, const Dataset& data,
                        std::int64_t k) {
  tcemu::app::Json results = tcemu::app::Json::array();
  for (const auto& r : rows) {
    const auto& res = r.result;
    results.push_back({{"scheme", r.scheme}, {"used", r.used}, {"time_ms", res.seconds * 1e3},
                       {"ms_per_iter", res.seconds * 1e3 / std::max(res.iterations, 1)},
                       {"speedup", fp32 ? fp32->result.seconds / res.seconds : 0.0},
                       {"iterations", res.iterations}, {"inertia", res.inertia.back()},
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
