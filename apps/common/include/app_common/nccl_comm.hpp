#pragma once
/// \file nccl_comm.hpp
/// NCCL communicators over MPI communicators, for the apps' GPU runs over ranks (qsim's swaps, hplai's
/// broadcasts). Header-only like mpi_session.hpp: apps/common links neither MPI nor NCCL; an app
/// built with both defines TCEMU_APPS_HAVE_MPI and TCEMU_APPS_HAVE_NCCL (its CMakeLists).
#if defined(TCEMU_APPS_HAVE_MPI) && defined(TCEMU_APPS_HAVE_NCCL)
#include <mpi.h>
#include <nccl.h>

#include <string>

#include "tcemu/error.hpp"

namespace tcemu::app {

/// Throws tcemu::Error "<who> over NCCL: <what> failed: <NCCL's text>" unless rc is ncclSuccess.
inline void check_nccl(ncclResult_t rc, const char* who, const char* what) {
  if (rc != ncclSuccess)
    throw tcemu::Error(std::string(who) + " over NCCL: " + what + " failed: " + ncclGetErrorString(rc));
}

/// An NCCL communicator over the ranks of `comm`, each on its current CUDA device (rank order kept):
/// rank 0's unique id goes to the others by MPI_Bcast. Collective. Throws as check_nccl does
/// (`who` names the app), tcemu::Error when MPI fails.
inline ncclComm_t nccl_comm_over(MPI_Comm comm, const char* who) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  ncclUniqueId id;
  if (rank == 0) check_nccl(ncclGetUniqueId(&id), who, "ncclGetUniqueId");
  if (MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm) != MPI_SUCCESS)
    throw tcemu::Error(std::string(who) + " over MPI: MPI_Bcast failed");
  ncclComm_t c = nullptr;
  check_nccl(ncclCommInitRank(&c, ranks, id, rank), who, "ncclCommInitRank");
  return c;
}

}  // namespace tcemu::app
#endif
