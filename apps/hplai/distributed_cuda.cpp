// hplai over a P x Q process grid on the ranks' GPUs (distributed_factor.hpp): the run's GPU state
// (GpuGrid, its transport), the LU (factor_distributed_gpu) and the refinement's O(n^2) work
// (gpu_matvec, gpu_precond_apply). Compiled as CUDA in builds whose Kokkos has the CUDA backend and
// tcemu its CUDA backend; elsewhere the entry points throw the one-line error of a build without the
// GPU path.
#include "dense.hpp"  // HPLAI_HAVE_CUDA_KOKKOS
#include "distributed_factor.hpp"

#include <string>

#include "app_common/device.hpp"
#include "app_common/kokkos_range.hpp"
#include "tcemu/error.hpp"

#if defined(HPLAI_HAVE_CUDA_KOKKOS)
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "app_common/mpi_agreement.hpp"
#include "app_common/mpi_gpu.hpp"
#include "app_common/nccl_comm.hpp"
#include "app_common/timing.hpp"
#include "factor.hpp"
#include "kernels.hpp"
#include "tcemu/gemm.hpp"
#if defined(HPLAI_HAVE_NCCL)
#include <nccl.h>
#endif
#endif

namespace hplai::detail {

#if defined(HPLAI_HAVE_CUDA_KOKKOS)

namespace {

using Cuda = Kokkos::Cuda;
template <class T>
using DeviceMatrix = Kokkos::View<T**, Kokkos::LayoutLeft, Kokkos::CudaSpace>;
template <class T>
using DeviceBlock = Kokkos::View<T**, Kokkos::LayoutStride, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;

/// v (a Kokkos View) of at least `count` entries, reallocated only when too small.
template <class V>
void ensure(V& v, std::int64_t count, const char* label) {
  if (static_cast<std::int64_t>(v.extent(0)) >= count) return;
  v = V();
  v = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), static_cast<std::size_t>(count));
}

/// m of rows x cols, reallocated (the old one freed first, so both never coexist) only when its
/// extents differ.
template <class M>
void ensure_extents(M& m, std::int64_t rows, std::int64_t cols, const char* label) {
  if (static_cast<std::int64_t>(m.extent(0)) == rows && static_cast<std::int64_t>(m.extent(1)) == cols) return;
  m = M();
  m = M(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), static_cast<std::size_t>(rows),
        static_cast<std::size_t>(cols));
}

/// Largest MPI message in bytes (MPI counts are int).
constexpr std::size_t kMaxMessageBytes = std::size_t(1) << 30;

/// Collectives on device buffers along the grid's process rows or columns: the LU's broadcasts and
/// the refinement's sums of partial products.
class GridTransport {
 public:
  virtual ~GridTransport() = default;
  /// buf (count FP32 or FP64 entries, device memory) at rank `root` of this rank's process row
  /// (along_row) or column = the sum of every such rank's buf, in place (the others' buf undefined
  /// after), ordered on the stream as bcast. Collective over that row or column.
  virtual void reduce_sum(void* buf, std::size_t count, bool fp64, int root, bool along_row) = 0;
  /// `bytes` at `buf` (device memory) from rank `root` of this rank's process row (along_row) or
  /// column to the others of it, in place, ordered on the factorisation's stream after the work
  /// queued there before (MPI: the call waits for it; NCCL: queued, the host goes on). Collective
  /// over that row or column.
  virtual void bcast(void* buf, std::size_t bytes, int root, bool along_row) = 0;
  virtual std::string name() const = 0;
};

/// MPI on pinned host copies: for a broadcast the root copies its buffer to the host and the others
/// copy the received bytes to theirs; for a sum every rank sends its host copy (MPI_Reduce) and the
/// root copies the sum back.
class StagedTransport final : public GridTransport {
 public:
  StagedTransport(const Grid& g, const Cuda& space) : g_(g), space_(space) {}
  void bcast(void* buf, std::size_t bytes, int root, bool along_row) override {
    using Bytes = Kokkos::View<char*, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;
    if (bytes == 0) return;
    const MPI_Comm comm = along_row ? g_.row : g_.col;
    const bool is_root = (along_row ? g_.q : g_.p) == root;
    ensure(host_, static_cast<std::int64_t>(bytes), "hplai::stage");
    const auto h = Kokkos::subview(host_, std::make_pair(std::size_t(0), bytes));
    const Bytes d(static_cast<char*>(buf), bytes);
    if (is_root) Kokkos::deep_copy(space_, h, d);
    space_.fence();
    for (std::size_t off = 0; off < bytes; off += kMaxMessageBytes)
      if (MPI_Bcast(host_.data() + off, static_cast<int>(std::min(kMaxMessageBytes, bytes - off)), MPI_BYTE, root,
                    comm) != MPI_SUCCESS)
        throw tcemu::Error("hplai over MPI: MPI_Bcast failed");
    if (!is_root) Kokkos::deep_copy(space_, d, h);
    space_.fence();
  }
  void reduce_sum(void* buf, std::size_t count, bool fp64, int root, bool along_row) override {
    using Bytes = Kokkos::View<char*, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;
    const std::size_t bytes = count * (fp64 ? 8 : 4);
    if (bytes == 0) return;
    if (bytes > kMaxMessageBytes) throw tcemu::InvalidArgument("hplai over MPI: a row sum of more than 1 GiB");
    const MPI_Comm comm = along_row ? g_.row : g_.col;
    const bool is_root = (along_row ? g_.q : g_.p) == root;
    ensure(host_, static_cast<std::int64_t>(2 * bytes), "hplai::stage");
    const Bytes d(static_cast<char*>(buf), bytes);
    Kokkos::deep_copy(space_, Kokkos::subview(host_, std::make_pair(std::size_t(0), bytes)), d);
    space_.fence();
    if (MPI_Reduce(host_.data(), host_.data() + bytes, static_cast<int>(count), fp64 ? MPI_DOUBLE : MPI_FLOAT, MPI_SUM,
                   root, comm) != MPI_SUCCESS)
      throw tcemu::Error("hplai over MPI: MPI_Reduce failed");
    if (is_root) Kokkos::deep_copy(space_, d, Kokkos::subview(host_, std::make_pair(bytes, 2 * bytes)));
    space_.fence();
  }
  std::string name() const override { return "mpi (through host memory)"; }

 private:
  using Pinned = Kokkos::View<char*, Kokkos::CudaHostPinnedSpace>;
  const Grid& g_;
  Cuda space_;
  Pinned host_;
};

#if defined(HPLAI_HAVE_NCCL)
/// ncclBroadcast on one NCCL communicator per process row and per process column (over the row and
/// column MPI communicators: app_common/nccl_comm.hpp), on the factorisation's stream.
class NcclTransport final : public GridTransport {
 public:
  NcclTransport(const Grid& g, const Cuda& space)
      : stream_(space.cuda_stream()),
        row_(tcemu::app::nccl_comm_over(g.row, "hplai")),
        col_(tcemu::app::nccl_comm_over(g.col, "hplai")) {}
  ~NcclTransport() override {
    ncclCommDestroy(row_);
    ncclCommDestroy(col_);
  }
  NcclTransport(const NcclTransport&) = delete;
  NcclTransport& operator=(const NcclTransport&) = delete;
  void bcast(void* buf, std::size_t bytes, int root, bool along_row) override {
    if (bytes == 0) return;
    // Queued on the factorisation's stream: the work after it waits there, the host does not.
    tcemu::app::check_nccl(ncclBroadcast(buf, buf, bytes, ncclChar, root, along_row ? row_ : col_, stream_), "hplai",
                           "ncclBroadcast");
  }
  void reduce_sum(void* buf, std::size_t count, bool fp64, int root, bool along_row) override {
    if (count == 0) return;
    tcemu::app::check_nccl(ncclReduce(buf, buf, count, fp64 ? ncclDouble : ncclFloat, ncclSum, root,
                                      along_row ? row_ : col_, stream_),
                           "hplai", "ncclReduce");
  }
  std::string name() const override { return "nccl"; }

 private:
  cudaStream_t stream_;
  ncclComm_t row_ = nullptr, col_ = nullptr;
};
#endif

/// NCCL where it is built and no two ranks share a GPU (NCCL refuses that), else MPI through pinned
/// host memory. Collective over g.comm.
std::unique_ptr<GridTransport> make_transport(const Grid& g, const Cuda& space) {
  const bool shared = tcemu::app::ranks_share_a_gpu(g.comm, space.cuda_device());
#if defined(HPLAI_HAVE_NCCL)
  if (!shared) return std::make_unique<NcclTransport>(g, space);
#endif
  (void)shared;
  return std::make_unique<StagedTransport>(g, space);
}

/// buf (column-major, leading dimension rows) = A(r0 .. r0+rows, c0 .. c0+cols).
template <class T>
void pack(const Cuda& space, const DeviceMatrix<T>& A, std::int64_t r0, std::int64_t c0, std::int64_t rows,
          std::int64_t cols, T* buf) {
  if (rows <= 0 || cols <= 0) return;
  Kokkos::parallel_for(
      "hplai::pack", tcemu::app::Range64<Cuda>(space, 0, rows * cols),
      KOKKOS_LAMBDA(const std::int64_t k) { buf[k] = A(r0 + k % rows, c0 + k / rows); });
}

/// A rows x cols column-major block at `p` with leading dimension ld, as a View.
template <class T>
DeviceBlock<T> block(T* p, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  return DeviceBlock<T>(p, Kokkos::LayoutStride(static_cast<std::size_t>(rows), 1, static_cast<std::size_t>(cols),
                                                static_cast<std::size_t>(ld)));
}

}  // namespace

/// The preconditioner's device vectors in the factors' precision T: w (n, the iterate, as every
/// rank's host copy), u (one block row's part) and the partial products of one block row.
template <class T>
struct PrecondBuffers {
  Kokkos::View<T*, Kokkos::CudaSpace> w, u, partial;
};

/// What one working precision T keeps between the factorisation and the refinement: the factors of
/// the last row that stored T, and the preconditioner's buffers.
template <class T>
struct PrecisionState {
  DeviceMatrix<T> lu;
  PrecondBuffers<T> precond;
};

class GpuGrid {
 public:
  explicit GpuGrid(const Grid& g) : solvers(space), transport(make_transport(g, space)) {}
  Cuda space;
  DenseSolvers<Cuda> solvers;
  std::unique_ptr<GridTransport> transport;
  DeviceMatrix<double> A;  ///< this rank's FP64 blocks, column-major (upload_local_system)
  Kokkos::View<double*, Kokkos::CudaSpace> z, partial, sums;  ///< the mat-vec's operand and results
  /// The state of precision T (float or double); `other` = true gives the other precision's.
  template <class T, bool other = false>
  auto& state() {
    if constexpr (std::is_same_v<T, float> != other) return f32;
    else return f64;
  }

 private:
  PrecisionState<float> f32;
  PrecisionState<double> f64;
};

namespace {

template <class T>
using HostVector = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

/// dst[0 .. count) (device) = src (host) / dst (host) = src[0 .. count) (device); both wait.
template <class T>
void upload(const Cuda& space, const Kokkos::View<T*, Kokkos::CudaSpace>& dst, const T* src, std::int64_t count,
            std::int64_t at = 0) {
  if (count <= 0) return;
  Kokkos::deep_copy(space, Kokkos::subview(dst, std::make_pair(at, at + count)),
                    HostVector<T>(const_cast<T*>(src), static_cast<std::size_t>(count)));
  space.fence();
}
template <class T>
void download(const Cuda& space, T* dst, const Kokkos::View<T*, Kokkos::CudaSpace>& src, std::int64_t count) {
  if (count <= 0) return;
  Kokkos::deep_copy(space, HostVector<T>(dst, static_cast<std::size_t>(count)),
                    Kokkos::subview(src, std::make_pair(std::int64_t(0), count)));
  space.fence();
}

/// y(:, j) = A(:, block column first + j) x(block J) for j < count, J = (first + j) Q + q: the m-row
/// column-major A (leading dimension ld) holds local block columns of nb columns (the matrix's last
/// block, of n - J nb columns, may be narrower), x all n entries, y column-major with leading
/// dimension m. cuBLAS batched gemv: the full-width blocks in one call, a narrower last one apart.
template <class T>
void block_column_products(DenseSolvers<Cuda>& solvers, std::int64_t m, const T* A, std::int64_t ld, std::int64_t first,
                           std::int64_t count, const T* x, std::int64_t n, std::int64_t nb, std::int64_t Q,
                           std::int64_t q, T* y) {
  if (count <= 0) return;
  const std::int64_t J_last = (first + count - 1) * Q + q, last_width = std::min(nb, n - J_last * nb);
  const std::int64_t full = last_width == nb ? count : count - 1;
  const T* const a = A + first * nb * ld;
  const T* const xs = x + (first * Q + q) * nb;
  solvers.gemv_batched(m, nb, a, ld, nb * ld, xs, Q * nb, y, m, full);
  if (full < count)
    solvers.gemv_batched(m, last_width, a + full * nb * ld, ld, 0, xs + full * Q * nb, 0, y + full * m, 0, 1);
}

/// out(r) = sum over j < count of part(j m + r), in j order (block order), for r < m.
template <class T>
void sum_in_order(const Cuda& space, const Kokkos::View<T*, Kokkos::CudaSpace>& part, std::int64_t m, std::int64_t count,
                  const Kokkos::View<T*, Kokkos::CudaSpace>& out) {
  Kokkos::parallel_for(
      "hplai::sum_in_order", tcemu::app::Range64<Cuda>(space, 0, m),
      KOKKOS_LAMBDA(const std::int64_t r) {
        T s = 0;
        for (std::int64_t j = 0; j < count; ++j) s += part(j * m + r);
        out(r) = s;
      });
}

}  // namespace

void upload_local_system(GpuGrid& gpu, const LocalMatrix<double>& A) {
  const std::size_t lr = A.extent(0), lc = A.extent(1);
  ensure_extents(gpu.A, static_cast<std::int64_t>(lr), static_cast<std::int64_t>(lc), "hplai::local_A_gpu");
  {  // the row-major blocks as they are, then transposed on the GPU (kernels::convert)
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::CudaSpace> rows(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::local_A_rows"), lr, lc);
    Kokkos::deep_copy(gpu.space, rows, A);
    kernels::convert(gpu.space, rows, gpu.A);
    gpu.space.fence();
  }
}

void gpu_matvec(GpuGrid& gpu, const Grid& g, const BlockCyclic& C, const std::vector<double>& z, bool sum_blocks,
                std::vector<double>& out) {
  const Cuda& space = gpu.space;
  const DeviceMatrix<double> A = gpu.A;
  const std::int64_t lr = static_cast<std::int64_t>(A.extent(0)), lc = static_cast<std::int64_t>(A.extent(1));
  const std::int64_t nb = C.nb, lbc = C.blocks_held(g.q);
  ensure(gpu.z, C.n, "hplai::z");
  ensure(gpu.partial, std::max<std::int64_t>(lr * lbc, 1), "hplai::matvec_partial");
  ensure(gpu.sums, std::max<std::int64_t>(lr, 1), "hplai::matvec_sums");
  upload(space, gpu.z, z.data(), C.n);
  // partial(:, lbj) = A(:, block column lbj) z(block J = lbj Q + q)
  block_column_products(gpu.solvers, lr, A.data(), std::max<std::int64_t>(lr, 1), 0, lbc, gpu.z.data(), C.n, nb, g.Q,
                        g.q, gpu.partial.data());
  if (!sum_blocks) {
    out.resize(static_cast<std::size_t>(lr * lbc));
    download(space, out.data(), gpu.partial, lr * lbc);
    return;
  }
  sum_in_order(space, gpu.partial, lr, lbc, gpu.sums);
  out.resize(static_cast<std::size_t>(lr));
  download(space, out.data(), gpu.sums, lr);
}

template <class T>
void gpu_precond_apply(GpuGrid& gpu, const Grid& g, const BlockCyclic& R, const BlockCyclic& C, std::vector<double>& v) {
  const Cuda& space = gpu.space;
  PrecondBuffers<T>& b = gpu.state<T>().precond;
  const DeviceMatrix<T>& lu = gpu.state<T>().lu;
  GridTransport* const tr = gpu.transport.get();
  const std::int64_t n = R.n, nb = R.nb, blocks = (n + nb - 1) / nb, Q = g.Q, q = g.q;
  const std::int64_t ld = static_cast<std::int64_t>(lu.stride(1));
  const std::int64_t held = C.blocks_held(g.q);
  constexpr bool fp64 = std::is_same_v<T, double>;
  ensure(b.w, n, "hplai::precond_w");
  ensure(b.u, nb, "hplai::precond_u");
  ensure(b.partial, nb * std::max<std::int64_t>(held, 1), "hplai::precond_partial");
  {  // w = T(v), rounded on the host as the host path does
    std::vector<T> w(v.begin(), v.end());
    upload(space, b.w, w.data(), n);
  }
  const auto wv = b.w, uv = b.u, part = b.partial;
  // Block row I: u = w(I) - sum_J LU(I, J) w(J) over J < I (lower) or J > I (upper), then u <- the
  // diagonal block's triangle^-1 u, broadcast to every rank into w(I). Every step is queued on the
  // stream; with NCCL the host never waits until the end.
  for (std::int64_t k = 0; k < 2 * blocks; ++k) {  // forward over I = 0 .. blocks - 1, then backward
    const bool lower = k < blocks;
    const std::int64_t I = lower ? k : 2 * blocks - 1 - k;
    const std::int64_t i0 = I * nb, kb = std::min(nb, n - i0);
    const int pI = static_cast<int>(I % g.P), qI = static_cast<int>(I % g.Q);
    if (g.p == pI) {
      const std::int64_t li0 = R.local(i0);
      const auto [first, last] = C.blocks_beside(I, g.q, lower);
      const std::int64_t count = last - first;
      // uv = this rank's sum of LU(I, J) w(J) over its blocks of the range, in block order (0 for none)
      block_column_products(gpu.solvers, kb, lu.data() + li0, ld, first, count, wv.data(), n, nb, Q, q, part.data());
      sum_in_order(space, part, kb, count, uv);
      if (g.Q > 1) tr->reduce_sum(uv.data(), static_cast<std::size_t>(kb), fp64, qI, true);
      if (g.q == qI) {
        Kokkos::parallel_for(
            "hplai::precond_rhs", tcemu::app::Range64<Cuda>(space, 0, kb),
            KOKKOS_LAMBDA(const std::int64_t r) { uv(r) = wv(i0 + r) - uv(r); });
        gpu.solvers.trsm(true, !lower, lower, kb, 1, lu.data() + li0 + C.local(i0) * ld, ld, uv.data(), kb);
      }
      if (g.Q > 1) tr->bcast(uv.data(), static_cast<std::size_t>(kb) * sizeof(T), qI, true);
    }
    if (g.P > 1) tr->bcast(uv.data(), static_cast<std::size_t>(kb) * sizeof(T), pI, false);
    Kokkos::deep_copy(space, Kokkos::subview(wv, std::make_pair(i0, i0 + kb)),
                      Kokkos::subview(uv, std::make_pair(std::int64_t{0}, kb)));
  }
  std::vector<T> w(static_cast<std::size_t>(n));
  download(space, w.data(), b.w, n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(w[i]);
}

void GpuGridDeleter::operator()(GpuGrid* p) const { delete p; }
GpuGridPtr make_gpu_grid(const Grid& g) { return GpuGridPtr(new GpuGrid(g)); }

void check_gpu_memory(const GpuGrid& gpu, const Grid& g, const BlockCyclic& R, const BlockCyclic& C) {
  const double lr = static_cast<double>(R.local_count(g.p)), lc = static_cast<double>(C.local_count(g.q));
  const double nb = static_cast<double>(R.nb), held_block_columns = static_cast<double>(C.blocks_held(g.q));
  const int sharing = tcemu::app::ranks_on_my_gpu(g.comm, gpu.space.cuda_device());
  std::size_t free_bytes = 0, total_bytes = 0;
  const bool queried = cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
  const double need = sharing * (16 * lr * lc + 8 * (2 * (lr + lc) + nb) * nb + 8 * lr * held_block_columns +
                                 256.0 * (1 << 20));
  char phrase[256];
  if (queried)
    std::snprintf(phrase, sizeof phrase,
                  "its GPU has %.1f GiB free; its blocks in FP64, their factors and buffers need about %.1f GiB (%d "
                  "rank(s) on this GPU): use more GPUs or a smaller --n",
                  static_cast<double>(free_bytes) / (1 << 30), need / (1 << 30), sharing);
  else
    std::snprintf(phrase, sizeof phrase, "cudaMemGetInfo failed");
  const tcemu::app::Shortfall worst = tcemu::app::worst_shortfall(
      g.comm, queried ? need - static_cast<double>(free_bytes) : HUGE_VAL, phrase);
  if (worst.fits) return;
  // hplai's main puts "--n N --seed S: " before the message.
  const std::string run = "--grid " + std::to_string(g.P) + "x" + std::to_string(g.Q) + ": ";
  if (worst.unknown) throw tcemu::DeviceError(run + worst.text);
  throw tcemu::InvalidArgument(run + worst.text);
}
std::string gpu_grid_transport(const GpuGrid& gpu) { return gpu.transport->name(); }

template <class T>
LuStats factor_distributed_gpu(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, const LuOptions& options,
                               double tiny, GpuGrid& gpu) {
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  const Cuda& space = gpu.space;
  const std::int64_t n = R.n, nb = R.nb, blocks = (n + nb - 1) / nb;
  const std::int64_t lr = R.local_count(g.p), lc = C.local_count(g.q), ld = std::max<std::int64_t>(lr, 1);
  const bool scaled = options.scale_operands && wants_scaling<T>(options.gemm.scheme);
  LuStats st;
  const auto start = Clock::now();
  DeviceMatrix<T>& A = gpu.state<T>().lu;
  // One set of factors at a time: the other precision's (an earlier row's) is freed first.
  auto& other = gpu.state<T, true>().lu;
  other = std::remove_reference_t<decltype(other)>();
  ensure_extents(A, lr, lc, "hplai::local_lu_gpu");
  {  // round the FP64 blocks to T (both column-major with leading dimension lr: element by element)
    const DeviceMatrix<double> A64 = gpu.A;
    T* const out = A.data();
    Kokkos::parallel_for(
        "hplai::round", tcemu::app::Range64<Cuda>(space, 0, lr * lc),
        KOKKOS_LAMBDA(const std::int64_t k) { out[k] = static_cast<T>(A64.data()[k]); });
  }
  DenseSolvers<Cuda>& solvers = gpu.solvers;
  GridTransport* const bc = gpu.transport.get();
  // Broadcast buffers: the diagonal block (P > 1), the panel (Q > 1), U12 (P > 1); without a
  // broadcast the panel and U12 are used where they lie in the factors.
  const bool panel_in_place = g.Q == 1, urow_in_place = g.P == 1;
  const Kokkos::View<T*, Kokkos::CudaSpace> diag("hplai::diag", static_cast<std::size_t>(g.P > 1 ? nb * nb : 0)),
      panel("hplai::panel", static_cast<std::size_t>(panel_in_place ? 0 : ld * nb)),
      urow("hplai::urow", static_cast<std::size_t>(urow_in_place ? 0 : nb * std::max<std::int64_t>(lc, 1)));
  T* const a = A.data();
  auto at = [&](std::int64_t i, std::int64_t j) { return a + i + j * ld; };
  for (std::int64_t k = 0; k < blocks; ++k) {
    const auto [k0, kb, rest, pk, qk, rk, rk1, ck, ck1, rows, below, cols] = block_step(g, R, C, k);
    auto t0 = Clock::now();
    // 1. The panel [L11\U11; L21] on the diagonal's process column: with one process row (P = 1) its
    //    rank holds it all and factors it with one getrf, as one process does; otherwise the diagonal
    //    block goes down the column and each rank of it solves its rows of L21 = A21 U11^-1.
    if (g.q == qk) {
      if (g.P == 1) {
        solvers.factor_panel(at(rk, ck), rows, kb, ld, tiny, k0);
      } else {
        if (g.p == pk) {
          solvers.factor_panel(at(rk, ck), kb, kb, ld, tiny, k0);
          pack(space, A, rk, ck, kb, kb, diag.data());
        }
        bc->bcast(diag.data(), static_cast<std::size_t>(kb * kb) * sizeof(T), pk, false);
        if (below > 0) solvers.trsm(false, true, false, below, kb, diag.data(), kb, at(rk1, ck), ld);
      }
      if (!panel_in_place) pack(space, A, rk, ck, rows, kb, panel.data());
    }
    // 2. the panel (leading dimension rows) along the process rows; with Q = 1 it stays in the factors.
    if (g.Q > 1) bc->bcast(panel.data(), static_cast<std::size_t>(rows * kb) * sizeof(T), qk, true);
    T* const l11 = panel_in_place ? at(rk, ck) : panel.data();
    const std::int64_t ldl = panel_in_place ? ld : std::max<std::int64_t>(rows, 1);
    st.seconds_panel += seconds_since(t0);  // the host's time (as on one GPU): the step ends with one wait
    if (rest == 0) {
      if (options.progress) options.progress({k + 1, blocks, k0 + kb, seconds_since(start)});
      continue;
    }
    // 3. U12 = L11^-1 A12 on the diagonal's process row, down the columns (with P = 1 it stays in place).
    t0 = Clock::now();
    if (g.p == pk && cols > 0) {
      solvers.trsm(true, false, true, kb, cols, l11, ldl, at(rk, ck1), ld);
      if (!urow_in_place) pack(space, A, rk, ck1, kb, cols, urow.data());
    }
    if (g.P > 1) bc->bcast(urow.data(), static_cast<std::size_t>(kb * cols) * sizeof(T), pk, false);
    T* const u12 = urow_in_place ? at(rk, ck1) : urow.data();
    const std::int64_t ldu = urow_in_place ? ld : kb;
    st.seconds_solve += seconds_since(t0);
    // 4. A22 -= L21 U12 on the local trailing blocks, operands scaled by the global maxima (lu.hpp);
    //    a scaling of operands that live in the factors is undone after the update, as on one GPU.
    t0 = Clock::now();
    const auto L21 = block(l11 + (rk1 - rk), below, kb, ldl);
    const auto U12 = block(u12, kb, cols, ldu);
    int sl = 0, su = 0;
    if (scaled) {
      const double local[2] = {kernels::absmax(space, L21), kernels::absmax(space, U12)};
      double global[2];
      MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, g.comm);
      sl = operand_scale(global[0]);
      su = operand_scale(global[1]);
      if (sl != 0) kernels::scale(space, L21, static_cast<T>(std::ldexp(1.0, sl)));
      if (su != 0) kernels::scale(space, U12, static_cast<T>(std::ldexp(1.0, su)));
    }
    if (below > 0 && cols > 0) {
      const T alpha = static_cast<T>(-std::ldexp(1.0, -(sl + su)));
      for (std::int64_t c0 = 0; c0 < cols; c0 += kUpdateChunk) {  // bounded accumulators, as on one GPU
        const std::int64_t w = std::min(kUpdateChunk, cols - c0);
        const auto U = block(u12 + c0 * ldu, kb, w, ldu);
        const auto A22 = Kokkos::subview(A, std::make_pair(rk1, lr), std::make_pair(ck1 + c0, ck1 + c0 + w));
        st.gemm.add(tcemu::gemm(space, tcemu::Op::N, tcemu::Op::N, alpha, L21, U, T(1), A22, options.gemm));
      }
    }
    if (panel_in_place && sl != 0) kernels::scale(space, L21, static_cast<T>(std::ldexp(1.0, -sl)));
    if (urow_in_place && su != 0) kernels::scale(space, U12, static_cast<T>(std::ldexp(1.0, -su)));
    ++st.updates;  // one update step of the whole matrix, as on the host grid
    space.fence();
    st.seconds_update += seconds_since(t0);
    if (options.progress) options.progress({k + 1, blocks, k0 + kb, seconds_since(start)});
  }
  // cuSOLVER's getrf does not check pivots: the first zero / non-finite / negligible one of the
  // diagonal entries this rank holds, then the smallest column over the grid.
  const int P = g.P, Q = g.Q, p = g.p, q = g.q;
  const std::int64_t bad_column = kernels::first_bad_diagonal(
      space, n,
      KOKKOS_LAMBDA(std::int64_t i, double& u) {
        const std::int64_t I = i / nb;
        if (I % P != p || I % Q != q) return false;
        u = static_cast<double>(A(I / P * nb + i % nb, I / Q * nb + i % nb));
        return true;
      },
      tiny);
  st.seconds = seconds_since(start);
  const double bad_value =
      bad_column < n ? kernels::element(space, A, R.local(bad_column), C.local(bad_column)) : 0.0;
  agree_on_factorisation(g, R, C, bad_column, bad_value, tiny, st);
  return st;
}

#else

namespace {
/// The device layer's reason (app_common/device.hpp), as the one-process --device check words it.
[[noreturn]] void no_gpu_path() { tcemu::app::throw_gpu_path_missing(tcemu::app::GpuPath::kokkos_cuda, "hplai"); }
}  // namespace

class GpuGrid {};
void GpuGridDeleter::operator()(GpuGrid* p) const { delete p; }
GpuGridPtr make_gpu_grid(const Grid&) { no_gpu_path(); }
void check_gpu_memory(const GpuGrid&, const Grid&, const BlockCyclic&, const BlockCyclic&) { no_gpu_path(); }
std::string gpu_grid_transport(const GpuGrid&) { no_gpu_path(); }

template <class T>
LuStats factor_distributed_gpu(const Grid&, const BlockCyclic&, const BlockCyclic&, const LuOptions&, double, GpuGrid&) {
  no_gpu_path();
}
void upload_local_system(GpuGrid&, const LocalMatrix<double>&) { no_gpu_path(); }
void gpu_matvec(GpuGrid&, const Grid&, const BlockCyclic&, const std::vector<double>&, bool, std::vector<double>&) {
  no_gpu_path();
}
template <class T>
void gpu_precond_apply(GpuGrid&, const Grid&, const BlockCyclic&, const BlockCyclic&, std::vector<double>&) {
  no_gpu_path();
}

#endif

#define HPLAI_GRID_GPU_INSTANTIATE(T)                                                                              \
  template LuStats factor_distributed_gpu<T>(const Grid&, const BlockCyclic&, const BlockCyclic&, const LuOptions&,   \
                                             double, GpuGrid&);                                                      \
  template void gpu_precond_apply<T>(GpuGrid&, const Grid&, const BlockCyclic&, const BlockCyclic&,               \
                                     std::vector<double>&);
HPLAI_GRID_GPU_INSTANTIATE(float)
HPLAI_GRID_GPU_INSTANTIATE(double)
#undef HPLAI_GRID_GPU_INSTANTIATE

}  // namespace hplai::detail
