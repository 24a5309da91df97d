#pragma once
/// \file block_gemm_host.hpp
/// The host's BlockGemm (simulate_engine.hpp's backend interface) for Kokkos::DefaultHostExecutionSpace:
/// tcemu::complex_gemm_host, no in-place or hand-written kernels. Shared by the one-process host run
/// (simulate.cpp) and the host run over MPI ranks (distributed.cpp).
#include <Kokkos_Core.hpp>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "simulate_engine.hpp"
#include "tcemu/complex_gemm.hpp"

namespace qsim {

namespace engine {

/// The host's block GEMM: tcemu::complex_gemm_host; no in-place or hand-written kernels.
template <class T>
struct BlockGemm<Kokkos::DefaultHostExecutionSpace, T> {
  using C = Kokkos::complex<T>;
  using SC = std::complex<T>;
  const SimOptions& options;
  BlockGemm(const Kokkos::DefaultHostExecutionSpace&, const SimOptions& o) : options(o) {}
  bool allow_high() const { return true; }
  template <class MakeU>
  InPlace in_place(const C*, C*, int, const std::vector<int>&, MakeU&&, std::string&) {
    return InPlace::unsupported;
  }
  tcemu::GemmReport gemm(tcemu::Op opA, tcemu::Op opB, tcemu::MatrixView<const SC> A, tcemu::MatrixView<const SC> B,
                         tcemu::MatrixView<SC> out) {
    return tcemu::complex_gemm_host<T>(opA, opB, SC(1), A, B, SC(0), out, options.gemm);
  }
  bool gathered(const C*, C*, int, const std::vector<int>&, const C*, tcemu::GemmReport&) { return false; }
  bool permute_tiled(const C*, C*, const std::uint32_t*, int, std::uint64_t) { return false; }
};

}  // namespace engine

}  // namespace qsim
