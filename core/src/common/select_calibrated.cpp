// Measured cost models for `auto`: the cost terms, the non-negative least-squares fit and the text
// form of a calibrated CostModel (the cache file of tcemu/cuda/calibrate.hpp). Host code only, so
// the fit and the file format are tested without a GPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "tcemu/error.hpp"
#include "tcemu/schemes/all.hpp"
#include "tcemu/select.hpp"

namespace tcemu {
namespace {

// 2: `impl` lines (fused against multi-pass per scheme and beta class, ImplementationTiming).
// 3: `impl` lines name the shape class of the oriented problem (square, tall, wide).
// 4: int8-crt is fitted per modulus count (cost_features), `certificate` / `certificate-sample` lines.
constexpr const char* kTextVersion = "tcemu-cost-model 4";

/// Solves the normal equations of the columns in `cols` (Gaussian elimination with partial pivoting).
/// Returns false when the system is singular.
bool solve_subset(const std::vector<std::array<double, kCostFeatures>>& x, const std::vector<double>& y,
                  const std::vector<int>& cols, std::array<double, kCostFeatures>& coef) {
  const int p = static_cast<int>(cols.size());
  std::vector<std::vector<double>> a(p, std::vector<double>(p + 1, 0.0));
  for (std::size_t r = 0; r < x.size(); ++r)
    for (int i = 0; i < p; ++i) {
      for (int j = 0; j < p; ++j) a[i][j] += x[r][cols[i]] * x[r][cols[j]];
      a[i][p] += x[r][cols[i]] * y[r];
    }
  for (int c = 0; c < p; ++c) {
    int piv = c;
    for (int r = c + 1; r < p; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    if (!(std::fabs(a[piv][c]) > 1e-300)) return false;
    std::swap(a[c], a[piv]);
    for (int r = 0; r < p; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (int j = c; j <= p; ++j) a[r][j] -= f * a[c][j];
    }
  }
  coef.fill(0.0);
  for (int i = 0; i < p; ++i) coef[cols[i]] = a[i][p] / a[i][i];
  return true;
}

std::string kind_name(SchemeKind k, Target t) {
  for (const Scheme& s : catalogue(t))
    if (s.kind == k) return schemes::descriptor(k).name;
  throw InvalidArgument("cost model: scheme kind without a catalogue name");
}

}  // namespace

std::array<double, kCostFeatures> cost_features(const Scheme& s, std::int64_t m, std::int64_t n,
                                                std::int64_t k) {
  const double dm = double(m), dn = double(n), dk = double(k);
  const double operands = dm * dk + dk * dn, outputs = dm * dn, macs = dm * dn * dk;
  const schemes::SchemeDescriptor& d = schemes::descriptor(s.kind);
  if (d.family == ImplFamily::int_slices) {  // per-slice terms
    const double sl = s.parts > 0 ? s.parts : (s.target == Target::fp64 ? d.cost_parts_fp64 : d.cost_parts_fp32);
    return {1.0, sl, sl * operands, sl * outputs, sl * (sl + 1) / 2 * macs};
  }
  if (d.family == ImplFamily::crt) {  // per-modulus terms: N residues, N products, N INT32 panels read
    const double N = s.parts > 0 ? s.parts : (s.target == Target::fp64 ? d.cost_parts_fp64 : d.cost_parts_fp32);
    return {1.0, N, N * operands, N * outputs, N * macs};
  }
  return {1.0, 0.0, operands, outputs, macs};
}

std::array<double, kCostFeatures> certificate_features(std::int64_t m, std::int64_t n, std::int64_t k) {
  const double dm = double(m), dn = double(n), dk = double(k);
  return {1.0, 0.0, dm * dk + dk * dn, dm * dn, dm * dn * dk};
}

namespace {

/// Non-negative least squares of `samples` on the terms `features(sample)` (fit_measured_cost's rule).
template <class Features>
MeasuredCost fit_samples(const std::vector<CostSample>& samples, Features features) {
  MeasuredCost out;
  out.kind = samples.front().scheme.kind;
  out.target = samples.front().target;
  // Rows scaled by 1 / measured time: least squares on the relative residuals.
  std::vector<std::array<double, kCostFeatures>> x;
  std::vector<double> y;
  for (const CostSample& c : samples) {
    if (!(c.seconds > 0) || !std::isfinite(c.seconds))
      throw InvalidArgument("fit_measured_cost: " + c.scheme.name + ": non-positive time");
    auto f = features(c);
    for (double& v : f) v /= c.seconds;
    x.push_back(f);
    y.push_back(1.0);
  }
  // Columns scaled to unit norm so that the elimination sees comparable magnitudes.
  std::array<double, kCostFeatures> scale{};
  std::vector<int> usable;
  for (int j = 0; j < kCostFeatures; ++j) {
    double s2 = 0;
    for (const auto& r : x) s2 += r[j] * r[j];
    scale[j] = std::sqrt(s2);
    if (scale[j] > 0) {
      usable.push_back(j);
      for (auto& r : x) r[j] /= scale[j];
    }
  }
  double best_res = std::numeric_limits<double>::infinity();
  std::array<double, kCostFeatures> best{};
  const int u = static_cast<int>(usable.size());
  for (int mask = 1; mask < (1 << u); ++mask) {
    std::vector<int> cols;
    for (int i = 0; i < u; ++i)
      if (mask & (1 << i)) cols.push_back(usable[i]);
    if (cols.size() > x.size()) continue;
    std::array<double, kCostFeatures> c{};
    if (!solve_subset(x, y, cols, c)) continue;
    if (std::any_of(c.begin(), c.end(), [](double v) { return v < 0 || !std::isfinite(v); })) continue;
    double res = 0;
    for (std::size_t r = 0; r < x.size(); ++r) {
      double pred = 0;
      for (int j = 0; j < kCostFeatures; ++j) pred += x[r][j] * c[j];
      res += (pred - 1) * (pred - 1);
    }
    if (res < best_res) {
      best_res = res;
      best = c;
    }
  }
  for (int j = 0; j < kCostFeatures; ++j) out.coef[j] = scale[j] > 0 ? best[j] / scale[j] : 0.0;
  out.points = static_cast<int>(samples.size());
  for (const CostSample& c : samples) {
    const auto f = features(c);
    double pred = 0;
    for (int j = 0; j < kCostFeatures; ++j) pred += out.coef[j] * f[j];
    out.fit_error = std::max(out.fit_error, std::fabs(pred - c.seconds) / c.seconds);
  }
  return out;
}

}  // namespace

MeasuredCost fit_measured_cost(const std::vector<CostSample>& samples) {
  if (samples.empty()) throw InvalidArgument("fit_measured_cost: no samples");
  for (const CostSample& c : samples)
    if (c.scheme.kind != samples.front().scheme.kind || c.target != samples.front().target)
      throw InvalidArgument("fit_measured_cost: samples mix schemes (" + samples.front().scheme.name + " and " +
                            c.scheme.name + ")");
  return fit_samples(samples, [](const CostSample& c) { return cost_features(c.scheme, c.m, c.n, c.k); });
}

MeasuredCost fit_certificate_cost(const std::vector<CostSample>& samples) {
  if (samples.empty()) throw InvalidArgument("fit_certificate_cost: no samples");
  for (const CostSample& c : samples) {
    if (c.scheme.kind != schemes::kind_of<schemes::Int8Crt>)
      throw InvalidArgument("fit_certificate_cost: " + c.scheme.name + " is not " + schemes::Int8Crt::desc.name);
    if (c.target != samples.front().target) throw InvalidArgument("fit_certificate_cost: samples mix targets");
  }
  return fit_samples(samples, [](const CostSample& c) { return certificate_features(c.m, c.n, c.k); });
}

const MeasuredCost* CostModel::find_measured(const Scheme& s, Target call) const {
  const MeasuredCost* other = nullptr;
  for (const MeasuredCost& m : measured) {
    if (m.kind != s.kind) continue;
    if (m.target == call) return &m;
    other = &m;
  }
  return other;
}

const char* to_string(ShapeClass c) {
  switch (c) {
    case ShapeClass::square: return "square";
    case ShapeClass::tall: return "tall";
    case ShapeClass::wide: return "wide";
  }
  return "?";
}

std::string shape_class_rule(ShapeClass c) {
  const std::string narrow = std::to_string(kShapeClassNarrow), ratio = std::to_string(kShapeClassRatio);
  switch (c) {
    case ShapeClass::square: return "square (neither tall nor wide)";
    case ShapeClass::tall: return "tall (n <= " + narrow + ", m >= " + ratio + " n)";
    case ShapeClass::wide: return "wide (m <= " + narrow + ", n >= " + ratio + " m)";
  }
  return "?";
}

ShapeClass parse_shape_class(const std::string& name) {
  for (const ShapeClass c : {ShapeClass::square, ShapeClass::tall, ShapeClass::wide})
    if (name == to_string(c)) return c;
  throw InvalidArgument("unknown shape class '" + name + "' (expected square, tall or wide)");
}

const ImplementationTiming* CostModel::find_implementation_timing(SchemeKind kind, bool reads_c,
                                                                  ShapeClass shape) const {
  for (const ImplementationTiming& t : implementation_timings)
    if (t.kind == kind && t.reads_c == reads_c && t.shape == shape) return &t;
  return nullptr;
}

std::string CostModel::to_text() const {
  std::ostringstream os;
  char buf[512];
  os << kTextVersion << "\n";
  os << "device " << device << "\n";
  std::snprintf(buf, sizeof buf, "rates %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", tflops_fp64, tflops_fp32,
                tflops_tf32, tflops_bf16, tflops_fp16, tops_int8, bandwidth_gbs);
  os << buf;
  for (const MeasuredCost& m : measured) {
    os << "fit " << kind_name(m.kind, m.target) << " " << to_string(m.target) << " " << m.points;
    std::snprintf(buf, sizeof buf, " %.17g", m.fit_error);
    os << buf;
    for (double c : m.coef) {
      std::snprintf(buf, sizeof buf, " %.17g", c);
      os << buf;
    }
    os << "\n";
  }
  for (const CostSample& c : samples) {
    std::snprintf(buf, sizeof buf, "sample %s %s %lld %lld %lld %.17g\n", c.scheme.name.c_str(),
                  to_string(c.target), (long long)c.m, (long long)c.n, (long long)c.k, c.seconds);
    os << buf;
  }
  for (const MeasuredCost& c : certificate_costs) {
    std::snprintf(buf, sizeof buf, "certificate %s %d %.17g", to_string(c.target), c.points, c.fit_error);
    os << buf;
    for (double v : c.coef) {
      std::snprintf(buf, sizeof buf, " %.17g", v);
      os << buf;
    }
    os << "\n";
  }
  for (const CostSample& c : certificate_samples) {
    std::snprintf(buf, sizeof buf, "certificate-sample %s %lld %lld %lld %.17g\n", to_string(c.target),
                  (long long)c.m, (long long)c.n, (long long)c.k, c.seconds);
    os << buf;
  }
  for (const ImplementationTiming& t : implementation_timings) {
    std::snprintf(buf, sizeof buf, "impl %s %s %s %lld %lld %lld %.17g %.17g\n",
                  kind_name(t.kind, Target::fp32).c_str(), t.reads_c ? "reads-c" : "beta0", to_string(t.shape),
                  (long long)t.m, (long long)t.n, (long long)t.k, t.fused_seconds, t.multipass_seconds);
    os << buf;
  }
  os << "end\n";
  return os.str();
}

CostModel CostModel::from_text(const std::string& text, const std::string& where) {
  CostModel m;
  std::istringstream in(text);
  std::string line;
  int no = 0;
  bool ended = false, have_device = false, have_rates = false;
  auto fail = [&](const std::string& why) -> InvalidArgument {
    return InvalidArgument(where + ": line " + std::to_string(no) + ": " + why);
  };
  auto finite_nonneg = [](double v) { return std::isfinite(v) && v >= 0; };
  while (std::getline(in, line)) {
    ++no;
    if (ended) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      throw fail("text after 'end'");
    }
    if (no == 1) {
      if (line != kTextVersion)
        throw fail("not a cost model of this version (want '" + std::string(kTextVersion) + "')");
      continue;
    }
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "device") {
      m.device = line.size() > 7 ? line.substr(7) : "";
      have_device = true;
    } else if (tag == "rates") {
      if (!(ls >> m.tflops_fp64 >> m.tflops_fp32 >> m.tflops_tf32 >> m.tflops_bf16 >> m.tflops_fp16 >>
            m.tops_int8 >> m.bandwidth_gbs))
        throw fail("bad 'rates' line");
      for (double v : {m.tflops_fp64, m.tflops_fp32, m.tflops_tf32, m.tflops_bf16, m.tflops_fp16, m.tops_int8,
                       m.bandwidth_gbs})
        if (!(std::isfinite(v) && v > 0)) throw fail("rates must be positive");
      have_rates = true;
    } else if (tag == "fit") {
      std::string name, target;
      MeasuredCost c;
      if (!(ls >> name >> target >> c.points >> c.fit_error)) throw fail("bad 'fit' line");
      for (double& v : c.coef)
        if (!(ls >> v)) throw fail("bad 'fit' line (want " + std::to_string(kCostFeatures) + " coefficients)");
      try {
        c.target = parse_target(target);
        c.kind = parse_scheme(name, c.target).kind;
      } catch (const Error& e) {
        throw fail(e.what());
      }
      if (schemes::descriptor(c.kind).family == ImplFamily::automatic) throw fail("'auto' has no cost of its own");
      if (!finite_nonneg(c.fit_error) || c.points <= 0) throw fail("bad fit error or point count");
      for (double v : c.coef)
        if (!finite_nonneg(v)) throw fail("coefficients must be finite and >= 0");
      m.measured.push_back(c);
    } else if (tag == "sample") {
      std::string name, target;
      long long mm = 0, nn = 0, kk = 0;
      CostSample c;
      if (!(ls >> name >> target >> mm >> nn >> kk >> c.seconds)) throw fail("bad 'sample' line");
      try {
        c.target = parse_target(target);
        c.scheme = parse_scheme(name, c.target);
      } catch (const Error& e) {
        throw fail(e.what());
      }
      if (mm <= 0 || nn <= 0 || kk <= 0 || !(std::isfinite(c.seconds) && c.seconds > 0))
        throw fail("bad sample shape or time");
      c.m = mm;
      c.n = nn;
      c.k = kk;
      m.samples.push_back(c);
    } else if (tag == "impl") {
      std::string name, cls, shape;
      long long mm = 0, nn = 0, kk = 0;
      ImplementationTiming t;
      if (!(ls >> name >> cls >> shape >> mm >> nn >> kk >> t.fused_seconds >> t.multipass_seconds))
        throw fail("bad 'impl' line (want: impl <scheme> <beta0|reads-c> <square|tall|wide> m n k fused multi-pass)");
      std::string rest;
      if (ls >> rest) throw fail("bad 'impl' line (text after the multi-pass time)");
      try {
        t.kind = parse_scheme(name, Target::fp32).kind;
        t.shape = parse_shape_class(shape);
      } catch (const Error& e) {
        throw fail(e.what());
      }
      if (cls != "beta0" && cls != "reads-c") throw fail("bad 'impl' class '" + cls + "' (want beta0 or reads-c)");
      t.reads_c = cls == "reads-c";
      if (mm <= 0 || nn <= 0 || kk <= 0 || !(std::isfinite(t.fused_seconds) && t.fused_seconds > 0) ||
          !(std::isfinite(t.multipass_seconds) && t.multipass_seconds > 0))
        throw fail("bad 'impl' shape or time");
      t.m = mm;
      t.n = nn;
      t.k = kk;
      if (shape_class(t.m, t.n) != t.shape)
        throw fail("'impl' shape " + std::to_string(mm) + " x " + std::to_string(nn) + " is " +
                   to_string(shape_class(t.m, t.n)) + ", not " + shape);
      if (m.find_implementation_timing(t.kind, t.reads_c, t.shape))
        throw fail("second 'impl' line for " + name + " " + cls + " " + shape);
      m.implementation_timings.push_back(t);
    } else if (tag == "certificate") {
      std::string target;
      MeasuredCost c;
      c.kind = schemes::kind_of<schemes::Int8Crt>;
      if (!(ls >> target >> c.points >> c.fit_error)) throw fail("bad 'certificate' line");
      for (double& v : c.coef)
        if (!(ls >> v)) throw fail("bad 'certificate' line (want " + std::to_string(kCostFeatures) + " coefficients)");
      try {
        c.target = parse_target(target);
      } catch (const Error& e) {
        throw fail(e.what());
      }
      if (!finite_nonneg(c.fit_error) || c.points <= 0) throw fail("bad fit error or point count");
      for (double v : c.coef)
        if (!finite_nonneg(v)) throw fail("coefficients must be finite and >= 0");
      if (m.find_certificate(c.target)) throw fail("second 'certificate' line for " + target);
      m.certificate_costs.push_back(c);
    } else if (tag == "certificate-sample") {
      std::string target;
      long long mm = 0, nn = 0, kk = 0;
      CostSample c;
      if (!(ls >> target >> mm >> nn >> kk >> c.seconds)) throw fail("bad 'certificate-sample' line");
      try {
        c.target = parse_target(target);
        c.scheme = parse_scheme(schemes::Int8Crt::desc.name, c.target);
      } catch (const Error& e) {
        throw fail(e.what());
      }
      if (mm <= 0 || nn <= 0 || kk <= 0 || !(std::isfinite(c.seconds) && c.seconds > 0))
        throw fail("bad certificate sample shape or time");
      c.m = mm;
      c.n = nn;
      c.k = kk;
      m.certificate_samples.push_back(c);
    } else if (tag == "end") {
      ended = true;
    } else if (!tag.empty() && tag[0] != '#') {
      throw fail("unknown entry '" + tag + "'");
    }
  }
  if (no == 0) throw InvalidArgument(where + ": empty file");
  if (!ended) throw InvalidArgument(where + ": truncated (no 'end' line)");
  if (!have_device || !have_rates || m.measured.empty())
    throw InvalidArgument(where + ": incomplete (needs 'device', 'rates' and at least one 'fit' line)");
  return m;
}

}  // namespace tcemu
