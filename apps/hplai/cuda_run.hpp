#pragma once
/// \file cuda_run.hpp
/// hplai's GPU path (built only with TCEMU_ENABLE_CUDA; this header includes no CUDA header).
///
/// Device layout: the host's row-major FP64 A is copied as is, so device memory holds A^T in
/// column-major order; A x is cublasDgemv with CUBLAS_OP_T. Per scheme (working precision T):
///  - the factors: A converted and transposed into a column-major T array by one kernel;
///  - per block column: panel [A11; A21] by cusolverDnXgetrf with ipiv = nullptr (no pivoting);
///    U12 = L11^-1 A12 by cublas?trsm; trailing update A22 -= L21 U12 by tcemu::cuda::gemm_device
///    with the scheme, in column chunks of at most kUpdateChunk columns (bounds the per-group
///    accumulators the CUDA backend allocates), operands scaled as on the host (lu.hpp);
///  - pivots checked once after the factorisation (zero, non-finite, or |u_jj| <= eps_T max|a_ij|);
///  - refinement on the device in FP64 (refine_impl.hpp over cuBLAS: dgemv, ddot, dnrm2, daxpy),
///    preconditioner = cublas?trsv with the unit lower then the upper factor (FP32 factors: the FP64
///    vector is rounded to FP32 for the two solves).
/// FP64 baseline: cusolverDnXgetrf (partial pivoting) + cusolverDnXgetrs on A^T with CUBLAS_OP_T;
/// its residual is checked on the host, and A is uploaded again afterwards (not timed).
/// Times are wall clock around stream-synchronised phases (no host/device copies inside).
#if defined(TCEMU_HAVE_CUDA)
#include <cstdint>
#include <memory>

#include "problem.hpp"
#include "run.hpp"

namespace hplai {

/// Columns of A22 per trailing-update GEMM on the GPU.
constexpr std::int64_t kUpdateChunk = 16384;

/// The system in device memory and the library handles, for a sequence of runs.
class CudaSession {
 public:
  /// Uploads A and b (needs 8 n^2 bytes of device memory plus the factors: 4 n^2 for FP32 storage,
  /// 8 n^2 for FP64). Throws tcemu::DeviceError when a CUDA call fails (e.g. out of memory).
  explicit CudaSession(const System& sys);
  ~CudaSession();
  CudaSession(const CudaSession&) = delete;
  CudaSession& operator=(const CudaSession&) = delete;

  /// The FP64 baseline row (cuSOLVER getrf + getrs). a_inf = ||A||_inf.
  SchemeResult run_baseline(double a_inf);
  /// One scheme (not "fp64"): factor on the device, refine on the device, check. Throws
  /// tcemu::InvalidArgument "<scheme>: singular pivot at column j: ..." like the host path.
  SchemeResult run_scheme(double a_inf, const tcemu::Scheme& scheme, const RunOptions& options);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace hplai
#endif
