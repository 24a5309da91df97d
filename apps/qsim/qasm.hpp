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
/// non-finite parameter values, syntax errors, a program without qreg, and every resource limit below
/// (qubits, classical bits, gates after expansion, expansion work, source bytes, include depth and
/// cycles, expression nesting: qasm_expr.hpp). The limits are checked before the memory or time they
/// guard is spent, so a tiny adversarial file fails in milliseconds.
#include <cstdint>
#include <string>
#include <vector>

#include "circuit.hpp"

namespace qsim {

/// Most bytes of OpenQASM source read for one circuit: the file and every file it includes (but not
/// the embedded qelib1.inc), together.
constexpr std::uint64_t kMaxQasmSourceBytes = std::uint64_t(32) << 20;  // 32 MiB
/// Deepest chain of `include`s (a file including itself is refused as a cycle before that).
constexpr int kMaxIncludeDepth = 16;
/// Most expansion work for one circuit: gate calls expanded (library and user gates, also those
/// whose bodies are empty) plus expression instructions evaluated in definition bodies.
constexpr std::uint64_t kMaxExpansionSteps = 32'000'000;

/// Most parameters of a gate (definition or call; qelib1.inc's gates take at most 4).
constexpr std::size_t kMaxGateParameters = 64;
/// Most qubit arguments of a gate definition, a gate call or a barrier (a call's qubits must be
/// distinct, so more than the 30 qubits can never be valid).
constexpr std::size_t kMaxGateQubitArguments = kMaxQubits;

/// Options of the QASM reader.
struct QasmOptions {
  int max_qubits = kMaxQubits;  ///< a qreg that brings the total above this is an error
  int max_clbits = kMaxClassicalBits;  ///< a creg that brings the total above this is an error
  std::size_t max_gates = kMaxGates;   ///< gates after expansion of the definitions
  std::uint64_t max_expansion_steps = kMaxExpansionSteps;
  std::uint64_t max_source_bytes = kMaxQasmSourceBytes;
  /// true: calls of qelib1.inc gates become one Gate with the built-in exact matrix (qelib.hpp);
  /// false: every gate is expanded down to U and CX (for testing the built-ins against their
  /// definitions).
  bool builtin_matrices = true;
};

/// Parses OpenQASM 2.0 `source`; `file` names it in messages and in Circuit::name, and is the base
/// for relative includes. When `includes_read` is given, the path of every file included is appended
/// to it (the embedded qelib1.inc is not a file): they are inputs too, which an output must not
/// overwrite.
Circuit parse_qasm(const std::string& source, const std::string& file, const QasmOptions& options = {},
                   std::vector<std::string>* includes_read = nullptr);

/// Reads and parses a .qasm file. Throws tcemu::IoError "<path>: ..." when it is not a readable
/// regular file or is larger than QasmOptions::max_source_bytes, tcemu::InvalidArgument as
/// parse_qasm otherwise.
Circuit load_qasm(const std::string& path, const QasmOptions& options = {},
                  std::vector<std::string>* includes_read = nullptr);

}  // namespace qsim
