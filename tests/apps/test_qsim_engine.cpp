// qsim's one simulation step (qsim/simulate_engine.hpp): its Kokkos permutation kernels against the
// host gather (permute_state) on the host execution space and, where the build has qsim's GPU path,
// on Kokkos::Cuda together with the hand-written tiled kernel; the same circuits on host and CUDA
// Views give the same state; the GPU memory check names qubits and bytes.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
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
#include "qsim/state_metrics.hpp"
#include "qsim_fixtures.hpp"
#include "tcemu/error.hpp"
#include "tcemu/scheme.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
#include "cuda/kernels/crt_wgmma_s8.hpp"  // crt_s8::available: whether 3M (and so the gathered read) runs
#include "qsim/permute_cuda.hpp"
#endif

namespace {

using qsim_test::max_diff;

/// Whether qsim's GPU path is built and a GPU is present (the CUDA tests' condition).
bool gpu_path_runs() { return qsim::gpu_path_built() && tcemu::app::gpu_available(); }

/// Skips a test that needs qsim's GPU path, with the reason.
#define QSIM_REQUIRE_GPU_PATH()                                                                                     \
  if (!gpu_path_runs())                                                                                             \
  GTEST_SKIP() << "qsim's GPU path is not built (needs TCEMU_ENABLE_CUDA and a Kokkos with CUDA) or no GPU"
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
  QSIM_REQUIRE_GPU_PATH();
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

// The memory rule: two buffers where they fit, one where only that fits (and always past 32 qubits),
// else one line naming the qubits, the bytes needed and the bytes free.
TEST(QsimEngine, GpuMemoryRuleChoosesTheBuffersOrNamesQubitsAndBytes) {
  using qsim::BufferMode;
  const double gib = double(1ull << 30);
  EXPECT_EQ(qsim::device_bytes_needed<double>(32, BufferMode::two), 192.0 * gib);
  EXPECT_EQ(qsim::device_bytes_needed<double>(32, BufferMode::single), 70.0 * gib);  // 64 + 3 x 2 GiB
  EXPECT_EQ(qsim::device_bytes_needed<float>(33, BufferMode::single), 67.0 * gib);   // 64 + 3 x 1 GiB
  const double h200 = 139.5e9;  // free bytes of a 141 GB GPU, about
  EXPECT_EQ(qsim::choose_buffers<float>(30, h200), BufferMode::two);
  EXPECT_EQ(qsim::choose_buffers<double>(31, h200), BufferMode::two);     // 96 GiB
  EXPECT_EQ(qsim::choose_buffers<double>(32, h200), BufferMode::single);  // 192 GiB do not fit, 70 do
  EXPECT_EQ(qsim::choose_buffers<float>(32, h200), BufferMode::two);      // 96 GiB
  EXPECT_EQ(qsim::choose_buffers<float>(33, h200), BufferMode::single);
  EXPECT_EQ(qsim::choose_buffers<float>(33, 1e15), BufferMode::single);  // past the gather tables' 32 bits
  EXPECT_EQ(qsim::choose_buffers<float>(20, 1e15, BufferMode::single), BufferMode::single);
  EXPECT_THROW(qsim::choose_buffers<float>(33, 1e15, BufferMode::two), tcemu::InvalidArgument);
  EXPECT_THROW(qsim::choose_buffers<double>(32, h200, BufferMode::two), tcemu::InvalidArgument);
  try {
    qsim::check_device_memory_for<double>(31, 1e9);
    FAIL() << "no exception";
  } catch (const tcemu::InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("31 qubits (complex128)"), std::string::npos) << m;
    EXPECT_NE(m.find("40802189312 bytes (38.0 GiB) of GPU memory in single-buffer mode"), std::string::npos) << m;
    EXPECT_NE(m.find("only 1000000000 bytes"), std::string::npos) << m;
  }
  // The job's check: the fp64 reference on the GPU, the reference and one state on the host.
  const auto c = qsim::brickwork(31, 1, 1);
  const double host = 1e15;
  EXPECT_THROW(qsim::check_device_memory(c, {tcemu::parse_scheme("fp32")}, 38.0 * gib - 1, host), tcemu::InvalidArgument);
  EXPECT_NO_THROW(qsim::check_device_memory(c, {tcemu::parse_scheme("fp32")}, 38.0 * gib, host));
  EXPECT_THROW(qsim::check_device_memory(c, {tcemu::parse_scheme("fp32")}, h200, 48.0 * gib - 1), tcemu::InvalidArgument);
  EXPECT_NO_THROW(qsim::check_device_memory(c, {tcemu::parse_scheme("fp32")}, h200, 48.0 * gib));  // 32 + 16 GiB
  // Without the reference only the complex64 state counts: 33 qubits on a 141 GB GPU and 128 GiB host.
  const auto c33 = qsim::brickwork(33, 1, 1);
  EXPECT_THROW(qsim::check_device_memory(c33, {tcemu::parse_scheme("fp16x2-aligned")}, h200, 120.0 * gib), tcemu::InvalidArgument);
  EXPECT_NO_THROW(qsim::check_device_memory(c33, {tcemu::parse_scheme("fp16x2-aligned")}, h200, 120.0 * gib,
                                            BufferMode::automatic, false));
  try {
    qsim::check_device_memory(qsim::brickwork(30, 1, 1), {tcemu::parse_scheme("fp16x2")}, 10e9, host);
    FAIL() << "no exception";
  } catch (const tcemu::InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(30 qubits): the fp64 run needs"), std::string::npos) << m;
    EXPECT_NE(m.find("23622320128 bytes (22.0 GiB) of GPU memory"), std::string::npos) << m;
    EXPECT_NE(m.find("10000000000 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("on the GPU"), std::string::npos) << m;
  }
}

// The index arithmetic of single-buffer mode past 2^32 (pure functions: no state is allocated).
TEST(QsimEngine, SwapIndicesAreSixtyFourBit) {
  using qsim::engine::insert_zero_bit;
  EXPECT_EQ(insert_zero_bit(0b1011, 2), std::uint64_t(0b10011));
  EXPECT_EQ(insert_zero_bit((std::uint64_t(1) << 32) | 5, 33), (std::uint64_t(1) << 32) | 5);
  EXPECT_EQ(insert_zero_bit((std::uint64_t(1) << 32) | 5, 0), (std::uint64_t(1) << 33) | 10);
  EXPECT_EQ(insert_zero_bit(std::uint64_t(1) << 31, 31), std::uint64_t(1) << 32);
  const std::uint64_t k = (std::uint64_t(0x2ABCD) << 13) | 0x1234;  // bits up to 30 of 2^32 iterations (n = 34)
  for (const auto& [lo, hi] : {std::pair<int, int>{0, 33}, {5, 32}, {31, 33}, {3, 17}}) {
    const auto ij = qsim::engine::swap_pair(k, lo, hi);
    EXPECT_EQ(ij.first ^ ij.second, (std::uint64_t(1) << lo) | (std::uint64_t(1) << hi));
    EXPECT_EQ((ij.first >> lo) & 1u, 1u);
    EXPECT_EQ((ij.first >> hi) & 1u, 0u);
    // Dropping bits lo and hi gives k back: every k < 2^(n-2) names a distinct pair.
    std::uint64_t back = 0;
    int b = 0;
    for (int p = 0; p < 34; ++p)
      if (p != lo && p != hi) back |= ((ij.first >> p) & 1u) << b++;
    EXPECT_EQ(back, k);
  }
  const auto top = qsim::engine::swap_pair((std::uint64_t(1) << 32) - 1, 0, 33);  // last iteration at n = 34
  EXPECT_EQ(top.first, (std::uint64_t(1) << 33) - 1);
  EXPECT_EQ(top.second, (std::uint64_t(1) << 34) - 2);
}

// position_swaps turns one layout into another (34 qubits, random), with at most n - 1 swaps; the
// gather tables refuse more than 32 qubits instead of dropping index bits.
TEST(QsimEngine, PositionSwapsReachTheTargetLayout) {
  std::mt19937 rng(5);
  for (int n : {5, 13, 34}) {
    for (int t = 0; t < 20; ++t) {
      qsim::Layout from = qsim::Layout::identity(n), to = from;
      for (int i = 0; i < 2 * n; ++i) from.swap_qubits(int(rng() % n), int(rng() % n));
      for (int i = 0; i < (t % 3 == 0 ? 2 : 2 * n); ++i) to.swap_qubits(int(rng() % n), int(rng() % n));
      const auto swaps = qsim::position_swaps(from, to);
      EXPECT_LE(int(swaps.size()), n - 1);
      qsim::Layout cur = from;
      for (const auto& [a, b] : swaps) {
        ASSERT_NE(a, b);
        cur.swap_qubits(cur.qubit_at[std::size_t(a)], cur.qubit_at[std::size_t(b)]);
      }
      EXPECT_TRUE(cur == to);
    }
  }
  EXPECT_TRUE(qsim::position_swaps(qsim::Layout::identity(6), qsim::Layout::identity(6)).empty());
  EXPECT_THROW(qsim::permutation_tables(qsim::Layout::identity(33), qsim::Layout::identity(33)), tcemu::InvalidArgument);
}

// source_positions is the bit map of the permutation: summing (bit p of the new index) << src[p]
// gives the old index the gather tables give, for every index of random layout pairs.
TEST(QsimEngine, SourcePositionsMapEachNewIndexToItsOldOne) {
  for (int n : {6, 13}) {
    for (const auto& [from, to] : layout_pairs(n)) {
      const qsim::PermutationTables t = qsim::permutation_tables(from, to);
      const std::vector<int> src = qsim::source_positions(from, to);
      ASSERT_EQ(int(src.size()), n);
      for (std::uint32_t i = 0; i < (1u << n); ++i) {
        std::uint32_t old = 0;
        for (int p = 0; p < n; ++p) old |= ((i >> p) & 1u) << src[std::size_t(p)];
        const std::uint32_t want = t.table[0][i & 255u] | t.table[1][(i >> 8) & 255u];
        ASSERT_EQ(old, want) << "n " << n << " index " << i;
      }
    }
  }
  EXPECT_THROW(qsim::source_positions(qsim::Layout::identity(5), qsim::Layout::identity(6)), tcemu::InvalidArgument);
}

// The gathered blocks' layout keeps every qubit's order: the block's qubits lowest, by their current
// positions, then the others by theirs; no permutation when the layout is already that one.
TEST(QsimEngine, InOrderPlanIsAStablePartitionOfTheLayout) {
  std::mt19937 rng(9);
  for (int t = 0; t < 20; ++t) {
    const int n = 12;
    qsim::Layout cur = qsim::Layout::identity(n);
    for (int i = 0; i < 3 * n; ++i) cur.swap_qubits(int(rng() % n), int(rng() % n));
    std::vector<int> qubits;
    for (int q = 0; q < n; ++q)
      if (rng() % 3 == 0) qubits.push_back(q);
    if (qubits.empty()) qubits.push_back(int(rng() % n));
    const int s = int(qubits.size());
    const qsim::BlockPlan plan = qsim::plan_dense_in_order(cur, qubits);
    EXPECT_EQ(plan.placement, qsim::Placement::low);
    for (int p = 0; p < n; ++p) {
      const int q = plan.layout.qubit_at[std::size_t(p)];
      ASSERT_EQ(plan.layout.position_of[std::size_t(q)], p);
      const bool member = std::find(qubits.begin(), qubits.end(), q) != qubits.end();
      EXPECT_EQ(member, p < s) << "position " << p;
      if (p + 1 < n && (p + 1 < s || p >= s))  // within each part, current positions ascend
        EXPECT_LT(cur.position_of[std::size_t(q)], cur.position_of[std::size_t(plan.layout.qubit_at[std::size_t(p + 1)])]);
    }
    EXPECT_EQ(plan.order, std::vector<int>(plan.layout.qubit_at.begin(), plan.layout.qubit_at.begin() + s));
    EXPECT_EQ(plan.permute, plan.layout != cur);
    EXPECT_FALSE(qsim::plan_dense_in_order(plan.layout, qubits).permute);
  }
}

// The GPU's int8-crt with N given reads each permuted block's state through the permutation
// (BlockGemm::gathered, into plan_dense_in_order's layout): the same state, bit for bit, as the
// permutation pass and the GEMM, with fewer permutations. Blocks of 4-6 qubits (not the narrow pass) on random layouts.
TEST(QsimEngine, GatheredBlocksGiveThePermutedPathsBits) {
  QSIM_REQUIRE_GPU_PATH();
  for (const auto& c : {qsim::brickwork(14, 10, 3), qsim::random_circuit(13, 120, 5)}) {
    for (int fuse : {4, 6}) {
      SCOPED_TRACE(c.name + " fuse=" + std::to_string(fuse));
      const auto blocks = qsim::fuse(c, fuse);
      qsim::SimOptions opt;
      opt.gemm.scheme = tcemu::parse_scheme("int8-crt:15", tcemu::Target::fp64);
      opt.device = qsim::Device::cuda;
      opt.gather_permutations = false;
      const auto permuted = qsim::simulate_cuda<double>(blocks, c.num_qubits, opt);
      opt.gather_permutations = true;
      const auto gathered = qsim::simulate_cuda<double>(blocks, c.num_qubits, opt);
      EXPECT_EQ(permuted.stats.gathered, 0);
#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
      if (!tcemu::cuda::detail::crt_s8::available()) {  // no wgmma kernel: no 3M, nothing gathers
        EXPECT_EQ(gathered.stats.gathered, 0);
        continue;
      }
#endif
      EXPECT_GT(gathered.stats.gathered, 0);
      EXPECT_LT(gathered.stats.permutations, permuted.stats.permutations);
      ASSERT_EQ(permuted.state.size(), gathered.state.size());
      EXPECT_TRUE(permuted.state == gathered.state);
      EXPECT_EQ(permuted.stats.blocks, gathered.stats.blocks);
    }
  }
}

// swap_positions on host Views equals the gather permutation to the swapped layout.
TEST(QsimEngine, PositionSwapKernelEqualsTheGatherOnTheHost) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  const int n = 11;
  const std::vector<Z> src = numbered_state(n);
  for (const auto& [a, b] : {std::pair<int, int>{0, 1}, {0, 10}, {3, 7}, {9, 2}}) {
    std::vector<Z> got = src, want(src.size());
    qsim::Layout to = qsim::Layout::identity(n);
    to.swap_qubits(a, b);
    qsim::permute_state(src.data(), want.data(), qsim::permutation_tables(qsim::Layout::identity(n), to));
    qsim::engine::swap_positions<Space, KZ>(Space(), Kokkos::View<KZ*, Kokkos::HostSpace>(reinterpret_cast<KZ*>(got.data()), got.size()),
                                            n, a, b);
    Space().fence();
    EXPECT_EQ(got, want) << a << " " << b;
  }
}

// The norm measured on the run's execution space (a Kokkos reduction) equals the host metrics' blocked
// sum; on the GPU a run without download keeps its state there and still reports the same norm.
TEST(QsimEngine, NormIsMeasuredWhereTheRunRan) {
  const auto c = qsim::brickwork(13, 6, 4);
  const auto blocks = qsim::fuse(c, 4);
  qsim::SimOptions opt;
  opt.gemm.scheme = tcemu::parse_scheme("fp32");
  const auto host = qsim::simulate_host<float>(blocks, c.num_qubits, opt);
  EXPECT_NEAR(host.norm_squared, qsim::norm_squared(host.state), 1e-14);
  EXPECT_NE(host.norm_squared, 1.0);  // FP32 rounding leaves a drift: the comparison is not vacuous
  EXPECT_NEAR(host.norm_squared, 1.0, 1e-5);
  if (!gpu_path_runs()) GTEST_SKIP() << "no GPU path or no GPU: host part only";
  const auto gpu = qsim::simulate_cuda<float>(blocks, c.num_qubits, opt);
  EXPECT_NEAR(gpu.norm_squared, qsim::norm_squared(gpu.state), 1e-13);
  opt.download = false;
  const auto kept = qsim::simulate_cuda<float>(blocks, c.num_qubits, opt);
  EXPECT_TRUE(kept.state.empty());
  EXPECT_NEAR(kept.norm_squared, gpu.norm_squared, 1e-14);
}

// Fidelity, max amplitude error and norm against a reference as Kokkos reductions where the run ran
// (one source): the same numbers as the host metrics (compare_states) on the host, and on the GPU
// with the reference uploaded in pieces of 2^10 amplitudes while the state stays there.
TEST(QsimEngine, AccuracyIsMeasuredWhereTheRunRan) {
  const auto c = qsim::brickwork(13, 6, 4);
  const auto blocks = qsim::fuse(c, 4);
  qsim::SimOptions opt;
  opt.gemm.scheme = tcemu::parse_scheme("fp64", tcemu::Target::fp64);
  const auto ref = qsim::simulate_host<double>(blocks, c.num_qubits, opt);
  opt.gemm.scheme = tcemu::parse_scheme("fp16x2", tcemu::Target::fp32);
  opt.reference = &ref.state;
  auto check = [&](const qsim::Accuracy& got, const qsim::Accuracy& want) {
    EXPECT_NEAR(got.fidelity, want.fidelity, 1e-14);
    EXPECT_NEAR(got.max_amp_err, want.max_amp_err, 1e-15);
    EXPECT_NEAR(got.norm, want.norm, 1e-14);
    EXPECT_NEAR(got.norm_drift, want.norm_drift, 1e-14);
    EXPECT_GT(want.max_amp_err, 0.0);  // fp16x2 differs from fp64: the comparison is not vacuous
    EXPECT_LT(1.0 - want.fidelity, 1e-5);
  };
  const auto host = qsim::simulate_host<float>(blocks, c.num_qubits, opt);
  check(host.accuracy, qsim::compare_states(ref.state, host.state));
  opt.reference = nullptr;
  EXPECT_TRUE(std::isnan(qsim::simulate_host<float>(blocks, c.num_qubits, opt).accuracy.fidelity));
  if (!gpu_path_runs()) GTEST_SKIP() << "no GPU path or no GPU: host part only";
  const auto gpu = qsim::simulate_cuda<float>(blocks, c.num_qubits, opt);
  opt.reference = &ref.state;
  opt.download = false;
  opt.chunk_elements = 1 << 10;
  const auto kept = qsim::simulate_cuda<float>(blocks, c.num_qubits, opt);
  EXPECT_TRUE(kept.state.empty());
  check(kept.accuracy, qsim::compare_states(ref.state, gpu.state));
}

/// The circuits of the single-buffer tests: dense brickwork, Sycamore-like, and controlled blocks.
std::vector<qsim::Circuit> single_buffer_circuits() {
  return {qsim::brickwork(12, 8, 3), qsim::sycamore(11, 8, 2, true), qsim::random_circuit(10, 80, 5)};
}

/// Single-buffer runs (chunk buffers of 2^9 and 2^11 amplitudes: several chunks per block) against
/// two-buffer runs of the same blocks with `simulate_fn` (host or CUDA): fp64 to 1e-13, an emulated
/// FP32 scheme to its own tolerance against the two-buffer run.
template <class Sim32, class Sim64>
void check_single_against_two(Sim64 simulate64, Sim32 simulate32, const char* scheme32, double tol32) {
  for (const auto& c : single_buffer_circuits()) {
    for (int fuse : {3, 5}) {
      const auto blocks = qsim::fuse(c, fuse);
      qsim::SimOptions two;
      two.gemm.scheme = tcemu::parse_scheme("fp64", tcemu::Target::fp64);
      two.buffers = qsim::BufferMode::two;
      const auto ref = simulate64(blocks, c.num_qubits, two);
      EXPECT_FALSE(ref.stats.single_buffer);
      for (std::int64_t chunk : {std::int64_t(1) << 9, std::int64_t(1) << 11}) {
        SCOPED_TRACE(c.name + " fuse=" + std::to_string(fuse) + " chunk=" + std::to_string(chunk));
        qsim::SimOptions one = two;
        one.buffers = qsim::BufferMode::single;
        one.chunk_elements = chunk;
        const auto got = simulate64(blocks, c.num_qubits, one);
        EXPECT_TRUE(got.stats.single_buffer);
        EXPECT_EQ(got.stats.blocks, ref.stats.blocks);
        EXPECT_LT(max_diff(got.state, ref.state), 1e-13);
        if (ref.stats.permutations > 0) EXPECT_GT(got.stats.position_swaps, 0);
        qsim::SimOptions two32 = two, one32 = one;
        two32.gemm.scheme = one32.gemm.scheme = tcemu::parse_scheme(scheme32, tcemu::Target::fp32);
        const auto ref32 = simulate32(blocks, c.num_qubits, two32);
        const auto got32 = simulate32(blocks, c.num_qubits, one32);
        EXPECT_LT(max_diff(got32.state, ref32.state), tol32);
        EXPECT_LT(max_diff(got32.state, ref.state), 1e-5);  // and both at FP32 level against fp64
      }
    }
  }
}

// The per-segment in-place path of states past the kernel's 32 index bits, at 14 qubits with
// segments of 2^12 amplitudes: blocks below bit 12 run in place segment by segment, the others take
// the chunked GEMM; the state equals the two-buffer run's to FP32 level.
TEST(QsimEngine, InPlaceSegmentsOnCuda) {
  QSIM_REQUIRE_GPU_PATH();
  const auto c = qsim::brickwork(14, 8, 3);
  const auto blocks = qsim::fuse(c, 5);
  qsim::SimOptions two;
  two.gemm.scheme = tcemu::parse_scheme("fp16x2-aligned", tcemu::Target::fp32);
  const auto ref = qsim::simulate_cuda<float>(blocks, c.num_qubits, two);
  qsim::SimOptions seg = two;
  seg.buffers = qsim::BufferMode::single;
  seg.in_place_segment_bits = 12;
  const auto got = qsim::simulate_cuda<float>(blocks, c.num_qubits, seg);
  EXPECT_TRUE(got.stats.single_buffer);
  EXPECT_GT(got.stats.in_place, 0);
  EXPECT_LT(got.stats.in_place, ref.stats.in_place);  // blocks touching bits 12, 13 took the chunked GEMM
  EXPECT_LT(max_diff(got.state, ref.state), 1e-5);
}

// Single-buffer mode on the host: the same states as two buffers (the host's GEMMs are row-independent).
TEST(QsimEngine, SingleBufferEqualsTwoBuffersOnTheHost) {
  check_single_against_two([](auto&&... a) { return qsim::simulate_host<double>(a...); },
                           [](auto&&... a) { return qsim::simulate_host<float>(a...); }, "fp16x2", 1e-5);
}

// On the GPU: fp64 through cuBLAS ZGEMM on row chunks; fp16x2-aligned mostly through the in-place
// kernel with y == x (no chunks), its dense blocks through chunks.
TEST(QsimEngine, SingleBufferEqualsTwoBuffersOnCuda) {
  QSIM_REQUIRE_GPU_PATH();
  check_single_against_two([](auto&&... a) { return qsim::simulate_cuda<double>(a...); },
                           [](auto&&... a) { return qsim::simulate_cuda<float>(a...); }, "fp16x2-aligned", 1e-5);
}

// A block whose U the in-place kernel rejects before it runs (one entry 2^20: its line's spread is
// beyond fp16x2-aligned's rule for U) must still be applied in single-buffer mode, through the
// chunked GEMM (which falls back to native FP32 there), as the two-buffer run applies it through
// permute + GEMM: both states equal the fp64 run's to FP32 level.
TEST(QsimEngine, SingleBufferAppliesBlocksTheInPlaceKernelRejectsOnCuda) {
  QSIM_REQUIRE_GPU_PATH();
  const auto c = qsim::brickwork(14, 6, 11);
  auto blocks = qsim::fuse(c, 5);
  std::size_t target = blocks.size();
  for (std::size_t i = 0; i < blocks.size() && target == blocks.size(); ++i)
    if (blocks[i].controls.empty() && blocks[i].qubits.size() >= 4) target = i;
  ASSERT_LT(target, blocks.size()) << "no dense block of 4-5 qubits to run in place";
  blocks[target].matrix[1] = std::ldexp(1.0, 20);
  qsim::SimOptions two;
  two.gemm.scheme = tcemu::parse_scheme("fp64", tcemu::Target::fp64);
  two.buffers = qsim::BufferMode::two;
  const auto ref = qsim::simulate_cuda<double>(blocks, c.num_qubits, two);
  double scale = 0;
  for (const auto& z : ref.state) scale = std::max(scale, std::abs(z));
  qsim::SimOptions two32 = two;
  two32.gemm.scheme = tcemu::parse_scheme("fp16x2-aligned", tcemu::Target::fp32);
  qsim::SimOptions one32 = two32;
  one32.buffers = qsim::BufferMode::single;
  for (const auto* o : {&two32, &one32}) {
    SCOPED_TRACE(o == &one32 ? "single buffer" : "two buffers");
    const auto got = qsim::simulate_cuda<float>(blocks, c.num_qubits, *o);
    EXPECT_EQ(got.stats.blocks, static_cast<std::int64_t>(blocks.size()));
    EXPECT_GE(got.stats.in_place_declined, 1);
    EXPECT_GE(got.stats.gemm.fallbacks, 1) << "the rejected block's dense GEMM falls back to native FP32";
    EXPECT_LT(max_diff(got.state, ref.state) / scale, 1e-5);
  }
}

}  // namespace
