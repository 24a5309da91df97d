#pragma once
// Helpers of the GPU tests: host/device matrix pairs with arbitrary strides. Only used when the CUDA
// backend is built (TCEMU_HAVE_CUDA).
#if defined(TCEMU_HAVE_CUDA)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/matrix.hpp"
#include "tcemu/random.hpp"

namespace tcemu::test {

/// Storage orders the tests cycle through.
enum class Layout { row, col, padded_row, padded_col };

/// One GEMM case of the GPU tests: op(A) m x k, op(B) k x n, and the storage order of A, B and C.
struct GemmShape {
  std::int64_t m, n, k;
  Op opA, opB;
  Layout la, lb, lc;
};

/// A rows x cols matrix held on the host and on the device with the same strides.
template <class T>
struct DualMatrix {
  std::int64_t rows = 0, cols = 0, rs = 0, cs = 0, size = 0;
  std::vector<T> h;
  T* d = nullptr;

  DualMatrix(std::int64_t r, std::int64_t c, Layout layout) : rows(r), cols(c) {
    switch (layout) {
      case Layout::row: rs = c; cs = 1; break;
      case Layout::col: rs = 1; cs = r; break;
      case Layout::padded_row: rs = c + 5; cs = 1; break;  // sub-view of a wider matrix
      case Layout::padded_col: rs = 1; cs = r + 3; break;
    }
    size = (r - 1) * rs + (c - 1) * cs + 1;
    if (r == 0 || c == 0) size = 1;
    h.assign(static_cast<std::size_t>(size), T(0));
    if (cudaMalloc(&d, sizeof(T) * size) != cudaSuccess) throw std::runtime_error("cudaMalloc failed");
  }
  ~DualMatrix() { cudaFree(d); }
  DualMatrix(const DualMatrix&) = delete;
  DualMatrix& operator=(const DualMatrix&) = delete;

  MatrixView<T> host() { return {h.data(), rows, cols, rs, cs}; }
  MatrixView<T> dev() { return {d, rows, cols, rs, cs}; }
  /// Fills the host copy with fill_random(dist, seed) and uploads it.
  void fill_and_upload(const char* dist, std::uint64_t seed) {
    fill_random(host(), Distribution::parse(dist), seed);
    upload();
  }
  void upload() {
    if (cudaMemcpy(d, h.data(), sizeof(T) * size, cudaMemcpyHostToDevice) != cudaSuccess)
      throw std::runtime_error("upload failed");
  }
  std::vector<T> download() const {
    std::vector<T> out(static_cast<std::size_t>(size));
    if (cudaMemcpy(out.data(), d, sizeof(T) * size, cudaMemcpyDeviceToHost) != cudaSuccess)
      throw std::runtime_error("download failed");
    return out;
  }
};

/// ||X - Y||_F / ||R||_F over the matrix entries (X, Y with the strides of `m`), R row-major.
template <class T>
double rel_diff(const DualMatrix<T>& m, const std::vector<T>& x, const std::vector<T>& y,
                const std::vector<double>& R) {
  double d2 = 0, r2 = 0;
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t j = 0; j < m.cols; ++j) {
      const std::int64_t e = i * m.rs + j * m.cs;
      const double d = double(x[e]) - double(y[e]);
      d2 += d * d;
      r2 += R[i * m.cols + j] * R[i * m.cols + j];
    }
  return std::sqrt(d2 / r2);
}

/// ||X - R||_F / ||R||_F (R row-major).
template <class T>
double rel_err(const DualMatrix<T>& m, const std::vector<T>& x, const std::vector<double>& R) {
  double d2 = 0, r2 = 0;
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t j = 0; j < m.cols; ++j) {
      const double d = double(x[i * m.rs + j * m.cs]) - R[i * m.cols + j];
      d2 += d * d;
      r2 += R[i * m.cols + j] * R[i * m.cols + j];
    }
  return std::sqrt(d2 / r2);
}

/// Number of non-finite entries of the matrix part of x.
template <class T>
std::int64_t nonfinite(const DualMatrix<T>& m, const std::vector<T>& x) {
  std::int64_t c = 0;
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t j = 0; j < m.cols; ++j) c += !std::isfinite(double(x[i * m.rs + j * m.cs]));
  return c;
}

#define TCEMU_REQUIRE_GPU()                                                    \
  do {                                                                         \
    if (!::tcemu::cuda::device_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

}  // namespace tcemu::test
#endif
