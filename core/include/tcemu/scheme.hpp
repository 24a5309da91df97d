#pragma once
/// \file scheme.hpp
/// The scheme catalogue (DESIGN.md section 3): every way tcemu can compute a GEMM, native or emulated,
/// described as data so that the host backend, the CUDA backend, `auto` and `--list-schemes` all read
/// the same description.
#include <string>
#include <vector>

namespace tcemu {

/// Accuracy a GEMM result must reach: that of native FP32 or of native FP64.
enum class Target { fp32, fp64 };

/// "fp32" / "fp64".
const char* to_string(Target t);
/// Parses "fp32" / "fp64"; throws InvalidArgument naming the value otherwise.
Target parse_target(const std::string& s);

/// Identity of a scheme (one row of the catalogue).
enum class SchemeKind {
  fp64,             ///< native FP64 (reference)
  fp32,             ///< native FP32 (CUDA cores / host SGEMM)
  tf32,             ///< one pass, inputs rounded RN-even to TF32
  bf16,             ///< one pass, inputs rounded RN-even to BF16
  fp16,             ///< one pass, inputs rounded RN-even to FP16
  fp16x2,           ///< APE FP32-F: hi = fp16(x), lo = fp16((x-hi)*2^12), 3 products
  fp16x2_markidis,  ///< Markidis: hi = RZ(x), lo = RZ(x-hi), unscaled, 4 products, one accumulator
  fp16x2_egemm,     ///< EGEMM-TC: round-split hi = RN(x), lo = RN(x-hi), unscaled, 4 products
  fp16x2_legemm,    ///< LE-GEMM: hi = bit-cut(x), lo = RZ((x-hi)*2^10), 3 products, 2 accumulators
  fp16x2_aligned,   ///< hi on a per-line grid (exact hi*hi on Tensor Cores), lo = fp16(x-hi), 4 products
  tf32x2,           ///< APE FP32-T / "3xTF32": hi, lo TF32 RN-even, 3 products
  tf32x2_aligned,   ///< hi on a per-line grid (exact hi*hi on Tensor Cores), lo = tf32(x-hi), 4 products
  bf16x3,           ///< APE FP32-B: hi, mi, lo BF16 RN-even, 6 products
  bf16x3_aligned,   ///< hi on a per-line grid, mi, lo BF16 RN-even of the residual, bf16x3's 6 products
  bf16x9,           ///< hi, mi, lo BF16, all 9 products
  int8_ozaki,       ///< Ozaki scheme on INT8 (ozIMMU): per-row/column power-of-two scale, s slices
  int8_mixpert,     ///< MixPert: per-tile shared exponent, 2-3 INT8 mantissa segments, levels I-IV
  automatic,        ///< `auto`: chosen per call from the operands' range profile and a cost model
};

/// True for the line-aligned kinds (fp16x2-aligned, tf32x2-aligned, bf16x3-aligned: hi on a grid set
/// by the line's maximum, split::split_aligned). Usable in device code (constexpr).
constexpr bool is_line_aligned(SchemeKind k) {
  return k == SchemeKind::fp16x2_aligned || k == SchemeKind::tf32x2_aligned || k == SchemeKind::bf16x3_aligned;
}

/// Type of the parts the Tensor Cores (or host BLAS) multiply.
enum class PartType { fp64, fp32, tf32, bf16, fp16, int8 };
/// "fp64", "fp32", "tf32", "bf16", "fp16", "int8".
const char* to_string(PartType p);

/// How an input element is cut into parts.
enum class SplitRule {
  none,         ///< native: no split
  rn,           ///< every part rounded to nearest, ties to even, from the rounded higher parts
  truncate,     ///< every part rounded toward zero (Markidis' truncate-split)
  round_split,  ///< EGEMM-TC round-split (hi RN-even, lo RN-even, unscaled)
  bitcut_rz,    ///< LE-GEMM: hi truncated (bit-cut), residual scaled 2^10 and rounded toward zero
  int_slices,   ///< Ozaki: fixed-point slices of a shared power-of-two exponent, truncated
  line_aligned, ///< hi rounded RN-even to a grid set by the line's maximum, lo = RN(x - hi)
  tile_exponent, ///< MixPert: RN-even to a fixed-point grid set by the tile's maximum, 7-bit segments
};

/// One product of parts: part `a` of A times part `b` of B.
struct PartProduct {
  int a;
  int b;
};

/// Products that share one FP32 (or exact integer) accumulator; the accumulator is multiplied by
/// 2^scale_exp when the groups are combined (e.g. -12 for APE's scaled cross terms).
struct ProductGroup {
  std::vector<PartProduct> products;
  int scale_exp = 0;
};

/// One row of the scheme catalogue.
///
/// Range: an element x is *represented at full precision* when min_exp <= floor(log2|x|) and
/// |x| < max_abs; zero is always represented exactly. Above max_abs a part overflows (Inf), which is
/// why the range check sends such operands to a native fallback. Below 2^min_exp an element keeps an
/// absolute error of about 2^(min_exp - precision_bits), which is harmless when the element's row
/// (of A) or column (of B) has its maximum inside the range; see range_profile.hpp.
struct Scheme {
  SchemeKind kind = SchemeKind::automatic;
  std::string name;          ///< catalogue name, e.g. "fp16x2", "int8-ozaki:9"
  Target target = Target::fp32;  ///< accuracy the scheme is built for (its emulated precision)
  PartType part = PartType::fp32;
  int parts = 1;             ///< parts per input element (Ozaki: slices, 0 = chosen per call;
                             ///< MixPert: segments of the wider operand)
  int level = 0;             ///< int8-mixpert: configuration level 1-4 (I-IV; tcemu/mixpert.hpp)
  int products = 1;          ///< Tensor Core / BLAS products per GEMM
  SplitRule split = SplitRule::none;
  int min_exp = -126;        ///< smallest binade represented at full precision
  double max_abs = 3.4028234663852886e38;  ///< exclusive upper bound of |x|
  int precision_bits = 24;   ///< relative representation error of one element <= 2^-precision_bits
  std::string source;        ///< paper / origin
  std::string range_text;    ///< human-readable exponent range, as in DESIGN.md
  std::vector<ProductGroup> groups;  ///< empty for native and Ozaki schemes

  /// True for fp64 and fp32 (no split).
  bool is_native() const { return kind == SchemeKind::fp64 || kind == SchemeKind::fp32; }
  /// True for the line-aligned schemes (fp16x2-aligned, tf32x2-aligned, bf16x3-aligned): their split
  /// needs every line's maximum (split::split_aligned), so the backends profile before they split.
  bool is_line_aligned() const { return split == SplitRule::line_aligned; }
  /// True for the single-pass low-precision schemes tf32, bf16, fp16.
  bool is_one_pass() const {
    return kind == SchemeKind::tf32 || kind == SchemeKind::bf16 || kind == SchemeKind::fp16;
  }
  /// True when the scheme, on in-range inputs, is as accurate as native arithmetic of `t`:
  /// fp32 target: precision_bits >= 22 (APE's FP32-F/T/B, bf16x9, Ozaki, native fp32/fp64);
  /// fp64 target: native fp64 and Ozaki. Markidis (20 bits), EGEMM-TC (21) and LE-GEMM (~20) are
  /// FP32-target schemes that do not reach FP32 accuracy; they are kept as the papers' baselines.
  bool meets(Target t) const;
};

/// Looks up a scheme by catalogue name ("fp16x2", "int8-ozaki", "int8-ozaki:9", "int8-mixpert",
/// "int8-mixpert:2", "auto", ...).
/// `target` fixes the target of schemes that have several (int8-ozaki, auto, and the native names).
/// Throws InvalidArgument naming the unknown name and listing the valid ones, or an Ozaki slice count
/// outside 1..18.
Scheme parse_scheme(const std::string& name, Target target = Target::fp32);

/// Parses a comma-separated list, or "all" (every catalogue scheme usable for `target`, native first,
/// then the emulations, then auto). Throws InvalidArgument on an empty list or an unknown name.
std::vector<Scheme> parse_scheme_list(const std::string& list, Target target);

/// The whole catalogue (Ozaki with s = 0, i.e. chosen per call), in display order.
std::vector<Scheme> catalogue(Target target);

/// Text table for `--list-schemes`: name, target, part type, parts, products, split rule, exponent
/// range and source.
std::string catalogue_table(Target target);

/// Ozaki INT8 scheme with s slices (s(s+1)/2 products), for `target`.
Scheme ozaki_scheme(int slices, Target target);

/// MixPert INT8 scheme at configuration `level` (1-4 = I-IV: segments of A x B = 2x2, 2x3, 3x2,
/// 3x3; 4, 6, 6, 8 products). Throws InvalidArgument for a level outside 1..4.
Scheme mixpert_scheme(int level);

}  // namespace tcemu
