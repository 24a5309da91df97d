#pragma once
/// \file baseline.hpp
/// The FP64 baseline on the host: LU with partial pivoting (LAPACK dgetrf) and the two triangular
/// solves (dgetrs), i.e. what HPL itself computes, with no refinement.
#include <vector>

#include "problem.hpp"

namespace hplai {

/// Solution and timings (wall clock, seconds) of the FP64 baseline.
struct BaselineResult {
  std::vector<double> x;       ///< n entries
  double seconds_factor = 0;   ///< copy of A + dgetrf
  double seconds_solve = 0;    ///< dgetrs
};

/// Solves sys.A x = sys.b by LAPACK dgetrf + dgetrs (OpenBLAS's LAPACK), in FP64. The row-major A is
/// factored as its transpose (column-major view, P A^T = L U) and solved with trans = 'T'.
/// Throws tcemu::InvalidArgument "fp64 baseline: dgetrf: U(j,j) is exactly zero at column j" for an
/// exactly singular matrix, and for n beyond LAPACK's 32-bit extents.
BaselineResult solve_fp64_baseline(const System& sys);

}  // namespace hplai
