// qsim simulation: closed forms (GHZ, QFT), fused GEMM simulator vs a direct gate-by-gate simulator,
// layouts/permutations, and the accuracy of FP32-accurate schemes on brickwork circuits.
#include <gtest/gtest.h>

#include <cmath>

#include "qsim/fusion.hpp"
#include "qsim/gates.hpp"
#include "qsim/circuit_generators.hpp"
#include "qsim/qubit_layout.hpp"
#include "qsim_fixtures.hpp"
#include "qsim/job.hpp"
#include "qsim/simulate.hpp"
#include "qsim/state_metrics.hpp"
#include "tcemu/scheme.hpp"

namespace {

using qsim_test::cplx;

template <class T>
std::vector<cplx> simulate_with(const qsim::Circuit& c, int fuse, const std::string& scheme,
                                tcemu::Target target = tcemu::Target::fp32, qsim::SimStats* stats = nullptr) {
  qsim::SimOptions opt;
  opt.gemm.scheme = tcemu::parse_scheme(scheme, target);
  const auto res = qsim::simulate<T>(qsim::fuse(c, fuse), c.num_qubits, opt);
  if (stats) *stats = res.stats;
  std::vector<cplx> out(res.state.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {res.state[i].real(), res.state[i].imag()};
  return out;
}

TEST(QsimClosedForm, GhzAmplitudes) {
  for (int n : {1, 2, 5, 11}) {
    const auto c = qsim::ghz(n);
    for (int fuse : {1, 2, 5}) {
      const auto psi = simulate_with<double>(c, fuse, "fp64");
      const std::size_t all = (std::size_t(1) << n) - 1;
      for (std::size_t k = 0; k <= all; ++k) {
        const double want = (k == 0 || k == all) ? M_SQRT1_2 : 0.0;
        ASSERT_NEAR(psi[k].real(), want, 1e-15) << "n=" << n << " fuse=" << fuse << " k=" << k;
        ASSERT_NEAR(psi[k].imag(), 0.0, 1e-15);
      }
    }
  }
}

TEST(QsimClosedForm, QftOfBasisState) {
  for (const auto& [n, j] : std::vector<std::pair<int, std::uint64_t>>{{1, 1}, {3, 5}, {6, 0}, {6, 41}, {10, 777}}) {
    const auto c = qsim::qft(n, j);
    const double N = std::ldexp(1.0, n);
    for (int fuse : {1, 3, 5}) {
      const auto psi = simulate_with<double>(c, fuse, "fp64");
      double err = 0;
      for (std::size_t k = 0; k < psi.size(); ++k) {
        const double angle = 2 * M_PI * std::fmod(double(j) * double(k), N) / N;
        err = std::max(err, std::abs(psi[k] - std::polar(1.0 / std::sqrt(N), angle)));
      }
      EXPECT_LT(err, 1e-13) << "n=" << n << " j=" << j << " fuse=" << fuse;
    }
  }
}

TEST(QsimFusion, BlocksRespectSizeAndCoverEveryGate) {
  const auto c = qsim::random_circuit(10, 300, 7);
  for (int d = 1; d <= 6; ++d) {
    const auto blocks = qsim::fuse(c, d);
    std::int64_t gates = 0;
    for (const auto& b : blocks) {
      gates += b.gates;
      if (b.controls.empty() && b.gates > 1) EXPECT_LE(static_cast<int>(b.qubits.size()), d);
      EXPECT_NEAR(qsim::unitarity_error(b.matrix), 0.0, 1e-12);
    }
    EXPECT_EQ(gates, static_cast<std::int64_t>(c.gates.size())) << "d=" << d;
  }
  // Fusion merges: 5-qubit blocks of a 2-qubit brickwork are far fewer than its gates.
  const auto bw = qsim::brickwork(12, 12, 1);
  EXPECT_LT(qsim::fuse(bw, 5).size() * 2, bw.gates.size());
}

TEST(QsimFusion, FusedGemmSimulatorEqualsDirectSimulator) {
  // Random gates with 1-3 targets and 0-2 controls, several fusion widths (1 and 2 force controlled
  // and oversized blocks), several circuit sizes up to 12 qubits.
  for (const auto& [n, gates, seed] : std::vector<std::tuple<int, int, int>>{{3, 60, 1}, {7, 150, 2}, {10, 200, 3}, {12, 160, 4}}) {
    const auto c = qsim::random_circuit(n, gates, static_cast<std::uint64_t>(seed));
    const auto want = qsim_test::direct_simulation(c);
    for (int fuse : {1, 2, 3, 5, 7}) {
      if (fuse > n && fuse != 5) continue;
      qsim::SimStats st;
      const auto got = simulate_with<double>(c, fuse, "fp64", tcemu::Target::fp64, &st);
      EXPECT_LT(qsim_test::max_diff(got, want), 1e-12) << c.name << " fuse=" << fuse;
      EXPECT_EQ(st.gemm.fallbacks, 0);
    }
  }
  // Brickwork and Sycamore-like circuits too (dense blocks, permutations and high placements).
  for (const auto& c : {qsim::brickwork(11, 9, 5, 3), qsim::sycamore(12, 8, 2, true), qsim::sycamore(9, 8, 2, false)}) {
    const auto want = qsim_test::direct_simulation(c);
    for (int fuse : {2, 4, 6}) EXPECT_LT(qsim_test::max_diff(simulate_with<double>(c, fuse, "fp64"), want), 1e-12) << c.name;
  }
}

TEST(QsimLayout, PlansAvoidPermutationsWhenPossible) {
  qsim::Layout l = qsim::Layout::identity(6);
  auto p = qsim::plan_dense(l, {1, 0, 2});
  EXPECT_FALSE(p.permute);
  EXPECT_EQ(p.placement, qsim::Placement::low);
  EXPECT_EQ(p.order, (std::vector<int>{0, 1, 2}));
  p = qsim::plan_dense(l, {5, 4});
  EXPECT_FALSE(p.permute);
  EXPECT_EQ(p.placement, qsim::Placement::high);
  p = qsim::plan_dense(l, {0, 3});
  EXPECT_TRUE(p.permute);
  EXPECT_EQ(p.layout.qubit_at, (std::vector<int>{0, 3, 2, 1, 4, 5}));  // only qubits 1 and 3 swap
  p = qsim::plan_controlled(l, {2}, {0, 1});
  EXPECT_TRUE(p.permute);
  EXPECT_EQ(p.layout.position_of[2], 0);
  EXPECT_GE(p.layout.position_of[0], 4);
  EXPECT_GE(p.layout.position_of[1], 4);
}

TEST(QsimLayout, LowOnlyPlansPermuteTopBlocksDown) {
  // The GPU path with the complex GEMM's real embedding plans `low` placements only.
  const qsim::Layout l = qsim::Layout::identity(6);
  auto p = qsim::plan_dense(l, {5, 4}, /*allow_high=*/false);
  EXPECT_TRUE(p.permute);
  EXPECT_EQ(p.placement, qsim::Placement::low);
  EXPECT_EQ(p.layout.qubit_at, (std::vector<int>{5, 4, 2, 3, 1, 0}));  // 5 <-> 0 and 4 <-> 1 only
  EXPECT_EQ(p.order, (std::vector<int>{5, 4}));
  p = qsim::plan_dense(l, {1, 0, 2}, false);  // already low: unchanged
  EXPECT_FALSE(p.permute);
  EXPECT_EQ(p.placement, qsim::Placement::low);
  p = qsim::plan_dense(l, {0, 1, 2, 3, 4, 5}, false);  // the whole register is low and high at once
  EXPECT_FALSE(p.permute);
  EXPECT_EQ(p.placement, qsim::Placement::low);
}

TEST(QsimLayout, PermutationMovesAmplitudesWithTheirQubits) {
  const int n = 10;
  std::vector<std::complex<double>> src(std::size_t(1) << n), dst(src.size()), back(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = {double(i), -double(i)};
  qsim::Layout from = qsim::Layout::identity(n), to = from;
  to.swap_qubits(0, 7);
  to.swap_qubits(3, 9);
  to.swap_qubits(7, 4);
  qsim::permute_state(src.data(), dst.data(), qsim::permutation_tables(from, to));
  for (std::size_t i = 0; i < dst.size(); ++i) {
    std::size_t old = 0;  // new bit p holds qubit to.qubit_at[p], which was at bit qubit_at[p] (identity)
    for (int p = 0; p < n; ++p)
      if ((i >> p) & 1u) old |= std::size_t(1) << to.qubit_at[static_cast<std::size_t>(p)];
    ASSERT_EQ(dst[i], src[old]) << i;
  }
  qsim::permute_state(dst.data(), back.data(), qsim::permutation_tables(to, from));
  EXPECT_EQ(back, src);
  // Same low positions in both layouts: runs are copied whole.
  qsim::Layout high = from;
  high.swap_qubits(8, 9);
  EXPECT_EQ(qsim::permutation_tables(from, high).run_bits, 8);
}

TEST(QsimLayout, ReorderedMatrixActsOnTheSameQubits) {
  qsim::Rng rng(3);
  const auto u = qsim::haar_unitary(3, rng);
  const auto r = qsim::reorder_matrix(u, {4, 7, 1}, {1, 4, 7});
  // Basis |q4=1,q7=0,q1=0> is index 1 in `from` order and index 2 in `to` order.
  EXPECT_EQ(r[2 * 8 + 2], u[1 * 8 + 1]);
  EXPECT_EQ(r[1 * 8 + 4], u[4 * 8 + 2]);  // q1 set (to: bit 0, from: bit 2) <- q7 set (to: bit 2, from: bit 1)
  EXPECT_NEAR(qsim::unitarity_error(r), 0.0, 1e-13);
}

TEST(QsimGates, HaarUnitariesAreUnitaryAndSeeded) {
  qsim::Rng a(42), b(42);
  for (int q = 1; q <= 6; ++q) {
    const auto u = qsim::haar_unitary(q, a);
    EXPECT_LT(qsim::unitarity_error(u), 1e-13) << q;
    EXPECT_EQ(u, qsim::haar_unitary(q, b));
  }
  // Phase fix: the distribution of |U_00|^2 for Haar 2x2 is uniform on [0,1] (mean 1/2).
  qsim::Rng r(5);
  double mean = 0;
  for (int i = 0; i < 4000; ++i) mean += std::norm(qsim::haar_unitary(1, r)[0]) / 4000;
  EXPECT_NEAR(mean, 0.5, 0.02);
}

class QsimAccuracy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    circuit_ = new qsim::Circuit(qsim::brickwork(13, 20, 11));
    reference_ = new std::vector<cplx>(simulate_with<double>(*circuit_, 5, "fp64"));
  }
  static void TearDownTestSuite() {
    delete circuit_;
    delete reference_;
  }
  static qsim::Accuracy accuracy(const std::string& scheme) {
    qsim::SimOptions opt;
    opt.gemm.scheme = tcemu::parse_scheme(scheme);
    const auto res = qsim::simulate<float>(qsim::fuse(*circuit_, 5), circuit_->num_qubits, opt);
    return qsim::compare_states(*reference_, res.state);
  }
  static qsim::Circuit* circuit_;
  static std::vector<cplx>* reference_;
};
qsim::Circuit* QsimAccuracy::circuit_ = nullptr;
std::vector<cplx>* QsimAccuracy::reference_ = nullptr;

TEST_F(QsimAccuracy, Fp32AccurateSchemesReachFidelityOneMinus1e6) {
  for (const char* s : {"fp32", "fp16x2", "tf32x2", "bf16x3"}) {
    const auto a = accuracy(s);
    EXPECT_GE(a.fidelity, 1 - 1e-6) << s;
    EXPECT_LT(a.max_amp_err, 1e-6) << s;
    EXPECT_LT(a.norm_drift, 1e-6) << s;
  }
}

TEST_F(QsimAccuracy, OnePassBf16VisiblyDoesNot) {
  const auto a = accuracy("bf16");
  EXPECT_LT(a.fidelity, 1 - 1e-5);
  EXPECT_GT(a.max_amp_err, 1e-5);
  EXPECT_GT(a.fidelity, 0.9);  // degraded, not garbage
}

TEST(QsimAccuracy64, OzakiWithFp64TargetMatchesFp64) {
  const auto c = qsim::brickwork(10, 10, 3);
  const auto ref = simulate_with<double>(c, 4, "fp64");
  qsim::SimStats st;
  const auto got = simulate_with<double>(c, 4, "int8-ozaki", tcemu::Target::fp64, &st);
  EXPECT_LT(qsim_test::max_diff(got, ref), 1e-13);
  EXPECT_EQ(st.gemm.fallbacks, 0);
  for (const auto& [name, count] : st.gemm.used) EXPECT_EQ(name.rfind("int8-ozaki:", 0), 0u) << name;
}

// int8-crt (Ozaki scheme II) with the FP64 target: complex128 state, every block GEMM one real
// int8-crt product on the real embedding at its certified N; the state matches the fp64 run to
// FP64 accuracy (1 - F <= 1e-12, the bound at 30 qubits, here at 10).
TEST(QsimAccuracy64, CrtWithFp64TargetMatchesFp64) {
  const auto c = qsim::brickwork(10, 10, 3);
  const auto ref = simulate_with<double>(c, 4, "fp64");
  qsim::SimStats st;
  const auto got = simulate_with<double>(c, 4, "int8-crt", tcemu::Target::fp64, &st);
  EXPECT_LT(qsim_test::max_diff(got, ref), 1e-13);
  EXPECT_LE(1 - qsim::compare_states(ref, got).fidelity, 1e-12);
  EXPECT_EQ(st.gemm.fallbacks, 0);
  for (const auto& [name, count] : st.gemm.used) EXPECT_EQ(name.rfind("int8-crt", 0), 0u) << name;
}

// --target fp64 adds int8-crt to `all` (once), and leaves explicit lists and FP32 runs alone.
TEST(QsimSchemes, Fp64TargetAddsCrtToAll) {
  using tcemu::Target;
  auto count_crt = [](const std::vector<tcemu::Scheme>& v) {
    int n = 0;
    for (const auto& s : v) n += s.kind == tcemu::SchemeKind::int8_crt && s.target == Target::fp64;
    return n;
  };
  const auto all64 = tcemu::parse_scheme_list("all", Target::fp64);
  EXPECT_EQ(count_crt(qsim::schemes_for_target(all64, "all", Target::fp64)), 1);
  EXPECT_EQ(qsim::schemes_for_target(all64, "all", Target::fp64).size(), all64.size() + 1);
  const auto all32 = tcemu::parse_scheme_list("all", Target::fp32);
  EXPECT_EQ(qsim::schemes_for_target(all32, "all", Target::fp32).size(), all32.size());
  const auto given = tcemu::parse_scheme_list("fp64,int8-ozaki", Target::fp64);
  EXPECT_EQ(qsim::schemes_for_target(given, "fp64,int8-ozaki", Target::fp64).size(), 2u);
}

TEST(QsimMetrics, SamplingFollowsTheDistributionAndIsSeeded) {
  std::vector<std::complex<double>> psi = {{0.6, 0}, {0, 0}, {0, 0.8}, {0, 0}};  // p = .36, 0, .64, 0
  const auto s = qsim::sample_states(psi, 20000, 9);
  EXPECT_EQ(s, qsim::sample_states(psi, 20000, 9));
  double ones = 0;
  for (auto v : s) {
    ASSERT_TRUE(v == 0 || v == 2) << v;
    ones += v == 2;
  }
  EXPECT_NEAR(ones / 20000, 0.64, 0.015);
  // Classical register: measure q1 -> c0 maps basis 2 (q1 = 1) to value 1.
  EXPECT_EQ(qsim::classical_value(2, {{1, 0}}), 1u);
  EXPECT_EQ(qsim::classical_value(2, {}), 2u);
}

TEST(QsimMemory, RejectsCircuitsThatDoNotFit) {
  const auto c = qsim::brickwork(30, 1, 1);
  try {
    qsim::check_memory(c, {tcemu::parse_scheme("fp16x2")}, 8.0 * (1ull << 30));
    FAIL() << "no exception";
  } catch (const tcemu::InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(c.name), std::string::npos) << m;
    EXPECT_NE(m.find("30 qubits"), std::string::npos) << m;
    EXPECT_NE(m.find("available"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(qsim::check_memory(qsim::brickwork(20, 1, 1), {tcemu::parse_scheme("fp16x2")}, 8.0 * (1ull << 30)));
}

}  // namespace

// The metrics run on all host threads but must equal the serial sum in chunks of 4096 bit for bit
// (docs/qsim.md "Metrics"), whatever the thread count.
TEST(QsimMetrics, ThreadedMetricsEqualTheSerialChunkedSums) {
  const std::size_t n = (std::size_t(1) << 20) + 123;
  std::vector<std::complex<double>> ref(n);
  std::vector<std::complex<float>> psi(n);
  qsim::Rng rng(9);
  for (std::size_t k = 0; k < n; ++k) {
    ref[k] = {rng.uniform() - 0.5, rng.uniform() - 0.5};
    psi[k] = {float(ref[k].real() + 1e-7 * (rng.uniform() - 0.5)), float(ref[k].imag())};
  }
  std::complex<double> overlap = 0;
  double norm = 0, err = 0, norm_psi = 0;
  for (std::size_t b = 0; b < n; b += 4096) {
    std::complex<double> o = 0;
    double nn = 0, np = 0;
    for (std::size_t k = b; k < std::min(n, b + 4096); ++k) {
      const std::complex<double> z(psi[k].real(), psi[k].imag());
      o += std::conj(ref[k]) * z;
      nn += std::norm(z);
      np += double(psi[k].real()) * psi[k].real() + double(psi[k].imag()) * psi[k].imag();
      err = std::max(err, std::abs(z - ref[k]));
    }
    overlap += o;
    norm += nn;
    norm_psi += np;
  }
  const qsim::Accuracy a = qsim::compare_states(ref, psi);
  EXPECT_EQ(a.fidelity, std::norm(overlap));
  EXPECT_EQ(a.max_amp_err, err);
  EXPECT_EQ(a.norm, norm);
  EXPECT_EQ(qsim::norm_squared(psi), norm_psi);
}
