// auto choosing Ozaki scheme II (int8-crt, issue 21 scope 4) for an FP64 target: the modulus-count
// estimate, the choice on synthetic measured cost models, the certificate's cost model and cache
// lines, and the fallback to the next pick when the certificate finds no N. Host only.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "auto_crt_test_util.hpp"
#include "crt_test_util.hpp"
#include "tcemu/crt.hpp"
#include "tcemu/error.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/range_profile.hpp"
#include "tcemu/select.hpp"

using namespace tcemu;
using namespace tcemu::crt_test;
using tcemu::auto_crt_test::Coef;
using tcemu::auto_crt_test::fp64_model;

namespace {

RangeProfile profile(const std::vector<double>& v, std::int64_t rows, std::int64_t cols, Side side) {
  return profile_host<double>(row_major<const double>(v.data(), rows, cols), side);
}

const Candidate& candidate(const Plan& p, SchemeKind kind) {
  for (const Candidate& c : p.candidates)
    if (c.scheme.kind == kind) return c;
  throw InvalidArgument("no candidate of that kind");
}

/// Profiles of uniform(-1,1) operands (64 x 64 samples stand for any size: the spread is per line).
struct UniformProfiles {
  RangeProfile a, b;
  UniformProfiles() {
    const auto p = make_operands<double>(64, 64, 64, "uniform(-1,1)", 9);
    a = profile(p.a, 64, 64, Side::A);
    b = profile(p.b, 64, 64, Side::B);
  }
};

}  // namespace

// The estimate follows the certificate (crt::certify_int8, the per-call choice of both backends)
// on the distributions the issue measures, within one modulus, and grows with k and the spread.
TEST(AutoCrt, ModulusEstimateTracksTheCertificate) {
  for (const char* dist : {"uniform(-1,1)", "phi=0.1", "phi=1"})
    for (const std::int64_t k : {256, 4096}) {
      const auto p = make_operands<double>(16, 12, k, dist, 77);
      const RangeProfile a = profile(p.a, 16, k, Side::A), b = profile(p.b, k, 12, Side::B);
      const int est = crt_moduli_estimate(Target::fp64, a, b, k);
      const crt::Certificate cert = crt::certify_int8<double>(
          Op::N, Op::N, row_major<const double>(p.a.data(), 16, k), row_major<const double>(p.b.data(), k, 12),
          crt::unit_roundoff(crt::Target::fp64), crt::Scaling::cauchy_schwarz);
      std::printf("[auto-crt] %-14s k = %5lld: estimate N = %d, certified N = %d\n", dist, (long long)k, est,
                  cert.moduli);
      ASSERT_GT(cert.moduli, 0);
      EXPECT_LE(std::abs(est - cert.moduli), 1) << dist << " k = " << k;
    }
  UniformProfiles u;
  EXPECT_LT(crt_moduli_estimate(Target::fp64, u.a, u.b, 256), crt_moduli_estimate(Target::fp64, u.a, u.b, 65536));
  EXPECT_LT(crt_moduli_estimate(Target::fp32, u.a, u.b, 4096), crt_moduli_estimate(Target::fp64, u.a, u.b, 4096));
  RangeProfile wide = u.a;
  wide.max_line_spread_bits = 12;
  EXPECT_GT(crt_moduli_estimate(Target::fp64, wide, u.b, 4096), crt_moduli_estimate(Target::fp64, u.a, u.b, 4096));
  wide.max_line_spread_bits = 40;  // 2 * 54 + 12 + 4 + 40 = 164 bits > log2 P(20) = 155.4
  EXPECT_EQ(crt_moduli_estimate(Target::fp64, wide, u.b, 4096), 0);
  RangeProfile bad = u.a;
  bad.nonfinite = 1;
  EXPECT_EQ(crt_moduli_estimate(Target::fp64, bad, u.b, 4096), 0);
}

// A device with weak FP64: int8-crt's predicted time (measured cost at the estimated N plus the
// certificate's) is the lowest, so auto picks `int8-crt` with N left to the certificate; with
// strong FP64 native wins; a costly certificate hands the pick to Ozaki I.
TEST(AutoCrt, PicksCrtWhenItsPredictedTimeIsLowest) {
  UniformProfiles u;
  const std::int64_t n = 8192;
  const CostModel weak = fp64_model(10e-6, 10);
  const Plan p = plan(u.a, u.b, n, n, n, Target::fp64, weak);
  EXPECT_EQ(p.chosen.name, "int8-crt");
  EXPECT_EQ(p.chosen.parts, 0);  // N per call: the backend certifies it
  const Candidate& c = candidate(p, SchemeKind::int8_crt);
  ASSERT_TRUE(c.eligible) << c.reason;
  const int est = crt_moduli_estimate(Target::fp64, u.a, u.b, n);
  EXPECT_EQ(c.moduli, est);
  EXPECT_DOUBLE_EQ(c.predicted_seconds,
                   weak.predict_seconds(parameterized_scheme(SchemeKind::int8_crt, est, Target::fp64), n, n, n) +
                       weak.certificate_seconds(n, n, n, Target::fp64));
  for (const Candidate& o : p.candidates)
    if (o.eligible) EXPECT_LE(c.predicted_seconds, o.predicted_seconds) << o.scheme.name;
  const std::string text = p.explain();
  EXPECT_NE(text.find("int8-crt (N~" + std::to_string(est) + ")"), std::string::npos) << text;
  EXPECT_NE(text.find("pick: int8-crt (predicted"), std::string::npos) << text;

  EXPECT_EQ(plan(u.a, u.b, n, n, n, Target::fp64, fp64_model(10e-6, 60)).chosen.name, "fp64");

  CostModel costly = weak;
  for (double& v : costly.certificate_costs[0].coef) v *= 20;
  const Plan q = plan(u.a, u.b, n, n, n, Target::fp64, costly);
  EXPECT_EQ(q.chosen.kind, SchemeKind::int8_ozaki) << q.explain();
  EXPECT_TRUE(candidate(q, SchemeKind::int8_crt).eligible);
}

// Operands whose spread needs more moduli than the table holds: int8-crt is out with a reason and
// Ozaki I (or, beyond its 18 slices, native) runs; NaN/Inf: native.
TEST(AutoCrt, WideSpreadOrNonfiniteFallsBackToOzakiOrNative) {
  UniformProfiles u;
  const std::int64_t n = 8192;
  const CostModel weak = fp64_model(10e-6, 2);
  RangeProfile wide = u.a;
  wide.max_line_spread_bits = 40;  // Ozaki: 53 + 1 + 40 = 94 bits -> 14 slices
  Plan p = plan(wide, u.b, n, n, n, Target::fp64, weak);
  EXPECT_FALSE(candidate(p, SchemeKind::int8_crt).eligible);
  EXPECT_NE(candidate(p, SchemeKind::int8_crt).reason.find("needs more than 20 moduli"), std::string::npos);
  EXPECT_EQ(p.chosen.name, "int8-ozaki:14") << p.explain();
  wide.max_line_spread_bits = 90;  // beyond Ozaki's 18 slices too
  p = plan(wide, u.b, n, n, n, Target::fp64, weak);
  EXPECT_EQ(p.chosen.name, "fp64") << p.explain();
  RangeProfile bad = u.a;
  bad.nonfinite = 2;
  p = plan(bad, u.b, n, n, n, Target::fp64, weak);
  EXPECT_EQ(p.chosen.name, "fp64");
  EXPECT_EQ(candidate(p, SchemeKind::int8_crt).reason, "non-finite input");
}

// int8-crt needs measured costs of the call's target, for its passes and its certificate: the rate
// formula (anchors, host), a model without the certificate, or an FP32 target (not calibrated) leave
// it out, however cheap the rates make it look.
TEST(AutoCrt, NeedsMeasuredCostsOfTheCallsTarget) {
  UniformProfiles u;
  const std::int64_t n = 8192;
  CostModel anchors = CostModel::h200_anchors();
  anchors.tflops_fp64 = 1;  // rates alone would make int8-crt the fastest
  Plan p = plan(u.a, u.b, n, n, n, Target::fp64, anchors);
  EXPECT_NE(p.chosen.kind, SchemeKind::int8_crt);
  EXPECT_NE(candidate(p, SchemeKind::int8_crt).reason.find("no measured"), std::string::npos);
  p = plan(u.a, u.b, n, n, n, Target::fp64, fp64_model(10e-6, 10, false));
  EXPECT_NE(p.chosen.kind, SchemeKind::int8_crt);
  EXPECT_FALSE(candidate(p, SchemeKind::int8_crt).eligible);
  p = plan(u.a, u.b, n, n, n, Target::fp32, fp64_model(10e-6, 10));
  EXPECT_NE(p.chosen.kind, SchemeKind::int8_crt);
  EXPECT_NE(candidate(p, SchemeKind::int8_crt).reason.find("fp32"), std::string::npos);
}

// The next pick when the certificate finds no N: the fastest eligible candidate that is not
// int8-crt.
TEST(AutoCrt, NextPickWithoutCrt) {
  UniformProfiles u;
  const std::int64_t n = 8192;
  const Plan weak = plan(u.a, u.b, n, n, n, Target::fp64, fp64_model(10e-6, 2));
  ASSERT_EQ(weak.chosen.name, "int8-crt");
  EXPECT_EQ(pick_without_crt(weak).kind, SchemeKind::int8_ozaki);  // DGEMM at 2 TFLOP/s is slower
  // DGEMM at 30 TFLOP/s: slower than int8-crt, faster than Ozaki I.
  const Plan mid = plan(u.a, u.b, n, n, n, Target::fp64, fp64_model(10e-6, 30));
  ASSERT_EQ(mid.chosen.name, "int8-crt") << mid.explain();
  EXPECT_EQ(pick_without_crt(mid).name, "fp64");
  EXPECT_EQ(pick_without_crt(Plan{}).name, "fp32");  // no candidates: native of the target
}

// Through gemm_host: auto runs int8-crt with the certified N (bit for bit the reference at that N)
// and reports the certificate and the predicted time; operands whose certificate needs more than 20
// moduli (an alternating 30-binade spread, which the profile's spread does not see) run the next
// pick, with a note.
TEST(AutoCrt, GemmHostRunsTheCertifiedNOrTheNextPick) {
  const CostModel model = fp64_model(1e-3, 10);  // native's fixed cost makes int8-crt win small products
  GemmOptions o;
  o.scheme = parse_scheme("auto", Target::fp64);
  o.cost_model = &model;
  const std::int64_t m = 20, n = 18, k = 64;
  const auto p = make_operands<double>(m, n, k, "uniform(-1,1)", 5);
  std::vector<double> c(m * n, 0.0);
  const GemmReport r = gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(p.a.data(), m, k),
                                         row_major<const double>(p.b.data(), k, n), 0.0, row_major(c.data(), m, n), o);
  ASSERT_EQ(r.used.name, "int8-crt") << r.plan.explain();
  EXPECT_FALSE(r.fell_back);
  const int N = moduli_in_certificate(r.certificate);
  ASSERT_GT(N, 0) << r.certificate;
  std::vector<double> ref(m * n, 0.0);
  crt::crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(p.a.data(), m, k),
                             row_major<const double>(p.b.data(), k, n), 0.0, row_major(ref.data(), m, n), N,
                             crt::Scaling::cauchy_schwarz);
  EXPECT_EQ(c, ref);
  EXPECT_NE(r.plan.certificate.find("N = " + std::to_string(N) + " moduli"), std::string::npos) << r.plan.certificate;
  EXPECT_NE(r.plan.certificate.find("predicted"), std::string::npos) << r.plan.certificate;
  EXPECT_NE(r.plan.explain().find("certificate: N = "), std::string::npos);

  // x_il = u 2^(-30 [l odd]), y_lj = v 2^(-30 [l even]): each line's mean is half its maximum (a
  // one-bit spread to the profile), but every product pairs a large with a tiny element.
  auto q = make_operands<double>(m, n, k, "uniform(0.5,1)", 6);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t l = 1; l < k; l += 2) q.a[i * k + l] = std::ldexp(q.a[i * k + l], -30);
  for (std::int64_t l = 0; l < k; l += 2)
    for (std::int64_t j = 0; j < n; ++j) q.b[l * n + j] = std::ldexp(q.b[l * n + j], -30);
  std::fill(c.begin(), c.end(), 0.0);
  const GemmReport f = gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(q.a.data(), m, k),
                                         row_major<const double>(q.b.data(), k, n), 0.0, row_major(c.data(), m, n), o);
  EXPECT_EQ(f.plan.chosen.name, "int8-crt") << f.plan.explain();
  EXPECT_TRUE(f.fell_back);
  EXPECT_EQ(f.requested.name, "auto");
  EXPECT_EQ(f.used.name, pick_without_crt(f.plan).name);
  EXPECT_EQ(f.used.kind, SchemeKind::int8_ozaki);  // cheaper than native in this model
  EXPECT_EQ(f.note.rfind("int8-crt -> " + f.used.name + ": the operands' exponent spread needs more than 20", 0), 0u)
      << f.note;
  EXPECT_NE(f.plan.certificate.find("instead"), std::string::npos) << f.plan.certificate;
  // The next pick computed C: Ozaki I's error is normwise (line maxima, here 2^30 above every
  // product), about 2^-23 relative on these entries.
  EXPECT_LT(errors(q, c, 0, 0).max, 1e-6);

  // NaN: the plan keeps int8-crt out and runs native.
  auto bad = p;
  bad.a[3] = NAN;
  const GemmReport nn = gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(bad.a.data(), m, k),
                                          row_major<const double>(bad.b.data(), k, n), 0.0, row_major(c.data(), m, n), o);
  EXPECT_EQ(nn.used.name, "fp64");
  EXPECT_EQ(candidate(nn.plan, SchemeKind::int8_crt).reason, "non-finite input");
}

// The certificate's cost: fitted on its own terms, kept in the cache text (version 4) and checked
// when read back.
TEST(AutoCrt, CertificateCostFitAndCacheLines) {
  const CostModel m = fp64_model(10e-6, 10);
  ASSERT_EQ(m.certificate_costs.size(), 1u);
  EXPECT_LT(m.certificate_costs[0].fit_error, 1e-9);
  const Coef want = {20e-6, 0, 10e-12, 70e-12, 3.0 / 1000e12};
  for (int i = 0; i < kCostFeatures; ++i) EXPECT_NEAR(m.certificate_costs[0].coef[i], want[i], 1e-6 * want[i] + 1e-20);
  EXPECT_THROW(fit_certificate_cost({}), InvalidArgument);
  EXPECT_THROW(fit_certificate_cost({{parse_scheme("fp64"), 64, 64, 64, 1e-5, Target::fp64}}), InvalidArgument);
  // Above k = 2^16 the GPU certifies with FP64 sums: the rate formula, not the fit.
  EXPECT_GT(m.certificate_seconds(4096, 4096, 1 << 17, Target::fp64),
            10 * m.certificate_seconds(4096, 4096, 1 << 16, Target::fp64));

  const std::string text = m.to_text();
  EXPECT_EQ(text.rfind("tcemu-cost-model 4\n", 0), 0u);
  const CostModel r = CostModel::from_text(text, "cache.txt");
  ASSERT_EQ(r.certificate_costs.size(), 1u);
  EXPECT_EQ(r.certificate_costs[0].coef, m.certificate_costs[0].coef);
  EXPECT_EQ(r.certificate_samples.size(), m.certificate_samples.size());
  EXPECT_EQ(r.certificate_seconds(1000, 2000, 300, Target::fp64), m.certificate_seconds(1000, 2000, 300, Target::fp64));
  const Scheme crt = parse_scheme("int8-crt", Target::fp64);
  EXPECT_EQ(r.predict_seconds(crt, 1000, 2000, 300), m.predict_seconds(crt, 1000, 2000, 300));

  auto error_of = [](const std::string& t) -> std::string {
    try {
      CostModel::from_text(t, "cache.txt");
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "";
  };
  std::string cut = text;
  const std::size_t at = cut.find("certificate fp64 ");
  ASSERT_NE(at, std::string::npos);
  cut.erase(at + 17, cut.find('\n', at) - at - 17);  // no point count, no coefficients
  EXPECT_NE(error_of(cut).find("bad 'certificate' line"), std::string::npos) << error_of(cut);
  std::string twice = text;
  const std::size_t line_end = twice.find('\n', at);
  twice.insert(line_end + 1, twice.substr(at, line_end - at + 1));
  EXPECT_NE(error_of(twice).find("second 'certificate' line"), std::string::npos) << error_of(twice);
  std::string v3 = text;
  v3.replace(0, 18, "tcemu-cost-model 3");
  EXPECT_NE(error_of(v3).find("not a cost model of this version"), std::string::npos) << error_of(v3);
}

TEST(AutoCrt, ModuliInCertificateText) {
  EXPECT_EQ(moduli_in_certificate("N = 17 moduli (P < 2^134), certified ..."), 17);
  EXPECT_EQ(moduli_in_certificate("N = 20 moduli under range policy ignore; no N <= 20 certified"), 20);
  EXPECT_EQ(moduli_in_certificate("N = 16 moduli (given)"), 16);
  EXPECT_EQ(moduli_in_certificate("no N <= 20 certified (needs more)"), 0);
  EXPECT_EQ(moduli_in_certificate("N = 42 moduli"), 0);
  EXPECT_EQ(moduli_in_certificate(""), 0);
}
