// qsim's OpenQASM 2.0 reader: built-in gate matrices against their qelib1.inc definitions, language
// features, error messages naming file and line, and every QASMBench circuit in shared/circuits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "../io/temp_dir.hpp"
#include "qsim/circuit.hpp"
#include "qsim/qasm_expr.hpp"

#include "qsim/fusion.hpp"
#include "qsim/qasm.hpp"
#include "qsim/qelib.hpp"
#include "qsim_fixtures.hpp"
#include "qsim/simulate.hpp"
#include "qsim/state_metrics.hpp"
#include "tcemu/error.hpp"
#include "tcemu/scheme.hpp"

namespace {

using qsim_test::cplx;

std::string slurp_file(const std::string& path) { return qsim_test::slurp(path); }

qsim::Circuit parse(const std::string& body, bool builtin = true) {
  qsim::QasmOptions o;
  o.builtin_matrices = builtin;
  return qsim::parse_qasm("OPENQASM 2.0;\ninclude \"qelib1.inc\";\n" + body, "test.qasm", o);
}

/// Expects parse() to throw a one-line InvalidArgument starting "test.qasm:<line>:" and containing `part`.
void expect_parse_error(const std::string& body, int line, const std::string& part) {
  SCOPED_TRACE(body);
  try {
    parse(body);
    FAIL() << "no exception";
  } catch (const tcemu::InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("test.qasm:" + std::to_string(line) + ": ", 0), 0u) << m;
    EXPECT_NE(m.find(part), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

/// The full unitary of a circuit on n qubits (column k = simulation of basis state |k>).
qsim::Matrix unitary_of(const qsim::Circuit& c) {
  const std::size_t d = std::size_t(1) << c.num_qubits;
  qsim::Matrix u(d * d);
  for (std::size_t k = 0; k < d; ++k) {
    qsim::Circuit prep = c;
    prep.gates.clear();
    for (int q = 0; q < c.num_qubits; ++q)
      if ((k >> q) & 1u) prep.gates.push_back({"x", {q}, {}, qsim::pauli_x()});
    prep.gates.insert(prep.gates.end(), c.gates.begin(), c.gates.end());
    const auto psi = qsim_test::direct_simulation(prep);
    for (std::size_t r = 0; r < d; ++r) u[r * d + k] = psi[r];
  }
  return u;
}

TEST(QsimQasm, EveryBuiltinMatrixEqualsItsQelib1Definition) {
  // Global phase included: the built-ins must reproduce the definitions exactly.
  const std::vector<double> params = {0.7311, -1.234, 2.5, 0.3};
  int checked = 0;
  for (const auto& name : qsim::qasm::builtin_names()) {
    const auto* b = qsim::qasm::find_builtin(name);
    const int nq = b->controls + b->targets;
    std::string call = name;
    if (b->params) {
      call += "(";
      for (int i = 0; i < b->params; ++i) call += (i ? "," : "") + std::to_string(params[static_cast<std::size_t>(i)]);
      call += ")";
    }
    for (int i = 0; i < nq; ++i) call += (i ? ",q[" : " q[") + std::to_string(nq - 1 - i) + "]";  // reversed
    const std::string src = "qreg q[" + std::to_string(nq) + "];\n" + call + ";\n";
    const auto with = parse(src, true), without = parse(src, false);
    ASSERT_EQ(with.gates.size(), 1u) << name;
    for (const auto& g : without.gates) EXPECT_TRUE(g.name == "U" || g.name == "CX") << name << " expands to " << g.name;
    EXPECT_LT(qsim::max_abs_diff(unitary_of(with), unitary_of(without)), 1e-12) << name << ": " << call;
    ++checked;
  }
  EXPECT_GE(checked, 40);
}

TEST(QsimQasm, RegistersBroadcastUserGatesAndExpressions) {
  const auto c = parse(
      "qreg a[2];\nqreg b[2];\ncreg ca[2];\n"
      "gate mygate(theta, phi) x, y { rz(theta/2 - -phi) y; cx x, y; u1(2^-1*pi + sqrt(4)*ln(exp(1))) x; }\n"
      "reset b;\n"          // b untouched: a no-op
      "h a;\n"              // h a[0]; h a[1]
      "cx a, b;\n"          // cx a[0],b[0]; cx a[1],b[1]
      "barrier a, b;\n"
      "mygate(-pi/4, cos(0)) a[0], b[1];\n"
      "u1(-2^2) b[0]; u1(2^3^2) b[1];   // -4 and 2^9\n"
      "measure a -> ca;\n"
      "measure b[1] -> ca[0];\n");
  EXPECT_EQ(c.num_qubits, 4);
  EXPECT_EQ(c.num_clbits, 2);
  ASSERT_EQ(c.gates.size(), 9u);
  EXPECT_EQ(c.gates[0].targets, std::vector<int>{0});
  EXPECT_EQ(c.gates[1].targets, std::vector<int>{1});
  EXPECT_EQ(c.gates[3].controls, std::vector<int>{1});
  EXPECT_EQ(c.gates[3].targets, std::vector<int>{3});
  EXPECT_EQ(c.gates[4].name, "rz");
  EXPECT_EQ(c.gates[4].targets, std::vector<int>{3});
  EXPECT_LT(qsim::max_abs_diff(c.gates[4].matrix, qsim::phase(-M_PI / 8 + 1)), 1e-15);
  EXPECT_EQ(c.gates[5].controls, std::vector<int>{0});
  EXPECT_LT(qsim::max_abs_diff(c.gates[6].matrix, qsim::phase(M_PI / 2 + 2)), 1e-15);
  EXPECT_LT(qsim::max_abs_diff(c.gates[7].matrix, qsim::phase(-4)), 1e-15);
  EXPECT_LT(qsim::max_abs_diff(c.gates[8].matrix, qsim::phase(512)), 1e-12);
  EXPECT_EQ(c.measurements, (std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {3, 0}}));
}

TEST(QsimQasm, ErrorsNameFileAndLine) {
  expect_parse_error("qreg q[2];\nfoo q[0];\n", 4, "unknown gate 'foo'");
  expect_parse_error("qreg q[2];\ncreg c[2];\nmeasure q[0] -> c[0];\nh q[1];\nh q[0];\n", 7, "mid-circuit measurement");
  expect_parse_error("qreg q[2];\ncreg c[2];\nmeasure q -> c;\nif (c==1) x q[0];\n", 6, "'if'");
  expect_parse_error("qreg q[2];\nh q[0]\ncx q[0], q[1];\n", 5, "expected ';'");
  expect_parse_error("qreg q[2];\nopaque magic q;\nmagic q[1];\n", 5, "opaque");
  expect_parse_error("qreg q[2];\nh q[0];\nreset q[0];\n", 5, "mid-circuit reset");
  expect_parse_error("qreg q[2];\nrx q[0];\n", 4, "takes 1 parameter(s), given 0");
  expect_parse_error("qreg q[2];\nh q[2];\n", 4, "out of range");
  expect_parse_error("qreg q[2];\nrx(theta) q[0];\n", 4, "unknown identifier 'theta'");
  expect_parse_error("qreg q[2];\ncx q[1], q[1];\n", 4, "twice");
  expect_parse_error("qreg q[2];\nqreg r[3];\ncx q, r;\n", 5, "different sizes");
  expect_parse_error("qreg q[20];\nqreg r[15];\n", 4, "35 qubits; qsim simulates at most 34");
  expect_parse_error("qreg q[1];\nrx(ln(-1)) q[0];\n", 4, "not finite");
  expect_parse_error("qreg q[1];\ninclude \"no_such_file.inc\";\n", 4, "no_such_file.inc");
  expect_parse_error("qreg q[1];\ngate g a { h b; }\n", 4, "'b' is not a qubit argument");
  expect_parse_error("qreg q[1];\nh q[0]; $\n", 4, "unexpected character '$'");
  // Inside an included file, the included file's name and line are reported.
  try {
    qsim::parse_qasm("OPENQASM 3.0;\n", "v3.qasm");
    FAIL();
  } catch (const tcemu::InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("v3.qasm:1: OPENQASM version 3.0", 0), 0u) << e.what();
  }
  // Without the include, qelib1 gates are unknown, with a hint.
  try {
    qsim::parse_qasm("OPENQASM 2.0;\nqreg q[1];\nh q[0];\n", "noinc.qasm");
    FAIL();
  } catch (const tcemu::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("noinc.qasm:3: unknown gate 'h' (it is in qelib1.inc"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Issue 18: adversarial programs. Each of these crashed (stack overflow), ran out of memory, or was
// misread by the reader before; now each works or fails with one line naming file and line.

/// Expects parse_qasm(program) to throw a one-line tcemu::Error starting `prefix` and containing `part`.
void expect_program_error(const std::string& program, const std::string& prefix, const std::string& part,
                          const qsim::QasmOptions& options = {}, const std::string& file = "adv.qasm") {
  SCOPED_TRACE(program.substr(0, 200));
  try {
    qsim::parse_qasm(program, file, options);
    FAIL() << "no exception";
  } catch (const tcemu::Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(prefix, 0), 0u) << m;
    EXPECT_NE(m.find(part), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

std::string one_qubit_program(const std::string& statements) {
  return "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\n" + statements;
}

/// The phase of the single u1 gate a program produces (its matrix is diag(1, e^{i angle})).
double u1_angle(const qsim::Circuit& c) { return std::arg(c.gates.at(0).matrix.at(3)); }

TEST(QsimQasmReliability, DeepExpressionsFailCleanlyPastTheNestingLimit) {
  const std::string deep(20000, '(');
  expect_program_error(one_qubit_program("rx(" + deep + "1" + std::string(20000, ')') + ") q[0];\n"), "adv.qasm:4: ",
                       "expression nested deeper than 256 levels");
  // Function calls and exponents nest too; so do expressions inside gate definitions.
  std::string sines;
  for (int i = 0; i < 5000; ++i) sines += "sin(";
  expect_program_error(one_qubit_program("rx(" + sines + "1" + std::string(5000, ')') + ") q[0];\n"), "adv.qasm:4: ",
                       "nested deeper than 256");
  std::string tower = "1";
  for (int i = 0; i < 5000; ++i) tower += "^1";
  expect_program_error(one_qubit_program("gate g(t) a {\n  rx(" + tower + "*t) a;\n}\n"), "adv.qasm:5: ",
                       "nested deeper than 256");
  // Exactly at the limit is fine.
  static_assert(qsim::qasm::kMaxExprNesting == 256, "the documented limit");
  const auto at_limit = parse("qreg q[1];\nu1(" + std::string(256, '(') + "0.5" + std::string(256, ')') + ") q[0];\n");
  EXPECT_DOUBLE_EQ(u1_angle(at_limit), 0.5);
}

TEST(QsimQasmReliability, LongFlatExpressionsAreEvaluatedWithoutRecursion) {
  // 200,000 terms (a left-deep tree of that depth in a tree evaluator), 100,001 unary minuses, and a
  // long product, at top level and inside a gate body.
  std::string sum = "0";
  for (int i = 0; i < 200000; ++i) sum += "+0.00001";
  const std::string minuses(100001, '-');
  std::string product = "1";
  for (int i = 0; i < 100000; ++i) product += "*1";
  const auto c = parse("qreg q[1];\nu1(" + sum + ") q[0];\nu1(" + minuses + "0.5) q[0];\nu1(" + product +
                       ") q[0];\ngate g(t) a { u1(" + sum + " - t) a; }\ng(1.5) q[0];\n");
  ASSERT_EQ(c.gates.size(), 4u);
  EXPECT_NEAR(std::arg(c.gates[0].matrix[3]), 2.0, 1e-9);
  EXPECT_DOUBLE_EQ(std::arg(c.gates[1].matrix[3]), -0.5);
  EXPECT_DOUBLE_EQ(std::arg(c.gates[2].matrix[3]), 1.0);
  EXPECT_NEAR(std::arg(c.gates[3].matrix[3]), 0.5, 1e-9);
}

TEST(QsimQasmReliability, GateExpansionIsBoundedBeforeMemoryIsSpent) {
  // Each definition calls the previous one twice: 2^39 gates from under 2 KB.
  std::string doubling = "qreg q[1];\ngate g0 a { x a; }\n";
  for (int i = 1; i < 40; ++i)
    doubling += "gate g" + std::to_string(i) + " a { g" + std::to_string(i - 1) + " a; g" + std::to_string(i - 1) + " a; }\n";
  qsim::QasmOptions small;
  small.max_gates = 1000;
  expect_program_error("OPENQASM 2.0;\ninclude \"qelib1.inc\";\n" + doubling + "g39 q[0];\n", "adv.qasm:44: ",
                       "more than 1000 gates after expanding the gate definitions", small);
  // Empty bodies add no gates but still take exponential time: the expansion work is bounded too.
  std::string empty = "OPENQASM 2.0;\nqreg q[1];\ngate e0 a { }\n";
  for (int i = 1; i < 60; ++i)
    empty += "gate e" + std::to_string(i) + " a { e" + std::to_string(i - 1) + " a; e" + std::to_string(i - 1) + " a; }\n";
  small.max_expansion_steps = 100000;
  expect_program_error(empty + "e59 q[0];\n", "adv.qasm:63: ", "takes more than 100000 steps", small);
  // Within the limits the same constructs work.
  small.max_gates = 1024;
  EXPECT_EQ(qsim::parse_qasm("OPENQASM 2.0;\ninclude \"qelib1.inc\";\n" + doubling + "g10 q[0];\n", "ok.qasm", small).gates.size(),
            1024u);
}

TEST(QsimQasmReliability, RegisterSizesAreCheckedIn64Bits) {
  expect_program_error("OPENQASM 2.0;\nqreg q[1];\ncreg c[2000000000];\n", "adv.qasm:3: ",
                       "creg c[2000000000] brings the circuit to 2000000000 classical bits; qsim allows at most 1024");
  // Above 2^31 the size used to be printed negative (and above 2^32 wrapped to a small one).
  expect_program_error("OPENQASM 2.0;\nqreg q[1];\ncreg c[4294967297];\n", "adv.qasm:3: ", "creg c[4294967297] brings");
  expect_program_error("OPENQASM 2.0;\nqreg q[3000000000];\n", "adv.qasm:2: ",
                       "qreg q[3000000000] brings the circuit to 3000000000 qubits; qsim simulates at most 34");
  expect_program_error("OPENQASM 2.0;\nqreg q[99999999999999999999999];\n", "adv.qasm:2: ",
                       "size of q 99999999999999999999999 is too large");
  expect_program_error("OPENQASM 2.0;\nqreg q[2];\nU(0,0,0) q[18446744073709551617];\n", "adv.qasm:3: ",
                       "an index 18446744073709551617 is too large");
  expect_program_error("OPENQASM 2.0;\nqreg q[1];\ncreg a[1000];\ncreg b[25];\n", "adv.qasm:4: ",
                       "brings the circuit to 1025 classical bits");
  expect_program_error("OPENQASM 2.0;\nqreg q[-1];\n", "adv.qasm:2: ", "expected the size of q (an integer), found '-'");
  expect_program_error("OPENQASM 2.0;\nqreg q[0];\n", "adv.qasm:2: ", "has size 0; need >= 1");
  EXPECT_EQ(qsim::parse_qasm("OPENQASM 2.0;\nqreg q[1];\ncreg c[1024];\n", "ok.qasm").num_clbits, 1024);
}

TEST(QsimQasmReliability, DegenerateFilesGetOneLineErrors) {
  expect_program_error("", "adv.qasm: ", "declares no qreg; a circuit needs at least 1 qubit");
  expect_program_error("OPENQASM 2.0;\n", "adv.qasm: ", "declares no qreg");
  expect_program_error("OPENQASM 2.0;\ncreg c[3];\n", "adv.qasm: ", "declares no qreg");
  std::string garbage;
  for (int i = 0; i < 256; ++i) garbage += static_cast<char>(i);
  expect_program_error(garbage, "adv.qasm:1: ", "unexpected byte 0x00");
  expect_program_error("OPENQASM 2.0;\nqreg q[1];\n\x1b[2J;\n", "adv.qasm:3: ", "unexpected byte 0x1b");
  expect_program_error("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\nh r[0];\n", "adv.qasm:4: ", "unknown qreg 'r'");
  expect_program_error("OPENQASM 2.0;\nqreg q[1];\ncreg c[1];\nmeasure q[0] -> c[1];\n", "adv.qasm:4: ",
                       "index 1 is out of range for c[1]");
  expect_program_error("OPENQASM 2.0;\nqreg q[1];\ncreg c[1];\nmeasure q[0] -> d[0];\n", "adv.qasm:4: ", "unknown creg 'd'");
  // Argument lists are checked pairwise: 200,000 qubit arguments or parameters took quadratic time.
  std::string qargs = "a0", params = "p0", call = "q";
  for (int i = 1; i < 200000; ++i) {
    qargs += ",a" + std::to_string(i);
    params += ",p" + std::to_string(i);
    call += ",q";
  }
  expect_program_error("OPENQASM 2.0;\nqreg q[1];\ngate g " + qargs + " { }\n", "adv.qasm:3: ", "more than 34 qubit arguments");
  expect_program_error("OPENQASM 2.0;\nqreg q[1];\ngate g(" + params + ") a { }\n", "adv.qasm:3: ", "more than 64 parameters");
  expect_program_error("OPENQASM 2.0;\nqreg q[1];\nbarrier " + call + ";\n", "adv.qasm:3: ", "more than 34 qubit arguments");
}

TEST(QsimQasmReliability, IncludesMustBeSmallRegularAcyclicFiles) {
  tcemu::testing::TempDir dir;
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name)) << text;
    return dir.file(name);
  };
  const std::string zero = write("zero.qasm", "OPENQASM 2.0;\ninclude \"/dev/zero\";\nqreg q[1];\n");
  expect_program_error(slurp_file(zero), zero + ":2: ",
                       "include \"/dev/zero\": /dev/zero: cannot open: is a character device, not a regular file", {}, zero);
  std::filesystem::create_directory(dir.file("sub"));
  const std::string to_dir = write("dir.qasm", "OPENQASM 2.0;\ninclude \"sub\";\nqreg q[1];\n");
  expect_program_error(slurp_file(to_dir), to_dir + ":2: ", "is a directory", {}, to_dir);
  // A file including itself, and two including each other.
  const std::string self = write("self.qasm", "OPENQASM 2.0;\ninclude \"self.qasm\";\nqreg q[1];\n");
  expect_program_error(slurp_file(self), self + ":2: ", "an include cycle", {}, self);
  write("b.inc", "include \"a.inc\";\n");
  write("a.inc", "include \"b.inc\";\n");
  const std::string mutual = write("mutual.qasm", "OPENQASM 2.0;\ninclude \"a.inc\";\nqreg q[1];\n");
  expect_program_error(slurp_file(mutual), dir.file("b.inc") + ":1: ", "an include cycle", {}, mutual);
  // A chain of 20 distinct files passes the depth limit.
  for (int i = 0; i < 20; ++i) write("chain" + std::to_string(i) + ".inc", "include \"chain" + std::to_string(i + 1) + ".inc\";\n");
  write("chain20.inc", "");
  const std::string chain = write("chain.qasm", "OPENQASM 2.0;\ninclude \"chain0.inc\";\nqreg q[1];\n");
  expect_program_error(slurp_file(chain), dir.file("chain15.inc") + ":1: ", "includes nested deeper than 16 levels", {}, chain);
  // The size limit counts the file and its includes together.
  write("big.inc", "// " + std::string(5000, 'x') + "\n");
  const std::string big = write("big.qasm", "OPENQASM 2.0;\ninclude \"big.inc\";\nqreg q[1];\n");
  qsim::QasmOptions small;
  small.max_source_bytes = 4096;
  expect_program_error(slurp_file(big), big + ":2: ", "more than the limit of 4096 bytes for a circuit and its includes", small, big);
  try {
    qsim::load_qasm(dir.file("big.inc"), small);
    FAIL() << "no exception";
  } catch (const tcemu::IoError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.file("big.inc") + ": "), std::string::npos) << e.what();
  }
  small.max_source_bytes = 8192;
  EXPECT_EQ(qsim::parse_qasm(slurp_file(big), big, small).num_qubits, 1);
}

TEST(QsimQasmReliability, U3WithAnglesOfDifferentMagnitudeIsUnitary) {
  // phi + lambda used to be rounded to phi, so U[1][1] lost lambda's phase: 0.0016 off unitary.
  const auto c = parse("qreg q[2];\nu3(1,-1e308,3.14) q[0];\ncu3(1,1e300,-2.5) q[0], q[1];\nU(1e308,-1e308,2) q[1];\n");
  EXPECT_NO_THROW(qsim::validate(c));
  for (double big : {1e308, -1e308, 1e300, 1e20, 4503599627370496.5})
    for (double small : {3.14, -1e-3, 1.0, 2.0}) {
      EXPECT_LT(qsim::unitarity_error(qsim::u3(1, big, small)), 1e-15) << big << " " << small;
      EXPECT_LT(qsim::unitarity_error(qsim::u3(small, small, big)), 1e-15) << big << " " << small;
    }
  // The angles are still honoured exactly where they are ordinary.
  const qsim::Matrix m = qsim::u3(0.3, 0.7, -1.1);
  EXPECT_LT(std::abs(m[3] - std::polar(1.0, 0.7 - 1.1) * std::cos(0.15)), 1e-15);
}

/// Files of shared/circuits/qasmbench that qsim rejects, with the reason it must give.
const std::map<std::string, std::string>& expected_rejections() {
  static const std::map<std::string, std::string> m = {
      {"cc_n32.qasm", "classically controlled gate ('if')"},
      {"cc_n12.qasm", "classically controlled gate ('if')"},
      {"inverseqft_n4.qasm", "classically controlled gate ('if')"},
      {"qec_sm_n5.qasm", "classically controlled gate ('if')"},
      {"bb84_n8.qasm", "gate 'x' acts on q[0] after it was measured (line 33): mid-circuit measurement"},
      {"seca_n11.qasm", "gate 'cx' acts on q[9] after it was measured (line 48): mid-circuit measurement"},
      {"ipea_n2.qasm", "reset of q[0] after its measurement: mid-circuit reset"},
      {"shor_n5.qasm", "reset of q[4] after its measurement: mid-circuit reset"},
      {"square_root_n18.qasm", "mid-circuit reset"},
      // These QASMBench files end with `measure q[i] -> c[i]` but declare neither q nor c.
      {"vqe_uccsd_n4.qasm", ":225: unknown qreg 'q'"},
      {"vqe_uccsd_n6.qasm", ":2286: unknown qreg 'q'"},
      {"vqe_uccsd_n8.qasm", ":10813: unknown qreg 'q'"},
  };
  return m;
}

TEST(QsimQasmBench, EveryCircuitRunsOrIsRejectedWithItsReason) {
  const auto dir = qsim_test::qasmbench_dir();
  ASSERT_TRUE(std::filesystem::exists(dir)) << dir;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".qasm") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files.size(), 65u);
  std::map<std::string, std::string> rejected;
  int simulated = 0;
  for (const auto& f : files) {
    const std::string path = (dir / f).string();
    qsim::Circuit c;
    try {
      c = qsim::load_qasm(path);
      qsim::validate(c);
    } catch (const tcemu::Error& e) {
      rejected[f] = e.what();
      continue;
    }
    EXPECT_LE(c.num_qubits, qsim::kMaxQubits) << f;
    if (c.num_qubits > 16) continue;
    qsim::SimOptions opt;
    opt.gemm.scheme = tcemu::parse_scheme("fp64");
    const auto res = qsim::simulate<double>(qsim::fuse(c, 5), c.num_qubits, opt);
    EXPECT_NEAR(qsim::norm_squared(res.state), 1.0, 1e-10) << f;
    if (c.num_qubits <= 12) {
      const auto want = qsim_test::direct_simulation(c);
      double err = 0;
      for (std::size_t i = 0; i < want.size(); ++i) err = std::max(err, std::abs(want[i] - res.state[i]));
      EXPECT_LT(err, 1e-10) << f;
    }
    ++simulated;
  }
  for (const auto& [f, why] : rejected) {
    const auto it = expected_rejections().find(f);
    if (it == expected_rejections().end()) {
      ADD_FAILURE() << f << " was rejected unexpectedly: " << why;
      continue;
    }
    EXPECT_NE(why.find(it->second), std::string::npos) << f << ": " << why;
    EXPECT_EQ(why.rfind((dir / f).string() + ":", 0), 0u) << "reason does not name file:line: " << why;
  }
  for (const auto& [f, why] : expected_rejections()) EXPECT_TRUE(rejected.count(f)) << f << " should be rejected (" << why << ")";
  EXPECT_GE(simulated, 40);
}

}  // namespace
