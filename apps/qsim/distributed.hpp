#pragma once
/// \file distributed.hpp
/// qsim over MPI ranks on the host backend (built only with MPI: TCEMU_QSIM_HAVE_MPI; docs/scaling.md).
///
/// The 2^n amplitudes are split over R = 2^g ranks: L = n - g qubits are *local* (bit positions
/// 0..L-1 of a rank's slice of 2^L amplitudes) and g are *global* (position L + j = bit j of the rank
/// number), so global index = local index | rank << L when the layout is canonical. A
/// DistributedLayout maps logical qubits to these n physical positions.
///
/// A block whose qubits (targets and controls) are all at local positions is applied to the slice
/// exactly as the one-process host simulator does (apply_blocks_host on the L-qubit slice, qubits
/// renamed to their positions). A block that touches a global qubit first swaps each such qubit with a
/// local qubit outside the block (the local one whose next use lies furthest ahead): a pairwise
/// MPI_Sendrecv of half of each slice with the partner rank (rank XOR 2^j), the qubit remapping of
/// multi-GPU state-vector simulators (qsim's, cuStateVec's). At the end the layout is mapped back to
/// the canonical order (further swaps, then one local permutation).
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <vector>

#include "fusion.hpp"
#include "job.hpp"
#include "simulate.hpp"

namespace qsim {

/// Logical qubit <-> physical position over the ranks: positions 0..local_qubits-1 are bits of the
/// local index, local_qubits + j is bit j of the rank.
struct DistributedLayout {
  int num_qubits = 0, local_qubits = 0;
  std::vector<int> qubit_at;     ///< position -> logical qubit
  std::vector<int> position_of;  ///< logical qubit -> position
  /// Canonical layout (qubit q at position q).
  static DistributedLayout canonical(int num_qubits, int local_qubits);
  bool is_global(int qubit) const { return position_of[static_cast<std::size_t>(qubit)] >= local_qubits; }
};

/// This rank's share of a distributed simulation.
template <class T>
struct DistributedResult {
  /// 2^(n-g) amplitudes, unscaled, canonical order: local index i holds global index i | rank << (n-g).
  std::vector<std::complex<T>> local_state;
  SimStats stats;         ///< this rank's GEMMs and local permutations; seconds = whole simulation
  std::int64_t swaps = 0; ///< global<->local qubit swaps (the same on every rank), final mapping back included
  int ranks = 1, global_qubits = 0;
};

/// log2 of the rank count of `comm` when it is a power of two with global qubits g such that every
/// block still fits the local qubits (g <= n - widest block, widest = targets + controls); else throws
/// tcemu::InvalidArgument with a one-line message ("qsim over MPI: 3 ranks is not a power of two").
int global_qubits_for(MPI_Comm comm, int num_qubits, const std::vector<Block>& blocks);

/// Simulates `blocks` on n qubits from |0...0> over the ranks of `comm` (collective: every rank calls
/// it with the same arguments). Host backend only (options.device is ignored; options.progress is not
/// called). T = float or double. Throws as global_qubits_for() and simulate_host() do, and
/// tcemu::Error when an MPI call fails.
template <class T>
DistributedResult<T> simulate_distributed(const std::vector<Block>& blocks, int num_qubits, const SimOptions& options,
                                          MPI_Comm comm);

/// The full 2^n-amplitude state on rank `root` (empty on the others), from the canonical local slices
/// of 2^L amplitudes each (collective).
template <class T>
std::vector<std::complex<T>> gather_state(const std::vector<std::complex<T>>& local_state, MPI_Comm comm, int root = 0);

/// Sum over ranks of sum_k |psi_k|^2 of the local slices (MPI_Allreduce; the same on every rank).
template <class T>
double distributed_norm2(const std::vector<std::complex<T>>& local_state, MPI_Comm comm);

/// <ref|psi> summed over the ranks (MPI_Allreduce): the slices must be laid out alike. Fidelity is |.|^2.
template <class T>
std::complex<double> distributed_overlap(const std::vector<std::complex<double>>& ref_local,
                                         const std::vector<std::complex<T>>& local_state, MPI_Comm comm);

/// max_k |psi_k - ref_k| over all ranks (MPI_Allreduce).
template <class T>
double distributed_max_abs_error(const std::vector<std::complex<double>>& ref_local,
                                 const std::vector<std::complex<T>>& local_state, MPI_Comm comm);

/// run_job() over the ranks of `comm` (collective; every rank passes the same circuit and config):
/// fp64 reference then every scheme with simulate_distributed(); fidelity, max_amp_err and norm as
/// MPI_Allreduce against the distributed reference. The result is complete on every rank (stats are
/// this rank's); `swaps` (optional) receives the qubit swaps of all runs. Throws
/// tcemu::InvalidArgument for what the distributed path does not do (--device cuda, --amplitudes,
/// --shots, --output's states: cfg.keep_states) and as global_qubits_for() does.
JobResult run_job_distributed(const Circuit& circuit, const RunConfig& config, MPI_Comm comm,
                              std::int64_t* swaps = nullptr);

}  // namespace qsim
