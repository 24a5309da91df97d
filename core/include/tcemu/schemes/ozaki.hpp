#pragma once
/// \file schemes/ozaki.hpp
/// int8-ozaki: the Ozaki scheme on INT8 Tensor Cores (Ootomo, Ozaki, Yokota, "DGEMM on integer
/// matrix multiplication unit", IJHPCA 2024; ozIMMU). Each row of op(A) / column of op(B) gets a
/// power-of-two scale 2^e above its largest |x| and is cut into s fixed-point slices of 7 bits
/// (truncated); then
///   C_ij ~= 2^(eA_i + eB_j) sum_{g = 2}^{s+1} 2^(-7g) sum_{p + q = g} (A(p) B(q))_ij,
/// the s(s+1)/2 slice products with p + q <= s + 1 (the triangle below), each exact in INT32 for
/// k <= 2^17. Error bound: about 2^-(7s-2) |A||B| relative to the line scales (7s - 2 bits per
/// element, slices truncated), falling with the exponent spread inside a line.
#include <string>

#include "tcemu/error.hpp"
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::split {

/// Bits per Ozaki INT8 slice for inner dimension k: min(7, floor((31 - ceil(log2 k)) / 2)), so that
/// k * (2^bits - 1)^2 < 2^31 and the INT32 accumulation of one slice product is exact (ozIMMU).
/// tcemu's backends cut k into chunks of at most 2^17, where this is always 7.
inline int ozaki_bits_per_slice(std::int64_t k) {
  int lg = 0;
  while ((std::int64_t{1} << lg) < k) ++lg;
  const int b = (31 - lg) / 2;
  return b < 7 ? b : 7;
}

/// Largest inner-dimension chunk for which 7-bit slices accumulate exactly in INT32.
inline constexpr std::int64_t kOzakiMaxChunkK = std::int64_t{1} << 17;

/// Cuts x into s INT8 slices of `bits` bits (sign-magnitude, |slice| <= 2^bits - 1 <= 127, never
/// -128) against the line scale 2^line_exp: |x| / 2^line_exp = sum_p |slice_p| 2^(-p*bits) + trunc,
/// with 0 <= trunc < 2^(-s*bits) (truncation, as the Ozaki scheme cuts the mantissa).
/// slice p (1-based) goes to out[(p-1) * stride]. Exact: every step is a power-of-two scaling or the
/// removal of an integer part, both exact in FP64.
template <class Int8>
TCEMU_HD void ozaki_slices(double x, int line_exp, int bits, int s, Int8* out, std::int64_t stride) {
  const bool neg = x < 0;
  double r = std::ldexp(neg ? -x : x, -line_exp);
  const double step = static_cast<double>(1 << bits);
  for (int p = 0; p < s; ++p) {
    r *= step;
    const double d = std::floor(r);
    r -= d;
    const int v = static_cast<int>(d);
    out[p * stride] = static_cast<Int8>(neg ? -v : v);
  }
}

}  // namespace tcemu::split

namespace tcemu::schemes {

/// Largest slice count (7s - 2 = 124 bits: beyond any FP64 line spread worth slicing).
inline constexpr int kOzakiMaxSlices = 18;

/// One slice product of the Ozaki triangle: slice p (1-based) of A times slice q of B, in i+j group
/// g = p + q.
struct OzakiProduct {
  int g, p, q;
};

/// The Ozaki product triangle for s slices, in accumulation order: groups g = s+1 down to 2 (the
/// least significant first, the order of the FP64 sum), within a group p = 1 .. g-1 (q = g - p).
/// first[g] is the index of group g's first product, count(g) = g - 1. Host (host/ozaki.cpp) and
/// CUDA (dispatch/paths_cuda.cpp) both walk this table.
struct OzakiTriangle {
  int slices = 0;
  int size = 0;  ///< s(s+1)/2
  OzakiProduct products[kOzakiMaxSlices * (kOzakiMaxSlices + 1) / 2] = {};

  /// Products of group g (2 <= g <= s+1): g - 1.
  constexpr int count(int g) const { return g - 1; }
  /// Groups in accumulation order: group_at(0) = s + 1, ..., group_at(s - 1) = 2.
  constexpr int group_at(int i) const { return slices + 1 - i; }
  constexpr int groups() const { return slices; }
};

/// The triangle for s slices (1 <= s <= kOzakiMaxSlices), a constant expression.
constexpr OzakiTriangle ozaki_triangle(int s) {
  OzakiTriangle t;
  t.slices = s;
  for (int g = s + 1; g >= 2; --g)
    for (int p = 1; p <= g - 1; ++p) t.products[t.size++] = OzakiProduct{g, p, g - p};
  return t;
}

/// All triangles, generated at compile time: kOzakiTriangles[s] for s = 1 .. kOzakiMaxSlices.
struct OzakiTriangles {
  OzakiTriangle t[kOzakiMaxSlices + 1];
};
inline constexpr OzakiTriangles kOzakiTriangles = [] {
  OzakiTriangles all{};
  for (int s = 1; s <= kOzakiMaxSlices; ++s) all.t[s] = ozaki_triangle(s);
  return all;
}();
static_assert(kOzakiTriangles.t[kOzakiMaxSlices].size == kOzakiMaxSlices * (kOzakiMaxSlices + 1) / 2,
              "the triangle holds s(s+1)/2 products");

/// int8-ozaki[:s]: s slices (0 in the catalogue row: chosen per call from the operands' spread,
/// select.hpp's ozaki_slices_for), s(s+1)/2 products, 7s - 2 bits; the target is the caller's.
struct Int8Ozaki {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "int8-ozaki";
    d.family = ImplFamily::int_slices;
    d.target_per_call = true;
    d.part = PartType::int8;
    d.parts = 0;
    d.products = 0;
    d.split = SplitRule::int_slices;
    d.min_exp = -1074;
    d.max_abs = kInf;
    d.precision_bits = 24;
    d.precision_bits_fp64 = 53;
    d.accuracy = Accuracy::full_bits;
    d.range_text = "any (accuracy falls with exponent spread)";
    d.error_bound = "2^-(7s-2) |A||B| (line scales)";
    d.source = "Ozaki scheme on INT8 (Ootomo, Ozaki, Yokota; ozIMMU)";
    d.range = RangeRule::nonfinite_only;
    d.cost_parts_fp32 = 4;
    d.cost_parts_fp64 = 8;
    // Two slice counts per target fit the per-slice cost term (calibrate.hpp).
    d.calibrate_fp32[0] = 4;
    d.calibrate_fp32[1] = 7;
    d.calibrate_fp64[0] = 6;
    d.calibrate_fp64[1] = 8;
    d.calibrate_fp64[2] = 11;
    d.param_min = 1;
    d.param_max = kOzakiMaxSlices;
    d.param_symbol = "s";
    d.param_name = "slice count";
    d.param_names = "<s> (s = 1..18)";
    d.per_call_parts = "s";
    d.per_call_products = "s(s+1)/2";
    d.per_call_bits = "7s-2";
    return d;
  }();
  using ElementSplit = NoElementSplit;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::int8_ozaki;

  /// Sets `s` (this scheme's catalogue row) to `slices` slices: name "int8-ozaki:<s>", parts = s,
  /// products = s(s+1)/2, precision 7s - 2 bits. Throws InvalidArgument outside 1..18.
  static void parameterize(Scheme& s, int slices) {
    if (slices < 1 || slices > kOzakiMaxSlices)
      throw InvalidArgument("int8-ozaki: slice count " + std::to_string(slices) + " is outside 1..18");
    s.name = std::string(desc.name) + ":" + std::to_string(slices);
    s.parts = slices;
    s.products = slices * (slices + 1) / 2;
    s.precision_bits = 7 * slices - 2;
  }
};

}  // namespace tcemu::schemes
