// Range profile of an operand (per line: max, mean |x|; totals of zeros, subnormals, non-finite).
#include "tcemu/range_profile.hpp"
#include "tcemu/split.hpp"

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace tcemu {

std::string RangeProfile::summary() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "max|x| %.3e, min nonzero |x| %.3e, min line max %.3e, line spread %.1f bits, "
                "%lld zeros, %lld subnormal, %lld non-finite",
                max_abs, min_abs_nonzero, min_line_max, max_line_spread_bits,
                static_cast<long long>(zeros), static_cast<long long>(subnormals),
                static_cast<long long>(nonfinite));
  return buf;
}

namespace {
struct LineStats {
  double max_abs = 0, sum_abs = 0, min_nonzero = std::numeric_limits<double>::infinity();
  std::int64_t zeros = 0, subnormals = 0, nonfinite = 0;
};
}  // namespace

template <class T>
RangeProfile profile_host(MatrixView<const T> x, Side side) {
  // Lines are rows of op(A) and columns of op(B); look at B through its transpose.
  const MatrixView<const T> v = side == Side::A ? x : x.transposed();
  RangeProfile p;
  p.lines = v.rows;
  p.line_length = v.cols;
  std::vector<LineStats> stats(static_cast<std::size_t>(v.rows));
  LineStats* st = stats.data();
  const double min_normal = static_cast<double>(std::numeric_limits<T>::min());
  Kokkos::parallel_for(
      "tcemu::profile_host", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, v.rows),
      [=](const std::int64_t i) {
        LineStats s;
        for (std::int64_t j = 0; j < v.cols; ++j) {
          const double a = std::fabs(static_cast<double>(v(i, j)));
          if (!std::isfinite(a)) {
            ++s.nonfinite;
            continue;
          }
          if (a == 0) {
            ++s.zeros;
            continue;
          }
          if (a < min_normal) ++s.subnormals;
          s.max_abs = a > s.max_abs ? a : s.max_abs;
          s.min_nonzero = a < s.min_nonzero ? a : s.min_nonzero;
          s.sum_abs += a;
        }
        st[i] = s;
      });
  double min_nonzero = std::numeric_limits<double>::infinity();
  double min_line_max = std::numeric_limits<double>::infinity();
  for (const auto& s : stats) {
    p.max_abs = std::max(p.max_abs, s.max_abs);
    min_nonzero = std::min(min_nonzero, s.min_nonzero);
    if (s.max_abs > 0) {
      min_line_max = std::min(min_line_max, s.max_abs);
      const double mean = s.sum_abs / static_cast<double>(v.cols);
      p.max_line_spread_bits = std::max(p.max_line_spread_bits, std::log2(s.max_abs / mean));
      const double nnz = static_cast<double>(v.cols - s.zeros - s.nonfinite);
      p.max_line_spread_nonzero_bits =
          std::max(p.max_line_spread_nonzero_bits, std::log2(s.max_abs / (s.sum_abs / nnz)));
    }
    p.zeros += s.zeros;
    p.subnormals += s.subnormals;
    p.nonfinite += s.nonfinite;
  }
  p.min_abs_nonzero = std::isfinite(min_nonzero) ? min_nonzero : 0.0;
  p.min_line_max = std::isfinite(min_line_max) ? min_line_max : 0.0;
  return p;
}

template RangeProfile profile_host<float>(MatrixView<const float>, Side);
template RangeProfile profile_host<double>(MatrixView<const double>, Side);

namespace {

/// The line-aligned schemes' spread rule: their error per element is a fixed fraction of the line's
/// maximum, so a line whose elements lie far below its maximum loses relative accuracy.
std::string aligned_spread_violation(const RangeProfile& p, double max_bits) {
  if (!(p.max_line_spread_nonzero_bits > max_bits)) return "";
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "a line's max |x| is 2^%.1f times the mean of its nonzero |x| (more than 2^%.0f): the "
                "line's grid leaves its small elements too few bits",
                p.max_line_spread_nonzero_bits, max_bits);
  return buf;
}

}  // namespace

std::string range_violation(const Scheme& scheme, const RangeProfile& p) {
  char buf[320];
  const schemes::SchemeDescriptor& d = schemes::descriptor(scheme.kind);
  if (d.range == RangeRule::none) return "";
  if (p.nonfinite > 0) {
    std::snprintf(buf, sizeof buf,
                  "%lld non-finite value(s) (Inf/NaN); only native arithmetic propagates them",
                  static_cast<long long>(p.nonfinite));
    return buf;
  }
  if (d.range == RangeRule::nonfinite_only) return "";
  if (d.range == RangeRule::scaled_spread) {
    // The operand is scaled so that its maximum lies in [2^(top-1), 2^top) (split::aligned_scale_exp).
    const int e = split::ozaki_line_exponent(p.max_abs), sigma = split::aligned_scale_exp(scheme.kind, p.max_abs);
    if (p.max_abs > 0 && e + sigma > d.scale_top_exp) {
      std::snprintf(buf, sizeof buf, "max |x| = %.6g >= 2^%d, beyond the scaling range of %s", p.max_abs,
                    d.scale_top_exp + d.max_scale_exp, scheme.name.c_str());
      return buf;
    }
    if (p.min_line_max > 0 && split::ozaki_line_exponent(p.min_line_max) + sigma < d.min_scaled_line_exp) {
      std::snprintf(buf, sizeof buf,
                    "a line (row of op(A) / column of op(B)) has max |x| = %.6g, below 2^-2 even after the "
                    "operand's scaling by 2^%d (lines more than 2^16 below the operand's max %.6g), so its "
                    "low parts fall below FP16's range",
                    p.min_line_max, sigma, p.max_abs);
      return buf;
    }
    return aligned_spread_violation(p, d.max_spread_bits);
  }
  if (p.max_abs >= scheme.max_abs) {
    std::snprintf(buf, sizeof buf, "max |x| = %.6g >= %.6g, where a %s part overflows", p.max_abs,
                  scheme.max_abs, to_string(scheme.part));
    return buf;
  }
  if (p.min_line_max > 0 && p.min_line_max < std::ldexp(1.0, scheme.min_exp)) {
    std::snprintf(buf, sizeof buf,
                  "a line (row of op(A) / column of op(B)) has max |x| = %.6g < 2^%d, below the "
                  "full-precision range, so its dot products lose relative accuracy",
                  p.min_line_max, scheme.min_exp);
    return buf;
  }
  if (d.range == RangeRule::bounds_spread) return aligned_spread_violation(p, d.max_spread_bits);
  return "";
}

}  // namespace tcemu
