#pragma once
/// \file schemes/tf32x2.hpp
/// tf32x2: APE FP32-T / "3xTF32" (Ma et al., ICS'22; NVIDIA CUTLASS 3xTF32): hi = tf32(x),
/// lo = tf32(x - hi), both RN-even, unscaled; hi x hi promoted, the cross terms in a second
/// accumulator (lo x lo dropped). Full precision for |x| in [2^-114, 2^128) minus TF32's overflow
/// margin. Error bound: (2^-21 + 2^-22) |A||B| + k 2^-24 |A||B| (FP32 accumulation).
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::schemes {

/// hi = RN-even tf32(x), lo = RN-even tf32(x - hi) (x - hi exact in FP32).
struct Tf32x2Split : PlainRecombine {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    const float hi = bits::to_tf32_rn(x);
    r.p[0] = hi;
    r.p[1] = bits::to_tf32_rn(x - hi);
    return r;
  }
};

struct Tf32x2 {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "tf32x2";
    d.family = ImplFamily::parts;
    d.part = PartType::tf32;
    d.parts = 2;
    d.products = 3;
    d.split = SplitRule::rn;
    d.min_exp = -114;
    d.max_abs = rn_overflow_bound(10);
    d.precision_bits = d.precision_bits_fp64 = 22;
    d.range_text = "[-114, 127]";
    d.error_bound = "2^-21 |A||B| + k 2^-24 |A||B|";
    d.source = "APE FP32-T / 3xTF32";
    d.table.group({{0, 0}}).group({{0, 1}, {1, 0}});
    d.fused = FusedTable::hi_cross;
    d.range = RangeRule::bounds;
    d.calibrate_fp32[0] = 0;
    return d;
  }();
  using ElementSplit = Tf32x2Split;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::tf32x2;
};

}  // namespace tcemu::schemes
