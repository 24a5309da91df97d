// GPU tests of int8-crt on complex operands (cuda/dispatch/complex_crt.cpp): complex_gemm_device
// equals complex_gemm_host bit for bit - same real embedding, same certificate and N, same real
// int8-crt path, same complex combine - for complex<float> (FP32 target) and complex<double> (FP64),
// N per call and given, transposes and strided layouts (op(A) read in place or packed, C written by
// the real GEMM or through the temporary and the complex combine), real and complex alpha / beta,
// whatever ComplexMethod asks; 3M in the residue domain (N given or certified, on an sm_90a build and
// a compute 9.0 GPU) against the host's embedding. Compiles to nothing without the CUDA backend; skips without a GPU.
#if defined(TCEMU_HAVE_CUDA)
#include <gtest/gtest.h>

#include <complex>
#include <cstdlib>
#include <limits>
#include <string>

#include "cuda/workspace_impl.hpp"
#include "cuda_test_util.hpp"
#include "tcemu/complex_gemm.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/random.hpp"

namespace tcemu::test {
namespace {

using Case = GemmShape;

const Case kCases[] = {
    {37, 29, 53, Op::N, Op::N, Layout::row, Layout::row, Layout::row},          // A in place, C direct
    {64, 40, 96, Op::T, Op::N, Layout::col, Layout::padded_row, Layout::col},   // A in place, C combine
    {33, 65, 17, Op::N, Op::T, Layout::padded_col, Layout::col, Layout::padded_row},  // A packed
    {129, 130, 300, Op::T, Op::T, Layout::padded_row, Layout::padded_col, Layout::row},
};

/// Options asking for `scheme` (parsed for `target`) under the execution policy `exec`.
GemmOptions options_for(const std::string& scheme, Target target, const ExecutionPolicy& exec) {
  GemmOptions o;
  o.scheme = parse_scheme(scheme, target);
  o.execution = exec;
  return o;
}

int moduli_of(const GemmReport& r) {
  const auto at = r.certificate.find("N = ");
  return at == std::string::npos ? -1 : std::atoi(r.certificate.c_str() + at + 4);
}

/// Whether int8-crt's complex GEMM on this device must take 3M in the residue domain for a given N
/// (an sm_90a build on a compute 9.0 GPU: the INT8 wgmma kernel with its fused reduction).
bool expect_three_m() {
#if defined(TCEMU_TEST_BUILT_FOR_SM90A)
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) return false;
  return major == 9 && minor == 0;
#else
  return false;
#endif
}

template <class T>
void expect_bit_identical(const std::string& scheme, Target target, const Case& s, const char* dist,
                          std::complex<T> alpha, std::complex<T> beta, ComplexMethod method,
                          const ExecutionPolicy& exec = {}, std::string* kernels = nullptr, bool poison_a = false) {
  using Z = std::complex<T>;
  SCOPED_TRACE(scheme + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) + " " +
               dist + " alpha=(" + std::to_string(alpha.real()) + "," + std::to_string(alpha.imag()) + ") beta=(" +
               std::to_string(beta.real()) + "," + std::to_string(beta.imag()) + ")");
  const bool ta = s.opA == Op::T, tb = s.opB == Op::T;
  DualMatrix<Z> A(ta ? s.k : s.m, ta ? s.m : s.k, s.la), B(tb ? s.n : s.k, tb ? s.k : s.n, s.lb), C(s.m, s.n, s.lc);
  std::uint64_t seed = 7;
  for (DualMatrix<Z>* X : {&A, &B, &C}) {
    fill_random(real_view(X->host()), Distribution::parse(X == &C ? "uniform" : dist), seed++);
    fill_random(imag_view(X->host()), Distribution::parse(X == &C ? "uniform" : dist), seed++);
  }
  if (beta == Z(0))
    for (auto& v : C.h) v = Z(std::numeric_limits<T>::quiet_NaN(), 0);  // must not be read
  if (poison_a) A.h[A.h.size() / 2] = Z(T(1), std::numeric_limits<T>::infinity());
  A.upload();
  B.upload();
  C.upload();
  const GemmOptions o = options_for(scheme, target, exec);
  const GemmReport rd = cuda::complex_gemm_device<T>(s.opA, s.opB, alpha, A.dev().as_const(), B.dev().as_const(), beta,
                                                     C.dev(), o, nullptr, nullptr, method);
  const std::vector<Z> cd = C.download();
  const GemmReport rh = complex_gemm_host<T>(s.opA, s.opB, alpha, A.host().as_const(), B.host().as_const(), beta,
                                             C.host(), o);
  if (kernels) *kernels = rd.kernels;
  ASSERT_EQ(rd.fell_back, poison_a) << rd.note;
  ASSERT_EQ(rh.fell_back, poison_a) << rh.note;
  if (poison_a) {  // both backends fall back to native arithmetic, saying why
    EXPECT_NE(rd.note.find("Inf"), std::string::npos) << rd.note;
    EXPECT_NE(rh.note.find("Inf"), std::string::npos) << rh.note;
    return;
  }
  EXPECT_EQ(moduli_of(rd), moduli_of(rh)) << "GPU: " << rd.certificate << "\nhost: " << rh.certificate;
  EXPECT_GT(moduli_of(rd), 1);
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      const std::int64_t e = i * C.rs + j * C.cs;
      if (!(cd[e].real() == C.h[e].real() && cd[e].imag() == C.h[e].imag())) ++differ;  // NaN counts
    }
  EXPECT_EQ(differ, 0) << "of " << s.m * s.n;
}

template <class T>
void all_cases(const std::string& scheme, Target target, const char* dist) {
  using Z = std::complex<T>;
  for (const Case& s : kCases) {
    expect_bit_identical<T>(scheme, target, s, dist, Z(1), Z(0), ComplexMethod::automatic);
    expect_bit_identical<T>(scheme, target, s, dist, Z(T(1.5)), Z(T(-0.5)), ComplexMethod::four_m);
    expect_bit_identical<T>(scheme, target, s, dist, Z(T(0.75), T(-0.5)), Z(T(0.25), T(2)), ComplexMethod::automatic);
  }
}

}  // namespace

// 3M in the residue domain (given N, one k chunk, the wgmma kernel): every layout case with real and
// complex alpha / beta, the wide limbs (N = 18 at phi = 4: scaled integers beyond 2^63), float data,
// row blocks (a budget of 16 rows: m0 > 0 and a last block of fewer rows), and the
// embedding under crt_products = cublas: all the host's bits; an Inf falls back like the host.
TEST(CudaCrtComplex, ThreeMultiplicationFormMatchesTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  using Zd = std::complex<double>;
  const bool three_m = expect_three_m();
  auto check_path = [&](const std::string& kernels, bool want_3m) {
    EXPECT_EQ(kernels.find("3M") != std::string::npos, want_3m) << kernels;
  };
  std::string kernels;
  for (const Case& s : kCases) {
    expect_bit_identical<double>("int8-crt:15", Target::fp64, s, "uniform(-1,1)", Zd(1), Zd(0), ComplexMethod::three_m,
                                 {}, &kernels);
    check_path(kernels, three_m);
    expect_bit_identical<double>("int8-crt:18", Target::fp64, s, "phi=4", Zd(0.75, -0.5), Zd(0.25, 2),
                                 ComplexMethod::three_m, {}, &kernels);
    check_path(kernels, three_m);
    expect_bit_identical<float>("int8-crt:7", Target::fp32, s, "phi=1", std::complex<float>(1.5f), std::complex<float>(-0.5f),
                                ComplexMethod::three_m, {}, &kernels);
    check_path(kernels, three_m);
  }
  ExecutionPolicy blocks;
  // Blocks of 16 rows (16, 16, 1 of m = 33): per row 3 parts x N = 16 x (x's kcp = 32 residues and the
  // products' 256, n = 65 rounded up to the tile width).
  blocks.ozaki_accumulator_bytes = 16 * 3 * 16 * (32 + 256);
  expect_bit_identical<double>("int8-crt:16", Target::fp64, kCases[2], "phi=1", Zd(1), Zd(0.5, 0.5),
                               ComplexMethod::three_m, blocks, &kernels);
  check_path(kernels, three_m);
  ExecutionPolicy cublas;
  cublas.crt_products = CrtProducts::cublas;
  expect_bit_identical<double>("int8-crt:15", Target::fp64, kCases[1], "uniform(-1,1)", Zd(1), Zd(0),
                               ComplexMethod::three_m, cublas, &kernels);
  check_path(kernels, false);
  expect_bit_identical<double>("int8-crt:15", Target::fp64, kCases[0], "uniform(-1,1)", Zd(1), Zd(0),
                               ComplexMethod::automatic, {}, nullptr, true);
}

// Many rows, small n and k past the narrow pass (n = 12 > 8): the residues' padding to the tile
// width (n to 256) and x's panels (k to 16) count against the budget, so the call's
// row-proportional buffers stay within it (before session 28 a 2^26 x 4 x 4 call asked for 512 GiB),
// with the host's bits. 16 MiB: 3 x 15 x (16 + 256) bytes per row, blocks of 1,360 rows.
TEST(CudaCrtComplex, SmallNAndKRunInRowBlocksWithinTheBudget) {
  TCEMU_REQUIRE_GPU();
  if (!expect_three_m()) GTEST_SKIP() << "3M needs the sm_90a wgmma kernel on a compute 9.0 GPU";
  ExecutionPolicy small;
  small.ozaki_accumulator_bytes = std::int64_t(16) << 20;
  const Case tall{40000, 12, 4, Op::N, Op::N, Layout::row, Layout::row, Layout::row};
  std::string kernels;
  expect_bit_identical<double>("int8-crt:15", Target::fp64, tall, "phi=1", std::complex<double>(1), std::complex<double>(0),
                               ComplexMethod::three_m, small, &kernels);
  EXPECT_NE(kernels.find("wgmma"), std::string::npos) << kernels;
  const auto& asked = cuda::default_workspace().impl().requested;  // this call's sizes per slot
  EXPECT_LE(asked[cuda::kSlotPartsA] + asked[cuda::kSlotAccum], static_cast<std::size_t>(small.ozaki_accumulator_bytes));
  EXPECT_GT(asked[cuda::kSlotAccum], 0u);
}

// Narrow products (n <= 8, k <= 16: qsim's 1- to 3-qubit blocks) take one pass on the CUDA cores
// (crt_narrow_complex3m) with no panels of x or of the products, and give the host's bits: each of
// the pass's three kernel shapes (k, n <= 4; k <= 8; k <= 16), x read in place and packed, C direct
// and through the complex combine, the wide limbs (N = 18 at phi = 4), float data, N per call.
TEST(CudaCrtComplex, NarrowProductsTakeOnePassWithTheHostsBits) {
  TCEMU_REQUIRE_GPU();
  if (!expect_three_m()) GTEST_SKIP() << "3M needs the sm_90a wgmma kernel on a compute 9.0 GPU";
  using Zd = std::complex<double>;
  const Case narrow[] = {
      {40000, 4, 4, Op::N, Op::N, Layout::row, Layout::row, Layout::row},            // qsim's 2-qubit block
      {517, 1, 1, Op::N, Op::N, Layout::row, Layout::col, Layout::row},
      {3001, 3, 7, Op::N, Op::T, Layout::padded_col, Layout::col, Layout::padded_row},  // x packed
      {1000, 8, 16, Op::T, Op::N, Layout::col, Layout::padded_row, Layout::col},        // C by the combine
  };
  std::string kernels;
  for (const Case& s : narrow) {
    expect_bit_identical<double>("int8-crt:15", Target::fp64, s, "uniform(-1,1)", Zd(1), Zd(0), ComplexMethod::automatic,
                                 {}, &kernels);
    EXPECT_NE(kernels.find("narrow pass"), std::string::npos) << kernels;
    const auto& asked = cuda::default_workspace().impl().requested;
    EXPECT_EQ(asked[cuda::kSlotPartsA], 0u);
    EXPECT_EQ(asked[cuda::kSlotAccum], 0u);
    expect_bit_identical<double>("int8-crt:18", Target::fp64, s, "phi=4", Zd(0.75, -0.5), Zd(0.25, 2),
                                 ComplexMethod::three_m, {}, &kernels);
    EXPECT_NE(kernels.find("narrow pass"), std::string::npos) << kernels;
    expect_bit_identical<float>("int8-crt:7", Target::fp32, s, "phi=1", std::complex<float>(1.5f),
                                std::complex<float>(-0.5f), ComplexMethod::three_m, {}, &kernels);
    expect_bit_identical<double>("int8-crt", Target::fp64, s, "phi=1", Zd(1), Zd(0.5, 0.5), ComplexMethod::three_m, {},
                                 &kernels);
    EXPECT_NE(kernels.find("narrow pass"), std::string::npos) << kernels;
  }
}

// With N given, x's line rule runs inside its residue pass (crt_line_rule_and_residues_complex3m) where
// a late fallback can rewrite C: beta = 0 and C apart from A and B. Then x's NaN / Inf is found after
// C's blocks are written, and the fallback must still give the host's result (native arithmetic, the
// note naming Inf). With beta != 0 the rule runs apart as before. Every path gives the host's bits,
// with row blocks too (a budget of 1,024 rows of 3 x 15 x (512 + 256) bytes: 4 blocks).
TEST(CudaCrtComplex, GivenNFusesTheLineRuleOfXWhereAFallbackCanRewriteC) {
  TCEMU_REQUIRE_GPU();
  if (!expect_three_m()) GTEST_SKIP() << "3M needs the sm_90a wgmma kernel on a compute 9.0 GPU";
  using Zd = std::complex<double>;
  const Case tall{4000, 200, 512, Op::N, Op::N, Layout::row, Layout::row, Layout::row};
  std::string kernels;
  expect_bit_identical<double>("int8-crt:15", Target::fp64, tall, "phi=1", Zd(1), Zd(0), ComplexMethod::automatic, {},
                               &kernels);
  EXPECT_NE(kernels.find("line rule fused"), std::string::npos) << kernels;
  ExecutionPolicy blocks;
  blocks.ozaki_accumulator_bytes = 1024 * 3 * 15 * (512 + 256);
  expect_bit_identical<double>("int8-crt:15", Target::fp64, tall, "uniform(-1,1)", Zd(0.5, -1), Zd(0),
                               ComplexMethod::automatic, blocks, &kernels);
  EXPECT_NE(kernels.find("line rule fused"), std::string::npos) << kernels;
  expect_bit_identical<double>("int8-crt:15", Target::fp64, tall, "phi=1", Zd(1), Zd(0.5), ComplexMethod::automatic, {},
                               &kernels);
  EXPECT_EQ(kernels.find("line rule fused"), std::string::npos) << kernels;
  expect_bit_identical<float>("int8-crt:7", Target::fp32, tall, "uniform(-1,1)", std::complex<float>(1),
                              std::complex<float>(0), ComplexMethod::automatic, {}, &kernels);
  EXPECT_NE(kernels.find("line rule fused"), std::string::npos) << kernels;
  // An Inf in A (row 2000, the second of four blocks): found by the fused pass after C's blocks are written.
  expect_bit_identical<double>("int8-crt:15", Target::fp64, tall, "phi=1", Zd(1), Zd(0), ComplexMethod::automatic,
                               blocks, nullptr, true);
}

// complex_gemm_device_gathered reads X through a bit map (qsim's permutation read in place): C is
// the bits of complex_gemm_device on X gathered into rows, for k = 512 and 32 with random maps, in
// row blocks too (row0 of each block), double and float. It declines (false, nothing written) where
// its pass does not run and for NaN / Inf in X, and refuses repeated positions.
TEST(CudaCrtComplex, GatheredOperandGivesTheBitsOfItsRows) {
  TCEMU_REQUIRE_GPU();
  if (!expect_three_m()) GTEST_SKIP() << "3M needs the sm_90a wgmma kernel on a compute 9.0 GPU";
  auto run = [](auto zero, int total_bits, int col_bits, const char* scheme, Target target, const ExecutionPolicy& exec) {
    using Z = decltype(zero);
    using T = typename Z::value_type;
    SCOPED_TRACE(std::string(scheme) + " bits " + std::to_string(total_bits) + " col_bits " + std::to_string(col_bits));
    const std::int64_t size = std::int64_t{1} << total_bits, k = std::int64_t{1} << col_bits, m = size / k;
    std::vector<int> pos(static_cast<std::size_t>(total_bits));
    for (int p = 0; p < total_bits; ++p) pos[static_cast<std::size_t>(p)] = p;
    std::uint64_t r = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(total_bits + col_bits);
    for (int p = total_bits - 1; p > 0; --p) {  // Fisher-Yates with a fixed LCG: a random bit map
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      std::swap(pos[static_cast<std::size_t>(p)], pos[static_cast<std::size_t>((r >> 33) % static_cast<std::uint64_t>(p + 1))]);
    }
    cuda::BitGather g;
    g.col_positions.assign(pos.begin(), pos.begin() + col_bits);
    g.row_positions.assign(pos.begin() + col_bits, pos.end());
    DualMatrix<Z> x(1, size, Layout::row), X(m, k, Layout::row), U(k, k, Layout::row), C1(m, k, Layout::row),
        C2(m, k, Layout::row);
    fill_random(real_view(x.host()), Distribution::parse("phi=1"), 3);
    fill_random(imag_view(x.host()), Distribution::parse("phi=1"), 4);
    fill_random(real_view(U.host()), Distribution::parse("uniform(-1,1)"), 5);
    fill_random(imag_view(U.host()), Distribution::parse("uniform(-1,1)"), 6);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < k; ++j) {
        std::int64_t idx = 0;
        for (int b = 0; b < total_bits - col_bits; ++b) idx |= ((i >> b) & 1) << g.row_positions[static_cast<std::size_t>(b)];
        for (int b = 0; b < col_bits; ++b) idx |= ((j >> b) & 1) << g.col_positions[static_cast<std::size_t>(b)];
        X.h[static_cast<std::size_t>(i * k + j)] = x.h[static_cast<std::size_t>(idx)];
      }
    x.upload();
    X.upload();
    U.upload();
    const GemmOptions o = options_for(scheme, target, exec);
    const GemmReport want = cuda::complex_gemm_device<T>(Op::N, Op::T, Z(1), X.dev().as_const(), U.dev().as_const(), Z(0),
                                                         C1.dev(), o, nullptr, nullptr, ComplexMethod::automatic);
    GemmReport got;
    ASSERT_TRUE(cuda::complex_gemm_device_gathered<T>(x.d, g, Op::T, U.dev().as_const(), C2.dev(), o, nullptr, nullptr,
                                                      ComplexMethod::automatic, got));
    EXPECT_NE(got.kernels.find("bit map"), std::string::npos) << got.kernels;
    EXPECT_EQ(got.certificate, want.certificate);
    const std::vector<Z> c1 = C1.download(), c2 = C2.download();
    std::int64_t differ = 0;
    for (std::size_t e = 0; e < c1.size(); ++e) differ += !(c1[e].real() == c2[e].real() && c1[e].imag() == c2[e].imag());
    EXPECT_EQ(differ, 0) << "of " << c1.size();
    // Declined: N per call (its certificate reads X apart), and NaN in X (found by the pass).
    GemmOptions per_call = o;
    per_call.scheme = parse_scheme("int8-crt", target);
    EXPECT_FALSE(cuda::complex_gemm_device_gathered<T>(x.d, g, Op::T, U.dev().as_const(), C2.dev(), per_call, nullptr,
                                                       nullptr, ComplexMethod::automatic, got));
    x.h[static_cast<std::size_t>(size / 3)] = Z(std::numeric_limits<T>::quiet_NaN(), T(0));
    x.upload();
    EXPECT_FALSE(cuda::complex_gemm_device_gathered<T>(x.d, g, Op::T, U.dev().as_const(), C2.dev(), o, nullptr, nullptr,
                                                       ComplexMethod::automatic, got));
  };
  // m = 2^(total_bits - col_bits) rows above 2n = 2^(col_bits + 1): Y is the split's source, so x's
  // rule may be fused into its residue pass (crt_arith::split_source_is_a).
  ExecutionPolicy blocks;
  blocks.ozaki_accumulator_bytes = 48 * 3 * 15 * (512 + 512);  // rows in blocks of 48: row0 = 48, 96, ...
  run(std::complex<double>(), 15, 6, "int8-crt:15", Target::fp64, {});
  run(std::complex<double>(), 20, 9, "int8-crt:15", Target::fp64, blocks);
  run(std::complex<double>(), 13, 5, "int8-crt:17", Target::fp64, {});
  run(std::complex<float>(), 14, 6, "int8-crt:7", Target::fp32, {});
  {  // m = 32 <= 2n = 1024: X is the source, its rule must come whole before any exponent: not taken.
    DualMatrix<std::complex<double>> x(1, 1 << 14, Layout::row), U(512, 512, Layout::row), C(32, 512, Layout::row);
    GemmOptions o;
    o.scheme = parse_scheme("int8-crt:15", Target::fp64);
    GemmReport rep;
    cuda::BitGather wide;
    for (int b = 0; b < 9; ++b) wide.col_positions.push_back(b);
    for (int b = 9; b < 14; ++b) wide.row_positions.push_back(b);
    EXPECT_FALSE(cuda::complex_gemm_device_gathered<double>(x.d, wide, Op::T, U.dev().as_const(), C.dev(), o, nullptr,
                                                            nullptr, ComplexMethod::automatic, rep));
  }
  // Not taken: the narrow pass's shape (k = n = 4), a native scheme; refused: a repeated position.
  DualMatrix<std::complex<double>> x(1, 1 << 10, Layout::row), U(4, 4, Layout::row), C(256, 4, Layout::row);
  GemmOptions o;
  o.scheme = parse_scheme("int8-crt:15", Target::fp64);
  GemmReport rep;
  cuda::BitGather narrow{{2, 3, 4, 5, 6, 7, 8, 9}, {0, 1}};
  EXPECT_FALSE(cuda::complex_gemm_device_gathered<double>(x.d, narrow, Op::T, U.dev().as_const(), C.dev(), o, nullptr,
                                                          nullptr, ComplexMethod::automatic, rep));
  o.scheme = parse_scheme("fp64", Target::fp64);
  EXPECT_FALSE(cuda::complex_gemm_device_gathered<double>(x.d, narrow, Op::T, U.dev().as_const(), C.dev(), o, nullptr,
                                                          nullptr, ComplexMethod::automatic, rep));
  cuda::BitGather repeated{{2, 3, 4, 5, 6, 7, 8, 2}, {0, 1}};
  EXPECT_THROW(cuda::complex_gemm_device_gathered<double>(x.d, repeated, Op::T, U.dev().as_const(), C.dev(), o, nullptr,
                                                          nullptr, ComplexMethod::automatic, rep),
               InvalidArgument);
}

// ComplexMethod picks the path: `embed` never takes 3M, every other method (automatic, three_m, 4m)
// wherever it runs, including the qsim-like shape (many rows, n = k = 4); every path gives the
// host's bits.
TEST(CudaCrtComplex, TheMethodPicksThePath) {
  TCEMU_REQUIRE_GPU();
  using Zd = std::complex<double>;
  const bool three_m = expect_three_m();
  const Case tall{20000, 4, 4, Op::N, Op::N, Layout::row, Layout::row, Layout::row};
  std::string kernels;
  for (const Case* s : {&tall, &kCases[0], &kCases[3]}) {
    for (ComplexMethod method :
         {ComplexMethod::automatic, ComplexMethod::embed, ComplexMethod::three_m, ComplexMethod::four_m}) {
      SCOPED_TRACE(static_cast<int>(method));
      expect_bit_identical<double>("int8-crt:15", Target::fp64, *s, "phi=1", Zd(1), Zd(0), method, {}, &kernels);
      EXPECT_EQ(kernels.find("3M") != std::string::npos, three_m && method != ComplexMethod::embed) << kernels;
    }
  }
}

/// The bound part of a certificate text ("certified |error| <= r x u |A||B| ..." up to "entrywise"),
/// empty when absent: the worst ratio the GPU's second test pass found, against the host's.
std::string bound_of(const GemmReport& r) {
  const auto a = r.certificate.find("certified |error|"), b = r.certificate.find("entrywise");
  return a == std::string::npos || b == std::string::npos || b < a ? "" : r.certificate.substr(a, b - a);
}

// N per call with 3M (2k <= 2^16): the GPU certifies the real embedding from the 3M lines (the
// embedding's columns 2j and 2j + 1 as pairs of y's line j) and must pick the host's N with the
// host's worst ratio, then give the host's bits; Im = 2^-20 Re certifies no N on either backend, so
// both fall back to native arithmetic with the same reason.
TEST(CudaCrtComplex, PerCallCertifiesTheEmbeddingBeforeThreeM) {
  TCEMU_REQUIRE_GPU();
  using Zd = std::complex<double>;
  using Zf = std::complex<float>;
  const bool three_m = expect_three_m();
  std::string kernels;
  for (const Case& s : kCases) {
    expect_bit_identical<double>("int8-crt", Target::fp64, s, "phi=1", Zd(0.75, -0.5), Zd(0.25, 2),
                                 ComplexMethod::three_m, {}, &kernels);
    EXPECT_EQ(kernels.find("3M") != std::string::npos, three_m) << kernels;
    expect_bit_identical<float>("int8-crt", Target::fp32, s, "uniform(-1,1)", Zf(1), Zf(0), ComplexMethod::three_m,
                                {}, &kernels);
    EXPECT_EQ(kernels.find("3M") != std::string::npos, three_m) << kernels;
  }
  // The worst ratio of the chosen N, printed to three digits by both backends.
  const Case& s = kCases[3];
  DualMatrix<Zd> A(s.k, s.m, s.la), B(s.n, s.k, s.lb), C(s.m, s.n, s.lc);
  fill_random(real_view(A.host()), Distribution::parse("phi=1"), 3);
  fill_random(imag_view(A.host()), Distribution::parse("phi=1"), 4);
  fill_random(real_view(B.host()), Distribution::parse("phi=1"), 5);
  fill_random(imag_view(B.host()), Distribution::parse("phi=1"), 6);
  A.upload();
  B.upload();
  GemmOptions o;
  o.scheme = parse_scheme("int8-crt", Target::fp64);
  GemmReport rd = cuda::complex_gemm_device<double>(s.opA, s.opB, Zd(1), A.dev().as_const(), B.dev().as_const(), Zd(0),
                                                    C.dev(), o, nullptr, nullptr, ComplexMethod::three_m);
  GemmReport rh = complex_gemm_host<double>(s.opA, s.opB, Zd(1), A.host().as_const(), B.host().as_const(), Zd(0),
                                            C.host(), o);
  EXPECT_EQ(rd.kernels.find("3M") != std::string::npos, three_m) << rd.kernels;
  if (three_m) EXPECT_NE(rd.certificate.find("real embedding"), std::string::npos) << rd.certificate;
  EXPECT_FALSE(bound_of(rh).empty()) << rh.certificate;
  EXPECT_EQ(bound_of(rd), bound_of(rh)) << "GPU: " << rd.certificate << "\nhost: " << rh.certificate;
  // Im = 2^-20 Re in A and B (so Im C is 2^-20 of the lines' norms): no N <= 20 certified; both fall
  // back saying so.
  for (DualMatrix<Zd>* X : {&A, &B}) {
    for (auto& v : X->h) v = Zd(v.real(), v.real() * 0x1p-20);
    X->upload();
  }
  rd = cuda::complex_gemm_device<double>(s.opA, s.opB, Zd(1), A.dev().as_const(), B.dev().as_const(), Zd(0), C.dev(),
                                         o, nullptr, nullptr, ComplexMethod::three_m);
  rh = complex_gemm_host<double>(s.opA, s.opB, Zd(1), A.host().as_const(), B.host().as_const(), Zd(0), C.host(), o);
  EXPECT_TRUE(rh.fell_back) << rh.certificate;
  EXPECT_TRUE(rd.fell_back) << rd.certificate;
  EXPECT_NE(rd.note.find("moduli"), std::string::npos) << rd.note;
  EXPECT_NE(rh.note.find("moduli"), std::string::npos) << rh.note;
}

TEST(CudaCrtComplex, DoubleMatchesTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  all_cases<double>("int8-crt", Target::fp64, "phi=1");
  all_cases<double>("int8-crt:14", Target::fp64, "uniform(-1,1)");
}

TEST(CudaCrtComplex, FloatMatchesTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  all_cases<float>("int8-crt", Target::fp32, "phi=0.5");
  all_cases<float>("int8-crt:6", Target::fp32, "uniform(-1,1)");
}

}  // namespace tcemu::test
#endif
