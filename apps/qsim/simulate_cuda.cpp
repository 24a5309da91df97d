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

#include "auto_config.hpp"
#include "permute_cuda.hpp"
#include "simulate_engine.hpp"
#include "tcemu/cuda/bit_gemm.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#endif

namespace qsim {

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)

namespace engine {

/// The GPU's block GEMM: complex_gemm_device on the instance's stream (cuBLAS CGEMM / ZGEMM for the
/// native schemes unless TCEMU_QSIM_NATIVE=tcemu), the bit-indexed kernel for in-place blocks, and
/// the hand-written tiled permutation (permute_cuda.hpp; measured faster than the Kokkos team kernel,
/// which TCEMU_QSIM_PERMUTE=kokkos selects).
template <class T>
struct BlockGemm<Kokkos::Cuda, T> {
  using C = Kokkos::complex<T>;
  using SC = std::complex<T>;
  const SimOptions& options;
  tcemu::cuda::Stream stream;
  tcemu::cuda::Workspace& ws = tcemu::cuda::default_workspace();
  tcemu::cuda::ComplexMethod method;
  tcemu::cuda::BitGemm bit_gemm;

  BlockGemm(const Kokkos::Cuda& space, const SimOptions& o) : options(o), stream(space.cuda_stream()) {
    // One method for the whole run (the environment is read once). Native schemes run cuBLAS CGEMM /
    // ZGEMM (ComplexMethod::blas), the baseline of docs/qsim.md; TCEMU_QSIM_NATIVE=tcemu sends them
    // through tcemu's native path instead (SGEMM / DGEMM on the real embedding).
    const char* native_env = std::getenv("TCEMU_QSIM_NATIVE");
    const bool native_via_tcemu = native_env && std::string(native_env) == "tcemu";
    method = o.gemm.scheme.is_native() && !native_via_tcemu ? tcemu::cuda::ComplexMethod::blas : o.gemm.execution.complex;
  }
  bool allow_high() const { return method == tcemu::cuda::ComplexMethod::four_m; }

  template <class MakeU>
  InPlace in_place(const C* x, C* y, int n, const std::vector<int>& positions, MakeU&& make_u, std::string& note) {
    // The rule qsim's auto predicts with (auto_in_place_support): empty when in-place is switched off.
    // Its condition, BitGemm::supports at min(n, 32) bits, follows from the check below at `bits` <=
    // min(n, 32) (supports allows every n from d + row bits to 32), so only its presence is asked.
    static const InPlaceSupport rule = auto_in_place_support(Device::cuda);
    if constexpr (std::is_same_v<T, float>) {
      // Past the kernel's 32-bit tables (options.in_place_segment_bits) a block whose positions all lie
      // below them runs segment by segment: the higher bits are fixed within a segment.
      const int d = static_cast<int>(positions.size());
      const int bits = std::min({n, options.in_place_segment_bits, 32});
      if (!rule || positions.back() >= bits ||
          !tcemu::cuda::BitGemm::supports(options.gemm.scheme, d, bits))
        return InPlace::unsupported;
      const std::vector<SC> u = make_u();
      const std::uint64_t segment = std::uint64_t(1) << bits;
      for (std::uint64_t k = 0; k < (std::uint64_t(1) << (n - bits)); ++k) {
        const tcemu::cuda::BitGemmReport r =
            bit_gemm.apply(reinterpret_cast<const SC*>(x) + k * segment, reinterpret_cast<SC*>(y) + k * segment, bits,
                           positions, u.data(), options.gemm.scheme, stream);
        if (!r.launched) {  // U broke a rule before the launch: nothing was written (same U per segment)
          note = r.note;
          return InPlace::rejected;
        }
        if (!r.applied && note.empty()) note = r.note;
      }
      return note.empty() ? InPlace::applied : InPlace::declined;
    } else {
      (void)x, (void)y, (void)n, (void)positions, (void)make_u, (void)note;
      return InPlace::unsupported;
    }
  }

  tcemu::GemmReport gemm(tcemu::Op opA, tcemu::Op opB, tcemu::MatrixView<const SC> A, tcemu::MatrixView<const SC> B,
                         tcemu::MatrixView<SC> out) {
    return tcemu::cuda::complex_gemm_device<T>(opA, opB, SC(1), A, B, SC(0), out, options.gemm, stream, &ws, method);
  }

  bool permute_tiled(const C* src, C* dst, const std::uint32_t* plan, int tile_bits, std::uint64_t tiles) {
    cuda_kernels::permute_tiled(src, dst, static_cast<int>(sizeof(C)), plan, tile_bits, tiles, stream);
    return true;
  }
};

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
