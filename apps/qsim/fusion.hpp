#pragma once
/// \file fusion.hpp
/// Gate fusion: consecutive gates are merged into blocks of at most d qubits, and each block becomes
/// one 2^s x 2^s unitary that the simulator applies as one complex GEMM.
///
/// Greedy rule with dependency tracking: a block starts at the first gate not yet placed and scans
/// forward; a gate joins when the union of the block's qubits and the gate's qubits (targets and
/// controls) still has at most d qubits and none of its qubits is "blocked"; a gate that cannot join
/// blocks its qubits, because later gates on those qubits must stay behind it. Gates may thus move
/// ahead of earlier gates they commute with trivially (disjoint qubits), never past a gate they share
/// a qubit with, so the fused circuit equals the original one exactly. The scan stops when every qubit
/// is blocked or after `kFusionWindow` gates.
///
/// A gate with more qubits than d is not folded: it forms its own block, dense on its targets when it
/// has no controls (s = #targets may exceed d, up to kMaxBlockQubits), else a *controlled* block
/// whose matrix acts on the targets only where every control is 1 (the simulator then runs the GEMM on
/// that 1/2^c slice of the state).
#include <cstdint>
#include <vector>

#include "circuit.hpp"

namespace qsim {

/// How far past the block's first gate the greedy scan looks.
constexpr int kFusionWindow = 4096;

/// One fused block.
struct Block {
  std::vector<int> qubits;    ///< matrix bit i = qubits[i]; ascending for dense blocks
  std::vector<int> controls;  ///< empty for dense blocks; the controls of a controlled block
  Matrix matrix;              ///< 2^s x 2^s, s = qubits.size(), row-major (gates.hpp convention)
  int gates = 0;              ///< circuit gates merged into this block
};

/// Fuses `circuit`'s gates into blocks of at most `max_qubits` (1..kMaxBlockQubits) qubits (see the
/// file comment). The product of the blocks' embedded matrices, in order, equals the circuit's unitary.
/// Throws tcemu::InvalidArgument when max_qubits is outside 1..kMaxBlockQubits.
std::vector<Block> fuse(const Circuit& circuit, int max_qubits);

/// B <- G B, with G = `gate` embedded into the s-qubit space of B (B 2^s x 2^s row-major).
/// `targets` and `controls` are bit positions in 0..s-1 (the gate's qubits mapped into the block).
void apply_gate_to_matrix(Matrix& b, int s, const std::vector<int>& targets, const std::vector<int>& controls,
                          const Matrix& gate);

/// Summary of a fusion: blocks, their size histogram, and the GEMM work in complex multiply-adds
/// (sum over blocks of 2^n * 2^s, controlled blocks 2^(n-c) * 2^s).
struct FusionSummary {
  std::int64_t blocks = 0, controlled = 0, gates = 0;
  std::vector<std::int64_t> by_size;  ///< blocks with s qubits, s = 0..
  double complex_macs = 0;
};
FusionSummary summarize(const std::vector<Block>& blocks, int num_qubits);

}  // namespace qsim
