#pragma once
/// \file circuit_h5.hpp
/// qsim's HDF5 circuit format (docs/qsim.md, "Circuit file"):
///
///   /circuit                    group; attributes num_qubits, num_gates, num_clbits (int64),
///                               format = "qsim-circuit-1", name (string, optional)
///   /circuit/gate_arity         int32 [num_gates, 2]: (targets t_g, controls c_g) of gate g
///   /circuit/qubits             int32 [sum_g (t_g + c_g)]: gate g's targets then its controls
///   /circuit/matrices           float64 [sum_g 4^t_g, 2]: (re, im) of gate g's 2^t x 2^t matrix,
///                               row-major, bit i of an index = target i (gates.hpp)
///   /circuit/measurements       int32 [k, 2]: (qubit, classical bit) of the final measurements,
///                               optional (absent when the circuit has none)
///
/// Gates are stored in program order; a circuit with no gates has no gate datasets (num_gates = 0).
/// Gate names are not stored (a read circuit names its gates "gate").
#include <string>

#include "circuit.hpp"

namespace qsim {

/// Writes `circuit` to `path` (tmp + rename: nothing half-written is left on failure).
/// Throws tcemu::IoError naming the file on failure.
void save_circuit(const Circuit& circuit, const std::string& path);

/// Reads a circuit file and validates it (validate() with max_qubits). Throws tcemu::IoError naming
/// the file and dataset for a missing group/attribute/dataset, wrong rank/type/shape, or inconsistent
/// sizes (e.g. "/circuit/qubits has 10 entries; gate_arity needs 12"), and tcemu::InvalidArgument (from
/// validate) for qubits out of range, non-unitary matrices or too many qubits.
Circuit load_circuit(const std::string& path, int max_qubits = kMaxQubits);

}  // namespace qsim
