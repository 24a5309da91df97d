// The scheme catalogue of DESIGN.md section 3: ranges and precisions derived in shared/seeds/notes and
// checked per binade by tests/core/test_split.cpp.
#include "tcemu/scheme.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "tcemu/error.hpp"
#include "tcemu/float_bits.hpp"

namespace tcemu {

const char* to_string(Target t) { return t == Target::fp32 ? "fp32" : "fp64"; }

Target parse_target(const std::string& s) {
  if (s == "fp32") return Target::fp32;
  if (s == "fp64") return Target::fp64;
  throw InvalidArgument("target '" + s + "' is not one of: fp32, fp64");
}

const char* to_string(PartType p) {
  switch (p) {
    case PartType::fp64: return "fp64";
    case PartType::fp32: return "fp32";
    case PartType::tf32: return "tf32";
    case PartType::bf16: return "bf16";
    case PartType::fp16: return "fp16";
    case PartType::int8: return "int8";
  }
  return "?";
}

namespace {

const char* split_rule_name(SplitRule r) {
  switch (r) {
    case SplitRule::none: return "-";
    case SplitRule::rn: return "RN-even";
    case SplitRule::truncate: return "truncate (RZ)";
    case SplitRule::round_split: return "round-split (RN)";
    case SplitRule::bitcut_rz: return "bit-cut + RZ residual";
    case SplitRule::int_slices: return "truncate (fixed point)";
    case SplitRule::line_aligned: return "line-aligned hi, RN lo";
    case SplitRule::tile_exponent: return "tile exponent, RN fixed pt";
  }
  return "?";
}

constexpr double kInf = std::numeric_limits<double>::infinity();

ProductGroup group(std::initializer_list<PartProduct> products, int scale_exp = 0) {
  return ProductGroup{std::vector<PartProduct>(products), scale_exp};
}

/// Exclusive bound of |x| below which RN-even to `m` mantissa bits (8-bit exponent) stays finite:
/// the midpoint between the largest finite value and 2^128 (it rounds up, to Inf, as a tie).
double rn_overflow_bound(int m) {
  const std::uint32_t largest = 0x7f7fffffu & ~((1u << (23 - m)) - 1u);
  return static_cast<double>(bits::u2f(largest)) + std::ldexp(1.0, 127 - m - 1);
}

Scheme make(SchemeKind kind, const std::string& name, Target target, PartType part, int parts,
            int products, SplitRule split, int min_exp, double max_abs, int precision_bits,
            const std::string& range_text, const std::string& source,
            std::vector<ProductGroup> groups) {
  Scheme s;
  s.kind = kind;
  s.name = name;
  s.target = target;
  s.part = part;
  s.parts = parts;
  s.products = products;
  s.split = split;
  s.min_exp = min_exp;
  s.max_abs = max_abs;
  s.precision_bits = precision_bits;
  s.range_text = range_text;
  s.source = source;
  s.groups = std::move(groups);
  return s;
}

Scheme by_kind(SchemeKind kind, Target target) {
  using K = SchemeKind;
  using P = PartType;
  using R = SplitRule;
  switch (kind) {
    case K::fp64:
      return make(kind, "fp64", Target::fp64, P::fp64, 1, 1, R::none, -1022, kInf, 53, "FP64",
                  "native FP64 (reference)", {group({{0, 0}})});
    case K::fp32:
      return make(kind, "fp32", Target::fp32, P::fp32, 1, 1, R::none, -126, kInf, 24, "FP32",
                  "native FP32", {group({{0, 0}})});
    case K::tf32:
      return make(kind, "tf32", Target::fp32, P::tf32, 1, 1, R::rn, -126, rn_overflow_bound(10), 11,
                  "[-126, 127]", "one pass TF32 (accuracy floor)", {group({{0, 0}})});
    case K::bf16:
      return make(kind, "bf16", Target::fp32, P::bf16, 1, 1, R::rn, -126, rn_overflow_bound(7), 8,
                  "[-126, 127]", "one pass BF16 (accuracy floor)", {group({{0, 0}})});
    case K::fp16:
      return make(kind, "fp16", Target::fp32, P::fp16, 1, 1, R::rn, -14, 65520.0, 11, "[-14, 15]",
                  "one pass FP16 (accuracy floor)", {group({{0, 0}})});
    case K::fp16x2:
      // lo carries 2^12: hi*hi in one accumulator, the two cross terms in a second one scaled 2^-12.
      return make(kind, "fp16x2", Target::fp32, P::fp16, 2, 3, R::rn, -14, 32768.0, 22, "[-14, 14]",
                  "APE FP32-F (Ma et al., ICS'22)", {group({{0, 0}}), group({{0, 1}, {1, 0}}, -12)});
    case K::fp16x2_markidis:
      // One accumulator, smallest product first (the order EGEMM-TC uses).
      return make(kind, "fp16x2-markidis", Target::fp32, P::fp16, 2, 4, R::truncate, -2, 65536.0, 20,
                  "[-2, 15]", "Markidis et al. 2018 (the papers' baseline)",
                  {group({{1, 1}, {1, 0}, {0, 1}, {0, 0}})});
    case K::fp16x2_egemm:
      return make(kind, "fp16x2-egemm", Target::fp32, P::fp16, 2, 4, R::round_split, -2, 65520.0, 21,
                  "[-2, 15]", "EGEMM-TC (Feng et al., PPoPP'21)",
                  {group({{1, 1}, {1, 0}, {0, 1}, {0, 0}})});
    case K::fp16x2_legemm:
      return make(kind, "fp16x2-legemm", Target::fp32, P::fp16, 2, 3, R::bitcut_rz, -14, 65536.0, 20,
                  "[-14, 15]", "LE-GEMM (Zhang et al., JSA 2025)",
                  {group({{0, 0}}), group({{0, 1}, {1, 0}}, -10)});
    case K::fp16x2_aligned:
      // Operands scaled by 2^sigma (line maxima up to 2^15), hi on its line's grid; lines 2^-16 and
      // more below the operand's maximum lose lo bits to FP16's subnormal floor (min_exp is not
      // used: range_violation checks the spread between lines instead). The promoted group holds
      // the exact hi x hi chains, every other product shares the low accumulator (unscaled lo).
      return make(kind, "fp16x2-aligned", Target::fp32, P::fp16, 2, 4, R::line_aligned, -1074,
                  std::ldexp(1.0, 75), 22, "lines >= 2^-16 max",
                  "tcemu: per-line aligned hi (exact hi*hi TC chains)",
                  {group({{0, 0}}), group({{0, 1}, {1, 0}, {1, 1}})});
    case K::tf32x2:
      return make(kind, "tf32x2", Target::fp32, P::tf32, 2, 3, R::rn, -114, rn_overflow_bound(10), 22,
                  "[-114, 127]", "APE FP32-T / 3xTF32", {group({{0, 0}}), group({{0, 1}, {1, 0}})});
    case K::tf32x2_aligned:
      // hi = u * RN(x / u), u = 2^(e - 10) (e: the line's exponent), lo = tf32(x - hi): every hi x hi
      // chain exact, the low products (lo x lo kept: small elements live in lo alone) in a second
      // accumulator. No operand scaling (TF32 has FP32's exponent range); hi's grid is one bit
      // coarser than TF32 in the top binade, hence the overflow bound of 9 mantissa bits.
      return make(kind, "tf32x2-aligned", Target::fp32, P::tf32, 2, 4, R::line_aligned, -114,
                  rn_overflow_bound(9), 22, "lines in [-114, 127]",
                  "tcemu: per-line aligned hi (exact hi*hi TC chains)",
                  {group({{0, 0}}), group({{0, 1}, {1, 0}, {1, 1}})});
    case K::bf16x3_aligned:
      // hi = u * RN(x / u), u = 2^(e - 7), then mi, lo = bf16 RN of the residual (16 more bits of
      // every element, so bf16x3's six products suffice). Exact hi x hi chains.
      return make(kind, "bf16x3-aligned", Target::fp32, P::bf16, 3, 6, R::line_aligned, -110,
                  rn_overflow_bound(7), 24, "lines in [-110, 127]",
                  "tcemu: per-line aligned hi (exact hi*hi TC chains)",
                  {group({{0, 0}}), group({{0, 1}, {1, 0}}), group({{0, 2}, {1, 1}, {2, 0}})});
    case K::bf16x3:
      return make(kind, "bf16x3", Target::fp32, P::bf16, 3, 6, R::rn, -110, rn_overflow_bound(7), 24,
                  "[-110, 127]", "APE FP32-B",
                  {group({{0, 0}}), group({{0, 1}, {1, 0}}), group({{0, 2}, {1, 1}, {2, 0}})});
    case K::bf16x9:
      return make(kind, "bf16x9", Target::fp32, P::bf16, 3, 9, R::rn, -110, rn_overflow_bound(7), 24,
                  "[-110, 127]", "all 9 products (cuBLAS BF16x9 style)",
                  {group({{0, 0}}), group({{0, 1}, {1, 0}}), group({{0, 2}, {1, 1}, {2, 0}}),
                   group({{1, 2}, {2, 1}}), group({{2, 2}})});
    case K::int8_ozaki: {
      Scheme s = make(kind, "int8-ozaki", target, P::int8, 0, 0, R::int_slices, -1074, kInf,
                      target == Target::fp64 ? 53 : 24, "any (accuracy falls with exponent spread)",
                      "Ozaki scheme on INT8 (Ootomo, Ozaki, Yokota; ozIMMU)", {});
      return s;
    }
    case K::int8_mixpert: {
      // Level IV (the paper's default): 3 x 3 segments of 7 bits, 21 significant bits at the tile's
      // maximum, the (2,2) product dropped. Any finite FP32 input (the tile exponent follows the
      // data); a tile whose line maxima lie more than 2^5 apart falls back (tcemu/mixpert.hpp).
      Scheme s = make(kind, "int8-mixpert", Target::fp32, P::int8, 3, 8, R::tile_exponent, -149,
                      std::numeric_limits<double>::infinity(), 21, "tile lines <= 2^5 apart",
                      "MixPert (Zhang et al., LCTES'24)", {});
      s.level = 4;
      return s;
    }
    case K::automatic: {
      Scheme s;
      s.kind = K::automatic;
      s.name = "auto";
      s.target = target;
      s.precision_bits = target == Target::fp64 ? 53 : 24;
      s.range_text = "chosen per call";
      s.source = "APE adapter + ozIMMU split choice";
      return s;
    }
  }
  throw InvalidArgument("unknown scheme kind");
}

const std::vector<SchemeKind>& display_order() {
  using K = SchemeKind;
  static const std::vector<K> order = {K::fp64,          K::fp32,         K::tf32,
                                       K::bf16,          K::fp16,         K::fp16x2,
                                       K::fp16x2_markidis, K::fp16x2_egemm, K::fp16x2_legemm,
                                       K::fp16x2_aligned,
                                       K::tf32x2,        K::tf32x2_aligned, K::bf16x3,
                                       K::bf16x3_aligned, K::bf16x9,
                                       K::int8_ozaki,    K::int8_mixpert, K::automatic};
  return order;
}

std::string valid_names() {
  std::string s;
  for (auto k : display_order()) s += (s.empty() ? "" : ", ") + by_kind(k, Target::fp32).name;
  return s + ", int8-ozaki:<s> (s = 1..18), int8-mixpert:<level> (1..4), all";
}

}  // namespace

bool Scheme::meets(Target t) const {
  const int needed = t == Target::fp64 ? 53 : 24;
  switch (kind) {
    case SchemeKind::fp64: return true;
    case SchemeKind::fp32: return t == Target::fp32;
    case SchemeKind::automatic: return target == t || t == Target::fp32;
    case SchemeKind::int8_ozaki: return parts == 0 ? (target == t || t == Target::fp32)
                                                   : 7 * parts - 2 >= needed;
    default: return t == Target::fp32 && precision_bits >= 22;
  }
}

Scheme ozaki_scheme(int slices, Target target) {
  if (slices < 1 || slices > 18)
    throw InvalidArgument("int8-ozaki: slice count " + std::to_string(slices) + " is outside 1..18");
  Scheme s = by_kind(SchemeKind::int8_ozaki, target);
  s.name = "int8-ozaki:" + std::to_string(slices);
  s.parts = slices;
  s.products = slices * (slices + 1) / 2;
  s.precision_bits = 7 * slices - 2;
  return s;
}

Scheme mixpert_scheme(int level) {
  if (level < 1 || level > 4)
    throw InvalidArgument("int8-mixpert: level " + std::to_string(level) + " is outside 1..4 (I-IV)");
  Scheme s = by_kind(SchemeKind::int8_mixpert, Target::fp32);
  static const int seg_a[4] = {2, 2, 3, 3}, seg_b[4] = {2, 3, 2, 3}, products[4] = {4, 6, 6, 8};
  s.level = level;
  s.parts = std::max(seg_a[level - 1], seg_b[level - 1]);
  s.products = products[level - 1];
  s.precision_bits = 7 * std::min(seg_a[level - 1], seg_b[level - 1]);
  if (level != 4) s.name = "int8-mixpert:" + std::to_string(level);
  return s;
}

Scheme parse_scheme(const std::string& name, Target target) {
  const std::string mixpert = "int8-mixpert";
  if (name.rfind(mixpert + ":", 0) == 0) {
    const std::string num = name.substr(mixpert.size() + 1);
    if (num.size() != 1 || num[0] < '1' || num[0] > '4')
      throw InvalidArgument("scheme '" + name + "': level '" + num + "' is not one of 1, 2, 3, 4 (I-IV)");
    return mixpert_scheme(num[0] - '0');
  }
  const std::string ozaki = "int8-ozaki";
  if (name.rfind(ozaki + ":", 0) == 0) {
    const std::string num = name.substr(ozaki.size() + 1);
    char* end = nullptr;
    const long s = std::strtol(num.c_str(), &end, 10);
    if (num.empty() || *end != '\0')
      throw InvalidArgument("scheme '" + name + "': slice count '" + num + "' is not an integer");
    if (s < 1 || s > 18)
      throw InvalidArgument("scheme '" + name + "': slice count must be in 1..18");
    return ozaki_scheme(static_cast<int>(s), target);
  }
  for (auto k : display_order()) {
    Scheme s = by_kind(k, target);
    if (s.name == name) return s;
  }
  throw InvalidArgument("unknown scheme '" + name + "'; valid: " + valid_names());
}

std::vector<Scheme> catalogue(Target target) {
  std::vector<Scheme> out;
  for (auto k : display_order()) out.push_back(by_kind(k, target));
  return out;
}

std::vector<Scheme> parse_scheme_list(const std::string& list, Target target) {
  if (list == "all") return catalogue(target);
  std::vector<Scheme> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    out.push_back(parse_scheme(item, target));
  }
  if (out.empty()) throw InvalidArgument("scheme list '" + list + "' is empty");
  return out;
}

std::string catalogue_table(Target target) {
  // Columns as wide as their longest entry, so that long range texts keep the table aligned.
  std::vector<std::vector<std::string>> rows = {
      {"name", "target", "part", "parts", "products", "split rule", "exp range", "full-prec bits", "source"}};
  for (const auto& s : catalogue(target)) {
    const bool oz = s.kind == SchemeKind::int8_ozaki;
    const bool au = s.kind == SchemeKind::automatic;
    rows.push_back({s.name, to_string(s.target), au ? "-" : to_string(s.part),
                    oz ? "s" : au ? "-" : std::to_string(s.parts), oz ? "s(s+1)/2" : au ? "-" : std::to_string(s.products),
                    split_rule_name(s.split), oz ? "any" : s.range_text,
                    oz ? "7s-2" : std::to_string(s.precision_bits), s.source});
  }
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::ostringstream os;
  for (const auto& r : rows) {
    for (std::size_t c = 0; c + 1 < r.size(); ++c) os << r[c] << std::string(width[c] - r[c].size() + 1, ' ');
    os << r.back() << "\n";
  }
  return os.str();
}

}  // namespace tcemu
