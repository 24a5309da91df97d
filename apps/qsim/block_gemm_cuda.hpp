#pragma once
/// \file block_gemm_cuda.hpp
/// The GPU's BlockGemm (simulate_engine.hpp's backend interface) for Kokkos::Cuda. Shared by the
/// one-process GPU run (simulate_cuda.cpp) and the GPU run over MPI ranks (distributed_cuda.cpp);
/// include only in builds with KOKKOS_ENABLE_CUDA and TCEMU_HAVE_CUDA. simulate_cuda.cpp's file
/// comment explains the placements and the in-place kernel.
#include <Kokkos_Core.hpp>
#include <cuda_runtime.h>

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "auto_config.hpp"
#include "permute_cuda.hpp"
#include "simulate_engine.hpp"
#include "tcemu/cuda/bit_gemm.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"

namespace qsim {

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

  /// int8-crt with N given reads the state through the permutation in its residue pass
  /// (tcemu::cuda::complex_gemm_device_gathered, which declines every other scheme and shape).
  bool gathered(const C* x, C* y, int s, const std::vector<int>& source_positions, const C* u, tcemu::GemmReport& rep) {
    const int n = static_cast<int>(source_positions.size());
    tcemu::cuda::BitGather g;
    g.col_positions.assign(source_positions.begin(), source_positions.begin() + s);
    g.row_positions.assign(source_positions.begin() + s, source_positions.end());
    const std::int64_t d = std::int64_t(1) << s, rows = std::int64_t(1) << (n - s);
    const auto U = tcemu::row_major<const SC>(reinterpret_cast<const SC*>(u), d, d);
    return tcemu::cuda::complex_gemm_device_gathered<T>(reinterpret_cast<const SC*>(x), g, tcemu::Op::T, U,
                                                        tcemu::row_major<SC>(reinterpret_cast<SC*>(y), rows, d),
                                                        options.gemm, stream, &ws, method, rep);
  }

  bool permute_tiled(const C* src, C* dst, const std::uint32_t* plan, int tile_bits, std::uint64_t tiles) {
    cuda_kernels::permute_tiled(src, dst, static_cast<int>(sizeof(C)), plan, tile_bits, tiles, stream);
    return true;
  }
};

}  // namespace engine

}  // namespace qsim
