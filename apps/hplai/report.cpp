#include "report.hpp"

#include "app_common/text.hpp"

#include <cmath>

namespace hplai {

namespace {
/// JSON has no NaN/Inf: print them as null.
std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
}  // namespace

void print_table(std::FILE* out, const RunResult& res) {
  std::fprintf(out, "hplai: n = %lld, nb = %lld, solver %s, device %s, %s\n", static_cast<long long>(res.n),
               static_cast<long long>(res.nb), res.solver.c_str(), res.device.c_str(), res.source.c_str());
  std::fprintf(out, "%-16s %-16s %-4s %11s %11s %11s %9s %7s %5s %9s %9s %-5s  %s\n", "scheme", "used",
               "prec", "factor_ms", "refine_ms", "time_ms", "GFLOP/s", "speedup", "iters", "res0",
               "scaled_res", "check", "note");
  for (const auto& r : res.rows) {
    std::fprintf(out, "%-16s %-16s %-4s %11.1f %11.1f %11.1f %9.2f %7.2f %5d %9.3g %9.3g %-5s  %s\n",
                 r.scheme.c_str(), r.used.c_str(), r.storage.c_str(), r.factor_seconds * 1e3,
                 r.refine_seconds * 1e3, r.total_seconds * 1e3, r.gflops, r.speedup, r.iterations,
                 r.initial_scaled_residual, r.scaled_residual, r.pass ? "PASS" : "FAIL", r.note.c_str());
  }
  std::fprintf(out,
               "scaled residual = ||Ax-b||_inf / ((||A||_inf ||x||_inf + ||b||_inf) n eps), eps = 2^-53; "
               "PASS when < 16. GFLOP/s = (2/3 n^3 + 3/2 n^2) / time. res0: before refinement.\n");
}

void print_json(std::FILE* out, const RunResult& res) {
  std::fprintf(out,
               "{\"app\":\"hplai\",\"n\":%lld,\"nb\":%lld,\"source\":%s,\"solver\":\"%s\",\"device\":\"%s\","
               "\"eps\":%s,\"threshold\":16,\"results\":[",
               static_cast<long long>(res.n), static_cast<long long>(res.nb), tcemu::app::json_string(res.source).c_str(),
               res.solver.c_str(), res.device.c_str(), "1.1102230246251565e-16");
  for (std::size_t i = 0; i < res.rows.size(); ++i) {
    const auto& r = res.rows[i];
    std::fprintf(out,
                 "%s{\"scheme\":%s,\"used\":%s,\"storage\":\"%s\",\"baseline\":%s,\"time_ms\":%s,"
                 "\"factor_ms\":%s,\"panel_ms\":%s,\"update_ms\":%s,\"refine_ms\":%s,\"gflops\":%s,\"speedup\":%s,\"iterations\":%d,"
                 "\"restarts\":%d,\"initial_scaled_residual\":%s,\"scaled_residual\":%s,\"pass\":%s,"
                 "\"updates\":%lld,\"fallbacks\":%lld,\"note\":%s}",
                 i ? "," : "", tcemu::app::json_string(r.scheme).c_str(), tcemu::app::json_string(r.used).c_str(), r.storage.c_str(),
                 r.baseline ? "true" : "false", num(r.total_seconds * 1e3).c_str(),
                 num(r.factor_seconds * 1e3).c_str(), num(r.panel_seconds * 1e3).c_str(),
                 num(r.update_seconds * 1e3).c_str(), num(r.refine_seconds * 1e3).c_str(), num(r.gflops).c_str(),
                 num(r.speedup).c_str(), r.iterations, r.restarts, num(r.initial_scaled_residual).c_str(),
                 num(r.scaled_residual).c_str(), r.pass ? "true" : "false", static_cast<long long>(r.updates),
                 static_cast<long long>(r.fallbacks), tcemu::app::json_string(r.note).c_str());
  }
  std::fprintf(out, "]}\n");
}

}  // namespace hplai
