#pragma once
/// \file distributed.hpp
/// hplai over a P x Q grid of MPI ranks (`hplai --grid PxQ`, docs/scaling.md), the LU on the host or on
/// one GPU per rank (options.device; distributed_factor.hpp), the refinement's vectors on every rank's
/// host (its block products where the factors are).
///
/// Distribution (as HPL-MxP): the n x n matrix is cut into nb x nb blocks; block (I, J) lives on the
/// rank at grid position (I mod P, J mod Q), which stores it as its local block (I div P, J div Q) of
/// one row-major local array. Ranks are numbered row-major over the grid: rank = p Q + q.
/// Each rank generates only its own entries (the generator gives a_ij from its global (i, j) by the
/// LCG's jump-ahead, problem.hpp), so every grid sees the matrix of the one-process run bit for bit.
///
/// LU without pivoting (HPL-MxP's matrix is diagonally dominant), per block column k:
///  1. the rank holding the diagonal block factors it; it goes down its process column (MPI_Bcast on
///     the column communicator) and each rank of that column solves its rows of L21 = A21 U11^-1;
///  2. the panel (local rows of block rows >= k) goes along each process row (row communicator);
///  3. the process row of the diagonal computes its columns of U12 = L11^-1 A12, which go down each
///     process column;
///  4. every rank updates its local trailing blocks, A22 -= L21 U12, with one emulated GEMM
///     (tcemu::gemm on host Views, or on CUDA Views in column chunks on a GPU), with the operand
///     scaling of lu.hpp from global maxima.
/// Refinement: refine_generic (refine_impl.hpp) on FP64 vectors replicated on every rank; the
/// matrix-vector product and the preconditioner's triangular solves work on the local blocks (on the
/// GPU when the LU ran there).
///
/// Reproducibility (host LU): every sum across blocks is formed in a fixed block order at one rank (the
/// collectives only move, or add exactly one nonzero per slot), so the result does not depend on the
/// grid: 1, 2 and 4 ranks give the same solution and scaled residual (tests/mpi/test_hplai_mpi.cpp).
/// The GPU LU's rounding may change with the local shapes (cuBLAS, cuSOLVER, the GEMM kernels): its
/// refined solutions agree to 1e-12, not bit for bit.
///
/// Built only with MPI (TCEMU_WITH_MPI; HPLAI_HAVE_MPI).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>

#include "run.hpp"

namespace hplai {

/// A P x Q process grid over `comm` (row-major rank order) with its row and column communicators
/// (MPI_Comm_split). Throws tcemu::InvalidArgument "--grid PxQ needs P*Q ranks; this run has R"
/// when P * Q differs from the size of comm, or when P or Q < 1.
class Grid {
 public:
  Grid(MPI_Comm comm, int P, int Q);
  ~Grid();
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;

  MPI_Comm comm;            ///< all ranks of the grid
  MPI_Comm row = MPI_COMM_NULL;  ///< the ranks of my process row (rank in it = q)
  MPI_Comm col = MPI_COMM_NULL;  ///< the ranks of my process column (rank in it = p)
  int P = 1, Q = 1;         ///< grid shape
  int p = 0, q = 0;         ///< my position
  int rank = 0;             ///< rank in comm = p Q + q
};

/// Parses "PxQ" (e.g. "2x2"). Throws tcemu::InvalidArgument "--grid <text>: expected PxQ with P, Q >= 1",
/// or "--grid <text>: <P*Q> ranks, more than 2^20" (P*Q stays far from int overflow).
void parse_grid(const std::string& text, int& P, int& Q);

/// The 1D block-cyclic map of n indices in blocks of nb over `procs` processes (one grid dimension).
struct BlockCyclic {
  std::int64_t n = 0, nb = 1;
  int procs = 1;
  /// Number of indices process `proc` holds.
  std::int64_t local_count(int proc) const;
  /// Number of blocks process `proc` holds, and how many of them come before global block `block`.
  std::int64_t blocks_held(int proc) const;
  std::int64_t blocks_before(std::int64_t block, int proc) const;
  /// Local block indices [first, last) of proc's blocks J < block (lower) or J > block (upper).
  std::pair<std::int64_t, std::int64_t> blocks_beside(std::int64_t block, int proc, bool lower) const {
    return lower ? std::make_pair(std::int64_t{0}, blocks_before(block, proc))
                 : std::make_pair(blocks_before(block + 1, proc), blocks_held(proc));
  }
  /// Local index, on the owner, of the first global index of block `block` or of the first later
  /// block it holds (the local start of "blocks >= block"); local_count(proc) when none.
  std::int64_t local_start(std::int64_t block, int proc) const;
  /// Global index of local index `li` of process `proc`.
  std::int64_t global(std::int64_t li, int proc) const { return ((li / nb) * procs + proc) * nb + li % nb; }
  /// Owner of global index i, and its local index there.
  int owner(std::int64_t i) const { return static_cast<int>((i / nb) % procs); }
  std::int64_t local(std::int64_t i) const { return (i / nb) / procs * nb + i % nb; }
};

/// Runs the job of run() (run.hpp) with the generated system (order n, seed) spread over the grid:
/// the baseline row "fp64" is the same distributed LU without pivoting in FP64 with native FP64
/// updates plus refinement (no distributed partial pivoting), then every scheme; the LU on
/// options.device (host or cuda: each rank on its GPU, the broadcasts through NCCL or MPI through host
/// memory, the source line naming which; the blocks uploaded once per run, untimed), the refinement's
/// block products where the factors are.
/// Collective over grid.comm; every rank returns the same RunResult (times: the slowest rank).
/// Throws tcemu::InvalidArgument as run() does (bad --nb, a singular pivot "<scheme>: singular pivot
/// at column j: ...", an unverifiable system), on every rank alike; tcemu::DeviceError for cuda in a
/// build without hplai's GPU path.
RunResult run_distributed(const Grid& grid, std::int64_t n, std::uint64_t seed, const RunOptions& options);

}  // namespace hplai
