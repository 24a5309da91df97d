// hplai's GPU path: see cuda_run.hpp for the algorithm and the layout.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_run.hpp"
#include "app_common/timing.hpp"
#include "lu.hpp"
#include "refine_impl.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/error.hpp"

namespace hplai {
namespace {

// ------------------------------------------------------------------------------- error checking

void check(cudaError_t e, const char* call, int line) {
  if (e != cudaSuccess)
    throw tcemu::DeviceError(std::string("hplai (cuda_run.cu:") + std::to_string(line) + "): " + call + ": " +
                             cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* call, int line) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw tcemu::DeviceError(std::string("hplai (cuda_run.cu:") + std::to_string(line) + "): " + call +
                             ": cuBLAS status " + std::to_string(static_cast<int>(s)));
}
void check(cusolverStatus_t s, const char* call, int line) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw tcemu::DeviceError(std::string("hplai (cuda_run.cu:") + std::to_string(line) + "): " + call +
                             ": cuSOLVER status " + std::to_string(static_cast<int>(s)));
}
#define HPLAI_CHECK(call) check((call), #call, __LINE__)

using tcemu::app::Clock;
using tcemu::app::seconds_since;

using tcemu::cuda::DeviceBuffer;

// -------------------------------------------------------------------------------------- kernels

/// LU (column-major, leading dimension n) = A (row-major) converted to T: a 32 x 32 tile transpose.
template <class T>
__global__ void convert_transpose(const double* __restrict__ A, T* __restrict__ LU, std::int64_t n) {
  __shared__ double tile[32][33];
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.y) * 32, c0 = static_cast<std::int64_t>(blockIdx.x) * 32;
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {  // read rows of A: coalesced along j
    const std::int64_t i = r0 + k, j = c0 + threadIdx.x;
    if (i < n && j < n) tile[k][threadIdx.x] = A[i * n + j];
  }
  __syncthreads();
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {  // write columns of LU: coalesced along i
    const std::int64_t j = c0 + k, i = r0 + threadIdx.x;
    if (i < n && j < n) LU[j * n + i] = static_cast<T>(tile[threadIdx.x][k]);
  }
}

/// *out = max(*out, max |X|) over a rows x cols column-major block, as the bit pattern of a
/// non-negative double (monotonic as an unsigned integer; NaN compares above Inf).
template <class T>
__global__ void block_absmax(const T* __restrict__ X, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                             unsigned long long* out) {
  double m = 0;
  const std::int64_t total = rows * cols;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double v = fabs(static_cast<double>(X[(e / rows) * ld + e % rows]));
    m = (v > m || v != v) ? v : m;
  }
  for (int off = 16; off > 0; off >>= 1) {
    const double o = __shfl_down_sync(0xffffffffu, m, off);
    m = (o > m || o != o) ? o : m;
  }
  if ((threadIdx.x & 31) == 0) atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(m)));
}

template <class T>
__global__ void block_scale(T* X, std::int64_t rows, std::int64_t cols, std::int64_t ld, T f) {
  const std::int64_t total = rows * cols;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    X[(e / rows) * ld + e % rows] *= f;
}

/// *first = min over columns j with a pivot that is zero, non-finite or |u_jj| <= tiny.
template <class T>
__global__ void find_bad_pivot(const T* LU, std::int64_t n, double tiny, unsigned long long* first) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double u = static_cast<double>(LU[j * n + j]);
    if (!(fabs(u) > tiny) || !isfinite(u)) atomicMin(first, static_cast<unsigned long long>(j));
  }
}

__global__ void to_float(const double* x, float* y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    y[i] = static_cast<float>(x[i]);
}
__global__ void to_double(const float* x, double* y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    y[i] = static_cast<double>(x[i]);
}

int grid_for(std::int64_t work) { return static_cast<int>(std::min<std::int64_t>((work + 255) / 256, 4096)); }

// ------------------------------------------------------------------------ typed cuBLAS wrappers

cudaDataType data_type(float) { return CUDA_R_32F; }
cudaDataType data_type(double) { return CUDA_R_64F; }

void trsm_left_lower_unit(cublasHandle_t h, std::int64_t m, std::int64_t n, const float* A, std::int64_t lda,
                          float* B, std::int64_t ldb) {
  const float one = 1.0f;
  HPLAI_CHECK(cublasStrsm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, m, n,
                             &one, A, lda, B, ldb));
}
void trsm_left_lower_unit(cublasHandle_t h, std::int64_t m, std::int64_t n, const double* A, std::int64_t lda,
                          double* B, std::int64_t ldb) {
  const double one = 1.0;
  HPLAI_CHECK(cublasDtrsm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, m, n,
                             &one, A, lda, B, ldb));
}
void trsv(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, std::int64_t n, const float* A,
          float* x) {
  HPLAI_CHECK(cublasStrsv_64(h, uplo, CUBLAS_OP_N, diag, n, A, n, x, 1));
}
void trsv(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, std::int64_t n, const double* A,
          double* x) {
  HPLAI_CHECK(cublasDtrsv_64(h, uplo, CUBLAS_OP_N, diag, n, A, n, x, 1));
}

/// Exponent e >= 0 with max * 2^e in [1, 2) (lu.hpp's operand scaling); 0 when max >= 1, 0 or not finite.
int operand_scale(double max) {
  if (!(max > 0) || max >= 1 || !std::isfinite(max)) return 0;
  return -std::ilogb(max);
}

}  // namespace

// ----------------------------------------------------------------------------------------- Impl

struct CudaSession::Impl {
  const System& sys;
  std::int64_t n;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t solver = nullptr;
  cusolverDnParams_t params = nullptr;
  tcemu::cuda::Workspace ws;
  DeviceBuffer<double> A, b;       // A: row-major FP64 as on the host (= column-major A^T)
  bool a_valid = false;            // false after the baseline factored A in place
  double a_max = 0;                // max |a_ij|
  DeviceBuffer<float> lu32, tmp32;
  DeviceBuffer<double> lu64;
  DeviceBuffer<unsigned char> work;
  std::size_t work_bytes = 0;
  std::vector<unsigned char> host_work;
  DeviceBuffer<int> info;
  DeviceBuffer<unsigned long long> scalar;

  explicit Impl(const System& s) : sys(s), n(s.n) {
    HPLAI_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    HPLAI_CHECK(cublasCreate(&blas));
    HPLAI_CHECK(cublasSetStream(blas, stream));
    HPLAI_CHECK(cusolverDnCreate(&solver));
    HPLAI_CHECK(cusolverDnSetStream(solver, stream));
    HPLAI_CHECK(cusolverDnCreateParams(&params));
    A.resize(static_cast<std::size_t>(n * n));
    b.resize(static_cast<std::size_t>(n));
    info.resize(1);
    scalar.resize(1);
    HPLAI_CHECK(cudaMemcpy(b.get(), sys.b.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    upload_a();
    for (std::int64_t i = 0; i < n * n; ++i) a_max = std::max(a_max, std::fabs(sys.A[i]));
  }
  ~Impl() {
    if (params) cusolverDnDestroyParams(params);
    if (solver) cusolverDnDestroy(solver);
    if (blas) cublasDestroy(blas);
    if (stream) cudaStreamDestroy(stream);
  }

  void upload_a() {
    if (a_valid) return;
    HPLAI_CHECK(cudaMemcpy(A.get(), sys.A.data(), static_cast<std::size_t>(n * n) * sizeof(double),
                           cudaMemcpyHostToDevice));
    a_valid = true;
  }
  void sync() { HPLAI_CHECK(cudaStreamSynchronize(stream)); }

  /// Device and host workspaces of cusolverDnXgetrf for an m x k matrix of type dt.
  void getrf_workspace(std::int64_t m, std::int64_t k, cudaDataType dt, void* ptr) {
    std::size_t dbytes = 0, hbytes = 0;
    HPLAI_CHECK(cusolverDnXgetrf_bufferSize(solver, params, m, k, dt, ptr, n, dt, &dbytes, &hbytes));
    work.resize(std::max<std::size_t>(dbytes, 1));
    work_bytes = dbytes;
    if (host_work.size() < hbytes) host_work.resize(hbytes);
  }

  /// max |X| of a column-major block (synchronises).
  template <class T>
  double absmax(const T* X, std::int64_t rows, std::int64_t cols) {
    HPLAI_CHECK(cudaMemsetAsync(scalar.get(), 0, sizeof(unsigned long long), stream));
    block_absmax<T><<<grid_for(rows * cols), 256, 0, stream>>>(X, rows, cols, n, scalar.get());
    HPLAI_CHECK(cudaGetLastError());
    unsigned long long bits = 0;
    HPLAI_CHECK(cudaMemcpyAsync(&bits, scalar.get(), sizeof bits, cudaMemcpyDeviceToHost, stream));
    sync();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  template <class T>
  void scale(T* X, std::int64_t rows, std::int64_t cols, int e) {
    if (e == 0) return;
    block_scale<T><<<grid_for(rows * cols), 256, 0, stream>>>(X, rows, cols, n, static_cast<T>(std::ldexp(1.0, e)));
    HPLAI_CHECK(cudaGetLastError());
  }

  template <class T>
  LuStats factor(T* LU, const LuOptions& lo);
  template <class T>
  SchemeResult run(double a_inf, const tcemu::Scheme& scheme, const RunOptions& opt, DeviceBuffer<T>& lu);
};

template <class T>
LuStats CudaSession::Impl::factor(T* LU, const LuOptions& lo) {
  const std::int64_t nb = std::min(lo.nb, n), panels = (n + nb - 1) / nb;
  const cudaDataType dt = data_type(T{});
  const bool scaled = lo.scale_operands && !lo.gemm.scheme.is_native() &&
                      lo.gemm.scheme.kind != tcemu::SchemeKind::int8_ozaki;
  getrf_workspace(n, nb, dt, LU);
  LuStats st;
  const auto start = Clock::now();
  for (std::int64_t k0 = 0, p = 1; k0 < n; k0 += nb, ++p) {
    const std::int64_t kb = std::min(nb, n - k0), rest = n - k0 - kb;
    T* A11 = LU + k0 * n + k0;
    T* A21 = A11 + kb;      // rows below the diagonal block
    T* A12 = A11 + kb * n;  // columns right of it
    T* A22 = A12 + kb;
    auto t0 = Clock::now();
    // Panel [A11; A21] without pivoting (ipiv = nullptr): L11\U11 and L21 = A21 U11^-1.
    HPLAI_CHECK(cusolverDnXgetrf(solver, params, n - k0, kb, dt, A11, n, nullptr, dt, work.get(), work_bytes,
                                 host_work.data(), host_work.size(), info.get()));
    st.seconds_panel += seconds_since(t0);
    if (rest > 0) {
      t0 = Clock::now();
      trsm_left_lower_unit(blas, kb, rest, A11, n, A12, n);
      st.seconds_solve += seconds_since(t0);
      t0 = Clock::now();
      const int sl = scaled ? operand_scale(absmax(A21, rest, kb)) : 0;
      const int su = scaled ? operand_scale(absmax(A12, kb, rest)) : 0;
      scale(A21, rest, kb, sl);
      scale(A12, kb, rest, su);
      const T alpha = static_cast<T>(-std::ldexp(1.0, -(sl + su)));
      const tcemu::MatrixView<const T> L21{A21, rest, kb, 1, n};
      for (std::int64_t c0 = 0; c0 < rest; c0 += kUpdateChunk) {
        const std::int64_t w = std::min(kUpdateChunk, rest - c0);
        const tcemu::MatrixView<const T> U12{A12 + c0 * n, kb, w, 1, n};
        const tcemu::MatrixView<T> C{A22 + c0 * n, rest, w, 1, n};
        const auto rep = tcemu::cuda::gemm_device<T>(tcemu::Op::N, tcemu::Op::N, alpha, L21, U12, T(1), C,
                                                     lo.gemm, stream, &ws);
        ++st.updates;
        st.gemm.add(rep);
      }
      scale(A21, rest, kb, -sl);
      scale(A12, kb, rest, -su);
      sync();
      st.seconds_update += seconds_since(t0);
    }
    if (lo.progress) lo.progress({p, panels, k0 + kb, seconds_since(start)});
  }
  // Pivots: the first zero / non-finite / negligible one.
  const double tiny = std::numeric_limits<T>::epsilon() / 2 * a_max;
  const unsigned long long none = static_cast<unsigned long long>(n);
  HPLAI_CHECK(cudaMemcpyAsync(scalar.get(), &none, sizeof none, cudaMemcpyHostToDevice, stream));
  find_bad_pivot<T><<<grid_for(n), 256, 0, stream>>>(LU, n, tiny, scalar.get());
  HPLAI_CHECK(cudaGetLastError());
  unsigned long long first = none;
  HPLAI_CHECK(cudaMemcpyAsync(&first, scalar.get(), sizeof first, cudaMemcpyDeviceToHost, stream));
  sync();
  st.seconds = seconds_since(start);
  if (first < none) {
    T u{};
    HPLAI_CHECK(cudaMemcpy(&u, LU + static_cast<std::int64_t>(first) * n + static_cast<std::int64_t>(first),
                           sizeof(T), cudaMemcpyDeviceToHost));
    throw SingularPivot(static_cast<std::int64_t>(first), static_cast<double>(u), tiny);
  }
  return st;
}

/// refine_impl.hpp's vector operations on the device (FP64 vectors, FP64 A^T, T factors).
template <class T>
struct DeviceOps {
  using Vec = DeviceBuffer<double>;
  CudaSession::Impl& s;
  const T* LU;
  std::int64_t n;

  Vec vec() { return Vec(static_cast<std::size_t>(n)); }
  void load_b(Vec& x) {
    HPLAI_CHECK(cudaMemcpyAsync(x.get(), s.b.get(), n * sizeof(double), cudaMemcpyDeviceToDevice, s.stream));
  }
  void precond(Vec& v) {
    if constexpr (std::is_same_v<T, float>) {
      s.tmp32.resize(static_cast<std::size_t>(n));
      to_float<<<grid_for(n), 256, 0, s.stream>>>(v.get(), s.tmp32.get(), n);
      trsv(s.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, n, LU, s.tmp32.get());
      trsv(s.blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, n, LU, s.tmp32.get());
      to_double<<<grid_for(n), 256, 0, s.stream>>>(s.tmp32.get(), v.get(), n);
      HPLAI_CHECK(cudaGetLastError());
    } else {
      trsv(s.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, n, LU, v.get());
      trsv(s.blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, n, LU, v.get());
    }
  }
  void gemv(double alpha, const Vec& x, double beta, Vec& y) {  // y = alpha A x + beta y
    HPLAI_CHECK(cublasDgemv_64(s.blas, CUBLAS_OP_T, n, n, &alpha, s.A.get(), n, x.get(), 1, &beta, y.get(), 1));
  }
  void residual(const Vec& x, Vec& r) {
    load_b(r);
    gemv(-1.0, x, 1.0, r);
  }
  void matvec(const Vec& z, Vec& w) { gemv(1.0, z, 0.0, w); }
  double dot(const Vec& a, const Vec& b) {
    double r = 0;
    HPLAI_CHECK(cublasDdot_64(s.blas, n, a.get(), 1, b.get(), 1, &r));
    return r;
  }
  double nrm2(const Vec& a) {
    double r = 0;
    HPLAI_CHECK(cublasDnrm2_64(s.blas, n, a.get(), 1, &r));
    return r;
  }
  double amax(const Vec& a) {
    if (!std::isfinite(nrm2(a))) return std::numeric_limits<double>::quiet_NaN();
    std::int64_t idx = 0;
    HPLAI_CHECK(cublasIdamax_64(s.blas, n, a.get(), 1, &idx));
    double v = 0;
    HPLAI_CHECK(cudaMemcpy(&v, a.get() + (idx - 1), sizeof v, cudaMemcpyDeviceToHost));
    return std::fabs(v);
  }
  void axpy(double a, const Vec& x, Vec& y) { HPLAI_CHECK(cublasDaxpy_64(s.blas, n, &a, x.get(), 1, y.get(), 1)); }
  void scale(double a, const Vec& x, Vec& y) {
    HPLAI_CHECK(cudaMemcpyAsync(y.get(), x.get(), n * sizeof(double), cudaMemcpyDeviceToDevice, s.stream));
    HPLAI_CHECK(cublasDscal_64(s.blas, n, &a, y.get(), 1));
  }
  std::vector<double> to_host(const Vec& v) {
    std::vector<double> h(static_cast<std::size_t>(n));
    HPLAI_CHECK(cudaMemcpyAsync(h.data(), v.get(), n * sizeof(double), cudaMemcpyDeviceToHost, s.stream));
    s.sync();
    return h;
  }
};

template <class T>
SchemeResult CudaSession::Impl::run(double a_inf, const tcemu::Scheme& scheme, const RunOptions& opt,
                                    DeviceBuffer<T>& lu) {
  upload_a();
  lu.resize(static_cast<std::size_t>(n * n));
  SchemeResult r;
  r.scheme = scheme.name;
  r.storage = std::is_same_v<T, float> ? "fp32" : "fp64";
  const LuOptions lo = lu_options(scheme, opt, n);
  sync();
  const auto t0 = Clock::now();
  dim3 block(32, 8), grid(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>((n + 31) / 32));
  convert_transpose<T><<<grid, block, 0, stream>>>(A.get(), lu.get(), n);
  HPLAI_CHECK(cudaGetLastError());
  LuStats st;
  try {
    st = factor<T>(lu.get(), lo);
  } catch (const SingularPivot& e) {
    throw tcemu::InvalidArgument(scheme.name + ": " + e.what());
  }
  r.factor_seconds = seconds_since(t0);
  record_factorisation(r, st, scheme.name);

  const auto t1 = Clock::now();
  DeviceOps<T> ops{*this, lu.get(), n};
  double b_inf = 0;
  for (double v : sys.b) b_inf = std::max(b_inf, std::fabs(v));
  const RefineResult rr = detail::refine_generic(ops, n, a_inf, b_inf, opt.refine);
  r.refine_seconds = seconds_since(t1);
  record_refinement(r, rr);
  r.total_seconds = r.factor_seconds + r.refine_seconds;
  r.gflops = hpl_flops(n) / r.total_seconds * 1e-9;
  r.pass = r.scaled_residual < kPassThreshold;
  return r;
}

// ---------------------------------------------------------------------------------- CudaSession

CudaSession::CudaSession(const System& sys) : impl_(std::make_unique<Impl>(sys)) {}
CudaSession::~CudaSession() = default;

SchemeResult CudaSession::run_scheme(double a_inf, const tcemu::Scheme& scheme, const RunOptions& options) {
  if (scheme.kind == tcemu::SchemeKind::fp64)
    throw tcemu::InvalidArgument("CudaSession::run_scheme: fp64 is the baseline (run_baseline)");
  return scheme.target == tcemu::Target::fp64 ? impl_->run<double>(a_inf, scheme, options, impl_->lu64)
                                              : impl_->run<float>(a_inf, scheme, options, impl_->lu32);
}

SchemeResult CudaSession::run_baseline(double a_inf) {
  Impl& s = *impl_;
  const std::int64_t n = s.n;
  s.upload_a();
  DeviceBuffer<std::int64_t> ipiv(static_cast<std::size_t>(n));
  DeviceBuffer<double> x(static_cast<std::size_t>(n));
  std::size_t dbytes = 0, hbytes = 0;
  HPLAI_CHECK(cusolverDnXgetrf_bufferSize(s.solver, s.params, n, n, CUDA_R_64F, s.A.get(), n, CUDA_R_64F, &dbytes,
                                          &hbytes));
  s.work.resize(std::max<std::size_t>(dbytes, 1));
  if (s.host_work.size() < hbytes) s.host_work.resize(hbytes);
  HPLAI_CHECK(cudaMemcpyAsync(x.get(), s.b.get(), n * sizeof(double), cudaMemcpyDeviceToDevice, s.stream));
  s.sync();
  SchemeResult r;
  r.scheme = "fp64";
  r.used = "cusolver-getrf";
  r.storage = "fp64";
  r.baseline = true;
  const auto t0 = Clock::now();
  s.a_valid = false;  // factored in place from here on
  HPLAI_CHECK(cusolverDnXgetrf(s.solver, s.params, n, n, CUDA_R_64F, s.A.get(), n, ipiv.get(), CUDA_R_64F,
                               s.work.get(), dbytes, s.host_work.data(), hbytes, s.info.get()));
  int info = 0;
  HPLAI_CHECK(cudaMemcpyAsync(&info, s.info.get(), sizeof info, cudaMemcpyDeviceToHost, s.stream));
  s.sync();
  r.factor_seconds = seconds_since(t0);
  if (info > 0)
    throw tcemu::InvalidArgument("fp64 baseline: cusolverDnXgetrf: U(j,j) is exactly zero at column " +
                                 std::to_string(info - 1) + " (the matrix is singular)");
  const auto t1 = Clock::now();
  HPLAI_CHECK(cusolverDnXgetrs(s.solver, s.params, CUBLAS_OP_T, n, 1, CUDA_R_64F, s.A.get(), n, ipiv.get(),
                               CUDA_R_64F, x.get(), n, s.info.get()));
  s.sync();
  r.refine_seconds = seconds_since(t1);
  r.x.resize(static_cast<std::size_t>(n));
  HPLAI_CHECK(cudaMemcpy(r.x.data(), x.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
  r.scaled_residual = r.initial_scaled_residual = scaled_residual(s.sys, a_inf, r.x);
  r.history = {r.scaled_residual};
  r.total_seconds = r.factor_seconds + r.refine_seconds;
  r.gflops = hpl_flops(n) / r.total_seconds * 1e-9;
  r.pass = r.scaled_residual < kPassThreshold;
  return r;
}

}  // namespace hplai
