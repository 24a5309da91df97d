// qsim on the GPU: the one simulation step (simulate_engine.hpp) instantiated on Kokkos::Cuda, with
// tcemu::cuda::complex_gemm_device as the block GEMM and the in-place bit-indexed kernel
// (tcemu/cuda/bit_gemm.hpp). Needs a Kokkos with the CUDA backend (KOKKOS_ENABLE_CUDA; in such a build
// this .cpp compiles as CUDA, docs/kokkos.md) and tcemu's CUDA backend (TCEMU_HAVE_CUDA); any other
// build gets the one-line errors of gpu_path_missing().
//
// Placements: the block GEMM of the `low` placement (state rows x 2^s times U^T, row-major, real
// alpha and beta, separate buffers) is the real-embedding case of complex_gemm_device (one real GEMM
// instead of 4M's four plus a combine); `high` (U times the state) is not, so while the embedding is
// in use (TCEMU_CUDA_COMPLEX unset, auto or embed) dense blocks are planned `low` only and a block
// whose qubits sit at the top positions is permuted down first. TCEMU_CUDA_COMPLEX=4m restores 4M
// with `high` placements. docs/qsim.md explains the trade.
//
// In-place blocks: with fp16x2-aligned on complex64, a dense block of 4-6 qubits runs through the
// bit-indexed kernel, which reads the block's rows where they lie in the current layout and writes
// them to the same positions: no permutation, one pass over the state. When the kernel declines (a
// row breaks a range rule) the block takes the permute + GEMM path. TCEMU_QSIM_IN_PLACE=off sends
// every block through that path (for comparison). In single-buffer mode (simulate.hpp) the kernel
// writes the vector it reads (y == x), and past 32 qubits it runs per 2^32-amplitude segment for
// blocks whose positions lie below bit 32 (the others take the chunked GEMM path).
#include <Kokkos_Core.hpp>

#include "simulate.hpp"
#include "tcemu/error.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "block_gemm_cuda.hpp"
#include "simulate_engine.hpp"
#endif

namespace qsim {

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)

namespace engine {
TCEMU_QSIM_ENGINE_INSTANCES(, Kokkos::Cuda, float)
TCEMU_QSIM_ENGINE_INSTANCES(, Kokkos::Cuda, double)
}  // namespace engine

bool gpu_path_built() { return true; }

double free_device_memory_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  const cudaError_t e = cudaMemGetInfo(&free_bytes, &total_bytes);
  if (e != cudaSuccess) throw tcemu::DeviceError(std::string("qsim: cudaMemGetInfo failed: ") + cudaGetErrorString(e));
  return static_cast<double>(free_bytes);
}

template <class T>
SimResult<T> simulate_cuda(const std::vector<Block>& blocks, int n, const SimOptions& options) {
  const BufferMode mode = choose_buffers<T>(n, free_device_memory_bytes(), options.buffers, options.chunk_elements);
  return engine::simulate_on<Kokkos::Cuda, T>(Kokkos::Cuda(), blocks, n, options, mode);
}

#else

namespace {
[[noreturn]] void gpu_path_missing() {
#if !defined(TCEMU_HAVE_CUDA)
  throw tcemu::DeviceError("--device cuda: this build of qsim has no CUDA backend (TCEMU_ENABLE_CUDA=OFF)");
#else
  throw tcemu::DeviceError(
      "--device cuda: qsim's GPU path needs a Kokkos with the CUDA backend, and this build's Kokkos has none "
      "(configure with -DKokkos_ROOT=<a CUDA-enabled Kokkos 4>, docs/kokkos.md)");
#endif
}
}  // namespace

bool gpu_path_built() { return false; }

double free_device_memory_bytes() { gpu_path_missing(); }

template <class T>
SimResult<T> simulate_cuda(const std::vector<Block>&, int, const SimOptions&) {
  gpu_path_missing();
}

#endif

template SimResult<float> simulate_cuda<float>(const std::vector<Block>&, int, const SimOptions&);
template SimResult<double> simulate_cuda<double>(const std::vector<Block>&, int, const SimOptions&);

}  // namespace qsim
