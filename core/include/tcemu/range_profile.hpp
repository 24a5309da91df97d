#pragma once
/// \file range_profile.hpp
/// Range profile of a GEMM operand (docs/architecture.md, "Data path of one call"): what `auto` and the range check need
/// to know about the magnitudes in op(A) (per row) and op(B) (per column).
///
/// A "line" is a row of op(A) or a column of op(B): the k elements that meet in one dot product.
#include <cstdint>
#include <string>

#include "tcemu/matrix.hpp"
#include "tcemu/scheme.hpp"

namespace tcemu {

/// Which side of the product an operand is on: lines are rows of op(A), columns of op(B).
enum class Side { A, B };

/// Magnitude statistics of one operand.
struct RangeProfile {
  std::int64_t lines = 0;          ///< rows of op(A) (m) or columns of op(B) (n)
  std::int64_t line_length = 0;    ///< k
  double max_abs = 0;              ///< largest |x| over finite elements
  double min_abs_nonzero = 0;      ///< smallest nonzero |x| (0 if all are zero)
  double min_line_max = 0;         ///< smallest nonzero line maximum (0 if all lines are zero)
  /// max over lines of log2(line max / mean |x| of the line): the mantissa bits a shared-exponent
  /// (Ozaki) split spends on the spread inside a line.
  double max_line_spread_bits = 0;
  /// As max_line_spread_bits with the mean over the line's nonzero |x| only (zeros split exactly in
  /// every scheme): the bits fp16x2-aligned's per-line grid spends on the spread.
  double max_line_spread_nonzero_bits = 0;
  std::int64_t zeros = 0;
  std::int64_t subnormals = 0;     ///< FP32 subnormal elements (or FP64 subnormal for double input)
  std::int64_t nonfinite = 0;      ///< Inf and NaN

  /// One-line summary, e.g. "max|x| 9.9e-01, min|x| 1.2e-07, min line max 9.1e-01, 0 non-finite".
  std::string summary() const;
};

/// Computes the profile of op(X) as the `side` operand, on the host (X must be host-accessible).
template <class T>
RangeProfile profile_host(MatrixView<const T> opX, Side side);

/// Why `scheme` cannot represent an operand with this profile at its precision, or "" if it can.
/// Rules: non-finite values -> native only; max_abs >= scheme.max_abs -> a part would overflow;
/// min_line_max < 2^scheme.min_exp -> a whole line lies below the full-precision range, so its dot
/// products lose relative accuracy. Elements below the range inside a line whose maximum is in range
/// keep an absolute error <= 2^-precision_bits * line max, which is within the scheme's normwise bound.
/// Native and Ozaki schemes only reject non-finite values (native accepts them: IEEE semantics).
std::string range_violation(const Scheme& scheme, const RangeProfile& profile);

}  // namespace tcemu
