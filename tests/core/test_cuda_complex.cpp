// GPU complex GEMM (4M over gemm_device) against the host complex GEMM with the same scheme.
#if defined(TCEMU_HAVE_CUDA)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "tcemu/complex_gemm.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/random.hpp"

namespace tcemu {
namespace {

template <class T>
void check(const char* scheme, Target target, double tol, const cuda::ComplexMethod* method = nullptr) {
  SCOPED_TRACE(scheme);
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  using Z = std::complex<T>;
  const std::int64_t m = 70, n = 33, k = 45;
  std::vector<Z> A(m * k), B(k * n), C(m * n);
  auto fill = [](std::vector<Z>& v, std::uint64_t seed) {
    MatrixView<Z> z{v.data(), static_cast<std::int64_t>(v.size()), 1, 1, 1};
    fill_random(real_view(z), Distribution::parse("phi=0.5"), seed);
    fill_random(imag_view(z), Distribution::parse("phi=0.5"), seed + 1);
  };
  fill(A, 1);
  fill(B, 3);
  fill(C, 5);
  Z *dA, *dB, *dC;
  ASSERT_EQ(cudaMalloc(&dA, sizeof(Z) * A.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dB, sizeof(Z) * B.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dC, sizeof(Z) * C.size()), cudaSuccess);
  cudaMemcpy(dA, A.data(), sizeof(Z) * A.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), sizeof(Z) * B.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C.data(), sizeof(Z) * C.size(), cudaMemcpyHostToDevice);
  GemmOptions opt;
  opt.scheme = parse_scheme(scheme, target);
  opt.execution.calibration = CalibrationPolicy::anchors;  // `auto`: no measurement in a test
  const Z alpha(1.5, 0.25), beta(0.5, -1.0);
  // A as m x k row-major, op(B) = B^T with B stored n x k column-major (= k x n row-major).
  const MatrixView<const Z> a{dA, m, k, k, 1}, ha{A.data(), m, k, k, 1};
  const MatrixView<const Z> b{dB, n, k, 1, n}, hb{B.data(), n, k, 1, n};
  if (method)
    cuda::complex_gemm_device<T>(Op::N, Op::T, alpha, a, b, beta, MatrixView<Z>{dC, m, n, 1, m}, opt, nullptr,
                                 nullptr, *method);
  else
    cuda::complex_gemm_device<T>(Op::N, Op::T, alpha, a, b, beta, MatrixView<Z>{dC, m, n, 1, m}, opt,
                                 nullptr, nullptr);
  std::vector<Z> Cd(C.size());
  cudaMemcpy(Cd.data(), dC, sizeof(Z) * C.size(), cudaMemcpyDeviceToHost);
  complex_gemm_host<T>(Op::N, Op::T, alpha, ha, hb, beta, MatrixView<Z>{C.data(), m, n, 1, m}, opt);
  double d2 = 0, r2 = 0;
  for (std::size_t e = 0; e < C.size(); ++e) {
    d2 += std::norm(std::complex<double>(Cd[e]) - std::complex<double>(C[e]));
    r2 += std::norm(std::complex<double>(C[e]));
  }
  EXPECT_LE(std::sqrt(d2 / r2), tol);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}

// Tolerances: FP32 accumulation-order differences (see test_cuda_gemm.cpp); FP64 paths agree to
// FP64 rounding (the complex combine may contract differently from the host's).
TEST(CudaComplexGemm, MatchesHostFloat) {
  for (const char* s : {"fp32", "fp16x2", "bf16x3", "tf32x2", "int8-ozaki"}) check<float>(s, Target::fp32, 1e-5);
}
TEST(CudaComplexGemm, MatchesHostDouble) {
  for (const char* s : {"fp64", "int8-ozaki"}) check<double>(s, Target::fp64, 1e-14);
}
// ComplexMethod::blas: native schemes through cuBLAS CGEMM / ZGEMM (strided A, transposed B, complex
// alpha and beta); an emulated scheme asked for it runs as automatic.
TEST(CudaComplexGemm, BlasMethodMatchesHost) {
  const cuda::ComplexMethod blas = cuda::ComplexMethod::blas;
  check<float>("fp32", Target::fp32, 1e-5, &blas);
  check<float>("fp16x2", Target::fp32, 1e-5, &blas);
  check<double>("fp64", Target::fp64, 1e-14, &blas);
}

}  // namespace
}  // namespace tcemu
#endif
