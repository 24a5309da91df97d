#pragma once
/// \file dense.hpp
/// The dense linear algebra hplai takes from well-kept libraries, behind one interface per Kokkos
/// execution space: `DenseSolvers<Space>`. The run (session.hpp) is written once over it; only these
/// calls differ between the host and the GPU.
///
///  | | host (`Kokkos::DefaultHostExecutionSpace`) | GPU (`Kokkos::Cuda`) |
///  |---|---|---|
///  | factors (working precision T) | row-major, `Kokkos::LayoutRight` | column-major, `Kokkos::LayoutLeft` |
///  | panel [A11; A21] without pivoting | unblocked loop on A11 (each pivot checked), `cblas_?trsm` for L21 | `cusolverDnXgetrf` with ipiv = nullptr |
///  | U12 = L11^-1 A12 | `cblas_?trsm` | `cublas?trsm` |
///  | v = U^-1 L^-1 v (the preconditioner) | `cblas_?trsv` twice | `cublas?trsv` twice |
///  | y = alpha A x + beta y, A row-major FP64 | `cblas_dgemv` | `cublasDgemv` on A^T |
///  | FP64 baseline (LU with partial pivoting) | LAPACK `dgetrf` + `dgetrs` | `cusolverDnXgetrf` + `cusolverDnXgetrs` |
///  | block products of the grid's refinement | plain loops (distributed.cpp) | `cublas?gemvStridedBatched` |
///
/// Pointers are into the Views of the space's memory (View::data()); `ld` is the leading dimension
/// of the factors in their layout (the row stride for the host, the column stride for the GPU). The
/// FP64 A is row-major on both (on the GPU that is A^T in column-major order). Calls on the GPU are
/// queued on the instance's stream; those that return a value wait for it.
///
/// The GPU specialisation exists when tcemu has its CUDA backend and Kokkos its CUDA backend
/// (HPLAI_HAVE_CUDA_KOKKOS, below); a build whose Kokkos has no CUDA (Debian's 3.4) has the host one only.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>

#if defined(TCEMU_HAVE_CUDA) && defined(KOKKOS_ENABLE_CUDA)
#define HPLAI_HAVE_CUDA_KOKKOS 1
#endif

namespace hplai {

/// Times of the FP64 baseline's two phases (wall clock, seconds; on the GPU each ends with a wait).
struct BaselineTimes {
  double factor = 0;  ///< dgetrf / cusolverDnXgetrf
  double solve = 0;   ///< dgetrs / cusolverDnXgetrs
};

/// No definition: a space without hplai's solvers is a compile-time error.
template <class Space>
class DenseSolvers;

/// The host: LAPACK and CBLAS (OpenBLAS). Errors: tcemu::InvalidArgument for extents beyond the
/// 32-bit range of CBLAS/LAPACK and for an exactly singular baseline.
template <>
class DenseSolvers<Kokkos::DefaultHostExecutionSpace> {
 public:
  using Layout = Kokkos::LayoutRight;
  explicit DenseSolvers(const Kokkos::DefaultHostExecutionSpace& space = {}) : space_(space) {}

  /// Factors the tall panel [A11; A21] (rows x kb, A11 = its top kb x kb block) in place into
  /// [L11\U11; L21] without pivoting. Each pivot u_jj is checked: zero, not finite or |u_jj| <= tiny
  /// throws SingularPivot naming column col0 + j (lu.hpp).
  void factor_panel(float* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld, double tiny, std::int64_t col0);
  void factor_panel(double* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld, double tiny, std::int64_t col0);
  /// A12 (kb x cols) <- L11^-1 A12 with the unit lower triangle of A11 (kb x kb).
  void solve_block_row(const float* A11, float* A12, std::int64_t kb, std::int64_t cols, std::int64_t ld);
  void solve_block_row(const double* A11, double* A12, std::int64_t kb, std::int64_t cols, std::int64_t ld);
  /// v <- U^-1 L^-1 v with the n x n factors LU (unit lower L, upper U).
  void apply_inverse(const float* LU, std::int64_t n, std::int64_t ld, float* v);
  void apply_inverse(const double* LU, std::int64_t n, std::int64_t ld, double* v);
  /// y <- alpha A x + beta y, A n x n row-major FP64.
  void gemv(const double* A, std::int64_t n, double alpha, const double* x, double beta, double* y);
  /// The FP64 baseline: factors A (n x n row-major, overwritten) with partial pivoting and solves
  /// A x = b in place of x (b on entry). Throws tcemu::InvalidArgument "fp64 baseline: dgetrf: U(j,j)
  /// is exactly zero at column j (the matrix is singular)".
  BaselineTimes baseline(double* A, std::int64_t n, double* x);
  /// The baseline row's `used` name.
  static const char* baseline_name() { return "dgetrf"; }

 private:
  Kokkos::DefaultHostExecutionSpace space_;
};

#if defined(HPLAI_HAVE_CUDA_KOKKOS)
/// The GPU: cuSOLVER and cuBLAS on the instance's stream (space.cuda_stream()). Throws
/// tcemu::DeviceError naming the call when a CUDA, cuBLAS or cuSOLVER call fails.
template <>
class DenseSolvers<Kokkos::Cuda> {
 public:
  using Layout = Kokkos::LayoutLeft;
  explicit DenseSolvers(const Kokkos::Cuda& space = {});
  ~DenseSolvers();
  DenseSolvers(const DenseSolvers&) = delete;
  DenseSolvers& operator=(const DenseSolvers&) = delete;

  /// As the host's; the pivots are not checked here (cuSOLVER's getrf without pivoting does not):
  /// the run checks them all after the factorisation.
  void factor_panel(float* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld, double tiny, std::int64_t col0);
  void factor_panel(double* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld, double tiny, std::int64_t col0);
  void solve_block_row(const float* A11, float* A12, std::int64_t kb, std::int64_t cols, std::int64_t ld);
  void solve_block_row(const double* A11, double* A12, std::int64_t kb, std::int64_t cols, std::int64_t ld);
  void apply_inverse(const float* LU, std::int64_t n, std::int64_t ld, float* v);
  void apply_inverse(const double* LU, std::int64_t n, std::int64_t ld, double* v);
  void gemv(const double* A, std::int64_t n, double alpha, const double* x, double beta, double* y);
  /// The FP64 baseline on the device (A overwritten by its factors); throws tcemu::InvalidArgument
  /// for an exactly singular matrix.
  BaselineTimes baseline(double* A, std::int64_t n, double* x);
  static const char* baseline_name() { return "cusolver-getrf"; }
  /// B <- A^-1 B (left) or B A^-1 (right) with the triangle of A (m x m left, n x n right; column-major,
  /// leading dimensions lda, ldb), B m x n: cublas?trsm with alpha 1, A not transposed. For the LU
  /// over a process grid (distributed_cuda.cpp), whose blocks live in separate buffers.
  void trsm(bool left, bool upper, bool unit_diagonal, std::int64_t m, std::int64_t n, const float* A,
            std::int64_t lda, float* B, std::int64_t ldb);
  void trsm(bool left, bool upper, bool unit_diagonal, std::int64_t m, std::int64_t n, const double* A,
            std::int64_t lda, double* B, std::int64_t ldb);
  /// y_b = A_b x_b for b < batch, A_b the m x n column-major block at A + b strideA (leading dimension
  /// lda), x_b = x + b stridex, y_b = y + b stridey (unit increments): cublas?gemvStridedBatched with
  /// alpha 1, beta 0. For the refinement over a process grid (distributed_cuda.cpp): one product per
  /// block column.
  void gemv_batched(std::int64_t m, std::int64_t n, const float* A, std::int64_t lda, std::int64_t strideA,
                    const float* x, std::int64_t stridex, float* y, std::int64_t stridey, std::int64_t batch);
  void gemv_batched(std::int64_t m, std::int64_t n, const double* A, std::int64_t lda, std::int64_t strideA,
                    const double* x, std::int64_t stridex, double* y, std::int64_t stridey, std::int64_t batch);

  struct Handles;

 private:
  Kokkos::Cuda space_;
  std::unique_ptr<Handles> h_;
};
#endif

}  // namespace hplai
