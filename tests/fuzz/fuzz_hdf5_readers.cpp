// libFuzzer targets for the apps' HDF5 readers, one executable per reader (FUZZ_READER selects it):
//   1 knn::load_dataset    (/train, /test, /neighbors, distance attribute)
//   2 kmeans::load_dataset (/data, /labels, /init_centroids)
//   3 hplai::load_system   (/A, /b)
//   4 qsim::load_circuit   (/circuit group, attributes, gate datasets)
// All go through tcemu::app::io::Reader (core/src/io/hdf5.cpp). The HDF5 library reads paths, so the input
// is written to a per-process file (fuzz_util.hpp) and removed after each run.
//
// Expected outcome for bad input: tcemu::Error (IoError / InvalidArgument naming the file). Anything
// else -- a crash or sanitizer report in tcemu's code or in the (uninstrumented) HDF5 library, an
// exception of another type, a timeout, or an allocation above libFuzzer's -malloc_limit_mb (a tiny
// file claiming a huge shape must be rejected, not read) -- is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "tcemu/error.hpp"

#if FUZZ_READER == 1
#include "knn/dataset.hpp"  // knn
#define FUZZ_LOAD(path) (void)knn::load_dataset(path, std::nullopt, 1)
#elif FUZZ_READER == 2
#include "kmeans/dataset.hpp"  // kmeans
#define FUZZ_LOAD(path) (void)kmeans::load_dataset(path)
#elif FUZZ_READER == 3
#include "hplai/problem.hpp"
#define FUZZ_LOAD(path) (void)hplai::load_system(path)
#elif FUZZ_READER == 4
#include "qsim/circuit_h5.hpp"
#define FUZZ_LOAD(path) (void)qsim::load_circuit(path)
#else
#error "FUZZ_READER must be 1..4"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = tcemu_fuzz::write_input(data, size, "input.h5");
  try {
    FUZZ_LOAD(path);
  } catch (const tcemu::Error& e) {
    tcemu_fuzz::expected_error(e);
  }
  tcemu_fuzz::remove_input(path);
  return 0;
}
