#pragma once
// Shared by the MPI test programs (test_qsim_mpi, test_hplai_mpi): this rank and the rank count of
// MPI_COMM_WORLD. Their main() is mpi_test_main.cpp.
#include <mpi.h>

namespace mpi_test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

}  // namespace mpi_test
