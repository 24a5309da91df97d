// GPU tests of int8-mixpert: the fused INT8 kernel equals the host reference bit for bit (same
// packing, exact INT32 segment sums, same FP32 operations in the same order) on every level, ragged
// shapes, transposes, strided views and both C layouts (C row-major swaps the operands, so levels II
// and III swap their segment counts); the fallback note matches the host's.
// Compiles to nothing without the CUDA backend; skips cleanly when no GPU is present.
#if defined(TCEMU_HAVE_CUDA)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cuda_test_util.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/metrics.hpp"
#include "tcemu/random.hpp"

namespace tcemu::test {
namespace {

using Shape = GemmShape;

const Shape kShapes[] = {
    {37, 29, 53, Op::N, Op::N, Layout::row, Layout::row, Layout::row},
    {64, 40, 96, Op::T, Op::N, Layout::col, Layout::padded_row, Layout::col},
    {33, 65, 17, Op::N, Op::T, Layout::padded_col, Layout::col, Layout::padded_row},
    {300, 257, 1000, Op::N, Op::N, Layout::row, Layout::col, Layout::col},
    {129, 130, 64, Op::T, Op::T, Layout::padded_row, Layout::padded_col, Layout::row},
};

template <class T>
void expect_bit_identical(const std::string& scheme, const Shape& s, const char* dist, std::uint64_t seed, T alpha,
                          T beta, int scale_exp = 0) {
  SCOPED_TRACE(scheme + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
               " " + dist);
  const bool ta = s.opA == Op::T, tb = s.opB == Op::T;
  DualMatrix<T> A(ta ? s.k : s.m, ta ? s.m : s.k, s.la), B(tb ? s.n : s.k, tb ? s.k : s.n, s.lb), C(s.m, s.n, s.lc);
  fill_random(A.host(), Distribution::parse(dist), seed);
  fill_random(B.host(), Distribution::parse(dist), seed + 1);
  for (auto* v : {&A.h, &B.h})
    for (T& x : *v) x = std::ldexp(x, scale_exp);
  fill_random(C.host(), Distribution::parse("uniform"), seed + 2);
  if (beta == T(0))
    for (auto& v : C.h) v = std::numeric_limits<T>::quiet_NaN();  // must not be read
  A.upload();
  B.upload();
  C.upload();
  GemmOptions o;
  o.scheme = parse_scheme(scheme);
  const GemmReport rd = cuda::gemm_device<T>(s.opA, s.opB, alpha, A.dev().as_const(), B.dev().as_const(), beta,
                                             C.dev(), o, nullptr, nullptr);
  const std::vector<T> cd = C.download();
  const GemmReport rh = gemm_host<T>(s.opA, s.opB, alpha, A.host().as_const(), B.host().as_const(), beta, C.host(), o);
  ASSERT_FALSE(rd.fell_back) << rd.note;
  ASSERT_FALSE(rh.fell_back) << rh.note;
  EXPECT_EQ(rd.used.name, scheme);
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      const std::int64_t e = i * C.rs + j * C.cs;
      if (!(cd[e] == C.h[e])) ++differ;  // NaN (an unwritten entry) counts as different
    }
  EXPECT_EQ(differ, 0) << "of " << s.m * s.n;
}

}  // namespace

TEST(CudaMixpert, EveryLevelMatchesTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  std::uint64_t seed = 40;
  for (const char* scheme : {"int8-mixpert:1", "int8-mixpert:2", "int8-mixpert:3", "int8-mixpert"})
    for (const Shape& s : kShapes) expect_bit_identical<float>(scheme, s, "uniform", seed++, 1.0f, 0.0f);
  // Values across a few binades per tile.
  for (const Shape& s : kShapes) expect_bit_identical<float>("int8-mixpert", s, "phi=0.1", seed++, 1.0f, 0.0f);
  // Tiny operands (step scales below FP32's normal range: the ldexpf path, subnormal results) and
  // large ones, FP64 data rounded to FP32, alpha and beta.
  expect_bit_identical<double>("int8-mixpert:2", kShapes[3], "uniform", seed++, 1.0, 0.0, -66);
  expect_bit_identical<float>("int8-mixpert:3", kShapes[1], "uniform", seed++, 1.0f, 0.0f, 50);
  expect_bit_identical<float>("int8-mixpert", kShapes[4], "phi=0.5", seed++, 0.75f, -0.5f);
}

TEST(CudaMixpert, AlphaBetaAndAccuracyAgainstFp64) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t m = 256, n = 192, k = 2048;
  DualMatrix<float> A(m, k, Layout::row), B(k, n, Layout::col), C(m, n, Layout::col);
  A.fill_and_upload("uniform", 3);
  B.fill_and_upload("uniform", 4);
  C.fill_and_upload("uniform", 5);
  const std::vector<float> c0 = C.h;
  GemmOptions o;
  o.scheme = parse_scheme("int8-mixpert");
  cuda::gemm_device<float>(Op::N, Op::N, 0.5f, A.dev().as_const(), B.dev().as_const(), -2.0f, C.dev(), o, nullptr,
                           nullptr);
  const std::vector<float> cd = C.download();
  std::vector<double> R = reference_gemm_fp64<float>(Op::N, Op::N, A.host().as_const(), B.host().as_const());
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) R[i * n + j] = 0.5 * R[i * n + j] - 2.0 * c0[i * C.rs + j * C.cs];
  // Level IV on uniform data: 21 bits per tile maximum and FP32 accumulation of 64 steps.
  EXPECT_LT(rel_err(C, cd, R), 2e-6);
}

TEST(CudaMixpert, WideTilesFallBackLikeTheHost) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t m = 40, n = 24, k = 96;
  DualMatrix<float> A(m, k, Layout::row), B(k, n, Layout::row), C(m, n, Layout::row);
  fill_random(A.host(), Distribution{}, 8);
  fill_random(B.host(), Distribution{}, 9);
  for (std::int64_t j = 0; j < n; ++j) B.h[5 * n + j] = 1.0f;                          // column maxima >= 1
  for (std::int64_t l = 0; l < k; ++l) B.h[l * n + 3] *= std::ldexp(1.0f, -9);        // column 3 far below
  A.upload();
  B.upload();
  C.upload();
  GemmOptions o;
  o.scheme = parse_scheme("int8-mixpert");
  const GemmReport rd = cuda::gemm_device<float>(Op::N, Op::N, 1.0f, A.dev().as_const(), B.dev().as_const(), 0.0f,
                                                 C.dev(), o, nullptr, nullptr);
  const GemmReport rh = gemm_host<float>(Op::N, Op::N, 1.0f, A.host().as_const(), B.host().as_const(), 0.0f,
                                         C.host(), o);
  EXPECT_TRUE(rd.fell_back);
  EXPECT_EQ(rd.used.name, "bf16x3");
  EXPECT_EQ(rd.note, rh.note);  // same operand, same tile count
  EXPECT_NE(rd.note.find("operand B"), std::string::npos) << rd.note;
  o.range_policy = RangePolicy::error;
  EXPECT_THROW(cuda::gemm_device<float>(Op::N, Op::N, 1.0f, A.dev().as_const(), B.dev().as_const(), 0.0f, C.dev(),
                                        o, nullptr, nullptr),
               InvalidArgument);
}

}  // namespace tcemu::test
#endif
