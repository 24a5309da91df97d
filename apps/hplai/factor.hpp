#pragma once
/// \file factor.hpp
/// The blocked right-looking LU without pivoting of lu.hpp, written once for every execution space:
/// the factors in a Kokkos View in the space's memory, the panels and the block-row solves through
/// DenseSolvers<Space> (dense.hpp: LAPACK/CBLAS on the host, cuSOLVER/cuBLAS on the GPU), the
/// operand scaling with Kokkos parallel patterns (kernels.hpp) and the trailing updates through the
/// core's View entry tcemu::gemm(space, ...) on sub-views of the factors.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "app_common/timing.hpp"
#include "dense.hpp"
#include "kernels.hpp"
#include "lu.hpp"
#include "tcemu/error.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/resources.hpp"

namespace hplai {

/// Columns of A22 per trailing-update GEMM on the GPU (bounds the per-group accumulators the CUDA
/// backend allocates); the host updates the whole of A22 in one GEMM.
constexpr std::int64_t kUpdateChunk = 16384;

/// Exponent e >= 0 with max * 2^e in [1, 2) (lu.hpp's operand scaling); 0 when max >= 1, 0 or not finite.
inline int operand_scale(double max) {
  if (!(max > 0) || max >= 1 || !std::isfinite(max)) return 0;
  return -std::ilogb(max);
}

/// True for the schemes whose trailing updates get the operand scaling (lu.hpp) in working precision
/// T: those whose parts lose precision above T's smallest normal binade (scheme.min_exp above it:
/// fp16, fp16x2, -markidis, -egemm, -legemm, tf32x2, tf32x2-aligned, bf16x3, bf16x3-aligned,
/// bf16x9), and auto, whose scheme is chosen per call. For the others (native, int8-ozaki, bf16,
/// tf32, fp16x2-aligned, int8-mixpert, int8-crt) a scaling by a power of two cannot change a bit of
/// the update as long as no operand or product is subnormal in T (a test checks it on the host), so
/// neither the maxima nor the scalings run.
template <class T>
bool wants_scaling(const tcemu::Scheme& s) {
  if (s.is_native() || s.kind == tcemu::SchemeKind::int8_ozaki) return false;
  return s.is_automatic() || s.min_exp > std::numeric_limits<T>::min_exponent - 1;
}

/// Factors the n x n View LU (in Space's memory; row-major strides on the host, column-major on the
/// GPU, as DenseSolvers<Space>::Layout says) in place into L\U without pivoting, as lu.hpp describes.
/// `tiny`: the pivot threshold (eps_T * max |a_ij|). `resources`: the CUDA workspace of the trailing
/// updates (nullptr: the per-thread default). Throws SingularPivot for the first pivot that is zero,
/// not finite or <= tiny (the host's panels check as they go, the GPU's after the factorisation),
/// tcemu::InvalidArgument for nb < 1 or factors whose strides are not the solvers' layout.
template <class Space, class ViewLU>
LuStats factor_blocked(const Space& space, DenseSolvers<Space>& solvers, const ViewLU& LU, const LuOptions& options,
                       tcemu::Resources* resources, double tiny) {
  using T = typename ViewLU::non_const_value_type;
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  using Range = std::pair<std::int64_t, std::int64_t>;
  const std::int64_t n = static_cast<std::int64_t>(LU.extent(0));
  if (options.nb < 1) throw tcemu::InvalidArgument("--nb " + std::to_string(options.nb) + " must be >= 1");
  constexpr bool row_major = std::is_same_v<typename DenseSolvers<Space>::Layout, Kokkos::LayoutRight>;
  const std::int64_t s0 = static_cast<std::int64_t>(LU.stride(0)), s1 = static_cast<std::int64_t>(LU.stride(1));
  if (n > 1 && (row_major ? s1 : s0) != 1)
    throw tcemu::InvalidArgument(std::string("factor_blocked: the factors must be ") +
                                 (row_major ? "row-major" : "column-major") + " for this execution space");
  const std::int64_t ld = row_major ? s0 : s1;
  const std::int64_t nb = std::min(options.nb, n), panels = (n + nb - 1) / nb;
  const bool scaled = options.scale_operands && wants_scaling<T>(options.gemm.scheme);
  const std::int64_t chunk = tcemu::detail::is_cuda_execution_space<Space>() ? kUpdateChunk : n;
  T* const base = LU.data();
  auto at = [&](std::int64_t i, std::int64_t j) { return base + i * s0 + j * s1; };

  LuStats st;
  const auto start = Clock::now();
  for (std::int64_t k0 = 0, p = 1; k0 < n; k0 += nb, ++p) {
    const std::int64_t kb = std::min(nb, n - k0), rest = n - k0 - kb;  // rest: order of the trailing matrix
    auto t0 = Clock::now();
    solvers.factor_panel(at(k0, k0), n - k0, kb, ld, tiny, k0);  // [A11; A21] -> [L11\U11; L21]
    st.seconds_panel += seconds_since(t0);
    if (rest == 0) {
      if (options.progress) options.progress({p, panels, k0 + kb, seconds_since(start)});
      continue;
    }
    t0 = Clock::now();
    solvers.solve_block_row(at(k0, k0), at(k0, k0 + kb), kb, rest, ld);  // U12 = L11^-1 A12
    st.seconds_solve += seconds_since(t0);

    t0 = Clock::now();
    const Range below(k0 + kb, n), panel(k0, k0 + kb);
    const auto L21 = Kokkos::subview(LU, below, panel);
    const auto U12 = Kokkos::subview(LU, panel, below);
    const int sl = scaled ? operand_scale(kernels::absmax(space, L21)) : 0;
    const int su = scaled ? operand_scale(kernels::absmax(space, U12)) : 0;
    if (sl != 0) kernels::scale(space, L21, static_cast<T>(std::ldexp(1.0, sl)));
    if (su != 0) kernels::scale(space, U12, static_cast<T>(std::ldexp(1.0, su)));
    const T alpha = static_cast<T>(-std::ldexp(1.0, -(sl + su)));
    for (std::int64_t c0 = 0; c0 < rest; c0 += chunk) {  // A22 -= L21 U12, emulated
      const Range cols(k0 + kb + c0, k0 + kb + std::min(rest, c0 + chunk));
      const auto U = Kokkos::subview(LU, panel, cols);
      const auto C = Kokkos::subview(LU, below, cols);
      const tcemu::GemmReport rep =
          resources ? tcemu::gemm(space, tcemu::Op::N, tcemu::Op::N, alpha, L21, U, T(1), C, options.gemm, *resources)
                    : tcemu::gemm(space, tcemu::Op::N, tcemu::Op::N, alpha, L21, U, T(1), C, options.gemm);
      ++st.updates;
      st.gemm.add(rep);
    }
    if (sl != 0) kernels::scale(space, L21, static_cast<T>(std::ldexp(1.0, -sl)));
    if (su != 0) kernels::scale(space, U12, static_cast<T>(std::ldexp(1.0, -su)));
    space.fence();
    st.seconds_update += seconds_since(t0);
    if (options.progress) options.progress({p, panels, k0 + kb, seconds_since(start)});
  }
  // The GPU's panels do not check their pivots: the first zero / non-finite / negligible one.
  const std::int64_t first = kernels::first_bad_pivot(space, LU, tiny);
  st.seconds = seconds_since(start);
  if (first < n) throw SingularPivot(first, kernels::element(space, LU, first, first), tiny);
  return st;
}

}  // namespace hplai
