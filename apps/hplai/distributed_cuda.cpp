// hplai over a P x Q process grid on the ranks' GPUs: factor_distributed_gpu (distributed_factor.hpp).
// Compiled as CUDA in builds whose Kokkos has the CUDA backend and tcemu its CUDA backend; elsewhere
// the entry point throws the one-line error of a build without the GPU path.
#include "dense.hpp"  // HPLAI_HAVE_CUDA_KOKKOS
#include "distributed_factor.hpp"
#include "tcemu/error.hpp"

#if defined(HPLAI_HAVE_CUDA_KOKKOS)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

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

/// Largest MPI message in bytes (MPI counts are int).
constexpr std::size_t kMaxMessageBytes = std::size_t(1) << 30;

/// Broadcasts of device buffers along the grid's process rows or columns.
class GridBroadcast {
 public:
  virtual ~GridBroadcast() = default;
  /// `bytes` at `buf` (device memory) from rank `root` of this rank's process row (along_row) or
  /// column to the others of it, in place; returns when `buf` holds them. Collective over that
  /// row or column.
  virtual void bcast(void* buf, std::size_t bytes, int root, bool along_row) = 0;
  virtual std::string name() const = 0;
};

/// MPI_Bcast of a pinned host copy: the root copies its buffer to the host, the others copy the
/// received bytes to theirs.
class StagedBroadcast final : public GridBroadcast {
 public:
  StagedBroadcast(const Grid& g, const Cuda& space) : g_(g), space_(space) {}
  void bcast(void* buf, std::size_t bytes, int root, bool along_row) override {
    using Bytes = Kokkos::View<char*, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;
    if (bytes == 0) return;
    const MPI_Comm comm = along_row ? g_.row : g_.col;
    const bool is_root = (along_row ? g_.q : g_.p) == root;
    if (host_.extent(0) < bytes) {
      host_ = Pinned();
      host_ = Pinned(Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::stage"), bytes);
    }
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
class NcclBroadcast final : public GridBroadcast {
 public:
  NcclBroadcast(const Grid& g, const Cuda& space)
      : stream_(space.cuda_stream()),
        row_(tcemu::app::nccl_comm_over(g.row, "hplai")),
        col_(tcemu::app::nccl_comm_over(g.col, "hplai")) {}
  ~NcclBroadcast() override {
    ncclCommDestroy(row_);
    ncclCommDestroy(col_);
  }
  NcclBroadcast(const NcclBroadcast&) = delete;
  NcclBroadcast& operator=(const NcclBroadcast&) = delete;
  void bcast(void* buf, std::size_t bytes, int root, bool along_row) override {
    if (bytes == 0) return;
    tcemu::app::check_nccl(ncclBroadcast(buf, buf, bytes, ncclChar, root, along_row ? row_ : col_, stream_), "hplai",
                           "ncclBroadcast");
    const cudaError_t e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess) throw tcemu::DeviceError(std::string("hplai over NCCL: ") + cudaGetErrorString(e));
  }
  std::string name() const override { return "nccl"; }

 private:
  cudaStream_t stream_;
  ncclComm_t row_ = nullptr, col_ = nullptr;
};
#endif

/// NCCL where it is built and no two ranks share a GPU (NCCL refuses that), else MPI through pinned
/// host memory. Collective over g.comm.
std::unique_ptr<GridBroadcast> make_broadcast(const Grid& g, const Cuda& space) {
  const bool shared = tcemu::app::ranks_share_a_gpu(g.comm, space.cuda_device());
#if defined(HPLAI_HAVE_NCCL)
  if (!shared) return std::make_unique<NcclBroadcast>(g, space);
#endif
  (void)shared;
  return std::make_unique<StagedBroadcast>(g, space);
}

/// buf (column-major, leading dimension rows) = A(r0 .. r0+rows, c0 .. c0+cols).
template <class T>
void pack(const Cuda& space, const DeviceMatrix<T>& A, std::int64_t r0, std::int64_t c0, std::int64_t rows,
          std::int64_t cols, T* buf) {
  if (rows <= 0 || cols <= 0) return;
  Kokkos::parallel_for(
      "hplai::pack", Kokkos::RangePolicy<Cuda, Kokkos::IndexType<std::int64_t>>(space, 0, rows * cols),
      KOKKOS_LAMBDA(const std::int64_t k) { buf[k] = A(r0 + k % rows, c0 + k / rows); });
}

/// A rows x cols column-major block at `p` with leading dimension ld, as a View.
template <class T>
DeviceBlock<T> block(T* p, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  return DeviceBlock<T>(p, Kokkos::LayoutStride(static_cast<std::size_t>(rows), 1, static_cast<std::size_t>(cols),
                                                static_cast<std::size_t>(ld)));
}

}  // namespace

class GpuGrid {
 public:
  explicit GpuGrid(const Grid& g) : solvers(space), broadcast(make_broadcast(g, space)) {}
  Cuda space;
  DenseSolvers<Cuda> solvers;
  std::unique_ptr<GridBroadcast> broadcast;
};

void GpuGridDeleter::operator()(GpuGrid* p) const { delete p; }
GpuGridPtr make_gpu_grid(const Grid& g) { return GpuGridPtr(new GpuGrid(g)); }
std::string gpu_grid_transport(const GpuGrid& gpu) { return gpu.broadcast->name(); }

template <class T>
LuStats factor_distributed_gpu(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, const LocalMatrix<T>& lu,
                               const LuOptions& options, double tiny, GpuGrid& gpu) {
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  const Cuda& space = gpu.space;
  const std::int64_t n = R.n, nb = R.nb, blocks = (n + nb - 1) / nb;
  const std::int64_t lr = R.local_count(g.p), lc = C.local_count(g.q), ld = std::max<std::int64_t>(lr, 1);
  const bool scaled = options.scale_operands && wants_scaling<T>(options.gemm.scheme);
  LuStats st;
  const auto start = Clock::now();
  DeviceMatrix<T> A(Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::local_lu_gpu"), lr, lc);
  {  // row-major host blocks -> column-major device blocks
    auto left = Kokkos::create_mirror_view(A);
    Kokkos::deep_copy(left, lu);
    Kokkos::deep_copy(space, A, left);
    space.fence();
  }
  DenseSolvers<Cuda>& solvers = gpu.solvers;
  GridBroadcast* const bc = gpu.broadcast.get();
  const Kokkos::View<T*, Kokkos::CudaSpace> diag("hplai::diag", static_cast<std::size_t>(nb * nb)),
      panel("hplai::panel", static_cast<std::size_t>(ld * nb)),
      urow("hplai::urow", static_cast<std::size_t>(nb * std::max<std::int64_t>(lc, 1)));
  T* const a = A.data();
  auto at = [&](std::int64_t i, std::int64_t j) { return a + i + j * ld; };
  for (std::int64_t k = 0; k < blocks; ++k) {
    const auto [k0, kb, rest, pk, qk, rk, rk1, ck, ck1, rows, below, cols] = block_step(g, R, C, k);
    auto t0 = Clock::now();
    // 1. the diagonal block, down the process column; L21 = A21 U11^-1 on the column's ranks.
    if (g.q == qk) {
      if (g.p == pk) {
        solvers.factor_panel(at(rk, ck), kb, kb, ld, tiny, k0);
        pack(space, A, rk, ck, kb, kb, diag.data());
      }
      if (g.P > 1) {
        space.fence();
        bc->bcast(diag.data(), static_cast<std::size_t>(kb * kb) * sizeof(T), pk, false);
      }
      if (below > 0) solvers.trsm(false, true, false, below, kb, diag.data(), kb, at(rk1, ck), ld);
      pack(space, A, rk, ck, rows, kb, panel.data());
    }
    // 2. the panel (leading dimension rows) along the process rows.
    if (g.Q > 1) {
      space.fence();
      bc->bcast(panel.data(), static_cast<std::size_t>(rows * kb) * sizeof(T), qk, true);
    }
    space.fence();
    st.seconds_panel += seconds_since(t0);
    if (rest == 0) {
      if (options.progress) options.progress({k + 1, blocks, k0 + kb, seconds_since(start)});
      continue;
    }
    // 3. U12 = L11^-1 A12 on the diagonal's process row (L11: the panel's top kb rows), down the columns.
    t0 = Clock::now();
    if (g.p == pk && cols > 0) {
      solvers.trsm(true, false, true, kb, cols, panel.data(), rows, at(rk, ck1), ld);
      pack(space, A, rk, ck1, kb, cols, urow.data());
    }
    if (g.P > 1) {
      space.fence();
      bc->bcast(urow.data(), static_cast<std::size_t>(kb * cols) * sizeof(T), pk, false);
    }
    space.fence();
    st.seconds_solve += seconds_since(t0);
    // 4. A22 -= L21 U12 on the local trailing blocks, operands scaled by the global maxima (lu.hpp).
    t0 = Clock::now();
    const auto L21 = block(panel.data() + (rk1 - rk), below, kb, std::max<std::int64_t>(rows, 1));
    const auto U12 = block(urow.data(), kb, cols, kb);
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
        const auto U = block(urow.data() + c0 * kb, kb, w, kb);
        const auto A22 = Kokkos::subview(A, std::make_pair(rk1, lr), std::make_pair(ck1 + c0, ck1 + c0 + w));
        st.gemm.add(tcemu::gemm(space, tcemu::Op::N, tcemu::Op::N, alpha, L21, U, T(1), A22, options.gemm));
      }
    }
    ++st.updates;  // one update step of the whole matrix, as on the host grid
    space.fence();
    st.seconds_update += seconds_since(t0);
    if (options.progress) options.progress({k + 1, blocks, k0 + kb, seconds_since(start)});
  }
  {  // the factors back to the host, row-major
    auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A);
    Kokkos::deep_copy(lu, left);
  }
  st.seconds = seconds_since(start);
  // cuSOLVER's getrf does not check pivots: the first zero / non-finite / negligible one of the
  // diagonal entries this rank holds, then the smallest column over the grid.
  std::int64_t bad_column = n;
  double bad_value = 0;
  for (std::int64_t i = 0; i < n && bad_column == n; ++i) {
    if (R.owner(i) != g.p || C.owner(i) != g.q) continue;
    const double u = static_cast<double>(lu(R.local(i), C.local(i)));
    if (!(std::fabs(u) > tiny) || !std::isfinite(u)) {
      bad_column = i;
      bad_value = u;
    }
  }
  agree_on_factorisation(g, R, C, bad_column, bad_value, tiny, st);
  return st;
}

#else

namespace {
[[noreturn]] void no_gpu_path() {
  throw tcemu::DeviceError(
      "--device cuda: this build of hplai has no GPU path (tcemu's CUDA backend and a CUDA-enabled Kokkos, "
      "docs/kokkos.md)");
}
}  // namespace

class GpuGrid {};
void GpuGridDeleter::operator()(GpuGrid* p) const { delete p; }
GpuGridPtr make_gpu_grid(const Grid&) { no_gpu_path(); }
std::string gpu_grid_transport(const GpuGrid&) { no_gpu_path(); }

template <class T>
LuStats factor_distributed_gpu(const Grid&, const BlockCyclic&, const BlockCyclic&, const LocalMatrix<T>&,
                               const LuOptions&, double, GpuGrid&) {
  no_gpu_path();
}

#endif

template LuStats factor_distributed_gpu<float>(const Grid&, const BlockCyclic&, const BlockCyclic&,
                                               const LocalMatrix<float>&, const LuOptions&, double, GpuGrid&);
template LuStats factor_distributed_gpu<double>(const Grid&, const BlockCyclic&, const BlockCyclic&,
                                                const LocalMatrix<double>&, const LuOptions&, double, GpuGrid&);

}  // namespace hplai::detail
