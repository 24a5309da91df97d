// GPU complex GEMM by the real embedding (one real GEMM on A as m x 2k real and the 2k x 2n real
// matrix built from B) against 4M on the same inputs and an FP64 host reference; non-embeddable
// layouts through 4M; the selection rule and the method names (host-only tests, run everywhere).
// Compiles to nothing without the CUDA backend; the GPU tests skip cleanly when no GPU is present.
#if defined(TCEMU_HAVE_CUDA)
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "cuda/workspace_impl.hpp"
#include "cuda_test_util.hpp"
#include "tcemu/complex_gemm.hpp"
#include "tcemu/random.hpp"

namespace tcemu::test {
namespace {

using cuda::ComplexMethod;

template <class T>
void fill_complex(DualMatrix<std::complex<T>>& X, std::uint64_t seed) {
  const auto v = X.host();
  fill_random(real_view(v), Distribution::parse("uniform"), seed);
  fill_random(imag_view(v), Distribution::parse("uniform"), seed + 1);
}

/// R = alpha op(A) op(B) + beta C0 in FP64 (row-major m x n); C0 not read when beta == 0.
template <class T>
std::vector<std::complex<double>> reference(Op opA, Op opB, std::complex<double> alpha,
                                            MatrixView<const std::complex<T>> A,
                                            MatrixView<const std::complex<T>> B, std::complex<double> beta,
                                            MatrixView<const std::complex<T>> C0) {
  const auto a = A.apply(opA), b = B.apply(opB);
  std::vector<std::complex<double>> R(static_cast<std::size_t>(a.rows * b.cols));
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j) {
      std::complex<double> s = 0;
      for (std::int64_t l = 0; l < a.cols; ++l)
        s += std::complex<double>(a(i, l)) * std::complex<double>(b(l, j));
      s *= alpha;
      if (beta != 0.0) s += beta * std::complex<double>(C0(i, j));
      R[static_cast<std::size_t>(i * b.cols + j)] = s;
    }
  return R;
}

/// ||X - R||_F / ||R||_F over the entries of C (x: the downloaded storage of C); counts non-finite
/// entries into *bad.
template <class T>
double rel_err_c(const DualMatrix<std::complex<T>>& C, const std::vector<std::complex<T>>& x,
                 const std::vector<std::complex<double>>& R, std::int64_t* bad) {
  double d2 = 0, r2 = 0;
  *bad = 0;
  for (std::int64_t i = 0; i < C.rows; ++i)
    for (std::int64_t j = 0; j < C.cols; ++j) {
      const std::complex<double> v(x[static_cast<std::size_t>(i * C.rs + j * C.cs)]);
      const std::complex<double> r = R[static_cast<std::size_t>(i * C.cols + j)];
      if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) ++*bad;
      d2 += std::norm(v - r);
      r2 += std::norm(r);
    }
  return std::sqrt(d2 / r2);
}

struct Shape {
  std::int64_t m, k, n;
  Op opA, opB;
  Layout la, lb, lc;  ///< storage of A, B (before op) and C
};

// Every shape has op(A) and C as rows of interleaved re/im (embeddable); k = 45, 7, 130, 17 are not
// multiples of 16. The first is qsim's call (state rows x d times U^T, U row-major).
const Shape kEmbeddable[] = {
    {256, 32, 32, Op::N, Op::T, Layout::row, Layout::row, Layout::row},
    {70, 45, 33, Op::N, Op::T, Layout::padded_row, Layout::col, Layout::padded_row},
    {33, 7, 50, Op::T, Op::N, Layout::col, Layout::padded_col, Layout::row},       // op(A) of col-major storage
    {129, 130, 24, Op::N, Op::N, Layout::row, Layout::padded_row, Layout::row},
    {1, 17, 9, Op::N, Op::T, Layout::row, Layout::padded_row, Layout::row},          // a single row
};

/// FP32-class (T = float) or FP64-class (FP64 targets) bound on the error against FP64.
double class_bound(const Scheme& s) { return s.target == Target::fp64 ? 1e-13 : 1e-5; }

/// Runs one shape with the embedding and with 4M (fresh workspaces, so the slots show which method
/// ran) and checks both against the FP64 reference.
template <class T>
void compare_methods(const Scheme& scheme, const Shape& sh, T alpha, T beta, std::uint64_t seed) {
  using Z = std::complex<T>;
  SCOPED_TRACE(scheme.name + " m=" + std::to_string(sh.m) + " k=" + std::to_string(sh.k) + " n=" +
               std::to_string(sh.n) + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta));
  const bool ta = sh.opA == Op::T, tb = sh.opB == Op::T;
  DualMatrix<Z> A(ta ? sh.k : sh.m, ta ? sh.m : sh.k, sh.la), B(tb ? sh.n : sh.k, tb ? sh.k : sh.n, sh.lb);
  DualMatrix<Z> C(sh.m, sh.n, sh.lc);
  fill_complex(A, seed);
  fill_complex(B, seed + 2);
  fill_complex(C, seed + 4);
  if (beta == T(0))  // poison: C must not be read, and every entry must be written
    for (auto& v : C.h) v = Z(std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN());
  A.upload();
  B.upload();
  const auto a = A.dev().as_const(), b = B.dev().as_const();
  ASSERT_TRUE(cuda::complex_embedding_applies<T>(sh.opA, Z(alpha), a, Z(beta), C.dev()));
  const auto R = reference<T>(sh.opA, sh.opB, alpha, A.host().as_const(), B.host().as_const(), beta,
                              C.host().as_const());
  GemmOptions opt;
  opt.scheme = scheme;

  auto run = [&](ComplexMethod method, GemmReport& rep, std::size_t& im_bytes) {
    C.upload();
    cuda::Workspace ws;
    rep = cuda::complex_gemm_device<T>(sh.opA, sh.opB, Z(alpha), a, b, Z(beta), C.dev(), opt, nullptr, &ws, method);
    im_bytes = ws.impl().bytes[cuda::kSlotComplexIm];
    return C.download();
  };
  GemmReport re, r4;
  std::size_t im_e = 0, im_4 = 0;
  const auto ce = run(ComplexMethod::embed, re, im_e);
  const auto c4 = run(ComplexMethod::four_m, r4, im_4);
  EXPECT_EQ(im_e, 0u) << "the embedding must not use 4M's imaginary-part workspace";
  EXPECT_GT(im_4, 0u);
  EXPECT_FALSE(re.fell_back) << re.note;
  EXPECT_FALSE(r4.fell_back) << r4.note;
  EXPECT_FALSE(re.used.is_native() && !scheme.is_native()) << re.used.name;

  std::int64_t bad_e = 0, bad_4 = 0;
  const double ee = rel_err_c(C, ce, R, &bad_e), e4 = rel_err_c(C, c4, R, &bad_4);
  EXPECT_EQ(bad_e, 0);
  EXPECT_EQ(bad_4, 0);
  const double bound = class_bound(scheme);
  EXPECT_LE(ee, bound) << "embedding err " << ee << ", 4M err " << e4;
  EXPECT_LE(e4, bound) << "embedding err " << ee << ", 4M err " << e4;
  // The embedding sums 2k products per entry in one accumulator (4M: k, then one RN add): allow
  // the Tensor Cores' truncating accumulation over the extra length (about 3e-9 per term, measured
  // on an H200; docs/perf-notes.md section 2.1) on top of twice 4M's error.
  const double slack = scheme.target == Target::fp64 ? 1e-15 : 3e-9 * double(2 * sh.k) + 1e-7;
  EXPECT_LE(ee, 2 * e4 + slack) << "embedding err " << ee << ", 4M err " << e4;
}

TEST(CudaComplexEmbed, MatchesFourMAndFp64Float) {
  TCEMU_REQUIRE_GPU();
  std::uint64_t seed = 7100;
  for (const char* name : {"fp32", "fp16x2", "tf32x2", "bf16x3"})
    for (const Shape& sh : kEmbeddable) {
      compare_methods<float>(parse_scheme(name), sh, 1.0f, 0.0f, seed += 8);
      compare_methods<float>(parse_scheme(name), sh, 0.75f, -0.5f, seed += 8);
    }
}

TEST(CudaComplexEmbed, MatchesFourMAndFp64Double) {
  TCEMU_REQUIRE_GPU();
  std::uint64_t seed = 7900;
  for (const char* name : {"fp64", "int8-ozaki"})
    for (const Shape& sh : kEmbeddable) {
      compare_methods<double>(parse_scheme(name, Target::fp64), sh, 1.0, 0.0, seed += 8);
      compare_methods<double>(parse_scheme(name, Target::fp64), sh, -1.25, 2.0, seed += 8);
    }
}

/// Layouts and scalars the embedding cannot take: even forced (ComplexMethod::embed), the call runs
/// through 4M (its imaginary-part workspace is used) and gives the right product.
TEST(CudaComplexEmbed, NonEmbeddableLayoutsRunThroughFourM) {
  TCEMU_REQUIRE_GPU();
  using Z = std::complex<float>;
  struct Case {
    const char* what;
    Layout la, lc;
    Z alpha, beta;
  };
  const Case cases[] = {
      {"C column-major", Layout::row, Layout::col, Z(1), Z(0)},
      {"op(A) column-major", Layout::padded_col, Layout::row, Z(1), Z(0)},
      {"complex alpha", Layout::row, Layout::row, Z(0.5f, 0.25f), Z(0)},
      {"complex beta", Layout::row, Layout::padded_row, Z(1), Z(0.5f, -1.0f)},
  };
  const std::int64_t m = 40, k = 21, n = 19;
  std::uint64_t seed = 8500;
  GemmOptions opt;
  opt.scheme = parse_scheme("fp16x2");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    DualMatrix<Z> A(m, k, c.la), B(n, k, Layout::row), C(m, n, c.lc);
    fill_complex(A, seed += 8);
    fill_complex(B, seed += 8);
    fill_complex(C, seed += 8);
    A.upload();
    B.upload();
    C.upload();
    EXPECT_FALSE(cuda::complex_embedding_applies<float>(Op::N, c.alpha, A.dev().as_const(), c.beta, C.dev()));
    const auto R = reference<float>(Op::N, Op::T, c.alpha, A.host().as_const(), B.host().as_const(), c.beta,
                                    C.host().as_const());
    cuda::Workspace ws;
    cuda::complex_gemm_device<float>(Op::N, Op::T, c.alpha, A.dev().as_const(), B.dev().as_const(), c.beta,
                                     C.dev(), opt, nullptr, &ws, ComplexMethod::embed);
    EXPECT_GT(ws.impl().bytes[cuda::kSlotComplexIm], 0u);
    std::int64_t bad = 0;
    EXPECT_LE(rel_err_c(C, C.download(), R, &bad), 1e-5);
    EXPECT_EQ(bad, 0);
  }
  // In place (C is A, n == k): the embedding would overwrite A while reading it, so 4M runs; its
  // combine writes C only after the four products have read A.
  DualMatrix<Z> X(m, k, Layout::row), B(k, k, Layout::col);
  fill_complex(X, seed += 8);
  fill_complex(B, seed += 8);
  X.upload();
  B.upload();
  const MatrixView<const Z> xa = X.dev().as_const();
  EXPECT_FALSE(cuda::complex_embedding_applies<float>(Op::N, Z(1), xa, Z(0), X.dev()));
  const auto R = reference<float>(Op::N, Op::N, Z(1), X.host().as_const(), B.host().as_const(), Z(0),
                                  X.host().as_const());
  cuda::Workspace ws;
  cuda::complex_gemm_device<float>(Op::N, Op::N, Z(1), xa, B.dev().as_const(), Z(0), X.dev(), opt, nullptr, &ws,
                                   ComplexMethod::automatic);
  EXPECT_GT(ws.impl().bytes[cuda::kSlotComplexIm], 0u);
  std::int64_t bad = 0;
  EXPECT_LE(rel_err_c(X, X.download(), R, &bad), 1e-5);
}

/// ExecutionPolicy::complex reaches the overload without a method: forced 4M uses the imaginary-part
/// workspace, the default does not, and both give the product.
TEST(CudaComplexEmbed, PolicyForcesEitherMethod) {
  TCEMU_REQUIRE_GPU();
  compare_methods<float>(parse_scheme("tf32x2"), kEmbeddable[0], 1.0f, 0.0f, 9100);  // warm-up + sanity
  using Z = std::complex<float>;
  const Shape& sh = kEmbeddable[0];
  DualMatrix<Z> A(sh.m, sh.k, Layout::row), B(sh.n, sh.k, Layout::row), C(sh.m, sh.n, Layout::row);
  fill_complex(A, 9200);
  fill_complex(B, 9202);
  A.upload();
  B.upload();
  const auto R = reference<float>(Op::N, Op::T, Z(1), A.host().as_const(), B.host().as_const(), Z(0),
                                  C.host().as_const());
  GemmOptions opt;
  opt.scheme = parse_scheme("bf16x3");
  for (ComplexMethod method : {ComplexMethod::four_m, ComplexMethod::embed, ComplexMethod::automatic}) {
    SCOPED_TRACE(static_cast<int>(method));
    opt.execution.complex = method;
    cuda::Workspace ws;
    cuda::complex_gemm_device<float>(Op::N, Op::T, Z(1), A.dev().as_const(), B.dev().as_const(), Z(0), C.dev(),
                                     opt, nullptr, &ws);
    const bool four_m = method == ComplexMethod::four_m;
    EXPECT_EQ(ws.impl().bytes[cuda::kSlotComplexIm] > 0, four_m);
    std::int64_t bad = 0;
    EXPECT_LE(rel_err_c(C, C.download(), R, &bad), 1e-5);
    EXPECT_EQ(bad, 0);
  }
}

// --- Host-only: the selection rule and the method names (no device memory is touched). ---

TEST(CudaComplexEmbed, AppliesOnlyToInterleavedRowsWithRealScalars) {
  using Z = std::complex<float>;
  // Fake device addresses: complex_embedding_applies only looks at the views.
  Z* base = reinterpret_cast<Z*>(std::uintptr_t{1} << 20);
  const MatrixView<const Z> a_row{base, 8, 4, 4, 1}, a_col{base, 8, 4, 1, 8}, a_pad{base, 8, 4, 6, 1};
  const MatrixView<Z> c_row{base + 4096, 8, 3, 3, 1}, c_col{base + 4096, 8, 3, 1, 8};
  const Z one(1), zero(0), cplx(1, 1);
  EXPECT_TRUE(cuda::complex_embedding_applies<float>(Op::N, one, a_row, zero, c_row));
  EXPECT_TRUE(cuda::complex_embedding_applies<float>(Op::N, Z(-2), a_pad, Z(0.5f), c_row));
  // Op::T of column-major storage is op(A) with column stride 1, and the other way round.
  EXPECT_TRUE(cuda::complex_embedding_applies<float>(Op::T, one, a_row.transposed(), zero, c_row));
  EXPECT_FALSE(cuda::complex_embedding_applies<float>(Op::T, one, a_col.transposed(), zero, c_row));
  EXPECT_FALSE(cuda::complex_embedding_applies<float>(Op::N, one, a_col, zero, c_row));
  EXPECT_FALSE(cuda::complex_embedding_applies<float>(Op::N, one, a_row, zero, c_col));
  EXPECT_FALSE(cuda::complex_embedding_applies<float>(Op::N, cplx, a_row, zero, c_row));
  EXPECT_FALSE(cuda::complex_embedding_applies<float>(Op::N, one, a_row, Z(0, -1), c_row));
  // A single column: re and im are adjacent whatever the column stride.
  const MatrixView<const Z> a1{base, 8, 1, 1, 8};
  const MatrixView<Z> c1{base + 4096, 8, 1, 1, 8};
  EXPECT_TRUE(cuda::complex_embedding_applies<float>(Op::N, one, a1, zero, c1));
  // Overlap of C with op(A) (in place, or C inside A's span) sends the call to 4M.
  const MatrixView<Z> c_on_a{base, 8, 4, 4, 1}, c_inside{base + 13, 2, 2, 4, 1};
  EXPECT_FALSE(cuda::complex_embedding_applies<float>(Op::N, one, a_row, zero, c_on_a));
  EXPECT_FALSE(cuda::complex_embedding_applies<float>(Op::N, one, a_row, zero, c_inside));
  const MatrixView<Z> c_after{base + 32, 8, 3, 3, 1};  // starts right after A's last element
  EXPECT_TRUE(cuda::complex_embedding_applies<float>(Op::N, one, a_row, zero, c_after));
  const MatrixView<const std::complex<double>> d_row{reinterpret_cast<std::complex<double>*>(base), 8, 4, 4, 1};
  const MatrixView<std::complex<double>> d_c{reinterpret_cast<std::complex<double>*>(base) + 4096, 8, 3, 3, 1};
  EXPECT_TRUE(cuda::complex_embedding_applies<double>(Op::N, 1.0, d_row, 0.0, d_c));
}

TEST(CudaComplexEmbed, MethodNames) {
  const std::pair<const char*, ComplexMethod> ok[] = {{"", ComplexMethod::automatic},
                                                       {"auto", ComplexMethod::automatic},
                                                       {"4m", ComplexMethod::four_m},
                                                       {"4M", ComplexMethod::four_m},
                                                       {"embed", ComplexMethod::embed},
                                                       {"3m", ComplexMethod::three_m},
                                                       {"3M", ComplexMethod::three_m}};
  for (const auto& [v, m] : ok) EXPECT_EQ(parse_complex_method(v), m) << v;
  try {
    parse_complex_method("5m");
    ADD_FAILURE() << "no exception for 5m";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'5m'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tcemu::test
#endif
