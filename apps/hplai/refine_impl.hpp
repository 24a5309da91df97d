#pragma once
/// \file refine_impl.hpp
/// The refinement algorithms of refine.hpp written once over a vector-operations backend, so that
/// the host (CBLAS on std::vector) and the GPU (cuBLAS on device buffers) run the same GMRES / IR.
///
/// An Ops type provides, for vectors of n FP64 entries (type Ops::Vec, movable):
///   Vec vec();                                   a new vector (contents unspecified)
///   void load_b(Vec& x);                         x = b
///   void precond(Vec& v);                        v = M^-1 v (the LU solves)
///   void residual(const Vec& x, Vec& r);         r = b - A x (FP64)
///   void matvec(const Vec& z, Vec& w);           w = A z (FP64)
///   double dot(const Vec&, const Vec&); double nrm2(const Vec&);
///   double amax(const Vec&);                     max |v_i|, NaN if any entry is NaN
///   void axpy(double a, const Vec& x, Vec& y);   y += a x
///   void scale(double a, const Vec& x, Vec& y);  y = a x
///   std::vector<double> to_host(const Vec&);
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "refine.hpp"
#include "tcemu/error.hpp"

namespace hplai::detail {

inline std::string failure_text(Solver s, int iterations, int cap, double sr) {
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

/// refine() on any backend (see the file comment and refine.hpp). a_inf = ||A||_inf,
/// b_inf = ||b||_inf.
template <class Ops>
RefineResult refine_generic(Ops& ops, std::int64_t n, double a_inf, double b_inf, const RefineOptions& opt) {
  using Vec = typename Ops::Vec;
  if (opt.max_iter < 1)
    throw tcemu::InvalidArgument("--max-iter " + std::to_string(opt.max_iter) + " must be >= 1");
  if (opt.restart < 1)
    throw tcemu::InvalidArgument("--restart " + std::to_string(opt.restart) + " must be >= 1");
  RefineResult res;
  Vec x = ops.vec(), r = ops.vec();
  ops.load_b(x);
  ops.precond(x);  // x0 = M^-1 b
  auto check = [&]() {
    ops.residual(x, r);
    const double sr = scaled_residual(ops.amax(r), a_inf, ops.amax(x), b_inf, n);
    res.history.push_back(sr);
    return sr;
  };
  double sr = check();
  res.initial_scaled_residual = sr;

  const int m = static_cast<int>(std::min<std::int64_t>(opt.restart, n));
  std::vector<Vec> V, Z;
  Vec w = ops.vec();
  std::vector<double> h;
  if (opt.solver == Solver::gmres) {
    for (int i = 0; i <= m; ++i) V.push_back(ops.vec());
    for (int i = 0; i < m; ++i) Z.push_back(ops.vec());
    h.resize(static_cast<std::size_t>(m + 1));
  }
  ArnoldiLsq lsq(m);
  int cycles = 0;
  while (true) {
    if (sr < opt.threshold) {
      res.converged = true;
      break;
    }
    if (!std::isfinite(sr) || res.iterations >= opt.max_iter) {
      res.failure = failure_text(opt.solver, res.iterations, opt.max_iter, sr);
      break;
    }
    if (opt.solver == Solver::ir) {
      ops.precond(r);  // r <- M^-1 (b - A x)
      ops.axpy(1.0, r, x);
      ++res.iterations;
      sr = check();
      continue;
    }
    // One GMRES cycle from the current residual r.
    ++cycles;
    const double beta = ops.nrm2(r);
    if (beta == 0) {
      res.converged = true;
      break;
    }
    ops.scale(1.0 / beta, r, V[0]);
    lsq.reset(beta);
    const double denom = (a_inf * ops.amax(x) + b_inf) * static_cast<double>(n) * kEps64;
    for (int i = 0; i < m && res.iterations < opt.max_iter; ++i) {
      ops.scale(1.0, V[i], Z[i]);
      ops.precond(Z[i]);      // z_i = M^-1 v_i
      ops.matvec(Z[i], w);    // w = A z_i
      for (int k = 0; k <= i; ++k) {  // modified Gram-Schmidt
        h[k] = ops.dot(w, V[k]);
        ops.axpy(-h[k], V[k], w);
      }
      h[i + 1] = ops.nrm2(w);
      if (h[i + 1] > 0) ops.scale(1.0 / h[i + 1], w, V[i + 1]);
      const double est = lsq.add_column(h.data()) / denom;
      ++res.iterations;
      if (est < opt.threshold || !(h[i + 1] > 0) || !std::isfinite(est)) break;
    }
    const std::vector<double> y = lsq.solve();  // x += Z y
    for (int k = 0; k < lsq.columns(); ++k) ops.axpy(y[k], Z[k], x);
    sr = check();
  }
  res.restarts = std::max(cycles - 1, 0);
  res.scaled_residual = sr;
  res.x = ops.to_host(x);
  return res;
}

}  // namespace hplai::detail
