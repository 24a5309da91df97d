// APE hybrid execution on the GPU (tcemu/cuda/hybrid_cuda.hpp) against the host orchestration
// (tcemu/hybrid.hpp, HostBackend): same labels, same calls and schemes, results within the
// backends' usual agreement, and FP32-class accuracy against FP64. Skips without a GPU.
#if defined(TCEMU_HAVE_CUDA)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cuda_test_util.hpp"
#include "tcemu/cuda/hybrid_cuda.hpp"
#include "tcemu/metrics.hpp"
#include "tcemu/random.hpp"

namespace tcemu::test {
namespace {

TEST(CudaHybrid, MatchesHostOrchestration) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t m = 300, n = 260, k = 130;
  DualMatrix<float> A(m, k, Layout::row), B(k, n, Layout::col), C(m, n, Layout::padded_col);
  fill_random(A.host(), Distribution::parse("uniform"), 11);
  fill_random(B.host(), Distribution::parse("phi=1"), 12);
  for (std::int64_t i = 64; i < 128; ++i)  // rows 64..127 out of fp16x2's range
    for (std::int64_t j = 0; j < k; ++j) A.h[i * A.rs + j * A.cs] *= 1048576.0f;
  for (std::int64_t j = 200; j < n; ++j)  // columns 200.. of B too
    for (std::int64_t i = 0; i < k; ++i) B.h[i * B.rs + j * B.cs] *= 1048576.0f;
  for (auto& v : C.h) v = std::numeric_limits<float>::quiet_NaN();  // beta = 0: never read
  A.upload();
  B.upload();
  C.upload();
  HybridOptions o;
  o.block = 64;
  const HybridReport rd = gemm_hybrid<float>(Op::N, Op::N, 1.f, A.dev().as_const(), B.dev().as_const(), 0.f,
                                             C.dev(), o, cuda::DeviceBackend<float>{});
  const std::vector<float> cd = C.download();
  const HybridReport rh =
      gemm_hybrid<float>(Op::N, Op::N, 1.f, A.host().as_const(), B.host().as_const(), 0.f, C.host(), o,
                         HostBackend<float>{});
  EXPECT_EQ(rd.fast_a, rh.fast_a);
  EXPECT_EQ(rd.fast_b, rh.fast_b);
  EXPECT_EQ(rd.fast_a, (std::vector<bool>{true, false, true, true, true}));
  EXPECT_EQ(rd.calls_fast, rh.calls_fast);
  EXPECT_EQ(rd.calls_wide, rh.calls_wide);
  ASSERT_EQ(rd.calls.size(), rh.calls.size());
  for (std::size_t c = 0; c < rd.calls.size(); ++c) EXPECT_EQ(rd.calls[c].used.name, rh.calls[c].used.name);
  EXPECT_EQ(nonfinite(C, cd), 0);
  const std::vector<double> R = reference_gemm_fp64<float>(Op::N, Op::N, A.host().as_const(), B.host().as_const());
  EXPECT_LE(rel_diff(C, cd, C.h, R), 1e-5);
  EXPECT_LE(rel_err(C, cd, R), 2e-6);
}

}  // namespace
}  // namespace tcemu::test
#endif
