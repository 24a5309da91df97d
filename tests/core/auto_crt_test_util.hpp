#pragma once
// Shared by the tests of auto's int8-crt choice (test_select_crt.cpp, test_cuda_auto_crt.cpp): a
// synthetic measured FP64 cost model, fitted exactly as a calibration fits its timings.
#include <array>
#include <vector>

#include "tcemu/select.hpp"

namespace tcemu::auto_crt_test {

using Coef = std::array<double, kCostFeatures>;

struct Shape {
  std::int64_t m, n, k;
};
/// The calibration's shape classes (tcemu/cuda/calibrate.hpp, less 8192^3).
inline const std::vector<Shape> kShapes = {{256, 256, 256},  {1024, 1024, 1024}, {4096, 4096, 4096},
                                           {8192, 8192, 64}, {32768, 64, 2048},  {16384, 1024, 784}};

/// Samples of `s` (FP64 target) whose times follow `coef` on `features(shape)` exactly.
template <class F>
std::vector<CostSample> exact(const Scheme& s, const Coef& coef, F features) {
  std::vector<CostSample> out;
  for (const Shape& sh : kShapes) {
    const auto f = features(sh);
    double t = 0;
    for (int i = 0; i < kCostFeatures; ++i) t += coef[i] * f[i];
    out.push_back({s, sh.m, sh.n, sh.k, t, Target::fp64});
  }
  return out;
}

inline std::vector<CostSample> exact_scheme(const Scheme& s, const Coef& coef) {
  return exact(s, coef, [&](const Shape& sh) { return cost_features(s, sh.m, sh.n, sh.k); });
}

/// A measured FP64 model: native DGEMM with fixed cost `native_fixed` seconds at `native_tflops`;
/// Ozaki I (6, 8, 11 slices; 600 T INT8 MAC/s), int8-crt (14, 16, 20 moduli; 1000 T INT8 MAC/s) and
/// its certificate (three INT8 products, 10 ps per operand and 70 ps per output element) fitted as a
/// calibration fits them. `with_certificate` false leaves the certificate unmeasured.
inline CostModel fp64_model(double native_fixed, double native_tflops, bool with_certificate = true) {
  CostModel m = CostModel::h200_anchors();
  m.device = "synthetic GPU (measured)";
  m.measured.push_back(fit_measured_cost(
      exact_scheme(parse_scheme("fp64", Target::fp64), {native_fixed, 0, 1e-12, 4e-12, 2.0 / (native_tflops * 1e12)})));
  std::vector<CostSample> oz, crt;
  for (int s : {6, 8, 11}) {
    const auto v = exact_scheme(ozaki_scheme(s, Target::fp64), {50e-6, 5e-6, 4e-12, 4e-12, 1.0 / 600e12});
    oz.insert(oz.end(), v.begin(), v.end());
  }
  for (int n : {14, 16, 20}) {
    const auto v = exact_scheme(parameterized_scheme(SchemeKind::int8_crt, n, Target::fp64),
                                {30e-6, 1e-6, 3e-12, 5e-12, 1.0 / 1000e12});
    crt.insert(crt.end(), v.begin(), v.end());
  }
  m.measured.push_back(fit_measured_cost(oz));
  m.measured.push_back(fit_measured_cost(crt));
  if (with_certificate) {
    m.certificate_samples = exact(parse_scheme("int8-crt", Target::fp64), {20e-6, 0, 10e-12, 70e-12, 3.0 / 1000e12},
                                  [](const Shape& sh) { return certificate_features(sh.m, sh.n, sh.k); });
    m.certificate_costs.push_back(fit_certificate_cost(m.certificate_samples));
  }
  return m;
}

}  // namespace tcemu::auto_crt_test
