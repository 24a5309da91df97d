// hplai logic: the HPL-MxP generator, the blocked LU without pivoting (factor accuracy per scheme,
// singular pivots), GMRES / IR refinement to the benchmark criterion with every scheme.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "hplai/factor.hpp"
#include "hplai/lu.hpp"
#include "hplai/problem.hpp"
#include "hplai/refine.hpp"
#include "hplai/run.hpp"
#include "hplai/session.hpp"
#include "app_common/device.hpp"
#include "tcemu/scheme.hpp"

using namespace hplai;

namespace {

/// Factors sys.A rounded to T with `scheme` and block size nb; returns the factors.
template <class T>
std::vector<T> factor(const System& sys, const std::string& scheme, std::int64_t nb, LuStats* stats = nullptr,
                      bool scale = true, tcemu::Target target = tcemu::Target::fp32) {
  std::vector<T> lu(sys.A.begin(), sys.A.end());
  LuOptions o;
  o.nb = nb;
  o.gemm.scheme = tcemu::parse_scheme(scheme, target);
  o.scale_operands = scale;
  const LuStats st = lu_factor<T>(lu.data(), sys.n, sys.n, o);
  if (stats) *stats = st;
  return lu;
}

RunOptions options(Solver solver, std::int64_t nb) {
  RunOptions o;
  o.nb = nb;
  o.refine.solver = solver;
  return o;
}

/// A = L U with integer L (unit lower) and U (upper, unit diagonal except u_jj = 0 at `zero_col`),
/// entries in {-1, 0, 1}: elimination without pivoting reproduces L and U exactly in FP32, so the
/// pivot at zero_col is exactly 0.
System singular_at(std::int64_t n, std::int64_t zero_col) {
  std::vector<double> L(n * n, 0.0), U(n * n, 0.0);
  unsigned state = 12345;
  auto tri = [&] { state = state * 1103515245u + 12345u; return static_cast<double>((state >> 16) % 3) - 1.0; };
  for (std::int64_t i = 0; i < n; ++i) {
    L[i * n + i] = 1.0;
    U[i * n + i] = i == zero_col ? 0.0 : 1.0;
    for (std::int64_t j = 0; j < i; ++j) L[i * n + j] = tri();
    for (std::int64_t j = i + 1; j < n; ++j) U[i * n + j] = tri();
  }
  System sys;
  sys.n = n;
  sys.A.assign(n * n, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k <= i; ++k)
      for (std::int64_t j = k; j < n; ++j) sys.A[i * n + j] += L[i * n + k] * U[k * n + j];
  sys.b.assign(n, 1.0);
  sys.source = "singular_at";
  return sys;
}

}  // namespace

// ------------------------------------------------------------------------------------ generator

TEST(HplaiGenerator, DeterministicForASeedAndDifferentAcrossSeeds) {
  const System a = generate_system(97, 5), b = generate_system(97, 5), c = generate_system(97, 6);
  EXPECT_EQ(a.A, b.A);
  EXPECT_EQ(a.b, b.b);
  EXPECT_NE(a.A, c.A);
  EXPECT_NE(a.b, c.b);
}

TEST(HplaiGenerator, ReferenceStreamsAndDiagonalRule) {
  const std::int64_t n = 64;
  const System s = generate_system(n, 1);
  // Column-major draw order from the LCG seeded with 1, b from the one seeded with 2 (hpl-ai matgen.c).
  Lcg ga(1), gb(2);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      const double v = ga.next();
      if (i != j) ASSERT_EQ(s.A[i * n + j], v) << i << "," << j;
      ASSERT_GE(v, -0.5);
      ASSERT_LE(v, 0.5);
    }
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(s.b[i], gb.next());
  // First draw by hand: (6364136223846793005 * 1 + 1) * 2^-64 - 0.5.
  Lcg first(1);
  EXPECT_EQ(first.next(), static_cast<double>(6364136223846793006ULL) * 0x1p-64 - 0.5);
  for (std::int64_t i = 0; i < n; ++i) {
    double off = 0;
    for (std::int64_t j = 0; j < n; ++j)
      if (j != i) off += std::fabs(s.A[i * n + j]);
    EXPECT_NEAR(s.A[i * n + i], off, 1e-12 * off) << "row " << i;
  }
}

TEST(HplaiGenerator, AdvanceMatchesStepping) {
  for (std::uint64_t steps : {0ull, 1ull, 2ull, 7ull, 1000ull, 123457ull}) {
    Lcg a(42), b(42);
    for (std::uint64_t i = 0; i < steps; ++i) a.next();
    b.advance(steps);
    EXPECT_EQ(a.state(), b.state()) << steps;
  }
}

TEST(HplaiGenerator, RejectsNonPositiveOrder) {
  EXPECT_THROW(generate_system(0, 1), tcemu::InvalidArgument);
  EXPECT_THROW(generate_system(-4, 1), tcemu::InvalidArgument);
}

// ---------------------------------------------------------------------------------- factorisation

// ||A - LU||_F / ||A||_F for FP32 storage. Rounding A to FP32 alone costs up to u = 2^-24 per entry;
// the elimination adds, per entry, at most gamma_k |L||U| with k <= n and, for this diagonally dominant
// matrix, |L||U| of the order of |A| (growth <= 2). Errors behave like a random walk, so the observed
// value is a few u, far below the worst-case n u; we require < 8 u (a wrong update, a missing panel
// solve or a skipped block gives O(1)).
TEST(HplaiLu, Fp32FactorsReproduceAWithinWorkingPrecision) {
  const double u = 0x1p-24;
  for (auto [n, nb] : std::vector<std::pair<int, int>>{{64, 16}, {100, 48}, {257, 64}, {300, 300}, {130, 1}, {77, 500}}) {
    const System sys = generate_system(n, 3);
    const auto lu = factor<float>(sys, "fp32", nb);
    const double err = factor_error<float>(sys.A.data(), lu.data(), n);
    EXPECT_LT(err, 8 * u) << "n " << n << " nb " << nb;
    EXPECT_GT(err, 0.0);
  }
}

// Every FP32-accurate emulation meets the same bound as native FP32 (22+ bits per part product).
TEST(HplaiLu, Fp32AccurateEmulationsMatchNativeBound) {
  const System sys = generate_system(200, 4);
  for (const char* s : {"fp16x2", "tf32x2", "bf16x3", "bf16x9", "int8-ozaki"}) {
    const auto lu = factor<float>(sys, s, 48);
    EXPECT_LT(factor_error<float>(sys.A.data(), lu.data(), sys.n), 8 * 0x1p-24) << s;
  }
}

// One-pass schemes round the update operands to 8 (bf16) or 11 (fp16, tf32) significant bits: the
// factors are visibly worse than FP32's (bound u_p times a small constant, u_bf16 = 2^-8,
// u_fp16 = u_tf32 = 2^-11), yet (next tests) the refined solution still passes.
TEST(HplaiLu, OnePassFactorsAreLessAccurate) {
  const System sys = generate_system(256, 5);
  const double e32 = factor_error<float>(sys.A.data(), factor<float>(sys, "fp32", 32).data(), sys.n);
  const double ebf = factor_error<float>(sys.A.data(), factor<float>(sys, "bf16", 32).data(), sys.n);
  const double e16 = factor_error<float>(sys.A.data(), factor<float>(sys, "fp16", 32).data(), sys.n);
  EXPECT_GT(ebf, 20 * e32);
  EXPECT_LT(ebf, 0x1p-8);
  EXPECT_GT(e16, 4 * e32);
  EXPECT_LT(e16, 0x1p-11);
  EXPECT_GT(ebf, e16);
}

TEST(HplaiLu, Fp64StorageWithOzakiReachesFp64Accuracy) {
  const System sys = generate_system(160, 6);
  const auto lu = factor<double>(sys, "int8-ozaki", 40, nullptr, true, tcemu::Target::fp64);
  EXPECT_LT(factor_error<double>(sys.A.data(), lu.data(), sys.n), 8 * 0x1p-53);
}

TEST(HplaiLu, ZeroPivotIsReportedWithItsColumn) {
  for (std::int64_t col : {0, 37, 63}) {
    const System sys = singular_at(64, col);
    std::vector<float> lu(sys.A.begin(), sys.A.end());
    LuOptions o;
    o.nb = 16;
    o.gemm.scheme = tcemu::parse_scheme("fp32");
    try {
      lu_factor<float>(lu.data(), 64, 64, o);
      ADD_FAILURE() << "no error for a zero pivot at column " << col;
    } catch (const SingularPivot& e) {
      EXPECT_EQ(e.column(), col);
      EXPECT_NE(std::string(e.what()).find("singular pivot at column " + std::to_string(col)), std::string::npos)
          << e.what();
    }
  }
}

TEST(HplaiLu, NonFinitePivotIsReported) {
  System sys = generate_system(20, 1);
  sys.A[3 * 20 + 3] = std::numeric_limits<double>::infinity();
  std::vector<float> lu(sys.A.begin(), sys.A.end());
  LuOptions o;
  o.nb = 8;
  o.gemm.scheme = tcemu::parse_scheme("fp32");
  EXPECT_THROW(lu_factor<float>(lu.data(), 20, 20, o), SingularPivot);
}

TEST(HplaiLu, RejectsBadBlockSize) {
  std::vector<float> a(16, 1.0f);
  LuOptions o;
  o.nb = 0;
  o.gemm.scheme = tcemu::parse_scheme("fp32");
  EXPECT_THROW(lu_factor<float>(a.data(), 4, 4, o), tcemu::InvalidArgument);
}

// The multipliers of L21 are about |a_ij| / a_jj: with a heavy diagonal they fall below FP16's
// normal range (2^-14), the range check sends fp16 updates to native FP32; scaling L21 by a power of
// two into [1, 2) keeps them in range, and the factors are the same up to fp16 rounding.
TEST(HplaiLu, OperandScalingKeepsFp16InRange) {
  System sys = generate_system(128, 7);
  for (std::int64_t i = 0; i < sys.n; ++i) sys.A[i * sys.n + i] *= 1e4;
  LuStats plain, scaled;
  factor<float>(sys, "fp16", 32, &plain, false);
  const auto lu = factor<float>(sys, "fp16", 32, &scaled, true);
  EXPECT_EQ(plain.updates, 3);
  EXPECT_EQ(plain.gemm.fallbacks, plain.updates) << plain.gemm.first_note;
  EXPECT_NE(plain.gemm.first_note.find("below the full-precision range"), std::string::npos) << plain.gemm.first_note;
  EXPECT_EQ(scaled.gemm.fallbacks, 0) << scaled.gemm.first_note;
  EXPECT_EQ(scaled.gemm.used_names(), "fp16");
  EXPECT_LT(factor_error<float>(sys.A.data(), lu.data(), sys.n), 0x1p-11);
}

// The factorisation skips the operand scaling for the schemes wants_scaling<T> leaves out, on the
// claim that a power-of-two scaling of both operands, undone in alpha, cannot change a bit of their
// update. Checked for every such catalogue scheme on LU-like operands (multipliers around 2^-12).
TEST(HplaiLu, SkippedScalingCannotChangeTheUpdate) {
  const std::int64_t m = 96, n = 80, k = 64;
  std::vector<float> A(m * k), B(k * n), As(m * k), Bs(k * n), C0(m * n);
  unsigned state = 99;
  auto uniform = [&] { state = state * 1664525u + 1013904223u; return static_cast<float>(state >> 8) * 0x1p-24f - 0.5f; };
  for (auto& v : A) v = uniform() * 0x1p-11f;
  for (auto& v : B) v = uniform() * 0x1p-3f;
  for (auto& v : C0) v = uniform();
  const int sl = operand_scale(0x1p-12), su = operand_scale(0x1p-4);
  ASSERT_EQ(sl, 12);
  for (std::size_t i = 0; i < A.size(); ++i) As[i] = std::ldexp(A[i], sl);
  for (std::size_t i = 0; i < B.size(); ++i) Bs[i] = std::ldexp(B[i], su);
  int checked = 0;
  for (const tcemu::Scheme& s : tcemu::catalogue(tcemu::Target::fp32)) {
    if (s.is_native() || wants_scaling<float>(s)) continue;
    SCOPED_TRACE(s.name);
    tcemu::GemmOptions o;
    o.scheme = s;
    std::vector<float> plain = C0, scaled = C0;
    const tcemu::GemmReport p = tcemu::gemm_host<float>(tcemu::Op::N, tcemu::Op::N, -1.0f, {A.data(), m, k, k, 1},
                                                        {B.data(), k, n, n, 1}, 1.0f, {plain.data(), m, n, n, 1}, o);
    const tcemu::GemmReport q = tcemu::gemm_host<float>(tcemu::Op::N, tcemu::Op::N, -std::ldexp(1.0f, -(sl + su)),
                                                        {As.data(), m, k, k, 1}, {Bs.data(), k, n, n, 1}, 1.0f,
                                                        {scaled.data(), m, n, n, 1}, o);
    // Both calls ran the scheme itself (a fallback to native FP32 in both would also agree).
    EXPECT_FALSE(p.fell_back) << p.note;
    EXPECT_FALSE(q.fell_back) << q.note;
    EXPECT_EQ(p.used.kind, s.kind);
    EXPECT_EQ(plain, scaled);
    EXPECT_NE(plain, C0);
    ++checked;
  }
  EXPECT_EQ(checked, 6);  // int8-ozaki, bf16, tf32, fp16x2-aligned, int8-crt, int8-mixpert
  EXPECT_TRUE(wants_scaling<float>(tcemu::parse_scheme("fp16x2")));
  EXPECT_TRUE(wants_scaling<float>(tcemu::parse_scheme("auto")));
  EXPECT_FALSE(wants_scaling<float>(tcemu::parse_scheme("bf16")));
}

// -------------------------------------------------------------------------------------- refinement

TEST(HplaiRefine, ArnoldiLeastSquaresMatchesNormalEquations) {
  // H (3 x 2) = [[2, 1], [1, 3], [0, 1]], beta = 5: min ||beta e1 - H y||.
  ArnoldiLsq lsq(2);
  lsq.reset(5.0);
  const double h0[] = {2, 1}, h1[] = {1, 3, 1};
  lsq.add_column(h0);
  const double res = lsq.add_column(h1);
  const auto y = lsq.solve();
  // Normal equations H^T H y = H^T (5, 0, 0): [[5, 5], [5, 11]] y = [10, 5].
  EXPECT_NEAR(5 * y[0] + 5 * y[1], 10, 1e-12);
  EXPECT_NEAR(5 * y[0] + 11 * y[1], 5, 1e-12);
  const double r0 = 5 - (2 * y[0] + y[1]), r1 = -(y[0] + 3 * y[1]), r2 = -y[1];
  EXPECT_NEAR(res, std::sqrt(r0 * r0 + r1 * r1 + r2 * r2), 1e-12);
}

// With the identity as preconditioner, GMRES still converges (Krylov space of A, restart >= n
// steps reach the exact solution), while IR x += (b - A x) diverges: ||I - A|| >> 1.
TEST(HplaiRefine, GmresConvergesWithoutPreconditionerIrDivergesAndReportsIt) {
  const System sys = generate_system(40, 8);
  const double a_inf = norm_inf(sys);
  RefineOptions o;
  o.max_iter = 60;
  o.restart = 60;
  const auto g = refine(sys, a_inf, [](double*) {}, o);
  EXPECT_TRUE(g.converged) << g.failure;
  EXPECT_LT(g.scaled_residual, kPassThreshold);
  EXPECT_LE(g.iterations, 40);
  o.solver = Solver::ir;
  o.max_iter = 10;
  const auto ir = refine(sys, a_inf, [](double*) {}, o);
  EXPECT_FALSE(ir.converged);
  EXPECT_NE(ir.failure.find("ir: "), std::string::npos) << ir.failure;
  EXPECT_TRUE(ir.failure.find("cap --max-iter 10") != std::string::npos ||
              ir.failure.find("diverged") != std::string::npos)
      << ir.failure;
}

TEST(HplaiRefine, IterationCapIsAFailureWithAClearReport) {
  const System sys = generate_system(60, 9);
  RefineOptions o;
  o.max_iter = 3;
  o.restart = 2;
  const auto g = refine(sys, norm_inf(sys), [](double*) {}, o);
  EXPECT_FALSE(g.converged);
  EXPECT_EQ(g.iterations, 3);
  EXPECT_EQ(g.restarts, 1);
  EXPECT_NE(g.failure.find("gmres: scaled residual"), std::string::npos) << g.failure;
  EXPECT_NE(g.failure.find("cap --max-iter 3"), std::string::npos) << g.failure;
}

// Every catalogue scheme, both solvers, several n and nb (nb not dividing n): PASS.
TEST(HplaiSolve, EverySchemePassesWithGmresAndIr) {
  for (auto [n, nb] : std::vector<std::pair<int, int>>{{64, 16}, {150, 40}, {300, 64}}) {
    const System sys = generate_system(n, 11);
    const double a_inf = norm_inf(sys);
    for (Solver solver : {Solver::gmres, Solver::ir}) {
      for (tcemu::Target t : {tcemu::Target::fp32, tcemu::Target::fp64}) {
        for (const auto& s : tcemu::catalogue(t)) {
          if (s.kind == tcemu::SchemeKind::fp64) continue;
          if (t == tcemu::Target::fp64 && s.target != tcemu::Target::fp64) continue;  // seen with fp32
          SCOPED_TRACE(s.name + " " + tcemu::to_string(t) + " " + to_string(solver) + " n " + std::to_string(n));
          const auto r = run_scheme_host(sys, a_inf, s, options(solver, nb));
          EXPECT_TRUE(r.pass) << r.scaled_residual << " " << r.note;
          EXPECT_LT(r.scaled_residual, kPassThreshold);
          EXPECT_EQ(r.fallbacks, 0) << r.note;
          EXPECT_EQ(r.storage, s.target == tcemu::Target::fp64 ? "fp64" : "fp32");
          EXPECT_EQ(static_cast<std::int64_t>(r.x.size()), sys.n);
          // Recompute the check independently of refine().
          EXPECT_NEAR(scaled_residual(sys, a_inf, r.x), r.scaled_residual, 1e-9 + 1e-9 * r.scaled_residual);
          if (s.target == tcemu::Target::fp32) {
            EXPECT_GT(r.initial_scaled_residual, kPassThreshold) << "FP32 factors alone should not pass";
            EXPECT_GE(r.iterations, 1);
          }
        }
      }
    }
  }
}

TEST(HplaiSolve, Bf16FactorsNeedMoreRefinementButPass) {
  const System sys = generate_system(300, 12);
  const double a_inf = norm_inf(sys);
  for (Solver solver : {Solver::gmres, Solver::ir}) {
    const auto f32 = run_scheme_host(sys, a_inf, tcemu::parse_scheme("fp32"), options(solver, 64));
    const auto b16 = run_scheme_host(sys, a_inf, tcemu::parse_scheme("bf16"), options(solver, 64));
    EXPECT_TRUE(b16.pass) << b16.scaled_residual;
    EXPECT_GT(b16.initial_scaled_residual, 5 * f32.initial_scaled_residual);
    EXPECT_GE(b16.iterations, f32.iterations);
  }
}

TEST(HplaiSolve, RunReportsBaselineFirstAndRates) {
  const System sys = generate_system(120, 13);
  RunOptions o = options(Solver::gmres, 32);
  o.schemes = tcemu::parse_scheme_list("fp32,fp64,bf16,fp32", tcemu::Target::fp32);
  const RunResult r = run(sys, o);
  ASSERT_EQ(r.rows.size(), 3u);  // fp64 baseline + fp32 + bf16 (duplicates and fp64 once)
  EXPECT_EQ(r.rows[0].scheme, "fp64");
  EXPECT_TRUE(r.rows[0].baseline);
  EXPECT_EQ(r.rows[0].iterations, 0);
  EXPECT_LT(r.rows[0].scaled_residual, 1.0);
  EXPECT_EQ(r.rows[1].scheme, "fp32");
  EXPECT_EQ(r.rows[2].scheme, "bf16");
  EXPECT_TRUE(r.all_pass());
  for (const auto& row : r.rows) {
    EXPECT_NEAR(row.total_seconds, row.factor_seconds + row.refine_seconds, 1e-12);
    EXPECT_NEAR(row.gflops, hpl_flops(120) / row.total_seconds * 1e-9, 1e-9 * row.gflops);
  }
  EXPECT_DOUBLE_EQ(r.rows[0].speedup, 1.0);
  EXPECT_DOUBLE_EQ(hpl_flops(3), 2.0 / 3.0 * 27 + 1.5 * 9);
}

// A nonsingular matrix whose leading 21 x 21 block is singular: partial pivoting (the baseline)
// solves it, LU without pivoting meets u_20,20 = 0 and must say so instead of solving.
TEST(HplaiSolve, SingularPivotAbortsTheRunNamingSchemeAndColumn) {
  System sys = singular_at(48, 20);
  sys.A[47 * 48 + 20] += 1.0;  // outside the leading 21 x 21 block: the zero pivot stays
  EXPECT_NO_THROW(run_baseline_host(sys, norm_inf(sys)));
  RunOptions o = options(Solver::gmres, 16);
  o.schemes = {tcemu::parse_scheme("fp32")};
  try {
    run(sys, o);
    FAIL() << "no error";
  } catch (const tcemu::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("fp32: singular pivot at column 20"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------------------ one source, two spaces

// The run is one source (session.hpp) on host Views and CUDA Views: both solutions pass the check,
// agree with each other to the accuracy the check certifies, and each space repeats itself bit for
// bit. The factorisations differ in rounding (CBLAS / cuSOLVER panels, host / GPU GEMM backends),
// so the initial residuals agree only in magnitude.
TEST(HplaiSession, HostAndCudaViewsGiveTheSameSolution) {
  if (!cuda_path_built()) GTEST_SKIP() << "no GPU path in this build (tcemu's CUDA backend and a CUDA-enabled Kokkos)";
  if (!tcemu::app::gpu_available()) GTEST_SKIP() << "no CUDA device";
#if defined(HPLAI_HAVE_CUDA_KOKKOS)
  const System sys = generate_system(300, 14);
  const double a_inf = norm_inf(sys);
  Session<Kokkos::DefaultHostExecutionSpace> host(sys);
  Session<Kokkos::Cuda> gpu(sys);
  auto x_inf = [](const std::vector<double>& x) {
    double m = 0;
    for (double v : x) m = std::max(m, std::fabs(v));
    return m;
  };
  auto expect_close = [&](const SchemeResult& h, const SchemeResult& g) {
    EXPECT_TRUE(h.pass) << h.scaled_residual << " " << h.note;
    EXPECT_TRUE(g.pass) << g.scaled_residual << " " << g.note;
    EXPECT_EQ(h.storage, g.storage);
    ASSERT_EQ(g.x.size(), h.x.size());
    // The GPU's check, recomputed on the host: b - A x summed in another order (cuBLAS against
    // CBLAS dgemv) moves ||r||_inf by a few ulps of b, i.e. by about 1e-3 in scaled-residual units
    // here (n eps (||A|| ||x|| + ||b||) is the unit); a check on the wrong x would be off by orders.
    EXPECT_NEAR(scaled_residual(sys, a_inf, g.x), g.scaled_residual, 0.05 + 0.01 * g.scaled_residual);
    // Both residuals are below 16 n eps (||A|| ||x|| + ||b||); this diagonally dominant A has a
    // condition number of a few, so the solutions differ by at most a few 16 n eps relative.
    double diff = 0;
    for (std::size_t i = 0; i < h.x.size(); ++i) diff = std::max(diff, std::fabs(h.x[i] - g.x[i]));
    EXPECT_LT(diff, 64.0 * 16 * 300 * kEps64 * x_inf(h.x));
  };
  expect_close(host.run_baseline(a_inf), gpu.run_baseline(a_inf));
  for (const char* name : {"fp32", "bf16", "fp16x2"}) {
    SCOPED_TRACE(name);
    const tcemu::Scheme s = tcemu::parse_scheme(name);
    const RunOptions o = options(Solver::gmres, 64);
    const SchemeResult h = host.run_scheme(a_inf, s, o), g = gpu.run_scheme(a_inf, s, o);
    expect_close(h, g);
    EXPECT_EQ(g.fallbacks, 0) << g.note;
    EXPECT_LT(g.initial_scaled_residual, 10 * h.initial_scaled_residual);
    EXPECT_GT(g.initial_scaled_residual, 0.1 * h.initial_scaled_residual);
    // Reproducible on each space: the same inputs give the same bits.
    EXPECT_EQ(host.run_scheme(a_inf, s, o).x, h.x);
    EXPECT_EQ(gpu.run_scheme(a_inf, s, o).x, g.x);
  }
  // FP64 storage with the emulated FP64 updates.
  const tcemu::Scheme ozaki = tcemu::parse_scheme("int8-ozaki", tcemu::Target::fp64);
  expect_close(host.run_scheme(a_inf, ozaki, options(Solver::ir, 64)), gpu.run_scheme(a_inf, ozaki, options(Solver::ir, 64)));
#endif
}

// The GPU's maxima and scalings (work items of four elements, 1,024-element chunks of a column,
// kernels.hpp) against
// plain loops, on column-major sub-views of the factors whose columns are shorter and longer than a
// chunk and not multiples of it; entries outside the sub-view stay untouched.
TEST(HplaiKernels, GpuMaximaAndScalingsMatchPlainLoops) {
  if (!cuda_path_built()) GTEST_SKIP() << "no GPU path in this build (tcemu's CUDA backend and a CUDA-enabled Kokkos)";
  if (!tcemu::app::gpu_available()) GTEST_SKIP() << "no CUDA device";
#if defined(HPLAI_HAVE_CUDA_KOKKOS)
  const std::int64_t n = 2600;
  Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::CudaSpace> lu("lu", n, n);
  auto host = Kokkos::create_mirror_view(lu);
  unsigned state = 7;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      state = state * 1664525u + 1013904223u;
      host(i, j) = (static_cast<float>(state >> 8) * 0x1p-24f - 0.5f) * 0x1p-6f;
    }
  const Kokkos::Cuda space;
  struct Block { std::int64_t r0, r1, c0, c1; };
  for (const Block b : {Block{5, 6, 7, 8}, Block{1000, 2600, 11, 1035}, Block{3, 1027, 1030, 2600},
                        Block{17, 2077, 2100, 2103}}) {
    SCOPED_TRACE(std::to_string(b.r1 - b.r0) + " x " + std::to_string(b.c1 - b.c0));
    host(b.r1 - 1, b.c0) = -0.75f;  // the largest magnitude, at the last row of the first column
    Kokkos::deep_copy(lu, host);
    const auto X = Kokkos::subview(lu, std::make_pair(b.r0, b.r1), std::make_pair(b.c0, b.c1));
    double expect = 0;
    for (std::int64_t j = b.c0; j < b.c1; ++j)
      for (std::int64_t i = b.r0; i < b.r1; ++i) expect = std::max(expect, std::fabs(static_cast<double>(host(i, j))));
    EXPECT_EQ(kernels::absmax(space, X), expect);
    kernels::scale(space, X, 8.0f);
    space.fence();
    auto after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lu);
    std::int64_t wrong = 0;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        const bool inside = i >= b.r0 && i < b.r1 && j >= b.c0 && j < b.c1;
        wrong += after(i, j) != (inside ? 8.0f * host(i, j) : host(i, j));
      }
    EXPECT_EQ(wrong, 0);
    host(b.r1 - 1, b.c0) = 0.0f;
  }
#endif
}

// Host runs repeat bit for bit (the refinement's reductions are deterministic), through run() too.
TEST(HplaiSession, HostRunsRepeatBitForBit) {
  const System sys = generate_system(200, 15);
  RunOptions o = options(Solver::gmres, 48);
  o.schemes = tcemu::parse_scheme_list("bf16,fp16x2", tcemu::Target::fp32);
  const RunResult a = run(sys, o), b = run(sys, o);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(a.rows[i].x, b.rows[i].x) << a.rows[i].scheme;
    EXPECT_EQ(a.rows[i].history, b.rows[i].history) << a.rows[i].scheme;
    EXPECT_EQ(a.rows[i].iterations, b.rows[i].iterations) << a.rows[i].scheme;
  }
}
