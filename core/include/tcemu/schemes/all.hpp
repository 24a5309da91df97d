#pragma once
/// \file schemes/all.hpp
/// Every registered descriptor (schemes/registry.hpp) and the tables and dispatchers expanded from
/// the registry at compile time: descriptor(kind), DescriptorOf<K>, with_descriptor(kind, f), the
/// fused kernels' product lists (fused_products) and the traits generic code asks
/// (is_line_aligned(kind), split_kind(kind), native_kind(part)).
#include "tcemu/schemes/aligned.hpp"
#include "tcemu/schemes/automatic.hpp"
#include "tcemu/schemes/bf16x3.hpp"
#include "tcemu/schemes/crt.hpp"
#include "tcemu/schemes/descriptor.hpp"
#include "tcemu/schemes/fp16x2.hpp"
#include "tcemu/schemes/mixpert.hpp"
#include "tcemu/schemes/native.hpp"
#include "tcemu/schemes/one_pass.hpp"
#include "tcemu/schemes/ozaki.hpp"
#include "tcemu/schemes/registry.hpp"
#include "tcemu/schemes/tf32x2.hpp"

#include <type_traits>

namespace tcemu::schemes {

/// The descriptor type of a compile-time kind: DescriptorOf<K>::type.
template <SchemeKind K>
struct DescriptorOf;
#define TCEMU_SCHEME_DESCRIPTOR_OF(e, D) \
  template <>                            \
  struct DescriptorOf<SchemeKind::e> {   \
    using type = D;                      \
  };
TCEMU_SCHEME_REGISTRY(TCEMU_SCHEME_DESCRIPTOR_OF)
#undef TCEMU_SCHEME_DESCRIPTOR_OF

/// The kind of a descriptor type (the inverse of DescriptorOf): kind_of<Int8Crt> is the SchemeKind
/// its registry line declares, so that code outside the descriptor names the family by its type.
template <class D>
struct KindOf;
#define TCEMU_SCHEME_KIND_OF(e, D)                   \
  template <>                                        \
  struct KindOf<D> {                                 \
    static constexpr SchemeKind value = SchemeKind::e; \
  };
TCEMU_SCHEME_REGISTRY(TCEMU_SCHEME_KIND_OF)
#undef TCEMU_SCHEME_KIND_OF
template <class D>
inline constexpr SchemeKind kind_of = KindOf<D>::value;

/// All descriptors, indexed by SchemeKind (registry order = enumerator order = display order).
struct DescriptorTable {
  SchemeDescriptor d[kSchemeCount];
};
inline constexpr DescriptorTable kDescriptors = {{
#define TCEMU_SCHEME_DESC_ENTRY(e, D) D::desc,
    TCEMU_SCHEME_REGISTRY(TCEMU_SCHEME_DESC_ENTRY)
#undef TCEMU_SCHEME_DESC_ENTRY
}};

/// The descriptor of `kind` (host code, or constant expressions in device code).
constexpr const SchemeDescriptor& descriptor(SchemeKind kind) { return kDescriptors.d[static_cast<int>(kind)]; }

/// Kinds in registry (display) order.
struct KindList {
  SchemeKind k[kSchemeCount];
};
inline constexpr KindList kAllKinds = {{
#define TCEMU_SCHEME_KIND_ENTRY(e, D) SchemeKind::e,
    TCEMU_SCHEME_REGISTRY(TCEMU_SCHEME_KIND_ENTRY)
#undef TCEMU_SCHEME_KIND_ENTRY
}};

/// Calls f(D{}) with the descriptor type D of `kind` (host code): the one run-time map from a kind
/// to its descriptor's functions (parameterize, ...).
template <class F>
decltype(auto) with_descriptor(SchemeKind kind, F&& f) {
  switch (kind) {
#define TCEMU_SCHEME_WITH(e, D) \
  case SchemeKind::e: return f(D{});
    TCEMU_SCHEME_REGISTRY(TCEMU_SCHEME_WITH)
#undef TCEMU_SCHEME_WITH
  }
  return f(typename DescriptorOf<kAllKinds.k[0]>::type{});
}

/// The native scheme whose part type is `part` (fp32, fp64): the kind of the split pass's plain
/// copies and of the native fallbacks.
constexpr SchemeKind native_kind(PartType part) {
  for (int i = 0; i < kSchemeCount; ++i)
    if (kDescriptors.d[i].family == ImplFamily::native && kDescriptors.d[i].part == part) return kAllKinds.k[i];
  return kAllKinds.k[0];
}

/// The descriptor's name of the scheme with APE hybrid role `r` (tcemu/hybrid.hpp's defaults); ""
/// for HybridRole::none or when no descriptor holds the role.
constexpr const char* hybrid_scheme_name(HybridRole r) {
  for (int i = 0; i < kSchemeCount; ++i)
    if (r != HybridRole::none && kDescriptors.d[i].hybrid == r) return kDescriptors.d[i].name;
  return "";
}
static_assert(hybrid_scheme_name(HybridRole::fast)[0] != '\0' && hybrid_scheme_name(HybridRole::wide)[0] != '\0',
              "APE hybrid execution needs one descriptor with each role (HybridRole::fast, HybridRole::wide)");

/// The first registered kind of implementation family `f` (e.g. the `auto` kind).
constexpr SchemeKind kind_of_family(ImplFamily f) {
  for (int i = 0; i < kSchemeCount; ++i)
    if (kDescriptors.d[i].family == f) return kAllKinds.k[i];
  return kAllKinds.k[0];
}

/// Product list of a fused kernel: n0 products into the promoted group-0 accumulator, nl into the
/// low accumulator, in accumulation order (the descriptor's table: group 0, then the other groups
/// concatenated). The layout the kernels (core/src/cuda/kernels) read.
struct FusedProducts {
  int parts, n0, nl;
  int a0[4], b0[4];
  int al[8], bl[8];
};

/// The fused product list of a descriptor's table.
constexpr FusedProducts fused_products(const SchemeDescriptor& d) {
  FusedProducts L{d.parts, 0, 0, {}, {}, {}, {}};
  for (int i = 0; i < d.table.nproducts; ++i) {
    const TableProduct& q = d.table.p[i];
    if (q.group == 0) {
      L.a0[L.n0] = q.a;
      L.b0[L.n0++] = q.b;
    } else {
      L.al[L.nl] = q.a;
      L.bl[L.nl++] = q.b;
    }
  }
  return L;
}

/// The product list of fused table `t`: that of the first descriptor naming it (all descriptors that
/// name it agree: static_assert below). {} for FusedTable::none.
constexpr FusedProducts fused_products(FusedTable t) {
  for (int i = 0; i < kSchemeCount; ++i)
    if (t != FusedTable::none && kDescriptors.d[i].fused == t) return fused_products(kDescriptors.d[i]);
  return FusedProducts{0, 0, 0, {}, {}, {}, {}};
}

namespace detail {
constexpr bool same_products(const FusedProducts& x, const FusedProducts& y) {
  if (x.parts != y.parts || x.n0 != y.n0 || x.nl != y.nl) return false;
  for (int q = 0; q < x.n0; ++q)
    if (x.a0[q] != y.a0[q] || x.b0[q] != y.b0[q]) return false;
  for (int q = 0; q < x.nl; ++q)
    if (x.al[q] != y.al[q] || x.bl[q] != y.bl[q]) return false;
  return true;
}
/// Every descriptor with a fused table: the table's list is its own, group 0 is unscaled, all low
/// groups share one scale (the kernel's single low_scale) and the lists fit the kernels' arrays.
constexpr bool fused_tables_consistent() {
  for (int i = 0; i < kSchemeCount; ++i) {
    const SchemeDescriptor& d = kDescriptors.d[i];
    if (d.fused == FusedTable::none) continue;
    if (d.table.ngroups < 1 || d.table.scale_exp[0] != 0) return false;
    for (int g = 2; g < d.table.ngroups; ++g)
      if (d.table.scale_exp[g] != d.table.scale_exp[1]) return false;
    const FusedProducts L = fused_products(d);
    if (L.n0 > 4 || L.nl > 8) return false;
    if (!same_products(L, fused_products(d.fused))) return false;
  }
  return true;
}
/// Every descriptor's table has `products` entries (fixed-table schemes).
constexpr bool tables_complete() {
  for (int i = 0; i < kSchemeCount; ++i) {
    const SchemeDescriptor& d = kDescriptors.d[i];
    if (d.table.ngroups > 0 && d.table.nproducts != d.products) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::fused_tables_consistent(),
              "descriptors that share a fused kernel table must list the same products");
static_assert(detail::tables_complete(), "a descriptor's product table must hold its `products` products");

/// The kind whose split-pass writer `kind` uses (its descriptor's split_as; usable in device code).
constexpr SchemeKind split_kind(SchemeKind kind) {
  switch (kind) {
#define TCEMU_SCHEME_SPLIT_AS(e, D) \
  case SchemeKind::e: return D::split_as;
    TCEMU_SCHEME_REGISTRY(TCEMU_SCHEME_SPLIT_AS)
#undef TCEMU_SCHEME_SPLIT_AS
  }
  return kind;
}

}  // namespace tcemu::schemes

namespace tcemu {

namespace schemes::detail {
template <class D>
constexpr bool line_aligned() {
  return D::desc.family == ImplFamily::line_aligned;
}
}  // namespace schemes::detail

/// True for the line-aligned kinds (hi on a grid set by the line's maximum, split::split_aligned):
/// k == a || k == b || ... over the registered line-aligned descriptors (the other terms fold away).
/// Usable in device code.
constexpr bool is_line_aligned(SchemeKind k) {
  return false
#define TCEMU_SCHEME_IS_ALIGNED(e, D) \
  || (std::integral_constant<bool, schemes::detail::line_aligned<D>()>::value && k == SchemeKind::e)
      TCEMU_SCHEME_REGISTRY(TCEMU_SCHEME_IS_ALIGNED)
#undef TCEMU_SCHEME_IS_ALIGNED
      ;
}

}  // namespace tcemu
