// Part layout of the split panels (see part_layout.hpp).
#include "cuda/dispatch/part_layout.hpp"

#include <algorithm>
#include <numeric>

namespace tcemu::cuda::detail {
namespace {

int find_window(const std::vector<int>& seq, const std::vector<int>& w) {
  if (w.size() > seq.size()) return -1;
  for (std::size_t o = 0; o + w.size() <= seq.size(); ++o)
    if (std::equal(w.begin(), w.end(), seq.begin() + static_cast<std::ptrdiff_t>(o)))
      return static_cast<int>(o);
  return -1;
}

}  // namespace

PartLayout make_part_layout(const std::vector<ProductGroup>& groups, bool swap) {
  PartLayout L;
  L.windows.resize(groups.size());
  std::vector<std::size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return groups[x].products.size() > groups[y].products.size();
  });
  for (std::size_t g : order) {
    std::vector<int> a, b;
    for (const PartProduct& p : groups[g].products) {
      a.push_back(swap ? p.b : p.a);
      b.push_back(swap ? p.a : p.b);
    }
    int oa = find_window(L.seq_a, a), ob = find_window(L.seq_b, b);
    if (oa < 0 || ob < 0) {  // try the products in reverse order
      std::vector<int> ra(a.rbegin(), a.rend()), rb(b.rbegin(), b.rend());
      const int ra_o = find_window(L.seq_a, ra), rb_o = find_window(L.seq_b, rb);
      if (ra_o >= 0 && rb_o >= 0) {
        oa = ra_o;
        ob = rb_o;
      }
    }
    if (oa < 0) {
      oa = static_cast<int>(L.seq_a.size());
      L.seq_a.insert(L.seq_a.end(), a.begin(), a.end());
    }
    if (ob < 0) {
      ob = static_cast<int>(L.seq_b.size());
      L.seq_b.insert(L.seq_b.end(), b.begin(), b.end());
    }
    L.windows[g] = GroupWindow{oa, ob, static_cast<int>(a.size()), groups[g].scale_exp};
  }
  return L;
}

}  // namespace tcemu::cuda::detail
