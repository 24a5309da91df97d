// The scheme catalogue (docs/schemes.md): ranges and precisions derived from the schemes' papers and
// checked per binade by tests/core/test_split.cpp.
#include "tcemu/scheme.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "tcemu/error.hpp"
#include "tcemu/float_bits.hpp"
#include "tcemu/schemes/all.hpp"

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
    case SplitRule::crt_residues: return "round to nearest, residues mod p";
  }
  return "?";
}

/// The catalogue row of `kind` for `target`, built from its descriptor.
Scheme by_kind(SchemeKind kind, Target target) {
  const schemes::SchemeDescriptor& d = schemes::descriptor(kind);
  Scheme s;
  s.kind = kind;
  s.name = d.name;
  s.target = d.target_per_call ? target : d.target;
  s.part = d.part;
  s.parts = d.parts;
  s.products = d.products;
  s.split = d.split;
  s.min_exp = d.min_exp;
  s.max_abs = d.max_abs;
  s.precision_bits = d.target_per_call && target == Target::fp64 ? d.precision_bits_fp64 : d.precision_bits;
  s.range_text = d.range_text;
  s.source = d.source;
  for (int g = 0; g < d.table.ngroups; ++g) {
    ProductGroup group;
    group.scale_exp = d.table.scale_exp[g];
    for (int i = 0; i < d.table.nproducts; ++i)
      if (d.table.p[i].group == g) group.products.push_back(PartProduct{d.table.p[i].a, d.table.p[i].b});
    s.groups.push_back(std::move(group));
  }
  if (d.param_default != 0) parameterize(s, d.param_default);
  return s;
}

std::string valid_names() {
  std::string s, params;
  for (SchemeKind k : schemes::kAllKinds.k) {
    const schemes::SchemeDescriptor& d = schemes::descriptor(k);
    s += (s.empty() ? "" : ", ") + std::string(d.name);
    if (d.param_name) params += ", " + std::string(d.name) + ":" + d.param_names;
  }
  return s + params + ", all";
}

}  // namespace

ImplFamily Scheme::family() const { return schemes::descriptor(kind).family; }
bool Scheme::needs_profile_before_split() const { return family() == ImplFamily::line_aligned; }
FusedTable Scheme::fused_table() const { return schemes::descriptor(kind).fused; }
const char* Scheme::error_bound() const { return schemes::descriptor(kind).error_bound; }

bool Scheme::meets(Target t) const {
  const int needed = t == Target::fp64 ? 53 : 24;
  if (schemes::descriptor(kind).accuracy == schemes::Accuracy::full_bits) return precision_bits >= needed;
  return t == Target::fp32 && precision_bits >= 22;
}

void parameterize(Scheme& s, int p) {
  schemes::with_descriptor(s.kind, [&](auto d) {
    using D = decltype(d);
    if constexpr (D::desc.param_name != nullptr) {
      D::parameterize(s, p);
    } else {
      throw InvalidArgument("scheme " + s.name + " takes no parameter");
    }
  });
}

Scheme parameterized_scheme(SchemeKind kind, int p, Target target) {
  Scheme s = by_kind(kind, target);
  parameterize(s, p);
  return s;
}

Scheme ozaki_scheme(int slices, Target target) {
  return parameterized_scheme(schemes::kind_of_family(ImplFamily::int_slices), slices, target);
}

Scheme mixpert_scheme(int level) {
  return parameterized_scheme(schemes::kind_of_family(ImplFamily::tile_exponent), level, Target::fp32);
}

Scheme parse_scheme(const std::string& name, Target target) {
  for (SchemeKind k : schemes::kAllKinds.k) {
    const schemes::SchemeDescriptor& d = schemes::descriptor(k);
    const std::string base = d.name;
    if (d.param_name && name.rfind(base + ":", 0) == 0) {  // "<name>:<parameter>"
      const std::string num = name.substr(base.size() + 1);
      char* end = nullptr;
      const long p = std::strtol(num.c_str(), &end, 10);
      if (num.empty() || *end != '\0')
        throw InvalidArgument("scheme '" + name + "': " + d.param_name + " '" + num + "' is not an integer");
      if (p < d.param_min || p > d.param_max)
        throw InvalidArgument("scheme '" + name + "': " + d.param_name + " must be in " +
                              std::to_string(d.param_min) + ".." + std::to_string(d.param_max));
      return parameterized_scheme(k, static_cast<int>(p), target);
    }
  }
  for (SchemeKind k : schemes::kAllKinds.k)
    if (name == schemes::descriptor(k).name) return by_kind(k, target);
  throw InvalidArgument("unknown scheme '" + name + "'; valid: " + valid_names());
}

std::vector<Scheme> catalogue(Target target) {
  std::vector<Scheme> out;
  for (SchemeKind k : schemes::kAllKinds.k) out.push_back(by_kind(k, target));
  return out;
}

std::vector<Scheme> parse_scheme_list(const std::string& list, Target target) {
  if (list == "all") {
    std::vector<Scheme> all;
    for (const Scheme& s : catalogue(target))
      if (schemes::descriptor(s.kind).in_all) all.push_back(s);
    return all;
  }
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
    // Schemes whose part count is chosen per call show its formula; `auto` has no arithmetic of its own.
    const bool oz = s.parts == 0;
    const bool au = s.is_automatic();
    const schemes::SchemeDescriptor& d = schemes::descriptor(s.kind);
    rows.push_back({s.name, to_string(s.target), au ? "-" : to_string(s.part),
                    oz ? d.per_call_parts : au ? "-" : std::to_string(s.parts),
                    oz ? d.per_call_products : au ? "-" : std::to_string(s.products),
                    split_rule_name(s.split), oz && s.family() == ImplFamily::int_slices ? "any" : s.range_text,
                    oz ? d.per_call_bits : std::to_string(s.precision_bits), s.source});
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

namespace {
/// A Markdown table cell: '|' escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}
}  // namespace

std::string catalogue_markdown() {
  std::ostringstream os;
  os << "# Scheme catalogue\n\n"
     << "<!-- Generated by `tcemu-schemes --markdown` from the scheme descriptors (core/include/tcemu/schemes/);\n"
     << "     do not edit: CTest's SchemesDoc.UpToDate fails when this file differs from the tool's output. -->\n\n"
     << "Every scheme tcemu implements, one row per registered descriptor (docs/adding-a-scheme.md). "
     << "Exponent range: the binades of |x| represented at full precision (range checks send other "
     << "operands to the native fallback). Full-precision bits: relative representation error of one "
     << "element <= 2^-bits. Error bound: the documented bound of one GEMM on in-range inputs "
     << "(k: inner dimension; docs/accuracy.md has the measurements).\n\n";
  os << "| name | target | part | parts | products | split rule | exponent range | full-precision bits | error bound | source / paper |\n";
  os << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (SchemeKind k : schemes::kAllKinds.k) {
    const schemes::SchemeDescriptor& d = schemes::descriptor(k);
    const Scheme s = by_kind(k, Target::fp32);
    const bool per_call = s.parts == 0, au = s.is_automatic();
    const std::string target = d.target_per_call ? "fp32 / fp64" : to_string(s.target);
    const std::string bits = per_call ? d.per_call_bits
                             : d.target_per_call ? std::to_string(d.precision_bits) + " / " + std::to_string(d.precision_bits_fp64)
                                                 : std::to_string(s.precision_bits);
    os << "| `" << s.name << (d.param_name ? std::string("[:") + d.param_symbol + "]" : "")
       << "` | " << target << " | " << (au ? "-" : to_string(s.part)) << " | "
       << (per_call ? d.per_call_parts : au ? "-" : std::to_string(s.parts)) << " | "
       << (per_call ? d.per_call_products : au ? "-" : std::to_string(s.products)) << " | " << split_rule_name(s.split) << " | "
       << cell(s.range_text) << " | " << bits << " | " << cell(d.error_bound) << " | " << cell(s.source) << " |\n";
  }
  os << "\n## Product tables\n\n"
     << "Products (part of A x part of B, 0 = hi) per accumulator group, in accumulation order; group 0 is the "
     << "promoted accumulator (its k chunks are added with round-to-nearest), the others are combined scaled "
     << "by 2^e. `fused`: the fused Tensor Core kernel's table (core/src/cuda/kernels), derived from these rows.\n\n";
  os << "| name | groups (products @ scale) | fused kernel table |\n|---|---|---|\n";
  static const char* const fused_names[] = {"-", "hi_cross", "all_four", "hi_low3", "three", "nine"};
  for (SchemeKind k : schemes::kAllKinds.k) {
    const schemes::SchemeDescriptor& d = schemes::descriptor(k);
    std::string groups;
    for (int g = 0; g < d.table.ngroups; ++g) {
      groups += g ? "; " : "";
      bool first = true;
      for (int i = 0; i < d.table.nproducts; ++i)
        if (d.table.p[i].group == g) {
          groups += (first ? "" : " ") + std::string("(") + std::to_string(d.table.p[i].a) + "," +
                    std::to_string(d.table.p[i].b) + ")";
          first = false;
        }
      groups += " @ 2^" + std::to_string(d.table.scale_exp[g]);
    }
    if (d.table.ngroups == 0)
      groups = d.family == ImplFamily::int_slices      ? "slices p, q with p + q <= s + 1 (the Ozaki triangle, schemes/ozaki.hpp)"
               : d.family == ImplFamily::tile_exponent ? "segments i, j with i + j <= 3 (tcemu/mixpert.hpp)"
               : d.family == ImplFamily::crt           ? "residues l = 1..N: A'_l B'_l, one INT8 product per modulus (tcemu/crt.hpp)"
                                                       : "-";
    os << "| `" << d.name << "` | " << groups << " | " << fused_names[static_cast<int>(d.fused)] << " |\n";
  }
  return os.str();
}

}  // namespace tcemu
