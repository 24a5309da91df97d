// The hplai executable: every bad-input error (one line 'hplai: error: ...', exit 2, nothing on
// stdout, no output file), --json shape, --output content, exit status 1 on a failed check.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "../io/temp_dir.hpp"
#include "hplai/problem.hpp"
#include "hplai/refine.hpp"
#include "hplai/run.hpp"
#include "app_runner.hpp"
#include "cli_expect.hpp"
#include <nlohmann/json.hpp>
#include "app_common/io/hdf5.hpp"

namespace {

using tcemu::testing::TempDir;

using app_test::Ran;

std::string hplai_executable() { return app_test::app_executable("hplai"); }

class HplaiCli : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(std::filesystem::exists(hplai_executable())) << hplai_executable(); }

  Ran run(const std::string& args) { return app_test::run_executable(hplai_executable(), args, scratch_.path()); }

  /// Runs with -q (no progress lines) and expects exit status 2, exactly one stderr line "hplai: error: ..." containing every part,
  /// nothing on stdout, and no output file (nor a temporary) left in `dir_`.
  void expect_error(const std::string& args, const std::vector<std::string>& parts) {
    SCOPED_TRACE(args);
    const std::string out = dir_.file("out.h5");
    const auto before = dir_.entries().size();
    const Ran r = run(args + " -q --output '" + out + "'");
    app_test::expect_cli_error("hplai", r, parts, out, before, dir_.entries().size());
  }

  /// Writes /A (rows x cols) and /b (len) as float64.
  std::string write_system(const std::string& name, std::int64_t rows, std::int64_t cols, std::int64_t len,
                           const std::vector<double>* A = nullptr, bool nan_in_b = false) {
    const std::string path = dir_.file(name);
    const hplai::System g = hplai::generate_system(std::max(rows, cols), 3);
    std::vector<double> a(rows * cols), b(len, 0.25);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) a[i * cols + j] = g.A[i * g.n + j];
    if (A) a = *A;
    if (nan_in_b) b[len / 2] = std::numeric_limits<double>::quiet_NaN();
    tcemu::app::io::Writer w(path);
    w.write<double>("/A", a, {rows, cols});
    w.write<double>("/b", b, {len});
    w.commit();
    return path;
  }

  TempDir dir_, scratch_;
};

// --grid on one process (no mpirun): 1x1 is the one-process run; any other grid is a one-line error
// ("--grid 2x2 needs 4 MPI ranks; start it with mpirun -np 4" in an MPI build, "--grid 2x2 needs an
// MPI build ..." without MPI). Grids over ranks: tests/mpi/test_hplai_mpi.cpp.
TEST_F(HplaiCli, GridOtherThanOneByOneNeedsMpiRanks) {
  expect_error("--n 32 --grid 2x2", {"--grid 2x2 needs"});
  expect_error("--n 32 --grid 2y2", {"--grid 2y2"});
  const Ran r = run("--n 32 --nb 8 --grid 1x1 --scheme fp32 -q");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("MPI process grid"), std::string::npos);
}

TEST_F(HplaiCli, UsageErrors) {
  expect_error("", {"--n is required"});
  expect_error("--n 0", {"--n 0 must be >= 1"});
  expect_error("--n -3", {"--n -3 must be >= 1"});
  expect_error("--n abc", {"abc"});
  expect_error("--n 32 --nb 0", {"--nb 0 must be >= 1"});
  expect_error("--n 32 --nb -8", {"--nb -8 must be >= 1"});
  expect_error("--n 32 --scheme fp17", {"unknown scheme 'fp17'"});
  expect_error("--n 32 --scheme ,", {"is empty"});
  expect_error("--n 32 --solver cg", {"--solver 'cg'", "gmres or ir"});
  expect_error("--n 32 --target fp16", {"fp16"});
  expect_error("--n 32 --device tpu", {"--device 'tpu'"});
  expect_error("--n 32 --max-iter 0", {"--max-iter 0 must be >= 1"});
  expect_error("--n 32 --restart 0", {"--restart 0 must be >= 1"});
  expect_error("--n 32 --repeat 0", {"--repeat 0 must be >= 1"});
  expect_error("--n 32 --bogus", {"--bogus"});
  expect_error("--n 4000000000", {"needs about", "GiB of host memory"});
  // Without tcemu's CUDA backend, or with it but a Kokkos without CUDA (Debian's 3.4), hplai has no GPU path.
  if (!hplai::cuda_path_built()) expect_error("--n 32 --device cuda", {"--device cuda", "no CUDA backend"});
}

// Where hplai has no GPU path, --device auto (the default) runs on the host.
TEST_F(HplaiCli, AutoDeviceRunsOnTheHostWithoutTheGpuPath) {
  if (hplai::cuda_path_built()) GTEST_SKIP() << "this build has hplai's GPU path";
  const Ran r = run("--n 48 --nb 16 --scheme fp32 --device auto --json -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("device"), "host");
}

TEST_F(HplaiCli, InputErrors) {
  const std::string missing = dir_.file("absent.h5");
  expect_error("--input '" + missing + "'", {missing, "cannot open"});
  const std::string rect = write_system("rect.h5", 8, 6, 8);
  expect_error("--input '" + rect + "'", {rect, "/A is 8 x 6, not square"});
  const std::string shortb = write_system("shortb.h5", 8, 8, 7);
  expect_error("--input '" + shortb + "'", {shortb, "/b has 7 entries but /A is 8 x 8"});
  const std::string nan = write_system("nan.h5", 8, 8, 8, nullptr, true);
  expect_error("--input '" + nan + "'", {nan, "/b", "NaN/Inf not allowed"});
  const std::string ok = write_system("ok.h5", 8, 8, 8);
  expect_error("--input '" + ok + "' --n 9", {"--n 9 does not match", "8 x 8"});
  // Zero pivot at column 0 (the matrix itself is fine for partial pivoting): reported, not solved.
  hplai::System g = hplai::generate_system(8, 3);
  g.A[0] = 0.0;
  const std::string zero = write_system("zero.h5", 8, 8, 8, &g.A);
  expect_error("--input '" + zero + "' --scheme fp32", {"fp32: singular pivot at column 0"});
}

TEST_F(HplaiCli, JsonHasEveryRowAndField) {
  const Ran r = run("--n 96 --nb 40 --scheme fp32,bf16,fp16x2 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("app"), "hplai");
  EXPECT_EQ(j.at("n"), 96);
  EXPECT_EQ(j.at("nb"), 40);
  EXPECT_EQ(j.at("solver"), "gmres");
  EXPECT_DOUBLE_EQ(j.at("eps").get<double>(), std::ldexp(1.0, -53));
  const auto& rows = j.at("results");
  ASSERT_EQ(rows.size(), 4u);
  const char* names[] = {"fp64", "fp32", "bf16", "fp16x2"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(names[i]);
    EXPECT_EQ(rows[i].at("scheme"), names[i]);
    for (const char* key : {"time_ms", "gflops", "scaled_residual", "iterations", "factor_ms", "refine_ms"})
      EXPECT_TRUE(rows[i].at(key).is_number()) << key;
    EXPECT_TRUE(rows[i].at("pass").get<bool>());
    EXPECT_LT(rows[i].at("scaled_residual").get<double>(), 16);
    EXPECT_GT(rows[i].at("gflops").get<double>(), 0);
  }
  EXPECT_EQ(rows[0].at("iterations"), 0);
  EXPECT_GE(rows[2].at("iterations").get<int>(), 1);
}

TEST_F(HplaiCli, TableAndProgressAndQuiet) {
  const Ran r = run("--n 64 --nb 16 --scheme fp16 --solver ir");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("scaled_res"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("hplai: [2/2] fp16"), std::string::npos) << r.err;
  const Ran q = run("--n 64 --nb 16 --scheme fp16 --quiet");
  EXPECT_EQ(q.status, 0);
  EXPECT_TRUE(q.err.empty()) << q.err;
}

TEST_F(HplaiCli, OutputHoldsSolutions) {
  const std::string in = write_system("sys.h5", 50, 50, 50);
  const std::string out = dir_.file("x.h5");
  const Ran r = run("--input '" + in + "' --nb 16 --scheme tf32 --output '" + out + "' -q");
  ASSERT_EQ(r.status, 0) << r.err;
  tcemu::app::io::Reader rd(out);
  const auto x = rd.read<double>("/tf32/x", 1);
  ASSERT_EQ(x.rows(), 50);
  const auto xb = rd.read<double>("/fp64/x", 1);
  for (std::int64_t i = 0; i < 50; ++i) EXPECT_NEAR(x.data[i], xb.data[i], 1e-12 * (1 + std::fabs(xb.data[i])));
  EXPECT_EQ(rd.string_attribute("/tf32", "check").value_or(""), "PASS");
  EXPECT_GE(rd.read<double>("/tf32/residual_history", 1).rows(), 2);
}

TEST_F(HplaiCli, FailedCheckExitsOne) {
  // Without a single refinement step the FP32 solution cannot reach FP64 accuracy.
  const Ran r = run("--n 64 --nb 16 --scheme bf16 --max-iter 1 --solver ir -q");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cap --max-iter 1"), std::string::npos) << r.out;
}

TEST_F(HplaiCli, HelpTeaches) {
  const Ran r = run("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* s : {"HPL-MxP", "trailing update", "scaled residual", "2/3 n^3", "--solver", "Exit status"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

}  // namespace
