// Greedy gate fusion with dependency tracking (fusion.hpp).
#include "fusion.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "tcemu/error.hpp"

namespace qsim {

namespace {

std::vector<int> gate_qubits(const Gate& g) {
  std::vector<int> q(g.targets);
  q.insert(q.end(), g.controls.begin(), g.controls.end());
  return q;
}

int local_index(const std::vector<int>& qubits, int q) {
  return static_cast<int>(std::find(qubits.begin(), qubits.end(), q) - qubits.begin());
}

Block dense_block(const Circuit& c, const std::vector<int>& members) {
  Block b;
  for (int i : members)
    for (int q : gate_qubits(c.gates[static_cast<std::size_t>(i)])) b.qubits.push_back(q);
  std::sort(b.qubits.begin(), b.qubits.end());
  b.qubits.erase(std::unique(b.qubits.begin(), b.qubits.end()), b.qubits.end());
  const int s = static_cast<int>(b.qubits.size());
  b.matrix = identity(s);
  for (int i : members) {
    const Gate& g = c.gates[static_cast<std::size_t>(i)];
    std::vector<int> t, ctl;
    for (int q : g.targets) t.push_back(local_index(b.qubits, q));
    for (int q : g.controls) ctl.push_back(local_index(b.qubits, q));
    apply_gate_to_matrix(b.matrix, s, t, ctl, g.matrix);
  }
  b.gates = static_cast<int>(members.size());
  return b;
}

}  // namespace

void apply_gate_to_matrix(Matrix& b, int s, const std::vector<int>& targets, const std::vector<int>& controls,
                          const Matrix& gate) {
  const std::size_t dim = std::size_t(1) << s;
  const int t = static_cast<int>(targets.size());
  const std::size_t gd = std::size_t(1) << t;
  std::size_t tmask = 0, cmask = 0;
  for (int p : targets) tmask |= std::size_t(1) << p;
  for (int p : controls) cmask |= std::size_t(1) << p;
  std::vector<std::size_t> offset(gd);  // index bits of each local gate index
  for (std::size_t r = 0; r < gd; ++r)
    for (int i = 0; i < t; ++i)
      if ((r >> i) & 1u) offset[r] |= std::size_t(1) << targets[static_cast<std::size_t>(i)];
  std::vector<cplx> in(gd);
  for (std::size_t col = 0; col < dim; ++col)
    for (std::size_t base = 0; base < dim; ++base) {
      if ((base & tmask) != 0 || (base & cmask) != cmask) continue;
      for (std::size_t r = 0; r < gd; ++r) in[r] = b[(base | offset[r]) * dim + col];
      for (std::size_t r = 0; r < gd; ++r) {
        cplx acc = 0;
        for (std::size_t k = 0; k < gd; ++k) acc += gate[r * gd + k] * in[k];
        b[(base | offset[r]) * dim + col] = acc;
      }
    }
}

std::vector<Block> fuse(const Circuit& c, int d) {
  if (d < 1 || d > kMaxBlockQubits)
    throw tcemu::InvalidArgument("--fuse " + std::to_string(d) + " is outside 1.." + std::to_string(kMaxBlockQubits));
  const std::size_t g = c.gates.size();
  std::vector<char> done(g, 0);
  std::vector<Block> out;
  std::size_t first = 0;
  std::vector<char> in_block(static_cast<std::size_t>(c.num_qubits)), blocked(in_block.size());
  while (true) {
    while (first < g && done[first]) ++first;
    if (first >= g) break;
    const Gate& head = c.gates[first];
    const std::vector<int> hq = gate_qubits(head);
    done[first] = 1;
    if (static_cast<int>(hq.size()) > d) {
      if (head.controls.empty()) {
        out.push_back(dense_block(c, {static_cast<int>(first)}));
      } else {
        Block b;
        b.qubits = head.targets;
        b.controls = head.controls;
        b.matrix = head.matrix;
        b.gates = 1;
        out.push_back(std::move(b));
      }
      continue;
    }
    std::fill(in_block.begin(), in_block.end(), 0);
    std::fill(blocked.begin(), blocked.end(), 0);
    int size = 0, nblocked = 0;
    for (int q : hq) in_block[static_cast<std::size_t>(q)] = 1, ++size;
    std::vector<int> members = {static_cast<int>(first)};
    const std::size_t end = std::min(g, first + 1 + static_cast<std::size_t>(kFusionWindow));
    for (std::size_t j = first + 1; j < end && nblocked < c.num_qubits; ++j) {
      if (done[j]) continue;
      const std::vector<int> q = gate_qubits(c.gates[j]);
      bool free = true;
      int extra = 0;
      for (int x : q) {
        free &= !blocked[static_cast<std::size_t>(x)];
        extra += !in_block[static_cast<std::size_t>(x)];
      }
      if (free && size + extra <= d) {
        for (int x : q) in_block[static_cast<std::size_t>(x)] = 1;
        size += extra;
        members.push_back(static_cast<int>(j));
        done[j] = 1;
      } else {
        for (int x : q)
          if (!blocked[static_cast<std::size_t>(x)]) blocked[static_cast<std::size_t>(x)] = 1, ++nblocked;
      }
    }
    out.push_back(dense_block(c, members));
  }
  return out;
}

FusionSummary summarize(const std::vector<Block>& blocks, int n) {
  FusionSummary s;
  for (const auto& b : blocks) {
    const std::size_t k = b.qubits.size();
    ++s.blocks;
    s.controlled += !b.controls.empty();
    s.gates += b.gates;
    if (s.by_size.size() <= k) s.by_size.resize(k + 1);
    ++s.by_size[k];
    s.complex_macs += std::ldexp(1.0, n - static_cast<int>(b.controls.size()) + static_cast<int>(k));
  }
  return s;
}

}  // namespace qsim
