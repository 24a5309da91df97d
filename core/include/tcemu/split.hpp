#pragma once
/// \file split.hpp
/// Element-wise split rules of every emulation scheme (DESIGN.md section 3; formulas from
/// shared/seeds/notes). Each function maps one input element to its parts, exactly as the scheme's
/// Tensor Core kernels see them (scaled parts stay scaled; the combine step undoes the scale). They are
/// __host__ __device__, so the CUDA split kernels and the host reference share one definition.
///
/// Every split takes the residual from the *rounded* higher part (x - hi is exact in FP32 for all
/// these rules), rounds RN-even where the paper says round, and RZ where it says truncate/bit-cut.
#include <cmath>
#include <cstdint>

#include "tcemu/float_bits.hpp"
#include "tcemu/scheme.hpp"

namespace tcemu::split {

/// Scale exponent of APE FP32-F's low part: lo = fp16((x - hi) * 2^12). With it the full-precision
/// range is 2^-14 <= |x| < 2^15 (at 2^15 a half-ulp residual times 2^12 overflows FP16).
inline constexpr int kApeLoScaleExp = 12;
/// Scale exponent of LE-GEMM's residual: lo = RZ((x - hi) * 2^10).
inline constexpr int kLeGemmLoScaleExp = 10;

/// Parts of one element (up to 3; unused entries are 0).
struct Parts {
  float p[3] = {0.f, 0.f, 0.f};
};

/// Splits x (FP32) by the rule of `kind`; the result holds `parts` values exactly representable in
/// the scheme's part type. Native kinds return {x}. Not defined for int8_ozaki / automatic (use
/// ozaki_slices()) and the line-aligned kinds (their grid depends on the line: split_aligned()). Inf/NaN propagate into the parts (the range check keeps them away).
TCEMU_HD Parts split_element(SchemeKind kind, float x) {
  using namespace tcemu::bits;
  Parts r;
  switch (kind) {
    case SchemeKind::tf32: r.p[0] = to_tf32_rn(x); break;
    case SchemeKind::bf16: r.p[0] = to_bf16_rn(x); break;
    case SchemeKind::fp16: r.p[0] = to_fp16_rn(x); break;
    case SchemeKind::fp16x2: {  // APE FP32-F
      const float hi = to_fp16_rn(x);
      r.p[0] = hi;
      r.p[1] = to_fp16_rn((x - hi) * static_cast<float>(1 << kApeLoScaleExp));
      break;
    }
    case SchemeKind::fp16x2_markidis: {  // truncate-split, unscaled
      const float hi = to_fp16_rz(x);
      r.p[0] = hi;
      r.p[1] = to_fp16_rz(x - hi);
      break;
    }
    case SchemeKind::fp16x2_egemm: {  // round-split, unscaled
      const float hi = to_fp16_rn(x);
      r.p[0] = hi;
      r.p[1] = to_fp16_rn(x - hi);
      break;
    }
    case SchemeKind::fp16x2_legemm: {  // bit-cut high part, RZ residual scaled 2^10
      const float hi = to_fp16_rz(x);
      r.p[0] = hi;
      r.p[1] = to_fp16_rz((x - hi) * static_cast<float>(1 << kLeGemmLoScaleExp));
      break;
    }
    case SchemeKind::tf32x2: {
      const float hi = to_tf32_rn(x);
      r.p[0] = hi;
      r.p[1] = to_tf32_rn(x - hi);
      break;
    }
    case SchemeKind::bf16x3:
    case SchemeKind::bf16x9: {
      const float hi = to_bf16_rn(x);
      const float r1 = x - hi;
      const float mi = to_bf16_rn(r1);
      r.p[0] = hi;
      r.p[1] = mi;
      r.p[2] = to_bf16_rn(r1 - mi);
      break;
    }
    default: r.p[0] = x; break;
  }
  return r;
}

/// Value the parts represent: sum of part_i * 2^(-scale_i) for the scheme's part scales
/// (fp16x2: hi + lo * 2^-12; legemm: hi + lo * 2^-10; others: plain sum), evaluated in double.
TCEMU_HD double recombine(SchemeKind kind, const Parts& s) {
  switch (kind) {
    case SchemeKind::fp16x2: return double(s.p[0]) + double(s.p[1]) / double(1 << kApeLoScaleExp);
    case SchemeKind::fp16x2_legemm:
      return double(s.p[0]) + double(s.p[1]) / double(1 << kLeGemmLoScaleExp);
    default: return double(s.p[0]) + double(s.p[1]) + double(s.p[2]);
  }
}

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

/// Power-of-two scale exponent of a line (row of A / column of B) whose largest |x| is line_max:
/// the smallest e with line_max < 2^e (so every |x| / 2^e lies in [0, 1)); 0 for an all-zero line.
TCEMU_HD int ozaki_line_exponent(double line_max) {
  if (!(line_max > 0)) return 0;
  int e = 0;
  (void)std::frexp(line_max, &e);  // line_max = f * 2^e, f in [0.5, 1)
  return e;
}

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

/// 2^k as FP32 (exact) for -126 <= k <= 127.
TCEMU_HD float pow2f(int k) { return bits::u2f(static_cast<std::uint32_t>(k + 127) << 23); }

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

/// Scale exponent sigma of a line-aligned scheme's operand with largest |x| max_abs: fp16x2-aligned
/// scales into FP16's range (aligned_scale_exp); TF32 and BF16 parts have FP32's exponent range and
/// are not scaled (0).
TCEMU_HD int aligned_scale_exp(SchemeKind kind, double max_abs) {
  return kind == SchemeKind::fp16x2_aligned ? aligned_scale_exp(max_abs) : 0;
}

/// Parts of x for a line-aligned scheme (fp16x2-aligned, tf32x2-aligned, bf16x3-aligned), given the
/// operand's sigma (aligned_scale_exp(kind, ...)) and the line's exponent (ozaki_line_exponent of its
/// maximum): hi = u * RN-even(x 2^sigma / u), u = 2^(line_exp + sigma - b) (b: 10, 10, 7); the lower
/// parts are RN-even in the part format of the residual x 2^sigma - hi (exact in FP32) and of what
/// the middle part leaves (bf16x3-aligned). Other kinds: all parts 0.
TCEMU_HD Parts split_aligned(SchemeKind kind, float x, int sigma, int line_exp) {
  using namespace tcemu::bits;
  if (kind == SchemeKind::fp16x2_aligned) return split_aligned(x, sigma, line_exp);
  Parts r;
  if (!is_line_aligned(kind)) return r;
  const bool tf32 = kind == SchemeKind::tf32x2_aligned;
  float xs, hi;
  AlignedSplitter(sigma, line_exp, tf32 ? kAlignedGridBitsTf32 : kAlignedGridBitsBf16).scaled(x, xs, hi);
  const float r1 = xs - hi;
  r.p[0] = hi;
  if (tf32) {
    r.p[1] = to_tf32_rn(r1);
  } else {
    const float mi = to_bf16_rn(r1);
    r.p[1] = mi;
    r.p[2] = to_bf16_rn(r1 - mi);
  }
  return r;
}

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
