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
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <string>

#include "qubit_layout.hpp"
#include "simulate.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/error.hpp"

namespace qsim {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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

template <class C, class T>
__global__ void scale_kernel(C* z, T factor, std::uint64_t size) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < size;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    z[i] = C(z[i].real() * factor, z[i].imag() * factor);
}

using tcemu::cuda::DeviceBuffer;

unsigned grid_for(std::uint64_t size) { return static_cast<unsigned>(std::min<std::uint64_t>((size + 255) / 256, 65535u * 8)); }

}  // namespace

bool cuda_available() { return tcemu::cuda::device_available(); }

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
  C* cur = a.get();
  C* other = b.get();
  check(cudaMemsetAsync(cur, 0, size * sizeof(C), stream), "cudaMemsetAsync");
  const C first(static_cast<T>(state_scale(n)));
  check(cudaMemcpyAsync(cur, &first, sizeof(C), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  tcemu::cuda::Workspace& ws = tcemu::cuda::default_workspace();
  // One method for the whole run (the environment is read once; see the file comment).
  const tcemu::cuda::ComplexMethod method = tcemu::cuda::complex_method_from_env();
  const bool allow_high = method == tcemu::cuda::ComplexMethod::four_m;
  Layout layout = Layout::identity(n);
  auto permute_to = [&](const Layout& target) {
    const auto t0 = Clock::now();
    const PermutationTables t = permutation_tables(layout, target);
    check(cudaMemcpyAsync(tables.get(), &t.table[0][0], sizeof t.table, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    permute_kernel<C><<<grid_for(size), 256, 0, stream>>>(cur, other, tables.get(), size);
    check(cudaGetLastError(), "permute_kernel launch");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (permutation)");
    std::swap(cur, other);
    layout = target;
    st.seconds_permute += since(t0);
    ++st.permutations;
  };
  std::vector<C> host_u;
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const Block& blk = blocks[bi];
    const int s = static_cast<int>(blk.qubits.size());
    const int c = static_cast<int>(blk.controls.size());
    if (s < 1 || s + c > n || s > kMaxBlockQubits)
      throw tcemu::InvalidArgument("block " + std::to_string(bi) + " does not fit the circuit");
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
    st.seconds_gemm += since(t0);
    record(st, rep);
    ++st.blocks;
    if (options.progress) options.progress(bi + 1, blocks.size());
  }
  if (!layout.is_identity()) permute_to(Layout::identity(n));
  scale_kernel<C, T><<<grid_for(size), 256, 0, stream>>>(cur, static_cast<T>(1.0 / state_scale(n)), size);
  check(cudaGetLastError(), "scale_kernel launch");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  st.seconds = since(t_start);  // the download of the final state below is not simulation time
  res.state.resize(size);
  check(cudaMemcpy(res.state.data(), cur, size * sizeof(C), cudaMemcpyDeviceToHost), "cudaMemcpy (final state)");
  return res;
}

template SimResult<float> simulate_cuda<float>(const std::vector<Block>&, int, const SimOptions&);
template SimResult<double> simulate_cuda<double>(const std::vector<Block>&, int, const SimOptions&);

}  // namespace qsim
