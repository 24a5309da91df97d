#pragma once
/// \file circuit.hpp
/// qsim's circuit model: an ordered list of gates on n qubits, each with target qubits, control
/// qubits and a complex128 matrix on the targets, plus the final measurements to sample.
///
/// Qubit q is bit q of a basis-state index (little-endian), so basis state |k> has qubit q equal to
/// (k >> q) & 1. Bitstrings are written with the highest qubit first ("q[n-1] ... q[0]"), as Qiskit
/// prints them: "0011" on 4 qubits is index 3 (qubits 0 and 1 set).
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gates.hpp"

namespace qsim {

/// Largest circuit qsim accepts (the hard cap of the code: state indices are 64-bit, a 34-qubit state
/// is 128 GiB in complex64). Below it memory decides, before anything is allocated (job.hpp:
/// check_memory, check_device_memory; simulate.hpp: choose_buffers): a run holds two state buffers
/// plus GEMM workspace, or, where those do not fit or past kMaxPermutationQubits, one state buffer
/// (single-buffer mode, simulate.hpp).
constexpr int kMaxQubits = 34;
/// Largest number of target qubits of one dense gate or fused block (2^9 = 512: APE's largest QS GEMM).
constexpr int kMaxBlockQubits = 9;
/// Most gates in one circuit (after expansion of OpenQASM gate definitions; also for circuit files
/// and generators): about 1.5 GiB of gate records, checked before they are built.
constexpr std::size_t kMaxGates = 4'000'000;
/// Most final measurements (qubit -> classical bit records) in one circuit.
constexpr std::size_t kMaxMeasurements = kMaxGates;
/// Most classical bits (all cregs together). Samples keep the low 64 bits of the register.
constexpr int kMaxClassicalBits = 1024;

/// One gate: `matrix` (2^t x 2^t, t = targets.size(), bit i of its indices = targets[i]) applied to
/// the targets on the subspace where every control qubit is 1 (identity elsewhere).
struct Gate {
  std::string name;            ///< for messages and --explain, e.g. "cx", "haar2"
  std::vector<int> targets;    ///< 1..kMaxBlockQubits distinct qubits
  std::vector<int> controls;   ///< distinct from each other and from the targets (may be empty)
  Matrix matrix;               ///< unitary, 2^t x 2^t row-major
};

/// A circuit: what qsim simulates.
struct Circuit {
  std::string name;                 ///< file name or generator spec, used in messages
  int num_qubits = 0;
  std::vector<Gate> gates;
  /// Final measurements (qubit, classical bit), in program order; sampling reports the classical
  /// register value sum_j bit_j 2^j. Empty: samples report the basis index of all qubits.
  std::vector<std::pair<int, int>> measurements;
  int num_clbits = 0;               ///< size of the classical register (all cregs concatenated)

  /// Number of gates with exactly k qubits (targets + controls), k = 1..: for summaries.
  std::vector<std::int64_t> gate_histogram() const;
};

/// Checks the model's invariants and throws tcemu::InvalidArgument with a one-line message naming
/// the circuit and, for gate errors, the gate index and name:
///  - 1 <= num_qubits <= max_qubits ("circuit 'X' has 34 qubits; qsim simulates at most 32");
///  - at most kMaxGates gates, 0 <= num_clbits <= kMaxClassicalBits;
///  - every qubit index in [0, num_qubits), targets/controls distinct, 1 <= targets <= kMaxBlockQubits;
///  - matrix size 4^t, finite entries, unitary to `unitary_tol` (max |U^dagger U - I|);
///  - measurements name qubits in range and classical bits in [0, num_clbits).
void validate(const Circuit& circuit, int max_qubits = kMaxQubits, double unitary_tol = 1e-10);

/// Basis index of a bitstring of length num_qubits, highest qubit first ("0101" -> 5). Throws
/// InvalidArgument naming the string when its length differs or it has characters other than 0/1.
std::uint64_t parse_bitstring(const std::string& bits, int num_qubits);
/// The bitstring of a basis index (inverse of parse_bitstring).
std::string to_bitstring(std::uint64_t index, int num_qubits);

}  // namespace qsim
