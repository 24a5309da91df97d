#pragma once
/// \file distributed_factor.hpp
/// What the host run over a process grid (distributed.cpp) and the factorisation on the ranks' GPUs
/// (distributed_cuda.cpp) share: the local matrix type and the GPU factorisation's entry point.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

/// What a run's GPU work shares, made once per run (collective over g.comm): the dense solvers'
/// library handles, the broadcasts' transport (its NCCL communicators), the rank's FP64 blocks and
/// factors on its GPU and the refinement's device buffers. Opaque outside distributed_cuda.cpp.
class GpuGrid;

/// The distributed LU without pivoting of distributed.hpp (steps 1-4) with each rank's local blocks
/// on its GPU (the one Kokkos chose: by default local rank mod GPU count): the FP64 blocks that
/// upload_local_system put there are rounded to T into the GpuGrid's factors (column-major), the
/// diagonal blocks factored by cuSOLVER's getrf without pivoting (with one process row, P = 1, the
/// whole panel [A11; A21] in one getrf, as one process does), L21 and U12 by cuBLAS trsm, the
/// diagonal block, panel and U12 broadcast along the process columns and rows through NCCL (one GPU
/// per rank, where built; queued on the stream) or MPI through pinned host memory (the panel used in
/// place when Q = 1, U12 when P = 1), and the trailing
/// blocks updated by tcemu::gemm on CUDA Views (in column chunks of kUpdateChunk), operands scaled by
/// the global maxima as on the host. The factors stay on the GPU for the refinement (gpu_precond_*);
/// the rounding is inside the returned time, the upload is not. Collective over g.comm. Throws
/// SingularPivot on every rank for the first pivot that is zero, not finite or <= tiny;
/// tcemu::DeviceError in builds without the GPU path.
template <class T>
LuStats factor_distributed_gpu(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, const LuOptions& options,
                               double tiny, GpuGrid& gpu);

/// Copies this rank's FP64 local blocks `A` (host, row-major) to its GPU, column-major, once per run:
/// the source of every row's factors and the refinement's matrix (8 bytes per local entry of GPU
/// memory, plus as much again during the copy; each row's factors add 4 or 8 more).
void upload_local_system(GpuGrid& gpu, const LocalMatrix<double>& A);

/// The refinement's mat-vec on the GPU: with the uploaded local blocks A (lr x lc) and z (all n
/// entries, host), the partial sums s(li, lbj) = sum over the columns c of local block column lbj of
/// A(li, lbj nb + c) z(J nb + c) (J = lbj Q + q, the block's global index; cuBLAS gemv, one per block
/// column). `out`: with sum_blocks (the rank holds every block column, Q = 1) the lr sums over lbj in
/// block order, else the lr x held partials, column-major (s(li, lbj) at lbj lr + li).
void gpu_matvec(GpuGrid& gpu, const Grid& g, const BlockCyclic& C, const std::vector<double>& z, bool sum_blocks,
                std::vector<double>& out);

/// v <- U^-1 L^-1 v (the refinement's preconditioner; v: all n entries, host, on every rank) with the
/// factors of the last factor_distributed_gpu<T> on this rank's GPU, in T (v rounded to T first, as
/// the host path does). Block row by block row, forward then backward, on the GPU: each rank of the
/// block row's process row sums its products LU(I, J) w(J) (cuBLAS batched gemv, one per block column
/// J, summed in J order), the row's sums are added at the diagonal's rank (the transport's reduce),
/// which subtracts them from w(I) and solves with the diagonal block (trsm); the result goes along the
/// row and down every column (broadcasts). With NCCL every step is queued on the stream and the host
/// waits once, at the end. Collective over g.comm.
template <class T>
void gpu_precond_apply(GpuGrid& gpu, const Grid& g, const BlockCyclic& R, const BlockCyclic& C, std::vector<double>& v);

struct GpuGridDeleter {
  void operator()(GpuGrid* p) const;
};
using GpuGridPtr = std::unique_ptr<GpuGrid, GpuGridDeleter>;

/// The GPU context of a run over `g`; tcemu::DeviceError in builds without hplai's GPU path.
GpuGridPtr make_gpu_grid(const Grid& g);

/// The broadcasts' transport of `gpu`: "nccl" or "mpi (through host memory)".
std::string gpu_grid_transport(const GpuGrid& gpu);

/// Checks, before anything large is allocated, that this rank's GPU can hold what a GPU grid run
/// puts there: about 16 bytes per local entry of the R x C block-cyclic matrix (the FP64 blocks plus
/// a row's factors, or the upload's staging copy), the broadcast and update buffers (8 (2 (lr + lc)
/// + nb) nb bytes), the refinement's partial sums and 256 MiB of library workspace, times the ranks
/// that share the GPU (ranks_on_my_gpu), against cudaMemGetInfo's free bytes. Not counted: the
/// emulated GEMM's own workspace of the Ozaki schemes (int8-ozaki, int8-crt: INT32 accumulators up
/// to GemmOptions' ozaki_accumulator_bytes, residue panels), which may still fail to allocate.
/// Collective over g.comm: when some rank's GPU falls short every rank throws the same
/// tcemu::InvalidArgument, "--grid PxQ: rank r's GPU has F GiB free; ... need about X GiB ..." with
/// the numbers of the rank short by the most (tcemu::DeviceError when its cudaMemGetInfo failed), so
/// no rank is left waiting in a collective; tcemu::DeviceError in builds without the GPU path.
void check_gpu_memory(const GpuGrid& gpu, const Grid& g, const BlockCyclic& R, const BlockCyclic& C);

}  // namespace hplai::detail
