#pragma once
/// \file distributed.hpp
/// qsim over MPI ranks, on the host or on one GPU per rank (built only with MPI: TCEMU_QSIM_HAVE_MPI;
/// docs/scaling.md).
///
/// The 2^n amplitudes are split over R = 2^g ranks: L = n - g qubits are *local* (bit positions
/// 0..L-1 of a rank's slice of 2^L amplitudes) and g are *global* (position L + j = bit j of the rank
/// number), so global index = local index | rank << L when the layout is canonical. A
/// DistributedLayout maps logical qubits to these n physical positions.
///
/// A block whose qubits (targets and controls) are all at local positions is applied to the slice
/// exactly as the one-process simulator does (the engine's apply_blocks on the L-qubit slice, qubits
/// renamed to their positions). A block that touches a global qubit first swaps each such qubit with a
/// local qubit outside the block (the local one whose next use lies furthest ahead): half of each
/// slice traded with the partner rank (rank XOR 2^j) through a SliceExchange (exchange.hpp: MPI on
/// the host, NCCL or MPI through host memory on GPUs), the qubit remapping of multi-GPU state-vector
/// simulators (qsim's, cuStateVec's). At the end the layout is mapped back to the canonical order
/// (further swaps, then local position swaps). plan_distributed() decides all of it before the run;
/// distributed_engine.hpp runs the plan on any Kokkos execution space.
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exchange.hpp"
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

/// One step of a distributed simulation: a run of blocks whose qubits are all local (renamed to their
/// local positions), or the swap of global position `global_pos` with local position `local_pos`.
struct DistributedStep {
  enum class Kind { local_blocks, swap };
  Kind kind = Kind::local_blocks;
  std::vector<Block> blocks;  ///< local_blocks: qubits and controls are local positions
  int global_pos = -1, local_pos = -1;  ///< swap
};

/// Everything a distributed simulation does, decided before it runs (plan_distributed).
struct DistributedPlan {
  int num_qubits = 0, global_qubits = 0;
  std::vector<DistributedStep> steps;  ///< in order; the swaps mapping the global qubits back included
  /// Position pairs (a, b) of the local slice, swapped in this order after the steps, that put it in
  /// canonical order (qubit p at local position p).
  std::vector<std::pair<int, int>> local_swaps;
  std::int64_t swaps = 0;  ///< global<->local swaps among the steps
};

/// The plan of `blocks` on n qubits over 2^g ranks (g = global_qubits, every block must fit the n - g
/// local qubits: global_qubits_for): consecutive local blocks form one step; each global qubit of a
/// block is first swapped with the local qubit (outside the block) whose next use lies furthest ahead;
/// at the end each global position p gets qubit p back (through local position 0 when qubit p sits at
/// another global position) and local swaps sort the rest. Pure: the same on every rank. Throws
/// tcemu::InvalidArgument when a block names a qubit outside [0, n) or does not fit the local qubits.
DistributedPlan plan_distributed(const std::vector<Block>& blocks, int num_qubits, int global_qubits);

/// This rank's share of a distributed simulation.
template <class T>
struct DistributedResult {
  /// 2^(n-g) amplitudes, unscaled, canonical order: local index i holds global index i | rank << (n-g).
  /// In host memory also for GPU runs (copied back at the end), which leave it empty when
  /// SimOptions::download is false.
  std::vector<std::complex<T>> local_state;
  /// This rank's GEMMs, local permutations and exchanges (seconds_exchange); seconds = whole simulation.
  SimStats stats;
  /// Over all ranks: norm, and against SimOptions::reference (this rank's slice of the reference,
  /// 2^(n-g) amplitudes) fidelity and max amplitude error; NaN for those without a reference.
  Accuracy accuracy;
  std::int64_t swaps = 0; ///< global<->local qubit swaps (the same on every rank), final mapping back included
  int ranks = 1, global_qubits = 0;
  std::string exchange;   ///< the transport of the swaps (SliceExchange::name)
};

/// log2 of the rank count of `comm` when it is a power of two with global qubits g such that every
/// block still fits the local qubits (g <= n - widest block, widest = targets + controls); else throws
/// tcemu::InvalidArgument with a one-line message ("qsim over MPI: 3 ranks is not a power of two").
int global_qubits_for(MPI_Comm comm, int num_qubits, const std::vector<Block>& blocks);

/// Simulates `blocks` on n qubits from |0...0> over the ranks of `comm` (collective: every rank calls
/// it with the same arguments) on options.device: host (MPI exchanges) or cuda (the GPU Kokkos chose
/// for this rank, normally local rank mod GPU count; exchanges as exchange_choice_from_environment()
/// says). options.progress is not called. T = float or double. Throws as global_qubits_for() and
/// simulate_host() do; tcemu::InvalidArgument on every rank when a rank's slice does not fit its
/// GPU's free memory; tcemu::DeviceError for cuda in a build without qsim's GPU path (or without
/// NCCL when TCEMU_QSIM_EXCHANGE=nccl); tcemu::Error when an MPI or NCCL call fails.
/// `exchange` (optional): the transport to use, made for options.device's memory (make_host_exchange,
/// make_gpu_exchange) and reused across runs; null: one is made for this run.
template <class T>
DistributedResult<T> simulate_distributed(const std::vector<Block>& blocks, int num_qubits, const SimOptions& options,
                                          MPI_Comm comm, SliceExchange* exchange = nullptr);

/// simulate_distributed() on the GPU (distributed_cuda.cpp); `plan` from plan_distributed().
template <class T>
DistributedResult<T> simulate_distributed_cuda(const DistributedPlan& plan, const SimOptions& options, MPI_Comm comm,
                                               SliceExchange* exchange = nullptr);

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

/// sample_states() of the whole state from the canonical slices of all ranks (collective): every rank
/// draws the same seeded uniforms times the sum of the slices' |psi_k|^2 (MPI_Allgather of one double
/// per rank), answers those that fall within its slice's share of the running sum (sweep_slice,
/// state_metrics.hpp) and rank `root` gathers the answers (MPI_Gatherv). Returns the `shots` basis
/// indices in draw order on `root`, nothing on the others. They equal sample_states() of the gathered
/// state up to the rounding of the running sums: a slice's sweep starts from the earlier slices'
/// blocked sums (norm_squared) where one process carries one running sum (the two differ by at most
/// the running sum's rounding, 2^n 2^-53 relative in the worst case), so a draw that close to a
/// boundary may answer differently. Throws
/// tcemu::Error when an MPI call fails, tcemu::InvalidArgument when shots exceeds INT_MAX.
template <class T>
std::vector<std::uint64_t> distributed_samples(const std::vector<std::complex<T>>& local_state, std::int64_t shots,
                                               std::uint64_t seed, MPI_Comm comm, int root = 0);

/// The amplitudes of global basis indices `indices` (each below ranks x 2^L) from the canonical slices
/// of 2^L amplitudes: each is read on the rank that holds it and summed over the ranks
/// (MPI_Allreduce, exact: the other ranks add zeros). The same on every rank, in the order given.
/// Throws tcemu::InvalidArgument for an index at or beyond ranks x 2^L, tcemu::Error when MPI fails.
template <class T>
std::vector<std::complex<double>> distributed_amplitudes(const std::vector<std::complex<T>>& local_state,
                                                         const std::vector<std::uint64_t>& indices, MPI_Comm comm);

/// run_job() over the ranks of `comm` (collective; every rank passes the same circuit and config):
/// fp64 reference then every scheme with simulate_distributed(); fidelity, max_amp_err and norm as
/// MPI_Allreduce against the distributed reference, on config.device (host or cuda); amplitudes
/// (distributed_amplitudes) on every rank; samples (distributed_samples, with samples_differing) and
/// the states of config.keep_states (gather_state, n <= kMaxSavedStateQubits) on rank 0 only. The rest
/// of the result is complete on every rank (stats are this rank's); `swaps` (optional) receives the
/// qubit swaps of all runs and `exchange` (optional) their transport. Runs that report amplitudes,
/// samples or states bring their slices to host memory. Throws tcemu::InvalidArgument for what the
/// distributed path does not do (config.reference false, a buffer mode other than automatic), for an
/// amplitude bitstring of the wrong length, and as global_qubits_for() and simulate_distributed() do.
JobResult run_job_distributed(const Circuit& circuit, const RunConfig& config, MPI_Comm comm,
                              std::int64_t* swaps = nullptr, std::string* exchange = nullptr);

}  // namespace qsim
