// Qubit layouts, block plans and the host state permutation (qubit_layout.hpp).
#include "qubit_layout.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "tcemu/error.hpp"

namespace qsim {

Layout Layout::identity(int n) {
  Layout l;
  for (int q = 0; q < n; ++q) {
    l.qubit_at.push_back(q);
    l.position_of.push_back(q);
  }
  return l;
}

bool Layout::is_identity() const {
  for (std::size_t p = 0; p < qubit_at.size(); ++p)
    if (qubit_at[p] != static_cast<int>(p)) return false;
  return true;
}

void Layout::swap_qubits(int a, int b) {
  const int pa = position_of[static_cast<std::size_t>(a)], pb = position_of[static_cast<std::size_t>(b)];
  std::swap(qubit_at[static_cast<std::size_t>(pa)], qubit_at[static_cast<std::size_t>(pb)]);
  position_of[static_cast<std::size_t>(a)] = pb;
  position_of[static_cast<std::size_t>(b)] = pa;
}

namespace {

bool occupies(const Layout& l, const std::vector<int>& qubits, int first_position) {
  for (int q : qubits) {
    const int p = l.position_of[static_cast<std::size_t>(q)];
    if (p < first_position || p >= first_position + static_cast<int>(qubits.size())) return false;
  }
  return true;
}

/// Moves `qubits` into positions [lo, lo + size) by swapping each one that is outside with a
/// qubit inside that does not belong there (every other qubit keeps its position).
void gather_into(Layout& l, const std::vector<int>& qubits, int lo) {
  const int hi = lo + static_cast<int>(qubits.size());
  std::vector<char> wanted(l.qubit_at.size(), 0);
  for (int q : qubits) wanted[static_cast<std::size_t>(q)] = 1;
  int free_pos = lo;
  for (int q : qubits) {
    const int p = l.position_of[static_cast<std::size_t>(q)];
    if (p >= lo && p < hi) continue;
    while (free_pos < hi) {
      const int occupant = l.qubit_at[static_cast<std::size_t>(free_pos)];
      if (!wanted[static_cast<std::size_t>(occupant)]) break;
      ++free_pos;
    }
    l.swap_qubits(q, l.qubit_at[static_cast<std::size_t>(free_pos)]);
  }
}

std::vector<int> order_of(const Layout& l, int lo, int count) {
  return std::vector<int>(l.qubit_at.begin() + lo, l.qubit_at.begin() + lo + count);
}

}  // namespace

BlockPlan plan_dense(const Layout& current, const std::vector<int>& qubits, bool allow_high) {
  const int n = static_cast<int>(current.qubit_at.size());
  const int s = static_cast<int>(qubits.size());
  BlockPlan plan;
  plan.layout = current;
  if (occupies(current, qubits, 0)) {
    plan.placement = Placement::low;
    plan.order = order_of(current, 0, s);
  } else if (allow_high && occupies(current, qubits, n - s)) {
    plan.placement = Placement::high;
    plan.order = order_of(current, n - s, s);
  } else {
    plan.permute = true;
    plan.placement = Placement::low;
    gather_into(plan.layout, qubits, 0);
    plan.order = order_of(plan.layout, 0, s);
  }
  return plan;
}

BlockPlan plan_dense_in_order(const Layout& current, const std::vector<int>& qubits) {
  const int n = static_cast<int>(current.qubit_at.size());
  std::vector<char> in_block(static_cast<std::size_t>(n), 0);
  for (int q : qubits) in_block[static_cast<std::size_t>(q)] = 1;
  std::vector<int> order;  // the block's qubits by current position, then the others
  for (int pass = 1; pass >= 0; --pass)
    for (int p = 0; p < n; ++p)
      if (in_block[static_cast<std::size_t>(current.qubit_at[static_cast<std::size_t>(p)])] == pass)
        order.push_back(current.qubit_at[static_cast<std::size_t>(p)]);
  BlockPlan plan;
  plan.layout = current;
  for (int p = 0; p < n; ++p) {
    plan.layout.qubit_at[static_cast<std::size_t>(p)] = order[static_cast<std::size_t>(p)];
    plan.layout.position_of[static_cast<std::size_t>(order[static_cast<std::size_t>(p)])] = p;
  }
  plan.permute = plan.layout != current;
  plan.placement = Placement::low;
  plan.order = order_of(plan.layout, 0, static_cast<int>(qubits.size()));
  return plan;
}

BlockPlan plan_controlled(const Layout& current, const std::vector<int>& targets, const std::vector<int>& controls) {
  const int n = static_cast<int>(current.qubit_at.size());
  const int t = static_cast<int>(targets.size()), c = static_cast<int>(controls.size());
  BlockPlan plan;
  plan.layout = current;
  plan.placement = Placement::low;
  if (!occupies(current, targets, 0) || !occupies(current, controls, n - c)) {
    plan.permute = true;
    // Targets first; the control region [n-c, n) is disjoint from [0, t) (t + c <= n), so gathering
    // the controls afterwards never moves a target.
    gather_into(plan.layout, targets, 0);
    gather_into(plan.layout, controls, n - c);
  }
  plan.order = order_of(plan.layout, 0, t);
  return plan;
}

std::vector<int> source_positions(const Layout& from, const Layout& to) {
  if (from.qubit_at.size() != to.qubit_at.size())
    throw tcemu::InvalidArgument("qsim: source_positions of layouts of " + std::to_string(from.qubit_at.size()) +
                                 " and " + std::to_string(to.qubit_at.size()) + " qubits");
  std::vector<int> src(to.qubit_at.size());
  for (std::size_t p = 0; p < src.size(); ++p) src[p] = from.position_of[static_cast<std::size_t>(to.qubit_at[p])];
  return src;
}

Matrix reorder_matrix(const Matrix& m, const std::vector<int>& from, const std::vector<int>& to) {
  if (from == to) return m;
  const int s = static_cast<int>(from.size());
  const std::size_t d = std::size_t(1) << s;
  std::vector<std::size_t> map(d, 0);  // new index -> old index
  for (std::size_t r = 0; r < d; ++r)
    for (int i = 0; i < s; ++i)
      if ((r >> i) & 1u) {
        const int j = static_cast<int>(std::find(from.begin(), from.end(), to[static_cast<std::size_t>(i)]) - from.begin());
        map[r] |= std::size_t(1) << j;
      }
  Matrix out(d * d);
  for (std::size_t r = 0; r < d; ++r)
    for (std::size_t c = 0; c < d; ++c) out[r * d + c] = m[map[r] * d + map[c]];
  return out;
}

std::vector<std::pair<int, int>> position_swaps(const Layout& from, const Layout& to) {
  if (from.qubit_at.size() != to.qubit_at.size())
    throw tcemu::InvalidArgument("position_swaps: layouts of " + std::to_string(from.qubit_at.size()) + " and " +
                                 std::to_string(to.qubit_at.size()) + " qubits");
  std::vector<std::pair<int, int>> swaps;
  Layout cur = from;
  for (std::size_t p = 0; p < to.qubit_at.size(); ++p) {
    const int want = to.qubit_at[p];
    if (cur.qubit_at[p] == want) continue;
    const int there = cur.position_of[static_cast<std::size_t>(want)];
    swaps.emplace_back(static_cast<int>(p), there);
    cur.swap_qubits(cur.qubit_at[p], want);
  }
  return swaps;
}

PermutationTables permutation_tables(const Layout& from, const Layout& to) {
  PermutationTables t{};
  const int n = static_cast<int>(to.qubit_at.size());
  if (n > kMaxPermutationQubits)
    throw tcemu::InvalidArgument("permutation_tables: " + std::to_string(n) + " qubits; the 32-bit gather tables hold at most " +
                                 std::to_string(kMaxPermutationQubits) + " (single-buffer mode swaps positions instead)");
  t.num_qubits = n;
  for (int b = 0; b < 4; ++b)
    for (int v = 0; v < 256; ++v) {
      std::uint32_t old = 0;
      for (int j = 0; j < 8; ++j) {
        const int p = 8 * b + j;
        if (p < n && ((v >> j) & 1))
          old |= std::uint32_t(1) << from.position_of[static_cast<std::size_t>(to.qubit_at[static_cast<std::size_t>(p)])];
      }
      t.table[b][v] = old;
    }
  while (t.run_bits < n && from.qubit_at[static_cast<std::size_t>(t.run_bits)] == to.qubit_at[static_cast<std::size_t>(t.run_bits)])
    ++t.run_bits;
  return t;
}

PermutationPlan permutation_plan(const PermutationTables& t, bool tiled) {
  PermutationPlan p;
  std::copy(&t.table[0][0], &t.table[0][0] + 1024, p.words.begin() + PermutationPlan::kTables);
  if (!tiled) return p;
  const int n = t.num_qubits;
  auto old_of = [&](std::uint32_t d) {
    return t.table[0][d & 255] | t.table[1][(d >> 8) & 255] | t.table[2][(d >> 16) & 255] | t.table[3][(d >> 24) & 255];
  };
  std::vector<int> src_bit_of(static_cast<std::size_t>(n));  // dst bit j holds src bit src_bit_of[j]
  for (int j = 0; j < n; ++j) {
    const std::uint32_t o = old_of(std::uint32_t(1) << j);
    int b = 0;
    while ((std::uint32_t(1) << b) != o) ++b;
    src_bit_of[static_cast<std::size_t>(j)] = b;
  }
  std::vector<int> tdst, other, tsrc;
  for (int j = 0; j < n; ++j) (j < 5 || src_bit_of[static_cast<std::size_t>(j)] < 5 ? tdst : other).push_back(j);
  for (int j : tdst) tsrc.push_back(src_bit_of[static_cast<std::size_t>(j)]);
  std::sort(tsrc.begin(), tsrc.end());
  const int m = static_cast<int>(tdst.size());
  p.tile_bits = m;
  std::uint32_t* w_dst = p.words.data() + PermutationPlan::kDstOffset;
  std::uint32_t* w_src = p.words.data() + PermutationPlan::kSrcOffset;
  std::uint32_t* w2r = p.words.data() + PermutationPlan::kDstToSrc;
  for (std::uint32_t w = 0; w < (1u << m); ++w) {
    std::uint32_t d = 0, r = 0, so = 0;
    for (int i = 0; i < m; ++i) d |= ((w >> i) & 1u) << tdst[static_cast<std::size_t>(i)];
    const std::uint32_t o = old_of(d);
    for (int i = 0; i < m; ++i) r |= ((o >> tsrc[static_cast<std::size_t>(i)]) & 1u) << i;
    for (int i = 0; i < m; ++i) so |= ((w >> i) & 1u) << tsrc[static_cast<std::size_t>(i)];
    w_dst[w] = d;
    w2r[w] = r;
    w_src[w] = so;
  }
  for (int k = 0; k < 4; ++k)
    for (std::uint32_t v = 0; v < 256; ++v) {
      std::uint32_t d = 0;
      for (int i = 0; i < 8; ++i) {
        const int bit = 8 * k + i;
        if (((v >> i) & 1u) && bit < static_cast<int>(other.size())) d |= std::uint32_t(1) << other[static_cast<std::size_t>(bit)];
      }
      p.words[static_cast<std::size_t>(PermutationPlan::kBase + 256 * k) + v] = d;
    }
  return p;
}

template <class T>
void permute_state(const T* src, T* dst, const PermutationTables& t) {
  const std::uint64_t size = std::uint64_t(1) << t.num_qubits;
  const int run_bits = std::min(t.run_bits, 8 * 4);
  const std::uint64_t run = std::uint64_t(1) << run_bits;
  for (std::uint64_t i = 0; i < size; i += run) {
    const std::uint64_t old = t.table[0][i & 255] | t.table[1][(i >> 8) & 255] | t.table[2][(i >> 16) & 255] |
                              t.table[3][(i >> 24) & 255];
    if (run == 1) dst[i] = src[old];
    else std::memcpy(static_cast<void*>(dst + i), static_cast<const void*>(src + old), run * sizeof(T));
  }
}

template void permute_state<std::complex<float>>(const std::complex<float>*, std::complex<float>*, const PermutationTables&);
template void permute_state<std::complex<double>>(const std::complex<double>*, std::complex<double>*,
                                                  const PermutationTables&);

}  // namespace qsim
