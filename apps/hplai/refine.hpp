#pragma once
/// \file refine.hpp
/// Refinement of the low-precision solution to FP64 accuracy, and the benchmark's check.
///
/// Both solvers start from x0 = M^-1 b, where M = L U are the working-precision factors and M^-1 v is
/// one forward and one back substitution (the *preconditioner*), and work in FP64 with the FP64 A:
///  - gmres: restarted flexible GMRES, right-preconditioned: it minimises ||b - A x||_2 over
///    x = x0 + span{M^-1 v_0, ..., M^-1 v_i} (Arnoldi with modified Gram-Schmidt, Givens rotations);
///    the vectors z_i = M^-1 v_i are kept (flexible variant), so a preconditioner applied in FP32 is
///    harmless. Because the preconditioner is on the right, the least-squares residual is the true
///    residual 2-norm, an upper bound of ||b - A x||_inf; a cycle ends when that bound meets the
///    criterion, then x is formed and the true residual is computed and checked; a restart follows
///    when the check fails. (The HPL-AI reference, gmres.c, preconditions on the left and stops on
///    the preconditioned residual with tol = eps / 2 / (n / 4) before the same final check.)
///  - ir: classical iterative refinement x_{k+1} = x_k + M^-1 (b - A x_k), residual in FP64.
/// Stop: the HPL-MxP criterion scaled_residual < 16 (checked on the true residual); failure when
/// max_iter iterations (preconditioned matrix-vector products for GMRES, correction steps for IR)
/// do not reach it, or when the residual stops being finite.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "problem.hpp"

namespace hplai {

/// Unit roundoff of FP64, eps = 2^-53 (DBL_EPSILON / 2), as in the HPL-MxP check.
constexpr double kEps64 = 0x1p-53;
/// The benchmark passes when the scaled residual is below this.
constexpr double kPassThreshold = 16.0;

/// HPL-MxP scaled residual ||r||_inf / ((||A||_inf ||x||_inf + ||b||_inf) * n * eps), eps = 2^-53.
inline double scaled_residual(double r_inf, double a_inf, double x_inf, double b_inf, std::int64_t n) {
  if (r_inf == 0) return 0;  // an exact solution (b = 0 gives x = 0 and 0 / 0 otherwise)
  return r_inf / ((a_inf * x_inf + b_inf) * static_cast<double>(n) * kEps64);
}

/// Scaled residual of x for the system (r = b - A x formed in FP64 with dgemv).
double scaled_residual(const System& sys, double a_inf, const std::vector<double>& x);

/// Refinement method.
enum class Solver { gmres, ir };
/// "gmres" / "ir".
const char* to_string(Solver s);
/// Parses "gmres" | "ir"; throws tcemu::InvalidArgument naming the value otherwise.
Solver parse_solver(const std::string& name);

/// Options of refine().
struct RefineOptions {
  Solver solver = Solver::gmres;
  int max_iter = 50;  ///< cap on iterations (see the file comment), >= 1
  int restart = 50;   ///< GMRES cycle length (Krylov vectors kept), >= 1
  double threshold = kPassThreshold;
};

/// Outcome of refine().
struct RefineResult {
  std::vector<double> x;                ///< the solution (n entries)
  int iterations = 0;                   ///< iterations used (see the file comment)
  int restarts = 0;                     ///< GMRES cycles started after the first
  double initial_scaled_residual = 0;   ///< of x0 = M^-1 b (shows the factors' quality)
  double scaled_residual = 0;           ///< of the returned x
  bool converged = false;               ///< scaled_residual < threshold
  std::string failure;                  ///< why not converged, or ""
  std::vector<double> history;          ///< scaled residual of every true-residual check
};

/// Applies the preconditioner in place: v <- M^-1 v (v has n entries).
using Preconditioner = std::function<void(double* v)>;

/// Solves sys with the preconditioner as described in the file comment. a_inf = ||A||_inf.
/// Throws tcemu::InvalidArgument for max_iter < 1 or restart < 1.
RefineResult refine(const System& sys, double a_inf, const Preconditioner& precond,
                    const RefineOptions& options);

/// The small least-squares problem of GMRES: the (m+1) x m upper Hessenberg matrix H, reduced to
/// upper triangular form by Givens rotations as columns arrive, and the rotated right-hand side
/// g = Q^T (beta e_1). Shared by the host and the GPU GMRES (all in FP64 on the host; m is small).
class ArnoldiLsq {
 public:
  explicit ArnoldiLsq(int m);
  /// Starts a cycle with residual norm beta = ||r_0||_2.
  void reset(double beta);
  /// Adds column i (0-based, in order) of H: h[0..i+1] (i + 2 entries, h[i+1] = ||w||_2). Returns
  /// |g_{i+1}|, the residual 2-norm of the best combination of the i + 1 columns so far.
  double add_column(const double* h);
  /// Columns added in this cycle.
  int columns() const { return k_; }
  /// y (columns() entries) solving R y = g (back substitution): x = x_0 + Z y.
  std::vector<double> solve() const;

 private:
  int m_, k_ = 0;
  std::vector<double> R_;   // (m+1) x m, column-major, rotated H
  std::vector<double> cs_, sn_, g_;
};

}  // namespace hplai
