// qsim over MPI ranks (apps/qsim/distributed.hpp), run by CTest under `mpirun -np 1|2|4`: the state
// gathered from the ranks against the one-process host simulator, the swap count, the collectives'
// norm and fidelity, and the rank-count error. Every rank runs every test (the simulations are
// collective); the gathered state is checked on rank 0.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <complex>
#include <cstdlib>

#include "mpi_test_util.hpp"
#include "qsim/circuit_generators.hpp"
#include "qsim/distributed.hpp"
#include "qsim/fusion.hpp"
#include "qsim/simulate.hpp"
#include "tcemu/error.hpp"
#include "tcemu/scheme.hpp"

namespace {

using mpi_test::world_rank;
using mpi_test::world_size;

qsim::SimOptions fp64_options() {
  qsim::SimOptions opt;
  opt.gemm.scheme = tcemu::parse_scheme("fp64", tcemu::Target::fp64);
  return opt;
}

/// ||a - b|| / ||b|| over full states.
double relative_difference(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& b) {
  double diff = 0, ref = 0;
  for (std::size_t k = 0; k < b.size(); ++k) {
    diff += std::norm(a[k] - b[k]);
    ref += std::norm(b[k]);
  }
  return std::sqrt(diff / ref);
}

/// Simulates `circuit` fused at `fuse` over all ranks and on one process; on rank 0 the gathered
/// state must equal the one-process state to 1e-12 relative. Returns the distributed run.
qsim::DistributedResult<double> expect_matches_one_process(const qsim::Circuit& circuit, int fuse) {
  const auto blocks = qsim::fuse(circuit, fuse);
  const auto dist = qsim::simulate_distributed<double>(blocks, circuit.num_qubits, fp64_options(), MPI_COMM_WORLD);
  EXPECT_EQ(dist.ranks, world_size());
  EXPECT_EQ(dist.local_state.size(), (std::size_t(1) << circuit.num_qubits) / std::size_t(world_size()));
  const auto full = qsim::gather_state(dist.local_state, MPI_COMM_WORLD);
  if (world_rank() == 0) {
    const auto one = qsim::simulate_host<double>(blocks, circuit.num_qubits, fp64_options());
    EXPECT_EQ(full.size(), one.state.size());
    if (full.size() == one.state.size()) EXPECT_LE(relative_difference(full, one.state), 1e-12) << circuit.name;
  } else {
    EXPECT_TRUE(full.empty());
  }
  return dist;
}

TEST(QsimMpi, BrickworkStateMatchesOneProcessAndSwapsGlobalQubits) {
  // Brickwork layers touch every qubit, the top (global) ones included: with 2 or more ranks some
  // block needs a swap; with one rank there are no global qubits and none happens.
  const auto dist = expect_matches_one_process(qsim::brickwork(12, 12, 7), 4);
  if (world_size() > 1) EXPECT_GT(dist.swaps, 0);
  else EXPECT_EQ(dist.swaps, 0);
}

TEST(QsimMpi, ControlledRandomCircuitStateMatchesOneProcess) {
  // Controlled blocks whose controls or targets sit on global qubits; wider blocks (--fuse 5).
  expect_matches_one_process(qsim::random_circuit(11, 150, 3, 3, 2), 5);
}

TEST(QsimMpi, GlobalQubitsThatSwappedPlacesAreMappedBack) {
  // n = 6 on 4 ranks (local positions 0..3, global 4 and 5): {4} swaps qubit 4 with qubit 3 (never
  // used again); {5} then gives up qubit 4 (never used again) for qubit 5, so at the end qubit 3
  // sits at global position 4 and qubit 4 at global position 5: mapping back needs the
  // global-to-global route through a local position. Distinct single-qubit unitaries on every block
  // make any misplacement visible in the state.
  const int n = 6;
  std::vector<qsim::Block> blocks;
  int k = 0;
  for (int q : {4, 5, 0, 1, 2}) {
    const double t = 0.3 + 0.4 * k++;
    const std::complex<double> phase = std::polar(1.0, 0.7 * k);
    qsim::Block b;
    b.qubits = {q};
    b.matrix = {std::cos(t), -std::sin(t) * phase, std::sin(t), std::cos(t) * phase};
    b.gates = 1;
    blocks.push_back(b);
  }
  const auto dist = qsim::simulate_distributed<double>(blocks, n, fp64_options(), MPI_COMM_WORLD);
  const auto full = qsim::gather_state(dist.local_state, MPI_COMM_WORLD);
  if (world_size() == 4) EXPECT_EQ(dist.swaps, 2 + 3);  // two for the blocks, three to map back
  if (world_rank() == 0) {
    const auto one = qsim::simulate_host<double>(blocks, n, fp64_options());
    ASSERT_EQ(full.size(), one.state.size());
    EXPECT_LE(relative_difference(full, one.state), 1e-12);
  }
}

TEST(QsimMpi, NormAndFidelityAreCollectives) {
  const auto circuit = qsim::brickwork(10, 8, 2);
  const auto blocks = qsim::fuse(circuit, 3);
  const auto ref = qsim::simulate_distributed<double>(blocks, circuit.num_qubits, fp64_options(), MPI_COMM_WORLD);
  EXPECT_NEAR(qsim::distributed_norm2(ref.local_state, MPI_COMM_WORLD), 1.0, 1e-12);
  // complex64 run of the same blocks: fidelity near but not exactly 1, the same on every rank.
  qsim::SimOptions fp32;
  fp32.gemm.scheme = tcemu::parse_scheme("fp32");
  const auto f32 = qsim::simulate_distributed<float>(blocks, circuit.num_qubits, fp32, MPI_COMM_WORLD);
  const double fidelity = std::norm(qsim::distributed_overlap(ref.local_state, f32.local_state, MPI_COMM_WORLD));
  EXPECT_NEAR(fidelity, 1.0, 1e-5);
  double low = fidelity, high = fidelity;
  MPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &high, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(low, high);
  const double err = qsim::distributed_max_abs_error(ref.local_state, f32.local_state, MPI_COMM_WORLD);
  EXPECT_GT(err, 0.0);
  EXPECT_LT(err, 1e-5);
}

TEST(QsimMpi, TooManyRanksForTheBlocksIsRejected) {
  // n qubits, one block of n - g + 1 qubits: fits one process, not 2^g >= 2 ranks.
  int g = 0;
  while ((1 << g) < world_size()) ++g;
  const int n = 6;
  const auto blocks = qsim::fuse(qsim::brickwork(n, 2, 1, n - g + (g > 0 ? 1 : 0)), 6);
  if (g == 0) {
    EXPECT_EQ(qsim::global_qubits_for(MPI_COMM_WORLD, n, blocks), 0);
  } else {
    EXPECT_THROW(qsim::global_qubits_for(MPI_COMM_WORLD, n, blocks), tcemu::InvalidArgument);
  }
}

}  // namespace
