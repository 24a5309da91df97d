// `auto`: candidates, cost model, choice and its explanation (docs/architecture.md, "Scheme resolution";
// docs/cost-model.md).
#include "tcemu/select.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "tcemu/error.hpp"
#include "tcemu/schemes/all.hpp"

namespace tcemu {

CostModel CostModel::host() {
  // Every part product is a CBLAS SGEMM (DGEMM for Ozaki slices), so only the ratios matter here:
  // emulation costs products x SGEMM and can never beat native on the host.
  CostModel m;
  m.device = "host (CBLAS)";
  m.tflops_fp32 = m.tflops_tf32 = m.tflops_bf16 = m.tflops_fp16 = 0.1;
  m.tflops_fp64 = m.tops_int8 = 0.05;
  m.bandwidth_gbs = 10;
  return m;
}

CostModel CostModel::h200_anchors() {
  CostModel m;
  m.device = "NVIDIA H200 (cuBLAS anchors, docs/benchmarks.md, 8192^3)";
  m.tflops_fp64 = 55.8;
  m.tflops_fp32 = 51.1;
  m.tflops_tf32 = 406;
  m.tflops_bf16 = 770;
  m.tflops_fp16 = 735;
  m.tops_int8 = 1431;
  m.bandwidth_gbs = 4000;
  return m;
}

double CostModel::predict_seconds(const Scheme& s, std::int64_t m, std::int64_t n, std::int64_t k,
                                  Target call) const {
  const double flop = 2.0 * double(m) * double(n) * double(k);
  const double mk = double(m) * double(k), kn = double(k) * double(n), mn = double(m) * double(n);
  const double bw = bandwidth_gbs * 1e9;
  auto rate = [&](PartType p) {
    switch (p) {
      case PartType::fp64: return tflops_fp64;
      case PartType::fp32: return tflops_fp32;
      case PartType::tf32: return tflops_tf32;
      case PartType::bf16: return tflops_bf16;
      case PartType::fp16: return tflops_fp16;
      case PartType::int8: return tops_int8;
    }
    return tflops_fp32;
  };
  if (s.is_automatic()) throw InvalidArgument("predict_seconds: resolve auto first");
  if (const MeasuredCost* mc = find_measured(s, call)) {
    const auto f = cost_features(s, m, n, k);
    double t = 0;
    for (int i = 0; i < kCostFeatures; ++i) t += mc->coef[i] * f[i];
    // int8-crt with N per call: the N-modulus cost above plus its certificate's.
    if (s.family() == ImplFamily::crt && s.parts == 0) t += certificate_seconds(m, n, k, call);
    return t;
  }
  // The cost branch is the implementation family of the scheme's descriptor.
  const schemes::SchemeDescriptor& d = schemes::descriptor(s.kind);
  if (d.family == ImplFamily::native) return flop / (rate(s.part) * 1e12);
  if (d.family == ImplFamily::int_slices) {
    const int sl = s.parts > 0 ? s.parts : (s.target == Target::fp64 ? d.cost_parts_fp64 : d.cost_parts_fp32);
    const double products = sl * (sl + 1) / 2.0;
    const double split_bytes = (mk + kn) * (8.0 + sl);     // read FP64, write s INT8 slices
    const double accum_bytes = double(sl) * mn * (4 + 16);  // per i+j group: INT32 in, FP64 r/w
    return products * flop / (rate(PartType::int8) * 1e12) + (split_bytes + accum_bytes) / bw;
  }
  if (d.family == ImplFamily::crt) {
    const int N = s.parts > 0 ? s.parts : (s.target == Target::fp64 ? d.cost_parts_fp64 : d.cost_parts_fp32);
    const double residue_bytes = (mk + kn) * (8.0 + N);    // read FP64, write N INT8 residues
    const double product_bytes = mn * (N * 4.0 * 2 + 16);  // N INT32 products written and read, C r/w
    const double certificate = s.parts > 0 ? 0.0 : certificate_seconds(m, n, k, call);
    return N * flop / (rate(PartType::int8) * 1e12) + (residue_bytes + product_bytes) / bw + certificate;
  }
  if (d.family == ImplFamily::tile_exponent) {  // one fused kernel: pack (read FP32, write INT8 segments)
    const double split_bytes = (mk + kn) * (4.0 + s.parts);
    return s.products * flop / (rate(PartType::int8) * 1e12) + (split_bytes + mn * 4.0) / bw;
  }
  const double part_bytes = s.part == PartType::tf32 ? 4 : 2;
  // The line-aligned splits read their operand twice (a profile pass for the line maxima first).
  const double split_bytes = (mk + kn) * ((s.needs_profile_before_split() ? 8.0 : 4.0) + s.parts * part_bytes);
  const double combine_bytes = mn * 4.0 * (double(s.groups.size()) + 1);
  return s.products * flop / (rate(s.part) * 1e12) + (split_bytes + combine_bytes) / bw;
}

double CostModel::certificate_seconds(std::int64_t m, std::int64_t n, std::int64_t k, Target call) const {
  if (k <= crt::kInt8CertificateMaxK)
    if (const MeasuredCost* mc = find_certificate(call)) {
      const auto f = certificate_features(m, n, k);
      double t = 0;
      for (int i = 0; i < kCostFeatures; ++i) t += mc->coef[i] * f[i];
      return t;
    }
  const double flop = 2.0 * double(m) * double(n) * double(k);
  const double operands = double(m) * double(k) + double(k) * double(n), mn = double(m) * double(n);
  // k <= 2^16: crt::certify_int8, three INT8 products' worth of magnitude GEMMs, the magnitude panels
  // (read FP64, write 2 + 3 bytes) and the per-entry test of the N plus the ratio pass, about 20 ps per
  // entry (1.35 ms at 8192^3 on an H100; the whole certificate 4.5 ms of kernels, docs/perf-notes.md
  // "Session 19"). Beyond: crt::certify's FP64 sums on the
  // CUDA cores, about fifty DGEMMs' time (1.03 s at 8192^3).
  if (k <= crt::kInt8CertificateMaxK)
    return 3 * flop / (tops_int8 * 1e12) + operands * 13.0 / (bandwidth_gbs * 1e9) + mn * 20e-12;
  return 50 * flop / (tflops_fp64 * 1e12);
}

const MeasuredCost* CostModel::find_certificate(Target call) const {
  for (const MeasuredCost& c : certificate_costs)
    if (c.target == call) return &c;
  return nullptr;
}

int crt_moduli_estimate(Target target, const RangeProfile& a, const RangeProfile& b, std::int64_t k) {
  if (a.nonfinite > 0 || b.nonfinite > 0) return 0;
  const double spread = std::max({1.0, a.max_line_spread_bits, b.max_line_spread_bits});
  const double bits = 2.0 * ((target == Target::fp64 ? 53 : 24) + 1) +
                      std::log2(static_cast<double>(std::max<std::int64_t>(k, 1))) + 4 + spread;
  double log2P = 0;
  for (int N = 1; N <= crt::kMaxModuli; ++N) {
    log2P += std::log2(static_cast<double>(crt::kModuli[N - 1]));
    if (N >= crt::kMinModuli && log2P >= bits) return N;
  }
  return 0;
}

int moduli_in_certificate(const std::string& certificate) {
  int n = 0;
  char tail[8] = {};
  if (std::sscanf(certificate.c_str(), "N = %d %7s", &n, tail) != 2 || std::string(tail) != "moduli") return 0;
  return n >= crt::kMinModuli && n <= crt::kMaxModuli ? n : 0;
}

int ozaki_slices_for(Target target, const RangeProfile& a, const RangeProfile& b) {
  if (a.nonfinite > 0 || b.nonfinite > 0) return 0;
  const double spread = std::max(a.max_line_spread_bits, b.max_line_spread_bits);
  const int bits = (target == Target::fp64 ? 53 : 24) + 1 + static_cast<int>(std::ceil(spread));
  const int s = (bits + 6) / 7;
  return s <= 18 ? s : 0;
}

Plan plan(const RangeProfile& a, const RangeProfile& b, std::int64_t m, std::int64_t n, std::int64_t k,
          Target target, const CostModel& model) {
  Plan p;
  p.target = target;
  p.profile_a = a;
  p.profile_b = b;
  p.device = model.device;
  for (Scheme s : catalogue(target)) {
    if (s.is_automatic()) continue;
    Candidate c;
    if (s.family() == ImplFamily::int_slices) {  // slice count chosen from the operands' spread
      const int sl = ozaki_slices_for(target, a, b);
      if (sl == 0) {
        c.scheme = s;
        c.reason = a.nonfinite + b.nonfinite > 0 ? "non-finite input"
                                                 : "needs more than 18 slices for this spread";
        p.candidates.push_back(c);
        continue;
      }
      s = ozaki_scheme(sl, target);
    }
    // int8-crt: predicted at the modulus count its certificate is expected to ask for; the pick stays
    // `int8-crt` (N per call), so that the backend certifies N on the operands themselves.
    const int crt_moduli = s.family() == ImplFamily::crt ? crt_moduli_estimate(target, a, b, k) : 0;
    c.moduli = crt_moduli;
    c.scheme = s;
    c.predicted_seconds =
        crt_moduli > 0 ? model.predict_seconds(parameterized_scheme(s.kind, crt_moduli, target), m, n, k, target) +
                             model.certificate_seconds(m, n, k, target)
                       : model.predict_seconds(s, m, n, k, target);
    if (const MeasuredCost* mc = model.find_measured(s, target)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "fit +-%.0f%%%s", 100 * mc->fit_error,
                    mc->target == target ? "" : " (other target)");
      c.cost_source = buf;
      if (const MeasuredCost* cert = s.family() == ImplFamily::crt ? model.find_certificate(target) : nullptr) {
        std::snprintf(buf, sizeof buf, ", cert +-%.0f%%", 100 * cert->fit_error);
        c.cost_source += buf;
      }
    } else {
      c.cost_source = "rates";
    }
    c.predicted_error = std::ldexp(1.0, -s.precision_bits);
    const bool unmeasured = !model.measured.empty() && !model.find_measured(s, target);
    if (s.family() == ImplFamily::crt) {
      // Rates alone leave out its passes' and certificate's real cost (docs/crt.md: far above them),
      // so only a model that measured both for this target lets auto pick it.
      const MeasuredCost* mc = model.find_measured(s, target);
      if (!mc || mc->target != target || !model.find_certificate(target))
        c.reason = "no measured " + s.name + " and certificate cost for an " + std::string(to_string(target)) +
                   " target in this model";
      else if (a.nonfinite + b.nonfinite > 0)
        c.reason = "non-finite input";
      else if (crt_moduli == 0)
        c.reason = "needs more than " + std::to_string(crt::kMaxModuli) + " moduli for this spread (estimate)";
    } else if (unmeasured && !s.is_native()) {
      // Rates alone leave out the fixed and split costs that the measured fits include, so an
      // unmeasured scheme would look cheaper than it is next to measured ones.
      c.reason = "no measured cost in this model (recalibrate to include it)";
    } else if (!s.meets(target)) {
      c.reason = std::to_string(s.precision_bits) + " bits < " + to_string(target) + " accuracy";
    } else {
      const std::string va = range_violation(s, a), vb = range_violation(s, b);
      if (!va.empty()) c.reason = "A: " + va;
      else if (!vb.empty()) c.reason = "B: " + vb;
    }
    c.eligible = c.reason.empty();
    p.candidates.push_back(c);
  }
  const Candidate* best = nullptr;
  for (const auto& c : p.candidates)
    if (c.eligible && (!best || c.predicted_seconds < best->predicted_seconds)) best = &c;
  // Native arithmetic of the target is always eligible, so best is never null.
  p.chosen = best ? best->scheme : parse_scheme(to_string(target));
  return p;
}

Scheme pick_without_crt(const Plan& p) {
  const Candidate* best = nullptr;
  for (const auto& c : p.candidates)
    if (c.eligible && c.scheme.family() != ImplFamily::crt &&
        (!best || c.predicted_seconds < best->predicted_seconds))
      best = &c;
  return best ? best->scheme : parse_scheme(to_string(p.target));
}

std::string certificate_summary(const std::string& certificate, const Plan& plan, std::int64_t m, std::int64_t n,
                                std::int64_t k, const CostModel& model) {
  const int N = moduli_in_certificate(certificate);
  std::string out = certificate;
  if (N == 0) return out;
  const double at_n = model.predict_seconds(parameterized_scheme(schemes::kind_of<schemes::Int8Crt>, N, plan.target), m, n, k,
                                            plan.target) +
                      model.certificate_seconds(m, n, k, plan.target);
  char buf[160];
  std::snprintf(buf, sizeof buf, "; predicted %.4g ms at N = %d", at_n * 1e3, N);
  out += buf;
  for (const Candidate& c : plan.candidates)
    if (c.scheme.family() == ImplFamily::crt && c.moduli > 0) {
      std::snprintf(buf, sizeof buf, " (auto assumed N = %d, %.4g ms)", c.moduli, c.predicted_seconds * 1e3);
      out += buf;
    }
  return out;
}

std::string Plan::explain() const {
  std::ostringstream os;
  char line[512];
  if (!candidates.empty()) {
    os << "auto (target " << to_string(target) << ", cost model: " << device << ")\n";
    os << "  profile A: " << profile_a.summary() << "\n";
    os << "  profile B: " << profile_b.summary() << "\n";
    std::snprintf(line, sizeof line, "  %-16s %-9s %-13s %-11s %-24s %s\n", "candidate", "eligible",
                  "predicted ms", "pred. error", "time from", "reason");
    os << line;
    const Candidate* pick = nullptr;
    for (const auto& c : candidates) {
      const std::string name = c.moduli > 0 ? c.scheme.name + " (N~" + std::to_string(c.moduli) + ")" : c.scheme.name;
      std::snprintf(line, sizeof line, "  %-16s %-9s %-13.4g %-11.2e %-24s %s\n", name.c_str(),
                    c.eligible ? "yes" : "no", c.predicted_seconds * 1e3, c.predicted_error,
                    c.cost_source.c_str(), c.reason.c_str());
      os << line;
      if (c.eligible && c.scheme.name == chosen.name) pick = &c;
    }
    os << "  pick: " << chosen.name;
    if (pick) {
      std::snprintf(line, sizeof line, " (predicted %.4g ms, error %.2e)", pick->predicted_seconds * 1e3,
                    pick->predicted_error);
      os << line;
    }
    os << "\n";
    if (!certificate.empty()) os << "  certificate: " << certificate << "\n";
  }
  if (execution.implementation != Implementation::none || !execution.stages.empty()) os << execution.explain();
  return os.str();
}

std::vector<Scheme> calibration_schemes(Target target) {
  std::vector<Scheme> out;
  for (const Scheme& row : catalogue(target)) {
    if (row.is_automatic()) continue;
    const schemes::SchemeDescriptor& d = schemes::descriptor(row.kind);
    for (const int p : target == Target::fp32 ? d.calibrate_fp32 : d.calibrate_fp64) {
      if (p == 0) out.push_back(row);
      else if (p > 0) out.push_back(parameterized_scheme(row.kind, p, target));
    }
  }
  return out;
}

}  // namespace tcemu
