// qsim's HDF5 circuit files and the executable: round trips, --json, --output, and every CLI error
// (one line, exit status 2, no output file left behind).
#include <gtest/gtest.h>

#include "cli_expect.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>

#include "../io/temp_dir.hpp"
#include "app_common/device.hpp"
#include "qsim/circuit_generators.hpp"
#include "qsim/circuit_h5.hpp"
#include "qsim/job.hpp"
#include "qsim/qasm.hpp"
#include "qsim_fixtures.hpp"
#include "qsim/simulate.hpp"
#include "tcemu/error.hpp"
#include "app_common/io/hdf5.hpp"

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
    tcemu::app::io::Writer w(dir.file("other.h5"));
    w.write<double>("/data", {1.0}, {1});
    w.commit();
  }
  expect_error(dir.file("other.h5"), "num_qubits not found");
  {  // matrices too short for the arity
    tcemu::app::io::Writer w(dir.file("short.h5"));
    w.write<std::int32_t>("/circuit/gate_arity", {1, 0}, {1, 2});
    w.write<std::int32_t>("/circuit/qubits", {0}, {1});
    w.write<double>("/circuit/matrices", {1, 0, 0, 0}, {2, 2});
    w.write_int_attribute("/circuit", "num_qubits", 2);
    w.write_int_attribute("/circuit", "num_gates", 1);
    w.commit();
  }
  expect_error(dir.file("short.h5"), "/circuit/matrices: shape [2, 2]; gate_arity needs [4, 2]");
  {  // not unitary
    tcemu::app::io::Writer w(dir.file("nonunitary.h5"));
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
  /// Runs qsim under `timeout -s KILL 30` (a FIFO used to block it forever) and expects the error
  /// line; the command names no --output, so `args` may carry its own.
  void expect_bounded_error(const std::string& args, const std::vector<std::string>& parts) {
    SCOPED_TRACE(args);
    const auto before = dir_.entries().size();
    const auto r = app_test::run_executable("timeout", "-s KILL 30 '" + qsim_test::qsim_executable() + "' " + args + " -q",
                                            dir_.path());
    app_test::expect_cli_error("qsim", r, parts, dir_.file("never-written.h5"), before, dir_.entries().size());
  }
  TempDir dir_;
};

TEST_F(QsimCli, ErrorsExitWith2AndLeaveNoOutput) {
  expect_error("", {"exactly one of --qasm, --input, --generate"});
  expect_error("--generate ghz:n=3 --qasm x.qasm", {"exactly one of"});
  expect_error("--generate ghz:n=3 --fuse 10", {"--fuse: 10 is outside 1..9"});
  expect_error("--generate ghz:n=3 --scheme nope", {"--scheme: unknown scheme 'nope'"});
  expect_error("--generate ghz:n=3 --target fp16", {"fp16"});
  expect_error("--generate ghz:n=3 --device tpu", {"--device 'tpu'"});
  expect_error("--generate ghz:n=3 --kernels fast", {"--kernels 'fast' is not one of: auto, multipass, fused"});
  expect_error("--generate ghz:n=35", {"n=35 is outside 1..34"});
  expect_error("--generate brickwork:n=8,depht=3", {"unknown key 'depht'"});
  expect_error("--generate warp:n=3", {"unknown generator 'warp'"});
  expect_error("--generate ghz:n=3 --amplitudes 0101", {"bitstring '0101' has 4 characters; the circuit has 3 qubits"});
  expect_error("--input '" + dir_.file("absent.h5") + "'", {dir_.file("absent.h5") + ": cannot open"});
  const std::string bad = write_text("bad.qasm", "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\nfoo q[0];\n");
  expect_error("--qasm '" + bad + "'", {bad + ":4: unknown gate 'foo'"});
  const std::string big = write_text("big.qasm", "OPENQASM 2.0;\nqreg q[35];\n");
  expect_error("--qasm '" + big + "'", {big + ":2:", "35 qubits; qsim simulates at most 34"});
  if (!tcemu::app::gpu_available()) expect_error("--generate ghz:n=3 --device cuda", {"--device cuda"});
  // The permutation kernel's switch (simulate_engine.hpp) names itself and the values it takes.
  setenv("TCEMU_QSIM_PERMUTE", "bogus", 1);
  expect_error("--generate ghz:n=3 --scheme fp32", {"TCEMU_QSIM_PERMUTE=bogus: expected cuda, kokkos or gather"});
  unsetenv("TCEMU_QSIM_PERMUTE");
  // So does the switch of the permutations read in place (simulate.hpp, gather_from_environment).
  setenv("TCEMU_QSIM_GATHER", "maybe", 1);
  expect_error("--generate ghz:n=3 --scheme fp64", {"TCEMU_QSIM_GATHER=maybe: expected on or off"});
  unsetenv("TCEMU_QSIM_GATHER");
}

// The qubit limit follows memory: a circuit below kMaxQubits whose runs do not fit stops before any
// work with one line naming the qubits and the bytes needed and available (host memory for --device
// host, the GPU's free memory for --device cuda). 32 qubits need 384 GiB of host memory (fp64 run,
// two buffers); 34 qubits without the reference need 133 GiB of host memory in single-buffer mode
// (the only mode past 32 qubits) and, on the GPU, the fp64 run 262 GiB in single-buffer mode.
TEST_F(QsimCli, QubitLimitFollowsMemory) {
  // Each case only where this machine lacks the memory (a larger one would start the simulation).
  const double host_bytes = qsim::available_memory_bytes();
  if (host_bytes < 412316860416.0)
    expect_error("--generate brickwork:n=32,depth=1,seed=1 --device host --scheme fp32",
                 {"(32 qubits)", "412316860416 bytes (384.0 GiB) of host memory", "bytes", "are available"});
  if (host_bytes < 142807662592.0)
    expect_error("--generate brickwork:n=34,depth=1,seed=1 --device host --scheme fp32 --no-reference",
                 {"(34 qubits)", "142807662592 bytes (133.0 GiB) of host memory", "one complex64 state buffer",
                  "are available"});
  expect_error("--generate brickwork:n=30,depth=1,seed=1 --buffers three", {"--buffers 'three' is not one of: auto, two, single"});
  if (qsim::gpu_path_built() && tcemu::app::gpu_available())
    expect_error("--generate brickwork:n=34,depth=1,seed=1 --device cuda --scheme fp32",
                 {"(34 qubits)", "281320357888 bytes (262.0 GiB) of GPU memory in single-buffer mode", "are free on the GPU"});
}

// --buffers single and --no-reference on a small circuit: the single-buffer runs give the fp64 run's
// numbers (fidelity 1 to rounding) and without the reference the rows carry only their norm drift.
TEST_F(QsimCli, SingleBufferModeAndNoReference) {
  auto r = qsim_test::run_qsim("--generate brickwork:n=11,depth=6,seed=2 --fuse 4 --scheme fp64,fp32 --buffers single --json -q",
                               dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"buffers\":\"single\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"buffers\":\"two\""), std::string::npos) << r.out;
  {  // the fp32 row's fidelity against the fp64 run: 1 to FP32 rounding
    const std::size_t row = r.out.find("\"scheme\":\"fp32\"");
    ASSERT_NE(row, std::string::npos) << r.out;
    const std::size_t at = r.out.find("\"infidelity\":", row);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_LT(std::abs(std::stod(r.out.substr(at + 13))), 1e-5) << r.out;
  }
  r = qsim_test::run_qsim("--generate brickwork:n=11,depth=6,seed=2 --fuse 4 --scheme fp32 --no-reference --json -q", dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("\"scheme\":\"fp64\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"scheme\":\"fp32\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"fidelity\":null"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"norm_drift\":"), std::string::npos) << r.out;
}

// A build without qsim's GPU path (tcemu's CUDA backend or Kokkos' CUDA backend missing): --device
// cuda is a one-line error, --device auto runs on the host.
TEST_F(QsimCli, DeviceAutoFallsBackWithoutTheGpuPath) {
  if (qsim::gpu_path_built()) GTEST_SKIP() << "this build has qsim's GPU path";
  expect_error("--generate ghz:n=3 --device cuda", {"--device cuda"});
  const auto r = qsim_test::run_qsim("--generate ghz:n=3 --device auto --scheme fp32 -q --json", dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"device\":\"host\""), std::string::npos) << r.out;
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
  tcemu::app::io::Reader f(out);
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
  const auto s = tcemu::app::io::Reader(out).read<std::int32_t>("/fp64/samples", 1);  // int64 dataset, values fit
  int ones = 0;
  for (auto v : s.data) {
    ASSERT_TRUE(v == 0 || v == 3) << v;  // q2 (=1) is not measured; c = q1 q0 is 00 or 11
    ones += v == 3;
  }
  EXPECT_GT(ones, 150);
  EXPECT_LT(ones, 250);
}

// ---------------------------------------------------------------------------------------------
// Issue 18: every class of bad input the adversarial campaign found, through the executable.

TEST_F(QsimCli, OptionErrorsAreOneLineWithExitStatus2) {
  // CLI11's own exits were 105-114 with two lines; NaN and out-of-range values were accepted.
  expect_error("--generate ghz:n=3 --bogus", {"--bogus"});
  expect_error("--generate ghz:n=3 --fuse nan", {"--fuse: 'nan' is not an integer"});
  expect_error("--generate ghz:n=3 --fuse 2.5", {"--fuse: '2.5' is not an integer"});
  expect_error("--generate ghz:n=3 --shots nan", {"--shots: 'nan' is not an integer"});
  expect_error("--generate ghz:n=3 --shots -1", {"--shots: -1 is outside 0..10000000"});
  expect_error("--generate ghz:n=3 --shots 100000000000", {"--shots: 100000000000 is outside 0..10000000"});
  expect_error("--generate ghz:n=3 --shots 99999999999999999999999", {"is outside 0..10000000"});
  expect_error("--generate ghz:n=3 --seed -1", {"--seed: '-1' is not a non-negative integer"});
  expect_error("--generate", {"--generate"});
  // Duplicate generator keys and controls that cannot fit beside the targets.
  expect_error("--generate brickwork:n=4,depth=2,n=5", {"--generate brickwork:n=4,depth=2,n=5: key 'n' is given twice"});
  expect_error("--generate random:n=4,gates=3,targets=3,controls=2", {"targets=3 plus controls=2 exceed n=4"});
  expect_error("--generate sycamore:n=30,depth=100000", {"more than 4000000 gates"});
  // Empty file names are errors, not "no output" (--output "" used to write nothing, silently).
  const std::string ok = write_text("ok.qasm", "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\nh q[0];\n");
  expect_bounded_error("--qasm '" + ok + "' --output ''", {"--output: the file name is empty"});
  expect_bounded_error("--qasm '" + ok + "' --save-circuit ''", {"--save-circuit: the file name is empty"});
  expect_bounded_error("--qasm ''", {"--qasm: the value is empty"});
  expect_bounded_error("--qasm '" + ok + "' --output '" + dir_.file("no/such/dir/out.h5") + "'", {"no/such/dir"});
}

TEST_F(QsimCli, HelpShowsEveryLimit) {
  const auto r = qsim_test::run_qsim("--help", dir_.path());
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* limit : {"qubits <= 34", "gates <= 4000000", "classical bits <= 1024", "measurements <= 4000000",
                            "--shots <= 10000000", "includes <= 32 MiB", "includes nested <= 16 levels",
                            "expansion <= 32000000 steps", "expressions nested <= 256 levels"})
    EXPECT_NE(r.out.find(limit), std::string::npos) << limit << " not in --help";
}

TEST_F(QsimCli, OutputNamingAnInputIsRefusedBeforeAnyWork) {
  // `--qasm c.qasm --output c.qasm` turned the circuit into an HDF5 file; --save-circuit likewise.
  const std::string text = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\nh q[0];\ncx q[0], q[1];\n";
  const std::string q = write_text("c.qasm", text);
  expect_bounded_error("--qasm '" + q + "' --output '" + q + "'", {"--output: " + q + " is the input file"});
  expect_bounded_error("--qasm '" + q + "' --save-circuit '" + dir_.path().string() + "/./c.qasm'", {"--save-circuit:", "is the input file"});
  ASSERT_EQ(::symlink(q.c_str(), dir_.file("link.h5").c_str()), 0);
  expect_bounded_error("--qasm '" + q + "' --output '" + dir_.file("link.h5") + "'", {"is the input file"});
  std::filesystem::remove(dir_.file("link.h5"));
  EXPECT_EQ(qsim_test::slurp(q), text);
  const std::string h5 = dir_.file("c.h5");
  ASSERT_EQ(qsim_test::run_qsim("--qasm '" + q + "' --save-circuit '" + h5 + "' -q", dir_.path()).status, 0);
  const std::string saved = qsim_test::slurp(h5);
  expect_bounded_error("--input '" + h5 + "' --output '" + h5 + "'", {"--output: " + h5 + " is the input file"});
  expect_bounded_error("--input '" + h5 + "' --save-circuit '" + h5 + "'", {"is the input file"});
  EXPECT_EQ(qsim_test::slurp(h5), saved);
  // A file the program includes is an input as well.
  const std::string inc_text = "gate mine a { h a; }\n";
  const std::string inc = write_text("extra.inc", inc_text);
  const std::string with_include =
      write_text("inc.qasm", "OPENQASM 2.0;\ninclude \"qelib1.inc\";\ninclude \"extra.inc\";\nqreg q[1];\nmine q[0];\n");
  expect_bounded_error("--qasm '" + with_include + "' --output '" + inc + "'", {"--output: " + inc + " is the input file"});
  expect_bounded_error("--qasm '" + with_include + "' --save-circuit '" + inc + "'", {"--save-circuit: " + inc + " is the input file"});
  EXPECT_EQ(qsim_test::slurp(inc), inc_text);
}

TEST_F(QsimCli, OnlyRegularFilesAreRead) {
  // A FIFO blocked qsim forever; a directory read as an empty circuit.
  const std::string fifo = dir_.file("pipe.qasm");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_bounded_error("--qasm '" + fifo + "'", {fifo + ": cannot open: is a FIFO, not a regular file"});
  expect_bounded_error("--input '" + fifo + "'", {fifo + ": cannot open: is a FIFO"});
  std::filesystem::remove(fifo);
  std::filesystem::create_directory(dir_.file("sub"));
  expect_bounded_error("--qasm '" + dir_.file("sub") + "'", {dir_.file("sub") + ": cannot open: is a directory"});
  expect_bounded_error("--input '" + dir_.file("sub") + "'", {"is a directory"});
  std::filesystem::remove(dir_.file("sub"));
  const std::string inc = write_text("inc.qasm", "OPENQASM 2.0;\ninclude \"/dev/zero\";\nqreg q[1];\n");
  expect_bounded_error("--qasm '" + inc + "'", {inc + ":2: include \"/dev/zero\"", "not a regular file"});
}

TEST_F(QsimCli, TinyFilesCannotClaimUnboundedMemory) {
  // 685 bytes of definitions that each call the previous one twice used to expand to millions of
  // gates, a few levels more exhausted memory.
  std::string doubling = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\ngate g0 a { x a; }\n";
  for (int i = 1; i < 48; ++i)
    doubling += "gate g" + std::to_string(i) + " a { g" + std::to_string(i - 1) + " a; g" + std::to_string(i - 1) + " a; }\n";
  const std::string bomb = write_text("bomb.qasm", doubling + "g47 q[0];\n");
  expect_error("--qasm '" + bomb + "'", {bomb + ":52: the circuit has more than 4000000 gates after expanding"});
  const std::string creg = write_text("creg.qasm", "OPENQASM 2.0;\nqreg q[1];\ncreg c[2000000000];\n");
  expect_error("--qasm '" + creg + "'", {creg + ":3: creg c[2000000000] brings the circuit to 2000000000 classical bits"});
  const std::string qreg = write_text("qreg.qasm", "OPENQASM 2.0;\nqreg q[3000000000];\n");
  expect_error("--qasm '" + qreg + "'", {qreg + ":2: qreg q[3000000000] brings the circuit to 3000000000 qubits"});
  std::string parens = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\nrx(" + std::string(20000, '(') + "1" +
                       std::string(20000, ')') + ") q[0];\n";
  const std::string deep = write_text("deep.qasm", parens);
  expect_error("--qasm '" + deep + "'", {deep + ":4: expression nested deeper than 256 levels"});
  std::string sum = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\nrx(0";
  for (int i = 0; i < 200000; ++i) sum += "+1";
  const auto r = qsim_test::run_qsim("--qasm '" + write_text("sum.qasm", sum + ") q[0];\n") + "' --scheme fp32 -q", dir_.path());
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(QsimCli, MessagesNameTheFileAndEscapeItsText) {
  const std::string empty = write_text("empty.qasm", "");
  expect_error("--qasm '" + empty + "'", {empty + ": declares no qreg; a circuit needs at least 1 qubit"});
  const std::string header = write_text("header.qasm", "OPENQASM 2.0;\n");
  expect_error("--qasm '" + header + "'", {header + ": declares no qreg"});
  std::string garbage;
  for (int i = 0; i < 256; ++i) garbage += static_cast<char>(255 - i);
  const std::string binary = write_text("binary.qasm", garbage);
  expect_error("--qasm '" + binary + "'", {binary + ":1: unexpected byte 0xff"});
  // A circuit file whose name holds a newline and an escape sequence, and a non-unitary gate: one
  // line, the control characters escaped, the tolerance printed as 1e-10 (was "0.000000").
  const std::string evil = dir_.file("evil.h5");
  {
    tcemu::app::io::Writer w(evil);
    w.write<std::int32_t>("/circuit/gate_arity", {1, 0}, {1, 2});
    w.write<std::int32_t>("/circuit/qubits", {0}, {1});
    w.write<double>("/circuit/matrices", {1, 0, 1, 0, 0, 0, 1, 0}, {4, 2});
    w.write_int_attribute("/circuit", "num_qubits", 1);
    w.write_int_attribute("/circuit", "num_gates", 1);
    w.write_string_attribute("/circuit", "name", "x\nqsim: error: forged\x1b[31m");
    w.commit();
  }
  expect_error("--input '" + evil + "'", {evil + ": circuit 'x\\nqsim: error: forged\\x1b[31m': gate 0 (gate) is not unitary",
                                          "> 1e-10"});
  // The table on stdout escapes the name too.
  qsim::Circuit named = qsim::ghz(2);
  named.name = "ghz\nforged line";
  qsim::save_circuit(named, dir_.file("named.h5"));
  const auto r = qsim_test::run_qsim("--input '" + dir_.file("named.h5") + "' --scheme fp32 -q", dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("circuit ghz\\nforged line: 2 qubits", 0), 0u) << r.out;
}

TEST_F(QsimCli, CircuitFileSizesAreCheckedIn64Bits) {
  auto write_circuit = [&](const std::string& name, std::int64_t num_qubits, std::int64_t num_gates, std::int64_t num_clbits,
                           std::vector<std::int32_t> arity, std::vector<std::int32_t> qubits, std::size_t matrix_rows) {
    const std::string path = dir_.file(name);
    tcemu::app::io::Writer w(path);
    std::vector<double> mats(2 * matrix_rows, 0.0);  // (empty datasets create the /circuit group)
    w.write<std::int32_t>("/circuit/gate_arity", arity, {static_cast<std::int64_t>(arity.size() / 2), 2});
    w.write<std::int32_t>("/circuit/qubits", qubits, {static_cast<std::int64_t>(qubits.size())});
    w.write<double>("/circuit/matrices", mats, {static_cast<std::int64_t>(matrix_rows), 2});
    w.write_int_attribute("/circuit", "num_qubits", num_qubits);
    w.write_int_attribute("/circuit", "num_gates", num_gates);
    w.write_int_attribute("/circuit", "num_clbits", num_clbits);
    w.commit();
    return path;
  };
  // num_clbits = 2^32 + 1 was truncated to int (1) and accepted.
  const std::string clbits = write_circuit("clbits.h5", 2, 0, (std::int64_t(1) << 32) + 1, {}, {}, 0);
  expect_error("--input '" + clbits + "'", {clbits + ": /circuit: attribute num_clbits = 4294967297 is outside 0..1024"});
  const std::string gates = write_circuit("gates.h5", 2, std::int64_t(1) << 40, 0, {}, {}, 0);
  expect_error("--input '" + gates + "'", {gates + ": /circuit: attribute num_gates = 1099511627776 is outside 0..4000000"});
  const std::string qubits = write_circuit("qubits.h5", (std::int64_t(1) << 32) + 2, 0, 0, {}, {}, 0);
  expect_error("--input '" + qubits + "'", {"num_qubits = 4294967298 is outside 1..34"});
  // Two targets and two controls on three qubits.
  const std::string crowded = write_circuit("crowded.h5", 3, 1, 0, {2, 2}, {0, 1, 2, 0}, 16);
  expect_error("--input '" + crowded + "'", {crowded + ": dataset /circuit/gate_arity: gate 0 has 2 targets and 2 controls, "
                                                       "more than the circuit's 3 qubits"});
  // A measurement into a bit beyond num_clbits.
  {
    qsim::Circuit c = qsim::ghz(2);
    c.num_clbits = 1;
    c.measurements = {{0, 0}};
    qsim::save_circuit(c, dir_.file("meas.h5"));
    tcemu::app::io::Writer w(dir_.file("meas_bad.h5"));
    w.write<std::int32_t>("/circuit/measurements", {0, 5}, {1, 2});
    w.write_int_attribute("/circuit", "num_qubits", 2);
    w.write_int_attribute("/circuit", "num_gates", 0);
    w.write_int_attribute("/circuit", "num_clbits", 1);
    w.commit();
  }
  expect_error("--input '" + dir_.file("meas_bad.h5") + "'", {"measurement of qubit 0 into bit 5 is out of range"});
}

TEST_F(QsimCli, SignalsRemoveTheTemporaryOutput) {
  // SIGTERM or SIGINT during a run left "<out>.tmp.<pid>" behind. Start a run of a few seconds, wait
  // for its temporary to appear, signal, and expect exit status 128 + signal and an empty directory.
  for (const int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    const std::string out = dir_.file("run.h5");
    const auto r = app_test::signal_during_output(
        qsim_test::qsim_executable(),
        {"--generate", "brickwork:n=22,depth=40,seed=1", "--scheme", "fp32", "--device", "host", "--fuse", "4", "-q",
         "--output", out},
        dir_.path(), sig);
    ASSERT_FALSE(r.ended_early) << "qsim ended before its temporary was seen";
    EXPECT_TRUE(r.temporary_seen) << "no temporary output appeared";
    ASSERT_TRUE(WIFEXITED(r.status)) << "killed by signal " << (WIFSIGNALED(r.status) ? WTERMSIG(r.status) : 0);
    EXPECT_EQ(WEXITSTATUS(r.status), 128 + sig);
    EXPECT_TRUE(dir_.entries().empty()) << dir_.entries().front();
  }
}

}  // namespace
