// Issue 18's classes of bad input against knn, kmeans and hplai (qsim has its own in test_qsim_cli):
// each test runs an app executable on an input that used to crash, hang, overwrite an input, leave a
// temporary file, exit with CLI11's own codes or print more than one line, and checks the promise:
// one line "<app>: error: <file or option>: <problem>", exit status 2, nothing half-written.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../io/temp_dir.hpp"
#include "app_runner.hpp"
#include "cli_expect.hpp"
#include "app_common/io/hdf5.hpp"

namespace {

using app_test::Ran;
using tcemu::testing::TempDir;

/// Single-quoted for the shell (the tests' paths contain no single quotes unless a test adds one).
std::string shell_quoted(const std::string& s) { return "'" + s + "'"; }

/// Writes a small ann-benchmarks file (knn) or /data file (kmeans) of uniform random floats.
void write_matrix_file(const std::string& path, const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& sets,
                       unsigned seed = 3) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  tcemu::app::io::Writer w(path);
  for (const auto& [name, shape] : sets) {
    std::vector<float> v(static_cast<std::size_t>(shape[0] * shape[1]));
    for (auto& x : v) x = u(gen);
    w.write<float>(name, v, shape);
  }
  w.commit();
}

/// A file whose chunked dataset `name` claims `rows` x 4 float32 elements without storing any:
/// HDF5 accepts such a file (a few KB), so a reader that multiplies the extents must not wrap.
void write_claimed_shape(const std::string& path, const std::string& name, hsize_t rows) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hsize_t dims[2] = {rows, 4}, chunk[2] = {1, 4};
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, chunk);
  const hid_t ds = H5Dcreate2(file, name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ASSERT_GE(ds, 0);
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(file);
}

class AppReliability : public ::testing::Test {
 protected:
  void SetUp() override {
    knn_input_ = dir_.file("knn.h5");
    write_matrix_file(knn_input_, {{"/train", {200, 8}}, {"/test", {10, 8}}});
    kmeans_input_ = dir_.file("kmeans.h5");
    write_matrix_file(kmeans_input_, {{"/data", {120, 6}}});
  }
  Ran run(const std::string& app, const std::string& args) {
    return app_test::run_executable(app_test::app_executable(app), args, scratch_.path());
  }
  /// Expects the bad-input contract; `output` must not exist afterwards and `dir_` must hold the same
  /// entries as before (no temporary left behind).
  void expect_error(const std::string& app, const std::string& args, const std::vector<std::string>& parts,
                    const std::string& output = "") {
    SCOPED_TRACE(app + " " + args);
    const auto before = dir_.entries().size();
    const Ran r = run(app, args);
    app_test::expect_cli_error(app, r, parts, output.empty() ? dir_.file("never-written.h5") : output, before,
                               dir_.entries().size());
  }
  std::string sha_of(const std::string& path) { return app_test::slurp(path); }

  TempDir dir_, scratch_;
  std::string knn_input_, kmeans_input_;
};

// ---- lost data: --output naming an input, by any spelling, is refused before any work

TEST_F(AppReliability, OutputNamingTheInputIsRefusedByInode) {
  const std::string hard = dir_.file("hard-link.h5"), soft = dir_.file("soft-link.h5");
  ASSERT_EQ(::link(kmeans_input_.c_str(), hard.c_str()), 0);
  ASSERT_EQ(::symlink(kmeans_input_.c_str(), soft.c_str()), 0);
  const std::string original = sha_of(kmeans_input_);
  for (const std::string& out : {kmeans_input_, hard, soft}) {
    SCOPED_TRACE(out);
    const Ran r = run("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 3 --scheme fp32 --device host -q --output " + shell_quoted(out));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("refusing to overwrite an input"), std::string::npos) << r.err;
    EXPECT_EQ(sha_of(kmeans_input_), original);
  }
  // hplai with --input, and knn through a hard link.
  const std::string sys = dir_.file("system.h5");
  {
    tcemu::app::io::Writer w(sys);
    w.write<double>("/A", {4, 1, 1, 4}, {2, 2});
    w.write<double>("/b", {1, 2}, {2});
    w.commit();
  }
  const std::string sys_before = sha_of(sys);
  const Ran h = run("hplai", "--input " + shell_quoted(sys) + " --scheme fp32 --device host -q --output " + shell_quoted(sys));
  EXPECT_EQ(h.status, 2) << h.err;
  EXPECT_EQ(sha_of(sys), sys_before);
  const std::string knn_hard = dir_.file("knn-hard.h5");
  ASSERT_EQ(::link(knn_input_.c_str(), knn_hard.c_str()), 0);
  const Ran k = run("knn", "--input " + shell_quoted(knn_input_) + " --scheme fp32 --device host --output " + shell_quoted(knn_hard));
  EXPECT_EQ(k.status, 2) << k.err;
}

// ---- hangs: only regular files are inputs (a FIFO used to block forever, a directory read as empty)

TEST_F(AppReliability, FifoAndDirectoryInputsAreRefusedAtOnce) {
  const std::string fifo = dir_.file("pipe.h5");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string sub = dir_.file("folder.h5");
  std::filesystem::create_directory(sub);
  // `timeout` turns the old hang into a failing status (124) instead of a stuck test.
  for (const std::string& app : {"knn", "kmeans", "hplai"}) {
    SCOPED_TRACE(app);
    const std::string extra = app == "kmeans" ? " --k 2" : "";
    const std::string exe = app_test::app_executable(app);
    const Ran r = app_test::run_executable("/usr/bin/timeout", "10 " + shell_quoted(exe) + " --input " + shell_quoted(fifo) + extra,
                                           scratch_.path());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("FIFO, not a regular file"), std::string::npos) << r.err;
    const Ran d = run(app, "--input " + shell_quoted(sub) + extra);
    EXPECT_EQ(d.status, 2) << d.err;
    EXPECT_NE(d.err.find("directory, not a regular file"), std::string::npos) << d.err;
  }
}

// ---- late checks: a bad --output fails before the computation (no progress line first)

TEST_F(AppReliability, BadOutputPathFailsBeforeAnyWork) {
  const std::string out = dir_.file("no-such-dir/out.h5");
  expect_error("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 3 --scheme fp32 --device host --output " + shell_quoted(out),
               {out, "no-such-dir", "No such file"});
  expect_error("hplai", "--n 32 --scheme fp32 --device host --output " + shell_quoted(out), {out, "No such file"});
  expect_error("knn", "--input " + shell_quoted(knn_input_) + " --scheme fp32 --device host --output " + shell_quoted(out),
               {out, "No such file"});
  expect_error("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 3 --output ''", {"--output", "empty"});
  expect_error("knn", "--input " + shell_quoted(knn_input_) + " --output " + shell_quoted(dir_.path().string()), {"directory"});
}

// ---- exit codes and messages: one handler, one line, exit 2, NaN refused, limits in plain numbers

TEST_F(AppReliability, OptionErrorsAreOneLineWithExitTwo) {
  expect_error("knn", "--input " + shell_quoted(knn_input_) + " --batch 0", {"--batch", "0 is not positive"});
  expect_error("knn", "--input " + shell_quoted(knn_input_) + " --k abc", {"--k"});
  expect_error("knn", "--input " + shell_quoted(knn_input_) + " --no-such-option", {"no-such-option"});
  expect_error("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 3 --tol nan", {"--tol", "not a finite number"});
  expect_error("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 3 --noise inf", {"--noise", "not a finite number"});
  expect_error("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 3 --recheck-margin -nan",
               {"--recheck-margin", "not a finite number"});
  expect_error("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 0", {"--k 0 must be >= 1"});
  expect_error("hplai", "--n", {"--n"});
  // Parser errors name their option in every app (they did in knn and qsim only).
  expect_error("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 3 --scheme bogus", {"--scheme: unknown scheme"});
  expect_error("hplai", "--n 8 --target fp99", {"--target: target 'fp99'"});
  // Seeds past 2^64 - 1 were wrapped or saturated silently.
  expect_error("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 3 --seed 18446744073709551616",
               {"--seed", "outside 0..18446744073709551615"});
  expect_error("hplai", "--n 8 --seed 99999999999999999999999", {"--seed"});
  expect_error("knn", "--input " + shell_quoted(knn_input_) + " --queries 9223372036854775808", {"--queries", "outside"});
  const Ran r = run("knn", "--input " + shell_quoted(knn_input_) + " --batch 0");
  EXPECT_LT(r.err.size(), 200u) << "an option error stays short: " << r.err;
}

// A bad TCEMU_* variable (read once by app_common/environment.hpp into the execution policy) is a
// bad input like a bad option: one line naming the variable, exit status 2, no output written.
TEST_F(AppReliability, BadEnvironmentVariablesAreOneLineWithExitTwo) {
  const std::string out = dir_.file("out.h5");
  const struct {
    std::string app, variable, args;
  } cases[] = {
      {"knn", "TCEMU_CUDA_KERNELS=bogus", "--input " + shell_quoted(knn_input_) + " --k 3 --scheme fp32 --output " + shell_quoted(out)},
      {"kmeans", "TCEMU_AUTO_CALIBRATE=sometimes", "--input " + shell_quoted(kmeans_input_) + " --k 3 --scheme auto --output " + shell_quoted(out)},
      {"hplai", "TCEMU_CUDA_OZAKI_ACC_MB=0", "--n 16 --scheme fp16x2 --output " + shell_quoted(out)},
      {"qsim", "TCEMU_CUDA_COMPLEX=5m", "--generate brickwork:n=3,depth=2,seed=1 --scheme fp32 --output " + shell_quoted(out)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.variable + " " + c.app);
    const auto before = dir_.entries().size();
    const Ran r = app_test::run_executable("/usr/bin/env", c.variable + " " + shell_quoted(app_test::app_executable(c.app)) + " " + c.args,
                                           scratch_.path());
    const std::string name = c.variable.substr(0, c.variable.find('='));
    app_test::expect_cli_error(c.app, r, {name + ": "}, out, before, dir_.entries().size());
  }
}

TEST_F(AppReliability, ControlCharactersFromInputsAreEscaped) {
  const std::string forged = dir_.file("a\nknn: error: forged.h5");
  expect_error("knn", "--input " + shell_quoted(forged), {"\\nknn: error: forged.h5", "No such file"});
  expect_error("kmeans", "--input " + shell_quoted(dir_.file("b\x1b[2Jc.h5")) + " --k 2", {"\\x1b[2J"});
}

// ---- checked sizes: a claimed shape whose element count overflows is an error, not a wrap

TEST_F(AppReliability, OverflowingClaimedShapeIsAnError) {
  const std::string wraps = dir_.file("wraps.h5");
  write_claimed_shape(wraps, "/data", (hsize_t{1} << 62) + 1);
  expect_error("kmeans", "--input " + shell_quoted(wraps) + " --k 2", {wraps, "/data", "overflows"});
  const std::string zero = dir_.file("wraps-to-zero.h5");
  {
    write_claimed_shape(zero, "/train", hsize_t{1} << 62);  // x 4 = 2^64: wrapped to 0 ("is empty") before
    const hid_t f = H5Fopen(zero.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hsize_t dims[2] = {3, 4};
    const hid_t s = H5Screate_simple(2, dims, nullptr);
    const hid_t d = H5Dcreate2(f, "/test", H5T_IEEE_F32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
  }
  expect_error("knn", "--input " + shell_quoted(zero), {zero, "/train", "overflows"});
  // Large but not overflowing: more than the machine's memory, refused before allocating.
  const std::string huge = dir_.file("huge.h5");
  write_claimed_shape(huge, "/data", hsize_t{1} << 50);
  expect_error("kmeans", "--input " + shell_quoted(huge) + " --k 2", {huge, "/data", "memory"});
}

// ---- HDF5 close failure (disk full): one error line, no crash in HDF5's exit-time clean-up

TEST_F(AppReliability, WriteFailureAtCloseIsAnErrorNotACrash) {
  const std::string out = dir_.file("out.h5");
  // A file size limit makes write(2) fail with EFBIG (SIGXFSZ ignored), as a full disk would.
  const std::string cmd = "trap '' XFSZ; ulimit -f 8; exec " + shell_quoted(app_test::app_executable("knn")) + " --input " +
                          shell_quoted(knn_input_) + " --scheme fp32,fp16x2,bf16x3 --device host --k 5 --output " + shell_quoted(out);
  const std::string script = (scratch_.path() / "limited.sh").string();
  { std::ofstream(script) << cmd << "\n"; }
  const auto before = dir_.entries().size();
  const Ran r = app_test::run_executable("/bin/bash", shell_quoted(script), scratch_.path());
  EXPECT_EQ(r.status, 2) << r.err;  // was 139 (SIGSEGV in H5F__close_cb at exit)
  EXPECT_NE(r.err.find("knn: error: " + out + ": cannot write"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(dir_.entries().size(), before) << "a temporary was left behind";
}

// ---- valid input rejected: long legal output names; hplai's smallest orders

TEST_F(AppReliability, OutputNamesUpToTheNameLimitWork) {
  const std::string name(250, 'o');
  const std::string out = dir_.file(name + ".h5");  // 253 bytes: "<name>.tmp.<pid>" would pass 255
  const Ran r = run("kmeans", "--input " + shell_quoted(kmeans_input_) + " --k 3 --scheme fp32 --device host -q --output " + shell_quoted(out));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(out));
  for (const auto& e : dir_.entries()) EXPECT_EQ(e.find(".tmp"), std::string::npos) << e;
}

TEST_F(AppReliability, HplaiZeroRightHandSideAndSingularSystems) {
  // b = 0 has the exact solution x = 0 (scaled residual 0, not 0 / 0): PASS.
  const std::string zero_b = dir_.file("zero-b.h5"), singular = dir_.file("singular.h5");
  {
    tcemu::app::io::Writer w(zero_b);
    w.write<double>("/A", {4, 1, 1, 4}, {2, 2});
    w.write<double>("/b", {0, 0}, {2});
    w.commit();
  }
  const Ran r = run("hplai", "--input " + shell_quoted(zero_b) + " --scheme fp32 --device host -q");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // A singular /A: the error names the file (it named only the baseline before).
  {
    tcemu::app::io::Writer w(singular);
    w.write<double>("/A", {1, 2, 3, 2, 4, 6, 1, 1, 1}, {3, 3});
    w.write<double>("/b", {1, 2, 3}, {3});
    w.commit();
  }
  expect_error("hplai", "--input " + shell_quoted(singular) + " --scheme fp32 --device host -q", {singular, "singular"});
}

TEST_F(AppReliability, HplaiSmallestOrdersAreSolvable) {
  // Seeds where the reference's diagonal rule is singular (scripts/experiments/hplai_singular_seeds.py).
  for (const std::string args : {"--n 1", "--n 2 --seed 1", "--n 3 --seed 1", "--n 4 --seed 343", "--n 2 --seed 2"}) {
    SCOPED_TRACE(args);
    const Ran r = run("hplai", args + " --scheme fp32 --device host -q");
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  }
}

// ---- stray files: SIGTERM / SIGINT during a run remove the temporary output (exit 143 / 130)

TEST_F(AppReliability, SignalsRemoveTheTemporaryOutput) {
  const std::string big = dir_.file("big.h5");
  write_matrix_file(big, {{"/data", {20000, 32}}});
  for (int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    const std::string out = dir_.file("signalled.h5");
    const auto r = app_test::signal_during_output(
        app_test::app_executable("kmeans"),
        {"--input", big, "--k", "64", "--max-iter", "100000", "--tol", "0", "--scheme", "fp32,bf16x9", "--device", "host",
         "--output", out},
        dir_.path(), sig);
    ASSERT_FALSE(r.ended_early) << "kmeans ended before its temporary was seen";
    EXPECT_TRUE(r.temporary_seen) << "no temporary appeared";
    ASSERT_TRUE(WIFEXITED(r.status)) << "killed by signal " << (WIFSIGNALED(r.status) ? WTERMSIG(r.status) : 0);
    EXPECT_EQ(WEXITSTATUS(r.status), 128 + sig);
    for (const auto& e : dir_.entries()) EXPECT_EQ(e.find("signalled"), std::string::npos) << "left behind: " << e;
  }
}

}  // namespace
