// qsim's GPU path (skipped without a GPU): with the complex GEMM's real embedding (the default) dense
// blocks are planned `low` only; with the 4M method (TCEMU_CUDA_COMPLEX=4m) `high` placements are allowed again. Both
// must give the direct gate-by-gate state; the low-only plan never needs fewer permutations.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "app_common/device.hpp"
#include "qsim/circuit_generators.hpp"
#include "qsim/fusion.hpp"
#include "qsim_fixtures.hpp"
#include "qsim/simulate.hpp"
#include "tcemu/scheme.hpp"

namespace {

using qsim_test::cplx;

template <class T>
std::vector<cplx> simulate_gpu(const qsim::Circuit& c, int fuse, const char* scheme, tcemu::Target target,
                               qsim::SimStats* stats,
                               tcemu::ComplexMethod method = tcemu::ComplexMethod::automatic) {
  qsim::SimOptions opt;
  opt.device = qsim::Device::cuda;
  opt.gemm.scheme = tcemu::parse_scheme(scheme, target);
  opt.gemm.execution.complex = method;
  const auto res = qsim::simulate<T>(qsim::fuse(c, fuse), c.num_qubits, opt);
  *stats = res.stats;
  std::vector<cplx> out(res.state.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {res.state[i].real(), res.state[i].imag()};
  return out;
}

}  // namespace

TEST(QsimGpu, LowOnlyPlanningWithEmbeddingMatchesDirect) {
  if (!tcemu::app::gpu_available()) GTEST_SKIP() << "no GPU (or built without the CUDA backend)";
  // Brickwork and Sycamore-like blocks land on the top qubits (high placements under 4M); the random
  // circuit has controlled blocks.
  for (const auto& c : {qsim::brickwork(11, 9, 5, 3), qsim::sycamore(12, 8, 2, true),
                        qsim::random_circuit(10, 60, 4)}) {
    const auto want = qsim_test::direct_simulation(c);
    for (int fuse : {2, 4}) {
      SCOPED_TRACE(c.name + " fuse=" + std::to_string(fuse));
      qsim::SimStats s4, se;
      std::vector<cplx> psi4, psie;
      psi4 = simulate_gpu<double>(c, fuse, "fp64", tcemu::Target::fp64, &s4, tcemu::ComplexMethod::four_m);
      psie = simulate_gpu<double>(c, fuse, "fp64", tcemu::Target::fp64, &se, tcemu::ComplexMethod::embed);
      EXPECT_LT(qsim_test::max_diff(psi4, want), 1e-12);
      EXPECT_LT(qsim_test::max_diff(psie, want), 1e-12);
      EXPECT_GE(se.permutations, s4.permutations);
      EXPECT_EQ(se.blocks, s4.blocks);
      // An FP32-accurate emulation through the embedding: complex64 state, error at FP32 level.
      qsim::SimStats sf;
      const auto psif = simulate_gpu<float>(c, fuse, "tf32x2", tcemu::Target::fp32, &sf, tcemu::ComplexMethod::embed);
      EXPECT_LT(qsim_test::max_diff(psif, want), 1e-5);
    }
  }
}

// Permutations at 16 qubits run the tiled shared-memory kernel (fewer than 5 low positions keep their
// qubit) with tiles of up to 2^10 elements and many tiles; the GPU state must equal the host's.
TEST(QsimGpu, TiledPermutationsMatchTheHostAt16Qubits) {
  if (!tcemu::app::gpu_available()) GTEST_SKIP() << "no GPU (or built without the CUDA backend)";
  const auto c = qsim::brickwork(16, 6, 7, 2);
  for (int fuse : {3, 5}) {
    SCOPED_TRACE("fuse=" + std::to_string(fuse));
    qsim::SimStats sg;
    const auto gpu = simulate_gpu<double>(c, fuse, "fp64", tcemu::Target::fp64, &sg);
    qsim::SimOptions opt;
    opt.device = qsim::Device::host;
    opt.gemm.scheme = tcemu::parse_scheme("fp64", tcemu::Target::fp64);
    const auto host = qsim::simulate<double>(qsim::fuse(c, fuse), c.num_qubits, opt);
    std::vector<cplx> h(host.state.size());
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = {host.state[i].real(), host.state[i].imag()};
    EXPECT_GT(sg.permutations, 2);
    EXPECT_LT(qsim_test::max_diff(gpu, h), 1e-12);
  }
}

// fp16x2-aligned on complex64: dense blocks of 4-6 qubits run in place through the bit-indexed kernel
// (tcemu/cuda/bit_gemm.hpp, no permutation); blocks of other sizes and controlled ones take the
// permute + GEMM path. The final state must be the direct simulation's at FP32-level fidelity.
TEST(QsimGpu, InPlaceAlignedBlocksMatchTheDirectSimulation) {
  if (!tcemu::app::gpu_available()) GTEST_SKIP() << "no GPU (or built without the CUDA backend)";
  for (const auto& c : {qsim::brickwork(16, 10, 3), qsim::sycamore(15, 8, 4, true), qsim::random_circuit(13, 80, 6)}) {
    const auto want = qsim_test::direct_simulation(c);
    for (int fuse : {4, 5, 6}) {
      SCOPED_TRACE(c.name + " fuse=" + std::to_string(fuse));
      qsim::SimStats st;
      const auto psi = simulate_gpu<float>(c, fuse, "fp16x2-aligned", tcemu::Target::fp32, &st);
      std::complex<double> overlap = 0;
      for (std::size_t i = 0; i < psi.size(); ++i)
        overlap += std::conj(want[i]) * psi[i];
      EXPECT_GT(std::norm(overlap), 1 - 1e-6);
      EXPECT_LT(qsim_test::max_diff(psi, want), 1e-5);
      if (c.name.rfind("random", 0) != 0) EXPECT_GT(st.in_place, 0);  // random: mostly controlled blocks
      EXPECT_LE(st.permutations + st.in_place, st.blocks + 1);  // + 1: the final permutation back
    }
  }
}
