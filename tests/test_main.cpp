// GoogleTest main shared by every suite: Kokkos must be initialised before any tcemu call.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>

int main(int argc, char** argv) {
  // `auto` on the GPU keeps the H200 anchors in the tests unless the caller says otherwise (no
  // cost-model measurement, no cache file; tcemu/cuda/calibrate.hpp). Inherited by the apps the
  // tests run.
  setenv("TCEMU_AUTO_CALIBRATE", "0", /*overwrite=*/0);
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
