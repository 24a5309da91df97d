#include "refine.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "blas_int.hpp"
#include "dense.hpp"
#include "vector_ops.hpp"
#include "refine_impl.hpp"
#include "tcemu/error.hpp"

namespace hplai {
namespace {

/// max_i |v_i|; NaN when any entry is NaN (so that a broken iterate is never reported as converged).
double inf_norm(const std::vector<double>& v) {
  double m = 0;
  for (double e : v) {
    if (std::isnan(e)) return e;
    m = std::max(m, std::fabs(e));
  }
  return m;
}

/// r = b - A x (FP64).
void residual(const System& sys, const std::vector<double>& x, std::vector<double>& r) {
  r = sys.b;
  const int n = blas_int(sys.n);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, -1.0, sys.A.data(), n, x.data(), 1, 1.0, r.data(), 1);
}

}  // namespace

double scaled_residual(const System& sys, double a_inf, const std::vector<double>& x) {
  std::vector<double> r;
  residual(sys, x, r);
  return scaled_residual(inf_norm(r), a_inf, inf_norm(x), inf_norm(sys.b), sys.n);
}

const char* to_string(Solver s) { return s == Solver::gmres ? "gmres" : "ir"; }

Solver parse_solver(const std::string& name) {
  if (name == "gmres") return Solver::gmres;
  if (name == "ir") return Solver::ir;
  throw tcemu::InvalidArgument("--solver '" + name + "': expected gmres or ir");
}

// ------------------------------------------------------------------------------------- ArnoldiLsq

ArnoldiLsq::ArnoldiLsq(int m)
    : m_(m), R_(static_cast<std::size_t>((m + 1) * m), 0.0), cs_(m, 0.0), sn_(m, 0.0), g_(m + 1, 0.0) {}

void ArnoldiLsq::reset(double beta) {
  k_ = 0;
  std::fill(g_.begin(), g_.end(), 0.0);
  g_[0] = beta;
}

double ArnoldiLsq::add_column(const double* h) {
  if (k_ >= m_) throw tcemu::InvalidArgument("ArnoldiLsq: more than m columns");
  const int k = k_, ld = m_ + 1;
  double* col = R_.data() + static_cast<std::size_t>(k) * ld;
  for (int i = 0; i <= k + 1; ++i) col[i] = h[i];
  for (int j = 0; j < k; ++j) {  // rotations of the earlier columns
    const double t = cs_[j] * col[j] + sn_[j] * col[j + 1];
    col[j + 1] = -sn_[j] * col[j] + cs_[j] * col[j + 1];
    col[j] = t;
  }
  const double a = col[k], b = col[k + 1], r = std::hypot(a, b);
  cs_[k] = r == 0 ? 1.0 : a / r;
  sn_[k] = r == 0 ? 0.0 : b / r;
  col[k] = r;
  col[k + 1] = 0;
  g_[k + 1] = -sn_[k] * g_[k];
  g_[k] = cs_[k] * g_[k];
  ++k_;
  return std::fabs(g_[k + 1]);
}

std::vector<double> ArnoldiLsq::solve() const {
  const int ld = m_ + 1;
  std::vector<double> y(k_, 0.0);
  for (int i = k_ - 1; i >= 0; --i) {
    double s = g_[i];
    for (int j = i + 1; j < k_; ++j) s -= R_[static_cast<std::size_t>(j) * ld + i] * y[j];
    const double d = R_[static_cast<std::size_t>(i) * ld + i];
    y[i] = d == 0 ? 0.0 : s / d;
  }
  return y;
}

// ----------------------------------------------------------------------------------------- refine

RefineResult refine(const System& sys, double a_inf, const Preconditioner& precond,
                    const RefineOptions& opt) {
  // The one source of the vector work (vector_ops.hpp) on the host, on Views of sys's arrays.
  using Host = Kokkos::DefaultHostExecutionSpace;
  using Ops = ViewOps<Host, std::function<void(Kokkos::View<double*, Kokkos::HostSpace>&)>>;
  DenseSolvers<Host> solvers;
  const std::int64_t n = sys.n;
  Ops ops{Host(), solvers, Ops::Matrix(sys.A.data(), n, n), Ops::ConstVec(sys.b.data(), n),
          [&precond](Kokkos::View<double*, Kokkos::HostSpace>& v) { precond(v.data()); }, n};
  return detail::refine_generic(ops, n, a_inf, inf_norm(sys.b), opt);
}

}  // namespace hplai
