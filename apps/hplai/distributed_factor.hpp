#pragma once
/// \file distributed_factor.hpp
/// What the host run over a process grid (distributed.cpp) and the factorisation on the ranks' GPUs
/// (distributed_cuda.cpp) share: the local matrix type and the GPU factorisation's entry point.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "distributed.hpp"
#include "lu.hpp"

namespace hplai::detail {

/// A rank's local blocks on the host: row-major, local block (I div P, J div Q) at rows (I div P) nb,
/// columns (J div Q) nb (distributed.hpp).
template <class T>
using LocalMatrix = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// Where block column k of the distributed LU (distributed.hpp, steps 1-4) stands on this rank: its
/// global offset k0 and width kb, the order `rest` of the trailing matrix, the grid row pk and
/// column qk of the diagonal block, the local starts of block rows k, k + 1 (rk, rk1) and block
/// columns k, k + 1 (ck, ck1), and the local counts of the panel's rows (rows), of L21's rows (below)
/// and of U12's columns (cols). The same on the host and GPU LUs.
struct BlockStep {
  std::int64_t k0, kb, rest;
  int pk, qk;
  std::int64_t rk, rk1, ck, ck1, rows, below, cols;
};
inline BlockStep block_step(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, std::int64_t k) {
  BlockStep s;
  s.k0 = k * R.nb;
  s.kb = std::min(R.nb, R.n - s.k0);
  s.rest = R.n - s.k0 - s.kb;
  s.pk = static_cast<int>(k % g.P);
  s.qk = static_cast<int>(k % g.Q);
  s.rk = R.local_start(k, g.p);
  s.rk1 = R.local_start(k + 1, g.p);
  s.ck = C.local_start(k, g.q);
  s.ck1 = C.local_start(k + 1, g.q);
  s.rows = R.local_count(g.p) - s.rk;
  s.below = R.local_count(g.p) - s.rk1;
  s.cols = C.local_count(g.q) - s.ck1;
  return s;
}

/// The end of every distributed LU (distributed.cpp): the ranks agree on the first bad pivot (each
/// passes its own first bad column, n for none, and that pivot's value) and throw SingularPivot on
/// every rank for it; otherwise st.gemm.fallbacks becomes the largest count of any rank. Collective.
void agree_on_factorisation(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, std::int64_t bad_column,
                            double bad_value, double tiny, LuStats& st);

/// The distributed LU without pivoting of distributed.hpp (steps 1-4) with each rank's local blocks
/// on its GPU (the one Kokkos chose: by default local rank mod GPU count): `lu` (host, the rounded
/// local blocks on entry) is copied to the GPU in column-major order, the diagonal blocks factored by
/// cuSOLVER's getrf without pivoting, L21 and U12 by cuBLAS trsm, the diagonal block, panel and U12
/// broadcast along the process columns and rows through NCCL (one GPU per rank, where built) or MPI
/// through pinned host memory, and the trailing blocks updated by tcemu::gemm on CUDA Views (in
/// column chunks of kUpdateChunk), operands scaled by the global maxima as on the host. The factors
/// come back into `lu` (the copies both ways are inside the returned times). `gpu`: the run's GPU
/// context (make_gpu_grid). Collective over g.comm. Throws SingularPivot on every rank for the first
/// pivot that is zero, not finite or <= tiny; tcemu::DeviceError in builds without the GPU path.
template <class T>
LuStats factor_distributed_gpu(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, const LocalMatrix<T>& lu,
                               const LuOptions& options, double tiny, class GpuGrid& gpu);

/// What a run's GPU factorisations share, made once per run (collective over g.comm): the dense
/// solvers' library handles and the broadcasts' transport (its NCCL communicators). Opaque outside
/// distributed_cuda.cpp.
class GpuGrid;
struct GpuGridDeleter {
  void operator()(GpuGrid* p) const;
};
using GpuGridPtr = std::unique_ptr<GpuGrid, GpuGridDeleter>;

/// The GPU context of a run over `g`; tcemu::DeviceError in builds without hplai's GPU path.
GpuGridPtr make_gpu_grid(const Grid& g);

/// The broadcasts' transport of `gpu`: "nccl" or "mpi (through host memory)".
std::string gpu_grid_transport(const GpuGrid& gpu);

}  // namespace hplai::detail
