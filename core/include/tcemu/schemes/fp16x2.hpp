#pragma once
/// \file schemes/fp16x2.hpp
/// FP16x2 family: two FP16 parts per element, hi x hi and the cross terms on FP16 Tensor Cores.
/// Four published variants that differ in how x is cut and which products are kept:
///   fp16x2           APE FP32-F (Ma et al., ICS'22): hi = fp16(x), lo = fp16((x - hi) 2^12), 3 products
///   fp16x2-markidis  Markidis et al., IPDPSW 2018: hi = RZ(x), lo = RZ(x - hi), 4 products, one accumulator
///   fp16x2-egemm     EGEMM-TC (Feng et al., PPoPP'21): hi = RN(x), lo = RN(x - hi), 4 products
///   fp16x2-legemm    LE-GEMM (Zhang et al., JSA 2025): hi = bit-cut(x), lo = RZ((x - hi) 2^10), 3 products
/// Error bound (in-range inputs): each element is represented to 2^-precision_bits of itself, so
/// |C - AB| <= (2 2^-p + dropped lo x lo ~ 2^-22) |A||B| + the FP32 accumulation's k 2^-24 |A||B|.
/// The residual x - hi is exact in FP32 for all four rules.
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::split {
/// Scale exponent of APE FP32-F's low part: lo = fp16((x - hi) * 2^12). With it the full-precision
/// range is 2^-14 <= |x| < 2^15 (at 2^15 a half-ulp residual times 2^12 overflows FP16).
inline constexpr int kApeLoScaleExp = 12;
/// Scale exponent of LE-GEMM's residual: lo = RZ((x - hi) * 2^10).
inline constexpr int kLeGemmLoScaleExp = 10;
}  // namespace tcemu::split

namespace tcemu::schemes {

/// APE FP32-F split: hi = RN-even fp16(x), lo = RN-even fp16((x - hi) 2^12); x = hi + lo 2^-12.
struct ApeFp16Split {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    const float hi = bits::to_fp16_rn(x);
    r.p[0] = hi;
    r.p[1] = bits::to_fp16_rn((x - hi) * static_cast<float>(1 << split::kApeLoScaleExp));
    return r;
  }
  TCEMU_HD static double recombine(const Parts& s) {
    return double(s.p[0]) + double(s.p[1]) / double(1 << split::kApeLoScaleExp);
  }
};

/// Markidis' truncate-split, unscaled: hi = RZ fp16(x), lo = RZ fp16(x - hi).
struct TruncateFp16Split : PlainRecombine {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    const float hi = bits::to_fp16_rz(x);
    r.p[0] = hi;
    r.p[1] = bits::to_fp16_rz(x - hi);
    return r;
  }
};

/// EGEMM-TC's round-split, unscaled: hi = RN fp16(x), lo = RN fp16(x - hi).
struct RoundFp16Split : PlainRecombine {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    const float hi = bits::to_fp16_rn(x);
    r.p[0] = hi;
    r.p[1] = bits::to_fp16_rn(x - hi);
    return r;
  }
};

/// LE-GEMM: bit-cut high part, RZ residual scaled 2^10; x = hi + lo 2^-10.
struct BitcutFp16Split {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    const float hi = bits::to_fp16_rz(x);
    r.p[0] = hi;
    r.p[1] = bits::to_fp16_rz((x - hi) * static_cast<float>(1 << split::kLeGemmLoScaleExp));
    return r;
  }
  TCEMU_HD static double recombine(const Parts& s) {
    return double(s.p[0]) + double(s.p[1]) / double(1 << split::kLeGemmLoScaleExp);
  }
};

namespace fp16x2_detail {
constexpr SchemeDescriptor make(const char* name, int products, SplitRule rule, int min_exp, double max_abs,
                                int bits, const char* range_text, const char* error_bound, const char* source) {
  SchemeDescriptor d;
  d.name = name;
  d.family = ImplFamily::parts;
  d.target = Target::fp32;
  d.part = PartType::fp16;
  d.parts = 2;
  d.products = products;
  d.split = rule;
  d.min_exp = min_exp;
  d.max_abs = max_abs;
  d.precision_bits = d.precision_bits_fp64 = bits;
  d.range_text = range_text;
  d.error_bound = error_bound;
  d.source = source;
  d.range = RangeRule::bounds;
  return d;
}
}  // namespace fp16x2_detail

/// fp16x2 (APE FP32-F): hi*hi in the promoted accumulator, the two cross terms in a second one
/// scaled 2^-12 (lo carries 2^12).
struct Fp16x2Ape {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d = fp16x2_detail::make("fp16x2", 3, SplitRule::rn, -14, 32768.0, 22, "[-14, 14]",
                                             "2^-21 |A||B| + k 2^-24 |A||B|", "APE FP32-F (Ma et al., ICS'22)");
    d.table.group({{0, 0}}).group({{0, 1}, {1, 0}}, -split::kApeLoScaleExp);
    d.fused = FusedTable::hi_cross;
    d.calibrate_fp32[0] = 0;
    d.hybrid = HybridRole::fast;  // APE's fast path for in-range blocks
    return d;
  }();
  using ElementSplit = ApeFp16Split;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::fp16x2;
};

/// fp16x2-markidis: all four products in one accumulator, smallest product first (the order EGEMM-TC uses).
struct Fp16x2Markidis {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d = fp16x2_detail::make("fp16x2-markidis", 4, SplitRule::truncate, -2, 65536.0, 20,
                                             "[-2, 15]", "2^-19 |A||B| + k 2^-24 |A||B|",
                                             "Markidis et al. 2018 (the papers' baseline)");
    d.table.group({{1, 1}, {1, 0}, {0, 1}, {0, 0}});
    d.fused = FusedTable::all_four;
    return d;
  }();
  using ElementSplit = TruncateFp16Split;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::fp16x2_markidis;
};

/// fp16x2-egemm: EGEMM-TC's round-split, the four products in one accumulator.
struct Fp16x2Egemm {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d = fp16x2_detail::make("fp16x2-egemm", 4, SplitRule::round_split, -2, 65520.0, 21,
                                             "[-2, 15]", "2^-20 |A||B| + k 2^-24 |A||B|",
                                             "EGEMM-TC (Feng et al., PPoPP'21)");
    d.table.group({{1, 1}, {1, 0}, {0, 1}, {0, 0}});
    d.fused = FusedTable::all_four;
    return d;
  }();
  using ElementSplit = RoundFp16Split;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::fp16x2_egemm;
};

/// fp16x2-legemm: hi*hi promoted, the cross terms in a second accumulator scaled 2^-10.
struct Fp16x2Legemm {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d = fp16x2_detail::make("fp16x2-legemm", 3, SplitRule::bitcut_rz, -14, 65536.0, 20,
                                             "[-14, 15]", "2^-19 |A||B| + k 2^-24 |A||B|",
                                             "LE-GEMM (Zhang et al., JSA 2025)");
    d.table.group({{0, 0}}).group({{0, 1}, {1, 0}}, -split::kLeGemmLoScaleExp);
    d.fused = FusedTable::hi_cross;
    return d;
  }();
  using ElementSplit = BitcutFp16Split;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::fp16x2_legemm;
};

}  // namespace tcemu::schemes
