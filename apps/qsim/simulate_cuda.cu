// CUDA twin of the host simulator (simulate.hpp): the state lives in device memory, permutations run
// as a gather kernel with the same tables as the host (qubit_layout.hpp), and each block is one
// tcemu::cuda::complex_gemm_device call on device pointers. Compiled only with TCEMU_ENABLE_CUDA.
//
// Placements: the block GEMM of the `low` placement (state rows x 2^s times U^T, row-major, real
// alpha and beta, separate buffers) is the real-embedding case of complex_gemm_device (one real GEMM
// instead of 4M's four plus a combine); `high` (U times the state) is not, so while the embedding is
// in use (TCEMU_CUDA_COMPLEX unset, auto or embed) dense blocks are planned `low` only and a block
// whose qubits sit at the top positions is permuted down first. TCEMU_CUDA_COMPLEX=4m restores the
// previous behaviour (4M, `high` placements allowed). docs/qsim.md explains the trade.
//
// In-place blocks: with fp16x2-aligned on complex64, a dense block of 4-6 qubits runs through the
// bit-indexed kernel (tcemu/cuda/bit_gemm.hpp), which reads the block's rows where they lie in the
// current layout and writes them to the same positions: no permutation, one pass over the state.
// When the kernel declines (a row breaks a range rule) the block takes the permute + GEMM path.
// TCEMU_QSIM_IN_PLACE=off sends every block through that path (for comparison).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "qubit_layout.hpp"
#include "app_common/timing.hpp"
#include "simulate.hpp"
#include "tcemu/cuda/bit_gemm.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/error.hpp"

namespace qsim {

namespace {

using tcemu::app::Clock;
using tcemu::app::seconds_since;

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess)
    throw tcemu::DeviceError(std::string("qsim: ") + call + " failed: " + cudaGetErrorString(e));
}

/// dst[i] = src[old(i)], old(i) from the four byte tables (staged in shared memory).
template <class C>
__global__ void permute_kernel(const C* __restrict__ src, C* __restrict__ dst, const std::uint32_t* __restrict__ tables,
                               std::uint64_t size) {
  __shared__ std::uint32_t t[4 * 256];
  for (int i = threadIdx.x; i < 4 * 256; i += blockDim.x) t[i] = tables[i];
  __syncthreads();
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < size;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t old = t[i & 255] | t[256 + ((i >> 8) & 255)] | t[512 + ((i >> 16) & 255)] | t[768 + ((i >> 24) & 255)];
    dst[i] = src[old];
  }
}

/// Tile plan of a permutation whose lowest positions change qubits (see tiled_permute_kernel): T =
/// the dst bit positions {0..4} and the dst positions of src bits 0..4 (m = |T| <= 10 bits).
struct TilePlan {
  std::uint32_t dst_off[1024];  ///< local dst index w -> dst offset (w's bits deposited at T)
  std::uint32_t src_off[1024];  ///< local src index r -> src offset (r's bits at old(T), ascending)
  std::uint16_t w2r[1024];      ///< the src-local index of the element at dst-local index w
  std::uint32_t base[4][256];   ///< tile number b -> dst base (b's bits deposited at the other positions)
  int m = 0;
};

TilePlan tile_plan(const PermutationTables& t, int n) {
  auto old_of = [&](std::uint32_t d) {
    return t.table[0][d & 255] | t.table[1][(d >> 8) & 255] | t.table[2][(d >> 16) & 255] | t.table[3][(d >> 24) & 255];
  };
  int src_bit_of[32];  // dst bit j holds src bit src_bit_of[j]
  for (int j = 0; j < n; ++j) {
    const std::uint32_t o = old_of(std::uint32_t(1) << j);
    int b = 0;
    while ((std::uint32_t(1) << b) != o) ++b;
    src_bit_of[j] = b;
  }
  std::vector<int> tdst, other;
  for (int j = 0; j < n; ++j) (j < 5 || src_bit_of[j] < 5 ? tdst : other).push_back(j);
  std::vector<int> tsrc;
  for (int j : tdst) tsrc.push_back(src_bit_of[j]);
  std::sort(tsrc.begin(), tsrc.end());
  TilePlan p{};
  p.m = static_cast<int>(tdst.size());
  for (std::uint32_t w = 0; w < (1u << p.m); ++w) {
    std::uint32_t d = 0, r = 0;
    for (int i = 0; i < p.m; ++i) d |= ((w >> i) & 1u) << tdst[i];
    const std::uint32_t o = old_of(d);
    for (int i = 0; i < p.m; ++i) r |= ((o >> tsrc[i]) & 1u) << i;
    p.dst_off[w] = d;
    p.w2r[w] = static_cast<std::uint16_t>(r);
    std::uint32_t so = 0;
    for (int i = 0; i < p.m; ++i) so |= ((w >> i) & 1u) << tsrc[i];
    p.src_off[w] = so;
  }
  for (int k = 0; k < 4; ++k)
    for (std::uint32_t v = 0; v < 256; ++v) {
      std::uint32_t d = 0;
      for (int i = 0; i < 8; ++i) {
        const int bit = 8 * k + i;
        if (((v >> i) & 1u) && bit < static_cast<int>(other.size())) d |= std::uint32_t(1) << other[bit];
      }
      p.base[k][v] = d;
    }
  return p;
}

/// The same permutation as permute_kernel, tile by tile through shared memory: 2^m elements read
/// with consecutive threads on consecutive src addresses (src bits 0..4 vary fastest) and written
/// with consecutive threads on consecutive dst addresses (dst bits 0..4), so both sides move whole
/// 32-element runs instead of one 8- or 16-byte element per 32-byte sector.
template <class C>
__global__ void __launch_bounds__(256) tiled_permute_kernel(const C* __restrict__ src, C* __restrict__ dst,
                                                            const TilePlan* __restrict__ plan,
                                                            const std::uint32_t* __restrict__ tables, std::uint64_t tiles) {
  __shared__ std::uint32_t t[4 * 256], base[4 * 256], dst_off[1024], src_off[1024];
  __shared__ std::uint16_t w2r[1024];
  __shared__ alignas(16) unsigned char tile_raw[1024 * sizeof(C)];  // raw: C has a constructor
  C* tile = reinterpret_cast<C*>(tile_raw);
  const int m = plan->m, count = 1 << m;
  for (int i = threadIdx.x; i < 4 * 256; i += blockDim.x) {
    t[i] = tables[i];
    base[i] = (&plan->base[0][0])[i];
  }
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    dst_off[i] = plan->dst_off[i];
    src_off[i] = plan->src_off[i];
    w2r[i] = plan->w2r[i];
  }
  __syncthreads();
  for (std::uint64_t b = blockIdx.x; b < tiles; b += gridDim.x) {
    const std::uint32_t db = base[b & 255] | base[256 + ((b >> 8) & 255)] | base[512 + ((b >> 16) & 255)] |
                             base[768 + ((b >> 24) & 255)];
    const std::uint32_t sb = t[db & 255] | t[256 + ((db >> 8) & 255)] | t[512 + ((db >> 16) & 255)] | t[768 + ((db >> 24) & 255)];
    for (int r = threadIdx.x; r < count; r += blockDim.x) tile[r] = src[std::uint64_t(sb | src_off[r])];
    __syncthreads();
    for (int w = threadIdx.x; w < count; w += blockDim.x) dst[std::uint64_t(db | dst_off[w])] = tile[w2r[w]];
    __syncthreads();
  }
}

template <class C, class T>
__global__ void scale_kernel(C* z, T factor, std::uint64_t size) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < size;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    z[i] = C(z[i].real() * factor, z[i].imag() * factor);
}

using tcemu::cuda::DeviceBuffer;

unsigned grid_for(std::uint64_t size) { return static_cast<unsigned>(std::min<std::uint64_t>((size + 255) / 256, 65535u * 8)); }

}  // namespace

template <class T>
SimResult<T> simulate_cuda(const std::vector<Block>& blocks, int n, const SimOptions& options) {
  using C = std::complex<T>;
  const auto t_start = Clock::now();
  SimResult<T> res;
  SimStats& st = res.stats;
  const std::uint64_t size = std::uint64_t(1) << n;
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const double need = 3.0 * double(size) * sizeof(C);  // two state buffers + GEMM workspace (about one more)
  if (need > double(free_bytes))
    throw tcemu::InvalidArgument("the state of " + std::to_string(n) + " qubits needs about " +
                                 std::to_string(need / (1u << 30)) + " GiB of GPU memory (" + (sizeof(T) == 4 ? "complex64" : "complex128") +
                                 "), but only " + std::to_string(double(free_bytes) / (1u << 30)) + " GiB are free");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};
  DeviceBuffer<C> a(size), b(size), u(std::size_t(1) << (2 * kMaxBlockQubits));
  DeviceBuffer<std::uint32_t> tables(4 * 256);
  DeviceBuffer<TilePlan> plan(1);
  const auto host_plan = std::make_unique<TilePlan>();
  // TCEMU_QSIM_PERMUTE=gather keeps the element-wise gather everywhere (for comparison).
  static const bool tiled_permutation = [] {
    const char* e = std::getenv("TCEMU_QSIM_PERMUTE");
    return !(e && std::string(e) == "gather");
  }();
  C* cur = a.get();
  C* other = b.get();
  check(cudaMemsetAsync(cur, 0, size * sizeof(C), stream), "cudaMemsetAsync");
  const C first(static_cast<T>(state_scale(n)));
  check(cudaMemcpyAsync(cur, &first, sizeof(C), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  tcemu::cuda::Workspace& ws = tcemu::cuda::default_workspace();
  // One method for the whole run (the environment is read once; see the file comment). Native
  // schemes run cuBLAS CGEMM / ZGEMM (ComplexMethod::blas), the baseline of docs/qsim.md;
  // TCEMU_QSIM_NATIVE=tcemu sends them through tcemu's native path instead (SGEMM / DGEMM on the
  // real embedding).
  const char* native_env = std::getenv("TCEMU_QSIM_NATIVE");
  const bool native_via_tcemu = native_env && std::string(native_env) == "tcemu";
  const tcemu::cuda::ComplexMethod method = options.gemm.scheme.is_native() && !native_via_tcemu
                                                ? tcemu::cuda::ComplexMethod::blas
                                                : options.gemm.execution.complex;
  const bool allow_high = method == tcemu::cuda::ComplexMethod::four_m;
  Layout layout = Layout::identity(n);
  auto permute_to = [&](const Layout& target) {
    const auto t0 = Clock::now();
    const PermutationTables t = permutation_tables(layout, target);
    check(cudaMemcpyAsync(tables.get(), &t.table[0][0], sizeof t.table, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    if (t.run_bits >= 5 || n < 10 || !tiled_permutation) {  // runs of 32 elements already move together
      permute_kernel<C><<<grid_for(size), 256, 0, stream>>>(cur, other, tables.get(), size);
      check(cudaGetLastError(), "permute_kernel launch");
    } else {
      *host_plan = tile_plan(t, n);
      check(cudaMemcpyAsync(plan.get(), host_plan.get(), sizeof(TilePlan), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
      const std::uint64_t tiles = size >> host_plan->m;
      const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>(tiles, 132u * 8));
      tiled_permute_kernel<C><<<grid, 256, 0, stream>>>(cur, other, plan.get(), tables.get(), tiles);
      check(cudaGetLastError(), "tiled_permute_kernel launch");
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (permutation)");
    std::swap(cur, other);
    layout = target;
    st.seconds_permute += seconds_since(t0);
    ++st.permutations;
  };
  std::vector<C> host_u;
  static const bool in_place_allowed = [] {
    const char* e = std::getenv("TCEMU_QSIM_IN_PLACE");
    return !(e && std::string(e) == "off");
  }();
  tcemu::cuda::BitGemm bit_gemm;
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const Block& blk = blocks[bi];
    const int s = static_cast<int>(blk.qubits.size());
    const int c = static_cast<int>(blk.controls.size());
    if (s < 1 || s + c > n || s > kMaxBlockQubits)
      throw tcemu::InvalidArgument("block " + std::to_string(bi) + " does not fit the circuit");
    if constexpr (std::is_same_v<T, float>) {
      if (c == 0 && in_place_allowed && tcemu::cuda::BitGemm::supports(options.gemm.scheme, s, n)) {
        std::vector<int> order = blk.qubits;  // by position, low to high: bit b of U's index = order[b]
        std::sort(order.begin(), order.end(), [&](int p, int q) { return layout.position_of[p] < layout.position_of[q]; });
        std::vector<int> positions;
        for (int q : order) positions.push_back(layout.position_of[q]);
        host_u = block_matrix<T>(reorder_matrix(blk.matrix, blk.qubits, order));
        const auto t0 = Clock::now();
        const tcemu::cuda::BitGemmReport r = bit_gemm.apply(cur, other, n, positions, host_u.data(), options.gemm.scheme, stream);
        st.seconds_gemm += seconds_since(t0);
        if (r.applied) {
          std::swap(cur, other);
          tcemu::GemmReport rep;
          rep.requested = rep.used = options.gemm.scheme;
          record(st, rep);
          ++st.blocks;
          ++st.in_place;
          if (options.progress) options.progress(bi + 1, blocks.size());
          continue;
        }
        ++st.in_place_declined;
        if (st.gemm.first_note.empty()) st.gemm.first_note = "in-place kernel declined: " + r.note;
      }
    }
    const BlockPlan plan =
        blk.controls.empty() ? plan_dense(layout, blk.qubits, allow_high) : plan_controlled(layout, blk.qubits, blk.controls);
    if (plan.permute) permute_to(plan.layout);
    host_u = block_matrix<T>(reorder_matrix(blk.matrix, blk.qubits, plan.order));
    check(cudaMemcpyAsync(u.get(), host_u.data(), host_u.size() * sizeof(C), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    const std::int64_t d = std::int64_t(1) << s, rows = static_cast<std::int64_t>(size >> s);
    const auto U = tcemu::row_major<const C>(u.get(), d, d);
    const auto t0 = Clock::now();
    tcemu::GemmReport rep;
    if (c > 0) {
      const std::int64_t count = rows >> c, first_row = rows - count;
      rep = tcemu::cuda::complex_gemm_device<T>(tcemu::Op::N, tcemu::Op::T, C(1), tcemu::row_major<const C>(cur + first_row * d, count, d),
                                                U, C(0), tcemu::row_major<C>(other + first_row * d, count, d), options.gemm, stream, &ws, method);
      check(cudaMemcpyAsync(cur + first_row * d, other + first_row * d, std::size_t(count * d) * sizeof(C), cudaMemcpyDeviceToDevice,
                            stream),
            "cudaMemcpyAsync");
    } else if (plan.placement == Placement::low) {
      rep = tcemu::cuda::complex_gemm_device<T>(tcemu::Op::N, tcemu::Op::T, C(1), tcemu::row_major<const C>(cur, rows, d), U, C(0),
                                                tcemu::row_major<C>(other, rows, d), options.gemm, stream, &ws, method);
      std::swap(cur, other);
    } else {
      rep = tcemu::cuda::complex_gemm_device<T>(tcemu::Op::N, tcemu::Op::N, C(1), U, tcemu::row_major<const C>(cur, d, rows), C(0),
                                                tcemu::row_major<C>(other, d, rows), options.gemm, stream, &ws, method);
      std::swap(cur, other);
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (block GEMM)");
    st.seconds_gemm += seconds_since(t0);
    record(st, rep);
    ++st.blocks;
    if (options.progress) options.progress(bi + 1, blocks.size());
  }
  if (!layout.is_identity()) permute_to(Layout::identity(n));
  scale_kernel<C, T><<<grid_for(size), 256, 0, stream>>>(cur, static_cast<T>(1.0 / state_scale(n)), size);
  check(cudaGetLastError(), "scale_kernel launch");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  st.seconds = seconds_since(t_start);  // the download of the final state below is not simulation time
  res.state.resize(size);
  check(cudaMemcpy(res.state.data(), cur, size * sizeof(C), cudaMemcpyDeviceToHost), "cudaMemcpy (final state)");
  return res;
}

template SimResult<float> simulate_cuda<float>(const std::vector<Block>&, int, const SimOptions&);
template SimResult<double> simulate_cuda<double>(const std::vector<Block>&, int, const SimOptions&);

}  // namespace qsim
