// hplai over MPI ranks (apps/hplai/distributed.hpp), run under mpirun with 1, 2 and 4 ranks
// (tests/mpi/CMakeLists.txt): every grid of the rank count gives the solution and the scaled residual
// of the one-rank run, and the solution of the one-process path (hplai::run, no MPI); where a GPU and
// hplai's GPU path are present, every grid's LU on the GPU (all ranks on it) gives the host's solution.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "mpi_test_util.hpp"
#include "app_common/device.hpp"
#include "hplai/distributed.hpp"
#include "hplai/problem.hpp"
#include "hplai/run.hpp"
#include "tcemu/error.hpp"
#include "tcemu/scheme.hpp"

namespace {

using mpi_test::world_rank;
using mpi_test::world_size;

/// ||a - b||_2 / ||b||_2.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    s += b[i] * b[i];
  }
  return std::sqrt(d / s);
}

/// Grids of the current rank count: P x Q and Q x P for every factorisation.
std::vector<std::pair<int, int>> grids() {
  std::vector<std::pair<int, int>> out;
  for (int P = 1; P <= world_size(); ++P)
    if (world_size() % P == 0) out.emplace_back(P, world_size() / P);
  return out;
}

hplai::RunOptions options(std::int64_t nb) {
  hplai::RunOptions opt;
  opt.schemes = {tcemu::parse_scheme("fp16x2"), tcemu::parse_scheme("bf16")};
  opt.nb = nb;
  return opt;
}

/// Every grid against the one-rank run (a 1 x 1 grid on MPI_COMM_SELF, computed on every rank):
/// solution and scaled residual to 1e-12 relative, the same iteration counts, every row PASSes.
void expect_grids_match_one_rank(std::int64_t n, std::int64_t nb) {
  const hplai::RunOptions opt = options(nb);
  const hplai::Grid self(MPI_COMM_SELF, 1, 1);
  const hplai::RunResult one = hplai::run_distributed(self, n, 1, opt);
  ASSERT_EQ(one.rows.size(), 3u);
  for (const auto& [P, Q] : grids()) {
    SCOPED_TRACE(std::to_string(P) + "x" + std::to_string(Q) + " grid, n " + std::to_string(n));
    const hplai::Grid grid(MPI_COMM_WORLD, P, Q);
    const hplai::RunResult many = hplai::run_distributed(grid, n, 1, opt);
    ASSERT_EQ(many.rows.size(), one.rows.size());
    for (std::size_t i = 0; i < one.rows.size(); ++i) {
      SCOPED_TRACE(one.rows[i].scheme);
      EXPECT_TRUE(many.rows[i].pass);
      EXPECT_EQ(many.rows[i].scheme, one.rows[i].scheme);
      EXPECT_EQ(many.rows[i].iterations, one.rows[i].iterations);
      EXPECT_LE(relative_difference(many.rows[i].x, one.rows[i].x), 1e-12);
      EXPECT_NEAR(many.rows[i].scaled_residual, one.rows[i].scaled_residual, 1e-12 * one.rows[i].scaled_residual);
      EXPECT_NEAR(many.rows[i].initial_scaled_residual, one.rows[i].initial_scaled_residual,
                  1e-12 * one.rows[i].initial_scaled_residual);
    }
  }
}

TEST(HplaiMpi, GridsGiveTheOneRankSolutionAndResidual) { expect_grids_match_one_rank(512, 64); }

// nb not dividing n: the last block row and column are partial, held by different ranks.
TEST(HplaiMpi, PartialLastBlockGivesTheOneRankSolution) { expect_grids_match_one_rank(300, 64); }

// The ranks' blocks, generated from their global (i, j), are the one-process generator's matrix:
// the distributed solution equals the one-process run's (hplai::run on generate_system) to 1e-12.
TEST(HplaiMpi, SolutionMatchesTheOneProcessRun) {
  const std::int64_t n = 512;
  const hplai::RunOptions opt = options(64);
  const hplai::RunResult single = hplai::run(hplai::generate_system(n, 1), opt);
  for (const auto& [P, Q] : grids()) {
    SCOPED_TRACE(std::to_string(P) + "x" + std::to_string(Q) + " grid");
    const hplai::Grid grid(MPI_COMM_WORLD, P, Q);
    const hplai::RunResult many = hplai::run_distributed(grid, n, 1, opt);
    ASSERT_EQ(many.rows.size(), single.rows.size());
    for (std::size_t i = 0; i < single.rows.size(); ++i) {
      SCOPED_TRACE(single.rows[i].scheme);
      EXPECT_TRUE(single.rows[i].pass && many.rows[i].pass);
      EXPECT_LE(relative_difference(many.rows[i].x, single.rows[i].x), 1e-12);
    }
  }
}

// The LU on the GPU (every rank on it; several ranks on one GPU broadcast through MPI and host
// memory): other rounding than the host's LU (cuSOLVER, cuBLAS, the CUDA backend's GEMMs), the same
// refined solution to 1e-12, every row PASSes, and the source names the GPU run.
TEST(HplaiMpi, GpuGridsGiveTheHostSolution) {
  if (!hplai::cuda_path_built()) GTEST_SKIP() << "no GPU path in this build (tcemu's CUDA backend and a CUDA-enabled Kokkos)";
  if (!tcemu::app::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (const std::int64_t n : {512, 300}) {
    hplai::RunOptions opt = options(64);
    opt.device = hplai::Device::host;
    const hplai::RunResult host = hplai::run(hplai::generate_system(n, 1), opt);
    opt.device = hplai::Device::cuda;
    for (const auto& [P, Q] : grids()) {
      SCOPED_TRACE(std::to_string(P) + "x" + std::to_string(Q) + " grid on the GPU, n " + std::to_string(n));
      const hplai::Grid grid(MPI_COMM_WORLD, P, Q);
      const hplai::RunResult gpu = hplai::run_distributed(grid, n, 1, opt);
      EXPECT_NE(gpu.source.find("on GPUs (broadcasts: "), std::string::npos) << gpu.source;
      ASSERT_EQ(gpu.rows.size(), host.rows.size());
      for (std::size_t i = 0; i < host.rows.size(); ++i) {
        SCOPED_TRACE(host.rows[i].scheme);
        EXPECT_TRUE(gpu.rows[i].pass);
        EXPECT_EQ(gpu.rows[i].scheme, host.rows[i].scheme);
        EXPECT_LE(relative_difference(gpu.rows[i].x, host.rows[i].x), 1e-12);
      }
    }
  }
}

// A GPU grid whose blocks cannot fit its GPUs stops on every rank with InvalidArgument naming
// --grid and the GiB, before the blocks are generated (no rank left waiting in a collective); the same
// grid at a size that fits runs.
TEST(HplaiMpi, GpuGridTooLargeForItsGpusFailsOnEveryRank) {
  if (!hplai::cuda_path_built()) GTEST_SKIP() << "no GPU path in this build (tcemu's CUDA backend and a CUDA-enabled Kokkos)";
  if (!tcemu::app::gpu_available()) GTEST_SKIP() << "no CUDA device";
  hplai::RunOptions opt = options(64);
  opt.device = hplai::Device::cuda;
  const hplai::Grid grid(MPI_COMM_WORLD, world_size(), 1);
  const std::int64_t n = std::int64_t{1} << 21;  // 16 bytes per entry: 64 TiB over the ranks
  try {
    hplai::run_distributed(grid, n, 1, opt);
    ADD_FAILURE() << "n = 2^21 ran";
  } catch (const tcemu::InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--grid " + std::to_string(world_size()) + "x1: "), std::string::npos) << what;
    EXPECT_NE(what.find("GiB"), std::string::npos) << what;
  }
  EXPECT_TRUE(hplai::run_distributed(grid, 256, 1, opt).rows.front().pass);
}

TEST(HplaiMpi, GridOfTheWrongSizeThrows) {
  EXPECT_THROW(hplai::Grid(MPI_COMM_WORLD, world_size() + 1, 1), tcemu::InvalidArgument);
  int P = 0, Q = 0;
  hplai::parse_grid("3x2", P, Q);
  EXPECT_EQ(P, 3);
  EXPECT_EQ(Q, 2);
  for (const char* bad : {"2", "0x1", "2x", "x2", "2x-1", "axb", "2x2x2"})
    EXPECT_THROW(hplai::parse_grid(bad, P, Q), tcemu::InvalidArgument) << bad;
}

TEST(HplaiMpi, BlockCyclicMapsAreInverse) {
  for (int procs : {1, 2, 3}) {
    const hplai::BlockCyclic m{300, 64, procs};
    std::int64_t total = 0;
    for (int proc = 0; proc < procs; ++proc) {
      total += m.local_count(proc);
      for (std::int64_t li = 0; li < m.local_count(proc); ++li) {
        const std::int64_t i = m.global(li, proc);
        EXPECT_EQ(m.owner(i), proc);
        EXPECT_EQ(m.local(i), li);
      }
    }
    EXPECT_EQ(total, 300);
  }
}

}  // namespace
