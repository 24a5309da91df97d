#include "baseline.hpp"

#include "app_common/timing.hpp"

#include <string>

#include "blas_int.hpp"
#include "tcemu/error.hpp"

// LAPACK (Fortran interface, shipped inside OpenBLAS; no LAPACKE needed).
extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, std::size_t trans_len);
}

namespace hplai {

BaselineResult solve_fp64_baseline(const System& sys) {
  using tcemu::app::Clock;
  const int n = blas_int(sys.n);
  (void)blas_int(sys.n * sys.n);
  BaselineResult res;
  auto t0 = Clock::now();
  std::vector<double> lu = sys.A;  // row-major A = column-major A^T
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  int info = 0;
  dgetrf_(&n, &n, lu.data(), &n, ipiv.data(), &info);
  if (info < 0) throw tcemu::InvalidArgument("fp64 baseline: dgetrf: argument " + std::to_string(-info) + " invalid");
  if (info > 0)
    throw tcemu::InvalidArgument("fp64 baseline: dgetrf: U(j,j) is exactly zero at column " +
                                 std::to_string(info - 1) + " (the matrix is singular)");
  auto t1 = Clock::now();
  res.x = sys.b;
  const char trans = 'T';
  const int nrhs = 1;
  dgetrs_(&trans, &n, &nrhs, lu.data(), &n, ipiv.data(), res.x.data(), &n, &info, 1);
  if (info != 0) throw tcemu::InvalidArgument("fp64 baseline: dgetrs failed (info " + std::to_string(info) + ")");
  auto t2 = Clock::now();
  res.seconds_factor = std::chrono::duration<double>(t1 - t0).count();
  res.seconds_solve = std::chrono::duration<double>(t2 - t1).count();
  return res;
}

}  // namespace hplai
