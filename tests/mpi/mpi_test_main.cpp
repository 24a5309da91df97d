// main() of the MPI test programs: MPI and Kokkos around GoogleTest, one report (rank 0's), and an
// exit status that fails when any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>

#include "mpi_test_util.hpp"

int main(int argc, char** argv) {
  setenv("TCEMU_AUTO_CALIBRATE", "0", /*overwrite=*/0);
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    if (mpi_test::world_rank() != 0) {  // one report, from rank 0; the exit status is every rank's
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
    }
    failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return failed;
}
