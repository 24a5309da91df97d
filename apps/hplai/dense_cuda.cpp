// DenseSolvers on the GPU: cuSOLVER and cuBLAS on a Kokkos::Cuda instance's stream (dense.hpp).
// Built in every configuration; empty unless tcemu has its CUDA backend and Kokkos its CUDA backend.
#include "dense.hpp"

#if defined(HPLAI_HAVE_CUDA_KOKKOS)
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "app_common/timing.hpp"
#include "tcemu/error.hpp"

namespace hplai {
namespace {

void check(cublasStatus_t s, const char* call, int line) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw tcemu::DeviceError(std::string("hplai (dense_cuda.cpp:") + std::to_string(line) + "): " + call +
                             ": cuBLAS status " + std::to_string(static_cast<int>(s)));
}
void check(cusolverStatus_t s, const char* call, int line) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw tcemu::DeviceError(std::string("hplai (dense_cuda.cpp:") + std::to_string(line) + "): " + call +
                             ": cuSOLVER status " + std::to_string(static_cast<int>(s)));
}
#define HPLAI_CHECK(call) check((call), #call, __LINE__)

cudaDataType data_type(float) { return CUDA_R_32F; }
cudaDataType data_type(double) { return CUDA_R_64F; }

/// B <- A^-1 B (left) or B A^-1 (right), alpha 1, A not transposed: cublas?trsm in either precision.
cublasStatus_t trsm(cublasHandle_t h, bool left, bool upper, bool unit, std::int64_t m, std::int64_t n, const float* A,
                    std::int64_t lda, float* B, std::int64_t ldb) {
  const float one = 1.0f;
  return cublasStrsm_64(h, left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT,
                        upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                        unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n, &one, A, lda, B, ldb);
}
cublasStatus_t trsm(cublasHandle_t h, bool left, bool upper, bool unit, std::int64_t m, std::int64_t n, const double* A,
                    std::int64_t lda, double* B, std::int64_t ldb) {
  const double one = 1.0;
  return cublasDtrsm_64(h, left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT,
                        upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                        unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n, &one, A, lda, B, ldb);
}
/// y_b = A_b x_b (alpha 1, beta 0, A not transposed) for b < batch: cublas?gemvStridedBatched.
template <class T>
cublasStatus_t gemv_batched(cublasHandle_t h, std::int64_t m, std::int64_t n, const T* A, std::int64_t lda,
                            std::int64_t strideA, const T* x, std::int64_t stridex, T* y, std::int64_t stridey,
                            std::int64_t batch) {
  const T one = 1, zero = 0;
  if constexpr (std::is_same_v<T, float>)
    return cublasSgemvStridedBatched_64(h, CUBLAS_OP_N, m, n, &one, A, lda, strideA, x, 1, stridex, &zero, y, 1,
                                        stridey, batch);
  else
    return cublasDgemvStridedBatched_64(h, CUBLAS_OP_N, m, n, &one, A, lda, strideA, x, 1, stridex, &zero, y, 1,
                                        stridey, batch);
}
cublasStatus_t trsv(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, std::int64_t n, const float* A,
                    std::int64_t ld, float* x) {
  return cublasStrsv_64(h, uplo, CUBLAS_OP_N, diag, n, A, ld, x, 1);
}
cublasStatus_t trsv(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, std::int64_t n, const double* A,
                    std::int64_t ld, double* x) {
  return cublasDtrsv_64(h, uplo, CUBLAS_OP_N, diag, n, A, ld, x, 1);
}

}  // namespace

using Gpu = DenseSolvers<Kokkos::Cuda>;

/// The library handles (on the instance's stream) and cuSOLVER's workspaces (device: a View).
struct Gpu::Handles {
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t solver = nullptr;
  cusolverDnParams_t params = nullptr;
  Kokkos::View<unsigned char*, Kokkos::CudaSpace> work;
  std::vector<unsigned char> host_work;
  Kokkos::View<int, Kokkos::CudaSpace> info{"hplai::getrf_info"};

  ~Handles() {
    if (params) cusolverDnDestroyParams(params);
    if (solver) cusolverDnDestroy(solver);
    if (blas) cublasDestroy(blas);
  }
  /// Grows the workspaces for cusolverDnXgetrf on an m x k matrix of type dt (leading dimension ld).
  void getrf_workspace(std::int64_t m, std::int64_t k, cudaDataType dt, void* A, std::int64_t ld,
                       std::size_t& device_bytes) {
    std::size_t host_bytes = 0;
    HPLAI_CHECK(cusolverDnXgetrf_bufferSize(solver, params, m, k, dt, A, ld, dt, &device_bytes, &host_bytes));
    if (work.extent(0) < std::max<std::size_t>(device_bytes, 1))
      work = Kokkos::View<unsigned char*, Kokkos::CudaSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::getrf_work"), std::max<std::size_t>(device_bytes, 1));
    if (host_work.size() < host_bytes) host_work.resize(host_bytes);
  }
  /// getrf's info, read back (waits for the stream).
  int read_info(const Kokkos::Cuda& space) {
    int v = 0;
    const Kokkos::View<int, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(&v);
    Kokkos::deep_copy(space, host, info);
    space.fence();
    return v;
  }
};

Gpu::DenseSolvers(const Kokkos::Cuda& space) : space_(space), h_(std::make_unique<Handles>()) {
  HPLAI_CHECK(cublasCreate(&h_->blas));
  HPLAI_CHECK(cublasSetStream(h_->blas, space_.cuda_stream()));
  HPLAI_CHECK(cusolverDnCreate(&h_->solver));
  HPLAI_CHECK(cusolverDnSetStream(h_->solver, space_.cuda_stream()));
  HPLAI_CHECK(cusolverDnCreateParams(&h_->params));
}
Gpu::~DenseSolvers() = default;

namespace {

template <class T>
void factor_panel_gpu(Gpu::Handles& h, T* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld) {
  // Without pivoting (ipiv = nullptr): L11\U11 and L21 = A21 U11^-1 in one call.
  const cudaDataType dt = data_type(T{});
  std::size_t bytes = 0;
  h.getrf_workspace(rows, kb, dt, A11, ld, bytes);
  HPLAI_CHECK(cusolverDnXgetrf(h.solver, h.params, rows, kb, dt, A11, ld, nullptr, dt, h.work.data(), bytes,
                               h.host_work.data(), h.host_work.size(), h.info.data()));
}

}  // namespace

void Gpu::factor_panel(float* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld, double, std::int64_t) {
  factor_panel_gpu(*h_, A11, rows, kb, ld);
}
void Gpu::factor_panel(double* A11, std::int64_t rows, std::int64_t kb, std::int64_t ld, double, std::int64_t) {
  factor_panel_gpu(*h_, A11, rows, kb, ld);
}

void Gpu::solve_block_row(const float* A11, float* A12, std::int64_t kb, std::int64_t cols, std::int64_t ld) {
  HPLAI_CHECK(hplai::trsm(h_->blas, true, false, true, kb, cols, A11, ld, A12, ld));
}
void Gpu::solve_block_row(const double* A11, double* A12, std::int64_t kb, std::int64_t cols, std::int64_t ld) {
  HPLAI_CHECK(hplai::trsm(h_->blas, true, false, true, kb, cols, A11, ld, A12, ld));
}

void Gpu::apply_inverse(const float* LU, std::int64_t n, std::int64_t ld, float* v) {
  HPLAI_CHECK(trsv(h_->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, n, LU, ld, v));
  HPLAI_CHECK(trsv(h_->blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, n, LU, ld, v));
}
void Gpu::apply_inverse(const double* LU, std::int64_t n, std::int64_t ld, double* v) {
  HPLAI_CHECK(trsv(h_->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, n, LU, ld, v));
  HPLAI_CHECK(trsv(h_->blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, n, LU, ld, v));
}

void Gpu::gemv(const double* A, std::int64_t n, double alpha, const double* x, double beta, double* y) {
  // A row-major is A^T column-major: y = alpha (A^T)^T x + beta y.
  HPLAI_CHECK(cublasDgemv_64(h_->blas, CUBLAS_OP_T, n, n, &alpha, A, n, x, 1, &beta, y, 1));
}

void Gpu::trsm(bool left, bool upper, bool unit, std::int64_t m, std::int64_t n, const float* A, std::int64_t lda,
               float* B, std::int64_t ldb) {
  HPLAI_CHECK(hplai::trsm(h_->blas, left, upper, unit, m, n, A, lda, B, ldb));
}
void Gpu::trsm(bool left, bool upper, bool unit, std::int64_t m, std::int64_t n, const double* A, std::int64_t lda,
               double* B, std::int64_t ldb) {
  HPLAI_CHECK(hplai::trsm(h_->blas, left, upper, unit, m, n, A, lda, B, ldb));
}

void Gpu::gemv_batched(std::int64_t m, std::int64_t n, const float* A, std::int64_t lda, std::int64_t strideA,
                       const float* x, std::int64_t stridex, float* y, std::int64_t stridey, std::int64_t batch) {
  if (m > 0 && batch > 0) HPLAI_CHECK(hplai::gemv_batched(h_->blas, m, n, A, lda, strideA, x, stridex, y, stridey, batch));
}
void Gpu::gemv_batched(std::int64_t m, std::int64_t n, const double* A, std::int64_t lda, std::int64_t strideA,
                       const double* x, std::int64_t stridex, double* y, std::int64_t stridey, std::int64_t batch) {
  if (m > 0 && batch > 0) HPLAI_CHECK(hplai::gemv_batched(h_->blas, m, n, A, lda, strideA, x, stridex, y, stridey, batch));
}

BaselineTimes Gpu::baseline(double* A, std::int64_t n, double* x) {
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  Handles& h = *h_;
  const Kokkos::View<std::int64_t*, Kokkos::CudaSpace> ipiv(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::ipiv"), n);
  std::size_t bytes = 0;
  h.getrf_workspace(n, n, CUDA_R_64F, A, n, bytes);
  space_.fence();
  BaselineTimes t;
  auto t0 = Clock::now();
  // Partial pivoting on A^T (column-major): P A^T = L U; then A x = b is solved with trans = T.
  HPLAI_CHECK(cusolverDnXgetrf(h.solver, h.params, n, n, CUDA_R_64F, A, n, ipiv.data(), CUDA_R_64F, h.work.data(),
                               bytes, h.host_work.data(), h.host_work.size(), h.info.data()));
  const int info = h.read_info(space_);
  t.factor = seconds_since(t0);
  if (info > 0)
    throw tcemu::InvalidArgument("fp64 baseline: cusolverDnXgetrf: U(j,j) is exactly zero at column " +
                                 std::to_string(info - 1) + " (the matrix is singular)");
  t0 = Clock::now();
  HPLAI_CHECK(cusolverDnXgetrs(h.solver, h.params, CUBLAS_OP_T, n, 1, CUDA_R_64F, A, n, ipiv.data(), CUDA_R_64F, x,
                               n, h.info.data()));
  space_.fence();
  t.solve = seconds_since(t0);
  return t;
}

}  // namespace hplai
#endif
