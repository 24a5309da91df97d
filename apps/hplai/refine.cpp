#include "refine.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "blas_int.hpp"
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

std::string failure_text(Solver s, int iterations, int cap, double sr) {
  char buf[256];
  if (!std::isfinite(sr))
    std::snprintf(buf, sizeof buf, "%s: the residual is not finite after %d iteration(s) (diverged)",
                  to_string(s), iterations);
  else
    std::snprintf(buf, sizeof buf,
                  "%s: scaled residual %.3g after %d iteration(s) (cap --max-iter %d); the criterion < %g "
                  "was not met",
                  to_string(s), sr, iterations, cap, kPassThreshold);
  return buf;
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
  if (opt.max_iter < 1)
    throw tcemu::InvalidArgument("--max-iter " + std::to_string(opt.max_iter) + " must be >= 1");
  if (opt.restart < 1)
    throw tcemu::InvalidArgument("--restart " + std::to_string(opt.restart) + " must be >= 1");
  const std::int64_t n = sys.n;
  const int ni = blas_int(n);
  const double b_inf = inf_norm(sys.b);
  RefineResult res;
  res.x = sys.b;
  precond(res.x.data());  // x0 = M^-1 b
  std::vector<double> r;
  auto check = [&]() {
    residual(sys, res.x, r);
    const double sr = scaled_residual(inf_norm(r), a_inf, inf_norm(res.x), b_inf, n);
    res.history.push_back(sr);
    return sr;
  };
  double sr = check();
  res.initial_scaled_residual = sr;

  const int m = std::min<std::int64_t>(opt.restart, n);
  std::vector<double> V, Z, w, h;
  if (opt.solver == Solver::gmres) {
    V.resize(static_cast<std::size_t>((m + 1) * n));
    Z.resize(static_cast<std::size_t>(m * n));
    w.resize(static_cast<std::size_t>(n));
    h.resize(static_cast<std::size_t>(m + 1));
  }
  ArnoldiLsq lsq(std::max(m, 1));
  int cycles = 0;
  while (true) {
    if (!(sr < opt.threshold) || !std::isfinite(sr)) {
      if (!std::isfinite(sr) || res.iterations >= opt.max_iter) {
        res.failure = failure_text(opt.solver, res.iterations, opt.max_iter, sr);
        break;
      }
    } else {
      res.converged = true;
      break;
    }
    if (opt.solver == Solver::ir) {
      precond(r.data());  // r <- M^-1 (b - A x)
      cblas_daxpy(ni, 1.0, r.data(), 1, res.x.data(), 1);
      ++res.iterations;
      sr = check();
      continue;
    }
    // One GMRES cycle from the current residual r.
    ++cycles;
    const double beta = cblas_dnrm2(ni, r.data(), 1);
    if (beta == 0) {
      res.converged = true;
      break;
    }
    for (std::int64_t i = 0; i < n; ++i) V[i] = r[i] / beta;
    lsq.reset(beta);
    const double denom = (a_inf * inf_norm(res.x) + b_inf) * static_cast<double>(n) * kEps64;
    for (int i = 0; i < m && res.iterations < opt.max_iter; ++i) {
      double* vi = V.data() + static_cast<std::size_t>(i) * n;
      double* zi = Z.data() + static_cast<std::size_t>(i) * n;
      std::copy(vi, vi + n, zi);
      precond(zi);  // z_i = M^-1 v_i
      cblas_dgemv(CblasRowMajor, CblasNoTrans, ni, ni, 1.0, sys.A.data(), ni, zi, 1, 0.0, w.data(), 1);
      for (int k = 0; k <= i; ++k) {  // modified Gram-Schmidt
        const double* vk = V.data() + static_cast<std::size_t>(k) * n;
        h[k] = cblas_ddot(ni, w.data(), 1, vk, 1);
        cblas_daxpy(ni, -h[k], vk, 1, w.data(), 1);
      }
      h[i + 1] = cblas_dnrm2(ni, w.data(), 1);
      if (h[i + 1] > 0) {
        double* next = V.data() + static_cast<std::size_t>(i + 1) * n;
        for (std::int64_t j = 0; j < n; ++j) next[j] = w[j] / h[i + 1];
      }
      const double est = lsq.add_column(h.data()) / denom;
      ++res.iterations;
      if (est < opt.threshold || !(h[i + 1] > 0) || !std::isfinite(est)) break;
    }
    const std::vector<double> y = lsq.solve();  // x += Z y
    for (int k = 0; k < lsq.columns(); ++k)
      cblas_daxpy(ni, y[k], Z.data() + static_cast<std::size_t>(k) * n, 1, res.x.data(), 1);
    sr = check();
  }
  res.restarts = std::max(cycles - 1, 0);
  res.scaled_residual = sr;
  if (res.converged) res.failure.clear();
  return res;
}

}  // namespace hplai
