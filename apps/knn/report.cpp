#include "report.hpp"

#include "app_common/json.hpp"
#include "app_common/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace knn {
namespace {

std::string row_note(const SchemeResult& r) {
  std::string note;
  if (!r.role.empty()) note = r.role + (r.requested ? "" : " (added, not requested)");
  if (!r.note.empty()) note += (note.empty() ? "" : "; ") + r.note;
  return note;
}

}  // namespace

std::string format_table(const Dataset& data, const RunResult& result, const RunInfo& info) {
  using tcemu::app::cell;
  using Align = tcemu::app::Table::Align;
  tcemu::app::Table table({{"scheme", Align::left},
                           {"used", Align::left},
                           {"time_ms"},
                           {"speedup_vs_fp32"},
                           {"recall@" + std::to_string(result.k)},
                           {"max_dist_err"},
                           {"note", Align::left}});
  for (const auto& r : result.rows)
    table.add_row({r.scheme.name, r.used, cell("%.1f", r.time_ms), cell("%.2f", r.speedup), cell("%.4f", r.recall),
                   cell("%.2e", r.max_dist_err), row_note(r)});
  std::ostringstream os;
  os << "knn: " << info.input << ": " << data.q << " queries, " << data.n << " train points, " << data.d
     << " dims, k = " << result.k << ", target " << tcemu::to_string(info.target) << ", device "
     << to_string(info.device) << ", median of " << info.repeat << " run" << (info.repeat > 1 ? "s" : "")
     << ", recall against " << result.ground_truth << "\n";
  return os.str() + table.str();
}

std::string format_json(const Dataset& data, const RunResult& result, const RunInfo& info) {
  tcemu::app::Json rows = tcemu::app::Json::array();
  for (const auto& r : result.rows)
    rows.push_back({{"scheme", r.scheme.name}, {"used", r.used}, {"requested", r.requested}, {"role", r.role},
                    {"time_ms", r.time_ms}, {"speedup", r.speedup}, {"recall", r.recall},
                    {"max_dist_err", r.max_dist_err}, {"note", r.note}});
  return tcemu::app::json_text({{"app", "knn"}, {"input", info.input}, {"queries", data.q}, {"k", result.k},
                                {"n", data.n}, {"d", data.d}, {"target", tcemu::to_string(info.target)},
                                {"device", to_string(info.device)}, {"repeat", info.repeat},
                                {"ground_truth", result.ground_truth}, {"results", rows}});
}

void write_results(tcemu::app::io::Writer& out, const Dataset& data, const RunResult& result,
                   const RunInfo& info) {
  const std::vector<std::int64_t> shape = {data.q, result.k};
  for (const auto& r : result.rows) {
    const std::string group = "/" + r.scheme.name;
    out.write(group + "/neighbors", r.neighbors.index, shape);
    std::vector<float> dist(r.neighbors.sq_dist.size());
    std::transform(r.neighbors.sq_dist.begin(), r.neighbors.sq_dist.end(), dist.begin(),
                   [](double d2) { return static_cast<float>(std::sqrt(std::max(d2, 0.0))); });
    out.write(group + "/distances", dist, shape);
    out.write_string_attribute(group, "used", r.used);
    out.write_string_attribute(group, "note", r.note);
    out.write_string_attribute(group, "role", r.role);
  }
  out.write_string_attribute("/", "app", "knn");
  out.write_string_attribute("/", "input", info.input);
  out.write_string_attribute("/", "distance", "euclidean");
  out.write_string_attribute("/", "ground_truth", result.ground_truth);
  out.write_int_attribute("/", "k", result.k);
  out.write_int_attribute("/", "queries", data.q);
}

}  // namespace knn
