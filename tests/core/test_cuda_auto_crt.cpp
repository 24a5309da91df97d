// GPU tests of auto picking int8-crt (issue 21 scope 4) under a synthetic measured FP64 cost model in
// which it is the fastest (auto_crt_test_util.hpp): gemm_device's auto path profiles, plans, runs
// int8-crt's own stages with the certified N and equals the host backend's auto call bit for bit
// (same pick, same N), with C column- and row-major (swapped operands); a certificate that finds no N
// runs the next pick like the host; NaN keeps int8-crt out.
// Compiles to nothing without the CUDA backend; skips cleanly when no GPU is present.
#if defined(TCEMU_HAVE_CUDA)
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "auto_crt_test_util.hpp"
#include "cuda_test_util.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/random.hpp"

namespace tcemu::test {
namespace {

/// auto (FP64 target, `model`) on both backends with the same operands; returns {GPU, host} reports
/// and expects C bit for bit equal. `edit` may change the host operands before the upload.
template <class Edit>
std::pair<GemmReport, GemmReport> auto_on_both(const CostModel& model, std::int64_t m, std::int64_t n, std::int64_t k,
                                               Layout lc, const char* dist, std::uint64_t seed, Edit edit) {
  SCOPED_TRACE(std::string(dist) + " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k));
  DualMatrix<double> A(m, k, Layout::row), B(k, n, Layout::col), C(m, n, lc);
  fill_random(A.host(), Distribution::parse(dist), seed);
  fill_random(B.host(), Distribution::parse(dist), seed + 1);
  edit(A, B);
  A.upload();
  B.upload();
  C.upload();
  GemmOptions o;
  o.scheme = parse_scheme("auto", Target::fp64);
  o.cost_model = &model;
  const GemmReport rd =
      cuda::gemm_device<double>(Op::N, Op::N, 1.0, A.dev().as_const(), B.dev().as_const(), 0.0, C.dev(), o, nullptr, nullptr);
  const std::vector<double> cd = C.download();
  const GemmReport rh = gemm_host<double>(Op::N, Op::N, 1.0, A.host().as_const(), B.host().as_const(), 0.0, C.host(), o);
  EXPECT_EQ(rd.used.name, rh.used.name) << "GPU:\n" << rd.plan.explain() << "host:\n" << rh.plan.explain();
  EXPECT_EQ(rd.fell_back, rh.fell_back);
  if (rd.used.family() == ImplFamily::crt) {
    EXPECT_EQ(moduli_in_certificate(rd.certificate), moduli_in_certificate(rh.certificate))
        << "GPU: " << rd.certificate << "\nhost: " << rh.certificate;
    std::int64_t differ = 0;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t e = i * C.rs + j * C.cs;
        if (!(cd[e] == C.h[e])) ++differ;
      }
    EXPECT_EQ(differ, 0) << "of " << m * n;
  }
  return {rd, rh};
}

}  // namespace

TEST(CudaAutoCrt, PicksCrtAndMatchesTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  const CostModel model = auto_crt_test::fp64_model(1e-3, 10);  // native's fixed cost: int8-crt wins
  for (const Layout lc : {Layout::col, Layout::row})
    for (const char* dist : {"uniform(-1,1)", "phi=1"}) {
      const auto [rd, rh] = auto_on_both(model, 67, 45, 130, lc, dist, 900, [](auto&, auto&) {});
      EXPECT_EQ(rd.used.name, "int8-crt") << rd.plan.explain();
      EXPECT_FALSE(rd.fell_back) << rd.note;
      EXPECT_GT(moduli_in_certificate(rd.certificate), 0) << rd.certificate;
      EXPECT_NE(rd.plan.certificate.find("predicted"), std::string::npos) << rd.plan.explain();
      EXPECT_EQ(rd.plan.execution.implementation, Implementation::crt);
    }
}

TEST(CudaAutoCrt, NoCertifiedNRunsTheNextPickLikeTheHost) {
  TCEMU_REQUIRE_GPU();
  const CostModel model = auto_crt_test::fp64_model(1e-3, 10);
  // x_il = u 2^(-30 [l odd]), y_lj = v 2^(-30 [l even]): a one-bit spread to the profile (auto picks
  // int8-crt), more than 20 moduli to the certificate.
  const auto [rd, rh] = auto_on_both(model, 40, 33, 64, Layout::col, "uniform(0.5,1)", 901, [](auto& A, auto& B) {
    for (std::int64_t i = 0; i < A.rows; ++i)
      for (std::int64_t l = 1; l < A.cols; l += 2) A.h[i * A.rs + l * A.cs] = std::ldexp(A.h[i * A.rs + l * A.cs], -30);
    for (std::int64_t l = 0; l < B.rows; l += 2)
      for (std::int64_t j = 0; j < B.cols; ++j) B.h[l * B.rs + j * B.cs] = std::ldexp(B.h[l * B.rs + j * B.cs], -30);
  });
  EXPECT_EQ(rd.plan.chosen.name, "int8-crt") << rd.plan.explain();
  EXPECT_TRUE(rd.fell_back);
  EXPECT_EQ(rd.used.kind, SchemeKind::int8_ozaki) << rd.note;
  EXPECT_EQ(rd.note.rfind("int8-crt -> " + rd.used.name + ": ", 0), 0u) << rd.note;
  EXPECT_NE(rd.plan.certificate.find("instead"), std::string::npos) << rd.plan.explain();
}

TEST(CudaAutoCrt, NonfiniteRunsNative) {
  TCEMU_REQUIRE_GPU();
  const CostModel model = auto_crt_test::fp64_model(1e-3, 10);
  const auto [rd, rh] = auto_on_both(model, 30, 20, 40, Layout::col, "uniform(-1,1)", 902,
                                     [](auto& A, auto&) { A.h[5] = NAN; });
  EXPECT_EQ(rd.used.name, "fp64");
  EXPECT_EQ(rh.used.name, "fp64");
}

}  // namespace tcemu::test
#endif
