#pragma once
/// \file matrix.hpp
/// A non-owning strided 2-D view (pointer, shape, strides in elements). Row-major, column-major and
/// transposed operands are all the same type, so the backends need one code path. The public
/// Kokkos-View API (gemm.hpp) converts Views to this.
#include <cstdint>
#include <type_traits>

#include "tcemu/float_bits.hpp"

namespace tcemu {

/// Whether an operand is used as is or transposed: C = alpha * op(A) * op(B) + beta * C.
enum class Op { N, T };

/// Strided view of a rows x cols matrix: element (i, j) is data[i * row_stride + j * col_stride].
/// Row-major: row_stride = ld, col_stride = 1. Column-major: row_stride = 1, col_stride = ld.
template <class T>
struct MatrixView {
  T* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t row_stride = 0;
  std::int64_t col_stride = 1;

  TCEMU_HD T& operator()(std::int64_t i, std::int64_t j) const {
    return data[i * row_stride + j * col_stride];
  }
  /// The same storage seen as its transpose (no copy).
  TCEMU_HD MatrixView transposed() const { return {data, cols, rows, col_stride, row_stride}; }
  /// op(X): the view itself for Op::N, its transpose for Op::T.
  TCEMU_HD MatrixView apply(Op op) const { return op == Op::N ? *this : transposed(); }
  /// Read-only version.
  TCEMU_HD MatrixView<const std::remove_const_t<T>> as_const() const {
    return {data, rows, cols, row_stride, col_stride};
  }
};

/// Row-major view of contiguous storage.
template <class T>
MatrixView<T> row_major(T* data, std::int64_t rows, std::int64_t cols) {
  return {data, rows, cols, cols, 1};
}
/// Column-major view of contiguous storage.
template <class T>
MatrixView<T> col_major(T* data, std::int64_t rows, std::int64_t cols) {
  return {data, rows, cols, 1, rows};
}

}  // namespace tcemu
