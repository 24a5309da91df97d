#include "report.hpp"

#include "app_common/json.hpp"
#include "app_common/table.hpp"

#include <cmath>

namespace hplai {

void print_table(std::FILE* out, const RunResult& res) {
  using tcemu::app::cell;
  using Align = tcemu::app::Table::Align;
  std::fprintf(out, "hplai: n = %lld, nb = %lld, solver %s, device %s, %s\n", static_cast<long long>(res.n),
               static_cast<long long>(res.nb), res.solver.c_str(), res.device.c_str(), res.source.c_str());
  tcemu::app::Table table({{"scheme", Align::left}, {"used", Align::left}, {"prec", Align::left}, {"factor_ms"},
                           {"refine_ms"}, {"time_ms"}, {"GFLOP/s"}, {"speedup"}, {"iters"}, {"res0"}, {"scaled_res"},
                           {"check", Align::left}, {"note", Align::left}});
  for (const auto& r : res.rows)
    table.add_row({r.scheme, r.used, r.storage, cell("%.1f", r.factor_seconds * 1e3), cell("%.1f", r.refine_seconds * 1e3),
                   cell("%.1f", r.total_seconds * 1e3), cell("%.2f", r.gflops), cell("%.2f", r.speedup),
                   std::to_string(r.iterations), cell("%.3g", r.initial_scaled_residual), cell("%.3g", r.scaled_residual),
                   r.pass ? "PASS" : "FAIL", r.note});
  std::fputs(table.str().c_str(), out);
  std::fprintf(out,
               "scaled residual = ||Ax-b||_inf / ((||A||_inf ||x||_inf + ||b||_inf) n eps), eps = 2^-53; "
               "PASS when < 16. GFLOP/s = (2/3 n^3 + 3/2 n^2) / time. res0: before refinement.\n");
}

void print_json(std::FILE* out, const RunResult& res) {
  tcemu::app::Json rows = tcemu::app::Json::array();
  for (const auto& r : res.rows)
    rows.push_back({{"scheme", r.scheme}, {"used", r.used}, {"storage", r.storage}, {"baseline", r.baseline},
                    {"time_ms", r.total_seconds * 1e3}, {"factor_ms", r.factor_seconds * 1e3},
                    {"panel_ms", r.panel_seconds * 1e3}, {"update_ms", r.update_seconds * 1e3},
                    {"refine_ms", r.refine_seconds * 1e3}, {"gflops", r.gflops}, {"speedup", r.speedup},
                    {"iterations", r.iterations}, {"restarts", r.restarts},
                    {"initial_scaled_residual", r.initial_scaled_residual}, {"scaled_residual", r.scaled_residual},
                    {"pass", r.pass}, {"updates", r.updates}, {"fallbacks", r.fallbacks}, {"note", r.note}});
  const tcemu::app::Json report = {{"app", "hplai"},     {"n", res.n},           {"nb", res.nb},
                                   {"source", res.source}, {"solver", res.solver}, {"device", res.device},
                                   {"eps", std::ldexp(1.0, -53)}, {"threshold", 16}, {"results", rows}};
  std::fprintf(out, "%s\n", tcemu::app::json_text(report).c_str());
}

}  // namespace hplai
