#pragma once
/// \file qubit_layout.hpp
/// Qubit layout of the stored state vector and the permutations that make a block's qubits
/// contiguous for the GEMM.
///
/// The simulator stores the state with its qubits in some order: memory index bit p holds logical
/// qubit `qubit_at[p]`. A dense block on s qubits is one GEMM when its qubits sit at the s lowest bit
/// positions (the state is then a row-major 2^(n-s) x 2^s matrix M and M' = M U^T) or at the s highest
/// (a row-major 2^s x 2^(n-s) matrix M and M' = U M). When neither holds, the state is permuted so
/// that they sit at the low positions; the planner swaps only the qubits that must move, so most bits
/// keep their place. The small block matrix is re-indexed to the order the qubits have in the layout
/// instead of permuting the state to match the matrix.
#include <complex>
#include <cstdint>
#include <utility>
#include <vector>

#include "gates.hpp"

namespace qsim {

/// Placement of logical qubits in the memory index of the state.
struct Layout {
  std::vector<int> qubit_at;     ///< position -> logical qubit
  std::vector<int> position_of;  ///< logical qubit -> position

  /// Identity layout on n qubits (canonical order: qubit q at bit q).
  static Layout identity(int n);
  bool is_identity() const;
  bool operator==(const Layout& o) const { return qubit_at == o.qubit_at; }
  bool operator!=(const Layout& o) const { return !(*this == o); }
  /// Swaps the positions of two logical qubits.
  void swap_qubits(int a, int b);
};

/// Where a block's GEMM finds its qubits.
enum class Placement {
  low,   ///< qubits at positions 0..s-1: M (2^(n-s) x 2^s) times U^T
  high,  ///< qubits at positions n-s..n-1: U times M (2^s x 2^(n-s))
};

/// What the simulator does for one block.
struct BlockPlan {
  bool permute = false;     ///< the state must be permuted to `layout` first
  Layout layout;            ///< layout during the block's GEMM
  Placement placement = Placement::low;
  std::vector<int> order;   ///< the block's qubits in the order of their positions (low to high)
};

/// Plans a dense block on `qubits` (any order) given the current layout: no permutation when they
/// already form the lowest or (with allow_high) the highest positions, else a minimal swap of qubits
/// into the low ones. allow_high = false plans only Placement::low (the GPU path when its complex
/// GEMM uses the real embedding, which needs the state as the left, row-major operand; docs/qsim.md).
BlockPlan plan_dense(const Layout& current, const std::vector<int>& qubits, bool allow_high = true);

/// Plans a dense block at the low positions with every qubit kept in the order of its current
/// position: the block's qubits at positions 0..s-1, the others after them (a stable partition). The
/// layout for a GEMM that reads the state through the permutation (BlockGemm::gathered): the lowest
/// positions outside the block become the lowest row bits, so the 8 consecutive rows a thread block
/// reads share their 32-byte sectors instead of meeting them again 2^13 rows later (docs/qsim.md,
/// "Permutations read in place"). permute is false when the layout is already this one.
BlockPlan plan_dense_in_order(const Layout& current, const std::vector<int>& qubits);

/// Plans a controlled block: targets at the low positions, controls at the highest ones (so that the
/// rows where every control is 1 are the last 2^(n-t-c) rows of the 2^(n-t) x 2^t view).
BlockPlan plan_controlled(const Layout& current, const std::vector<int>& targets, const std::vector<int>& controls);

/// Re-indexes a block matrix from the qubit order `from` (matrix bit i = from[i]) to `to` (a
/// permutation of the same qubits): result(r', c') = m(P r', P c').
Matrix reorder_matrix(const Matrix& m, const std::vector<int>& from, const std::vector<int>& to);

/// For each position p of layout `to`, the position in layout `from` of the qubit at p (same n): the
/// old memory index of new index i is the sum of (bit p of i) << result[p], the bit map a GEMM reads
/// the permuted state through without permuting it (BlockGemm::gathered, tcemu::cuda::BitGather).
std::vector<int> source_positions(const Layout& from, const Layout& to);

/// Most qubits a gather permutation (PermutationTables, PermutationPlan) handles: its tables hold old
/// indices in 32-bit words. Larger states run in single-buffer mode, which moves qubits by in-place
/// position swaps (position_swaps) instead.
constexpr int kMaxPermutationQubits = 32;

/// The position transpositions (a, b) that, applied in order (each exchanges the qubits at positions
/// a and b: Layout::swap_qubits of the qubits there), turn layout `from` into `to` (same n): one per
/// position that must change, at most n - 1 (fewest: a cycle of length L takes L - 1). Used by the
/// single-buffer mode, where the state moves by in-place swaps instead of a gather into a second buffer.
std::vector<std::pair<int, int>> position_swaps(const Layout& from, const Layout& to);

/// Gather tables of a state permutation: the old memory index of new index i is
/// table[0][i & 255] | table[1][(i >> 8) & 255] | table[2][(i >> 16) & 255] | table[3][(i >> 24) & 255].
/// `run_bits`: the lowest positions that hold the same qubit in both layouts, so runs of
/// 2^run_bits consecutive elements move together. Shared by the host and device permutation kernels.
struct PermutationTables {
  std::uint32_t table[4][256];
  int run_bits = 0;
  int num_qubits = 0;
};
/// Throws tcemu::InvalidArgument when the layouts have more than kMaxPermutationQubits qubits.
PermutationTables permutation_tables(const Layout& from, const Layout& to);

/// Everything a permutation kernel reads, as one array of 32-bit words (uploaded to the device once
/// per permutation): the gather tables, and for the tiled kernel (simulate_engine.hpp) the tile plan.
/// A tile is the set T of destination bit positions {0..4} plus the destination positions of source
/// bits 0..4 (tile_bits = |T| <= 10): its 2^tile_bits elements are read in source order and written
/// in destination order. Word ranges:
///   [kTables, +1024)    PermutationTables::table, 4 x 256
///   [kBase, +1024)      tile number b -> destination base: 4 x 256 byte tables (b's bits deposited at
///                       the positions outside T)
///   [kDstOffset, +1024) local destination index w -> destination offset (w's bits deposited at T)
///   [kSrcOffset, +1024) local source index r -> source offset (r's bits at the source positions of
///                       T, ascending)
///   [kDstToSrc, +1024)  w -> the local source index of the element that lands at w
struct PermutationPlan {
  static constexpr int kTables = 0, kBase = 1024, kDstOffset = 2048, kSrcOffset = 3072, kDstToSrc = 4096;
  static constexpr int kWords = 5 * 1024;
  std::vector<std::uint32_t> words = std::vector<std::uint32_t>(kWords, 0u);
  int tile_bits = 0;  ///< 0 when the plan holds the gather tables only
};

/// The plan of `tables` (a permutation of n >= 5 qubits); with `tiled` false only the tables.
PermutationPlan permutation_plan(const PermutationTables& tables, bool tiled);

/// dst = src permuted from layout `from` to layout `to` (host; dst and src of 2^n elements,
/// distinct). T = std::complex<float> or std::complex<double>.
template <class T>
void permute_state(const T* src, T* dst, const PermutationTables& tables);

}  // namespace qsim
