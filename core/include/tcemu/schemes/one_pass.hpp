#pragma once
/// \file schemes/one_pass.hpp
/// One-pass family: tf32, bf16, fp16 — each input rounded RN-even to the part format once, one
/// Tensor Core product. The accuracy floors the emulations are compared with. Error bound:
/// about 2 u_p |A||B| per product term (u_p = 2^-11 for TF32 / FP16, 2^-8 for BF16) plus the FP32
/// accumulation's k 2^-24 |A||B|.
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::schemes {

/// Element splits of the one-pass schemes: p0 = RN-even of x to the part format.
struct Tf32Round : PlainRecombine {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    r.p[0] = bits::to_tf32_rn(x);
    return r;
  }
};
struct Bf16Round : PlainRecombine {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    r.p[0] = bits::to_bf16_rn(x);
    return r;
  }
};
struct Fp16Round : PlainRecombine {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    r.p[0] = bits::to_fp16_rn(x);
    return r;
  }
};

namespace one_pass_detail {
constexpr SchemeDescriptor make(const char* name, PartType part, int min_exp, double max_abs, int bits,
                                const char* range_text, const char* error_bound, const char* source) {
  SchemeDescriptor d;
  d.name = name;
  d.family = ImplFamily::one_pass;
  d.target = Target::fp32;
  d.part = part;
  d.split = SplitRule::rn;
  d.min_exp = min_exp;
  d.max_abs = max_abs;
  d.precision_bits = d.precision_bits_fp64 = bits;
  d.range_text = range_text;
  d.error_bound = error_bound;
  d.source = source;
  d.table.group({{0, 0}});
  d.range = RangeRule::bounds;
  return d;
}
}  // namespace one_pass_detail

/// tf32: one pass on TF32 (inputs RN-even to 10 mantissa bits).
struct Tf32 {
  static constexpr SchemeDescriptor desc =
      one_pass_detail::make("tf32", PartType::tf32, -126, rn_overflow_bound(10), 11, "[-126, 127]",
                            "~2^-10 |A||B|", "one pass TF32 (accuracy floor)");
  using ElementSplit = Tf32Round;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::tf32;
};

/// bf16: one pass on BF16 (inputs RN-even to 7 mantissa bits).
struct Bf16 {
  static constexpr SchemeDescriptor desc =
      one_pass_detail::make("bf16", PartType::bf16, -126, rn_overflow_bound(7), 8, "[-126, 127]",
                            "~2^-7 |A||B|", "one pass BF16 (accuracy floor)");
  using ElementSplit = Bf16Round;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::bf16;
};

/// fp16: one pass on FP16 (inputs RN-even to FP16; overflow at 65520, subnormal below 2^-14).
struct Fp16 {
  static constexpr SchemeDescriptor desc =
      one_pass_detail::make("fp16", PartType::fp16, -14, 65520.0, 11, "[-14, 15]", "~2^-10 |A||B|",
                            "one pass FP16 (accuracy floor)");
  using ElementSplit = Fp16Round;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::fp16;
};

}  // namespace tcemu::schemes
