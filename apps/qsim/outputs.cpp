// Table, JSON and HDF5 output of a qsim job (outputs.hpp).
#include "outputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "app_common/json.hpp"
#include "app_common/table.hpp"
#include "app_common/text.hpp"
#include "app_common/io/hdf5.hpp"

namespace qsim {

namespace {

/// Time of the native run with the same state type, or 0.
double native_seconds(const JobResult& job, const SchemeRun& r) {
  const std::string native = uses_double(r.scheme) ? "fp64" : "fp32";
  for (const auto& x : job.runs)
    if (x.scheme.name == native) return x.stats.seconds;
  return 0;
}

std::string histogram_text(const std::vector<std::int64_t>& h) {
  std::string s;
  for (std::size_t k = 0; k < h.size(); ++k)
    if (h[k]) s += (s.empty() ? "" : ", ") + std::to_string(h[k]) + " x " + std::to_string(k) + "q";
  return s;
}

/// The table's note: auto's choice, or the first GEMM note, with single-buffer mode named first.
std::string note_of(const SchemeRun& r) {
  std::string note = r.auto_choice.empty() ? r.stats.gemm.first_note : r.auto_choice;
  if (r.stats.single_buffer)
    note = "single-buffer (" + std::to_string(r.stats.position_swaps) + " position swaps)" + (note.empty() ? "" : "; " + note);
  return note;
}
}  // namespace

void print_table(const JobResult& job, const ReportContext& ctx) {
  const Circuit& c = *ctx.circuit;
  // The name may come from a file: escaped, so that it cannot start a line of its own.
  std::printf("circuit %s: %d qubits, %zu gates (%s), %zu final measurements\n",
              tcemu::app::escape_control(c.name).c_str(), c.num_qubits,
              c.gates.size(), histogram_text(c.gate_histogram()).c_str(), c.measurements.size());
  std::printf("fusion --fuse %d: %lld blocks (%s), %lld controlled, %.3g complex MACs per run, %.1f ms; device %s\n",
              ctx.fuse, (long long)job.fusion.blocks, histogram_text(job.fusion.by_size).c_str(),
              (long long)job.fusion.controlled, job.fusion.complex_macs, job.seconds_fusion * 1e3, to_string(ctx.device));
  using tcemu::app::cell;
  using Align = tcemu::app::Table::Align;
  tcemu::app::Table table({{"scheme", Align::left}, {"used", Align::left}, {"state", Align::left}, {"time_ms"}, {"vs_nat"},
                           {"gemm%"}, {"perms"}, {"fallb"}, {"1-fidelity"}, {"max_amp_err"}, {"norm_drift"},
                           {"note", Align::left}});
  for (const auto& r : job.runs) {
    const double nat = native_seconds(job, r);
    table.add_row({r.scheme.name, r.used, r.precision, cell("%.1f", r.stats.seconds * 1e3),
                   cell("%.2f", nat > 0 ? nat / r.stats.seconds : NAN),
                   cell("%.1f", 100.0 * r.stats.seconds_gemm / std::max(r.stats.seconds, 1e-12)),
                   std::to_string(r.stats.permutations), std::to_string(r.stats.gemm.fallbacks),
                   cell("%.2e", 1.0 - r.accuracy.fidelity), cell("%.2e", r.accuracy.max_amp_err),
                   cell("%.2e", r.accuracy.norm_drift),
                   note_of(r)});
  }
  std::fputs(table.str().c_str(), stdout);
  if (!ctx.bitstrings.empty()) {
    std::vector<tcemu::app::Table::Column> columns = {{"scheme", tcemu::app::Table::Align::left}};
    for (const auto& b : ctx.bitstrings) columns.push_back({b});
    tcemu::app::Table amplitudes(std::move(columns));
    for (const auto& r : job.runs) {
      std::vector<std::string> row = {r.scheme.name};
      for (const auto& z : r.amplitudes) row.push_back(cell("%+.17e", z.real()) + cell("%+.17e", z.imag()) + "i");
      amplitudes.add_row(std::move(row));
    }
    std::printf("\namplitudes (bitstring: q[n-1]...q[0])\n%s", amplitudes.str().c_str());
  }
  if (ctx.shots > 0 && !job.runs.empty()) {
    std::map<std::uint64_t, std::int64_t> counts;
    for (auto v : job.runs[0].samples) ++counts[v];
    std::vector<std::pair<std::int64_t, std::uint64_t>> top;
    for (const auto& [v, k] : counts) top.emplace_back(k, v);
    std::sort(top.rbegin(), top.rend());
    const int width = c.measurements.empty() ? c.num_qubits : std::min(c.num_clbits, 64);
    std::printf("\n%lld shots (seed %llu), most frequent outcomes of the fp64 run (%s):\n", (long long)ctx.shots,
                (unsigned long long)ctx.seed, c.measurements.empty() ? "all qubits" : "classical register");
    for (std::size_t i = 0; i < std::min<std::size_t>(top.size(), 8); ++i)
      std::printf("  %s  %lld\n", to_bitstring(top[i].second, width).c_str(), (long long)top[i].first);
    for (std::size_t i = 1; i < job.runs.size(); ++i)
      if (job.runs[i].samples_differing)
        std::printf("  %s: %lld samples differ from fp64's\n", job.runs[i].scheme.name.c_str(),
                    (long long)job.runs[i].samples_differing);
  }
}

void print_json(const JobResult& job, const ReportContext& ctx) {
  const Circuit& c = *ctx.circuit;
  tcemu::app::Json rows = tcemu::app::Json::array();
  for (const auto& r : job.runs) {
    tcemu::app::Json amplitudes = tcemu::app::Json::array();
    for (std::size_t k = 0; k < r.amplitudes.size(); ++k)
      amplitudes.push_back({{"bitstring", ctx.bitstrings[k]}, {"re", r.amplitudes[k].real()}, {"im", r.amplitudes[k].imag()}});
    rows.push_back({{"scheme", r.scheme.name}, {"used", r.used}, {"precision", r.precision},
                    {"time_ms", r.stats.seconds * 1e3}, {"gemm_ms", r.stats.seconds_gemm * 1e3},
                    {"gemm_share", r.stats.seconds_gemm / std::max(r.stats.seconds, 1e-12)},
                    {"permute_ms", r.stats.seconds_permute * 1e3}, {"permutations", r.stats.permutations},
                    {"in_place_blocks", r.stats.in_place}, {"in_place_declined", r.stats.in_place_declined}, {"gathered_blocks", r.stats.gathered},
                    {"buffers", r.stats.single_buffer ? "single" : "two"}, {"position_swaps", r.stats.position_swaps},
                    {"fidelity", r.accuracy.fidelity},
                    {"infidelity", 1.0 - r.accuracy.fidelity}, {"max_amp_err", r.accuracy.max_amp_err},
                    {"norm", r.accuracy.norm}, {"norm_drift", r.accuracy.norm_drift},
                    {"fallbacks", r.stats.gemm.fallbacks}, {"samples_differing", r.samples_differing},
                    {"amplitudes", amplitudes}});
    if (!r.auto_choice.empty()) rows.back()["auto_choice"] = r.auto_choice;
  }
  const tcemu::app::Json report = {{"app", "qsim"}, {"circuit", c.name}, {"num_qubits", c.num_qubits},
                                   {"gates", c.gates.size()}, {"fuse", ctx.fuse}, {"blocks", job.fusion.blocks},
                                   {"device", to_string(ctx.device)}, {"results", rows}};
  std::printf("%s\n", tcemu::app::json_text(report).c_str());
}

void write_output(tcemu::app::io::Writer& w, const JobResult& job, const ReportContext& ctx) {
  const Circuit& c = *ctx.circuit;
  for (const auto& r : job.runs) {
    const std::string g = "/" + r.scheme.name + "/";
    w.write<double>(g + "time_ms", {r.stats.seconds * 1e3}, {1});
    w.write<double>(g + "gemm_ms", {r.stats.seconds_gemm * 1e3}, {1});
    w.write<double>(g + "fidelity", {r.accuracy.fidelity}, {1});
    w.write<double>(g + "max_amp_err", {r.accuracy.max_amp_err}, {1});
    w.write<double>(g + "norm", {r.accuracy.norm}, {1});
    if (!r.amplitudes.empty()) {
      std::vector<double> a;
      for (const auto& z : r.amplitudes) a.push_back(z.real()), a.push_back(z.imag());
      w.write<double>(g + "amplitudes", a, {static_cast<std::int64_t>(r.amplitudes.size()), 2});
    }
    if (!r.samples.empty()) {
      std::vector<std::int64_t> s(r.samples.begin(), r.samples.end());
      w.write<std::int64_t>(g + "samples", s, {static_cast<std::int64_t>(s.size())});
    }
    if (!r.state.empty() && c.num_qubits <= kMaxSavedStateQubits) {
      std::vector<double> a(2 * r.state.size());
      for (std::size_t k = 0; k < r.state.size(); ++k) a[2 * k] = r.state[k].real(), a[2 * k + 1] = r.state[k].imag();
      w.write<double>(g + "state", a, {static_cast<std::int64_t>(r.state.size()), 2});
    }
  }
  w.write_string_attribute("/", "circuit", c.name);
  w.write_int_attribute("/", "num_qubits", c.num_qubits);
  w.write_int_attribute("/", "fuse", ctx.fuse);
  w.write_int_attribute("/", "shots", ctx.shots);
  w.write_int_attribute("/", "seed", static_cast<std::int64_t>(ctx.seed));
  std::string bits;
  for (const auto& b : ctx.bitstrings) bits += (bits.empty() ? "" : ",") + b;
  w.write_string_attribute("/", "bitstrings", bits);
  w.commit();
}

}  // namespace qsim
