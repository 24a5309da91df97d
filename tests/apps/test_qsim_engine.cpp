// qsim's one simulation step (qsim/simulate_engine.hpp): its Kokkos permutation kernels against the
// host gather (permute_state) on the host execution space and, where the build has qsim's GPU path,
// on Kokkos::Cuda together with the hand-written tiled kernel; the same circuits on host and CUDA
// Views give the same state; the GPU memory check names qubits and bytes.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <complex>
#include <random>
#include <string>
#include <vector>

#include "app_common/device.hpp"
#include "qsim/circuit_generators.hpp"
#include "qsim/fusion.hpp"
#include "qsim/job.hpp"
#include "qsim/qubit_layout.hpp"
#include "qsim/simulate.hpp"
#include "qsim/simulate_engine.hpp"
#include "qsim_fixtures.hpp"
#include "tcemu/error.hpp"
#include "tcemu/scheme.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
#include "qsim/permute_cuda.hpp"
#endif

namespace {

using Z = std::complex<double>;
using KZ = Kokkos::complex<double>;

/// Layout pairs that exercise both kernels: random shuffles (few low positions keep their qubit:
/// tiled), swaps among the high positions only (long runs: gather), one swap of a low with a high one.
std::vector<std::pair<qsim::Layout, qsim::Layout>> layout_pairs(int n) {
  std::vector<std::pair<qsim::Layout, qsim::Layout>> out;
  std::mt19937 rng(11);
  for (int k = 0; k < 4; ++k) {
    qsim::Layout from = qsim::Layout::identity(n), to = from;
    for (int i = 0; i < 3 * n; ++i) from.swap_qubits(int(rng() % n), int(rng() % n));
    for (int i = 0; i < 3 * n; ++i) to.swap_qubits(int(rng() % n), int(rng() % n));
    out.emplace_back(from, to);
  }
  qsim::Layout id = qsim::Layout::identity(n), high = id, mixed = id;
  high.swap_qubits(n - 1, n - 3);
  mixed.swap_qubits(1, n - 2);
  out.emplace_back(id, high);
  out.emplace_back(id, mixed);
  return out;
}

std::vector<Z> numbered_state(int n) {
  std::vector<Z> s(std::size_t(1) << n);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = {double(i) + 0.25, -double(i)};
  return s;
}

/// Runs the Kokkos kernels (tiled and gather) and, with `hand`, the hand-written one on `Space` for
/// every layout pair and compares with permute_state exactly.
template <class Space>
void check_permutations(int n, bool hand) {
  using Mem = typename Space::memory_space;
  const std::vector<Z> src = numbered_state(n);
  const std::size_t size = src.size();
  Kokkos::View<KZ*, Mem> d_src("src", size), d_dst("dst", size);
  Kokkos::View<std::uint32_t*, Mem> d_plan("plan", qsim::PermutationPlan::kWords);
  Kokkos::deep_copy(d_src, Kokkos::View<const KZ*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                               reinterpret_cast<const KZ*>(src.data()), size));
  std::vector<Z> want(size), got(size);
  const Kokkos::View<KZ*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h_got(reinterpret_cast<KZ*>(got.data()),
                                                                                          size);
  for (const auto& [from, to] : layout_pairs(n)) {
    const qsim::PermutationTables t = qsim::permutation_tables(from, to);
    qsim::permute_state(src.data(), want.data(), t);
    const qsim::PermutationPlan p = qsim::permutation_plan(t, true);
    Kokkos::deep_copy(d_plan, Kokkos::View<const std::uint32_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                  p.words.data(), p.words.size()));
    const std::uint64_t tiles = size >> p.tile_bits;
    for (int kernel = 0; kernel < (hand ? 3 : 2); ++kernel) {
      SCOPED_TRACE("run_bits " + std::to_string(t.run_bits) + ", tile_bits " + std::to_string(p.tile_bits) + ", kernel " +
                   std::to_string(kernel));
      Kokkos::deep_copy(d_dst, KZ(-1, -1));
      if (kernel == 0) qsim::engine::permute_tiled<Space, double>(Space(), d_src, d_dst, d_plan, p.tile_bits, tiles);
      if (kernel == 1) qsim::engine::permute_gather<Space, KZ>(Space(), d_src, d_dst, d_plan, n, t.run_bits);
#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
      if (kernel == 2)
        qsim::cuda_kernels::permute_tiled(d_src.data(), d_dst.data(), 16, d_plan.data(), p.tile_bits, tiles, nullptr);
#endif
      Kokkos::fence();
      Kokkos::deep_copy(h_got, d_dst);
      ASSERT_EQ(got, want);
    }
  }
}

TEST(QsimEngine, KokkosPermutationsEqualTheHostGatherOnTheHost) {
  for (int n : {10, 13}) {
    SCOPED_TRACE(n);
    check_permutations<Kokkos::DefaultHostExecutionSpace>(n, false);
  }
}

TEST(QsimEngine, KokkosAndHandWrittenPermutationsEqualTheHostGatherOnCuda) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
  if (!tcemu::app::gpu_available()) GTEST_SKIP() << "no GPU";
  for (int n : {10, 16}) {
    SCOPED_TRACE(n);
    check_permutations<Kokkos::Cuda>(n, true);
  }
#else
  GTEST_SKIP() << "qsim's GPU path is not built (needs TCEMU_ENABLE_CUDA and a Kokkos with CUDA)";
#endif
}

// The one source on host Views and on CUDA Views: the same blocks give the same state (complex128:
// to rounding; complex64 with fp16x2-aligned, in place on the GPU: at FP32 level), with a dense
// brickwork, a Sycamore-like circuit and controlled blocks.
TEST(QsimEngine, HostAndCudaViewsGiveTheSameState) {
  if (!qsim::gpu_path_built() || !tcemu::app::gpu_available())
    GTEST_SKIP() << "qsim's GPU path is not built (needs TCEMU_ENABLE_CUDA and a Kokkos with CUDA) or no GPU";
  for (const auto& c : {qsim::brickwork(14, 8, 3), qsim::sycamore(13, 8, 2, true), qsim::random_circuit(12, 80, 5)}) {
    for (int fuse : {3, 5}) {
      SCOPED_TRACE(c.name + " fuse=" + std::to_string(fuse));
      const auto blocks = qsim::fuse(c, fuse);
      qsim::SimOptions opt;
      opt.gemm.scheme = tcemu::parse_scheme("fp64", tcemu::Target::fp64);
      opt.device = qsim::Device::host;
      const auto host = qsim::simulate_host<double>(blocks, c.num_qubits, opt);
      const auto gpu = qsim::simulate_cuda<double>(blocks, c.num_qubits, opt);
      ASSERT_EQ(host.state.size(), gpu.state.size());
      double err = 0;
      for (std::size_t i = 0; i < host.state.size(); ++i) err = std::max(err, std::abs(host.state[i] - gpu.state[i]));
      EXPECT_LT(err, 1e-12);
      EXPECT_EQ(host.stats.blocks, gpu.stats.blocks);
      opt.gemm.scheme = tcemu::parse_scheme("fp16x2-aligned", tcemu::Target::fp32);
      const auto host32 = qsim::simulate_host<float>(blocks, c.num_qubits, opt);
      const auto gpu32 = qsim::simulate_cuda<float>(blocks, c.num_qubits, opt);
      double err32 = 0;
      for (std::size_t i = 0; i < host32.state.size(); ++i)
        err32 = std::max(err32, double(std::abs(host32.state[i] - gpu32.state[i])));
      EXPECT_LT(err32, 1e-5);
      EXPECT_GT(err32, 0.0);  // different GEMM kernels: the comparison is not vacuous
    }
  }
}

// The memory limit: the state and work buffers against the free bytes, named in one line.
TEST(QsimEngine, GpuMemoryCheckNamesQubitsAndBytes) {
  EXPECT_NO_THROW(qsim::check_device_memory_for<float>(30, 3.0 * 8 * (1ull << 30)));
  try {
    qsim::check_device_memory_for<double>(31, 1e9);
    FAIL() << "no exception";
  } catch (const tcemu::InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("31 qubits (complex128)"), std::string::npos) << m;
    EXPECT_NE(m.find("103079215104 bytes (96.0 GiB)"), std::string::npos) << m;
    EXPECT_NE(m.find("only 1000000000 bytes"), std::string::npos) << m;
  }
  const auto c = qsim::brickwork(31, 1, 1);
  EXPECT_THROW(qsim::check_device_memory(c, {tcemu::parse_scheme("fp32")}, 96.0 * (1ull << 30) - 1), tcemu::InvalidArgument);
  EXPECT_NO_THROW(qsim::check_device_memory(c, {tcemu::parse_scheme("fp32")}, 96.0 * (1ull << 30)));
  try {
    qsim::check_device_memory(qsim::brickwork(30, 1, 1), {tcemu::parse_scheme("fp16x2")}, 40e9);
    FAIL() << "no exception";
  } catch (const tcemu::InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(30 qubits)"), std::string::npos) << m;
    EXPECT_NE(m.find("51539607552 bytes (48.0 GiB) of GPU memory"), std::string::npos) << m;
    EXPECT_NE(m.find("40000000000 bytes"), std::string::npos) << m;
  }
}

}  // namespace
