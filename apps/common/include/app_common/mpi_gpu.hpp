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

/// The key of this rank's GPU (processor name and PCI bus id of CUDA device `device`) for every rank
/// of `comm`, kKeyBytes each, in rank order. Collective (MPI_Allgather). Throws tcemu::DeviceError
/// when the bus id cannot be read (after taking part in the collective), tcemu::Error when MPI fails.
constexpr int kGpuKeyBytes = MPI_MAX_PROCESSOR_NAME + 64;
inline std::string gpu_keys(MPI_Comm comm, int device) {
  char key[kGpuKeyBytes] = {};
  int len = 0;
  MPI_Get_processor_name(key, &len);
  key[len] = '/';
  const bool ok = cudaDeviceGetPCIBusId(key + len + 1, 63, device) == cudaSuccess;
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::string all(static_cast<std::size_t>(kGpuKeyBytes) * static_cast<std::size_t>(ranks), '\0');
  if (MPI_Allgather(key, kGpuKeyBytes, MPI_CHAR, all.data(), kGpuKeyBytes, MPI_CHAR, comm) != MPI_SUCCESS)
    throw tcemu::Error("MPI_Allgather failed");
  if (!ok) throw tcemu::DeviceError("cudaDeviceGetPCIBusId failed for device " + std::to_string(device));
  return all;
}

/// How many ranks of `comm` (this one included) run on this rank's GPU. Collective.
inline int ranks_on_my_gpu(MPI_Comm comm, int device) {
  const std::string all = gpu_keys(comm, device);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int ranks = static_cast<int>(all.size() / kGpuKeyBytes);
  int count = 0;
  for (int r = 0; r < ranks; ++r)
    count += std::strncmp(all.data() + r * kGpuKeyBytes, all.data() + rank * kGpuKeyBytes, kGpuKeyBytes) == 0;
  return count;
}

/// True when two ranks of `comm` run on the same GPU (same processor name, same PCI bus id), which
/// NCCL refuses. Collective; the same answer on every rank.
inline bool ranks_share_a_gpu(MPI_Comm comm, int device) {
  const std::string all = gpu_keys(comm, device);
  const int ranks = static_cast<int>(all.size() / kGpuKeyBytes);
  for (int a = 0; a < ranks; ++a)
    for (int b = a + 1; b < ranks; ++b)
      if (std::strncmp(all.data() + a * kGpuKeyBytes, all.data() + b * kGpuKeyBytes, kGpuKeyBytes) == 0) return true;
  return false;
}

}  // namespace tcemu::app
#endif
