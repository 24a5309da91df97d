#pragma once
/// \file reference_cuda.hpp
/// Device-side helpers for measuring the CUDA backend (tcemu-bench, GPU tests): seeded random inputs
/// generated on the GPU, a double-double reference for sampled entries, and error reductions.
/// All views are of device memory. No CUDA header is included.
#include <cstdint>
#include <vector>

#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/random.hpp"

namespace tcemu::cuda {

/// Fills X with draws of `dist` (distributions of docs/accuracy.md, "Metrics and inputs") from a counter-based generator
/// (splitmix64 of seed and element index; Box-Muller for the normal factor). Deterministic for a
/// seed, never exactly zero. Not the same stream as tcemu::fill_random (which runs on the host).
template <class T>
void fill_random_device(MatrixView<T> X, const Distribution& dist, std::uint64_t seed, Stream stream);

/// (op(A) op(B))(rows[e], cols[e]) for each sample e, accumulated in double-double arithmetic
/// (TwoProd with FMA, TwoSum; about 106 bits, so exact to FP64 rounding for any k in use) and
/// rounded to double. One warp per sample. Returns the host vector of references.
template <class T>
std::vector<double> reference_dd_sampled(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B,
                                         const std::vector<std::int64_t>& rows,
                                         const std::vector<std::int64_t>& cols, Stream stream);

/// C(rows[e], cols[e]) copied to the host as double.
template <class T>
std::vector<double> gather_device(MatrixView<const T> C, const std::vector<std::int64_t>& rows,
                                  const std::vector<std::int64_t>& cols, Stream stream);

/// Copies X into a column-major double matrix `out` with leading dimension ld (>= X.rows).
template <class T>
void to_double_device(MatrixView<const T> X, double* out, std::int64_t ld, Stream stream);

/// ||C - R||_F / ||R||_F with R column-major double (leading dimension ldr), reduced on the device.
template <class T>
double rel_frobenius_device(MatrixView<const T> C, const double* R, std::int64_t ldr, Stream stream);

/// Writes `value` into every element of X (e.g. NaN to poison an output before a run).
template <class T>
void fill_value_device(MatrixView<T> X, T value, Stream stream);

/// Number of elements of X that are NaN or Inf (checks that every output was written).
template <class T>
std::int64_t count_nonfinite_device(MatrixView<const T> X, Stream stream);

}  // namespace tcemu::cuda
