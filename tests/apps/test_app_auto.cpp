// Each app's `auto` aims at the app's own target (issue 20, scope 6): qsim's configuration choice
// (apps/qsim/auto_config.hpp), hplai's candidates and fallback (apps/hplai/auto_choice.hpp), and the
// FP32 target of knn's and kmeans' auto (core's plan(), tcemu/select.hpp), on synthetic cost models.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "../io/temp_dir.hpp"
#include "app_runner.hpp"
#include "hplai/auto_choice.hpp"
#include "hplai/problem.hpp"
#include "hplai/run.hpp"
#include "qsim/auto_config.hpp"
#include "qsim/circuit_generators.hpp"
#include "qsim/fusion.hpp"
#include "qsim/job.hpp"
#include "tcemu/error.hpp"
#include "tcemu/matrix.hpp"
#include "tcemu/range_profile.hpp"
#include "tcemu/scheme.hpp"
#include "tcemu/select.hpp"

namespace {

using qsim::AutoConfig;
using qsim::Device;
using qsim::FusionOption;

/// `blocks` dense blocks of `q` qubits at fusion width `fuse`.
FusionOption uniform_fusion(int fuse, int blocks, int q) {
  FusionOption f;
  f.fuse = fuse;
  f.block_qubits.assign(static_cast<std::size_t>(blocks), q);
  f.block_controls.assign(static_cast<std::size_t>(blocks), 0);
  return f;
}

/// The simulator's GPU rule for the bit-indexed kernel, without a device: fp16x2-aligned, 4-6 qubits.
bool aligned_fp16_in_place(const tcemu::Scheme& s, int d, int) {
  return s.name == "fp16x2-aligned" && d >= 4 && d <= 6;
}

/// The eligible candidate with the smallest predicted time, found independently of choose_auto_config.
const qsim::AutoCandidate* fastest_eligible(const AutoConfig& a) {
  const qsim::AutoCandidate* best = nullptr;
  for (const auto& c : a.candidates)
    if (c.predicted_infidelity <= a.limit && (!best || c.predicted_seconds < best->predicted_seconds)) best = &c;
  return best;
}

TEST(QsimAuto, BiasFollowsTheDescriptors) {
  const auto p = [](const char* n) { return tcemu::parse_scheme(n); };
  EXPECT_TRUE(qsim::biased_sums(p("fp16x2"), Device::cuda));      // unaligned hi x hi truncated by the Tensor Cores
  EXPECT_FALSE(qsim::biased_sums(p("fp16x2"), Device::host));     // host: SGEMMs of the parts, rounded
  EXPECT_FALSE(qsim::biased_sums(p("fp16x2-aligned"), Device::cuda));
  EXPECT_FALSE(qsim::biased_sums(p("tf32x2-aligned"), Device::cuda));
  EXPECT_FALSE(qsim::biased_sums(p("fp32"), Device::cuda));
  EXPECT_TRUE(qsim::biased_sums(p("fp16x2-markidis"), Device::host));  // truncating split
  EXPECT_TRUE(qsim::biased_sums(p("int8-ozaki"), Device::host));
  EXPECT_TRUE(qsim::biased_sums(p("bf16x9"), Device::cuda));
}

TEST(QsimAuto, InfidelityModelMatchesTheMeasuredOrders) {
  // docs/qsim.md: fp16x2 on the GPU, 28 qubits, 58 blocks: 1.65e-5 measured; fp16x2-aligned at 30
  // qubits --fuse 6 (63 blocks of 6): 1.8e-7. The model must land within 4x of both, and on the same
  // side of 1e-6.
  const std::vector<int> b58(58, 6), b63(63, 6);
  const double biased = qsim::predicted_infidelity(tcemu::parse_scheme("fp16x2"), b58, Device::cuda);
  const double aligned = qsim::predicted_infidelity(tcemu::parse_scheme("fp16x2-aligned"), b63, Device::cuda);
  EXPECT_GT(biased, 1.65e-5 / 4);
  EXPECT_LT(biased, 1.65e-5 * 4);
  EXPECT_GT(aligned, 1.8e-7 / 4);
  EXPECT_LT(aligned, 1.8e-7 * 4);
  EXPECT_GT(biased, qsim::kAutoInfidelityLimit);
  EXPECT_LT(aligned, qsim::kAutoInfidelityLimit);
  // Linear in the blocks when biased, square root otherwise.
  const std::vector<int> b232(232, 6), b252(252, 6);
  EXPECT_NEAR(qsim::predicted_infidelity(tcemu::parse_scheme("fp16x2"), b232, Device::cuda), 4 * biased, 1e-12);
  EXPECT_NEAR(qsim::predicted_infidelity(tcemu::parse_scheme("fp16x2-aligned"), b252, Device::cuda), 2 * aligned, 1e-15);
}

TEST(QsimAuto, NeverPicksAConfigurationAboveTheLimit) {
  // A model in which the biased per-element splits are by far the fastest: auto must still not take
  // them, at any depth; and at every depth the pick is the fastest eligible configuration.
  tcemu::CostModel fast_splits = tcemu::CostModel::h200_anchors();
  fast_splits.tflops_fp16 = fast_splits.tflops_bf16 = fast_splits.tflops_tf32 = 1e5;
  for (int blocks : {10, 60, 300, 3000, 30000}) {
    const std::vector<FusionOption> f = {uniform_fusion(4, blocks * 2, 4), uniform_fusion(6, blocks, 6)};
    const AutoConfig a = qsim::choose_auto_config(f, 30, fast_splits, Device::cuda, aligned_fp16_in_place);
    SCOPED_TRACE("blocks " + std::to_string(blocks) + ": " + a.summary());
    for (const auto& c : a.candidates) EXPECT_EQ(c.eligible, c.predicted_infidelity <= a.limit) << c.scheme.name;
    const qsim::AutoCandidate* best = fastest_eligible(a);
    if (best) {
      EXPECT_FALSE(a.none_eligible);
      EXPECT_LE(a.chosen.predicted_infidelity, a.limit);
      EXPECT_FALSE(a.chosen.biased);
      // The per-element Tensor Core splits are the fastest here, and their sums truncate on the GPU.
      EXPECT_NE(a.chosen.scheme.family(), tcemu::ImplFamily::parts) << a.chosen.scheme.name;
      EXPECT_EQ(a.chosen.predicted_seconds, best->predicted_seconds);
    } else {
      EXPECT_TRUE(a.none_eligible);  // too deep even for FP32: the most accurate configuration
      for (const auto& c : a.candidates) EXPECT_LE(a.chosen.predicted_infidelity, c.predicted_infidelity);
    }
  }
  // The deepest case is beyond every scheme of 22 bits: nothing of 22 bits may be chosen there.
  const AutoConfig deep = qsim::choose_auto_config({uniform_fusion(6, 30000, 6)}, 30, fast_splits, Device::cuda,
                                                   aligned_fp16_in_place);
  EXPECT_GE(deep.chosen.scheme.precision_bits, 24) << deep.summary();
}

TEST(QsimAuto, TakesTheInPlaceKernelWhereItIsFaster) {
  // 30 qubits, --fuse 6 (the case): with the bit-indexed kernel, fp16x2-aligned in place beats
  // native fp32 + permutations under the H200 anchors; without it (host rule), native wins.
  const std::vector<FusionOption> f = {uniform_fusion(4, 90, 4), uniform_fusion(5, 75, 5), uniform_fusion(6, 63, 6)};
  const AutoConfig gpu = qsim::choose_auto_config(f, 30, tcemu::CostModel::h200_anchors(), Device::cuda,
                                                  aligned_fp16_in_place);
  EXPECT_EQ(gpu.chosen.scheme.name, "fp16x2-aligned") << gpu.explain();
  EXPECT_EQ(gpu.chosen.in_place_blocks, gpu.chosen.blocks);
  EXPECT_NE(gpu.summary().find("in place"), std::string::npos);
  const AutoConfig none = qsim::choose_auto_config(f, 30, tcemu::CostModel::h200_anchors(), Device::cuda, {});
  EXPECT_EQ(none.chosen.in_place_blocks, 0);
  EXPECT_NE(none.chosen.scheme.name, "fp16x2-aligned") << none.explain();  // its permuted path is slower than fp32
  const AutoConfig host = qsim::choose_auto_config(f, 30, tcemu::CostModel::host(), Device::host, {});
  EXPECT_EQ(host.chosen.scheme.name, "fp32") << host.explain();
  // Every (scheme, width) pair is a candidate, the widths as given.
  EXPECT_EQ(gpu.candidates.size(), qsim::auto_schemes().size() * f.size());
  for (const auto& s : qsim::auto_schemes()) {
    EXPECT_TRUE(s.meets(tcemu::Target::fp32)) << s.name;
    EXPECT_FALSE(s.is_automatic());
  }
}

TEST(QsimAuto, RejectsBadFusions) {
  EXPECT_THROW(qsim::choose_auto_config({}, 10, tcemu::CostModel::host(), Device::host, {}), tcemu::InvalidArgument);
  FusionOption bad = uniform_fusion(3, 4, 3);
  bad.block_controls.pop_back();
  EXPECT_THROW(qsim::choose_auto_config({bad}, 10, tcemu::CostModel::host(), Device::host, {}), tcemu::InvalidArgument);
}

TEST(QsimAuto, JobRunsTheChosenConfiguration) {
  const qsim::Circuit c = qsim::generate("brickwork:n=10,depth=8,seed=3");
  const auto options = qsim::fusion_options(c, {1, 2, 4});
  ASSERT_EQ(options.size(), 3u);
  for (std::size_t i = 0; i < options.size(); ++i) {
    const int d = std::vector<int>{1, 2, 4}[i];
    EXPECT_EQ(options[i].fuse, d);
    EXPECT_EQ(static_cast<std::size_t>(options[i].fuse == 4 ? qsim::fuse(c, 4).size() : options[i].block_qubits.size()),
              options[i].block_qubits.size());
    for (int q : options[i].block_qubits) EXPECT_LE(q, std::max(d, 2));  // 2-qubit gates stay whole
  }
  qsim::RunConfig cfg;
  cfg.schemes = {tcemu::parse_scheme("auto")};
  cfg.fuse = 4;
  const qsim::JobResult job = qsim::run_job(c, cfg);
  ASSERT_EQ(job.runs.size(), 2u);
  const auto& r = job.runs[1];
  EXPECT_EQ(r.scheme.name, "auto");
  EXPECT_EQ(r.used, "fp32");  // the host model: emulation never beats native there
  EXPECT_NE(r.auto_choice.find("auto: fp32, --fuse "), std::string::npos) << r.auto_choice;
  EXPECT_GE(r.accuracy.fidelity, 1 - qsim::kAutoInfidelityLimit);
}

// ---- hplai ----

hplai::SchemeResult row(const std::string& name, bool pass, double seconds) {
  hplai::SchemeResult r;
  r.scheme = name;
  r.used = name;
  r.pass = pass;
  r.scaled_residual = pass ? 0.5 : 1e3;
  r.factor_seconds = seconds;
  r.refine_seconds = 0.25 * seconds;
  r.total_seconds = r.factor_seconds + r.refine_seconds;
  r.x.assign(64, 1.0);
  return r;
}

std::vector<hplai::AutoCandidate> candidates(const std::vector<std::string>& names) {
  std::vector<hplai::AutoCandidate> out;
  for (const auto& n : names) out.push_back({tcemu::parse_scheme(n), 1.0, "test"});
  return out;
}

TEST(HplaiAuto, FallbackTakesTheNextCandidateWhenTheCheckFails) {
  std::vector<std::string> ran;
  std::ostringstream progress;
  const auto r = hplai::run_auto(candidates({"bf16", "fp16", "fp16x2", "fp32"}),
                                 [&](const tcemu::Scheme& s) {
                                   ran.push_back(s.name);
                                   if (s.name == "bf16") return row("bf16", false, 1.0);  // refinement did not converge
                                   if (s.name == "fp16") throw tcemu::InvalidArgument("fp16: pivot 0 at column 3");
                                   return row(s.name, true, 2.0);
                                 },
                                 &progress);
  EXPECT_EQ(ran, (std::vector<std::string>{"bf16", "fp16", "fp16x2"}));  // stops at the first pass
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.scheme, "auto");
  EXPECT_EQ(r.used, "fp16x2");
  EXPECT_DOUBLE_EQ(r.factor_seconds, 3.0);  // the failed attempt's time counts
  EXPECT_DOUBLE_EQ(r.total_seconds, 3.75);
  EXPECT_NE(r.note.find("bf16 FAIL"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("fp16 failed (fp16: pivot 0"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("fp16x2 PASS"), std::string::npos) << r.note;
  EXPECT_NE(progress.str().find("trying"), std::string::npos);
}

TEST(HplaiAuto, FirstCandidatePassingRunsAlone) {
  int runs = 0;
  const auto r = hplai::run_auto(candidates({"bf16", "fp32"}), [&](const tcemu::Scheme& s) { ++runs; return row(s.name, true, 1.0); },
                                 nullptr);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(r.used, "bf16");
  EXPECT_NE(r.note.find("predicted fastest of 2"), std::string::npos) << r.note;
}

TEST(HplaiAuto, EveryCandidateFailingIsReportedAsAFail) {
  const auto r = hplai::run_auto(candidates({"bf16", "fp32"}), [&](const tcemu::Scheme& s) { return row(s.name, false, 1.0); },
                                 nullptr);
  EXPECT_FALSE(r.pass);
  EXPECT_NE(r.note.find("bf16 FAIL"), std::string::npos);
  EXPECT_NE(r.note.find("fp32 FAIL"), std::string::npos);
  try {
    (void)hplai::run_auto(candidates({"bf16", "fp32"}), [](const tcemu::Scheme& s) -> hplai::SchemeResult {
      throw tcemu::InvalidArgument(s.name + ": singular pivot at column 0");
    }, nullptr);
    ADD_FAILURE() << "no exception";
  } catch (const tcemu::InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()), "auto: none of the 2 candidates factorised the system (first: bf16: singular pivot at column 0)");
  }
  EXPECT_THROW(hplai::run_auto({}, [](const tcemu::Scheme& s) { return row(s.name, true, 1.0); }, nullptr),
               tcemu::InvalidArgument);
}

TEST(HplaiAuto, CandidatesAreOrderedByPredictedUpdateTime) {
  const tcemu::CostModel model = tcemu::CostModel::h200_anchors();
  const auto c = hplai::auto_candidates(4096, 256, model);
  ASSERT_GT(c.size(), 5u);
  for (std::size_t i = 0; i < c.size(); ++i) {
    EXPECT_FALSE(c[i].scheme.is_automatic());
    EXPECT_EQ(c[i].scheme.target, tcemu::Target::fp32);
    EXPECT_NE(c[i].scheme.name, "fp64");
    double expect = 0;
    for (std::int64_t m = 4096 - 256; m > 0; m -= 256) expect += model.predict_seconds(c[i].scheme, m, m, 256);
    EXPECT_NEAR(c[i].predicted_seconds, expect, 1e-9 * expect);
    if (i > 0) EXPECT_LE(c[i - 1].predicted_seconds, c[i].predicted_seconds);
  }
  // On the H200 rates a one-pass Tensor Core factorisation is predicted fastest, native fp32 (CUDA
  // cores) slower than the FP16 split.
  EXPECT_TRUE(c.front().scheme.is_one_pass()) << c.front().scheme.name;
  auto pos = [&](const char* n) {
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c[i].scheme.name == n) return i;
    return c.size();
  };
  EXPECT_LT(pos("fp16x2"), pos("fp32"));
  EXPECT_THROW(hplai::auto_candidates(0, 256, model), tcemu::InvalidArgument);
}

TEST(HplaiAuto, HostRunReportsTheChoice) {
  const hplai::System sys = hplai::generate_system(160, 1);
  hplai::RunOptions o;
  o.nb = 32;
  o.schemes = {tcemu::parse_scheme("auto")};
  const auto res = hplai::run(sys, o);
  ASSERT_EQ(res.rows.size(), 2u);
  const auto& a = res.rows[1];
  EXPECT_EQ(a.scheme, "auto");
  EXPECT_TRUE(a.pass);
  EXPECT_EQ(a.used, hplai::auto_candidates(160, 32, tcemu::CostModel::host()).front().scheme.name);
  EXPECT_EQ(a.note.rfind("auto: " + a.used + " PASS", 0), 0u) << a.note;
}

TEST(HplaiAuto, SingularSystemIsOneErrorNamingAuto) {
  // A zero pivot at column 0: LU without pivoting cannot factorise it in any precision; the FP64
  // baseline (partial pivoting) still solves it, so it is auto's error, not the system's.
  hplai::System sys = hplai::generate_system(8, 3);
  sys.A[0] = 0.0;
  hplai::RunOptions o;
  o.nb = 4;
  o.schemes = {tcemu::parse_scheme("auto")};
  try {
    (void)hplai::run(sys, o);
    ADD_FAILURE() << "no exception";
  } catch (const tcemu::InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("auto: none of the ", 0), 0u) << m;
    EXPECT_NE(m.find("singular pivot at column 0"), std::string::npos) << m;
  }
}

// ---- the reports say what auto chose ----

TEST(AppAutoReports, JsonNamesTheChoice) {
  tcemu::testing::TempDir dir;
  const auto q = app_test::run_executable(app_test::app_executable("qsim"),
                                          "--generate brickwork:n=8,depth=4,seed=1 --fuse 3 --scheme auto --device host --json -q",
                                          dir.path());
  ASSERT_EQ(q.status, 0) << q.err;
  const auto qj = nlohmann::json::parse(q.out);
  const auto& qa = qj.at("results").at(1);
  EXPECT_EQ(qa.at("scheme"), "auto");
  EXPECT_EQ(qa.at("auto_choice").get<std::string>().rfind("auto: " + qa.at("used").get<std::string>() + ", --fuse 3, ", 0), 0u)
      << qa.dump();
  EXPECT_FALSE(qj.at("results").at(0).contains("auto_choice"));  // only the auto row carries it
  const auto h = app_test::run_executable(app_test::app_executable("hplai"), "--n 96 --nb 32 --scheme auto --device host --json",
                                          dir.path());
  ASSERT_EQ(h.status, 0) << h.err;
  const auto hj = nlohmann::json::parse(h.out);
  const auto& ha = hj.at("results").at(1);
  EXPECT_EQ(ha.at("scheme"), "auto");
  EXPECT_EQ(ha.at("note").get<std::string>().rfind("auto: " + ha.at("used").get<std::string>() + " PASS", 0), 0u) << ha.dump();
}

// ---- knn and kmeans: core's auto with the FP32 target ----

TEST(KnnKmeansAuto, Fp32TargetPicksTheFastestFp32AccurateScheme) {
  // knn's and kmeans' distance GEMMs call core's auto with the FP32 target (tcemu/nearest.hpp). With a
  // measured model in random order of speed, in which one-pass schemes (not FP32-accurate) are the
  // fastest, the pick must be the fastest candidate that meets FP32, never a one-pass scheme.
  std::vector<float> v(64 * 64);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& x : v) x = u(gen);
  const auto pa = tcemu::profile_host<float>(tcemu::row_major<const float>(v.data(), 64, 64), tcemu::Side::A);
  const auto pb = tcemu::profile_host<float>(tcemu::row_major<const float>(v.data(), 64, 64), tcemu::Side::B);
  for (int trial = 0; trial < 20; ++trial) {
    tcemu::CostModel model = tcemu::CostModel::h200_anchors();
    for (const tcemu::Scheme& s : tcemu::calibration_schemes(tcemu::Target::fp32)) {
      tcemu::MeasuredCost mc;
      mc.kind = s.kind;
      mc.target = tcemu::Target::fp32;
      mc.coef = {1e-5, 0, 0, 0, std::uniform_real_distribution<double>(1e-15, 1e-13)(gen)};
      model.measured.push_back(mc);
    }
    for (const char* one_pass : {"bf16", "fp16", "tf32"}) {  // far the fastest, not FP32-accurate
      tcemu::MeasuredCost mc;
      mc.kind = tcemu::parse_scheme(one_pass).kind;
      mc.coef = {1e-6, 0, 0, 0, 1e-18};
      model.measured.push_back(mc);
    }
    for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{1024, 60000, 784}, {70000, 1024, 784}}) {
      const tcemu::Plan p = tcemu::plan(pa, pb, m, n, k, tcemu::Target::fp32, model);
      EXPECT_TRUE(p.chosen.meets(tcemu::Target::fp32)) << p.explain();
      double best = std::numeric_limits<double>::infinity();
      for (const auto& c : p.candidates)
        if (c.eligible && c.scheme.meets(tcemu::Target::fp32)) best = std::min(best, c.predicted_seconds);
      double chosen = -1;
      for (const auto& c : p.candidates)
        if (c.scheme.name == p.chosen.name) chosen = c.predicted_seconds;
      EXPECT_EQ(chosen, best) << p.explain();
    }
  }
}

}  // namespace
