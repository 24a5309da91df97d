// qsim's HDF5 circuit files and the executable: round trips, --json, --output, and every CLI error
// (one line, exit status 2, no output file left behind).
#include <gtest/gtest.h>

#include "cli_expect.hpp"

#include <fstream>

#include "../io/temp_dir.hpp"
#include "circuit_generators.hpp"
#include "circuit_h5.hpp"
#include "qasm.hpp"
#include "qsim_fixtures.hpp"
#include "simulate.hpp"
#include "tcemu/error.hpp"
#include "tcemu/io/hdf5.hpp"

namespace {

using tcemu::testing::TempDir;

TEST(QsimCircuitFile, RoundTripKeepsEveryGateExactly) {
  TempDir dir;
  qsim::Circuit c = qsim::random_circuit(7, 80, 5);
  c.num_clbits = 3;
  c.measurements = {{6, 0}, {2, 2}, {0, 1}};
  const std::string path = dir.file("c.h5");
  qsim::save_circuit(c, path);
  const qsim::Circuit r = qsim::load_circuit(path);
  EXPECT_EQ(r.name, c.name);
  EXPECT_EQ(r.num_qubits, 7);
  EXPECT_EQ(r.num_clbits, 3);
  EXPECT_EQ(r.measurements, c.measurements);
  ASSERT_EQ(r.gates.size(), c.gates.size());
  for (std::size_t i = 0; i < c.gates.size(); ++i) {
    EXPECT_EQ(r.gates[i].targets, c.gates[i].targets) << i;
    EXPECT_EQ(r.gates[i].controls, c.gates[i].controls) << i;
    EXPECT_EQ(r.gates[i].matrix, c.gates[i].matrix) << i;  // bit for bit
  }
  EXPECT_EQ(qsim_test::direct_simulation(r), qsim_test::direct_simulation(c));
  // A circuit without gates round-trips too.
  qsim::Circuit e;
  e.name = "empty";
  e.num_qubits = 3;
  qsim::save_circuit(e, dir.file("e.h5"));
  EXPECT_EQ(qsim::load_circuit(dir.file("e.h5")).gates.size(), 0u);
}

TEST(QsimCircuitFile, BadFilesAreRejectedWithFileAndDataset) {
  TempDir dir;
  auto expect_error = [&](const std::string& path, const std::string& part) {
    try {
      qsim::load_circuit(path);
      ADD_FAILURE() << "no exception for " << part;
    } catch (const tcemu::Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  };
  {  // not a circuit file
    tcemu::io::Writer w(dir.file("other.h5"));
    w.write<double>("/data", {1.0}, {1});
    w.commit();
  }
  expect_error(dir.file("other.h5"), "num_qubits not found");
  {  // matrices too short for the arity
    tcemu::io::Writer w(dir.file("short.h5"));
    w.write<std::int32_t>("/circuit/gate_arity", {1, 0}, {1, 2});
    w.write<std::int32_t>("/circuit/qubits", {0}, {1});
    w.write<double>("/circuit/matrices", {1, 0, 0, 0}, {2, 2});
    w.write_int_attribute("/circuit", "num_qubits", 2);
    w.write_int_attribute("/circuit", "num_gates", 1);
    w.commit();
  }
  expect_error(dir.file("short.h5"), "/circuit/matrices: shape [2, 2]; gate_arity needs [4, 2]");
  {  // not unitary
    tcemu::io::Writer w(dir.file("nonunitary.h5"));
    w.write<std::int32_t>("/circuit/gate_arity", {1, 0}, {1, 2});
    w.write<std::int32_t>("/circuit/qubits", {1}, {1});
    w.write<double>("/circuit/matrices", {1, 0, 1, 0, 0, 0, 1, 0}, {4, 2});
    w.write_int_attribute("/circuit", "num_qubits", 2);
    w.write_int_attribute("/circuit", "num_gates", 1);
    w.commit();
  }
  expect_error(dir.file("nonunitary.h5"), "gate 0 (gate) is not unitary");
}

class QsimCli : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(std::filesystem::exists(qsim_test::qsim_executable())) << qsim_test::qsim_executable(); }
  /// Runs qsim, expects exit status 2, one stderr line "qsim: error: ..." containing every part,
  /// nothing on stdout, and no output file (nor its temporary) in the scratch directory.
  void expect_error(const std::string& args, const std::vector<std::string>& parts) {
    SCOPED_TRACE(args);
    const std::string out = dir_.file("out.h5");
    const auto before = dir_.entries().size();
    const auto r = qsim_test::run_qsim(args + " -q --output '" + out + "'", dir_.path());
    app_test::expect_cli_error("qsim", r, parts, out, before, dir_.entries().size());
  }
  std::string write_text(const std::string& name, const std::string& text) {
    const std::string p = dir_.file(name);
    std::ofstream(p) << text;
    return p;
  }
  TempDir dir_;
};

TEST_F(QsimCli, ErrorsExitWith2AndLeaveNoOutput) {
  expect_error("", {"exactly one of --qasm, --input, --generate"});
  expect_error("--generate ghz:n=3 --qasm x.qasm", {"exactly one of"});
  expect_error("--generate ghz:n=3 --fuse 10", {"--fuse 10 is outside 1..9"});
  expect_error("--generate ghz:n=3 --scheme nope", {"unknown scheme 'nope'"});
  expect_error("--generate ghz:n=3 --target fp16", {"fp16"});
  expect_error("--generate ghz:n=3 --device tpu", {"--device 'tpu'"});
  expect_error("--generate ghz:n=3 --kernels fast", {"--kernels 'fast' is not one of: auto, multipass, fused"});
  expect_error("--generate ghz:n=31", {"n=31 is outside 1..30"});
  expect_error("--generate brickwork:n=8,depht=3", {"unknown key 'depht'"});
  expect_error("--generate warp:n=3", {"unknown generator 'warp'"});
  expect_error("--generate ghz:n=3 --amplitudes 0101", {"bitstring '0101' has 4 characters; the circuit has 3 qubits"});
  expect_error("--input '" + dir_.file("absent.h5") + "'", {"absent.h5", "cannot open"});
  const std::string bad = write_text("bad.qasm", "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\nfoo q[0];\n");
  expect_error("--qasm '" + bad + "'", {bad + ":4: unknown gate 'foo'"});
  const std::string big = write_text("big.qasm", "OPENQASM 2.0;\nqreg q[31];\n");
  expect_error("--qasm '" + big + "'", {big + ":2:", "31 qubits; qsim simulates at most 30"});
  if (!qsim::cuda_available()) expect_error("--generate ghz:n=3 --device cuda", {"--device cuda"});
}

TEST_F(QsimCli, JsonOutputFileAndCircuitRoundTrip) {
  const std::string circ = dir_.file("bw.h5"), out = dir_.file("res.h5");
  auto r = qsim_test::run_qsim("--generate brickwork:n=8,depth=6,seed=3 --save-circuit '" + circ + "' -q", dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  r = qsim_test::run_qsim("--input '" + circ + "' --fuse 3 --scheme fp32,fp16x2 --amplitudes 00000000,10100101 --shots 100 --json -q "
                          "--output '" + out + "'",
                          dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"app\":\"qsim\"", 0), 0u) << r.out;
  for (const char* key : {"\"results\":[", "\"scheme\":\"fp64\"", "\"scheme\":\"fp32\"", "\"scheme\":\"fp16x2\"", "\"time_ms\":",
                          "\"fidelity\":", "\"max_amp_err\":", "\"norm\":", "\"bitstring\":\"10100101\""})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " not in " << r.out;
  tcemu::io::Reader f(out);
  EXPECT_EQ(f.int_attribute("/", "num_qubits").value_or(-1), 8);
  const auto state = f.read<double>("/fp64/state", 2);
  EXPECT_EQ(state.rows(), 256);
  const auto amps = f.read<double>("/fp16x2/amplitudes", 2);
  EXPECT_EQ(amps.rows(), 2);
  EXPECT_DOUBLE_EQ(amps.data[2], f.read<double>("/fp16x2/state", 2).data[2 * 0xA5]);
  EXPECT_EQ(f.info("/fp32/samples").shape, std::vector<std::int64_t>{100});
  EXPECT_GT(f.read<double>("/fp32/fidelity", 1).data[0], 1 - 1e-6);
  // The same circuit generated directly gives the same fp64 state as the one read back.
  const auto direct = qsim_test::direct_simulation(qsim::brickwork(8, 6, 3));
  for (std::size_t k = 0; k < direct.size(); ++k) {
    ASSERT_NEAR(state.data[2 * k], direct[k].real(), 1e-12) << k;
    ASSERT_NEAR(state.data[2 * k + 1], direct[k].imag(), 1e-12) << k;
  }
}

TEST_F(QsimCli, QasmWithFinalMeasurementsSamplesTheClassicalRegister) {
  const std::string q = write_text("bell.qasm",
                                   "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[3];\ncreg c[2];\n"
                                   "x q[2];\nh q[0];\ncx q[0], q[1];\nmeasure q[0] -> c[0];\nmeasure q[1] -> c[1];\n");
  const std::string out = dir_.file("bell.h5");
  const auto r = qsim_test::run_qsim("--qasm '" + q + "' --scheme fp32 --shots 400 --seed 7 -q --output '" + out + "'", dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("most frequent outcomes"), std::string::npos) << r.out;
  const auto s = tcemu::io::Reader(out).read<std::int32_t>("/fp64/samples", 1);  // int64 dataset, values fit
  int ones = 0;
  for (auto v : s.data) {
    ASSERT_TRUE(v == 0 || v == 3) << v;  // q2 (=1) is not measured; c = q1 q0 is 00 or 11
    ones += v == 3;
  }
  EXPECT_GT(ones, 150);
  EXPECT_LT(ones, 250);
}

}  // namespace
