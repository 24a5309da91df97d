#pragma once
/// \file schemes/aligned.hpp
/// Line-aligned family (tcemu's own; docs/accuracy.md "Line-aligned schemes"): the high part lies on
/// a grid set by its line's maximum, u = 2^(line_exp + sigma - b), so hi x hi products of a row and a
/// column are integer multiples of u_row u_col and the Tensor Cores sum them exactly (no truncation
/// bias); the lower parts are RN-even of the exact residual.
///   fp16x2-aligned  FP16 parts, operand scaled by 2^sigma into FP16's range, b = 10, 4 products
///   tf32x2-aligned  TF32 parts, no scaling, b = 10, 4 products
///   bf16x3-aligned  BF16 parts, no scaling, b = 7, bf16x3's 6 products (multi-pass only)
/// The split needs every line's maximum, so the backends profile before they split
/// (needs_profile_before_split). Error bound: 2^-22 (bf16x3-aligned 2^-24) of the line's maximum per
/// element, hence the spread rule (lines whose elements lie far below their maximum fall back).
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::split {

/// fp16x2-aligned (tcemu; docs/accuracy.md "fp16x2-aligned"): bits of the high part's grid below
/// its line's exponent. hi = u * RN(x / u) with u = 2^(e - 10), e the line exponent (every |x| of the
/// line < 2^e), so |hi / u| <= 2^10 and hi * hi products of a row and a column are integer multiples
/// of u_row * u_col below 2^20 of it: a Tensor Core step of 16 of them, and a chain of 16 steps,
/// sums them without the 25-bit truncation that biases the standard split (qsim's norm loss).
inline constexpr int kAlignedGridBits = 10;
/// Operands are scaled by 2^sigma before the split so that the largest |x| of the operand lies in
/// [2^14, 2^15): hi <= 2^15 stays finite in FP16 and lo = x - hi (|lo| <= u / 2) keeps 11 bits
/// down to lines 2^-16 below the operand's maximum (lower lines: the FP16 subnormal floor 2^-24).
inline constexpr int kAlignedTopExp = 15;
/// Largest line spread (RangeProfile::max_line_spread_nonzero_bits: log2 of line max / mean nonzero
/// |x|) at which fp16x2-aligned stays within FP32 accuracy: its absolute error per element is 2^-22
/// of the line's maximum, so elements far below it lose relative bits (measured in
/// tests/core/test_gemm_host.cpp before this bound existed: phi = 1 data within 4x SGEMM's error,
/// phi = 2 1.3x over it; such lines have spreads of about 5.3 and 6.9 bits:
/// scripts/experiments/aligned_spread.py).
inline constexpr double kAlignedMaxSpreadBits = 5.0;
/// Bound of |sigma|: 2^-(sigma_A + sigma_B), the factor that undoes the scaling, stays a normal FP32.
inline constexpr int kAlignedMaxScaleExp = 60;

/// Power-of-two scale exponent sigma of an operand whose largest finite |x| is max_abs (see
/// kAlignedTopExp): 15 - ozaki_line_exponent(max_abs), clamped to +-60; 0 for an all-zero operand.
TCEMU_HD int aligned_scale_exp(double max_abs) {
  if (!(max_abs > 0)) return 0;
  const int s = kAlignedTopExp - ozaki_line_exponent(max_abs);
  return s > kAlignedMaxScaleExp ? kAlignedMaxScaleExp : (s < -kAlignedMaxScaleExp ? -kAlignedMaxScaleExp : s);
}

/// fp16x2-aligned's split for one line (scale exponent sigma, line exponent line_exp = ozaki_line_
/// exponent of the line's max |x|), its powers of two computed once: xs = x * 2^sigma (exact), e =
/// line_exp + sigma the scaled line exponent, hi = 2^(e-10) * RN-even(xs / 2^(e-10)) (then RN to FP16,
/// an identity for in-range lines), lo = RN-even FP16 of xs - hi (exact in FP32). Parts stay scaled:
/// they represent x * 2^sigma (recombine(): hi + lo). The scalings are products by exact powers of
/// two, which give ldexpf's values (both round the exact result once) for a few instructions instead
/// of a library call; ldexpf only where a power leaves FP32's normal range (lines far outside the
/// range check's bounds).
struct AlignedSplitter {
  int sigma, unit_exp;
  bool by_product;  ///< all three powers of two are normal FP32 values
  float scale, to_unit, from_unit;

  /// grid_bits: b of the grid u = 2^(line_exp + sigma - b) (fp16x2-aligned's kAlignedGridBits by
  /// default; kAlignedGridBitsTf32 / kAlignedGridBitsBf16 below).
  TCEMU_HD AlignedSplitter(int sigma_, int line_exp, int grid_bits = kAlignedGridBits)
      : sigma(sigma_), unit_exp(line_exp + sigma_ - grid_bits),
        by_product(sigma_ >= -126 && sigma_ <= 127 && unit_exp >= -126 && unit_exp <= 126),
        scale(by_product ? pow2f(sigma_) : 0.f), to_unit(by_product ? pow2f(-unit_exp) : 0.f),
        from_unit(by_product ? pow2f(unit_exp) : 0.f) {}

  /// xs and hi before its rounding to FP16 (kernels that round to FP16 when they pack use these; for
  /// lines inside the range rules hi is already an FP16 value, so xs - hi is lo before its rounding).
  TCEMU_HD void scaled(float x, float& xs, float& hi) const {
    if (by_product) {
      scaled_by_product(x, xs, hi);
    } else {
      xs = ldexpf(x, sigma);
      hi = ldexpf(rintf(ldexpf(xs, -unit_exp)), unit_exp);
    }
  }

  /// scaled() without the ldexpf branch: only for a splitter with by_product (kernels whose range
  /// rules guarantee it for every line they keep; otherwise the result is meaningless, not undefined).
  TCEMU_HD void scaled_by_product(float x, float& xs, float& hi) const {
    xs = x * scale;
    hi = rintf(xs * to_unit) * from_unit;
  }

  /// The parts of x.
  TCEMU_HD Parts operator()(float x) const {
    float xs, hi;
    scaled(x, xs, hi);
    Parts r;
    r.p[0] = bits::to_fp16_rn(hi);
    r.p[1] = bits::to_fp16_rn(xs - r.p[0]);
    return r;
  }
};

/// Parts of x for fp16x2-aligned (AlignedSplitter, for one element).
TCEMU_HD Parts split_aligned(float x, int sigma, int line_exp) { return AlignedSplitter(sigma, line_exp)(x); }

/// Bits of tf32x2-aligned's / bf16x3-aligned's high-part grid below the line exponent: |hi / u| <=
/// 2^b needs b + 1 significant bits, TF32 has 11 and BF16 8. hi x hi products are integer multiples
/// of u_row * u_col below 2^20 (TF32) / 2^14 (BF16) of it, so a Tensor Core step (8 TF32 or 16 BF16
/// products) and the chains behind it add them exactly (docs/accuracy.md "Line-aligned schemes").
inline constexpr int kAlignedGridBitsTf32 = 10;
inline constexpr int kAlignedGridBitsBf16 = 7;
/// Largest line spread (log2 of line max / mean nonzero |x|) kept by tf32x2-aligned and bf16x3-aligned:
/// fp16x2-aligned's 5 bits. tf32x2-aligned has fp16x2-aligned's arithmetic (2^-22 of the line maximum
/// per element). bf16x3-aligned represents an element to 2^-24 of its line's maximum but drops mi x lo,
/// which for elements below the grid (hi = 0) is 2^-8 of their product: with the rule switched off,
/// host n = 512 (tcemu-accuracy, docs/accuracy.md "Line-aligned schemes"): uniform 4.1e-8, phi = 0.5
/// 4.8e-7, phi = 1 2.4e-6 against SGEMM's 2.9e-7 (tf32x2-aligned 1.4e-7, 5.0e-7, 1.1e-6).
inline constexpr double kAlignedMaxSpreadBitsTf32 = kAlignedMaxSpreadBits;
inline constexpr double kAlignedMaxSpreadBitsBf16 = kAlignedMaxSpreadBits;

}  // namespace tcemu::split

namespace tcemu::schemes {

/// fp16x2-aligned's line split (split::AlignedSplitter with b = 10, FP16 parts).
struct Fp16AlignedSplit {
  TCEMU_HD Parts operator()(float x, int sigma, int line_exp) const { return split::split_aligned(x, sigma, line_exp); }
};

/// tf32x2-aligned's / bf16x3-aligned's line split: hi = u * RN-even(x 2^sigma / u), u = 2^(line_exp +
/// sigma - GridBits); lo = RN-even TF32 of the residual (Tf32 = true), or mi, lo = RN-even BF16 of
/// the residual and of what mi leaves (Tf32 = false).
template <int GridBits, bool Tf32>
struct ResidualAlignedSplit {
  TCEMU_HD Parts operator()(float x, int sigma, int line_exp) const {
    using namespace tcemu::bits;
    Parts r;
    float xs, hi;
    split::AlignedSplitter(sigma, line_exp, GridBits).scaled(x, xs, hi);
    const float r1 = xs - hi;
    r.p[0] = hi;
    if (Tf32) {
      r.p[1] = to_tf32_rn(r1);
    } else {
      const float mi = to_bf16_rn(r1);
      r.p[1] = mi;
      r.p[2] = to_bf16_rn(r1 - mi);
    }
    return r;
  }
};

/// fp16x2-aligned: operands scaled by 2^sigma (line maxima up to 2^15), hi on its line's grid; lines
/// 2^-16 and more below the operand's maximum lose lo bits to FP16's subnormal floor (min_exp is not
/// used: the range rule checks the spread between lines instead). The promoted group holds the exact
/// hi x hi chains, every other product shares the low accumulator (unscaled lo).
struct Fp16x2Aligned {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "fp16x2-aligned";
    d.family = ImplFamily::line_aligned;
    d.part = PartType::fp16;
    d.parts = 2;
    d.products = 4;
    d.split = SplitRule::line_aligned;
    d.min_exp = -1074;
    d.max_abs = pow2(75);
    d.precision_bits = d.precision_bits_fp64 = 22;
    d.range_text = "lines >= 2^-16 max";
    d.error_bound = "2^-22 line max per element + k 2^-24 |A||B|";
    d.source = "tcemu: per-line aligned hi (exact hi*hi TC chains)";
    d.table.group({{0, 0}}).group({{0, 1}, {1, 0}, {1, 1}});
    d.fused = FusedTable::hi_low3;
    d.range = RangeRule::scaled_spread;
    d.max_spread_bits = split::kAlignedMaxSpreadBits;
    d.scale_top_exp = split::kAlignedTopExp;
    d.max_scale_exp = split::kAlignedMaxScaleExp;
    d.min_scaled_line_exp = -1;
    return d;
  }();
  using ElementSplit = NoElementSplit;
  using LineSplit = Fp16AlignedSplit;
  static constexpr SchemeKind split_as = SchemeKind::fp16x2_aligned;
};

/// tf32x2-aligned: hi = u * RN(x / u), u = 2^(e - 10), lo = tf32(x - hi): every hi x hi chain exact,
/// the low products (lo x lo kept: small elements live in lo alone) in a second accumulator. No
/// operand scaling (TF32 has FP32's exponent range); hi's grid is one bit coarser than TF32 in the top
/// binade, hence the overflow bound of 9 mantissa bits.
struct Tf32x2Aligned {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "tf32x2-aligned";
    d.family = ImplFamily::line_aligned;
    d.part = PartType::tf32;
    d.parts = 2;
    d.products = 4;
    d.split = SplitRule::line_aligned;
    d.min_exp = -114;
    d.max_abs = rn_overflow_bound(9);
    d.precision_bits = d.precision_bits_fp64 = 22;
    d.range_text = "lines in [-114, 127]";
    d.error_bound = "2^-22 line max per element + k 2^-24 |A||B|";
    d.source = "tcemu: per-line aligned hi (exact hi*hi TC chains)";
    d.table.group({{0, 0}}).group({{0, 1}, {1, 0}, {1, 1}});
    d.fused = FusedTable::hi_low3;
    d.range = RangeRule::bounds_spread;
    d.max_spread_bits = split::kAlignedMaxSpreadBitsTf32;
    return d;
  }();
  using ElementSplit = NoElementSplit;
  using LineSplit = ResidualAlignedSplit<split::kAlignedGridBitsTf32, true>;
  static constexpr SchemeKind split_as = SchemeKind::tf32x2_aligned;
};

/// bf16x3-aligned: hi = u * RN(x / u), u = 2^(e - 7), then mi, lo = bf16 RN of the residual (16 more
/// bits of every element, so bf16x3's six products suffice). Exact hi x hi chains. No fused kernel:
/// bf16x3's kernel chains the low products with hi x hi, which would truncate the exact hi x hi sums
/// again (it runs multi-pass, one GEMM per group).
struct Bf16x3Aligned {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "bf16x3-aligned";
    d.family = ImplFamily::line_aligned;
    d.part = PartType::bf16;
    d.parts = 3;
    d.products = 6;
    d.split = SplitRule::line_aligned;
    d.min_exp = -110;
    d.max_abs = rn_overflow_bound(7);
    d.precision_bits = d.precision_bits_fp64 = 24;
    d.range_text = "lines in [-110, 127]";
    d.error_bound = "2^-24 line max per element + k 2^-24 |A||B|";
    d.source = "tcemu: per-line aligned hi (exact hi*hi TC chains)";
    d.table.group({{0, 0}}).group({{0, 1}, {1, 0}}).group({{0, 2}, {1, 1}, {2, 0}});
    d.fused = FusedTable::none;
    d.range = RangeRule::bounds_spread;
    d.max_spread_bits = split::kAlignedMaxSpreadBitsBf16;
    return d;
  }();
  using ElementSplit = NoElementSplit;
  using LineSplit = ResidualAlignedSplit<split::kAlignedGridBitsBf16, false>;
  static constexpr SchemeKind split_as = SchemeKind::bf16x3_aligned;
};

}  // namespace tcemu::schemes
