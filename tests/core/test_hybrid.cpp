// APE hybrid execution on the host backend (tcemu/hybrid.hpp): labels, runs, the calls made, the
// result against FP64, and what the plain range check would have done instead.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tcemu/hybrid.hpp"
#include "tcemu/metrics.hpp"
#include "tcemu/random.hpp"

using namespace tcemu;

namespace {

/// m x k row-major A whose rows [big_from, m) are scaled by 2^20 (outside fp16x2's exponent range),
/// k x n column-major B, uniform(-1, 1).
struct Operands {
  std::int64_t m, n, k;
  std::vector<float> a, b;
  Operands(std::int64_t m_, std::int64_t n_, std::int64_t k_, std::int64_t big_from) : m(m_), n(n_), k(k_) {
    a.resize(m * k);
    b.resize(k * n);
    fill_random(MatrixView<float>{a.data(), m, k, k, 1}, Distribution::parse("uniform"), 7);
    fill_random(MatrixView<float>{b.data(), k, n, 1, k}, Distribution::parse("uniform"), 8);
    for (std::int64_t i = big_from; i < m; ++i)
      for (std::int64_t j = 0; j < k; ++j) a[i * k + j] *= 1048576.0f;
  }
  MatrixView<const float> A() const { return {a.data(), m, k, k, 1}; }
  MatrixView<const float> B() const { return {b.data(), k, n, 1, k}; }
};

/// HostBackend that counts the range profiles it is asked for.
struct CountingBackend {
  HostBackend<float> host;
  mutable int profiles_a = 0, profiles_b = 0;
  RangeProfile profile(MatrixView<const float> x, Side side) const {
    ++(side == Side::A ? profiles_a : profiles_b);
    return host.profile(x, side);
  }
  GemmReport gemm(MatrixView<const float> a, MatrixView<const float> b, float alpha, float beta, MatrixView<float> c,
                  const GemmOptions& o) const {
    return host.gemm(a, b, alpha, beta, c, o);
  }
};

TEST(Hybrid, LabelRuns) {
  using R = std::vector<std::pair<std::int64_t, std::int64_t>>;
  EXPECT_EQ(detail::label_runs({}), R{});
  EXPECT_EQ(detail::label_runs({true, true, false, true}), (R{{0, 2}, {2, 3}, {3, 4}}));
  EXPECT_EQ(detail::label_runs({false}), (R{{0, 1}}));
}

// Half the rows of A are out of fp16x2's range: the top half runs fp16x2, the bottom half bf16x3,
// and the whole result keeps FP32-class accuracy; the plain range check would have sent the whole
// product to native fp32 instead.
TEST(Hybrid, OutOfRangeRowsRunWide) {
  const Operands op(64, 48, 40, 32);
  std::vector<float> c(op.m * op.n, NAN);
  const MatrixView<float> C{c.data(), op.m, op.n, op.n, 1};
  HybridOptions o;
  o.block = 16;
  const HybridReport rep = gemm_hybrid<float>(Op::N, Op::N, 1.f, op.A(), op.B(), 0.f, C, o, HostBackend<float>{});
  EXPECT_EQ(rep.fast_a, (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(rep.fast_b, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(rep.calls_fast, 1);
  EXPECT_EQ(rep.calls_wide, 1);
  EXPECT_DOUBLE_EQ(rep.fraction_fast, 0.5);
  ASSERT_EQ(rep.calls.size(), 2u);
  // B is in range as a whole: one profile labels all its blocks; A needs its blocks profiled.
  const CountingBackend counting;
  std::vector<float> c3(op.m * op.n);
  const HybridReport rc = gemm_hybrid<float>(Op::N, Op::N, 1.f, op.A(), op.B(), 0.f,
                                             MatrixView<float>{c3.data(), op.m, op.n, op.n, 1}, o, counting);
  EXPECT_EQ(rc.fast_a, rep.fast_a);
  EXPECT_EQ(counting.profiles_b, 1);
  EXPECT_EQ(counting.profiles_a, 1 + 4);
  EXPECT_EQ(rep.calls[0].used.name, "fp16x2");
  EXPECT_FALSE(rep.calls[0].fell_back);
  EXPECT_EQ(rep.calls[1].used.name, "bf16x3");
  EXPECT_FALSE(rep.calls[1].fell_back);
  const std::vector<double> R = reference_gemm_fp64<float>(Op::N, Op::N, op.A(), op.B());
  EXPECT_LE(relative_frobenius_error<float>(C.as_const(), R), 1e-6);

  GemmOptions plain;
  plain.scheme = parse_scheme("fp16x2");
  std::vector<float> c2(op.m * op.n);
  const GemmReport whole = gemm_host<float>(Op::N, Op::N, 1.f, op.A(), op.B(), 0.f,
                                            MatrixView<float>{c2.data(), op.m, op.n, op.n, 1}, plain);
  EXPECT_TRUE(whole.fell_back) << "without hybrid execution the whole product leaves fp16x2";
}

// Transposed operands, a strided C and beta: every entry of C is written exactly once.
TEST(Hybrid, TransposesStridesAndBeta) {
  const Operands op(50, 37, 23, 20);  // row blocks of 8: labels 1 1 0(16..23 holds rows 20-23) ...
  // op(A) = (A^T)^T: pass A^T as a k x m view with Op::T.
  const MatrixView<const float> At{op.a.data(), op.k, op.m, 1, op.k};
  const MatrixView<const float> Bt{op.b.data(), op.n, op.k, op.k, 1};
  const std::int64_t ldc = op.m + 3;
  std::vector<float> c(ldc * op.n);
  fill_random(MatrixView<float>{c.data(), op.m, op.n, 1, ldc}, Distribution::parse("uniform"), 9);
  const std::vector<float> c0 = c;
  const MatrixView<float> C{c.data(), op.m, op.n, 1, ldc};
  HybridOptions o;
  o.block = 8;
  const HybridReport rep = gemm_hybrid<float>(Op::T, Op::T, 0.5f, At, Bt, -2.f, C, o, HostBackend<float>{});
  EXPECT_FALSE(rep.collapsed);
  EXPECT_EQ(rep.calls_fast + rep.calls_wide, static_cast<int>(rep.calls.size()));
  std::vector<double> R = reference_gemm_fp64<float>(Op::N, Op::N, op.A(), op.B());
  for (std::int64_t i = 0; i < op.m; ++i)
    for (std::int64_t j = 0; j < op.n; ++j) R[i * op.n + j] = 0.5 * R[i * op.n + j] - 2.0 * c0[i + j * ldc];
  EXPECT_LE(relative_frobenius_error<float>(C.as_const(), R), 1e-6);
}

TEST(Hybrid, TooManyRunsCollapseToOneWideCall) {
  Operands op(64, 16, 24, 64);
  for (std::int64_t i = 0; i < op.m; ++i)  // alternate blocks of 8 rows in and out of range
    if ((i / 8) % 2 == 1)
      for (std::int64_t j = 0; j < op.k; ++j) op.a[i * op.k + j] *= 1048576.0f;
  std::vector<float> c(op.m * op.n);
  HybridOptions o;
  o.block = 8;
  o.max_runs = 4;
  const HybridReport rep = gemm_hybrid<float>(Op::N, Op::N, 1.f, op.A(), op.B(), 0.f,
                                              MatrixView<float>{c.data(), op.m, op.n, op.n, 1}, o, HostBackend<float>{});
  EXPECT_TRUE(rep.collapsed);
  ASSERT_EQ(rep.calls.size(), 1u);
  EXPECT_EQ(rep.calls[0].used.name, "bf16x3");
}

TEST(Hybrid, BadBlockThrows) {
  const Operands op(4, 4, 4, 4);
  std::vector<float> c(16);
  HybridOptions o;
  o.block = 0;
  EXPECT_THROW(gemm_hybrid<float>(Op::N, Op::N, 1.f, op.A(), op.B(), 0.f, MatrixView<float>{c.data(), 4, 4, 4, 1}, o,
                                  HostBackend<float>{}),
               InvalidArgument);
}

}  // namespace
