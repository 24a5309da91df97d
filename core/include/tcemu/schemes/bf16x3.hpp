#pragma once
/// \file schemes/bf16x3.hpp
/// BF16x3 family: three BF16 parts, hi = bf16(x), mi = bf16(x - hi), lo = bf16(x - hi - mi), all
/// RN-even of the exact FP32 residual (16 + 8 bits of every element: 24, FP32's precision).
///   bf16x3  APE FP32-B (Ma et al., ICS'22): the 6 products with i + j <= 2, three groups
///   bf16x9  all 9 products (cuBLAS's BF16x9 style), five groups by i + j
/// Error bound: bf16x3 drops the products of order 2^-24 and below: about 3 2^-24 |A||B| + k 2^-24
/// |A||B|; bf16x9 keeps every product: the representation error 2^-24 |A||B| + accumulation.
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::schemes {

/// hi, mi, lo RN-even BF16, each from the exact residual of the rounded higher parts.
struct Bf16x3Split : PlainRecombine {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    const float hi = bits::to_bf16_rn(x);
    const float r1 = x - hi;
    const float mi = bits::to_bf16_rn(r1);
    r.p[0] = hi;
    r.p[1] = mi;
    r.p[2] = bits::to_bf16_rn(r1 - mi);
    return r;
  }
};

namespace bf16x3_detail {
constexpr SchemeDescriptor make(const char* name, int products, const char* error_bound, const char* source) {
  SchemeDescriptor d;
  d.name = name;
  d.family = ImplFamily::parts;
  d.part = PartType::bf16;
  d.parts = 3;
  d.products = products;
  d.split = SplitRule::rn;
  d.min_exp = -110;
  d.max_abs = rn_overflow_bound(7);
  d.precision_bits = d.precision_bits_fp64 = 24;
  d.range_text = "[-110, 127]";
  d.error_bound = error_bound;
  d.source = source;
  d.range = RangeRule::bounds;
  return d;
}
}  // namespace bf16x3_detail

/// bf16x3 (APE FP32-B): groups i + j = 0, 1, 2.
struct Bf16x3 {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d = bf16x3_detail::make("bf16x3", 6, "2^-22 |A||B| + k 2^-24 |A||B|", "APE FP32-B");
    d.table.group({{0, 0}}).group({{0, 1}, {1, 0}}).group({{0, 2}, {1, 1}, {2, 0}});
    d.fused = FusedTable::three;
    d.calibrate_fp32[0] = 0;
    d.hybrid = HybridRole::wide;  // APE's wide-range path (FP32's exponent range)
    return d;
  }();
  using ElementSplit = Bf16x3Split;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::bf16x3;
};

/// bf16x9: every product, groups i + j = 0 .. 4. Shares bf16x3's split (and its split-pass writer).
struct Bf16x9 {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d = bf16x3_detail::make("bf16x9", 9, "2^-23 |A||B| + k 2^-24 |A||B|",
                                             "all 9 products (cuBLAS BF16x9 style)");
    d.table.group({{0, 0}}).group({{0, 1}, {1, 0}}).group({{0, 2}, {1, 1}, {2, 0}}).group({{1, 2}, {2, 1}}).group({{2, 2}});
    d.fused = FusedTable::nine;
    d.calibrate_fp32[0] = 0;
    return d;
  }();
  using ElementSplit = Bf16x3Split;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::bf16x3;
};

}  // namespace tcemu::schemes
