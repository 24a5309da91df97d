#pragma once
/// \file qelib.hpp
/// The standard library `qelib1.inc`, embedded in qsim, and exact matrices for its gates.
///
/// `include "qelib1.inc";` always loads the embedded text (any file of that name next to the circuit
/// is not read): QASMBench's qelib1.inc verbatim, plus the gates Qiskit's version adds (u, p, sx,
/// sxdg, cp, csx, cu) with Qiskit's definitions. Calls of library gates are turned into one Gate with
/// the exact matrix below instead of being expanded into U and CX, which keeps exact zeros and the
/// control structure (a ccx stays "X on the target with two controls"). Every built-in matrix equals
/// the product of its qelib1.inc definition, global phase included (tests/apps/test_qsim_qasm.cpp
/// checks this for each of them). rxx, rccx, rc3x and c4x have no built-in matrix and are expanded.
/// Two definitions of that qelib1.inc differ from the textbook gate and qsim follows the file:
/// ch = e^{i pi/4} controlled-H, and c4x is not a 4-controlled X (see qelib.cpp); c3sqrtx is the
/// 3-controlled sqrt(X)^dagger.
#include <string>
#include <vector>

#include "gates.hpp"

namespace qsim::qasm {

/// Text of the embedded qelib1.inc.
const std::string& qelib1_source();

/// A gate with a built-in matrix: the first `controls` qubit arguments are controls, the next
/// `targets` the targets (matrix bit i = i-th target argument).
struct Builtin {
  int params = 0;
  int controls = 0;
  int targets = 1;
  Matrix (*matrix)(const std::vector<double>& params) = nullptr;
};

/// The built-in for a library gate name (also "U" and "CX"), or nullptr.
const Builtin* find_builtin(const std::string& name);
/// Every name find_builtin knows, sorted.
std::vector<std::string> builtin_names();

}  // namespace qsim::qasm
