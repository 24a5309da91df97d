#pragma once
/// \file mpi_gpu.hpp
/// Which GPU each MPI rank runs on, for the apps' runs over ranks (qsim's swaps, hplai's broadcasts):
/// NCCL refuses two ranks of one communicator on the same GPU ("Duplicate GPU detected"), so the apps
/// ask before they choose NCCL. Header-only, like mpi_session.hpp: apps/common links neither MPI nor
/// CUDA; it needs an app built with MPI (TCEMU_APPS_HAVE_MPI) and tcemu's CUDA backend (TCEMU_HAVE_CUDA).
#if defined(TCEMU_APPS_HAVE_MPI) && defined(TCEMU_HAVE_CUDA)
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstring>
#include <string>

#include "tcemu/error.hpp"

namespace tcemu::app {

/// True when two ranks of `comm` run on the same GPU: same processor name (MPI_Get_processor_name)
/// and the same PCI bus id of `device` (each rank's CUDA device ordinal). Collective (MPI_Allgather).
/// Throws tcemu::DeviceError when the bus id cannot be read, tcemu::Error when MPI fails.
inline bool ranks_share_a_gpu(MPI_Comm comm, int device) {
  constexpr int kKey = MPI_MAX_PROCESSOR_NAME + 64;
  char key[kKey] = {};
  int len = 0;
  MPI_Get_processor_name(key, &len);
  key[len] = '/';
  if (cudaDeviceGetPCIBusId(key + len + 1, 63, device) != cudaSuccess)
    throw tcemu::DeviceError("cudaDeviceGetPCIBusId failed for device " + std::to_string(device));
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::string all(static_cast<std::size_t>(kKey) * static_cast<std::size_t>(ranks), '\0');
  if (MPI_Allgather(key, kKey, MPI_CHAR, all.data(), kKey, MPI_CHAR, comm) != MPI_SUCCESS)
    throw tcemu::Error("MPI_Allgather failed");
  for (int a = 0; a < ranks; ++a)
    for (int b = a + 1; b < ranks; ++b)
      if (std::strncmp(all.data() + a * kKey, all.data() + b * kKey, kKey) == 0) return true;
  return false;
}

}  // namespace tcemu::app
#endif
