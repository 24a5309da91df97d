#pragma once
/// \file exchange.hpp
/// The transports of qsim's global<->local qubit swaps over MPI ranks (distributed.hpp): a
/// SliceExchange trades one buffer with a partner rank. Three exist:
///   - MPI on host memory (host runs): MPI_Sendrecv;
///   - MPI through host memory (GPU runs whose ranks share a GPU, or TCEMU_QSIM_EXCHANGE=mpi): the
///     device buffer copied to pinned host memory, MPI_Sendrecv, copied back (distributed_cuda.cpp);
///   - NCCL (GPU runs, one GPU per rank, the default there): ncclSend / ncclRecv in one group on the
///     simulation's stream, GPU to GPU (distributed_cuda.cpp).
/// Built only with MPI (TCEMU_QSIM_HAVE_MPI).
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

namespace qsim {

/// One rank's side of a pairwise exchange.
class SliceExchange {
 public:
  virtual ~SliceExchange() = default;
  /// Sends `bytes` bytes at `send` to rank `partner` of the communicator and receives as many from it
  /// into `recv` (both in the memory the transport was made for; they do not overlap). Returns when
  /// `recv` holds the partner's data and `send` may be reused. Throws tcemu::Error when a call fails.
  virtual void exchange(const void* send, void* recv, std::size_t bytes, int partner) = 0;
  /// "mpi", "mpi (through host memory)" or "nccl": for reports.
  virtual std::string name() const = 0;
};

/// Which transport a GPU run uses: `TCEMU_QSIM_EXCHANGE` = auto (unset: NCCL where it is built and no
/// two ranks share a GPU, else MPI through host memory), nccl or mpi. Any other value throws
/// tcemu::InvalidArgument naming it.
enum class ExchangeChoice { automatic, nccl, mpi };
ExchangeChoice exchange_choice_from_environment();

/// exchange_choice_from_environment() agreed on by every rank of `comm` (collective): each rank reads
/// its own environment, and when a value is bad on some rank or differs between ranks every rank
/// throws tcemu::InvalidArgument (rank 0's message when its value is the bad one), so that no rank
/// goes on alone into a transport the others do not make.
ExchangeChoice agreed_exchange_choice(MPI_Comm comm);

/// MPI_Sendrecv of host buffers in messages below 1 GiB (MPI counts are int).
void mpi_exchange_bytes(const void* send, void* recv, std::size_t bytes, int partner, MPI_Comm comm);

/// The transport of host runs: mpi_exchange_bytes on `comm`.
std::unique_ptr<SliceExchange> make_host_exchange(MPI_Comm comm);

/// The transport of GPU runs over `comm` for buffers in the memory of Kokkos::Cuda's default instance
/// (collective; distributed_cuda.cpp): NCCL or MPI through host memory as ExchangeChoice says.
/// Throws tcemu::DeviceError in builds without qsim's GPU path, or for `nccl` in builds without
/// NCCL; tcemu::InvalidArgument for `nccl` when two ranks share a GPU (NCCL refuses that).
std::unique_ptr<SliceExchange> make_gpu_exchange(MPI_Comm comm);

/// True when this build's GPU runs can exchange through NCCL (TCEMU_WITH_NCCL).
bool nccl_built();

}  // namespace qsim
