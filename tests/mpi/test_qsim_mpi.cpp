// qsim over MPI ranks (apps/qsim/distributed.hpp), run by CTest under `mpirun -np 1|2|4`: the state
// gathered from the ranks against the one-process host simulator, the swap count, the collectives'
// norm and fidelity, samples, amplitudes and a whole job's reports against the one-process job, the
// rank-count error, the swap in pieces (single-buffer mode), and where a GPU
// and the GPU path are present the same runs on the GPU (every rank on it: with several ranks on one
// GPU the swaps go through MPI and host memory, NCCL refuses a shared GPU) and the GPU transport
// itself. Every rank runs every test (the simulations are collective); the gathered state is
// checked on rank 0.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif
#include <complex>
#include <cstdlib>
#include <string>
#include <utility>

#include "mpi_test_util.hpp"
#include "qsim/circuit_generators.hpp"
#include "app_common/device.hpp"
#include "app_common/mpi_agreement.hpp"
#include "qsim/distributed.hpp"
#include "qsim/exchange.hpp"
#include "qsim/fusion.hpp"
#include "qsim/job.hpp"
#include "qsim/simulate.hpp"
#include "qsim/state_metrics.hpp"
#include "tcemu/error.hpp"
#include "tcemu/scheme.hpp"

namespace {

using mpi_test::world_rank;
using mpi_test::world_size;

qsim::SimOptions fp64_options(qsim::Device device = qsim::Device::host) {
  qsim::SimOptions opt;
  opt.gemm.scheme = tcemu::parse_scheme("fp64", tcemu::Target::fp64);
  opt.device = device;
  return opt;
}

/// Why the GPU tests cannot run here ("" when they can).
std::string gpu_missing() {
  if (!qsim::gpu_path_built()) return "no GPU path in this build (tcemu's CUDA backend and a CUDA-enabled Kokkos)";
  if (!tcemu::app::gpu_available()) return "no CUDA device";
  return "";
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
qsim::DistributedResult<double> expect_matches_one_process(const qsim::Circuit& circuit, int fuse,
                                                           const qsim::SimOptions& options = fp64_options()) {
  const auto blocks = qsim::fuse(circuit, fuse);
  const auto dist = qsim::simulate_distributed<double>(blocks, circuit.num_qubits, options, MPI_COMM_WORLD);
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
  fp32.reference = &ref.local_state;  // the run's own metrics, against this rank's reference slice
  const auto f32 = qsim::simulate_distributed<float>(blocks, circuit.num_qubits, fp32, MPI_COMM_WORLD);
  const double fidelity = std::norm(qsim::distributed_overlap(ref.local_state, f32.local_state, MPI_COMM_WORLD));
  EXPECT_NEAR(f32.accuracy.fidelity, fidelity, 1e-12);
  EXPECT_NEAR(f32.accuracy.norm, qsim::distributed_norm2(f32.local_state, MPI_COMM_WORLD), 1e-12);
  EXPECT_NEAR(f32.accuracy.max_amp_err, qsim::distributed_max_abs_error(ref.local_state, f32.local_state, MPI_COMM_WORLD),
              1e-15);
  EXPECT_TRUE(std::isnan(ref.accuracy.fidelity));  // no reference given: the norm only
  EXPECT_NEAR(ref.accuracy.norm, 1.0, 1e-12);
  EXPECT_NEAR(fidelity, 1.0, 1e-5);
  double low = fidelity, high = fidelity;
  MPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &high, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(low, high);
  const double err = qsim::distributed_max_abs_error(ref.local_state, f32.local_state, MPI_COMM_WORLD);
  EXPECT_GT(err, 0.0);
  EXPECT_LT(err, 1e-5);
}

TEST(QsimMpi, SwapsInPiecesInSingleBufferModeMatchOneProcess) {
  // A chunk of 2^9 amplitudes: single-buffer mode's chunked GEMMs and swaps in pieces of 512
  // amplitudes (a 14-qubit slice over 4 ranks trades 2^11 per swap: four pieces).
  qsim::SimOptions opt = fp64_options();
  opt.buffers = qsim::BufferMode::single;
  opt.chunk_elements = 512;
  const auto dist = expect_matches_one_process(qsim::brickwork(14, 10, 3), 4, opt);
  EXPECT_TRUE(dist.stats.single_buffer);
}

TEST(QsimMpi, PlanSwapsOnlyForGlobalQubitsAndEndsCanonical) {
  // Pure planning: 8 qubits over 4 ranks (local positions 0..5). Block {0, 1} is local; {6} swaps
  // qubit 6 in for qubit 5 (never used again); {7, 0} swaps qubit 7 in for qubit 6 (never used
  // again), which goes to global position 7; mapping back: qubit 6 via local position 0 (two swaps),
  // qubit 7 (one), then one local swap puts qubits 0 and 5 home.
  std::vector<qsim::Block> blocks(3);
  blocks[0].qubits = {0, 1};
  blocks[1].qubits = {6};
  blocks[2].qubits = {7, 0};
  const qsim::DistributedPlan plan = qsim::plan_distributed(blocks, 8, 2);
  int swaps = 0, local_runs = 0;
  for (const auto& s : plan.steps) {
    if (s.kind == qsim::DistributedStep::Kind::swap) {
      ++swaps;
      EXPECT_GE(s.global_pos, 6);
      EXPECT_LT(s.local_pos, 6);
    } else {
      ++local_runs;
      for (const auto& b : s.blocks)
        for (int q : b.qubits) EXPECT_LT(q, 6);
    }
  }
  EXPECT_EQ(swaps, plan.swaps);
  EXPECT_EQ(plan.swaps, 2 + 3);
  EXPECT_EQ(local_runs, 3);
  ASSERT_EQ(plan.local_swaps.size(), 1u);
  EXPECT_EQ(plan.local_swaps[0], std::make_pair(0, 5));
  EXPECT_THROW(qsim::plan_distributed(blocks, 8, 7), tcemu::InvalidArgument);  // one local qubit, blocks of two
}

TEST(QsimMpi, GpuStateMatchesOneProcessHostState) {
  if (const std::string why = gpu_missing(); !why.empty()) GTEST_SKIP() << why;
  const auto dist = expect_matches_one_process(qsim::brickwork(12, 12, 7), 4, fp64_options(qsim::Device::cuda));
  EXPECT_NE(dist.exchange, "mpi");  // a GPU transport, not the host's
  expect_matches_one_process(qsim::random_circuit(11, 150, 3, 3, 2), 5, fp64_options(qsim::Device::cuda));
  qsim::SimOptions single = fp64_options(qsim::Device::cuda);
  single.buffers = qsim::BufferMode::single;
  single.chunk_elements = 512;
  EXPECT_TRUE(expect_matches_one_process(qsim::brickwork(14, 10, 3), 4, single).stats.single_buffer);
}

TEST(QsimMpi, GpuComplex64RunMatchesTheHostRunsFidelity) {
  // fp16x2 on complex64 over the ranks on the GPU, against the distributed fp64 reference: the same
  // scheme's accuracy as on the host (both far below 1e-5 infidelity), on every rank alike.
  if (const std::string why = gpu_missing(); !why.empty()) GTEST_SKIP() << why;
  const auto circuit = qsim::brickwork(12, 10, 5);
  const auto blocks = qsim::fuse(circuit, 4);
  const auto ref = qsim::simulate_distributed<double>(blocks, circuit.num_qubits, fp64_options(), MPI_COMM_WORLD);
  qsim::SimOptions opt;
  opt.gemm.scheme = tcemu::parse_scheme("fp16x2");
  opt.device = qsim::Device::cuda;
  opt.reference = &ref.local_state;
  const auto gpu = qsim::simulate_distributed<float>(blocks, circuit.num_qubits, opt, MPI_COMM_WORLD);
  const double fidelity = std::norm(qsim::distributed_overlap(ref.local_state, gpu.local_state, MPI_COMM_WORLD));
  EXPECT_NEAR(fidelity, 1.0, 1e-5);
  EXPECT_NE(fidelity, 1.0);
  EXPECT_NEAR(gpu.accuracy.fidelity, fidelity, 1e-12);  // measured on the GPU, summed over the ranks
  // Without download the slice stays on the GPU and the metrics still come back.
  opt.download = false;
  const auto kept = qsim::simulate_distributed<float>(blocks, circuit.num_qubits, opt, MPI_COMM_WORLD);
  EXPECT_TRUE(kept.local_state.empty());
  EXPECT_NEAR(kept.accuracy.fidelity, fidelity, 1e-12);
  EXPECT_NEAR(qsim::distributed_norm2(gpu.local_state, MPI_COMM_WORLD), 1.0, 1e-5);
}

TEST(QsimMpi, GpuExchangeTradesDeviceBuffersWithThePartner) {
  // The GPU transport alone: rank r sends bytes (r * 37 + i) mod 251 and must receive its partner's
  // (rank XOR 1; itself with one rank, which NCCL and MPI both allow). One rank: NCCL where built;
  // several ranks on one GPU: MPI through host memory.
  if (const std::string why = gpu_missing(); !why.empty()) GTEST_SKIP() << why;
#if defined(KOKKOS_ENABLE_CUDA)
  const int rank = world_rank(), size = world_size();
  const int partner = size == 1 ? 0 : (rank ^ 1) < size ? rank ^ 1 : rank;
  const auto exchange = qsim::make_gpu_exchange(MPI_COMM_WORLD);
  if (size == 1) EXPECT_EQ(exchange->name(), qsim::nccl_built() ? "nccl" : "mpi (through host memory)");
  int devices = 0;
  cudaGetDeviceCount(&devices);
  if (size > 1 && devices == 1) EXPECT_EQ(exchange->name(), "mpi (through host memory)");
  const std::size_t bytes = (std::size_t(1) << 20) + 3;
  Kokkos::View<unsigned char*, Kokkos::CudaSpace> send("send", bytes), recv("recv", bytes);
  auto host = Kokkos::create_mirror_view(send);
  for (std::size_t i = 0; i < bytes; ++i) host(i) = static_cast<unsigned char>((rank * 37 + i) % 251);
  Kokkos::deep_copy(send, host);
  exchange->exchange(send.data(), recv.data(), bytes, partner);
  Kokkos::deep_copy(host, recv);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < bytes; ++i) wrong += host(i) != static_cast<unsigned char>((partner * 37 + i) % 251);
  EXPECT_EQ(wrong, 0u);
#endif
}

/// The samples of distributed_samples on rank 0 against sample_states of the gathered state.
void expect_samples_match_gathered(const std::vector<std::complex<double>>& local, std::int64_t shots,
                                   std::uint64_t seed, const char* what) {
  const auto samples = qsim::distributed_samples(local, shots, seed, MPI_COMM_WORLD);
  const auto full = qsim::gather_state(local, MPI_COMM_WORLD);
  if (world_rank() != 0) {
    EXPECT_TRUE(samples.empty()) << what;
    return;
  }
  const auto one = qsim::sample_states(full, shots, seed);
  ASSERT_EQ(samples.size(), one.size()) << what;
  std::size_t differing = 0, beyond_rank0 = 0;
  for (std::size_t k = 0; k < one.size(); ++k) {
    differing += samples[k] != one[k];
    beyond_rank0 += samples[k] >= local.size();
  }
  EXPECT_EQ(differing, 0u) << what;
  // Not vacuous: with several ranks the draws reach the other ranks' slices.
  if (world_size() > 1) EXPECT_GT(beyond_rank0, 0u) << what;
}

TEST(QsimMpi, SamplesEqualTheGatheredStatesSamples) {
  const auto circuit = qsim::brickwork(10, 8, 2);
  const auto dist = qsim::simulate_distributed<double>(qsim::fuse(circuit, 3), circuit.num_qubits, fp64_options(),
                                                       MPI_COMM_WORLD);
  expect_samples_match_gathered(dist.local_state, 3000, 7, "brickwork");
  // GHZ: amplitude only at 0 and 2^n - 1, so with 4 ranks the middle ranks' shares are zero and the
  // draws split between the first and the last rank.
  const auto ghz = qsim::simulate_distributed<double>(qsim::fuse(qsim::ghz(8), 2), 8, fp64_options(), MPI_COMM_WORLD);
  expect_samples_match_gathered(ghz.local_state, 1000, 11, "ghz");
  // X on the top qubit, H on qubit 0: amplitude at 2^7 and 2^7 + 1 only, so with 2 or 4 ranks rank
  // 0's share is zero and a later rank is the first to own draws.
  const double r = std::sqrt(0.5);
  std::vector<qsim::Block> flip(2);
  flip[0].qubits = {7};
  flip[0].matrix = {0.0, 1.0, 1.0, 0.0};
  flip[0].gates = 1;
  flip[1].qubits = {0};
  flip[1].matrix = {r, r, r, -r};
  flip[1].gates = 1;
  const auto top = qsim::simulate_distributed<double>(flip, 8, fp64_options(), MPI_COMM_WORLD);
  expect_samples_match_gathered(top.local_state, 500, 13, "top qubit set");
  // A zero state: every draw answers index 0, as the one-process sampler does.
  const std::vector<std::complex<double>> zero(ghz.local_state.size());
  const auto none = qsim::distributed_samples(zero, 5, 3, MPI_COMM_WORLD);
  if (world_rank() == 0) EXPECT_EQ(none, std::vector<std::uint64_t>(5, 0));
  EXPECT_TRUE(qsim::distributed_samples(dist.local_state, 0, 3, MPI_COMM_WORLD).empty());
}

TEST(QsimMpi, AmplitudesAreReadWhereTheyLieAndTheSameOnEveryRank) {
  const auto circuit = qsim::brickwork(9, 6, 4);
  const auto dist = qsim::simulate_distributed<double>(qsim::fuse(circuit, 3), circuit.num_qubits, fp64_options(),
                                                       MPI_COMM_WORLD);
  const std::vector<std::uint64_t> indices = {0, 511, 128, 300, 257, 5};  // on every rank of 4
  const auto amps = qsim::distributed_amplitudes(dist.local_state, indices, MPI_COMM_WORLD);
  ASSERT_EQ(amps.size(), indices.size());
  const auto full = qsim::gather_state(dist.local_state, MPI_COMM_WORLD);
  double checksum = 0;
  for (const auto& z : amps) checksum += z.real() + 3 * z.imag();
  double low = checksum, high = checksum;
  MPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &high, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(low, high);
  if (world_rank() == 0)
    for (std::size_t i = 0; i < indices.size(); ++i) EXPECT_EQ(amps[i], full[indices[i]]) << indices[i];
  EXPECT_THROW(qsim::distributed_amplitudes(dist.local_state, {512}, MPI_COMM_WORLD), tcemu::InvalidArgument);
}

TEST(QsimMpi, JobReportsTheOneProcessJobsAmplitudesSamplesAndStates) {
  // run_job_distributed with --amplitudes, --shots and --output's states against run_job on one
  // process: the fp64 reference's samples equal, its amplitudes and state to 1e-12; the complex64
  // runs' GEMMs see other shapes over the ranks (slices, swapped qubits), so their states agree to
  // FP32 rounding and a draw within that of a boundary may answer differently.
  const auto circuit = qsim::brickwork(10, 6, 9);
  qsim::RunConfig cfg;
  cfg.schemes = {tcemu::parse_scheme("fp32"), tcemu::parse_scheme("bf16")};
  cfg.fuse = 3;
  cfg.shots = 2000;
  cfg.seed = 5;
  cfg.amplitudes = {"0000000000", "1111111111", "1000000001", "0110100101"};
  cfg.keep_states = true;
  const qsim::JobResult dist = qsim::run_job_distributed(circuit, cfg, MPI_COMM_WORLD);
  ASSERT_EQ(dist.runs.size(), 3u);
  if (world_rank() != 0) {
    for (const auto& r : dist.runs) {
      EXPECT_TRUE(r.samples.empty());
      EXPECT_TRUE(r.state.empty());
      EXPECT_EQ(r.amplitudes.size(), cfg.amplitudes.size());  // on every rank
    }
    return;
  }
  const qsim::JobResult one = qsim::run_job(circuit, cfg);
  ASSERT_EQ(one.runs.size(), dist.runs.size());
  std::int64_t differing = 0;
  for (std::size_t i = 0; i < one.runs.size(); ++i) {
    const auto& a = dist.runs[i];
    const auto& b = one.runs[i];
    const double tolerance = i == 0 ? 1e-12 : 1e-5;
    ASSERT_EQ(a.samples.size(), b.samples.size()) << b.scheme.name;
    std::int64_t unequal = 0, unequal_to_fp64 = 0;
    for (std::size_t k = 0; k < a.samples.size(); ++k) {
      unequal += a.samples[k] != b.samples[k];
      unequal_to_fp64 += a.samples[k] != dist.runs[0].samples[k];
    }
    if (i == 0) EXPECT_EQ(unequal, 0);
    else EXPECT_LE(unequal, 20) << b.scheme.name;  // 1 % of the draws
    EXPECT_EQ(a.samples_differing, unequal_to_fp64) << b.scheme.name;
    differing += a.samples_differing;
    ASSERT_EQ(a.amplitudes.size(), b.amplitudes.size());
    for (std::size_t k = 0; k < a.amplitudes.size(); ++k)
      EXPECT_LE(std::abs(a.amplitudes[k] - b.amplitudes[k]), tolerance) << b.scheme.name;
    ASSERT_EQ(a.state.size(), b.state.size());
    EXPECT_LE(relative_difference(a.state, b.state), tolerance) << b.scheme.name;
  }
  EXPECT_GT(differing, 0);  // bf16's distribution differs from fp64's somewhere: the comparison ran
  EXPECT_EQ(dist.runs[0].samples.size(), 2000u);
}

TEST(QsimMpi, EveryRankAgreesOnTheRankShortOfMemoryByTheMost) {
  // app_common/mpi_agreement.hpp, as qsim's and hplai's memory checks over ranks use it. Rank r is
  // short by r bytes (rank 0 fits): with one rank every rank fits; with more, every rank gets the last
  // rank's phrase. A rank that cannot measure (+infinity) wins over any number and is `unknown`.
  const int r = world_rank(), size = world_size();
  const tcemu::app::Shortfall s = tcemu::app::worst_shortfall(MPI_COMM_WORLD, r, "phrase of rank " + std::to_string(r));
  if (size == 1) {
    EXPECT_TRUE(s.fits);
    EXPECT_EQ(s.text, "");
  } else {
    EXPECT_FALSE(s.fits);
    EXPECT_FALSE(s.unknown);
    EXPECT_EQ(s.text, "rank " + std::to_string(size - 1) + ": phrase of rank " + std::to_string(size - 1));
  }
  const double short_by = r == 0 ? HUGE_VAL : 1e12;
  const tcemu::app::Shortfall u = tcemu::app::worst_shortfall(MPI_COMM_WORLD, short_by, r == 0 ? "cannot ask" : "");
  EXPECT_FALSE(u.fits);
  EXPECT_TRUE(u.unknown);
  EXPECT_EQ(u.text, "rank 0: cannot ask");
  EXPECT_EQ(tcemu::app::ranks_on_my_host(MPI_COMM_WORLD), size);  // mpirun --oversubscribe: one host
}

TEST(QsimMpi, ASliceBeyondTheHostsMemoryIsRefusedOnEveryRankBeforeAnyRun) {
  // ghz:n=34 over these ranks: each rank's slice of 34 - g qubits needs 2^(34-g) x 68 bytes (the
  // reference, two complex128 buffers and the GEMM's workspace of the fp64 run), 266 GiB on each of 2
  // ranks: more than a CI machine's memory (a machine with 1 TiB would start the run instead).
  if (world_size() == 1) GTEST_SKIP() << "one rank: the one-process check (job.hpp, check_memory) applies";
  qsim::RunConfig cfg;
  cfg.schemes = {tcemu::parse_scheme("fp32")};
  cfg.fuse = 2;
  try {
    (void)qsim::run_job_distributed(qsim::ghz(34), cfg, MPI_COMM_WORLD);
    ADD_FAILURE() << "the run started";
  } catch (const tcemu::InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("qsim over MPI: rank "), std::string::npos) << what;
    EXPECT_NE(what.find("qubits needs about"), std::string::npos) << what;
    EXPECT_NE(what.find("of host memory"), std::string::npos) << what;
  }
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
