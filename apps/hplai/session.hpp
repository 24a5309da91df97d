#pragma once
/// \file session.hpp
/// One hplai run, written once for every Kokkos execution space: `Session<Kokkos::DefaultHostExecutionSpace>`
/// on the host, `Session<Kokkos::Cuda>` on the GPU (HPLAI_HAVE_CUDA_KOKKOS, dense.hpp).
///
/// Data, all Kokkos Views in the space's memory: A (FP64, row-major as the host holds it; on the host
/// the View is the System's own array, on the GPU a copy), b, the factors per working precision
/// (lu32 / lu64, the layout of DenseSolvers<Space>), the refinement's FP64 vectors. Per scheme:
///  1. convert A to the working precision T (kernels::convert; a tiled transpose for the GPU's
///     column-major factors);
///  2. factor_blocked (factor.hpp): panels and block-row solves by DenseSolvers, trailing updates by
///     tcemu::gemm(space, ...) on sub-views, in column chunks of kUpdateChunk on the GPU;
///  3. refine in FP64 (refine_impl.hpp over ViewOps, vector_ops.hpp): the preconditioner M^-1 v is
///     DenseSolvers::apply_inverse on the factors (FP32 factors: v rounded to FP32 for the two
///     solves, kernels::scale_into).
/// The FP64 baseline: DenseSolvers::baseline (dgetrf + dgetrs; cusolverDnXgetrf + getrs). The host
/// factors a copy of A (the copy is timed, as part of the factorisation); the GPU factors its A in
/// place and uploads it again from the host before the next row (not timed).
/// Times are wall clock around phases that end with the space fenced (no host/device copies inside).
#include <Kokkos_Core.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "app_common/timing.hpp"
#include "dense.hpp"
#include "factor.hpp"
#include "kernels.hpp"
#include "lu.hpp"
#include "problem.hpp"
#include "refine_impl.hpp"
#include "run.hpp"
#include "tcemu/error.hpp"
#include "tcemu/resources.hpp"
#include "vector_ops.hpp"

namespace hplai {

template <class Space>
class Session {
 public:
  using Memory = typename Space::memory_space;
  using Layout = typename DenseSolvers<Space>::Layout;
  using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, Memory>;
  using Vector = Kokkos::View<double*, Memory>;
  template <class T>
  using Factors = Kokkos::View<T**, Layout, Memory>;
  static constexpr bool kHostMemory = std::is_same_v<Memory, Kokkos::HostSpace>;

  /// Brings A and b into the space's memory (on the GPU 8 n^2 bytes, plus the factors of each run:
  /// 4 n^2 for FP32 storage, 8 n^2 for FP64). `sys` must outlive the session. Throws what Kokkos and
  /// the solvers throw (e.g. DeviceError, or Kokkos' allocation error when memory runs out).
  explicit Session(const System& sys, const Space& space = Space())
      : sys_(sys), n_(sys.n), space_(space), solvers_(space) {
    // const_cast: on the host A_ aliases sys.A and is never written (the baseline factors a copy).
    host_A_ = HostMatrix(const_cast<double*>(sys.A.data()), n_, n_);
    A_ = Kokkos::create_mirror_view_and_copy(Memory(), host_A_);
    b_ = Kokkos::create_mirror_view_and_copy(
        Memory(), Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(const_cast<double*>(sys.b.data()), n_));
    a_max_ = kernels::absmax(space_, A_);
    for (double v : sys.b) b_inf_ = std::max(b_inf_, std::fabs(v));
  }

  /// The FP64 baseline row (LU with partial pivoting + the two solves). a_inf = ||A||_inf.
  SchemeResult run_baseline(double a_inf) {
    using tcemu::app::Clock;
    using tcemu::app::seconds_since;
    restore_a();
    SchemeResult r;
    r.scheme = "fp64";
    r.used = DenseSolvers<Space>::baseline_name();
    r.storage = "fp64";
    r.baseline = true;
    const Vector x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::x"), n_);
    Kokkos::deep_copy(space_, x, b_);
    space_.fence();
    const auto t0 = Clock::now();
    Matrix work = A_;
    if constexpr (kHostMemory) {  // A_ is sys.A: factor a copy
      work = Matrix(Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::baseline"), n_, n_);
      Kokkos::deep_copy(space_, work, A_);
      space_.fence();
    } else {
      a_valid_ = false;  // factored in place
    }
    const double copy_seconds = seconds_since(t0);
    const BaselineTimes t = solvers_.baseline(work.data(), n_, x.data());
    r.factor_seconds = copy_seconds + t.factor;
    r.refine_seconds = t.solve;
    r.x = to_host(x);
    r.scaled_residual = r.initial_scaled_residual = scaled_residual(sys_, a_inf, r.x);
    r.history = {r.scaled_residual};
    finish(r);
    return r;
  }

  /// One scheme (not "fp64"): factor, refine, check. Throws tcemu::InvalidArgument
  /// "<scheme>: singular pivot at column j: ..." for a pivot LU without pivoting cannot use.
  SchemeResult run_scheme(double a_inf, const tcemu::Scheme& scheme, const RunOptions& options) {
    if (scheme.kind == tcemu::SchemeKind::fp64)
      throw tcemu::InvalidArgument("run_scheme: fp64 is the baseline (run_baseline)");
    return scheme.target == tcemu::Target::fp64 ? run_in<double>(a_inf, scheme, options, lu64_)
                                                : run_in<float>(a_inf, scheme, options, lu32_);
  }

 private:
  using HostMatrix = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

  void restore_a() {
    if (a_valid_) return;
    Kokkos::deep_copy(space_, A_, host_A_);
    space_.fence();
    a_valid_ = true;
  }

  std::vector<double> to_host(const Vector& v) {
    std::vector<double> h(static_cast<std::size_t>(n_));
    Kokkos::deep_copy(space_, Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h.data(), n_), v);
    space_.fence();
    return h;
  }

  void finish(SchemeResult& r) const {
    r.total_seconds = r.factor_seconds + r.refine_seconds;
    r.gflops = r.total_seconds > 0 ? hpl_flops(n_) / r.total_seconds * 1e-9 : 0;
    r.pass = r.scaled_residual < kPassThreshold;
  }

  template <class T>
  SchemeResult run_in(double a_inf, const tcemu::Scheme& scheme, const RunOptions& options, Factors<T>& lu) {
    using tcemu::app::Clock;
    using tcemu::app::seconds_since;
    restore_a();
    if (static_cast<std::int64_t>(lu.extent(0)) != n_)
      lu = Factors<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::lu"), n_, n_);
    SchemeResult r;
    r.scheme = scheme.name;
    r.storage = std::is_same_v<T, float> ? "fp32" : "fp64";
    const LuOptions lo = lu_options(scheme, options, n_);
    space_.fence();

    const auto t0 = Clock::now();
    kernels::convert(space_, A_, lu);  // round A to the working precision
    const double tiny = std::numeric_limits<T>::epsilon() / 2 * a_max_;
    LuStats st;
    try {
      st = factor_blocked(space_, solvers_, lu, lo, &resources_, tiny);
    } catch (const SingularPivot& e) {
      throw tcemu::InvalidArgument(scheme.name + ": " + e.what());
    }
    r.factor_seconds = seconds_since(t0);
    record_factorisation(r, st, scheme.name);

    const std::int64_t n = n_, ld = static_cast<std::int64_t>(std::max(lu.stride(0), lu.stride(1)));
    DenseSolvers<Space>& solvers = solvers_;
    const Factors<T> factors = lu;
    Kokkos::View<float*, Memory> rounded;
    if constexpr (std::is_same_v<T, float>) rounded = Kokkos::View<float*, Memory>("hplai::v32", n);
    const Space space = space_;
    space_.fence();
    const auto t1 = Clock::now();
    auto precond = [&solvers, factors, rounded, n, ld, space](Vector& v) {
      if constexpr (std::is_same_v<T, float>) {  // FP32 factors: solve on v rounded to FP32
        kernels::scale_into(space, 1.0, v, rounded);
        solvers.apply_inverse(factors.data(), n, ld, rounded.data());
        kernels::scale_into(space, 1.0, rounded, v);
      } else {
        solvers.apply_inverse(factors.data(), n, ld, v.data());
      }
    };
    auto ops = make_view_ops(space_, solvers_, A_, b_, precond);
    const RefineResult rr = detail::refine_generic(ops, n_, a_inf, b_inf_, options.refine);
    r.refine_seconds = seconds_since(t1);
    record_refinement(r, rr);
    finish(r);
    return r;
  }

  const System& sys_;
  std::int64_t n_;
  Space space_;
  DenseSolvers<Space> solvers_;
  tcemu::Resources resources_;  // the trailing updates' CUDA workspace, reused by every run
  HostMatrix host_A_;
  Matrix A_;
  Vector b_;
  bool a_valid_ = true;
  double a_max_ = 0, b_inf_ = 0;
  Factors<float> lu32_;
  Factors<double> lu64_;
};

}  // namespace hplai
