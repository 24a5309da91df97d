// qsim's OpenQASM 2.0 reader: built-in gate matrices against their qelib1.inc definitions, language
// features, error messages naming file and line, and every QASMBench circuit in shared/circuits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "fusion.hpp"
#include "qasm.hpp"
#include "qelib.hpp"
#include "qsim_fixtures.hpp"
#include "simulate.hpp"
#include "state_metrics.hpp"
#include "tcemu/error.hpp"
#include "tcemu/scheme.hpp"

namespace {

using qsim_test::cplx;

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
  expect_parse_error("qreg q[20];\nqreg r[11];\n", 4, "31 qubits; qsim simulates at most 30");
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

/// Files of shared/circuits/qasmbench that qsim rejects, with the reason it must give.
const std::map<std::string, std::string>& expected_rejections() {
  static const std::map<std::string, std::string> m = {
      {"32.qasm", "brings the circuit to 32 qubits; qsim simulates at most 30"},
      {"cc_n32.qasm", "brings the circuit to 32 qubits"},
      {"dnn_n33.qasm", "brings the circuit to 33 qubits"},
      {"ising_n34.qasm", "brings the circuit to 34 qubits"},
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
    EXPECT_LE(c.num_qubits, 30) << f;
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
