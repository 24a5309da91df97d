#pragma once
/// \file gemm.hpp
/// tcemu's GEMM: C = alpha * op(A) * op(B) + beta * C with any scheme of the catalogue.
///
/// Two entry points:
///  - gemm(...) on Kokkos Views (rank 2, any layout): the View's memory space picks the backend
///    (host-accessible -> host backend; Kokkos::CudaSpace -> CUDA backend when tcemu is built with
///    CUDA against a CUDA-enabled Kokkos 4, docs/kokkos.md).
///  - gemm_host(...) on raw strided MatrixViews, for codes that do not use Kokkos Views.
/// Shapes: op(A) is m x k, op(B) is k x n, C is m x n. Element types: float (FP32 target) or double
/// (FP64 target, and FP32-target schemes applied to double data after rounding it to float).
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "tcemu/error.hpp"
#include "tcemu/execution.hpp"
#include "tcemu/matrix.hpp"
#include "tcemu/mixpert.hpp"
#include "tcemu/scheme.hpp"
#include "tcemu/select.hpp"

namespace tcemu {

/// What to do when an operand is outside the requested scheme's range (see range_violation()).
enum class RangePolicy {
  fallback,  ///< compute with native arithmetic of the scheme's target and say so in the report
  error,     ///< throw InvalidArgument naming the operand and the violated rule
  ignore,    ///< compute with the scheme anyway (for studies of out-of-range behaviour)
};

/// Options of one gemm call.
struct GemmOptions {
  Scheme scheme = parse_scheme("auto");  ///< scheme to use; "auto" chooses per call
  RangePolicy range_policy = RangePolicy::fallback;
  /// Cost model `auto` uses; nullptr = the backend's own (CostModel::host() on the host; on the GPU
  /// the device's measured model per execution.calibration, tcemu/cuda/calibrate.hpp).
  const CostModel* cost_model = nullptr;
  /// How the backend executes the resolved scheme (fused or multi-pass, chunking, the cost model's
  /// source, ...): tcemu/execution.hpp. The defaults are the measured-fastest choices.
  ExecutionPolicy execution;
};

/// What a gemm call did.
struct GemmReport {
  Scheme requested;
  Scheme used;                  ///< after auto's choice and any range fallback
  bool fell_back = false;       ///< true when the range check replaced the requested scheme
  std::string note;             ///< why it fell back (names the operand and the rule), or ""
  /// What the planning step decided: auto's choice (candidates empty when auto was not used; on the
  /// CUDA backend, when auto's pick for in-range operands is native arithmetic, the plan is that one,
  /// made on a nominal profile: no real profile can change a native pick, so the operands are not
  /// profiled), and in plan.execution how the call ran: scheme, slices, implementation and why,
  /// orientation and why, overlap policy, the stages in the order run, workspace bytes.
  /// plan.explain() prints both.
  Plan plan;
  double seconds_split = 0;     ///< range profile + split of both operands
  double seconds_products = 0;  ///< the part products (BLAS / Tensor Core GEMMs)
  double seconds_combine = 0;   ///< combining the accumulators into C
  /// What computed the products of `used`: "host (CBLAS)", "cuBLAS", "fused (wgmma)", "fused (mma.sync)",
  /// "multi-pass (cuBLAS per group)", "Ozaki slices (cuBLAS INT8)", "MixPert kernel", "int8-crt: residue
  /// pass, cuBLAS INT8 (...), reconstruction pass"; "" when nothing ran
  /// (an empty C). A fused request for a scheme without a fused kernel shows here as multi-pass.
  std::string kernels;
  /// int8-crt: the modulus count and the certified bound that chose it (crt::Certificate::text), or
  /// "N = <n> moduli (given)"; "" for other schemes.
  std::string certificate;
};

/// Host backend on raw strided views (see file comment). Splits run as Kokkos host loops, products
/// through CBLAS on the split parts. Throws InvalidArgument on inconsistent shapes (the message names
/// the operand and the shapes), or for an out-of-range operand under RangePolicy::error.
/// Requires Kokkos to be initialized.
template <class T>
GemmReport gemm_host(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                     MatrixView<T> C, const GemmOptions& options = {});

/// Resolves the scheme a backend will run, shared by all backends: auto's plan (with
/// options.cost_model, else `backend_model`), the Ozaki slice count when the scheme leaves it open
/// (ozaki_slices_for), and the range check of both operands under options.range_policy. Fills
/// report.requested/used/fell_back/note/plan and returns the scheme to run (never auto, never Ozaki
/// with 0 slices). Throws InvalidArgument under RangePolicy::error, naming the operand and the rule.
Scheme resolve_scheme(const GemmOptions& options, const RangeProfile& a, const RangeProfile& b,
                      std::int64_t m, std::int64_t n, std::int64_t k, const CostModel& backend_model,
                      GemmReport& report);

/// Checks that op(A) (m x k), op(B) (k x n) and C (m x n) agree; throws InvalidArgument otherwise.
void check_gemm_shapes(std::int64_t a_rows, std::int64_t a_cols, std::int64_t b_rows,
                       std::int64_t b_cols, std::int64_t c_rows, std::int64_t c_cols);

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
}  // namespace tcemu
struct CUstream_st;
namespace tcemu::cuda {
class Workspace;
/// CUDA backend (declared fully, with its documentation, in tcemu/cuda/gemm_cuda.hpp).
template <class T>
GemmReport gemm_device(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                       MatrixView<T> C, const GemmOptions& options, ::CUstream_st* stream,
                       Workspace* ws);
}  // namespace tcemu::cuda
namespace tcemu {
#endif

namespace detail {

/// int8-mixpert's range check on both packed operands (x = op(A), m x k; y = op(B), k x n): "" or a
/// one-line reason naming the operand (tcemu/mixpert.hpp, violation()).
std::string mixpert_violation(const mixpert::PackCheck& a, const mixpert::PackCheck& b, std::int64_t m,
                              std::int64_t n, std::int64_t k);

/// The fallback of a scheme whose check runs inside its arithmetic path (int8-mixpert's tile rule,
/// int8-crt's certificate), shared by the backends: under RangePolicy::error throws InvalidArgument
/// with `why`; otherwise runs `run(options with the descriptor's fallback scheme)` (int8-mixpert:
/// bf16x3, as the paper falls back to half-precision emulation, whose own range check may go on to
/// native FP32; none named, as int8-crt: native arithmetic of the target) and returns its report
/// with requested = options.scheme, fell_back and a note that starts with `why`.
template <class Run>
GemmReport scheme_fallback(const GemmOptions& options, const std::string& why, Run run) {
  if (options.range_policy == RangePolicy::error)
    throw InvalidArgument("gemm with scheme " + options.scheme.name + ": " + why);
  GemmOptions o = options;
  // The descriptor's fallback, or native arithmetic of the target when it names none.
  const char* fallback = schemes::descriptor(options.scheme.kind).fallback;
  o.scheme = fallback ? parse_scheme(fallback) : parse_scheme(to_string(options.scheme.target));
  GemmReport r = run(o);
  r.requested = options.scheme;
  r.fell_back = true;
  r.note = options.scheme.name + " -> " + r.used.name + ": " + why + (r.note.empty() ? "" : "; then " + r.note);
  return r;
}

/// int8-mixpert's name for scheme_fallback (the backends' tile-rule fallback).
template <class Run>
GemmReport mixpert_fallback(const GemmOptions& options, const std::string& why, Run run) {
  return scheme_fallback(options, why, run);
}

template <class View>
auto to_matrix_view(const View& v) {
  static_assert(View::rank == 2, "tcemu::gemm needs rank-2 Views");
  using T = typename View::value_type;
  return MatrixView<T>{v.data(), static_cast<std::int64_t>(v.extent(0)),
                       static_cast<std::int64_t>(v.extent(1)), static_cast<std::int64_t>(v.stride(0)),
                       static_cast<std::int64_t>(v.stride(1))};
}
}  // namespace detail

/// C = alpha * op(A) * op(B) + beta * C on Kokkos Views (rank 2; LayoutLeft, LayoutRight or
/// LayoutStride). All three Views must live in the same memory space, which selects the backend.
/// Throws InvalidArgument on shape mismatch, DeviceError if the space has no backend in this build.
template <class ViewA, class ViewB, class ViewC>
GemmReport gemm(Op opA, Op opB, typename ViewC::non_const_value_type alpha, const ViewA& A,
                const ViewB& B, typename ViewC::non_const_value_type beta, const ViewC& C,
                const GemmOptions& options = {}) {
  using T = typename ViewC::non_const_value_type;
  static_assert(std::is_same_v<typename ViewA::non_const_value_type, T> &&
                    std::is_same_v<typename ViewB::non_const_value_type, T>,
                "tcemu::gemm: A, B and C must have the same element type");
  using Space = typename ViewC::memory_space;
  static_assert(std::is_same_v<typename ViewA::memory_space, Space> &&
                    std::is_same_v<typename ViewB::memory_space, Space>,
                "tcemu::gemm: A, B and C must live in the same memory space");
  const auto a = detail::to_matrix_view(A);
  const auto b = detail::to_matrix_view(B);
  const auto c = detail::to_matrix_view(C);
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space>::accessible) {
    return gemm_host<T>(opA, opB, alpha, a.as_const(), b.as_const(), beta, c, options);
  }
#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
  else if constexpr (std::is_same_v<Space, Kokkos::CudaSpace>) {
    // Device Views: the CUDA backend on the default Cuda execution space instance's stream (work
    // queued there before the call runs first); it returns when C is complete.
    return cuda::gemm_device<T>(opA, opB, alpha, a.as_const(), b.as_const(), beta, c, options,
                                Kokkos::Cuda().cuda_stream(), nullptr);
  }
#endif
  else {
    throw DeviceError("tcemu::gemm: no backend for memory space " + std::string(Space::name()) +
                      " in this build");
  }
}

}  // namespace tcemu
