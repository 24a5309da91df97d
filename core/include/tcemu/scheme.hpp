#pragma once
/// \file scheme.hpp
/// The scheme catalogue (docs/schemes.md): every way tcemu can compute a GEMM, native or emulated,
/// described as data so that the host backend, the CUDA backend, `auto` and `--list-schemes` all read
/// the same description.
#include <string>
#include <vector>

#include "tcemu/schemes/registry.hpp"

namespace tcemu {

/// Accuracy a GEMM result must reach: that of native FP32 or of native FP64.
enum class Target { fp32, fp64 };

/// "fp32" / "fp64".
const char* to_string(Target t);
/// Parses "fp32" / "fp64"; throws InvalidArgument naming the value otherwise.
Target parse_target(const std::string& s);

/// Identity of a scheme (one row of the catalogue). The enumerators are generated from the registry
/// (tcemu/schemes/registry.hpp), in display order; each one's properties live in its descriptor
/// (tcemu/schemes/*.hpp, looked up with schemes::descriptor(kind)); docs/schemes.md lists them.
enum class SchemeKind {
#define TCEMU_SCHEME_ENUMERATOR(e, D) e,
  TCEMU_SCHEME_REGISTRY(TCEMU_SCHEME_ENUMERATOR)
#undef TCEMU_SCHEME_ENUMERATOR
};

/// Number of registered schemes (SchemeKind enumerators).
inline constexpr int kSchemeCount = 0
#define TCEMU_SCHEME_COUNT(e, D) +1
    TCEMU_SCHEME_REGISTRY(TCEMU_SCHEME_COUNT)
#undef TCEMU_SCHEME_COUNT
    ;

/// How the backends implement a scheme: which arithmetic path runs it, which cost formula `auto`
/// uses for it and whether it needs a profile before its split. Generic code asks this (through
/// Scheme::family() or schemes::descriptor(kind).family), never for a particular SchemeKind.
enum class ImplFamily {
  native,        ///< no split: SGEMM / DGEMM of the data (fp32, fp64)
  one_pass,      ///< one low-precision part, one product (tf32, bf16, fp16)
  parts,         ///< element-wise split into 2-3 parts, groups of part products (fp16x2 family, tf32x2, bf16x3/x9)
  line_aligned,  ///< split on a per-line grid: needs the line maxima (a profile) before the split
  int_slices,    ///< Ozaki: INT8 fixed-point slices, s chosen per call, integer product triangle
  tile_exponent, ///< MixPert: per-tile shared exponent, INT8 segments, one fused kernel
  crt,           ///< Ozaki II: N INT8 residue products mod p_l, CRT reconstruction (tcemu/crt.hpp)
  automatic,     ///< `auto`: chosen per call
};

/// The range rule a scheme's descriptor names (range_violation() implements each).
enum class RangeRule {
  none,           ///< any input (native, auto)
  nonfinite_only, ///< finite inputs only, any exponent range (Ozaki)
  bounds,         ///< |x| < max_abs and every line maximum >= 2^min_exp
  bounds_spread,  ///< bounds, and every line's spread (max / mean nonzero |x|) <= 2^max_spread_bits
  scaled_spread,  ///< operand scaled by 2^sigma into [2^(top-1), 2^top): max, lowest line and spread checked
};

/// Product table of a fused Tensor Core kernel (core/src/cuda/kernels): which part products go to the
/// promoted accumulator (group 0) and which to the low one. Each value is one compiled kernel table;
/// its product list is *derived* from the descriptors that name it (schemes::fused_products), which
/// must agree at compile time.
enum class FusedTable {
  none,      ///< no fused kernel (multi-pass products only)
  hi_cross,  ///< 2 parts: promoted (0,0); low (0,1), (1,0)
  all_four,  ///< 2 parts: promoted (1,1), (1,0), (0,1), (0,0); no low products
  hi_low3,   ///< 2 parts: promoted (0,0); low (0,1), (1,0), (1,1)
  three,     ///< 3 parts: promoted (0,0); low (0,1), (1,0), (0,2), (1,1), (2,0)
  nine,      ///< 3 parts: promoted (0,0); low the other eight products
};

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
  crt_residues,  ///< Ozaki II: line scaled by 2^e, rounded to the nearest integer, symmetric residues mod p_l
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
  std::string range_text;    ///< human-readable exponent range, as in docs/schemes.md
  std::vector<ProductGroup> groups;  ///< empty for native and Ozaki schemes

  /// The implementation family of the scheme's descriptor (schemes::descriptor(kind).family).
  ImplFamily family() const;
  /// True for the native schemes (no split: fp32, fp64).
  bool is_native() const { return family() == ImplFamily::native; }
  /// True for `auto` (resolved per call).
  bool is_automatic() const { return family() == ImplFamily::automatic; }
  /// True for the line-aligned schemes: their split needs every line's maximum
  /// (split::split_aligned), so the backends profile before they split.
  bool is_line_aligned() const { return family() == ImplFamily::line_aligned; }
  /// True when the backends must profile the operand before they can split it (line-aligned schemes).
  bool needs_profile_before_split() const;
  /// True for the single-pass low-precision schemes (one part, one product).
  bool is_one_pass() const { return family() == ImplFamily::one_pass; }
  /// True when the scheme's descriptor names a fused Tensor Core kernel table (fused_table() != none).
  bool has_fused_kernel() const { return fused_table() != FusedTable::none; }
  /// The fused kernel's product table of the scheme's descriptor (FusedTable::none when it has none).
  FusedTable fused_table() const;
  /// The descriptor's documented error bound (text, e.g. "|C - AB| <= ...").
  const char* error_bound() const;
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

/// Parses a comma-separated list, or "all" (every catalogue scheme usable for `target` whose
/// descriptor has in_all, native first, then the emulations, then auto; int8-crt runs only when named or picked by auto). Throws InvalidArgument on an empty list or an unknown name.
std::vector<Scheme> parse_scheme_list(const std::string& list, Target target);

/// The whole catalogue (Ozaki with s = 0, i.e. chosen per call), in display order.
std::vector<Scheme> catalogue(Target target);

/// Text table for `--list-schemes`: name, target, part type, parts, products, split rule, exponent
/// range, full-precision bits and source, columns padded to their longest entry.
std::string catalogue_table(Target target);

/// The catalogue as a Markdown document (docs/schemes.md is this text, written by
/// `tcemu-schemes --markdown`; a CTest test fails when the committed file differs): per scheme name,
/// target, part, parts, products, split rule, exponent range, full-precision bits, error bound and
/// source / paper, then the product tables.
std::string catalogue_markdown();

/// Sets the parameter of a parameterised scheme (its descriptor's parameterize: int8-ozaki's slice
/// count, int8-mixpert's level) on `s`, a catalogue row of that scheme: name "<name>:<p>" (the
/// catalogue row's own parameter keeps the plain name), parts, products, precision. Throws
/// InvalidArgument when the scheme takes no parameter or p is outside its range.
void parameterize(Scheme& s, int p);

/// The catalogue row of `kind` for `target` with parameter p (parameterize).
Scheme parameterized_scheme(SchemeKind kind, int p, Target target);

/// Ozaki INT8 scheme with s slices (s(s+1)/2 products), for `target`.
Scheme ozaki_scheme(int slices, Target target);

/// MixPert INT8 scheme at configuration `level` (1-4 = I-IV: segments of A x B = 2x2, 2x3, 3x2,
/// 3x3; 4, 6, 6, 8 products). Throws InvalidArgument for a level outside 1..4.
Scheme mixpert_scheme(int level);

}  // namespace tcemu
