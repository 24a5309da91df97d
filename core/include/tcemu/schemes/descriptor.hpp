#pragma once
/// \file schemes/descriptor.hpp
/// The descriptor type every scheme family fills in (one constexpr SchemeDescriptor per catalogue
/// scheme, tcemu/schemes/<family>.hpp) and the split primitives the families' functors share.
///
/// A descriptor type D (registered in schemes/registry.hpp) provides
///   - `static constexpr SchemeDescriptor desc`: the catalogue row (name, target, part type and count,
///     split rule, range rule, precision, error bound, paper), the product table (which parts, which
///     accumulator, its scale 2^e) and the implementation traits (family, fused kernel table);
///   - `using ElementSplit`: the element-wise split functor, `Parts operator()(float x) const` and
///     `static double recombine(const Parts&)`, __host__ __device__ (TCEMU_HD);
///   - `using LineSplit`: the line-aligned split functor, `Parts operator()(float x, int sigma, int
///     line_exp) const` (NoLineSplit for the others);
///   - `static constexpr SchemeKind split_as`: the kind whose split-pass writer it shares (itself
///     unless two schemes have the same split, e.g. bf16x9 and bf16x3).
/// Everything generic (scheme.cpp's catalogue, split.hpp's dispatch, the CUDA split pass and fused
/// kernels, range checks, `auto`) is expanded from these at compile time.
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "tcemu/float_bits.hpp"
#include "tcemu/scheme.hpp"

namespace tcemu::split {

/// Parts of one element (up to 3; unused entries are 0).
struct Parts {
  float p[3] = {0.f, 0.f, 0.f};
};

/// Power-of-two scale exponent of a line (row of A / column of B) whose largest |x| is line_max:
/// the smallest e with line_max < 2^e (so every |x| / 2^e lies in [0, 1)); 0 for an all-zero line.
TCEMU_HD int ozaki_line_exponent(double line_max) {
  if (!(line_max > 0)) return 0;
  int e = 0;
  (void)std::frexp(line_max, &e);  // line_max = f * 2^e, f in [0.5, 1)
  return e;
}

/// 2^k as FP32 (exact) for -126 <= k <= 127.
TCEMU_HD float pow2f(int k) { return bits::u2f(static_cast<std::uint32_t>(k + 127) << 23); }

}  // namespace tcemu::split

namespace tcemu::schemes {

using split::Parts;

/// Most products / accumulator groups / parts a descriptor's table holds (bf16x9: 9 products, 5 groups).
inline constexpr int kMaxTableProducts = 9;
inline constexpr int kMaxTableGroups = 5;

/// One part product of a descriptor's table: part `a` of A times part `b` of B, added into
/// accumulator group `group` (group 0 is the promoted one: its k chunks / Tensor Core chains are
/// added with round-to-nearest; the others share the low accumulator in the fused kernels).
struct TableProduct {
  int a = 0, b = 0, group = 0;
};

/// The product table of a scheme: the products in accumulation order, group by group, and per group
/// the exponent e of its scale 2^e applied when the groups are combined (e.g. -12 for APE's scaled
/// cross terms). Empty (0 groups) for schemes whose products are not a fixed table (Ozaki: see
/// schemes/ozaki.hpp's triangle; MixPert: tcemu/mixpert.hpp; auto).
struct ProductTable {
  int ngroups = 0;
  int scale_exp[kMaxTableGroups] = {};
  int nproducts = 0;
  TableProduct p[kMaxTableProducts] = {};

  /// Appends a group of products {a, b} with scale 2^scale_exp (constexpr builder).
  constexpr ProductTable& group(std::initializer_list<TableProduct> products, int scale = 0) {
    scale_exp[ngroups] = scale;
    for (const TableProduct& q : products) p[nproducts++] = TableProduct{q.a, q.b, ngroups};
    ++ngroups;
    return *this;
  }
};

/// Accuracy class of a scheme (Scheme::meets).
enum class Accuracy {
  fp32_class,  ///< emulates FP32: meets fp32 when precision_bits >= 22, never fp64
  full_bits,   ///< meets a target when precision_bits reaches the target's 24 / 53 bits
};

/// A scheme's role in APE's hybrid execution (tcemu/hybrid.hpp): the scheme of the in-range blocks,
/// or the wide-range one of the rest (HybridOptions' defaults; one descriptor holds each role).
enum class HybridRole { none, fast, wide };

/// One catalogue scheme, as data (a literal type: every field is a compile-time constant).
struct SchemeDescriptor {
  const char* name = "";           ///< catalogue name ("fp16x2"); parameterised forms add ":<p>"
  ImplFamily family = ImplFamily::native;
  Target target = Target::fp32;    ///< target the scheme is built for
  bool target_per_call = false;    ///< true: the target is the caller's (int8-ozaki, auto)
  PartType part = PartType::fp32;  ///< type of the parts the Tensor Cores / BLAS multiply
  int parts = 1;                   ///< parts per element (0: chosen per call)
  int products = 1;                ///< part products per GEMM (0: chosen per call)
  SplitRule split = SplitRule::none;
  int min_exp = -126;              ///< smallest binade represented at full precision
  double max_abs = 0;              ///< exclusive upper bound of |x| (Inf: none)
  int precision_bits = 24;         ///< relative representation error <= 2^-precision_bits (fp32 target)
  int precision_bits_fp64 = 24;    ///< the same for an fp64 target (target_per_call schemes)
  Accuracy accuracy = Accuracy::fp32_class;
  const char* range_text = "";     ///< human-readable exponent range
  const char* error_bound = "";    ///< documented error bound (docs/accuracy.md; the paper)
  const char* source = "";         ///< paper / origin
  ProductTable table{};            ///< the part products (empty: see `family`)
  FusedTable fused = FusedTable::none;  ///< the fused kernel table (none: multi-pass only)
  RangeRule range = RangeRule::bounds;
  double max_spread_bits = 0;      ///< bounds_spread / scaled_spread: largest line spread, bits
  int scale_top_exp = 0;           ///< scaled_spread: the operand's max is scaled into [2^(top-1), 2^top)
  int max_scale_exp = 0;           ///< scaled_spread: |sigma| bound
  int min_scaled_line_exp = 0;     ///< scaled_spread: lowest scaled line exponent kept
  /// The GPU calibration of `auto`'s cost model (tcemu/cuda/calibrate.hpp) times this scheme for an
  /// FP32 / FP64 target at these parameter values (0: the catalogue row itself; -1: unused slot).
  /// All -1: `auto` costs the scheme from the device rates alone.
  int calibrate_fp32[3] = {-1, -1, -1};
  int calibrate_fp64[3] = {-1, -1, -1};
  int cost_parts_fp32 = 0;         ///< parts == 0: the part count `auto`'s cost model assumes (fp32 target)
  int cost_parts_fp64 = 0;         ///< ... and for an fp64 target
  int param_min = 0, param_max = 0;  ///< parameterised schemes ("name:<p>"): the range of p
  const char* param_name = nullptr;  ///< "slice count", "level"; nullptr: no parameter
  const char* param_names = nullptr; ///< how valid_names() lists the parameter ("<s> (s = 1..18)")
  const char* param_symbol = "p";    ///< the parameter in docs/schemes.md ("s": int8-ozaki[:s])
  const char* fallback = nullptr;  ///< scheme a failed range check runs instead (nullptr: native of the target)
  int param_default = 0;           ///< the catalogue row's parameter (0: the row is not parameterised)
  /// parts == 0 (chosen per call): how the catalogue shows parts, products and full-precision bits
  /// ("s", "s(s+1)/2", "7s-2" for int8-ozaki).
  const char* per_call_parts = "-";
  const char* per_call_products = "-";
  const char* per_call_bits = "-";
  /// false: `--scheme all` (parse_scheme_list("all")) leaves the scheme out; it runs only when named
  /// (int8-crt while its GPU certificate costs some fifty DGEMMs: docs/crt.md).
  bool in_all = true;
  HybridRole hybrid = HybridRole::none;  ///< default role in APE hybrid execution (tcemu/hybrid.hpp)
};

/// Exclusive bound of |x| below which RN-even to `m` mantissa bits (8-bit exponent) stays finite:
/// the midpoint between the largest finite value (2 - 2^-m) 2^127 and 2^128 (it rounds up, to Inf,
/// as a tie). Exact in double.
constexpr double rn_overflow_bound(int m) {
  double p127 = 1.0;
  for (int i = 0; i < 127; ++i) p127 *= 2.0;
  double ulp = 1.0;
  for (int i = 0; i < m; ++i) ulp *= 0.5;
  return (2.0 - ulp) * p127 + ulp * 0.5 * p127;
}

/// +Inf as a constant expression.
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// 2^e in double, as a constant expression (|e| < 1024).
constexpr double pow2(int e) {
  double r = 1.0;
  for (int i = 0; i < (e < 0 ? -e : e); ++i) r *= 2.0;
  return e < 0 ? 1.0 / r : r;
}

/// Element split of the schemes that split per line or not at all: {x} (the native kinds' part).
struct NoElementSplit {
  TCEMU_HD Parts operator()(float x) const {
    Parts r;
    r.p[0] = x;
    return r;
  }
  TCEMU_HD static double recombine(const Parts& s) { return double(s.p[0]) + double(s.p[1]) + double(s.p[2]); }
};

/// Line split of the schemes that are not line-aligned: all parts 0.
struct NoLineSplit {
  TCEMU_HD Parts operator()(float, int, int) const { return Parts{}; }
};

/// Plain recombination: the parts are unscaled, x = p0 + p1 + p2 (in double).
struct PlainRecombine {
  TCEMU_HD static double recombine(const Parts& s) { return double(s.p[0]) + double(s.p[1]) + double(s.p[2]); }
};

}  // namespace tcemu::schemes
