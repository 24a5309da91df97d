// qsim's auto: fastest configuration that keeps 1 - F <= 1e-6 (auto_config.hpp).
#include "auto_config.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "fusion.hpp"
#include "tcemu/error.hpp"
#include "tcemu/schemes/all.hpp"

namespace qsim {

namespace {

double rate_tflops(const tcemu::CostModel& m, tcemu::PartType p) {
  switch (p) {
    case tcemu::PartType::fp64: return m.tflops_fp64;
    case tcemu::PartType::fp32: return m.tflops_fp32;
    case tcemu::PartType::tf32: return m.tflops_tf32;
    case tcemu::PartType::bf16: return m.tflops_bf16;
    case tcemu::PartType::fp16: return m.tflops_fp16;
    case tcemu::PartType::int8: return m.tops_int8;
  }
  return m.tflops_fp32;
}

bool tensor_core_part(tcemu::PartType p) {
  return p == tcemu::PartType::fp16 || p == tcemu::PartType::bf16 || p == tcemu::PartType::tf32;
}

std::string fmt(const char* f, double v) {
  char b[48];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string path_text(const AutoCandidate& c) {
  if (c.in_place_blocks == c.blocks) return "in place";
  if (c.in_place_blocks == 0) return "permuted";
  return std::to_string(c.in_place_blocks) + "/" + std::to_string(c.blocks) + " in place";
}

}  // namespace

bool biased_sums(const tcemu::Scheme& s, Device device) {
  switch (s.split) {
    case tcemu::SplitRule::truncate:
    case tcemu::SplitRule::bitcut_rz:
    case tcemu::SplitRule::int_slices:
    case tcemu::SplitRule::crt_residues:
    case tcemu::SplitRule::tile_exponent:
      return true;
    default:
      break;
  }
  const tcemu::ImplFamily f = s.family();
  return device == Device::cuda && (f == tcemu::ImplFamily::parts || f == tcemu::ImplFamily::one_pass) &&
         tensor_core_part(s.part);
}

double predicted_infidelity(const tcemu::Scheme& s, const std::vector<int>& block_qubits, Device device) {
  const double u = std::ldexp(1.0, -s.precision_bits);
  if (biased_sums(s, device)) return u * static_cast<double>(block_qubits.size());
  double sum = 0;
  for (int q : block_qubits) sum += u * u / std::ldexp(1.0, q);
  return std::sqrt(sum);
}

double predicted_block_seconds(const tcemu::Scheme& s, int q, int c, int n, bool in_place, const tcemu::CostModel& m) {
  if (s.is_automatic()) throw tcemu::InvalidArgument("qsim auto: predicted_block_seconds needs a resolved scheme");
  const double bw = m.bandwidth_gbs * 1e9;
  const double rows = std::ldexp(1.0, n - q - c);
  const std::int64_t k = std::int64_t(1) << (q + 1);  // real embedding: 2^(s+1) x 2^(s+1)
  const double state_bytes = 8.0 * std::ldexp(1.0, n);  // complex64
  if (in_place) {
    const double flop = 2.0 * rows * double(k) * double(k) * s.products;
    return 2.0 * state_bytes / bw + flop / (rate_tflops(m, s.part) * 1e12);
  }
  return 2.0 * state_bytes / bw + m.predict_seconds(s, static_cast<std::int64_t>(rows), k, k, tcemu::Target::fp32);
}

std::vector<tcemu::Scheme> auto_schemes() {
  std::vector<tcemu::Scheme> out;
  for (const tcemu::Scheme& s : tcemu::catalogue(tcemu::Target::fp32)) {
    if (s.is_automatic() || s.target != tcemu::Target::fp32 || s.parts <= 0 || !s.meets(tcemu::Target::fp32)) continue;
    out.push_back(s);
  }
  return out;
}

AutoConfig choose_auto_config(const std::vector<FusionOption>& fusions, int n, const tcemu::CostModel& model,
                              Device device, const InPlaceSupport& in_place, double limit) {
  if (fusions.empty()) throw tcemu::InvalidArgument("qsim auto: no fusion width to choose from");
  AutoConfig out;
  out.limit = limit;
  out.device = model.device;
  for (const tcemu::Scheme& s : auto_schemes()) {
    const bool measured = model.find_measured(s, tcemu::Target::fp32) != nullptr;
    for (const FusionOption& f : fusions) {
      if (f.block_qubits.size() != f.block_controls.size())
        throw tcemu::InvalidArgument("qsim auto: --fuse " + std::to_string(f.fuse) + ": block lists differ in length");
      AutoCandidate c;
      c.scheme = s;
      c.fuse = f.fuse;
      c.blocks = static_cast<std::int64_t>(f.block_qubits.size());
      bool used_rates = false, used_fit = false;
      for (std::size_t b = 0; b < f.block_qubits.size(); ++b) {
        const int q = f.block_qubits[b], ctl = f.block_controls[b];
        const bool inplace = ctl == 0 && in_place && in_place(s, q, n);
        c.in_place_blocks += inplace;
        c.predicted_seconds += predicted_block_seconds(s, q, ctl, n, inplace, model);
        (inplace || !measured ? used_rates : used_fit) = true;
      }
      c.cost_source = used_fit && used_rates ? "fit + rates" : used_fit ? "fit" : "rates";
      c.biased = biased_sums(s, device);
      c.predicted_infidelity = predicted_infidelity(s, f.block_qubits, device);
      c.eligible = c.predicted_infidelity <= limit;
      out.candidates.push_back(c);
    }
  }
  const AutoCandidate* best = nullptr;
  for (const AutoCandidate& c : out.candidates) {
    if (!c.eligible) continue;
    if (!best || c.predicted_seconds < best->predicted_seconds ||
        (c.predicted_seconds == best->predicted_seconds && c.scheme.name == best->scheme.name && c.fuse > best->fuse))
      best = &c;
  }
  if (!best) {
    out.none_eligible = true;
    for (const AutoCandidate& c : out.candidates)
      if (!best || c.predicted_infidelity < best->predicted_infidelity) best = &c;
  }
  out.chosen = *best;
  return out;
}

std::string AutoConfig::summary() const {
  std::size_t eligible = 0;
  const AutoCandidate* native = nullptr;
  for (const AutoCandidate& c : candidates) {
    eligible += c.eligible;
    if (c.scheme.is_native() && c.fuse == chosen.fuse && !native) native = &c;
  }
  std::ostringstream o;
  o << "auto: " << chosen.scheme.name << ", --fuse " << chosen.fuse << ", " << path_text(chosen) << " ("
    << chosen.blocks << " blocks), predicted " << fmt("%.4g", chosen.predicted_seconds * 1e3) << " ms, 1 - F "
    << fmt("%.1e", chosen.predicted_infidelity) << (none_eligible ? " > " : " <= ") << fmt("%.0e", limit);
  if (none_eligible) o << " (no configuration meets the limit: the most accurate one)";
  else o << " (fastest of " << eligible << " eligible of " << candidates.size() << ")";
  if (native && native->scheme.name != chosen.scheme.name)
    o << "; fp32 --fuse " << native->fuse << " predicted " << fmt("%.4g", native->predicted_seconds * 1e3) << " ms";
  return o.str();
}

std::string AutoConfig::explain() const {
  std::ostringstream o;
  o << "qsim auto: fastest (scheme, --fuse, path) with predicted 1 - F <= " << fmt("%.0e", limit)
    << " (apps/qsim/auto_config.hpp); cost model: " << device << "\n";
  o << "  scheme           fuse blocks  path              pred_ms  1-F(pred)  sums     cost          eligible\n";
  for (const AutoCandidate& c : candidates) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-16s %4d %6lld  %-16s %8.1f  %9.2e  %-8s %-13s %s\n", c.scheme.name.c_str(), c.fuse,
                  static_cast<long long>(c.blocks), path_text(c).c_str(), c.predicted_seconds * 1e3, c.predicted_infidelity,
                  c.biased ? "biased" : "rounded", c.cost_source.c_str(), c.eligible ? "yes" : "no");
    o << line;
  }
  o << "  " << summary() << "\n";
  return o.str();
}

std::vector<FusionOption> fusion_options(const Circuit& circuit, const std::vector<int>& widths) {
  std::vector<FusionOption> out;
  for (int d : widths) {
    FusionOption f;
    f.fuse = d;
    for (const Block& b : fuse(circuit, d)) {
      f.block_qubits.push_back(static_cast<int>(b.qubits.size()));
      f.block_controls.push_back(static_cast<int>(b.controls.size()));
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace qsim
