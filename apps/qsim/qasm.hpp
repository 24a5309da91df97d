#pragma once
/// \file qasm.hpp
/// OpenQASM 2.0 reader: turns a program into qsim's Circuit.
///
/// Supported: `OPENQASM 2.x;`, `include` (qelib1.inc is embedded, see qelib.hpp; other files are read
/// relative to the including file), several `qreg`/`creg` (qubits numbered in declaration order),
/// `gate` definitions with parameters (expanded like macros at each call, recursively), the built-ins
/// U and CX, parameter expressions (qasm_expr.hpp), register broadcasting (`h q;`, `cx q,r;`,
/// `measure q -> c;`), `barrier` (ignored), final `measure` (recorded in Circuit::measurements for
/// sampling), and `reset` of a qubit no gate has touched yet (a no-op on |0>).
///
/// Rejected with tcemu::InvalidArgument "<file>:<line>: <reason>" (one line), naming the construct:
/// a gate on a qubit after it was measured (mid-circuit measurement), `reset` after gates or a
/// measurement, classical `if`, calls of `opaque` gates, unknown gates or identifiers, wrong numbers of
/// parameters or qubits, repeated qubits in one call, indices out of range, mismatched broadcast sizes,
/// non-finite parameter values, syntax errors, and registers that bring the circuit above
/// QasmOptions::max_qubits.
#include <string>

#include "circuit.hpp"

namespace qsim {

/// Options of the QASM reader.
struct QasmOptions {
  int max_qubits = kMaxQubits;  ///< a qreg that brings the total above this is an error
  /// true: calls of qelib1.inc gates become one Gate with the built-in exact matrix (qelib.hpp);
  /// false: every gate is expanded down to U and CX (for testing the built-ins against their
  /// definitions).
  bool builtin_matrices = true;
};

/// Parses OpenQASM 2.0 `source`; `file` names it in messages and in Circuit::name, and is the base
/// for relative includes.
Circuit parse_qasm(const std::string& source, const std::string& file, const QasmOptions& options = {});

/// Reads and parses a .qasm file. Throws tcemu::IoError "<path>: cannot open: <reason>" when the file
/// cannot be read, tcemu::InvalidArgument as parse_qasm otherwise.
Circuit load_qasm(const std::string& path, const QasmOptions& options = {});

}  // namespace qsim
