// The scheme descriptors (core/include/tcemu/schemes/): the catalogue rows, the fused kernels' product
// lists and the Ozaki triangle derived from them, against the tables the code held before the
// descriptors existed (so that a descriptor edit that would change a kernel shows up here).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tcemu/scheme.hpp"
#include "tcemu/schemes/all.hpp"
#include "tcemu/split.hpp"

using namespace tcemu;

namespace {

struct List {
  int parts, n0, nl;
  std::vector<std::pair<int, int>> g0, low;
};

List list_of(const schemes::FusedProducts& L) {
  List r{L.parts, L.n0, L.nl, {}, {}};
  for (int q = 0; q < L.n0; ++q) r.g0.emplace_back(L.a0[q], L.b0[q]);
  for (int q = 0; q < L.nl; ++q) r.low.emplace_back(L.al[q], L.bl[q]);
  return r;
}

}  // namespace

TEST(SchemeDescriptors, FusedTablesAreTheKernelsTables) {
  // The fused kernels' tables as they were written out in core/src/cuda/kernels/fused_kernel.cuh (order = accumulation order).
  using P = std::vector<std::pair<int, int>>;
  const struct {
    FusedTable t;
    int parts;
    P g0, low;
  } want[] = {
      {FusedTable::hi_cross, 2, {{0, 0}}, {{0, 1}, {1, 0}}},
      {FusedTable::all_four, 2, {{1, 1}, {1, 0}, {0, 1}, {0, 0}}, {}},
      {FusedTable::hi_low3, 2, {{0, 0}}, {{0, 1}, {1, 0}, {1, 1}}},
      {FusedTable::three, 3, {{0, 0}}, {{0, 1}, {1, 0}, {0, 2}, {1, 1}, {2, 0}}},
      {FusedTable::nine, 3, {{0, 0}}, {{0, 1}, {1, 0}, {0, 2}, {1, 1}, {2, 0}, {1, 2}, {2, 1}, {2, 2}}},
  };
  for (const auto& w : want) {
    const List got = list_of(schemes::fused_products(w.t));
    EXPECT_EQ(got.parts, w.parts) << int(w.t);
    EXPECT_EQ(got.g0, w.g0) << int(w.t);
    EXPECT_EQ(got.low, w.low) << int(w.t);
  }
  // Which schemes run which fused table (the dispatcher's former switch).
  const std::pair<const char*, FusedTable> uses[] = {
      {"fp16x2", FusedTable::hi_cross},        {"fp16x2-legemm", FusedTable::hi_cross},
      {"fp16x2-markidis", FusedTable::all_four}, {"fp16x2-egemm", FusedTable::all_four},
      {"fp16x2-aligned", FusedTable::hi_low3}, {"tf32x2", FusedTable::hi_cross},
      {"tf32x2-aligned", FusedTable::hi_low3}, {"bf16x3", FusedTable::three},
      {"bf16x9", FusedTable::nine},            {"bf16x3-aligned", FusedTable::none},
      {"fp32", FusedTable::none},              {"int8-ozaki", FusedTable::none}};
  for (const auto& u : uses) {
    const Scheme s = parse_scheme(u.first);
    EXPECT_EQ(s.fused_table(), u.second) << u.first;
    EXPECT_EQ(s.has_fused_kernel(), u.second != FusedTable::none) << u.first;
  }
}

TEST(SchemeDescriptors, CatalogueRowsComeFromTheDescriptors) {
  std::set<std::string> names;
  for (const Scheme& s : catalogue(Target::fp32)) {
    const schemes::SchemeDescriptor& d = schemes::descriptor(s.kind);
    EXPECT_EQ(s.name, d.name);
    EXPECT_EQ(s.family(), d.family) << s.name;
    EXPECT_TRUE(names.insert(s.name).second) << "duplicate " << s.name;
    int products = 0;
    for (const ProductGroup& g : s.groups) products += static_cast<int>(g.products.size());
    if (!s.groups.empty()) EXPECT_EQ(products, s.products) << s.name;
    EXPECT_EQ(is_line_aligned(s.kind), s.is_line_aligned()) << s.name;
    EXPECT_EQ(s.needs_profile_before_split(), s.is_line_aligned()) << s.name;
    EXPECT_NE(std::string(s.error_bound()), "") << s.name;
  }
  EXPECT_EQ(static_cast<int>(names.size()), kSchemeCount);
  EXPECT_EQ(schemes::native_kind(PartType::fp32), parse_scheme("fp32").kind);
  EXPECT_EQ(schemes::native_kind(PartType::fp64), parse_scheme("fp64").kind);
  EXPECT_EQ(schemes::split_kind(parse_scheme("bf16x9").kind), parse_scheme("bf16x3").kind);
}

TEST(SchemeDescriptors, OzakiTriangleOrder) {
  for (int s = 1; s <= schemes::kOzakiMaxSlices; ++s) {
    const schemes::OzakiTriangle& t = schemes::kOzakiTriangles.t[s];
    ASSERT_EQ(t.size, s * (s + 1) / 2);
    int i = 0;
    for (int g = s + 1; g >= 2; --g)  // the loops host/ozaki.cpp and paths_cuda.cpp had
      for (int p = 1; p <= g - 1; ++p, ++i) {
        EXPECT_EQ(t.products[i].g, g);
        EXPECT_EQ(t.products[i].p, p);
        EXPECT_EQ(t.products[i].q, g - p);
      }
    EXPECT_EQ(t.groups(), s);
    EXPECT_EQ(t.group_at(0), s + 1);
    EXPECT_EQ(t.group_at(s - 1), 2);
  }
}

TEST(SchemeDescriptors, ParametersAndMarkdown) {
  EXPECT_EQ(parse_scheme("int8-ozaki:5", Target::fp64).products, 15);
  EXPECT_EQ(parse_scheme("int8-mixpert:2").products, 6);
  EXPECT_THROW(parse_scheme("int8-mixpert:5"), InvalidArgument);
  EXPECT_THROW(parse_scheme("int8-ozaki:0"), InvalidArgument);
  Scheme s = parse_scheme("fp16x2");
  EXPECT_THROW(parameterize(s, 2), InvalidArgument);
  const std::string md = catalogue_markdown();
  for (const Scheme& c : catalogue(Target::fp32)) EXPECT_NE(md.find("`" + c.name), std::string::npos) << c.name;
  EXPECT_NE(md.find("error bound"), std::string::npos);
}
